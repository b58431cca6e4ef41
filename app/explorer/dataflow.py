"""The dataflow panel: the block drawn as it computes, one node per hook of the trace.

Two rows: the attention sub-layer above, the FFN sub-layer below (one row when attention
is off). Each node is one hook of `session.trace` and shows the selected token's values
(per-head hooks: the selected head's) as a vertical strip of tinted cells. Edges carry the
shape of the tensor that flows along them; residual bypasses run outside the sub-layer
bands. The scene is laid out only when the layout changes (which hooks exist and their
shapes, residual, norm placement, the tokens); every other update — a value, ε, the mask,
the activation, the norm kind — recolours and retexts the existing items.

Each node's colours use a steady symmetric limit: set from the trace when the layout is
built or a scenario is loaded, afterwards only widened when a value goes past it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsPathItem, QGraphicsPolygonItem, QGraphicsRectItem,
                               QGraphicsScene, QGraphicsSimpleTextItem, QGraphicsView, QWidget)

from app.widgets import style
from app.widgets.labels import activation_label
from app.session import Change, Session

# Hook names (DESIGN.md).
X, MID, OUT = "hook_resid_pre", "hook_resid_mid", "hook_resid_post"
Q, K, V = "attn.hook_q", "attn.hook_k", "attn.hook_v"
SCORES, PATTERN, Z, RESULT = "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "attn.hook_result"
ATTN_OUT = "hook_attn_out"
PRE, GATE, POST, MLP_OUT = "mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post", "hook_mlp_out"

STRIP_DECIMALS = 2          # the strip is a glance; the inspector shows all six decimals

# Scene geometry, in scene pixels. The view fits the scene to the viewport, so these set
# proportions: numbers stay ≥ 10 pt on screen at an 800×450 viewport.
CELL_W, CELL_H = 48.0, 20.0
PAD = 2.0
TITLE_H = 21.0
NODE_W = CELL_W + 2 * PAD
COL_GAP = 42.0               # room for an edge's shape label
PITCH = NODE_W + COL_GAP
STACK_GAP = 8.0              # between stacked nodes without an edge between them
STACK_GAP_EDGE = 26.0        # between stacked nodes joined by a vertical edge
TOKEN_H = 26.0
BAND_HEADER = 21.0           # a sub-layer band's caption above its nodes
BAND_PAD = 6.0
LANE = 14.0                  # distance of a routed edge from what it runs around

NUMBER_PX, TITLE_PX, LABEL_PX, TOKEN_PX, HEADER_PX = 16, 15, 12, 17, 14

INK = QColor("#222222")
EDGE_INK = QColor("#7a7a7a")
RESIDUAL_INK = QColor("#3d6fa8")      # the residual stream: blue, apart from the purple–orange heat map
ACCENT = QColor("#00897b")            # selection (teal)
GLOW = QColor(255, 193, 7, 150)       # lesson highlight (amber)
NODE_FILL = QColor("#fbfbfb")
NODE_BORDER = QColor("#9a9a9a")
DIMMED = 0.2


def _font(pixels: int, bold: bool = False) -> QFont:
    font = QFont()
    font.setPixelSize(pixels)
    font.setBold(bold)
    return font


def title_height(title: str) -> float:
    return TITLE_H + (TITLE_H - 4) * title.count("\n")


def shape_text(shape: Iterable[int]) -> str:
    return "×".join(str(n) for n in shape)


# --- the plan: which nodes go where, which edges join them (no Qt) ---------------------------

@dataclass(frozen=True)
class EdgeSpec:
    source: str
    target: str
    kind: str = "flow"        # flow | vertical (within a column) | below (around a row) | wrap | residual
    labelled: bool = True     # fan-outs label only one of their edges


@dataclass
class RowSpec:
    name: str                                   # "attention" | "ffn"
    columns: list[list[str]]
    band: list[str] = field(default_factory=list)  # the sub-layer's own nodes (the branch)


def _norm_cluster(prefix: str, edges: list[EdgeSpec]) -> list[list[str]]:
    hook_in, scale, normalized, out = (f"{prefix}.hook_{part}" for part in ("in", "scale", "normalized", "out"))
    edges += [EdgeSpec(hook_in, scale, labelled=False), EdgeSpec(hook_in, normalized),
              EdgeSpec(scale, normalized, "vertical"), EdgeSpec(normalized, out)]
    return [[hook_in], [scale, normalized], [out]]


def _pre_norm_entry(prefix: str, stream: str, columns: list[list[str]], band: list[str],
                    edges: list[EdgeSpec]) -> str:
    """Draw a pre-norm at a sub-layer's entry, on its branch; returns what the sub-layer reads."""
    cluster = _norm_cluster(prefix, edges)
    columns += cluster
    band += [hook for column in cluster for hook in column]
    edges.append(EdgeSpec(stream, f"{prefix}.hook_in"))
    return f"{prefix}.hook_out"


