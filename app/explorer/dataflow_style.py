"""How the block diagram is sized and coloured: its geometry (from the interface zoom), its
palette (from the theme), its fonts, and how a number is squeezed into a cell.

Every length is derived from the fonts, so a diagram laid out at any zoom has the same
proportions; the view decides how large it appears (see DataflowView).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PySide6.QtCore import QCoreApplication, QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem

from app.widgets.appearance import Appearance
from core.numbers import MINUS, format_number

STRIP_DECIMALS = 2           # a node is a glance; the inspector shows all six decimals
# Up to NUMBERS_MAX channels, and NUMBERS_MAX tokens, a node shows numbers (DataflowScene._strips):
# eight cells are 170 px at zoom 1, about a heatmap node's height, so number and heatmap nodes
# keep the diagram's proportions side by side; eight tokens fit beside the input node; and past
# eight tokens a column of one token's numbers hides what a heatmap shows at a glance (how the
# tokens differ). Every lesson block is within it (d ≤ 4, d_ff ≤ 6, 5 tokens).
NUMBERS_MAX = 8
FORCED_NUMBERS_MAX = 64      # even when forced, wider nodes stay heatmaps (64 × a cell is already 1,300 px)
STRIP_CELLS = 4              # a heatmap is as tall as four number cells (the lesson block's d = 4 nodes)
READABLE_PX = 16.0           # what "readable from the back row" means (issue 9)
DIMMED = 0.2                 # opacity of what a highlight or a spotlight does not point at

# Base font sizes, in pixels at zoom 1.
NUMBER_PX, TITLE_PX, TOKEN_PX, HEADER_PX, LABEL_PX = 16, 16, 16, 16, 12


def min_text_px(zoom: float) -> float:
    """The smallest the view draws numbers, on screen, at an interface zoom; it scrolls rather than
    shrink further. 10 px at 100 % (a 1280×800 laptop shows the lesson block whole), 16 px at 150 %
    (readable from the back row), 12 px more per 100 % after that."""
    return 12.0 * zoom - 2.0


def tr(text: str) -> str:
    """Diagram text, translated under the context "DataflowScene" (resources/i18n/zh/dataflow.json)."""
    return QCoreApplication.translate("DataflowScene", text)


def _probe_font(which: str, families: tuple[str, ...]) -> QFont:
    """The font `which` (QFont.toString) with its whole family list: toString keeps only the first
    family, and without the Chinese fallback Han text was measured in another face (Noto Sans CJK
    JP, not the SC the diagram draws), which Qt then opened and mapped beside it."""
    probe = QFont()
    probe.fromString(which)
    if families:
        probe.setFamilies(list(families))
    return probe


@lru_cache(maxsize=4096)
def _line_height(text: str, which: str, families: tuple[str, ...] = ()) -> float:
    item = QGraphicsSimpleTextItem(text)
    item.setFont(_probe_font(which, families))
    return item.boundingRect().height()


def line_height(text: str, which: QFont) -> float:
    """How tall a line of `text` is drawn: Chinese falls back to a CJK font whose lines are taller
    than the Latin font's (24 against 19 px at 16 px), so boxes are measured on their own text."""
    key, families = which.toString(), tuple(which.families())
    return max(_line_height(text, key, families), _line_height("Ag", key, families))


def font(pixels: float, bold: bool = False) -> QFont:
    result = QFont()
    result.setPixelSize(max(1, round(pixels)))
    result.setBold(bold)
    return result


class Advances:
    """QFontMetricsF.horizontalAdvance, remembered per text: a cell's candidate texts (see
    compact_number) are measured once per font, not at every edit."""

    def __init__(self, which: QFont):
        self._metrics = QFontMetricsF(which)
        self._widths: dict[str, float] = {}

    def horizontalAdvance(self, text: str) -> float:  # noqa: N802 (QFontMetricsF's name)
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) > 4096:
                self._widths.clear()
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width


_ADVANCES: dict[tuple, Advances] = {}       # font (QFont.toString, families) → its Advances


