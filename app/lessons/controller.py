"""Which lesson and step are open, and the learner's edits kept per step.

A step puts the Session into the exact state the lesson file describes; the learner's
edits at a step are kept for that step only (and can be reset), never leaking into another.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.session import Session, State
from core.formats.lesson import Lesson, LessonError, load_lesson
from core.formats.scenario import Scenario
from core.resources import lessons_dir

LESSONS = lessons_dir()


class LessonController(QObject):
    """Which lesson and step are open, and what the learner changed at each step."""

    stepChanged = Signal()
    lessonChanged = Signal()

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.lesson: Lesson | None = None
        self.index = 0
        # step → the block the Session had loaded there and the learner's edited state of it (a lab
        # may have loaded another block than the step's, e.g. a layer of the trained model)
        self.kept: dict[int, tuple[Scenario, State]] = {}

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
            self.kept[self.index] = (self.session.loaded, self.session.state)

    def go(self, index: int) -> None:
        if self.lesson is None:
            return
        index = max(0, min(int(index), len(self.lesson) - 1))
        if index == self.index:
            return
        self._keep_current()
        self.index = index
        kept = self.kept.get(index)
        self.session.load(kept[0] if kept else self.lesson.step_scenario(index))
        if kept:
            # The learner's edits come back as one undo step on top of the block as loaded there.
            self.session.push_state(kept[1], self.tr("Your edits at this step"))
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


def load_lesson_or_error(path: Path) -> tuple[Lesson | None, str | None]:
    try:
        return load_lesson(path), None
    except LessonError as error:
        return None, str(error)
