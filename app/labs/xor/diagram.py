"""The two-neuron FFN drawn as it computes, every weight a spin box on the drawing."""
from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (QColor, QFontMetricsF, QPainter, QPen, QRegion, QStaticText, QTextLayout, QTextOption,
                           QTransform)
from PySide6.QtWidgets import QWidget

from app.labs.xor.common import DIAGRAM_DECIMALS, TEXT_PT, trimmed
from app.widgets.appearance import appearance
from app.widgets.labels import activation_label
from app.widgets.spin import NumberSpin, session_spin, set_spin_value
from app.widgets.style import font
from core.formats.scenario import MAX_ABS_VALUE
from core.labs import xor as lab

POSITIVE_EDGE = QColor("#b35806")
NEGATIVE_EDGE = QColor("#542788")
SPIN_WIDTH = 112                   # pixels at 100 %, like every length of the drawing
PRESENTING_SPIN_WIDTH = 100        # presenting: a write-back spin fits between its neuron and Σ at 150 %
HEADER_PT = 10                     # the column headers' points (before the zoom)
HEADER_GAP = 12                    # pixels at 100 % between two column headers
LEAST_WIDTH = 560                  # the drawing's least width (more when its headers need it)


class HeaderLayout(NamedTuple):
    """The column headers laid out for one geometry (see XorDiagram.header_layout)."""
    boxes: list[tuple[QRectF, list[tuple[QRectF, str]]]]   # each header's box, and its lines' boxes and texts
    top: float                                              # the drawing below them begins here
    least_width: float                                      # the least width at which every word fits


class Lengths:
    """The drawing's vertical lengths at 100 %. Presenting, they are tighter (the headers' row,
    the neurons' boxes, the gaps): at 1024×768 with 150 % zoom the roomy drawing was a third
    taller than its page, its lower spins out of sight and the write-back spins on the nodes."""

    def __init__(self, presenting: bool):
        self.top = 24 if presenting else 30            # the header captions' row (one line; a line more each
                                                        # when a header wraps)
        self.half = 18 if presenting else 30           # half a neuron's height (two lines of text)
        self.bias_gap = 4 if presenting else 6         # a bias spin to its neuron
        self.read_gap = 4 if presenting else 8         # between a neuron's two read spins
        self.between = 8 if presenting else 12         # between the two neurons' read spins


def scaled_font(points: float, bold: bool = False):
    """A font of the drawing at the zoom (and presentation mode): it paints its own text."""
    return _font(appearance().points(points), bold)


@functools.lru_cache(maxsize=64)
def _font(points: float, bold: bool):
    # a paint sets a font a dozen times: made once per size, not on every paint
    return font(points, bold)


@functools.lru_cache(maxsize=256)
def _laid_out(text: str, points: float, bold: bool) -> tuple[QStaticText, float, float]:
    """`text` in the drawing's font, laid out once: its QStaticText, and the advance and line height
    that drawText(rect, AlignCenter, text) centres in its rect (so it is drawn where that draws it).
    drawText lays the text out again on every call: a dozen texts an edit."""
    face = _font(points, bold)
    static = QStaticText(text)
    static.setTextFormat(Qt.TextFormat.PlainText)
    static.prepare(QTransform(), face)
    layout = QTextLayout(text, face)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(0x01000000)                  # one line, as drawText without word wrap
    layout.endLayout()
    return static, line.horizontalAdvance(), line.ascent() + line.descent()


def _wrapped(text: str, face, metrics: QFontMetricsF, width: float) -> list[str]:
    """`text` on as few lines as fit `width` pixels, broken where Unicode allows (between words,
    between Chinese characters, never before "、" or "："); a word wider than `width` on its own
    line. At a width of 0: each piece that cannot be broken."""
    if not text or metrics.horizontalAdvance(text) <= width:
        return [text]
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout = QTextLayout(text, face)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        lines.append(text[line.textStart():line.textStart() + line.textLength()].strip())
    layout.endLayout()
    return [line for line in lines if line]


