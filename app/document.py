"""The open document: which file, whether it has unsaved changes, New / Open / Save / Save As,
recent files, asking before unsaved work is dropped, and autosave with restore after a crash.

The window shows the document (its title marks unsaved changes with `[*]`); the Session holds
the block. "Unsaved" is the undo stack's clean state, and, in a lesson, any step the learner
edited and did not save a copy of. A scenario the user saved is their document: Save writes it
again. A shipped file (resources/) or a lesson is never overwritten: Save asks for a new file,
proposed in the user's documents folder under a fresh name ("block-default edited.json").

The dialogs are module functions (`ask_unsaved`, `ask_restore`, `choose_open_path`,
`choose_save_path`, `warn`) so that a test replaces them with answers.
"""
from __future__ import annotations

import enum
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import shiboken6
from PySide6.QtCore import QCoreApplication, QDateTime, QEvent, QObject, QSettings, QStandardPaths, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from core.formats.lesson import FORMAT as LESSON_FORMAT
from core.formats.scenario import Scenario, ScenarioError, load_scenario, save_scenario
from core.resources import default_scenario, resource

from app.lessons.controller import load_lesson_or_error
from app.widgets.message_box import message_box
from app.recovery import Autosave, Snapshot, apply_test_edits, find_recovered
from app.session import Change, State
from app.widgets.inert import plain_tooltip

ORGANISATION, APPLICATION = "BlockLab", "Block Lab"
RECENT_KEY = "files/recent"
FOLDER_KEY = "files/folder"
MAX_RECENT = 8


def _tr(text: str) -> str:
    return QCoreApplication.translate("Document", text)


def settings() -> QSettings:
    """Block Lab's settings (tests point QSettings at a temporary folder)."""
    return QSettings(QSettings.NativeFormat, QSettings.UserScope, ORGANISATION, APPLICATION)


def documents_folder() -> Path:
    """The user's documents folder (their home if there is none)."""
    found = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation)
    return Path(found) if found and Path(found).is_dir() else Path.home()


def is_shipped(path: Path) -> bool:
    """A file that ships with Block Lab (its scenarios, lessons): never overwritten."""
    try:
        return Path(path).resolve().is_relative_to(resource().resolve())
    except OSError:
        return False


