"""What the model lab's parts share: sizes, a label helper, the part base (redraw when on
screen), the layer-and-neuron picker and the text drawn as a heatmap."""
from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QRect, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSpinBox, QToolTip, QWidget

from app import i18n
from app.labs.model.state import ModelLabState, What
from app.widgets import style
from app.labs.fonts import own_fonts
from app.widgets.appearance import appearance
from core.numbers import format_number

TEXT_PT = 11
CHAR_PT = 14
NEWLINE = "↵"
UNKNOWN_MARK = "#c0392b"


BASE_POINTS = "blocklabBasePoints"          # a widget's font size at zoom 1 (Part.restyle scales it)


def sized(widget: QWidget, points: float) -> QWidget:
    """Give `widget` a font of `points` at the current interface zoom, kept up by Part.restyle."""
    widget.setProperty(BASE_POINTS, float(points))
    widget.setFont(style.font(appearance().points(points)))
    return widget


def label(name: str, points: float = TEXT_PT, wrap: bool = True, rich: bool = True) -> QLabel:
    widget = QLabel()
    widget.setObjectName(name)
    sized(widget, points)
    widget.setWordWrap(wrap)
    widget.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    return widget


def set_text(widget: QLabel, text: str) -> None:
    if widget.text() != text:
        widget.setText(text)


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def show_gloss(widget: QLabel, text: str) -> None:
    """In English, the glosses of the lines of `text` the gloss table knows (the sample poem),
    one per line, in italics; hidden in Chinese or when no line is glossed (app/i18n.py)."""
    glossed = i18n.gloss_lines(text)
    set_text(widget, "<i>" + esc(glossed).replace("\n", "<br>") + "</i>" if glossed else "")
    widget.setVisible(bool(glossed))


def shown_char(ch: str) -> str:
    """How a character is drawn in a cell: a line break as ↵, other controls as their code."""
    if ch == "\n":
        return NEWLINE
    if ch.isprintable():
        return ch
    return f"U+{ord(ch):04X}"


def tinted_html(chars, values, limit: float, pad: bool = False) -> str:
    """A run of characters (or, with pad, short texts) as rich text, each on the tint of its value."""
    parts = []
    for ch, value in zip(chars, values):
        background = style.tint(float(value), limit)
        ink = style.text_colour_on(background)
        shown = "&nbsp;" + esc(ch) + "&nbsp;" if pad else esc(shown_char(ch))
        parts.append(f'<span style="background-color:{background.name()}; color:{ink.name()};">{shown}</span>')
    return "".join(parts)


class Part(QWidget):
    """A part of the lab: redraws what a state notification names while on screen, and catches
    up on everything it missed when it is shown again."""

    def __init__(self, state: ModelLabState, parent: QWidget | None = None):
        super().__init__(parent)
        own_fonts(self)                   # sizes its fonts by appearance() itself
        self.state = state
        self._pending = What.ALL
        state.changed.connect(self.on_state)
        appearance().changed.connect(self.restyle)

    def restyle(self) -> None:
        """Follow the interface zoom: every widget sized with `sized` gets its font again."""
        for widget in self.findChildren(QWidget):
            points = widget.property(BASE_POINTS)
            if points:
                widget.setFont(style.font(appearance().points(float(points))))

    def on_state(self, what: What) -> None:
        if self.isVisible():
            self.redraw(what)
        else:
            self._pending |= what

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._pending:
            what, self._pending = self._pending, What(0)
            self.redraw(what)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.on_state(What.ALL)
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Set every text that does not depend on the state."""

    def redraw(self, what: What) -> None:
        """Bring what `what` names up to date."""


class NeuronPicker(QWidget):
    """Layer and neuron, bound to the state's (both parts that show a neuron share them)."""

    def __init__(self, state: ModelLabState, prefix: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.layer_label = label(prefix + "LayerLabel", wrap=False, rich=False)
        self.layer_combo = QComboBox()
        self.layer_combo.setObjectName(prefix + "Layer")
        self.neuron_label = label(prefix + "NeuronLabel", wrap=False, rich=False)
        self.neuron_spin = QSpinBox()
        self.neuron_spin.setObjectName(prefix + "Neuron")
        self.neuron_spin.setRange(0, state.config.d_ff - 1)
        self.neuron_spin.setPrefix("#")
        self.neuron_spin.setMinimumWidth(appearance().pixels(80))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.layer_label, self.layer_combo, self.neuron_label, self.neuron_spin):
            layout.addWidget(widget)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.layer_combo.currentIndexChanged.connect(lambda i: self.state.set_layer(i) if i >= 0 else None)
        self.neuron_spin.valueChanged.connect(self.state.set_neuron)
        self.retranslate()

    def retranslate(self) -> None:
        self.layer_label.setText(self.tr("Layer"))
        self.neuron_label.setText(self.tr("Neuron"))
        with QSignalBlocker(self.layer_combo):
            self.layer_combo.clear()
            for i in range(self.state.config.n_layers):
                self.layer_combo.addItem(f"blocks.{i}", i)          # TransformerLens' name of layer i
        self.refresh()

    def refresh(self) -> None:
        with QSignalBlocker(self.layer_combo):
            self.layer_combo.setCurrentIndex(self.state.layer)
        with QSignalBlocker(self.neuron_spin):
            self.neuron_spin.setValue(self.state.neuron)


