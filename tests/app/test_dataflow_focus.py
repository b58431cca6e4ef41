"""What the diagram points at: a lesson step's nodes framed and its cells outlined, the spotlight
(click, double click, number, Esc), export to PNG and SVG, a language switch that keeps the
zoom, and the hooks of the later generations (and hooks it does not know) in their places."""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtGui import QAction, QImage, QKeyEvent
from PySide6.QtWidgets import QApplication, QFileDialog

from app import i18n
from app.explorer.dataflow import DataflowView
from app.explorer.dataflow_style import DIMMED
from app.session import Change
from core.block import Trace
from core.formats.lesson import load_lesson
from core.labs.generations import preset as generation
from core.resources import lessons_dir
from tests.app.flow_helpers import (click, double_click, empty_point, make_view, overlap_problems, session_on,
                                    text_problems)
from tests.app.helpers import settle


def visible(view: DataflowView, rect: QRectF) -> bool:
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    return shown.adjusted(-1, -1, 1, 1).contains(rect)


# --- lesson highlights ------------------------------------------------------------------------

def test_a_step_about_some_nodes_frames_them(qtbot):
    session, view = make_view(qtbot, size=(1000, 500))
    whole = view.transform().m11()
    hooks = {"attn.hook_attn_scores", "attn.hook_pattern"}
    session.set_highlight(hooks)
    assert view.transform().m11() > 1.3 * whole
    for hook in hooks:
        assert visible(view, view.node_rect(hook))
        assert view.node_item(hook).glow.isVisible()
    assert view.node_item("mlp.hook_pre").opacity() == pytest.approx(DIMMED)
    view.resize(1100, 560)                       # a resize keeps the framing
    for hook in hooks:
        assert visible(view, view.node_rect(hook))
    view.show_whole_block()
    settle(lambda: not view.horizontalScrollBar().isVisible())     # the framed view's scroll bars go
    assert visible(view, view.sceneRect().adjusted(2, 2, -2, -2))
    view.fit_to_window()                         # Fit: the step's own view
    assert view.transform().m11() > 1.3 * whole
    view.show_whole_block()
    whole = view.transform().m11()
    session.set_highlight(hooks)
    session.set_highlight()                      # the next step points at nothing: the whole block
    assert view.transform().m11() == pytest.approx(whole)
    view.close()


def test_r45_step_5_outlines_the_cells_it_talks_about(qtbot):
    lesson = load_lesson(lessons_dir() / "r45-ffn-residual-norm.json")
    index = lesson.step_index("relu-residual")
    step = lesson.steps[index]
    session, view = make_view(qtbot, session_on(lesson.step_scenario(index)), size=(1000, 500))
    session.select(hook=step.select.hook, token=step.select.token, column=step.select.column)
    session.set_highlight(step.highlight.hooks, [(cell.hook, cell.index) for cell in step.highlight.cells])
    # u₃, u₄ (the stream entering the FFN), h₃, h₄, z₃, z₄
    for hook in ("hook_resid_mid", "mlp.hook_post", "hook_resid_post"):
        assert view.flow.marked_cells(hook) == [2, 3], hook
        node = view.node_item(hook)
        shown = [mark is not None and mark.isVisible() for mark in node.marks]
        assert shown == [i in (2, 3) for i in range(len(node.marks))]
        assert visible(view, view.node_rect(hook))
    assert view.flow.marked_cells("mlp.hook_pre") == []
    # the same cells in heatmaps
    view.set_strip_mode("strips")
    assert view.flow.marked_cells("mlp.hook_post") == [(0, 2), (0, 3)]
    view.set_strip_mode("auto")
    assert view.flow.marked_cells("hook_resid_post") == [2, 3]
    session.set_highlight()
    assert view.flow.marked_cells("hook_resid_post") == []
    view.close()


def test_highlighted_cells_of_another_token_wait_for_it(qtbot):
    session, view = make_view(qtbot)
    session.set_highlight((), [("mlp.hook_post", (2, 1)), ("attn.hook_pattern", (1, 2, 4))])
    assert view.flow.marked_cells("mlp.hook_post") == []
    session.select(token=2)
    assert view.flow.marked_cells("mlp.hook_post") == [1]
    assert view.flow.marked_cells("attn.hook_pattern") == []          # head 2's cell: not head 1
    session.select(head=1)
    assert view.flow.marked_cells("attn.hook_pattern") == [4]
    view.close()


# --- spotlight ---------------------------------------------------------------------------------

