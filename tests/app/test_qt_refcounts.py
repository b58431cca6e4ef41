"""Guard against the PySide6 build that mis-counts references to None and True.

PySide6-Essentials 6.12.0 on CPython 3.11 takes one reference off True on every
Signal.emit() and one off None on every void call; the app then aborts ("bool_dealloc")
after a few minutes of use. pyproject.toml excludes it; this test fails if such a build
is installed anyway.
"""
import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    changed = Signal()


def test_signals_and_void_calls_keep_none_and_true_alive(qapp):
    emitter = _Emitter()
    true_before, none_before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(200):
        emitter.changed.emit()
        emitter.setObjectName("probe")
    assert sys.getrefcount(True) >= true_before - 20
    assert sys.getrefcount(None) >= none_before - 20
