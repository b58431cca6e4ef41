"""Long work off the GUI thread: a `Job` runs one function on Qt's global thread pool and reports
progress, its result, a failure or its cancellation through Qt signals (delivered on the GUI
thread); a `WorkBar` shows a job's progress with a Cancel button. (Being on the global pool,
`QThreadPool.globalInstance()` knows when background work is going on: screenshots wait for it.)

Minimal on purpose (the model lab's ranking and ablation passes); the work function takes
core.model's `progress(done, total)` and `cancel() -> bool` callbacks and may raise
`core.model.Cancelled`.
"""
from __future__ import annotations

import threading
import traceback
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy, QWidget

from core.model import Cancelled

Work = Callable[[Callable[[int, int], None], Callable[[], bool]], object]


class _Runnable(QRunnable):
    def __init__(self, job: "Job"):
        super().__init__()
        self.job = job
        self.setAutoDelete(True)

    def run(self) -> None:
        self.job._run()


class Job(QObject):
    """One run of `work(progress, cancel)` on the global thread pool. Exactly one of `finished(result)`,
    `failed(message)` or `cancelled()` is emitted at the end; `progress(done, total)` before."""

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, work: Work, parent: QObject | None = None):
        super().__init__(parent)
        self._work = work
        self._stop = threading.Event()
        self._done = threading.Event()
        self._started = False
        self._last = -1
        self.last_progress: tuple[int, int] | None = None     # the latest (done, total) reported

    def start(self) -> "Job":
        self._started = True
        QThreadPool.globalInstance().start(_Runnable(self))
        return self

    def cancel(self) -> None:
        self._stop.set()

    def is_cancelled(self) -> bool:
        return self._stop.is_set()

    def is_running(self) -> bool:
        """Started and not yet ended (it may still wait for a free thread of the pool)."""
        return self._started and not self._done.is_set()

    def wait(self, seconds: float | None = None) -> bool:
        """Block until the work ends (True) or `seconds` pass (False)."""
        return self._done.wait(seconds) if self._started else True

    def _report(self, done: int, total: int) -> None:
        self.last_progress = (done, total)
        step = done * 200 // max(total, 1)         # at most 200 signals per job
        if step != self._last or done == total:
            self._last = step
            self._emit(self.progress, done, total)

    def _run(self) -> None:
        try:
            self._run_work()
        finally:
            self._done.set()

    def _run_work(self) -> None:
        try:
            if self._stop.is_set():
                raise Cancelled()
            result = self._work(self._report, self._stop.is_set)
        except Cancelled:
            self._emit(self.cancelled)
        except Exception as error:  # noqa: BLE001 (reported to the GUI as one message)
            traceback.print_exc()
            self._emit(self.failed, str(error) or type(error).__name__)
        else:
            if self._stop.is_set():
                self._emit(self.cancelled)
            else:
                self._emit(self.finished, result)

    @staticmethod
    def _emit(signal, *args) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:            # the receivers are gone (the window closed): nothing to tell
            pass


class WorkBar(QWidget):
    """What a job is doing, how far it is and a Cancel button; hidden when no job runs."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.label = QLabel()
        self.label.setObjectName(name + "Label")
        self.label.setWordWrap(True)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setObjectName(name + "Progress")
        self.bar.setRange(0, 1000)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName(name + "Cancel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 2)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.cancel_button)
        self.job: Job | None = None
        self.cancel_button.clicked.connect(self.cancel)
        self.retranslate()
        self.hide()

    def watch(self, job: Job, text: str) -> None:
        self.job = job
        self.label.setText(text)
        self.bar.setValue(0)
        self.bar.setFormat("%p%")
        job.progress.connect(self._progress)
        for signal in (job.finished, job.failed, job.cancelled):
            signal.connect(self._done)
        if job.last_progress is not None:          # reported before this bar was watching
            self._progress(*job.last_progress)
        if job.is_running():
            self.show()

    def set_text(self, text: str) -> None:
        self.label.setText(text)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def _progress(self, done: int, total: int) -> None:
        if self.sender() in (None, self.job) or self.sender() is self:
            self.bar.setValue(int(1000 * done / max(total, 1)))

    def _done(self, *_args) -> None:
        if self.sender() is not None and self.sender() is not self.job:
            return                                 # a job this bar no longer watches
        self.job = None
        self.hide()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.cancel_button.setText(self.tr("Cancel"))
