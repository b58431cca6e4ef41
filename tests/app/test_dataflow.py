"""The dataflow panel: one node per hook, the block's real structure, clicks select, edits update in place."""
from __future__ import annotations


import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from app import i18n
from app.explorer.dataflow import STRIP_DECIMALS, DataflowView
from app.session import Session
from app.widgets.style import format_number
from core.formats.scenario import load_scenario
from tests.app.helpers import make_session, settle
from tests.conftest import SCENARIOS


def make(qtbot, scenario: str = "block-default.json", **changes) -> tuple[Session, DataflowView]:
    session = make_session(scenario)
    if changes:
        assert session.set_config(**changes)
    view = DataflowView(session)
    qtbot.addWidget(view)
    view.resize(800, 450)
    view.show()
    qtbot.waitExposed(view)
    return session, view


def click_scene(qtbot, view: DataflowView, point: QPointF) -> None:
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.mapFromScene(point))


def strip(session: Session, hook: str, token: int, head: int = 0) -> list[str]:
    array = session.trace[hook]
    row = array[head, token] if array.ndim == 3 else array[token]
    return [format_number(float(v), STRIP_DECIMALS) for v in row]


@pytest.mark.parametrize("scenario, changes", [
    ("block-default.json", {}),
    ("block-default.json", {"norm_placement": "pre"}),
    ("block-default.json", {"gated": True, "activation": "silu", "norm": "rmsnorm", "mask": "causal"}),
    ("block-default.json", {"residual": False, "norm": "none"}),
    ("r45-ffn.json", {}),
    ("c4-xor.json", {}),
])
def test_every_hook_has_exactly_one_node(qtbot, scenario, changes):
    session, view = make(qtbot, scenario, **changes)
    assert sorted(view.node_names()) == sorted(session.trace)
    for hook in session.trace:
        assert view.node_title(hook).strip(), hook
        assert len(view.node_texts(hook)) == session.trace[hook].shape[-1]
    # No two nodes overlap.
    rects = [view.node_rect(h) for h in view.node_names()]
    for i, a in enumerate(rects):
        for b in rects[i + 1:]:
            assert not a.intersects(b)
    view.close()


def test_switching_attention_off_removes_its_nodes(qtbot):
    session, view = make(qtbot)
    assert "attn.hook_pattern" in view.node_names() and "ln1.hook_out" in view.node_names()
    session.set_config(attention=False)
    names = view.node_names()
    assert not [h for h in names if h.startswith(("attn.", "ln1.")) or h == "hook_attn_out"]
    assert sorted(names) == sorted(session.trace)
    session.undo_stack.undo()
    assert "attn.hook_q" in view.node_names()
    view.close()


def test_pre_norm_puts_the_norm_on_the_branch(qtbot):
    session, view = make(qtbot)
    x = lambda hook: view.node_rect(hook).left()  # noqa: E731
    centre = lambda hook: view.node_rect(hook).center().x()  # noqa: E731
    # Post-norm: the norm follows the residual sum.
    assert x("ln2.hook_out") > x("hook_mlp_out")
    assert centre("ln2.hook_out") > centre("hook_mlp_out")
    assert x("ln1.hook_in") > x("hook_attn_out")
    assert view.node_title("ln1.hook_in") == "x + a"
    session.set_config(norm_placement="pre")
    # Pre-norm: the norm sits before the sub-layer, and the sum is the plain stream.
    assert x("ln2.hook_in") < x("mlp.hook_pre")
    assert x("ln2.hook_out") < x("mlp.hook_pre")
    assert centre("ln2.hook_out") < centre("mlp.hook_pre")
    assert x("ln1.hook_out") < x("attn.hook_q")
    assert view.node_title("hook_resid_mid") == "x + a"
    residual = {(s, t) for s, t, kind, _ in view.edges() if kind == "residual"}
    assert residual == {("hook_resid_pre", "hook_resid_mid"), ("hook_resid_mid", "hook_resid_post")}
    view.close()


def test_residual_off_removes_the_bypass_edges(qtbot):
    session, view = make(qtbot)
    residual = {(s, t) for s, t, kind, _ in view.edges() if kind == "residual"}
    assert residual == {("hook_resid_pre", "ln1.hook_in"), ("hook_resid_mid", "ln2.hook_in")}
    session.set_config(residual=False)
    assert [e for e in view.edges() if e[2] == "residual"] == []
    assert view.node_title("ln1.hook_in") != "x + a"
    view.close()


