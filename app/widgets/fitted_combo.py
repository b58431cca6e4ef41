"""A combo box never narrower than its longest item, in its current font and language."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QWidget


class FittedComboBox(QComboBox):
    """A combo box whose minimum width fits its longest item's text in its field.

    Qt measures a combo box's minimum size once and keeps it: after a larger interface zoom
    (presentation mode) or a live switch to the other language, a layout short of room would
    squeeze the box below its text and clip it. Here the minimum is measured again from the
    items as they are now; the preferred width follows Qt's AdjustToContents."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

    def fitted_width(self) -> int:
        """The width at which the field shows the longest item whole."""
        metrics = QFontMetricsF(self.font())
        longest = max((metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0.0)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        option.rect.setWidth(max(option.rect.width(), 200))  # the frame and arrow around the field
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        return int(longest + 0.999) + option.rect.width() - field.width() + 1

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        return QSize(max(hint.width(), self.fitted_width()), hint.height())

    def sizeHint(self) -> QSize:  # noqa: N802
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.fitted_width()), hint.height())

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.updateGeometry()
