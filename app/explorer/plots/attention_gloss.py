"""Where the attention tab glosses its Chinese tokens in English: a line under the maps, the
query ticks' labels ("rows"), or the hover text only. A mixin of AttentionTab
(app/explorer/plots/attention.py), which has the session, the `glossary` label, the slots,
_set_row() and the grid's _labelled() (attention_grid.py); it has no texts to translate."""
from __future__ import annotations

from PySide6.QtGui import QFontMetricsF

from app import i18n
from app.explorer.plots import look
from app.explorer.plots.grid import Arrangement
from app.explorer.plots.ticks import label_gap, nice_step

GLOSSARY_LINES = 2           # the glossary under the maps wraps to at most this many lines


class AttentionGloss:
    # --- the English glossary --------------------------------------------------------------
    def _gloss_tokens(self) -> None:
        """The glossary line's text: in English when a token has a gloss (whether it has room
        is _arrange's choice)."""
        text = i18n.glossary(self.session.tokens) if "attn.hook_pattern" in self.session.trace else ""
        if self.glossary.text() != text:
            self.glossary.setText(text)
            self.arrangement = None                   # its room is chosen again
        if not text:
            self._set_row(self.glossary, False)

    def _glossary_height(self) -> tuple[int, int]:
        """The height the glossary takes at the tab's width, and its number of lines; (0, 0) when
        there is nothing to gloss or it would take more than GLOSSARY_LINES lines (a narrow tab:
        it would take the maps' room)."""
        if not self.glossary.text() or self.width() <= 0:
            return 0, 0
        height = self.glossary.heightForWidth(self.width())
        margins = self.glossary.contentsMargins()
        line = QFontMetricsF(self.glossary.font()).height()
        lines = max(1, round((height - margins.top() - margins.bottom()) / line))
        return (height, lines) if lines <= GLOSSARY_LINES else (0, 0)

    def _gloss_form(self, tokens, plain: Arrangement, plain_bar: bool, choose, total: float, glossary: int,
                    glossary_lines: int) -> tuple[str, Arrangement, bool, tuple[str, ...]]:
        """Where English glosses the tokens, given the grid without a gloss (`plain`): (form,
        arrangement, with the colour bar, the query ticks' labels). A gloss never costs a map,
        a cell's number, a query's label (the line takes height) or a key's label (glossed
        ticks take width). Preferred: the line under the maps on one line; then the glossed
        query ticks (only those the rows' height labels: the others' width is not taken), the
        colour bar's width given to them if the cells show their numbers; then the line on
        two lines; else the hover text only."""
        count = len(tokens)
        plain_labels = tuple(tokens)
        row_label = self.slots[0].rows.needed_pixels()               # what a query's tick needs
        text_font = look.font()
        key_label = max((look.advance(text_font, t) for t in tokens), default=0.0) + label_gap(text_font)
        plain_width, plain_height = plain.cell(count, count)

        def keeps(found: Arrangement) -> bool:
            return found.shown >= plain.shown and found.numbers >= plain.numbers

        if glossary:
            line, line_bar = choose(total - glossary)
            line_keeps = keeps(line) and line.cell(count, count)[1] >= row_label
            if line_keeps and glossary_lines == 1:
                return "line", line, line_bar, plain_labels
        # every query's tick glossed; else those labelled at the plain grid's rows' height (the
        # others stay the bare tokens, which the axis does not draw, and take no width)
        step = nice_step(row_label / plain_height) if plain_height > 0 else 1

        plain_keys = self._labelled(plain, tokens)[0]

        def rows_keep(found: Arrangement, bar: bool) -> bool:
            width, height = found.cell(count, count)
            return (keeps(found) and nice_step(row_label / max(height, 1e-9)) <= step
                    and nice_step(key_label / max(width, 1e-9)) <= nice_step(key_label / max(plain_width, 1e-9))
                    and self._labelled(found, tokens)[0] >= plain_keys       # the keys' labels drawn
                    and (bar or not plain_bar or plain.numbers))             # the bar only for numbers

        for every in sorted({1, step}):
            labels = tuple(i18n.glossed(t) if i % every == 0 else t for i, t in enumerate(tokens))
            rows, rows_bar = choose(total, labels)
            if rows_keep(rows, rows_bar):
                return "rows", rows, rows_bar, labels
            if rows_bar and plain.numbers:
                # the numbers say what the colour bar says: its width may go to the glossed ticks
                rows, rows_bar = choose(total, labels, bar=False)
                if rows_keep(rows, rows_bar):
                    return "rows", rows, rows_bar, labels
        if glossary and line_keeps:
            return "line", line, line_bar, plain_labels
        return "", plain, plain_bar, plain_labels
