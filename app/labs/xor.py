"""The two-neuron lab of lesson C4: why a linear model cannot say "exactly one of p, n", and how a
two-neuron FFN does.

Six parts, one tab each ("naive", "failure", "ffn", "bias", "compute", "neurons"), under a data
table that is always visible. The naive linear model's a, b, c live in a small model object
here (they are not part of the block); everything else reads and writes the Session. Every
number shown comes from core/xor_lab.py (or the session's trace); views are created once and
updated in place, and only the tab on screen is redrawn on an edit.
"""
from __future__ import annotations

import html
import math
import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPointF, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPen, QValidator
from PySide6.QtWidgets import (
    QAbstractItemView, QButtonGroup, QComboBox, QDoubleSpinBox, QFrame, QGridLayout,
    QHBoxLayout, QHeaderView, QLabel, QPushButton, QSizePolicy, QSlider, QStackedWidget, QTableWidget,
    QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget,
)

from app.widgets import style  # noqa: F401  (configures row-major images before any plot exists)
from app.session import Change, parse_number
from app.widgets.style import DIVERGING, format_number, limit_for, nice_limit, quiet_plot, set_axis_label, set_title
from app.widgets.style import font as style_font
from core.labs import xor as lab
from core.formats.scenario import MAX_ABS_VALUE

PARTS = ("naive", "failure", "ffn", "bias", "compute", "neurons")
LINEAR_PARTS = ("naive", "failure")
ACTIVATIONS = ("relu", "gelu_tanh", "identity")       # the lab's three choices
SLIDER_SCALE = 100                                    # slider steps per unit: 0.01
GRID_POINTS = 81                                      # the MSE landscape: 81×81 over −2…2
CURVE_POINTS = 161
MAP_POINTS = 41                                       # each neuron over the (p, n) square
BIAS_NEURON = 1                                       # the seed's experiment drags neuron 2's bias
TABLE_DECIMALS = 3                                    # ŷ in the table, as the seed prints it
DIAGRAM_DECIMALS = 3
TEXT_PT = 11
FORMULA_PT = 12
TICK_PT = 10
ROW_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")   # Okabe–Ito
POSITIVE_EDGE = QColor("#b35806")
NEGATIVE_EDGE = QColor("#542788")
RIGHT_COLOUR = "#1a7f37"
WRONG_COLOUR = "#c62828"
POINT_COLOUR = "#D55E00"
FLOOR_COLOUR = "#c62828"
SEQUENTIAL = pg.colormap.get("viridis")
SUBSCRIPT_H = ("h₁", "h₂")


def tr(text: str) -> str:
    """All of the lab's strings share one translation context, the panel's class name."""
    return QCoreApplication.translate("XorLabPanel", text)


_font = style_font


def _label(name: str, points: float = TEXT_PT, wrap: bool = True) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setFont(_font(points))
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _set_text(label: QLabel, text: str) -> None:
    if label.text() != text:          # re-laying out text costs: only on change
        label.setText(text)


def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _fmt(value: float, decimals: int = 6) -> str:
    return lab.format_value(value, decimals)


def _names(tokens: tuple[str, ...], rows) -> str:
    return tr(", ").join(tokens[int(r)] for r in rows)


def _new_plot(title: str = "") -> pg.PlotItem:
    plot = quiet_plot(pg.PlotItem(), TICK_PT)
    if title:
        _title(plot, title)
    return plot


def _axis_label(plot: pg.PlotItem, side: str, text: str) -> None:
    set_axis_label(plot, side, text, "11pt")


def _title(plot: pg.PlotItem, text: str) -> None:
    set_title(plot, text, "11pt")


def _graphics(name: str) -> pg.GraphicsLayoutWidget:
    widget = pg.GraphicsLayoutWidget()
    widget.setObjectName(name)
    widget.ci.setContentsMargins(2, 2, 2, 2)
    widget.setMinimumHeight(180)
    return widget


_PARTIAL_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d*)?")               # "", "-", "1.", ".5"
_PARTIAL_EXPONENT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)[eE][+-]?\d*")   # "1e", "1e-", "2.5E+1"


class NumberSpin(QDoubleSpinBox):
    """A spin box that shows numbers as the seed writes them (1, −2, 0.841192) and reads them as
    app.session.parse_number does (the Unicode minus too; no commas).

    Only a finite number within [minimum(), maximum()] is acceptable; the beginnings of one
    ("", "−", "1.", "1e", "1e−") and out-of-range numbers may stand while typing, anything else
    is refused. A text that is not acceptable when editing ends (Enter, focus out) leaves the value
    as it was, and `refused` says why (never clamped, never silently)."""

    refused = Signal(str)

    def __init__(self, check=None, parent: QWidget | None = None):
        super().__init__(parent)
        self._check = check            # (value, text) → reason or None, e.g. Session.check_value

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt's name)
        return lab.format_value(value, self.decimals())

    def valueFromText(self, text: str) -> float:  # noqa: N802 (Qt's name)
        number = parse_number(self._strip(text))
        return self.value() if number is None else number

    def validate(self, text: str, position: int):
        body = self._strip(text)
        number = parse_number(body)
        if number is not None and math.isfinite(number) and self.minimum() <= number <= self.maximum():
            return QValidator.State.Acceptable, text, position
        ascii_body = body.replace("−", "-")
        if _PARTIAL_NUMBER.fullmatch(ascii_body) or _PARTIAL_EXPONENT.fullmatch(ascii_body):
            return QValidator.State.Intermediate, text, position      # typing on; 1e9 is told on Enter
        return QValidator.State.Invalid, text, position

    def fixup(self, text: str) -> str:
        return text                    # QDoubleSpinBox would drop ",": "1,000" must not become 1000

    def problem(self, text: str) -> str | None:
        """Why `text` cannot be this box's value, or None if it can."""
        body = self._strip(text)
        number = parse_number(body)
        reason = self._check(number, body) if self._check is not None else None
        if reason is None and number is not None and math.isfinite(number) \
                and self.minimum() <= number <= self.maximum():
            return None
        if reason is None:
            if number is None or not math.isfinite(number):
                reason = tr("“%1” is not a finite number; the field keeps its value.").replace("%1", body[:40])
            else:
                reason = tr("Values here must lie between %1 and %2; the field keeps its value.") \
                    .replace("%1", self.textFromValue(self.minimum())).replace("%2", self.textFromValue(self.maximum()))
        return reason

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._finishing(lambda: super(NumberSpin, self).keyPressEvent(event))
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self._finishing(lambda: super(NumberSpin, self).focusOutEvent(event))

    def _finishing(self, handle) -> None:
        """Let Qt end the edit (an unacceptable text goes back to the old value), then say why."""
        text = self.lineEdit().displayText()
        reason = None
        if self.validate(text, 0)[0] != QValidator.State.Acceptable:
            reason = self.problem(text)
        handle()
        if reason:
            self.refused.emit(reason)

    def _strip(self, text: str) -> str:
        prefix = self.prefix()
        return (text[len(prefix):] if prefix and text.startswith(prefix) else text).strip()


def _spin(name: str, low: float, high: float, step: float, session, decimals: int = 6) -> NumberSpin:
    spin = NumberSpin(session.check_value)
    spin.setObjectName(name)
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setDecimals(decimals)
    spin.setKeyboardTracking(False)     # typing "−2" commits once, not "−" then "−2"
    spin.setFont(_font(TEXT_PT))
    spin.setAlignment(Qt.AlignmentFlag.AlignRight)
    spin.refused.connect(session.message.emit)
    return spin


def _set_spin(spin: QDoubleSpinBox, value: float) -> None:
    if abs(spin.value() - value) > 10 ** -(spin.decimals() + 1):
        with QSignalBlocker(spin):
            spin.setValue(value)


class LinearModel(QObject):
    """The naive lab's ŷ = a·p + b·n + c: three numbers, which one was touched last."""

    changed = Signal()

    def __init__(self, a: float = 1.0, b: float = 1.0, c: float = 0.0, parent: QObject | None = None):
        super().__init__(parent)
        self.initial = lab.Linear(a, b, c)
        self.model = self.initial
        self.last = "a"

    def reset(self) -> None:
        """Back to the values it started with (a new lesson step, or "reset this step")."""
        self.last = "a"
        self.set_all(self.initial)

    def value(self, name: str) -> float:
        return self.model.value(name)

    def set(self, name: str, value: float) -> None:
        self.last = name
        if self.model.value(name) != value:
            self.model = self.model.with_value(name, value)
            self.changed.emit()

    def set_all(self, model: lab.Linear) -> None:
        if model != self.model:
            self.model = model
            self.changed.emit()


