"""Extreme numbers shown honestly: a weight typed at ±1e6 (the GUI's bound) or, with the bound
lifted, at 1e308 (float64 overflows): the cells, the diagram's nodes, the checks and the status
line say so plainly, nothing is printed on the console, and bringing the value back recovers."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.explorer import finite_marks
from app.explorer.config_panel import InvariantsPanel
from app.explorer.dataflow import DataflowView
from app.explorer.inspector import Inspector
from app.explorer.tables import MARK_ROLE
from app.explorer.weights_editor import WeightEditor
from core.finite import Cell
from tests.app.helpers import settle, show

DISPLAY, BACKGROUND, TOOLTIP = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ToolTipRole


@pytest.fixture
def quiet_console(capfd):
    """Every warning is recorded (none may be), and nothing may reach stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    assert [str(w.message) for w in caught] == []
    assert capfd.readouterr().err == ""


@pytest.fixture
def unbounded(monkeypatch):
    """Lift the ±1e6 bound a typed cell obeys, so that float64 itself can overflow."""
    import app.explorer.weights_editor as editor_module
    import app.session as session_module
    import core.formats.scenario as scenario_module
    for module in (editor_module, session_module, scenario_module):
        monkeypatch.setattr(module, "MAX_ABS_VALUE", 1e308)


@pytest.fixture
def views(qtbot, session):
    editor = show(qtbot, WeightEditor(session), 420, 520)
    inspector = show(qtbot, Inspector(session), 520, 420)
    checks = show(qtbot, InvariantsPanel(session), 420, 160)
    messages: list[str] = []
    session.message.connect(messages.append)
    yield editor, inspector, checks, messages
    for widget in (editor, inspector, checks):
        widget.close()


def type_into(qtbot, editor: WeightEditor, tensor: str, row: int, column: int, text: str) -> None:
    """Choose the tensor, open the cell's editor, type, press Return: as a user does."""
    editor.tensor_combo.setCurrentIndex(editor.tensor_combo.findData(tensor))
    index = editor.model.index(row, column)
    editor.table.setCurrentIndex(index)
    editor.table.edit(index)
    cell_editor = editor.table.indexWidget(index)
    qtbot.keyClicks(cell_editor, text)
    qtbot.keyClick(cell_editor, Qt.Key.Key_Return)
    settle(lambda: editor.table.indexWidget(index) is None)


def inspector_texts(inspector: Inspector) -> list[str]:
    model = inspector.model
    return [model.index(r, c).data(DISPLAY) for r in range(model.rowCount()) for c in range(model.columnCount())]


@pytest.mark.parametrize("extreme", ["1e6", "-1e6"])
def test_a_weight_at_a_million_is_noted_beyond_half_precision_and_the_note_goes_when_brought_back(
        qtbot, session, views, quiet_console, extreme):
    editor, inspector, checks, messages = views
    original = float(session.tensor("W_in")[0, 0])
    session.select(hook="mlp.hook_pre")
    type_into(qtbot, editor, "W_in", 0, 0, extreme)
    assert session.tensor("W_in")[0, 0] == float(extreme)
    cell = editor.model.index(0, 0)
    assert cell.data(MARK_ROLE) is not None and "65504" in cell.data(TOOLTIP).replace(" ", "")
    problem = inspector.findChild(QLabel, "inspectorProblem")
    assert problem.isVisible() and "65504" in problem.text() and "float16" in problem.text()
    marked = [inspector.model.index(r, 0).data(MARK_ROLE) for r in range(inspector.model.rowCount())]
    assert any(m is not None for m in marked)                   # the hidden unit's column is noted
    assert all("∞" not in t and "NaN" not in t for t in inspector_texts(inspector))
    assert not checks.findChild(QLabel, "invariantFinite").isVisible()    # finite: no red mark in the checks
    assert not any("non-finite" in m for m in messages)

    type_into(qtbot, editor, "W_in", 0, 0, repr(original))
    assert session.tensor("W_in")[0, 0] == original
    assert not problem.isVisible()
    assert editor.model.index(0, 0).data(MARK_ROLE) is None


def test_an_overflow_is_marked_red_everywhere_and_recovers(qtbot, session, views, quiet_console, unbounded):
    editor, inspector, checks, messages = views
    original = float(session.tensor("W_in")[0, 0])
    session.select(hook="ln2.hook_scale")
    type_into(qtbot, editor, "W_in", 0, 0, "1e308")
    assert session.tensor("W_in")[0, 0] == 1e308

    texts = inspector_texts(inspector)
    overflow = finite_marks.number_words()
    assert any(t == overflow[list(overflow)[1]] for t in texts)          # the word "overflow", not ∞ or inf
    assert all("inf" not in t and "nan" not in t.lower() for t in texts)
    red = [inspector.model.index(r, 0) for r in range(inspector.model.rowCount())
           if inspector.model.marks[r, 0] == Cell.OVERFLOW]
    assert red and all(index.data(BACKGROUND) == finite_marks.problem_colour(True) for index in red)
    assert "Overflow" in red[0].data(TOOLTIP)
    problem = inspector.findChild(QLabel, "inspectorProblem")
    assert problem.isVisible() and "overflow" in problem.text()
    verdict = checks.findChild(QLabel, "invariantFinite")
    assert verdict.isVisible() and verdict.text().startswith("✗") and "ln2.hook_scale" in verdict.text()
    assert any("ln2.hook_scale went non-finite first" in m and "Bring the value back" in m for m in messages)

    type_into(qtbot, editor, "W_in", 0, 0, repr(original))
    assert np.isfinite(session.trace["ln2.hook_scale"]).all()
    assert not problem.isVisible() and not verdict.isVisible()
    assert inspector.model.marks is None
    assert messages[-1] == "Every value is finite again."


def test_eps_zero_on_a_constant_row_is_named_in_the_checks(qtbot, session, views, quiet_console):
    editor, inspector, checks, messages = views
    assert session.set_config(eps=0.0, norm_placement="pre")          # the first norm reads the inputs
    for column in range(session.tensor("inputs").shape[1]):
        type_into(qtbot, editor, "inputs", 0, column, "2")
    session.select(hook="ln1.hook_normalized")
    verdict = checks.findChild(QLabel, "invariantFinite")
    assert verdict.isVisible() and "0/0" in verdict.text()
    assert inspector.findChild(QLabel, "inspectorProblem").isVisible()
    assert inspector.model.marks[0, 0] == Cell.ZERO_SPREAD and inspector.model.index(0, 0).data(DISPLAY) == "0.000000"
    assert "0/0" in inspector.findChild(QLabel, "inspectorSentence").text()
    type_into(qtbot, editor, "inputs", 0, 0, "1")                     # no longer constant
    assert not verdict.isVisible() and inspector.model.marks is None


def test_the_diagram_marks_a_node_that_overflowed_and_clears_it(qtbot, session, quiet_console, unbounded):
    view = show(qtbot, DataflowView(session), 900, 600)
    original = float(session.tensor("W_in")[0, 0])
    session.set_value("W_in", (0, 0), 1e308, "1e308")
    node = view.node_item("ln2.hook_scale")
    assert node.problem and "overflow" in node.problem and "⚠" in node.toolTip()
    assert node.pen().color() == finite_marks.problem_colour(True)
    assert view.node_item("hook_resid_pre").problem is None
    session.set_value("W_in", (0, 0), original, repr(original))
    assert node.problem is None and "⚠" not in node.toolTip()
    view.close()
