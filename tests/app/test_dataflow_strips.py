"""Wide blocks: nodes become heatmaps beyond eight channels or tokens (or when forced), show values
on hover, select a cell on a click, and an edit recolours them in place, skipping what it did
not recompute."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QAction, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from app.explorer.dataflow_strip import StripNode, heat_pixels
from app.explorer.dataflow_style import NUMBERS_MAX
from core.formats.generate import preset as sized, random_scenario
from core.labs.generations import preset as generation
from core.numbers import format_exact
from tests.app.flow_helpers import click, make_view, overlap_problems, session_on, text_problems


@pytest.fixture(scope="module")
def d64():
    return sized("d64")           # 16 tokens, d = 64, 4 heads of 16, d_ff = 256


def pixels_of(view, hook, head=0):
    session = view.session
    array = session.trace[hook]
    shown = array[head] if array.ndim == 3 else array
    return heat_pixels(shown, view.node_limit(hook), view.flow.palette.undefined.rgba())


def test_numbers_up_to_eight_wide_heatmaps_beyond(qtbot, d64):
    session, view = make_view(qtbot)                                   # the lesson block: all numbers
    assert not any(view.is_strip(h) for h in view.node_names())
    view.close()
    session, view = make_view(qtbot, session_on(generation("original")), size=(1280, 560))     # d_ff = 16
    strips = {h for h in view.node_names() if view.is_strip(h)}
    assert strips == {h for h in session.trace if session.trace[h].shape[-1] > NUMBERS_MAX}
    assert strips == {"mlp.hook_pre", "mlp.hook_post"}
    assert view.node_texts("mlp.hook_pre") == []
    assert view.node_texts("hook_mlp_out") != []
    view.close()
    session, view = make_view(qtbot, session_on(d64), size=(1280, 560))   # 16 tokens: every node
    assert all(view.is_strip(h) for h in view.node_names())
    assert sorted(view.node_names()) == sorted(session.trace)
    # a heatmap's caption: the shape it shows and its colour range
    node = view.node_item("mlp.hook_pre")
    assert node.shape_text.text() == "16×256"
    assert node.range_text.text() == f"±{view.node_limit('mlp.hook_pre'):g}"
    assert view.node_item("attn.hook_pattern").shape_text.text() == "16×16"     # one head's T×T
    assert text_problems(view) == [] and overlap_problems(view) == []
    view.close()


def test_forcing_numbers_or_heatmaps(qtbot):
    session, view = make_view(qtbot, session_on(generation("original")), size=(1280, 560))
    menu = view.context_menu()
    assert menu.objectName() == "dataflowMenu"
    actions = {a.objectName(): a for a in menu.findChildren(QAction) if a.objectName()}
    assert actions["actionDataflowAuto"].isChecked()
    actions["actionDataflowStrips"].trigger()
    assert view.strip_mode() == "strips"
    assert all(view.is_strip(h) for h in view.node_names())
    view.set_strip_mode("numbers")
    assert not any(view.is_strip(h) for h in view.node_names())
    assert len(view.node_texts("mlp.hook_pre")) == 16
    assert text_problems(view) == []
    assert view.context_menu().findChild(QAction, "actionDataflowNumbers").isChecked()
    view.set_strip_mode("auto")
    assert view.is_strip("mlp.hook_pre") and not view.is_strip("hook_mlp_out")
    with pytest.raises(ValueError):
        view.set_strip_mode("pictures")
    view.close()


def test_hovering_a_heatmap_names_the_cell(qtbot, d64):
    session, view = make_view(qtbot, session_on(d64), size=(1280, 560))
    node = view.node_item("mlp.hook_post")
    assert isinstance(node, StripNode)
    tip = view.flow.tooltip_at(node.cell_centre(3, 10))
    value = session.trace["mlp.hook_post"][3, 10]
    assert tip.startswith("mlp.hook_post")
    assert "token 4 “t3”" in tip and "channel 11" in tip and format_exact(value) in tip
    # what the pointer shows: Qt's tooltip event on the viewport
    pos = view.mapFromScene(node.cell_centre(3, 10))
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.ToolTip, pos, view.viewport().mapToGlobal(pos)))
    assert QToolTip.text() == tip
    QToolTip.hideText()
    session.select(head=2)
    q = view.node_item("attn.hook_q")
    tip = view.flow.tooltip_at(q.cell_centre(5, 7))
    assert format_exact(session.trace["attn.hook_q"][2, 5, 7]) in tip and "head 3" in tip
    # outside the picture (the title) there is no value to show
    assert view.flow.tooltip_at(node.mapToScene(node.title_rects[0].center())) is None
    view.close()


def test_clicking_a_heatmap_cell_selects_it(qtbot, d64):
    session, view = make_view(qtbot, session_on(d64), size=(1280, 560))
    view.frame(["mlp.hook_pre"])                 # large enough to aim at one cell
    node = view.node_item("mlp.hook_pre")
    click(qtbot, view, node.cell_centre(9, 0))
    assert (session.selected_hook, session.selected_token, session.selected_column) == ("mlp.hook_pre", 9, 0)
    assert node.outline.isVisible()
    # the selected token's column of cells is outlined in every heatmap
    mark = node.token_mark.mapRectToScene(node.token_mark.rect())
    assert mark.contains(node.cell_centre(9, 0)) and mark.contains(node.cell_centre(9, 200))
    assert not mark.contains(node.cell_centre(8, 0))
    other = view.node_item("hook_resid_post")
    assert other.token_mark.mapRectToScene(other.token_mark.rect()).contains(other.cell_centre(9, 3))
    # a per-head heatmap shows the selected head; a click keeps the head
    chip = view.flow.layout.heads[3]
    click(qtbot, view, chip.mapRectToScene(chip.rect()).center())
    assert session.selected_head == 3
    view.frame(["attn.hook_pattern"])
    pattern = view.node_item("attn.hook_pattern")
    assert np.array_equal(pattern.pixels, pixels_of(view, "attn.hook_pattern", head=3))
    click(qtbot, view, pattern.cell_centre(12, 4))
    assert (session.selected_hook, session.selected_head, session.selected_token, session.selected_column) == \
        ("attn.hook_pattern", 3, 12, 4)
    view.close()


def test_an_edit_recolours_heatmaps_in_place_and_skips_the_rest(qtbot, monkeypatch):
    # above core's SMALL_WORK, so that an edit is recomputed incrementally (an EditedTrace)
    session, view = make_view(qtbot, session_on(random_scenario(16, 128, 4, 32, 512)), size=(1280, 560))
    nodes = {h: id(view.node_item(h)) for h in view.node_names()}
    pixmaps = {h: id(view.node_item(h).pixmap) for h in view.node_names()}
    items = len(view.scene().items())
    before = view.node_item("mlp.hook_post").pixels.copy()
    redrawn = []
    original = StripNode.set_image
    monkeypatch.setattr(StripNode, "set_image", lambda self, *a: (redrawn.append(self.hook), original(self, *a)))
    assert session.set_value("W_in", (0, 7), 3.0)
    recomputed = session.trace.recomputed
    assert not session.trace.full and "attn.hook_q" not in recomputed
    assert set(redrawn) <= set(recomputed) and "mlp.hook_post" in redrawn
    assert "attn.hook_pattern" not in redrawn and "hook_resid_pre" not in redrawn
    # the same items, recoloured
    assert {h: id(view.node_item(h)) for h in view.node_names()} == nodes
    assert {h: id(view.node_item(h).pixmap) for h in view.node_names()} == pixmaps
    assert len(view.scene().items()) == items
    after = view.node_item("mlp.hook_post").pixels
    assert not np.array_equal(after, before)
    assert np.array_equal(after, pixels_of(view, "mlp.hook_post"))
    assert np.array_equal(view.node_item("hook_resid_post").pixels, pixels_of(view, "hook_resid_post"))
    # selecting another token moves only the outline
    redrawn.clear()
    session.select(token=5)
    assert redrawn == []
    view.close()


def test_twelve_heads_get_legible_chips(qtbot):
    scenario = random_scenario(12, 24, 12, 2, 32, seed=1)
    session, view = make_view(qtbot, session_on(scenario), size=(1280, 560))
    chips = view.flow.layout.heads
    assert [c.head for c in chips] == list(range(12))
    assert [c.text.text() for c in chips] == [str(h) for h in range(1, 13)]
    assert all(view.is_strip(h) for h in view.node_names())      # 12 tokens: heatmaps
    assert overlap_problems(view) == [] and text_problems(view) == []
    for chip in chips:
        assert chip.text.font().pixelSize() >= 16
    view.close()


def test_a_long_token_list_shows_a_window_around_the_selection(qtbot, d64):
    session, view = make_view(qtbot, session_on(d64), size=(1280, 560))
    tokens = view.flow.layout.tokens
    assert [t.index for t in tokens] == list(range(8))
    assert view.flow.layout.token_header.text() == "tokens 1–8 of 16"
    session.select(token=12)
    assert [t.index for t in tokens] == list(range(8, 16))          # the same items, relabelled
    assert tokens[4].text.text() == "t12" and tokens[4].brush().color() == view.flow.palette.accent
    assert view.flow.layout.token_header.text() == "tokens 9–16 of 16"
    click(qtbot, view, view.token_rect(10).center())
    assert session.selected_token == 10
    assert text_problems(view) == [] and overlap_problems(view) == []
    view.close()


def test_masked_scores_are_grey_in_a_heatmap(qtbot):
    session, view = make_view(qtbot, session_on(sized("d64", mask="causal")), size=(1280, 560))
    node = view.node_item("attn.hook_attn_scores")
    undefined = view.flow.palette.undefined.rgba()
    # channels (keys) down, tokens (queries) across: key 5 is masked for query 2, not for query 9
    assert node.pixels[5, 2] == undefined and node.pixels[5, 9] != undefined
    view.close()
