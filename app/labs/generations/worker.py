"""A minimal background runner for the lab's slow demonstrations (the residual-growth simulation,
the depth stacks): the computation runs on a QThread, reports its progress to the GUI thread,
and can be cancelled.

The computations are `core` functions that take `progress(fraction) -> bool` and return None
when told to stop (core/labs/generations.py). `Worker.start(function)` runs
`function(progress)` off the GUI thread; `progressed(float)`, `finished(object)` (the result),
`cancelled()` and `failed(str)` arrive in the GUI thread. Starting again while a run is going
cancels that run: only the newest run ever reports.

(A shared app/widgets/worker.py is being written on another branch; this one stays inside the
lab's package until that lands.)
"""
from __future__ import annotations

import atexit
import threading
from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, QObject, Qt, QThread, Signal, Slot

Progress = Callable[[float], bool]

# Threads still running, held here so that Python never collects a running QThread (which
# aborts the process); each removes itself when it ends.
_RUNNING: set["_Run"] = set()


class _Run(QThread):
    progressed = Signal(float)
    ended = Signal(object, bool, str)          # result, cancelled, error

    def __init__(self, function: Callable[[Progress], object]):
        super().__init__()
        self.function = function
        self.stop = threading.Event()

    def run(self) -> None:  # noqa: D401 (Qt's name) — runs in the worker thread
        def progress(fraction: float) -> bool:
            if self.stop.is_set():
                return False
            self.progressed.emit(float(fraction))
            return not self.stop.is_set()

        try:
            result = self.function(progress)
        except Exception as error:            # noqa: BLE001 — reported, never lost in a thread
            self.ended.emit(None, False, f"{type(error).__name__}: {error}")
            return
        self.ended.emit(result, result is None or self.stop.is_set(), "")

    @Slot()
    def forget(self) -> None:
        """The thread has ended: let Python delete it."""
        _RUNNING.discard(self)


class Worker(QObject):
    """Runs one computation at a time off the GUI thread."""

    progressed = Signal(float)
    finished = Signal(object)
    cancelled = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._run: _Run | None = None
        # Destroyed with its part while a run is going: stop that run (the holder outlives self).
        self._holder: list[_Run | None] = [None]
        self.destroyed.connect(lambda *_args, holder=self._holder: _stop(holder[0]))

    def start(self, function: Callable[[Progress], object]) -> None:
        """Run `function(progress)` in a thread; a run already going is cancelled first."""
        _stop(self._run)
        run = _Run(function)
        self._run = self._holder[0] = run
        _RUNNING.add(run)
        # Queued, to slots of this object (which lives in the GUI thread): the signals are emitted
        # in the worker thread, and everything they touch must run in the GUI thread.
        queued = Qt.ConnectionType.QueuedConnection
        run.progressed.connect(self._progressed, queued)
        run.ended.connect(self._ended, queued)
        run.finished.connect(run.forget, queued)       # to the thread object, in the GUI thread
        run.start()

    def cancel(self) -> None:
        """Ask the running computation to stop; `cancelled` follows when it has."""
        if self._run is not None:
            self._run.stop.set()

    def is_running(self) -> bool:
        return self._run is not None

    def wait(self, milliseconds: int = 30_000) -> bool:
        """Block until the current run's thread has ended (tests, shutting down); its signals
        still arrive through the event loop."""
        run = self._run
        return True if run is None else run.wait(milliseconds)

    @Slot(float)
    def _progressed(self, fraction: float) -> None:
        run = self.sender()
        if run is self._run and not run.stop.is_set():
            self.progressed.emit(fraction)

    @Slot(object, bool, str)
    def _ended(self, result: object, stopped: bool, error: str) -> None:
        if self.sender() is not self._run:
            return                                  # an older run that was replaced
        self._run = self._holder[0] = None
        if error:
            self.failed.emit(error)
        elif stopped:
            self.cancelled.emit()
        else:
            self.finished.emit(result)


def settle(app, milliseconds: int = 60_000) -> bool:
    """Wait until no run is going and every result has been shown (a screenshot shows the finished
    demonstration, not its progress bar). False if runs were still going after `milliseconds`."""
    timer = QElapsedTimer()
    timer.start()
    while True:
        app.processEvents()
        runs = list(_RUNNING)
        if not runs:
            app.processEvents()                 # the last result's signals, queued to the GUI thread
            return True
        left = milliseconds - timer.elapsed()
        if left <= 0:
            return False
        runs[0].wait(min(int(left), 100))


def _stop(run: _Run | None) -> None:
    if run is not None:
        run.stop.set()


@atexit.register
def _stop_all() -> None:
    """At exit, stop every run and wait for it: a QThread destroyed while running aborts."""
    for run in list(_RUNNING):
        run.stop.set()
    for run in list(_RUNNING):
        run.wait(5000)
