"""Helpers for the block diagram's widget tests: a DataflowView on a Session, clicks in scene
coordinates, and the geometry checks (text inside its box, nothing overlapping)."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt

from app.explorer.dataflow import DataflowView
from app.explorer.dataflow_scene import text_rect
from app.session import Session
from core.formats.scenario import Scenario, load_scenario
from tests.app.helpers import FakeClock, show
from tests.conftest import SCENARIOS


def session_on(source: str | Scenario = "block-default.json") -> Session:
    scenario = source if isinstance(source, Scenario) else load_scenario(SCENARIOS / source)
    return Session(scenario, clock=FakeClock())


def make_view(qtbot, source: str | Scenario | Session = "block-default.json", size: tuple[int, int] = (800, 450),
              **changes) -> tuple[Session, DataflowView]:
    session = source if isinstance(source, Session) else session_on(source)
    if changes:
        assert session.set_config(**changes)
    view = show(qtbot, DataflowView(session), *size)
    view.resize(*size)          # a shown widget gets its size only now; the view refits to it
    return session, view


def at(view: DataflowView, point: QPointF):
    return view.mapFromScene(point)


def click(qtbot, view: DataflowView, point: QPointF, button=Qt.LeftButton) -> None:
    qtbot.mouseClick(view.viewport(), button, pos=at(view, point))


def double_click(qtbot, view: DataflowView, point: QPointF) -> None:
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, pos=at(view, point))


def empty_point(view: DataflowView) -> QPointF:
    """A point of the scene with nothing clickable on it (top right corner)."""
    rect = view.sceneRect()
    return QPointF(rect.right() - 3, rect.top() + 3)


def text_problems(view: DataflowView) -> list[str]:
    """Every text that leaves its box or is drawn shrunk."""
    problems = []
    for kind, item, box in view.flow.text_boxes():
        if not item.isVisible() or not item.text():
            continue
        glyphs = text_rect(item)
        if not box.adjusted(-0.5, -0.5, 0.5, 0.5).contains(glyphs):
            problems.append(f"{kind} {item.text()!r}: {glyphs} outside {box}")
        if item.scale() != 1.0:
            problems.append(f"{kind} {item.text()!r} drawn at scale {item.scale()}")
    return problems


def overlap_problems(view: DataflowView) -> list[str]:
    """Shape labels, band captions, head chips and tokens that overlap a node or one another."""
    flow = view.flow
    nodes = [(f"node {h}", flow.node_rect(h)) for h in flow.node_names()]
    others: list[tuple[str, QRectF]] = []
    others += [(f"label {e.spec.source}→{e.spec.target}", e.label_rect()) for e in flow.edge_items()
               if e.label is not None]
    others += [(f"caption {row}", text_rect(caption)) for _, caption, row in flow.layout.bands]
    others += [(f"head {c.head + 1}", c.mapRectToScene(c.rect())) for c in flow.layout.heads]
    others += [(f"token {t.index}", t.mapRectToScene(t.rect())) for t in flow.layout.tokens]
    if flow.layout.token_header is not None:
        others.append(("token header", text_rect(flow.layout.token_header)))
    problems = []
    for name, rect in others:
        for node, node_rect in nodes:
            if rect.intersects(node_rect):
                problems.append(f"{name} {rect} overlaps {node} {node_rect}")
    for i, (a, ra) in enumerate(others):
        for b, rb in others[i + 1:]:
            if ra.intersects(rb):
                problems.append(f"{a} overlaps {b}")
    for i, (a, ra) in enumerate(nodes):
        for b, rb in nodes[i + 1:]:
            if ra.intersects(rb):
                problems.append(f"{a} overlaps {b}")
    return problems
