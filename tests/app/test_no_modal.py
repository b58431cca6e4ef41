"""A test can never hang on a dialog: every modal dialog or nested application loop a test did
not answer raises at once (tests/app/no_modal.py), and a test that runs too long prints where
every thread is (pyproject.toml: faulthandler_timeout). Without these, each test below would
wait forever offscreen instead of passing."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMenu, QMessageBox, QWidget

from tests.app.no_modal import ModalLoopInTest


def test_a_message_box_raises_and_says_what_it_would_have_asked(qapp):
    box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes", "Save your changes to “x.json”?")
    with pytest.raises(ModalLoopInTest) as raised:
        box.exec()
    assert "QDialog.exec()" in str(raised.value)
    assert "'Unsaved changes'" in str(raised.value) and "Save your changes" in str(raised.value)


def test_the_static_dialogs_raise_too(qapp):
    """They run their loop inside Qt, where a patch of exec() does not reach."""
    parent = QWidget()
    with pytest.raises(ModalLoopInTest, match=r"QFileDialog.getSaveFileName\(\).*'Export'"):
        QFileDialog.getSaveFileName(parent, "Export", "block.png", "PNG image (*.png)")
    with pytest.raises(ModalLoopInTest, match="QFileDialog.getOpenFileName"):
        QFileDialog.getOpenFileName(parent, "Open")
    with pytest.raises(ModalLoopInTest, match="QMessageBox.warning"):
        QMessageBox.warning(parent, "Cannot export", "Permission denied")
    with pytest.raises(ModalLoopInTest, match="QInputDialog.getText"):
        QInputDialog.getText(parent, "Name", "Name:")


def test_a_menu_and_the_application_loop_raise(qapp):
    class LessonsMenu(QMenu):                 # the app's menus are subclasses made with a parent
        pass

    parent = QWidget()
    for menu in (QMenu(), LessonsMenu(parent), QMenu("Export", parent)):
        menu.addAction("Export")
        with pytest.raises(ModalLoopInTest, match=r"QMenu.exec\(\)"):
            menu.exec(QPoint(10, 10))
    with pytest.raises(ModalLoopInTest, match=r"QApplication.exec\(\)"):
        QApplication.exec()
    with pytest.raises(ModalLoopInTest, match=r"QApplication.exec\(\)"):
        qapp.exec()


def test_the_apps_own_questions_raise_when_a_test_leaves_them_unanswered(qapp):
    from app import document
    with pytest.raises(ModalLoopInTest, match="Cannot open"):
        document.warn(None, "Cannot open", "nowhere.json: no such file")
    with pytest.raises(ModalLoopInTest, match="Restore unsaved work"):
        document.ask_restore(None, "xor.json", 0.0)


def test_a_dialog_opened_from_the_event_loop_is_reported_to_the_test(qtbot):
    """Opened in a timer's callback (the way a stray start-up question comes), the error reaches
    pytest-qt's exception capture: the test fails instead of the run stalling."""
    with qtbot.captureExceptions() as raised:
        QTimer.singleShot(0, lambda: QMessageBox(QMessageBox.Icon.Question, "Restore unsaved work", "…").exec())
        qtbot.wait(20)
    assert [kind for kind, _value, _trace in raised] == [ModalLoopInTest]


def test_a_test_that_answers_a_dialog_still_can(qapp, monkeypatch):
    monkeypatch.setattr(QMessageBox, "exec", lambda box: QMessageBox.StandardButton.Discard)
    box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes", "Save?")
    assert box.exec() == QMessageBox.StandardButton.Discard


def test_a_stuck_test_prints_every_threads_stack(pytestconfig):
    """The run's own setting (pyproject.toml): pytest's faulthandler dumps every thread's stack
    when one test runs past it."""
    assert 0 < float(pytestconfig.getini("faulthandler_timeout")) <= 300


@pytest.mark.answers_its_dialogs
def test_a_test_that_closes_a_real_dialog_itself_is_marked_and_may_open_it(qtbot):
    box = QMessageBox(QMessageBox.Icon.Question, "Restore unsaved work", "…")
    QTimer.singleShot(0, lambda: box.done(QMessageBox.StandardButton.Cancel))
    assert box.exec() == QMessageBox.StandardButton.Cancel
