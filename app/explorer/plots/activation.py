"""The activation tab: the activation curve, with the selected token's hidden units on it.

Each unit is a point (x, act(x)): x is the pre-activation, or the gate value of a gated FFN
(the clamped gate with a clamped SwiGLU, whose limit is marked). Up to MAX_NAMED_UNITS units
are named h1, h2, …, a name left out where it would cover another. Past MAX_POINTS units
(GPT-2's 3,072) the points would be a smear, and pyqtgraph's scatter item takes ~20 ms to
take them in on the GUI thread: the units are shown instead as a histogram under the curve,
how many units sit at each x (counted by core in well under a millisecond). Every number
comes from core.analysis (the curve is capped at MAX_CURVE_POINTS however far out a point lies).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.explorer.plots import look
from app.explorer.plots.common import FigureView, PlotTab
from app.widgets.labels import activation_label
from app.widgets.symbols import point_brush, point_pen
from core.analysis import activate_values, activation_curve, activation_range, value_histogram
from core.functions import ACTIVATION_FORMULAS

MAX_NAMED_UNITS = 16
MAX_POINTS = 512             # more units than this: a histogram instead of one point each
HISTOGRAM_BINS = 80
HISTOGRAM_SHARE = 0.35       # the tallest bar reaches this share of the plot's height


class ActivationTab(PlotTab):
    """The activation curve, with the selected token's pre-activations (gate values when gated) on it."""

    CURVE_HALF_WIDTH = 4.0     # the curve spans at least −4…4, more if a point lies further out

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsActivationTab", parent)
        self.graphics = FigureView(self)
        self.graphics.setObjectName("plotsActivationCurve")
        self.graphics.ci.setContentsMargins(4, 4, 4, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.plot = look.new_plot()
        self.graphics.ci.addItem(self.plot, row=0, col=0)
        self.dead_zone = pg.LinearRegionItem(values=(-4, 0), movable=False, pen=pg.mkPen(None))
        self.dead_zone.setZValue(-10)
        self.dead_zone_label = pg.TextItem(anchor=(0.5, 0.0))
        self.x_axis_line = pg.InfiniteLine(pos=0, angle=0)
        self.y_axis_line = pg.InfiniteLine(pos=0, angle=90)
        self.clamp_line = pg.InfiniteLine(pos=0, angle=90)
        for item in (self.x_axis_line, self.y_axis_line, self.clamp_line, self.dead_zone):
            self.plot.addItem(item)
        self.plot.addItem(self.dead_zone_label, ignoreBounds=True)
        self.curve = pg.PlotDataItem()
        self.plot.addItem(self.curve)
        self.points = pg.ScatterPlotItem(size=13)
        self.points.setZValue(5)
        self.plot.addItem(self.points)
        self.histogram = pg.PlotDataItem(stepMode="center")
        self.histogram.setZValue(-5)
        self.plot.addItem(self.histogram)
        self.histogram_label = pg.TextItem(anchor=(0.0, 1.0))
        self.plot.addItem(self.histogram_label, ignoreBounds=True)
        self.point_labels: list[pg.TextItem] = []
        self._named = (np.empty(0), np.empty(0))
        self.plot.vb.sigResized.connect(self._place_names)
        self.follow_resizes()
        self.restyle()
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.dead_zone_label.setText(self.tr("ReLU's dead zone"))

    def restyle(self) -> None:
        super().restyle()
        look.style_plot(self.plot)
        self.dead_zone.setBrush(look.faint(look.muted(), 45))
        self.dead_zone_label.setFont(look.font())
        self.dead_zone_label.setColor(look.muted())
        axis_pen = pg.mkPen(look.muted(), width=1)
        self.x_axis_line.setPen(axis_pen)
        self.y_axis_line.setPen(axis_pen)
        self.clamp_line.setPen(pg.mkPen(look.point_colour(), width=2, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.curve.setPen(pg.mkPen(look.curve_colour(), width=3))
        self.points.setBrush(point_brush(look.point_colour()))
        self.points.setPen(point_pen(look.background(), 1.5))
        self.histogram.setPen(pg.mkPen(look.point_colour(), width=1.5))
        self.histogram.setBrush(pg.mkBrush(look.faint(look.point_colour(), 90)))
        self.histogram_label.setFont(look.font())
        self.histogram_label.setColor(look.foreground())
        for label in self.point_labels:
            label.setFont(look.font())
            label.setColor(look.foreground())
        self.structure = None
        self._place_names()

    def refresh(self, force: bool = False) -> None:
        session = self.session
        config, trace = session.config, session.trace
        act, gated = config.activation, config.gated
        token = min(session.selected_token, len(session.tokens) - 1)
        if gated:
            hook = "mlp.hook_gate_clamped" if "mlp.hook_gate_clamped" in trace else "mlp.hook_gate"
        else:
            hook = "mlp.hook_pre"
        state = (hook, act, token, session.tokens[token])
        if not force and state == self.structure and self.unchanged([hook]):
            return
        xs = np.asarray(trace[hook][token], dtype=np.float64)
        ys = activate_values(act, xs)
        low, high = activation_range(xs, self.CURVE_HALF_WIDTH)
        limit = config.ffn_clamp
        if limit is not None:
            high = max(high, limit + 0.5)
        curve_x, curve_y = activation_curve(act, low, high)
        self.curve.setData(curve_x, curve_y)
        self._titles(*state)
        y_low = min(float(curve_y.min()), float(ys.min()))
        y_high = max(float(curve_y.max()), float(ys.max()))
        many = len(xs) > MAX_POINTS
        self.points.setData(x=[] if many else xs, y=[] if many else ys)
        self._histogram(xs, low, high, y_low, y_high, many)
        self.plot.setRange(xRange=(low, high), yRange=(y_low, y_high), padding=0.05)
        relu = act == "relu"
        self.dead_zone.setVisible(relu)
        # the caption sits in the dead zone: only when that is wide enough on screen to hold it
        self.dead_zone_label.setVisible(relu and -low >= 0.25 * (high - low))
        if relu:
            self.dead_zone.setRegion((low - 1, 0))
            self.dead_zone_label.setPos(low / 2, y_high + 0.04 * (y_high - y_low))
        self.clamp_line.setVisible(limit is not None)
        if limit is not None:
            self.clamp_line.setPos(limit)
        self._named = (xs, ys)
        self._place_names()
        self.structure = state
        self.remember([hook])

    def resized(self) -> None:
        if self.structure is not None:
            self._titles(*self.structure)

    def _titles(self, hook: str, act: str, token_index: int, token: str) -> None:
        """Title and axis labels, wrapped to the plot's width (a GELU formula is long)."""
        formula = ACTIVATION_FORMULAS[act]
        symbol = activation_label(act, "symbol")
        if self.session.config.gated:
            title = self.tr("%1(x) = %2 on the gate; hidden = %1(gate) ⊙ pre")
            title = title.replace("%1", symbol).replace("%2", formula)
            text = self.tr("gate value x (%1 of “%2”)").replace("%1", hook).replace("%2", token)
        else:
            title = f"{symbol}(x) = {formula}"
            text = self.tr("pre-activation x (mlp.hook_pre of “%1”)").replace("%1", token)
        self.fit_title(self.plot, title)
        self.fit_label(self.plot, text)
        look.set_axis_label(self.plot, "left", f"{symbol}(x)")

    def _histogram(self, xs: np.ndarray, low: float, high: float, y_low: float, y_high: float, shown: bool) -> None:
        """How many units sit at each x, as bars rising from the bottom of the plot."""
        self.histogram.setVisible(shown)
        self.histogram_label.setVisible(shown)
        if not shown:
            return
        edges, counts = value_histogram(xs, low, high, HISTOGRAM_BINS)
        heights = y_low + HISTOGRAM_SHARE * (y_high - y_low) * counts / max(1, counts.max())
        self.histogram.setData(edges, heights, fillLevel=y_low)
        self.histogram_label.setText(self.tr("%1 units: bars count the units at each x").replace("%1", f"{len(xs):,}"))
        self.histogram_label.setPos(low, y_low + HISTOGRAM_SHARE * (y_high - y_low) * 1.15)

    def _place_names(self, *args: object) -> None:
        """Name the points h1, h2, … while there are few; leave out a name that would cover one
        already placed (points close together)."""
        xs, ys = self._named
        shown = len(xs) if len(xs) <= MAX_NAMED_UNITS else 0
        while len(self.point_labels) < shown:
            label = pg.TextItem(anchor=(0.5, 1.2), color=look.foreground())
            label.setFont(look.font())
            self.plot.addItem(label, ignoreBounds=True)
            self.point_labels.append(label)
        taken: list[QRectF] = []
        vb = self.plot.vb
        text_font = look.font()
        for j, label in enumerate(self.point_labels):
            if j >= shown:
                label.setVisible(False)
                continue
            text = f"h{j + 1}"
            if label.toPlainText() != text:
                label.setText(text)
            label.setPos(float(xs[j]), float(ys[j]))
            # where the name lands on screen: anchored (0.5, 1.2) above its point
            at = vb.mapViewToScene(QPointF(float(xs[j]), float(ys[j])))
            width, height = look.advance(text_font, text), look.line_height(text_font)
            box = QRectF(at.x() - width / 2, at.y() - 1.2 * height, width, height)
            free = all(not box.intersects(other) for other in taken)
            label.setVisible(free)
            if free:
                taken.append(box)
