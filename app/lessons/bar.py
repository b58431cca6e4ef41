"""The lesson bar above the block: the picker, the step, its live caption and question."""
from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app import i18n
from app.lessons.controller import LESSONS, LessonController
from app.session import Change
from app.start_card import StartCard
from core.formats.lesson import Text, list_lessons


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
        self.picker.addItem("", None)                   # "Free exploration", in retranslate()
        self._titles: list[Text] = []                    # the lessons' titles, item 1 onwards
        for lesson_id, title, path in list_lessons(LESSONS):
            self.picker.addItem(title.get(language), str(path))
            self._titles.append(title)
        self.picker.activated.connect(self._picked)
        self.steps = QComboBox()
        self.steps.setObjectName("lessonStepCombo")
        self.steps.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.steps.setMinimumContentsLength(16)
        self.steps.activated.connect(controller.go)
        self.counter = QLabel()
        self.counter.setObjectName("lessonCounter")
        self.previous = QPushButton()
        self.previous.setObjectName("lessonPrevious")
        self.previous.clicked.connect(controller.previous)
        self.next = QPushButton()
        self.next.setObjectName("lessonNext")
        self.next.clicked.connect(controller.next)
        self.reset = QPushButton()
        self.reset.setObjectName("lessonResetStep")
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
        self.show_answer = QPushButton()
        self.show_answer.setObjectName("lessonShowAnswer")
        self.show_answer.setFocusPolicy(Qt.NoFocus)
        self.show_answer.setCheckable(True)             # a toggle: show the answer, hide it again
        self.show_answer.toggled.connect(self._answer_toggled)
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
        self.start_card = StartCard(self)
        self.start_card.openLesson.connect(self._open_first_lesson)
        if isinstance(window, QWidget):
            # over the work area: it takes no room of its own
            self.start_card.float_below(self, window, getattr(window, "work", None))
        self.setStyleSheet("#lessonBar { background: #fbf7ec; }")
        self.setAttribute(Qt.WA_StyledBackground, True)

        controller.lessonChanged.connect(self._lesson_changed)
        controller.stepChanged.connect(self._step_changed)
        session.changed.connect(lambda change: change & Change.TRACE and self._render())
        session.undo_stack.cleanChanged.connect(self._clean_changed)   # the "(your edits)" mark
        self._answer_shown = False
        self.retranslate()
        self._lesson_changed()

    # --- language -------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.language = i18n.language()
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Every text of the bar in the current language: buttons, the picker's lesson titles,
        the step titles, the caption, question and answer (re-rendered from the live trace)."""
        self.picker.setItemText(0, self.tr("Free exploration (no lesson)"))
        for position, title in enumerate(self._titles, start=1):
            self.picker.setItemText(position, title.get(self.language))
        self.previous.setText(self.tr("◀ Previous"))
        self.next.setText(self.tr("Next ▶"))
        self.reset.setText(self.tr("Reset this step"))
        self.reset.setToolTip(self.tr("Forget your edits at this step and show it as the lesson wrote it"))
        self._answer_button_text()
        lesson = self.controller.lesson
        if lesson is not None and self.steps.count() == len(lesson.steps):
            for number, step in enumerate(lesson.steps, start=1):
                self.steps.setItemText(number - 1, f"{number}. {step.title.get(self.language)}")
            self._render()

    def _answer_button_text(self) -> None:
        self.show_answer.setText(self.tr("Hide the answer") if self._answer_shown else self.tr("Show the answer"))

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

    def _open_first_lesson(self) -> None:
        if self.picker.count() > 1:
            self.picker.setCurrentIndex(1)
            self._picked(1)

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
                self._titles.append(lesson.title)
                position = self.picker.count() - 1
            self.picker.setCurrentIndex(position)
            self.start_card.hide()                     # a lesson is what the card suggested
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
        self._set_answer_shown(False)
        self._render()

    def _clean_changed(self, _clean: bool) -> None:
        # The stack also reports "clean" while the window is being torn down; then stay quiet.
        if shiboken6.isValid(self.controller.session.undo_stack) and shiboken6.isValid(self.caption):
            self._render()

    def _answer_toggled(self, shown: bool) -> None:
        self._answer_shown = shown
        self._answer_button_text()
        self._render()

    def _set_answer_shown(self, shown: bool) -> None:
        """A new step starts with its answer hidden (without rendering twice)."""
        with QSignalBlocker(self.show_answer):
            self.show_answer.setChecked(shown)
        self._answer_shown = shown
        self._answer_button_text()

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
        self.show_answer.setVisible(question is not None)
        self.answer.setVisible(question is not None and self._answer_shown)
        if question is not None:
            self.question.setText(self.tr("Question: %1").replace("%1", question))
            self.answer.setText(step.render("answer", self.language, trace))


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