@functools.lru_cache(maxsize=64)
def _widest_word(text: str, points: float) -> float:
    """The width of the widest piece of `text` a line cannot break (in the drawing's font)."""
    face = _font(points, False)
    metrics = QFontMetricsF(face)
    return max((metrics.horizontalAdvance(piece) for piece in _wrapped(text, face, metrics, 0)), default=0.0)


@functools.lru_cache(maxsize=64)
def _balanced(text: str, points: float, most: int = 3) -> tuple[tuple[str, ...], ...]:
    """`text` in the drawing's font of `points` on one line, on two, … on up to `most` lines (as
    far as it breaks), each way as narrow as that many lines allow: wrapped at the least width
    (found by halving) at which it takes no more lines. Made once per text and size: a window
    being resized lays the headers out again at every step."""
    face = _font(points, False)
    metrics = QFontMetricsF(face)
    ways = [[text]]
    least = _widest_word(text, points)
    for count in range(2, most + 1):
        low, high = least, metrics.horizontalAdvance(text)
        if len(_wrapped(text, face, metrics, low)) <= count:
            high = low
        for _ in range(12):                    # at `high` it takes no more than `count` lines
            if high - low < 0.5:
                break
            middle = (low + high) / 2
            low, high = (low, middle) if len(_wrapped(text, face, metrics, middle)) <= count else (middle, high)
        lines = _wrapped(text, face, metrics, high)
        if lines == ways[-1]:
            break
        ways.append(lines)
    return tuple(tuple(way) for way in ways)


def _apart(lefts: list[float], widths: list[float], width: float, gap: float) -> list[float]:
    """Boxes (their left ends and widths, from left to right) moved apart where they are nearer
    than `gap`: to the right, and back to the left where that takes the last past `width`."""
    lefts = list(lefts)
    for i in range(1, len(lefts)):
        lefts[i] = max(lefts[i], lefts[i - 1] + widths[i - 1] + gap)
    lefts[-1] = min(lefts[-1], width - widths[-1])
    for i in range(len(lefts) - 2, -1, -1):
        lefts[i] = min(lefts[i], lefts[i + 1] - gap - widths[i])
    lefts[0] = max(lefts[0], 0.0)
    return lefts


def draw_centred(painter: QPainter, rect: QRectF, text: str, points: float, bold: bool = False) -> None:
    """What painter.drawText(rect, Qt.AlignCenter, text) draws in scaled_font(points, bold) (the
    painter's font), from the text laid out once: centred, and clipped to `rect` if it is larger."""
    static, width, height = _laid_out(text, appearance().points(points), bold)
    corner = QPointF(rect.left() + (rect.width() - width) / 2, rect.top() + (rect.height() - height) / 2)
    if width > rect.width() or height > rect.height():
        painter.save()
        painter.setClipRect(rect, Qt.ClipOperation.IntersectClip)
        painter.drawStaticText(corner, static)
        painter.restore()
    else:
        painter.drawStaticText(corner, static)


