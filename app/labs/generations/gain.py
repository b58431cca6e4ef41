"""The gain part: weight decay alone pulls a norm's plain gain g (starting at 1) towards 0, and a
zero-centred gain 1 + w (w starting at 0) towards 1 (core.labs.generations.gain_decay)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDoubleSpinBox, QHBoxLayout, QSpinBox, QVBoxLayout, QWidget

from app.labs.generations.common import BLUE, GREEN, HEADING_PT, Part, PlotView, part_heading
from core.labs import generations as core
from core.numbers import format_number


class GainDecayPart(Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__("genGainPart", parent)
        self.decay: core.GainDecay | None = None
        self.heading = self.label("genGainHeading", HEADING_PT, bold=True)
        self.intro = self.label("genGainIntro")
        self.lr = QDoubleSpinBox()
        self.lr.setObjectName("genGainLearningRate")
        self.lr.setDecimals(5)
        self.lr.setRange(0.00001, 0.01)
        self.lr.setSingleStep(0.0001)
        self.lr.setValue(1e-3)
        self.weight_decay = QDoubleSpinBox()
        self.weight_decay.setObjectName("genGainWeightDecay")
        self.weight_decay.setDecimals(3)
        self.weight_decay.setRange(0.0, 1.0)
        self.weight_decay.setSingleStep(0.01)
        self.weight_decay.setValue(0.1)
        self.steps = QSpinBox()
        self.steps.setObjectName("genGainSteps")
        self.steps.setRange(100, 1_000_000)
        self.steps.setSingleStep(1000)
        self.steps.setValue(10_000)
        self.lr_label = self.label("genGainLearningRateLabel", wrap=False)
        self.decay_label = self.label("genGainWeightDecayLabel", wrap=False)
        self.steps_label = self.label("genGainStepsLabel", wrap=False)
        controls = QHBoxLayout()
        for label, box in ((self.lr_label, self.lr), (self.decay_label, self.weight_decay),
                           (self.steps_label, self.steps)):
            self.sized(box)
            box.valueChanged.connect(lambda _value: self.refresh())
            controls.addWidget(label)
            controls.addWidget(box)
        controls.addStretch(1)
        self.view = PlotView("genGainPlot", 280)
        self.plot_item = self.plot(self.view)
        self.legend(self.plot_item, offset=(10, -10))     # bottom left, under the falling curve: top right covered the dashed line's end
        self.plain_curve = self.plot_item.plot([], [], pen=pg.mkPen(BLUE, width=3))
        self.centred_curve = self.plot_item.plot([], [], pen=pg.mkPen(GREEN, width=3, style=Qt.DashLine))
        self.plot_item.setYRange(0, 1.1, padding=0)
        self.result = self.label("genGainResult")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addLayout(controls)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.result)
        self._x_end = None
        self.refresh()
        self.retranslate()

    def refresh(self) -> None:
        """New numbers: the curves, the x range, the result sentence."""
        self.decay = core.gain_decay(self.steps.value(), self.lr.value(), self.weight_decay.value())
        self.plain_curve.setData(self.decay.steps, self.decay.plain_gain)
        self.centred_curve.setData(self.decay.steps, self.decay.zero_centered_gain)
        if self._x_end != self.decay.steps[-1]:      # only a new number of steps re-ticks the axis
            self._x_end = self.decay.steps[-1]
            self.plot_item.setXRange(0, float(self._x_end), padding=0.02)
        self._show_result()                          # the words and the legend: retranslate()

    def retranslate(self) -> None:
        self.heading.setText(part_heading("gain_decay"))
        self.intro.setText(self.tr(
            "AdamW's weight decay multiplies every weight by 1 − lr·λ at every step. A plain RMSNorm gain g starts "
            "at 1, so the decay pulls it towards 0; a zero-centred norm multiplies by 1 + w with w starting at 0, "
            "so the same decay pulls it towards 1 + 0 = 1. Only the decay is shown: in training the gradients "
            "pull back."))
        self.lr_label.setText(self.tr("learning rate lr"))
        self.decay_label.setText(self.tr("weight decay λ"))
        self.steps_label.setText(self.tr("steps"))
        self.plot_item.legend.clear()
        self.plot_item.legend.addItem(self.plain_curve, self.tr("plain gain g"))
        self.plot_item.legend.addItem(self.centred_curve, self.tr("zero-centred gain 1 + w"))
        self.axis_label(self.plot_item, "bottom", self.tr("training steps"))
        self.axis_label(self.plot_item, "left", self.tr("the gain"))
        self._show_result()

    def _show_result(self) -> None:
        d = self.decay
        self.result.setText(self.tr("After %1 steps with lr = %2 and λ = %3: g = (1 − %4)^%1 = %5; 1 + w = %6.")
                            .replace("%1", f"{int(d.steps[-1]):,}").replace("%2", format_number(d.lr, 5, trim=True))
                            .replace("%3", format_number(d.weight_decay, 3, trim=True))
                            .replace("%4", format_number(d.lr * d.weight_decay, 8, trim=True))
                            .replace("%5", format_number(d.plain_gain[-1], 3))
                            .replace("%6", format_number(d.zero_centered_gain[-1], 3)))
