"""A combo box that elides its current text deliberately, with the whole text in its tooltip."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics, QGuiApplication
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from app.widgets.inert import plain_tooltip

POPUP_MARGIN_PX = 32          # the popup's frame, scroll bar and item padding around the longest text


class ElidedComboBox(QComboBox):
    """A combo box for long items (lesson titles) in a row short of room.

    Qt cuts a current text that does not fit mid-word at the field's edge ("… and wh"). Here a
    text too long for the field ends in "…" at the field's edge, the tooltip then holds the whole
    text (and is empty while the text fits), and the popup list is wide enough for its longest
    item, up to the screen's width, so every item can be read whole there.

    `set_least_contents_length(n)`: in a row short of room the box may narrow to n characters'
    width (Qt's minimumContentsLength stays its preferred width)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._least_length: int | None = None
        self.currentIndexChanged.connect(self._update_tooltip)
        self.model().dataChanged.connect(self._update_tooltip)      # setItemText (a new language)
        self.model().rowsInserted.connect(self._update_tooltip)
        self.model().rowsRemoved.connect(self._update_tooltip)

    def set_least_contents_length(self, characters: int) -> None:
        self._least_length = characters
        self.updateGeometry()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        least = super().minimumSizeHint()
        spare = self.minimumContentsLength() - (self._least_length or 0)
        if self._least_length is None or spare <= 0:
            return least
        # Qt counts minimumContentsLength in widths of "X"
        return QSize(max(0, least.width() - spare * QFontMetrics(self.font()).horizontalAdvance("X")), least.height())

    def field_width(self) -> int:
        """The width of the field the current text is drawn in."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                           QStyle.SubControl.SC_ComboBoxEditField, self).width()

    def shown_text(self) -> str:
        """The current text as the field shows it: whole, or elided with "…"."""
        return QFontMetrics(self.font()).elidedText(self.currentText(), Qt.TextElideMode.ElideRight,
                                                    max(0, self.field_width()))

    def is_elided(self) -> bool:
        return self.shown_text() != self.currentText()

    def _update_tooltip(self, *_args) -> None:
        tooltip = plain_tooltip(self.currentText()) if self.is_elided() else ""  # a file's title: never HTML
        if self.toolTip() != tooltip:
            self.setToolTip(tooltip)

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt's name)
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.currentText = self.shown_text()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._update_tooltip()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._update_tooltip()

    def showPopup(self) -> None:  # noqa: N802
        """The list as wide as its longest item (within the screen), whatever the box's width."""
        metrics = QFontMetrics(self.view().font())
        longest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0)
        screen = self.screen() or QGuiApplication.primaryScreen()
        room = screen.availableGeometry().width() if screen is not None else longest + POPUP_MARGIN_PX
        self.view().setMinimumWidth(min(longest + POPUP_MARGIN_PX, room))
        super().showPopup()
