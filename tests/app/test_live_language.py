"""Switching Chinese ⇄ English while the app runs: nothing is lost, everything is retranslated.

A window switched live must show what a window built in that language shows (compared widget
by widget, tests/app/screen_texts.py); the state — edits, undo history, lesson step, selection,
the diagram's zoom — stays as it was. Qt's own dialogs follow the language too.
"""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QLocale
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (QApplication, QComboBox, QDialogButtonBox, QFileDialog, QLabel, QMessageBox,
                               QPushButton, QTableWidget)

from app import i18n
from app.widgets.appearance import appearance
from core.resources import lessons_dir
from tests.app.helpers import settle
from tests.app.screen_texts import differences, screen_texts
from tests.conftest import SCENARIOS

C4 = lessons_dir() / "c4-ffn.json"
R45 = lessons_dir() / "r45-ffn-residual-norm.json"


def choose(window, code: str) -> None:
    """Pick a language in the Language menu, as a user does."""
    window.findChild(QAction, f"actionLanguage_{code}").trigger()
    settle(lambda: i18n.language() == code)
    for _ in range(3):
        QApplication.processEvents()


def test_the_language_menu_switches_live_and_keeps_everything(blocklab_open):
    lab = blocklab_open(C4, "zh")
    window, session, lessons = lab.window, lab.session, lab.window.lessons
    lessons.go(lessons.lesson.step_index("relu"))
    session.set_value("W_out", (1, 0), -1.5)
    session.set_value("b_out", (0,), 0.25)
    session.select(token=2)
    appearance().set_zoom(1.5)
    before = dict(state=session.state, count=session.undo_stack.count(), index=session.undo_stack.index(),
                  step=lessons.index, token=session.selected_token, hook=session.selected_hook,
                  part=window.labs["xor"].current_part())
    caption = window.lesson_bar.caption
    assert "神经元" in caption.text() and "（含你的改动）" in caption.text()
    assert window.findChild(QAction, "actionLanguage_zh").isChecked()

    choose(window, "en")

    now, then = session.state, before["state"]                         # the very same block, bit for bit
    assert now.config == then.config and np.array_equal(now.inputs, then.inputs)
    assert now.weights.keys() == then.weights.keys()
    assert all(np.array_equal(now.weights[name], then.weights[name]) for name in now.weights)
    assert np.array_equal(now.targets, then.targets)
    assert (session.undo_stack.count(), session.undo_stack.index()) == (before["count"], before["index"])
    assert (lessons.index, session.selected_token, session.selected_hook) == \
        (before["step"], before["token"], before["hook"])
    assert appearance().zoom == 1.5
    assert window.labs["xor"].current_part() == before["part"]
    assert "Neuron 1 reads p + n" in caption.text() and "(your edits)" in caption.text()
    assert window.windowTitle().startswith("C4 · After attention fetches")
    assert window.lesson_bar.picker.currentText().startswith("C4 · After attention fetches")
    assert window.lesson_bar.steps.currentText() == "4. ③ The improvement: two neurons"
    assert [a.text() for a in window.menuBar().actions()][:2] == ["&File", "&Edit"]
    assert window.undo_action.text().startswith("Undo ")
    assert window.findChild(QLabel, "statusMse").text().startswith("Block output vs targets")
    assert window.findChild(QAction, "actionLanguage_en").isChecked()
    table = window.findChild(QTableWidget, "xorTable")
    assert table.item(3, 0).text() == "不难吃 “not awful”"                # the gloss comes with English

    session.undo_stack.undo()                                           # the history still works
    assert session.tensor("b_out")[0] == 0.0
    choose(window, "zh")
    assert table.item(3, 0).text() == "不难吃"
    assert [a.text() for a in window.menuBar().actions()][1] == "编辑(&E)"
    assert np.array_equal(session.tensor("W_out")[1], [-1.5])
    appearance().set_zoom(1.0)


def test_the_diagram_keeps_the_learners_zoom_across_a_switch(blocklab_open):
    lab = blocklab_open(R45, "zh")
    view = lab.window.dataflow
    view.zoom_in()
    zoom = view.transform().m11()
    choose(lab.window, "en")
    assert view.transform().m11() == pytest.approx(zoom)