def test_edges_are_labelled_with_shapes(qtbot):
    session, view = make(qtbot)
    labels = {(s, t): label for s, t, _, label in view.edges()}
    assert labels[("attn.hook_attn_scores", "attn.hook_pattern")] == "2×5×5"
    assert labels[("attn.hook_pattern", "attn.hook_z")] == "2×5×5"
    assert labels[("hook_resid_pre", "attn.hook_k")] == "5×4"
    assert labels[("mlp.hook_pre", "mlp.hook_post")] == "5×6"
    assert labels[("ln1.hook_scale", "ln1.hook_normalized")] == "5×1"
    view.close()
    session, view = make(qtbot, "c4-xor.json")
    labels = {(s, t): label for s, t, _, label in view.edges()}
    assert labels[("hook_mlp_out", "hook_resid_post")] == "4×1"
    view.close()


def test_clicking_a_node_selects_its_hook(qtbot):
    session, view = make(qtbot)
    assert session.selected_hook == "hook_resid_post"
    for hook in ("attn.hook_pattern", "mlp.hook_post", "ln2.hook_scale"):
        click_scene(qtbot, view, view.node_rect(hook).center())
        assert session.selected_hook == hook
        assert view.node_item(hook).outline.isVisible()
        assert not view.node_item("hook_resid_post").outline.isVisible()
    view.close()


def test_clicking_a_token_shows_its_values(qtbot):
    session, view = make(qtbot)
    assert view.node_texts("mlp.hook_post") == strip(session, "mlp.hook_post", 0)
    click_scene(qtbot, view, view.token_rect(3).center())
    assert session.selected_token == 3
    assert view.flow.layout.tokens[3].brush().color() != view.flow.layout.tokens[0].brush().color()
    for hook in ("hook_resid_pre", "mlp.hook_post", "hook_resid_post", "ln1.hook_scale"):
        assert view.node_texts(hook) == strip(session, hook, 3), hook
    assert view.node_texts("attn.hook_pattern") == strip(session, "attn.hook_pattern", 3, head=0)
    assert strip(session, "mlp.hook_post", 3) != strip(session, "mlp.hook_post", 0)
    # The head chips pick the head the per-head nodes show.
    session.select(head=1)
    assert view.node_texts("attn.hook_q") == strip(session, "attn.hook_q", 3, head=1)
    assert strip(session, "attn.hook_q", 3, head=1) != strip(session, "attn.hook_q", 3, head=0)
    view.close()


def test_clicking_a_head_chip_selects_the_head(qtbot):
    session, view = make(qtbot)
    chip = view.flow.layout.heads[1]
    click_scene(qtbot, view, chip.mapRectToScene(chip.rect()).center())
    assert session.selected_head == 1
    view.close()


def test_masked_scores_show_minus_infinity(qtbot):
    session, view = make(qtbot, mask="causal")
    assert view.node_texts("attn.hook_attn_scores")[1:] == ["−∞"] * 4
    view.close()


def test_weight_edit_updates_numbers_in_place(qtbot):
    session, view = make(qtbot)
    items_before = {h: id(view.node_item(h)) for h in view.node_names()}
    texts_before = {h: [id(t) for t in view.node_item(h).texts] for h in view.node_names()}
    shown_before = view.node_texts("mlp.hook_pre")
    assert session.set_value("W_in", (0, 0), 3.0)
    assert {h: id(view.node_item(h)) for h in view.node_names()} == items_before
    assert {h: [id(t) for t in view.node_item(h).texts] for h in view.node_names()} == texts_before
    assert view.node_texts("mlp.hook_pre") == strip(session, "mlp.hook_pre", 0)
    assert view.node_texts("mlp.hook_pre") != shown_before
    assert view.node_texts("hook_resid_post") == strip(session, "hook_resid_post", 0)
    view.close()


def all_item_ids(view: DataflowView) -> dict:
    """Every scene item the view keeps, by identity."""
    return {
        "nodes": {h: id(view.node_item(h)) for h in view.node_names()},
        "cells": {h: [id(c) for c in view.node_item(h).cells] for h in view.node_names()},
        "edges": [id(e) for e in view.flow.layout.edges],
        "tokens": [id(t) for t in view.flow.layout.tokens],
        "heads": [id(c) for c in view.flow.layout.heads],
        "scene": sorted(id(item) for item in view.scene().items()),
    }


