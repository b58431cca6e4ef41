"""Type your own text: it runs through the model as you type (keystrokes are coalesced to the
next turn of the event loop), with the next-character predictions and the neuron view beside it.
Characters outside the vocabulary are marked; a text longer than the context is windowed."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QPlainTextEdit, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.labs.base import show_only
from app.labs.model.common import NeuronPicker, Part, esc, label, set_text, show_gloss, shown_char, sized
from app.labs.model.glosses import MARKS, char_gloss
from app.labs.model.neurons import NeuronTextView
from app.labs.model.state import TYPED, What
from app.widgets.appearance import appearance
from core.numbers import format_number

GLOSS_PADDING = 12         # px a cell's text leaves to its frame
MAX_TYPED = 20_000            # characters kept in the box (the model reads the last 128 of them)


class PredictionsTable(QTableWidget):
    """The k most likely next characters with their probabilities; in English, the character's
    pinyin and meaning beside it (a projected audience cannot hover: glosses.py)."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(0, 3, parent)
        self.setObjectName(name)
        self.chars: list[str] = []                # the characters shown, for their glosses
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.horizontalHeader()      # the character and its probability whole, the gloss in the rest
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        # a gloss wider than its column wraps (its row grows) rather than losing its meaning to "…"
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.sectionResized.connect(lambda column, _old, _new: self._fit_glosses() if column == 2 else None)
        sized(self, 13)

    def set_headers(self, char: str, probability: str, meaning: str) -> None:
        self.setHorizontalHeaderLabels([char, probability, meaning])
        self.setColumnHidden(2, i18n.language() != "en")
        self._fit_glosses()                              # they follow a change of language
        # Chinese: the probability takes the room the gloss would
        self.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents if i18n.language() == "en" else QHeaderView.ResizeMode.Stretch)

    def show_predictions(self, predictions: list[tuple[str, float]], before: list[float] | None = None) -> None:
        """The characters and their probabilities; with `before` (each one's probability as
        trained), the change in percentage points beside it."""
        if self.rowCount() != len(predictions):
            self.setRowCount(len(predictions))
        self.chars = [ch for ch, _ in predictions]
        for r, (ch, p) in enumerate(predictions):
            probability = format_number(100 * p, 1) + " %"
            if before is not None:
                change = format_number(100 * (p - before[r]), 2)
                probability += f" ({change if change.startswith('−') else '+' + change})"
            for c, text in enumerate((shown_char(ch), probability)):
                self._set(r, c, text)
        self._fit_glosses()

    def _fit_glosses(self) -> None:
        """Each character's gloss on one line where the column has the room (xiāng home), else
        its pinyin above its meaning: the row grows, nothing is cut off."""
        room = self.columnWidth(2) - GLOSS_PADDING
        metrics = self.fontMetrics()
        for r, ch in enumerate(self.chars):
            gloss = char_gloss(ch)
            if metrics.horizontalAdvance(gloss) > room and ch not in MARKS:
                gloss = gloss.replace(" ", "\n", 1)
            self._set(r, 2, gloss)

    def _set(self, row: int, column: int, text: str) -> None:
        item = self.item(row, column)
        if item is None:
            item = QTableWidgetItem()
            self.setItem(row, column, item)
        if item.text() != text:
            item.setText(text)


