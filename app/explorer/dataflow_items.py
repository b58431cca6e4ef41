"""The pieces of the block diagram: nodes that show numbers, edges, tokens, head chips.

A node is one hook of the trace: a title above a body. NumberNode's body is a column of tinted
cells (the selected token's values); StripNode (dataflow_strip.py) shows the whole tensor as a
heatmap. Items are built once per layout and then updated in place.
"""
from __future__ import annotations

from math import copysign

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem, QGraphicsRectItem,
                               QGraphicsSimpleTextItem)

from app.explorer.dataflow_plan import EdgeSpec
from app.explorer.dataflow_style import DIMMED, Geometry, Palette, centered_text, compact_number, fade, place_text, set_ink
from app.widgets import style
from app.widgets.inert import plain_tooltip
from core.numbers import format_number


class Rounded(QGraphicsPathItem):
    """A rectangle with rounded corners. (A path item rather than an overridden paint():
    PySide 6.12 leaks a reference to None on every Python paint() call.)"""

    def __init__(self, rect: QRectF, parent: QGraphicsItem | None = None, radius: float = 6.0):
        super().__init__(parent)
        self._rect = QRectF(rect)
        path = QPainterPath()
        path.addRoundedRect(self._rect, radius, radius)
        self.setPath(path)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def rect(self) -> QRectF:
        return QRectF(self._rect)


def title_height(title: str, geometry: Geometry) -> float:
    return sum(geometry.title_line_h(line) for line in title.split("\n"))


def node_width(title: str, body_w: float, geometry: Geometry) -> float:
    """A node is as wide as its body, or its widest title line and a margin: a title never
    leaves its node (the selection outline would cut it)."""
    widest = max(geometry.text_w(line, geometry.title) for line in title.split("\n"))
    return max(body_w + 2 * geometry.pad, widest + 4 * geometry.zoom)


def cell_mark(parent: QGraphicsItem, rect: QRectF, geometry: Geometry, palette: Palette) -> QGraphicsRectItem:
    """The outline of a highlighted cell: a dark line on an amber halo, visible on any tint."""
    z = geometry.zoom
    mark = QGraphicsRectItem(rect.adjusted(1.5 * z, 1.5 * z, -1.5 * z, -1.5 * z), parent)
    mark.setPen(QPen(palette.ink, 2 * z))
    mark.setBrush(Qt.NoBrush)
    mark.setZValue(3)
    halo = QGraphicsRectItem(mark.rect(), mark)
    halo.setFlag(QGraphicsItem.ItemStacksBehindParent)
    halo.setPen(QPen(palette.glow, 5 * z))
    halo.setBrush(Qt.NoBrush)
    return mark


