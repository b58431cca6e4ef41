"""Part 6 of the FFN page: the lesson in one sentence, and the next gap."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.labs.ffn_page.common import HEADING_PT, Part, note_frame, text_label


class FfnSummaryPart(Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnSummaryPart")
        self.heading = text_label("", HEADING_PT, bold=True)
        self.sentence = text_label("ffnSummarySentence", 17, bold=True)
        self.sentence.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.sentence.setMargin(16)
        self.division = text_label("ffnSummaryDivision")
        self.division.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.gap_heading = text_label("", HEADING_PT, bold=True)
        self.gap = text_label("ffnSummaryNextGap")
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(note_frame(self.sentence, self.division))
        layout.addSpacing(12)
        layout.addWidget(self.gap_heading)
        layout.addWidget(self.gap)
        layout.addStretch(1)
        self.retranslate()

    def retranslate(self) -> None:
        self.heading.setText(self.tr("In one sentence"))
        self.sentence.setText(self.tr("Attention moves information between tokens; the FFN combines it, "
                                      "nonlinearly, inside each token."))
        self.division.setText(self.tr("Attention decides what to take from whom; the FFN decides what to make of it "
                                      "at home. A block does both in turn: first exchange, then work alone."))
        self.gap_heading.setText(self.tr("The next gap"))
        self.gap.setText(self.tr(
            "One block is attention followed by an FFN, and real models stack many of them. The most direct way is to "
            "feed each block's output straight into the next. What happens when that stack gets deep? The next "
            "lesson: why residual connections."))
