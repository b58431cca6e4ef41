"""The trained-model lab's panel: four parts (neurons, type, explorer, ablation) on one shared
state. A model file that cannot be used is refused with one clear message in place of the
parts; the rest of Block Lab is untouched."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from app.labs.base import LabPanel
from app.labs.model.common import TEXT_PT, esc, label
from app.labs.model.state import ModelLabState
from app.session import Change
from app.widgets.style import font

PARTS = ("neurons", "type", "explorer", "ablation")


class ModelLabPanel(LabPanel):
    LAB_ID = "model"

    def __init__(self, session, parent: QWidget | None = None, model_path: str | Path | None = None):
        super().__init__(session, parent)
        self.setObjectName("modelLab")
        self.state = ModelLabState(session, model_path, parent=self)
        self.stack = QStackedWidget()
        root = QVBoxLayout(self)
        root.setContentsMargins(4, 4, 4, 4)
        root.addWidget(self.stack)
        self.tabs.setObjectName("modelParts")
        self.tabs.setFont(font(TEXT_PT))
        self.tabs.setDocumentMode(True)
        self.error_label: QLabel = label("modelError", 13)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if self.state.ok:
            from app.labs.model.ablation import ModelAblationPart
            from app.labs.model.explorer import ModelExplorerPart
            from app.labs.model.neurons import ModelNeuronsPart
            from app.labs.model.typed import ModelTypePart
            for name, kind in zip(PARTS, (ModelNeuronsPart, ModelTypePart, ModelExplorerPart, ModelAblationPart)):
                part = kind(self.state)
                if kind is ModelAblationPart:     # a table and two plots: scrolls rather than squeeze
                    page = QScrollArea()
                    page.setObjectName("modelScroll_ablation")
                    page.setWidgetResizable(True)
                    page.setFrameShape(QFrame.Shape.NoFrame)
                    page.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
                    page.setWidget(part)
                    self.add_part(name, part, page)
                else:
                    self.add_part(name, part)
            self.state.message.connect(session.message)
        else:                                   # the tabs exist (lessons can focus them), all on the refusal
            for name in PARTS:
                self.add_part(name, QWidget())
            self.tabs.tabBar().hide()
        self.stack.addWidget(self.tabs)
        error_page = QWidget()
        column = QVBoxLayout(error_page)
        column.addStretch(1)
        column.addWidget(self.error_label)
        column.addStretch(1)
        self.stack.addWidget(error_page)
        self.stack.setCurrentIndex(0 if self.state.ok else 1)
        self.retranslate()

    def forget_results(self) -> None:
        """Drop the rankings and knock-out losses found so far (see ModelLabState.forget_results)."""
        if self.state.ok:
            self.state.forget_results()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        titles = (self.tr("① Neurons"), self.tr("② Your text"), self.tr("③ In the explorer"),
                  self.tr("④ What is the FFN worth?"))
        for name, title in zip(PARTS, titles):
            self.set_part_title(name, title)
        if not self.state.ok:
            self.error_label.setText(esc(self.tr("The trained model cannot be used: %1. The rest of Block Lab "
                                                 "works as before.").replace("%1", self.state.error)))

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.state.stop()
        super().closeEvent(event)

    def session_changed(self, change: Change) -> None:
        if self.state.ok:
            self.state.session_changed(change)
