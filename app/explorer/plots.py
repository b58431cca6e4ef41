"""The explorer's plots: attention patterns, hidden units, the residual stream, the activation, the MSE.

Every plot item is created once, in a tab's constructor, and updated in place when the
session's trace changes; a change of structure (T, d_ff, heads, gating) only re-lays
out, re-ticks and shows or hides the same items. Every number comes from `core`.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (QLabel, QPushButton, QSizePolicy, QStackedWidget, QTabWidget, QVBoxLayout, QWidget)

from app.widgets import style  # noqa: F401  (configures row-major images before any plot exists)
from app.widgets.inert import escaped
from app.widgets.labels import activation_label
from app.widgets.style import (DIVERGING, format_number, limit_for, minus_ticks, quiet_plot, set_axis_label,
                               set_title, text_colours_on_map)
from app.widgets.style import font as style_font
from app.session import Change
from core.analysis import activate_values, activation_curve, activation_range, mse_sweep, sweep_range
from core.functions import ACTIVATION_FORMULAS

MAX_HEADS_SHOWN = 4          # more heads than this: the first four are drawn
MAX_NUMBERED_COLUMNS = 16    # numbers on hidden-unit cells only up to this many units
MAX_NUMBERED_TOKENS = 12     # numbers on attention cells only up to this many tokens
MAX_TOKEN_TICKS = 16         # more tokens than this: label every k-th one
MAX_UNIT_TICKS = 8           # hidden units are narrow columns: fewer labels
MAX_HISTORY_SHOWN = 500      # the MSE history plot shows the last this many steps
CELL_DECIMALS = 2            # numbers on heatmap cells: short enough to fit a cell
TICK_PT = 11
LABEL_PT = "11pt"
TITLE_PT = "12pt"
CELL_PT = 9

SEQUENTIAL = pg.colormap.get("viridis")   # ships with pyqtgraph: no network needed
# Okabe–Ito colours: told apart with the common colour-vision deficiencies.
STREAM_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")
POINT_COLOUR = "#D55E00"
CURVE_COLOUR = "#0072B2"


# --- shared helpers ------------------------------------------------------------------------
_font = style_font


def _new_plot() -> pg.PlotItem:
    plot = quiet_plot(pg.PlotItem(), TICK_PT)
    plot.vb.setDefaultPadding(0.0)
    return plot


def _label(plot: pg.PlotItem, side: str, text: str) -> None:
    set_axis_label(plot, side, text, LABEL_PT)


def _title(plot: pg.PlotItem, text: str) -> None:
    set_title(plot, text, TITLE_PT)


def _colour_bar(colour_map: pg.ColorMap, levels: tuple[float, float]) -> pg.ColorBarItem:
    bar = pg.ColorBarItem(values=levels, colorMap=colour_map, interactive=False, width=16,
                          colorMapMenu=False, pen="#888888")
    bar.axis.setTickFont(_font(TICK_PT))
    minus_ticks(bar.axis)
    return bar


def _ticks(labels: list[str], most: int = MAX_TOKEN_TICKS) -> list[list[tuple[float, str]]]:
    """Tick labels centred on cells 0…n−1; every k-th when there are more than `most`."""
    step = max(1, math.ceil(len(labels) / most))
    return [[(i + 0.5, text) for i, text in enumerate(labels) if i % step == 0]]


def _set_levels(bar: pg.ColorBarItem, levels: tuple[float, float]) -> None:
    if tuple(bar.levels()) != levels:
        bar.setLevels(values=levels)


def _image_data(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array, dtype=np.float32)


def _cell_text(value: float) -> str:
    return format_number(float(value), CELL_DECIMALS)


class SteadyLimit:
    """A symmetric colour limit that does not follow every edit.

    Set from the trace when a view's structure is built or a scenario is loaded (reset(),
    then the next fit()); after that only widened, when a value goes past it, so colours
    keep their meaning from edit to edit and an extreme value still shows as extreme.
    """

    def __init__(self) -> None:
        self.value: float | None = None

    def reset(self) -> None:
        self.value = None

    def fit(self, arrays: list[np.ndarray]) -> float:
        needed = max(limit_for(a) for a in arrays)
        if self.value is None or needed > self.value:
            self.value = needed
        return self.value


class _CellNumbers:
    """One reusable TextItem per heatmap cell, centred on it; all hidden when cells are too narrow.

    The pool grows to the largest numbered matrix seen and is never shrunk: extra items are hidden.
    """

    def __init__(self, plot: pg.PlotItem):
        self.plot = plot
        self.items: list[pg.TextItem] = []
        self.shape = (0, 0)
        self.wanted = False
        self.widest = ""
        self.shown: tuple = ()      # (visible, cells, pool size) last applied
        self.metrics = QFontMetrics(_font(CELL_PT))
        plot.vb.sigResized.connect(self._fit)
        plot.vb.sigRangeChanged.connect(self._fit)

    def set(self, texts: list[str], colours: list[str], shape: tuple[int, int], wanted: bool) -> None:
        """texts and colours in row-major order of a rows×columns matrix."""
        rows, columns = shape
        # Items only for numbers that may be shown: a wide matrix (d_ff = 4096) costs none.
        grown = len(self.items) < (rows * columns if wanted else 0)
        while len(self.items) < (rows * columns if wanted else 0):
            item = pg.TextItem(anchor=(0.5, 0.5))
            item.setFont(_font(CELL_PT))
            item.setZValue(10)
            self.plot.addItem(item, ignoreBounds=True)
            self.items.append(item)
        if shape != self.shape or grown:
            for n, item in enumerate(self.items):
                if n < rows * columns:
                    item.setPos(n % columns + 0.5, n // columns + 0.5)
            self.shape = shape
        self.wanted = wanted
        if wanted:
            for item, text, colour in zip(self.items, texts, colours):
                if item.toPlainText() != text:
                    item.setText(text)
                if item.color.name() != colour:
                    item.setColor(colour)
            self.widest = max(texts, key=len, default="")
        self._fit()

    def _fit(self, *args: object) -> None:
        rows, columns = self.shape
        state = (self.wanted and self._fits(), rows * columns, len(self.items))
        if state == self.shown:
            return
        self.shown = state
        visible, count, _ = state
        for n, item in enumerate(self.items):
            item.setVisible(visible and n < count)

    def _fits(self) -> bool:
        vb = self.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        if vb.width() <= 0 or vb.height() <= 0 or x1 <= x0 or y1 <= y0:
            return True            # not laid out yet: decide at the first resize
        cell_width, cell_height = vb.width() / (x1 - x0), vb.height() / (y1 - y0)
        return (cell_width >= self.metrics.horizontalAdvance(self.widest) + 3
                and cell_height >= self.metrics.height())


def _message_label(object_name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(object_name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setFont(_font(14))
    label.setMargin(24)
    return label


class _Tab(QWidget):
    """A tab page that follows the session; retranslates itself when the language changes."""

    def __init__(self, session, object_name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.setObjectName(object_name)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh(force=True)
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Static texts; texts that depend on the trace are set in refresh."""

    def refresh(self, force: bool = False) -> None:
        raise NotImplementedError