def plan(config) -> tuple[list[RowSpec], list[EdgeSpec]]:
    """Rows of columns of hooks, and the edges between them, for a block configuration."""
    edges: list[EdgeSpec] = []
    rows: list[RowSpec] = []
    pre_norm = config.pre_norm
    post_norm = config.post_norm

    if config.attention:
        columns: list[list[str]] = [[X]]
        band: list[str] = []
        source = _pre_norm_entry("ln1", X, columns, band, edges) if pre_norm else X
        # z sits under its W_O product so that V reaches it along the bottom of the row.
        columns += [[Q, K, V], [SCORES], [PATTERN], [RESULT, Z], [ATTN_OUT]]
        band += [Q, K, V, SCORES, PATTERN, RESULT, Z, ATTN_OUT]
        edges += [EdgeSpec(source, K), EdgeSpec(source, Q, labelled=False), EdgeSpec(source, V, labelled=False),
                  EdgeSpec(Q, SCORES), EdgeSpec(K, SCORES), EdgeSpec(SCORES, PATTERN), EdgeSpec(PATTERN, Z),
                  EdgeSpec(V, Z, "below"), EdgeSpec(Z, RESULT, "vertical"), EdgeSpec(RESULT, ATTN_OUT)]
        if post_norm:
            columns += _norm_cluster("ln1", edges)
            edges.append(EdgeSpec(ATTN_OUT, "ln1.hook_in"))
            if config.residual:
                edges.append(EdgeSpec(X, "ln1.hook_in", "residual"))
            edges.append(EdgeSpec("ln1.hook_out", MID, "wrap"))
        else:
            edges.append(EdgeSpec(ATTN_OUT, MID, "wrap"))
            if config.residual:
                edges.append(EdgeSpec(X, MID, "residual"))
        rows.append(RowSpec("attention", columns, band))
        columns = [[MID]]
    else:
        columns = [[X], [MID]]
        edges.append(EdgeSpec(X, MID))

    band = []
    source = _pre_norm_entry("ln2", MID, columns, band, edges) if pre_norm else MID
    columns.append([PRE, GATE] if config.gated else [PRE])
    columns += [[POST], [MLP_OUT]]
    band += [PRE, GATE, POST, MLP_OUT] if config.gated else [PRE, POST, MLP_OUT]
    edges += [EdgeSpec(source, PRE), EdgeSpec(PRE, POST), EdgeSpec(POST, MLP_OUT)]
    if config.gated:
        edges += [EdgeSpec(source, GATE, labelled=False), EdgeSpec(GATE, POST)]
    if post_norm:
        columns += _norm_cluster("ln2", edges)
        edges += [EdgeSpec(MLP_OUT, "ln2.hook_in"), EdgeSpec("ln2.hook_out", OUT)]
        if config.residual:
            edges.append(EdgeSpec(MID, "ln2.hook_in", "residual"))
    else:
        edges.append(EdgeSpec(MLP_OUT, OUT))
        if config.residual:
            edges.append(EdgeSpec(MID, OUT, "residual"))
    columns.append([OUT])
    rows.append(RowSpec("ffn", columns, band))
    return rows, edges


# --- scene items ---------------------------------------------------------------------------------

class _Rounded(QGraphicsPathItem):
    """A rectangle with rounded corners. (A path item rather than an overridden paint():
    PySide 6.12 leaks a reference to None on every Python paint() call.)"""

    def __init__(self, rect: QRectF, parent: QGraphicsItem | None = None, radius: float = 6.0):
        super().__init__(parent)
        self._rect = QRectF(rect)
        path = QPainterPath()
        path.addRoundedRect(self._rect, radius, radius)
        self.setPath(path)

    def rect(self) -> QRectF:
        return QRectF(self._rect)


def _centered_text(parent: QGraphicsItem, text: str, font: QFont, rect: QRectF, colour: QColor = INK,
                   ) -> QGraphicsSimpleTextItem:
    item = QGraphicsSimpleTextItem(text, parent)
    item.setFont(font)
    item.setBrush(colour)
    _place_text(item, rect)
    return item


def _place_text(item: QGraphicsSimpleTextItem, rect: QRectF) -> None:
    """Centre a text in rect, shrinking it if it would not fit."""
    bounds = item.boundingRect()
    room = rect.width() - 4
    scale = min(1.0, room / bounds.width()) if bounds.width() > 0 else 1.0
    if item.scale() != scale:
        item.setScale(scale)
    item.setPos(rect.center().x() - bounds.width() * scale / 2, rect.center().y() - bounds.height() * scale / 2)


