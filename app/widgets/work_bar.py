"""A worker's job on screen: what it does, how far it is, and a Cancel button (app/widgets/worker.py).

    bar = WorkBar("modelRankWork", worker)          # children …Label, …Progress, …Cancel
    bar.running(lambda: self.tr("Ranking…"))        # when the owner starts a job

What the job does is given as a function that returns it in the current language, so that a
language switch while the job runs rewrites it too. Hidden while no job runs. With `report=True`
a cancelled or failed job leaves one line saying so (the view keeps its last complete result),
until the next job starts.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from app.widgets.worker import Worker

STEPS = 1000


class WorkBar(QWidget):
    """Shows the current job of one worker; Cancel cancels it."""

    def __init__(self, name: str, worker: Worker, parent: QWidget | None = None, report: bool = False):
        super().__init__(parent)
        self.setObjectName(name)
        self.worker = worker
        self.report = report
        self.text: Callable[[], str] | str | None = None   # what the job does (None: "Computing…")
        self.outcome: tuple[str, str] | None = None   # ("cancelled" | "failed", error) to report
        self.generation: int | None = None        # the worker's job that running() announced
        self.label = QLabel()
        self.label.setObjectName(name + "Label")
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setObjectName(name + "Progress")
        self.bar.setRange(0, STEPS)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName(name + "Cancel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 2)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.cancel_button)
        self.cancel_button.clicked.connect(worker.cancel)
        worker.progressed.connect(lambda fraction: self.bar.setValue(round(STEPS * fraction)))
        worker.finished.connect(lambda _result: self._ended(None))
        worker.cancelled.connect(lambda: self._ended(("cancelled", "")))
        worker.failed.connect(lambda error: self._ended(("failed", error)))
        self.retranslate()
        self._ended(None)

    def running(self, text: Callable[[], str] | str | None = None) -> None:
        """A job has started (call after the worker's start()): show it from 0. `text()` says what
        it does in the current language (asked again on each language change; a plain string
        stays as it is)."""
        self.text, self.outcome = text, None
        if self.generation != self.worker.generation:
            self.generation = self.worker.generation
            self.bar.setValue(0)
        self.bar.show()
        self.cancel_button.show()
        self.retranslate()
        self.show()

    def _ended(self, outcome: tuple[str, str] | None) -> None:
        self.outcome = outcome if self.report else None
        self.bar.setValue(0)
        self.bar.hide()
        self.cancel_button.hide()
        self.retranslate()
        self.setVisible(self.outcome is not None)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.cancel_button.setText(self.tr("Cancel"))
        if self.worker.is_running():
            text = self.text() if callable(self.text) else self.text
            self.label.setText(text or self.tr("Computing…"))
        elif self.outcome is None:
            self.label.setText("")
        elif self.outcome[0] == "cancelled":
            self.label.setText(self.tr("Cancelled: the last complete result is shown."))
        else:
            self.label.setText(self.tr("Could not compute: %1").replace("%1", self.outcome[1]))
