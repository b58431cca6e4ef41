"""Small helpers shared by the app tests: a fake clock and a Session without any window."""
from __future__ import annotations

from tests.conftest import SCENARIOS


class FakeClock:
    """A clock (in seconds) that moves only when the test moves it: undo merging never
    depends on how fast a loaded machine runs the test."""

    def __init__(self, start: float = 1000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_session(name: str = "block-default.json", clock=None):
    """A Session on a shipped scenario, with a fake clock (a QApplication must exist: `qapp`)."""
    from app.session import Session
    from core.formats.scenario import load_scenario
    return Session(load_scenario(SCENARIOS / name), clock=clock or FakeClock())


def show(qtbot, widget, width: int, height: int):
    """Register, size and show one widget offscreen, as the window would."""
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def settle(condition, turns: int = 100) -> None:
    """Let Qt deliver what is posted (zero-interval timers, a delegate's commit, a language
    change) until `condition()` holds. Counted in event-loop turns, never in seconds, so a
    loaded machine is slower but never fails."""
    from PySide6.QtCore import QCoreApplication
    for _ in range(turns):
        if condition():
            return
        QCoreApplication.processEvents()
    assert condition(), f"still not true after {turns} event-loop turns"


def count_calls(monkeypatch, cls, name: str) -> list:
    """Every call of `cls.name` from now on, as the list of the objects it was called on."""
    calls = []
    plain = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(self)
        return plain(self, *args, **kwargs)
    monkeypatch.setattr(cls, name, counted)
    return calls
