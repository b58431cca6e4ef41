"""A column of panels that scrolls up and down when the window is too short for it, not squeezed.

Qt's layouts count a panel's height for its width (wrapped text, a flow of check marks) in no
minimum size, so a column that only gets its minimum height crushes such panels (150 % on
768 or 800 px). ColumnScroll gives its content the column's width and at least the height its
panels need at that width; a vertical scroll bar shows only while that is more than the column's
height. It never scrolls sideways: the content is as wide as the column (less the scroll bar).

For the splitter it sits in, the column is as wide as its content needs (its preferred width is
the content's; its least width the content's and, while it scrolls, the scroll bar's, or
`set_least_width`'s if that is more), and as short as a scroll area may be.
`set_scrolling(False)` makes it a plain column again (presentation mode arranges the panels to
fit its height): the content then takes exactly the column's size, and the column's least height
is the content's.

The wheel over the column scrolls it: a control in it (a combo box, a spin box, a slider, the
weights table's nudge) takes the wheel only once the learner has clicked or tabbed into it
(app/widgets/wheel_guard.py), also where everything fits and nothing scrolls.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget

from app.widgets.wheel_guard import guard_scroll_area


class ColumnScroll(QScrollArea):
    def __init__(self, content: QWidget, object_name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)   # on only while needed (_fit)
        self.setWidgetResizable(False)             # sized here: as wide as the column, never wider
        self.setWidget(content)
        content.installEventFilter(self)
        guard_scroll_area(self)                    # the wheel: see the module's docstring
        self._scrolling = True
        self._fitting = False
        self._least_width = 0

    # --- sizes for the splitter ---------------------------------------------------------------
    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        content = self.widget()
        if content is None:
            return super().minimumSizeHint()
        least = content.minimumSizeHint()
        if self._scrolling:
            least.setHeight(min(least.height(), super().minimumSizeHint().height()))
            # room for the bar beside the content (an explicit minimum width would hide what the
            # content needs: a column held narrower squeezes its panels and cuts their texts)
            least.setWidth(max(least.width() + self._bar_width(), self._least_width))
        return least

    def set_least_width(self, width: int) -> None:
        """While the column scrolls, it is at least `width` px wide (more if its content needs it)."""
        self._least_width = width
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        content = self.widget()
        if content is None:
            return super().sizeHint()
        hint = content.sizeHint()
        if self._bar_on():
            hint.setWidth(hint.width() + self._bar_width())
        return hint

    def set_scrolling(self, scrolling: bool) -> None:
        """Scroll when short of height (True), or be a plain column the content fills (False)."""
        if scrolling == self._scrolling:
            return
        self._scrolling = scrolling
        self.updateGeometry()                      # another least height
        self._fit()

    def scrolling(self) -> bool:
        return self._scrolling

    # --- the content's size -------------------------------------------------------------------
    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            # (its layout has just been laid out: Qt hands a widget's layout its events first)
            self._fit()
            self.updateGeometry()                  # as a plain column's layout would tell the splitter
        return super().eventFilter(watched, event)

    def needed_height(self, width: int) -> int:
        """The content's least height at `width`: every panel at least at its minimum, and those
        whose height depends on their width at their height for it."""
        content = self.widget()
        least = content.minimumSizeHint().height()
        layout = content.layout()
        if layout is not None and layout.hasHeightForWidth():
            least = max(least, layout.minimumHeightForWidth(width))
        return max(least, content.minimumHeight())

    def _bar_width(self) -> int:
        return self.verticalScrollBar().sizeHint().width()

    def _bar_on(self) -> bool:
        return self.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOn

    def _fit(self) -> None:
        content = self.widget()
        if content is None or self._fitting:
            return
        self._fitting = True
        try:
            frame = 2 * self.frameWidth()
            width, height = self.width() - frame, self.height() - frame
            bar = self._scrolling and self.needed_height(width) > height
            if bar != self._bar_on():
                self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn if bar
                                                else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
                self.updateGeometry()              # its preferred width counts the bar
            if bar:
                width = max(width - self._bar_width(), 0)
                height = max(height, self.needed_height(width))
            if content.size() != QSize(width, height):
                content.resize(width, height)
        finally:
            self._fitting = False
