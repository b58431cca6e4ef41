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
        self._placed: dict[int, tuple[list, int]] = {}      # width → (per snippet: value, cells, arrow; height)
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
        placed = self._place()
        shown = len(placed)
        if self.whole_rows:
            shown = sum(1 for _value, _cells, arrow in placed if arrow.bottom() < self.height())
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
            self._placed.clear()
            self.updateGeometry()
        self._count_shown()
        self.update()

    def text(self) -> str:
        """The lines shown as plain text: "3.2 the cat ⟶"."""
        return "\n".join(f"{line.value} {''.join(map(shown_char, line.chars))} {ARROW}"
                         for line in self.lines[:self._shown])

    # --- geometry: from the font, so it follows the interface zoom -----------------------------
    def _place(self, width: int | None = None) -> list:
        """Per snippet at `width` (default: the widget's): the value's rect, each character's cell
        and baseline point, the arrow's rect. A snippet wider than that wraps under itself."""
        width = self.width() if width is None else width
        if width in self._placed:
            return self._placed[width][0]
        metrics = QFontMetrics(self.font())
        height = metrics.height() + 6
        baseline = 3 + metrics.ascent()
        value_width = max([metrics.horizontalAdvance("−00.0")] +
                          [metrics.horizontalAdvance(line.value) for line in self.lines]) + 8
        arrow_width = metrics.horizontalAdvance(ARROW) + 8
        widths: dict[str, int] = {}
        placed, top = [], 0
        for line in self.lines:
            x, cells, first_top = value_width, [], top
            for ch in line.chars:
                shown = shown_char(ch)
                if shown not in widths:
                    widths[shown] = metrics.horizontalAdvance(shown) + 2 * PAD
                if x > value_width and x + widths[shown] + 8 + arrow_width > width:
                    x, top = value_width, top + height                  # wrap under the snippet's start
                cells.append((QRect(x, top + 2, widths[shown], height - 4), QPoint(x + PAD, top + baseline), shown))
                x += widths[shown]
            placed.append((QRect(0, first_top, value_width - 8, height), cells, QRect(x + 8, top, arrow_width, height)))
            top += height
        if len(self._placed) > 8:
            self._placed.clear()
        self._placed[width] = (placed, top)
        return placed

    def _natural_width(self) -> int:
        placed = self._place(1 << 20)                                   # no wrapping
        return max((arrow.right() + 2 for _value, _cells, arrow in placed), default=0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return not self.whole_rows

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._count_shown()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        self._place(width)
        return self._placed[width][1]

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
            self._placed.clear()
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