# Panels whose files other engineers are rewriting in wave 2 (they retranslate on LanguageChange
# there): the block options, the checks, the weight editor and the inspector build their texts once.
OTHERS = ("configBox", "invariantsBox", "weightsBox", "inspectorBox")


def _switched_and_fresh(qtbot, path, step, start, end):
    from app.launch import build_window

    def shown(language):
        _app, window = build_window(path, language, step)
        qtbot.addWidget(window)
        window.resize(1280, 800)
        window.show()
        qtbot.waitExposed(window)
        for _ in range(3):              # as a user first sees it: work queued for after the resize done
            QApplication.processEvents()
        return window

    live_window = shown(start)
    i18n.install(end)
    settle(lambda: live_window.findChild(QAction, f"actionLanguage_{end}").isChecked())
    for _ in range(3):
        QApplication.processEvents()
    live = screen_texts(live_window)
    live_window.close()
    fresh_window = shown(end)
    fresh = screen_texts(fresh_window)
    fresh_window.close()
    return live, fresh


@pytest.mark.parametrize("path, step, start, end", [
    (C4, 8, "zh", "en"),          # the two-neuron lab's last part, a question in the bar
    (C4, 13, "en", "zh"),         # the FFN page: misconceptions, live plots
    (R45, 4, "zh", "en"),         # the explorer: diagram, plots, the lesson bar with a question
], ids=["c4-neurons-zh-en", "c4-misconceptions-en-zh", "r45-residual-zh-en"])
def test_a_window_switched_live_shows_what_a_fresh_one_shows(qtbot, path, step, start, end):
    live, fresh = _switched_and_fresh(qtbot, path, step, start, end)
    found = [line for line in differences(live, fresh) if not any(f"/{box}/" in line.split(":")[0] for box in OTHERS)]
    assert not found, f"{len(found)} texts not retranslated:\n" + "\n".join(found)


def test_the_explorer_panels_being_rewritten_retranslate_too(qtbot):
    live, fresh = _switched_and_fresh(qtbot, SCENARIOS / "block-default.json", 0, "zh", "en")
    found = differences(live, fresh)
    assert not found, f"{len(found)} texts not retranslated:\n" + "\n".join(found)


def test_the_default_language_follows_the_system(monkeypatch):
    for name, expected in (("zh_CN", "zh"), ("zh_TW", "zh"), ("en_US", "en"), ("de_DE", "en")):
        monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda n=name: QLocale(n)))
        assert i18n.system_language() == expected


def test_qt_s_own_dialogs_speak_the_chosen_language(qtbot):
    i18n.install("zh")
    box = QMessageBox(QMessageBox.Icon.Question, "", "", QMessageBox.StandardButton.Ok | QMessageBox.StandardButton.Cancel)
    qtbot.addWidget(box)
    texts = sorted(button.text() for button in box.buttons())
    assert texts == ["取消", "确定"]
    dialog = QFileDialog(None, "", "", "*.json")
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    qtbot.addWidget(dialog)
    labels = {label.text() for label in dialog.findChildren(QLabel)}
    assert {"查找范围(&L)：", "文件类型(&T)：", "文件名称(&N)："} <= labels   # the first two are ours: Qt 6.11 lacks them
    buttons = dialog.findChild(QDialogButtonBox)
    i18n.install("en")                                   # an open dialog follows a switch too
    settle(lambda: "Cancel" in [b.text() for b in buttons.buttons()])
    box.close()
    dialog.close()


def test_lesson_bar_buttons_switch_with_the_language(blocklab_open):
    lab = blocklab_open(R45, "en")
    window = lab.window
    lessons = window.lessons
    lessons.go(lessons.lesson.step_index("relu-residual"))
    answer = window.findChild(QPushButton, "lessonShowAnswer")
    answer.click()
    choose(window, "zh")
    assert answer.text() == "收起答案" and window.findChild(QLabel, "lessonAnswer").text().startswith("那时")
    assert window.findChild(QPushButton, "lessonNext").text() == "下一步 ▶"
    picker = window.findChild(QComboBox, "lessonPicker")
    assert picker.itemText(0) == "自由探索（不跟课）"
    assert picker.currentText().startswith("R45 · 读取之后")
