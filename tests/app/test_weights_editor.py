"""The weight editor, driven as a user would: type, drag, wheel, paste, click the fill buttons."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QWheelEvent
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionSlider

from app.widgets import style
from app.session import Session
from app.explorer.weights_editor import WeightEditor
from core.block import forward
from core.formats.scenario import load_scenario
from core.weights import filled
from tests.app.helpers import settle

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "resources" / "scenarios"
DISPLAY, EDIT, BACKGROUND = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, Qt.ItemDataRole.BackgroundRole


@pytest.fixture
def editor(qtbot, session):
    widget = WeightEditor(session)
    qtbot.addWidget(widget)
    widget.resize(420, 600)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.close()


def choose_tensor(editor: WeightEditor, name: str) -> None:
    """Pick a tensor in the combo box as a user would."""
    combo = editor.tensor_combo
    position = combo.findData(name)
    assert position >= 0, f"{name} is not offered"
    combo.setCurrentIndex(position)
    assert editor.model.tensor_name == name


def click_cell(qtbot, editor: WeightEditor, row: int, column: int) -> None:
    table = editor.table
    rect = table.visualRect(editor.model.index(row, column))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert table.currentIndex() == editor.model.index(row, column)


def assert_trace_is_core_forward(session: Session) -> None:
    expected = forward(session.config, {name: session.tensor(name) for name in session.state.weights},
                       session.tensor("inputs"))
    assert list(session.trace) == list(expected)
    for hook in expected:
        np.testing.assert_array_equal(session.trace[hook], expected[hook], err_msg=hook)


def wheel(widget, position: QPoint, notches: int = 1, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    event = QWheelEvent(QPointF(position), QPointF(widget.mapToGlobal(position)), QPoint(0, 0),
                        QPoint(0, 120 * notches), Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(widget, event)


def shown_table(editor: WeightEditor) -> list[list[str]]:
    model = editor.model
    return [[model.index(r, c).data(DISPLAY) for c in range(model.columnCount())] for r in range(model.rowCount())]


# --- choosing what to edit -------------------------------------------------------------------

def test_combo_lists_every_tensor_with_design_names_and_shapes(editor, session):
    combo = editor.tensor_combo
    assert [combo.itemData(i) for i in range(combo.count())] == session.tensor_names()
    labels = [combo.itemText(i) for i in range(combo.count())]
    assert labels[0].startswith("inputs x (hook_resid_pre)")
    assert "W_in  4×6" in labels
    assert "W_Q  2×4×2" in labels
    assert labels[-1].startswith("targets y")


def test_matrix_headers_name_the_axes(editor, session):
    choose_tensor(editor, "W_in")
    model = editor.model
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(4)] == ["x1", "x2", "x3", "x4"]
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)] == [f"h{i}" for i in range(1, 7)]
    choose_tensor(editor, "inputs")
    assert [model.headerData(r, Qt.Orientation.Vertical) for r in range(5)] == list(session.tokens)
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(4)] == ["d1", "d2", "d3", "d4"]


def test_table_shows_the_session_tensor_with_six_decimals(editor, session):
    choose_tensor(editor, "inputs")
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in session.tensor("inputs")]
    assert shown_table(editor)[0][1] == "0.500000"
    assert editor.model.index(0, 1).data(EDIT) == 0.5


def test_choosing_w_q_and_head_1_shows_that_head(editor, session):
    choose_tensor(editor, "W_Q")
    assert editor.head_selector.isVisible()
    assert editor.head_selector.count() == 2
    editor.head_selector.setCurrentIndex(1)
    assert editor.model.head == 1
    assert session.edit_tensor == "W_Q" and session.edit_index[0] == 1
    head = session.tensor("W_Q")[1]
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in head]
    assert shown_table(editor) != [[style.format_number(v) for v in row] for row in session.tensor("W_Q")[0]]
    choose_tensor(editor, "W_in")
    assert not editor.head_selector.isVisible()


def test_vector_shows_as_one_row_and_edits_its_element(editor, session):
    choose_tensor(editor, "b_in")
    assert (editor.model.rowCount(), editor.model.columnCount()) == (1, 6)
    assert editor.model.setData(editor.model.index(0, 3), "0.75", EDIT)
    assert session.tensor("b_in")[3] == 0.75
    assert_trace_is_core_forward(session)


def test_selecting_a_cell_makes_it_the_session_edit_cell(qtbot, editor, session):
    choose_tensor(editor, "W_out")
    with qtbot.waitSignal(session.changed):
        click_cell(qtbot, editor, 4, 2)
    assert (session.edit_tensor, session.edit_index) == ("W_out", (4, 2))
    assert "W_out[4, 2]" in editor.cell_label.text()


def test_the_cell_name_is_never_cut_it_goes_above_the_value_when_narrow(qtbot, editor, session):
    """W_O[0, 0, 0] · z1 → d1 beside the value where both fit, on its own line above it where they
    do not (R45 step 9 at 1024×768 presenting): whole at every width, never elided."""
    session.select_edit_cell("W_O", (0, 0, 0))
    label, spin = editor.cell_label, editor.value_spin
    for width in (640, 420, 300):
        editor.resize(width, 600)
        settle(lambda: editor.cell_controls.width() == width and label.text() == label.full_text())
        assert label.text() == label.full_text() and label.full_text().startswith("W_O[0, 0, 0]"), width
        assert label.width() >= label.fontMetrics().horizontalAdvance(label.full_text()), width
        beside = label.geometry().bottom() > spin.geometry().top()
        assert beside == (width >= 420), width      # (at 420 px both fit on one line, at 300 they do not)


def test_editor_follows_the_session_edit_cell(editor, session):
    session.select_edit_cell("W_K", (1, 3, 0))
    assert editor.tensor_combo.currentData() == "W_K"
    assert editor.head_selector.currentIndex() == 1
    assert editor.table.currentIndex() == editor.model.index(3, 0)
    assert editor.value_spin.value() == pytest.approx(session.tensor("W_K")[1, 3, 0])


def test_tensor_list_and_table_follow_config_changes(editor, session):
    choose_tensor(editor, "W_in")
    session.set_config(gated=True, activation="silu")
    combo = editor.tensor_combo
    assert combo.findData("W_gate") >= 0 and combo.findData("b_gate") >= 0
    session.set_config(d_ff=8)
    assert editor.model.columnCount() == 8
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in session.tensor("W_in")]
    assert "W_in  4×8" in [combo.itemText(i) for i in range(combo.count())]


def test_loading_another_scenario_refreshes_everything(editor, session):
    session.load(load_scenario(SCENARIOS / "c4-xor.json"))
    choose_tensor(editor, "inputs")
    assert [editor.model.headerData(r, Qt.Orientation.Vertical) for r in range(4)] == list(session.tokens)
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in session.tensor("inputs")]
    assert editor.tensor_combo.findData("W_Q") == -1


# --- typing into cells -----------------------------------------------------------------------

def test_set_data_with_text_changes_tensor_and_trace(editor, session):
    choose_tensor(editor, "W_in")
    before = session.trace["mlp.hook_pre"].copy()
    assert editor.model.setData(editor.model.index(0, 1), "0.5", EDIT)
    assert session.tensor("W_in")[0, 1] == 0.5
    assert editor.model.index(0, 1).data(DISPLAY) == "0.500000"
    assert not np.array_equal(session.trace["mlp.hook_pre"], before)
    assert_trace_is_core_forward(session)


def test_typing_into_the_cell_editor_changes_tensor_and_trace(qtbot, editor, session):
    choose_tensor(editor, "W_out")
    index = editor.model.index(2, 3)
    editor.table.setCurrentIndex(index)
    editor.table.edit(index)
    cell_editor = editor.table.indexWidget(index)
    assert cell_editor is not None
    qtbot.keyClicks(cell_editor, "-1.25")
    qtbot.keyClick(cell_editor, Qt.Key.Key_Return)          # the delegate commits on the next event loop turn
    settle(lambda: editor.table.indexWidget(index) is None)
    assert session.tensor("W_out")[2, 3] == -1.25
    assert editor.model.index(2, 3).data(DISPLAY) == "−1.250000"      # typed "-", shown "−"
    assert_trace_is_core_forward(session)


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-Infinity", "1e7", "", "1,000"])
def test_bad_text_is_refused_with_a_message(qtbot, editor, session, text):
    choose_tensor(editor, "W_in")
    tensor, trace, steps = session.tensor("W_in").copy(), dict(session.trace), session.undo_stack.count()
    with qtbot.waitSignal(session.message) as blocker:
        assert not editor.model.setData(editor.model.index(1, 2), text, EDIT)
    assert blocker.args[0]
    np.testing.assert_array_equal(session.tensor("W_in"), tensor)
    assert all(np.array_equal(session.trace[h], trace[h]) for h in trace)
    assert session.undo_stack.count() == steps
    assert editor.model.index(1, 2).data(DISPLAY) == style.format_number(tensor[1, 2])


@pytest.mark.parametrize("text", ["abc", "nan", "-inf", "1e7"])
def test_bad_text_typed_in_the_cell_editor_is_refused(qtbot, editor, session, text):
    choose_tensor(editor, "inputs")
    tensor, steps = session.tensor("inputs").copy(), session.undo_stack.count()
    index = editor.model.index(2, 0)
    editor.table.setCurrentIndex(index)
    editor.table.edit(index)
    cell_editor = editor.table.indexWidget(index)
    qtbot.keyClicks(cell_editor, text)
    with qtbot.waitSignal(session.message):
        qtbot.keyClick(cell_editor, Qt.Key.Key_Return)
    settle(lambda: editor.table.indexWidget(index) is None)
    np.testing.assert_array_equal(session.tensor("inputs"), tensor)
    assert session.undo_stack.count() == steps
    assert editor.model.index(2, 0).data(DISPLAY) == style.format_number(tensor[2, 0])


def test_undo_and_redo_restore_exact_values(editor, session):
    choose_tensor(editor, "W_in")
    original = session.tensor("W_in").copy()
    assert editor.model.setData(editor.model.index(3, 5), "0.123456789", EDIT)
    # "1,000" could mean 1000 or 1.000: a comma is refused, never guessed
    assert not editor.model.setData(editor.model.index(0, 0), "−2,5", EDIT)
    assert editor.model.setData(editor.model.index(0, 0), "−2.5", EDIT)   # the Unicode minus is fine
    edited = session.tensor("W_in").copy()
    assert edited[3, 5] == 0.123456789 and edited[0, 0] == -2.5
    session.undo_stack.undo()
    session.undo_stack.undo()
    np.testing.assert_array_equal(session.tensor("W_in"), original)
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in original]
    session.undo_stack.redo()
    session.undo_stack.redo()
    np.testing.assert_array_equal(session.tensor("W_in"), edited)
    assert editor.model.index(3, 5).data(EDIT) == 0.123456789
    assert_trace_is_core_forward(session)


# --- dragging the selected cell --------------------------------------------------------------

def test_slider_drag_is_one_undo_step(qtbot, editor, session):
    choose_tensor(editor, "W_in")
    click_cell(qtbot, editor, 0, 1)
    original, steps = session.tensor("W_in")[0, 1], session.undo_stack.count()
    slider = editor.value_slider
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                           QStyle.SubControl.SC_SliderHandle, slider).center()
    qtbot.mousePress(slider, Qt.MouseButton.LeftButton, pos=handle)
    seen = []
    for dx in (10, 25, 40):
        qtbot.mouseMove(slider, handle + QPoint(dx, 0))
        seen.append(session.tensor("W_in")[0, 1])
    qtbot.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=handle + QPoint(40, 0))
    assert len(set(seen)) == 3 and seen[-1] > original
    assert editor.value_spin.value() == pytest.approx(seen[-1])
    assert session.undo_stack.count() == steps + 1
    controls = editor.cell_controls
    assert slider.value() == round(seen[-1] / controls.step)      # the handle stays at the value
    assert seen[-1] == pytest.approx(slider.value() * controls.step)
    assert_trace_is_core_forward(session)
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 1] == original
    assert editor.value_spin.value() == pytest.approx(original)


def test_a_slider_drag_updates_the_views_once_a_frame_and_at_the_release(editor, session):
    """Values under a dragged handle are written at once (undo and `tensor()` are current) but
    the trace and the views follow once per frame, and the last value when the handle is let go."""
    from app.session import Change
    choose_tensor(editor, "W_in")
    session.select_edit_cell("W_in", (1, 1))
    updates = []
    session.changed.connect(lambda change: updates.append(change) if change & Change.TRACE else None)
    slider = editor.value_slider
    slider.setSliderDown(True)
    for position in (10, 20, 30):                 # no event loop between: all within one frame
        slider.setValue(position)
    assert session.tensor("W_in")[1, 1] == pytest.approx(30 * editor.cell_controls.step)
    assert session.pending and updates == []
    slider.setSliderDown(False)                   # let go: the update now, once
    assert not session.pending and len(updates) == 1
    assert editor.model.index(1, 1).data(DISPLAY) == style.format_number(session.tensor("W_in")[1, 1])
    assert_trace_is_core_forward(session)


def handle_value(editor) -> float:
    """The value the slider's scale reads under its handle (its ends are the printed labels)."""
    slider = editor.value_slider
    low = float(editor.cell_controls.slider_minus.text().replace("−", "-"))
    high = float(editor.cell_controls.slider_plus.text())
    return low + (high - low) * (slider.value() - slider.minimum()) / (slider.maximum() - slider.minimum())


