"""The inspector: the selected hook as a table of numbers, and how the selected cell was computed."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QSignalBlocker, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPen
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QPlainTextEdit, QStyledItemDelegate, QTableView,
                               QVBoxLayout, QWidget)

from core.explain import Explanation, Step, explain
from core.numbers import format_exact, format_short

from app.session import Change, Session
from app.widgets.style import format_number, limit_for, text_colour_on, tint


class HookTableModel(QAbstractTableModel):
    """A read-only view of one 2-D slice of a hook: tokens down, units across."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.array = np.zeros((0, 0))
        self.limit = 1.0
        self.column_prefix = "d"
        self.outlined: set[tuple[int, int]] = set()
        self.texts: list[list[str]] = []
        self.colours: list[list] = []
        self.inks: list[list] = []

    def set_slice(self, array: np.ndarray, column_prefix: str) -> None:
        reshaped = array.shape != self.array.shape or column_prefix != self.column_prefix
        if reshaped:
            self.beginResetModel()
            self.column_prefix = column_prefix
            self.limit = limit_for(array)
        self.array = array
        # Texts and colours are made once per update, not on each of the view's data() calls.
        self.texts = [[format_number(float(v)) for v in row] for row in array]
        self.colours = [[tint(float(v), self.limit) for v in row] for row in array]
        self.inks = [[text_colour_on(colour) for colour in row] for row in self.colours]
        if reshaped:
            self.endResetModel()
        else:
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.DisplayRole, Qt.BackgroundRole, Qt.ForegroundRole, Qt.ToolTipRole])

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[1]

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.DisplayRole:
            return self.texts[row][column]
        if role == Qt.BackgroundRole:
            return self.colours[row][column]
        if role == Qt.ForegroundRole:
            return self.inks[row][column]
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.ToolTipRole:
            return format_exact(self.array[row, column])
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role != Qt.DisplayRole:
            return None
        if orientation == Qt.Vertical:
            tokens = self.session.tokens
            return tokens[section] if self.array.shape[0] == len(tokens) and section < len(tokens) else str(section + 1)
        return f"{self.column_prefix}{section + 1}"


class _OutlineDelegate(QStyledItemDelegate):
    """Draws a thick amber frame around the cells a lesson step talks about."""

    PEN = QPen(QColor("#e69500"), 3)

    def paint(self, painter, option, index) -> None:
        super().paint(painter, option, index)
        if (index.row(), index.column()) in self.parent().model().outlined:
            painter.save()
            painter.setPen(self.PEN)
            painter.drawRect(option.rect.adjusted(1, 1, -2, -2))
            painter.restore()


# What each hook holds, for the inspector's title line.
HOOK_MEANINGS = {
    "hook_resid_pre": "block input x",
    "ln1.hook_in": "input of the first norm",
    "ln1.hook_scale": "first norm's scale √(σ² + ε)",
    "ln1.hook_normalized": "first norm, before γ and β",
    "ln1.hook_out": "first norm's output",
    "attn.hook_q": "queries q = x·W_Q + b_Q",
    "attn.hook_k": "keys k = x·W_K + b_K",
    "attn.hook_rot_q": "queries rotated by their positions (rotary)",
    "attn.hook_rot_k": "keys rotated by their positions (rotary)",
    "attn.hook_v": "values v = x·W_V + b_V",
    "attn.hook_attn_scores": "scores q·kᵀ/√d_head (masked = −∞)",
    "attn.hook_pattern": "attention weights softmax(scores)",
    "attn.hook_z": "z = pattern · v",
    "attn.hook_result": "each head's contribution z·W_O",
    "hook_attn_out": "attention output Σ heads + b_O",
    "hook_resid_mid": "stream entering the FFN sub-layer",
    "ln2.hook_in": "input of the second norm",
    "ln2.hook_scale": "second norm's scale √(σ² + ε)",
    "ln2.hook_normalized": "second norm, before γ and β",
    "ln2.hook_out": "second norm's output",
    "mlp.hook_pre": "hidden units before the activation",
    "mlp.hook_gate": "gate units before the activation",
    "mlp.hook_post": "hidden units after the activation",
    "hook_mlp_out": "FFN output f",
    "hook_resid_post": "block output",
}