class ModelTypePart(Part):
    def __init__(self, state, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.setObjectName("modelTypePart")
        self.intro = label("modelTypeIntro")
        self.box = QPlainTextEdit()
        self.box.setObjectName("modelTypeBox")
        sized(self.box, 15)
        self.box.setMaximumHeight(appearance().pixels(110))
        self.box.setPlainText(state.typed)
        self.gloss = label("modelTypeGloss")        # English: what the sample poem says
        self.gloss.hide()
        self._gloss_wanted = False                  # a line of the sample poem is glossed (English)
        self.info = label("modelTypeInfo")
        self.picker = NeuronPicker(state, "modelType")
        self.view = NeuronTextView("modelTypeText")
        self.predictions_title = label("modelPredictionsTitle")
        self.predictions = PredictionsTable("modelPredictions")
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)                    # coalesce the keystrokes of one event-loop turn
        self.timer.timeout.connect(self.apply_text)

        right = QVBoxLayout()
        right.addWidget(self.predictions_title)
        right.addWidget(self.predictions, 1)
        left = QVBoxLayout()
        left.addWidget(self.picker)
        left.addWidget(self.view, 1)
        body = self.body = QHBoxLayout()
        body.addLayout(left, 3)
        body.addLayout(right, 1)           # English: 2, for the predictions' glosses (retranslate)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.intro)
        layout.addWidget(self.box)
        layout.addWidget(self.gloss)
        layout.addWidget(self.info)
        layout.addLayout(body, 1)
        self.box.textChanged.connect(self.timer.start)
        self.retranslate()

    # --- presentation mode: the texts above step aside for the predictions --------------------
    def _fit_texts(self) -> None:
        """Presenting, the introduction, then the run's facts, then the poem's translation step aside
        (the lesson's caption says the first two), the fewest in that order, while the predictions'
        table would be lower than its rows (1024×768 with 150 %: 2 of the 5 guesses were seen); at the
        desk all are shown. Worked out as if all were shown: hiding one never changes the answer."""
        aside = [self.intro, self.info] + ([self.gloss] if self._gloss_wanted else [])
        table = self.predictions
        if not appearance().presenting or table.rowCount() == 0 or table.height() <= 0:
            show_only(aside, (), self)
            return
        spacing = max(0, self.layout().spacing())

        def height(widget) -> int:
            return max(0, widget.heightForWidth(max(1, self.width() - 8))) + spacing

        needed = (table.horizontalHeader().height() + 2 * table.frameWidth()
                  + sum(table.rowHeight(r) for r in range(table.rowCount())))
        room = table.height() - sum(height(widget) for widget in aside if not widget.isVisibleTo(self))
        hidden = []
        for widget in aside:
            if room >= needed:
                break
            hidden.append(widget)
            room += height(widget)
        show_only(aside, hidden, self)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_texts()

    def retranslate(self) -> None:
        self.picker.retranslate()
        set_text(self.intro, esc(self.tr("Type anything: every character goes through the model at once. The model "
                                         "was trained on Tang poems in traditional characters.")))
        self.box.setPlaceholderText(self.tr("Type here…"))
        self.predictions.set_headers(self.tr("Next"), self.tr("Probability"), self.tr("Meaning"))
        self.body.setStretch(1, 2 if i18n.language() == "en" else 1)
        self._gloss()

    def apply_text(self) -> None:
        """Run what is in the box now (called once per burst of keystrokes)."""
        text = self.box.toPlainText()
        if len(text) > MAX_TYPED:
            text = text[-MAX_TYPED:]
        self.state.set_typed(text)
        if self.state.source != TYPED:
            self.state.set_source(TYPED)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        # The part shows the learner's text: make it the text on screen.
        if self.state.source != TYPED:
            self.state.set_source(TYPED)
        super().showEvent(event)

    def redraw(self, what: What) -> None:
        s = self.state
        if what & (What.LAYER | What.NEURON | What.RUN):
            self.picker.refresh()
        if what & (What.RUN | What.LAYER | What.NEURON | What.SCALE | What.STATS | What.LINK):
            self.view.show_state(s)
        if what & (What.RUN | What.LINK):
            self._gloss()
            self._info()
            self.predictions.show_predictions(s.predictions())
            self._fit_texts()

    def _gloss(self) -> None:
        show_gloss(self.gloss, self.state.typed)
        self._gloss_wanted = bool(self.gloss.text())
        self._fit_texts()

    def _info(self) -> None:
        s = self.state
        view = s.view
        if view is None:
            set_text(self.info, esc(self.tr("Nothing to run: type at least one character.")))
            set_text(self.predictions_title, "")
            return
        window = view.window
        parts = [self.tr("%1 characters.").replace("%1", str(window.length))]
        if window.truncated:
            parts.append(self.tr("The model reads at most %1 characters at a time: it uses characters %2 to %3 "
                                 "(the last %1), shown below.").replace("%1", str(window.n_ctx))
                         .replace("%2", str(window.start + 1)).replace("%3", str(window.end)))
        else:
            parts.append(self.tr("The model reads up to %1 characters at a time.").replace("%1", str(window.n_ctx)))
        unknown = len(view.unknown)
        if unknown:
            marked = "".join(dict.fromkeys(view.chars[k] for k in view.unknown))
            if unknown == 1:
                sentence = self.tr("One of them is not in its vocabulary (%2, framed in red): it reads it as "
                                   "� (unknown).")
            else:
                sentence = self.tr("%1 of them are not in its vocabulary (%2, framed in red): it reads each as "
                                   "� (unknown).")
            parts.append(sentence.replace("%1", str(unknown)).replace("%2", marked[:12]))
        changes = len(s.ablation().neurons_off) + (1 if s.explorer_weights() is not None else 0)
        if changes:
            parts.append(self.tr("With your knock-outs and edits."))
        set_text(self.info, esc(i18n.sentences(parts)))
        last = shown_char(view.chars[-1])
        set_text(self.predictions_title, esc(self.tr("After “%1” the model expects:").replace("%1", last)))
