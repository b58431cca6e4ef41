"""Lab fonts that follow appearance(): the interface zoom and presentation mode.

The labs choose their text sizes in points for 100 % (`style.font(11)`, a plot's "11pt" title,
a tick font of 10 pt). `follow_fonts(root)` scales every such size under `root` by
`appearance().scale`: each widget with a font of its own, and in each graphics view the axes'
tick fonts and titles, the plot titles and the text items. The size a part chose is remembered
on first sight (and again whenever the part sets a new one), so following twice never scales
twice. A widget marked `own_fonts(widget)` sizes its fonts itself and is left alone, with
everything inside it.
"""
from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGraphicsView, QTableWidget, QWidget

from app.widgets.appearance import appearance

_OWN = "blocklabOwnFonts"
_BASE = "blocklabBasePoints"
_APPLIED = "blocklabAppliedPoints"
_POINTS = re.compile(r"^\s*([0-9.]+)\s*pt\s*$")


def own_fonts(widget: QWidget) -> None:
    """`widget` (and everything in it) sizes its fonts by appearance() itself."""
    widget.setProperty(_OWN, True)


def _scaled(base: float, applied: float | None, current: float) -> tuple[float, float]:
    """(base, new size): the base is the current size unless it is the one applied last."""
    if applied is None or abs(current - applied) > 0.01:
        base = current
    return base, appearance().points(base)


def follow_fonts(root: QWidget) -> None:
    """Scale every chosen font size under `root` (root included) to the current appearance."""
    _follow_widget(root)


def _follow_widget(widget: QWidget) -> None:
    if widget.property(_OWN):
        return
    if widget.testAttribute(Qt.WidgetAttribute.WA_SetFont):
        font = widget.font()
        current = font.pointSizeF()
        if current > 0:
            applied = widget.property(_APPLIED)
            base, size = _scaled(widget.property(_BASE) if widget.property(_BASE) else current,
                                 float(applied) if applied is not None else None, current)
            if abs(size - current) > 0.01:
                font = QFont(font)
                font.setPointSizeF(size)
                widget.setFont(font)
            widget.setProperty(_BASE, base)
            widget.setProperty(_APPLIED, size)
    if isinstance(widget, QGraphicsView) and widget.scene() is not None:
        _follow_scene(widget)
    for child in widget.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
        _follow_widget(child)


# --- pyqtgraph -----------------------------------------------------------------------------------
def _size_of(item, key: str, current: float) -> float:
    """The size to draw `key` of a pyqtgraph item at (remembering the chosen size on the item)."""
    bases = item.__dict__.setdefault("_blocklab_fonts", {})
    base, applied = bases.get(key, (current, None))
    base, size = _scaled(base, applied, current)
    bases[key] = (base, size)
    return size


def _points(css: str | None) -> float | None:
    match = _POINTS.match(css or "")
    return float(match.group(1)) if match else None


def _follow_scene(view: QGraphicsView) -> None:
    for item in view.scene().items():
        if isinstance(item, pg.AxisItem):
            _follow_axis(item)
        elif isinstance(item, pg.LabelItem):
            current = _points(item.opts.get("size"))
            if current is not None and item.text:
                size = _size_of(item, "title", current)
                if abs(size - current) > 0.01:
                    item.setText(item.text, size=f"{size:.2f}pt")
        elif isinstance(item, pg.TextItem):
            font = item.textItem.font()
            current = font.pointSizeF()
            if current > 0:
                size = _size_of(item, "text", current)
                if abs(size - current) > 0.01:
                    font = QFont(font)
                    font.setPointSizeF(size)
                    item.setFont(font)


def _follow_axis(axis: pg.AxisItem) -> None:
    tick = axis.style.get("tickFont")
    if tick is not None and tick.pointSizeF() > 0:
        size = _size_of(axis, "ticks", tick.pointSizeF())
        if abs(size - tick.pointSizeF()) > 0.01:
            font = QFont(tick)
            font.setPointSizeF(size)
            axis.setTickFont(font)
    current = _points(axis.labelStyle.get("font-size"))
    if current is not None and axis.labelText and axis.label.isVisibleTo(axis):
        size = _size_of(axis, "label", current)
        if abs(size - current) > 0.01:
            style = dict(axis.labelStyle)
            style["font-size"] = f"{size:.2f}pt"
            axis.setLabel(axis.labelText, axis.labelUnits, axis.labelUnitPrefix, **style)


# --- tables that show every row -----------------------------------------------------------------
class _TableFit(QObject):
    """Refits one table when its font changes (the zoom) or it is shown: columns by their modes,
    rows to their contents and, with `whole`, the table as tall as all its rows."""

    def __init__(self, table: QTableWidget, whole: bool):
        super().__init__(table)
        self.table, self.whole = table, whole
        table.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.Show):
            QTimer.singleShot(0, self, self.fit)
        return False

    def fit(self) -> None:
        table = self.table
        table.horizontalHeader().resizeSections()
        table.resizeRowsToContents()
        if self.whole:
            header = table.horizontalHeader()
            height = (header.sizeHint().height() if header.isVisible() else 0) \
                + sum(table.rowHeight(r) for r in range(table.rowCount())) + 2 * table.frameWidth()
            if table.horizontalScrollBar().isVisible():
                height += table.horizontalScrollBar().sizeHint().height()
            if table.height() != height or table.minimumHeight() != height:
                table.setFixedHeight(height)


def fit_table(table: QTableWidget, whole: bool = True) -> None:
    """Fit `table` now and whenever its font changes: every row shown whole (the page around
    it scrolls instead), columns as their resize modes say at the current font."""
    fitter = table.findChild(_TableFit)
    if fitter is None:
        fitter = _TableFit(table, whole)
    fitter.whole = whole
    fitter.fit()
