"""The lesson bar above the block: the picker, the step, its live caption and question.

In presentation mode (set_presenting) the pickers give way to the step counter, the step
buttons and a button that leaves presentation mode, so the caption gets the width; its text
is sized by appearance() and its background is the theme's."""
from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QSignalBlocker, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPalette
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app import i18n
from app.lessons.controller import LESSONS, LessonController
from app.session import Change
from app.start_card import StartCard
from app.widgets.appearance import appearance
from app.widgets.document_label import DocumentPaint
from app.widgets.elided_combo import ElidedComboBox
from app.widgets.fence import SizeFence
from app.widgets.inert import escaped
from app.widgets.steady_label import ShapeHints
from core.formats.lesson import Text, list_lessons

LESSON_LEAST_CHARACTERS = 8   # the lesson's box narrows to this many characters (the title bar names the lesson)


class LessonBar(QWidget):
    """Above the block: lesson picker, step navigation, the live caption, a question."""

    def __init__(self, controller: LessonController, window, language: str, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonBar")
        self.controller, self.window, self.language = controller, window, language
        session = controller.session

        self.picker = ElidedComboBox()     # a long title ends in "…", whole in the tooltip and the list
        self.picker.setObjectName("lessonPicker")
        self.picker.setMinimumContentsLength(18)
        # At 150 % on 1024 px the two boxes' 18 and 16 characters, the step buttons and the
        # toolbar made the window 1,116–1,142 px wide: short of room, the lesson's box narrows to 8
        # characters (the window's title names the lesson; the step's box keeps its 16).
        self.picker.set_least_contents_length(LESSON_LEAST_CHARACTERS)
        self.picker.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.picker.addItem("", None)                   # "Free exploration", in retranslate()
        self._titles: list[Text] = []                    # the lessons' titles, item 1 onwards
        for lesson_id, title, path in list_lessons(LESSONS):
            self.picker.addItem(title.get(language), str(path))
            self._titles.append(title)
        self.picker.activated.connect(self._picked)
        self.steps = ElidedComboBox()
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
        self.leave = QPushButton()
        self.leave.setObjectName("lessonLeavePresentation")
        self.leave.hide()                          # only in presentation mode
        for button in (self.previous, self.next, self.reset, self.leave):
            button.setFocusPolicy(Qt.NoFocus)     # arrow keys and Space stay "next step"
        self.presenting = False

        self.caption = CaptionLabel()
        self.caption.setObjectName("lessonCaption")
        self._caption_floor = 0                        # the tallest the caption was at this step
        self.caption.installEventFilter(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.RichText)
        self.caption.setTextInteractionFlags(Qt.TextSelectableByMouse)   # no link is followed, none opened
        self.caption.setOpenExternalLinks(False)
        # Opaque, in the bar's own colour (its palette is the bar's): a new number repaints the
        # caption alone, not the bar and the fence behind it as well.
        self.caption.setAutoFillBackground(True)
        self.question = QLabel()
        self.question.setObjectName("lessonQuestion")
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.PlainText)      # lesson text is data: "<img …>" is shown, never loaded
        self.show_answer = QPushButton()
        self.show_answer.setObjectName("lessonShowAnswer")
        self.show_answer.setFocusPolicy(Qt.NoFocus)
        self.show_answer.setCheckable(True)             # a toggle: show the answer, hide it again
        self.show_answer.toggled.connect(self._answer_toggled)
        self.answer = QLabel()
        self.answer.setObjectName("lessonAnswer")
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.PlainText)

        top = QHBoxLayout()
        self._top = top
        top.addWidget(self.picker, 1)              # the two share the row by their texts' widths (_share_row)
        top.addWidget(self.steps, 1)
        top.addWidget(self.counter)
        top.addWidget(self.previous)
        top.addWidget(self.next)
        top.addWidget(self.reset)
        top.addWidget(self.leave)
        asked = QHBoxLayout()
        asked.addWidget(self.question, 1)
        asked.addWidget(self.show_answer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        self.caption_fence = SizeFence(self.caption, hold_height=False)   # a live number: no relayout of the window
        layout.addWidget(self.caption_fence)
        layout.addLayout(asked)
        layout.addWidget(self.answer)
        self.start_card = StartCard(self)
        self.start_card.openLesson.connect(self._open_first_lesson)
        if isinstance(window, QWidget):
            # over the work area: it takes no room of its own
            self.start_card.float_below(self, window, getattr(window, "work", None))
        appearance().changed.connect(self._restyle)
        self._restyle()

        controller.lessonChanged.connect(self._lesson_changed)
        controller.stepChanged.connect(self._step_changed)
        session.changed.connect(lambda change: change & Change.TRACE and self._render(edited=True))
        session.undo_stack.cleanChanged.connect(self._clean_changed)   # the "(your edits)" mark
        self._answer_shown = False
        self.retranslate()
        self._lesson_changed()

    # --- language -------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.language = i18n.language()
            self.retranslate()
            self._retranslate_presentation()
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
                self.steps.setItemText(number - 1, self._step_item(number, step))
            self._render()
        self._share_row()

    def _step_item(self, number: int, step) -> str:
        """A step in the step list: "1. Four reviews…"; in Chinese "1．四句评价…", the full-width
        mark of a Chinese sentence (tools/chinese_punctuation.py), without a space after it."""
        return self.tr("%1. %2").replace("%1", str(number)).replace("%2", step.title.get(self.language))

    def _answer_button_text(self) -> None:
        self.show_answer.setText(self.tr("Hide the answer") if self._answer_shown else self.tr("Show the answer"))

    # --- presentation mode and the theme --------------------------------------------------------
    def set_presenting(self, presenting: bool) -> None:
        """Presentation mode: the step counter and buttons and a "leave" button, no pickers
        (the picker stays while no lesson is open, to start one)."""
        self.presenting = presenting
        self._show_controls()
        self._retranslate_presentation()

    def _show_controls(self) -> None:
        active = self.controller.lesson is not None
        self.picker.setVisible(not (active and self.presenting))
        self.steps.setVisible(active and not self.presenting)
        # The fence, not the caption inside it: a hidden caption's fence would keep its room.
        for widget in (self.counter, self.previous, self.next, self.reset, self.caption_fence):
            widget.setVisible(active)
        self.leave.setVisible(self.presenting)

    def _retranslate_presentation(self) -> None:
        self.leave.setText(self.tr("Leave presentation (Esc)"))

    def _restyle(self) -> None:
        """The caption's size and the bar's colours follow the zoom, presentation mode and the theme."""
        look = appearance()
        colours = look.colours
        # Palettes, not style sheets: a style sheet would pin the bar's buttons to the font
        # they had, and they must follow the application font (the zoom).
        palette = self.palette()
        palette.setColor(QPalette.Window, QColor(colours.caption_background))
        self.setPalette(palette)
        self.setAutoFillBackground(True)
        answer = self.answer.palette()
        answer.setColor(QPalette.WindowText, QColor(colours.accent))
        self.answer.setPalette(answer)
        for label in (self.caption, self.question, self.answer):
            font = label.font()
            font.setPointSizeF(look.points(13))
            label.setFont(font)
        self._release_caption()
        self._render()
        self._share_row()

    def _share_row(self) -> None:
        """The lesson picker and the step list share the row in proportion to the widths of the
        texts they show: both whole when the row has room for both, else both elided alike (a long
        lesson title no longer loses its end while a short step title leaves its box half empty)."""
        metrics = QFontMetrics(self.picker.font())
        for combo in (self.picker, self.steps):
            need = max(1, round(metrics.horizontalAdvance(combo.currentText())))
            if self._top.stretch(self._top.indexOf(combo)) != need:
                self._top.setStretchFactor(combo, need)

    def add_trailing(self, widget: QWidget) -> None:
        """Put a widget at the end of the bar's top row (the window's toolbar lives here, so it
        costs no row of its own on a 768-pixel projector)."""
        self._top.addWidget(widget)

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
        self._show_controls()
        self.steps.clear()
        if active:
            for number, step in enumerate(lesson.steps, start=1):
                self.steps.addItem(self._step_item(number, step))
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
        self._share_row()

    def _step_changed(self) -> None:
        controller = self.controller
        self.steps.setCurrentIndex(controller.index)
        self._share_row()
        self.counter.setText(f"{controller.index + 1} / {len(controller.lesson)}")
        self.previous.setEnabled(controller.index > 0)
        self.next.setEnabled(controller.index < len(controller.lesson) - 1)
        self._set_answer_shown(False)
        self._release_caption()                        # a new step: the caption may shrink again
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

    def _render(self, edited: bool = False) -> None:
        """Captions read the live trace, so their numbers follow every edit (`edited`: an edit's
        new numbers, which never make the caption shorter within the step)."""
        step = self.controller.step
        if step is None:
            return
        trace = self.controller.session.trace
        edited = self.controller.is_edited()
        title = step.title.get(self.language)
        mark = f"  <span style='color:#b35806'>{self.tr('(your edits)')}</span>" if edited else ""
        caption = step.render("caption", self.language, trace)
        text = f"<b>{_html(title)}</b>{mark}<br>{_html(caption)}"
        if text != self.caption.text():
            if edited:
                self._keep_caption_height()
            self.caption.setText(text)
            # The fence checks the new text's height now, before the caption is painted: the check
            # lays the text out again, which later on would paint the caption a second time.
            QCoreApplication.sendPostedEvents(self.caption_fence, QEvent.Type.LayoutRequest)
            if self.caption.isVisible():
                # The check found the height of a text of this shape remembered (CaptionLabel), so
                # nothing laid the new text out: lay it out at the caption's width now, once.
                self.caption.lay_out()
        question = step.render("question", self.language, trace)
        self.question.setVisible(question is not None)
        self.show_answer.setVisible(question is not None)
        self.answer.setVisible(question is not None and self._answer_shown)
        if question is not None:
            self.question.setText(self.tr("Question: %1").replace("%1", question))
            if self._answer_shown:                     # a hidden answer is worded when it is shown
                self.answer.setText(step.render("answer", self.language, trace))

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.caption and event.type() == QEvent.Type.Resize \
                and event.size().width() != event.oldSize().width():
            self._release_caption()                    # another width: its own height
        return super().eventFilter(watched, event)

    def _release_caption(self) -> None:
        if self._caption_floor:
            self._caption_floor = 0
            self.caption.setMinimumHeight(0)

    def _keep_caption_height(self) -> None:
        """Within a step the caption does not shrink on an edit: a live number one digit shorter
        must not relayout (and repaint) the whole window on every edit."""
        height = self.caption.height()
        if self.caption.isVisible() and height > self._caption_floor:
            self._caption_floor = height
            self.caption.setMinimumHeight(height)


class CaptionLabel(DocumentPaint, QLabel):
    """The caption: a QLabel whose sizes are remembered by its text's shape (ShapeHints), so the
    next value of a live number lays out no rich text to find them (the caption's fence asks for
    its least size and its height on every edit: half a dozen layouts of a long text), and which
    paints its text from a document of its own, laid out once per text (DocumentPaint)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._hints = ShapeHints()
        self.init_document()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self._hints.get(self, "height", super().heightForWidth, width)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self._hints.get(self, "size", super().sizeHint)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self._hints.get(self, "least", super().minimumSizeHint)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        self._hints.follow(event)
        super().changeEvent(event)


def _html(text: str) -> str:
    return escaped(text)
