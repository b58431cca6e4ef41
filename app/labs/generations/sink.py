"""The attention-sink part: a softmax must hand out 100 %, so a head with nothing to read still
writes something — unless a first token with a high score and an empty value soaks the weight up
(the sink). A sigmoid output gate needs no sink: σ(g) → 0 silences the head whatever the pattern
(core.labs.generations.attention_sink, silenced_anchor)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QVBoxLayout, QWidget

from app import i18n
from app.labs.generations.common import (BLUE, GREEN, HEADING_PT, ORANGE, VERMILION, Part, PlotView, note,
                                         part_heading, short_source)
from core.labs import generations as core
from core.numbers import format_number

SILENCING_BIAS = -8.0
LEGEND_MARGIN = 10             # px between the share plot's legend and its right edge


def percent(fraction: float, decimals: int = 1) -> str:
    return f"{format_number(100 * fraction, decimals)} %"


class AttentionSinkPart(Part):
    silenceRequested = Signal()           # the panel loads the silenced anchor block

    def __init__(self, parent: QWidget | None = None):
        super().__init__("genSinkPart", parent)
        self.sink = core.attention_sink()
        s = self.sink
        self.heading = self.label("genSinkHeading", HEADING_PT, bold=True)
        self.intro = self.label("genSinkIntro")
        self.view = PlotView("genSinkPlots", 280)
        self.share_plot = self.plot(self.view, 0, 0)
        self.sink_plot = self.plot(self.view, 0, 1)
        self.gate_plot = self.plot(self.view, 0, 2)
        self.share_curve = self.share_plot.plot(s.sink_logits, 100 * s.first_share, pen=pg.mkPen(BLUE, width=3))
        # The reported shares as level lines (plot items, so that the legend can draw them).
        ends = [float(s.sink_logits[0]), float(s.sink_logits[-1])]
        self.reported = self.share_plot.plot(ends, [100 * s.reported_share] * 2,
                                             pen=pg.mkPen(VERMILION, width=2, style=Qt.DashLine))
        self.reported_gated = self.share_plot.plot(ends, [100 * s.reported_gated_share] * 2,
                                                   pen=pg.mkPen(GREEN, width=2, style=Qt.DashLine))
        self.share_plot.setYRange(0, 100, padding=0.02)
        self.sink_curve = self.sink_plot.plot(s.sink_logits, s.sink_output_norm, pen=pg.mkPen(ORANGE, width=3))
        self.gate_curve = self.gate_plot.plot(s.gate_logits, s.gated_output_norm, pen=pg.mkPen(GREEN, width=3))
        top = float(max(s.uniform_output_norm, s.sink_output_norm.max())) * 1.1
        for plot in (self.sink_plot, self.gate_plot):
            plot.setYRange(0, top, padding=0)
            plot.addItem(pg.InfiniteLine(pos=s.uniform_output_norm, angle=0,
                                         pen=pg.mkPen("#888888", width=1, style=Qt.DotLine)))
        # Right, in the band between the share curve (along the top on the right) and the 46.7 %
        # line (lower down it covered that dashed line's end): placed at every resize.
        self.legend(self.share_plot, offset=(-10, 48))
        self.share_plot.vb.sigResized.connect(self._place_legend)
        self.share_plot.vb.sigRangeChanged.connect(self._place_legend)      # view coordinates moved
        self.share_plot.legend.geometryChanged.connect(self._place_legend)     # its rows laid out later
        self.reported_text = self.label("genSinkReported")
        self.silence = self.button("genSinkSilence")
        self.silence.clicked.connect(self.silenceRequested)
        actions = QHBoxLayout()
        actions.addWidget(self.silence)
        actions.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.view, 1)
        layout.addWidget(note(self.reported_text, object_name="genSinkReportedNote"))
        layout.addLayout(actions)
        self.retranslate()

    def _place_legend(self, *_args) -> None:
        """The share plot's legend, at the right, centred between the share curve above it (the
        curve rises: its lowest point under the legend is at the legend's left edge) and the
        dashed line of the share without a gate below it."""
        vb, legend, s = self.share_plot.vb, self.share_plot.legend, self.sink
        area, size = vb.sceneBoundingRect(), legend.boundingRect()
        if area.height() <= 0 or size.height() <= 0:
            return
        left = vb.mapSceneToView(QPointF(area.right() - LEGEND_MARGIN - size.width(), area.top())).x()
        above = vb.mapViewToScene(QPointF(left, 100 * float(np.interp(left, s.sink_logits, s.first_share)))).y()
        below = vb.mapViewToScene(QPointF(left, 100 * s.reported_share)).y()
        top = max(1.0, (above + below - size.height()) / 2 - area.top())     # > 0: from the top
        if legend.opts.get("offset") != (-LEGEND_MARGIN, top):
            legend.setOffset((-LEGEND_MARGIN, top))

    def plotted(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return {name: tuple(np.asarray(a) for a in curve.getData())
                for name, curve in (("share", self.share_curve), ("sink", self.sink_curve), ("gate", self.gate_curve))}

    def retranslate(self) -> None:
        s = self.sink
        last = s.tokens[-1]
        self.heading.setText(part_heading("attention_sink"))
        self.intro.setText(self.tr(
            "The last token, “%1”, looks back at all %2 tokens with a query no key answers: every score is equal. "
            "The softmax must still hand out 100 %: %3 each, and the head writes the mean of the values, "
            "|z| = %4 — not 0, though nothing was relevant. Two ways out: a first token that takes the weight "
            "and carries an empty value (a sink), or a sigmoid gate on the head's output.")
            .replace("%1", i18n.labelled(last)).replace("%2", str(len(s.tokens))).replace("%3", percent(s.uniform_pattern[0], 0))
            .replace("%4", format_number(s.uniform_output_norm, 3)))
        self.plot_title(self.share_plot, self.tr("the first token's share (%)"))
        self.plot_title(self.sink_plot, self.tr("|z| with a sink"))
        self.plot_title(self.gate_plot, self.tr("|σ(g)·z| with a gate"))
        self.axis_label(self.share_plot, "bottom", self.tr("its extra score s"))
        self.axis_label(self.sink_plot, "bottom", self.tr("the sink's extra score s"))
        self.axis_label(self.gate_plot, "bottom", self.tr("gate logit g"))
        self.share_plot.legend.clear()
        self.share_plot.legend.addItem(self.reported, self.tr("%1, no gate").replace("%1", percent(s.reported_share)))
        self.share_plot.legend.addItem(self.reported_gated, self.tr("%1, gated").replace(
            "%1", percent(s.reported_gated_share)))
        self._place_legend()                     # its width follows the language
        index = int(np.argmin(np.abs(s.gate_logits - SILENCING_BIAS)))
        self.reported_text.setText(self.tr(
            "%1: in Qwen's 15B MoE experiments the first token takes %2 of the attention on average; with the "
            "sigmoid output gate, %3. With our %4 tokens the first one needs a score %5 above the others to take "
            "%2. A gate logit of %6 lets through σ = %7 of the head: |σ(g)·z| = %8.")
            .replace("%1", short_source("qiu2025")).replace("%2", percent(s.reported_share))
            .replace("%3", percent(s.reported_gated_share)).replace("%4", str(len(s.tokens)))
            .replace("%5", format_number(core.sink_logit_for_share(s.reported_share, len(s.tokens)), 2))
            .replace("%6", format_number(s.gate_logits[index], trim=True))
            .replace("%7", format_number(s.gate[index], 6)).replace("%8", format_number(s.gated_output_norm[index], 6)))
        self.silence.setText(self.tr("Silence the anchor block's heads in the explorer (b_G = %1)")
                             .replace("%1", format_number(SILENCING_BIAS, trim=True)))
