"""Work that does not fit in a frame, off the GUI thread: one job at a time, the newest wins.

    worker = Worker(parent)
    worker.finished.connect(show)                  # the newest job's result, on the GUI thread
    worker.progressed.connect(bar_fraction)        # 0.0 … 1.0 of the newest job
    worker.start(lambda progress: core_call(..., progress=progress))

A job is a function of one argument, `progress(fraction) -> bool`, run on a pool thread. It
reports how far it is between chunks of work (and, there, gives the GUI thread the interpreter)
and learns whether to go on: False means a newer job was started, cancel() was called or the
worker is going away — stop and return anything
(core's long functions take such a callback and return None when told to stop). Whatever a
superseded job returns is dropped: each start() takes a new generation number, and only the
current generation's signals get through. Results come back by a queued signal, so slots run
on the GUI thread. One job runs at a time (a one-thread pool): a cancelled job finishes its
chunk, then the next starts.

Every worker of the application goes through this module, so one function knows when background
work is going on: `settle(app)` waits until every job has ended and its result is shown (a
screenshot shows the finished work, not its progress bar). A worker stops its job when it is
destroyed, and at exit every job is told to stop and waited for (a pool thread still running
Python while the interpreter goes away crashes it).
"""
from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from app.widgets.collector import collect_on_gui_thread

Job = Callable[[Callable[[float], bool]], Any]
PROGRESS_STEP = 0.01          # progress is reported at most every 1 %
EXIT_WAIT_S = 5.0             # at exit, how long to wait for the running jobs to stop

_exiting = threading.Event()          # the interpreter is going away: every job stops
_pending = 0                          # jobs started and not yet ended, over all workers
_pending_lock = threading.Condition()


def _job_started() -> None:
    global _pending
    with _pending_lock:
        _pending += 1


def _job_ended() -> None:
    global _pending
    with _pending_lock:
        _pending -= 1
        _pending_lock.notify_all()


def _wait_for_jobs(seconds: float) -> bool:
    """Block until no job is pending (True) or `seconds` pass (False)."""
    with _pending_lock:
        return _pending_lock.wait_for(lambda: _pending == 0, timeout=seconds)


class _Relay(QObject):
    """Carries a job's news from its pool thread to the GUI thread (lives in the GUI thread)."""
    progressed = Signal(int, float)
    done = Signal(int, object)
    failed = Signal(int, str)


class _Run:
    def __init__(self, job: Job, generation: int, relay: _Relay, stop: threading.Event, closing: threading.Event):
        self.job, self.generation, self.relay = job, generation, relay
        self.stop, self.closing = stop, closing
        self.reported = -1.0

    def progress(self, fraction: float) -> bool:
        # Let the GUI thread have the interpreter between chunks: small NumPy steps hold the GIL,
        # and a frame would otherwise wait for the switch interval, again and again.
        time.sleep(0)
        if self.stop.is_set() or self.closing.is_set() or _exiting.is_set():
            return False
        fraction = min(1.0, max(0.0, float(fraction)))
        if fraction >= 1.0 or fraction - self.reported >= PROGRESS_STEP:
            self.reported = fraction
            try:
                self.relay.progressed.emit(self.generation, fraction)
            except RuntimeError:          # the relay went with its worker: stop
                return False
        return True

    def run(self) -> None:
        try:
            self._run()
        finally:
            _job_ended()

    def _run(self) -> None:
        if self.stop.is_set() or self.closing.is_set() or _exiting.is_set():
            return
        try:
            result = self.job(self.progress)
        except Exception as error:  # noqa: BLE001 (reported to the GUI thread, not lost in a pool thread)
            self._tell(self.relay.failed, f"{type(error).__name__}: {error}")
            return
        self._tell(self.relay.done, result)

    def _tell(self, signal, value) -> None:
        """Send the job's end to the GUI thread, unless its worker has gone meanwhile: a job that
        ends between its last progress() and the emit finds its relay deleted with the worker
        (the soak, seed 3, action 6: "Signal source has been deleted"). Nobody is left to tell."""
        if self.closing.is_set() or _exiting.is_set():
            return
        try:
            signal.emit(self.generation, value)
        except RuntimeError:
            if not self.closing.is_set():
                raise


class Worker(QObject):
    """Runs jobs off the GUI thread; a new start() cancels the job before it."""

    progressed = Signal(float)     # of the current job, 0 … 1
    finished = Signal(object)      # the current job's result (a superseded job's never arrives)
    failed = Signal(str)           # the current job raised: "TypeName: message"
    cancelled = Signal()           # cancel() stopped a running job (a superseded one says nothing)
    busy_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        collect_on_gui_thread()                # a pool thread never collects Qt objects' cycles
        self.generation = 0
        self.busy = False
        self._stop = threading.Event()
        self._closing = threading.Event()
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._relay = _Relay()
        self._relay.progressed.connect(self._on_progress)
        self._relay.done.connect(self._on_done)
        self._relay.failed.connect(self._on_failed)
        # Destroyed with its owner while a job runs: the job stops at its next progress() (the
        # signal comes before the pool, a child, waits for its threads in its destructor).
        self.destroyed.connect(lambda *_args, closing=self._closing: closing.set())

    def start(self, job: Job) -> int:
        """Run `job` off the GUI thread, cancelling the one before; returns its generation."""
        self._stop.set()                       # the previous job: stop at its next progress()
        self._stop = threading.Event()
        self.generation += 1
        _job_started()
        self._pool.start(_Run(job, self.generation, self._relay, self._stop, self._closing).run)
        self._set_busy(True)
        return self.generation

    def cancel(self) -> None:
        """Stop the current job (if any); nothing it returns will be delivered. `cancelled`
        follows at once if a job was running."""
        self._stop.set()
        self.generation += 1
        if self.busy:
            self._set_busy(False)
            self.cancelled.emit()

    def is_running(self) -> bool:
        """Whether the current job has not yet delivered its outcome."""
        return self.busy

    def close(self) -> None:
        """Going away: stop the current job and refuse new ones' work (each stops at once). The
        owner calls this before the worker is deleted, so that the pool's destructor does not
        wait for a long job to finish."""
        self._closing.set()
        self.cancel()

    def wait(self, milliseconds: int = -1) -> bool:
        """Block until no job runs (tests, shutdown); True if none is left."""
        return self._pool.waitForDone(milliseconds)

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busy_changed.emit(busy)

    def _on_progress(self, generation: int, fraction: float) -> None:
        if generation == self.generation:
            self.progressed.emit(fraction)

    def _on_done(self, generation: int, result: object) -> None:
        if generation == self.generation:
            self._set_busy(False)
            self.finished.emit(result)

    def _on_failed(self, generation: int, message: str) -> None:
        if generation == self.generation:
            self._set_busy(False)
            self.failed.emit(message)


def settle(app, milliseconds: int = 300_000) -> bool:
    """Wait until no worker has a job left and every result has been shown: a screenshot shows
    the finished work, not its progress bar. False if jobs were still going after `milliseconds`."""
    deadline = time.monotonic() + milliseconds / 1000
    while True:
        app.processEvents()
        if _wait_for_jobs(0.02):
            for _ in range(3):
                app.processEvents()            # the last results, queued to the GUI thread
            if _wait_for_jobs(0):              # … and nothing they started
                return True
        if time.monotonic() >= deadline:
            return False


@atexit.register
def _stop_all() -> None:
    """At exit, stop every job and wait for it to end."""
    _exiting.set()
    _wait_for_jobs(EXIT_WAIT_S)
