"""Opaque widgets in a group box: a live control's repaint stops at them.

A widget that draws no background of its own lets whatever is behind it show through, so Qt
paints every ancestor under a region that changed: a slider and a spin box whose value changes on
every edit repaint the window, the splitter, the group box and the panels between them as well
(six paint events for two small controls). `GroupBoxBackdrop` draws, itself, what those would
draw there — the window's colour and the group box's frame and fill, as the group box's own paint
does — and is marked opaque, so the repaint of a changed control goes no further up."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGroupBox, QStyle, QStyleOptionGroupBox, QWidget


class GroupBoxBackdrop(QWidget):
    """A container, inside a QGroupBox, that paints what is behind it (the window's colour, then
    the group box as it paints itself) and is opaque to Qt's repaints. Its ancestors between it
    and the group box must draw nothing (plain QWidgets)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)

    def group_box(self) -> QGroupBox | None:
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QGroupBox):
            parent = parent.parentWidget()
        return parent

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setClipRegion(event.region())
        painter.fillRect(self.rect(), self.palette().window())       # the window behind all of it
        box = self.group_box()
        if box is not None:
            option = QStyleOptionGroupBox()
            box.initStyleOption(option)
            painter.translate(-self.mapTo(box, QPoint(0, 0)))
            box.style().drawComplexControl(QStyle.ComplexControl.CC_GroupBox, option, painter, box)
        painter.end()
