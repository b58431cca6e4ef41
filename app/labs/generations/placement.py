"""The placement part: the same stack of blocks (the same weights and input) with Post-LN and with
Pre-LN, and what happens across depth: the size of the residual stream, and how much each layer
changes it (core.labs.generations.compare_placements, run off the GUI thread)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.labs.generations.common import BLUE, ORANGE, CachedRunPart, PlotView, part_heading
from app.widgets.symbols import point_brush, point_pen
from core.labs import generations as core
from core.numbers import format_number

DEFAULT_LAYERS = 24
MAX_LAYERS = 96


def compare(layers: int, progress):
    """(post, pre) over `layers` layers; None if cancelled."""
    return core.compare_placements(layers, progress=progress)


class PlacementPart(CachedRunPart):
    compute = staticmethod(compare)

    def __init__(self, parent: QWidget | None = None):
        super().__init__("genPlacementPart", "genPlacement", (2, MAX_LAYERS), DEFAULT_LAYERS, parent)
        self.controls.addStretch(1)
        self.view = PlotView("genPlacementPlots", 300)
        self.stream_plot = self.plot(self.view, 0, 0)
        self.update_plot = self.plot(self.view, 0, 1)
        self.legend(self.stream_plot, offset=(10, 10))
        self.curves = {}
        for plot, key in ((self.stream_plot, "stream"), (self.update_plot, "update")):
            for placement, colour, symbol in (("post", BLUE, "o"), ("pre", ORANGE, "t")):
                self.curves[(key, placement)] = plot.plot([], [], pen=pg.mkPen(colour, width=2), symbol=symbol,
                                                          symbolSize=6, symbolBrush=point_brush(colour),
                                                          symbolPen=point_pen(None))
        self.result = self.label("genPlacementResult")
        self.lay_out(self.view, self.result)

    def draw(self, layers: int, result) -> None:
        for profile in result:
            depth = np.arange(len(profile.stream_rms))
            self.curves[("stream", profile.placement)].setData(depth, profile.stream_rms)
            self.curves[("update", profile.placement)].setData(profile.layers, profile.relative_update)
        self.stream_plot.setXRange(0, layers, padding=0.02)
        self.update_plot.setXRange(1, layers, padding=0.02)
        self._write_result()

    def _write_result(self) -> None:
        if self.shown_layers not in self.results:
            self.result.setText(self.tr("Computing the two stacks…"))
            return
        post, pre = self.results[self.shown_layers]
        self.result.setText(self.tr(
            "Post-LN: after every layer the stream is normalized back to RMS %1; the last layer still changes it "
            "by %2 of its size. Pre-LN: the stream grows from %3 to %4 over %5 layers, so the last layer changes "
            "it by only %6 — the deeper the layer, the less it adds.")
            .replace("%1", format_number(post.stream_rms[-1], 2))
            .replace("%2", format_number(post.relative_update[-1], 2))
            .replace("%3", format_number(pre.stream_rms[0], 2)).replace("%4", format_number(pre.stream_rms[-1], 2))
            .replace("%5", str(self.shown_layers)).replace("%6", format_number(pre.relative_update[-1], 2)))
        self._fit_height()

    def _fit_height(self) -> None:
        """At least as tall as the wrapped texts need at this width: the scroll page grows (a
        result arriving from the worker wraps onto more lines than "Computing…")."""
        layout = self.layout()
        if layout is not None and self.width() > 0:
            layout.invalidate()
            height = layout.totalHeightForWidth(self.width())
            if height > 0 and height != self.minimumHeight():
                self.setMinimumHeight(height)
                if self.height() < height:          # now, not when the scroll area next lays out
                    self.resize(self.width(), height)
            layout.activate()                       # the label gets its lines now, not on the next event

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_height()

    def retranslate(self) -> None:
        self.heading.setText(part_heading("placement"))
        self.intro.setText(self.tr(
            "The same stack of blocks (the same weights and input, LayerNorm, GELU) twice: norms after each "
            "residual sum (Post-LN, 2017) and at each sub-layer's entry (Pre-LN, GPT-2). Left: the size of the "
            "stream after each layer. Right: how much each layer changes it, relative to what it receives."))
        self.layers_label.setText(self.tr("Layers:"))
        self.stream_plot.legend.clear()
        self.stream_plot.legend.addItem(self.curves[("stream", "post")], self.tr("Post-LN"))
        self.stream_plot.legend.addItem(self.curves[("stream", "pre")], self.tr("Pre-LN"))
        self.plot_title(self.stream_plot, self.tr("RMS of the residual stream"))
        self.plot_title(self.update_plot, self.tr("each layer's output ÷ its input"))
        self.axis_label(self.stream_plot, "bottom", self.tr("layer"))
        self.axis_label(self.update_plot, "bottom", self.tr("layer"))
        self._write_result()