def test_the_slider_scale_is_honest(editor, session):
    """The labels at the ends are the values there, the handle sits at the cell's value, and a
    drag sets the value under the handle (it does not move relative to where the drag began)."""
    choose_tensor(editor, "inputs")
    session.select_edit_cell("inputs", (0, 1))
    assert session.tensor("inputs")[0, 1] == 0.5
    controls, slider = editor.cell_controls, editor.value_slider
    assert (controls.slider_minus.text(), controls.slider_plus.text()) == ("−2", "+2")
    assert handle_value(editor) == pytest.approx(0.5)
    slider.setSliderDown(True)
    for position, value in ((5, 0.05), (30, 0.3), (150, 1.5), (-200, -2.0)):
        slider.setValue(position)
        assert session.tensor("inputs")[0, 1] == pytest.approx(value)
        assert handle_value(editor) == pytest.approx(value)
    slider.setSliderDown(False)
    assert handle_value(editor) == pytest.approx(-2.0)          # no snapping back to the middle


@pytest.mark.parametrize("value, scale", [(0.3, 2), (-1.5, 5), (3.0, 10), (-40.0, 100), (999999.0, 2000000)])
def test_the_slider_scale_fits_the_value(editor, session, value, scale):
    choose_tensor(editor, "W_in")
    assert editor.model.setData(editor.model.index(2, 3), str(value), EDIT)
    session.select_edit_cell("W_in", (0, 0))
    session.select_edit_cell("W_in", (2, 3))                     # chosen afresh for the cell
    controls = editor.cell_controls
    assert controls.scale == scale
    assert controls.slider_plus.text() == f"+{scale}" and controls.slider_minus.text() == f"−{scale}"
    assert handle_value(editor) == pytest.approx(value, abs=controls.step / 2)
    assert -scale <= value <= scale


