"""Stepping through a lesson, the way a teacher with a clicker and a learner do.

Three tiers: the lesson controller on a Session (no widget) for what each step computes and
keeps; the lesson bar on its own for what it says; the whole window only for what the window
wires together (clicker keys, the step's highlight reaching the inspector, the picker, a
refused lesson file).
"""
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QWidget

from app.lessons.bar import LessonBar
from app.lessons.controller import LessonController
from core.formats.lesson import load_lesson
from tests.app.helpers import make_session, settle, show
from tests.conftest import ROOT

R45 = ROOT / "resources" / "lessons" / "r45-ffn-residual-norm.json"
SEED_NUMBERS = {
    "b0": "1.170705, 0.649589, 0.000000, 0.000000, 0.521116, 0.000000",
    "b1": "0.585353, 0.324795, 0.130279, 0.000000",
    "b2": "1.233154, 0.588798, −0.424732, −1.397220",
}


@pytest.fixture(scope="module")
def r45():
    return load_lesson(R45)


@pytest.fixture
def lessons(qapp, r45):
    """The lesson controller on a Session, no widget, at the lesson's first step."""
    controller = LessonController(make_session("r45-ffn.json"))
    controller.open(r45)
    return controller


@pytest.fixture
def bar(qtbot, r45):
    """The lesson bar alone, on a controller that opens the lesson once the bar is there (its
    controller is `bar.controller`)."""
    controller = LessonController(make_session("r45-ffn.json"))
    widget = show(qtbot, LessonBar(controller, None, "en"), 1000, 160)
    controller.open(r45)
    yield widget
    widget.close()


def caption(bar) -> str:
    return bar.caption.text()


def go_to(controller, step_id):
    controller.go(controller.lesson.step_index(step_id))


# --- the controller: what each step computes and keeps -----------------------------------------

def test_every_step_shows_its_exact_state(lessons, r45):
    session = lessons.session
    for index in range(len(r45)):
        lessons.go(index)
        expected = r45.step_scenario(index).run()
        assert list(session.trace) == list(expected)
        for name in expected:
            assert np.array_equal(session.trace[name], expected[name])


def test_undo_after_coming_back_reverts_the_kept_edit(lessons):
    session = lessons.session
    go_to(lessons, "b0")
    assert session.set_value("W_in", (0, 0), 5.0)
    lessons.next()
    lessons.previous()
    assert session.tensor("W_in")[0, 0] == 5
    assert lessons.is_edited()
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 1


def test_an_edited_step_stays_edited_through_a_round_trip(lessons):
    session = lessons.session
    go_to(lessons, "b2")
    assert session.set_value("W_out", (0, 0), 1.0)
    edited = {name: np.array(a) for name, a in session.trace.items()}
    for _ in range(3):
        lessons.next()
    for _ in range(3):
        lessons.previous()
    assert all(np.array_equal(edited[name], session.trace[name]) for name in edited)


def test_forward_and_back_restores_exact_values(lessons):
    session = lessons.session
    go_to(lessons, "b2")
    before = {name: np.array(a) for name, a in session.trace.items()}
    for _ in range(4):
        lessons.next()
    for _ in range(4):
        lessons.previous()
    assert all(np.array_equal(before[name], session.trace[name]) for name in before)
    assert not lessons.is_edited()


def test_the_wo_zero_lab_carries_the_input_through(lessons):
    session = lessons.session
    go_to(lessons, "wo-zero")
    assert np.all(session.tensor("W_O") == 0)
    assert np.array_equal(session.trace["hook_resid_mid"], session.trace["ln1.hook_out"])
    assert np.allclose(session.trace["ln1.hook_in"], session.trace["hook_resid_pre"])


def test_steps_stop_at_both_ends_and_closing_forgets_the_lesson(lessons, r45):
    lessons.previous()
    assert lessons.index == 0
    lessons.go(len(r45) + 5)
    assert lessons.index == len(r45) - 1
    lessons.next()
    assert lessons.index == len(r45) - 1
    lessons.close()
    assert lessons.lesson is None and lessons.step is None and not lessons.is_edited()
    lessons.go(2)                                       # no lesson: nothing to go to
    lessons.reset_step()
    assert lessons.index == 0


# --- the bar: what it says ---------------------------------------------------------------------

def test_the_counter_follows_the_step(bar, r45):
    lessons = bar.controller
    for index in range(len(r45)):
        lessons.go(index)
        assert bar.findChild(QLabel, "lessonCounter").text() == f"{index + 1} / {len(r45)}"
    assert not bar.findChild(QPushButton, "lessonNext").isEnabled()


@pytest.mark.parametrize("step_id, numbers", SEED_NUMBERS.items())
def test_the_seed_numbers_appear_at_their_steps(bar, step_id, numbers):
    lessons = bar.controller
    go_to(lessons, step_id)
    assert numbers in caption(bar)