@dataclass(frozen=True)
class Geometry:
    """Every length of the diagram, in scene pixels, at one interface zoom."""
    zoom: float
    number: QFont
    title: QFont
    token: QFont
    header: QFont
    label: QFont
    cell_w: float
    cell_h: float
    title_h: float
    pad: float
    col_gap: float
    stack_gap: float
    stack_gap_edge: float
    band_header: float
    band_pad: float
    lane: float
    strip_w: float            # a heatmap node's width when it shows more than NUMBERS_MAX tokens
    caption_h: float          # a heatmap node's caption line (its shape and colour range)

    @classmethod
    def at(cls, zoom: float) -> "Geometry":
        number, title = font(NUMBER_PX * zoom), font(TITLE_PX * zoom, bold=True)
        token, header, label = font(TOKEN_PX * zoom), font(HEADER_PX * zoom), font(LABEL_PX * zoom)
        digits = QFontMetricsF(number)
        # A cell holds "−0.00" and the shortest exponent form of any value the engine can reach
        # (|v| < 1e100: "−8e88") at full size (see compact_number).
        cell_w = math.ceil(max(digits.horizontalAdvance(f"{MINUS}0.00"), digits.horizontalAdvance(f"{MINUS}8e88"))
                           + 3 * zoom)
        cell_h = math.ceil(digits.height() + 2 * zoom)
        label_h = QFontMetricsF(label).height()
        return cls(zoom, number, title, token, header, label, cell_w=cell_w, cell_h=cell_h,
                   title_h=math.ceil(line_height("Ag", title) + 3 * zoom), pad=2 * zoom,
                   col_gap=30 * zoom, stack_gap=8 * zoom, stack_gap_edge=math.ceil(label_h + 8 * zoom),
                   band_header=math.ceil(line_height("词Ag", header) + 3 * zoom), band_pad=6 * zoom,
                   lane=14 * zoom, strip_w=math.ceil(1.75 * (cell_w + 4 * zoom)),
                   caption_h=math.ceil(digits.height() + 2 * zoom))

    @property
    def node_w(self) -> float:
        return self.cell_w + 2 * self.pad

    def text_w(self, text: str, which: QFont) -> float:
        return QFontMetricsF(which).horizontalAdvance(text)

    def advances(self, which: QFont) -> "Advances":
        """`which`'s text widths, each measured once (shared by every node of this font)."""
        key = which.toString(), tuple(which.families())
        found = _ADVANCES.get(key)
        if found is None:
            found = _ADVANCES[key] = Advances(which)
        return found

    def title_line_h(self, line: str) -> float:
        return math.ceil(line_height(line, self.title) + 3 * self.zoom)

    def token_box_h(self, tokens) -> float:
        """The height of a token's box: its tallest text (Chinese or not) and a margin."""
        return math.ceil(max([line_height(t, self.token) for t in tokens] + [line_height("Ag", self.token)])
                         + 4 * self.zoom)

    def label_size(self, text: str) -> tuple[float, float]:
        """The box of an edge's shape label."""
        metrics = QFontMetricsF(self.label)
        return metrics.horizontalAdvance(text) + 4 * self.zoom, metrics.height() + 1


@dataclass(frozen=True)
class Palette:
    """The diagram's colours in one theme (values use the colour-blind-safe map of style)."""
    background: QColor
    ink: QColor
    muted: QColor
    node_fill: QColor
    node_border: QColor
    accent: QColor
    glow: QColor
    edge: QColor
    residual: QColor
    attention_band: QColor
    attention_border: QColor
    ffn_band: QColor
    ffn_border: QColor
    token_fill: QColor
    label_box: QColor
    undefined: QColor

    @classmethod
    def of(cls, look: Appearance) -> "Palette":
        c = look.colours
        theme = look.effective_theme
        glow = QColor(c.glow)
        glow.setAlpha(170)
        dark = theme == "dark"
        label_box = QColor(c.background)
        label_box.setAlpha(225)
        bands = {"light": ("#eef2f8", "#d5dbe5", "#f7f2ea", "#e6dccb"),
                 "contrast": ("#f2f5fb", "#7a8699", "#fbf6ee", "#9c8a6a"),
                 "dark": ("#262c36", "#3b4656", "#302a22", "#4d4434")}[theme]
        return cls(background=QColor(c.background), ink=QColor(c.foreground), muted=QColor(c.muted),
                   node_fill=QColor(c.panel), node_border=QColor("#6a6e75" if dark else "#9a9a9a"),
                   accent=QColor(c.accent), glow=glow, edge=QColor("#8f949b" if dark else "#7a7a7a"),
                   residual=QColor({"light": "#1b7a72", "contrast": "#005f56", "dark": "#4fc1b5"}[theme]),
                   attention_band=QColor(bands[0]), attention_border=QColor(bands[1]),
                   ffn_band=QColor(bands[2]), ffn_border=QColor(bands[3]),
                   token_fill=QColor("#34363b" if dark else "#f2f2f2"), label_box=label_box,
                   undefined=QColor("#777777" if dark else "#dddddd"))


