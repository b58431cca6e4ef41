"""The start card on a first start in free exploration, and the Help menu (keys, About).

QSettings go to a temporary folder for the whole test run (tests/app/conftest.py); each test
here starts from empty settings.
"""
from __future__ import annotations

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel, QPushButton

from app.start_card import SETTINGS_KEY, StartCard, start_card_wanted
from app.widgets.appearance import settings
from core.resources import lessons_dir
from tests.app.helpers import show
from tests.conftest import SCENARIOS


@pytest.fixture(autouse=True)
def fresh_settings(qapp):
    settings().remove(SETTINGS_KEY)
    yield
    settings().remove(SETTINGS_KEY)


def test_the_card_says_what_to_try_and_is_dismissed_for_this_start(qtbot):
    card = show(qtbot, StartCard(), 700, 220)
    card.hide()
    card.offer()
    assert card.isVisible()
    text = card.findChild(QLabel, "startCardText").text()
    for what in ("Open a lesson", "Edit a weight", "MSE", "targets"):
        assert what in text
    card.findChild(QPushButton, "startCardClose").click()
    assert not card.isVisible() and start_card_wanted()          # closed, not "never again"
    card.offer()
    assert card.isVisible()


def test_dont_show_again_is_remembered(qtbot):
    card = show(qtbot, StartCard(), 700, 220)
    card.findChild(QCheckBox, "startCardNever").setChecked(True)
    card.findChild(QPushButton, "startCardClose").click()
    assert not start_card_wanted()
    another = show(qtbot, StartCard(), 700, 220)                 # the next start
    another.hide()
    another.offer()
    assert not another.isVisible()
    another.show_again()                                         # Help → Getting started
    assert another.isVisible() and start_card_wanted()


def test_the_card_opens_the_first_lesson_and_leaves_with_free_exploration(blocklab_open):
    lab = blocklab_open(SCENARIOS / "block-default.json")
    card = lab.window.lesson_bar.start_card
    assert not card.isVisible()                                  # only a real start offers it (launch.run_gui)
    card.offer()
    QApplication.processEvents()
    assert card.isVisible()
    card.findChild(QPushButton, "startCardOpenLesson").click()
    assert lab.window.lessons.lesson is not None and not card.isVisible()
    lab.find(QAction, "actionGettingStarted").trigger()          # Help → Getting started shows it again
    assert card.isVisible()


def test_presentation_mode_hides_the_card(blocklab_open):
    lab = blocklab_open(SCENARIOS / "block-default.json")
    card = lab.window.lesson_bar.start_card
    card.offer()
    assert card.isVisible()
    lab.window.presentation.enter(full_screen=False)             # F5: nothing floats over the projected block
    assert not card.isVisible() and start_card_wanted()          # hidden for now, not "never again"
    lab.window.presentation.leave()


def test_the_shortcuts_dialog_lists_the_windows_actions_with_their_keys(blocklab_open):
    from app.help import HelpMenu
    lab = blocklab_open(lessons_dir() / "r45-ffn-residual-norm.json")
    lab.find(QAction, "actionShortcuts").trigger()
    dialog = lab.window.findChild(HelpMenu).dialog
    rows = dict(dialog.rows())
    assert "Ctrl+Y" in rows["Redo"] and "Ctrl+Shift+Z" in rows["Redo"]
    assert rows["Undo"].startswith("Ctrl+Z")
    assert rows["Next step"] == "PgDown" and rows["Previous step"] == "PgUp"
    assert rows["Open…"] == "Ctrl+O" and rows["Save"] == "Ctrl+S"
    assert rows["Keyboard shortcuts…"] == "F1"
    assert "Right, Space" in rows.values()                       # the clicker keys that are not actions
    for action in lab.window.findChildren(QAction):              # every shortcut of the window is listed
        if action.shortcuts():
            assert any(action.shortcuts()[0].toString() in keys for keys in rows.values()), action.objectName()
    dialog.close()


def test_about_names_the_version_the_licence_and_the_course(blocklab_window):
    from app.help import COURSE, HelpMenu, version
    menu = blocklab_window.window.findChild(HelpMenu)
    box = menu.show_about()
    text = box.text()
    assert "Block Lab" in text and version() in text
    assert COURSE in text and "R45" in text and "C4" in text
    assert "License" in text
    box.close()