# --- 1. attention patterns -----------------------------------------------------------------
class AttentionTab(_Tab):
    """attn.hook_pattern of each head as a T×T heatmap: rows are queries, columns keys."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsAttentionTab", parent)
        self.stack = QStackedWidget(self)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setObjectName("plotsAttentionPatterns")
        self.off_label = _message_label("plotsAttentionOff")
        self.stack.addWidget(self.graphics)
        self.stack.addWidget(self.off_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        self.plots: list[pg.PlotItem] = []
        self.images: list[pg.ImageItem] = []
        self.numbers: list[_CellNumbers] = []
        for _ in range(MAX_HEADS_SHOWN):
            plot = _new_plot()
            plot.invertY(True)
            image = pg.ImageItem(axisOrder="row-major")
            plot.addItem(image)
            self.plots.append(plot)
            self.images.append(image)
            self.numbers.append(_CellNumbers(plot))
        self.bar = _colour_bar(SEQUENTIAL, (0.0, 1.0))
        self.bar.setImageItem(self.images)
        self.structure: object = None
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.off_label.setText(self.tr("Attention is switched off in this scenario."))
        self.bar.setLabel("right", self.tr("attention weight"), **{"font-size": LABEL_PT})

    def _relayout(self, heads: int, tokens: tuple[str, ...]) -> None:
        layout = self.graphics.ci
        for item in [*self.plots, self.bar]:
            if item in layout.items:
                layout.removeItem(item)
        columns = 1 if heads == 1 else 2
        for h in range(heads):
            layout.addItem(self.plots[h], row=h // columns, col=h % columns)
        layout.addItem(self.bar, row=0, col=columns, rowspan=math.ceil(heads / columns))
        ticks = _ticks(list(tokens))
        T = len(tokens)
        for h, plot in enumerate(self.plots):
            plot.setVisible(h < heads)
            plot.getAxis("left").setTicks(ticks)
            plot.getAxis("bottom").setTicks(ticks)
            plot.setRange(xRange=(0, T), yRange=(0, T), padding=0)

    def refresh(self, force: bool = False) -> None:
        trace = self.session.trace
        if "attn.hook_pattern" not in trace:
            self.stack.setCurrentWidget(self.off_label)
            self.structure = None
            return
        self.stack.setCurrentWidget(self.graphics)
        pattern = trace["attn.hook_pattern"]                 # (H, T, T)
        masked = np.isneginf(trace["attn.hook_attn_scores"])  # shown as "—", not as a number
        heads, T = min(pattern.shape[0], MAX_HEADS_SHOWN), pattern.shape[1]
        tokens = self.session.tokens
        structure = (heads, tokens, pattern.shape[0])
        if force or structure != self.structure:
            self._relayout(heads, tokens)
            for h in range(heads):
                title = self.tr("head %1").replace("%1", str(h + 1))
                if pattern.shape[0] > MAX_HEADS_SHOWN and h == heads - 1:
                    title += "  " + self.tr("(first %1 of %2 heads)").replace("%1", str(heads)) \
                        .replace("%2", str(pattern.shape[0]))
                _title(self.plots[h], title)
                # in a 2×2 grid the axis titles go on the outer plots only
                columns = 1 if heads == 1 else 2
                if h % columns == 0:
                    _label(self.plots[h], "left", self.tr("query (row)"))
                else:
                    self.plots[h].showLabel("left", False)
                bottom = self.plots[h].getAxis("bottom")
                if h + columns >= heads:
                    bottom.setHeight(None)
                    _label(self.plots[h], "bottom", self.tr("key (column)"))
                else:
                    self.plots[h].showLabel("bottom", False)
                    # pyqtgraph measures tick text with the Latin font; CJK glyphs are taller
                    bottom.setHeight(int(QFontMetrics(_font(TICK_PT)).height() * 1.5) + 8)
            self.structure = structure
        numbered = T <= MAX_NUMBERED_TOKENS
        for h in range(heads):
            self.images[h].setImage(_image_data(pattern[h]), levels=(0.0, 1.0))
            if numbered:
                values = pattern[h].ravel()
                texts = ["—" if m else _cell_text(v) for v, m in zip(values, masked[h].ravel())]
                colours = text_colours_on_map(SEQUENTIAL, values)      # levels are 0…1
            else:
                texts, colours = [], []
            self.numbers[h].set(texts, colours, (T, T), numbered)


# --- 2. hidden units -----------------------------------------------------------------------
class HiddenUnitsTab(_Tab):
    """mlp.hook_pre (and mlp.hook_gate when gated) and mlp.hook_post as token × unit heatmaps."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsHiddenTab", parent)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setObjectName("plotsHiddenUnits")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        # pre, gate, post: the gate plot is laid out only for gated FFNs
        self.plots = [_new_plot() for _ in range(3)]
        self.images = [pg.ImageItem(axisOrder="row-major") for _ in range(3)]
        self.numbers = []
        for plot, image in zip(self.plots, self.images):
            plot.invertY(True)
            plot.addItem(image)
            self.numbers.append(_CellNumbers(plot))
        self.pre_image, self.gate_image, self.post_image = self.images
        self.bar = _colour_bar(DIVERGING, (-1.0, 1.0))
        self.bar.setImageItem(self.images)
        self.structure: object = None
        self.titled: object = None
        self.limit = SteadyLimit()
        session.changed.connect(lambda change: change & Change.LOADED and self.limit.reset())
        self.retranslate()
        self.refresh()

    @property
    def levels(self) -> tuple[float, float]:
        """The colour levels of the three maps (symmetric; steady across edits)."""
        limit = self.limit.value if self.limit.value is not None else 1.0
        return (-limit, limit)

    def retranslate(self) -> None:
        self.bar.setLabel("right", self.tr("value"), **{"font-size": LABEL_PT})

    def _relayout(self, gated: bool, tokens: tuple[str, ...], units: int) -> None:
        layout = self.graphics.ci
        for item in [*self.plots, self.bar]:
            if item in layout.items:
                layout.removeItem(item)
        shown = self.plots if gated else [self.plots[0], self.plots[2]]
        for column, plot in enumerate(shown):
            layout.addItem(plot, row=0, col=column)
        layout.addItem(self.bar, row=0, col=len(shown))
        self.plots[1].setVisible(gated)
        token_ticks = _ticks(list(tokens))
        unit_ticks = _ticks([f"h{j + 1}" for j in range(units)], MAX_UNIT_TICKS)
        for plot in self.plots:
            plot.getAxis("left").setTicks(token_ticks)
            plot.getAxis("bottom").setTicks(unit_ticks)
            plot.setRange(xRange=(0, units), yRange=(0, len(tokens)), padding=0)
        # rows line up across the maps: the tokens are named once, on the left
        for plot in shown[1:]:
            plot.getAxis("left").setStyle(showValues=False)
            plot.showLabel("left", False)
        self.plots[0].getAxis("left").setStyle(showValues=True)

    def refresh(self, force: bool = False) -> None:
        config, trace = self.session.config, self.session.trace
        gated = config.gated
        names = ["mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post"]
        arrays = [trace[name] if name in trace else None for name in names]
        pre = arrays[0]
        T, F = pre.shape
        tokens = self.session.tokens
        structure = (gated, tokens, F)
        if structure != self.structure:
            self.limit.reset()          # a new structure: levels from this trace
        if force or structure != self.structure:
            self._relayout(gated, tokens, F)
            self.structure = structure
            self.titled = None
        titled = (gated, config.activation)
        if force or titled != self.titled:
            act = activation_label(config.activation, "symbol")
            # formulas, not words: the same in every language; maps side by side need
            # two-line titles to fit (two maps do too, in a 1280-px window's plot panel)
            gap = "<br>"
            titles = [f"mlp.hook_pre{gap}= x·W_in + b_in", f"mlp.hook_gate{gap}= x·W_gate + b_gate",
                      f"mlp.hook_post{gap}= {act}(gate) ⊙ pre" if gated else f"mlp.hook_post{gap}= {act}(pre)"]
            title_height = 50
            for plot, title in zip(self.plots, titles):
                _title(plot, title)
                plot.titleLabel.setMaximumHeight(title_height)   # pyqtgraph fixes one line
                plot.layout.setRowFixedHeight(0, title_height)
                _label(plot, "bottom", self.tr("hidden unit (h1 = first)"))
            _label(self.plots[0], "left", self.tr("token"))
            self.titled = titled
        shown = [a for a in arrays if a is not None]
        limit = self.limit.fit(shown)        # one scale, so the maps compare; steady across edits
        levels = (-limit, limit)
        numbered = F <= MAX_NUMBERED_COLUMNS
        for image, numbers, array in zip(self.images, self.numbers, arrays):
            if array is None:
                continue
            image.setImage(_image_data(array), levels=levels)
            if numbered:
                values = array.ravel()
                texts = [_cell_text(v) for v in values]
                colours = text_colours_on_map(DIVERGING, 0.5 + 0.5 * values / limit)
            else:
                texts, colours = [], []
            numbers.set(texts, colours, (T, F), numbered)
        _set_levels(self.bar, levels)


