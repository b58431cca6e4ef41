"""The residual-growth part: independent writes of variance 1 make the stream's standard deviation
grow as √(1 + n) — 128 writes give √129 = 11.36 — and GPT-2's remedy, output projections
initialised 1/√N smaller (0.02/√N), keeps it near √2. The simulation (core.labs.generations
.residual_growth, ~0.2 s) runs off the GUI thread with a progress bar and can be cancelled."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from app.labs.generations.common import BLUE, ORANGE, CachedRunPart, PlotView, note, part_heading
from app.widgets.symbols import point_brush, point_pen
from core.labs import generations as core
from core.numbers import format_number

DEFAULT_LAYERS = 64          # the anchor model: 64 layers × 2 sub-layers = 128 writes
MAX_LAYERS = 256
COURSE_LAYERS = 4            # the course's own model: 0.02 ÷ √8 = 0.00707


def simulate(layers: int, progress):
    """Both runs: unit writes, then writes 1/√N smaller (GPT-2); None if cancelled."""
    writes = 2 * layers
    plain = core.residual_growth(writes, 1.0, progress=lambda f: progress(f / 2))
    if plain is None:
        return None
    remedy = core.residual_growth(writes, core.gpt2_write_scale(layers), seed=1,
                                  progress=lambda f: progress(0.5 + f / 2))
    return None if remedy is None else (plain, remedy)


class ResidualGrowthPart(CachedRunPart):
    compute = staticmethod(simulate)

    def __init__(self, parent: QWidget | None = None):
        super().__init__("genResidualPart", "genResidual", (1, MAX_LAYERS), DEFAULT_LAYERS, parent)
        self.layers_note = self.label("genResidualWrites", wrap=False)
        self.controls.addWidget(self.layers_note, 1)
        self.layers.valueChanged.connect(lambda _value: self._write_remedy())

        self.view = PlotView("genResidualPlot", 300)
        self.plot_item = self.plot(self.view)
        self.legend(self.plot_item, offset=(-10, -50))
        self.expected_curve = self.plot_item.plot([], [], pen=pg.mkPen(BLUE, width=2, style=pg.QtCore.Qt.DashLine))
        self.measured_curve = self.plot_item.plot([], [], pen=None, symbol="o", symbolSize=5,
                                                  symbolBrush=point_brush(BLUE), symbolPen=point_pen(None))
        self.remedy_expected_curve = self.plot_item.plot([], [], pen=pg.mkPen(ORANGE, width=2,
                                                                                style=pg.QtCore.Qt.DashLine))
        self.remedy_curve = self.plot_item.plot([], [], pen=None, symbol="t", symbolSize=5,
                                                symbolBrush=point_brush(ORANGE), symbolPen=point_pen(None))
        self.result = self.label("genResidualResult")
        self.remedy = self.label("genResidualRemedy")
        self.remedy_note = note(self.remedy, object_name="genResidualRemedyNote")
        self.lay_out(self.view, self.result, self.remedy_note)

    def _aside(self) -> tuple[QWidget, ...]:
        """Presenting, then GPT-2's remedy in words too (the caption names it: orange, 0.02/√N)."""
        return (self.intro, self.remedy_note)

    # --- drawing ----------------------------------------------------------------------------
    def draw(self, layers: int, result) -> None:
        plain, remedy = result
        self.expected_curve.setData(plain.writes, plain.expected)
        self.measured_curve.setData(plain.writes, plain.measured)
        self.remedy_expected_curve.setData(remedy.writes, remedy.expected)
        self.remedy_curve.setData(remedy.writes, remedy.measured)
        self.plot_item.setXRange(0, float(plain.writes[-1]), padding=0.02)
        self.plot_item.setYRange(0, float(max(plain.expected[-1], plain.measured.max())) * 1.05, padding=0)
        self._write_result()

    def _write_result(self) -> None:
        if self.shown_layers is None or self.shown_layers not in self.results:
            self.result.setText(self.tr("Computing the simulation…"))
            return
        plain, remedy = self.results[self.shown_layers]
        n = int(plain.writes[-1])
        self.result.setText(self.tr(
            "After %1 writes the stream's standard deviation is %2 (± %3 sampling error); √(1 + %1) = %4. "
            "With writes 1/√%1 smaller it ends at %5 (√2 = %6). Simulated: %7 vectors of width %8, seeded.")
            .replace("%1", str(n)).replace("%2", format_number(plain.measured[-1], 2))
            .replace("%3", format_number(plain.sampling_error[-1], 2))
            .replace("%4", format_number(plain.expected[-1], 2))
            .replace("%5", format_number(remedy.measured[-1], 2))
            .replace("%6", format_number(remedy.expected[-1], 2))
            .replace("%7", str(plain.samples)).replace("%8", str(plain.width)))

    # --- language ---------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.heading.setText(part_heading("residual_growth"))
        self.intro.setText(self.tr(
            "Every sub-layer adds its output to the residual stream. If each write is independent with "
            "variance 1, the stream's standard deviation after n writes is √(1 + n): the anchor model's "
            "64 layers × 2 sub-layers = 128 writes give √129 = 11.36."))
        self.layers_label.setText(self.tr("Layers:"))
        self.layers_note.setText(self.tr("two writes a layer (attention, FFN)"))
        self.plot_item.legend.clear()
        self.plot_item.legend.addItem(self.measured_curve, self.tr("measured, unit writes"))
        self.plot_item.legend.addItem(self.expected_curve, self.tr("√(1 + n)"))
        self.plot_item.legend.addItem(self.remedy_curve, self.tr("measured, GPT-2's 1/√N init"))
        self.plot_item.legend.addItem(self.remedy_expected_curve, self.tr("√(1 + n/N)"))
        self.axis_label(self.plot_item, "bottom", self.tr("writes into the stream, n"))
        self.axis_label(self.plot_item, "left", self.tr("standard deviation of the stream"))
        self._write_remedy()
        self._write_result()

    def _write_remedy(self) -> None:
        layers = self.layers.value()
        self.remedy.setText(self.tr(
            "GPT-2's remedy: the projections that write into the stream start at 0.02/√N, N = 2 × layers. "
            "The course's %1-layer model: 0.02 ÷ √%2 = %3. With %4 layers: 0.02 ÷ √%5 = %6.")
            .replace("%1", str(COURSE_LAYERS)).replace("%2", str(2 * COURSE_LAYERS))
            .replace("%3", format_number(core.gpt2_init_std(COURSE_LAYERS), 5))
            .replace("%4", str(layers)).replace("%5", str(2 * layers))
            .replace("%6", format_number(core.gpt2_init_std(layers), 5)))
