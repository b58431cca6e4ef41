"""Measuring what the plots panel shows: every text's pixel size and rectangle on screen.

Used by the plots tests to check readability from geometry, not from screenshots: tick labels
(drawn by the axes), axis labels, titles, legends (text items) and cell numbers (a heatmap's
NumbersItem).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QTextFormat
from PySide6.QtWidgets import QGraphicsTextItem

SCREEN_DPI = 96.0


@dataclass
class Text:
    text: str
    rect: QRectF          # in the graphics view's viewport coordinates (pixels on screen)
    pixels: float         # the smallest font pixel size in it
    kind: str             # "tick", "label" (axis label, title, legend entry) or "cell"
    owner: object


@contextmanager
def appearance_as(zoom: float = 1.0, theme: str = "system"):
    """Set the interface zoom and theme for a test, and put them back after."""
    from app.widgets.appearance import appearance
    look = appearance()
    before = (look.zoom, look.theme)
    look.set_zoom(zoom)
    look.set_theme(theme)
    try:
        yield look
    finally:
        look.set_zoom(before[0])
        look.set_theme(before[1])


def _font_pixels(font) -> float:
    if font.pixelSize() > 0:
        return float(font.pixelSize())
    return font.pointSizeF() * SCREEN_DPI / 72.0


def text_item_pixels(item: QGraphicsTextItem) -> float:
    """The smallest font size (pixels) of any character in a text item: a size set in its HTML
    (font-size) or, where none is, the item's own font."""
    smallest = None
    block = item.document().begin()
    while block.isValid():
        for part in block.textFormats():
            if not block.text()[part.start:part.start + part.length].strip():
                continue
            fmt = part.format
            if fmt.hasProperty(QTextFormat.Property.FontPixelSize):
                size = float(fmt.intProperty(QTextFormat.Property.FontPixelSize))
            elif fmt.hasProperty(QTextFormat.Property.FontPointSize):
                size = fmt.doubleProperty(QTextFormat.Property.FontPointSize) * SCREEN_DPI / 72.0
            else:
                size = _font_pixels(item.font())
            smallest = size if smallest is None else min(smallest, size)
        block = block.next()
    return smallest if smallest is not None else _font_pixels(item.font())


def _text_rect(graphics: pg.GraphicsLayoutWidget, item: QGraphicsTextItem) -> QRectF:
    margin = item.document().documentMargin()
    tight = item.boundingRect().adjusted(margin, margin, -margin, -margin)
    return graphics.mapFromScene(item.mapToScene(tight)).boundingRect().toRectF()


def _shown(item) -> bool:
    return item.isVisible() and item.scene() is not None and item.opacity() > 0


def texts_of(graphics: pg.GraphicsLayoutWidget) -> list[Text]:
    """Every text a figure shows now, with where it is and how big."""
    from app.explorer.plots.heatmap import NumbersItem
    from app.explorer.plots.ticks import drawn_tick_texts
    found: list[Text] = []
    for item in graphics.scene().items():
        if not _shown(item):
            continue
        if isinstance(item, NumbersItem):            # a heatmap's cell numbers, each its glyph box
            pixels = _font_pixels(item.text_font)
            for text, rect in zip(item.texts, item.text_rects()):
                if text.strip():
                    found.append(Text(text, graphics.mapFromScene(rect).boundingRect().toRectF(), pixels, "cell", item))
        elif isinstance(item, pg.AxisItem):
            if not item.style["showValues"]:
                continue
            pixels = _font_pixels(item.style["tickFont"]) if item.style["tickFont"] is not None else 0.0
            for rect, text in drawn_tick_texts(item):
                found.append(Text(text, graphics.mapFromScene(rect).boundingRect().toRectF(), pixels, "tick", item))
        elif isinstance(item, QGraphicsTextItem) and item.toPlainText().strip():
            parent = item.parentItem()
            kind = "label"
            if parent is not None and not _shown(parent):
                continue
            if isinstance(parent, pg.TextItem):
                parent.updateTransform(force=True)      # as its next paint places it
            found.append(Text(item.toPlainText(), _text_rect(graphics, item), text_item_pixels(item), kind, parent))
    return found


def overlaps(texts: list[Text], tolerance: float = 1.0) -> list[tuple[Text, Text]]:
    """Pairs of texts whose rectangles overlap by more than `tolerance` pixels each way."""
    pairs = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            common = a.rect.intersected(b.rect)
            if common.width() > tolerance and common.height() > tolerance:
                pairs.append((a, b))
    return pairs


def cut_off(graphics: pg.GraphicsLayoutWidget, texts: list[Text], tolerance: float = 1.0) -> list[Text]:
    """Texts that reach outside the figure's visible area."""
    visible = QRectF(graphics.viewport().rect()).adjusted(-tolerance, -tolerance, tolerance, tolerance)
    return [t for t in texts if not visible.contains(t.rect)]


def describe(pairs) -> str:
    return "; ".join(f"{a.kind} {a.text!r} {a.rect.getRect()} × {b.kind} {b.text!r} {b.rect.getRect()}"
                     for a, b in pairs)