class NodeBase(Rounded):
    """One hook: a title, a body below it, a selection outline, a lesson glow and marks for
    highlighted cells (the body's business)."""

    def __init__(self, hook: str, title: str, width: float, body_h: float, geometry: Geometry, palette: Palette,
                 tooltip: str):
        self.title_h = title_height(title, geometry)
        super().__init__(QRectF(0, 0, width, self.title_h + body_h + 2 * geometry.pad))
        self.hook, self.geometry, self.palette = hook, geometry, palette
        self.setBrush(palette.node_fill)
        self.setPen(QPen(palette.node_border, 1.2 * geometry.zoom))
        self.setToolTip(tooltip)
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        z = geometry.zoom
        self.glow = Rounded(self.rect().adjusted(-5 * z, -5 * z, 5 * z, 5 * z), self)
        self.glow.setFlag(QGraphicsItem.ItemStacksBehindParent)
        self.glow.setPen(QPen(palette.glow, 8 * z))
        self.glow.setBrush(Qt.NoBrush)
        self.glow.setVisible(False)
        self.outline = Rounded(self.rect().adjusted(-3 * z, -3 * z, 3 * z, 3 * z), self)   # the selection mark
        self.outline.setPen(QPen(palette.accent, 3.5 * z))
        self.outline.setBrush(Qt.NoBrush)
        self.outline.setVisible(False)
        lines = title.split("\n")
        tops = [sum(geometry.title_line_h(line) for line in lines[:k]) for k in range(len(lines))]
        self.title_rects = [QRectF(0, top, width, geometry.title_line_h(line)) for top, line in zip(tops, lines)]
        self.title_lines = [centered_text(self, line, geometry.title, rect, palette.ink)
                            for line, rect in zip(lines, self.title_rects)]
        self.body = QRectF((width - self.body_width()) / 2, self.title_h + geometry.pad,
                           self.body_width(), body_h)
        self._selected: bool | None = None
        self.problem: str | None = None            # why the node is marked red (finite_marks), or None
        self._plain_tooltip = tooltip

    def set_problem(self, reason: str | None, colour: QColor | None = None) -> None:
        """Mark the node: a thick border in `colour` (red: a value is not finite) and the reason in
        its tooltip; None takes the mark away."""
        if reason == self.problem:
            return
        self.problem = reason
        z = self.geometry.zoom
        self.setPen(QPen(colour, 3.5 * z) if reason else QPen(self.palette.node_border, 1.2 * z))
        self.setToolTip(self._plain_tooltip + (f"\n⚠ {reason}" if reason else ""))

    def set_plain_tooltip(self, text: str) -> None:
        """The node's own tooltip (the problem's reason, if any, stays under it)."""
        self._plain_tooltip = text
        self.setToolTip(text + (f"\n⚠ {self.problem}" if self.problem else ""))

    def body_width(self) -> float:
        raise NotImplementedError

    def port_y(self) -> float:
        """Where horizontal edges meet the node: the middle of its body."""
        return self.pos().y() + self.body.center().y()

    @property
    def title(self) -> str:
        return "\n".join(line.text() for line in self.title_lines)

    def set_title(self, title: str) -> bool:
        """Change the title in place; False if it needs another node (lines or width changed)."""
        lines = title.split("\n")
        if (len(lines) != len(self.title_lines) or title_height(title, self.geometry) != self.title_h
                or node_width(title, self.body.width(), self.geometry) > self.rect().width()):
            return False
        for item, line, rect in zip(self.title_lines, lines, self.title_rects):
            if item.text() != line:
                item.setText(line)
                place_text(item, rect)
        return True

    def set_selected(self, selected: bool) -> None:
        if self._selected == selected:     # touch Qt only on a change
            return
        self._selected = selected
        self.outline.setVisible(selected)
        for line in self.title_lines:
            set_ink(line, self.palette.accent if selected else self.palette.ink)

    def text_items(self) -> list[QGraphicsSimpleTextItem]:
        """Every text the node shows (for the readability and fit checks)."""
        return list(self.title_lines)


CELL_GAP = 1.0             # the line of the node's fill between two cells


