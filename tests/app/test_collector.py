"""Cyclic garbage is collected on the GUI thread only, even when a job on a pool thread makes the
allocations that call for a collection: Qt objects in garbage cycles (a closed panel's widgets,
timers, pyqtgraph items) destroyed on a pool thread crashed the model lab's tests."""
from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject

from app.widgets.collector import GuiThreadCollector, collect_on_gui_thread
from app.widgets.worker import Worker

TIMEOUT_MS = 20_000


def _qt_object_in_a_cycle(destroyed_on: list[threading.Thread]) -> None:
    """A QObject kept only by a reference cycle: freed when the collector runs, wherever it runs."""
    cycle: list = []
    thing = QObject()                              # owned by its wrapper: freed with it, on that thread
    weakref.finalize(thing, lambda: destroyed_on.append(threading.current_thread()))
    cycle.extend((cycle, thing))


def test_a_qt_object_in_garbage_made_during_a_job_is_destroyed_on_the_gui_thread(qtbot, qapp):
    worker = Worker()
    results: list = []
    worker.finished.connect(results.append)
    destroyed_on: list[threading.Thread] = []
    _qt_object_in_a_cycle(destroyed_on)

    def allocating(progress):
        # Far past the collector's thresholds: automatic collection would run here, on this thread.
        return [[] for _ in range(20 * gc.get_threshold()[0])]

    worker.start(allocating)
    assert worker.wait(TIMEOUT_MS)                 # the GUI thread blocked: only the job allocated
    assert destroyed_on == []                      # nothing collected on the pool thread
    qtbot.waitUntil(lambda: bool(results and destroyed_on), timeout=TIMEOUT_MS)
    assert destroyed_on == [threading.main_thread()]     # the GUI thread's timer collected it


def test_automatic_collection_stays_off_and_the_timer_collects_by_the_thresholds(qapp):
    collector = collect_on_gui_thread()
    assert isinstance(collector, GuiThreadCollector) and collect_on_gui_thread() is collector
    assert not gc.isenabled()
    gc.enable()                                    # something turned it on again: the next check undoes it
    gc.collect()
    assert collector.check() is None               # nothing to collect right after a collection
    assert not gc.isenabled()
    keep = [[] for _ in range(2 * collector.thresholds[0])]
    assert collector.check() == 0                  # the youngest generation is due
    assert len(keep) and gc.get_count()[0] < collector.thresholds[0]


def test_a_full_collection_waits_for_a_quarter_more_long_lived_objects(qapp, monkeypatch):
    """The oldest generation holds most of the window: collected only under CPython's own rule, not
    every hundred young collections (which would stall the window for a few hundred ms each time)."""
    collector = collect_on_gui_thread()
    monkeypatch.setattr(collector, "thresholds", (-1, -1, -1))       # every generation's count is due
    monkeypatch.setattr(collector, "long_lived_total", 1000)
    monkeypatch.setattr(collector, "long_lived_pending", 100)
    assert collector.check() == 1                  # 100 new long-lived objects of 1,000: not yet
    assert collector.long_lived_pending >= 100
    collector.long_lived_pending = 300
    assert collector.check() == 2                  # a quarter more: a full collection
    assert collector.long_lived_pending == 0 and collector.long_lived_total > 1000      # counted again
