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
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget

from app import i18n
from app.explorer.plots import look
from app.explorer.plots.attention_gloss import AttentionGloss
from app.explorer.plots.attention_grid import MAX_HEADS_SHOWN, AttentionGrid
from app.explorer.plots.common import FigureView, HoverTip, PlotTab, cell_texts, message_label
from app.explorer.plots.grid import Arrangement
from app.explorer.plots.heatmap import Heatmap, colour_bar_width, equal_maps
from core.numbers import format_number

PATTERN_HOOKS = ("attn.hook_pattern", "attn.hook_attn_scores")


class AttentionTab(AttentionGrid, AttentionGloss, PlotTab):
    """attn.hook_pattern per head; the masked cells (score −∞) read "—". The grid's choice is
    AttentionGrid's (attention_grid.py), the English glossary's place AttentionGloss's
    (attention_gloss.py)."""

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

    def _title_width(self, heads: int) -> float:
        """The narrowest map whose texts fit across it: the bottom axis's title and a head's title."""
        texts = [look.advance(look.font(), self.tr("key (column)")) + 8,
                 look.advance(look.font(look.TITLE_PX), self.tr("head %1").replace("%1", str(heads))) + 8]
        return max(texts)

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