# RMSNorm has no mean and no β: its hooks read differently.
RMS_MEANINGS = {
    "ln1.hook_scale": "first norm's scale √(Σⱼ sⱼ²/d + ε)",
    "ln2.hook_scale": "second norm's scale √(Σⱼ sⱼ²/d + ε)",
    "ln1.hook_normalized": "first norm, before γ",
    "ln2.hook_normalized": "second norm, before γ",
}

# A sentence for each kind of step (core gives the symbols and numbers, no words).
STEP_SENTENCES = {
    Step.INPUT: "This is an input number: edit it under “inputs” in the weight editor.",
    Step.COPY: "This value is passed on unchanged.",
    Step.NO_ATTENTION: "Attention is switched off: the block input goes on unchanged.",
    Step.RESIDUAL_SUM: "The residual sum: the stream plus the sub-layer's output.",
    Step.HEAD_SUM: "The heads' contributions added up, plus the bias b_O.",
    Step.PROJECTION: "A dot product: each input number times its weight, added up, plus the bias.",
    Step.WEIGHTED_SUM: "The values v averaged with this query's attention weights.",
    Step.HEAD_RESULT: "This head's z times its block of W_O: what the head adds to the stream.",
    Step.LAYER_NORM: "Normalization: subtract the mean, divide by the spread, then scale by γ and shift by β.",
    Step.RMS_NORM: "RMS normalization: divide by the row's root mean square, then scale by γ (no mean, no β).",
    Step.LAYER_NORM_SCALE: "The spread of this token's row, which the norm divides by.",
    Step.RMS_NORM_SCALE: "The root mean square of this token's row, which the norm divides by.",
    Step.LAYER_NORMALIZED: "This token's row, centred and divided by its spread.",
    Step.RMS_NORMALIZED: "This token's row divided by its root mean square.",
    Step.ROTARY: "Rotary positions: each pair of channels is turned by an angle that grows with the token's position.",
    Step.SCORE: "How well this query matches this key, divided by √d_head.",
    Step.MASKED_SCORE: "Hidden by the causal mask: a token may not read tokens after it.",
    Step.SOFTMAX: "Softmax turns this row of scores into weights that sum to 1.",
    Step.MASKED_WEIGHT: "A masked score becomes weight 0: exp(−∞) = 0.",
    Step.ACTIVATION: "The activation function applied to this unit's pre-activation.",
    Step.GATED_ACTIVATION: "Gated FFN: the activated gate multiplies the linear unit.",
}

# What each named term of a formula is (Term.name → words).
TERM_MEANINGS = {
    "input": "block input",
    "attention_out": "attention output",
    "mid": "stream entering the FFN sub-layer",
    "mlp_out": "FFN output",
    "norm_input": "the norm's input",
    "mean": "mean of the row",
    "variance": "variance of the row",
    "mean_square": "mean square of the row",
    "eps": "small constant against division by zero",
    "gain": "gain",
    "shift": "shift",
    "bias": "bias",
    "dot": "dot product of query and key",
    "rotary_first": "first channel of the pair",
    "rotary_second": "second channel of the pair",
    "position": "absolute position of the token",
    "angle": "rotation angle",
    "sqrt_d_head": "square root of the head width",
    "score": "this score",
    "row_max": "largest score of the row",
    "denominator": "sum over the row",
    "head_result": "one head's contribution",
    "pre": "pre-activation",
    "gate": "gate value",
}


def _column_prefix(hook: str) -> str:
    if hook.startswith("mlp."):
        return "h"
    if hook in ("attn.hook_attn_scores", "attn.hook_pattern"):
        return "k"
    if hook.endswith("hook_scale"):
        return "σ"
    return "d"


