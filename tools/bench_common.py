"""What the benches share: the environment they measure in, a probe that notes when a widget
paints, and letting Qt deliver every paint a change caused.

Importing this module sets the environment, so a bench imports it before NumPy and Qt:

    from bench_common import ROOT, percentile_ms, until_painted, watch   # first: the environment

- this checkout first on sys.path (measure it, not an installed copy);
- QT_QPA_PLATFORM=offscreen unless set;
- one BLAS thread, as main.py does (threaded BLAS is much slower on a busy small machine).
"""
from __future__ import annotations

import functools
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")          # before NumPy loads

import numpy as np  # noqa: E402


def percentile_ms(samples_s, q: float) -> float:
    """The q-th percentile of durations in seconds, in milliseconds."""
    return float(np.percentile(np.asarray(samples_s, dtype=np.float64) * 1000.0, q))


class Clock:
    """A change's start, on both clocks: the wall clock and this (the GUI) thread's CPU time."""

    def __init__(self):
        self.wall = time.perf_counter()
        self.cpu = time.thread_time()


@functools.cache
def _probe_class():
    from PySide6.QtCore import QEvent, QObject     # Qt only once a bench watches paints

    class PaintProbe(QObject):
        """When the watched widget last painted: wall clock, and the GUI thread's CPU time."""

        def __init__(self):
            super().__init__()
            self.last_paint: float | None = None
            self.last_cpu: float | None = None

        def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
            if event.type() == QEvent.Type.Paint:
                self.last_paint = time.perf_counter()
                self.last_cpu = time.thread_time()
            return False

    return PaintProbe


def make_probe():
    """A new paint probe (an event filter; install it on the widget to watch)."""
    return _probe_class()()


def watch(widgets) -> list:
    """A paint probe on each widget, in order."""
    probes = []
    for widget in widgets:
        probe = make_probe()
        widget.installEventFilter(probe)
        probes.append(probe)
    return probes


def unwatch(widgets, probes) -> None:
    for widget, probe in zip(widgets, probes):
        widget.removeEventFilter(probe)


def deliver_paints(app, probes, passes: int, busy=lambda: False) -> None:
    """Let Qt deliver what a change posted, pass after pass (at most `passes`); stop after a pass
    in which no watched widget painted and `busy()` (more work the change queued) is False."""
    for _ in range(passes):
        before = [probe.last_paint for probe in probes]
        app.processEvents()
        if [probe.last_paint for probe in probes] == before and not busy():
            break


def until_painted(app, probes, start: Clock, passes: int = 10) -> tuple[float, float]:
    """Deliver every paint the change made at `start` caused; the time from `start` until the
    last watched widget had repainted: wall clock, and the GUI thread's CPU time (what the same
    work costs on a quiet machine, where other processes do not inflate the wall clock). With no
    repaint at all, the time until now."""
    deliver_paints(app, probes, passes)
    painted = [probe for probe in probes if probe.last_paint is not None and probe.last_paint >= start.wall]
    if not painted:
        return time.perf_counter() - start.wall, time.thread_time() - start.cpu
    last = max(painted, key=lambda probe: probe.last_paint)
    return last.last_paint - start.wall, last.last_cpu - start.cpu
