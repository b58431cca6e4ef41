"""The exception hook (app/launch.py): every error logged with its traceback, at most one dialog
at a time, and the application usable after the dialog is closed.

PySide6 hands an error raised in a paintEvent or a timer callback to sys.excepthook and carries
on; these tests install the hook there (pytest-qt's own capture is off for them) and replace the
modal QMessageBox.exec with one that lets the event loop run for a moment, as a real modal does.
"""
import sys

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QMessageBox, QSpinBox

from app.launch import ExceptionHook

pytestmark = pytest.mark.qt_no_exception_capture

TRACEBACK = "Traceback (most recent call last)"


@pytest.fixture
def hook(monkeypatch, tmp_path):
    hook = ExceptionHook(tmp_path / "blocklab.log")
    monkeypatch.setattr(sys, "excepthook", hook)
    return hook


@pytest.fixture
def dialogs(monkeypatch, qtbot):
    """The error dialogs opened, each a record of what it said (QMessageBox.exec replaced)."""
    opened = []

    def modal(box):
        record = {"name": box.objectName(), "title": box.windowTitle(), "text": box.text(),
                  "details": box.detailedText()}
        opened.append(record)
        qtbot.wait(80)                       # the application keeps running under a modal dialog
        record["informative"] = box.informativeText()
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "exec", modal)
    return opened


def logged(hook: ExceptionHook) -> str:
    return hook.log_path.read_text(encoding="utf-8")


class BrokenLabel(QLabel):
    """A label whose painting raises, once armed."""

    def __init__(self, text: str):
        super().__init__(text)
        self.armed = False
        self.failures = 0

    def paintEvent(self, event) -> None:  # noqa: N802
        if self.armed:
            self.failures += 1
            raise RuntimeError(f"a bug while painting ({self.failures})")
        super().paintEvent(event)


def test_an_error_on_every_paint_opens_one_dialog_and_the_window_carries_on(blocklab_window, hook, dialogs, qtbot):
    lab = blocklab_window
    broken = BrokenLabel("status")
    lab.window.statusBar().addPermanentWidget(broken)
    qtbot.waitUntil(broken.isVisible)
    broken.armed = True
    broken.update()
    qtbot.waitUntil(lambda: len(dialogs) == 1)
    for _ in range(3):                             # painted again after the dialog was closed
        broken.update()
        qtbot.wait(20)

    assert len(dialogs) == 1
    dialog = dialogs[0]
    assert dialog["name"] == "errorDialog" and dialog["title"] == "Block Lab hit a bug"
    assert str(hook.log_path) in dialog["text"]
    assert "a bug while painting (1)" in dialog["details"] and "paintEvent" in dialog["details"]
    assert broken.failures >= 4
    assert hook.errors == broken.failures and hook.unshown == broken.failures - 1
    log = logged(hook)
    assert log.count(TRACEBACK) == broken.failures                  # every error, with its traceback
    for n in range(1, broken.failures + 1):
        assert f"RuntimeError: a bug while painting ({n})" in log

    # The window still works: an edit goes through and the block is drawn again with it.
    broken.armed = False
    before = lab.window.dataflow.grab().toImage()
    assert lab.set_weight("W_in", (0, 0), "-3")
    assert lab.trace("mlp.hook_pre")[0, 0] < 0
    assert lab.window.dataflow.grab().toImage() != before
    lab.undo()
    assert lab.tensor("W_in")[0, 0] == 1.0


def test_errors_in_timers_open_one_dialog_and_are_all_logged(hook, dialogs, qtbot):
    box = QSpinBox()
    qtbot.addWidget(box)
    box.show()
    qtbot.waitExposed(box)
    raised = {"tick": 0, "refresh": 0}
    while_open = []

    def broken(name):
        def callback():
            raised[name] += 1
            while_open.append(hook.dialog is not None)
            raise ValueError(f"a bug in the {name} timer")
        return callback

    timers = []
    for name, interval in (("tick", 5), ("refresh", 7)):
        timer = QTimer()
        timer.timeout.connect(broken(name))
        timer.start(interval)
        timers.append(timer)
    qtbot.waitUntil(lambda: len(dialogs) == 1 and min(raised.values()) >= 3)
    qtbot.wait(40)                                  # both keep failing after the dialog is closed
    for timer in timers:
        timer.stop()

    total = sum(raised.values())
    assert len(dialogs) == 1                        # one dialog for the whole burst
    assert "ValueError: a bug in the" in dialogs[0]["details"]
    counted_while_open = sum(while_open)
    assert counted_while_open >= 1
    assert f"opened: {counted_while_open} " in dialogs[0]["informative"]
    assert hook.errors == total and hook.unshown == total - 1
    log = logged(hook)
    assert log.count(TRACEBACK) == total
    assert log.count("ValueError: a bug in the tick timer") == raised["tick"]
    assert log.count("ValueError: a bug in the refresh timer") == raised["refresh"]

    box.setFocus()                                  # the application still takes input
    box.selectAll()
    qtbot.keyClicks(box, "42")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == 42


def report(hook: ExceptionHook, error: Exception) -> None:
    try:
        raise error
    except Exception as caught:
        hook(type(caught), caught, caught.__traceback__)


def test_a_new_bug_after_the_dialog_was_closed_gets_its_own_dialog(hook, dialogs):
    report(hook, KeyError("the first bug"))
    try:
        raise IndexError("another bug, on another line")
    except IndexError as error:
        hook(type(error), error, error.__traceback__)
    assert len(dialogs) == 2
    assert "KeyError: 'the first bug'" in dialogs[0]["details"] and "IndexError" not in dialogs[0]["details"]
    assert "IndexError: another bug, on another line" in dialogs[1]["details"]
    assert hook.errors == 2 and hook.unshown == 0


def test_the_log_path_defaults_to_the_users_log_and_a_long_log_is_rotated(monkeypatch, tmp_path, dialogs):
    import app.launch as launch
    monkeypatch.setattr(launch, "LOG_PATH", tmp_path / "home" / "blocklab.log")
    monkeypatch.setattr(launch, "LOG_LIMIT", 200)
    hook = ExceptionHook()
    assert hook.log_path == tmp_path / "home" / "blocklab.log"
    for n in range(3):
        report(hook, RuntimeError(f"bug {n}"))
    assert len(dialogs) == 1                        # the same line raised three times: shown once
    current, old = hook.log_path, tmp_path / "home" / "blocklab.log.1"
    assert "bug 2" in current.read_text(encoding="utf-8") and "bug 1" in old.read_text(encoding="utf-8")
