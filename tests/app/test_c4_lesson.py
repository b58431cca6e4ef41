"""The C4 lesson in the window: each step brings its lab forward with the seed's numbers live."""
import numpy as np
import pytest
from PySide6.QtWidgets import QComboBox, QPushButton, QTableWidget

from core.formats.lesson import load_lesson
from tests.conftest import ROOT

C4 = ROOT / "resources" / "lessons" / "c4-ffn.json"


@pytest.fixture
def lesson(blocklab_open):
    return blocklab_open(C4)


def go_to(lab, step_id):
    lab.window.lessons.go(lab.window.lessons.lesson.step_index(step_id))


def outputs_shown(lab) -> list[str]:
    table = lab.find(QTableWidget, "xorTable")
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    column = next(c for c, text in enumerate(header) if "ŷ" in text)
    return [table.item(row, column).text() for row in range(table.rowCount())]


def test_every_step_shows_its_panel_and_part(lesson):
    lab = lesson
    reference = load_lesson(C4)
    for index, step in enumerate(reference.steps):
        lab.window.lessons.go(index)
        lab_name = next(name for name in step.panels if name.startswith("lab."))
        _, panel, part = lab_name.split(".", 2)
        widget = lab.window.labs[panel]
        assert lab.window.work.currentWidget() is widget.parentWidget()
        assert widget.current_part() == part
        expected = reference.step_scenario(index).run()
        assert np.array_equal(lab.trace("hook_resid_post"), expected["hook_resid_post"])
    lab.window.lessons.close()
    assert lab.window.work.currentIndex() == 0                # back to the explorer


@pytest.mark.parametrize("step_id, shown", [
    ("relu", ["1.000", "0.000", "0.000", "1.000"]),
    ("collapse", ["1.000", "0.000", "2.000", "1.000"]),
    ("gelu", ["0.841", "0.272", "0.318", "0.841"]),
])
def test_the_lab_table_shows_the_seeds_outputs(lesson, step_id, shown):
    go_to(lesson, step_id)
    assert outputs_shown(lesson) == shown


def test_switching_the_labs_activation_changes_the_block(lesson):
    lab = lesson
    go_to(lab, "relu")
    combo = lab.find(QComboBox, "xorActivation")
    combo.setCurrentIndex(combo.findData("identity"))
    assert lab.session.config.activation == "identity"
    assert lab.mse == 1.0
    assert outputs_shown(lab) == ["1.000", "0.000", "2.000", "1.000"]
    assert "(your edits)" in lab.window.lesson_bar.caption.text()


def test_the_formula_step_draws_the_block_above_and_highlights_a_term(lesson):
    lab = lesson
    go_to(lab, "formula")
    page = lab.window.labs["ffn-page"].parentWidget()
    assert lab.window.dataflow.parentWidget() is page
    lab.find(QPushButton, "ffnTerm_W_down").click()
    flow = lab.window.dataflow
    assert flow.highlighted() == {"hook_mlp_out"}
    go_to(lab, "width")
    assert lab.window.dataflow.parentWidget() is lab.window._left