class XorDiagram(QWidget):
    """p, n → two neurons (read weights, bias, activation) → write-back → Σ + b_out → ŷ.

    Every weight is a spin box sitting on the drawing; the nodes show the selected sentence's
    numbers (from the session's trace). Spins write through session.set_value. Its lengths and
    painted texts follow appearance() (the zoom, presentation mode) as the widgets' texts do."""

    def __init__(self, session):
        super().__init__()
        self.setObjectName("xorDiagram")
        self.session = session
        self.spins: dict[tuple[str, tuple[int, ...]], NumberSpin] = {}
        cells = [("W_in", (i, j)) for j in range(2) for i in range(2)] + \
                [("b_in", (j,)) for j in range(2)] + [("W_out", (j, 0)) for j in range(2)] + [("b_out", (0,))]
        for tensor, index in cells:
            if tensor == "W_in":
                name = f"xorW_in_{index[0]}_{index[1]}"
            elif tensor == "W_out":
                name = f"xorW_out_{index[0]}"
            else:
                name = f"xor{tensor[0].upper()}{tensor[1:]}" + (f"_{index[0]}" if tensor == "b_in" else "")
            spin = session_spin(name, -MAX_ABS_VALUE, MAX_ABS_VALUE, 0.1, session, points=TEXT_PT)
            spin.setParent(self)
            spin.setPrefix("+ " if tensor.startswith("b_") else "× ")
            spin.setAlignment(Qt.AlignmentFlag.AlignCenter)
            spin.valueChanged.connect(lambda value, t=tensor, i=index: self.session.set_value(t, i, float(value),
                                                                                                merge=True))
            self.spins[(tensor, index)] = spin
        self.texts: dict[str, list[str]] = {}
        self.contributions: list[str] = ["", ""]
        self.edges: dict[tuple[str, tuple[int, ...]], float] = {}
        self.headers: list[str] = ["", "", "", ""]
        self.right = True                  # the selected sentence's verdict
        self._geometry: dict[str, QRectF] = {}
        self._frame_cache: Frame | None = None
        self._layouts = 0                  # how many times the geometry was worked out (the frame's key)
        self._headers_laid = HeaderLayout([], 0.0, LEAST_WIDTH)
        # It paints what is behind it (the window's colour) itself, so a repaint of the drawing does
        # not repaint the page and the scroll area's viewport under it first.
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        appearance().changed.connect(self._follow_appearance)
        self._follow_appearance()
        self.retranslate()

    def _follow_appearance(self) -> None:
        width = PRESENTING_SPIN_WIDTH if appearance().presenting else SPIN_WIDTH
        for spin in self.spins.values():
            spin.setFixedWidth(appearance().pixels(width))
        self._layout()

    def _least_height(self, top: float) -> int:
        """The height at which nothing overlaps: the headers, each neuron with a bias spin outside
        it and two read spins beside it, a little air between the neurons' spins. Presenting, the
        neurons may stand closer than their read spins (those move apart, above and below them).
        `top` is the headers' row (taller when a header wraps onto more lines)."""
        k = appearance().scale
        n = Lengths(appearance().presenting)
        spin_h = self.spins[("b_out", (0,))].sizeHint().height()
        outer = spin_h + n.bias_gap * k + n.half * k         # a bias spin and half a neuron
        if appearance().presenting:
            neurons = 2 * n.half * k + n.between * k         # the two neurons, a little apart
            reads = 4 * spin_h + 2 * n.read_gap * k + n.between * k - 2 * outer   # the four read spins' column
            return int(top + 2 * outer + max(neurons, reads) + 2) + 1
        between = 2 * (spin_h + 4 * k) + 12 * k              # the read spins of both neurons
        return int(top + outer + between + outer + 2) + 1

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        names = {"W_in": self.tr("W_in[%1] — how much the neuron reads this feature"),
                 "b_in": self.tr("b_in[%1] — the neuron's bias"),
                 "W_out": self.tr("W_out[%1] — what the neuron writes back to ŷ"),
                 "b_out": self.tr("b_out — added to the sum")}
        for (tensor, index), spin in self.spins.items():
            spin.setToolTip(names[tensor].replace("%1", ", ".join(map(str, index))))
        headers = [self.tr("read p, n: W_in, b_in"), self.tr("activation"), self.tr("write back: W_out"),
                   self.tr("sum + b_out")]
        if headers != self.headers:
            self.headers = headers
            self._layout()                 # the headers' widths: their lines, the row's height
        self.update()

    def refresh(self) -> None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        before = (dict(self.edges), dict(self.texts), list(self.contributions), self.right)
        for (tensor, index), spin in self.spins.items():
            value = float(s.tensor(tensor)[index])
            set_spin_value(spin, value)
            self.edges[(tensor, index)] = value
        row = s.selected_index("hook_resid_post")[0]
        trace = s.trace
        x = trace["hook_resid_mid"][row]
        symbol = activation_label(s.config.activation, "short")
        self.texts = {"p": [f"p = {trimmed(x[0], DIAGRAM_DECIMALS)}"], "n": [f"n = {trimmed(x[1], DIAGRAM_DECIMALS)}"]}
        for j in range(2):
            z = trace["mlp.hook_pre"][row, j]
            h = trace["mlp.hook_post"][row, j]
            self.texts[f"neuron{j}"] = [self.tr("neuron %1").replace("%1", str(j + 1)),
                                        f"z = {trimmed(z, DIAGRAM_DECIMALS)} → {symbol} → {trimmed(h, DIAGRAM_DECIMALS)}"]
            terms = lab.neuron_terms(s.config, state.weights, trace, row, j)
            self.contributions[j] = lab.with_plus(terms.contribution, DIAGRAM_DECIMALS)
        output = float(trace["hook_resid_post"][row, 0])
        target = float(state.targets[row, 0])
        right = bool(lab.verdicts(np.array([output]), np.array([target]))[0])
        self.texts["out"] = [f"ŷ = {trimmed(output, DIAGRAM_DECIMALS)}",
                             f"y = {trimmed(target, DIAGRAM_DECIMALS)} {'✓' if right else '✗'}"]
        self.right = right
        # The drawing around the spin boxes only: nothing is drawn under them (every edge ends at
        # a spin's border), and a spin whose value changed repaints itself, so the other eight are
        # not painted again on every edit. Of that, only the parts whose look changed: an edit
        # changes one edge's pen and a few texts, not the headers or most of the boxes. (Hidden,
        # nothing is painted: Qt drops the update.)
        # A spin whose value changed is painted over the drawing's background (it is not opaque):
        # its box goes into the same update, so Qt paints the drawing once for both (a region
        # apart from the spin's would make it paint the drawing twice, once for each).
        if self.isVisible():
            frame = self._frame()
            region = frame.changed(self, *before) & frame.around_spins
            if not region.isEmpty():
                # Qt trims a wide antialiased line to the bounding box of the region painted, which
                # moves its edge pixels by a few 1/255: the box stays the one a whole paint has (the
                # part of the drawing in view; two corner pixels of it), so an edge is drawn as a
                # whole paint draws it.
                shown = self.visibleRegion().boundingRect()
                region += QRegion(shown.left(), shown.top(), 1, 1)
                region += QRegion(shown.right(), shown.bottom(), 1, 1)
            for cell, spin in self.spins.items():
                if before[0].get(cell) != self.edges[cell] and spin.isVisible():
                    region += spin.geometry()
            self.update(region)

    def _around_spins(self) -> QRegion:
        region = QRegion(self.rect())
        for spin in self.spins.values():
            if spin.isVisible():
                region -= QRegion(spin.geometry())
        return region

    # geometry: every position is a fraction of the widget, so it scales with the window
    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._layout()

    def _layout(self) -> None:
        w, h = self.width(), self.height()
        k = appearance().scale                     # every length chosen for 100 %
        n = Lengths(appearance().presenting)
        # across first: the columns the headers name, and the headers over them (a header wrapped
        # onto more lines makes their row, and the top, taller)
        neuron_w = min(210.0 * k, max(176.0 * k, w * 0.23))
        p_left, neuron_left, sum_left = w * 0.01, w * 0.45 - neuron_w / 2, w * 0.78 - 24 * k
        columns = [(p_left + 76 * k, neuron_left), (neuron_left, neuron_left + neuron_w),
                   (neuron_left + neuron_w, sum_left), (sum_left - 30, w)]
        self._headers_laid = self.header_layout(w, columns)
        top = self._headers_laid.top               # below the header captions
        least = (max(LEAST_WIDTH, int(self._headers_laid.least_width) + 1), self._least_height(top))
        if (self.minimumWidth(), self.minimumHeight()) != least:
            self.setMinimumSize(*least)
        usable = h - top - 8
        spin_h = self.spins[("b_out", (0,))].sizeHint().height()
        half = n.half * k                          # half a neuron's height
        # the neurons as far apart as the bias spins above and below them allow
        low = top + spin_h + n.bias_gap * k + half
        high = h - spin_h - n.bias_gap * k - half - 2
        neuron_y = [max(low, top + usable * 0.30), min(high, top + usable * 0.74)]
        # each neuron's two read spins around it, or (neurons closer than their spins) moved apart
        pitch = spin_h + n.read_gap * k
        middle = (neuron_y[0] + neuron_y[1]) / 2
        apart = max(neuron_y[1] - neuron_y[0], 2 * pitch + n.between * k - n.read_gap * k)
        read_y = [middle - apart / 2, middle + apart / 2]
        g: dict[str, QRectF] = {}
        g["p"] = QRectF(p_left, neuron_y[0] - 20 * k, 76 * k, 40 * k)
        g["n"] = QRectF(p_left, neuron_y[1] - 20 * k, 76 * k, 40 * k)
        for j in range(2):
            g[f"neuron{j}"] = QRectF(neuron_left, neuron_y[j] - half, neuron_w, 2 * half)
        g["sum"] = QRectF(sum_left, (neuron_y[0] + neuron_y[1]) / 2 - 24 * k, 48 * k, 48 * k)
        g["out"] = QRectF(w - 108 * k, g["sum"].center().y() - 30 * k, 104 * k, 60 * k)
        self._geometry = g
        self._layouts += 1
        read_x = w * 0.22
        for j in range(2):
            for i in range(2):
                spin = self.spins[("W_in", (i, j))]
                spin.move(int(read_x - spin.width() / 2), int(read_y[j] + (i - 0.5) * pitch - spin_h / 2))
            bias = self.spins[("b_in", (j,))]
            offset = -(half + spin_h + n.bias_gap * k) if j == 0 else half + n.bias_gap * k
            bias.move(int(g[f"neuron{j}"].center().x() - bias.width() / 2), int(neuron_y[j] + offset))
            write = self.spins[("W_out", (j, 0))]
            write_x = (g[f"neuron{j}"].right() + g["sum"].left()) / 2
            write_y = neuron_y[j] + (g["sum"].center().y() - neuron_y[j]) * 0.2
            write.move(int(write_x - write.width() / 2), int(write_y - spin_h / 2))
        b_out = self.spins[("b_out", (0,))]
        b_out.move(int(g["sum"].center().x() - b_out.width() / 2 + 34 * k), int(g["sum"].bottom() + 14 * k))
        self.update()

    def header_layout(self, width: float, columns: list[tuple[float, float]]) -> HeaderLayout:
        """Where the column headers are painted in a drawing `width` wide over its four `columns`
        (the read spins', the neurons', the write-back spins', Σ and ŷ's: their left and right
        ends): each header's box and its lines' boxes. Worked out when the geometry, the zoom or
        the language changes, not on an edit.

        Each header is centred over its column; where two come nearer than a gap they move apart,
        inside the drawing, as long as each stays over its column's middle. Where on one line
        they cannot, some wrap onto two lines (or three), each as narrow as that many lines go:
        the fewest lines in the row that let them stand apart, then the fewest in all. The row,
        and the top of the drawing below it, grow by a line for each line more. So no header
        meets another (at 150 % "read p, n: W_in, b_in" ran into "activation"), none is cut at
        the drawing's edges, and the row stays above the spins and nodes."""
        k = appearance().scale
        n = Lengths(appearance().presenting)
        face = scaled_font(HEADER_PT)
        metrics = QFontMetricsF(face)
        gap = HEADER_GAP * k
        centres = [(left + right) / 2 for left, right in columns]

        def size(lines: list[str]) -> float:
            return max((metrics.horizontalAdvance(line) for line in lines), default=0.0) + 4

        # each header's ways: on one line, on two, on three, each as narrow as that many lines go
        ways = [[list(way) for way in _balanced(text, appearance().points(HEADER_PT))] for text in self.headers]
        least_width = sum(_widest_word(text, appearance().points(HEADER_PT)) + 4 for text in self.headers) \
            + gap * (len(centres) - 1)

        def placed(lines: list[list[str]], over_columns: bool) -> list[float] | None:
            widths = [size(each) for each in lines]
            lefts = _apart([centre - each / 2 for centre, each in zip(centres, widths)], widths, width, gap)
            apart = all(a + each + gap <= b + 0.01 for a, each, b in zip(lefts, widths, lefts[1:]))
            inside = lefts[0] >= 0 and lefts[-1] + widths[-1] <= width + 0.01
            over = all(left <= centre <= left + each for left, each, centre in zip(lefts, widths, centres))
            return lefts if apart and inside and (over or not over_columns) else None

        # the fewest lines in the row (then in all) at which they stand apart, each over its column
        choices = sorted(itertools.product(*(range(len(each)) for each in ways)), key=lambda c: (max(c), sum(c)))
        chosen = None
        for over_columns in (True, False):
            for choice in choices:
                lines = [each[way] for each, way in zip(ways, choice)]
                lefts = placed(lines, over_columns)
                if lefts is not None:
                    chosen = lines, lefts
                    break
            if chosen:
                break
        if chosen is None:                            # (narrower than the drawing's least width)
            lines = [_wrapped(text, face, metrics, 0) for text in self.headers]
            widths = [size(each) for each in lines]
            chosen = lines, _apart([centre - each / 2 for centre, each in zip(centres, widths)], widths, width, gap)
        wrapped, lefts = chosen
        widths = [size(each) for each in wrapped]
        pitch = metrics.lineSpacing()
        extra = (max(len(lines) for lines in wrapped) - 1) * pitch
        height = min(24 * k, n.top * k - 4) + extra       # the row: one line's, and a line more for each
        laid = []
        for lines, left, wide in zip(wrapped, lefts, widths):
            rect = QRectF(left, 2, wide, height)
            if len(lines) == 1:
                laid.append((rect, [(rect, lines[0])]))
                continue
            first = rect.top() + (height - len(lines) * pitch) / 2
            laid.append((rect, [(QRectF(left, first + j * pitch, wide, pitch), line) for j, line in enumerate(lines)]))
        return HeaderLayout(laid, n.top * k + extra, least_width)

    def header_rects(self) -> list[QRectF]:
        """Where the column headers are painted (each a box around all its lines)."""
        return [rect for rect, _lines in self._headers_laid.boxes]

    def contribution_rects(self) -> list[QRectF]:
        """Where each neuron's contribution to Σ is painted: between the two write-back spins
        (neuron 1's below its spin, neuron 2's above its own), or, when the drawing is too short
        for both there (150 % on a 1024×768 screen: "+1" was painted over "0"), each on the far
        side of its spin, away from the other."""
        k = appearance().scale
        writes = [self.spins[("W_out", (j, 0))].geometry() for j in range(2)]       # QRects: bottom() is the last row
        inside = [QRectF(writes[0].left(), writes[0].bottom() + 4 * k, writes[0].width(), 20 * k),
                  QRectF(writes[1].left(), writes[1].top() - 22 * k, writes[1].width(), 20 * k)]
        if not (inside[0].intersects(inside[1]) or inside[0].intersects(QRectF(writes[1]))
                or inside[1].intersects(QRectF(writes[0]))):
            return inside
        # as wide as the text: under neuron 2's spin the b_out spin begins near its right end
        metrics = QFontMetricsF(scaled_font(11, bold=True))
        widths = [min(float(writes[j].width()), metrics.horizontalAdvance(self.contributions[j]) + 4) for j in range(2)]
        return [QRectF(QRectF(writes[0]).center().x() - widths[0] / 2, writes[0].top() - 24 * k, widths[0], 20 * k),
                QRectF(QRectF(writes[1]).center().x() - widths[1] / 2, writes[1].bottom() + 4 * k, widths[1], 20 * k)]

    def _frame(self) -> "Frame":
        """Where everything but the numbers is drawn, worked out once for the drawing's geometry,
        the spins' places and the headers (not on every paint: an edit changes numbers only)."""
        key = (self._layouts, tuple(tuple(spin.geometry().getRect()) for spin in self.spins.values()),
               tuple(self.headers))
        if self._frame_cache is None or self._frame_cache.key != key:
            self._frame_cache = Frame(self, key)
        return self._frame_cache

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().window())         # (clipped to the region painted)
        if not self._geometry or not self.texts:
            painter.end()
            return
        frame = self._frame()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        # header captions over the columns
        painter.setFont(scaled_font(HEADER_PT))
        painter.setPen(HEADER_INK)
        for rect, text in frame.headers:
            draw_centred(painter, rect, text, HEADER_PT)
        # read edges (feature → spin → neuron), the bias edges, write edges (neuron → spin → Σ)
        for cell, lines in frame.edge_lines:
            painter.setPen(edge_pen(self.edges.get(cell, 0.0)))
            for line in lines:
                painter.drawLine(line)
        # with the contribution of the selected sentence
        painter.setPen(TEXT_INK)
        painter.setFont(scaled_font(11, bold=True))
        for text, rect in zip(self.contributions, frame.contributions(self)):
            draw_centred(painter, rect, text, 11, bold=True)
        painter.setPen(edge_pen(self.edges.get(("b_out", (0,)), 0.0)))
        painter.drawLine(frame.b_out_edge)
        painter.setPen(OUTPUT_PEN)
        painter.drawLine(frame.output_edge)
        # nodes
        painter.setPen(NODE_PEN)
        for key, rect, roundness, text_rects in frame.nodes:
            painter.setBrush(NODE_FILL if key != "out" else RIGHT_FILL if self.right else WRONG_FILL)
            painter.drawRoundedRect(rect, roundness, roundness)
            lines = self.texts.get(key, [])
            if len(lines) == 1:
                painter.setFont(scaled_font(12, bold=True))
                draw_centred(painter, rect, lines[0], 12, bold=True)
            elif lines:
                painter.setFont(scaled_font(11, bold=True))
                draw_centred(painter, text_rects[0], lines[0], 11, bold=True)
                painter.setFont(scaled_font(11))
                draw_centred(painter, text_rects[1], lines[1], 11)
        painter.setBrush(NODE_FILL)
        painter.drawEllipse(frame.sum)
        painter.setFont(scaled_font(16, bold=True))
        draw_centred(painter, frame.sum, "Σ", 16, bold=True)
        painter.end()


