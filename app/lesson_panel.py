"""Lessons in the explorer: a bar above the block with the picker, the step, its live caption.

A step puts the explorer into the exact state the lesson file describes; the learner's
edits at a step are kept for that step only (and can be reset), never leaking into another.
"""
from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (QAbstractButton, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox,
                               QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QTableView, QTextEdit,
                               QVBoxLayout, QWidget)

from core.lesson import Lesson, LessonError, list_lessons, load_lesson

from .session import Session, State

LESSONS = Path(__file__).resolve().parent.parent / "resources" / "lessons"

# Widgets where arrow keys and Space already mean something; there they are not "next step".
_TYPING = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QAbstractSlider, QComboBox, QTableView,
           QAbstractButton)


class LessonController(QObject):
    """Which lesson and step are open, and what the learner changed at each step."""

    stepChanged = Signal()
    lessonChanged = Signal()

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.lesson: Lesson | None = None
        self.index = 0
        self.kept: dict[int, State] = {}      # step → the learner's edited state there

    def open(self, lesson: Lesson, step: int = 0) -> None:
        self.lesson, self.kept = lesson, {}
        self.index = -1
        self.lessonChanged.emit()
        self.go(step)

    def close(self) -> None:
        self.lesson, self.kept, self.index = None, {}, 0
        self.lessonChanged.emit()

    @property
    def step(self):
        return None if self.lesson is None else self.lesson.steps[self.index]

    def _keep_current(self) -> None:
        if self.lesson is not None and self.index >= 0 and not self.session.undo_stack.isClean():
            self.kept[self.index] = self.session.state

    def go(self, index: int) -> None:
        if self.lesson is None:
            return
        index = max(0, min(int(index), len(self.lesson) - 1))
        if index == self.index:
            return
        self._keep_current()
        self.index = index
        self.session.load(self.lesson.step_scenario(index))
        if index in self.kept:
            # The learner's edits come back as one undo step on top of the step as written.
            self.session.push_state(self.kept[index], self.tr("Your edits at this step"))
        self._apply_selection()
        self.stepChanged.emit()

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def reset_step(self) -> None:
        """Forget the learner's edits at this step and show it as written."""
        if self.lesson is None:
            return
        self.kept.pop(self.index, None)
        self.session.load(self.lesson.step_scenario(self.index))
        self._apply_selection()
        self.stepChanged.emit()

    def is_edited(self) -> bool:
        return self.lesson is not None and (not self.session.undo_stack.isClean() or self.index in self.kept)

    def _apply_selection(self) -> None:
        chosen = self.step.select
        if chosen is not None:
            self.session.select(hook=chosen.hook, token=chosen.token, head=chosen.head, column=chosen.column)
        weights = self.step.highlight.weights
        if weights and weights[0] in self.session.tensor_names():
            name = weights[0]
            self.session.select_edit_cell(name, (0,) * self.session.tensor(name).ndim)


