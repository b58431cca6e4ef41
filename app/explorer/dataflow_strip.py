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

from app.explorer.dataflow_items import NodeBase, cell_mark, node_width
from app.explorer.dataflow_style import (NUMBERS_MAX, STRIP_CELLS, Geometry, Palette, centered_text,
                                         exponent_text, place_text)
from app.widgets import style
from core.numbers import format_number

MAX_PIXELS = 256             # an image is at most this many pixels along each axis (then pooled)
_LUT = np.array([0xFF000000 | (int(r) << 16) | (int(g) << 8) | int(b) for r, g, b, *_ in style.DIVERGING_LUT],
                dtype=np.uint32)


def _pooled(values: np.ndarray, axis: int) -> np.ndarray:
    """At most MAX_PIXELS along `axis` (0 or 1 of a 2-D array): each bin of k neighbours keeps its
    value of largest magnitude (the last bin may be shorter)."""
    size = values.shape[axis]
    if size <= MAX_PIXELS:
        return values
    values = values if axis == 1 else values.T
    k = -(-size // MAX_PIXELS)                     # cells per bin
    whole = size // k * k
    # k strided slices, not a reduction over a short last axis (much slower in NumPy)
    high, low = values[:, 0:whole:k].copy(), values[:, 0:whole:k].copy()
    for j in range(1, k):
        np.maximum(high, values[:, j:whole:k], out=high)
        np.minimum(low, values[:, j:whole:k], out=low)
    if whole < size:
        high = np.concatenate([high, values[:, whole:].max(axis=1, keepdims=True)], axis=1)
        low = np.concatenate([low, values[:, whole:].min(axis=1, keepdims=True)], axis=1)
    pooled = np.where(high >= -low, high, low)
    return pooled if axis == 1 else pooled.T


def _pooled_to_one(values: np.ndarray) -> np.ndarray:
    """A T×k block as one channel (T×1): each token's value of largest magnitude, as _pooled."""
    high, low = values.max(axis=1, keepdims=True), values.min(axis=1, keepdims=True)
    return np.where(high >= -low, high, low)


def heat_pixels(values: np.ndarray, limit: float, undefined: int) -> np.ndarray:
    """ARGB32 pixels (channels × tokens) of a T×C array on the diverging map over ±limit;
    non-finite cells (masked scores) in the `undefined` colour."""
    # Pool along the contiguous channel axis first (fast), transpose only the small result.
    grid = _pooled(_pooled(np.asarray(values, dtype=np.float64), 1), 0).T
    position = grid * (127.5 / limit) + 127.5
    finite = np.isfinite(position)
    whole = finite.all()
    if not whole:
        position[~finite] = 0.0
    np.clip(position, 0.0, 255.0, out=position)
    pixels = _LUT[position.astype(np.uint8)]
    if not whole:
        pixels[~finite] = np.uint32(undefined)
    return pixels


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
        self._values: np.ndarray | None = None     # the array they show, and on which limit
        self._limit = 0.0

    def body_width(self) -> float:
        return self._body_w

    # --- values --------------------------------------------------------------------------
    def set_image(self, values: np.ndarray, limit: float) -> None:
        """Recolour the heatmap from a T×C array on ±limit (in place: the same pixmap item). When
        only a few channels changed since the last call (an edit of one hidden unit's weights
        changes one column of a 3,072-wide tensor), only their rows of pixels are recomputed."""
        values = np.asarray(values, dtype=np.float64)
        if not self._recolour_changed(values, limit):
            self.pixels = heat_pixels(values, limit, self._undefined)
        self._values, self._limit = values, limit
        rows, columns = self.pixels.shape
        data = self.pixels.tobytes()             # alive until the pixmap has copied it
        self.pixmap.setPixmap(QPixmap.fromImage(QImage(data, columns, rows, 4 * columns, QImage.Format_ARGB32)))
        self.pixmap.setTransform(QTransform.fromScale(self.image_rect.width() / columns,
                                                      self.image_rect.height() / rows))
        label = range_text(limit)
        if self.range_text.text() != label:
            self.range_text.setText(label)
            place_text(self.range_text, self.range_rect)

    def _recolour_changed(self, values: np.ndarray, limit: float) -> bool:
        """Recompute only the pixel rows of the channels that changed; False if it cannot (first
        image, new limit or shape, many changes, or a pooled token axis)."""
        previous = self._values
        if (previous is None or previous.shape != values.shape or limit != self._limit
                or values.shape[0] > MAX_PIXELS):
            return False
        changed = np.flatnonzero((values != previous).any(axis=0))
        k = max(1, -(-values.shape[1] // MAX_PIXELS))         # channels per pixel row, as _pooled
        rows = np.unique(changed // k)
        if rows.size > max(1, self.pixels.shape[0] // 16):
            return False
        pixels = self.pixels.copy()
        for row in rows:
            block = values[:, row * k:(row + 1) * k]
            pixels[row] = heat_pixels(_pooled_to_one(block), limit, self._undefined)[0]
        self.pixels = pixels
        return True

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
        grown = 4 * self.geometry.zoom
        for token, channel in key:
            rect = self._cell_rect(token, channel, 1).adjusted(-grown, -grown, grown, grown)
            self._marks.append(cell_mark(self, rect, self.geometry, self.palette))

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
