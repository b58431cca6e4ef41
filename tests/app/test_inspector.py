"""The inspector alone on a Session: the selected hook as a table, one head at a time, the
cells a lesson points at outlined, and a click choosing the cell it explains."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QPlainTextEdit, QTableView

from app.explorer.inspector import Inspector
from tests.app.helpers import show


@pytest.fixture
def inspector(qtbot, session):
    widget = show(qtbot, Inspector(session), 520, 420)
    yield widget
    widget.close()


def shown_array(inspector) -> np.ndarray:
    return np.asarray(inspector.model.array)


def header(inspector, column: int) -> str:
    return inspector.model.headerData(column, Qt.Horizontal)


def test_a_per_head_hook_shows_one_head_at_a_time(inspector, session):
    heads = inspector.findChild(QComboBox, "inspectorHeadSelector")
    assert not heads.isVisible()                               # the output has no heads
    session.select(hook="attn.hook_pattern")
    pattern = session.trace["attn.hook_pattern"]
    assert heads.isVisible() and heads.count() == pattern.shape[0]
    np.testing.assert_array_equal(shown_array(inspector), pattern[0])
    assert header(inspector, 0) == "k1"                        # columns are keys
    heads.setCurrentIndex(1)                                   # the learner picks head 2
    assert session.selected_head == 1
    np.testing.assert_array_equal(shown_array(inspector), pattern[1])
    title = inspector.findChild(QLabel, "inspectorTitle").text()
    assert "attn.hook_pattern" in title and "×".join(map(str, pattern.shape)) in title
    session.select(hook="mlp.hook_post")
    assert not heads.isVisible()
    assert header(inspector, 0) == "h1"
    session.select(hook="ln2.hook_scale")
    assert header(inspector, 0) == "σ1"


def test_rows_are_named_by_token(inspector, session):
    assert [inspector.model.headerData(r, Qt.Vertical) for r in range(5)] == list(session.tokens)


def test_outlined_cells_follow_the_head_shown(inspector, session):
    session.select(hook="attn.hook_pattern", head=0)
    session.set_highlight(cells=[("attn.hook_pattern", (1, 2, 0))])
    assert inspector.model.outlined == set()                   # the cell is on head 2
    session.select(head=1)
    assert inspector.model.outlined == {(2, 0)}
    session.set_highlight()
    assert inspector.model.outlined == set()
    inspector.set_outlined([("attn.hook_pattern", (1, 3, 1))])
    assert inspector.model.outlined == {(3, 1)}


def test_clicking_a_cell_explains_it(qtbot, inspector, session):
    session.select(hook="mlp.hook_post")
    table = inspector.findChild(QTableView, "inspectorTable")
    rect = table.visualRect(inspector.model.index(3, 2))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    assert (session.selected_token, session.selected_column) == (3, 2)
    text = inspector.findChild(QPlainTextEdit, "inspectorExplanation").toPlainText()
    assert text.splitlines()[0].startswith(f"mlp.hook_post[3, 2]  ({session.tokens[3]})")


def test_an_edit_updates_the_table_in_place(inspector, session):
    session.select(hook="mlp.hook_pre")
    resets = []
    inspector.model.modelReset.connect(lambda: resets.append(1))
    assert session.set_value("W_in", (0, 0), 3.0)
    np.testing.assert_array_equal(shown_array(inspector), session.trace["mlp.hook_pre"])
    assert resets == []                                        # same shape: no reset
    assert session.set_config(d_ff=8)
    assert resets and inspector.model.columnCount() == 8


def test_rmsnorm_hooks_read_differently(inspector, session):
    session.select(hook="ln1.hook_scale")
    title = inspector.findChild(QLabel, "inspectorTitle")
    layer_norm = title.text()
    assert session.set_config(norm="rmsnorm")
    assert title.text() != layer_norm and "Σⱼ sⱼ²/d" in title.text()
    assert inspector.findChild(QLabel, "inspectorSentence").text()
