"""Neurons × positions as a pyqtgraph heatmap: one row per neuron, one column per character of
the text on screen. The ImageItem is created once and updated with setImage(..., levels=...);
clicking a row picks that neuron, hovering names the cell."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QFontMetricsF

from app.explorer.plots.heatmap import MapImage
from app.labs.model.common import shown_char
from app.widgets import style
from app.widgets.appearance import appearance
from core.numbers import format_number

TICK_PT = 10           # 16 px in presentation mode (12 pt)
TALL_SAMPLE = "國↵#"   # the tallest labels: a Chinese character (fallback font), the line break mark
LABELLED_ROWS = 40          # up to this many rows get a "#n" label each


def _nice_step(at_least: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50 … that is at least `at_least`."""
    power = 1
    while True:
        for factor in (1, 2, 5):
            if factor * power >= at_least:
                return factor * power
        power *= 10


class NeuronHeatmap(pg.GraphicsLayoutWidget):
    neuronClicked = Signal(int)

    def __init__(self, name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        self.plot = style.quiet_plot(self.addPlot(), appearance().points(TICK_PT))
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=False, y=True)        # wheel-zoom through many neurons
        self.image = MapImage(axisOrder="row-major")     # drawn from 32-bit colour: the fast path
        self.image.setLookupTable(style.DIVERGING_LUT)
        self.plot.addItem(self.image)
        self.marker = pg.InfiniteLine(angle=0, movable=False)
        self.separator = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen("#1f77b4", width=2))
        for line in (self.marker, self.separator):
            self.plot.addItem(line)
            line.setZValue(10)
        self.rows: tuple[int, ...] = ()
        self.chars: tuple[str, ...] = ()
        self.values = np.zeros((0, 0))
        self.caption_neuron = "#%1"
        self.hover = ""
        self._restyle()
        appearance().changed.connect(self._restyle)
        self.scene().sigMouseClicked.connect(self._clicked)
        self.scene().sigMouseMoved.connect(self._moved)
        self.setMinimumHeight(appearance().pixels(120))

    def _restyle(self) -> None:
        tick_font = style.font(appearance().points(TICK_PT))
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTickFont(tick_font)
        # pyqtgraph sizes the bottom axis for 80 % of a line of the tick font, and a Chinese
        # character drawn in the fallback font is taller still: its lower part was cut off
        metrics = QFontMetricsF(tick_font)
        axis = self.plot.getAxis("bottom")
        axis.setHeight(math.ceil(metrics.boundingRect(TALL_SAMPLE).height() + axis.style["tickTextOffset"][1]
                                 + max(0, axis.style["tickLength"]) + 1))
        self.marker.setPen(pg.mkPen(appearance().colours.foreground, width=max(1, appearance().pixels(2)),
                                    style=Qt.PenStyle.DashLine))
        if getattr(self, "rows", ()):
            self._ticks()                                   # the labels' room at the new size

    def set_data(self, values: np.ndarray, rows, chars, limit: float, split: int | None = None) -> None:
        """values (rows × T); rows are the neuron numbers; split: rows before it are one group."""
        rows, chars = tuple(int(n) for n in rows), tuple(chars)
        values = np.asarray(values, dtype=np.float64)
        self.image.setImage(values, levels=(-limit, limit), autoLevels=False)
        self.image.setRect(0, 0, max(1, values.shape[1]), max(1, values.shape[0]))
        if rows != self.rows or chars != self.chars or values.shape != self.values.shape:
            self.rows, self.chars = rows, chars
            self._ticks()
            self.plot.setRange(xRange=(0, max(1, len(chars))), yRange=(0, max(1, len(rows))), padding=0)
        self.values = values
        self.separator.setVisible(split is not None and 0 < split < len(rows))
        if split is not None:
            self.separator.setValue(split)

    def _ticks(self) -> None:
        rows, chars = self.rows, self.chars
        self._labelled_for = self._label_room()
        fits = self._labelled_for
        if len(rows) <= min(LABELLED_ROWS, fits):
            left = [[(k + 0.5, f"#{n}") for k, n in enumerate(rows)]]
        else:
            # one "#n" every `step` rows, as many as the plot's height holds without overlapping
            # (every 50th of 688 rows piled 14 labels into a projector's 140 px)
            step = _nice_step(len(rows) / max(1, fits))
            left = [[(k + 0.5, f"#{rows[k]}") for k in range(0, len(rows), step)]]
        self.plot.getAxis("left").setTicks(left)
        # Above the plot, half a line for the top row's label when rows are thinner than a line: it
        # is centred on the edge then ("#0" of 688 rows lost its top half). A labelled row is a
        # line tall, its label inside it, and keeps the room for the plot.
        thin = len(left[0]) < len(rows)
        top = math.ceil(QFontMetricsF(style.font(appearance().points(TICK_PT))).height() / 2) if thin else 2
        if self.ci.layout.getContentsMargins()[1] != top:
            self.ci.setContentsMargins(2, top, 2, 2)
        step = 1 if len(chars) <= 24 else 4 if len(chars) <= 64 else 8
        bottom = [[(k + 0.5, shown_char(chars[k])) for k in range(0, len(chars), step)]]
        axis = self.plot.getAxis("bottom")
        axis.setTicks(bottom)
        # Room for the glyphs drawn, not the font's line: a Chinese character from a fallback font
        # is taller than the Latin font's line and lost its bottom (員 read as 븜); the first
        # character's label may pass the axis's start by half a label.
        metrics = QFontMetricsF(style.font(appearance().points(TICK_PT)))
        shown = "".join(text for _x, text in bottom[0]) or "0"
        axis.setStyle(autoExpandTextSpace=False, tickTextHeight=math.ceil(metrics.boundingRect(shown).height()),
                      hideOverlappingLabels=math.ceil(metrics.height()))

    def _label_room(self) -> int:
        """How many row labels the plot's height holds, one text line apart."""
        line = QFontMetricsF(style.font(appearance().points(TICK_PT))).height()
        height = self.plot.vb.height() if self.plot.vb.height() > 0 else self.height() - 3 * line
        height += self.ci.layout.getContentsMargins()[1] - 2       # as with every row labelled (see _ticks)
        return max(2, int(height / (0.95 * line)))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if getattr(self, "rows", ()) and self._label_room() != getattr(self, "_labelled_for", None):  # not while building
            self._ticks()

    def show_neuron(self, neuron: int) -> None:
        """Mark the row of `neuron` (hidden if it is not one of the rows)."""
        if neuron in self.rows:
            self.marker.setValue(self.rows.index(neuron) + 0.5)
            self.marker.show()
        else:
            self.marker.hide()

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        if not self.plot.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.plot.vb.mapSceneToView(scene_pos)
        row, column = int(math.floor(point.y())), int(math.floor(point.x()))
        if 0 <= row < len(self.rows) and 0 <= column < len(self.chars):
            return row, column
        return None

    def cell_text(self, row: int, column: int) -> str:
        value = format_number(self.values[row, column], 3) if self.values.shape[0] > row else "—"
        return self.tr("Neuron #%1 at “%2” (position %3): %4").replace("%1", str(self.rows[row])) \
            .replace("%2", shown_char(self.chars[column])).replace("%3", str(column)).replace("%4", value)

    def _clicked(self, event) -> None:
        cell = self.cell_at(event.scenePos())
        if cell is not None:
            self.neuronClicked.emit(self.rows[cell[0]])

    def _moved(self, scene_pos) -> None:
        cell = self.cell_at(scene_pos)
        self.hover = "" if cell is None else self.cell_text(*cell)
        self.setToolTip(self.hover)
