"""The inspector's standing row: a slice of one row whose columns do not fit the inspector's
width is shown as a column (HookTableModel.transposed), with a note beside it that says it is
the same row, and the widths and heights that come with it (the table as wide as its one column,
the size hint that still asks for the row lying flat, the height it takes at a width); and, in
English, token rows glossed where the longer labels still leave every column whole. A mixin of
Inspector (app/explorer/inspector.py), which has the model, the table, the overview, the
sentence, the explanation, the layout of the numbers (`_numbers`), `_refreshing`, _inner_width()
and _share_height(); its texts translate in Inspector's context."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout

from app import i18n
from app.explorer.tables import FIT_ROWS, OVERVIEW_ABOVE
from app.widgets.appearance import appearance

_VERTICAL = Qt.Orientation.Vertical
_JOIN = "\u2060"  # word joiner: the range d1…d4 is never broken across lines
QWIDGETSIZE_MAX = (1 << 24) - 1            # Qt's "no maximum"


class InspectorStanding:
    _gloss_widths: tuple | None = None           # (what they were measured for, px the glossed labels add)
    # --- a row too wide: standing ----------------------------------------------------------------
    def _standing_side(self) -> QVBoxLayout:
        """The note that says a standing table is the same row (`turned_note`, hidden while it lies
        flat), in the column that goes beside the table; the sentence joins it while it stands."""
        self.turned_note = QLabel()
        self.turned_note.setObjectName("inspectorTurnedNote")
        self.turned_note.setWordWrap(True)
        self.turned_note.setVisible(False)
        self._flat_labels = 0                    # px the row labels and frame take beside the columns, lying flat
        side = QVBoxLayout()
        side.addWidget(self.turned_note)
        side.addStretch(1)
        self._side = side
        return side

    def _can_stand(self) -> bool:
        """A slice of one row and 2 … OVERVIEW_ABOVE columns may be shown standing."""
        rows, columns = self.model.array.shape if self.model.array.ndim == 2 else (0, 0)
        return rows == 1 and 1 < columns <= OVERVIEW_ABOVE

    def _measure_flat(self) -> None:
        """The px the table lying flat needs beside its columns (row label, frame), measured while it lies flat."""
        if not self.model.transposed:
            self._flat_labels = self.table.content_width() - self.model.columnCount() * self.table.cell_size().width()

    def _flat_width(self) -> int:
        """The width the one-row slice needs lying flat: every column whole."""
        return self._flat_labels + self.model.array.shape[1] * self.table.cell_size().width()

    def _stands_at(self, inner: int) -> bool:
        """Whether the slice stands at an inspector width of `inner` px inside its margins: its
        columns lying flat would not fit there (the learner would have to scroll sideways)."""
        return self._can_stand() and self._flat_width() > inner

    def _stand_if_narrow(self) -> None:
        """Stand the one-row slice up (or lay it flat again) for the inspector's present width."""
        self._set_standing(self._stands_at(self._inner_width(self.width())))

    _standing = False                        # the table stands: the note and the sentence beside it

    def _set_standing(self, stand: bool) -> None:
        """The model turned (or not) and the panel laid out for it. (A new slice's reset lays the
        model flat: the panel follows here.)"""
        if stand == self.model.transposed == self._standing:
            return
        self._standing = stand
        current = self.table.currentIndex()
        cell = self.model.cell_of(current) if current.isValid() else None
        refreshing, self._refreshing = self._refreshing, True
        try:
            self.model.set_transposed(stand)
            self.table.fit_columns(self.model.extremes(), force=True)     # other labels: measured again
            self._measure_flat()
            self._fit_standing_width()
            if cell is not None:
                self.table.setCurrentIndex(self.model.index_of(*cell))
        finally:
            self._refreshing = refreshing
        # the sentence goes beside the standing table, under the note; back under it lying flat
        layout = self.layout()
        if stand and self._side.indexOf(self.sentence) < 0:
            layout.removeWidget(self.sentence)
            self._side.insertWidget(1, self.sentence)
        elif not stand and self._side.indexOf(self.sentence) >= 0:
            self._side.removeWidget(self.sentence)
            layout.insertWidget(layout.indexOf(self.explanation), self.sentence)
        self._numbers.setStretchFactor(self.table, 0 if stand else 1)
        self._numbers.setStretchFactor(self._side, 1 if stand else 0)
        self._word_note()
        self.turned_note.setVisible(stand)
        self._share_height()

    def _fit_standing_width(self) -> None:
        """Standing, the table is as wide as its one column (and a scroll bar for rows past
        FIT_ROWS), after an edit that widened it too; lying flat, as wide as its layout makes it."""
        table = self.table
        if self._standing:
            least = most = table.content_width() + (table.verticalScrollBar().sizeHint().width()
                                                    if self.model.rowCount() > FIT_ROWS else 0)
        else:
            least, most = 0, QWIDGETSIZE_MAX
        if (table.minimumWidth(), table.maximumWidth()) != (least, most):
            table.setMinimumWidth(least)
            table.setMaximumWidth(most)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """As the layout would have it, but a standing row still asks for the width that shows it
        lying flat (as NumberTable.sizeHint, up to 640 px at 100 %): a panel given its size hint
        shows every column."""
        hint = super().sizeHint()
        if self.model.transposed:
            margins = self.layout().contentsMargins()
            hint.setWidth(max(hint.width(), min(self._flat_width(), appearance().pixels(640))
                              + margins.left() + margins.right()))
        return hint

    def _word_note(self) -> None:
        model = self.model
        if not model.transposed:
            return
        rows = model.rowCount()
        self.turned_note.setText(self.tr("Row %1, shown as a column: %2…%3 run down.")
                                 .replace("%1", str(model.headerData(0, Qt.Orientation.Horizontal)))
                                 .replace("%2", str(model.headerData(0, _VERTICAL)) + _JOIN)
                                 .replace("%3", _JOIN + str(model.headerData(rows - 1, _VERTICAL))))

    def _numbers_height(self, inner: int) -> int:
        """The px of height the table (and beside a standing one, the note and the sentence) take
        at `inner` px of width: a lesson's whole tensor, up to FIT_ROWS rows."""
        table = self.table
        if self._can_stand() and self._stands_at(inner):
            columns = self.model.array.shape[1]
            rows = columns if columns <= FIT_ROWS else FIT_ROWS // 2
            standing = table.content_height(rows, 1 << 20)      # one column: never a scroll bar across
            if self.model.transposed:
                table_width = table.content_width()
            else:                                  # not standing yet: its labels' width estimated
                label = f"{self.model.column_prefix}{columns}"
                table_width = (table.cell_size().width() + table.fontMetrics().horizontalAdvance(label)
                               + appearance().pixels(12) + 2 * table.frameWidth())
            room = max(inner - table_width - self._numbers.spacing(), 40)
            # (the note is worded once it stands: two lines until then)
            note = (self.turned_note.heightForWidth(room) if self.model.transposed
                    else 2 * self.sentence.fontMetrics().lineSpacing())
            beside = note + max(self._side.spacing(), 0) + self.sentence.heightForWidth(room)
            return max(standing, beside)
        rows = self.model.rowCount()
        beside = (self._numbers.spacing() + self.overview.sizeHint().width()) if self.overview.isVisibleTo(self) else 0
        table_height = table.content_height(rows if rows <= FIT_ROWS else FIT_ROWS // 2, inner - beside)
        return table_height + max(self.layout().spacing(), 0) + self.sentence.heightForWidth(inner)

    # --- token rows glossed where they fit --------------------------------------------------------
    def _gloss_rows(self) -> None:
        """In English, a table of two or more token rows labels them as the attention maps label
        their queries (小明 Xiaoming, 把 (object marker): i18n.glossed) while the longer labels
        leave every column whole at the inspector's width; else the tokens alone."""
        model, tokens = self.model, self.session.tokens
        glossed = False
        if model.rowCount() >= 2 and not model.transposed and model.array.shape[0] == len(tokens) \
                and any(i18n.gloss(token) for token in tokens):
            # The labels' widths are measured once per tokens, font, language and labels shown:
            # an edit's new numbers (this runs after each) change none of them.
            header = self.table.verticalHeader()
            key = (tuple(tokens), header.font().key(), i18n.language(), model.glossed_rows)
            if self._gloss_widths is None or self._gloss_widths[0] != key:
                metrics = header.fontMetrics()
                shown = max(metrics.horizontalAdvance(str(model.headerData(r, Qt.Orientation.Vertical)))
                            for r in range(len(tokens)))
                self._gloss_widths = (key, max(metrics.horizontalAdvance(i18n.glossed(token)) for token in tokens) - shown)
            longer = self._gloss_widths[1]
            glossed = self.table.content_width() + (longer if not model.glossed_rows else 0) \
                <= self._inner_width(self.width())
        if glossed != model.glossed_rows:
            model.glossed_rows = glossed
            model.headerDataChanged.emit(Qt.Orientation.Vertical, 0, model.rowCount() - 1)
            self.table.fit_columns(model.extremes(), force=True)