# --- 3. residual stream --------------------------------------------------------------------
class ResidualTab(_Tab):
    """The selected token's residual stream before and after each sub-layer, as grouped bars."""

    # hook, and whether it is shown only as a post-norm residual sum
    STAGES = (("hook_resid_pre", False), ("ln1.hook_in", True), ("hook_resid_mid", False),
              ("ln2.hook_in", True), ("hook_resid_post", False))
    GROUP_WIDTH = 0.8

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsResidualTab", parent)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setObjectName("plotsResidualStream")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.plot = _new_plot()
        self.graphics.ci.addItem(self.plot, row=0, col=0)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", width=1)))
        self.bars: list[pg.BarGraphItem] = []
        for colour in STREAM_COLOURS:
            bar = pg.BarGraphItem(x=[0.0], height=[0.0], width=0.1, brush=colour, pen=pg.mkPen(colour))
            self.plot.addItem(bar)
            self.bars.append(bar)
        # beside the plot, not over it: bars may reach any corner
        self.legend = pg.LegendItem(labelTextSize="11pt", frame=False)
        self.legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.graphics.ci.addItem(self.legend, row=0, col=1)
        self.graphics.ci.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignVCenter)
        self.structure: object = None
        self.retranslate()
        self.refresh()

    def _stage_names(self) -> dict[str, str]:
        """Legend entries: what the stage is, and its hook name on a second, smaller line (one
        line each would not fit beside the plot in a 1024-px window)."""
        sums = self.session.config.residual
        names = {
            "hook_resid_pre": self.tr("input x"),
            "ln1.hook_in": self.tr("x + attn_out") if sums else "attn_out",
            "hook_resid_mid": self.tr("mid"),
            "ln2.hook_in": self.tr("mid + f") if sums else "f",
            "hook_resid_post": self.tr("output"),
        }
        return {hook: f"{name}<br><span style='font-size:9pt; color:#555555'>{hook}</span>"
                for hook, name in names.items()}

    def _stages(self) -> list[str]:
        trace, config = self.session.trace, self.session.config
        post_norm = config.post_norm
        # Pre-norm ln*.hook_in repeat x and mid; only post-norm ones are new (the sums).
        return [hook for hook, only_post in self.STAGES if hook in trace and (post_norm or not only_post)]

    def refresh(self, force: bool = False) -> None:
        trace, config = self.session.trace, self.session.config
        stages = self._stages()
        widths = tuple(trace[hook].shape[1] for hook in stages)
        structure = (tuple(stages), widths, config.residual)
        if force or structure != self.structure:
            self.legend.clear()
            names = self._stage_names()
            for n, bar in enumerate(self.bars):
                if n < len(stages):
                    self.legend.addItem(bar, names[stages[n]])
                bar.setVisible(n < len(stages))
            width = max(widths)
            self.plot.getAxis("bottom").setTicks([[(j, str(j + 1)) for j in range(width)]])
            _label(self.plot, "bottom", self.tr("dimension of the stream (1…%1)").replace("%1", str(width)))
            _label(self.plot, "left", self.tr("value"))
            self.plot.setXRange(-0.5, width - 0.5, padding=0.02)
            self.structure = structure
        token = min(self.session.selected_token, len(self.session.tokens) - 1)
        _title(self.plot, self.tr("Residual stream of token “%1”").replace("%1", escaped(self.session.tokens[token])))
        bar_width = self.GROUP_WIDTH / len(stages)
        low = high = 0.0
        for n, hook in enumerate(stages):
            row = trace[hook][token]
            offset = -self.GROUP_WIDTH / 2 + (n + 0.5) * bar_width
            self.bars[n].setOpts(x=np.arange(row.size) + offset, height=row, width=bar_width * 0.92)
            low, high = min(low, float(row.min())), max(high, float(row.max()))
        self.plot.setYRange(low, high, padding=0.08)


