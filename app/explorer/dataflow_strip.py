"""A heatmap node: a hook's whole tensor (tokens across, channels down) as one image.

Wide blocks cannot show numbers: a node of d = 768 would be 16,000 px tall. A StripNode shows
the tensor of the shown head (per-head hooks) as a QImage on one QGraphicsPixmapItem that an
edit recolours in place — never a new item per edit. Tokens run left to right (the selected
one is outlined, as the number view shows that token's column), channels top to bottom, on
one symmetric colour scale per node whose range is printed under it with the shape. Images
wider or taller than MAX_PIXELS keep, for each pixel, the value of largest magnitude among the
cells it covers (an outlier never disappears); hovering and clicking always address the exact
cell under the pointer.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QImage, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsSimpleTextItem

from app.explorer.dataflow_items import NodeBase, node_width
from app.explorer.dataflow_style import (NUMBERS_MAX, STRIP_CELLS, Geometry, Palette, centered_text,
                                         exponent_text, place_text)
from app.widgets import style
from core.numbers import format_number

MAX_PIXELS = 256             # an image is at most this many pixels along each axis (then pooled)
_LUT = np.array([0xFF000000 | (int(r) << 16) | (int(g) << 8) | int(b) for r, g, b, *_ in style.DIVERGING_LUT],
                dtype=np.uint32)


def _pooled(values: np.ndarray, axis: int) -> np.ndarray:
    """Fewer than MAX_PIXELS along `axis`: each bin keeps its value of largest magnitude."""
    size = values.shape[axis]
    if size <= MAX_PIXELS:
        return values
    starts = np.linspace(0, size, MAX_PIXELS, endpoint=False).astype(np.intp)
    high = np.maximum.reduceat(values, starts, axis=axis)
    low = np.minimum.reduceat(values, starts, axis=axis)
    return np.where(high >= -low, high, low)


def heat_pixels(values: np.ndarray, limit: float, undefined: int) -> np.ndarray:
    """ARGB32 pixels (channels × tokens) of a T×C array on the diverging map over ±limit;
    non-finite cells (masked scores) in the `undefined` colour."""
    grid = _pooled(_pooled(np.asarray(values, dtype=np.float64).T, 0), 1)
    position = np.nan_to_num((grid / limit + 1.0) * 127.5, nan=0.0, posinf=255.0, neginf=0.0)
    pixels = _LUT[np.clip(position, 0, 255).astype(np.uint8)]
    finite = np.isfinite(grid)
    if not finite.all():
        pixels = np.where(finite, pixels, np.uint32(undefined))
    return np.ascontiguousarray(pixels)


def range_text(limit: float) -> str:
    """The colour scale of a node: ±limit, short (limits are 1, 2 or 5 × a power of ten)."""
    text = format_number(limit, 0) if limit < 1e4 else exponent_text(limit, 0)
    return f"±{text}"


class StripNode(NodeBase):
    """A node that shows its tensor (the shown head's, for per-head hooks) as a heatmap."""

    def __init__(self, hook: str, title: str, tokens: int, channels: int, shape_label: str,
                 geometry: Geometry, palette: Palette, tooltip: str):
        self.tokens, self.channels = tokens, channels
        self._body_w = geometry.cell_w if tokens <= NUMBERS_MAX else geometry.strip_w
        image_h = min(channels, STRIP_CELLS) * geometry.cell_h
        # The caption: the shape and the colour range on one line where they fit, else two.
        shape_w, range_w = (geometry.text_w(text, geometry.number) for text in (shape_label, "±5e15"))
        margin = 6 * geometry.zoom
        one_line = shape_w + range_w + 2 * margin <= self._body_w
        if not one_line:
            self._body_w = max(self._body_w, shape_w + margin, range_w + margin)
        width = node_width(title, self._body_w, geometry)
        lines = 1 if one_line else 2
        super().__init__(hook, title, width, image_h + lines * geometry.caption_h, geometry, palette, tooltip)
        self.image_rect = QRectF(self.body.left(), self.body.top(), self.body.width(), image_h)
        self.pixmap = QGraphicsPixmapItem(self)
        self.pixmap.setPos(self.image_rect.topLeft())
        self.pixmap.setTransformationMode(Qt.FastTransformation)      # crisp cells, like a table
        self.pixmap.setShapeMode(QGraphicsPixmapItem.BoundingRectShape)
        frame = QGraphicsRectItem(self.image_rect, self)
        frame.setPen(QPen(palette.node_border, 1))
        frame.setBrush(Qt.NoBrush)
        self._undefined = palette.undefined.rgba()
        top, left, width_ = self.image_rect.bottom(), self.body.left(), self.body.width()
        if one_line:
            self.shape_rect = QRectF(left, top, width_ - range_w - margin, geometry.caption_h)
            self.range_rect = QRectF(left + width_ - range_w - margin, top, range_w + margin, geometry.caption_h)
        else:
            self.shape_rect = QRectF(left, top, width_, geometry.caption_h)
            self.range_rect = QRectF(left, top + geometry.caption_h, width_, geometry.caption_h)
        self.shape_text = centered_text(self, shape_label, geometry.number, self.shape_rect, palette.muted)
        self.range_text = centered_text(self, "", geometry.number, self.range_rect, palette.ink)
        self.token_mark = QGraphicsRectItem(self)
        self.token_mark.setPen(QPen(palette.accent, 2.5 * geometry.zoom))
        self.token_mark.setBrush(Qt.NoBrush)
        self.token_mark.setZValue(2)
        self._marks: list[QGraphicsRectItem] = []
        self._marked: tuple = ()
        self.pixels: np.ndarray | None = None      # the ARGB32 pixels shown (channels × tokens)

    def body_width(self) -> float:
        return self._body_w

    # --- values --------------------------------------------------------------------------
    def set_image(self, values: np.ndarray, limit: float) -> None:
        """Recolour the heatmap from a T×C array on ±limit (in place: the same pixmap item)."""
        self.pixels = heat_pixels(values, limit, self._undefined)
        rows, columns = self.pixels.shape
        data = self.pixels.tobytes()             # alive until the pixmap has copied it
        self.pixmap.setPixmap(QPixmap.fromImage(QImage(data, columns, rows, 4 * columns, QImage.Format_ARGB32)))
        self.pixmap.setTransform(QTransform.fromScale(self.image_rect.width() / columns,
                                                      self.image_rect.height() / rows))
        label = range_text(limit)
        if self.range_text.text() != label:
            self.range_text.setText(label)
            place_text(self.range_text, self.range_rect)

    def set_token(self, token: int) -> None:
        """Outline the selected token's column of cells."""
        self.token_mark.setRect(self._cell_rect(token, 0, self.channels).adjusted(-1, -1, 1, 1))

    def set_marked(self, cells: set[tuple[int, int]]) -> None:
        """Outline these (token, channel) cells: a lesson's highlighted cells."""
        key = tuple(sorted(cells))
        if key == self._marked:
            return
        self._marked = key
        for mark in self._marks:
            mark.setParentItem(None)
            if mark.scene() is not None:
                mark.scene().removeItem(mark)
        self._marks = []
        for token, channel in key:
            mark = QGraphicsRectItem(self._cell_rect(token, channel, 1).adjusted(-1.5, -1.5, 1.5, 1.5), self)
            mark.setPen(QPen(self.palette.glow.darker(130), 3 * self.geometry.zoom))
            mark.setBrush(Qt.NoBrush)
            mark.setZValue(3)
            self._marks.append(mark)

    def marked(self) -> list[tuple[int, int]]:
        return list(self._marked)

    # --- geometry ------------------------------------------------------------------------
    def _cell_rect(self, token: int, channel: int, count: int, least: float = 1.0) -> QRectF:
        """Where cells are drawn (at least `least` wide and tall, to stay visible when outlined)."""
        width = self.image_rect.width() / self.tokens
        height = self.image_rect.height() / self.channels
        exact = QRectF(self.image_rect.left() + token * width, self.image_rect.top() + channel * height,
                       width, height * count)
        grown = QRectF(exact)
        grown.setWidth(max(width, least))
        grown.setHeight(max(height * count, least))
        grown.moveCenter(exact.center())
        return grown

    def cell_at(self, point: QPointF) -> tuple[int, int] | None:
        """The (token, channel) under a point in the node's coordinates, or None."""
        rect = self.image_rect
        if not rect.contains(point):
            return None
        token = int((point.x() - rect.left()) / rect.width() * self.tokens)
        channel = int((point.y() - rect.top()) / rect.height() * self.channels)
        return min(token, self.tokens - 1), min(channel, self.channels - 1)

    def cell_centre(self, token: int, channel: int) -> QPointF:
        """A cell's centre in scene coordinates (for tests and for framing)."""
        return self.mapToScene(self._cell_rect(token, channel, 1, least=0.0).center())

    def text_items(self) -> list[QGraphicsSimpleTextItem]:
        return super().text_items() + [self.shape_text, self.range_text]
