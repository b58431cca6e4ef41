"""Python's cyclic garbage collector runs on the GUI thread only.

Automatic collection runs in whichever thread allocates when a threshold is passed. With jobs on
pool threads (app.widgets.worker) that is often a pool thread: a model-lab ranking makes tens of
thousands of small objects. The garbage it finds there includes Qt objects: a closed panel's
widgets, menus, timers, pyqtgraph items, even a Worker and its thread pool, all in reference
cycles (pyqtgraph's items and a widget's slots make them). Destroying them off the GUI thread gives
"QBasicTimer::stop: Failed. Possibly trying to stop from a different thread", then a crash in
QTimerInfoList::activateTimers (tests/app/test_model_lab.py crashed so once rankings kept their
snippets; any job could hit it).

So automatic collection is turned off and a timer on the GUI thread collects instead, by the
interpreter's own thresholds and rule for full collections: garbage waits at most INTERVAL_MS
longer. Every worker installs it (`collect_on_gui_thread()`, once per application); a pool thread
never collects.
"""
from __future__ import annotations

import gc
import threading

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 100             # how often the GUI thread looks at the collector's counts

_collector: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    """Collects cyclic garbage from a GUI-thread timer, with automatic collection off.

    The youngest generations are collected when their counts pass the thresholds, as the
    interpreter does. The oldest, which holds nearly every object of the window (hundreds of
    thousands: a full collection takes 100–400 ms), only when the objects that reached it since
    the last full collection are a quarter of those that were there then: CPython's own rule
    (long_lived_pending > long_lived_total / 4), without which a full collection would come every
    hundred young ones (pyqtgraph's GarbageCollector does that) and stall the window."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.setObjectName("guiThreadCollector")
        self.thresholds = gc.get_threshold()
        self.long_lived_total = 0          # objects in the oldest generation after the last full collection
        self.long_lived_pending = 0        # objects moved there since
        self.timer = QTimer(self)
        self.timer.setObjectName("guiThreadCollectorTimer")
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start(INTERVAL_MS)

    def check(self) -> int | None:
        """Collect what the interpreter would have collected by now; the generation collected, or None."""
        if gc.isenabled():             # something turned automatic collection back on
            gc.disable()
        counts, generation = gc.get_count(), None
        for level in range(3):
            if counts[level] <= self.thresholds[level]:
                break
            generation = level
        if generation == 2 and self.long_lived_pending <= self.long_lived_total // 4:
            generation = 1
        if generation is None:
            return None
        if generation == 2:
            gc.collect(2)
            self.long_lived_total, self.long_lived_pending = len(gc.get_objects(2)), 0
        elif generation == 1:
            young = len(gc.get_objects(0)) + len(gc.get_objects(1))
            self.long_lived_pending += max(0, young - gc.collect(1))     # the survivors moved to the oldest
        else:
            gc.collect(0)
        return generation


def collect_on_gui_thread() -> GuiThreadCollector | None:
    """Turn automatic garbage collection off and collect on the GUI thread instead (once per
    application; call it on the GUI thread). None without an application."""
    app = QCoreApplication.instance()
    if app is None:
        return None
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("the garbage collector's timer belongs to the GUI thread")
    global _collector
    if _collector is None or not shiboken6.isValid(_collector):
        _collector = GuiThreadCollector(app)
    elif gc.isenabled():
        gc.disable()
    return _collector
