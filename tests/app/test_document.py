"""The open document: the unsaved mark, Save and Save As (never over a shipped file), New, Open
and recent files, asking before unsaved work is dropped — on a stand-in window (widget tier);
the real window's title, menu and close only at the end."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from app import document as files
from app.document import Answer, fresh_path
from app.document import ask_unsaved as real_ask_unsaved     # the conftest answers Discard for every test
from core.formats.scenario import load_scenario
from core.resources import lessons_dir
from tests.app.fake_window import fake_window
from tests.app.helpers import settle
from tests.conftest import SCENARIOS

C4_LESSON = lessons_dir() / "c4-ffn.json"


class Dialogs:
    """Scripted answers for the document's dialogs, and a record of what was asked."""

    def __init__(self, monkeypatch):
        self.asked: list[tuple] = []
        self.unsaved = Answer.CANCEL
        self.save_path = None
        self.open_path = None
        self.warnings: list[str] = []
        monkeypatch.setattr(files, "ask_unsaved", self._ask_unsaved)
        monkeypatch.setattr(files, "choose_save_path", self._choose_save)
        monkeypatch.setattr(files, "choose_open_path", lambda parent, folder: self.open_path)
        monkeypatch.setattr(files, "warn", lambda parent, title, text: self.warnings.append(text))

    def _ask_unsaved(self, parent, name, lesson):
        self.asked.append(("unsaved", name, lesson))
        return self.unsaved

    def _choose_save(self, parent, suggestion):
        self.asked.append(("save as", suggestion))
        return self.save_path


@pytest.fixture
def dialogs(monkeypatch):
    return Dialogs(monkeypatch)


@pytest.fixture(autouse=True)
def no_recent_files():
    """Each test starts with no recent files and leaves none (the Chinese-window test reads menus)."""
    files.RecentFiles().clear()
    files.settings().remove("files")
    yield
    files.RecentFiles().clear()
    files.settings().remove("files")


@pytest.fixture
def documents(tmp_path, private_user_folders):
    """This test's own (empty) documents folder."""
    folder = tmp_path / "Documents"
    folder.mkdir()
    dirs = private_user_folders / "config" / "user-dirs.dirs"
    before = dirs.read_text(encoding="utf-8")
    dirs.write_text(f'XDG_DOCUMENTS_DIR="{folder}"\n', encoding="utf-8")
    yield folder
    dirs.write_text(before, encoding="utf-8")


@pytest.fixture
def own_copy(tmp_path):
    """A scenario the user owns: a copy of the default block in a folder of theirs."""
    path = tmp_path / "mine" / "my block.json"
    path.parent.mkdir()
    shutil.copy(SCENARIOS / "block-default.json", path)
    return path


def edit(window, value: float = 2.5) -> None:
    assert window.session.set_value("W_in", (0, 0), value)


# --- the unsaved mark ----------------------------------------------------------------------------

def test_the_mark_follows_the_undo_stack(qtbot, dialogs):
    window = fake_window(qtbot)
    assert not window.document.modified and not window.isWindowModified()
    edit(window)
    assert window.document.modified and window.isWindowModified()
    window.session.undo_stack.undo()
    assert not window.document.modified and not window.isWindowModified()
    window.session.undo_stack.redo()
    assert window.isWindowModified()


# --- saving --------------------------------------------------------------------------------

def test_save_writes_the_users_own_file_in_place_and_clears_the_mark(qtbot, dialogs, own_copy):
    window = fake_window(qtbot, path=own_copy)
    edit(window, 3.25)
    assert window.document.save()
    assert dialogs.asked == []                                  # no dialog: the user's own file
    assert load_scenario(own_copy).weights["W_in"][0, 0] == 3.25
    assert not window.isWindowModified() and window.session.undo_stack.isClean()
    assert [p.name for p in own_copy.parent.iterdir()] == ["my block.json"]   # no temporary file left
    assert files.RecentFiles().paths() == [own_copy]


