"""Clicker keys: PageDown / PageUp (what presentation remotes send), and arrows and Space
where they mean nothing else, step through the open lesson."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QAbstractSlider, QAbstractSpinBox, QApplication,
                               QComboBox, QLineEdit, QPlainTextEdit, QTableView, QTextEdit, QWidget)

from app.lessons.controller import LessonController

# Widgets where arrow keys and Space already mean something; there they are not "next step".
_TYPING = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractSlider, QComboBox, QTableView,
           QAbstractButton)
# In presentation mode only text inputs and tables keep their keys: a button, a combo box or a
# slider the teacher clicked a moment ago does not swallow the clicker's arrows.
PRESENTING_TYPING = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractItemView)
NEXT_KEYS = (Qt.Key_PageDown, Qt.Key_Right, Qt.Key_Space)
PREVIOUS_KEYS = (Qt.Key_PageUp, Qt.Key_Left)
STEP_KEYS = NEXT_KEYS + PREVIOUS_KEYS


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
        presenting = getattr(getattr(self.window, "presentation", None), "active", False)
        typing = typing_in(QApplication.focusWidget(), presenting) or typing_in(watched, presenting)
        if key == Qt.Key_PageDown or (key in (Qt.Key_Right, Qt.Key_Space) and not typing):
            self.controller.next()
            return True
        if key == Qt.Key_PageUp or (key == Qt.Key_Left and not typing):
            self.controller.previous()
            return True
        return False


def typing_in(widget, presenting: bool = False) -> bool:
    """Whether keys sent to `widget` belong to an input (itself or a widget it is part of):
    a table passes an arrow it cannot use at its edge on to its parent, which must not step.
    In presentation mode only text inputs and tables count (a read-only text view does not)."""
    kinds = PRESENTING_TYPING if presenting else _TYPING
    while isinstance(widget, QWidget):
        if isinstance(widget, kinds) and not (
                presenting and isinstance(widget, (QTextEdit, QPlainTextEdit)) and widget.isReadOnly()):
            return True
        widget = widget.parentWidget()
    return False
