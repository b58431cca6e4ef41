"""What stays above every part of the lab: the data table, the MSE, and a box beside them
(the linear identity in the linear parts, the activation switch in the FFN parts)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QSignalBlocker, QSize
from PySide6.QtWidgets import QBoxLayout, QComboBox, QHBoxLayout, QStackedWidget, QVBoxLayout, QWidget

from app import i18n
from app.labs.xor.common import (FORMULA_PT, RIGHT_COLOUR, TABLE_DECIMALS, TEXT_PT, WRONG_COLOUR, label,
                                 set_text, trimmed)
from app.labs.xor.state import LinearModel, TableFacts
from app.labs.xor.table import XorTable
from app.widgets.appearance import appearance
from app.widgets.labels import activation_label
from app.widgets.style import font
from core.labs import xor as lab
from core.numbers import format_number, parenthesized

ACTIVATIONS = ("relu", "gelu_tanh", "identity")       # the lab's three choices
BESIDE_SPACING, UNDER_SPACING = 10, 4                 # px between the table's column and the box


class SidePage(QWidget):
    """A page of the box beside the table. At the desk the box is as tall as its tallest page
    whichever is shown (the table and the parts below stay put when the learner moves between the
    linear and the FFN parts). Presenting, a page not shown asks for no height: the linear parts'
    identity, eight lines, held the FFN parts' overview 30 px taller than its table, and at
    1024×768 with 150 % zoom the parts below needed that height. (A QStackedWidget asks each page
    itself, so the page says it.)"""

    def _stands_aside(self) -> bool:
        stack = self.parentWidget()
        return appearance().presenting and isinstance(stack, QStackedWidget) and stack.currentWidget() is not self

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return 0 if self._stands_aside() else super().heightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        return QSize(hint.width(), 0) if self._stands_aside() else hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().minimumSizeHint()
        return QSize(hint.width(), 0) if self._stands_aside() else hint


class XorOverview(QWidget):
    """The table (click a row to follow a sentence), the MSE, and the box beside them."""

    def __init__(self, session, linear: LinearModel, facts: TableFacts, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.linear = linear
        self.facts = facts
        top = QHBoxLayout(self)
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(BESIDE_SPACING)
        left = QVBoxLayout()
        left.setSpacing(2)
        self.table = XorTable()
        self.table.itemSelectionChanged.connect(self._table_selected)
        left.addWidget(self.table)
        self.mse_label = label("xorMse", TEXT_PT)
        self.reference_label = label("xorReference", 10)
        left.addWidget(self.mse_label)
        left.addWidget(self.reference_label)
        left.addStretch(1)
        top.addLayout(left, 11)

        self.side = QStackedWidget()
        self.side.setObjectName("xorSide")
        linear_side = SidePage()
        linear_layout = QVBoxLayout(linear_side)
        linear_layout.setContentsMargins(0, 0, 0, 0)
        self.identity_label = label("xorIdentity", FORMULA_PT)
        linear_layout.addWidget(self.identity_label)
        linear_layout.addStretch(1)
        ffn_side = SidePage()
        ffn_layout = QVBoxLayout(ffn_side)
        ffn_layout.setContentsMargins(0, 0, 0, 0)
        ffn_layout.setSpacing(4)
        # the title above its box: side by side they would widen the lab past a projector's
        # 1024 px at presentation size (and the explorer with it: the work area is as wide as its widest page).
        # Presenting with no activation they stand side by side (see _place_activation_title).
        row = self.activation_row = QVBoxLayout()
        row.setSpacing(2)
        self.activation_title = label("xorActivationTitle", TEXT_PT, wrap=False)
        self.activation_combo = QComboBox()
        self.activation_combo.setObjectName("xorActivation")
        self.activation_combo.setFont(font(TEXT_PT))
        # the closed box may be narrower than its longest choice: the table beside it keeps its room
        self.activation_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.activation_combo.setMinimumContentsLength(8)
        for name in ACTIVATIONS:
            self.activation_combo.addItem("", name)
        self.activation_combo.currentIndexChanged.connect(self._activation_picked)
        row.addWidget(self.activation_title)
        row.addWidget(self.activation_combo, 1)
        ffn_layout.addLayout(row)
        self.threshold_label = label("xorThreshold", TEXT_PT)
        self.collapsed_label = label("xorCollapsed", FORMULA_PT)
        self.activation_note = label("xorActivationNote", 10)
        ffn_layout.addWidget(self.threshold_label)
        ffn_layout.addWidget(self.collapsed_label)
        ffn_layout.addWidget(self.activation_note)
        ffn_layout.addStretch(1)
        self.side.addWidget(linear_side)
        self.side.addWidget(ffn_side)
        self.side.currentChanged.connect(lambda _index: self._side_changed())
        top.addWidget(self.side, 9)
        self.top_layout = top
        self._linear = True                          # the table shows the line's ŷ (parts ① ②) or the FFN's
        self._glosses_stale = False
        self._placed_beside = -1                     # the table's width when the box was last placed
        self.retranslate()
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    # --- short of width at the desk --------------------------------------------------------------
    # At the desk the box beside the table goes under it where it must (the overview is narrower
    # than the table and the box's least width side by side: at 150 % on 1024 px, with the
    # right-hand column beside the lab, the FFN parts' table and the box made the window 1,097 px
    # wide) and where that is shorter (squeezed beside the table, the linear parts' identity ran
    # 700 px down). Presenting, the lab has the window's width and they stay side by side.
    def _may_stack(self) -> bool:
        return not appearance().presenting

    def _column_height(self, item, width: int) -> int:
        if item.hasHeightForWidth():
            return item.heightForWidth(width)
        return item.sizeHint().height()

    def _under_is_better(self) -> bool:
        """Whether the box goes under the table: the overview's width has no room for both side by
        side, or they are shorter one under the other."""
        top = self.top_layout
        margins = top.contentsMargins()
        width = self.width() - margins.left() - margins.right()
        spacing = BESIDE_SPACING
        left = top.itemAt(0)
        left_least, side_least = left.minimumSize().width(), self.side.minimumSizeHint().width()
        if width < left_least + spacing + side_least:
            return True
        # side by side, the two share the width by their stretch factors, each at least its least
        left_stretch, side_stretch = top.stretch(0), top.stretch(1)
        left_width = max(left_least, round((width - spacing) * left_stretch / max(1, left_stretch + side_stretch)))
        left_width = min(left_width, width - spacing - side_least)
        side_width = width - spacing - left_width
        beside = max(self._column_height(left, left_width), self._column_height(self.side, side_width))
        under = self._column_height(left, width) + UNDER_SPACING + self._column_height(self.side, width)
        return under < beside

    def _place_side(self) -> None:
        """The box beside the table, or (at the desk, see above) under it."""
        self._placed_beside = self.table.minimumWidth()
        under = self._may_stack() and self.width() > 0 and self._under_is_better()
        direction = QBoxLayout.Direction.TopToBottom if under else QBoxLayout.Direction.LeftToRight
        if self.top_layout.direction() != direction:
            self.top_layout.setDirection(direction)
            self.top_layout.setSpacing(UNDER_SPACING if under else BESIDE_SPACING)
            self._place_activation_title()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        least = super().minimumSizeHint()
        if not self._may_stack():
            return least
        margins = self.top_layout.contentsMargins()
        widest = max(self.top_layout.itemAt(0).minimumSize().width(), self.side.minimumSizeHint().width())
        return QSize(widest + margins.left() + margins.right(), least.height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._place_side()

    def _side_changed(self) -> None:
        for index in range(self.side.count()):      # the pages' sizes as asked now
            self.side.widget(index).updateGeometry()
        self.side.updateGeometry()
        self._place_side()

    def _follow_presenting(self) -> None:
        self.updateGeometry()                       # presenting or not: another least width
        self._place_side()
        self._place_activation_title()
        self._place_columns()
        self._side_changed()

    def _place_columns(self) -> None:
        """Presenting with ReLU, the FFN parts' box beside the table is short (the activation and its
        verdict; not the collapsed line's formula, nor GELU's long name in its box): the table's
        column takes a little more width, and the MSE stays on one line (at 1024×768 with 150 %
        zoom "MSE =" and its number fell on two lines, and the bias page scrolled). Only a change
        re-lays out."""
        wide = appearance().presenting and not self._linear and self.session.config.activation == "relu"
        if self.top_layout.stretch(0) != (13 if wide else 11):
            self.top_layout.setStretch(0, 13 if wide else 11)
            self.top_layout.setStretch(1, 7 if wide else 9)

    def _place_activation_title(self) -> None:
        """Presenting with no activation, "Activation:" stands beside its box, not above it: the box
        beside the table is then the overview's tallest part (the collapsed line's formula), and at
        1024×768 with 150 % zoom the drawing below needed that line's height. (Not with GELU: its
        long name needs the box's whole width.) Under the table (at the desk, short of width) the
        two stand side by side too: the box then has the overview's width. Only a change re-lays out."""
        under = self.top_layout.direction() == QBoxLayout.Direction.TopToBottom
        beside = under or appearance().presenting and self.session.config.activation == "identity"
        direction = QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom
        if self.activation_row.direction() != direction:
            self.activation_row.setDirection(direction)
            self.activation_row.setSpacing(6 if beside else 2)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.table.release()                         # the new words fit afresh
        self.table.setHorizontalHeaderLabels([self.tr("sentence"), "p", "n", self.tr("target y"), self._output_header(),
                                              self.tr("ŷ > 0.5?")])
        self.activation_title.setText(self.tr("Activation:"))
        for k, name in enumerate(ACTIVATIONS):
            self.activation_combo.setItemText(k, activation_label(name, "choice"))
        if self.table.rowCount():                    # the glosses beside the sentences come and go
            if self.isVisible():
                self.show_data()
            else:                                    # hidden: the Session may hold another block by now
                self._glosses_stale = True

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._glosses_stale and self.session.state.targets is not None:
            self._glosses_stale = False
            self.show_data()

    def _output_header(self) -> str:
        return self.tr("linear ŷ") if self._linear else self.tr("FFN ŷ")

    # --- the table's own columns ---------------------------------------------------------------
    def show_data(self) -> None:
        """The sentences, p, n and targets (call when the table's data changed)."""
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        self.table.set_rows(len(s.tokens))
        for row, token in enumerate(s.tokens):
            self.table.put(row, XorTable.SENTENCE, i18n.with_gloss(token))   # English: 不难吃 “not awful”
            self.table.put(row, XorTable.P, trimmed(state.inputs[row, 0]))
            self.table.put(row, XorTable.N, trimmed(state.inputs[row, 1]))
            self.table.put(row, XorTable.TARGET, trimmed(state.targets[row, 0]))
        self.table.fit_width()
        if self.table.minimumWidth() != self._placed_beside:
            self._place_side()

    def select_row(self) -> None:
        row = self.session.selected_index("hook_resid_post")[0]
        if self.table.currentRow() != row:
            with QSignalBlocker(self.table):
                self.table.selectRow(row)
            self.table.viewport().update()

    def _table_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and rows[0].row() != self.session.selected_token:
            self.session.select(token=rows[0].row())

    # --- ŷ, the verdicts, the MSE, the box beside ------------------------------------------------
    def refresh(self, linear: bool) -> None:
        """ŷ of the linear model (the linear parts) or of the block (the FFN parts)."""
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        outputs = lab.linear_outputs(state.inputs, self.linear.model) if linear else s.trace["hook_resid_post"][:, 0]
        targets = state.targets
        right = lab.verdicts(outputs, targets)
        for row, value in enumerate(outputs):
            self.table.put(row, XorTable.OUTPUT, format_number(float(value), TABLE_DECIMALS), tip=trimmed(value))
            mark = self.tr("✓ right") if right[row] else self.tr("✗ wrong")
            self.table.put(row, XorTable.VERDICT, mark, RIGHT_COLOUR if right[row] else WRONG_COLOUR)
        self.table.setColumnHidden(XorTable.VERDICT, linear)
        self._linear = linear
        self.table.set_header(XorTable.OUTPUT, self._output_header())
        self.table.fit_width()
        if self.table.minimumWidth() != self._placed_beside:
            self._place_side()                       # another table (a column more or less): placed again
        # Two MSEs can share the screen (the line's here, the block's in the status bar): say whose.
        if linear:
            error = lab.linear_mse(state.inputs, targets, self.linear.model)
            mse_text = self.tr("The linear try's mean squared error: <b>MSE = %1</b>")
        else:
            error = s.mse
            mse_text = self.tr("The FFN's (the block's) mean squared error: <b>MSE = %1</b>")
        set_text(self.mse_label, mse_text.replace("%1", trimmed(error)))
        set_text(self.reference_label, self.tr("(guessing 0.5 for every sentence gives MSE %1)")
                 .replace("%1", trimmed(self.facts.guess_mse)))
        self.select_row()
        self._place_columns()
        if linear:
            self.side.setCurrentIndex(0)
            self._refresh_identity()
        else:
            self.side.setCurrentIndex(1)
            self._refresh_ffn_side(outputs)

    def _refresh_identity(self) -> None:
        proof = lab.linear_proof(self.linear.model)
        at = proof.at
        facts = self.facts
        lines = [
            self.tr("Always equal, whatever a, b, c are:"),
            f"ŷ(1,0) + ŷ(0,1) = {trimmed(at[(1.0, 0.0)])} + {parenthesized(at[(0.0, 1.0)], trim=True)} = <b>{trimmed(proof.left)}</b>",
            f"ŷ(1,1) + ŷ(0,0) = {trimmed(at[(1.0, 1.0)])} + {parenthesized(at[(0.0, 0.0)], trim=True)} = <b>{trimmed(proof.right)}</b>",
        ]
        if facts.target_sides is not None:
            lines.append(self.tr("but the targets' sides are %1 and %2:")
                         .replace("%1", f"<b>{trimmed(facts.target_sides[0])}</b>")
                         .replace("%2", f"<b>{trimmed(facts.target_sides[1])}</b>"))
            lines.append(facts.target_sums_text("<br>"))
        lines.append(self.tr("So MSE never drops below %1 (the red line).").replace("%1", trimmed(facts.best_mse)))
        set_text(self.identity_label, "<br>".join(lines))

    def _refresh_ffn_side(self, outputs: np.ndarray) -> None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        activation = s.config.activation
        position = self.activation_combo.findData(activation)
        if self.activation_combo.currentIndex() != position:
            with QSignalBlocker(self.activation_combo):
                self.activation_combo.setCurrentIndex(position)
        set_text(self.threshold_label, self.tr("Cut at 0.5 (ŷ > 0.5 means “positive”): %1 of %2 sentences right.")
                 .replace("%1", str(lab.count_right(outputs, state.targets))).replace("%2", str(len(s.tokens))))
        collapsed = ""
        if activation == "identity":
            alpha, beta, gamma = lab.collapsed_linear(state.weights)
            collapsed = self.tr("Without a nonlinearity the two layers are one line: %1")
            collapsed = collapsed.replace("%1", f"<b>ŷ = {lab.linear_formula(alpha, beta, gamma)}</b>")
            collapsed += "<br>" + self.tr("(α, β) = W_in·W_out = (%1, %2), γ = b_in·W_out + b_out = %3") \
                .replace("%1", trimmed(alpha)).replace("%2", trimmed(beta)).replace("%3", trimmed(gamma))
        set_text(self.collapsed_label, collapsed)
        self._place_activation_title()
        self.collapsed_label.setVisible(bool(collapsed))
        if activation == "gelu_tanh":
            exact = lab.outputs_with(s.config, state.weights, state.inputs, activation="gelu")
            note = self.tr("GELU here is the tanh approximation GPT-2 uses. Exact GELU (x·Φ(x)) would give %1.") \
                .replace("%1", self.tr(", ").join(format_number(float(v), TABLE_DECIMALS) for v in exact))
        elif activation == "relu":
            note = self.tr("ReLU(z) = max(0, z): negative z gives 0.")
        elif activation == "identity":
            note = self.tr("No activation: h = z.")
        else:
            note = self.tr("Activation %1 (chosen in the block options).").replace("%1", activation_label(activation))
        set_text(self.activation_note, note)

    def _activation_picked(self, index: int) -> None:
        name = self.activation_combo.itemData(index)
        if name and name != self.session.config.activation:
            self.session.set_config(activation=name)