def test_the_scale_follows_a_value_that_leaves_it(editor, session):
    choose_tensor(editor, "W_in")
    session.select_edit_cell("W_in", (1, 1))
    assert editor.cell_controls.scale == 2
    editor.value_spin.setValue(3.5)                              # beyond ±2: the handle would leave the scale
    assert editor.cell_controls.scale == 10
    assert handle_value(editor) == pytest.approx(3.5)


def test_spin_box_sets_the_selected_cell(editor, session):
    choose_tensor(editor, "W_O")
    editor.head_selector.setCurrentIndex(1)
    session.select_edit_cell("W_O", (1, 0, 3))
    steps = session.undo_stack.count()
    editor.value_spin.setValue(0.3)
    editor.value_spin.setValue(0.35)
    assert session.tensor("W_O")[1, 0, 3] == pytest.approx(0.35)
    assert session.undo_stack.count() == steps + 1
    assert editor.model.index(0, 3).data(DISPLAY) == "0.350000"


def test_nudges_after_a_pause_are_a_new_undo_step(editor, session, clock):
    choose_tensor(editor, "W_in")
    session.select_edit_cell("W_in", (1, 4))
    steps = session.undo_stack.count()
    editor.value_spin.setValue(0.3)
    clock.advance(0.5)
    editor.value_spin.setValue(0.35)
    assert session.undo_stack.count() == steps + 1            # one gesture
    clock.advance(Session.GESTURE_GAP_S + 0.5)                # the learner paused
    editor.value_spin.setValue(0.4)
    assert session.undo_stack.count() == steps + 2
    session.undo_stack.undo()
    assert session.tensor("W_in")[1, 4] == pytest.approx(0.35)


