"""Lesson C4's FFN page (registry id "ffn-page"): the formula term by term, why 4× wide, the
shape view, the shuffle test of "position-wise", three misconceptions and the summary, one
tab per part. Every number shown comes from `core.labs.ffn_page` (or `core.block.forward`)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from app.labs.base import LabPanel
from app.labs.ffn_page.common import TEXT_PT
from app.labs.ffn_page.formula import FfnFormulaPart
from app.labs.ffn_page.misconceptions import FfnMisconceptionsPart
from app.labs.ffn_page.shapes import FfnShapesPart
from app.labs.ffn_page.shuffle import FfnShufflePart
from app.labs.ffn_page.source import FfnDemoSource
from app.labs.ffn_page.summary import FfnSummaryPart
from app.labs.ffn_page.width import FfnWidthPart
from app.session import Change
from app.widgets.appearance import appearance
from app.widgets.style import font


class FfnPagePanel(LabPanel):
    """The rest of lesson C4's page, one tab per part (each in a scroll area).

    A formula term the learner clicks is highlighted in the dataflow through the Session;
    `termHighlighted(list[str])` carries its hooks too."""

    LAB_ID = "ffn-page"
    termHighlighted = Signal(list)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, parent)
        self.setObjectName("ffnPage")
        self.source = FfnDemoSource(session, self)
        self.formula = FfnFormulaPart(session)
        self.width_part = FfnWidthPart()
        self.shapes = FfnShapesPart()
        self.shuffle = FfnShufflePart(self.source)
        self.misconceptions = FfnMisconceptionsPart(self.source)
        self.summary = FfnSummaryPart()
        self.formula.termHighlighted.connect(self._term_highlighted)
        self.misconceptions.goToShuffle.connect(lambda: self.set_focus("shuffle"))

        self.tabs.setObjectName("ffnTabs")
        self.tabs.setFont(font(TEXT_PT))
        self.pages: dict[str, QWidget] = {}
        for part, widget in zip(self.lab.parts, (self.formula, self.width_part, self.shapes, self.shuffle,
                                                 self.misconceptions, self.summary)):
            scroll = QScrollArea()
            scroll.setObjectName(f"ffnScroll_{part}")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            scroll.setWidget(widget)
            self.add_part(part, widget, scroll)
            self.pages[part] = widget
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()
        self.retranslate()

    def _follow_presenting(self) -> None:
        """In presentation mode a part's heading gives its room to the figure: the caption bar shows
        the step's title. The summary's "In one sentence" is its content and stays."""
        for part in (self.formula, self.width_part, self.shapes, self.shuffle, self.misconceptions):
            part.heading.setVisible(not appearance().presenting)
        for widget in self.formula.desk_only + self.shapes.desk_only:
            widget.setVisible(not appearance().presenting)
        self.formula.follow_presenting(appearance().presenting)
        self.width_part.follow_presenting(appearance().presenting)
        self.shuffle.follow_presenting(appearance().presenting)

    def session_changed(self, change: Change) -> None:
        self.source.session_changed(change)
        self.formula.session_changed(change)

    def _term_highlighted(self, hooks: list) -> None:
        self.highlight(hooks)
        self.termHighlighted.emit(hooks)

    def retranslate(self) -> None:
        titles = (self.tr("Formula"), self.tr("Why 4× wide"), self.tr("Shapes"), self.tr("Shuffle"),
                  self.tr("Misconceptions"), self.tr("Summary"))
        for part, title in zip(self.lab.parts, titles):
            self.set_part_title(part, title)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
