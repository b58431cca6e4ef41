"""The hidden-units tab: the FFN's hidden layer as token × unit heatmaps, before and after the activation.

pre (x·W_in + b_in), the gate (gated FFNs) and post (the activation's output) share one
symmetric colour scale so they compare. With a clamped SwiGLU the maps show the clamped
values, which are what the activation reads (mlp.hook_pre_clamped, mlp.hook_gate_clamped);
hovering a cell gives the value before clamping too. The maps sit side by side or one above
the other, whichever gives their cells more room (3,072 units lie better in a wide strip).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.explorer.plots import look
from app.explorer.plots.common import FigureView, HoverTip, PlotTab, SteadyLimit, cell_texts
from app.explorer.plots.grid import Arrangement, Room, arrange
from app.explorer.plots.heatmap import CELL_PADDING, MAX_NUMBERED_CELLS, Heatmap, colour_bar_width, equal_maps
from app.session import Change
from app.widgets.labels import activation_label
from app.widgets.style import DIVERGING
from core.numbers import format_number, format_short

PRE, GATE, POST = "pre", "gate", "post"
MIN_MAP_PX = 64               # a map of a few tokens may be flat: 64 px still shows its rows


def hooks_of(config, trace) -> dict[str, str]:
    """The hook each map shows: {"pre": …, "gate": … (gated only), "post": …}."""
    clamped = "mlp.hook_pre_clamped" in trace
    shown = {PRE: "mlp.hook_pre_clamped" if clamped else "mlp.hook_pre"}
    if config.gated:
        shown[GATE] = "mlp.hook_gate_clamped" if "mlp.hook_gate_clamped" in trace else "mlp.hook_gate"
    shown[POST] = "mlp.hook_post"
    return shown


def _fit_axis_label(plot: pg.PlotItem) -> None:
    """The token axis's title ("token", turned upright, centred on the axis) drawn only where it
    stays below the map's title: beside a map one token high under a title of three lines (150 %
    on a narrow panel) it reached over the title. It keeps its room: nothing moves."""
    label, title = plot.getAxis("left").label, plot.titleLabel
    # the texts' own boxes, less their documents' margins (blank)
    shared = label.sceneBoundingRect().intersected(title.item.sceneBoundingRect())
    margins = label.document().documentMargin() + title.item.document().documentMargin()
    over = title.isVisible() and shared.width() > margins and shared.height() > margins
    label.setOpacity(0.0 if over else 1.0)


class HiddenUnitsTab(PlotTab):
    """mlp.hook_pre (and the gate when gated) and mlp.hook_post as token × unit heatmaps."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsHiddenTab", parent)
        self.graphics = FigureView(self)
        self.graphics.setObjectName("plotsHiddenUnits")
        self.graphics.ci.setContentsMargins(4, 4, 4, 4)
        self.graphics.ci.setSpacing(6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.graphics)
        self.maps = {name: Heatmap(DIVERGING, downsample=True, columns_from_one=True) for name in (PRE, GATE, POST)}
        for heatmap in self.maps.values():
            # the title over the token axis too: a narrow panel then has room for a hook name a line
            heatmap.plot.layout.removeItem(heatmap.plot.titleLabel)
            heatmap.plot.layout.addItem(heatmap.plot.titleLabel, 0, 0, 1, 2)
            for item in (heatmap.plot.getAxis("left"), heatmap.plot.titleLabel):
                item.geometryChanged.connect(lambda plot=heatmap.plot: _fit_axis_label(plot))
        self.bar = look.colour_bar(DIVERGING, (-1.0, 1.0))
        self.bar.setImageItem([m.image for m in self.maps.values()])
        self.take_out(*self.plots, self.bar)
        self.hooks: dict[str, str] = {}
        self.arrangement: Arrangement | None = None
        self._fitted: tuple | None = None      # the structure and room last arranged for
        self.limit = SteadyLimit()
        self.hover = HoverTip(self.graphics, self.hover_text)
        session.changed.connect(lambda change: change & Change.LOADED and self.limit.reset())
        self.follow_resizes()
        self.restyle()
        self.retranslate()
        self.refresh()

    # --- reading (tests, the panel) -----------------------------------------------------
    @property
    def pre_image(self) -> pg.ImageItem:
        return self.maps[PRE].image

    @property
    def gate_image(self) -> pg.ImageItem:
        return self.maps[GATE].image

    @property
    def post_image(self) -> pg.ImageItem:
        return self.maps[POST].image

    @property
    def images(self) -> list[pg.ImageItem]:
        return [m.image for m in self.maps.values()]

    @property
    def plots(self) -> list[pg.PlotItem]:
        return [m.plot for m in self.maps.values()]

    @property
    def levels(self) -> tuple[float, float]:
        """The colour levels of the maps (symmetric; steady across edits)."""
        limit = self.limit.value if self.limit.value is not None else 1.0
        return (-limit, limit)

    def heatmaps(self) -> list[Heatmap]:
        return list(self.maps.values())

    # --- texts and looks ----------------------------------------------------------------
    def retranslate(self) -> None:
        self.bar.setLabel("right", self.tr("value"), **{"font-size": look.css(), "color": look.foreground()})
        look.fit_colour_bar(self.bar)

    def restyle(self) -> None:
        super().restyle()
        for heatmap in self.maps.values():
            heatmap.restyle()
        look.style_colour_bar(self.bar)
        self.structure = None

    def _titles(self) -> dict[str, tuple[str, str]]:
        """Each map's title as (hook name, formula): formulas, the same in every language."""
        config = self.session.config
        act = activation_label(config.activation, "symbol")
        limit = config.ffn_clamp
        if limit is not None:
            bound = format_short(limit)
            formulas = {PRE: f"clip(pre, ±{bound})", GATE: f"min(gate, {bound})",
                        POST: f"{act}(gate) ⊙ pre"}
        else:
            formulas = {PRE: "x·W_in + b_in", GATE: "x·W_gate + b_gate",
                        POST: f"{act}(gate) ⊙ pre" if config.gated else f"{act}(pre)"}
        return {name: (hook, formulas[name]) for name, hook in self.hooks.items()}

    def _title_width(self, titles: dict[str, tuple[str, str]]) -> float:
        """The narrowest map whose titles still wrap within it: the widest unbreakable part
        (hook names break after their dots, formulas at spaces)."""
        title_font = look.font(look.TITLE_PX)
        parts = [part for hook, formula in titles.values() for part in [*hook.split("."), *formula.split()]]
        return max(look.advance(title_font, part + ".") for part in parts) + 8

    def _title_lines(self, titles: dict[str, tuple[str, str]], width: float) -> int:
        """The lines the tallest title takes over a map `width` wide (the token axis beside it,
        which a title also spans, left out: a side-by-side map's axis has no labels)."""
        title_font = look.font(look.TITLE_PX)
        if max(look.advance(title_font, f"{hook} = {formula}") for hook, formula in titles.values()) + 8 <= width:
            return 1
        return max(look.wrapped(hook, title_font, width - 8).count("<br>")
                   + look.wrapped(f"= {formula}", title_font, width - 8).count("<br>") + 2
                   for hook, formula in titles.values())

    # --- layout ----------------------------------------------------------------------------
    def _arrange(self, tokens: tuple[str, ...], units: int) -> bool:
        text_font = look.font()
        line = look.line_height(text_font)
        widest = max((look.advance(text_font, t) for t in tokens), default=0.0)
        count = len(self.hooks)
        if self.graphics.width() <= 0:
            arrangement = Arrangement(1, count, count, 0, 0, False)
        else:
            metrics = QFontMetricsF(text_font)
            numbers = None if len(tokens) * units > MAX_NUMBERED_CELLS else \
                (metrics.horizontalAdvance("\u22120.00") + CELL_PADDING, metrics.height() + CELL_PADDING)
            titles = self._titles()

            def arranged(bar_label: bool) -> Arrangement:
                self._show_bar_label(bar_label)
                room = Room(width=self.graphics.width(), height=self.graphics.height(),
                            left_axis=widest + look.TICK_LENGTH + 9 + line + 2,
                            bottom_axis=2 * line + look.TICK_LENGTH + 9,
                            title=look.line_height(look.font(look.TITLE_PX)) + 3,
                            bar=colour_bar_width(self.bar), spacing=8)
                return arrange(room, count, (len(tokens), units), numbers, shapes="line", all_shown=True,
                               min_map_width=self._title_width(titles), min_map_px=MIN_MAP_PX,
                               title_lines=lambda width: self._title_lines(titles, width),
                               row_label_px=line + 2)

            arrangement = arranged(True)
            lines = self._title_lines(titles, arrangement.map_width)
            if lines > 2:
                # A narrow panel (150 % on a projector): the colour bar's title ("value", which its
                # numbers and colours say anyway) gives its room to the maps' titles, where that
                # saves them lines.
                bare = arranged(False)
                if self._title_lines(titles, bare.map_width) < lines:
                    arrangement = bare
                else:
                    self._show_bar_label(True)
        changed = self.arrangement is None or (arrangement.rows, arrangement.columns) != \
            (self.arrangement.rows, self.arrangement.columns)
        self.arrangement = arrangement
        return changed

    def _show_bar_label(self, shown: bool) -> None:
        """Show or hide the colour bar's title, the bar sized for it."""
        if self.bar.axis.label.isVisibleTo(self.bar.axis) != shown:
            self.bar.axis.showLabel(shown)
            look.fit_colour_bar(self.bar)

    def _place(self, tokens: tuple[str, ...], units: int) -> None:
        self.take_out(*self.plots, self.bar)
        side_by_side = self.arrangement.rows == 1 and len(self.hooks) > 1
        unit_labels = [f"h{j + 1}" for j in range(units)]
        names = list(self.hooks)
        for n, name in enumerate(names):
            heatmap = self.maps[name]
            row, column = (0, n) if side_by_side else (n, 0)
            self.put(heatmap.plot, row, column)
            heatmap.set_labels(tokens, unit_labels)
            tokens_here = n == 0 or not side_by_side
            units_here = side_by_side or n == len(names) - 1
            if tokens_here:
                look.set_axis_label(heatmap.plot, "left", self.tr("token"))
            else:
                heatmap.plot.showLabel("left", False)
            if units_here:
                look.set_axis_label(heatmap.plot, "bottom", self.tr("hidden unit"))
            else:
                heatmap.plot.showLabel("bottom", False)
            heatmap.rows.show_values(tokens_here)
            heatmap.columns.show_values(units_here)
        self.put(self.bar, 0, len(names) if side_by_side else 1, rowspan=1 if side_by_side else len(names))

    def _equal_maps(self) -> None:
        side_by_side = self.arrangement.rows == 1
        placed = [(self.maps[name], 0 if side_by_side else n, n if side_by_side else 0)
                  for n, name in enumerate(self.hooks)]
        equal_maps(self.graphics, placed, colour_bar_width(self.bar))

    def _set_titles(self) -> None:
        """One line each if every title fits its map, else each wrapped to its map's width;
        side-by-side maps get as many title lines each, so that their rows stay level."""
        titles = self._titles()
        width = self.arrangement.map_width if self.arrangement else 0.0
        title_font = look.font(look.TITLE_PX)
        one_line = all(look.advance(title_font, f"{hook} = {formula}") + 8 <= width
                       for hook, formula in titles.values())
        # a title spans its map and the token axis beside it (see __init__)
        rooms = {name: width + self.maps[name].plot.getAxis("left").minimumWidth() - 8 for name in titles}
        texts = {name: f"{hook} = {formula}" if one_line else
                 look.wrapped(hook, title_font, rooms[name]) + "<br>"
                 + look.wrapped(f"= {formula}", title_font, rooms[name])
                 for name, (hook, formula) in titles.items()}
        if self.arrangement is not None and self.arrangement.rows == 1:
            lines = max(text.count("<br>") for text in texts.values())
            texts = {name: text + "<br>&nbsp;" * (lines - text.count("<br>")) for name, text in texts.items()}
        for name, text in texts.items():
            look.set_title(self.maps[name].plot, text)

    # --- drawing ---------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        config, trace = self.session.config, self.session.trace
        self.hooks = hooks_of(config, trace)
        pre = trace[self.hooks[PRE]]
        T, F = pre.shape
        tokens = self.session.tokens
        structure = (tuple(self.hooks.items()), tokens, F, config.activation, config.ffn_clamp)
        if structure != self.structure and (self.structure is None or self.structure[:3] != structure[:3]):
            self.limit.reset()          # a new structure: levels from this trace
        # The grid, the titles and the maps' sizes depend on the structure and the room only (a
        # language change refreshes with force, a new look resets the structure): an edit in the
        # same room measures no text again.
        room = (structure, self.graphics.width(), self.graphics.height())
        if force or structure != self.structure or room != self._fitted:
            rearranged = self._arrange(tokens, F)
            if force or structure != self.structure or rearranged:
                self._place(tokens, F)
                self.structure = structure
                self.forget()
            self._set_titles()
            self._equal_maps()
            self._fitted = room
        hooks = list(self.hooks.values())
        if self.unchanged(hooks):
            return
        arrays = [trace[hook] for hook in hooks]
        limit = self.limit.fit(arrays)        # one scale, so the maps compare; steady across edits
        levels = (-limit, limit)
        for (name, hook), array in zip(self.hooks.items(), arrays):
            heatmap = self.maps[name]
            # an edit redraws only the maps whose array it changed (an unchanged array is the very
            # one drawn: app/live_block.py), unless the scale moved or the tab forgot what it drew
            if self._drawn.get(hook) is not array or heatmap.levels != levels:
                heatmap.set_data(array, levels, cell_texts, lambda values: 0.5 + 0.5 * values / limit)
        look.set_levels(self.bar, levels)
        self.remember(hooks)

    def hover_text(self, scene_pos: QPointF) -> str | None:
        trace = self.session.trace
        for name, hook in self.hooks.items():
            cell = self.maps[name].cell_at(scene_pos)
            if cell is None:
                continue
            token, unit = cell
            parts = []
            for other, other_hook in self.hooks.items():
                value = format_number(float(trace[other_hook][token, unit]))
                raw = other_hook.removesuffix("_clamped")
                if raw != other_hook and trace[raw][token, unit] != trace[other_hook][token, unit]:
                    before = format_number(float(trace[raw][token, unit]))
                    # (the space before the bracket is the translation's: none before a full-width one)
                    value = self.tr("%1 (before clamping %2)").replace("%1", value).replace("%2", before)
                parts.append(f"{other} = {value}")
            where = self.tr("token “%1”, unit h%2").replace("%1", self.session.tokens[token])
            where = where.replace("%2", str(unit + 1))
            return self.tr("%1: %2").replace("%2", self.tr(", ").join(parts)).replace("%1", where)
        return None
