"""Part ② of the two-neuron lab: the proof that no line can say "exactly one", with the
learner's own a, b, c put in."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

from app.labs.xor.common import FORMULA_PT, TEXT_PT, esc, label, set_text, trimmed
from app.labs.fonts import own_fonts
from app.labs.xor.state import LinearModel, TableFacts
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs import xor as lab

PARAGRAPH_GAP_PX = 8
PRESENTING_GAP_PX = 3


class XorFailurePart(QWidget):
    showFix = Signal()            # "see how two neurons fix it": the panel brings part ③ forward

    def __init__(self, session, linear: LinearModel, facts: TableFacts, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorFailurePage")
        self.session = session
        self.linear = linear
        self.facts = facts
        layout = self.page_layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        self.proof_label = label("xorProof", FORMULA_PT)
        self.proof_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        own_fonts(self.proof_label)                      # sized by _follow_appearance
        layout.addWidget(self.proof_label)
        layout.addStretch(1)
        self.to_ffn_button = QPushButton()
        self.to_ffn_button.setObjectName("xorShowFix")
        self.to_ffn_button.setFont(font(TEXT_PT))
        self.to_ffn_button.clicked.connect(self.showFix)
        layout.addWidget(self.to_ffn_button, 0, Qt.AlignmentFlag.AlignRight)
        self.retranslate()
        appearance().changed.connect(self._follow_appearance)
        self._follow_appearance()

    def _follow_appearance(self) -> None:
        """Presenting, the proof is set in the lab's text size (16.5 pt at 150 %) rather than its
        formula size, its paragraphs and margins closer: each formula line then stays one line, and
        at 1024×768 with 150 % zoom the proof and its button fit the page (it scrolled 54 px, zh 95)."""
        presenting = appearance().presenting
        self.proof_label.setFont(font(appearance().points(TEXT_PT if presenting else FORMULA_PT)))
        self.page_layout.setContentsMargins(*((8, 4, 8, 4) if presenting else (8, 8, 8, 8)))
        if self.proof_label.text():
            self.refresh()
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.to_ffn_button.setText(self.tr("See how two neurons fix it →"))

    def refresh(self) -> None:
        m = self.linear.model
        facts = self.facts
        best = facts.best
        proof = lab.linear_proof(m)
        lines = [self.tr("For any a, b, c; here with yours, a = %1, b = %2, c = %3:")
                 .replace("%1", trimmed(m.a)).replace("%2", trimmed(m.b)).replace("%3", trimmed(m.c)),
                 "&nbsp;&nbsp;" + esc(proof.left_text()),
                 "&nbsp;&nbsp;" + esc(proof.right_text()),
                 self.tr("The two sums are the same expression, a + b + 2c, so they are always equal.")]
        if facts.target_sides is not None:
            lines.append(self.tr("The targets do not: %1").replace("%1", facts.target_sums_text(self.tr("; "))))
        text = self.tr("No line can match both. The best a linear model can do is a = %1, b = %2, c = %3, MSE %4.") \
            .replace("%1", trimmed(best.a)).replace("%2", trimmed(best.b)).replace("%3", trimmed(best.c)) \
            .replace("%4", trimmed(facts.best_mse))
        if trimmed(best.a) == "0" and trimmed(best.b) == "0":
            text += self.tr(" That is ŷ = %1 for every sentence: it cannot tell praise from criticism.") \
                .replace("%1", trimmed(best.c))
        lines.append(text)
        # paragraphs a third of a line apart, not a blank line apart: the proof and its button fit a
        # 1024×768 projector's page below the table (the page scrolled to reach the button)
        gap = PRESENTING_GAP_PX if appearance().presenting else PARAGRAPH_GAP_PX
        set_text(self.proof_label, "".join(f"<p style='margin-top:0; margin-bottom:{gap}px'>{line}</p>"
                                           for line in lines))
