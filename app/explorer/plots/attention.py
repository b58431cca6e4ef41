"""The attention tab: attn.hook_pattern of each head as a T×T heatmap (rows queries, columns keys).

As many heads as stay legible are drawn as a grid; when there are more (GPT-2 small has 12),
a head picker chooses which page of heads is on screen. Why a picker rather than twelve
thumbnails: a head's pattern is read cell by cell (which key a query looks at), and at a
projector's 1024×768 twelve 64×64 maps would be a few pixels a cell with no labels at all.
Lesson-sized patterns (few tokens) prefer fewer, bigger heads with their numbers in the
cells to more heads without: the seeds talk about the numbers.

The picker is the session's head selection (the diagram's head buttons move it too).
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from app import i18n
from app.explorer.plots import look
from app.explorer.plots.common import FigureView, HoverTip, PlotTab, cell_texts, message_label
from app.explorer.plots.grid import Arrangement, Room, arrange
from app.explorer.plots.heatmap import CELL_PADDING, MAX_NUMBERED_CELLS, Heatmap, colour_bar_width, equal_maps
from app.explorer.plots.ticks import label_gap, nice_step
from core.numbers import format_number

MAX_HEADS_SHOWN = 6          # grid slots: never more heads on screen at once
GLOSSARY_LINES = 2           # the glossary under the maps wraps to at most this many lines
NUMBERS_FIRST_TOKENS = 8     # up to this many tokens, fewer heads with numbers beat more without
PATTERN_HOOKS = ("attn.hook_pattern", "attn.hook_attn_scores")


class AttentionTab(PlotTab):
    """attn.hook_pattern per head; the masked cells (score −∞) read "—"."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsAttentionTab", parent)
        self.head_label = QLabel()
        self.head_picker = QComboBox()
        self.head_picker.setObjectName("plotsHeadPicker")
        self.page_label = QLabel()
        self.page_label.setObjectName("plotsHeadPage")
        self.picker_bar = QWidget()
        self.picker_bar.setObjectName("plotsHeadPickerBar")
        bar_layout = QHBoxLayout(self.picker_bar)
        bar_layout.setContentsMargins(6, 2, 6, 2)
        bar_layout.addWidget(self.head_label)
        bar_layout.addWidget(self.head_picker)
        bar_layout.addWidget(self.page_label, 1)
        self.picker_bar.setVisible(False)
        # "heads 1–2 of 12" shows only where it fits whole: it never widens the window
        self.page_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        bar_layout.addStretch()          # where it does not, the word and the picker stay their width
        self.picker_bar.installEventFilter(self)
        self.head_picker.activated.connect(lambda index: session.select(head=index))

        self.stack = QStackedWidget(self)
        self.graphics = FigureView()
        self.graphics.setObjectName("plotsAttentionPatterns")
        self.graphics.ci.setContentsMargins(4, 4, 4, 4)
        self.graphics.ci.setSpacing(6)
        self.off_label = message_label("plotsAttentionOff")
        self.stack.addWidget(self.graphics)
        self.stack.addWidget(self.off_label)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.picker_bar)
        layout.addWidget(self.stack, 1)
        # English: the Chinese tokens of the ticks glossed where the room is (see _arrange): a
        # line under the maps (小明 Xiaoming · 把 (object marker) · …, wrapped to two lines at
        # most), else beside each query's tick (the rows' labels take width, not height), else
        # in the hover text only
        self.glossary = QLabel()
        self.glossary.setObjectName("plotsAttentionGlossary")
        self.glossary.setWordWrap(True)
        self.glossary.setContentsMargins(6, 0, 6, 2)
        self.glossary.setTextFormat(Qt.TextFormat.PlainText)
        self.glossary.hide()
        layout.addWidget(self.glossary)

        self.bar = look.colour_bar(look.SEQUENTIAL, (0.0, 1.0))
        self.take_out(self.bar)
        self.slots: list[Heatmap] = []
        self._grow(2)
        self.hover = HoverTip(self.graphics, self.hover_text)
        self.follow_resizes()
        self.arrangement: Arrangement | None = None
        self.first = 0                    # the first head on screen
        self.with_bar = True              # the colour bar is shown (see _arrange)
        self.heads_drawn: list[int | None] = [None] * MAX_HEADS_SHOWN
        self.gloss_form = ""              # where the tokens are glossed: "line", "rows" or "" (hover only)
        self.row_labels: tuple[str, ...] = ()   # the query ticks' labels: the tokens, glossed in "rows"
        self._fitted: tuple | None = None  # the room and structure last arranged for (see _fitted_key)
        # The picker's row and the glossary's line are shown and hidden after the figure's resize
        # event, never inside it: showing a widget lays its parent out at once, which resized the
        # figure again from inside its own resize event, and Qt then left its viewport at the old
        # height (1024×768 presenting: "key (column)" and the colour bar's "0" cut off below).
        self._in_resize = False
        self._rows_wanted: dict[QWidget, bool] = {}
        self._rows_timer = QTimer(self)
        self._rows_timer.setSingleShot(True)
        self._rows_timer.setInterval(0)
        self._rows_timer.timeout.connect(self._show_rows)
        self.restyle()
        self.retranslate()
        self.refresh()

    def _grow(self, count: int) -> None:
        """At least `count` grid slots. Slots are made when a grid first needs them (a PlotItem
        takes a while to make) and kept: later grids reuse them, updates never remake them."""
        if len(self.slots) >= count:
            return
        while len(self.slots) < count:
            slot = Heatmap(look.SEQUENTIAL)
            self.take_out(slot.plot)
            self.slots.append(slot)
        self.bar.setImageItem([slot.image for slot in self.slots])

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.picker_bar and event.type() == QEvent.Type.Resize:
            self._fit_page_label()
        return super().eventFilter(watched, event)

    def _fit_page_label(self) -> None:
        layout = self.picker_bar.layout()
        left, _top, right, _bottom = layout.getContentsMargins()
        # what the layout gives the word and the picker: a combo box's minimum size hint may be
        # the wider (it keeps its first items' width: "head 1" after the switch to "头 1")
        taken = sum(max(widget.sizeHint().width(), widget.minimumSizeHint().width())
                    for widget in (self.head_label, self.head_picker))
        room = self.picker_bar.width() - left - right - 2 * layout.spacing() - taken
        self.page_label.setVisible(bool(self.page_label.text()) and self.page_label.sizeHint().width() <= room)

    def heatmaps(self) -> list[Heatmap]:
        return self.slots

    # --- reading (tests, export) --------------------------------------------------------
    @property
    def images(self) -> list[pg.ImageItem]:
        return [slot.image for slot in self.slots]

    @property
    def plots(self) -> list[pg.PlotItem]:
        return [slot.plot for slot in self.slots]

    @property
    def numbers(self):
        return [slot.numbers for slot in self.slots]

    def shown_heads(self) -> list[int]:
        """The heads on screen now, in grid order."""
        if self.arrangement is None or self.stack.currentWidget() is not self.graphics:
            return []
        heads = self.session.trace["attn.hook_pattern"].shape[0]
        return list(range(self.first, min(heads, self.first + self.arrangement.shown)))

    # --- texts and looks ----------------------------------------------------------------
    def retranslate(self) -> None:
        self.off_label.setText(self.tr("Attention is switched off in this scenario."))
        self.head_label.setText(self.tr("Head"))
        self.bar.setLabel("right", self.tr("attention weight"), **{"font-size": look.css(), "color": look.foreground()})
        look.fit_colour_bar(self.bar)
        self._gloss_tokens()

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

    def restyle(self) -> None:
        super().restyle()
        for widget in (self.head_label, self.head_picker, self.page_label, self.off_label, self.glossary):
            widget.setFont(look.font())
        for slot in self.slots:
            slot.restyle()
        look.style_colour_bar(self.bar)
        self.structure = None            # titles and axis labels again at the new size

    # --- layout ----------------------------------------------------------------------------
    def resized(self) -> None:
        self._in_resize = True
        try:
            self.refresh()
        finally:
            self._in_resize = False

    def _set_row(self, widget: QWidget, shown: bool) -> None:
        """Show or hide the picker's row or the glossary's line: now, or (inside the figure's
        resize event) as soon as that event is done."""
        if self._in_resize:
            if widget.isHidden() == shown or widget in self._rows_wanted:
                self._rows_wanted[widget] = shown
                self._rows_timer.start()
            return
        self._rows_wanted.pop(widget, None)
        widget.setVisible(shown)

    def _show_rows(self) -> None:
        wanted, self._rows_wanted = self._rows_wanted, {}
        for widget, shown in wanted.items():
            widget.setVisible(shown)

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

    def _title_width(self, heads: int) -> float:
        """The narrowest map whose texts fit across it: the bottom axis's title and a head's title."""
        texts = [look.advance(look.font(), self.tr("key (column)")) + 8,
                 look.advance(look.font(look.TITLE_PX), self.tr("head %1").replace("%1", str(heads))) + 8]
        return max(texts)

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

    def _place(self, heads: int, tokens: tuple[str, ...]) -> None:
        """Put the first `shown` slots into the grid, labels on the outer maps only."""
        arrangement = self.arrangement
        self.take_out(*self.plots, self.bar)
        shown, columns = min(arrangement.shown, heads - self.first), arrangement.columns
        rows = math.ceil(shown / columns)
        self._grow(shown)
        for i, slot in enumerate(self.slots):
            if i >= shown:
                continue
            self.put(slot.plot, i // columns, i % columns)
            first_column, last_row = i % columns == 0, i + columns >= shown
            if first_column:
                look.set_axis_label(slot.plot, "left", self.tr("query (row)"))
            else:
                slot.plot.showLabel("left", False)
            if last_row:
                look.set_axis_label(slot.plot, "bottom", self.tr("key (column)"))
            else:
                slot.plot.showLabel("bottom", False)
            slot.set_labels(self.row_labels or tokens, tokens)
            slot.rows.show_values(first_column)
            slot.columns.show_values(last_row)
        if self.with_bar:
            self.put(self.bar, 0, columns, rowspan=max(1, rows))
        self.heads_drawn = [None] * MAX_HEADS_SHOWN

    def _equal_maps(self) -> None:
        columns = self.arrangement.columns
        placed = [(slot, i // columns, i % columns) for i, slot in enumerate(self.slots) if slot.plot.isVisible()]
        equal_maps(self.graphics, placed, colour_bar_width(self.bar) if self.with_bar else 0.0)

    def _update_picker(self, heads: int) -> None:
        many = self.arrangement is not None and self.arrangement.shown < heads
        self._set_row(self.picker_bar, many)
        items = [self.tr("head %1").replace("%1", str(h + 1)) for h in range(heads)]
        if [self.head_picker.itemText(i) for i in range(self.head_picker.count())] != items:
            self.head_picker.blockSignals(True)
            self.head_picker.clear()
            self.head_picker.addItems(items)
            self.head_picker.blockSignals(False)
        self.head_picker.blockSignals(True)
        self.head_picker.setCurrentIndex(min(self.session.selected_head, heads - 1))
        self.head_picker.blockSignals(False)
        if many:
            last = min(heads, self.first + self.arrangement.shown)
            self.page_label.setText(self.tr("heads %1–%2 of %3").replace("%1", str(self.first + 1))
                                    .replace("%2", str(last)).replace("%3", str(heads)) if last - self.first > 1
                                    else self.tr("head %1 of %2").replace("%1", str(self.first + 1))
                                    .replace("%2", str(heads)))
            self._fit_page_label()

    # --- drawing ---------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        trace = self.session.trace
        if "attn.hook_pattern" not in trace:
            self.stack.setCurrentWidget(self.off_label)
            self._set_row(self.picker_bar, False)
            self._set_row(self.glossary, False)
            self.structure = None
            self.forget()
            return
        self.stack.setCurrentWidget(self.graphics)
        pattern = trace["attn.hook_pattern"]                 # (H, T, T)
        heads, tokens = pattern.shape[0], self.session.tokens
        structure = (heads, tokens)
        if not force and structure == self.structure and self._fitted == self._fitted_key() \
                and self.unchanged(PATTERN_HOOKS):
            return      # an edit that left the patterns as they were, in the same room: nothing to do
        if structure != self.structure:
            self._gloss_tokens()
        placed = self._arrange(heads, tokens)
        if force or structure != self.structure or placed:
            self._place(heads, tokens)
            self.structure = structure
            self.forget()
        self._update_picker(heads)
        self._titles(heads)
        self._equal_maps()
        self._fitted = self._fitted_key()
        if self.unchanged(PATTERN_HOOKS) and self.heads_drawn[:len(self.shown_heads())] == self.shown_heads():
            return
        masked = np.isneginf(trace["attn.hook_attn_scores"])  # shown as "—", not as a number
        for i, head in enumerate(self.shown_heads()):
            self.slots[i].set_data(pattern[head], (0.0, 1.0), self._texts(masked[head]))
            self.heads_drawn[i] = head
        self.remember(PATTERN_HOOKS)

    def _fitted_key(self) -> tuple:
        """What the grid, the picker and the titles depend on besides the structure, the language
        and the look (a language change refreshes with force, a new look forgets what was drawn)."""
        return (self.graphics.width(), self.graphics.height(), self.width(), self.picker_bar.isVisible(),
                self.glossary.isVisible(), self.glossary.text(), self.session.selected_head)

    @staticmethod
    def _texts(masked: np.ndarray):
        def texts(values: np.ndarray) -> list[str]:
            return ["—" if m else text for text, m in zip(cell_texts(values), masked.ravel())]
        return texts

    def _titles(self, heads: int) -> None:
        selected = min(self.session.selected_head, heads - 1)
        for i, head in enumerate(self.shown_heads()):
            colour = look.accent() if head == selected and heads > 1 else None
            look.set_title(self.slots[i].plot, self.tr("head %1").replace("%1", str(head + 1)), colour)

    def hover_text(self, scene_pos: QPointF) -> str | None:
        trace = self.session.trace
        if "attn.hook_pattern" not in trace:
            return None
        tokens = self.session.tokens
        for i, head in enumerate(self.shown_heads()):
            cell = self.slots[i].cell_at(scene_pos)
            if cell is None:
                continue
            query, key = cell
            where = self.tr("head %1: query “%2” → key “%3”").replace("%1", str(head + 1)) \
                .replace("%2", i18n.labelled(tokens[query])).replace("%3", i18n.labelled(tokens[key]))
            if np.isneginf(trace["attn.hook_attn_scores"][head, query, key]):
                return where + " — " + self.tr("masked")
            return f"{where} = {format_number(float(trace['attn.hook_pattern'][head, query, key]))}"
        return None