# --- the data table ------------------------------------------------------------------------------
class _DataTable(QTableWidget):
    """sentence, p, n, target y, ŷ, verdict: items created once, their texts updated in place."""

    SENTENCE, P, N, TARGET, OUTPUT, VERDICT = range(6)

    def __init__(self):
        super().__init__(0, 6)
        self.setObjectName("xorTable")
        self.setFont(_font(TEXT_PT))
        self.horizontalHeader().setFont(_font(TEXT_PT, bold=True))
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        for column in (self.P, self.N):                  # 0 or 1: narrow columns leave room for words
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
            self.setColumnWidth(column, 44)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

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
        metrics = QFontMetrics(self.font())
        row_height = metrics.height() + 10
        for row in range(self.rowCount()):
            self.setRowHeight(row, row_height)
        header = QFontMetrics(self.horizontalHeader().font()).height() + 12
        self.horizontalHeader().setFixedHeight(header)
        self.setFixedHeight(header + row_height * self.rowCount() + 2 * self.frameWidth())

    def put(self, row: int, column: int, text: str, colour: str | None = None, tip: str = "") -> None:
        item = self.item(row, column)
        if item.text() != text:
            item.setText(text)
        if tip and item.toolTip() != tip:
            item.setToolTip(tip)
        brush = QColor(colour) if colour else QColor("#111111")
        if item.foreground().color() != brush:
            item.setForeground(brush)


# --- part 3: the FFN drawn as it computes ----------------------------------------------------------
class _FfnDiagram(QWidget):
    """p, n → two neurons (read weights, bias, activation) → write-back → Σ + b_out → ŷ.

    Every weight is a spin box sitting on the drawing; the nodes show the selected sentence's
    numbers (from the session's trace). Spins write through session.set_value."""

    def __init__(self, session):
        super().__init__()
        self.setObjectName("xorDiagram")
        self.session = session
        self.setMinimumSize(560, 300)
        self.spins: dict[tuple[str, tuple[int, ...]], QDoubleSpinBox] = {}
        cells = [("W_in", (i, j)) for j in range(2) for i in range(2)] + \
                [("b_in", (j,)) for j in range(2)] + [("W_out", (j, 0)) for j in range(2)] + [("b_out", (0,))]
        for tensor, index in cells:
            if tensor == "W_in":
                name = f"xorW_in_{index[0]}_{index[1]}"
            elif tensor == "W_out":
                name = f"xorW_out_{index[0]}"
            else:
                name = f"xor{tensor[0].upper()}{tensor[1:]}" + (f"_{index[0]}" if tensor == "b_in" else "")
            spin = _spin(name, -MAX_ABS_VALUE, MAX_ABS_VALUE, 0.1, session)
            spin.setParent(self)
            spin.setPrefix("+ " if tensor.startswith("b_") else "× ")
            spin.setFixedWidth(112)
            spin.setAlignment(Qt.AlignmentFlag.AlignCenter)
            spin.valueChanged.connect(lambda value, t=tensor, i=index: self.session.set_value(t, i, float(value),
                                                                                                merge=True))
            self.spins[(tensor, index)] = spin
        self.texts: dict[str, list[str]] = {}
        self.contributions: list[str] = ["", ""]
        self.edges: dict[tuple[str, tuple[int, ...]], float] = {}
        self.headers: list[str] = ["", "", "", ""]
        self._geometry: dict[str, QRectF] = {}
        self.retranslate()

    def retranslate(self) -> None:
        names = {"W_in": tr("W_in[%1] — how much the neuron reads this feature"),
                 "b_in": tr("b_in[%1] — the neuron's bias"),
                 "W_out": tr("W_out[%1] — what the neuron writes back to ŷ"),
                 "b_out": tr("b_out — added to the sum")}
        for (tensor, index), spin in self.spins.items():
            spin.setToolTip(names[tensor].replace("%1", ", ".join(map(str, index))))
        self.headers = [tr("read p, n: W_in, b_in"), tr("activation"), tr("write back: W_out"), tr("sum + b_out")]
        self.update()

    def refresh(self) -> None:
        s = self.session
        for (tensor, index), spin in self.spins.items():
            value = float(s.tensor(tensor)[index])
            _set_spin(spin, value)
            self.edges[(tensor, index)] = value
        row = s.selected_index("hook_resid_post")[0]
        trace = s.trace
        x = trace["hook_resid_mid"][row]
        symbol = lab.ACTIVATION_SYMBOLS.get(s.config.activation, s.config.activation) or tr("none")
        self.texts = {"p": [f"p = {_fmt(x[0], DIAGRAM_DECIMALS)}"], "n": [f"n = {_fmt(x[1], DIAGRAM_DECIMALS)}"]}
        for j in range(2):
            z = trace["mlp.hook_pre"][row, j]
            h = trace["mlp.hook_post"][row, j]
            self.texts[f"neuron{j}"] = [tr("neuron %1").replace("%1", str(j + 1)),
                                        f"z = {_fmt(z, DIAGRAM_DECIMALS)} → {symbol} → {_fmt(h, DIAGRAM_DECIMALS)}"]
            terms = lab.neuron_terms(s.config, s.state.weights, trace, row, j)
            self.contributions[j] = lab.with_plus(terms.contribution, DIAGRAM_DECIMALS)
        output = float(trace["hook_resid_post"][row, 0])
        target = float(s.state.targets[row, 0])
        right = bool(lab.verdicts(np.array([output]), np.array([target]))[0])
        self.texts["out"] = [f"ŷ = {_fmt(output, DIAGRAM_DECIMALS)}",
                             f"y = {_fmt(target, DIAGRAM_DECIMALS)} {'✓' if right else '✗'}"]
        self.right = right
        self.update()

    # geometry: every position is a fraction of the widget, so it scales with the window
    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._layout()

    def _layout(self) -> None:
        w, h = self.width(), self.height()
        top = 30                                   # below the header captions
        usable = h - top - 8
        spin_h = self.spins[("b_out", (0,))].sizeHint().height()
        neuron_y = [top + usable * 0.30, top + usable * 0.74]
        g: dict[str, QRectF] = {}
        g["p"] = QRectF(w * 0.01, top + usable * 0.30 - 20, 76, 40)
        g["n"] = QRectF(w * 0.01, top + usable * 0.74 - 20, 76, 40)
        neuron_w = min(210.0, max(176.0, w * 0.23))
        for j in range(2):
            g[f"neuron{j}"] = QRectF(w * 0.45 - neuron_w / 2, neuron_y[j] - 30, neuron_w, 60)
        g["sum"] = QRectF(w * 0.78 - 24, (neuron_y[0] + neuron_y[1]) / 2 - 24, 48, 48)
        g["out"] = QRectF(w - 108, g["sum"].center().y() - 30, 104, 60)
        self._geometry = g
        read_x = w * 0.22
        for j in range(2):
            for i in range(2):
                spin = self.spins[("W_in", (i, j))]
                spin.move(int(read_x - spin.width() / 2), int(neuron_y[j] + (i - 0.5) * (spin_h + 8) - spin_h / 2))
            bias = self.spins[("b_in", (j,))]
            offset = -(30 + spin_h + 6) if j == 0 else 30 + 6
            bias.move(int(g[f"neuron{j}"].center().x() - bias.width() / 2), int(neuron_y[j] + offset))
            write = self.spins[("W_out", (j, 0))]
            write_x = (g[f"neuron{j}"].right() + g["sum"].left()) / 2
            write_y = neuron_y[j] + (g["sum"].center().y() - neuron_y[j]) * 0.2
            write.move(int(write_x - write.width() / 2), int(write_y - spin_h / 2))
        b_out = self.spins[("b_out", (0,))]
        b_out.move(int(g["sum"].center().x() - b_out.width() / 2 + 34), int(g["sum"].bottom() + 14))
        self.update()

    def _edge_pen(self, value: float) -> QPen:
        colour = POSITIVE_EDGE if value > 0 else NEGATIVE_EDGE if value < 0 else QColor("#bbbbbb")
        pen = QPen(colour, 1.5 + 1.5 * min(abs(value), 2.0))
        if value == 0:
            pen.setStyle(Qt.PenStyle.DashLine)
        return pen

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if not self._geometry or not self.texts:
            return
        g = self._geometry
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # header captions over the columns
        painter.setFont(_font(10))
        painter.setPen(QColor("#555555"))
        spans = [(g["p"].right(), g["neuron0"].left()), (g["neuron0"].left(), g["neuron0"].right()),
                 (g["neuron0"].right(), g["sum"].left()), (g["sum"].left() - 30, self.width())]
        for (left, right), text in zip(spans, self.headers):
            painter.drawText(QRectF(left, 2, right - left, 24), Qt.AlignmentFlag.AlignCenter, text)
        # read edges: feature → spin → neuron
        for j in range(2):
            neuron = g[f"neuron{j}"]
            for i, source in enumerate(("p", "n")):
                spin = self.spins[("W_in", (i, j))].geometry()
                painter.setPen(self._edge_pen(self.edges.get(("W_in", (i, j)), 0.0)))
                start = QPointF(g[source].right(), g[source].center().y())
                painter.drawLine(start, QPointF(spin.left(), spin.center().y()))
                painter.drawLine(QPointF(spin.right(), spin.center().y()),
                                 QPointF(neuron.left(), neuron.center().y() + (i - 0.5) * 16))
            bias = self.spins[("b_in", (j,))].geometry()
            painter.setPen(self._edge_pen(self.edges.get(("b_in", (j,)), 0.0)))
            edge_y = bias.bottom() if j == 0 else bias.top()
            painter.drawLine(QPointF(bias.center().x(), edge_y),
                             QPointF(neuron.center().x(), neuron.top() if j == 0 else neuron.bottom()))
            # write edges: neuron → spin → Σ, with the contribution of the selected sentence
            write = self.spins[("W_out", (j, 0))].geometry()
            painter.setPen(self._edge_pen(self.edges.get(("W_out", (j, 0)), 0.0)))
            painter.drawLine(QPointF(neuron.right(), neuron.center().y()), QPointF(write.left(), write.center().y()))
            radius = g["sum"].width() / 2 * 0.7071            # enter Σ at its upper-left / lower-left
            end = QPointF(g["sum"].center().x() - radius, g["sum"].center().y() + (radius if j else -radius))
            painter.drawLine(QPointF(write.right(), write.center().y()), end)
            painter.setPen(QColor("#222222"))
            painter.setFont(_font(11, bold=True))
            label_y = write.bottom() + 4 if j == 0 else write.top() - 22
            painter.drawText(QRectF(write.left(), label_y, write.width(), 20), Qt.AlignmentFlag.AlignCenter,
                             self.contributions[j])
        b_out = self.spins[("b_out", (0,))].geometry()
        painter.setPen(self._edge_pen(self.edges.get(("b_out", (0,)), 0.0)))
        painter.drawLine(QPointF(g["sum"].center().x(), g["sum"].bottom()), QPointF(g["sum"].center().x(), b_out.top()))
        painter.setPen(QPen(QColor("#333333"), 2))
        painter.drawLine(QPointF(g["sum"].right(), g["sum"].center().y()), QPointF(g["out"].left(), g["sum"].center().y()))
        # nodes
        for key in ("p", "n", "neuron0", "neuron1", "out"):
            rect = g[key]
            fill = QColor("#f3f3f3")
            if key == "out":
                fill = QColor("#e8f5e9") if getattr(self, "right", True) else QColor("#ffebee")
            painter.setPen(QPen(QColor("#444444"), 1.5))
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 8, 8)
            lines = self.texts.get(key, [])
            if len(lines) == 1:
                painter.setFont(_font(12, bold=True))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, lines[0])
            else:
                painter.setFont(_font(11, bold=True))
                painter.drawText(rect.adjusted(4, 4, -4, -rect.height() / 2), Qt.AlignmentFlag.AlignCenter, lines[0])
                painter.setFont(_font(11))
                painter.drawText(rect.adjusted(4, rect.height() / 2 - 2, -4, -4), Qt.AlignmentFlag.AlignCenter, lines[1])
        painter.setBrush(QColor("#f3f3f3"))
        painter.setPen(QPen(QColor("#444444"), 1.5))
        painter.drawEllipse(g["sum"])
        painter.setFont(_font(16, bold=True))
        painter.drawText(g["sum"], Qt.AlignmentFlag.AlignCenter, "Σ")
        painter.end()