def test_save_on_a_shipped_file_proposes_a_fresh_name_in_the_documents_folder(qtbot, dialogs, documents):
    assert files.documents_folder() == documents
    window = fake_window(qtbot)                                 # resources/scenarios/block-default.json
    edit(window)
    (documents / "block-default edited.json").write_text("{}")  # taken: the next number is proposed
    dialogs.save_path = None                                    # the user cancels the dialog
    assert not window.document.save()
    assert dialogs.asked == [("save as", documents / "block-default edited 2.json")]
    assert window.isWindowModified()                            # nothing saved, still marked
    # choosing a shipped file is refused, the file untouched
    shipped = SCENARIOS / "block-default.json"
    before = shipped.read_bytes()
    dialogs.save_path = shipped
    assert not window.document.save_as()
    assert "one of Block Lab's own files" in dialogs.warnings[-1]
    assert shipped.read_bytes() == before
    # a name without a suffix gets .json; then the new file is the document
    dialogs.save_path = documents / "tuesday"
    assert window.document.save()
    assert window.path == documents / "tuesday.json" and not window.isWindowModified()
    assert load_scenario(window.path).weights["W_in"][0, 0] == 2.5
    edit(window, 4.0)
    dialogs.asked.clear()
    assert window.document.save()                               # now in place
    assert dialogs.asked == [] and load_scenario(window.path).weights["W_in"][0, 0] == 4.0


def test_fresh_names_never_pile_up_edited(tmp_path):
    assert fresh_path(tmp_path, "c4-xor") == tmp_path / "c4-xor edited.json"
    (tmp_path / "c4-xor edited.json").write_text("{}")
    assert fresh_path(tmp_path, "c4-xor edited") == tmp_path / "c4-xor edited 2.json"
    assert fresh_path(tmp_path, "c4-xor edited 7") == tmp_path / "c4-xor edited 2.json"


def test_a_failed_save_says_why_and_keeps_the_work_unsaved(qtbot, dialogs, tmp_path):
    window = fake_window(qtbot)
    edit(window)
    dialogs.save_path = tmp_path / "no such folder" / "x.json"
    assert not window.document.save_as()
    assert dialogs.warnings and "x.json" in dialogs.warnings[-1]
    assert window.isWindowModified() and window.path == SCENARIOS / "block-default.json"


# --- opening, New, recent files ----------------------------------------------------------------

def test_opening_with_unsaved_work_asks_first(qtbot, dialogs, tmp_path):
    window = fake_window(qtbot)
    edit(window)
    c4 = SCENARIOS / "c4-xor.json"
    dialogs.unsaved = Answer.CANCEL
    assert not window.document.open_file(c4)
    assert dialogs.asked == [("unsaved", "block-default.json", False)]
    assert window.session.tensor("W_in")[0, 0] == 2.5 and window.path.name == "block-default.json"
    # a refused file is refused before any question, and changes nothing
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "blocklab-scenario", "version": 1}')
    dialogs.asked.clear()
    assert not window.document.open_file(bad)
    assert dialogs.asked == [] and "config" in dialogs.warnings[-1]
    assert window.session.tensor("W_in")[0, 0] == 2.5
    # Save: the work is saved first (as a new file), then the other file opens
    dialogs.unsaved, dialogs.save_path = Answer.SAVE, tmp_path / "kept.json"
    assert window.document.open_file(c4)
    assert load_scenario(tmp_path / "kept.json").weights["W_in"][0, 0] == 2.5
    assert window.path == c4 and window.session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert not window.isWindowModified()


def test_save_cancelled_in_the_question_cancels_the_open(qtbot, dialogs):
    window = fake_window(qtbot)
    edit(window)
    dialogs.unsaved, dialogs.save_path = Answer.SAVE, None
    assert not window.document.open_file(SCENARIOS / "c4-xor.json")
    assert window.session.tensor("W_in")[0, 0] == 2.5


