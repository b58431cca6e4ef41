"""Laying out the block diagram: nodes in rows and columns, sub-layer bands, edges, tokens.

`build(scene, spec)` fills an empty scene and returns a Layout holding every item it made; the
scene keeps the Layout and updates its items in place until the layout changes again.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QGraphicsSimpleTextItem

from app.explorer.dataflow_items import EdgeItem, GapMarker, HeadChip, NodeBase, NumberNode, Rounded, TokenItem
from app.explorer.dataflow_plan import Q, X, EdgeSpec, compact, plan, reading_order
from app.explorer.dataflow_route import below_lanes, route_edge
from app.explorer.dataflow_strip import StripNode
from app.explorer.dataflow_style import NUMBERS_MAX, Geometry, Palette, set_ink, tr

TOKEN_ROWS = NUMBERS_MAX      # a longer token list shows a window of this many around the selected one


def shape_text(shape) -> str:
    return "×".join(str(n) for n in shape)


@dataclass
class LayoutSpec:
    """What a layout is built from."""
    config: object
    trace: object
    tokens: tuple[str, ...]
    titles: dict[str, str]
    tooltip: Callable[[str], str]
    strips: set[str]                    # the hooks drawn as heatmaps
    geometry: Geometry
    palette: Palette
    labels: bool = True                 # shape labels on the edges (not in presentation mode)
    compact: frozenset | None = None    # only these hooks, side by side, "…" for the rest (presentation)
    stacked: bool = True                # the compact layout keeps a column's hooks stacked


@dataclass
class Layout:
    nodes: dict[str, NodeBase] = field(default_factory=dict)      # in trace order
    order: list[str] = field(default_factory=list)                # reading order (spotlight numbers)
    edges: list[EdgeItem] = field(default_factory=list)
    tokens: list[TokenItem] = field(default_factory=list)
    heads: list[HeadChip] = field(default_factory=list)
    bands: list[tuple[Rounded, QGraphicsSimpleTextItem, str]] = field(default_factory=list)   # band, caption, row
    token_header: QGraphicsSimpleTextItem | None = None
    token_link: QGraphicsPathItem | None = None
    token_count: int = 0
    lanes: dict[tuple[str, str], float] = field(default_factory=dict)    # edges routed under their row
    gaps: dict[str, GapMarker] = field(default_factory=dict)             # the compact layout's "…" markers
    compact: tuple[frozenset, bool] | None = None                        # its hooks and stacking, or None


def _node(hook: str, spec: LayoutSpec) -> NodeBase:
    array, g = spec.trace[hook], spec.geometry
    if hook in spec.strips:
        tokens, channels = array.shape[-2], array.shape[-1]
        return StripNode(hook, spec.titles[hook], tokens, channels, shape_text(array.shape[-2:]), g, spec.palette,
                         spec.tooltip(hook))
    return NumberNode(hook, spec.titles[hook], array.shape[-1], g, spec.palette, spec.tooltip(hook))


def band_caption(row: str) -> str:
    return tr("attention sub-layer · head") if row == "attention" else tr("FFN sub-layer")


def token_caption(count: int, start: int) -> str:
    if count <= TOKEN_ROWS:
        return tr("tokens")
    return (tr("tokens %1–%2 of %3").replace("%1", str(start + 1)).replace("%2", str(start + TOKEN_ROWS))
            .replace("%3", str(count)))


def token_window(count: int, selected: int) -> int:
    """The first token the list shows: the selected one, with three before it where possible."""
    return max(0, min(selected - 3, count - TOKEN_ROWS)) if count > TOKEN_ROWS else 0


def build(scene: QGraphicsScene, spec: LayoutSpec, selected_token: int) -> Layout:
    g, palette, trace, tokens = spec.geometry, spec.palette, spec.trace, spec.tokens
    z = g.zoom
    layout = Layout(compact=None if spec.compact is None else (spec.compact, spec.stacked))
    rows, edge_specs = plan(spec.config, trace)
    left_out: dict[str, list[str]] = {}          # the compact layout's markers and the hooks they stand for
    if spec.compact is not None:
        rows, edge_specs, left_out = compact(rows, edge_specs, spec.compact, spec.stacked)
    layout.order = [hook for hook in reading_order(rows) if hook not in left_out]
    layout.gaps = {name: GapMarker(name, hidden, gap_tooltip([spec.titles[hook] for hook in hidden]), g, palette)
                   for name, hidden in left_out.items()}
    nodes: dict[str, NodeBase | GapMarker] = {hook: _node(hook, spec) for hook in layout.order}
    nodes.update(layout.gaps)
    column_of = {hook: (r, c) for r, row in enumerate(rows) for c, column in enumerate(row.columns) for hook in column}

    listed = X in nodes                 # the token list sits beside the input node
    token_w = min(140 * z, max([52 * z] + [g.text_w(t, g.token) + 18 * z for t in tokens]))
    token_w = max(token_w, g.text_w(token_caption(len(tokens), len(tokens) - TOKEN_ROWS), g.header) + 4 * z)
    left = 6 * z + (token_w + 20 * z if listed else 0)

    row_of: dict[str, int] = {}
    vertical = {(e.source, e.target) for e in edge_specs if e.kind == "vertical"}
    vertical |= {(b, a) for a, b in vertical}
    row_bounds: list[tuple[float, float]] = []
    # Room for the first band's caption, and above it for a residual lane if one runs there.
    first_row = {hook for column in rows[0].columns for hook in column}
    above = any(e.kind == "residual" and e.source in first_row and e.target in first_row for e in edge_specs)
    y = (g.lane + 6 * z if above else 6 * z) + g.band_header + 4 * z
    for r, row in enumerate(rows):
        heights, widths = [], []
        for column in row.columns:
            gaps = [g.stack_gap_edge if (a, b) in vertical else g.stack_gap for a, b in zip(column, column[1:])]
            heights.append(sum(nodes[h].rect().height() for h in column) + sum(gaps))
            widths.append(max(nodes[h].rect().width() for h in column))
        row_height = max(heights)
        # Each gap fits the shape labels of the edges that cross it.
        gaps = [g.col_gap] * len(row.columns)
        for e in edge_specs:
            if e.kind == "flow" and _labelled(e, nodes, spec) and column_of[e.source][0] == r:
                c = column_of[e.source][1]
                gaps[c] = max(gaps[c], g.label_size(shape_text(trace[e.source].shape))[0] + 5 * z)
        x = left
        for c, column in enumerate(row.columns):
            top = y + (row_height - heights[c]) / 2
            for i, hook in enumerate(column):
                node = nodes[hook]
                node.setPos(x + (widths[c] - node.rect().width()) / 2, top)
                scene.addItem(node)
                row_of[hook] = r
                if i + 1 < len(column):
                    joined = (hook, column[i + 1]) in vertical
                    top += node.rect().height() + (g.stack_gap_edge if joined else g.stack_gap)
            x += widths[c] + gaps[c]
        row_bounds.append((y, y + row_height))
        y = y + row_height
        # Edges routed under the row may need it deeper.
        row_nodes = {hook: nodes[hook] for hook in nodes if row_of.get(hook) == r}
        below = [e for e in edge_specs if e.kind == "below" and e.source in row_nodes and e.target in row_nodes]
        lanes = below_lanes(below, row_nodes, g)
        layout.lanes.update(lanes)
        label_h = g.label_size("0")[1]
        bottom = max([y] + [lane + (label_h if e.labelled else 0) + 6 * z
                            for e in below for lane in (lanes[(e.source, e.target)],)])
        row_bounds[-1] = (row_bounds[-1][0], bottom)
        y = bottom + g.band_pad + g.lane + 6 * z + g.band_header + 4 * z     # band, wrap lane, next caption
    layout.nodes = {hook: nodes[hook] for hook in trace if hook in nodes and hook not in left_out}

    _bands(scene, layout, rows, nodes, row_bounds, trace, g, palette)
    for e in edge_specs:
        label = shape_text(trace[e.source].shape) if _labelled(e, nodes, spec) else None
        edge = route_edge(e, label, nodes, row_of, row_bounds, rows, layout.lanes, g, palette)
        scene.addItem(edge)
        layout.edges.append(edge)
    if listed:
        _tokens(scene, layout, nodes[X], tokens, token_w, selected_token, g, palette)
    # What is drawn (a hidden lesson glow does not widen the block; shown, it may reach the margin;
    # the compact layout's nodes are all about the lesson step: their glows are in).
    drawn = QRectF()
    for item in scene.items():
        if item.isVisible():
            drawn = drawn.united(item.sceneBoundingRect())
    if spec.compact is not None:
        for node in layout.nodes.values():
            drawn = drawn.united(node.glow.sceneBoundingRect())
    scene.setSceneRect(drawn.adjusted(-3 * z, -3 * z, 3 * z, 3 * z))
    return layout


def _labelled(edge: EdgeSpec, nodes: dict[str, NodeBase], spec: LayoutSpec) -> bool:
    """Edges carry their tensor's shape, except fan-outs (once is enough) and edges out of a heatmap
    (its node prints its shape); none in presentation mode (the inspector has every shape)."""
    return spec.labels and edge.labelled and isinstance(nodes.get(edge.source), NumberNode)


def gap_tooltip(titles: list[str]) -> str:
    """What a "…" marker leaves out: its nodes' titles (a title's lines joined)."""
    return tr("Left out here: %1").replace("%1", ", ".join(" ".join(title.split()) for title in titles))


def _bands(scene, layout: Layout, rows, nodes, row_bounds, trace, g: Geometry, palette: Palette) -> None:
    """Sub-layer bands with their captions (and the head chips on the attention band)."""
    z = g.zoom
    for r, row in enumerate(rows):
        hooks = [hook for hook in row.band if hook in nodes]
        if not hooks:
            continue
        rect = QRectF()
        for hook in hooks:
            node = nodes[hook]
            rect = rect.united(node.mapRectToScene(node.rect()))
        rect.setTop(row_bounds[r][0])
        rect.setBottom(row_bounds[r][1])
        rect.adjust(-14 * z, -g.band_header - 4 * z, 14 * z, g.band_pad)
        band = Rounded(rect, radius=10.0 * z)
        attention = row.name == "attention"
        band.setBrush(palette.attention_band if attention else palette.ffn_band)
        band.setPen(QPen(palette.attention_border if attention else palette.ffn_border, 1))
        band.setZValue(-2)
        scene.addItem(band)
        text = QGraphicsSimpleTextItem(band_caption(row.name), band)
        text.setFont(g.header)
        set_ink(text, palette.muted)
        text.setPos(rect.left() + 10 * z, rect.top() + (g.band_header - text.boundingRect().height()) / 2 + 1)
        layout.bands.append((band, text, row.name))
        if attention and Q in trace:
            x = text.pos().x() + text.boundingRect().width() + 8 * z
            for h in range(trace[Q].shape[0]):
                chip = HeadChip(h, g, palette)
                chip.setPos(x, rect.top() + 2 * z)
                x += chip.rect().width() + 4 * z
                scene.addItem(chip)
                layout.heads.append(chip)


def _tokens(scene, layout: Layout, x_node: NodeBase, tokens, token_w: float, selected: int, g: Geometry,
            palette: Palette) -> None:
    """The token list, centred on the input node (a window of TOKEN_ROWS of a long list)."""
    z = g.zoom
    shown = min(len(tokens), TOKEN_ROWS)
    layout.token_count = len(tokens)
    box_h = g.token_box_h(tokens)
    pitch = box_h + 4 * z
    column_height = shown * pitch
    top = max(g.band_header + g.lane, x_node.port_y() - column_height / 2)
    start = token_window(len(tokens), selected)
    header = QGraphicsSimpleTextItem(token_caption(len(tokens), start))
    header.setFont(g.header)
    set_ink(header, palette.muted)
    header.setPos(6 * z + token_w / 2 - header.boundingRect().width() / 2, top - g.band_header - 2 * z)
    scene.addItem(header)
    layout.token_header = header
    for i in range(shown):
        item = TokenItem(start + i, tokens[start + i], token_w, box_h, g, palette)
        item.setPos(6 * z, top + i * pitch)
        scene.addItem(item)
        layout.tokens.append(item)
    layout.token_link = QGraphicsPathItem()
    layout.token_link.setPen(QPen(palette.accent, 2 * z, Qt.DashLine))
    layout.token_link.setZValue(1)
    scene.addItem(layout.token_link)


def token_link_path(layout: Layout, token: int):
    """The dashed curve from the selected token (if listed) to the input node."""
    from app.explorer.dataflow_route import s_curve
    item = next((t for t in layout.tokens if t.index == token), None)
    x_node = layout.nodes.get(X)
    if item is None or x_node is None:
        return None
    rect = item.mapRectToScene(item.rect())
    return s_curve(QPointF(rect.right(), rect.center().y()), QPointF(x_node.pos().x(), x_node.port_y()))


def layout_text_boxes(layout: Layout, scene_rect: QRectF) -> list[tuple[str, QGraphicsSimpleTextItem, QRectF]]:
    """Every text of a layout, with its kind and the box it must stay inside (scene coordinates):
    node texts in their node (values in their cell), tokens and head numbers in their boxes,
    shape labels in theirs, band captions in their band."""
    boxes = []
    for node in layout.nodes.values():
        rect = node.mapRectToScene(node.rect())
        boxes += [("title", item, rect) for item in node.title_lines]
        if isinstance(node, NumberNode):
            boxes += [("number", text, text.parentItem().mapRectToScene(text.parentItem().rect()))
                      for text in node.texts]
        else:
            boxes += [("caption", node.shape_text, rect), ("caption", node.range_text, rect)]
    boxes += [("token", t.text, t.mapRectToScene(t.rect())) for t in layout.tokens]
    boxes += [("head", c.text, c.mapRectToScene(c.rect())) for c in layout.heads]
    boxes += [("band", caption, band.mapRectToScene(band.rect())) for band, caption, _ in layout.bands]
    boxes += [("label", e.label, e.label_rect()) for e in layout.edges if e.label is not None]
    boxes += [("gap", gap.text, gap.mapRectToScene(gap.rect())) for gap in layout.gaps.values()]
    if layout.token_header is not None:
        boxes.append(("band", layout.token_header, scene_rect))
    return boxes


def layout_text_rooms(layout: Layout) -> list[tuple[QGraphicsSimpleTextItem, QRectF]]:
    """Every text of a layout and the scene rect that must be on screen for it to show whole: a
    value its cell (the value changes in place), any other text its glyphs."""
    rooms = []
    for kind, item, _ in layout_text_boxes(layout, QRectF()):
        room = item.mapRectToScene(item.boundingRect())
        if kind == "number":
            room = room.united(item.parentItem().mapRectToScene(item.parentItem().rect()))
        rooms.append((item, room))
    return rooms
