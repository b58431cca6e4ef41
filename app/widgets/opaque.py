"""Opaque widgets in a group box: a live control's repaint stops at them.

A widget that draws no background of its own lets whatever is behind it show through, so Qt
paints every ancestor under a region that changed: a slider and a spin box whose value changes on
every edit repaint the window, the splitter, the group box and the panels between them as well
(six paint events for two small controls). `GroupBoxBackdrop` draws, itself, what those would
draw there — the window's colour and the group box's frame and fill, as the group box's own paint
does — and is marked opaque, so the repaint of a changed control goes no further up.

What it draws changes only when the group box looks otherwise (its size, title, palette, font,
state …) or when the backdrop is resized, moved in it or given another palette or style. It is
drawn once into a pixmap and copied from there: a repaint under a changed control copies those
pixels, instead of laying out and drawing the group box's frame and title again (its title's text
was shaped on every edit). The pixmap is dropped when the group box is painted (that is how a Qt
widget shows a change) or sent an event that may change its look (a new font, palette, size,
state …), and drawn again when the group box's title, flatness, check or alignment differ from
those it was drawn for (its setters of these send no event, and a group box covered wholly by
opaque widgets is not painted)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QGroupBox, QStyle, QStyleOptionGroupBox, QWidget

_OWN_LOOK = frozenset((QEvent.Type.PaletteChange, QEvent.Type.StyleChange, QEvent.Type.FontChange))
# The group box's events after which it may look otherwise; its setters that send none (title, flat,
# checkable, checked, alignment) are read into the key.
_BOX_LOOK = _OWN_LOOK | {QEvent.Type.Paint, QEvent.Type.Resize, QEvent.Type.EnabledChange,
                         QEvent.Type.ActivationChange, QEvent.Type.LayoutDirectionChange, QEvent.Type.LanguageChange,
                         QEvent.Type.Enter, QEvent.Type.Leave, QEvent.Type.FocusIn, QEvent.Type.FocusOut}


class GroupBoxBackdrop(QWidget):
    """A container, inside a QGroupBox, that paints what is behind it (the window's colour, then
    the group box as it paints itself) and is opaque to Qt's repaints. Its ancestors between it
    and the group box must draw nothing (plain QWidgets)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self._backdrop: QPixmap | None = None      # what paint_backdrop drew, for …
        self._backdrop_key: tuple = ()             # … this size, pixel ratio, place, and the box's title …
        self._watched: QGroupBox | None = None     # the group box whose paint events drop it

    def group_box(self) -> QGroupBox | None:
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QGroupBox):
            parent = parent.parentWidget()
        return parent

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        box = self.group_box()
        if box is not self._watched:
            self._watch(box)
        place = self.mapTo(box, QPoint(0, 0)) if box is not None else QPoint(0, 0)
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, place.x(), place.y())
        if box is not None:
            key += (box.title(), box.isFlat(), box.isCheckable(), box.isChecked(), box.alignment())
        if self._backdrop is None or key != self._backdrop_key:
            pixmap = QPixmap(self.size() * ratio)
            pixmap.setDevicePixelRatio(ratio)
            drawing = QPainter(pixmap)
            self.paint_backdrop(drawing, box)
            drawing.end()
            self._backdrop, self._backdrop_key = pixmap, key
        painter = QPainter(self)
        painter.setClipRegion(event.region())
        painter.drawPixmap(0, 0, self._backdrop)
        painter.end()

    def paint_backdrop(self, painter: QPainter, box: QGroupBox | None) -> None:
        """What is behind this widget: the window's colour, then the group box as it paints itself."""
        painter.fillRect(self.rect(), self.palette().window())       # the window behind all of it
        if box is not None:
            option = QStyleOptionGroupBox()
            box.initStyleOption(option)
            painter.translate(-self.mapTo(box, QPoint(0, 0)))
            box.style().drawComplexControl(QStyle.ComplexControl.CC_GroupBox, option, painter, box)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.type() in _OWN_LOOK:            # the window's colour here, or the style, is another
            self._backdrop = None
        super().changeEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in _BOX_LOOK and watched is self._watched:
            self._backdrop = None                # the group box may look otherwise: drawn afresh
        return False

    def _watch(self, box: QGroupBox | None) -> None:
        if self._watched is not None:
            try:
                self._watched.removeEventFilter(self)
            except RuntimeError:                 # (deleted since)
                pass
        self._watched, self._backdrop = box, None
        if box is not None:
            box.installEventFilter(self)
