"""Clicker keys: PageDown / PageUp (what presentation remotes send), and arrows and Space
where they mean nothing else, step through the open lesson."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox,
                               QLineEdit, QPlainTextEdit, QTableView, QTextEdit, QWidget)

from app.lessons.controller import LessonController

# Widgets where arrow keys and Space already mean something; there they are not "next step".
_TYPING = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractSlider, QComboBox, QTableView,
           QAbstractButton)


class StepKeys(QObject):
    """Presentation clickers send PageUp/PageDown; arrows and Space work where they mean nothing else."""

    def __init__(self, controller: LessonController, window: QWidget):
        super().__init__(window)
        self.controller, self.window = controller, window

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        if event.type() != QEvent.KeyPress or self.controller.lesson is None or event.modifiers() & ~Qt.KeypadModifier:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        key = event.key()
        typing = _typing_in(QApplication.focusWidget()) or _typing_in(watched)
        if key == Qt.Key_PageDown or (key in (Qt.Key_Right, Qt.Key_Space) and not typing):
            self.controller.next()
            return True
        if key == Qt.Key_PageUp or (key == Qt.Key_Left and not typing):
            self.controller.previous()
            return True
        return False


def _typing_in(widget) -> bool:
    """Whether keys sent to `widget` belong to an input (itself or a widget it is part of):
    a table passes an arrow it cannot use at its edge on to its parent, which must not step."""
    while isinstance(widget, QWidget):
        if isinstance(widget, _TYPING):
            return True
        widget = widget.parentWidget()
    return False