def test_residual_sum_appears_at_b2(bar):
    lessons = bar.controller
    go_to(lessons, "b2")
    assert "1.756058, 0.974384, −0.255140, −1.434875" in caption(bar)


def test_caption_numbers_follow_an_edit_and_the_edit_stays_at_its_step(bar):
    lessons = bar.controller
    session = lessons.session
    go_to(lessons, "b0")
    assert session.set_value("W_in", (0, 4), 2.0)            # h₅ = 2u₁ − u₂ now
    edited = caption(bar)
    assert SEED_NUMBERS["b0"] not in edited
    assert f"{session.trace['mlp.hook_post'][0, 4]:.6f}" in edited
    assert "(your edits)" in edited
    # the next step is untouched by it
    bar.findChild(QPushButton, "lessonNext").click()
    assert session.tensor("W_in")[0, 4] == 1.0
    assert SEED_NUMBERS["b1"] in caption(bar)
    # coming back, the learner's edit is still there (kept) …
    bar.findChild(QPushButton, "lessonPrevious").click()
    assert session.tensor("W_in")[0, 4] == 2.0
    assert caption(bar) == edited
    # … until they reset this step
    bar.findChild(QPushButton, "lessonResetStep").click()
    assert session.tensor("W_in")[0, 4] == 1.0
    assert SEED_NUMBERS["b0"] in caption(bar)


def test_undo_back_to_the_step_as_written_shows_its_seed_numbers(bar):
    lessons = bar.controller
    session = lessons.session
    go_to(lessons, "b0")
    session.set_value("W_in", (0, 0), 5.0)
    lessons.next()
    lessons.previous()
    session.undo_stack.undo()
    assert SEED_NUMBERS["b0"] in caption(bar)


def test_question_answer_is_revealed_on_request(bar):
    lessons = bar.controller
    go_to(lessons, "relu-residual")
    answer = bar.findChild(QLabel, "lessonAnswer")
    button = bar.findChild(QPushButton, "lessonShowAnswer")
    assert bar.findChild(QLabel, "lessonQuestion").isVisible()
    assert not answer.isVisible() and button.isVisible()
    button.click()
    assert answer.isVisible() and answer.text()


def test_the_step_list_jumps_to_a_step(bar):
    lessons = bar.controller
    steps = bar.findChild(QComboBox, "lessonStepCombo")
    steps.activated.emit(3)
    assert lessons.index == 3 and steps.currentIndex() == 3


# --- the window: what it wires together --------------------------------------------------------

@pytest.fixture
def lesson(blocklab_open):
    return blocklab_open(R45)


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
    other = QWidget()                                   # keys typed in another window are not for the lesson
    qtbot.addWidget(other)
    other.show()
    qtbot.keyClick(other, Qt.Key_PageDown)
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
    go_to(lab.window.lessons, "b0")
    step = lab.window.lessons.step
    assert step.highlight.cells
    cell = step.highlight.cells[0]
    lab.select_hook(cell.hook)
    outlined = lab.window.inspector.model.outlined
    assert tuple(cell.index[-2:]) in outlined


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


def test_a_new_live_number_in_the_caption_does_not_relayout_the_bar(bar, qapp):
    """Issue 13: QLabel.setText asks its parent for a layout pass, which climbed to the window
    (each level laying out and repainting the caption). Same lines: the caption alone repaints."""
    from PySide6.QtCore import QEvent, QObject
    lessons = bar.controller
    session = lessons.session
    go_to(lessons, "relu-residual")
    seen = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.LayoutRequest:
                seen.append(watched)
            return False

    watch = Watch()
    bar.installEventFilter(watch)
    for value in (1.25, 1.5):
        assert session.set_value("W_in", (0, 0), value)
        qapp.processEvents()
    seen.clear()
    before = caption(bar)
    assert session.set_value("W_in", (0, 0), 1.75)
    qapp.processEvents()
    qapp.processEvents()
    assert caption(bar) != before
    assert seen == []
    assert bar.caption.height() >= bar.caption.heightForWidth(bar.caption.width())
    # A caption that needs more lines asks for them: the bar lays out again.
    bar.caption.setText(before + "<br>one more line" * 6)
    qapp.processEvents()
    qapp.processEvents()
    assert seen == [bar]


