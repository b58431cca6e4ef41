"""The residual-stream tab: the selected token's stream before and after each sub-layer.

Up to MAX_BAR_WIDTH dimensions the stages are grouped bars, one colour per stage, with a
legend laid out in as many columns as fit (never cut off); wider streams (d = 64 … 768) are
one heatmap, a row per stage and a column per dimension, on a steady symmetric scale.
Both sets of items are made once; a change of width only shows one and hides the other.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app import i18n
from app.explorer.plots import look
from app.explorer.plots.common import FigureView, HoverTip, PlotTab, SteadyBars, SteadyLimit
from app.explorer.plots.heatmap import Heatmap, colour_bar_width
from app.explorer.plots.ticks import CellLabels
from app.session import Change
from app.widgets.style import DIVERGING
from core.numbers import format_number

MAX_BAR_WIDTH = 16            # wider streams are drawn as an image
MIN_PLOT_PX = 160             # the bars keep at least this height beside a two-line legend
GROUP_WIDTH = 0.8


class ResidualTab(PlotTab):
    """hook_resid_pre, the residual sums (post-norm), hook_resid_mid and hook_resid_post of one token."""

    # hook, and whether it is shown only as a post-norm residual sum
    STAGES = (("hook_resid_pre", False), ("ln1.hook_in", True), ("hook_resid_mid", False),
              ("ln2.hook_in", True), ("hook_resid_post", False))

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsResidualTab", parent)
        self.graphics = FigureView(self)
        self.graphics.setObjectName("plotsResidualStream")
        self.graphics.ci.setContentsMargins(4, 4, 4, 4)
        self.graphics.ci.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        # bars: a plot, one BarGraphItem per stage, and a legend under the plot
        self.plot = look.new_plot()
        self.zero_line = pg.InfiniteLine(pos=0, angle=0, pen=pg.mkPen("#888888", width=1))
        self.plot.addItem(self.zero_line)
        self.dimensions = CellLabels(self.plot, "bottom", counts_from_one=True)
        self.bars: list[pg.BarGraphItem] = []
        for _ in self.STAGES:
            bar = SteadyBars(x=[0.0], height=[0.0], width=0.1)
            self.plot.addItem(bar)
            self.bars.append(bar)
        self.legend = pg.LegendItem(frame=False, colCount=1)
        # the image: a row per stage
        self.heatmap = Heatmap(DIVERGING, downsample=True, columns_from_one=True)
        self.colour_bar = look.colour_bar(DIVERGING, (-1.0, 1.0))
        self.colour_bar.setImageItem(self.heatmap.image)
        self.take_out(self.plot, self.legend, self.heatmap.plot, self.colour_bar)
        self.limit = SteadyLimit()
        self.mode: str | None = None      # "bars" or "image"
        self.legend_form: tuple[int, bool] | None = None
        self.token_drawn: int | None = None
        self._room_fitted: tuple | None = None     # the room the legend and texts were last fitted to
        self.hover = HoverTip(self.graphics, self.hover_text)
        session.changed.connect(lambda change: change & Change.LOADED and self.limit.reset())
        self.follow_resizes()
        self.restyle()
        self.retranslate()
        self.refresh()

    def heatmaps(self) -> list[Heatmap]:
        return [self.heatmap]

    # --- texts and looks ----------------------------------------------------------------
    def _stage_names(self) -> dict[str, str]:
        sums = self.session.config.residual
        return {
            "hook_resid_pre": self.tr("input x"),
            "ln1.hook_in": self.tr("x + attn_out") if sums else "attn_out",
            "hook_resid_mid": self.tr("mid"),
            "ln2.hook_in": self.tr("mid + f") if sums else "f",
            "hook_resid_post": self.tr("output"),
        }

    def _legend_entry(self, hook: str, name: str, with_hook: bool) -> str:
        """What the stage is, and its hook name on a second line when there is room."""
        return f"{name}<br><span style='color:{look.muted()}'>{hook}</span>" if with_hook else name

    def restyle(self) -> None:
        super().restyle()
        self._room_fitted = None
        look.style_plot(self.plot)
        self.dimensions.restyle()
        self.heatmap.restyle()
        look.style_colour_bar(self.colour_bar)
        self.legend.setLabelTextSize(look.css())
        self.legend.setLabelTextColor(look.foreground())
        for n, bar in enumerate(self.bars):
            colour = look.series_colours()[n]
            bar.setOpts(brush=colour, pen=pg.mkPen(colour))
        self.structure = None

    def _stages(self) -> list[str]:
        trace, config = self.session.trace, self.session.config
        # Pre-norm ln*.hook_in repeat x and mid; only post-norm ones are new (the sums).
        return [hook for hook, only_post in self.STAGES if hook in trace and (config.post_norm or not only_post)]

    # --- layout ----------------------------------------------------------------------------
    def _fit_legend(self, stages: list[str]) -> tuple[int, bool]:
        """The legend's columns (as many as fit the figure's width) and whether its entries have
        room for a second line with the hook name (the plot keeps at least MIN_PLOT_PX); without
        the hook names the entries are narrower, so more columns (fewer rows) fit."""
        names = self._stage_names()
        text_font = look.font()
        line = look.line_height(text_font)
        room = self.graphics.height() - 2 * line - look.line_height(look.font(look.TITLE_PX)) - 40

        def columns(widest: float) -> tuple[int, int]:
            entry = widest + look.px(20) + 24          # the sample swatch and spacing
            count = max(1, min(len(stages), int((self.graphics.width() - 16) // entry)))
            return count, -(-len(stages) // count)

        with_hooks, rows = columns(max(max(look.advance(text_font, names[h]), look.advance(text_font, h))
                                       for h in stages))
        if room - rows * 2 * line >= MIN_PLOT_PX:
            return with_hooks, True
        return columns(max(look.advance(text_font, names[h]) for h in stages))[0], False

    def _place(self, mode: str, stages: list[str]) -> None:
        self.take_out(self.plot, self.legend, self.heatmap.plot, self.colour_bar)
        if mode == "bars":
            self.put(self.plot, 0, 0)
            self.put(self.legend, 1, 0)
        else:
            self.put(self.heatmap.plot, 0, 0)
            self.put(self.colour_bar, 0, 1)

    def _fill_legend(self, stages: list[str], form: tuple[int, bool]) -> None:
        self.legend.clear()
        names = self._stage_names()
        self.legend.setColumnCount(form[0])
        for n, hook in enumerate(stages):
            self.legend.addItem(self.bars[n], self._legend_entry(hook, names[hook], form[1]))
        self.legend_form = form

    # --- drawing ---------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        trace, config = self.session.trace, self.session.config
        stages = self._stages()
        width = max(trace[hook].shape[1] for hook in stages)
        mode = "bars" if width <= MAX_BAR_WIDTH else "image"
        structure = (tuple(stages), width, config.residual, mode)
        if structure != self.structure and (self.structure is None or self.structure[:2] != structure[:2]):
            self.limit.reset()
        if force or structure != self.structure:
            self._place(mode, stages)
            if mode == "bars":
                self.dimensions.set_labels([str(j + 1) for j in range(width)])
                self.plot.setXRange(0, width, padding=0.02)
                for n, bar in enumerate(self.bars):
                    bar.setVisible(n < len(stages))
                look.set_axis_label(self.plot, "left", self.tr("value"))
            else:
                names = self._stage_names()
                self.heatmap.set_labels([names[h] for h in stages], [str(j + 1) for j in range(width)])
                self.colour_bar.setLabel("right", self.tr("value"),
                                         **{"font-size": look.css(), "color": look.foreground()})
                look.fit_colour_bar(self.colour_bar)
            self.mode = mode
            self.structure = structure
            self.legend_form = None
            self.y_shown = None
            self.forget()
        token = min(self.session.selected_token, len(self.session.tokens) - 1)
        # The legend's form and the wrapped texts depend on the room and the words only: an edit
        # that changes neither measures no text again.
        room = self._room(mode, token)
        if force or room is None or room != self._room_fitted:
            if mode == "bars":
                form = self._fit_legend(stages)
                if form != self.legend_form:
                    self._fill_legend(stages, form)
            self._texts(mode, width, token)
            self._room_fitted = self._room(mode, token)
        if self.unchanged(stages) and self.token_drawn == token:
            return
        # (stages, width); without residual sums d_out may differ from d: the shorter rows end early
        rows = np.full((len(stages), width), np.nan)
        for n, hook in enumerate(stages):
            rows[n, :trace[hook].shape[1]] = trace[hook][token]
        if mode == "bars":
            # an edit sets only the bars whose stage it changed (each set draws its bars anew)
            self._draw_bars(rows, [n for n, hook in enumerate(stages)
                                   if self.token_drawn != token or self._drawn.get(hook) is not trace[hook]])
        else:
            limit = self.limit.fit([rows])
            self.heatmap.set_data(rows, (-limit, limit))
            look.set_levels(self.colour_bar, (-limit, limit))
        self.remember(stages)
        self.token_drawn = token

    def _room(self, mode: str, token: int) -> tuple | None:
        """What the legend's form and the texts' wrapping depend on besides the language (a
        language change refreshes with force); None (always fit again) for the image form."""
        if mode != "bars":
            return None
        left = self.plot.getAxis("left")
        return (self.structure, self.graphics.width(), self.graphics.height(), self.graphics.isVisible(),
                self.session.tokens[token], left.minimumWidth(), left.width(), self.legend_form)

    def _texts(self, mode: str, width: int, token: int) -> None:
        plot = self.plot if mode == "bars" else self.heatmap.plot
        beside = 0.0 if mode == "bars" else colour_bar_width(self.colour_bar)
        token_name = i18n.labelled(self.session.tokens[token])             # English: 小明 (Xiaoming)
        # a narrow plot (presenting beside the inspector) gives shorter words: a line of bars each
        self.fit_title(plot, self.tr("Residual stream of token “%1”").replace("%1", token_name),
                       reserved=beside, short=self.tr("Stream of “%1”").replace("%1", token_name))
        self.fit_label(plot, self.tr("dimension of the stream (1…%1)").replace("%1", str(width)), reserved=beside,
                       short=self.tr("dimension (1…%1)").replace("%1", str(width)))

    def resized(self) -> None:
        trace = self.session.trace
        stages = self._stages()
        if self.mode == "bars":
            form = self._fit_legend(stages)
            if form != self.legend_form:
                self._fill_legend(stages, form)
        width = max(trace[hook].shape[1] for hook in stages)
        self._texts(self.mode, width, min(self.session.selected_token, len(self.session.tokens) - 1))

    def _draw_bars(self, rows: np.ndarray, changed: list[int]) -> None:
        """Set the bars of the stages `changed` (rows: every stage's, for the axis range)."""
        count = len(rows)
        bar_width = GROUP_WIDTH / count
        for n in changed:
            row = rows[n][np.isfinite(rows[n])]
            offset = 0.5 - GROUP_WIDTH / 2 + (n + 0.5) * bar_width
            self.bars[n].setOpts(x=np.arange(row.size) + offset, height=row, width=bar_width * 0.92)
        low, high = min(0.0, float(np.nanmin(rows))), max(0.0, float(np.nanmax(rows)))
        # The axis stays while the bars fit it and fill at least half of it: a new range on every
        # edit would re-tick the axis and relayout the plot each time. A new range reaches out to
        # the next round numbers, so the next edits' slightly taller bars still fit it.
        shown = getattr(self, "y_shown", None)
        if shown is None or low < shown[0] or high > shown[1] or high - low < 0.5 * (shown[1] - shown[0]):
            low, high = round_out(low, high)
            self.plot.setYRange(low, high, padding=0.04)
            self.y_shown = (low, high)
            if shown is not None:                          # an edit's new range on a laid-out plot:
                self.plot.vb.prepareForPaint()             # its matrix and ticks, then its labels'
                look.measure_ticks(self.plot.getAxis("left"))   # width, laid out before the paint
                self.plot.layout.activate()

    def hover_text(self, scene_pos: QPointF) -> str | None:
        if self.mode != "image":
            return None
        cell = self.heatmap.cell_at(scene_pos)
        if cell is None:
            return None
        stage, dimension = cell
        hook = self._stages()[stage]
        token = min(self.session.selected_token, len(self.session.tokens) - 1)
        value = format_number(float(self.session.trace[hook][token, dimension]))
        return f"{self._stage_names()[hook]} ({hook}), " + \
            self.tr("dimension %1").replace("%1", str(dimension + 1)) + f": {value}"


def round_out(low: float, high: float, parts: int = 6) -> tuple[float, float]:
    """The range from `low` to `high` widened to whole multiples of a round step (1, 2, 2.5 or 5
    times a power of ten, about a `parts`-th of the range): at most a step more on each side, so
    the bars still fill more than half of it. A range that is empty or not finite stays as it is."""
    span = high - low
    if not (np.isfinite(low) and np.isfinite(high)) or span <= 0.0:
        return low, high
    wanted = span / parts
    power = 10.0 ** np.floor(np.log10(wanted))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= wanted * (1 - 1e-12))
    return float(np.floor(low / step) * step), float(np.ceil(high / step) * step)