# --- text in boxes ---------------------------------------------------------------------------

def place_text(item: QGraphicsSimpleTextItem, rect: QRectF) -> None:
    """Centre a text in rect. Texts are made to fit (compact numbers, node widths from their
    titles), so this never shrinks one: a too-long text would show, not hide, the mistake."""
    bounds = item.boundingRect()
    item.setPos(rect.center().x() - bounds.width() / 2, rect.center().y() - bounds.height() / 2)


def centered_text(parent, text: str, which: QFont, rect: QRectF, colour: QColor) -> QGraphicsSimpleTextItem:
    item = QGraphicsSimpleTextItem(text, parent)
    item.setFont(which)
    set_ink(item, colour)
    place_text(item, rect)
    return item


# --- dimming ----------------------------------------------------------------------------------
# A dimmed node (or edge) is drawn at DIMMED opacity. Qt draws a text under a painter opacity
# below 1 on its slow path: every glyph's pixels become spans (with Qt's raster thread pool, handed
# to it in batches and waited for: about 60 µs a number against 5). A text in a dimmed item
# therefore ignores the item's opacity and is drawn in its colour made as transparent instead,
# which Qt blends on its fast text path, to the same pixels: the R45 diagram's full repaint with 48
# dimmed texts, 2.8 → 1.7 ms without the pool (app.launch.serial_painting).

_INK, _FADE = 0, 1                  # (QGraphicsItem data keys: the text's own colour, its opacity)


def set_ink(item: QGraphicsSimpleTextItem, colour: QColor) -> None:
    """Give a diagram text its colour, drawn at the opacity of the item it is dimmed with (fade)."""
    item.setData(_INK, QColor(colour))
    opacity = item.data(_FADE)
    if opacity is not None and opacity < 1.0:
        colour = QColor(colour)
        colour.setAlphaF(colour.alphaF() * opacity)
    item.setBrush(colour)


def fade(item: QGraphicsItem, opacity: float) -> None:
    """Draw `item` and what it holds at `opacity`: its shapes by the item's opacity, its texts by
    their own colours' transparency (see above)."""
    item.setOpacity(opacity)
    under = item.childItems()
    while under:
        child = under.pop()
        under.extend(child.childItems())
        if isinstance(child, QGraphicsSimpleTextItem):
            ink = child.data(_INK)
            child.setData(_FADE, opacity)
            child.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, opacity < 1.0)
            set_ink(child, ink if ink is not None else child.brush().color())


def exponent_text(value: float, decimals: int) -> str:
    """1.2e5, −3e−7: a mantissa (core.numbers' formatter, trimmed) and a power of ten, with the
    Unicode minus wherever a minus goes."""
    exponent = math.floor(math.log10(abs(value)))
    mantissa = value / 10 ** exponent
    if abs(float(format_number(mantissa, decimals).replace(MINUS, "-"))) >= 10:
        exponent += 1
        mantissa = value / 10 ** exponent
    power = f"{MINUS}{-exponent}" if exponent < 0 else str(exponent)
    return f"{format_number(mantissa, decimals, trim=True)}e{power}"


def compact_number(value: float, room: float, metrics: QFontMetricsF, decimals: int = STRIP_DECIMALS) -> str:
    """`value` as the most precise text that fits `room` pixels at full size: fixed decimals
    (2, then 1, then 0), then an exponent (1.2e5). Very large values never shrink the text; the
    exact value is in the node's tooltip and the inspector."""
    value = float(value)
    if -9.995 < value < 9.995 and decimals == STRIP_DECIMALS:
        return format_number(value, decimals)          # a cell is sized for "−0.00": no need to measure
    candidates = [format_number(value, d) for d in range(decimals, -1, -1)]
    if math.isfinite(value) and value != 0 and abs(value) >= 10:
        candidates += [exponent_text(value, d) for d in (2, 1, 0)]
    for text in candidates:
        if metrics.horizontalAdvance(text) <= room:
            return text
    return candidates[-1]
