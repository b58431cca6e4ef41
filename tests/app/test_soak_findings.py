"""What `tools/soak.py` found, each reproduced by the smallest test that shows it."""
from __future__ import annotations

import pytest

from tests.app.helpers import show


def test_a_wide_ffn_costs_no_number_items_in_the_hidden_unit_maps(qtbot, session):
    """Soak, seed 1: typing 300 into d_ff left 3 × T × 300 hidden pg.TextItems in the hidden-unit
    maps (numbers are shown only up to 16 units), kept for good: +580 MB and 36 s per action
    after a few such edits. Items are made only for numbers that may be shown."""
    from app.explorer.plots.hidden import HiddenUnitsTab
    tab = show(qtbot, HiddenUnitsTab(session), 700, 400)
    before = [len(heatmap.numbers.items) for heatmap in tab.maps.values()]
    assert session.set_config(d_ff=300)
    tab.refresh()
    assert [len(heatmap.numbers.items) for heatmap in tab.maps.values()] == before
    assert session.set_config(d_ff=8)            # numbered again: every cell has its number
    tab.refresh()
    T = len(session.tokens)
    shown = next(iter(tab.maps.values())).numbers.shown_items()
    assert len(shown) in (0, T * 8)
    positions = {(round(item.pos().x(), 2), round(item.pos().y(), 2)) for item in shown}
    assert len(positions) == len(shown)           # each on its own cell


def test_a_hidden_ffn_page_survives_a_language_change_after_attention_went_off(qtbot):
    """Soak, seed 1 (action 477): the FFN page, hidden, had not heard that the open block lost its
    attention; a language change refreshed its shuffle demo on the session's block, and
    `shuffle_demo` raised (then PySide6 crashed in the event filters). A hidden part now only marks
    itself stale, and the demo source never runs on a block without attention."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.labs.ffn_page import FfnPagePanel
    from app.session import Session
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario
    session = Session(load_scenario(default_scenario()))
    panel = show(qtbot, FfnPagePanel(session), 880, 650)
    panel.set_focus("shuffle")
    panel.hide()
    assert session.set_config(attention=False)
    for part in (panel.shuffle, panel.misconceptions):
        QCoreApplication.sendEvent(part, QEvent(QEvent.Type.LanguageChange))
    assert panel.source.shuffle_result() is not None
    panel.show()
    qtbot.waitExposed(panel)
    assert not panel.source.from_session
    panel.close()


@pytest.mark.answers_its_dialogs                # a timer closes each real popup menu
def test_menus_made_for_one_use_are_deleted(qtbot, session):
    """Soak: each click on the weight editor's File button (and each right-click on the inspector,
    the editor's table or a plot) made a new QMenu child with three actions and their slots, kept
    as long as the window: hundreds after some thousand actions. Each is deleted after use."""
    from PySide6.QtCore import QCoreApplication, QEvent, QTimer
    from PySide6.QtWidgets import QApplication, QMenu

    from app.explorer.weights_editor import WeightEditor
    editor = show(qtbot, WeightEditor(session), 600, 500)

    def close_popup():
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()

    closer = QTimer()
    closer.timeout.connect(close_popup)
    closer.start(10)
    before = len(editor.findChildren(QMenu))
    for _ in range(5):
        editor.tensor_actions.file_button.click()
    closer.stop()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert len(editor.findChildren(QMenu)) == before
    editor.close()


def test_a_slider_drag_keeps_no_merged_undo_steps(session, clock):
    """Soak: +470 `_CellsCommand` between the checkpoints, though opening a file clears the undo
    stack. QUndoStack.push deletes a command it merges, but PySide keeps the dead wrapper as a
    Python child of the stack (with its arrays) for the Session's life. The Session merges a drag's
    steps itself now: one live command per undo step, none after a load."""
    import gc

    from app.session import _CellsCommand
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario

    def commands() -> int:
        gc.collect()
        return sum(isinstance(o, _CellsCommand) and o._session() is session for o in gc.get_objects())

    cell = (0,) * session.tensor("W_in").ndim
    for step in range(20):                       # one drag: twenty values, one undo step
        assert session.set_value("W_in", cell, step / 10, merge=True)
    assert session.undo_stack.count() == 1 and commands() == 1
    assert session.undo_stack.undoText().endswith("1.9")
    session.undo_stack.undo()
    assert session.tensor("W_in")[cell] != 1.9
    session.undo_stack.redo()
    assert session.tensor("W_in")[cell] == 1.9
    session.load(load_scenario(default_scenario()))
    assert commands() == 0


def test_a_hidden_xor_lab_survives_a_language_change_on_a_block_without_targets(qtbot):
    """Soak, seed 2: the XOR lab, hidden after another file (with no targets) was opened, rewrote its
    table's glosses on a language change from the Session's block and raised (TypeError on
    `targets[row, 0]`); PySide 6.11 then crashed storing the error (a segfault in
    storePythonOverrideErrorOrPrint). A hidden overview now rewrites its glosses when shown."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.labs.xor import XorLabPanel
    from app.session import Session
    from core.formats.scenario import load_scenario
    from core.resources import scenarios_dir
    session = Session(load_scenario(scenarios_dir() / "c4-xor.json"))
    panel = show(qtbot, XorLabPanel(session), 880, 650)
    panel.hide()
    session.load(load_scenario(scenarios_dir() / "gen-gpt2.json"))
    assert session.state.targets is None
    QCoreApplication.sendEvent(panel.overview, QEvent(QEvent.Type.LanguageChange))
    session.load(load_scenario(scenarios_dir() / "c4-xor.json"))
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.overview.table.rowCount() == len(session.tokens)
    panel.close()


def test_a_finished_background_job_is_freed(qtbot):
    """Soak: +20 model-lab jobs (each with its thread events and its work's closure) stayed alive
    between the checkpoints: the lab's own job class was held by lambdas connected to its signals.
    The labs now run on the shared Worker; a finished job leaves nothing of itself behind."""
    import gc

    from app.widgets.worker import Worker, _Run

    class Payload:                        # what a job's closure holds (a model's arrays)
        pass

    def alive(kind) -> int:
        gc.collect()
        return sum(type(o) is kind for o in gc.get_objects())

    worker, results = Worker(), []
    worker.finished.connect(results.append)
    before_runs, before_payloads = alive(_Run), alive(Payload)
    for n in range(3):
        payload = Payload()
        worker.start(lambda progress, n=n, payload=payload: n)
        del payload
        qtbot.waitUntil(lambda: len(results) == n + 1)
    assert results == [0, 1, 2]
    qtbot.waitUntil(lambda: not worker.is_running())
    # The result arrives (a queued signal) before the pool thread has let go of the job: wait for
    # the pool. (A job used to be a QRunnable subclass, and PySide's pool kept a reference to
    # each one it had run until a deferred delete that only a running event loop delivers: two
    # of the three were still alive here. The pool now runs a plain callable.)
    assert worker.wait(5000)
    assert alive(_Run) == before_runs and alive(Payload) == before_payloads
    worker.close()