def test_config_changes_that_keep_the_layout_update_in_place(qtbot):
    session, view = make(qtbot)
    before = all_item_ids(view)
    scene_rect = view.sceneRect()
    assert view.node_title("mlp.hook_post") == "ReLU"
    for change, hook, title in ((dict(eps=1e-3), None, None),
                                (dict(mask="causal"), None, None),
                                (dict(activation="gelu"), "mlp.hook_post", "GELU"),
                                (dict(norm="rmsnorm"), "ln1.hook_scale", "rms"),
                                (dict(activation="silu"), "mlp.hook_post", "SiLU")):
        assert session.set_config(**change)
        assert all_item_ids(view) == before, change
        assert view.sceneRect() == scene_rect
        if hook is not None:
            assert view.node_title(hook) == title
        for h in view.node_names():             # the numbers follow the new config
            assert view.node_texts(h) == strip(session, h, 0), (change, h)
    assert view.node_title("ln2.hook_normalized") == "x/rms"
    assert view.node_texts("attn.hook_attn_scores")[1:] == ["−∞"] * 4
    # undo walks back through the same items
    session.undo_stack.undo()
    assert view.node_title("mlp.hook_post") == "GELU"
    assert all_item_ids(view) == before
    # a change of layout does rebuild
    session.set_config(residual=False)
    assert all_item_ids(view)["nodes"] != before["nodes"]
    assert [e for e in view.edges() if e[2] == "residual"] == []
    view.close()


def test_an_edited_title_keeps_its_place(qtbot):
    session, view = make(qtbot)
    node = view.node_item("mlp.hook_post")
    line = node.title_lines[0]
    centre = line.mapRectToScene(line.boundingRect()).center().x()
    session.set_config(activation="identity")
    assert view.node_title("mlp.hook_post") == "id"
    assert line.mapRectToScene(line.boundingRect()).center().x() == pytest.approx(centre, abs=0.5)
    view.close()


def test_colour_limits_are_steady_and_only_widen(qtbot):
    from app.widgets import style
    session, view = make(qtbot)
    hooks = view.node_names()
    limits = {h: view.node_limit(h) for h in hooks}
    for h in hooks:
        assert limits[h] == style.limit_for(session.trace[h])     # from the trace when built
    # a small edit: every limit stays
    assert session.set_value("W_in", (0, 1), float(session.tensor("W_in")[0, 1]) + 0.05)
    assert {h: view.node_limit(h) for h in hooks} == limits
    # the tints are the values on those limits
    node = view.node_item("mlp.hook_pre")
    row = session.trace["mlp.hook_pre"][0]
    for cell, value in zip(node.cells, row):
        assert cell.brush().color() == style.tint(float(value), limits["mlp.hook_pre"])
    # a value past its limit widens it
    assert session.set_value("W_in", (0, 0), 40.0)
    biggest = np.abs(session.trace["mlp.hook_pre"]).max()
    assert biggest > limits["mlp.hook_pre"]
    wide = view.node_limit("mlp.hook_pre")
    assert wide >= biggest
    for cell, value in zip(node.cells, session.trace["mlp.hook_pre"][0]):
        assert cell.brush().color() == style.tint(float(value), wide)
    # going back does not narrow it (no jumping colours); untouched nodes never moved
    session.undo_stack.undo()
    assert view.node_limit("mlp.hook_pre") == wide
    assert view.node_limit("hook_resid_pre") == limits["hook_resid_pre"]
    # a scenario load starts again from its own trace
    session.load(load_scenario(SCENARIOS / "block-default.json"))
    assert {h: view.node_limit(h) for h in hooks} == limits
    # so does a new layout
    session.set_value("W_in", (0, 0), 40.0)
    session.set_config(d_ff=3)
    for h in view.node_names():
        assert view.node_limit(h) == style.limit_for(session.trace[h]), h
    view.close()


def test_highlight_dims_the_rest(qtbot):
    session, view = make(qtbot)
    view.set_highlight({"attn.hook_attn_scores", "attn.hook_pattern"})
    assert view.node_item("attn.hook_pattern").opacity() == 1.0
    assert view.node_item("attn.hook_pattern").glow.isVisible()
    assert view.node_item("mlp.hook_pre").opacity() < 0.5
    pair = ("attn.hook_attn_scores", "attn.hook_pattern")
    edge = next(e for e in view.flow.layout.edges if (e.spec.source, e.spec.target) == pair)
    other = next(e for e in view.flow.layout.edges if e.spec.source == "mlp.hook_pre")
    assert edge.opacity() == 1.0 and other.opacity() < 0.5
    session.set_config(norm_placement="pre")           # survives a rebuild
    assert view.node_item("mlp.hook_pre").opacity() < 0.5
    view.set_highlight(None)
    assert all(view.node_item(h).opacity() == 1.0 for h in view.node_names())
    view.close()


