"""Stepping through a lesson in the explorer, the way a teacher with a clicker and a learner do."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton

from core.formats.lesson import load_lesson
from tests.conftest import ROOT

R45 = ROOT / "resources" / "lessons" / "r45-ffn-residual-norm.json"
SEED_NUMBERS = {
    "b0": "1.170705, 0.649589, 0.000000, 0.000000, 0.521116, 0.000000",
    "b1": "0.585353, 0.324795, 0.130279, 0.000000",
    "b2": "1.233154, 0.588798, −0.424732, −1.397220",
}


@pytest.fixture
def lesson(blocklab_open):
    return blocklab_open(R45)


def caption(lab) -> str:
    return lab.window.lesson_bar.caption.text()


def go_to(lab, step_id):
    core_lesson = lab.window.lessons.lesson
    lab.window.lessons.go(core_lesson.step_index(step_id))


def test_every_step_shows_its_exact_state(lesson):
    lab = lesson
    reference = load_lesson(R45)
    for index in range(len(reference)):
        lab.window.lessons.go(index)
        expected = reference.step_scenario(index).run()
        assert list(lab.trace()) == list(expected)
        for name in expected:
            assert np.array_equal(lab.trace(name), expected[name])
        assert lab.find(QLabel, "lessonCounter").text() == f"{index + 1} / {len(reference)}"


@pytest.mark.parametrize("step_id, numbers", SEED_NUMBERS.items())
def test_the_seed_numbers_appear_at_their_steps(lesson, step_id, numbers):
    go_to(lesson, step_id)
    assert numbers in caption(lesson)


def test_residual_sum_appears_at_b2(lesson):
    go_to(lesson, "b2")
    assert "1.756058, 0.974384, −0.255140, −1.434875" in caption(lesson)


def test_caption_numbers_follow_an_edit_and_the_edit_stays_at_its_step(lesson):
    lab = lesson
    go_to(lab, "b0")
    assert lab.set_weight("W_in", (0, 4), "2")           # h₅ = 2u₁ − u₂ now
    edited = caption(lab)
    assert SEED_NUMBERS["b0"] not in edited
    assert f"{lab.trace('mlp.hook_post')[0, 4]:.6f}" in edited
    # the next step is untouched by it
    lab.window.lessons.next()
    assert lab.tensor("W_in")[0, 4] == 1.0
    assert SEED_NUMBERS["b1"] in caption(lab)
    # coming back, the learner's edit is still there (kept) …
    lab.window.lessons.previous()
    assert lab.tensor("W_in")[0, 4] == 2.0
    assert caption(lab) == edited
    # … until they reset this step
    lab.find(QPushButton, "lessonResetStep").click()
    assert lab.tensor("W_in")[0, 4] == 1.0
    assert SEED_NUMBERS["b0"] in caption(lab)


def test_undo_after_coming_back_reverts_the_kept_edit(lesson):
    lab = lesson
    go_to(lab, "b0")
    lab.set_weight("W_in", (0, 0), "5")
    lab.window.lessons.next()
    lab.window.lessons.previous()
    assert lab.tensor("W_in")[0, 0] == 5
    lab.undo()
    assert lab.tensor("W_in")[0, 0] == 1
    assert SEED_NUMBERS["b0"] in caption(lab)


def test_an_edited_step_stays_edited_through_a_round_trip(lesson):
    lab = lesson
    go_to(lab, "b2")
    lab.set_weight("W_out", (0, 0), "1")
    edited = {name: np.array(a) for name, a in lab.trace().items()}
    for _ in range(3):
        lab.window.lessons.next()
    for _ in range(3):
        lab.window.lessons.previous()
    assert all(np.array_equal(edited[name], lab.trace(name)) for name in edited)


def test_forward_and_back_restores_exact_values(lesson):
    lab = lesson
    go_to(lab, "b2")
    before = {name: np.array(a) for name, a in lab.trace().items()}
    for _ in range(4):
        lab.window.lessons.next()
    for _ in range(4):
        lab.window.lessons.previous()
    assert all(np.array_equal(before[name], lab.trace(name)) for name in before)


def test_clicker_keys_page_through_the_lesson(lesson, qtbot):
    lab = lesson
    lessons = lab.window.lessons
    assert lessons.index == 0
    lab.window.dataflow.setFocus()                      # the teacher clicked the block
    qtbot.keyClick(lab.window.dataflow, Qt.Key_PageDown)
    qtbot.keyClick(lab.window.dataflow, Qt.Key_PageDown)
    assert lessons.index == 2
    qtbot.keyClick(lab.window.dataflow, Qt.Key_PageUp)
    assert lessons.index == 1
    qtbot.keyClick(lab.window.dataflow, Qt.Key_Right)
    qtbot.keyClick(lab.window.dataflow, Qt.Key_Space)
    assert lessons.index == 3
    qtbot.keyClick(lab.window.dataflow, Qt.Key_Left)
    assert lessons.index == 2


def test_arrow_keys_in_a_table_do_not_change_the_step(lesson, qtbot):
    lab = lesson
    table = lab.window.weight_editor.table
    table.setFocus()
    qtbot.keyClick(table, Qt.Key_Right)
    assert lab.window.lessons.index == 0
    last = table.model().index(0, table.model().columnCount() - 1)
    table.setCurrentIndex(last)                          # at the table's edge the key goes to its parent
    qtbot.keyClick(table, Qt.Key_Right)
    qtbot.keyClick(table, Qt.Key_Right)
    assert lab.window.lessons.index == 0
    qtbot.keyClick(table, Qt.Key_PageDown)               # a clicker still works everywhere
    assert lab.window.lessons.index == 1


def test_highlight_dims_the_rest_and_outlines_cells(lesson):
    lab = lesson
    go_to(lab, "b0")
    step = lab.window.lessons.step
    assert step.highlight.cells
    cell = step.highlight.cells[0]
    lab.select_hook(cell.hook)
    outlined = lab.window.inspector.model.outlined
    assert tuple(cell.index[-2:]) in outlined


def test_question_answer_is_revealed_on_request(lesson):
    lab = lesson
    go_to(lab, "relu-residual")
    answer = lab.find(QLabel, "lessonAnswer")
    button = lab.find(QPushButton, "lessonShowAnswer")
    assert lab.find(QLabel, "lessonQuestion").isVisible()
    assert not answer.isVisible() and button.isVisible()
    button.click()
    assert answer.isVisible() and answer.text()


def test_the_wo_zero_lab_carries_the_input_through(lesson):
    lab = lesson
    go_to(lab, "wo-zero")
    assert np.all(lab.tensor("W_O") == 0)
    assert np.array_equal(lab.trace("hook_resid_mid"), lab.trace("ln1.hook_out"))
    assert np.allclose(lab.trace("ln1.hook_in"), lab.trace("hook_resid_pre"))


def test_picker_lists_the_lessons_and_leaves_them(blocklab_window):
    lab = blocklab_window
    picker = lab.find(QComboBox, "lessonPicker")
    paths = [picker.itemData(i) for i in range(picker.count())]
    assert str(R45) in paths
    picker.setCurrentIndex(paths.index(str(R45)))
    picker.activated.emit(paths.index(str(R45)))
    assert lab.window.lessons.lesson is not None
    picker.activated.emit(0)
    assert lab.window.lessons.lesson is None


def test_a_broken_lesson_is_refused_and_nothing_is_lost(blocklab_window, tmp_path):
    lab = blocklab_window
    lab.set_weight("W_in", (0, 0), "3")
    document = json.loads(R45.read_text(encoding="utf-8"))
    document["steps"][1]["highlight"]["hooks"] = ["mlp.hook_nothing"]
    document["scenarios"] = {k: str(R45.parent / v) for k, v in document["scenarios"].items()}
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    assert not lab.open(broken)
    assert lab.tensor("W_in")[0, 0] == 3
    assert lab.window.lessons.lesson is None
    assert lab.status_text()


def test_screenshot_of_a_lesson_step(tmp_path):
    out = tmp_path / "step.png"
    result = subprocess.run([sys.executable, "main.py", "screenshot", str(out), "--lesson", "r45-ffn-residual-norm",
                             "--step", "3", "--size", "1280x800", "--lang", "zh"], cwd=ROOT, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert QImage(str(out)).size().width() == 1280
    bad = subprocess.run([sys.executable, "main.py", "screenshot", str(out), "--lesson", "nope"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert bad.returncode == 2 and "nope" in bad.stderr