# --- the panel ---------------------------------------------------------------------------------------
class XorLabPanel(QWidget):
    """The C4 lab. `parts()` lists the part names in order; `set_focus(part)` brings one forward."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorLab")
        self.session = session
        self.linear = LinearModel(parent=self)
        self._dirty: set[str] = set(PARTS)
        self._ok = False
        self._stale = True

        self._build()
        self.retranslate()
        self.linear.changed.connect(self._linear_changed)
        session.changed.connect(self._on_changed)
        self._trace_changed()

    # --- public API ----------------------------------------------------------------------------
    @staticmethod
    def parts() -> list[str]:
        return list(PARTS)

    def set_focus(self, part: str) -> None:
        if part not in PARTS:
            raise ValueError(f"the C4 lab has no part {part!r}; parts: {', '.join(PARTS)}")
        self.tabs.setCurrentIndex(PARTS.index(part))

    def current_part(self) -> str:
        return PARTS[self.tabs.currentIndex()]

    # --- building --------------------------------------------------------------------------------
    def _build(self) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        self.stack = QStackedWidget()
        root.addWidget(self.stack)

        # page shown when the session holds some other block
        self.mismatch_page = QWidget()
        mismatch_layout = QVBoxLayout(self.mismatch_page)
        self.mismatch_label = _label("xorMismatch", 13)
        self.mismatch_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reset_button = QPushButton()
        self.reset_button.setObjectName("xorResetBlock")
        self.reset_button.setFont(_font(TEXT_PT))
        self.reset_button.clicked.connect(self.session.reset_all)
        mismatch_layout.addStretch(1)
        mismatch_layout.addWidget(self.mismatch_label)
        mismatch_layout.addWidget(self.reset_button, 0, Qt.AlignmentFlag.AlignCenter)
        mismatch_layout.addStretch(1)

        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        top = QHBoxLayout()
        top.setSpacing(10)
        left = QVBoxLayout()
        left.setSpacing(2)
        self.table = _DataTable()
        self.table.itemSelectionChanged.connect(self._table_selected)
        left.addWidget(self.table)
        self.mse_label = _label("xorMse", TEXT_PT)
        self.reference_label = _label("xorReference", 10)
        left.addWidget(self.mse_label)
        left.addWidget(self.reference_label)
        left.addStretch(1)
        top.addLayout(left, 11)

        self.side = QStackedWidget()
        self.side.setObjectName("xorSide")
        linear_side = QWidget()
        linear_layout = QVBoxLayout(linear_side)
        linear_layout.setContentsMargins(0, 0, 0, 0)
        self.identity_label = _label("xorIdentity", FORMULA_PT)
        linear_layout.addWidget(self.identity_label)
        linear_layout.addStretch(1)
        ffn_side = QWidget()
        ffn_layout = QVBoxLayout(ffn_side)
        ffn_layout.setContentsMargins(0, 0, 0, 0)
        ffn_layout.setSpacing(4)
        row = QHBoxLayout()
        self.activation_title = _label("xorActivationTitle", TEXT_PT, wrap=False)
        self.activation_combo = QComboBox()
        self.activation_combo.setObjectName("xorActivation")
        self.activation_combo.setFont(_font(TEXT_PT))
        for name in ACTIVATIONS:
            self.activation_combo.addItem("", name)
        self.activation_combo.currentIndexChanged.connect(self._activation_picked)
        row.addWidget(self.activation_title)
        row.addWidget(self.activation_combo, 1)
        ffn_layout.addLayout(row)
        self.threshold_label = _label("xorThreshold", TEXT_PT)
        self.collapsed_label = _label("xorCollapsed", FORMULA_PT)
        self.activation_note = _label("xorActivationNote", 10)
        ffn_layout.addWidget(self.threshold_label)
        ffn_layout.addWidget(self.collapsed_label)
        ffn_layout.addWidget(self.activation_note)
        ffn_layout.addStretch(1)
        self.side.addWidget(linear_side)
        self.side.addWidget(ffn_side)
        top.addWidget(self.side, 9)
        column.addLayout(top)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("xorParts")
        self.tabs.setFont(_font(TEXT_PT))
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self._build_naive(), "")
        self.tabs.addTab(self._build_failure(), "")
        self.tabs.addTab(self._build_ffn(), "")
        self.tabs.addTab(self._build_bias(), "")
        self.tabs.addTab(self._build_compute(), "")
        self.tabs.addTab(self._build_neurons(), "")
        self.tabs.currentChanged.connect(self._part_changed)
        column.addWidget(self.tabs, 1)

        self.stack.addWidget(content)
        self.stack.addWidget(self.mismatch_page)

    def _build_naive(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorNaivePage")
        layout = QHBoxLayout(page)
        layout.setContentsMargins(4, 6, 4, 4)
        controls = QVBoxLayout()
        self.naive_hint = _label("xorNaiveHint", 10)
        controls.addWidget(self.naive_hint)
        grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        self.sliders: dict[str, QSlider] = {}
        self.linear_spins: dict[str, QDoubleSpinBox] = {}
        low, high = lab.PARAMETER_RANGE
        for row, name in enumerate(lab.PARAMETERS):
            letter = QLabel(name)
            letter.setFont(_font(13, bold=True))
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setObjectName(f"xorSlider{name.upper()}")
            slider.setRange(int(low * SLIDER_SCALE), int(high * SLIDER_SCALE))
            slider.setMinimumWidth(110)
            slider.valueChanged.connect(lambda position, n=name: self.linear.set(n, position / SLIDER_SCALE))
            spin = _spin(f"xorSpin{name.upper()}", low, high, 0.05, self.session)
            spin.setFixedWidth(88)
            spin.valueChanged.connect(lambda value, n=name: self.linear.set(n, float(value)))
            grid.addWidget(letter, row, 0)
            grid.addWidget(slider, row, 1)
            grid.addWidget(spin, row, 2)
            self.sliders[name], self.linear_spins[name] = slider, spin
        controls.addLayout(grid)
        self.least_squares_button = QPushButton()
        self.least_squares_button.setObjectName("xorLeastSquares")
        self.least_squares_button.setFont(_font(TEXT_PT))
        self.least_squares_button.clicked.connect(self._least_squares)
        controls.addWidget(self.least_squares_button)
        axes_row = QHBoxLayout()
        self.axes_title = _label("xorLandscapeAxesTitle", 10, wrap=False)
        self.axes_combo = QComboBox()
        self.axes_combo.setObjectName("xorLandscapeAxes")
        self.axes_combo.setFont(_font(TEXT_PT))
        for pair in ("ab", "ac", "bc"):                        # data: the x and y parameter
            self.axes_combo.addItem(f"{pair[0]}, {pair[1]}", pair)
        self.axes_combo.currentIndexChanged.connect(lambda _i: self._refresh_naive_plots())
        axes_row.addWidget(self.axes_title)
        axes_row.addWidget(self.axes_combo, 1)
        controls.addLayout(axes_row)
        self.naive_note = _label("xorNaiveNote", 10)
        controls.addWidget(self.naive_note)
        controls.addStretch(1)
        holder = QWidget()
        holder.setLayout(controls)
        holder.setFixedWidth(250)
        layout.addWidget(holder)

        self.curve_view = _graphics("xorMseCurve")
        self.curve_plot = _new_plot()
        self.curve_view.addItem(self.curve_plot)
        self.curve_item = self.curve_plot.plot([], [], pen=pg.mkPen("#0072B2", width=2.5))
        self.curve_point = pg.ScatterPlotItem(size=12, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#222222"))
        self.curve_plot.addItem(self.curve_point)
        self.floor_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(FLOOR_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                                          label="", labelOpts={"position": 0.2, "color": FLOOR_COLOUR,
                                                               "anchors": [(0.5, 1.2), (0.5, 1.2)]})
        self.floor_line.label.setFont(_font(10))
        self.curve_plot.addItem(self.floor_line)
        self.curve_plot.setXRange(low, high, padding=0.02)
        self.curve_limit = 0.0
        layout.addWidget(self.curve_view, 1)

        self.landscape_view = _graphics("xorMseLandscape")
        self.landscape_view.ci.setContentsMargins(2, 2, 2, 8)
        self.landscape_plot = _new_plot()
        self.landscape_view.addItem(self.landscape_plot, 0, 0)
        self.landscape_image = pg.ImageItem()
        self.landscape_image.setLookupTable(SEQUENTIAL.getLookupTable(0.0, 1.0, 256))
        step = (high - low) / (GRID_POINTS - 1)
        self.landscape_rect = QRectF(low - step / 2, low - step / 2, high - low + step, high - low + step)
        self.landscape_plot.addItem(self.landscape_image)
        self.landscape_best = pg.ScatterPlotItem(size=16, symbol="star", brush=pg.mkBrush("#ffffff"),
                                                 pen=pg.mkPen("#222222", width=1.5))
        self.landscape_point = pg.ScatterPlotItem(size=12, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#ffffff", width=1.5))
        self.landscape_plot.addItem(self.landscape_best)
        self.landscape_plot.addItem(self.landscape_point)
        self.landscape_plot.setXRange(low, high, padding=0)
        self.landscape_plot.setYRange(low, high, padding=0)
        self.landscape_bar = pg.ColorBarItem(values=(0, 1), colorMap=SEQUENTIAL, interactive=False, width=12,
                                             colorMapMenu=False, pen="#888888")
        self.landscape_bar.axis.setTickFont(_font(TICK_PT))
        self.landscape_bar.setImageItem(self.landscape_image)
        self.landscape_view.addItem(self.landscape_bar, 0, 1)
        self.landscape_levels = (0.0, 1.0)
        layout.addWidget(self.landscape_view, 1)
        return page

    def _build_failure(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorFailurePage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 8, 8, 8)
        self.proof_label = _label("xorProof", FORMULA_PT)
        self.proof_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.proof_label)
        layout.addStretch(1)
        self.to_ffn_button = QPushButton()
        self.to_ffn_button.setObjectName("xorShowFix")
        self.to_ffn_button.setFont(_font(TEXT_PT))
        self.to_ffn_button.clicked.connect(lambda: self.set_focus("ffn"))
        layout.addWidget(self.to_ffn_button, 0, Qt.AlignmentFlag.AlignRight)
        return page

    def _build_ffn(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorFfnPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 4, 4, 4)
        self.ffn_caption = _label("xorFfnCaption", 10)
        layout.addWidget(self.ffn_caption)
        self.diagram = _FfnDiagram(self.session)
        layout.addWidget(self.diagram, 1)
        return page

    def _build_bias(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorBiasPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 6, 4, 4)
        row = QHBoxLayout()
        self.bias_title = _label("xorBiasTitle", TEXT_PT, wrap=False)
        self.bias_slider = QSlider(Qt.Orientation.Horizontal)
        self.bias_slider.setObjectName("xorBiasSlider")
        low, high = lab.BIAS_RANGE
        self.bias_slider.setRange(int(low * SLIDER_SCALE), int(high * SLIDER_SCALE))
        self.bias_slider.valueChanged.connect(
            lambda position: self.session.set_value("b_in", (BIAS_NEURON,), position / SLIDER_SCALE, merge=True))
        self.bias_slider.sliderReleased.connect(self.session.end_gesture)   # one drag, one undo step
        self.bias_spin = _spin("xorBiasSpin", -MAX_ABS_VALUE, MAX_ABS_VALUE, 0.05, self.session)
        self.bias_spin.setFixedWidth(96)
        self.bias_spin.valueChanged.connect(
            lambda value: self.session.set_value("b_in", (BIAS_NEURON,), float(value), merge=True))
        row.addWidget(self.bias_title)
        row.addWidget(self.bias_slider, 1)
        row.addWidget(self.bias_spin)
        layout.addLayout(row)
        self.flip_label = _label("xorFirstFlip", TEXT_PT)
        layout.addWidget(self.flip_label)

        self.bias_view = _graphics("xorBiasPlots")
        self.bias_outputs_plot = _new_plot()
        self.bias_mse_plot = _new_plot()
        self.bias_view.addItem(self.bias_outputs_plot, 0, 0)
        self.bias_view.addItem(self.bias_mse_plot, 0, 1)
        self.bias_view.ci.layout.setColumnStretchFactor(0, 3)
        self.bias_view.ci.layout.setColumnStretchFactor(1, 2)
        self.bias_legend = self.bias_outputs_plot.addLegend(offset=(24, -4), labelTextSize="10pt",
                                                            brush=pg.mkBrush(255, 255, 255, 220))
        self.bias_curves: list[pg.PlotDataItem] = []
        self.bias_threshold = pg.InfiniteLine(pos=lab.THRESHOLD, angle=0,
                                              pen=pg.mkPen("#555555", width=1.5, style=Qt.PenStyle.DashLine),
                                              label="0.5", labelOpts={"position": 0.04, "color": "#555555",
                                                                       "anchors": [(0, 1), (0, 1)]})
        self.bias_threshold.label.setFont(_font(10))
        self.bias_outputs_plot.addItem(self.bias_threshold)
        self.bias_flip_point = pg.ScatterPlotItem(size=14, symbol="x", pen=pg.mkPen(WRONG_COLOUR, width=3),
                                                  brush=pg.mkBrush(WRONG_COLOUR))
        self.bias_outputs_plot.addItem(self.bias_flip_point)
        self.bias_mse_curve = self.bias_mse_plot.plot([], [], pen=pg.mkPen("#222222", width=2.5))
        self.bias_markers = []
        for plot in (self.bias_outputs_plot, self.bias_mse_plot):
            marker = pg.InfiniteLine(angle=90, pen=pg.mkPen(POINT_COLOUR, width=2))
            plot.addItem(marker)
            plot.setXRange(low, high, padding=0.02)
            self.bias_markers.append(marker)
        layout.addWidget(self.bias_view, 1)
        return page

    def _build_compute(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorComputePage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 6, 8, 4)
        row = QHBoxLayout()
        self.compute_hint = _label("xorComputeHint", TEXT_PT)
        row.addWidget(self.compute_hint, 1)
        self.neuron_buttons = QButtonGroup(self)
        self.neuron_buttons.setExclusive(True)
        for j in range(2):
            button = QPushButton()
            button.setObjectName(f"xorNeuron{j + 1}")
            button.setCheckable(True)
            button.setFont(_font(TEXT_PT))
            self.neuron_buttons.addButton(button, j)
            row.addWidget(button)
        self.neuron_buttons.button(BIAS_NEURON).setChecked(True)
        # A neuron is the explorer's hidden-unit column too: choosing one selects mlp.hook_post there.
        self.neuron_buttons.idClicked.connect(lambda j: self.session.select(hook="mlp.hook_post", column=j))
        layout.addLayout(row)
        self.expansion_label = _label("xorExpansion", FORMULA_PT + 1)
        self.expansion_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        frame_layout = QVBoxLayout(frame)
        frame_layout.addWidget(self.expansion_label)
        frame_layout.addStretch(1)
        layout.addWidget(frame, 1)
        return page

    def _build_neurons(self) -> QWidget:
        page = QWidget()
        page.setObjectName("xorNeuronsPage")
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 4, 4, 4)
        self.maps_view = _graphics("xorNeuronMaps")
        self.maps_view.ci.setContentsMargins(2, 8, 2, 8)      # room for the colour bar's end labels
        self.map_plots: list[pg.PlotItem] = []
        self.neuron_images: list[pg.ImageItem] = []
        self.map_points: list[pg.ScatterPlotItem] = []
        self.map_labels: list[list[pg.TextItem]] = []
        half = 0.5 / (MAP_POINTS - 1)
        self.map_rect = QRectF(-half, -half, 1 + 2 * half, 1 + 2 * half)
        for j in range(2):
            plot = _new_plot()
            image = pg.ImageItem()
            image.setLookupTable(style.DIVERGING_LUT)
            plot.addItem(image)
            points = pg.ScatterPlotItem(size=11, brush=pg.mkBrush("#ffffff"), pen=pg.mkPen("#111111", width=2))
            plot.addItem(points)
            plot.setXRange(-half, 1 + half, padding=0.02)
            plot.setYRange(-half, 1 + half, padding=0.02)
            plot.setAspectLocked(True)
            for side, text in (("bottom", "p"), ("left", "n")):
                _axis_label(plot, side, text)
            self.maps_view.addItem(plot, 0, j)
            self.map_plots.append(plot)
            self.neuron_images.append(image)
            self.map_points.append(points)
            self.map_labels.append([])
        self.maps_bar = pg.ColorBarItem(values=(-1, 1), colorMap=DIVERGING, interactive=False, width=12,
                                        colorMapMenu=False, pen="#888888")
        self.maps_bar.axis.setTickFont(_font(TICK_PT))
        self.maps_view.addItem(self.maps_bar, 0, 2)
        self.maps_levels = (-1.0, 1.0)
        layout.addWidget(self.maps_view, 1)
        captions = QHBoxLayout()
        self.map_captions = [_label(f"xorNeuronCaption{j + 1}", 10) for j in range(2)]
        for caption in self.map_captions:
            caption.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            captions.addWidget(caption, 1)
        layout.addLayout(captions)
        self.maps_summary = _label("xorNeuronSummary", TEXT_PT)
        layout.addWidget(self.maps_summary)
        return page

    # --- language ------------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._bias_key = None
            self._dirty = set(PARTS)
            self._trace_changed()
        super().changeEvent(event)

    def retranslate(self) -> None:
        titles = [tr("① Linear try"), tr("② Why it fails"), tr("③ Two neurons"), tr("④ Bias"),
                  tr("⑤ Compute"), tr("⑥ Neurons")]
        for k, title in enumerate(titles):
            self.tabs.setTabText(k, title)
        self.table.setHorizontalHeaderLabels([tr("sentence"), "p", "n", tr("target y"), "ŷ", tr("ŷ > 0.5?")])
        self.activation_title.setText(tr("Activation:"))
        labels = {"relu": "ReLU", "gelu_tanh": tr("GELU (tanh form, as in GPT-2)"), "identity": tr("none (removed)")}
        for k, name in enumerate(ACTIVATIONS):
            self.activation_combo.setItemText(k, labels[name])
        self.naive_hint.setText(tr("Drag a, b, c (or type exact values) and watch the MSE; "
                                   "or let least squares find the best line."))
        self.least_squares_button.setText(tr("Best fit (least squares)"))
        self.axes_title.setText(tr("Landscape over:"))
        self.naive_note.setText(tr("Landscape: ★ least squares, ● your a, b, c.") + "<br><br>"
                                + tr("p and n are names given for teaching; in a real model no single dimension "
                                     "reads as “has 不” or “is positive”."))
        self.to_ffn_button.setText(tr("See how two neurons fix it →"))
        self.reset_button.setText(tr("Reset to the scenario as loaded"))
        self.bias_title.setText(tr("Neuron 2's bias b_in[1]:"))
        self.compute_hint.setText(tr("Click a row of the table, then a neuron:"))
        for j in range(2):
            self.neuron_buttons.button(j).setText(tr("Neuron %1").replace("%1", str(j + 1)))
        _axis_label(self.bias_outputs_plot, "bottom", tr("bias b_in[1]"))
        _axis_label(self.bias_mse_plot, "bottom", tr("bias b_in[1]"))
        _title(self.bias_outputs_plot, tr("each sentence's ŷ"))
        _title(self.bias_mse_plot, tr("MSE"))
        _axis_label(self.curve_plot, "left", tr("MSE"))
        self.diagram.retranslate()

    # --- reacting --------------------------------------------------------------------------------------
    def _lab_problem(self) -> str | None:
        s = self.session
        mismatches = lab.lab_mismatches(s.config)
        if not mismatches and s.state.targets is not None and s.state.inputs.shape[1] == 2:
            return None
        parts = [tr("%1 = %2 (the lab needs %3)").replace("%1", field).replace("%2", str(now)).replace("%3", str(need))
                 for field, now, need in mismatches]
        if s.state.targets is None:
            parts.append(tr("no targets"))
        return tr("This lab needs the two-neuron FFN of lesson C4 (no attention, no residual, no norm, "
                  "2 inputs, 2 neurons, 1 output, with targets). Now: %1.").replace("%1", tr("; ").join(parts))

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._stale:
            self._trace_changed()

    def _on_changed(self, change: Change) -> None:
        if change & Change.LOADED:
            self._scenario_loaded()
        if change & Change.TRACE:
            self._trace_changed()
        if change & Change.SELECTION:
            self._selection_changed()

    def _trace_changed(self) -> None:
        # Hidden (the explorer is showing instead): catch up when shown, not on every edit.
        self._stale = not self.isVisible()
        if self._stale:
            return
        s = self.session
        problem = self._lab_problem()
        self._ok = problem is None
        if not self._ok:
            _set_text(self.mismatch_label, _esc(problem))
            loaded_ok = not lab.lab_mismatches(s.loaded.config) and s.loaded.targets is not None
            self.reset_button.setVisible(loaded_ok)
            self.stack.setCurrentWidget(self.mismatch_page)
            return
        self.stack.setCurrentIndex(0)
        self._data_changed()
        self._dirty = set(PARTS)
        self._refresh_top()
        self._refresh_part()

    def _scenario_loaded(self) -> None:
        """A lesson step (or its reset) loaded the scenario: the linear try starts over too. The
        same notification then redraws (Change.TRACE), so nothing is drawn from here."""
        with QSignalBlocker(self.linear):
            self.linear.reset()
        self._dirty.update(LINEAR_PARTS)

    def _data_changed(self) -> None:
        """What depends on the table's inputs and targets only: cached until they change."""
        s = self.session
        key = (s.state.inputs.tobytes(), s.state.targets.tobytes(), s.tokens)
        if getattr(self, "_data_key", None) == key:
            return
        self._data_key = key
        self.best, self.best_mse = lab.best_linear(s.state.inputs, s.state.targets)
        self.guess_mse = lab.constant_mse(s.state.targets)
        self.target_corners = lab.target_corners(s.state.inputs, s.state.targets)
        self.target_sides = lab.target_sides(s.state.inputs, s.state.targets)
        self.table.set_rows(len(s.tokens))
        for row, token in enumerate(s.tokens):
            self.table.put(row, _DataTable.SENTENCE, token)
            self.table.put(row, _DataTable.P, _fmt(s.state.inputs[row, 0]))
            self.table.put(row, _DataTable.N, _fmt(s.state.inputs[row, 1]))
            self.table.put(row, _DataTable.TARGET, _fmt(s.state.targets[row, 0]))
        self._dirty.add("naive")

    def _linear_changed(self) -> None:
        if not self._ok or self._stale:
            return
        self._sync_linear_widgets()
        if self.current_part() in LINEAR_PARTS:
            self._refresh_top()
        self._dirty.update(LINEAR_PARTS)
        self._refresh_part()

    def _selection_changed(self) -> None:
        if not self._ok or self._stale:
            return
        s = self.session
        if s.selected_hook in ("mlp.hook_pre", "mlp.hook_post"):
            button = self.neuron_buttons.button(s.selected_index()[1])
            if button is not None and not button.isChecked():
                button.setChecked(True)
        self._select_table_row()
        self._dirty.update(("ffn", "compute"))
        self._refresh_part()

    def _part_changed(self, _index: int) -> None:
        if not self._ok or self._stale:
            return
        self._refresh_top()
        self._refresh_part()

    def _refresh_part(self) -> None:
        part = self.current_part()
        if part not in self._dirty:
            return
        self._dirty.discard(part)
        {"naive": self._refresh_naive, "failure": self._refresh_failure, "ffn": self._refresh_ffn,
         "bias": self._refresh_bias, "compute": self._refresh_compute, "neurons": self._refresh_neurons}[part]()

    # --- the table and the box beside it ----------------------------------------------------------------
    def _outputs(self) -> np.ndarray:
        """ŷ the table shows: the linear model's in the linear parts, the block's otherwise."""
        s = self.session
        if self.current_part() in LINEAR_PARTS:
            return lab.linear_outputs(s.state.inputs, self.linear.model)
        return s.trace["hook_resid_post"][:, 0]

    def _refresh_top(self) -> None:
        s = self.session
        linear = self.current_part() in LINEAR_PARTS
        outputs = self._outputs()
        targets = s.state.targets
        right = lab.verdicts(outputs, targets)
        for row, value in enumerate(outputs):
            self.table.put(row, _DataTable.OUTPUT, format_number(float(value), TABLE_DECIMALS), tip=_fmt(value))
            mark = tr("✓ right") if right[row] else tr("✗ wrong")
            self.table.put(row, _DataTable.VERDICT, mark, RIGHT_COLOUR if right[row] else WRONG_COLOUR)
        self.table.setColumnHidden(_DataTable.VERDICT, linear)
        header = self.table.horizontalHeaderItem(_DataTable.OUTPUT)
        header_text = tr("linear ŷ") if linear else tr("FFN ŷ")
        if header.text() != header_text:
            header.setText(header_text)
        error = lab.linear_mse(s.state.inputs, targets, self.linear.model) if linear else s.mse
        _set_text(self.mse_label, tr("Mean squared error <b>MSE = %1</b>").replace("%1", _fmt(error)))
        _set_text(self.reference_label, tr("(guessing 0.5 for every sentence gives MSE %1)")
                  .replace("%1", _fmt(self.guess_mse)))
        self._select_table_row()
        if linear:
            self.side.setCurrentIndex(0)
            self._refresh_identity()
        else:
            self.side.setCurrentIndex(1)
            self._refresh_ffn_side(outputs)

    def _select_table_row(self) -> None:
        row = self.session.selected_index("hook_resid_post")[0]
        if self.table.currentRow() != row:
            with QSignalBlocker(self.table):
                self.table.selectRow(row)
            self.table.viewport().update()

    def _table_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and rows[0].row() != self.session.selected_token:
            self.session.select(token=rows[0].row())

    def _refresh_identity(self) -> None:
        proof = lab.linear_proof(self.linear.model)
        at = proof.at
        lines = [
            tr("Always equal, whatever a, b, c are:"),
            f"ŷ(1,0) + ŷ(0,1) = {_fmt(at[(1.0, 0.0)])} + {lab.signed(at[(0.0, 1.0)])} = <b>{_fmt(proof.left)}</b>",
            f"ŷ(1,1) + ŷ(0,0) = {_fmt(at[(1.0, 1.0)])} + {lab.signed(at[(0.0, 0.0)])} = <b>{_fmt(proof.right)}</b>",
        ]
        if self.target_sides is not None:
            lines.append(tr("but the targets' sides are %1 and %2:")
                         .replace("%1", f"<b>{_fmt(self.target_sides[0])}</b>")
                         .replace("%2", f"<b>{_fmt(self.target_sides[1])}</b>"))
            lines.append(self._target_sums_text("<br>"))
        lines.append(tr("So MSE never drops below %1 (the red line).").replace("%1", _fmt(self.best_mse)))
        _set_text(self.identity_label, "<br>".join(lines))

    def _target_sums_text(self, separator: str = ", ") -> str:
        y = self.target_corners
        return (f"y(1,0) + y(0,1) = {_fmt(y[(1.0, 0.0)])} + {_fmt(y[(0.0, 1.0)])} = {_fmt(self.target_sides[0])}"
                f"{separator}y(1,1) + y(0,0) = {_fmt(y[(1.0, 1.0)])} + {_fmt(y[(0.0, 0.0)])} = "
                f"{_fmt(self.target_sides[1])}")

    def _refresh_ffn_side(self, outputs: np.ndarray) -> None:
        s = self.session
        activation = s.config.activation
        position = self.activation_combo.findData(activation)
        if self.activation_combo.currentIndex() != position:
            with QSignalBlocker(self.activation_combo):
                self.activation_combo.setCurrentIndex(position)
        _set_text(self.threshold_label, tr("Cut at 0.5 (ŷ > 0.5 means “positive”): %1 of %2 sentences right.")
                  .replace("%1", str(lab.count_right(outputs, s.state.targets))).replace("%2", str(len(s.tokens))))
        collapsed = ""
        if activation == "identity":
            alpha, beta, gamma = lab.collapsed_linear(s.state.weights)
            collapsed = tr("Without a nonlinearity the two layers are one line: %1")
            collapsed = collapsed.replace("%1", f"<b>ŷ = {lab.linear_formula(alpha, beta, gamma)}</b>")
            collapsed += "<br>" + tr("(α, β) = W_in·W_out = (%1, %2), γ = b_in·W_out + b_out = %3") \
                .replace("%1", _fmt(alpha)).replace("%2", _fmt(beta)).replace("%3", _fmt(gamma))
        _set_text(self.collapsed_label, collapsed)
        self.collapsed_label.setVisible(bool(collapsed))
        if activation == "gelu_tanh":
            exact = lab.outputs_with(s.config, s.state.weights, s.state.inputs, activation="gelu")
            note = tr("GELU here is the tanh approximation GPT-2 uses. Exact GELU (x·Φ(x)) would give %1.") \
                .replace("%1", ", ".join(format_number(float(v), TABLE_DECIMALS) for v in exact))
        elif activation == "relu":
            note = tr("ReLU(z) = max(0, z): negative z gives 0.")
        elif activation == "identity":
            note = tr("No activation: h = z.")
        else:
            note = tr("Activation %1 (chosen in the block options).").replace("%1", activation)
        _set_text(self.activation_note, note)

    def _activation_picked(self, index: int) -> None:
        name = self.activation_combo.itemData(index)
        if name and name != self.session.config.activation:
            self.session.set_config(activation=name)

    # --- ① the linear try ------------------------------------------------------------------------------
    def _sync_linear_widgets(self) -> None:
        for name in lab.PARAMETERS:
            value = self.linear.value(name)
            slider = self.sliders[name]
            position = int(round(value * SLIDER_SCALE))
            if slider.value() != position and not slider.isSliderDown():
                with QSignalBlocker(slider):
                    slider.setValue(position)
            _set_spin(self.linear_spins[name], value)

    def _least_squares(self) -> None:
        self.linear.set_all(self.best)

    def _refresh_naive(self) -> None:
        self._sync_linear_widgets()
        self._refresh_naive_plots()

    def _refresh_naive_plots(self) -> None:
        if not self._ok or self._stale:
            return
        s = self.session
        inputs, targets = s.state.inputs, s.state.targets
        model = self.linear.model
        low, high = lab.PARAMETER_RANGE
        # the MSE along the last-touched parameter
        name = self.linear.last
        xs = np.linspace(low, high, CURVE_POINTS)
        curve = lab.linear_mse_curve(inputs, targets, model, name, xs)
        self.curve_item.setData(xs, curve)
        current = lab.linear_mse(inputs, targets, model)
        self.curve_point.setData([model.value(name)], [current])
        others = [n for n in lab.PARAMETERS if n != name]
        _title(self.curve_plot, tr("MSE as %1 moves (%2, %3 held)").replace("%1", name)
               .replace("%2", others[0]).replace("%3", others[1]))
        _axis_label(self.curve_plot, "bottom", name)
        limit = nice_limit(float(np.max(curve)))
        if limit != self.curve_limit:
            self.curve_limit = limit
            self.curve_plot.setYRange(0, limit, padding=0.02)
        self.floor_line.setValue(self.best_mse)
        floor_text = tr("floor %1").replace("%1", _fmt(self.best_mse))
        if self.floor_line.label.toPlainText() != floor_text:
            self.floor_line.label.setFormat(floor_text)
        # the landscape over two parameters
        x_name, y_name = self.axes_combo.currentData()           # e.g. "ab"
        grid = np.linspace(low, high, GRID_POINTS)
        landscape = lab.linear_mse_landscape(inputs, targets, model, x_name, y_name, grid, grid)
        levels = (0.0, nice_limit(float(np.max(landscape))))
        self.landscape_image.setImage(np.ascontiguousarray(landscape, dtype=np.float32), levels=levels)
        self.landscape_image.setRect(self.landscape_rect)      # needs an image first
        if levels != self.landscape_levels:
            self.landscape_levels = levels
            self.landscape_bar.setLevels(values=levels)
        self.landscape_best.setData([self.best.value(x_name)], [self.best.value(y_name)])
        self.landscape_point.setData([model.value(x_name)], [model.value(y_name)])
        held = next(n for n in lab.PARAMETERS if n not in (x_name, y_name))
        _title(self.landscape_plot, tr("MSE (%1 = %2)").replace("%1", held).replace("%2", _fmt(model.value(held), 3)))
        _axis_label(self.landscape_plot, "bottom", x_name)
        _axis_label(self.landscape_plot, "left", y_name)

    # --- ② why it fails --------------------------------------------------------------------------------
    def _refresh_failure(self) -> None:
        m = self.linear.model
        proof = lab.linear_proof(m)
        lines = [tr("For any a, b, c; here with yours, a = %1, b = %2, c = %3:")
                 .replace("%1", _fmt(m.a)).replace("%2", _fmt(m.b)).replace("%3", _fmt(m.c)),
                 "&nbsp;&nbsp;" + _esc(proof.left_text()),
                 "&nbsp;&nbsp;" + _esc(proof.right_text()),
                 tr("The two sums are the same expression, a + b + 2c, so they are always equal.")]
        if self.target_sides is not None:
            lines.append(tr("The targets do not: %1").replace("%1", self._target_sums_text()))
        best = tr("No line can match both. The best a linear model can do is a = %1, b = %2, c = %3, MSE %4.") \
            .replace("%1", _fmt(self.best.a)).replace("%2", _fmt(self.best.b)).replace("%3", _fmt(self.best.c)) \
            .replace("%4", _fmt(self.best_mse))
        if _fmt(self.best.a) == "0" and _fmt(self.best.b) == "0":
            best += tr(" That is ŷ = %1 for every sentence: it cannot tell praise from criticism.") \
                .replace("%1", _fmt(self.best.c))
        lines.append(best)
        _set_text(self.proof_label, "<br><br>".join(lines))

    # --- ③ the FFN -------------------------------------------------------------------------------------
    def _refresh_ffn(self) -> None:
        s = self.session
        row = s.selected_index("hook_resid_post")[0]
        x = s.state.inputs[row]
        _set_text(self.ffn_caption, tr("Following <b>%1</b> (p = %2, n = %3); click a row of the table to follow "
                                       "another. Every number on the drawing can be edited.")
                  .replace("%1", _esc(s.tokens[row])).replace("%2", _fmt(x[0])).replace("%3", _fmt(x[1])))
        self.diagram.refresh()

    # --- ④ drag the bias -------------------------------------------------------------------------------
    def _refresh_bias(self) -> None:
        s = self.session
        config, weights, inputs, targets = s.config, s.state.weights, s.state.inputs, s.state.targets
        bias = float(s.tensor("b_in")[BIAS_NEURON])
        position = int(round(max(lab.BIAS_RANGE[0], min(lab.BIAS_RANGE[1], bias)) * SLIDER_SCALE))
        if self.bias_slider.value() != position and not self.bias_slider.isSliderDown():
            with QSignalBlocker(self.bias_slider):
                self.bias_slider.setValue(position)
        _set_spin(self.bias_spin, bias)
        for marker in self.bias_markers:
            marker.setValue(bias)
        # The sweep over b_in[1] does not depend on b_in[1] itself: dragging the bias only moves
        # the markers; the curves and the verdict are recomputed when anything else changes.
        others = np.array(weights["b_in"], dtype=np.float64)
        others[BIAS_NEURON] = 0.0
        key = (config, inputs.tobytes(), targets.tobytes(), s.tokens, others.tobytes(),
               *(weights[name].tobytes() for name in sorted(weights) if name != "b_in"))
        if key != getattr(self, "_bias_key", None):
            self._bias_key = key
            self._sweep_bias(config, weights, inputs, targets)
        _set_text(self.flip_label, self._flip_text(bias))

    def _sweep_bias(self, config, weights, inputs, targets) -> None:
        """The curves over the bias range and the first sentence to flip: everything but b_in[1]."""
        s = self.session
        sweep = lab.bias_sweep(config, weights, inputs, targets, BIAS_NEURON)
        while len(self.bias_curves) < sweep.outputs.shape[1]:
            k = len(self.bias_curves)
            # later rows dashed: 好吃 and 不难吃 run on the same line and must both stay visible
            curve = self.bias_outputs_plot.plot([], [], pen=pg.mkPen(ROW_COLOURS[k % len(ROW_COLOURS)], width=2.5,
                                                                     style=Qt.PenStyle.SolidLine if k < 2
                                                                     else Qt.PenStyle.DashLine))
            self.bias_curves.append(curve)
        for k, curve in enumerate(self.bias_curves):
            if k < sweep.outputs.shape[1]:
                curve.setData(sweep.values, sweep.outputs[:, k])
                name = s.tokens[k]
                if curve.name() != name:
                    curve.opts["name"] = name
                    self.bias_legend.removeItem(curve)
                    self.bias_legend.addItem(curve, name)
                curve.show()
            else:
                curve.hide()
        self.bias_mse_curve.setData(sweep.values, sweep.mse)
        self._flip = lab.first_to_flip(config, weights, inputs, targets, BIAS_NEURON, sweep=sweep)
        self._never = lab.always_right(sweep, targets)

    def _flip_text(self, bias: float) -> str:
        """Which sentence goes wrong first; told once the learner has dragged the bias that far (the
        lesson asks it as a question first), and at once when there is nothing to find out."""
        s, flip = self.session, self._flip
        if flip is None:
            self.bias_flip_point.setData([], [])
            return tr("No sentence goes wrong for any bias from −1 to 0.")
        if flip.already_wrong:
            self.bias_flip_point.setData([], [])
            return tr("Already wrong at b = −1: <b>%1</b>.").replace("%1", _esc(_names(s.tokens, flip.rows)))
        if not lab.has_flipped(bias, flip):
            self.bias_flip_point.setData([], [])
            right = lab.count_right(s.trace["hook_resid_post"], s.state.targets)
            return tr("Drag the bias up from −1 and watch the curves cross the dashed 0.5 line. "
                      "At b = %1: %2 of %3 sentences right.").replace("%1", _fmt(bias, 4)) \
                .replace("%2", str(right)).replace("%3", str(len(s.tokens)))
        names = _esc(_names(s.tokens, flip.rows))
        text = (tr("As the bias rises from −1, <b>%1</b> goes wrong first, at <b>b = %2</b>: neuron 2 now fires "
                   "for it too, and its ŷ crosses 0.5.") if len(flip.rows) == 1 else
                tr("As the bias rises from −1, <b>%1</b> go wrong first, together at <b>b = %2</b>: neuron 2 now "
                   "fires for them too, and their ŷ crosses 0.5."))
        text = text.replace("%1", names).replace("%2", _fmt(flip.value, 4))
        self.bias_flip_point.setData([flip.value] * len(flip.rows), [lab.THRESHOLD] * len(flip.rows))
        if self._never.any():
            text += tr(" Right all the way to 0: %1.").replace("%1", _esc(_names(s.tokens, np.flatnonzero(self._never))))
        return text

    # --- ⑤ how it computes -----------------------------------------------------------------------------
    def _refresh_compute(self) -> None:
        s = self.session
        row = s.selected_index("hook_resid_post")[0]
        chosen = max(0, self.neuron_buttons.checkedId())
        terms = lab.output_terms(s.config, s.state.weights, s.trace, row)
        x = s.state.inputs[row]
        none = s.config.activation == "identity"

        def activation_step(t: lab.NeuronTerms) -> str:
            return tr("no activation, h = z = %1").replace("%1", _fmt(t.h)) if none else t.activation_text()

        lines = [tr("<b>%1</b>: p = %2, n = %3").replace("%1", _esc(s.tokens[row]))
                 .replace("%2", _fmt(x[0])).replace("%3", _fmt(x[1]))]
        focus = terms.neurons[chosen]
        lines.append(tr("<b>Neuron %1</b> reads p and n with its column of W_in and adds its bias:")
                     .replace("%1", str(chosen + 1)))
        lines.append("&nbsp;&nbsp;&nbsp;z = " + _esc(focus.z_text()))
        lines.append("&nbsp;&nbsp;&nbsp;→ " + _esc(activation_step(focus)))
        lines.append("&nbsp;&nbsp;&nbsp;→ " + tr("× write-back %1: %2").replace("%1", _esc(_fmt(focus.write_back)))
                     .replace("%2", f"<b>{_esc(focus.write_text())}</b>"))
        for other in terms.neurons:
            if other.neuron == chosen:
                continue
            lines.append(tr("Neuron %1: z = %2 → %3 → writes %4")
                         .replace("%1", str(other.neuron + 1)).replace("%2", _esc(other.z_text()))
                         .replace("%3", _esc(activation_step(other)))
                         .replace("%4", _esc(lab.with_plus(other.contribution))))
        lines.append(tr("Sum: ŷ = neuron 1 + neuron 2 + b_out = <b>%1</b>").replace("%1", _esc(terms.sum_text())))
        target = float(s.state.targets[row, 0])
        right = bool(lab.verdicts(np.array([terms.total]), np.array([target]))[0])
        lines.append((tr("target %1: right ✓") if right else tr("target %1: wrong ✗")).replace("%1", _fmt(target)))
        _set_text(self.expansion_label, "<br>".join(lines))

    # --- ⑥ what each neuron sees ----------------------------------------------------------------------
    def _refresh_neurons(self) -> None:
        s = self.session
        grid, maps = lab.neuron_maps(s.config, s.state.weights, MAP_POINTS)
        limit = limit_for(maps)
        levels = (-limit, limit)
        for j, image in enumerate(self.neuron_images):
            image.setImage(np.ascontiguousarray(maps[j], dtype=np.float32), levels=levels)
            image.setRect(self.map_rect)                         # needs an image first
        if levels != self.maps_levels:
            self.maps_levels = levels
            self.maps_bar.setLevels(values=levels)
        inputs = s.state.inputs
        hidden = s.trace["mlp.hook_post"]
        rules = {"at_least_one": tr("at least one of p, n holds (p + n ≥ 1)"),
                 "both": tr("only when both hold"), "exactly_one": tr("exactly one holds"),
                 "none": tr("none of the four sentences"), "all": tr("all four sentences"), "other": ""}
        patterns = []
        for j, plot in enumerate(self.map_plots):
            self.map_points[j].setData(inputs[:, 0], inputs[:, 1])
            labels = self.map_labels[j]
            while len(labels) < len(s.tokens):
                item = pg.TextItem(anchor=(0.5, 1.3), color="#111111", fill=pg.mkBrush(255, 255, 255, 200))
                item.setFont(_font(10))
                plot.addItem(item)
                labels.append(item)
            for k, item in enumerate(labels):
                if k < len(s.tokens):
                    text = f"{s.tokens[k]} {_fmt(hidden[k, j], 3)}"
                    if item.toPlainText() != text:
                        item.setText(text)
                    item.setPos(float(inputs[k, 0]), float(inputs[k, 1]))
                    # labels of the top row go below their point so they stay inside the square
                    item.setAnchor((0.5, -0.3) if inputs[k, 1] > 0.5 else (0.5, 1.3))
                    item.show()
                else:
                    item.hide()
            formula = lab.neuron_formula(s.config, s.state.weights, j)
            _title(plot, tr("neuron %1: %2 = %3").replace("%1", str(j + 1)).replace("%2", SUBSCRIPT_H[j])
                   .replace("%3", formula))
            lit = lab.lit_rows(hidden[:, j])
            pattern = lab.lit_pattern(inputs, lit)
            patterns.append(pattern)
            lit_names = _names(s.tokens, np.flatnonzero(lit)) or tr("none")
            caption = tr("Neuron %1 lights up (h ≥ 0.5) for: <b>%2</b>").replace("%1", str(j + 1)) \
                .replace("%2", _esc(lit_names))
            if rules[pattern]:
                caption += tr(" — %1.").replace("%1", rules[pattern])
            _set_text(self.map_captions[j], caption)
        summary = tr("The output adds them with the write-back coefficients: <b>ŷ = %1</b>.") \
            .replace("%1", lab.output_formula(s.state.weights))
        if patterns == ["at_least_one", "both"] and lab.verdicts(s.trace["hook_resid_post"], s.state.targets).all():
            summary += tr(" “At least one” minus twice “both” is “exactly one”.")
        _set_text(self.maps_summary, summary)