def test_zoom_and_fit(qtbot):
    session, view = make(qtbot)
    fitted = view.transform().m11()
    scene = view.sceneRect()
    assert scene.width() * fitted <= view.viewport().width() + 1
    assert scene.height() * fitted <= view.viewport().height() + 1
    view.zoom_in()
    assert view.transform().m11() > fitted * 1.1
    view.resize(700, 400)                      # the user zoomed: a resize keeps the zoom
    assert view.transform().m11() > fitted * 1.1
    view.fit_to_window()
    refit = view.transform().m11()
    assert refit < fitted
    qtbot.keyClick(view, Qt.Key_Equal, Qt.ControlModifier)
    assert view.transform().m11() > refit * 1.1
    qtbot.keyClick(view, Qt.Key_Minus, Qt.ControlModifier)
    qtbot.keyClick(view, Qt.Key_Minus, Qt.ControlModifier)
    assert view.transform().m11() < refit
    centre = view.viewport().rect().center()
    wheel = QWheelEvent(QPointF(centre), QPointF(view.mapToGlobal(centre)), QPoint(0, 0), QPoint(0, 240),
                        Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    before = view.transform().m11()
    QApplication.sendEvent(view.viewport(), wheel)
    assert view.transform().m11() > before * 1.2
    view.close()


def test_structure_change_rebuilds_and_refits(qtbot):
    session, view = make(qtbot)
    old = view.node_item("hook_resid_pre")      # held: an id() of a freed wrapper can come back (flaky)
    view.zoom_in()
    session.set_config(gated=True)
    assert "mlp.hook_gate" in view.node_names()
    assert view.node_item("hook_resid_pre") is not old
    zoomed = view.transform().m11()
    view.fit_to_window()                    # the new layout was fitted already: fitting again changes nothing
    assert view.transform().m11() == pytest.approx(zoomed)
    view.close()


def test_chinese_titles(qtbot):
    session = make_session()
    i18n.install("zh")
    try:
        view = DataflowView(session)
        qtbot.addWidget(view)
        assert view.node_title("attn.hook_attn_scores") == "分数"
        assert view.node_title("hook_resid_post") == "输出"
        for hook in view.node_names():
            assert view.node_title(hook).strip(), hook
        view.close()
    finally:
        i18n.install("en")


def test_switching_language_redraws_the_titles(qtbot):
    session, view = make(qtbot)
    english = view.node_title("attn.hook_attn_scores")
    assert english != "分数"
    i18n.install("zh")          # the language changes while the view is open
    try:
        settle(lambda: view.node_title("attn.hook_attn_scores") == "分数")
        assert sorted(view.node_names()) == sorted(session.trace)
    finally:
        i18n.install("en")
    settle(lambda: view.node_title("attn.hook_attn_scores") == english)
    view.close()


def test_values_match_core_for_every_node(qtbot):
    session, view = make(qtbot, norm_placement="pre")
    session.select(token=4, head=1)
    for hook in view.node_names():
        assert view.node_texts(hook) == strip(session, hook, 4, head=1), hook
    assert np.isfinite(session.trace["hook_resid_post"]).all()
    view.close()


def test_every_string_has_a_chinese_translation():
    """Every tr() of the diagram's modules (context DataflowScene) and every self.tr() of the view
    (context DataflowView) has a Chinese translation."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    table = json.loads((root / "resources" / "i18n" / "zh" / "dataflow.json").read_text(encoding="utf-8"))
    found = {"DataflowScene": set(), "DataflowView": set()}
    for path in (root / "app" / "explorer").glob("dataflow*.py"):
        source = path.read_text(encoding="utf-8")
        context = "DataflowView" if path.name in ("dataflow.py", "dataflow_menu.py") else "DataflowScene"
        call = {"dataflow.py": r"self\.tr", "dataflow_menu.py": r"(?<![\w.])_tr"}.get(path.name, r"(?<![\w.])tr")
        pattern = call + r'\("((?:[^"\\]|\\.)*)"\)'
        found[context] |= {s.replace("\\n", "\n") for s in re.findall(pattern, source)}
    for context, strings in found.items():
        assert strings, context
        assert strings <= set(table[context]), (context, strings - set(table[context]))
        assert all(table[context][s] and table[context][s] != s for s in strings)