class TintedText(QWidget):
    """Characters in a grid of cells, each cell's background tinted by its value on the diverging
    scale ±limit (the text itself is the heatmap). A line break is drawn as ↵ and ends its row;
    characters outside the vocabulary get a red dashed frame. Hovering shows the value.

    Banded (set_banded, for a projector, where nobody scrolls): it shows only the whole rows its
    height holds, a band of rows around the focus character (`set_focus`); `move_band` pages the
    band through the rest, and `band()` says which rows are on screen."""

    clicked = Signal(int)                 # index of the character clicked
    bandChanged = Signal()                # the rows shown changed (banded only)

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.chars: tuple[str, ...] = ()
        self.values: np.ndarray = np.zeros(0)
        self.limit = 1.0
        self.unknown: frozenset[int] = frozenset()
        self.first_position = 0
        self.caption = ""                  # "neuron #303 of layer 2": the hover text names it
        self._cells: list[QRect] = []
        self._layout_width = -1
        self._glyph_points: list[tuple[QPoint, str]] | None = None
        self.banded = False
        self.first_row = 0
        self.focus: int | None = None      # the character the band keeps on screen
        self._follow_focus = True          # False once the band was moved by hand
        self._restyle()
        appearance().changed.connect(self._restyle)

    def _restyle(self) -> None:
        self.char_font = QFont(self.font())
        self.char_font.setPointSizeF(appearance().points(CHAR_PT))
        size = appearance().pixels(CHAR_PT * 2.1)
        self.cell = QSize(size, size + appearance().pixels(4))
        self._layout_width = -1
        self.updateGeometry()
        self.update()

    def set_content(self, chars, values, limit: float, unknown=(), first_position: int = 0, caption: str = "") -> None:
        chars = tuple(chars)
        if chars != self.chars:
            self.chars, self.focus = chars, None
            self._layout_width = -1
            self._fit_height()
            self.updateGeometry()
            self._fit_band()
        self.values = np.asarray(values, dtype=np.float64)
        self.limit = float(limit)
        self.unknown = frozenset(unknown)
        self.first_position = int(first_position)
        self.caption = caption
        self.update()

    # --- layout -------------------------------------------------------------------------------
    def set_banded(self, banded: bool) -> None:
        if banded != self.banded:
            self.banded = banded
            self._fit_height()
            self.updateGeometry()
            self._fit_band()
            self.update()

    def row_count(self) -> int:
        """Rows of cells at the current width (a line break ends a row)."""
        cells = self._layout(self.width())
        return (cells[-1].top() - 2) // self.cell.height() + 1 if cells else 0

    def rows_fitting(self) -> int:
        """Whole rows the widget's height holds (at least one)."""
        return max(1, (self.height() - 4) // self.cell.height())

    def band(self) -> tuple[int, int, int]:
        """(first, last, total) rows on screen, counted from 1 (last = total when not banded)."""
        total = self.row_count()
        if not self.banded:
            return (1, total, total)
        return (self.first_row + 1, min(total, self.first_row + self.rows_fitting()), total)

    def _row_of(self, k: int) -> int:
        return (self._layout(self.width())[k].top() - 2) // self.cell.height()

    def set_focus(self, k: int | None) -> None:
        """Keep character k on screen (banded: the band moves to it, with the rows before it)."""
        self.focus = k if k is not None and 0 <= k < len(self.chars) else None
        self._follow_focus = True
        self._fit_band(recentre=True)

    def move_band(self, rows: int) -> None:
        """Show the band `rows` rows further on (a whole band: rows_fitting())."""
        self._follow_focus = False
        self._set_first_row(self.first_row + rows)

    def _set_first_row(self, first: int) -> None:
        first = max(0, min(first, self.row_count() - self.rows_fitting()))
        if first != self.first_row:
            self.first_row = first
            self.update()
        self.bandChanged.emit()

    def _fit_band(self, recentre: bool = False) -> None:
        if not self.banded:
            self._set_first_row(0)
            return
        first, fit = self.first_row, self.rows_fitting()
        if self.focus is not None and self._follow_focus:
            row = self._row_of(self.focus)
            if recentre or not first <= row < first + fit:
                first = row - (fit - 1) // 2         # the focus in the middle: the lines before it too
        self._set_first_row(first)

    def _band_shift(self) -> int:
        """px the band is drawn up by."""
        return self.first_row * self.cell.height() if self.banded else 0

    def _in_band(self, rect: QRect) -> bool:
        if not self.banded:
            return True
        row = (rect.top() - 2) // self.cell.height()
        return self.first_row <= row < self.first_row + self.rows_fitting()

    def _columns(self, width: int) -> int:
        return max(4, (width - 4) // self.cell.width())

    def _layout(self, width: int) -> list[QRect]:
        if width == self._layout_width:
            return self._cells
        columns, cells, row, column = self._columns(width), [], 0, 0
        w, h = self.cell.width(), self.cell.height()
        for ch in self.chars:
            if column >= columns:
                row, column = row + 1, 0
            cells.append(QRect(2 + column * w, 2 + row * h, w - 2, h - 2))
            column += 1
            if ch == "\n":
                row, column = row + 1, 0
        self._cells, self._layout_width = cells, width
        self._glyph_points = None
        return cells

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        cells = self._layout(width)
        return (cells[-1].bottom() + 4) if cells else self.cell.height()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        width = max(self.width(), self.cell.width() * 16)
        return QSize(self.cell.width() * 16, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(self.cell.width() * 4, self.cell.height())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._layout(self.width())
        self._fit_height()
        self._fit_band()

    def _fit_height(self) -> None:
        # In a scroll area the widget asks for the height its width needs (Qt's scroll area
        # does not follow heightForWidth by itself); banded, one row: it shows what fits.
        needed = self.cell.height() + 4 if self.banded else self.heightForWidth(self.width())
        if self.minimumHeight() != needed:
            self.setMinimumHeight(needed)

    # --- drawing ------------------------------------------------------------------------------
    def _glyphs(self, cells: list[QRect]) -> list[tuple[QPoint, str]]:
        """Where each character is written: centred in its cell (worked out once per layout; a
        rectangle-and-alignment drawText lays the text out again on every call)."""
        if self._glyph_points is None:
            metrics = QFontMetrics(self.char_font)
            advances: dict[str, int] = {}
            glyphs = []
            for ch, rect in zip(self.chars, cells):
                shown = shown_char(ch) if len(shown_char(ch)) == 1 else "·"
                if shown not in advances:
                    advances[shown] = metrics.horizontalAdvance(shown)
                glyphs.append((QPoint(rect.x() + (rect.width() - advances[shown]) // 2,
                                      rect.y() + (rect.height() - metrics.height()) // 2 + metrics.ascent()), shown))
            self._glyph_points = glyphs
        return self._glyph_points

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setFont(self.char_font)
        colours = appearance().colours
        cells = self._layout(self.width())
        have_values = len(self.values) == len(self.chars)
        frame = QPen(QColor(UNKNOWN_MARK), 2, Qt.PenStyle.DashLine)
        painter.translate(0, -self._band_shift())
        for k, (rect, (point, shown)) in enumerate(zip(cells, self._glyphs(cells))):
            if not self._in_band(rect):
                continue
            if have_values:
                background = style.tint(float(self.values[k]), self.limit)
            else:
                background = QColor(colours.panel)
            painter.fillRect(rect, background)
            painter.setPen(style.text_colour_on(background) if have_values else QColor(colours.foreground))
            painter.drawText(point, shown)
            if k in self.unknown:
                painter.setPen(frame)
                painter.drawRect(rect.adjusted(1, 1, -1, -1))
        painter.end()

    # --- reading ------------------------------------------------------------------------------
    def index_at(self, point: QPoint) -> int | None:
        point = QPoint(point.x(), point.y() + self._band_shift())
        for k, rect in enumerate(self._layout(self.width())):
            if rect.contains(point) and self._in_band(rect):
                return k
        return None

    def hover_text(self, k: int) -> str:
        """What hovering over character k shows."""
        ch = self.chars[k]
        where = self.tr("“%1” at position %2").replace("%1", shown_char(ch)).replace("%2", str(self.first_position + k))
        lines = [where]
        if len(self.values) == len(self.chars) and math.isfinite(self.values[k]):
            lines.append(self.tr("%1: %2").replace("%1", self.caption).replace("%2", format_number(self.values[k], 3)))
        if k in self.unknown:
            lines.append(self.tr("Not in the model's vocabulary: the model reads it as � (unknown)."))
        return "\n".join(lines)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        k = self.index_at(event.position().toPoint())
        if k is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(event.globalPosition().toPoint(), self.hover_text(k), self)
        super().mouseMoveEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        k = self.index_at(event.position().toPoint())
        if k is not None:
            self.clicked.emit(k)
        super().mousePressEvent(event)