class NumberNode(NodeBase):
    """A node that shows the selected token's (and head's) values as a column of tinted cells."""

    def __init__(self, hook: str, title: str, size: int, geometry: Geometry, palette: Palette, tooltip: str):
        self._body_w = geometry.cell_w
        width = node_width(title, geometry.cell_w, geometry)
        super().__init__(hook, title, width, size * geometry.cell_h, geometry, palette, tooltip)
        self.cells: list[QGraphicsRectItem] = []
        self.texts: list[QGraphicsSimpleTextItem] = []
        self.marks: list[QGraphicsRectItem | None] = [None] * size      # made when first needed
        self._metrics = geometry.advances(geometry.number)
        self._room = geometry.cell_w - 3 * geometry.zoom
        self._shown: tuple[list[float], float] | None = None     # the values and limit drawn (no marks)
        self.cell_rects: list[QRectF] = []          # each cell's whole box (marks, pointing)
        # What each cell shows, kept here so that an edit reads no Qt item back: its text, the
        # text's size (it is placed again only when that changes), its tint and its ink.
        self._labels: list[str] = [""] * size
        self._sizes: list[tuple[float, float] | None] = [None] * size
        self._tints: list[QColor | None] = [None] * size
        self._inks: list[QColor] = [palette.ink] * size
        self._centres: list[tuple[float, float]] = []
        for i in range(size):
            whole = QRectF(self.body.left(), self.body.top() + i * geometry.cell_h, geometry.cell_w, geometry.cell_h)
            self.cell_rects.append(whole)
            # The line between two cells is the node's fill showing through: the tint stops half a
            # pixel inside the box. (It was a pen of the fill's colour, which a dimmed node — drawn
            # translucent — stroked on the slow path at every repaint of a changed number.)
            cell = QGraphicsRectItem(whole.adjusted(CELL_GAP / 2, CELL_GAP / 2, -CELL_GAP / 2, -CELL_GAP / 2), self)
            cell.setPen(Qt.NoPen)
            self.cells.append(cell)
            centre = cell.rect().center()
            self._centres.append((centre.x(), centre.y()))
            text = QGraphicsSimpleTextItem("", cell)
            text.setFont(geometry.number)
            set_ink(text, palette.ink)
            self.texts.append(text)

    def body_width(self) -> float:
        return self._body_w

    def set_values(self, values: np.ndarray, limit: float, marks: np.ndarray | None = None,
                   words: dict | None = None, alarm: QColor | None = None) -> None:
        """Show the values tinted on ±limit. `marks` (core.finite.Cell codes): an overflow or NaN cell
        reads as its word in `words` (the symbol where the word does not fit) on the `alarm` colour.
        Without marks, a cell whose value (to the bit) and limit are those it shows is left as it is.
        (A row is a handful of numbers: compared as Python floats, not with NumPy's per-call cost.)"""
        values = np.asarray(values, dtype=np.float64).tolist()
        shown, self._shown = self._shown, (values, limit) if marks is None else None
        changed = range(min(len(values), len(self.texts)))
        if marks is None and shown is not None and shown[1] == limit and len(shown[0]) == len(values):
            changed = [i for i, (value, before) in enumerate(zip(values, shown[0]))
                       if value != before or copysign(1.0, value) != copysign(1.0, before)]
            if not changed:
                return
        labels, sizes, tints, inks, room, metrics = \
            self._labels, self._sizes, self._tints, self._inks, self._room, self._metrics
        for i in changed:
            value = values[i]
            label = compact_number(value, room, metrics)
            severe = marks is not None and int(marks[i]) in (2, 3)        # Cell.OVERFLOW, Cell.UNDEFINED
            if severe and words:
                word = format_number(value, words=words)
                label = word if metrics.horizontalAdvance(word) <= room else label
            if labels[i] != label:
                labels[i] = label
                text = self.texts[i]
                text.setText(label)
                bounds = text.boundingRect()
                size = bounds.width(), bounds.height()
                if sizes[i] != size:               # (digits are as wide as each other: usually not)
                    sizes[i] = size
                    x, y = self._centres[i]
                    text.setPos(x - size[0] / 2, y - size[1] / 2)       # centred, as place_text does
            colour = alarm if severe and alarm is not None else style.tint(value, limit)
            if tints[i] is not colour and tints[i] != colour:         # (a tint is one of 256 shared colours)
                tints[i] = colour
                self.cells[i].setBrush(colour)
                ink = style.text_colour_on(colour)
                if inks[i] != ink:
                    inks[i] = ink
                    set_ink(self.texts[i], ink)

    def set_marked(self, channels: set[int]) -> None:
        """Outline these cells (a lesson's highlighted cells of the token shown)."""
        for i, mark in enumerate(self.marks):
            on = i in channels
            if mark is None and on:
                mark = self.marks[i] = cell_mark(self, self.cell_rects[i], self.geometry, self.palette)
            if mark is not None and mark.isVisible() != on:
                mark.setVisible(on)

    def marked(self) -> list[int]:
        return [i for i, mark in enumerate(self.marks) if mark is not None and mark.isVisible()]

    def channel_at(self, point: QPointF) -> int | None:
        """The channel under a point in the node's coordinates, or None."""
        for i, rect in enumerate(self.cell_rects):
            if rect.contains(point):
                return i
        return None

    def text_items(self) -> list[QGraphicsSimpleTextItem]:
        return super().text_items() + self.texts


