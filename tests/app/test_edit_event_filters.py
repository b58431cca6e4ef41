"""Issue 13: the application-wide Python event filters, and the lesson caption, cost an edit as
little as they can.

Every event of the application passes through an application-wide filter, a Python call each
(about twenty per edit). The lesson keys' filter (app/lessons/keys.py) is the only one: it is
installed only while a lesson is open or presentation mode is on, and presentation mode's keys
go through it (app/presentation.py watches only its window). Counts calls, never time."""
from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimerEvent
from PySide6.QtGui import QPaintEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.lessons.keys import StepKeys
from app.presentation import PresentationController
from tests.conftest import ROOT

C4 = ROOT / "resources" / "lessons" / "c4-ffn.json"


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


class Calls:
    """Counts the Python event filter calls of classes, by what they were watching (a profile
    hook: Qt calls the filters from C++, where a patched method would not be seen)."""

    def __init__(self, window, *classes):
        self.window = window
        self.codes = {cls.eventFilter.__code__: cls.__name__ for cls in classes}
        self.counts = {(name, where): 0 for name in self.codes.values() for where in ("window", "others")}

    def __enter__(self):
        def hook(frame, what, _arg):
            if what == "call" and frame.f_code in self.codes:
                where = "window" if frame.f_locals.get("watched") is self.window else "others"
                self.counts[self.codes[frame.f_code], where] += 1
        sys.setprofile(hook)
        return self

    def __exit__(self, *_exc):
        sys.setprofile(None)

    def __getitem__(self, key):
        return self.counts[key]


def edit_three_times(lab):
    session = lab.window.session
    for value in (0.25, -0.5, 0.75):
        assert session.set_value("W_in", (0, 0), value)
        settle()


def test_without_a_lesson_an_edit_calls_no_application_wide_filter(blocklab_window):
    lab = blocklab_window
    settle()
    with Calls(lab.window, StepKeys, PresentationController) as calls:
        edit_three_times(lab)
    assert calls["StepKeys", "window"] + calls["StepKeys", "others"] == 0
    assert calls["PresentationController", "others"] == 0     # it watches its window only


def test_in_a_lesson_one_filter_watches_the_application(blocklab_open):
    lab = blocklab_open(C4)
    window = lab.window
    window.lessons.go(6)
    settle()
    with Calls(window, StepKeys, PresentationController) as calls:
        edit_three_times(lab)
    assert calls["StepKeys", "others"] > 0                    # the lesson keys' filter is on (it must be)
    assert calls["PresentationController", "others"] == 0     # and presentation mode's is not a second one
    # Its keys still work, and the lesson's keys with them, through the one filter.
    QTest.keyClick(window, Qt.Key_PageDown)
    assert window.lessons.index == 7
    window.presentation.enter(full_screen=False)
    settle()
    QTest.keyClick(window, Qt.Key_B)
    assert window.presentation.blanked
    QTest.keyClick(window, Qt.Key_PageDown)         # brings the screen back, without stepping
    assert not window.presentation.blanked and window.lessons.index == 7
    window.presentation.leave()


def test_the_lesson_keys_filter_comes_and_goes_with_the_lesson_and_presentation(blocklab_open):
    lab = blocklab_open(C4)
    window = lab.window
    filter_ = window._step_keys
    assert filter_.installed
    window.lessons.close()
    assert not filter_.installed                    # free exploration: no key of it means anything
    window.presentation.enter(full_screen=False)
    assert filter_.installed                        # B and the number keys
    QTest.keyClick(window, Qt.Key_B)
    assert window.presentation.blanked
    QTest.keyClick(window, Qt.Key_B)
    assert not window.presentation.blanked
    window.presentation.leave()
    assert not filter_.installed


@pytest.mark.parametrize("kind", ["paint", "timer"])
def test_an_event_that_is_not_a_key_press_makes_no_enum(kind, blocklab_open, monkeypatch):
    """The filter's first test is the event's class: an event that is not a key event is let go
    before its type (a Python enum, made per call) is asked."""
    lab = blocklab_open(C4)
    asked = []

    class Probe(QObject):
        pass
    event = QPaintEvent(QRect(0, 0, 1, 1)) if kind == "paint" else QTimerEvent(1)
    original_type = type(event).type
    monkeypatch.setattr(type(event), "type", lambda self: asked.append(1) or original_type(self))
    assert event.type() in (QEvent.Type.Paint, QEvent.Type.Timer)
    asked.clear()
    assert lab.window._step_keys.eventFilter(Probe(), event) is False
    assert asked == []


def test_an_edit_that_leaves_the_caption_as_it_was_lays_out_no_caption(blocklab_open, monkeypatch):
    """The caption's rich text costs a layout (0.3 ms for 236 characters) only when its text
    changed: at C4's "bias" step a W_in edit changes no number the caption shows."""
    lab = blocklab_open(C4)
    window = lab.window
    caption = window.lesson_bar.caption
    window.lessons.go(6)
    settle()
    assert window.session.set_value("W_in", (0, 0), 0.3)       # the "(your edits)" mark: once
    settle()
    texts = []
    set_text = caption.setText
    monkeypatch.setattr(caption, "setText", lambda text: texts.append(text) or set_text(text))
    shown = caption.text()
    for value in (0.55, -0.2, 0.8):
        assert window.session.set_value("W_in", (0, 0), value)
        settle()
    assert texts == [] and caption.text() == shown
    window.lessons.go(3)                                        # here the caption shows the edited numbers
    settle()
    for value in (0.55, -0.2):
        before = caption.text()
        assert window.session.set_value("W_in", (0, 0), value)
        settle()
        assert caption.text() != before and texts[-1] == caption.text()