def test_spotlight_by_double_click_number_and_clear(qtbot):
    session, view = make_view(qtbot, size=(1000, 500))
    pattern = view.node_rect("attn.hook_pattern").center()
    click(qtbot, view, pattern)                                  # a click selects, no spotlight
    assert session.selected_hook == "attn.hook_pattern" and view.spotlighted() is None
    double_click(qtbot, view, pattern)
    assert view.spotlighted() == "attn.hook_pattern"
    assert view.node_item("attn.hook_pattern").opacity() == 1.0
    assert all(view.node_item(h).opacity() == pytest.approx(DIMMED) for h in view.node_names()
               if h != "attn.hook_pattern")
    into = next(e for e in view.flow.edge_items() if e.spec.target == "attn.hook_pattern")
    away = next(e for e in view.flow.edge_items() if e.spec.source == "mlp.hook_pre")
    assert into.opacity() == 1.0 and away.opacity() == pytest.approx(DIMMED)
    click(qtbot, view, empty_point(view))                        # empty space clears
    assert view.spotlighted() is None
    assert all(view.node_item(h).opacity() == 1.0 for h in view.node_names())
    # number keys count nodes in reading order
    assert view.node_order()[:3] == ["hook_resid_pre", "attn.hook_q", "attn.hook_k"]
    view.spotlight_number(1)
    assert view.spotlighted() == "hook_resid_pre"
    qtbot.keyClick(view, Qt.Key_5)
    assert view.spotlighted() == view.node_order()[4]
    qtbot.keyClick(view, Qt.Key_Escape)
    assert view.spotlighted() is None
    view.spotlight_number(len(view.node_order()) + 1)             # past the last: clears
    assert view.spotlighted() is None
    # presentation mode: a single click spotlights
    view.set_click_spotlight(True)
    click(qtbot, view, view.node_rect("mlp.hook_post").center())
    assert view.spotlighted() == "mlp.hook_post" and session.selected_hook == "mlp.hook_post"
    session.set_value("W_in", (0, 0), 2.0)                       # an edit keeps the spotlight
    assert view.spotlighted() == "mlp.hook_post"
    view.close()


def test_esc_clears_the_spotlight_before_a_window_shortcut(qtbot):
    """Qt asks the focus widget first (ShortcutOverride) whether it wants a key that is also a
    shortcut: the view claims Esc while a node is spotlit (Esc then clears it), and leaves it to
    the window (presentation mode's Esc) otherwise."""
    session, view = make_view(qtbot)

    def claimed() -> bool:
        event = QKeyEvent(QEvent.ShortcutOverride, Qt.Key_Escape, Qt.NoModifier)
        event.ignore()
        QApplication.sendEvent(view, event)
        return event.isAccepted()

    assert not claimed()
    view.spotlight("mlp.hook_post")
    assert claimed()
    qtbot.keyClick(view, Qt.Key_Escape)
    assert view.spotlighted() is None and not claimed()
    view.close()


# --- export -------------------------------------------------------------------------------------

