"""Clicker keys: PageDown / PageUp (what presentation remotes send), and arrows and Space
where they mean nothing else, step through the open lesson."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
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
    """Presentation clickers send PageUp/PageDown; arrows and Space work where they mean nothing else.

    An application-wide event filter (a key must be seen before the widget with the focus takes
    it: a scroll area takes PageDown), so every event of the application passes through it: it is
    installed only while a key can mean something (a lesson is open, or presentation mode is on),
    and it lets any event that is not a key press go at once. Presentation mode's keys (B, the
    number keys, any key on the blank screen) go through it too, first (`attend`): one filter,
    not two."""

    def __init__(self, controller: LessonController, window: QWidget):
        super().__init__(window)
        self.controller, self.window = controller, window
        self.presentation = None                   # its keys first while it is active (attend)
        self.installed = False
        controller.lessonChanged.connect(self.follow)
        self.follow()

    def attend(self, presentation) -> None:
        """Presentation mode's keys (its `key(event)`) go first while it is active."""
        self.presentation = presentation
        presentation.activeChanged.connect(self.follow)
        self.follow()

    def follow(self, *_args) -> None:
        """Watch the application's events while a lesson is open or presentation mode is on."""
        presentation = self.presentation
        wanted = self.controller.lesson is not None or (presentation is not None and presentation.active)
        if wanted != self.installed:
            app = QApplication.instance()
            if wanted:
                app.installEventFilter(self)
            else:
                app.removeEventFilter(self)
            self.installed = wanted

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        # Called for every event of the application: the class test makes no enum (PySide gives
        # a key event its own class), so the events not wanted cost as little as they can.
        if event.__class__ is not QKeyEvent or event.type() != _KEY_PRESS:
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        presentation = self.presentation
        if presentation is not None and presentation.active and presentation.key(event):
            return True
        if self.controller.lesson is None or event.modifiers() & ~Qt.KeypadModifier:
            return False
        key = event.key()
        presenting = presentation is not None and presentation.active
        typing = typing_in(QApplication.focusWidget(), presenting) or typing_in(watched, presenting)
        if key == Qt.Key_PageDown or (key in (Qt.Key_Right, Qt.Key_Space) and not typing):
            self.controller.next()
            return True
        if key == Qt.Key_PageUp or (key == Qt.Key_Left and not typing):
            self.controller.previous()
            return True
        return False


_KEY_PRESS = QEvent.Type.KeyPress


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
