"""Tick labels that never overlap: every k-th cell of a heatmap labelled, k what the axis fits.

A heatmap's rows and columns are tokens, hidden units or stream dimensions; at 5 of them each
gets its label, at 3,072 every 256th. `CellLabels` re-thins whenever the plot is resized or
the font changes (zoom), and sizes the axis to what it draws, Chinese glyphs included.
`drawn_tick_texts` reports what an axis actually draws (for tests and diagnostics).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPicture

from app.explorer.plots import look

# Steps a reader can count in: 1, 2, 5 × 10ⁿ, 25 × 10ⁿ and the powers of two (d_ff = 3,072 is 3 × 1,024).
NICE_STEPS = tuple(sorted({m * 10 ** k for k in range(8) for m in (1, 2, 5, 25) if m * 10 ** k >= 1}
                          | {2 ** k for k in range(27)}))


def nice_step(needed: float) -> int:
    """The smallest step of NICE_STEPS ≥ needed (1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100, …)."""
    if not math.isfinite(needed) or needed <= 1:
        return 1
    for step in NICE_STEPS:
        if step >= needed:
            return step
    return NICE_STEPS[-1]


def label_gap(text_font) -> float:
    """Space kept between two neighbouring labels: half an em."""
    return 0.5 * text_font.pixelSize()


class CellLabels:
    """The labels of cells 0…n−1 (centred at i + 0.5) along one side ("left" or "bottom") of a plot.

    Every step-th cell is labelled: cells 0, step, 2·step … when the names count from 0 (t0,
    t16, t32), or the step-th, 2·step-th … cell when they count from 1 (h512, h1024; h1, h2 …
    at step 1)."""

    def __init__(self, plot: pg.PlotItem, side: str, counts_from_one: bool = False):
        self.plot = plot
        self.side = side
        self.counts_from_one = counts_from_one
        self.axis: pg.AxisItem = plot.getAxis(side)
        self.axis.cell_labels = True          # sized here, not by look.fit_axis_height
        self.labels: tuple[str, ...] = ()
        self.values_shown = True
        self.step = 1
        self._applied: object = None
        if side == "left":
            # The top and bottom labels may reach half a line past the axis ends: those corners are empty.
            self.axis.setStyle(hideOverlappingLabels=int(look.line_height(look.font()) / 2) + 2)
        plot.vb.sigResized.connect(self.fit)
        plot.vb.sigRangeChanged.connect(self.fit)

    def set_labels(self, labels: Sequence[str]) -> None:
        labels = tuple(labels)
        if labels != self.labels:
            self.labels = labels
            self._applied = None
        self.fit()

    def show_values(self, shown: bool) -> None:
        if shown != self.values_shown:
            self.values_shown = shown
            self.axis.setStyle(showValues=shown)
            self._applied = None
        self.fit()

    def restyle(self) -> None:
        if self.side == "left":
            self.axis.setStyle(hideOverlappingLabels=int(look.line_height(look.font()) / 2) + 2)
        self._applied = None
        self.fit()

    # --- fitting -----------------------------------------------------------------------
    def cell_pixels(self) -> float:
        """How many pixels one cell takes along this axis now (0 before the first layout)."""
        vb = self.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        if self.side == "bottom":
            return vb.width() / (x1 - x0) if x1 > x0 else 0.0
        return vb.height() / (y1 - y0) if y1 > y0 else 0.0

    def widest(self) -> float:
        """The widest label at the current font (remembered: 3,072 labels take a while to measure)."""
        key = (self.labels, look.px())
        if getattr(self, "_widest_key", None) != key:
            text_font = look.font()
            self._widest = max((look.advance(text_font, text) for text in self.labels), default=0.0)
            self._widest_key = key
        return self._widest

    def needed_pixels(self) -> float:
        """The room along the axis one label needs, a gap included."""
        text_font = look.font()
        if self.side == "bottom":
            return self.widest() + label_gap(text_font)
        return look.line_height(text_font) + 2

    def fit(self, *args: object) -> None:
        cell = self.cell_pixels()
        step = nice_step(self.needed_pixels() / cell) if cell > 0 else 1
        state = (self.labels, step, self.values_shown, look.px(), self.axis.label.isVisibleTo(self.axis),
                 self.axis.labelText)
        if state == self._applied:
            return
        self._applied = state
        self.step = step
        offset = step - 1 if self.counts_from_one else 0
        ticks = [(i + 0.5, self.labels[i]) for i in range(offset, len(self.labels), step)]
        self.axis.setTicks([ticks] if self.values_shown else [[]])
        self.fit_space()

    def fit_space(self) -> None:
        """Size the axis to its labels (pyqtgraph would only learn it at the first paint)."""
        text_font = look.font()
        label = look.label_space(self.axis)
        offset = look.TICK_LENGTH + 5
        if self.side == "bottom":
            ticks = look.line_height(text_font) + offset if self.values_shown else look.TICK_LENGTH + 1
            self.axis.setHeight(int(math.ceil(ticks + label)))
        else:
            # the widest of all labels, not of those shown: thinning follows the height, and an
            # axis whose width followed the thinning would move the map it labels
            ticks = self.widest() + offset + 2 if self.values_shown else look.TICK_LENGTH + 1
            self.axis.setWidth(int(math.ceil(ticks + label)))


def _next_nice(spacing: float) -> float:
    """The next value of 1, 2, 5, 10, 20, 50, … (times a power of ten) above `spacing`."""
    power = 10 ** math.floor(math.log10(spacing))
    for factor in (2, 5, 10):
        if factor * power > spacing * (1 + 1e-9):
            return factor * power
    return 10 * power


def spaced_numbers(axis: pg.AxisItem) -> pg.AxisItem:
    """Number ticks (pyqtgraph's own) that never overlap: levels whose labels would touch are
    dropped, and a major level that is itself too dense is widened (1, 2, 5 × 10ⁿ steps)."""
    automatic = axis.tickSpacing
    vertical = axis.orientation in ("left", "right")

    def needed(low: float, high: float, spacing: float) -> float:
        text_font = axis.style["tickFont"] or look.font()
        if vertical:
            return look.line_height(text_font) + 4
        values = [round(low / spacing) * spacing, round(high / spacing) * spacing]
        strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        return max(look.advance(text_font, text) for text in strings) + label_gap(text_font)

    def tick_spacing(low: float, high: float, size: float):
        levels = automatic(low, high, size)
        if not levels or size <= 0 or high == low:
            return levels
        per_unit = size / abs(high - low)
        kept = [(spacing, offset) for spacing, offset in levels
                if spacing * per_unit >= needed(low, high, spacing)]
        if kept:
            return kept
        spacing = levels[0][0]
        while spacing * per_unit < needed(low, high, spacing):
            spacing = _next_nice(spacing)
        return [(spacing, 0.0)]

    axis.tickSpacing = tick_spacing
    return axis


def drawn_tick_texts(axis: pg.AxisItem) -> list[tuple[QRectF, str]]:
    """The tick labels `axis` draws now and their rectangles, in scene coordinates, full line
    height (pyqtgraph keeps 80 % of it for its own spacing)."""
    picture = QPicture()
    painter = QPainter(picture)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    if specs is None:
        return []
    result = []
    for rect, _flags, text in specs[2]:
        full = QRectF(rect)
        full.setHeight(rect.height() / 0.8)
        if axis.orientation in ("left", "right"):
            full.moveCenter(rect.center())          # drawn centred on the tick
        elif axis.orientation == "top":
            full.moveBottom(rect.bottom())          # drawn upwards from the rectangle's bottom
        result.append((axis.mapRectToScene(full), text))   # bottom: downwards from its top
    return result
