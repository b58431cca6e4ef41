"""Undo and Redo for the window: the platform's standard keys, each registered once.

Qt reports an "ambiguous shortcut" and does nothing when one key sequence is registered twice
(Ctrl+Shift+Z given directly and again inside the platform's Redo sequences was such a case).
The keys here are the platform's own (`QKeySequence.keyBindings`) plus the two every Linux
user tries for Redo, Ctrl+Y and Ctrl+Shift+Z, with duplicates removed.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

REDO_KEYS = ("Ctrl+Y", "Ctrl+Shift+Z")


def standard_shortcuts(key: QKeySequence.StandardKey, *extra: str) -> list[QKeySequence]:
    """The platform's sequences for `key`, then `extra`, each once, in that order."""
    found: list[QKeySequence] = []
    seen: set[str] = set()
    for sequence in [*QKeySequence.keyBindings(key), *(QKeySequence(text) for text in extra)]:
        name = sequence.toString(QKeySequence.SequenceFormat.PortableText)
        if name and name not in seen:
            seen.add(name)
            found.append(sequence)
    return found


class UndoRedoActions(QObject):
    """`undo` and `redo` QActions on an undo stack: enabled when possible, named after what they
    would undo ("Undo Set W_in[0, 0] = 1"), in the interface's language."""

    def __init__(self, stack: QUndoStack, window: QWidget):
        super().__init__(window)
        self.stack = stack
        self.window = window
        self.undo = QAction(window)
        self.undo.setObjectName("actionUndo")
        self.undo.setShortcuts(standard_shortcuts(QKeySequence.StandardKey.Undo))
        self.undo.triggered.connect(stack.undo)
        self.redo = QAction(window)
        self.redo.setObjectName("actionRedo")
        self.redo.setShortcuts(standard_shortcuts(QKeySequence.StandardKey.Redo, *REDO_KEYS))
        self.redo.triggered.connect(stack.redo)
        stack.canUndoChanged.connect(self.undo.setEnabled)
        stack.canRedoChanged.connect(self.redo.setEnabled)
        # Each action renamed when its own text changes, and only then: an edit changes the undo
        # text, and the stack says the redo text changed too (emptied, mostly already empty).
        stack.undoTextChanged.connect(self._name_undo)
        stack.redoTextChanged.connect(self._name_redo)
        self.undo.setEnabled(stack.canUndo())
        self.redo.setEnabled(stack.canRedo())
        window.installEventFilter(self)
        self.retranslate()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self, *_ignored) -> None:
        self._name_undo()
        self._name_redo()

    def _name_undo(self, *_ignored) -> None:
        if not isValid(self.stack):          # the Session went first (the window is closing)
            return
        undo = self.stack.undoText()
        _set_text(self.undo, self.tr("Undo %1").replace("%1", undo) if undo else self.tr("Undo"))

    def _name_redo(self, *_ignored) -> None:
        if not isValid(self.stack):
            return
        redo = self.stack.redoText()
        _set_text(self.redo, self.tr("Redo %1").replace("%1", redo) if redo else self.tr("Redo"))


def _set_text(action: QAction, text: str) -> None:
    """Set only a new text: each setText tells every menu and button showing the action."""
    if action.text() != text:
        action.setText(text)
