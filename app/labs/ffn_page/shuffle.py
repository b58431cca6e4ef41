"""Part 4 of the FFN page: shuffle the tokens; the FFN's rows only move, causal attention's change."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QGridLayout, QHBoxLayout, QHeaderView, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.labs.ffn_page.common import (HEADING_PT, NOTE_MARGINS, ROW_DECIMALS, TEXT_PT, mono_font, note_frame,
                                      row_text, text_label, tighten, vector_text)
from app.labs.ffn_page.source import DemoPart, FfnDemoSource
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.numbers import format_number


class FfnShufflePart(DemoPart):
    """Shuffle the tokens; the FFN's rows move with them unchanged, causal attention's do not.

    Each table row is one token; its cell holds the row before the shuffle above the row
    after it (where the token went), in a fixed-width font so the digits line up."""

    COLUMNS = 3      # token (old → new position) | before / after | verdict

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(source, parent)
        self.setObjectName("ffnShufflePart")
        self.heading = text_label("", HEADING_PT, bold=True)
        self.intro = text_label("ffnShuffleIntro")
        self.button = QPushButton()
        self.button.setObjectName("ffnShuffle")
        self.button.setFont(font(TEXT_PT, bold=True))
        self.button.clicked.connect(source.shuffle_again)
        self.order = text_label("ffnShuffleOrder", 12)
        self.origin = text_label("ffnShuffleSource")
        self.origin.setStyleSheet("color: #555555;")
        # English: the tokens of the tables' first column glossed on one line (小明 Xiaoming · …)
        self.glossary = text_label("ffnShuffleGlossary")
        self.ffn_title = text_label("", TEXT_PT, bold=True)
        self.attention_title = text_label("", TEXT_PT, bold=True)
        self.ffn_table = self._table("ffnShuffleFfnTable")
        self.attention_table = self._table("ffnShuffleAttnTable")
        self.verdict = text_label("ffnShuffleVerdict", rich=True)
        self.full_note = text_label("ffnShuffleFullNote")
        self.full_note.setStyleSheet("color: #555555;")

        buttons = QHBoxLayout()
        buttons.addWidget(self.button)
        buttons.addWidget(self.order, 1)
        grid = QGridLayout()
        grid.addWidget(self.ffn_title, 0, 0)
        grid.addWidget(self.attention_title, 0, 1)
        grid.addWidget(self.ffn_table, 1, 0)
        grid.addWidget(self.attention_table, 1, 1)
        layout = self.page_layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addLayout(buttons)
        layout.addWidget(self.origin)
        layout.addWidget(self.glossary)
        layout.addLayout(grid)
        self.verdict_box = note_frame(self.verdict)
        self.verdict_layout = self.verdict_box.layout()
        layout.addWidget(self.verdict_box)
        layout.addWidget(self.full_note)
        layout.addStretch(1)
        source.shuffled.connect(self.refresh)
        # the cells' own fonts are set when filled: fill them again at a new zoom (entering
        # presentation mode on this step left the digits at 13 px)
        appearance().changed.connect(self._on_source_changed)
        self.retranslate()

    def follow_presenting(self, presenting: bool) -> None:
        """Presenting, what the lesson's caption says already (the intro) and the footnote on full
        attention wait for the desk, and the rows stand closer: at 1024×768 with 150 % zoom the page
        scrolled 228 px (zh 174) and the tables were cut. The button, the order, where the numbers
        come from, both tables and the verdict stay."""
        for widget in (self.intro, self.full_note):
            widget.setVisible(not presenting)
        tighten(self.page_layout, presenting)
        tighten(self.verdict_layout, presenting, (10, 3, 10, 3), -1, NOTE_MARGINS)

    def _table(self, object_name: str) -> QTableWidget:
        table = QTableWidget(0, self.COLUMNS)
        table.setObjectName(object_name)
        table.setFont(font(TEXT_PT))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setWordWrap(False)
        table.verticalHeader().setVisible(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return table

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Position-wise, shown: shuffle the tokens"))
        self.intro.setText(self.tr(
            "The FFN computes token t from row t alone. Shuffle the tokens and run both again: the FFN's rows "
            "only move with their tokens, while causal attention gives a token a new output when the tokens before "
            "it change. Each cell shows a token's row before (top) and after (bottom) the shuffle."))
        self.button.setText(self.tr("Shuffle tokens"))
        self.ffn_title.setText(self.tr("FFN alone (attention off): hook_mlp_out"))
        self.attention_title.setText(self.tr("Causal attention: hook_attn_out"))
        for table in (self.ffn_table, self.attention_table):
            table.setHorizontalHeaderLabels([self.tr("token"), self.tr("before / after"), ""])

    def refresh(self) -> None:
        self._stale = False
        self.origin.setText(self.source_text())
        result = self.source.shuffle_result()
        done = self.source.step > 0
        tokens = result.tokens
        if done:
            self.order.setText(self.tr("Shuffle #%1: %2  →  %3").replace("%1", str(self.source.step))
                               .replace("%2", i18n.with_gloss(" ".join(tokens))).replace("%3", " ".join(result.shuffled_tokens)))
        else:
            self.order.setText(self.tr("Order now: %1").replace("%1", i18n.with_gloss(" ".join(tokens))))
        glossary = i18n.glossary(tokens)
        self.glossary.setText(glossary)
        self.glossary.setVisible(bool(glossary))
        positions = result.new_positions
        for table in (self.ffn_table, self.attention_table):
            table.setRowCount(len(tokens))
        # before a shuffle the lower line says so in words: a lone "—" under a row of digits,
        # one character wide in the fixed-width font, read as "_" on a projector
        pending = self.tr("(not shuffled yet)")
        for t, token in enumerate(tokens):
            moved = f"{token} {t + 1}→{positions[t] + 1}" if done else f"{token} {t + 1}"
            if done:
                ffn_after = result.ffn_shuffled[positions[t]]
                attention_after = result.attention_shuffled[positions[t]]
                ffn_mark = "✓" if result.ffn_kept[t] else "✗"
                attention_mark = (self.tr("Δ %1").replace("%1", format_number(float(result.attention_change[t]),
                                                                            ROW_DECIMALS))
                                  if result.attention_changed[t] else self.tr("same"))
            else:
                ffn_after = attention_after = None
                ffn_mark = attention_mark = ""
            self._fill(self.ffn_table, t, moved, result.ffn_original[t], ffn_after, ffn_mark,
                       "#1a7f37" if result.ffn_kept[t] else "#b3261e", pending)
            self._fill(self.attention_table, t, moved, result.attention_original[t], attention_after,
                       attention_mark, "#b35806" if result.attention_changed[t] else "#1a7f37", pending)
        for table in (self.ffn_table, self.attention_table):
            table.resizeRowsToContents()
            table.setFixedHeight(table.horizontalHeader().sizeHint().height()
                                 + sum(table.rowHeight(r) for r in range(table.rowCount())) + 4)
        if done:
            self.verdict.setText(self.tr(
                "<b>FFN:</b> %1 of %2 rows moved with their token and kept every digit. "
                "<b>Causal attention:</b> %3 of %2 tokens got a different output — what a token sees depends on "
                "who comes before it.")
                .replace("%1", str(result.ffn_kept_count)).replace("%2", str(len(tokens)))
                .replace("%3", str(result.attention_changed_count)))
        else:
            self.verdict.setText(self.tr("Press <b>Shuffle tokens</b> to reorder the sentence and compare."))
        self.full_note.setText(self.tr(
            "An honest footnote: this toy block has no position information, so with the full mask its attention "
            "would only reorder its rows too (largest change %1). It still moves information between tokens — "
            "every row mixes all of them; the causal mask is what makes order visible here.")
            .replace("%1", format_number(result.largest_full_attention_change, 6)))

    @staticmethod
    def _fill(table: QTableWidget, row: int, token: str, before: np.ndarray, after: np.ndarray | None,
              mark: str, mark_colour: str, pending: str) -> None:
        values = f"{vector_text(before)}\n{vector_text(after) if after is not None else pending}"
        tip = f"{row_text(before, 6)}\n{row_text(after, 6) if after is not None else ''}"
        for column, text in enumerate((token, values, mark)):
            item = table.item(row, column)
            if item is None:
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                table.setItem(row, column, item)
            # the cells' own fonts at the current zoom (the table's font follows it by itself)
            wanted = mono_font() if column == 1 else font(appearance().points(TEXT_PT), bold=True) if column == 2 \
                else None
            if wanted is not None and item.font() != wanted:
                item.setFont(wanted)
            item.setText(text)
            if column == 1:
                item.setToolTip(tip)
            if column == 2:
                item.setForeground(QColor(mark_colour))

    @staticmethod
    def cell_lines(table: QTableWidget, row: int, column: int) -> list[str]:
        return table.item(row, column).text().split("\n")