class EdgeItem(QGraphicsPathItem):
    """A curve from one node to another with an arrowhead and, optionally, a shape label."""

    def __init__(self, spec: EdgeSpec, path: QPainterPath, label: str | None, label_at: QPointF,
                 geometry: Geometry, palette: Palette):
        super().__init__(path)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.spec, self.geometry = spec, geometry
        residual = spec.kind == "residual"
        z = geometry.zoom
        self.colour = palette.residual if residual else palette.edge
        self.emphasis_colour = QColor("#c77c00")
        self.width = (3.0 if residual else 1.6) * z
        self.setPen(QPen(self.colour, self.width, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        self.setBrush(Qt.NoBrush)
        self.setZValue(1 if residual else 0)
        head = QPolygonF([QPointF(0, 0), QPointF(-10 * z, -5 * z), QPointF(-10 * z, 5 * z)])
        self.arrow = QGraphicsPolygonItem(head, self)
        self.arrow.setPos(path.pointAtPercent(1.0))
        self.arrow.setRotation(-path.angleAtPercent(1.0))
        self.arrow.setPen(Qt.NoPen)
        self.arrow.setBrush(self.colour)
        self.label: QGraphicsSimpleTextItem | None = None
        self.label_box: QGraphicsRectItem | None = None
        self.label_at = QPointF(label_at)
        if label is not None:
            self.label_box = QGraphicsRectItem(self)
            self.label_box.setPen(Qt.NoPen)
            self.label_box.setBrush(palette.label_box)
            self.label_box.setZValue(3)
            self.label = QGraphicsSimpleTextItem(label, self.label_box)
            self.label.setFont(geometry.label)
            set_ink(self.label, palette.muted if not residual else self.colour)
            self.set_label(label, force=True)

    def set_label(self, label: str, force: bool = False) -> None:
        """Change the shape label in place, keeping it centred where it was."""
        if self.label is None or (self.label.text() == label and not force):
            return
        width, height = self.geometry.label_size(label)
        self.label_box.setRect(self.label_at.x() - width / 2, self.label_at.y() - height / 2, width, height)
        self.label.setText(label)
        place_text(self.label, self.label_box.rect())

    def label_rect(self) -> QRectF | None:
        return None if self.label_box is None else self.label_box.mapRectToScene(self.label_box.rect())

    def set_emphasis(self, emphasised: bool | None) -> None:
        """None: normal; True: stressed; False: dimmed."""
        fade(self, DIMMED if emphasised is False else 1.0)
        colour = self.emphasis_colour if emphasised else self.colour
        self.setPen(QPen(colour, self.width * (1.8 if emphasised else 1.0), Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        self.arrow.setBrush(colour)


class TokenItem(Rounded):
    """One token of the list beside the input; `index` may change (a long list scrolls)."""

    def __init__(self, index: int, text: str, width: float, height: float, geometry: Geometry, palette: Palette):
        super().__init__(QRectF(0, 0, width, height))
        self.index, self.palette, self.geometry = index, palette, geometry
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        self.text = centered_text(self, "", geometry.token, self.rect(), palette.ink)
        self._selected: bool | None = None
        self._full = None
        self.set_token(index, text)

    def set_token(self, index: int, text: str) -> None:
        """Show token `index` (a long token is elided; the tooltip has it whole)."""
        self.index = index
        if self._full == text:
            return
        self._full = text
        room = self.rect().width() - 8 * self.geometry.zoom
        bold = QFont(self.geometry.token)
        bold.setBold(True)                    # the selected token is bold: fit that
        shown = QFontMetricsF(bold).elidedText(text, Qt.ElideRight, room)
        self.setToolTip(plain_tooltip(text) if shown != text else "")
        self.text.setText(shown)
        place_text(self.text, self.rect())

    def set_selected(self, selected: bool) -> None:
        if self._selected == selected:
            return
        self._selected = selected
        accent = self.palette.accent
        self.setBrush(accent if selected else self.palette.token_fill)
        self.setPen(QPen(accent.darker(120) if selected else self.palette.node_border, 1.2 * self.geometry.zoom))
        set_ink(self.text, style.text_colour_on(accent) if selected else self.palette.ink)
        which = self.text.font()
        if which.bold() != selected:
            which.setBold(selected)
            self.text.setFont(which)
            place_text(self.text, self.rect())


class GapMarker(Rounded):
    """A "…" in the compact layout of presentation mode: the nodes left out between (or before,
    after) the ones a lesson step is about; its tooltip names them."""

    def __init__(self, name: str, hooks: list[str], tooltip: str, geometry: Geometry, palette: Palette):
        z = geometry.zoom
        super().__init__(QRectF(QPointF(0, 0), self.size(geometry)), radius=4.0 * z)
        self.name, self.hooks = name, list(hooks)            # the hooks it stands for
        self.setBrush(palette.background)
        self.setPen(QPen(palette.node_border, 1.2 * z, Qt.DashLine))
        self.setZValue(2)
        self.setToolTip(plain_tooltip(tooltip))
        self.text = centered_text(self, "…", geometry.header, self.rect(), palette.muted)

    @staticmethod
    def size(geometry: Geometry) -> QSizeF:
        return QSizeF(geometry.text_w("…", geometry.header) + 14 * geometry.zoom, geometry.cell_h + 2 * geometry.pad)

    def port_y(self) -> float:
        return self.pos().y() + self.rect().center().y()


class HeadChip(Rounded):
    def __init__(self, head: int, geometry: Geometry, palette: Palette):
        z = geometry.zoom
        label = str(head + 1)
        width = max(24 * z, geometry.text_w(label, geometry.header) + 10 * z)
        super().__init__(QRectF(0, 0, width, geometry.band_header - 3 * z), radius=4.0 * z)
        self.head, self.palette, self.geometry = head, palette, geometry
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        bold = QFont(geometry.header)
        bold.setBold(True)
        self.text = centered_text(self, label, bold, self.rect(), palette.accent)
        self._selected: bool | None = None

    def set_selected(self, selected: bool) -> None:
        if self._selected == selected:
            return
        self._selected = selected
        accent = self.palette.accent
        self.setBrush(accent if selected else self.palette.background)
        self.setPen(QPen(accent, 1.2 * self.geometry.zoom))
        set_ink(self.text, style.text_colour_on(accent) if selected else accent)
