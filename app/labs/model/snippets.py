"""The chosen neuron's top snippets: one line each, its peak value, its characters tinted by the
neuron, and an arrow that shows the place in the text.

Drawn by hand rather than as rich text in a QLabel: a neuron change re-set some 4,500 characters
of HTML (a span per character), which Qt parsed and laid out several times per edit (~5 ms,
half of the edit)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.labs.model.common import shown_char
from app.widgets import style

ARROW = "⟶"
PAD = 2                                   # px either side of a character in its cell


@dataclass(frozen=True)
class SnippetLine:
    value: str                            # the peak value as shown ("3.2")
    chars: tuple[str, ...]
    values: np.ndarray                    # the neuron at each character
    peak: int                             # index of the peak character
    position: int                         # absolute position of the peak in the text


class SnippetLines(QWidget):
    """Lines of tinted characters on the diverging scale ±limit; clicking a line's arrow emits
    `positionClicked(position)`. Where everything goes is worked out once per content, width and
    font (`_place`); painting only fills and writes.

    With whole_rows (a projector, where nobody scrolls) it takes the height it is given and
    shows the snippets that fit in it whole, the strongest first, never half a line; `shown()`
    says how many (`shownChanged` when that changes)."""

    positionClicked = Signal(int)
    shownChanged = Signal()

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setMouseTracking(True)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.lines: tuple[SnippetLine, ...] = ()
        self.limit = 1.0
        self._placed: dict[int, list] = {}                   # width → per snippet: value, cells, arrow
        self._heights: dict[int, int] = {}                   # width → the lines' height
        self._sizes = None                                   # the lines' widths (_measure), per content and font
        self._char_widths: dict[str, int] = {}               # a character's cell width, per font
        self.whole_rows = False
        self._shown = 0

    def set_whole_rows(self, whole: bool) -> None:
        if whole != self.whole_rows:
            self.whole_rows = whole
            vertical = QSizePolicy.Policy.Ignored if whole else QSizePolicy.Policy.Preferred
            policy = QSizePolicy(QSizePolicy.Policy.Preferred, vertical)
            policy.setHeightForWidth(not whole)
            self.setSizePolicy(policy)
            self.updateGeometry()
            self._count_shown()

    def shown(self) -> int:
        """How many snippets are drawn: all, or (whole_rows) those whose every line fits."""
        return self._shown

    def _count_shown(self) -> None:
        shown = len(self.lines)
        if self.whole_rows:
            shown = sum(1 for _value, _cells, arrow in self._place() if arrow.bottom() < self.height())
        if shown != self._shown:
            self._shown = shown
            self.update()
            self.shownChanged.emit()

    def set_lines(self, lines, limit: float) -> None:
        lines = tuple(lines)
        reshaped = [l.chars for l in lines] != [l.chars for l in self.lines] or \
            [l.value for l in lines] != [l.value for l in self.lines]
        self.lines, self.limit = lines, float(limit)
        if reshaped:
            self._forget(font=False)
            self.updateGeometry()
        self._count_shown()
        self.update()

    def text(self) -> str:
        """The lines shown as plain text: "3.2 the cat ⟶"."""
        return "\n".join(f"{line.value} {''.join(map(shown_char, line.chars))} {ARROW}"
                         for line in self.lines[:self._shown])

    # --- geometry: from the font, so it follows the interface zoom -----------------------------
    def _forget(self, font: bool) -> None:
        """New lines (or, `font`, a new font): their sizes and places are found again."""
        self._placed.clear()
        self._heights.clear()
        self._sizes = None
        if font:
            self._char_widths.clear()

    def _measure(self) -> tuple:
        """The lines' widths, once per content and font: the value's column, the arrow's, a row's
        height and baseline, and per snippet its cells' widths and shown characters. (A layout asks
        for the height at several widths per neuron: each of them is then a sum of integers.)"""
        if self._sizes is None:
            metrics = QFontMetrics(self.font())
            known = self._char_widths
            value_width = max([metrics.horizontalAdvance("−00.0")] +
                              [metrics.horizontalAdvance(line.value) for line in self.lines]) + 8
            cells = []
            for line in self.lines:
                shown = [shown_char(ch) for ch in line.chars]
                for character in shown:
                    if character not in known:
                        known[character] = metrics.horizontalAdvance(character) + 2 * PAD
                cells.append(([known[character] for character in shown], shown))
            self._sizes = (value_width, metrics.horizontalAdvance(ARROW) + 8, metrics.height() + 6,
                           3 + metrics.ascent(), cells)
        return self._sizes

    def _rows(self, width: int) -> list:
        """Per snippet at `width`: its first row, each cell's x and row, and where its arrow goes
        (x, row). A snippet wider than `width` wraps under itself."""
        value_width, arrow_width, _height, _baseline, cells = self._measure()
        rows, row = [], 0
        for widths, _shown in cells:
            x, first, places = value_width, row, []
            for cell in widths:
                if x > value_width and x + cell + 8 + arrow_width > width:
                    x, row = value_width, row + 1                      # wrap under the snippet's start
                places.append((x, row))
                x += cell
            rows.append((first, places, x + 8, row))
            row += 1
        return rows

    def _place(self, width: int | None = None) -> list:
        """Per snippet at `width` (default: the widget's): the value's rect, each character's cell
        and baseline point, the arrow's rect."""
        width = self.width() if width is None else width
        if width in self._placed:
            return self._placed[width]
        value_width, arrow_width, height, baseline, cells = self._measure()
        placed = []
        for (widths, shown), (first, places, arrow_x, last) in zip(cells, self._rows(width)):
            placed.append((QRect(0, first * height, value_width - 8, height),
                           [(QRect(x, row * height + 2, cell, height - 4), QPoint(x + PAD, row * height + baseline), ch)
                            for (x, row), cell, ch in zip(places, widths, shown)],
                           QRect(arrow_x, last * height, arrow_width, height)))
        if len(self._placed) > 8:
            self._placed.clear()
        self._placed[width] = placed
        return placed

    def _natural_width(self) -> int:
        value_width, arrow_width, _height, _baseline, cells = self._measure()
        # no wrapping: the arrow's right edge (QRect.right() is its last pixel) and 2 px
        return max((value_width + sum(widths) + 8 + arrow_width - 1 + 2 for widths, _shown in cells), default=0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return not self.whole_rows

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._count_shown()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        found = self._heights.get(width)
        if found is None:
            if len(self._heights) > 32:
                self._heights.clear()
            rows = self._rows(width)
            found = self._heights[width] = (rows[-1][3] + 1 if rows else 0) * self._measure()[2]
        return found

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        width = self._natural_width()
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        metrics = QFontMetrics(self.font())
        return QSize(metrics.horizontalAdvance("−00.0 MMMM") + metrics.horizontalAdvance(ARROW) + 24,
                     metrics.height() + 6)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):      # the zoom: new sizes
            self._forget(font=True)
            self.updateGeometry()
            self._count_shown()
            self.update()

    # --- drawing -------------------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        plain = QFont(self.font())
        peak = QFont(plain)
        peak.setBold(True)
        peak.setUnderline(True)
        foreground = self.palette().color(QPalette.ColorRole.WindowText)
        link = self.palette().color(QPalette.ColorRole.Link)
        painter.setFont(plain)
        for line, (value_rect, cells, arrow) in zip(self.lines[:self._shown], self._place()):
            painter.setPen(foreground)
            painter.drawText(value_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, line.value)
            for k, (cell, point, shown) in enumerate(cells):
                background = style.tint(float(line.values[k]), self.limit)
                painter.fillRect(cell, background)
                painter.setPen(style.text_colour_on(background))
                if k == line.peak:
                    painter.setFont(peak)
                    painter.drawText(point, shown)
                    painter.setFont(plain)
                else:
                    painter.drawText(point, shown)
            painter.setPen(link)
            painter.drawText(arrow, Qt.AlignmentFlag.AlignCenter, ARROW)
        painter.end()

    # --- clicking ------------------------------------------------------------------------------
    def arrows(self) -> list[QRect]:
        """Where each snippet's arrow is (widget coordinates)."""
        return [arrow for _value, _cells, arrow in self._place()[:self._shown]]

    def arrow_at(self, point) -> int | None:
        """The position whose arrow is at `point` (widget coordinates), or None."""
        for line, arrow in zip(self.lines, self.arrows()):
            if arrow.contains(point):
                return line.position
        return None

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        over = self.arrow_at(event.position().toPoint()) is not None
        self.setCursor(Qt.CursorShape.PointingHandCursor if over else Qt.CursorShape.ArrowCursor)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        position = self.arrow_at(event.position().toPoint())
        if position is not None and event.button() == Qt.MouseButton.LeftButton:
            self.positionClicked.emit(position)
        super().mousePressEvent(event)
