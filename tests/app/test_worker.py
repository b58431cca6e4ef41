"""The worker runs a job off the GUI thread, reports progress, delivers only the newest job's
result, and tells a superseded job to stop. No sleeps: jobs wait on events the test sets, and
the test waits for signals (generous timeouts: a loaded machine is slow, never wrong)."""
from __future__ import annotations

import threading

import pytest

from app.widgets.worker import Worker

TIMEOUT_MS = 20_000


@pytest.fixture
def worker(qapp):
    w = Worker()
    yield w
    w.cancel()
    w.wait(TIMEOUT_MS)


def test_the_result_arrives_on_the_gui_thread(qtbot, worker):
    gui = threading.get_ident()
    ran_on: list[int] = []
    received_on: list[int] = []
    worker.finished.connect(lambda result: received_on.append(threading.get_ident()))
    with qtbot.waitSignal(worker.finished, timeout=TIMEOUT_MS) as blocker:
        worker.start(lambda progress: ran_on.append(threading.get_ident()) or 42)
    assert blocker.args == [42]
    assert ran_on and ran_on[0] != gui          # the job ran elsewhere …
    assert received_on == [gui]                 # … its result is handled here
    assert not worker.busy


def test_progress_is_reported_in_order(qtbot, worker):
    fractions: list[float] = []
    worker.progressed.connect(fractions.append)

    def job(progress):
        for step in range(1, 11):
            assert progress(step / 10) is True
        return "done"

    with qtbot.waitSignal(worker.finished, timeout=TIMEOUT_MS):
        worker.start(job)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) == 10


def test_a_new_job_stops_the_one_before_and_only_the_newest_result_arrives(qtbot, worker):
    started, release = threading.Event(), threading.Event()
    told_to_stop: list[bool] = []
    results: list[object] = []
    worker.finished.connect(results.append)

    def slow(progress):
        started.set()
        release.wait(TIMEOUT_MS / 1000)
        told_to_stop.append(progress(0.5) is False)     # what a core function checks between chunks
        return "stale"

    worker.start(slow)
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(worker.finished, timeout=TIMEOUT_MS) as blocker:
        worker.start(lambda progress: "fresh")
        release.set()
    assert blocker.args == ["fresh"]
    assert worker.wait(TIMEOUT_MS)
    qtbot.waitUntil(lambda: told_to_stop == [True], timeout=TIMEOUT_MS)
    assert results == ["fresh"]


def test_a_job_that_ignores_the_stop_is_still_dropped(qtbot, worker):
    """The generation counter, not the job's good manners, keeps a stale result out."""
    started, release = threading.Event(), threading.Event()
    results: list[object] = []
    worker.finished.connect(results.append)

    def stubborn(progress):
        started.set()
        release.wait(TIMEOUT_MS / 1000)
        return "stale"                                 # never asks whether to go on

    worker.start(stubborn)
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    worker.cancel()
    assert not worker.busy
    release.set()
    assert worker.wait(TIMEOUT_MS)
    with qtbot.waitSignal(worker.finished, timeout=TIMEOUT_MS):
        worker.start(lambda progress: "next")          # the queued "stale" is delivered before this one
    assert results == ["next"]


def test_an_error_is_reported_not_lost(qtbot, worker):
    def broken(progress):
        raise ValueError("no such cell")

    with qtbot.waitSignal(worker.failed, timeout=TIMEOUT_MS) as blocker:
        worker.start(broken)
    assert blocker.args == ["ValueError: no such cell"]
    assert not worker.busy


def test_closing_stops_the_running_job(qtbot, worker):
    started, release = threading.Event(), threading.Event()
    told_to_stop: list[bool] = []

    def slow(progress):
        started.set()
        release.wait(TIMEOUT_MS / 1000)
        told_to_stop.append(progress(0.5) is False)

    worker.start(slow)
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    worker.close()
    release.set()
    assert worker.wait(TIMEOUT_MS)
    assert told_to_stop == [True] and not worker.busy


def test_cancel_says_so_once_and_only_for_a_running_job(qtbot, worker):
    started, release = threading.Event(), threading.Event()
    cancelled: list[bool] = []
    worker.cancelled.connect(lambda: cancelled.append(True))
    worker.cancel()                                       # nothing runs: nothing to say
    assert cancelled == []

    def slow(progress):
        started.set()
        release.wait(TIMEOUT_MS / 1000)
        return progress(1.0)

    worker.start(slow)
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    worker.cancel()
    assert cancelled == [True] and not worker.is_running()
    release.set()
    assert worker.wait(TIMEOUT_MS)


def test_a_worker_destroyed_with_its_owner_stops_its_job(qtbot, qapp):
    from PySide6.QtCore import QObject
    owner = QObject()
    worker = Worker(owner)
    started = threading.Event()
    told_to_stop: list[bool] = []

    def endless(progress):
        started.set()
        while progress(0.5):
            threading.Event().wait(0.001)
        told_to_stop.append(True)

    worker.start(endless)
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT_MS)
    owner.deleteLater()
    qtbot.waitUntil(lambda: told_to_stop == [True], timeout=TIMEOUT_MS)


def test_settle_waits_until_every_worker_is_done_and_its_result_shown(qtbot, qapp):
    from app.widgets import worker as workers
    first, second = Worker(), Worker()
    results: list[str] = []
    first.finished.connect(results.append)
    second.finished.connect(results.append)

    def later(text):
        def job(progress):
            for step in range(20):
                progress(step / 20)
                threading.Event().wait(0.005)
            return text
        return job

    first.start(later("first"))
    second.start(later("second"))
    assert workers.settle(qapp)
    assert sorted(results) == ["first", "second"] and not first.busy and not second.busy


def test_the_work_bar_shows_a_job_and_cancels_it(qtbot, worker):
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from app.widgets.work_bar import WorkBar
    from tests.app.helpers import show
    page = QWidget()
    bar = WorkBar("testWork", worker, report=True)
    QVBoxLayout(page).addWidget(bar)
    show(qtbot, page, 500, 80)
    assert not bar.isVisible()                            # hidden while no job runs
    started = threading.Event()

    def endless(progress):
        started.set()
        while progress(0.25):
            threading.Event().wait(0.001)

    worker.start(endless)
    bar.running("Counting…")
    assert bar.isVisible() and bar.label.text() == "Counting…" and bar.cancel_button.isVisible()
    qtbot.waitUntil(lambda: bar.bar.value() == 250, timeout=TIMEOUT_MS)
    bar.cancel_button.click()
    assert not worker.is_running() and not bar.bar.isVisible() and "Cancelled" in bar.label.text()
    assert worker.wait(TIMEOUT_MS)


def test_a_job_that_ends_after_its_worker_went_tells_nobody_and_raises_nothing(qapp):
    """The soak (seed 3, action 6): a job ended between its last progress() and its report while its
    worker was being deleted, and the report raised "Signal source has been deleted" in the pool
    thread. The worker's going sets `closing` before its relay is deleted; the report is dropped."""
    import shiboken6

    from app.widgets.worker import _Relay, _Run

    for ending in ("done", "failed", "progress"):
        relay, closing = _Relay(), threading.Event()

        def job(progress, ending=ending, relay=relay, closing=closing):
            assert progress(0.5)
            closing.set()                   # meanwhile the worker goes: its destroyed signal,
            shiboken6.delete(relay)         # then its relay with it
            if ending == "failed":
                raise ValueError("too late")
            if ending == "progress":
                assert progress(1.0) is False   # a job still running is told to stop
            return 42

        _Run(job, 1, relay, threading.Event(), closing)._run()      # ends without raising