def test_wheel_over_the_selected_cell_nudges_it(qtbot, editor, session):
    choose_tensor(editor, "W_in")
    click_cell(qtbot, editor, 2, 2)
    original = session.tensor("W_in")[2, 2]
    centre = editor.table.visualRect(editor.model.index(2, 2)).center()
    wheel(editor.table.viewport(), centre, 2)
    assert session.tensor("W_in")[2, 2] == pytest.approx(original + 0.10)
    wheel(editor.table.viewport(), centre, -1, Qt.KeyboardModifier.ShiftModifier)
    assert session.tensor("W_in")[2, 2] == pytest.approx(original + 0.09)
    other = editor.table.visualRect(editor.model.index(0, 0)).center()
    before = session.tensor("W_in").copy()
    wheel(editor.table.viewport(), other, 1)      # not the selected cell: nothing changes
    np.testing.assert_array_equal(session.tensor("W_in"), before)


def test_wheel_over_the_spin_box_nudges_by_005_or_001_with_shift(editor, session):
    choose_tensor(editor, "b_out")
    session.select_edit_cell("b_out", (1,))
    original = session.tensor("b_out")[1]
    spin = editor.value_spin
    wheel(spin, spin.rect().center(), 1)
    assert session.tensor("b_out")[1] == pytest.approx(original + 0.05)
    wheel(spin, spin.rect().center(), 1, Qt.KeyboardModifier.ShiftModifier)
    assert session.tensor("b_out")[1] == pytest.approx(original + 0.06)


def test_widgets_follow_undo_with_signals_blocked(editor, session):
    choose_tensor(editor, "W_in")
    session.select_edit_cell("W_in", (1, 4))
    editor.value_spin.setValue(1.5)
    steps = session.undo_stack.count()
    session.undo_stack.undo()
    assert editor.value_spin.value() == pytest.approx(session.tensor("W_in")[1, 4])
    assert session.undo_stack.count() == steps      # pushing the value back did not write an edit
    assert session.undo_stack.index() == steps - 1


# --- paste -----------------------------------------------------------------------------------

def test_paste_a_2x2_block_is_one_undo_step_at_the_current_cell(qtbot, editor, session):
    choose_tensor(editor, "W_in")
    click_cell(qtbot, editor, 1, 2)
    original, steps = session.tensor("W_in").copy(), session.undo_stack.count()
    QGuiApplication.clipboard().setText("0.1\t-0.2\n0.3\t0.4\n")
    qtbot.mouseClick(editor.paste_button, Qt.MouseButton.LeftButton)
    expected = original.copy()
    expected[1:3, 2:4] = [[0.1, -0.2], [0.3, 0.4]]
    np.testing.assert_array_equal(session.tensor("W_in"), expected)
    assert session.undo_stack.count() == steps + 1
    assert "W_in" in session.undo_stack.text(steps)
    assert shown_table(editor)[2][3] == "0.400000"
    assert_trace_is_core_forward(session)
    session.undo_stack.undo()
    np.testing.assert_array_equal(session.tensor("W_in"), original)