class LessonBar(QWidget):
    """Above the block: lesson picker, step navigation, the live caption, a question."""

    def __init__(self, controller: LessonController, window, language: str, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonBar")
        self.controller, self.window, self.language = controller, window, language
        session = controller.session

        self.picker = QComboBox()
        self.picker.setObjectName("lessonPicker")
        self.picker.setMinimumContentsLength(18)
        self.picker.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.picker.addItem(self.tr("Free exploration (no lesson)"), None)
        for lesson_id, title, path in list_lessons(LESSONS):
            self.picker.addItem(title.get(language), str(path))
        self.picker.activated.connect(self._picked)
        self.steps = QComboBox()
        self.steps.setObjectName("lessonStepCombo")
        self.steps.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.steps.setMinimumContentsLength(16)
        self.steps.activated.connect(controller.go)
        self.counter = QLabel()
        self.counter.setObjectName("lessonCounter")
        self.previous = QPushButton(self.tr("◀ Previous"))
        self.previous.setObjectName("lessonPrevious")
        self.previous.clicked.connect(controller.previous)
        self.next = QPushButton(self.tr("Next ▶"))
        self.next.setObjectName("lessonNext")
        self.next.clicked.connect(controller.next)
        self.reset = QPushButton(self.tr("Reset this step"))
        self.reset.setObjectName("lessonResetStep")
        self.reset.setToolTip(self.tr("Forget your edits at this step and show it as the lesson wrote it"))
        self.reset.clicked.connect(controller.reset_step)
        for button in (self.previous, self.next, self.reset):
            button.setFocusPolicy(Qt.NoFocus)     # arrow keys and Space stay "next step"

        self.caption = QLabel()
        self.caption.setObjectName("lessonCaption")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.RichText)
        self.caption.setTextInteractionFlags(Qt.TextSelectableByMouse)
        font = self.caption.font()
        font.setPointSize(max(13, font.pointSize() + 3))
        self.caption.setFont(font)
        self.question = QLabel()
        self.question.setObjectName("lessonQuestion")
        self.question.setWordWrap(True)
        self.show_answer = QPushButton(self.tr("Show the answer"))
        self.show_answer.setObjectName("lessonShowAnswer")
        self.show_answer.setFocusPolicy(Qt.NoFocus)
        self.show_answer.clicked.connect(self._reveal)
        self.answer = QLabel()
        self.answer.setObjectName("lessonAnswer")
        self.answer.setWordWrap(True)
        self.answer.setStyleSheet("color: #1f5f8b;")
        for label in (self.question, self.answer):
            label.setFont(font)

        top = QHBoxLayout()
        top.addWidget(self.picker, 2)
        top.addWidget(self.steps, 3)
        top.addWidget(self.counter)
        top.addWidget(self.previous)
        top.addWidget(self.next)
        top.addWidget(self.reset)
        asked = QHBoxLayout()
        asked.addWidget(self.question, 1)
        asked.addWidget(self.show_answer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.caption)
        layout.addLayout(asked)
        layout.addWidget(self.answer)
        self.setStyleSheet("#lessonBar { background: #fbf7ec; }")
        self.setAttribute(Qt.WA_StyledBackground, True)

        controller.lessonChanged.connect(self._lesson_changed)
        controller.stepChanged.connect(self._step_changed)
        session.traceChanged.connect(self._render)
        session.undo_stack.cleanChanged.connect(self._clean_changed)   # the "(your edits)" mark
        self._answer_shown = False
        self._lesson_changed()

    # --- reacting ---------------------------------------------------------------------------
    def show_open_lesson(self) -> None:
        """Point the picker back at the lesson that is really open (after a refused one)."""
        lesson = self.controller.lesson
        with QSignalBlocker(self.picker):
            self.picker.setCurrentIndex(0 if lesson is None else max(0, self.picker.findData(str(lesson.path))))

    def _picked(self, position: int) -> None:
        path = self.picker.itemData(position)
        if path is None:
            self.controller.close()
            return
        self.window.open_lesson(Path(path))

    def _lesson_changed(self) -> None:
        lesson = self.controller.lesson
        active = lesson is not None
        for widget in (self.steps, self.counter, self.previous, self.next, self.reset, self.caption):
            widget.setVisible(active)
        self.steps.clear()
        if active:
            for number, step in enumerate(lesson.steps, start=1):
                self.steps.addItem(f"{number}. {step.title.get(self.language)}")
            self.steps.setCurrentIndex(max(0, self.controller.index))
            position = self.picker.findData(str(lesson.path))
            if position < 0:
                self.picker.addItem(lesson.title.get(self.language), str(lesson.path))
                position = self.picker.count() - 1
            self.picker.setCurrentIndex(position)
        else:
            self.picker.setCurrentIndex(0)
            self.question.hide()
            self.show_answer.hide()
            self.answer.hide()

    def _step_changed(self) -> None:
        controller = self.controller
        self.steps.setCurrentIndex(controller.index)
        self.counter.setText(f"{controller.index + 1} / {len(controller.lesson)}")
        self.previous.setEnabled(controller.index > 0)
        self.next.setEnabled(controller.index < len(controller.lesson) - 1)
        self._answer_shown = False
        self._render()

    def _clean_changed(self, _clean: bool) -> None:
        # The stack also reports "clean" while the window is being torn down; then stay quiet.
        if shiboken6.isValid(self.controller.session.undo_stack) and shiboken6.isValid(self.caption):
            self._render()

    def _reveal(self) -> None:
        self._answer_shown = True
        self._render()

    def _render(self) -> None:
        """Captions read the live trace, so their numbers follow every edit."""
        step = self.controller.step
        if step is None:
            return
        trace = self.controller.session.trace
        edited = self.controller.is_edited()
        title = step.title.get(self.language)
        mark = f"  <span style='color:#b35806'>{self.tr('(your edits)')}</span>" if edited else ""
        caption = step.render("caption", self.language, trace)
        self.caption.setText(f"<b>{_html(title)}</b>{mark}<br>{_html(caption)}")
        question = step.render("question", self.language, trace)
        self.question.setVisible(question is not None)
        self.show_answer.setVisible(question is not None and not self._answer_shown)
        self.answer.setVisible(question is not None and self._answer_shown)
        if question is not None:
            self.question.setText(self.tr("Question: %1").replace("%1", question))
            self.answer.setText(step.render("answer", self.language, trace))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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


def load_lesson_or_error(path: Path) -> tuple[Lesson | None, str | None]:
    try:
        return load_lesson(path), None
    except LessonError as error:
        return None, str(error)