def test_new_is_the_default_block_untitled(qtbot, dialogs, documents):
    window = fake_window(qtbot, "c4-xor.json")
    edit(window, 0.5)
    dialogs.unsaved = Answer.DISCARD
    assert window.document.new()
    assert window.path is None and window.session.tokens == ("小明", "把", "苹果", "给了", "小王")
    assert not window.isWindowModified()
    edit(window)
    dialogs.save_path = None
    window.document.save()
    assert dialogs.asked[-1] == ("save as", documents / "block-default edited.json")


def test_recent_files_newest_first_and_a_missing_one_leaves_the_list(qtbot, dialogs, tmp_path):
    window = fake_window(qtbot)
    paths = []
    for number in range(10):
        path = tmp_path / f"block {number}.json"
        shutil.copy(SCENARIOS / "c4-xor.json", path)
        paths.append(path)
        dialogs.open_path = path
        assert window.document.open_dialog()
    assert files.RecentFiles().paths() == paths[::-1][:files.MAX_RECENT]
    menu = window.document.actions.recent_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.objectName().startswith("actionRecent")]
    assert [a.text() for a in entries][:2] == ["&1  block 9.json", "&2  block 8.json"]
    assert entries[0].toolTip() == str(paths[9])
    paths[8].unlink()
    entries[1].trigger()
    assert "no longer there" in dialogs.warnings[-1]
    assert paths[8] not in files.RecentFiles().paths() and window.path == paths[9]
    window.findChild(QAction, "actionClearRecent").trigger()
    assert files.RecentFiles().paths() == []
    assert [a.text() for a in menu.actions()] == ["No recent files"]


# --- lessons -----------------------------------------------------------------------------------

def test_a_lesson_step_edited_is_unsaved_and_saving_keeps_the_lesson_open(qtbot, dialogs, documents):
    window = fake_window(qtbot)
    dialogs.unsaved = Answer.DISCARD
    assert window.document.open_lesson(C4_LESSON, 1)
    assert not window.isWindowModified()
    edit(window, 1.5)
    assert window.isWindowModified()
    window.lessons.next()                               # the edit is kept for step 2, still unsaved
    assert window.isWindowModified()
    window.lessons.previous()
    dialogs.save_path = documents / "step two.json"
    assert window.document.save()                       # Save in a lesson is Save As, a copy of the step
    assert dialogs.asked[-1] == ("save as", documents / "c4-ffn step 2 edited.json")
    assert window.lessons.lesson is not None and window.lessons.index == 1 and window.path == C4_LESSON
    assert load_scenario(dialogs.save_path).weights["W_in"][0, 0] == 1.5
    assert not window.isWindowModified()                # that work is saved
    edit(window, 2.0)
    assert window.isWindowModified()
    # another lesson: asked about the lesson's edits
    dialogs.unsaved = Answer.CANCEL
    assert not window.document.open_lesson(lessons_dir() / "r45-ffn-residual-norm.json")
    assert dialogs.asked[-1] == ("unsaved", "c4-ffn.json", True)
    assert window.lessons.lesson.path == C4_LESSON


# --- closing and language ----------------------------------------------------------------------

def test_closing_asks_and_cancel_keeps_the_window(qtbot, dialogs):
    window = fake_window(qtbot)
    window.show()
    edit(window)
    dialogs.unsaved = Answer.CANCEL
    assert not window.close() and window.isVisible()
    dialogs.unsaved = Answer.DISCARD
    assert window.close() and not window.isVisible()


def test_closing_without_changes_does_not_ask(qtbot, dialogs):
    window = fake_window(qtbot)
    window.show()
    assert window.close()
    assert dialogs.asked == []


def test_the_file_actions_speak_chinese_live(qtbot, dialogs):
    from app import i18n
    window = fake_window(qtbot)
    actions = window.document.actions
    assert actions.open.text() == "&Open…"
    i18n.install("zh")
    settle(lambda: actions.open.text() != "&Open…")
    assert actions.open.text() == "打开(&O)…"
    assert actions.save_as.text() == "另存为(&A)…"
    assert actions.recent_menu.title() == "最近的文件(&F)"
    assert window.exporter.copy.text() == "复制为 NumPy 代码"


