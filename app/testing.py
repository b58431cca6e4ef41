"""Testing Block Lab's GUI: a driver, and the `blocklab_window` / `blocklab_open` fixtures.

Installing the package registers the fixtures with pytest (entry point `pytest11` → the small
top-level module `pytest_blocklab`, which imports this one only when a test uses them), so a
tester writes:

    def test_relu_zeroes_a_negative_unit(blocklab_window):
        lab = blocklab_window                      # the default block, offscreen
        lab.pick_activation("relu")
        lab.set_weight("W_in", (0, 0), "-3")
        assert lab.trace("mlp.hook_pre")[0, 0] < 0 and lab.trace("mlp.hook_post")[0, 0] == 0

Every helper acts the way a user does (types into the weight table, picks from the
combo box, presses keys) and reads what the user would see.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from core.resources import scenarios_dir

SCENARIOS = scenarios_dir()


class BlockLabDriver:
    def __init__(self, qtbot, window):
        self.qtbot = qtbot
        self.window = window
        self.session = window.session

    # --- doing --------------------------------------------------------------------------
    def open(self, path: str | os.PathLike) -> bool:
        """Open a scenario as File → Open would (False and a message if it is refused)."""
        from app import document
        original = document.warn
        document.warn = lambda *args, **kwargs: None          # no modal dialog in tests
        try:
            return self.window.open_file(Path(path))
        finally:
            document.warn = original

    def show_tensor(self, name: str, head: int = 0) -> None:
        """Choose a tensor (and head) in the weight editor, as a user would from the combo box."""
        editor = self.window.weight_editor
        combo = editor.tensor_combo
        position = combo.findData(name)
        if position < 0:
            raise KeyError(f"the weight editor lists no tensor {name!r}")
        combo.setCurrentIndex(position)
        if self.session.tensor(name).ndim == 3:
            editor.head_selector.setCurrentIndex(head)

    def set_weight(self, name: str, index: tuple[int, ...], text: str | float) -> bool:
        """Type `text` into one cell of a tensor ("inputs", a weight name or "targets")."""
        index = tuple(index)
        head = index[0] if len(index) == 3 else 0
        self.show_tensor(name, head)
        editor = self.window.weight_editor
        row, column = editor.model.table_position(index)
        cell = editor.model.index(row, column)
        editor.table.setCurrentIndex(cell)
        return bool(editor.model.setData(cell, str(text)))

    def pick(self, object_name: str, value: str) -> None:
        """Pick the item whose data is `value` in the combo box called `object_name`."""
        from PySide6.QtWidgets import QComboBox
        combo = self.window.findChild(QComboBox, object_name)
        position = combo.findData(value)
        if position < 0:
            raise KeyError(f"{object_name} has no option {value!r}")
        combo.setCurrentIndex(position)

    def pick_activation(self, name: str) -> None:
        self.pick("configActivation", name)

    def toggle(self, object_name: str, on: bool) -> None:
        from PySide6.QtWidgets import QCheckBox
        box = self.window.findChild(QCheckBox, object_name)
        if box.isChecked() != on:
            box.click()

    def select_hook(self, hook: str, token: int | None = None) -> None:
        self.session.select(hook=hook, token=token)

    def undo(self) -> None:
        self.window.undo_action.trigger()

    def redo(self) -> None:
        self.window.redo_action.trigger()

    # --- reading ------------------------------------------------------------------------
    def trace(self, hook: str | None = None):
        """The current trace, or one hook of it (a read-only array)."""
        return self.session.trace if hook is None else self.session.trace[hook]

    @property
    def mse(self) -> float | None:
        return self.session.mse

    def tensor(self, name: str) -> np.ndarray:
        return self.session.tensor(name)

    def inspector_text(self) -> str:
        return self.window.inspector.explanation.toPlainText()

    def status_text(self) -> str:
        return self.window.statusBar().currentMessage()

    def find(self, kind, object_name: str):
        widget = self.window.findChild(kind, object_name)
        if widget is None:
            raise LookupError(f"no {kind.__name__} called {object_name!r}")
        return widget


def _make_window(qtbot, path: Path, language: str = "en"):
    from app.launch import build_window
    from app.document import Answer
    _, window = build_window(path, language)
    # Unsaved edits are discarded without the Save / Discard / Cancel question (a modal dialog
    # would wait forever offscreen, and pytest-qt closes the window); a test may set its own answer.
    window.document.answer_unsaved = lambda *args: Answer.DISCARD
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def default_window(qtbot):
    """Behind the `blocklab_window` fixture: a driver on the default block; the window is closed after."""
    window = _make_window(qtbot, SCENARIOS / "block-default.json")
    yield BlockLabDriver(qtbot, window)
    window.close()


def window_factory(qtbot):
    """Behind the `blocklab_open` fixture: yields open_window(path, language="en") → a driver."""
    windows = []

    def open_window(path: str | os.PathLike, language: str = "en") -> BlockLabDriver:
        window = _make_window(qtbot, Path(path), language)
        windows.append(window)
        return BlockLabDriver(qtbot, window)

    yield open_window
    for window in windows:
        window.close()


# The same fixtures when this module itself is loaded as a plugin (`-p app.testing`, or an install
# made before the entry point moved to `pytest_blocklab`).
@pytest.fixture
def blocklab_window(qtbot):
    """A Block Lab window on the default block, shown offscreen; closed after the test."""
    yield from default_window(qtbot)


@pytest.fixture
def blocklab_open(qtbot):
    """A factory: blocklab_open(path, language="en") → a driver on that scenario."""
    yield from window_factory(qtbot)
