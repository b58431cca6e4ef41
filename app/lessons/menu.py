"""The Lessons menu: the shipped lessons by title, and the step actions with their keys.

Next / Previous show PageDown / PageUp beside them as the menu's shortcut column (the text
after a tab), but register no shortcut: the clicker keys belong to one handler only, the
event filter of app/lessons/keys.py, so a PageDown steps exactly once and only in this window.
"""
from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from app import i18n
from app.lessons.controller import LESSONS
from app.widgets.menus import WindowMenu
from core.formats.lesson import list_lessons

NEXT_KEY = "PgDown"
PREVIOUS_KEY = "PgUp"


class LessonsMenu(WindowMenu):
    """One entry per shipped lesson, then next, previous, reset this step, leave the lesson."""

    def __init__(self, window: QWidget):
        super().__init__(window, "menuLessons")
        controller = window.lessons
        self.lesson_actions: list[tuple[QAction, dict[str, str]]] = []
        for lesson_id, title, path in list_lessons(LESSONS):
            action = self.addAction("")
            action.setObjectName(f"actionLesson_{lesson_id}")
            action.triggered.connect(lambda _checked=False, p=path: window.open_lesson(p))
            self.lesson_actions.append((action, title))
        self.addSeparator()
        self.next_action = self._step_action("actionNextStep", controller.next, NEXT_KEY)
        self.previous_action = self._step_action("actionPreviousStep", controller.previous, PREVIOUS_KEY)
        self.reset_action = self._step_action("actionResetStep", controller.reset_step)
        self.leave_action = self._step_action("actionCloseLesson", controller.close)
        self.retranslate()

    def _step_action(self, name: str, slot, key: str | None = None) -> QAction:
        action = self.add_window_action(name, slot)
        action.setProperty("keys", key or "")   # shown after a tab, not a shortcut (see above)
        return action

    def retranslate(self) -> None:
        language = i18n.language()
        self.setTitle(self.tr("&Lessons"))
        for action, title in self.lesson_actions:
            action.setText(title.get(language) or title.get("en") or "")
        for action, text in ((self.next_action, self.tr("Next step")), (self.previous_action, self.tr("Previous step")),
                             (self.reset_action, self.tr("Reset this step")),
                             (self.leave_action, self.tr("Leave the lesson"))):
            keys = action.property("keys")
            native = QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText) if keys else ""
            action.setText(f"{text}\t{native}" if native else text)
