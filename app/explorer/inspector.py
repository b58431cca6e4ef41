"""The inspector: the selected hook as a table of numbers (with a picture of the whole tensor
when it is large), and how the selected cell was computed.

The table is virtual (HookTableModel makes a cell's text when the view asks for it), so a
64 × 3,072 hook costs what its visible corner costs; after an edit only a hook the Session
recomputed is looked at again, and only its changed cells are repainted.
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QSignalBlocker, Qt
from PySide6.QtGui import QTextCursor, QTextLayout
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from core.explain import Explanation, Step, explain
from core.numbers import format_exact, format_short

from app.explorer import finite_marks
from app.explorer.tables import (CELL_POINT_SIZE, FIT_ROWS, MARK_ROLE, ElidedLabel, NumberTable, TensorOverview,
                                 changed_region, ink_on, show_overview, zoomed_font)
from app.explorer.inspector_export import InspectorExport
from app.explorer.inspector_standing import InspectorStanding
from app import i18n
from app.i18n import sentences
from app.live_block import INPUTS, TARGETS
from app.session import Change, Session
from app.widgets.appearance import appearance
from app.widgets.fitted_combo import FittedComboBox
from app.widgets.menus import exec_once
from app.widgets.style import LIGHT_INK, format_number, limit_for, tint


_DISPLAY, _BACKGROUND, _FOREGROUND, _ALIGNMENT, _TOOLTIP = (
    int(role.value) for role in (Qt.DisplayRole, Qt.BackgroundRole, Qt.ForegroundRole, Qt.TextAlignmentRole,
                                 Qt.ToolTipRole))
_RIGHT = int((Qt.AlignRight | Qt.AlignVCenter).value)
_MARK = MARK_ROLE
_VERTICAL = Qt.Orientation.Vertical
_SHOWN = Change.TRACE | Change.SELECTION | Change.HIGHLIGHT


class HookTableModel(QAbstractTableModel):
    """A read-only view of one 2-D slice of a hook: tokens down, units across. A cell's text and
    colour are made when the view asks for them: only visible cells ever are.

    `transposed` (set_transposed): a slice of one row shown standing, its units down and its
    token across, for a table too narrow for its columns. The labels go with the numbers (the
    rows are named d1, d2, …, the one column by the token), `array` stays the slice as it is,
    and `index_of` / `cell_of` translate between the slice's (row, column) and the view's."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.array = np.zeros((0, 0))
        self.limit = 1.0
        self.column_prefix = "d"
        self.transposed = False
        self._outlined: set[tuple[int, int]] = set()
        self.outlined_view: set[tuple[int, int]] = set()    # the same cells as the view's (row, column)
        self.marks: np.ndarray | None = None       # core.finite.Cell per cell, None when none is marked
        self.glossed_rows = False      # English: the rows' tokens glossed as the attention maps' (Inspector._gloss_rows)

    @property
    def outlined(self) -> set[tuple[int, int]]:
        """The slice's (row, column) of the cells a lesson outlines (NumberDelegate reads outlined_view)."""
        return self._outlined

    @outlined.setter
    def outlined(self, cells: set[tuple[int, int]]) -> None:
        self._outlined = set(cells)
        self._turn_outlined()

    def _turn_outlined(self) -> None:
        self.outlined_view = ({(column, row) for row, column in self._outlined} if self.transposed
                              else self._outlined)

    def set_transposed(self, transposed: bool) -> None:
        """Show the slice standing (units down) or as it is; the outlined cells turn with it."""
        if transposed == self.transposed:
            return
        self.beginResetModel()
        self.transposed = transposed
        self._turn_outlined()
        self.endResetModel()

    def index_of(self, row: int, column: int) -> QModelIndex:
        """The view's index of the slice's cell (row, column)."""
        return self.index(column, row) if self.transposed else self.index(row, column)

    def cell_of(self, index: QModelIndex) -> tuple[int, int]:
        """The slice's (row, column) of a view's index."""
        return (index.column(), index.row()) if self.transposed else (index.row(), index.column())

    def set_slice(self, array: np.ndarray, column_prefix: str,
                  marks: np.ndarray | None = None) -> tuple[slice, slice] | str | None:
        """Show `array` (with `marks`, finite_marks' cell codes). Returns "reset" when the shape (or the
        kind of columns) changed, else the block of changed cells (only those are repainted), or None
        when nothing changed."""
        had_marks, self.marks = self.marks is not None, marks
        if array.shape != self.array.shape or column_prefix != self.column_prefix:
            self.beginResetModel()
            self.column_prefix = column_prefix
            if self.transposed:                    # flat again (the inspector turns it again if it must)
                self.transposed = False
                self._turn_outlined()
            self.limit = limit_for(array)          # fixed per shape: colours do not jump on an edit
            self.array = array
            self.endResetModel()
            return "reset"
        if array is self.array:
            return None
        region = changed_region(self.array, array)
        self.array = array
        if (had_marks or marks is not None) and region is not None:   # marks may change beyond the edit
            region = (slice(0, array.shape[0]), slice(0, array.shape[1]))
        if region is not None:
            rows, columns = region[::-1] if self.transposed else region
            self.dataChanged.emit(self.index(rows.start, columns.start), self.index(rows.stop - 1, columns.stop - 1),
                                  [Qt.DisplayRole, Qt.BackgroundRole, Qt.ForegroundRole, Qt.ToolTipRole])
        return region

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[1 if self.transposed else 0]

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else self.array.shape[0 if self.transposed else 1]

    def data(self, index, role=Qt.DisplayRole):
        # Roles compared as ints: this runs for every visible cell on every repaint.
        if not index.isValid():
            return None
        role = int(role)
        row, column = (index.column(), index.row()) if self.transposed else (index.row(), index.column())
        if self.marks is not None:
            return self._marked_data(row, column, role)
        if role == _DISPLAY:
            return format_number(float(self.array[row, column]))
        if role == _BACKGROUND:
            return tint(float(self.array[row, column]), self.limit)
        if role == _FOREGROUND:
            return ink_on(tint(float(self.array[row, column]), self.limit))
        if role == _ALIGNMENT:
            return _RIGHT
        if role == _TOOLTIP:
            return format_exact(self.array[row, column])
        return None

    def cell_look(self, row: int, column: int) -> tuple:
        """What data() gives for the background, foreground, display and mark roles, in one call
        (NumberDelegate paints a cell from it): `row`, `column` of the view."""
        if self.transposed:
            row, column = column, row
        if self.marks is not None:
            return tuple(self._marked_data(row, column, role) for role in (_BACKGROUND, _FOREGROUND, _DISPLAY, _MARK))
        value = float(self.array[row, column])
        colour = tint(value, self.limit)
        return colour, ink_on(colour), format_number(value), None

    def _marked_data(self, row: int, column: int, role: int):
        """A cell of a hook with marks: an overflow or NaN reads as a word on red, a note (0/0, beyond
        float16) is an amber corner; the tooltip says why."""
        value, mark = float(self.array[row, column]), int(self.marks[row, column])
        severe = mark in finite_marks.SEVERE_CELLS
        if role == _DISPLAY:
            return finite_marks.cell_text(value, mark)
        if role == _BACKGROUND:
            return finite_marks.problem_colour(True) if severe else tint(value, self.limit)
        if role == _FOREGROUND:
            return LIGHT_INK if severe else ink_on(tint(value, self.limit))
        if role == _ALIGNMENT:
            return _RIGHT
        if role == _TOOLTIP:
            reason = finite_marks.cell_reason(mark)
            return format_exact(value) + (f"\n{reason}" if reason else "")
        if role == _MARK and mark in finite_marks.NOTE_CELLS:
            return finite_marks.problem_colour(False)
        return None

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        # Roles compared as ints: a header's size hint asks ~700 times on every hook shown.
        if int(role) != _DISPLAY:
            return None
        if self.transposed:                     # the units down, the token across
            orientation = Qt.Orientation.Horizontal if orientation == _VERTICAL else _VERTICAL
        if orientation == _VERTICAL:
            tokens = self.session.tokens
            if self.array.shape[0] != len(tokens) or section >= len(tokens):
                return str(section + 1)
            return i18n.glossed(tokens[section]) if self.glossed_rows and not self.transposed else tokens[section]
        return f"{self.column_prefix}{section + 1}"

    def extremes(self) -> tuple[str, ...]:
        """The texts of the smallest and largest value: the widest a column must be."""
        if not self.array.size:
            return ()
        finite = self.array[np.isfinite(self.array)]
        values = [float(finite.min()), float(finite.max())] if finite.size else []
        texts = [format_number(v) for v in values]
        if not np.all(np.isfinite(self.array)):
            texts += [format_number(-np.inf), *finite_marks.number_words().values()]
        return tuple(texts)


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
    # the later generations' options (docs/hooks-extensions.md)
    "attn.hook_q_scale": "QK-Norm's scale of q √(Σ_c q_c²/d_head + ε)",
    "attn.hook_q_normalized": "q divided by its QK-Norm scale",
    "attn.hook_q_normed": "q after QK-Norm: what the scores use",
    "attn.hook_k_scale": "QK-Norm's scale of k √(Σ_c k_c²/d_head + ε)",
    "attn.hook_k_normalized": "k divided by its QK-Norm scale",
    "attn.hook_k_normed": "k after QK-Norm: what the scores use",
    "attn.hook_gate": "output gate before the sigmoid g = x·W_G + b_G",
    "attn.hook_gate_sigmoid": "output gate σ(g), between 0 and 1",
    "attn.hook_z_gated": "gated z = σ(g)·z: what W_O reads",
    "mlp.hook_pre_clamped": "linear units clipped to ±L",
    "mlp.hook_gate_clamped": "gate units clipped from above at L",
}

