"""Views out of sight do no work on an edit and show the current values once shown.

At a lab step the lab fills the window and the diagram and the inspector are hidden: an edit
there (the lab's own slider, or a weight) draws nothing in them until the explorer is shown
again; then they show exactly what they would have shown had they followed every edit."""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

from app.explorer.dataflow_style import compact_number
from core.formats.lesson import load_lesson
from core.numbers import format_number
from tests.conftest import ROOT

C4 = ROOT / "resources" / "lessons" / "c4-ffn.json"


def _lab_step(lab) -> int:
    lesson = load_lesson(C4)
    return lesson.step_index("relu")


def test_an_edit_out_of_sight_is_shown_once_the_explorer_is_back(blocklab_open):
    lab = blocklab_open(C4)
    window = lab.window
    window.lessons.go(_lab_step(lab))
    assert window.work.currentIndex() != 0                      # the lab fills the window
    view, inspector = window.dataflow, window.inspector
    assert not view.isVisible() and not inspector.isVisible()
    hook = "mlp.hook_pre"
    lab.session.select(hook=hook, token=0)
    node = view.flow.node_item(hook)
    drawn_before = [text.text() for text in node.texts]
    table_before = inspector.model.array.copy()

    value = float(lab.tensor("W_in")[0, 0]) + 3.0
    lab.session.set_value("W_in", (0, 0), value)
    lab.qtbot.wait(1)
    assert [text.text() for text in node.texts] == drawn_before     # nothing drawn out of sight
    assert (inspector.model.array == table_before).all()

    window.lessons.close()                                          # the explorer again
    assert view.isVisible() and inspector.isVisible()
    fresh = lab.trace(hook)[0]
    metrics, room = node._metrics, node._room
    assert [text.text() for text in view.flow.node_item(hook).texts] == \
        [compact_number(float(v), room, metrics) for v in fresh]
    assert (inspector.model.array == lab.trace(hook)).all()
    assert format_number(float(fresh[0])) in inspector.explanation.toPlainText()


def test_colour_limits_widen_out_of_sight_as_when_drawn(blocklab_open):
    """A value past a node's colour limit widens it also while the diagram is hidden (limits never
    narrow): the tints once shown are those of a diagram that saw every edit."""
    lab = blocklab_open(C4)
    window = lab.window
    window.lessons.go(_lab_step(lab))
    view = window.dataflow
    hook = "mlp.hook_pre"
    before = view.flow.node_limit(hook)
    original = float(lab.tensor("W_in")[0, 0])
    lab.session.set_value("W_in", (0, 0), original + 50.0)       # far past the limit …
    lab.session.set_value("W_in", (0, 0), original)               # … and back, both out of sight
    window.lessons.close()
    assert view.flow.node_limit(hook) > before


def test_the_inspectors_columns_widen_out_of_sight_as_when_shown(blocklab_window):
    """Columns widen for every new number and never narrow: a wide value that came and went while
    the inspector was hidden leaves the columns as wide as if the inspector had shown it."""
    lab = blocklab_window
    window, session = lab.window, lab.session
    inspector = window.inspector
    session.select(hook="mlp.hook_pre", token=0)
    narrow = inspector.table.cell_size().width()
    page = QWidget()
    window.work.addWidget(page)
    window.work.setCurrentWidget(page)                         # a lab page fills the window
    assert not inspector.isVisible()
    original = float(lab.tensor("W_in")[0, 0])
    session.set_value("W_in", (0, 0), -12345.0)                # a much wider number …
    session.set_value("W_in", (0, 0), original)                # … and back, out of sight
    window.work.setCurrentIndex(0)
    assert inspector.isVisible()
    assert inspector.table.cell_size().width() > narrow
