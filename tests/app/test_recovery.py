"""Autosave and restore: the recovery slot written after a pause in editing, emptied when the
work is saved or undone, gone after a clean exit; a slot left by a process that died is offered
at the next start and brings the work back. One test kills a real Block Lab with SIGKILL."""
from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from PySide6.QtCore import QLockFile

from app import document as files
from app.recovery import LOCK, MANIFEST, Autosave, find_recovered, recovery_folder
from core.formats.generate import preset
from core.formats.scenario import load_scenario
from core.resources import lessons_dir
from tests.app.fake_window import fake_window
from tests.conftest import ROOT, SCENARIOS

C4_LESSON = lessons_dir() / "c4-ffn.json"
CHILD_TIMEOUT_S = 120          # a child process that does not answer fails the test, never hangs it


@pytest.fixture
def slots(tmp_path, monkeypatch):
    """This test's own recovery folder (XDG_DATA_HOME/blocklab/recovery)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = recovery_folder()
    assert folder == tmp_path / "data" / "blocklab" / "recovery"
    return folder


@pytest.fixture
def answers(monkeypatch):
    """The restore question answered Restore (a test may flip it), and what was asked."""
    asked = {"restore": True, "questions": [], "warnings": []}

    def ask_restore(parent, name, saved_at):
        asked["questions"].append((name, saved_at))
        return asked["restore"]

    monkeypatch.setattr(files, "ask_restore", ask_restore)
    monkeypatch.setattr(files, "warn", lambda parent, title, text: asked["warnings"].append(text))
    return asked


def crash(window) -> None:
    """What a crash leaves: the slot's files, and a lock nobody holds any more (QLockFile finds the
    lock of a dead process stale; here the lock file simply goes)."""
    autosave = window.document.autosave
    autosave.timer.stop()
    lock, autosave.slot, autosave._lock = autosave._lock, None, None
    lock.unlock()


def only_slot(folder):
    found = [p for p in folder.iterdir() if p.is_dir()]
    assert len(found) == 1, found
    return found[0]


def test_autosave_waits_for_a_pause_then_keeps_one_generation(qtbot, slots):
    window = fake_window(qtbot)
    autosave = window.document.autosave
    assert autosave.timer.isSingleShot() and autosave.timer.interval() == Autosave.DELAY_MS == 2000
    window.session.set_value("W_in", (0, 0), 2.5)
    assert autosave.timer.isActive() and not slots.exists()          # nothing written mid-edit
    autosave.timer.timeout.emit()                                     # the pause has come
    slot = only_slot(slots)
    manifest = json.loads((slot / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["path"] == str(SCENARIOS / "block-default.json") and manifest["lesson"] is None
    assert load_scenario(slot / manifest["state"]).weights["W_in"][0, 0] == 2.5
    window.session.set_value("W_in", (0, 1), -1.0)
    autosave.flush()
    manifest = json.loads((slot / MANIFEST).read_text(encoding="utf-8"))
    assert sorted(p.name for p in slot.iterdir()) == sorted([LOCK, MANIFEST, manifest["state"]])
    assert load_scenario(slot / manifest["state"]).weights["W_in"][0, 1] == -1.0
    # undone back to the file: nothing unsaved, nothing kept
    window.session.undo_stack.undo()
    window.session.undo_stack.undo()
    assert sorted(p.name for p in slot.iterdir()) == [LOCK]
    # a clean exit removes the slot
    window.session.set_value("W_in", (0, 0), 3.0)
    autosave.flush()
    window.show()
    assert window.close()
    assert not slot.exists()


def test_a_save_empties_the_slot(qtbot, slots, tmp_path, monkeypatch):
    window = fake_window(qtbot)
    window.session.set_value("W_in", (0, 0), 2.5)
    window.document.autosave.flush()
    slot = only_slot(slots)
    monkeypatch.setattr(files, "choose_save_path", lambda parent, suggestion: tmp_path / "mine.json")
    assert window.document.save()
    assert sorted(p.name for p in slot.iterdir()) == [LOCK]


def test_a_running_block_labs_slot_is_never_offered(qtbot, slots, answers):
    first = fake_window(qtbot)
    first.session.set_value("W_in", (0, 0), 2.5)
    first.document.autosave.flush()
    assert find_recovered(slots) == []                  # its lock is held: a live process
    second = fake_window(qtbot)
    assert not second.document.offer_recovery()
    assert answers["questions"] == []


def test_restore_brings_back_the_work_on_its_file(qtbot, slots, answers, tmp_path):
    own = tmp_path / "xor.json"
    shutil.copy(SCENARIOS / "c4-xor.json", own)
    before = fake_window(qtbot, "c4-xor.json", path=own)
    before.session.set_value("W_in", (0, 1), 0.75)
    before.session.set_config(activation="silu")
    before.document.autosave.flush()
    crash(before)
    after = fake_window(qtbot)                          # the next start, on the default block
    assert after.document.offer_recovery()
    assert answers["questions"][0][0] == "xor.json"
    assert after.path == own and after.isWindowModified()
    assert after.session.config.activation == "silu" and after.session.tensor("W_in")[0, 1] == 0.75
    assert after.session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    # the old slot is gone; the work is already kept in this process's own slot
    slot = only_slot(slots)
    assert slot == after.document.autosave.slot and (slot / MANIFEST).exists()
    after.session.undo_stack.undo()                     # one step back: the file as it was
    assert after.session.config.activation == "relu" and not after.isWindowModified()


def test_restore_of_a_new_block_keeps_what_reset_goes_back_to(qtbot, slots, answers, monkeypatch):
    before = fake_window(qtbot, "c4-xor.json")
    monkeypatch.setattr(files, "ask_unsaved", lambda *args: files.Answer.DISCARD)
    before.document.new()
    before.session.set_value("inputs", (0, 0), 9.0)
    before.document.autosave.flush()
    crash(before)
    after = fake_window(qtbot, "c4-xor.json")
    assert after.document.offer_recovery()
    assert after.path is None and after.session.tensor("inputs")[0, 0] == 9.0
    after.session.reset_all()
    assert after.session.tensor("inputs")[0, 0] == load_scenario(SCENARIOS / "block-default.json").inputs[0, 0]


def test_restore_brings_back_a_lesson_its_step_and_its_other_edited_steps(qtbot, slots, answers):
    before = fake_window(qtbot)
    assert before.document.open_lesson(C4_LESSON, 1)
    before.session.set_value("W_in", (0, 0), 1.25)       # step 2, edited and left
    before.lessons.go(3)
    before.session.set_value("W_in", (0, 0), -0.5)       # step 4, edited: the one on show
    before.document.autosave.flush()
    crash(before)
    after = fake_window(qtbot)
    assert after.document.offer_recovery()
    assert answers["questions"][0][0] == "c4-ffn.json"
    assert after.lessons.lesson is not None and after.lessons.lesson.path == C4_LESSON
    assert after.lessons.index == 3 and after.session.tensor("W_in")[0, 0] == -0.5
    assert after.isWindowModified() and after.lessons.is_edited()
    after.lessons.go(1)
    assert after.session.tensor("W_in")[0, 0] == 1.25   # the other step's edits came back too


def test_discard_removes_the_work_and_changes_nothing(qtbot, slots, answers):
    before = fake_window(qtbot)
    before.session.set_value("W_in", (0, 0), 2.5)
    before.document.autosave.flush()
    crash(before)
    answers["restore"] = False
    after = fake_window(qtbot, "c4-xor.json")
    assert not after.document.offer_recovery()
    assert after.session.tokens == ("好吃", "不好吃", "难吃", "不难吃") and not after.isWindowModified()
    assert list(slots.iterdir()) == []
    assert not after.document.offer_recovery() and len(answers["questions"]) == 1    # asked once only


def test_a_damaged_slot_is_said_and_dropped(qtbot, slots, answers):
    before = fake_window(qtbot)
    before.session.set_value("W_in", (0, 0), 2.5)
    before.document.autosave.flush()
    slot = before.document.autosave.slot
    crash(before)
    manifest = json.loads((slot / MANIFEST).read_text(encoding="utf-8"))
    (slot / manifest["state"]).write_text('{"format": "blocklab-scenario", "version": 1}')
    after = fake_window(qtbot, "c4-xor.json")
    assert not after.document.offer_recovery()
    assert "could not be read back" in answers["warnings"][0]
    assert after.session.tokens[0] == "好吃" and not slot.exists()
    # a slot without a manifest (a process that died before its first autosave) is removed quietly
    (slots / "123-dead").mkdir()
    assert find_recovered(slots) == [] and not (slots / "123-dead").exists()


def test_a_big_block_autosaves_in_the_sidecar_form(qtbot, slots):
    from app.session import Session
    from tests.app.fake_window import FakeWindow
    window = FakeWindow(Session(preset("d256")), None)
    qtbot.addWidget(window)
    window.session.set_value("W_in", (3, 7), 0.5)
    window.document.autosave.flush()
    slot = only_slot(slots)
    manifest = json.loads((slot / MANIFEST).read_text(encoding="utf-8"))
    state = slot / manifest["state"]
    assert state.with_suffix(".npz").exists() and state.stat().st_size < 10_000
    assert load_scenario(state).weights["W_in"][3, 7] == 0.5


def test_an_autosave_that_cannot_be_written_says_so_once(qtbot, slots, monkeypatch):
    slots.parent.mkdir(parents=True)
    slots.write_text("a file where the folder should be")
    window = fake_window(qtbot)
    messages = []
    window.session.message.connect(messages.append)
    window.session.set_value("W_in", (0, 0), 2.5)
    assert not window.document.autosave.write()
    window.session.set_value("W_in", (0, 0), 3.5)
    assert not window.document.autosave.write()
    assert len([m for m in messages if m.startswith("Autosave failed")]) == 1
    assert window.session.tensor("W_in")[0, 0] == 3.5       # the work itself is untouched


def test_the_slot_lock_is_stale_once_its_process_is_killed(tmp_path):
    """QLockFile's stale-lock rule, the one restore relies on, with a real killed process."""
    lock_path = tmp_path / LOCK
    code = ("import sys, time\nfrom PySide6.QtCore import QLockFile\nlock = QLockFile(sys.argv[1])\n"
            "lock.setStaleLockTime(0)\nassert lock.tryLock(0)\nprint('locked', flush=True)\ntime.sleep(600)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(lock_path)], stdout=subprocess.PIPE, text=True)
    try:
        # readline() would wait forever for a child that neither prints nor exits
        ready, _, _ = select.select([holder.stdout], [], [], CHILD_TIMEOUT_S)
        assert ready, f"the lock holder said nothing within {CHILD_TIMEOUT_S} s"
        assert holder.stdout.readline().strip() == "locked"
        lock = QLockFile(str(lock_path))
        lock.setStaleLockTime(0)
        assert not lock.tryLock(0)                           # alive: not ours to take
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(CHILD_TIMEOUT_S)
    assert lock.tryLock(0)                                   # killed: stale, taken
    lock.unlock()


# --- the real thing ----------------------------------------------------------------------------

def test_work_survives_a_kill(blocklab_open, tmp_path, monkeypatch, answers):
    """Start Block Lab (`python main.py open FILE`, offscreen, its own HOME), let it apply two
    edits and autosave them, SIGKILL it; the next start offers the work back, numbers and all."""
    home = tmp_path / "home"
    config, data = home / ".config", home / ".local" / "share"
    own = tmp_path / "work" / "xor.json"
    own.parent.mkdir()
    shutil.copy(SCENARIOS / "c4-xor.json", own)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(config), "XDG_DATA_HOME": str(data),
           "QT_QPA_PLATFORM": "offscreen",
           "BLOCKLAB_TEST_EDITS": json.dumps([["W_in", [0, 1], 2.75], ["b_out", [0], -0.125]])}
    log = (tmp_path / "app.log").open("w")
    app = subprocess.Popen([sys.executable, str(ROOT / "main.py"), "--lang", "en", "open", str(own)],
                           cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    slots = data / "blocklab" / "recovery"
    try:
        manifest = None
        for _ in range(1200):                  # up to 2 minutes on a loaded machine; ~3 s is usual
            manifests = list(slots.glob(f"*/{MANIFEST}")) if slots.exists() else []
            if manifests:
                manifest = json.loads(manifests[0].read_text(encoding="utf-8"))
                break
            assert app.poll() is None, (tmp_path / "app.log").read_text()
            time.sleep(0.1)
        assert manifest is not None, "no autosave within 2 minutes"
        assert manifest["pid"] == app.pid
    finally:
        app.send_signal(signal.SIGKILL)
        app.wait(CHILD_TIMEOUT_S)
        log.close()
    assert app.returncode == -signal.SIGKILL
    (slot,) = [p for p in slots.iterdir() if p.is_dir()]
    assert (slot / LOCK).exists()                          # left behind: nobody released it
    # the next start, with the same user folders
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    lab = blocklab_open(SCENARIOS / "block-default.json")
    assert lab.window.document.offer_recovery()
    assert answers["questions"] and answers["questions"][0][0] == "xor.json"
    assert lab.tensor("W_in")[0, 1] == 2.75 and lab.tensor("b_out")[0] == -0.125
    assert lab.session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert lab.window.path == own and lab.window.isWindowModified()
    assert "[*]" in lab.window.windowTitle() and "xor.json" in lab.window.windowTitle()
    assert np.array_equal(lab.trace("hook_resid_pre"), lab.session.state.inputs)
    assert not slot.exists()                               # the killed process's slot is gone
    lab.undo()
    assert lab.tensor("W_in")[0, 1] == load_scenario(own).weights["W_in"][0, 1]