# Meanings that change when an option is on.
GATED_RESULT_MEANING = "each head's contribution z_g·W_O"
CLAMPED_POST_MEANING = "hidden units act(gate_c)·pre_c after the clamp"
ZERO_CENTRED_MEANINGS = {
    "ln1.hook_out": "first norm's output, gain 1 + w",
    "ln2.hook_out": "second norm's output, gain 1 + w",
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
    Step.QK_NORM_SCALE: "QK-Norm: the root mean square of this head's row, which it divides by.",
    Step.QK_NORMALIZED: "QK-Norm: this head's row divided by its root mean square.",
    Step.QK_NORM: "QK-Norm's output: the normalized value times the gain; the scores use it, not the raw q or k.",
    Step.NORMED_SCORE: "How well this query matches this key after QK-Norm, divided by √d_head.",
    Step.OUTPUT_GATE: "The output gate before its sigmoid: the sub-layer's input times W_G, added up, plus b_G.",
    Step.GATE_SIGMOID: "The sigmoid squeezes the gate into (0, 1): how much of this head's z is let through.",
    Step.GATED_Z: "The opened gate times z: what this head passes on to W_O.",
    Step.CLAMP_UP: "Clamped SwiGLU: the linear unit is clipped to ±L.",
    Step.CLAMP_GATE: "Clamped SwiGLU: the gate is clipped from above at L; below, SiLU is already near 0.",
    Step.CLAMPED_ACTIVATION: "Clamped SwiGLU: the activated clipped gate times the clipped linear unit.",
    Step.UNEXPLAINED: "This hook is not explained here yet: its value is shown as computed.",
}
ZERO_CENTRED_SENTENCE = "Zero-centred norm: the stored w is the gain minus 1, so the gain is 1 + w."

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
    "gain_offset": "stored w: the gain is 1 + w",
    "raw_q": "query before QK-Norm",
    "raw_k": "key before QK-Norm",
    "gate_logit": "gate before the sigmoid",
    "gate_open": "sigmoid of the gate",
    "head_z": "this head's z",
    "limit": "clamp limit",
    "gate_clamped": "clipped gate",
    "pre_clamped": "clipped linear unit",
}


