"""Tabs in a narrow tab widget: the tabs that fit, and a menu of all of them.

At 1024×768 in presentation mode the plots panel is about 320 px wide: five tab titles in
16 px text need more. Rather than scroll buttons (which hide tabs behind arrows) or elided
titles, the tab bar shows the run of tabs around the current one that fits, and a button at
its right end (objectName "<panel>AllTabs") opens a menu of every tab. A wide panel shows
every tab and no button.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabWidget, QToolButton

FRAME_PX = 4          # the tab widget's frame beside the tab bar


class TabOverflow(QObject):
    """Keeps `tabs`' visible tabs within its width (call `update()` after a change of size, font,
    language or the current tab; `later()` when the new sizes are known only after this event)."""

    def __init__(self, tabs: QTabWidget):
        super().__init__(tabs)
        self.tabs = tabs
        self.button = QToolButton(tabs)
        self.button.setObjectName(f"{tabs.objectName()}AllTabs")
        self.button.setArrowType(Qt.ArrowType.DownArrow)
        self.button.setAutoRaise(True)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self.button)
        self.menu.setObjectName(f"{tabs.objectName()}AllTabsMenu")
        self.menu.aboutToShow.connect(self._fill_menu)
        self.button.setMenu(self.menu)
        tabs.setCornerWidget(self.button, Qt.Corner.TopRightCorner)
        self.button.setVisible(False)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.update)
        tabs.currentChanged.connect(lambda _index: self.update())
        self.retranslate()

    def retranslate(self) -> None:
        self.button.setToolTip(QCoreApplication.translate("PlotsPanel", "All plots"))

    def later(self) -> None:
        self._timer.start()

    def overflowing(self) -> bool:
        return self.button.isVisibleTo(self.tabs)

    def update(self) -> None:
        tabs, bar = self.tabs, self.tabs.tabBar()
        count, current = tabs.count(), tabs.currentIndex()
        if count == 0 or current < 0:
            return
        widths = [bar.tabSizeHint(i).width() for i in range(count)]
        room = tabs.width() - FRAME_PX
        if sum(widths) <= room:
            shown = range(count)
        else:
            room -= self.button.sizeHint().width()
            first = last = current
            used = widths[current]
            grew = True
            while grew:                       # grow the run right, then left, while it fits
                grew = False
                if last + 1 < count and used + widths[last + 1] <= room:
                    last += 1
                    used += widths[last]
                    grew = True
                if first > 0 and used + widths[first - 1] <= room:
                    first -= 1
                    used += widths[first]
                    grew = True
            shown = range(first, last + 1)
        for index in shown:                   # show first: hiding never touches the current tab
            tabs.setTabVisible(index, True)
        for index in range(count):
            if index not in shown:
                tabs.setTabVisible(index, False)
        self.button.setVisible(len(shown) < count)

    def _fill_menu(self) -> None:
        self.menu.clear()
        for index in range(self.tabs.count()):
            action = QAction(self.tabs.tabText(index), self.menu)
            action.setCheckable(True)
            action.setChecked(index == self.tabs.currentIndex())
            action.setEnabled(self.tabs.isTabEnabled(index))
            action.triggered.connect(lambda _checked=False, index=index: self.tabs.setCurrentIndex(index))
            self.menu.addAction(action)