def test_a_new_live_number_paints_the_caption_once(blocklab_open, qapp):
    """Issue 13: the fence's check of the new text's height lays the text out again; in the window,
    where other views have a paint due already, that repainted the caption a second time."""
    from PySide6.QtCore import QEvent, QObject
    lab = blocklab_open(R45)
    bar = lab.window.lesson_bar
    go_to(lab.window.lessons, "relu-residual")
    session = lab.session
    paints = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint:
                paints.append(watched)
            return False

    watch = Watch()
    bar.caption.installEventFilter(watch)
    for value in (1.25, 1.5):
        assert session.set_value("W_in", (0, 0), value)
        for _ in range(3):
            qapp.processEvents()
    for value in (1.75, 2.0, 2.25):
        paints.clear()
        before = caption(bar)
        assert session.set_value("W_in", (0, 0), value)
        for _ in range(4):
            qapp.processEvents()
        assert caption(bar) != before
        assert len(paints) == 1


def test_without_a_lesson_the_caption_takes_no_room(qtbot):
    """The caption sits in a fence (no relayout of the window per live number); with no lesson the
    caption is hidden, and its fence must be too, or the bar keeps an empty caption's height
    (the 1024×768 window then lost the room its tables need: test_tables_window)."""
    controller = LessonController(make_session("r45-ffn.json"))
    widget = show(qtbot, LessonBar(controller, None, "en"), 1000, 160)
    caption = widget.findChild(QLabel, "lessonCaption")
    assert not caption.isVisible()
    assert caption.parentWidget().isHidden()
    free = widget.sizeHint().height()
    controller.open(load_lesson(R45))
    qtbot.waitUntil(caption.isVisible)
    assert widget.sizeHint().height() > free + caption.fontMetrics().lineSpacing()
    widget.close()


# --- the pickers: whole or deliberately elided ---------------------------------------------------

def _longest_titled_lesson():
    from core.formats.lesson import list_lessons
    from app.lessons.controller import LESSONS
    return max(list_lessons(LESSONS), key=lambda found: len(found[1].en))


def test_a_lesson_title_too_long_for_its_box_ends_in_an_ellipsis_with_the_whole_title_in_its_tooltip(qtbot):
    """At 1280×800 the model lesson's title read "…and wh" (cut mid-word by the box's edge)."""
    _, title, path = _longest_titled_lesson()
    controller = LessonController(make_session("r45-ffn.json"))
    bar = show(qtbot, LessonBar(controller, None, "en"), 700, 160)
    controller.open(load_lesson(path))
    picker = bar.findChild(QComboBox, "lessonPicker")
    assert picker.currentText() == title.en
    shown = picker.shown_text()
    assert shown.endswith("…") and title.en.startswith(shown[:-1]) and len(shown) < len(title.en)
    assert picker.toolTip() == title.en
    picker.showPopup()                                # the list shows every title whole
    from PySide6.QtGui import QFontMetrics
    assert picker.view().width() >= QFontMetrics(picker.view().font()).horizontalAdvance(title.en)
    picker.hidePopup()
    bar.resize(2400, 160)                             # room enough: the whole title, no tooltip needed
    qtbot.waitUntil(lambda: picker.shown_text() == title.en)
    assert picker.toolTip() == ""
    steps = bar.findChild(QComboBox, "lessonStepCombo")
    assert steps.shown_text() == steps.currentText()


def test_the_picker_and_the_step_list_share_the_row_by_what_they_show(qtbot):
    """With room for both texts both are whole: a long lesson title is not elided while the step
    list beside it stands half empty."""
    _, title, path = _longest_titled_lesson()
    controller = LessonController(make_session("r45-ffn.json"))
    bar = show(qtbot, LessonBar(controller, None, "en"), 1280, 160)
    controller.open(load_lesson(path))
    picker, steps = bar.findChild(QComboBox, "lessonPicker"), bar.findChild(QComboBox, "lessonStepCombo")
    qtbot.waitUntil(lambda: picker.shown_text() == title.en)
    for index in range(len(controller.lesson)):
        controller.go(index)
        qtbot.waitUntil(lambda: steps.shown_text() == steps.currentText())
        assert picker.shown_text() == title.en


def test_chinese_step_list_uses_full_width_marks(blocklab_open):
    """"1. 四句评价" put a half-width full stop before Chinese text; it is "1．四句评价" (English
    keeps "1. Four reviews")."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("chinese_punctuation", ROOT / "tools" / "chinese_punctuation.py")
    rule = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rule)
    lab = blocklab_open(ROOT / "resources" / "lessons" / "c4-ffn.json", "zh")
    steps = lab.find(QComboBox, "lessonStepCombo")
    items = [steps.itemText(i) for i in range(steps.count())]
    assert items[0].startswith("1．四句评价")
    assert [(item, rule.problems(item)) for item in items if rule.problems(item)] == []
    from app import i18n
    i18n.install("en")                                # a live switch: the English numbering comes back
    settle(lambda: steps.itemText(0) == "1. Four reviews: exactly one of p, n")
    assert steps.itemText(0) == "1. Four reviews: exactly one of p, n"