# --- 4. activation -------------------------------------------------------------------------
class ActivationTab(_Tab):
    """The activation curve, with the selected token's pre-activations (gate values when gated) on it."""

    CURVE_HALF_WIDTH = 4.0     # the curve spans at least −4…4, more if a point lies further out

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsActivationTab", parent)
        self.graphics = pg.GraphicsLayoutWidget(self)
        self.graphics.setObjectName("plotsActivationCurve")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.plot = _new_plot()
        self.graphics.ci.addItem(self.plot, row=0, col=0)
        self.dead_zone = pg.LinearRegionItem(values=(-4, 0), movable=False, brush=pg.mkBrush(120, 120, 120, 45),
                                             pen=pg.mkPen(None))
        self.dead_zone.setZValue(-10)
        self.dead_zone_label = pg.TextItem(anchor=(0.5, 0.0), color="#444444")
        self.dead_zone_label.setFont(_font(12))
        axis_pen = pg.mkPen("#999999", width=1)
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=axis_pen))
        self.plot.addItem(pg.InfiniteLine(pos=0, angle=90, pen=axis_pen))
        self.plot.addItem(self.dead_zone)
        self.plot.addItem(self.dead_zone_label, ignoreBounds=True)
        self.curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLOUR, width=3))
        self.plot.addItem(self.curve)
        self.points = pg.ScatterPlotItem(size=13, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#ffffff", width=1.5))
        self.points.setZValue(5)
        self.plot.addItem(self.points)
        self.point_labels: list[pg.TextItem] = []
        self.structure: object = None
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.dead_zone_label.setText(self.tr("ReLU's dead zone"))

    def refresh(self, force: bool = False) -> None:
        session = self.session
        config, trace = session.config, session.trace
        act, gated = config.activation, config.gated
        token = min(session.selected_token, len(session.tokens) - 1)
        hook = "mlp.hook_gate" if gated else "mlp.hook_pre"
        xs = np.asarray(trace[hook][token], dtype=np.float64)
        ys = activate_values(act, xs)
        # core caps the curve (at most MAX_CURVE_POINTS, finite ends) however far out a point lies
        low, high = activation_range(xs, self.CURVE_HALF_WIDTH)
        curve_x, curve_y = activation_curve(act, low, high)
        self.curve.setData(curve_x, curve_y)
        self.points.setData(x=xs, y=ys)
        self._label_points(xs, ys)
        formula = ACTIVATION_FORMULAS[act]
        symbol = activation_label(act, "symbol")
        tok = escaped(session.tokens[token])         # pyqtgraph's labels are HTML: a token is text
        if gated:
            _title(self.plot, self.tr("%1(x) = %2 on the gate; hidden = %1(gate) ⊙ pre")
                   .replace("%1", symbol).replace("%2", formula))
            _label(self.plot, "bottom", self.tr("gate value x (mlp.hook_gate of “%1”)").replace("%1", tok))
        else:
            _title(self.plot, f"{symbol}(x) = {formula}")
            _label(self.plot, "bottom", self.tr("pre-activation x (mlp.hook_pre of “%1”)").replace("%1", tok))
        _label(self.plot, "left", f"{symbol}(x)")
        y_low = min(float(curve_y.min()), float(ys.min()))
        y_high = max(float(curve_y.max()), float(ys.max()))
        self.plot.setRange(xRange=(low, high), yRange=(y_low, y_high), padding=0.05)
        relu = act == "relu"
        self.dead_zone.setVisible(relu)
        # the caption sits in the dead zone: only when that is wide enough on screen to hold it
        self.dead_zone_label.setVisible(relu and -low >= 0.25 * (high - low))
        if relu:
            self.dead_zone.setRegion((low - 1, 0))
            self.dead_zone_label.setPos(low / 2, y_high + 0.04 * (y_high - y_low))

    def _label_points(self, xs: np.ndarray, ys: np.ndarray) -> None:
        """Name each point after its hidden unit (h1, h2, …) while there are few enough to read."""
        shown = len(xs) if len(xs) <= MAX_NUMBERED_COLUMNS else 0
        while len(self.point_labels) < shown:
            label = pg.TextItem(anchor=(0.5, 1.2), color="#7a2e00")
            label.setFont(_font(10))
            self.plot.addItem(label, ignoreBounds=True)
            self.point_labels.append(label)
        for j, label in enumerate(self.point_labels):
            label.setVisible(j < shown)
            if j < shown:
                text = f"h{j + 1}"
                if label.toPlainText() != text:
                    label.setText(text)
                label.setPos(float(xs[j]), float(ys[j]))


# --- 5. MSE --------------------------------------------------------------------------------
class MseTab(_Tab):
    """The MSE, its curve as the chosen edit cell varies, and its history over this session's edits."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsMseTab", parent)
        self.stack = QStackedWidget(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        # no targets: say so, and offer to make some
        self.empty_page = QWidget()
        self.empty_label = _message_label("plotsNoTargets")
        self.use_output = QPushButton()
        self.use_output.setObjectName("plotsUseOutputAsTarget")
        self.use_output.setFont(_font(12))
        self.use_output.clicked.connect(session.use_output_as_targets)
        empty_layout = QVBoxLayout(self.empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_label)
        empty_layout.addWidget(self.use_output, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(1)

        # targets: the number, the sweep, the history
        self.mse_page = QWidget()
        self.caption = QLabel()
        self.caption.setObjectName("plotsMseCaption")
        self.caption.setFont(_font(13))
        self.mse_label = QLabel()
        self.mse_label.setObjectName("plotsMseValue")
        self.mse_label.setFont(_font(24, bold=True))
        self.mse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setObjectName("plotsMsePlots")
        page_layout = QVBoxLayout(self.mse_page)
        page_layout.setContentsMargins(8, 4, 8, 0)
        page_layout.setSpacing(0)
        head = QWidget()
        head_layout = QVBoxLayout(head)
        head_layout.setContentsMargins(0, 0, 0, 0)
        head_layout.setSpacing(0)
        head_layout.addWidget(self.caption)
        head_layout.addWidget(self.mse_label)
        page_layout.addWidget(head)
        page_layout.addWidget(self.graphics, 1)
        self.stack.addWidget(self.empty_page)
        self.stack.addWidget(self.mse_page)

        self.sweep_plot = _new_plot()
        self.history_plot = _new_plot()
        self.graphics.ci.addItem(self.sweep_plot, row=0, col=0)
        self.graphics.ci.addItem(self.history_plot, row=0, col=1)
        self.sweep_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLOUR, width=3))
        self.sweep_marker = pg.ScatterPlotItem(size=15, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#ffffff", width=2))
        self.sweep_marker.setZValue(5)
        self.sweep_plot.addItem(self.sweep_curve)
        self.sweep_plot.addItem(self.sweep_marker)
        self.sweep_plot.vb.setDefaultPadding(0.05)
        self.history_curve = pg.PlotDataItem(pen=pg.mkPen("#555555", width=2), symbol="o", symbolSize=10,
                                             symbolBrush=pg.mkBrush(CURVE_COLOUR), symbolPen=pg.mkPen("#ffffff"))
        self.history_plot.addItem(self.history_curve)
        self.history_plot.vb.setDefaultPadding(0.05)
        self.sweep_plot.enableAutoRange()

        # The sweep runs the block ~61 times (several ms at lesson size): coalesce the edits
        # of one event-loop turn, and skip it while the tab is not the one on screen.
        self.sweep_timer = QTimer(self)
        self.sweep_timer.setSingleShot(True)
        self.sweep_timer.setInterval(0)
        self.sweep_timer.timeout.connect(self._sweep_if_shown)
        self.sweep_stale = True
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.empty_label.setText(self.tr("This scenario has no targets, so there is no error to measure. "
                                         "Make the block's current output the target, then edit a weight "
                                         "and watch the MSE grow."))
        self.use_output.setText(self.tr("Use the current output as target"))
        self.caption.setText(self.tr("MSE (mean squared error of the output against the targets)"))
        _title(self.history_plot, self.tr("MSE after each step"))
        _label(self.history_plot, "bottom", self.tr("step (0 = first with targets)"))
        _label(self.history_plot, "left", self.tr("MSE"))
        _label(self.sweep_plot, "left", self.tr("MSE"))

    def refresh(self, force: bool = False) -> None:
        session = self.session
        if session.mse is None:
            self.stack.setCurrentWidget(self.empty_page)
            self.sweep_stale = True
            return
        self.stack.setCurrentWidget(self.mse_page)
        self.mse_label.setText(format_number(session.mse))
        # the last MAX_HISTORY_SHOWN steps only: an edit must not re-plot an ever longer list
        total = len(session.mse_history)
        first = max(0, total - MAX_HISTORY_SHOWN)
        history = np.asarray(session.mse_history[first:], dtype=np.float64)
        self.history_curve.setData(np.arange(first, total), history)
        # MSE is never negative: keep 0 in view, and a few steps of room to grow
        self.history_plot.setRange(xRange=(first - 0.5, max(total - 1, first + 5) + 0.5),
                                   yRange=(0.0, max(float(history.max(initial=0.0)), 1e-3)), padding=0.05)
        self.schedule_sweep()

    def schedule_sweep(self) -> None:
        self.sweep_stale = True
        self.sweep_timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self.sweep_stale:
            self.sweep_timer.start()

    def _sweep_if_shown(self) -> None:
        if self.sweep_stale and self.isVisible():
            self.update_sweep()

    def update_sweep(self) -> None:
        """Recompute the MSE curve over the edit cell's values (core.analysis.mse_sweep)."""
        session = self.session
        self.sweep_stale = False
        if session.mse is None:
            return
        tensor, index = session.edit_tensor, session.edit_index
        cell = f"{tensor}[{', '.join(map(str, index))}]"
        if tensor == "targets":   # mse_sweep varies inputs or weights only
            self.sweep_curve.setData([], [])
            self.sweep_marker.setData([], [])
            _title(self.sweep_plot, self.tr("Pick a weight or input cell to see its MSE curve"))
            _label(self.sweep_plot, "bottom", self.tr("value of %1").replace("%1", cell))
            return
        current = float(session.tensor(tensor)[index])
        values = sweep_range(current)
        state = session.state
        errors = mse_sweep(state.config, state.weights, state.inputs, state.targets, tensor, index, values)
        self.sweep_curve.setData(values, errors)
        self.sweep_marker.setData([current], [session.mse])
        _title(self.sweep_plot, self.tr("MSE as %1 varies").replace("%1", cell))
        _label(self.sweep_plot, "bottom", self.tr("value of %1 (dot: now %2)")
               .replace("%1", cell).replace("%2", format_number(current, 3)))


# --- the panel -----------------------------------------------------------------------------
class PlotsPanel(QTabWidget):
    """The explorer's plot tabs, following one Session."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plotsPanel")
        self.session = session
        self.attention_tab = AttentionTab(session)
        self.hidden_tab = HiddenUnitsTab(session)
        self.residual_tab = ResidualTab(session)
        self.activation_tab = ActivationTab(session)
        self.mse_tab = MseTab(session)
        for tab in self._tabs():
            self.addTab(tab, "")
        self.retranslate()
        self._stale: set[_Tab] = set()
        self.currentChanged.connect(lambda _index: self._refresh_visible())
        session.changed.connect(self._on_changed)

    def _on_changed(self, change: Change) -> None:
        if change & Change.TRACE:
            self.refresh()
        elif change & Change.SELECTION:
            self._selection_changed()
        if change & Change.EDIT_TARGET:
            self.mse_tab.schedule_sweep()

    def _tabs(self) -> list[_Tab]:
        return [self.attention_tab, self.hidden_tab, self.residual_tab, self.activation_tab, self.mse_tab]

    def retranslate(self) -> None:
        titles = [self.tr("Attention"), self.tr("Hidden units"), self.tr("Residual stream"),
                  self.tr("Activation"), self.tr("MSE")]
        for index, title in enumerate(titles):
            self.setTabText(index, title)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def refresh(self) -> None:
        """Only the tab on screen is redrawn now; the others when shown or read (see _fresh)."""
        self._stale = set(self._tabs())
        if not self.session.config.attention:
            self._fresh(self.attention_tab)           # cheap: it only shows "switched off"
            if self.currentWidget() is self.attention_tab:
                self.setCurrentWidget(self.hidden_tab)
        self._refresh_visible()

    def show_tab(self, name: str) -> None:
        """Bring a tab to the front by name: attention, hidden, residual, activation or mse."""
        tabs = {"attention": self.attention_tab, "hidden": self.hidden_tab, "residual": self.residual_tab,
                "activation": self.activation_tab, "mse": self.mse_tab}
        if name in tabs:
            self.setCurrentWidget(tabs[name])

    def _selection_changed(self) -> None:
        self._stale |= {self.residual_tab, self.activation_tab}
        self._refresh_visible()

    def _refresh_visible(self) -> None:
        self._fresh(self.currentWidget())

    def _fresh(self, tab):
        if tab in self._stale:
            self._stale.discard(tab)
            tab.refresh()
        return tab

    # --- for tests and the main window ---------------------------------------------------
    def pattern_image(self, head: int) -> pg.ImageItem:
        return self._fresh(self.attention_tab).images[head]

    @property
    def pre_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).pre_image

    @property
    def gate_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).gate_image

    @property
    def post_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).post_image

    @property
    def activation_points(self) -> pg.ScatterPlotItem:
        return self._fresh(self.activation_tab).points

    @property
    def activation_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.activation_tab).curve

    @property
    def residual_bars(self) -> list[pg.BarGraphItem]:
        return self._fresh(self.residual_tab).bars

    @property
    def sweep_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.mse_tab).sweep_curve

    @property
    def sweep_marker(self) -> pg.ScatterPlotItem:
        return self._fresh(self.mse_tab).sweep_marker

    @property
    def history_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.mse_tab).history_curve

    @property
    def mse_label(self) -> QLabel:
        return self._fresh(self.mse_tab).mse_label
