"""The lab's data table: sentence, p, n, target y, ŷ, verdict.

Every column is as wide as its widest text (header included) and the table exactly as wide as
its columns, so no sentence, gloss or value is cut at any window size; the space left over goes
to the box beside the table."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QSizePolicy, QTableWidget, QTableWidgetItem

from app.labs.xor.common import TEXT_PT
from app.widgets.appearance import appearance
from app.widgets.style import font


class XorTable(QTableWidget):
    """sentence, p, n, target y, ŷ, verdict: items created once, their texts updated in place."""

    SENTENCE, P, N, TARGET, OUTPUT, VERDICT = range(6)

    def __init__(self):
        super().__init__(0, 6)
        self.setObjectName("xorTable")
        self.setFont(font(TEXT_PT))
        self.horizontalHeader().setFont(font(TEXT_PT, bold=True))
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.horizontalHeader()
        # fit_width sizes the columns: Qt's ResizeToContents measured every cell again after each
        # change of a text and repainted the whole table when it did
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._changed: set[int] = set()              # columns whose texts changed since fit_width

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.FontChange:
            # the zoom changed the fonts (the header's just after the table's): fit again then
            QTimer.singleShot(0, self, self._refit)
        super().changeEvent(event)

    def _refit(self) -> None:
        self._fit_height()
        self.fit_width()

    def set_rows(self, count: int) -> None:
        if self.rowCount() == count:
            return
        self.setRowCount(count)
        for row in range(count):
            for column in range(self.columnCount()):
                if self.item(row, column) is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    self.setItem(row, column, item)
        self._fit_height()

    def _fit_height(self) -> None:
        # In presentation mode the rows are tighter: the parts below the table (plots, the
        # drawing) need a projector's height more than the rows need air (at 1024×768 with 150 %
        # zoom the bias page scrolled with rows 6 px above their text).
        tight = appearance().presenting
        metrics = QFontMetrics(self.font())
        row_height = metrics.height() + (3 if tight else 10)
        if tight:                                       # the style's least row would be taller
            self.verticalHeader().setMinimumSectionSize(min(row_height, self.verticalHeader().minimumSectionSize()))
        for row in range(self.rowCount()):
            self.setRowHeight(row, row_height)
        header = QFontMetrics(self.horizontalHeader().font()).height() + (5 if tight else 12)
        self.horizontalHeader().setFixedHeight(header)
        # the rows as set (a row is never lower than the vertical header's least section)
        self.setFixedHeight(header + sum(self.rowHeight(row) for row in range(self.rowCount())) + 2 * self.frameWidth())

    def fit_width(self) -> None:
        """As wide as its columns, each as wide as its widest text: never squeezed, never padded.
        A number one digit shorter after an edit narrows no column (that would relayout and repaint
        the whole lab on every edit); other columns or rows, a new font, or `release()` (a new
        scenario, a new language) let them fit their texts again."""
        header = self.horizontalHeader()
        shown = tuple(c for c in range(self.columnCount()) if not self.isColumnHidden(c))
        shape = (self.rowCount(), shown, self.font().key(), header.font().key())
        steady = shape == getattr(self, "_fitted_shape", None)
        self._fitted_shape = shape
        # Steady, a column whose texts did not change since it was measured is as wide as it
        # was: only the columns a put() changed are measured again (each cell's size, every edit).
        measured = [c for c in shown if c in self._changed] if steady else shown
        self._changed.clear()
        if steady and not measured:
            return
        width = 2 * self.frameWidth()
        for c in shown:
            if c not in measured:
                width += header.sectionSize(c)
                continue
            needed = max(header.sectionSizeHint(c), self.sizeHintForColumn(c))
            if steady:
                needed = max(needed, header.sectionSize(c))
            if header.sectionSize(c) != needed:
                header.resizeSection(c, needed)
            width += needed
        if self.width() != width or self.minimumWidth() != width:
            self.setFixedWidth(width)

    def set_header(self, column: int, text: str) -> None:
        """A column's header text (measured again at the next fit_width)."""
        item = self.horizontalHeaderItem(column)
        if item.text() != text:
            item.setText(text)
            self._changed.add(column)

    def release(self) -> None:
        """The next fit may narrow the columns again."""
        self._fitted_shape = None

    def put(self, row: int, column: int, text: str, colour: str | None = None, tip: str = "") -> None:
        item = self.item(row, column)
        if item.text() != text:
            item.setText(text)
            self._changed.add(column)
        if tip and item.toolTip() != tip:
            item.setToolTip(tip)
        brush = QColor(colour) if colour else QColor("#111111")
        if item.foreground().color() != brush:
            item.setForeground(brush)
