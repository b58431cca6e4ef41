"""Part ③ of the two-neuron lab: the FFN drawn as it computes one sentence, every weight editable."""
from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from app import i18n
from app.labs.xor.common import esc, label, set_text, trimmed
from app.labs.xor.diagram import XorDiagram
from app.widgets.appearance import appearance


class XorFfnPart(QWidget):
    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorFfnPage")
        self.session = session
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.ffn_caption = label("xorFfnCaption", 10)
        layout.addWidget(self.ffn_caption)
        self.diagram = XorDiagram(session)
        layout.addWidget(self.diagram, 1)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    def _follow_presenting(self) -> None:
        """Presenting, the caption steps aside: the table above marks the sentence followed, the
        drawing shows its p and n, and the teacher edits by the lesson's steps; the drawing takes
        the page (at 1024×768 with 150 % zoom the page scrolled, the lower spins out of sight)."""
        self.ffn_caption.setVisible(not appearance().presenting)

    def refresh(self) -> None:
        s = self.session
        row = s.selected_index("hook_resid_post")[0]
        x = s.state.inputs[row]
        set_text(self.ffn_caption, self.tr("Following <b>%1</b> (p = %2, n = %3); click a row of the table to follow "
                                           "another. Every number on the drawing can be edited.")
                 .replace("%1", esc(i18n.with_gloss(s.tokens[row]))).replace("%2", trimmed(x[0])).replace("%3", trimmed(x[1])))
        self.diagram.refresh()