class Inspector(QWidget):
    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.session = session
        self.title = QLabel()
        self.title.setObjectName("inspectorTitle")
        self.title.setWordWrap(True)
        bold = self.title.font()
        bold.setBold(True)
        bold.setPointSize(bold.pointSize() + 1)
        self.title.setFont(bold)
        self.head_combo = QComboBox()
        self.head_combo.setObjectName("inspectorHeadSelector")
        self.model = HookTableModel(session, self)
        self.table = QTableView()
        self.table.setObjectName("inspectorTable")
        self.table.setModel(self.model)
        self.table.setEditTriggers(QTableView.NoEditTriggers)
        self.table.setSelectionMode(QTableView.SingleSelection)
        # Sized on reshape only: ResizeToContents would measure every cell on every edit.
        self.model.modelReset.connect(self._fit_columns)
        numbers = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        numbers.setPointSize(max(numbers.pointSize(), 10))
        self.table.setFont(numbers)
        self.table.setItemDelegate(_OutlineDelegate(self.table))
        self.outlined_cells: list[tuple[str, tuple[int, ...]]] = []
        self.explanation = QPlainTextEdit()
        self.explanation.setObjectName("inspectorExplanation")
        self.explanation.setReadOnly(True)
        self.explanation.setFont(numbers)
        self.explanation.setMinimumHeight(110)
        self.sentence = QLabel()
        self.sentence.setObjectName("inspectorSentence")
        self.sentence.setWordWrap(True)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.head_combo)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.table, 3)
        layout.addWidget(self.sentence)
        layout.addWidget(self.explanation, 2)

        self.table.selectionModel().currentChanged.connect(self._cell_chosen)
        self.head_combo.currentIndexChanged.connect(lambda head: head >= 0 and session.select(head=head))
        session.changed.connect(self._on_changed)
        self.refresh()

    def _on_changed(self, change: Change) -> None:
        if change & Change.HIGHLIGHT:
            self.outlined_cells = list(self.session.highlight.cells)
        if change & (Change.TRACE | Change.SELECTION | Change.HIGHLIGHT):
            self.refresh()

    def set_outlined(self, cells: list[tuple[str, tuple[int, ...]]]) -> None:
        """Outline these (hook, index) cells whenever their hook is shown; [] clears."""
        self.outlined_cells = list(cells)
        self.refresh()

    def _fit_columns(self) -> None:
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()

    def _cell_chosen(self, current: QModelIndex, _previous=None) -> None:
        if current.isValid() and not self._refreshing:
            self.session.select(token=current.row(), column=current.column())

    _refreshing = False

    def refresh(self) -> None:
        session = self.session
        hook = session.selected_hook
        array = session.trace[hook]
        index = session.selected_index(hook)
        self._refreshing = True
        try:
            with QSignalBlocker(self.head_combo):
                heads = array.shape[0] if array.ndim == 3 else 0
                if self.head_combo.count() != heads:
                    self.head_combo.clear()
                    self.head_combo.addItems([self.tr("head %1").replace("%1", str(h + 1)) for h in range(heads)])
                self.head_combo.setVisible(heads > 0)
                if heads:
                    self.head_combo.setCurrentIndex(index[0])
            shown = array[index[0]] if array.ndim == 3 else array
            self.model.outlined = {tuple(cell[-2:]) for name, cell in self.outlined_cells
                                   if name == hook and (array.ndim != 3 or cell[0] == index[0])}
            self.model.set_slice(shown, _column_prefix(hook))
            cell = self.model.index(index[-2], index[-1])
            self.table.setCurrentIndex(cell)
        finally:
            self._refreshing = False
        shape = "×".join(map(str, array.shape))
        meaning = self.tr(RMS_MEANINGS.get(hook) if session.config.norm == "rmsnorm" and hook in RMS_MEANINGS
                          else HOOK_MEANINGS.get(hook, ""))
        self.title.setText(f"{hook}  [{shape}]  — {meaning}")
        explanation = explain(session.config, session.state.weights, session.trace, hook, index)
        token = session.tokens[index[-2]] if array.shape[-2] == len(session.tokens) else str(index[-2] + 1)
        where = f"{hook}[{', '.join(map(str, index))}]  ({token})"
        self.sentence.setText(self.tr(STEP_SENTENCES[explanation.kind]))
        self.explanation.setPlainText(f"{where}\n{self.worded(explanation)}")

    def worded(self, explanation: Explanation) -> str:
        """The formula, each term with its value and what it is, the numbers put in."""
        lines = [explanation.formula]
        for term in explanation.terms:
            value = format_short(term.value) if term.name == "eps" else format_number(term.value)
            meaning = TERM_MEANINGS.get(term.name)
            lines.append(f"  {term.symbol} = {value}" + (f"  ({self.tr(meaning)})" if meaning else ""))
        lines.append(explanation.substituted)
        if explanation.omitted:
            lines.append(self.tr("(… stands for %1 more products)").replace("%1", str(explanation.omitted)))
        return "\n".join(lines)