HEADER_INK = QColor("#555555")
TEXT_INK = QColor("#222222")
NODE_PEN = QPen(QColor("#444444"), 1.5)
NODE_FILL = QColor("#f3f3f3")
RIGHT_FILL, WRONG_FILL = QColor("#e8f5e9"), QColor("#ffebee")
OUTPUT_PEN = QPen(QColor("#333333"), 2)


def edge_pen(value: float) -> QPen:
    """An edge's pen: its weight's sign as the colour, its size (up to 2) as the width, dashed at 0."""
    return _edge_pen(1 if value > 0 else -1 if value < 0 else 0, min(abs(value), 2.0))


@functools.lru_cache(maxsize=256)
def _edge_pen(sign: int, size: float) -> QPen:
    # made once per sign and size: an edit changes one weight, a paint sets nine pens
    colour = POSITIVE_EDGE if sign > 0 else NEGATIVE_EDGE if sign < 0 else QColor("#bbbbbb")
    pen = QPen(colour, 1.5 + 1.5 * size)
    if sign == 0:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def _around(rect: QRectF, margin: float) -> QRegion:
    """The whole pixels `rect` touches, `margin` px more on every side."""
    return QRegion(rect.adjusted(-margin, -margin, margin, margin).toAlignedRect())


class Frame:
    """The drawing's fixed parts for one geometry: the header captions' lines' places, every edge's
    segments (in the order they are painted), the nodes' boxes and their texts' boxes, and the
    region around the spins; the contributions' boxes per pair of texts."""

    def __init__(self, diagram: XorDiagram, key: tuple):
        self.key = key
        g = diagram._geometry
        k = appearance().scale
        self.headers = [line for _rect, lines in diagram._headers_laid.boxes for line in lines]   # each line's box
        self.edge_lines: list[tuple[tuple[str, tuple[int, ...]], list[QLineF]]] = []
        geometry = {cell: spin.geometry() for cell, spin in diagram.spins.items()}
        for j in range(2):
            neuron = g[f"neuron{j}"]
            for i, source in enumerate(("p", "n")):
                spin = geometry[("W_in", (i, j))]
                start = QPointF(g[source].right(), g[source].center().y())
                self.edge_lines.append((("W_in", (i, j)), [
                    QLineF(start, QPointF(spin.left(), spin.center().y())),
                    QLineF(QPointF(spin.right(), spin.center().y()),
                           QPointF(neuron.left(), neuron.center().y() + (i - 0.5) * 16 * k))]))
            bias = geometry[("b_in", (j,))]
            edge_y = bias.bottom() if j == 0 else bias.top()
            self.edge_lines.append((("b_in", (j,)), [
                QLineF(QPointF(bias.center().x(), edge_y),
                       QPointF(neuron.center().x(), neuron.top() if j == 0 else neuron.bottom()))]))
            write = geometry[("W_out", (j, 0))]
            radius = g["sum"].width() / 2 * 0.7071            # enter Σ at its upper-left / lower-left
            end = QPointF(g["sum"].center().x() - radius, g["sum"].center().y() + (radius if j else -radius))
            self.edge_lines.append((("W_out", (j, 0)), [
                QLineF(QPointF(neuron.right(), neuron.center().y()), QPointF(write.left(), write.center().y())),
                QLineF(QPointF(write.right(), write.center().y()), end)]))
        b_out = geometry[("b_out", (0,))]
        self.b_out_edge = QLineF(QPointF(g["sum"].center().x(), g["sum"].bottom()),
                                 QPointF(g["sum"].center().x(), b_out.top()))
        self.output_edge = QLineF(QPointF(g["sum"].right(), g["sum"].center().y()),
                                  QPointF(g["out"].left(), g["sum"].center().y()))
        self.nodes = []
        for key in ("p", "n", "neuron0", "neuron1", "out"):
            rect = g[key]
            self.nodes.append((key, rect, 8 * k, (rect.adjusted(4, 4, -4, -rect.height() / 2),
                                                  rect.adjusted(4, rect.height() / 2 - 2, -4, -4))))
        self.sum = g["sum"]
        self.around_spins = diagram._around_spins()
        self._contributions: dict[tuple[str, ...], list[QRectF]] = {}

    def changed(self, diagram: XorDiagram, edges: dict, texts: dict, contributions: list, right: bool) -> QRegion:
        """Where the drawing's look differs from the one with these edges' values, node texts,
        contributions and verdict (the drawing's before a refresh): the box around each edge whose
        pen changed (as wide as the wider pen), each node whose texts changed, the contributions'
        boxes before and after. Everything when there was nothing drawn before."""
        if not texts:
            return QRegion(diagram.rect())
        region = QRegion()
        for cell, lines in self.edge_lines + [(("b_out", (0,)), [self.b_out_edge])]:
            old, new = edges.get(cell, 0.0), diagram.edges.get(cell, 0.0)
            if old == new:
                continue
            pens = edge_pen(old), edge_pen(new)
            if pens[0] == pens[1]:
                continue
            margin = max(pen.widthF() for pen in pens) / 2 + 2     # half the pen (and its cap), antialiasing
            for line in lines:
                region += _around(QRectF(line.p1(), line.p2()).normalized(), margin)
        for key, rect, _roundness, _text_rects in self.nodes:
            if texts.get(key) != diagram.texts.get(key) or (key == "out" and right != diagram.right):
                region += _around(rect, NODE_PEN.widthF() / 2 + 2)
        if contributions != diagram.contributions:
            was = self._contributions.get(tuple(contributions))      # where they were painted
            if was is None:
                return QRegion(diagram.rect())
            for rect in was + self.contributions(diagram):
                region += _around(rect, 2)
        return region

    def contributions(self, diagram: XorDiagram) -> list[QRectF]:
        """diagram.contribution_rects() for its contributions now (they depend on the texts only
        when the drawing is short)."""
        texts = tuple(diagram.contributions)
        if texts not in self._contributions:
            if len(self._contributions) > 64:
                self._contributions.clear()
            self._contributions[texts] = diagram.contribution_rects()
        return self._contributions[texts]
