"""Edge routing for the block diagram: geometry only, from where the nodes were placed."""
from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath

from app.explorer.dataflow_items import EdgeItem, NodeBase
from app.explorer.dataflow_plan import EdgeSpec, RowSpec
from app.explorer.dataflow_style import Geometry, Palette


def polyline(points: list[QPointF], radius: float = 10.0) -> QPainterPath:
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


def s_curve(start: QPointF, end: QPointF) -> QPainterPath:
    path = QPainterPath(start)
    bend = max(12.0, (end.x() - start.x()) / 2)
    path.cubicTo(QPointF(start.x() + bend, start.y()), QPointF(end.x() - bend, end.y()), end)
    return path


def _span(spec: EdgeSpec, nodes: dict[str, NodeBase]) -> tuple[float, float]:
    source, target = nodes[spec.source], nodes[spec.target]
    return source.pos().x() + source.rect().width(), target.pos().x()


def below_lanes(specs: list[EdgeSpec], nodes: dict[str, NodeBase], geometry: Geometry) -> dict[tuple[str, str], float]:
    """For each edge routed under its row, the height of its horizontal run: under every node it
    passes, and apart from the runs of other such edges it overlaps (with room for a label)."""
    lanes: dict[tuple[str, str], float] = {}
    taken: list[tuple[float, float, float, str, bool]] = []      # left, right, lane, source, labelled
    label_h = geometry.label_size("0")[1]
    for spec in specs:
        left, right = _span(spec, nodes)
        source, target = nodes[spec.source], nodes[spec.target]
        between = [n.pos().y() + n.rect().height() for n in nodes.values()
                   if n.pos().x() + n.rect().width() > left and n.pos().x() < right]
        lane = max([source.port_y(), target.port_y()] + [b + geometry.lane for b in between])
        moved = True
        while moved:
            moved = False
            for other_left, other_right, other_lane, other_source, labelled in taken:
                if other_source == spec.source or other_right <= left or right <= other_left:
                    continue
                room = geometry.lane + (label_h if labelled else 0)
                if abs(lane - other_lane) < room:
                    lane, moved = other_lane + room, True
        taken.append((left, right, lane, spec.source, spec.labelled))
        lanes[(spec.source, spec.target)] = lane
    return lanes


def route_edge(spec: EdgeSpec, label: str | None, nodes: dict[str, NodeBase], row_of: dict[str, int],
               row_bounds: list[tuple[float, float]], rows: list[RowSpec], lanes: dict[tuple[str, str], float],
               geometry: Geometry, palette: Palette) -> EdgeItem:
    """The edge `spec` between two placed nodes, routed by its kind, its label beside it."""
    source, target = nodes[spec.source], nodes[spec.target]
    s, t = source.mapRectToScene(source.rect()), target.mapRectToScene(target.rect())
    label_w, label_h = geometry.label_size(label or "")
    beside = label_w / 2 + 5 * geometry.zoom            # label centre offset from a vertical line
    gap, band_lane = geometry.col_gap, geometry.band_pad + geometry.lane
    if spec.kind == "vertical":
        if s.center().y() < t.center().y():
            start, end = QPointF(s.center().x(), s.bottom()), QPointF(t.center().x(), t.top())
        else:
            start, end = QPointF(s.center().x(), s.top()), QPointF(t.center().x(), t.bottom())
        path = polyline([start, end])
        at = QPointF(start.x(), (start.y() + end.y()) / 2)     # on the line: the gap is short
    elif spec.kind == "below":
        start, end = QPointF(s.right(), source.port_y()), QPointF(t.left(), target.port_y())
        lane = lanes[(spec.source, spec.target)]
        if end.x() - start.x() < 2.5 * gap:
            path = s_curve(start, end)
        else:
            half = gap / 2
            path = QPainterPath(start)
            path.cubicTo(QPointF(start.x() + half, start.y()), QPointF(start.x() + half, lane),
                         QPointF(start.x() + gap, lane))
            path.lineTo(QPointF(end.x() - gap, lane))
            path.cubicTo(QPointF(end.x() - half, lane), QPointF(end.x() - half, end.y()), end)
        at = QPointF((start.x() + end.x()) / 2, lane + label_h / 2 + 2 * geometry.zoom)
    elif spec.kind == "wrap":
        # Carriage return from the end of the attention row to the start of the FFN row.
        start = QPointF(s.center().x(), s.bottom())
        end = QPointF(t.left() + t.width() * 0.7, t.top())
        lane = row_bounds[row_of[spec.source]][1] + band_lane
        path = polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
        at = QPointF(start.x() - beside - 2, (start.y() + lane) / 2)
    elif spec.kind == "residual":
        if row_of[spec.source] != row_of[spec.target]:
            # From x straight down to the stream entering the FFN sub-layer.
            start = QPointF(s.left() + s.width() * 0.3, s.bottom())
            end = QPointF(start.x(), t.top())
            path = polyline([start, end])
            at = QPointF(start.x() - beside, (start.y() + end.y()) / 2)
        elif rows[row_of[spec.source]].name == "attention":
            lane = row_bounds[row_of[spec.source]][0] - geometry.band_header - 4 * geometry.zoom - geometry.lane
            start, end = QPointF(s.center().x(), s.top()), QPointF(t.center().x(), t.top())
            path = polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
            at = QPointF(start.x() - beside, (start.y() + lane) / 2)
        else:
            lane = row_bounds[row_of[spec.source]][1] + band_lane
            start, end = QPointF(s.center().x(), s.bottom()), QPointF(t.center().x(), t.bottom())
            path = polyline([start, QPointF(start.x(), lane), QPointF(end.x(), lane), end])
            at = QPointF(start.x() - beside, (start.y() + lane) / 2)
    else:
        start, end = QPointF(s.right(), source.port_y()), QPointF(t.left(), target.port_y())
        path = s_curve(start, end)
        middle = path.pointAtPercent(0.5)
        at = QPointF(middle.x(), middle.y() - label_h / 2 - 1)
    return EdgeItem(spec, path, label, at, geometry, palette)