def _column_prefix(hook: str) -> str:
    if hook.startswith("mlp."):
        return "h"
    if hook in ("attn.hook_attn_scores", "attn.hook_pattern"):
        return "k"
    if hook.endswith("_scale"):
        return "σ"
    return "d"


def hook_meaning(hook: str, config) -> str:
    """What `hook` holds, in English (the inspector translates it): some read differently when an
    option is on."""
    if config.norm == "rmsnorm" and hook in RMS_MEANINGS:
        return RMS_MEANINGS[hook]
    if config.zero_centered and hook in ZERO_CENTRED_MEANINGS:
        return ZERO_CENTRED_MEANINGS[hook]
    if hook == "attn.hook_result" and config.attn_gate:
        return GATED_RESULT_MEANING
    if hook == "mlp.hook_post" and config.ffn_clamp is not None:
        return CLAMPED_POST_MEANING
    return HOOK_MEANINGS.get(hook, "")


class ExplanationText(QPlainTextEdit):
    """The worked computation of the selected cell: read-only plain text that wraps at the box's
    width and says how tall it needs to be to show every line (content_height), so a layout
    can give it that room rather than make it scroll."""

    def set_text(self, text: str) -> None:
        """Show `text` as setPlainText shows it (from its top, the cursor at its start, nothing
        selected), rewriting only the lines that changed when the number of lines is the same: an
        edit's new numbers re-lay out their lines, not the document, and repaint their lines, not
        the box (`_repaint_lines`); the scroll bars, whose range setPlainText resets, are left
        alone (no repaint of them and the panels beneath)."""
        old = self.toPlainText()
        if text == old:
            return
        old_lines, new_lines = old.split("\n"), text.split("\n")
        if not old or len(old_lines) != len(new_lines):
            self.setPlainText(text)
            return
        document = self.document()
        if document.isUndoRedoEnabled():
            document.setUndoRedoEnabled(False)     # (read-only: nothing to undo; edits kept no history)
        changed = [number for number, (before, after) in enumerate(zip(old_lines, new_lines)) if before != after]
        heights = [self.blockBoundingRect(document.findBlockByNumber(number)).height() for number in changed]
        viewport = self.viewport()
        # QPlainTextEdit asks to repaint the whole box for a change of more than one line; it is
        # told to paint nothing while the lines change, and repaints only them after.
        quiet = viewport.testAttribute(Qt.WidgetAttribute.WA_UpdatesDisabled)
        viewport.setAttribute(Qt.WidgetAttribute.WA_UpdatesDisabled, True)
        try:
            cursor = QTextCursor(document)
            cursor.beginEditBlock()
            for number in changed:
                block = document.findBlockByNumber(number)
                cursor.setPosition(block.position())
                cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
                cursor.insertText(new_lines[number])
            cursor.endEditBlock()
        finally:
            viewport.setAttribute(Qt.WidgetAttribute.WA_UpdatesDisabled, quiet)
        shown = self.textCursor()
        if shown.position() != 0 or shown.hasSelection():
            shown.setPosition(0)
            self.setTextCursor(shown)
        for bar in (self.verticalScrollBar(), self.horizontalScrollBar()):
            if bar.value() != bar.minimum():
                bar.setValue(bar.minimum())
        self._repaint_lines(changed, heights)

    def _repaint_lines(self, changed: list[int], heights: list[float]) -> None:
        """Repaint the lines (blocks) numbered `changed`, which were `heights` tall before: each
        where it is now, or, from the first that wraps to another height, everything beneath it
        (the lines under it moved)."""
        viewport = self.viewport()
        document, offset = self.document(), self.contentOffset()
        for number, height in zip(changed, heights):
            place = self.blockBoundingGeometry(document.findBlockByNumber(number)).translated(offset)
            top = int(place.top())
            if place.height() != height:
                viewport.update(0, top, viewport.width(), max(viewport.height() - top, 0))
                return
            viewport.update(0, top, viewport.width(), int(place.bottom()) - top + 1)

    def content_height(self, width: int | None = None) -> int:
        """The height at which the box shows its whole text without scrolling at `width` (its own
        by default). Lines are laid out as the box lays them out, at the width that is left with
        the vertical scroll bar shown: the box that fits never keeps a scroll bar it had."""
        width = self.width() if width is None else width
        document = self.document()
        margin = document.documentMargin()
        room = width - 2 * self.frameWidth() - 2 * margin - self.verticalScrollBar().sizeHint().width()
        option = document.defaultTextOption()
        total = 0
        for paragraph in self.toPlainText().split("\n"):
            layout = QTextLayout(paragraph, self.font())
            layout.setTextOption(option)
            layout.beginLayout()
            height = 0.0
            while True:
                line = layout.createLine()
                if not line.isValid():
                    break
                line.setLeadingIncluded(True)
                line.setLineWidth(max(room, 1.0))
                height += line.height()
            layout.endLayout()
            total += int(height)               # as the box adds its blocks up
        return total + int(2 * margin) + 1 + 2 * self.frameWidth()