def test_ctrl_v_in_the_table_pastes_comma_and_space_separated_rows(qtbot, editor, session):
    choose_tensor(editor, "inputs")
    click_cell(qtbot, editor, 0, 0)
    QGuiApplication.clipboard().setText("1, 2, 3\n4 5 6")
    qtbot.keyClick(editor.table, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    np.testing.assert_array_equal(session.tensor("inputs")[:2, :3], [[1, 2, 3], [4, 5, 6]])


@pytest.mark.parametrize("text", ["0.1\t0.2\n0.3\tfoo", "0.1\tnan", "inf 1", "1 2e6", "   \n"])
def test_paste_with_a_bad_entry_changes_nothing(qtbot, editor, session, text):
    choose_tensor(editor, "W_in")
    click_cell(qtbot, editor, 0, 0)
    original, steps = session.tensor("W_in").copy(), session.undo_stack.count()
    QGuiApplication.clipboard().setText(text)
    with qtbot.waitSignal(session.message):
        qtbot.mouseClick(editor.paste_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_in"), original)
    assert session.undo_stack.count() == steps


def test_paste_is_clipped_to_the_table(qtbot, editor, session):
    choose_tensor(editor, "W_in")
    click_cell(qtbot, editor, 3, 5)
    original = session.tensor("W_in").copy()
    QGuiApplication.clipboard().setText("7 8\n9 10")
    with qtbot.waitSignal(session.message):
        qtbot.mouseClick(editor.paste_button, Qt.MouseButton.LeftButton)
    expected = original.copy()
    expected[3, 5] = 7
    np.testing.assert_array_equal(session.tensor("W_in"), expected)


def test_paste_into_a_head_slice(qtbot, editor, session):
    choose_tensor(editor, "W_V")
    editor.head_selector.setCurrentIndex(1)
    click_cell(qtbot, editor, 2, 0)
    original = session.tensor("W_V").copy()
    QGuiApplication.clipboard().setText("0.5\t0.6")
    qtbot.mouseClick(editor.paste_button, Qt.MouseButton.LeftButton)
    expected = original.copy()
    expected[1, 2, :] = [0.5, 0.6]
    np.testing.assert_array_equal(session.tensor("W_V"), expected)


# --- fill buttons ----------------------------------------------------------------------------

def test_zero_identity_reset_buttons(qtbot, editor, session):
    choose_tensor(editor, "W_out")
    loaded = session.loaded.weights["W_out"]
    steps = session.undo_stack.count()
    qtbot.mouseClick(editor.zero_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_out"), np.zeros((6, 4)))
    assert set(np.ravel(shown_table(editor))) == {"0.000000"}
    qtbot.mouseClick(editor.identity_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_out"), np.eye(6, 4))
    qtbot.mouseClick(editor.reset_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_out"), loaded)
    assert session.undo_stack.count() == steps + 3
    assert_trace_is_core_forward(session)


def test_identity_on_a_per_head_tensor_fills_every_head(qtbot, editor, session):
    choose_tensor(editor, "W_O")
    qtbot.mouseClick(editor.identity_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_O"), filled((2, 2, 4), "identity"))


def test_random_uses_the_shown_seed_and_advances_it(qtbot, editor, session):
    choose_tensor(editor, "W_in")
    assert editor.seed_spin.value() == 0
    editor.seed_spin.setValue(7)
    steps = session.undo_stack.count()
    qtbot.mouseClick(editor.random_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_in"), filled((4, 6), "random", 7))
    assert "7" in session.undo_stack.text(steps)
    assert editor.seed_spin.value() == 8
    qtbot.mouseClick(editor.random_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_in"), filled((4, 6), "random", 8))
    assert editor.seed_spin.value() == 9
    editor.seed_spin.setValue(7)                    # same seed, same matrix
    qtbot.mouseClick(editor.random_button, Qt.MouseButton.LeftButton)
    np.testing.assert_array_equal(session.tensor("W_in"), filled((4, 6), "random", 7))
    assert session.undo_stack.count() == steps + 3
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in filled((4, 6), "random", 7)]


# --- colour ----------------------------------------------------------------------------------

def test_cell_colour_follows_its_value_on_a_fixed_scale(editor, session):
    choose_tensor(editor, "W_in")
    model = editor.model
    zero_cell, one_cell = model.index(0, 1), model.index(0, 0)
    assert session.tensor("W_in")[0, 1] == 0 and session.tensor("W_in")[0, 0] == 1
    zero_colour, one_colour = zero_cell.data(BACKGROUND), one_cell.data(BACKGROUND)
    assert zero_colour != one_colour
    assert model.setData(zero_cell, "-0.8", EDIT)
    assert zero_cell.data(BACKGROUND) != zero_colour
    assert zero_cell.data(BACKGROUND) == style.tint(-0.8, style.limit_for(session.loaded.weights["W_in"]))
    assert model.setData(model.index(2, 4), "9", EDIT)     # far outside the loaded scale
    assert one_cell.data(BACKGROUND) == one_colour          # the scale did not move
    session.undo_stack.undo()
    session.undo_stack.undo()
    assert zero_cell.data(BACKGROUND) == zero_colour


def test_columns_are_wide_enough_for_every_number(editor, session):
    choose_tensor(editor, "W_in")
    assert editor.model.setData(editor.model.index(0, 0), "-123456.5", EDIT)
    metrics = editor.table.fontMetrics()
    needed = metrics.horizontalAdvance("−123456.500000")
    assert all(editor.table.columnWidth(c) > needed for c in range(6))
    assert editor.table.font().pointSizeF() >= 10


# --- translations ----------------------------------------------------------------------------

def test_every_string_has_a_chinese_translation():
    source = (ROOT / "app" / "explorer" / "weights_editor.py").read_text(encoding="utf-8")
    table = json.loads((ROOT / "resources" / "i18n" / "zh" / "weights_editor.json").read_text(encoding="utf-8"))
    missing = []
    for cls in (node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "tr":
                text = ast.literal_eval(node.args[0])
                if not table.get(cls.name, {}).get(text):
                    missing.append((cls.name, text))
    assert not missing


def test_chinese_labels(qtbot, session):
    from app import i18n

    i18n.install("zh")
    try:
        widget = WeightEditor(session)
        qtbot.addWidget(widget)
        assert widget.zero_button.text() == "清零"
        assert widget.tensor_combo.itemText(0).startswith("输入 x")
        widget.close()
    finally:
        i18n.install("en")


def test_slider_track_click_steps_from_the_exact_value(editor, session):
    choose_tensor(editor, "W_in")
    assert editor.model.setData(editor.model.index(1, 1), "0.123456", EDIT)
    session.select_edit_cell("W_in", (1, 1))
    editor.value_slider.triggerAction(editor.value_slider.SliderAction.SliderPageStepAdd)
    assert session.tensor("W_in")[1, 1] == pytest.approx(0.173456)
    assert handle_value(editor) == pytest.approx(0.17)
    editor.value_slider.triggerAction(editor.value_slider.SliderAction.SliderPageStepAdd)
    assert session.tensor("W_in")[1, 1] == pytest.approx(0.223456)


def test_a_spreadsheet_paste_with_decimal_commas_is_refused_whole(editor, session):
    from PySide6.QtGui import QGuiApplication
    choose_tensor(editor, "W_in")
    before = session.tensor("W_in").copy()
    QGuiApplication.clipboard().setText("0,5\t1,5\n2\t3")
    assert not editor.paste()
    np.testing.assert_array_equal(session.tensor("W_in"), before)


# --- readable: the minus sign, the zoom, the language ------------------------------------------

def test_a_selected_negative_number_is_not_clipped_by_the_frame(qtbot, editor, session):
    """The selection frame covers the first FRAME px of the cell; the number starts after them."""
    from app.explorer.tables import FRAME, padding
    choose_tensor(editor, "W_in")
    assert editor.model.setData(editor.model.index(1, 1), "-123.456789", EDIT)
    click_cell(qtbot, editor, 1, 1)
    text = editor.model.index(1, 1).data(DISPLAY)
    assert text.startswith("−")
    metrics = editor.table.fontMetrics()
    assert padding() > FRAME
    cell = editor.table.visualRect(editor.model.index(1, 1))                  # without the grid line
    assert cell.width() >= metrics.horizontalAdvance(text) + 2 * padding()
    # What is painted: the frame's dark band at the cell's edge, the number right-aligned inside
    # the padding, so it begins after the frame.
    image = editor.table.viewport().grab(cell).toImage()
    assert image.pixelColor(0, image.height() // 2).lightness() < 60
    assert cell.width() - padding() - metrics.horizontalAdvance(text) >= padding()


def test_zoom_scales_the_table_and_its_columns(editor, session):
    from app.widgets.appearance import appearance
    choose_tensor(editor, "inputs")
    small_font, small_width = editor.table.fontInfo().pixelSize(), editor.table.columnWidth(0)
    try:
        appearance().set_zoom(1.5)
        assert editor.table.fontInfo().pixelSize() >= 16
        assert editor.table.columnWidth(0) > small_width
        text = editor.model.index(0, 0).data(DISPLAY)
        assert editor.table.columnWidth(0) >= editor.table.fontMetrics().horizontalAdvance(text)
    finally:
        appearance().set_zoom(1.0)
    assert editor.table.fontInfo().pixelSize() == small_font


def test_the_language_switches_live_without_losing_anything(qtbot, editor, session):
    from app import i18n
    choose_tensor(editor, "W_Q")
    editor.head_selector.setCurrentIndex(1)
    session.select_edit_cell("W_Q", (1, 2, 1))
    assert editor.model.setData(editor.model.index(2, 1), "0.25", EDIT)
    steps, cell = session.undo_stack.count(), (session.edit_tensor, session.edit_index)
    i18n.install("zh")
    try:
        settle(lambda: editor.zero_button.text() == "清零")
        assert editor.head_selector.currentText() == "头 2" and editor.tensor_actions.file_button.text() == "文件"
        assert editor.tensor_combo.itemText(0).startswith("输入 x")
        assert (session.edit_tensor, session.edit_index) == cell and session.undo_stack.count() == steps
        assert editor.table.currentIndex() == editor.model.index(2, 1)
    finally:
        i18n.install("en")
    settle(lambda: editor.zero_button.text() == "Zero")
    assert editor.head_selector.currentText() == "head 2"


# --- files -------------------------------------------------------------------------------------

def test_export_and_import_through_the_editor(editor, session, tmp_path):
    choose_tensor(editor, "W_K")
    editor.head_selector.setCurrentIndex(1)
    original = session.tensor("W_K").copy()
    assert editor.export_tensor(tmp_path / "wk.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "wk.npy"), original)
    np.savetxt(tmp_path / "head.csv", np.full((4, 2), 0.5), delimiter=",")
    steps = session.undo_stack.count()
    assert editor.import_tensor(tmp_path / "head.csv")                  # one head's shape: the shown head
    np.testing.assert_array_equal(session.tensor("W_K")[1], np.full((4, 2), 0.5))
    np.testing.assert_array_equal(session.tensor("W_K")[0], original[0])
    assert session.undo_stack.count() == steps + 1
    assert shown_table(editor)[0][0] == "0.500000"
    session.undo_stack.undo()
    np.testing.assert_array_equal(session.tensor("W_K"), original)


def test_the_file_menu_names_the_tensor(editor, session):
    choose_tensor(editor, "b_out")
    actions = [action for action in editor.tensor_actions.file_menu().actions() if action.objectName()]
    assert [action.objectName() for action in actions] == ["weightImport", "weightExportCsv", "weightExportNpy"]
    assert all("b_out" in action.text() for action in actions)


# --- at GPT-2-small size: as at lesson size, undo included -------------------------------------

@pytest.fixture(scope="module")
def gpt2_small():
    from core.formats.generate import preset
    return preset("gpt2-small")


def test_editing_one_cell_of_a_768_by_3072_matrix(qtbot, gpt2_small):
    from tests.app.helpers import FakeClock
    session = Session(gpt2_small, clock=FakeClock())
    widget = WeightEditor(session)
    qtbot.addWidget(widget)
    widget.resize(420, 600)
    widget.show()
    qtbot.waitExposed(widget)
    choose_tensor(widget, "W_in")
    model = widget.model
    assert (model.rowCount(), model.columnCount()) == (768, 3072)
    assert widget.overview.isVisible() and widget.overview.shape == (768, 3072)
    changed = []
    model.dataChanged.connect(lambda top, bottom, roles: changed.append((top.row(), top.column(),
                                                                         bottom.row(), bottom.column())))
    widget.overview.cellPicked.emit(700, 3000)                            # jump there with the overview
    assert session.edit_index == (700, 3000) and widget.table.currentIndex() == model.index(700, 3000)
    first_row, last_row, first_column, last_column = widget.table.visible_cells()
    assert first_row <= 700 <= last_row and first_column <= 3000 <= last_column
    original = session.tensor("W_in")[700, 3000]
    assert model.setData(model.index(700, 3000), "0.75", EDIT)
    assert session.tensor("W_in")[700, 3000] == 0.75 and model.index(700, 3000).data(DISPLAY) == "0.750000"
    assert changed == [(700, 3000, 700, 3000)]                          # that cell, and only it, repainted
    expected = forward(session.config, session.state.weights, session.state.inputs)
    for hook in expected:                                                # core's incremental agreement
        np.testing.assert_allclose(session.trace[hook], expected[hook], rtol=1e-12, atol=1e-12, err_msg=hook)
    session.undo_stack.undo()
    assert session.tensor("W_in")[700, 3000] == original
    assert model.index(700, 3000).data(EDIT) == original
    widget.close()


def test_the_shipped_gpt2_small_example_in_the_tables(qtbot):
    """The shipped example (its arrays in the .npz beside it): the editor and the inspector on
    one Session, an edit of W_out reaching the inspector's output table, undone exactly."""
    from app.explorer.inspector import Inspector
    from tests.app.helpers import FakeClock
    session = Session(load_scenario(SCENARIOS / "gpt2-small-shape.json"), clock=FakeClock())
    editor, inspector = WeightEditor(session), Inspector(session)
    for widget in (editor, inspector):
        qtbot.addWidget(widget)
        widget.resize(420, 500)
        widget.show()
    choose_tensor(editor, "W_out")
    assert (editor.model.rowCount(), editor.model.columnCount()) == (3072, 768)
    before = np.array(session.trace["hook_resid_post"])
    assert editor.model.setData(editor.model.index(5, 9), "0.5", EDIT)
    after = session.trace["hook_resid_post"]
    assert not np.array_equal(after[:, 9], before[:, 9]) and np.array_equal(after[:, 10], before[:, 10])
    np.testing.assert_array_equal(inspector.model.array, after)          # the output, as shown
    session.undo_stack.undo()
    np.testing.assert_allclose(session.trace["hook_resid_post"], before, rtol=1e-12, atol=1e-12)
    for widget in (editor, inspector):
        widget.close()


def test_every_edit_repaints_its_cell_though_the_session_writes_in_place(editor, session):
    """The Session writes cell edits into its arrays in place (after the first, which copies):
    the table still repaints exactly the edited cells, each time, and after undo and redo."""
    choose_tensor(editor, "W_in")
    model, changed = editor.model, []
    model.dataChanged.connect(lambda top, bottom, roles: changed.append((top.row(), top.column(),
                                                                         bottom.row(), bottom.column())))
    for value, cell in ((0.25, (1, 2)), (0.5, (1, 2)), (-123.456789, (3, 0))):
        changed.clear()
        assert session.set_value("W_in", cell, value)
        assert changed == [(*cell, *cell)] and model.index(*cell).data(DISPLAY) == style.format_number(value)
    changed.clear()
    session.undo_stack.undo()
    assert changed == [(3, 0, 3, 0)]
    changed.clear()
    session.undo_stack.redo()
    assert changed == [(3, 0, 3, 0)]
    changed.clear()
    assert session.set_value("W_out", (0, 0), 0.125)                  # another tensor: nothing here
    assert changed == []


def test_presenting_the_table_shows_all_its_rows_and_the_editing_buttons_step_aside(qtbot, editor, session):
    """On a projector the table is for the audience: the fill / paste / file buttons hide while
    presenting and the table keeps all its rows' height (R45 step 3 at 1024×768 showed three of
    W_out's six rows behind a scroll bar); typing into a cell still edits; on leaving, all is back."""
    from app.widgets.appearance import appearance
    choose_tensor(editor, "W_out")
    editor.resize(420, 150)
    settle(lambda: editor.table.verticalScrollBar().maximum() > 0)      # short: its rows scroll
    appearance().set_presenting(True)
    try:
        settle(lambda: not editor.tensor_actions.isVisible())
        table = editor.table
        settle(lambda: table.viewport().height() >= table.verticalHeader().length())
        assert table.verticalScrollBar().maximum() == 0 and editor.model.rowCount() == 6
        assert editor.value_slider.isVisible()      # (the spin box steps aside while the editor is short)
        index = editor.model.index(5, 3)
        table.setCurrentIndex(index)
        table.edit(index)
        qtbot.keyClicks(table.indexWidget(index), "0.75")
        qtbot.keyClick(table.indexWidget(index), Qt.Key.Key_Return)
        settle(lambda: session.tensor("W_out")[5, 3] == 0.75)
    finally:
        appearance().set_presenting(False)
    settle(lambda: editor.tensor_actions.isVisible() and editor.zero_button.isVisible())
    assert editor.table.minimumHeight() == 0


def test_a_view_that_repaints_before_the_editor_hears_of_a_change_sees_the_last_shown_numbers(qtbot, session):
    """The 10,000-action soak (seed 1, action 8795) opened a file whose block has no ln2.b while
    the editor showed ln2.b: the config panel, told of the change first, laid the window out, the
    editor's table was resized and painted, and its model asked the Session for ln2.b: KeyError.
    Until the editor is told, its table shows what it last showed."""
    seen = []
    holder = {}

    def early_listener(_change):            # connected before the editor: runs first, as the panel did
        model = holder["editor"].model
        seen.append([[model.index(r, c).data(DISPLAY) for c in range(model.columnCount())]
                     for r in range(model.rowCount())])
        seen.append([model.cell_look(r, c)[2] for r in range(model.rowCount()) for c in range(model.columnCount())])

    session.changed.connect(early_listener)
    editor = holder["editor"] = WeightEditor(session)
    qtbot.addWidget(editor)
    choose_tensor(editor, "ln2.b")
    before = shown_table(editor)
    seen.clear()
    assert session.set_config(norm="rmsnorm")           # RMSNorm has no bias: ln2.b is gone
    assert seen[0] == before                               # the last shown row, not an exception
    assert seen[1] == [text for row in before for text in row]
    assert editor.model.tensor_name != "ln2.b"            # then the editor follows the Session
    assert editor.tensor_combo.findData("ln2.b") == -1
    shown = np.atleast_2d(editor.model.view_array())
    assert shown_table(editor) == [[style.format_number(v) for v in row] for row in shown]
    editor.close()
