"""The defects a teacher hit in a run-through (issue 9), each pinned by a test.

Keys are sent as a user presses them (qtbot.keyClick goes through Qt's shortcut handling);
what is checked is what the user would see: the undo stack's position, the step shown, the
status bar, a button's text, where a label stands, whether a text fits its cell.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QTableWidget

from core.resources import lessons_dir
from tests.conftest import SCENARIOS

R45 = lessons_dir() / "r45-ffn-residual-norm.json"
C4 = lessons_dir() / "c4-ffn.json"


def press(qtbot, widget, key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """Click the widget's key as a user at the keyboard would: in the active window, on the focus."""
    window = widget.window()
    if not window.isActiveWindow():
        window.windowHandle().requestActivate()      # offscreen, activateWindow() alone may not
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    widget.setFocus()
    qtbot.keyClick(widget, key, modifiers)


# --- Redo from the keyboard -------------------------------------------------------------------
def test_redo_works_from_the_keyboard_with_ctrl_y_and_ctrl_shift_z(blocklab_window, qtbot, qtlog):
    lab = blocklab_window
    window, stack = lab.window, lab.session.undo_stack
    lab.session.set_value("W_in", (0, 0), 0.5)
    lab.session.set_value("W_in", (0, 1), 0.25)
    assert stack.index() == 2
    target = window.dataflow
    press(qtbot, target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert stack.index() == 1
    press(qtbot, target, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert stack.index() == 2
    press(qtbot, target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, target, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert stack.index() == 2 and lab.tensor("W_in")[0, 1] == 0.25
    assert not [record for record in qtlog.records if "mbiguous" in record.message]


def test_gnome_style_bindings_give_redo_both_keys_once(monkeypatch):
    """On GNOME the platform's Redo is Ctrl+Shift+Z alone: Ctrl+Y is added, nothing doubled."""
    from app.undo_actions import standard_shortcuts
    gnome = {QKeySequence.StandardKey.Redo: [QKeySequence("Ctrl+Shift+Z")]}
    monkeypatch.setattr(QKeySequence, "keyBindings", staticmethod(lambda key: list(gnome.get(key, []))))
    names = [k.toString() for k in standard_shortcuts(QKeySequence.StandardKey.Redo, "Ctrl+Y", "Ctrl+Shift+Z")]
    assert names == ["Ctrl+Shift+Z", "Ctrl+Y"]


def test_redo_keys_work_with_gnome_style_bindings(blocklab_open, qtbot, qtlog, monkeypatch):
    original = QKeySequence.keyBindings
    monkeypatch.setattr(QKeySequence, "keyBindings", staticmethod(
        lambda key: [QKeySequence("Ctrl+Shift+Z")] if key == QKeySequence.StandardKey.Redo else original(key)))
    lab = blocklab_open(SCENARIOS / "block-default.json")
    stack = lab.session.undo_stack
    lab.session.set_value("W_in", (0, 0), 0.5)
    for modifiers in (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
                      Qt.KeyboardModifier.ControlModifier):
        press(qtbot, lab.window.dataflow, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        assert stack.index() == 0
        press(qtbot, lab.window.dataflow, Qt.Key.Key_Z if modifiers & Qt.KeyboardModifier.ShiftModifier
              else Qt.Key.Key_Y, modifiers)
        assert stack.index() == 1
    assert not [record for record in qtlog.records if "mbiguous" in record.message]


def test_no_key_sequence_is_registered_twice_in_the_window(blocklab_window):
    """Two actions (or one action twice) on one sequence is what made Redo ambiguous."""
    seen: dict[str, str] = {}
    for action in blocklab_window.window.findChildren(QAction):
        for sequence in action.shortcuts():
            name = sequence.toString(QKeySequence.SequenceFormat.PortableText)
            assert name not in seen, f"{name} is {seen.get(name)} and {action.objectName()}"
            seen[name] = action.objectName()
    assert {"Ctrl+Y", "Ctrl+Shift+Z"} <= {k.toString() for k in blocklab_window.window.redo_action.shortcuts()}


# --- One screen, one meaning: two MSEs, each labelled --------------------------------------------
def test_the_lab_and_the_status_bar_say_whose_mse_they_show(blocklab_open):
    lab = blocklab_open(C4)
    lab.window.lessons.go(1)                       # step 2: the linear try beside the two-neuron block
    QApplication.processEvents()
    status = lab.find(QLabel, "statusMse").text()
    own = lab.find(QLabel, "xorMse").text()
    assert status == "Block output vs targets: MSE 0.000000"
    assert "linear try" in own and "MSE = 1" in own
    lab.window.lessons.go(3)                       # step 4: the table shows the block's output
    QApplication.processEvents()
    assert "FFN's (the block's)" in lab.find(QLabel, "xorMse").text()


# --- An accepted value clears the refusal ----------------------------------------------------------
def test_an_accepted_value_clears_the_previous_refusal(blocklab_window):
    lab = blocklab_window
    assert not lab.set_weight("W_in", (0, 0), "abc")
    assert "not a number" in lab.status_text()
    assert lab.set_weight("W_in", (0, 0), "0.5")
    assert lab.status_text() == ""
    lab.session.use_output_as_targets()            # a message that follows an accepted change stays
    assert "is now the target" in lab.status_text()


# --- Captions that agree with the screen -----------------------------------------------------------
def test_c4_step_2_puts_the_identity_where_the_caption_says(blocklab_open):
    lab = blocklab_open(C4)
    lab.window.lessons.go(1)
    QApplication.processEvents()
    caption = lab.window.lesson_bar.caption.text()
    # "next to": at 1280×800 it stands right of the table; at 150 % on a 1024 px screen it goes
    # under it (tests/app/test_desk_fits_at_zoom.py), still next to it
    assert "next to the table" in caption
    table, identity = lab.find(QTableWidget, "xorTable"), lab.find(QLabel, "xorIdentity")
    window = lab.window
    table_right = table.mapTo(window, table.rect().topRight()).x()
    identity_left = identity.mapTo(window, identity.rect().topLeft()).x()
    identity_top = identity.mapTo(window, identity.rect().topLeft()).y()
    assert identity_left > table_right                                    # to its right …
    assert identity_top < table.mapTo(window, table.rect().bottomLeft()).y()   # … not below it
    lab.window.lessons.close()


def test_no_caption_says_a_web_browser():
    from tests.conftest import ROOT
    texts = [path.read_text(encoding="utf-8") for path in (ROOT / "resources").rglob("*.json")]
    assert not any("浏览器" in text for text in texts)


@pytest.mark.parametrize("language", ["zh", "en"])
def test_r45_step_7_caption_names_what_the_diagram_shows_in_every_mode(blocklab_open, language):
    """R45 step 7 (b3) talks about the nodes it lights, by the titles the diagram gives them, not
    about a layout: the explorer draws the block in two rows, presentation mode at a projector's
    1024×768 draws only those nodes in one row. In both, each is on screen whole and named."""
    from tests.app.readability import settle
    lab = blocklab_open(R45, language=language)
    window = lab.window
    window.resize(1280, 800)
    lessons = window.lessons
    lessons.go(lessons.lesson.step_index("b3"))
    settle(QApplication.instance(), 3)
    caption = " ".join(window.lesson_bar.caption.text().split())
    assert "row" not in caption and "行" not in caption.replace("进行", "")
    view = window.dataflow
    hooks = set(window.session.highlight.hooks)
    assert hooks == {"attn.hook_pattern", "hook_attn_out", "hook_resid_mid", "mlp.hook_post", "hook_resid_post"}
    for presenting in (False, True):
        if presenting:
            window.presentation.enter(full_screen=False)
            settle(QApplication.instance(), 3)
            window.resize(1024, 768)
            settle(QApplication.instance(), 3)
        screen = view.viewport().rect()
        for hook in hooks:
            title = view.node_title(hook)
            named = title.replace("\n", "") if language == "zh" else " ".join(title.split())
            assert named in caption, (hook, named)
            node = view.node_item(hook)
            shown = view.mapFromScene(node.mapRectToScene(node.rect())).boundingRect()
            if presenting:
                assert node.isVisible() and screen.adjusted(-1, -1, 1, 1).contains(shown), hook
    assert view.flow.layout.compact is not None             # presenting: the nodes in one row
    window.presentation.leave()


# --- Show the answer is a toggle ------------------------------------------------------------------
def test_show_the_answer_can_hide_it_again(blocklab_open):
    lab = blocklab_open(R45)
    lessons = lab.window.lessons
    lessons.go(lessons.lesson.step_index("relu-residual"))
    QApplication.processEvents()
    button, answer = lab.find(QPushButton, "lessonShowAnswer"), lab.find(QLabel, "lessonAnswer")
    assert button.text() == "Show the answer" and not answer.isVisible()
    button.click()
    assert answer.isVisible() and button.text() == "Hide the answer" and button.isChecked()
    button.click()
    assert not answer.isVisible() and button.text() == "Show the answer"
    button.click()
    lessons.next()
    lessons.previous()                              # another step, then back: the answer starts hidden
    assert not answer.isVisible() and button.text() == "Show the answer" and not button.isChecked()


# --- The Lessons menu shows the clicker keys; PageDown steps once ----------------------------------
def test_the_lessons_menu_shows_pagedown_and_pageup_and_a_key_steps_once(blocklab_open, qtbot):
    lab = blocklab_open(R45)
    window, lessons = lab.window, lab.window.lessons
    next_action, previous_action = lab.find(QAction, "actionNextStep"), lab.find(QAction, "actionPreviousStep")
    assert next_action.text() == "Next step\tPgDown" and previous_action.text() == "Previous step\tPgUp"
    assert not next_action.shortcuts() and not previous_action.shortcuts()   # the keys have one handler
    for widget in (window.dataflow, window.weight_editor.table, window.findChild(QLabel, "lessonCaption")):
        before = lessons.index
        press(qtbot, widget, Qt.Key.Key_PageDown)
        assert lessons.index == before + 1, widget.objectName()
    press(qtbot, window.dataflow, Qt.Key.Key_PageUp)
    assert lessons.index == 2
    next_action.trigger()                           # the menu entry itself
    assert lessons.index == 3


# --- Cut-off text in the two-neuron lab (C4 step 9) -------------------------------------------------
def _cells_that_do_not_fit(table: QTableWidget) -> list[str]:
    """Columns narrower than Qt needs to draw their header or their widest cell unclipped, and a
    table narrower than its columns."""
    cut = []
    header = table.horizontalHeader()
    for column in range(table.columnCount()):
        if table.isColumnHidden(column):
            continue
        width = table.columnWidth(column)
        needed = max(header.sectionSizeHint(column), table.sizeHintForColumn(column))
        if needed > width:
            texts = [table.horizontalHeaderItem(column).text()] + [table.item(r, column).text()
                                                                   for r in range(table.rowCount())]
            cut.append(f"column {column} {texts} needs {needed} px, has {width}")
    if table.viewport().width() < header.length():
        cut.append(f"the table shows {table.viewport().width()} of its {header.length()} px")
    return cut


@pytest.mark.parametrize("language, size", [("en", (1024, 768)), ("zh", (1024, 768)), ("en", (1920, 1080))])
def test_no_text_is_cut_off_in_the_two_neuron_lab(blocklab_open, language, size):
    import pyqtgraph as pg
    lab = blocklab_open(C4, language)
    window = lab.window
    window.resize(*size)
    for step in (1, 8):                              # the linear try; "why two neurons are enough"
        window.lessons.go(step)
        for _ in range(3):
            QApplication.processEvents()
        table = lab.find(QTableWidget, "xorTable")
        assert _cells_that_do_not_fit(table) == [], (language, size, step + 1)
        assert window.width() == size[0], "the lab made the window wider than the screen"
    neurons = window.labs["xor"].part("neurons")
    for plot, labels in zip(neurons.map_plots, neurons.map_labels):
        view = plot.getViewBox().sceneBoundingRect()
        for item in labels:
            if item.isVisible():
                box = item.mapRectToScene(item.boundingRect())
                assert view.contains(box), f"{item.toPlainText()!r} sticks out of its plot"
    assert all(isinstance(item, pg.TextItem) for labels in neurons.map_labels for item in labels)
