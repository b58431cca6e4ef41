"""The overflow part: one SwiGLU unit, SiLU(x)·x with x as both the gate and the up value, has no
upper bound. SiLU(10) × 10 = 99.995; float16 turns it into ∞ from x ≈ 256, bfloat16 only from
x ≈ 1.8 × 10¹⁹ but with 8 significant bits all the way; a clamp caps it (core.labs.generations
.swiglu_overflow)."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from app.labs.generations.common import (BLUE, GREEN, HEADING_PT, ORANGE, VERMILION, Part, PlotView, note,
                                         part_heading)
from app.widgets.appearance import appearance
from app.widgets.symbols import point_brush, point_pen
from core.labs import generations as core
from core.numbers import format_number, parse_number

LIMITS = ((7.0, "gpt-oss"), (10.0, "DeepSeek V4"))
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
MAX_INPUT = 1e30


def scientific(value: float, digits: int = 3) -> str:
    """`digits` significant digits: 256, 99.9955, 1.84 × 10¹⁹ (powers of ten from 10⁶)."""
    if not math.isfinite(value) or value == 0:
        return format_number(value, trim=True)
    if abs(value) < 1e6:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
        return format_number(value, decimals, trim=True)
    exponent = math.floor(math.log10(abs(value)))
    mantissa = format_number(value / 10 ** exponent, digits - 1, trim=True)
    return f"{mantissa} × 10{str(exponent).translate(SUPERSCRIPT)}"


class SwigluOverflowPart(Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__("genOverflowPart", parent)
        self.result: core.SwigluOverflow | None = None
        self.heading = self.label("genOverflowHeading", HEADING_PT, bold=True)
        self.facts = self.label("genOverflowFacts")
        self.limit_label = self.label("genOverflowLimitLabel", wrap=False)
        self.limit = QComboBox()
        self.limit.setObjectName("genOverflowLimit")
        self.sized(self.limit)
        for value, model in LIMITS:
            self.limit.addItem(f"{format_number(value, trim=True)} ({model})", value)
        self.limit.currentIndexChanged.connect(lambda _index: self.refresh())
        self.try_label = self.label("genOverflowTryLabel", wrap=False)
        self.try_input = QLineEdit("10")
        self.try_input.setObjectName("genOverflowInput")
        self.sized(self.try_input)
        self.try_input.setMaximumWidth(appearance().pixels(140))
        self.try_input.editingFinished.connect(self.try_value)
        controls = QHBoxLayout()
        controls.addWidget(self.limit_label)
        controls.addWidget(self.limit)
        controls.addSpacing(16)
        controls.addWidget(self.try_label)
        controls.addWidget(self.try_input)
        controls.addStretch(1)
        self.tried = self.label("genOverflowTried")
        self.message = self.label("genOverflowMessage")
        self.message.hide()

        self.view = PlotView("genOverflowPlot", 320)
        self.plot_item = self.plot(self.view)
        self.plot_item.setLogMode(x=True, y=True)
        self.legend(self.plot_item, offset=(10, 10))
        self.exact_curve = self.plot_item.plot([], [], pen=pg.mkPen(BLUE, width=3))
        self.float16_curve = self.plot_item.plot([], [], pen=pg.mkPen(VERMILION, width=2, style=Qt.DashLine))
        self.bfloat16_curve = self.plot_item.plot([], [], pen=None, symbol="o", symbolSize=4,
                                                  symbolBrush=point_brush(ORANGE), symbolPen=point_pen(None))
        self.clamped_curve = self.plot_item.plot([], [], pen=pg.mkPen(GREEN, width=3))
        self.float16_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(VERMILION, width=2, style=Qt.DotLine))
        self.bfloat16_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(ORANGE, width=2, style=Qt.DotLine))
        for line in (self.float16_line, self.bfloat16_line):
            self.plot_item.addItem(line)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(note(self.facts, object_name="genOverflowFactsNote"))
        layout.addLayout(controls)
        layout.addWidget(self.message)
        layout.addWidget(self.tried)
        layout.addWidget(self.view, 1)
        self.refresh()

    def refresh(self) -> None:
        """Recompute for the chosen limit (about 10 ms) and redraw in place."""
        self.result = core.swiglu_overflow(limit=self.limit.currentData())
        r = self.result
        finite = lambda values: np.where(np.isfinite(values) & (values > 0), values, np.nan)  # noqa: E731
        self.exact_curve.setData(r.inputs, r.exact)
        self.float16_curve.setData(r.inputs, finite(r.float16), connect="finite")
        self.bfloat16_curve.setData(r.inputs[::4], finite(r.bfloat16[::4]), connect="finite")
        self.clamped_curve.setData(r.inputs, r.clamped)
        self.float16_line.setValue(math.log10(r.float16_overflow_at))
        self.bfloat16_line.setValue(math.log10(r.bfloat16_overflow_at))
        self.retranslate()
        self.try_value()

    def try_value(self) -> None:
        """One input of the learner's: its exact product, both formats, and the clamp."""
        text = self.try_input.text()
        value = parse_number(text)
        if value is None or not math.isfinite(value) or value < 0 or value > MAX_INPUT:
            self.message.setText(self.tr("“%1” is not an input from 0 to 10³⁰; the last one stays.")
                                 .replace("%1", text[:40]))
            self.message.show()
            self.try_input.setText(self._last_input if hasattr(self, "_last_input") else "10")
            return
        self.message.hide()
        self._last_input = text
        one = core.swiglu_overflow(np.array([value]), limit=self.limit.currentData())
        self.tried.setText(self.tr("x = %1: SiLU(x)·x = %2; float16 stores %3, bfloat16 %4; clamped at %5: %6.")
                           .replace("%1", scientific(value)).replace("%2", scientific(float(one.exact[0]), 6))
                           .replace("%3", scientific(float(one.float16[0]), 6))
                           .replace("%4", scientific(float(one.bfloat16[0]), 6))
                           .replace("%5", format_number(one.limit, trim=True))
                           .replace("%6", scientific(float(one.clamped[0]), 6)))

    def retranslate(self) -> None:
        r = self.result
        self.heading.setText(part_heading("swiglu_overflow"))
        stored = float(core.to_bfloat16(np.array([r.silu10_times_10]))[0])
        self.facts.setText(self.tr(
            "SiLU(10) × 10 = %1: a SwiGLU unit with gate and up value 10 already writes about 100, and nothing "
            "stops it growing. float16 holds at most %2: the unit overflows to ∞ from x ≈ %3. bfloat16 reaches ∞ "
            "only from x ≈ %4, but keeps 8 significant bits: it stores %1 as %5 (steps of %6 between 64 and 128). "
            "Clamped at %7, the unit never passes %8.")
            .replace("%1", format_number(r.silu10_times_10, 3)).replace("%2", f"{core.FLOAT16_MAX:,.0f}")
            .replace("%3", scientific(r.float16_overflow_at)).replace("%4", scientific(r.bfloat16_overflow_at))
            .replace("%5", format_number(stored, trim=True))
            .replace("%6", format_number(core.bfloat16_spacing(r.silu10_times_10), trim=True))
            .replace("%7", format_number(r.limit, trim=True)).replace("%8", format_number(r.clamped_ceiling, 2)))
        self.limit_label.setText(self.tr("Clamp at:"))
        self.try_label.setText(self.tr("Try x ="))
        self.plot_item.legend.clear()
        self.plot_item.legend.addItem(self.exact_curve, self.tr("SiLU(x)·x, exact"))
        self.plot_item.legend.addItem(self.float16_curve, self.tr("stored in float16 (gone: ∞)"))
        self.plot_item.legend.addItem(self.bfloat16_curve, self.tr("stored in bfloat16"))
        self.plot_item.legend.addItem(self.clamped_curve, self.tr("clamped at %1").replace(
            "%1", format_number(r.limit, trim=True)))
        self.axis_label(self.plot_item, "bottom", self.tr("x, the gate and up value (log scale)"))
        self.axis_label(self.plot_item, "left", self.tr("the unit's output (log scale)"))