class Inspector(InspectorExport, InspectorStanding, QWidget):
    """The selected hook: its name and meaning, a head picker for per-head hooks, the numbers
    (with an overview picture when the slice is large; a one-row slice too wide for it stands as
    a column, InspectorStanding), and the selected cell's computation. Right-click the table to
    export the hook (CSV, .npy) or the equation (clipboard, text file)."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("inspector")
        self.session = session
        self.title = ElidedLabel("inspectorTitle")
        self.head_combo = FittedComboBox()       # "head 2" whole at any zoom, in either language
        self.head_combo.setObjectName("inspectorHeadSelector")
        self.model = HookTableModel(session, self)
        self.table = NumberTable("inspectorTable")
        self.table.setModel(self.model)
        self.table.setEditTriggers(NumberTable.NoEditTriggers)
        self.table.customContextMenuRequested.connect(lambda position: exec_once(
            self.context_menu(), self.table.viewport().mapToGlobal(position)))
        self.overview = TensorOverview("inspectorOverview")
        self.overview.cellPicked.connect(lambda row, column: self.session.select(token=row, column=column))
        self.outlined_cells: list[tuple[str, tuple[int, ...]]] = []
        self.explanation = ExplanationText()
        self.explanation.setObjectName("inspectorExplanation")
        self.explanation.setReadOnly(True)
        self.explanation.setContextMenuPolicy(Qt.CustomContextMenu)
        self.explanation.customContextMenuRequested.connect(self._explanation_menu)
        self.sentence = QLabel()
        self.sentence.setObjectName("inspectorSentence")
        self.sentence.setWordWrap(True)
        self.finite = finite_marks.watch_for(session)
        self.problem = QLabel()                    # what is not finite in this hook, and why
        self.problem.setObjectName("inspectorProblem")
        self.problem.setWordWrap(True)
        self.problem.setVisible(False)

        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.head_combo)
        numbers = QHBoxLayout()
        numbers.setSpacing(4)
        numbers.addWidget(self.table, 1)
        numbers.addWidget(self.overview)
        # A one-row slice whose columns do not fit stands up: beside it, a note that says it is the
        # same row, and the sentence (InspectorStanding)
        numbers.addLayout(self._standing_side(), 0)
        self._numbers = numbers
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.problem)
        layout.addLayout(numbers)
        layout.addWidget(self.sentence)
        layout.addWidget(self.explanation, 1)

        self.table.selectionModel().currentChanged.connect(self._cell_chosen)
        self.table.horizontalScrollBar().valueChanged.connect(self._show_window)
        self.table.verticalScrollBar().valueChanged.connect(self._show_window)
        self.head_combo.currentIndexChanged.connect(lambda head: head >= 0 and session.select(head=head))
        session.changed.connect(self._on_changed)
        appearance().changed.connect(self.restyle)
        self._shown_hook = None
        self._shown_slice = None
        self.restyle()

    # --- following the session -----------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        if change is Change.TRACE:           # an edit (the commonest, and Flag arithmetic is slow)
            if not self.isVisible() and self.window().isVisible():
                self._behind = True          # a lab page fills the window: shown when it is shown
                self._note_range()
            elif not self._behind:
                self.refresh(values_only=True)
            else:
                self.catch_up()
            return
        if self._behind:                     # edits not shown yet: shown first, as they came first
            self.catch_up()
        if change & Change.HIGHLIGHT:
            self.outlined_cells = list(self.session.highlight.cells)
        if change & _SHOWN:
            self.refresh()

    def set_outlined(self, cells: list[tuple[str, tuple[int, ...]]]) -> None:
        """Outline these (hook, index) cells whenever their hook is shown; [] clears."""
        self.outlined_cells = list(cells)
        self.refresh()

    def _cell_chosen(self, current: QModelIndex, _previous=None) -> None:
        if current.isValid() and not self._refreshing:
            row, column = self.model.cell_of(current)
            self.session.select(token=row, column=column)

    _refreshing = False
    _behind = False                          # edits made while out of sight, not shown yet

    _range: tuple | None = None             # (slice shown, lowest, highest) of the edits out of sight

    def _note_range(self) -> None:
        """The extremes of the shown slice over the edits made out of sight: the table's columns,
        which widen for every new number and never narrow, are as wide once shown as if it had
        followed each edit."""
        session = self.session
        hook = session.selected_hook
        array = session.trace[hook]
        head = session.selected_index(hook)[0] if array.ndim == 3 else None
        shown = array[head] if head is not None else array
        finite = shown[np.isfinite(shown)]
        key = (hook, head, shown.shape)
        if self._range is None or self._range[0] != key:
            self._range = (key, math.inf, -math.inf)
        if finite.size:
            _, low, high = self._range
            self._range = (key, min(low, float(finite.min())), max(high, float(finite.max())))

    def catch_up(self) -> None:
        """Show the edits made while the inspector was out of sight (see _on_changed)."""
        if self._behind:
            self._behind = False
            self.refresh()
            seen, self._range = self._range, None
            if seen is not None and seen[1] <= seen[2] and seen[0][0] == self._shown_hook \
                    and seen[0][1:] == (self._shown_slice[1], self.model.array.shape):
                self.table.widen_for((format_number(seen[1]), format_number(seen[2])))
                self._fit_standing_width()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.catch_up()

    def refresh(self, values_only: bool = False) -> None:
        """Bring everything to the session's state. `values_only`: an edit (the selection is as it
        was), so a hook the Session did not recompute (trace.recomputed) keeps its table as is."""
        session = self.session
        hook = session.selected_hook
        trace = session.trace
        recomputed = getattr(trace, "recomputed", None)
        if values_only and hook == self._shown_hook and recomputed is not None and hook not in recomputed \
                and not getattr(trace, "full", False):
            self._explain()               # the cell's terms may read a weight that changed
            return
        array = trace[hook]
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
            outlined = {tuple(cell[-2:]) for name, cell in self.outlined_cells
                        if name == hook and (array.ndim != 3 or cell[0] == index[0])}
            if outlined != self.model.outlined:
                self.model.outlined = outlined
                self.table.viewport().update()
            marks = self.finite.marks(hook)
            if marks is not None and array.ndim == 3:
                marks = marks[index[0]]
            region = self.model.set_slice(shown, _column_prefix(hook), marks)
            if (hook, index[0] if array.ndim == 3 else None) != self._shown_slice:
                self._shown_slice = (hook, index[0] if array.ndim == 3 else None)
                region = "reset" if region is not None else region     # another slice: a fresh overview scale
            self._shown_hook = hook
            if region == "reset":
                self.table.fit_columns(self.model.extremes(), force=True)
                self._measure_flat()
                self._share_height()
            elif region is not None:
                changed = shown[region]
                finite = changed[np.isfinite(changed)]
                if finite.size:
                    self.table.widen_for((format_number(float(finite.min())), format_number(float(finite.max()))))
                    self._fit_standing_width()
            self._show_overview(shown, region)
            self._stand_if_narrow()
            self._gloss_rows()
            cell = self.model.index_of(index[-2], index[-1])
            if self.table.currentIndex() != cell:
                self.table.setCurrentIndex(cell)
        finally:
            self._refreshing = False
        self._show_window()
        self._explain()


    def _show_overview(self, shown: np.ndarray, region) -> None:
        wanted = show_overview(shown.shape)
        if wanted != self.overview.isVisibleTo(self):
            self.overview.setVisible(wanted)
        if not wanted:
            return
        if region == "reset" or self.overview.shape != shown.shape:
            self.overview.set_array(shown)
        elif region is not None:
            self.overview.set_array(shown, new=False)

    def _show_window(self) -> None:
        if self.overview.isVisibleTo(self):
            current = self.table.currentIndex()
            self.overview.set_view(self.table.visible_cells(), (max(current.row(), 0), max(current.column(), 0)))

    def _explain(self) -> None:
        session = self.session
        hook = session.selected_hook
        array = session.trace[hook]
        index = session.selected_index(hook)
        shape = "×".join(map(str, array.shape))
        meaning = hook_meaning(hook, session.config)
        self.title.set_full_text(f"{hook}  [{shape}]" + (f"  — {self.tr(meaning)}" if meaning else ""))
        try:
            # the live tensors, not session.state: a snapshot registers each view it hands out
            weights = {name: session.tensor(name) for name in session.tensor_names()
                       if name not in (INPUTS, TARGETS)}
            explanation = explain(session.config, weights, session.trace, hook, index)
        except (KeyError, IndexError):       # a hook this version cannot explain: say so, never crash
            explanation = Explanation(hook, index, Step.UNEXPLAINED, hook, format_number(float(array[index])), (),
                                      float(array[index]))
        token = session.tokens[index[-2]] if array.shape[-2] == len(session.tokens) else str(index[-2] + 1)
        where = f"{hook}[{', '.join(map(str, index))}]  ({token})"
        sentence = self.tr(STEP_SENTENCES.get(explanation.kind, STEP_SENTENCES[Step.UNEXPLAINED]))
        if any(term.name == "gain_offset" for term in explanation.terms):
            sentence = sentences([sentence, self.tr(ZERO_CENTRED_SENTENCE)])
        marks = self.model.marks
        if marks is not None:
            reason = finite_marks.cell_reason(int(marks[index[-2], index[-1]]))
            sentence = f"⚠ {reason} {sentence}" if reason else sentence
        self.sentence.setText(sentence)
        self._show_problem(hook)
        text = f"{where}\n{self.worded(explanation)}"
        self.explanation.set_text(text)                 # unchanged: no relayout of the document

    def _show_problem(self, hook: str) -> None:
        """A red line under the title when the hook has values that are not finite (amber for notes)."""
        issues = [issue for issue in self.finite.all_issues() if issue.hook == hook] if self.finite.issues(hook) else []
        text = "\n".join("⚠ " + finite_marks.issue_text(issue) for issue in issues)
        if text != self.problem.text():
            self.problem.setText(text)
            severe = any(issue.problem.severe for issue in issues)
            self.problem.setStyleSheet(f"color: {finite_marks.problem_colour(severe).name()}; font-weight: bold;")
        if self.problem.isVisibleTo(self) != bool(text):
            self.problem.setVisible(bool(text))
            self._share_height()

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

    # --- size, zoom, language ------------------------------------------------------------------
    def _inner_width(self, width: int) -> int:
        margins = self.layout().contentsMargins()
        return max(width - margins.left() - margins.right(), 40)

    def restyle(self) -> None:
        """Fonts for the current interface zoom (the table's follow appearance() themselves)."""
        self._set_standing(False)                # lying flat to be measured at the new size
        self.title.setFont(zoomed_font(CELL_POINT_SIZE, bold=True, extra=1))
        self.title.set_wrapping(appearance().presenting)     # cut nothing for the back row: wrap
        self.sentence.setFont(zoomed_font(CELL_POINT_SIZE))
        self.problem.setFont(zoomed_font(CELL_POINT_SIZE))
        self.turned_note.setFont(zoomed_font(CELL_POINT_SIZE))
        self.problem.setText("")                 # worded and coloured again by refresh
        self.table.restyle()
        self.explanation.setFont(self.table.font())
        self.refresh()
        self.table.fit_columns(self.model.extremes(), force=True)
        self._measure_flat()
        self._stand_if_narrow()
        self._share_height()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        with QSignalBlocker(self.head_combo):
            for head in range(self.head_combo.count()):
                self.head_combo.setItemText(head, self.tr("head %1").replace("%1", str(head + 1)))
        self._word_note()
        self._gloss_rows()
        self._explain()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._stand_if_narrow()
        self._gloss_rows()
        self._share_height()

    def _share_height(self) -> None:
        """The table gets the height of a lesson's whole tensor (up to FIT_ROWS rows) first, as far
        as the inspector's own height allows; the explanation has the rest (at least two lines)."""
        lines = self.explanation.fontMetrics().lineSpacing()
        explanation_least = 2 * lines + 2 * self.explanation.frameWidth() + 8
        self.explanation.setMinimumHeight(explanation_least)
        others = self._beside_the_numbers(self.width()) + explanation_least
        rows = self.model.rowCount()
        # A lesson's tensor whole; a longer one scrolls anyway and shares the height evenly.
        wanted = self.table.content_height(rows if rows <= FIT_ROWS else FIT_ROWS // 2)
        least = self.table.content_height(min(rows, 2))
        height = max(least, min(wanted, self.height() - others))
        if self.table.minimumHeight() != height:
            self.table.setMinimumHeight(height)
        # At the desk the inspector asks for that least height: its sentence's height at its width
        # counts in no minimum Qt's layouts add up, and a window short of height (150 % on 768 px)
        # would lay the sentence over the table. Presenting, StepPanels places it by wanted_height.
        floor = 0 if appearance().presenting else others + least
        if self.minimumHeight() != floor:
            self.setMinimumHeight(floor)
        self.layout().setStretchFactor(self._numbers, 0 if rows <= FIT_ROWS else 1)

    def _beside_the_numbers(self, width: int) -> int:
        """The px of height at `width` that the margins, the spacing, the title line, the problem
        line (when shown) and the sentence under the table (not beside a standing one) take: all
        but the table and the explanation."""
        layout = self.layout()
        sentence = 0 if self._standing else self.sentence.heightForWidth(self._inner_width(width)) + layout.spacing()
        return self._around_the_numbers(width) + sentence

    def _around_the_numbers(self, width: int) -> int:
        """The px of height at `width` of the margins, the title line, the problem line (when
        shown) and the spacing above and below the numbers."""
        layout = self.layout()
        margins = layout.contentsMargins()
        inner = self._inner_width(width)
        combo = self.head_combo.sizeHint() if self.head_combo.isVisibleTo(self) else None
        beside = combo.width() + max(layout.spacing(), 0) if combo is not None else 0
        top = max(self.title.height_at(inner - beside), combo.height() if combo is not None else 0)
        problem = self.problem.heightForWidth(inner) + layout.spacing() if self.problem.isVisibleTo(self) else 0
        return margins.top() + margins.bottom() + top + problem + 2 * layout.spacing()

    def wanted_height(self, width: int) -> int:
        """The height that shows everything at `width`: the title, the table (a lesson's whole
        tensor, up to FIT_ROWS rows, as _share_height gives it; a one-row slice standing if its
        columns do not fit `width`) and every line of the explanation, which then does not scroll.
        For a layout that can give the inspector the room it needs (presentation mode places it by this)."""
        inner = self._inner_width(width)
        return self._around_the_numbers(width) + self._numbers_height(inner) + self.explanation.content_height(inner)