class NodeItem(_Rounded):
    """One hook: a title and a vertical strip of value cells (the selected token's row)."""

    def __init__(self, hook: str, title: str, size: int, tooltip: str):
        self.title_h = title_height(title)
        super().__init__(QRectF(0, 0, NODE_W, self.title_h + size * CELL_H + 2 * PAD))
        self.hook = hook
        self.setBrush(NODE_FILL)
        self.setPen(QPen(NODE_BORDER, 1.2))
        self.setToolTip(tooltip)
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        self.glow = _Rounded(self.rect().adjusted(-5, -5, 5, 5), self)
        self.glow.setFlag(QGraphicsItem.ItemStacksBehindParent)
        self.glow.setPen(QPen(GLOW, 8))
        self.glow.setBrush(Qt.NoBrush)
        self.glow.setVisible(False)
        self.outline = _Rounded(self.rect().adjusted(-3, -3, 3, 3), self)     # the selection mark
        self.outline.setPen(QPen(ACCENT, 3.5))
        self.outline.setBrush(Qt.NoBrush)
        self.outline.setVisible(False)
        spare = (COL_GAP - 10) / 2         # a title may reach into the gaps, not into its neighbours' titles
        title_font = _font(TITLE_PX, bold=True)
        lines = title.split("\n")
        self.title_rects = [QRectF(-spare, 1 + k * (TITLE_H - 4), NODE_W + 2 * spare, TITLE_H - 2)
                            for k in range(len(lines))]
        self.title_lines = [_centered_text(self, line, title_font, rect)
                            for line, rect in zip(lines, self.title_rects)]
        self.cells: list[QGraphicsRectItem] = []
        self.texts: list[QGraphicsSimpleTextItem] = []
        number_font = _font(NUMBER_PX)
        for i in range(size):
            cell = QGraphicsRectItem(PAD, self.title_h + PAD + i * CELL_H, CELL_W, CELL_H, self)
            cell.setPen(QPen(QColor("#ffffff"), 1))
            self.cells.append(cell)
            text = QGraphicsSimpleTextItem("", cell)
            text.setFont(number_font)
            text.setBrush(INK)
            self.texts.append(text)

    def port_y(self) -> float:
        """Where horizontal edges meet the node: the middle of its strip."""
        return self.pos().y() + self.title_h + PAD + len(self.cells) * CELL_H / 2

    def set_values(self, values: np.ndarray, limit: float) -> None:
        for cell, text, value in zip(self.cells, self.texts, values):
            value = float(value)
            label = style.format_number(value, STRIP_DECIMALS)
            if text.text() != label:
                text.setText(label)
                _place_text(text, cell.rect())
            colour = style.tint(value, limit)
            if cell.brush().color() != colour:
                cell.setBrush(colour)
                ink = style.text_colour_on(colour)
                if text.brush().color() != ink:
                    text.setBrush(ink)

    @property
    def title(self) -> str:
        return "\n".join(line.text() for line in self.title_lines)

    def set_title(self, title: str) -> bool:
        """Change the title in place; False if it has another number of lines (needs a new layout)."""
        lines = title.split("\n")
        if len(lines) != len(self.title_lines):
            return False
        for item, line, rect in zip(self.title_lines, lines, self.title_rects):
            if item.text() != line:
                item.setText(line)
                _place_text(item, rect)
        return True

    def set_selected(self, selected: bool) -> None:
        if getattr(self, "_selected", None) == selected:     # touch Qt only on a change
            return
        self._selected = selected
        self.outline.setVisible(selected)
        for line in self.title_lines:
            line.setBrush(ACCENT.darker(115) if selected else INK)