def test_shortcuts_are_the_platforms_own():
    from PySide6.QtGui import QKeySequence
    assert QKeySequence(QKeySequence.Save).toString() == "Ctrl+S"
    assert QKeySequence(QKeySequence.Open).toString() == "Ctrl+O"


def test_the_questions_themselves(qtbot, monkeypatch):
    """The real dialogs: their words, their buttons, and what each button answers."""
    from PySide6.QtWidgets import QMessageBox, QWidget
    parent = QWidget()
    qtbot.addWidget(parent)
    seen = []

    def clicking(text):
        def exec_(box):
            seen.append((box.objectName(), box.text(), sorted(b.text() for b in box.buttons())))
            button = next(b for b in box.buttons() if b.text() == text)
            button.click()
            return box.standardButton(button)
        return exec_

    for text, answer in (("Save", Answer.SAVE), ("Discard", Answer.DISCARD), ("Cancel", Answer.CANCEL)):
        monkeypatch.setattr(QMessageBox, "exec", clicking(text))
        assert real_ask_unsaved(parent, "my block.json", False) is answer
    assert seen[0] == ("unsavedDialog", "Save your changes to “my block.json”?", ["Cancel", "Discard", "Save"])
    monkeypatch.setattr(QMessageBox, "exec", clicking("Save…"))
    assert real_ask_unsaved(parent, "c4-ffn.json", True) is Answer.SAVE
    assert seen[-1][1] == "Your edits in this lesson are not saved."
    monkeypatch.setattr(QMessageBox, "exec", clicking("Restore"))
    assert files.ask_restore(parent, "xor.json", 0.0)
    assert seen[-1][:2] == ("restoreDialog", "Block Lab was closed without saving your work on “xor.json”.")
    monkeypatch.setattr(QMessageBox, "exec", clicking("Discard"))
    assert not files.ask_restore(parent, "xor.json", 0.0)


# --- the real window: only what it wires ----------------------------------------------------------

def test_the_window_title_marks_unsaved_changes_and_the_file_menu(blocklab_window, dialogs, tmp_path):
    lab = blocklab_window
    window = lab.window
    assert window.windowTitle().endswith("block-default.json[*] — Block Lab")
    assert not window.isWindowModified()
    lab.set_weight("W_in", (0, 0), "2")
    assert window.isWindowModified()
    file_menu = window.menuBar().actions()[0].menu()
    names = [a.objectName() or (a.menu().objectName() if a.menu() else "") for a in file_menu.actions()
             if not a.isSeparator()]
    assert names == ["actionNew", "actionOpen", "menuRecent", "actionSave", "actionSaveAs", "menuExport",
                     "actionCopyNumpy", "actionQuit"]
    dialogs.save_path = tmp_path / "saved.json"
    window.activateWindow()
    lab.qtbot.keyClick(window.weight_editor.table, Qt.Key_S, Qt.ControlModifier)    # Ctrl+S: Save
    assert dialogs.asked[-1][0] == "save as"               # a shipped file: Save asks for a new name
    assert not window.isWindowModified()
    assert window.windowTitle().endswith("saved.json[*] — Block Lab")
    assert np.array_equal(load_scenario(tmp_path / "saved.json").weights["W_in"], lab.tensor("W_in"))
    lab.set_weight("W_in", (0, 0), "3")
    assert window.document.answer_unsaved is not None     # the plugin's windows never wait on the question
    window.document.answer_unsaved = dialogs._ask_unsaved
    dialogs.unsaved = Answer.CANCEL
    assert not window.close() and window.isVisible()
    assert dialogs.asked[-1] == ("unsaved", "saved.json", False)
    dialogs.unsaved = Answer.DISCARD