def is_lesson_file(path: Path) -> bool:
    """Whether a file says it is a lesson (anything else is read as a scenario)."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(4096)
    except OSError:
        return False
    return LESSON_FORMAT.encode() in head


_EDITED = re.compile(r"( edited( \d+)?)+$")


def fresh_path(folder: Path, stem: str, suffix: str = ".json") -> Path:
    """`<stem> edited<suffix>` in `folder`, numbered (" edited 2", …) past any file already there."""
    stem = _EDITED.sub("", stem) or "block"
    for number in range(1, 10_000):
        name = f"{stem} edited{'' if number == 1 else f' {number}'}{suffix}"
        if not (folder / name).exists():
            return folder / name
    return folder / f"{stem} edited{suffix}"


# --- the dialogs (tests replace these) ---------------------------------------------------

class Answer(enum.Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_unsaved(parent: QWidget, name: str, lesson: bool) -> Answer:
    """Save / Discard / Cancel, before unsaved work would be dropped."""
    box = message_box(QMessageBox.Icon.Warning, _tr("Unsaved changes"), "", parent=parent)
    box.setObjectName("unsavedDialog")
    box.setTextFormat(Qt.PlainText)                 # the name may come from a file: shown, never rendered
    if lesson:
        box.setText(_tr("Your edits in this lesson are not saved."))
        box.setInformativeText(_tr("Save this step's block as a file before going on?"))
    else:
        box.setText(_tr("Save your changes to “%1”?").replace("%1", name))
        box.setInformativeText(_tr("If you do not save them, your edits are lost."))
    box.setStandardButtons(QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel)
    box.button(QMessageBox.Save).setText(_tr("Save…") if lesson else _tr("Save"))
    box.button(QMessageBox.Discard).setText(_tr("Discard"))
    box.button(QMessageBox.Cancel).setText(_tr("Cancel"))
    box.setDefaultButton(QMessageBox.Save)
    box.setEscapeButton(QMessageBox.Cancel)
    clicked = box.exec()
    return {QMessageBox.Save: Answer.SAVE, QMessageBox.Discard: Answer.DISCARD}.get(QMessageBox.StandardButton(clicked),
                                                                                  Answer.CANCEL)


def restore_text(name: str, saved_at: float) -> tuple[str, str]:
    when = QDateTime.fromSecsSinceEpoch(int(saved_at)).toString("yyyy-MM-dd HH:mm")
    return (_tr("Block Lab was closed without saving your work on “%1”.").replace("%1", name),
            _tr("The last change was autosaved at %1. Restore it?").replace("%1", when))


def ask_restore(parent: QWidget, name: str, saved_at: float) -> bool:
    """Restore / Discard, for the work a crashed or killed Block Lab left behind."""
    text, informative = restore_text(name, saved_at)
    box = message_box(QMessageBox.Icon.Question, _tr("Restore unsaved work"), text, parent=parent)
    box.setObjectName("restoreDialog")
    box.setTextFormat(Qt.PlainText)
    box.setInformativeText(informative)
    restore = box.addButton(_tr("Restore"), QMessageBox.AcceptRole)
    box.addButton(_tr("Discard"), QMessageBox.DestructiveRole)
    box.setDefaultButton(restore)
    box.exec()
    return box.clickedButton() is restore


FILTER = "Block Lab (*.json)"


def choose_open_path(parent: QWidget, folder: Path) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, _tr("Open a scenario or lesson"), str(folder),
                                          _tr("Block Lab scenario or lesson (*.json)"))
    return Path(path) if path else None


def choose_save_path(parent: QWidget, suggestion: Path) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(parent, _tr("Save the block as"), str(suggestion),
                                          _tr("Block Lab scenario (*.json)"))
    return Path(path) if path else None


def warn(parent: QWidget, title: str, text: str) -> None:
    box = message_box(QMessageBox.Icon.Warning, title, text, parent=parent)
    box.setObjectName("fileWarning")
    box.setTextFormat(Qt.PlainText)                 # refusals quote the file
    box.exec()


# --- recent files ------------------------------------------------------------------------

class RecentFiles:
    """The last MAX_RECENT files opened or saved, newest first, kept in QSettings."""

    def paths(self) -> list[Path]:
        value = settings().value(RECENT_KEY, [])
        if isinstance(value, str):                # QSettings gives one string for a list of one
            value = [value]
        return [Path(item) for item in value or [] if isinstance(item, str) and item]

    def _store(self, paths: list[Path]) -> None:
        store = settings()
        store.setValue(RECENT_KEY, [str(p) for p in paths[:MAX_RECENT]])
        store.sync()

    def add(self, path: Path) -> None:
        path = Path(path).absolute()
        self._store([path] + [p for p in self.paths() if p != path])

    def remove(self, path: Path) -> None:
        self._store([p for p in self.paths() if p != Path(path)])

    def clear(self) -> None:
        self._store([])


def _same(a, b) -> bool:
    """Two states (or scenarios) hold the same block."""
    if a is b:
        return True
    if a is None or b is None or a.config != b.config or set(a.weights) != set(b.weights):
        return False
    if (a.targets is None) != (b.targets is None) or not np.array_equal(a.inputs, b.inputs):
        return False
    if a.targets is not None and not np.array_equal(a.targets, b.targets):
        return False
    return all(np.array_equal(a.weights[name], b.weights[name]) for name in a.weights)


def _state(scenario: Scenario) -> State:
    return State(scenario.config, scenario.inputs, dict(scenario.weights), scenario.targets)


# --- the document ------------------------------------------------------------------------

class Document(QObject):
    """The window's open file and its unsaved state; the File menu's New, Open, Recent, Save and
    Save As; asks before unsaved work is dropped; autosaves it for a crash."""

    modifiedChanged = Signal(bool)

    def __init__(self, window):
        super().__init__(window)
        self.window, self.session, self.lessons = window, window.session, window.lessons
        self.recent = RecentFiles()
        self.origin: Path | None = window.path      # the file the block came from (the shipped one for New)
        self._saved_steps: dict[int, State] = {}    # lesson steps the learner saved a copy of
        self._modified = False
        self.answer_unsaved = None                  # tests: answers the Save / Discard / Cancel question
        self.autosave = Autosave(self.snapshot, parent=self)
        self.autosave.failed.connect(lambda text: self.session.message.emit(
            self.tr("Autosave failed: %1").replace("%1", text)))
        self.session.undo_stack.cleanChanged.connect(self._clean_changed)
        self.session.changed.connect(self._on_changed)
        self.lessons.stepChanged.connect(self.refresh)
        self.lessons.lessonChanged.connect(self._lesson_changed)
        self.actions = FileActions(self)
        window.installEventFilter(self)

    # --- state ------------------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        """Where the document is (the window shows it); None for a new block."""
        return self.window.path

    def _set_path(self, path: Path | None, origin: Path | None = None) -> None:
        self.window.path = path
        self.origin = origin or path

    @property
    def modified(self) -> bool:
        return self._modified

    def _compute_modified(self) -> bool:
        if self.lessons.lesson is None:
            return not self.session.undo_stack.isClean()
        index = self.lessons.index
        for step, (_loaded, state) in self.lessons.kept.items():
            if step != index and not _same(state, self._saved_steps.get(step)):
                return True
        return self.lessons.is_edited() and not _same(self.session.state, self._saved_steps.get(index))

    def _clean_changed(self, _clean: bool) -> None:
        # The stack also reports "clean" while the window is being torn down; then stay quiet.
        if shiboken6.isValid(self.session.undo_stack) and shiboken6.isValid(self.window):
            self.refresh()

    def refresh(self) -> None:
        """Follow the undo stack and the lesson: the window's unsaved mark, the recovery slot."""
        modified = self._compute_modified()
        if self.window.isWindowModified() != modified:   # Qt sets the title again even if equal
            self.window.setWindowModified(modified)
        if modified:
            self.autosave.schedule()            # 2 s after the last edit (an edit comes through here)
        if modified != self._modified:
            self._modified = modified
            if not modified:
                self.autosave.clear()
            self.modifiedChanged.emit(modified)

    def _on_changed(self, change: Change) -> None:
        if change & (Change.TRACE | Change.LOADED):
            self.refresh()

    def _lesson_changed(self) -> None:
        self._saved_steps = {}
        self.refresh()

    def can_save_in_place(self) -> bool:
        """Save writes the file itself: a scenario the user owns, no lesson open."""
        path = self.path
        return (self.lessons.lesson is None and path is not None and not is_shipped(path)
                and not is_lesson_file(path))

    def display_name(self) -> str:
        """The file's name, as the questions call it."""
        return self.path.name if self.path is not None else self.tr("untitled")

    # --- asking first -----------------------------------------------------------------------
    def may_discard(self) -> bool:
        """True if the unsaved work (if any) may go: saved, or the user said Discard."""
        if not self._modified:
            return True
        ask = self.answer_unsaved or ask_unsaved
        answer = ask(self.window, self.display_name(), self.lessons.lesson is not None)
        if answer is Answer.SAVE:
            return self.save()
        return answer is Answer.DISCARD

    # --- new and open -----------------------------------------------------------------------
    def new(self) -> bool:
        """File → New: the default block, untitled."""
        try:
            scenario = load_scenario(default_scenario())
        except ScenarioError as error:
            return self._refused(self.tr("Cannot open this file"), str(error))
        if not self.may_discard():
            return False
        self.session.load(scenario)
        if self.lessons.lesson is not None:
            self.lessons.close()
        self._set_path(None, default_scenario())
        self._loaded()
        return True

    def open_dialog(self) -> bool:
        path = choose_open_path(self.window, self._folder())
        if path is None:
            return False
        return self.open_file(path, remember=True)

    def open_recent(self, path: Path) -> bool:
        if not Path(path).exists():
            self.recent.remove(path)
            return self._refused(self.tr("Cannot open this file"),
                                 self.tr("%1 is no longer there; it is taken off the list.").replace("%1", str(path)))
        return self.open_file(Path(path), remember=True)

    def open_file(self, path: Path, remember: bool = False) -> bool:
        """Open a scenario or a lesson. A refused file leaves everything as it was and says why;
        unsaved work is asked about (after the file proved good, before anything changes)."""
        path = Path(path)
        if is_lesson_file(path):
            return self.open_lesson(path, remember=remember)
        try:
            scenario = load_scenario(path)
        except ScenarioError as error:
            return self._refused(self.tr("Cannot open this file"), str(error))
        if not self.may_discard():
            return False
        try:
            self.session.load(scenario)       # computes the trace before it replaces anything
        except (MemoryError, ValueError) as error:
            return self._refused(self.tr("Cannot open this file"),
                                 self.tr("Cannot compute this block: %1").replace("%1", str(error)))
        self._set_path(path)
        if self.lessons.lesson is not None:
            self.lessons.close()
        self._opened(path, remember)
        return True

    def open_lesson(self, path: Path, step: int = 0, remember: bool = False, ask: bool = True) -> bool:
        lesson, error = load_lesson_or_error(Path(path))
        if lesson is None:
            self._refused(self.tr("Cannot open this lesson"), error)
            self.window.lesson_bar.show_open_lesson()     # the picker shows what is really open
            return False
        if ask and not self.may_discard():
            self.window.lesson_bar.show_open_lesson()
            return False
        self._set_path(Path(path))
        self.lessons.open(lesson, step)
        self._opened(Path(path), remember)
        return True

    def _opened(self, path: Path, remember: bool) -> None:
        if remember:
            self.recent.add(path)
            self._remember_folder(path.parent)
        self._loaded()

    def _loaded(self) -> None:
        self._saved_steps = {}
        self.autosave.clear()
        self.refresh()
        self.window._refresh_title()           # the load notified before the path changed

    def _refused(self, title: str, text: str) -> bool:
        self.session.message.emit(text)
        warn(self.window, title, text)
        return False

    # --- saving -----------------------------------------------------------------------------
    def save(self) -> bool:
        """File → Save: the file itself if the user owns it, else as Save As."""
        if self.can_save_in_place():
            return self.save_to(self.path)
        return self.save_as()

    def save_as(self) -> bool:
        path = choose_save_path(self.window, self.suggested_path())
        if path is None:
            return False
        if not path.suffix:
            path = path.with_name(path.name + ".json")
        if is_shipped(path):
            return self._refused(self.tr("Cannot save"), self.tr("%1 is one of Block Lab's own files; "
                                                                  "save under another name.").replace("%1", path.name))
        return self.save_to(path)

    def suggested_path(self) -> Path:
        """Where Save As starts: beside the user's own file, else in their documents folder;
        always a name no file has yet."""
        if self.lessons.lesson is not None and self.path is not None:
            return fresh_path(documents_folder(), f"{self.path.stem} step {self.lessons.index + 1}")
        source = self.path or self.origin or default_scenario()
        folder = source.parent if self.can_save_in_place() else documents_folder()
        return fresh_path(folder, source.stem)

    def save_to(self, path: Path) -> bool:
        """Write the block to `path` (atomically, with its .npz sidecar when big)."""
        path = Path(path)
        try:
            save_scenario(self.session.scenario, path)
        except (OSError, ValueError) as error:
            return self._refused(self.tr("Cannot save"), str(getattr(error, "strerror", None) or error)
                                 + f" ({path})")
        self.recent.add(path)
        self._remember_folder(path.parent)
        if self.lessons.lesson is not None:
            self._saved_steps[self.lessons.index] = self.session.state
            self.session.message.emit(self.tr("Saved this step's block as %1").replace("%1", str(path)))
            self.refresh()
            return True
        self._set_path(path)
        self.session.undo_stack.setClean()
        self.refresh()
        self.window._refresh_title()
        self.session.message.emit(self.tr("Saved %1").replace("%1", str(path)))
        return True

    def _folder(self) -> Path:
        remembered = settings().value(FOLDER_KEY, "")
        if isinstance(remembered, str) and remembered and Path(remembered).is_dir():
            return Path(remembered)
        return documents_folder()

    def _remember_folder(self, folder: Path) -> None:
        if not is_shipped(folder):
            settings().setValue(FOLDER_KEY, str(folder))

    # --- closing, starting, recovering -------------------------------------------------------
    def close_requested(self) -> bool:
        """The window is about to close: False keeps it open (the user chose Cancel)."""
        if not self.may_discard():
            return False
        self.autosave.close()                   # a clean exit leaves no recovery behind
        return True

    def start(self) -> None:
        """The GUI has started: offer work a crashed Block Lab left behind (and, for tests only,
        apply the edits BLOCKLAB_TEST_EDITS names)."""
        self.offer_recovery()
        apply_test_edits(self.session)

    def offer_recovery(self, folder: Path | None = None) -> bool:
        """Offer the newest work left behind by a Block Lab that is gone; True if restored."""
        found = find_recovered(folder)
        if not found:
            return False
        newest = found[0]
        name = (newest.lesson or newest.path or Path(self.tr("untitled"))).name
        if not ask_restore(self.window, name, newest.saved_at):
            newest.discard()
            return False
        try:
            snapshot = newest.load()
        except (ScenarioError, ValueError, KeyError) as error:
            newest.discard()
            return self._refused(self.tr("Cannot restore"),
                                 self.tr("The unsaved work could not be read back: %1").replace("%1", str(error)))
        self.restore(snapshot)
        self.autosave.write()                   # kept in this process's slot before the old one goes
        newest.discard()
        return True

    def restore(self, snapshot: Snapshot) -> None:
        """Show the recovered work as unsaved edits on top of what it came from."""
        text = self.tr("Restored unsaved work")
        if snapshot.lesson is not None and self.open_lesson(snapshot.lesson, snapshot.step, ask=False):
            for step, scenario in snapshot.kept.items():
                # Edits of the step's own block go on top of the step as written; a block a lab
                # loaded there (another text, e.g. a layer of the trained model) comes back whole.
                written = self.lessons.lesson.step_scenario(step)
                loaded = written if written.tokens == scenario.tokens else scenario
                self.lessons.kept[step] = (loaded, _state(scenario))
            if snapshot.edited:
                self.session.push_state(_state(snapshot.scenario), text)
            self.refresh()
            return
        loaded = snapshot.loaded or self._original(snapshot)
        self.session.load(loaded)
        self.session.push_state(_state(snapshot.scenario), text)
        if self.lessons.lesson is not None:
            self.lessons.close()
        self._set_path(None if snapshot.lesson else snapshot.path)
        self.refresh()
        self.window._refresh_title()

    @staticmethod
    def _original(snapshot: Snapshot) -> Scenario:
        """What the recovered block came from: its file as it is now, if it is still the same block."""
        if snapshot.path is not None:
            try:
                original = load_scenario(snapshot.path)
                if original.tokens == snapshot.scenario.tokens:
                    return original
            except ScenarioError:
                pass
        return snapshot.scenario

    def snapshot(self) -> Snapshot | None:
        """What an autosave keeps now (None: nothing is unsaved)."""
        if not self._compute_modified():
            return None
        scenario = self.session.scenario
        lesson = self.lessons.lesson
        if lesson is None:
            loaded = None if self.path is not None and not is_lesson_file(self.path) else self.session.loaded
            return Snapshot(scenario, self.path, loaded)
        kept = {step: replace_state(loaded, state) for step, (loaded, state) in self.lessons.kept.items()
                if step != self.lessons.index}
        return Snapshot(scenario, self.path, None, self.path, self.lessons.index,
                        not self.session.undo_stack.isClean(), kept)

    # --- language ---------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window and event.type() == QEvent.LanguageChange:
            self.actions.retranslate()
        return False


