"""The attention tab's grid: how many heads, in how many rows and columns, with or without the
colour bar, for the room there is (fewer heads, or no colour bar, when the maps would be too
small for their labels). A mixin of AttentionTab (app/explorer/plots/attention.py), which has
the session, the figure (`graphics`), the picker's row, the colour bar, the slots,
_title_width() (the texts are AttentionTab's) and _gloss_form()."""
from __future__ import annotations

import math

from PySide6.QtGui import QFontMetricsF

from app.explorer.plots import look
from app.explorer.plots.grid import Arrangement, Room, arrange
from app.explorer.plots.heatmap import CELL_PADDING, MAX_NUMBERED_CELLS, colour_bar_width
from app.explorer.plots.ticks import label_gap, nice_step

MAX_HEADS_SHOWN = 6          # grid slots: never more heads on screen at once
NUMBERS_FIRST_TOKENS = 8     # up to this many tokens, fewer heads with numbers beat more without


class AttentionGrid:
    # --- the grid --------------------------------------------------------------------------
    def _room(self, tokens: tuple[str, ...], height: float, with_bar: bool = True,
              row_labels: tuple[str, ...] | None = None) -> Room:
        text_font = look.font()
        line = look.line_height(text_font)
        widest = max((look.advance(text_font, t) for t in row_labels or tokens), default=0.0)
        return Room(width=self.graphics.width(), height=height,
                    left_axis=widest + look.TICK_LENGTH + 9 + line + 2,
                    bottom_axis=2 * line + look.TICK_LENGTH + 9,
                    title=look.line_height(look.font(look.TITLE_PX)) + 8,
                    bar=colour_bar_width(self.bar) if with_bar else 0.0, spacing=8)

    def _number_size(self, tokens: int) -> tuple[float, float] | None:
        """What a cell needs for its number, when numbers should decide the grid (few tokens);
        with more tokens the grid is chosen for the maps, and numbers show if they happen to fit."""
        if tokens > NUMBERS_FIRST_TOKENS or tokens * tokens > MAX_NUMBERED_CELLS:
            return None
        metrics = QFontMetricsF(look.font())
        return metrics.horizontalAdvance("0.00") + CELL_PADDING, metrics.height() + CELL_PADDING

    def _labelled(self, arrangement: Arrangement, tokens: tuple[str, ...]) -> tuple[int, int]:
        """How many keys' and queries' labels a map of this grid shows (CellLabels' thinning; a
        key's label reaching past the map's edge is not drawn)."""
        count = len(tokens)
        if count == 0:
            return 0, 0
        cell_width, cell_height = arrangement.cell(count, count)
        text_font = look.font()
        widths = [look.advance(text_font, token) for token in tokens]
        step = nice_step((max(widths) + label_gap(text_font)) / max(cell_width, 1e-9))
        keys = sum(1 for i in range(0, count, step)
                   if (i + 0.5) * cell_width - widths[i] / 2 >= -1 and (i + 0.5) * cell_width + widths[i] / 2
                   <= arrangement.map_width + 1)
        queries = len(range(0, count, nice_step(self.slots[0].rows.needed_pixels() / max(cell_height, 1e-9))))
        return keys, queries

    def _legible(self, arrangement: Arrangement, tokens: tuple[str, ...]) -> bool:
        """A key's label at least every other key, and a query's at least every other row (or
        the only map there can be)."""
        keys, queries = self._labelled(arrangement, tokens)
        half = math.ceil(len(tokens) / 2)
        return keys >= min(half, 2) and queries >= half

    def _arrange(self, heads: int, tokens: tuple[str, ...]) -> bool:
        """Choose the grid for the room there is now (and whether the colour bar has room); True
        if it changed. When the cells can hold their numbers only without the colour bar, the
        numbers win: they say exactly what the colours say roughly."""
        with_bar = True
        form, row_labels = "", tuple(tokens)
        if self.graphics.width() <= 0 or self.graphics.height() <= 0:
            arrangement = Arrangement(1, min(heads, 2), min(heads, 2), 0, 0, False)
        else:
            # The room with the picker's row counted in, then without it if the picker is needed:
            # the grid depends on the tab's height, never on whether the picker was shown before.
            picker = self.picker_bar.sizeHint().height()
            total = self.height()          # the figure's, the picker's and the glossary's
            glossary, glossary_lines = self._glossary_height()
            numbers = self._number_size(len(tokens))
            matrix = (len(tokens), len(tokens))

            # a map narrower than its axis title or its head title would push the figure (and the
            # colour bar's label) past the view's right edge
            narrowest = self._title_width(heads)

            def best(total: float, bar: bool, rows: tuple[str, ...] | None, most: int = MAX_HEADS_SHOWN
                     ) -> Arrangement:
                found = arrange(self._room(tokens, total, bar, rows), heads, matrix, numbers, most=most,
                                min_map_width=narrowest)
                if found.shown < heads:
                    # less room never shows more maps (a squeezed grid of all heads would need no
                    # picker, yet was chosen with the picker's row taken away)
                    found = arrange(self._room(tokens, total - picker, bar, rows), heads, matrix, numbers,
                                    most=found.shown, min_map_width=narrowest)
                return found

            def chosen(total: float, rows: tuple[str, ...] | None, bar: bool) -> tuple[Arrangement, bool]:
                if not bar:
                    return best(total, False, rows), False
                arrangement = best(total, True, rows)
                if numbers is not None and not arrangement.numbers:
                    without = best(total, False, rows)
                    if without.numbers:
                        return without, False
                return arrangement, True

            def choose(total: float, rows: tuple[str, ...] | None = None, bar: bool = True
                       ) -> tuple[Arrangement, bool]:
                found, found_bar = chosen(total, rows, bar)
                if self._legible(found, tokens):
                    return found, found_bar
                # Maps too small for their labels (a narrow tab: R45 step 9 at 1024×768 stacked two
                # heads 50 px tall, without a key's label): fewer heads, the picker reaching the
                # others; then the colour bar's width given to the keys' labels (the hover says
                # the value); else whatever labels the most.
                options = [(best(total, with_bar, rows, most), with_bar) for with_bar in ((True, False) if bar else (False,))
                           for most in range(found.shown - (with_bar == found_bar), 0, -1)]
                for option, option_bar in options:
                    if self._legible(option, tokens):
                        return option, option_bar
                return max([(found, found_bar), *options], key=lambda o: self._labelled(o[0], tokens))

            arrangement, with_bar = choose(total)
            if self.glossary.text():
                form, arrangement, with_bar, row_labels = self._gloss_form(
                    tokens, arrangement, with_bar, choose, total, glossary, glossary_lines)
            self._set_row(self.glossary, form == "line")
        selected = min(self.session.selected_head, heads - 1)
        first = (selected // arrangement.shown) * arrangement.shown
        changed = (self.arrangement is None or (arrangement.rows, arrangement.columns, arrangement.shown) !=
                   (self.arrangement.rows, self.arrangement.columns, self.arrangement.shown)
                   or first != self.first or with_bar != self.with_bar
                   or (form, row_labels) != (self.gloss_form, self.row_labels))
        self.arrangement, self.first, self.with_bar = arrangement, first, with_bar
        self.gloss_form, self.row_labels = form, row_labels
        return changed