class EdgeItem(QGraphicsPathItem):
    """A curve from one node to another with an arrowhead and, optionally, a shape label."""

    def __init__(self, spec: EdgeSpec, path: QPainterPath, label: str | None, label_at: QPointF):
        super().__init__(path)
        self.spec = spec
        residual = spec.kind == "residual"
        self.colour = RESIDUAL_INK if residual else EDGE_INK
        self.width = 3.0 if residual else 1.6
        self.setPen(QPen(self.colour, self.width, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        self.setBrush(Qt.NoBrush)
        self.setZValue(1 if residual else 0)
        end = path.pointAtPercent(1.0)
        angle = path.angleAtPercent(1.0)
        head = QPolygonF([QPointF(0, 0), QPointF(-10, -5), QPointF(-10, 5)])
        self.arrow = QGraphicsPolygonItem(head, self)
        self.arrow.setPos(end)
        self.arrow.setRotation(-angle)
        self.arrow.setPen(Qt.NoPen)
        self.arrow.setBrush(self.colour)
        self.label: QGraphicsSimpleTextItem | None = None
        self.label_at = QPointF(label_at)
        if label is not None:
            box = QGraphicsRectItem(self)
            box.setPen(Qt.NoPen)
            box.setBrush(QColor(255, 255, 255, 225))
            self.label = QGraphicsSimpleTextItem(label, box)
            self.label.setFont(_font(LABEL_PX))
            self.label.setBrush(self.colour.darker(130))
            self.set_label(label, force=True)

    def set_label(self, label: str, force: bool = False) -> None:
        """Change the shape label in place, keeping it centred where it was."""
        if self.label is None or (self.label.text() == label and not force):
            return
        metrics = QFontMetricsF(self.label.font())
        width, height = metrics.horizontalAdvance(label) + 6, metrics.height() + 1
        box = self.label.parentItem()
        box.setRect(self.label_at.x() - width / 2, self.label_at.y() - height / 2, width, height)
        self.label.setText(label)
        _place_text(self.label, box.rect())

    def set_emphasis(self, emphasised: bool | None) -> None:
        """None: normal; True: stressed; False: dimmed."""
        self.setOpacity(DIMMED if emphasised is False else 1.0)
        colour = QColor("#c77c00") if emphasised else self.colour
        self.setPen(QPen(colour, self.width * (1.8 if emphasised else 1.0), Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        self.arrow.setBrush(colour)


class TokenItem(_Rounded):
    def __init__(self, index: int, text: str, width: float):
        super().__init__(QRectF(0, 0, width, TOKEN_H - 4))
        self.index = index
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        self.text = _centered_text(self, text, _font(TOKEN_PX), self.rect())

    def set_token(self, text: str) -> None:
        if self.text.text() != text:
            self.text.setText(text)
            _place_text(self.text, self.rect())

    def set_selected(self, selected: bool) -> None:
        if getattr(self, "_selected", None) == selected:
            return
        self._selected = selected
        self.setBrush(ACCENT if selected else QColor("#f2f2f2"))
        self.setPen(QPen(ACCENT.darker(120) if selected else QColor("#c8c8c8"), 1.2))
        self.text.setBrush(QColor("#ffffff") if selected else INK)
        font = self.text.font()
        if font.bold() != selected:
            font.setBold(selected)
            self.text.setFont(font)
            _place_text(self.text, self.rect())


class HeadChip(_Rounded):
    def __init__(self, head: int):
        super().__init__(QRectF(0, 0, 24, 20), radius=4.0)
        self.head = head
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)
        self.text = _centered_text(self, str(head + 1), _font(HEADER_PX, bold=True), self.rect())

    def set_selected(self, selected: bool) -> None:
        if getattr(self, "_selected", None) == selected:
            return
        self._selected = selected
        self.setBrush(ACCENT if selected else QColor("#ffffff"))
        self.setPen(QPen(ACCENT, 1.2))
        self.text.setBrush(QColor("#ffffff") if selected else ACCENT)


def _polyline(points: list[QPointF], radius: float = 10.0) -> QPainterPath:
    """An orthogonal route through points, with rounded corners."""
    path = QPainterPath(points[0])
    for before, corner, after in zip(points, points[1:], points[2:]):
        def toward(a: QPointF, b: QPointF) -> QPointF:
            dx, dy = b.x() - a.x(), b.y() - a.y()
            length = max(1e-9, (dx * dx + dy * dy) ** 0.5)
            r = min(radius, length / 2)
            return QPointF(a.x() + dx / length * r, a.y() + dy / length * r)
        path.lineTo(toward(corner, before))
        path.quadTo(corner, toward(corner, after))
    path.lineTo(points[-1])
    return path


def _s_curve(start: QPointF, end: QPointF) -> QPainterPath:
    path = QPainterPath(start)
    bend = max(12.0, (end.x() - start.x()) / 2)
    path.cubicTo(QPointF(start.x() + bend, start.y()), QPointF(end.x() - bend, end.y()), end)
    return path


# --- the view ------------------------------------------------------------------------------------

class DataflowView(QGraphicsView):
    """The block's dataflow diagram: shows a DataflowScene, fits and zooms it, and turns clicks
    into selections; reads the session, writes only selections to it."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("dataflowView")
        self.session = session
        self.flow = DataflowScene(session, self)
        self.setScene(self.flow)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#ffffff"))
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMinimumSize(320, 200)
        self.setViewportUpdateMode(QGraphicsView.MinimalViewportUpdate)

        self._user_zoomed = False

        session.changed.connect(self._on_changed)
        self._on_trace_changed()

    # --- public API (what is drawn is the scene's: see DataflowScene) ----------------------
    def node_names(self) -> list[str]:
        return self.flow.node_names()

    def node_rect(self, hook: str) -> QRectF:
        return self.flow.node_rect(hook)

    def node_item(self, hook: str) -> NodeItem:
        return self.flow.node_item(hook)

    def node_title(self, hook: str) -> str:
        return self.flow.node_title(hook)

    def node_texts(self, hook: str) -> list[str]:
        return self.flow.node_texts(hook)

    def node_limit(self, hook: str) -> float:
        return self.flow.node_limit(hook)

    def token_rect(self, index: int) -> QRectF:
        return self.flow.token_rect(index)

    def edges(self) -> list[tuple[str, str, str, str | None]]:
        return self.flow.edges()

    def highlighted(self) -> set[str] | None:
        return self.flow.highlighted()

    def set_highlight(self, hooks: set[str] | None) -> None:
        self.flow.set_highlight(hooks)

    def zoom_in(self) -> None:
        self._zoom(1.25)

    def zoom_out(self) -> None:
        self._zoom(1 / 1.25)

    def fit_to_window(self) -> None:
        """Show the whole block, as large as the viewport allows."""
        self._user_zoomed = False
        rect = self.scene().sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect, Qt.KeepAspectRatio)

    # --- updates -----------------------------------------------------------------------------
    def _on_changed(self, change: Change) -> None:
        if change & Change.LOADED:
            self.flow.forget_limits()         # a new scenario: limits from its trace
        if change & Change.TRACE:
            self._on_trace_changed()
        elif change & Change.SELECTION:
            self.flow.sync_selection()
        if change & Change.HIGHLIGHT:
            hooks = self.session.highlight.hooks
            self.set_highlight(set(hooks) if hooks else None)

    def _on_trace_changed(self) -> None:
        if self.flow.sync_trace():            # laid out anew
            self.fit_to_window()

    # --- interaction -------------------------------------------------------------------------
    def _zoom(self, factor: float) -> None:
        current = self.transform().m11()
        fit = self._fit_scale()
        target = max(fit * 0.5, min(current * factor, max(fit, 0.01) * 8))
        if current > 0:
            self.scale(target / current, target / current)
        self._user_zoomed = True

    def _fit_scale(self) -> float:
        rect = self.scene().sceneRect()
        viewport = self.viewport().rect()
        if rect.isEmpty() or viewport.isEmpty():
            return 1.0
        return min(viewport.width() / rect.width(), viewport.height() / rect.height())

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        steps = event.angleDelta().y() / 120
        if steps:
            self._zoom(1.15 ** steps)
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.modifiers() & Qt.ControlModifier:
            if event.key() in (Qt.Key_Equal, Qt.Key_Plus):
                self.zoom_in()
                return
            if event.key() == Qt.Key_Minus:
                self.zoom_out()
                return
            if event.key() == Qt.Key_0:
                self.fit_to_window()
                return
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.LeftButton:
            for item in self.items(event.position().toPoint()):
                # Cells and captions belong to a clickable item further up.
                while not isinstance(item, (NodeItem, TokenItem, HeadChip)) and item.parentItem() is not None:
                    item = item.parentItem()
                if isinstance(item, NodeItem):
                    self.session.select(hook=item.hook)
                elif isinstance(item, TokenItem):
                    self.session.select(token=item.index)
                elif isinstance(item, HeadChip):
                    self.session.select(head=item.head)
                else:
                    continue
                event.accept()
                return
        super().mousePressEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if not self._user_zoomed:
            self.fit_to_window()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._user_zoomed:
            self.fit_to_window()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.LanguageChange:
            self.flow.forget_layout()       # titles are part of the layout: draw again
            self._on_trace_changed()


# --- the scene -----------------------------------------------------------------------------------

class DataflowScene(QGraphicsScene):
    """The drawing of the block: its nodes, edges, tokens and head chips, built from the session's
    trace when the layout changes and otherwise retexted and recoloured in place (see the module
    doc). Zoom, fit and clicks are the view's (DataflowView)."""

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("dataflowScene")
        self.session = session
        self._structure: object = None
        self._texts_for: object = None          # (config, language generation) the titles were written for
        self._limits: dict[str, float] = {}     # hook → colour limit (steady: see the module doc)
        self._highlight: set[str] | None = None
        self._nodes: dict[str, NodeItem] = {}
        self._edges: list[EdgeItem] = []
        self._tokens: list[TokenItem] = []
        self._heads: list[HeadChip] = []
        self._token_link: QGraphicsPathItem | None = None

    # --- public API ------------------------------------------------------------------------
    def node_names(self) -> list[str]:
        """The hooks drawn, in trace order."""
        return list(self._nodes)

    def node_rect(self, hook: str) -> QRectF:
        """A node's rectangle in scene coordinates."""
        node = self._nodes[hook]
        return node.mapRectToScene(node.rect())

    def node_item(self, hook: str) -> NodeItem:
        return self._nodes[hook]

    def node_title(self, hook: str) -> str:
        return self._nodes[hook].title

    def node_texts(self, hook: str) -> list[str]:
        """The numbers a node's strip shows, top to bottom."""
        return [text.text() for text in self._nodes[hook].texts]

    def node_limit(self, hook: str) -> float:
        """The symmetric colour limit of a node's strip (values are tinted on ±limit)."""
        return self._limits[hook]

    def token_rect(self, index: int) -> QRectF:
        item = self._tokens[index]
        return item.mapRectToScene(item.rect())

    def edges(self) -> list[tuple[str, str, str, str | None]]:
        """(source hook, target hook, kind, shape label or None) for every edge drawn."""
        return [(e.spec.source, e.spec.target, e.spec.kind, e.label.text() if e.label else None) for e in self._edges]

    def highlighted(self) -> set[str] | None:
        """The hooks now emphasised (None: nothing dimmed)."""
        return None if self._highlight is None else set(self._highlight)

    def set_highlight(self, hooks: set[str] | None) -> None:
        """Emphasise these nodes and the edges between them, dim everything else; None clears."""
        self._highlight = None if hooks is None else set(hooks)
        self._apply_highlight()

    # --- updates -----------------------------------------------------------------------------
    def _layout_key(self) -> tuple:
        """What the layout depends on: the hooks and their shapes (attention, norms, gating, heads,
        T and every width), the residual edges, the norm placement and the tokens' texts."""
        session = self.session
        config = session.config
        shapes = tuple((hook, array.shape) for hook, array in session.trace.items())
        return shapes, config.residual, config.has_norm and config.norm_placement, session.tokens

    def forget_limits(self) -> None:
        """A new scenario: colour limits are taken afresh from its trace."""
        self._limits.clear()

    def forget_layout(self) -> None:
        """Lay out anew at the next sync_trace (titles are part of the layout: a new language)."""
        self._structure = None

    def sync_trace(self) -> bool:
        """Bring the drawing to the session's trace: laid out anew when the layout changed (or a
        title its number of lines), else retexted and recoloured in place. True if laid out anew."""
        structure = self._layout_key()
        rebuilt = False
        if structure != self._structure:
            if self._structure is not None:   # None: first build, or a new language (same numbers)
                self._limits.clear()          # a new layout: limits from this trace
            self._structure = structure
            self._rebuild()
            rebuilt = True
        elif self._texts_for != self.session.config and not self._update_texts():
            self._rebuild()                  # a title changed its number of lines
            rebuilt = True
        self._refresh_values(check_limits=True)
        self._refresh_selection()
        return rebuilt

    def sync_selection(self) -> None:
        self._refresh_values()
        self._refresh_selection()

    def _update_texts(self) -> bool:
        """Titles, tooltips and shape labels for the current config, on the existing items;
        False if a title needs a new layout."""
        titles = self._titles()
        for hook, node in self._nodes.items():
            if not node.set_title(titles[hook]):
                return False
            tooltip = self._tooltip(hook)
            if node.toolTip() != tooltip:
                node.setToolTip(tooltip)
        trace = self.session.trace
        for edge in self._edges:
            if edge.label is not None:
                edge.set_label(shape_text(trace[edge.spec.source].shape))
        self._texts_for = self.session.config
        return True

    def _head(self) -> int:
        trace = self.session.trace
        if Q not in trace:
            return 0
        return max(0, min(self.session.selected_head, trace[Q].shape[0] - 1))

    def _token(self) -> int:
        return max(0, min(self.session.selected_token, len(self.session.tokens) - 1))

    def _refresh_values(self, check_limits: bool = False) -> None:
        """The selected token's (and head's) numbers and tints. With check_limits (after an edit),
        a limit is widened — never narrowed — when a value goes past it."""
        trace, token, head = self.session.trace, self._token(), self._head()
        limits = self._limits
        for hook, node in self._nodes.items():
            array = trace[hook]
            if check_limits or hook not in limits:
                needed = style.limit_for(array)
                if needed > limits.get(hook, 0.0):
                    limits[hook] = needed
            row = array[head, token] if array.ndim == 3 else array[token]
            node.set_values(row, limits[hook])
        for item, text in zip(self._tokens, self.session.tokens):
            item.set_token(text)

    def _refresh_selection(self) -> None:
        selected_hook, token, head = self.session.selected_hook, self._token(), self._head()
        for hook, node in self._nodes.items():
            node.set_selected(hook == selected_hook)
        for item in self._tokens:
            item.set_selected(item.index == token)
        for chip in self._heads:
            chip.set_selected(chip.head == head)
        if self._token_link is not None and self._tokens and X in self._nodes:
            start = self.token_rect(token)
            x_node = self._nodes[X]
            end = QPointF(x_node.pos().x(), x_node.port_y())
            self._token_link.setPath(_s_curve(QPointF(start.right(), start.center().y()), end))

    def _apply_highlight(self) -> None:
        chosen = self._highlight
        for hook, node in self._nodes.items():
            on = chosen is None or hook in chosen
            node.setOpacity(1.0 if on else DIMMED)
            node.glow.setVisible(chosen is not None and on)
        for edge in self._edges:
            if chosen is None:
                edge.set_emphasis(None)
            else:
                edge.set_emphasis(edge.spec.source in chosen and edge.spec.target in chosen)

    # --- titles ------------------------------------------------------------------------------
    def _titles(self) -> dict[str, str]:
        config = self.session.config
        post_norm = config.post_norm
        residual = config.residual
        scale = "σ" if config.norm == "layernorm" else "rms"
        normalized = "(x−μ)/σ" if config.norm == "layernorm" else "x/rms"
        act = activation_label(config.activation, "symbol")
        titles = {
            X: self.tr("input x"),
            Q: "Q", K: "K", V: "V",
            SCORES: self.tr("scores"), PATTERN: self.tr("pattern"), Z: "z",
            RESULT: "z·W_O", ATTN_OUT: self.tr("attn out"),
            PRE: self.tr("W_in · pre"), GATE: self.tr("W_g · gate"),
            POST: self.tr("%1 · post").replace("%1", act), MLP_OUT: "f = W_out",
        }
        for number, prefix, summed in ((1, "ln1", "x + a"), (2, "ln2", "m + f")):
            name = f"LN{number}"
            titles[f"{prefix}.hook_in"] = summed if post_norm and residual else self.tr("%1 in").replace("%1", name)
            titles[f"{prefix}.hook_scale"] = scale
            titles[f"{prefix}.hook_normalized"] = normalized
            titles[f"{prefix}.hook_out"] = name
        if not config.attention:
            titles[MID] = self.tr("mid")
        elif post_norm or not residual:
            titles[MID] = self.tr("mid")
        else:
            titles[MID] = "x + a"
        titles[OUT] = self.tr("output") if post_norm or not residual else self.tr("output\nm + f")
        return titles

    def _tooltip(self, hook: str) -> str:
        return self.tr("%1 — shape %2").replace("%1", hook).replace("%2", shape_text(self.session.trace[hook].shape))

    # --- layout ------------------------------------------------------------------------------
    def _rebuild(self) -> None:
        scene = self
        scene.clear()
        self._nodes, self._edges, self._tokens, self._heads = {}, [], [], []
        self._token_link = None
        trace, config, tokens = self.session.trace, self.session.config, self.session.tokens
        rows, edge_specs = plan(config)
        titles = self._titles()
        self._texts_for = config

        token_font = _font(TOKEN_PX)
        metrics = QFontMetricsF(token_font)
        token_w = min(140.0, max([64.0] + [metrics.horizontalAdvance(t) + 16 for t in tokens]))
        left = 10 + token_w + 34

        # Nodes, row by row, column by column; each column centred on its row.
        nodes: dict[str, NodeItem] = {}
        row_of: dict[str, int] = {}
        vertical_pairs = {(e.source, e.target) for e in edge_specs if e.kind == "vertical"}
        vertical_pairs |= {(b, a) for a, b in vertical_pairs}
        below_lanes: dict[tuple[str, str], float] = {}
        row_bounds: list[tuple[float, float]] = []
        y = 2 * LANE + BAND_HEADER + 4          # room for a residual lane above the first band
        for r, row in enumerate(rows):
            heights = []
            for column in row.columns:
                gaps = [STACK_GAP_EDGE if (a, b) in vertical_pairs else STACK_GAP for a, b in zip(column, column[1:])]
                heights.append(sum(title_height(titles[h]) + trace[h].shape[-1] * CELL_H + 2 * PAD for h in column)
                               + sum(gaps))
            row_height = max(heights)
            for c, column in enumerate(row.columns):
                top = y + (row_height - heights[c]) / 2
                for i, hook in enumerate(column):
                    node = NodeItem(hook, titles[hook], trace[hook].shape[-1], self._tooltip(hook))
                    node.setPos(left + c * PITCH, top)
                    scene.addItem(node)
                    nodes[hook], row_of[hook] = node, r
                    if i + 1 < len(column):
                        top += node.rect().height() + (STACK_GAP_EDGE if (hook, column[i + 1]) in vertical_pairs
                                                       else STACK_GAP)
            bottom = y + row_height
            # An edge routed under its row (V → z) may need the row to be deeper.
            row_nodes = {hook: nodes[hook] for hook in nodes if row_of[hook] == r}
            for spec in edge_specs:
                if spec.kind == "below" and spec.source in row_nodes and spec.target in row_nodes:
                    lane = _below_lane(spec, row_nodes)
                    below_lanes[(spec.source, spec.target)] = lane
                    bottom = max(bottom, lane + 4)
            row_bounds.append((y, bottom))
            y = bottom + BAND_PAD + 2 * LANE + BAND_HEADER + 4     # band, wrap lane, next band's caption
        self._nodes = {hook: nodes[hook] for hook in trace if hook in nodes}

        # Sub-layer bands with their captions (and the head chips on the attention band).
        for r, row in enumerate(rows):
            hooks = [hook for hook in row.band if hook in nodes]
            if not hooks:
                continue
            rect = QRectF()
            for hook in hooks:
                rect = rect.united(self.node_rect(hook))
            rect.setTop(row_bounds[r][0])
            rect.setBottom(row_bounds[r][1])
            rect.adjust(-14, -BAND_HEADER - 4, 14, BAND_PAD)
            band = _Rounded(rect, radius=10.0)
            attention = row.name == "attention"
            band.setBrush(QColor("#eef2f8") if attention else QColor("#f7f2ea"))
            band.setPen(QPen(QColor("#d5dbe5") if attention else QColor("#e6dccb"), 1))
            band.setZValue(-2)
            scene.addItem(band)
            caption = self.tr("attention sub-layer · head") if attention else self.tr("FFN sub-layer")
            text = QGraphicsSimpleTextItem(caption, band)
            text.setFont(_font(HEADER_PX))
            text.setBrush(QColor("#555555"))
            text.setPos(rect.left() + 10, rect.top() + (BAND_HEADER - text.boundingRect().height()) / 2 + 1)
            if attention:
                x = rect.left() + 10 + text.boundingRect().width() + 8
                for h in range(trace[Q].shape[0]):
                    chip = HeadChip(h)
                    chip.setPos(x + h * 28, rect.top() + 2)
                    scene.addItem(chip)
                    self._heads.append(chip)

        # Edges.
        for spec in edge_specs:
            if spec.source in nodes and spec.target in nodes:
                label = shape_text(self.session.trace[spec.source].shape) if spec.labelled else None
                edge = _route_edge(spec, label, nodes, row_of, row_bounds, rows, below_lanes)
                scene.addItem(edge)
                self._edges.append(edge)

        # Tokens, centred on the input node.
        x_node = nodes[X]
        column_height = len(tokens) * TOKEN_H
        top = max(BAND_HEADER + LANE, x_node.port_y() - column_height / 2)
        header = QGraphicsSimpleTextItem(self.tr("tokens"))
        header.setFont(_font(HEADER_PX))
        header.setBrush(QColor("#555555"))
        header.setPos(10 + token_w / 2 - header.boundingRect().width() / 2, top - 22)
        scene.addItem(header)
        for i, text in enumerate(tokens):
            item = TokenItem(i, text, token_w)
            item.setPos(10, top + i * TOKEN_H)
            scene.addItem(item)
            self._tokens.append(item)
        self._token_link = QGraphicsPathItem()
        self._token_link.setPen(QPen(ACCENT, 2, Qt.DashLine))
        self._token_link.setZValue(1)
        scene.addItem(self._token_link)

        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-6, -6, 6, 6))
        self._apply_highlight()


# --- edge routing: geometry only, from where the nodes were placed ------------------------------

def _below_lane(spec: EdgeSpec, nodes: dict[str, NodeItem]) -> float:
    """The height at which an edge can pass under every node between its ends."""
    source, target = nodes[spec.source], nodes[spec.target]
    left, right = source.pos().x() + NODE_W, target.pos().x()
    between = [n.pos().y() + n.rect().height() for n in nodes.values() if left < n.pos().x() < right]
    return max([source.port_y(), target.port_y()] + [b + LANE for b in between])


def _route_edge(spec: EdgeSpec, label: str | None, nodes: dict[str, NodeItem], row_of: dict[str, int],
                row_bounds: list[tuple[float, float]], rows: list[RowSpec],
                below_lanes: dict[tuple[str, str], float]) -> EdgeItem:
    """The edge `spec` between two placed nodes, routed by its kind, its label beside it."""
    source, target = nodes[spec.source], nodes[spec.target]
    s, t = source.mapRectToScene(source.rect()), target.mapRectToScene(target.rect())
    label_w = QFontMetricsF(_font(LABEL_PX)).horizontalAdvance(label or "") + 6
    label_h = QFontMetricsF(_font(LABEL_PX)).height()
    beside = label_w / 2 + 5                       # label centre offset from a vertical line
    if spec.kind == "vertical":
        if s.center().y() < t.center().y():
            start, end = QPointF(s.center().x(), s.bottom()), QPointF(t.center().x(), t.top())
        else:
            start, end = QPointF(s.center().x(), s.top()), QPointF(t.center().x(), t.bottom())
        path = _polyline([start, end])
        at = QPointF(start.x(), (start.y() + end.y()) / 2)     # on the line: the gap is short
    elif spec.kind == "below":
        start, end = QPointF(s.right(), source.port_y()), QPointF(t.left(), target.port_y())
        lane = below_lanes[(spec.source, spec.target)]
        if lane <= max(start.y(), end.y()) + 1:
            path = _s_curve(start, end)
        else:
            half = COL_GAP / 2
            path = QPainterPath(start)
            path.cubicTo(QPointF(start.x() + half, start.y()), QPointF(start.x() + half, lane),
                         QPointF(start.x() + COL_GAP, lane))
            path.lineTo(QPointF(end.x() - COL_GAP, lane))
            path.cubicTo(QPointF(end.x() - half, lane), QPointF(end.x() - half, end.y()), end)
        at = QPointF(start.x() + PITCH, path.pointAtPercent(0.5).y() + label_h / 2 + 1)
    elif spec.kind == "wrap":
        # Carriage return from the end of the attention row to the start of the FFN row.
        start = QPointF(s.center().x(), s.bottom())
        end = QPointF(t.left() + t.width() * 0.7, t.top())
        lane = row_bounds[row_of[spec.source]][1] + BAND_PAD + LANE
        path = _polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
        at = QPointF(start.x() - beside - 2, (start.y() + lane) / 2)
    elif spec.kind == "residual":
        if row_of[spec.source] != row_of[spec.target]:
            # From x straight down to the stream entering the FFN sub-layer.
            start = QPointF(s.left() + s.width() * 0.3, s.bottom())
            end = QPointF(start.x(), t.top())
            path = _polyline([start, end])
            at = QPointF(start.x() - beside, (start.y() + end.y()) / 2)
        elif rows[row_of[spec.source]].name == "attention":
            lane = row_bounds[row_of[spec.source]][0] - BAND_HEADER - 4 - LANE
            start, end = QPointF(s.center().x(), s.top()), QPointF(t.center().x(), t.top())
            path = _polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
            at = QPointF(start.x() - beside, (start.y() + lane) / 2)
        else:
            lane = row_bounds[row_of[spec.source]][1] + BAND_PAD + LANE
            start, end = QPointF(s.center().x(), s.bottom()), QPointF(t.center().x(), t.bottom())
            path = _polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
            at = QPointF(start.x() - beside, (start.y() + lane) / 2)
    else:
        start, end = QPointF(s.right(), source.port_y()), QPointF(t.left(), target.port_y())
        path = _s_curve(start, end)
        middle = path.pointAtPercent(0.5)
        at = QPointF(middle.x(), middle.y() - label_h / 2 - 1)
    return EdgeItem(spec, path, label, at)