def test_export_png_and_svg(qtbot, tmp_path, monkeypatch):
    session, view = make_view(qtbot)
    png, svg = tmp_path / "block.png", tmp_path / "block.svg"
    assert view.export_image(png)
    image = QImage(str(png))
    assert not image.isNull()
    assert image.width() == pytest.approx(2 * view.sceneRect().width(), abs=2)
    assert view.export_image(svg)
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "input x" in svg.read_text(encoding="utf-8")              # text stays text
    assert not view.export_image(tmp_path / "missing" / "block.png")  # a folder that is not there
    with pytest.raises(ValueError):
        view.export_image(tmp_path / "block.jpg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["block.png", "block.svg"]   # no leftovers
    # the right-click menu asks where, then saves and says so
    target = tmp_path / "menu"
    messages = []
    session.message.connect(messages.append)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    view.context_menu().findChild(QAction, "actionDataflowExportSvg").trigger()
    assert (tmp_path / "menu.svg").is_file() and str(tmp_path / "menu.svg") in messages[-1]
    view.context_menu().findChild(QAction, "actionDataflowExportPng").trigger()
    assert not QImage(str(tmp_path / "menu.png")).isNull()
    view.close()


# --- language --------------------------------------------------------------------------------

def test_a_language_switch_keeps_the_zoom_the_place_and_the_selection(qtbot):
    session, view = make_view(qtbot, size=(900, 500))
    session.select(hook="attn.hook_pattern", token=2)
    view.zoom_in()
    view.zoom_in()
    view.centerOn(view.node_rect("mlp.hook_post").center())
    scale = view.transform().m11()
    centre = view.mapToScene(view.viewport().rect().center())
    i18n.install("zh")
    settle(lambda: view.node_title("attn.hook_attn_scores") == "分数")
    assert view.transform().m11() == pytest.approx(scale)
    assert (view.mapToScene(view.viewport().rect().center()) - centre).manhattanLength() < 40
    assert view.node_item("attn.hook_pattern").outline.isVisible()
    assert view.flow.layout.tokens[2].brush().color() == view.flow.palette.accent
    assert view.node_title("attn.hook_pattern") == "注意力\n分布"
    i18n.install("en")
    settle(lambda: view.node_title("attn.hook_attn_scores") == "scores")
    assert view.transform().m11() == pytest.approx(scale)
    menu = view.context_menu()
    assert menu.findChild(QAction, "actionDataflowFit").text() == "Fit the block to the window"
    view.close()


# --- new hooks ---------------------------------------------------------------------------------

def left(view, hook):
    return view.node_rect(hook).left()


def test_the_anchor_generation_draws_qk_norm_and_the_output_gate(qtbot):
    session, view = make_view(qtbot, session_on(generation("anchor")), size=(1280, 560))
    assert sorted(view.node_names()) == sorted(session.trace)
    edges = {(s, t) for s, t, _, _ in view.edges()}
    # QK-Norm between the projections and the scores
    assert left(view, "attn.hook_q") < left(view, "attn.hook_q_normalized") < left(view, "attn.hook_q_normed") \
        < left(view, "attn.hook_attn_scores")
    assert {("attn.hook_q", "attn.hook_q_normalized"), ("attn.hook_q_scale", "attn.hook_q_normalized"),
            ("attn.hook_q_normed", "attn.hook_attn_scores"), ("attn.hook_k_normed", "attn.hook_attn_scores")} <= edges
    assert ("attn.hook_q", "attn.hook_attn_scores") not in edges
    # the gate: z_gated, not z, feeds W_O
    assert {("attn.hook_z", "attn.hook_z_gated"), ("attn.hook_gate_sigmoid", "attn.hook_z_gated"),
            ("attn.hook_gate", "attn.hook_gate_sigmoid"), ("attn.hook_z_gated", "attn.hook_result")} <= edges
    assert ("attn.hook_z", "attn.hook_result") not in edges
    assert ("ln1.hook_out", "attn.hook_gate") in edges                # from the sub-layer's input
    # zero-centred norms say their gain is 1 + w
    assert view.node_title("ln1.hook_out") == "LN1 (1+w)"
    assert view.node_title("attn.hook_q_normed") == "q·(1+w)"
    assert overlap_problems(view) == [] and text_problems(view) == []
    view.close()


def test_the_divergence_generation_draws_the_clamped_swiglu(qtbot):
    session, view = make_view(qtbot, session_on(generation("divergence")), size=(1280, 560))
    edges = {(s, t) for s, t, _, _ in view.edges()}
    assert {("mlp.hook_pre", "mlp.hook_pre_clamped"), ("mlp.hook_gate", "mlp.hook_gate_clamped"),
            ("mlp.hook_pre_clamped", "mlp.hook_post"), ("mlp.hook_gate_clamped", "mlp.hook_post")} <= edges
    assert ("mlp.hook_pre", "mlp.hook_post") not in edges
    assert left(view, "mlp.hook_pre") < left(view, "mlp.hook_pre_clamped") < left(view, "mlp.hook_post")
    assert view.node_title("mlp.hook_pre_clamped") == "clip(pre)"
    view.close()


def with_extra_hooks(session, extra: dict[str, np.ndarray]) -> None:
    """Give the session a trace with hooks the engine does not make (yet): rotary's, or unknown."""
    hooks = dict(session.trace.items())
    ordered = {}
    for name, array in hooks.items():
        if name == "attn.hook_attn_scores":
            ordered.update({k: v for k, v in extra.items() if k.startswith("attn.hook_rot")})
        ordered[name] = array
    ordered.update({k: v for k, v in extra.items() if k not in ordered})
    session.trace = Trace(ordered)
    session.changed.emit(Change.TRACE)


def test_rotary_hooks_go_before_the_scores_and_unknown_hooks_still_draw(qtbot):
    session, view = make_view(qtbot, size=(1000, 500))
    q, k = session.trace["attn.hook_q"], session.trace["attn.hook_k"]
    with_extra_hooks(session, {"attn.hook_rot_q": q.copy(), "attn.hook_rot_k": k.copy(),
                               "attn.hook_mystery": q.copy(), "mlp.hook_extra": session.trace["mlp.hook_pre"].copy()})
    names = view.node_names()
    assert {"attn.hook_rot_q", "attn.hook_rot_k", "attn.hook_mystery", "mlp.hook_extra"} <= set(names)
    edges = {(s, t) for s, t, _, _ in view.edges()}
    assert {("attn.hook_q", "attn.hook_rot_q"), ("attn.hook_rot_q", "attn.hook_attn_scores"),
            ("attn.hook_k", "attn.hook_rot_k"), ("attn.hook_rot_k", "attn.hook_attn_scores")} <= edges
    assert left(view, "attn.hook_q") < left(view, "attn.hook_rot_q") < left(view, "attn.hook_attn_scores")
    assert view.node_title("attn.hook_rot_q") == "RoPE q"
    assert view.node_title("attn.hook_mystery") == "mystery"       # a generic node, no crash
    assert view.node_rect("mlp.hook_extra").top() > view.node_rect("attn.hook_q").bottom()   # its own row
    assert overlap_problems(view) == [] and text_problems(view) == []
    view.close()
