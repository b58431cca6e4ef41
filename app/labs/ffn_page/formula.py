"""Part 1 of the FFN page: the formula term by term, each term pointing at its hooks."""
from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.labs.ffn_page.common import (FORMULA_PT, HEADING_PT, NOTE_MARGINS, Part, note_frame, shape_text, text_label,
                                      tighten)
from app.session import Change
from app.widgets.labels import activation_label
from app.widgets.style import font
from core.labs.ffn_page import EXPLORER_NAMES, FORMULA_TERMS, term_hooks, term_shapes


class FfnFormulaPart(Part):
    termHighlighted = Signal(list)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnFormulaPart")
        self.session = session
        self.selected: str | None = None
        self.heading = text_label("", HEADING_PT, bold=True)
        self.original = text_label("ffnFormulaOriginal")
        self.term_buttons: dict[str, QPushButton] = {}
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)

        row = QHBoxLayout()
        row.setSpacing(2)
        row.addStretch(1)

        def symbol(text: str) -> None:
            piece = QLabel(text)
            piece.setFont(font(FORMULA_PT))
            row.addWidget(piece)

        def term(name: str) -> None:
            button = QPushButton(name)
            button.setObjectName(f"ffnTerm_{name}")
            button.setCheckable(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setFont(font(FORMULA_PT))
            button.setStyleSheet(
                "QPushButton { border: none; color: #0b5cad; text-decoration: underline; padding: 2px 4px;"
                " background: transparent; border-radius: 4px; }"
                "QPushButton:hover { background: #e6f0fb; }"
                "QPushButton:checked { background: #ffe2a8; color: #222222; }")
            button.clicked.connect(lambda _checked=False, n=name: self.select_term(n))
            self.group.addButton(button)
            self.term_buttons[name] = button
            row.addWidget(button)

        symbol("FFN(x) =")
        term("act")
        symbol("(")
        term("x")
        symbol("·")
        term("W_up")
        symbol("+")
        term("b_up")
        symbol(") ·")
        term("W_down")
        symbol("+")
        term("b_down")
        row.addStretch(1)

        self.hint = text_label("")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.explanation = text_label("ffnTermExplanation", rich=True)
        self.hooks = text_label("ffnTermHooks")
        self.hooks.setStyleSheet("color: #555555;")
        self.shapes = text_label("ffnFormulaShapes")
        self.position_note = text_label("ffnFormulaPosition", rich=True)
        self.transpose_note = text_label("ffnFormulaTranspose", rich=True)
        self.key_value = text_label("ffnFormulaKeyValue", rich=True)

        layout = self.page_layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.original)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        self.term_box = note_frame(self.explanation, self.hooks, object_name="ffnTermBox")
        self.term_box_layout = self.term_box.layout()
        layout.addWidget(self.term_box)
        layout.addWidget(self.shapes)
        layout.addWidget(self.position_note)
        layout.addWidget(self.transpose_note)
        key_value_note = note_frame(self.key_value)
        layout.addWidget(key_value_note)
        layout.addStretch(1)
        # Side notes the desk reads and a projector leaves out (the page shows whole at 1024×768);
        # and the hint, which the term box's "Pick a term …" says again
        self.desk_only = (self.transpose_note, key_value_note, self.hint)

        self._structure: object = None
        self.retranslate()

    def follow_presenting(self, presenting: bool) -> None:
        """Presenting, the page's rows stand closer (at 1024×768 with 150 % zoom it scrolled 45 px,
        zh 77, below the dataflow the step shows above it)."""
        tighten(self.page_layout, presenting)
        tighten(self.term_box_layout, presenting, (10, 3, 10, 3), -1, NOTE_MARGINS)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("The position-wise feed-forward network"))
        self.original.setText(self.tr("Vaswani et al. 2017, eq. (2), with row vectors: FFN(x) = max(0, x·W₁ + b₁)·W₂ + b₂. "
                                      "Here with Block Lab's names (W_up is W_in under “Weights and inputs”, W_down is W_out):"))
        self.hint.setText(self.tr("Click any underlined term."))
        self.term_buttons["act"].setText(self.tr("act"))      # the activation's name; the others are symbols
        self.position_note.setText(self.tr(
            "<b>Nothing here crosses positions.</b> d_ff is the width of the hidden layer. Every token's row x<sub>t</sub> "
            "goes through the same W_up and W_down on its own, so output t depends only on x<sub>t</sub>."))
        self.transpose_note.setText(self.tr(
            "Some texts write W·x with column vectors. There the reading directions are the <i>rows</i> of that W "
            "(our W_up transposed); the two forms differ only by a transpose."))
        self.key_value.setText(self.tr(
            "<b>A handy way in: a key–value table.</b> Each <i>column</i> of W_up is a key (the pattern a hidden unit "
            "looks for); the activation is how strongly the current token matches it; each <i>row</i> of W_down is the "
            "value (what that unit writes into the output when it matches)."))
        self._structure = None
        self._on_trace_changed()

    def session_changed(self, change: Change) -> None:
        """Handed on by the page: the shapes follow the open block."""
        if change & Change.TRACE:
            self._on_trace_changed()

    def _on_trace_changed(self) -> None:
        config = self.session.config
        structure = (config, len(self.session.tokens))
        if structure == self._structure:
            return
        self._structure = structure
        shapes = term_shapes(config, len(self.session.tokens))
        out_shape = (len(self.session.tokens), config.output_width)
        self.shapes.setText(self.tr("In the open scenario (T = %1): x %2 · W_up %3 + b_up %4 → act → %5 · W_down %6 "
                                    "+ b_down %7 → %8.")
                            .replace("%1", str(len(self.session.tokens))).replace("%2", shape_text(shapes["x"]))
                            .replace("%3", shape_text(shapes["W_up"])).replace("%4", shape_text(shapes["b_up"]))
                            .replace("%5", shape_text(shapes["act"])).replace("%6", shape_text(shapes["W_down"]))
                            .replace("%7", shape_text(shapes["b_down"])).replace("%8", shape_text(out_shape)))
        self._show_explanation()

    def explanations(self) -> dict[str, str]:
        """The explanation shown for each term, with the open scenario's shapes."""
        config = self.session.config
        shapes = {name: shape_text(shape) for name, shape in term_shapes(config, len(self.session.tokens)).items()}
        activation = activation_label(config.activation)
        return {
            "x": self.tr("<b>x</b> — one token's row of the stream entering the FFN, d numbers (here the T rows "
                         "form %1). The FFN takes the rows one at a time.").replace("%1", shapes["x"]),
            "W_up": self.tr("<b>W_up</b> (%1 under “Weights and inputs”), d×d_ff = %2. Each of its d_ff columns is one reading "
                            "direction: x·W_up scores the token against every column at once, one score per hidden "
                            "unit.").replace("%1", EXPLORER_NAMES["W_up"]).replace("%2", shapes["W_up"]),
            "b_up": self.tr("<b>b_up</b> (%1), d_ff = %2 numbers: one threshold per hidden unit, shifting where it "
                            "switches on. In the two-neuron lab, neuron 2's −1 makes it fire only when p and n "
                            "both hold.").replace("%1", EXPLORER_NAMES["b_up"]).replace("%2", shapes["b_up"]),
            "act": self.tr("<b>act</b> — the nonlinearity, number by number: max(0, ·) (ReLU) in the 2017 paper, the "
                           "tanh approximation of GELU in GPT-2. Here: %1. Take it away and the two matrices "
                           "collapse into one linear map.").replace("%1", activation),
            "W_down": self.tr("<b>W_down</b> (%1 under “Weights and inputs”), d_ff×d_out = %2. Row i is what hidden unit i adds to "
                              "the output, in proportion to how strongly it fired.")
            .replace("%1", EXPLORER_NAMES["W_down"]).replace("%2", shapes["W_down"]),
            "b_down": self.tr("<b>b_down</b> (%1), d_out = %2 numbers: a constant added to every token's output.")
            .replace("%1", EXPLORER_NAMES["b_down"]).replace("%2", shapes["b_down"]),
        }

    def select_term(self, term: str) -> None:
        if term not in FORMULA_TERMS:
            raise ValueError(f"term: expected one of {', '.join(FORMULA_TERMS)}, got {term!r}")
        self.selected = term
        with QSignalBlocker(self.term_buttons[term]):
            self.term_buttons[term].setChecked(True)
        self._show_explanation()
        # The page puts the highlight in the Session's selection state: the diagram shows it.
        self.termHighlighted.emit(term_hooks(term, self.session.config))

    def _show_explanation(self) -> None:
        self.hooks.setVisible(self.selected is not None)
        if self.selected is None:
            self.explanation.setText(self.tr("Pick a term to see what it is and where it lives in the dataflow."))
            self.hooks.setText("")
            return
        self.explanation.setText(self.explanations()[self.selected])
        self.hooks.setText(self.tr("In the dataflow: %1")
                           .replace("%1", ", ".join(term_hooks(self.selected, self.session.config))))