def replace_state(scenario: Scenario, state: State) -> Scenario:
    """A scenario holding `state` (tokens and title from `scenario`)."""
    return replace(scenario, config=state.config, inputs=state.inputs, weights=dict(state.weights),
                   targets=state.targets)


class FileActions(QObject):
    """The File menu's document lines: New, Open, Recent files, Save, Save As."""

    def __init__(self, document: Document):
        super().__init__(document)
        self.document = document
        window = document.window
        self.new = self._action("actionNew", QKeySequence.New, document.new)
        self.open = self._action("actionOpen", QKeySequence.Open, document.open_dialog)
        self.save = self._action("actionSave", QKeySequence.Save, document.save)
        self.save_as = self._action("actionSaveAs", QKeySequence.SaveAs, document.save_as)
        self.recent_menu = QMenu(window)
        self.recent_menu.setObjectName("menuRecent")
        self.recent_menu.setToolTipsVisible(True)
        self.recent_menu.aboutToShow.connect(self.fill_recent)
        self.retranslate()
        self.fill_recent()

    def _action(self, name: str, shortcut, slot) -> QAction:
        action = QAction(self.document.window)
        action.setObjectName(name)
        action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        self.document.window.addAction(action)
        return action

    def add_to(self, menu: QMenu) -> None:
        for action in (self.new, self.open):
            menu.addAction(action)
        menu.addMenu(self.recent_menu)
        menu.addSeparator()
        for action in (self.save, self.save_as):
            menu.addAction(action)

    def retranslate(self) -> None:
        self.new.setText(self.tr("&New block"))
        self.new.setStatusTip(self.tr("Start again from the default block"))
        self.open.setText(self.tr("&Open…"))
        self.save.setText(self.tr("&Save"))
        self.save_as.setText(self.tr("Save &as…"))
        self.recent_menu.setTitle(self.tr("Recent &files"))
        self.fill_recent()

    def fill_recent(self) -> None:
        """The recent files, newest first, numbered; "Clear the list" below them."""
        menu = self.recent_menu
        menu.clear()
        paths = self.document.recent.paths()
        for number, path in enumerate(paths, start=1):
            action = menu.addAction(f"&{number}  {path.name}")
            action.setObjectName(f"actionRecent{number}")
            action.setToolTip(plain_tooltip(str(path)))
            action.setStatusTip(str(path))
            action.triggered.connect(lambda _checked=False, p=path: self.document.open_recent(p))
        if not paths:
            empty = menu.addAction(self.tr("No recent files"))
            empty.setEnabled(False)
            return
        menu.addSeparator()
        clear = menu.addAction(self.tr("Clear the list"))
        clear.setObjectName("actionClearRecent")
        clear.triggered.connect(self._clear)

    def _clear(self) -> None:
        self.document.recent.clear()
        self.fill_recent()


__all__ = ["Answer", "Document", "RecentFiles", "ask_restore", "ask_unsaved", "choose_open_path",
           "choose_save_path", "documents_folder", "fresh_path", "is_lesson_file", "is_shipped",
           "settings", "warn", "FileActions"]
