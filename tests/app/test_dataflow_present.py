"""The diagram in presentation mode, for the back row: every text at least 16 px on screen, a
lesson step's nodes whole in the view (framed in the block's layout with their sub-layer's
caption, or side by side in the compact layout where the block's layout cannot show them
readable), no shape labels, no text cut by the view's edge — and back to the explorer's
diagram on leaving."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from app.explorer.dataflow import DataflowView
from app.explorer.dataflow_layout import layout_text_rooms
from app.explorer.dataflow_style import READABLE_PX, min_text_px
from app.widgets.appearance import appearance
from core.formats.lesson import load_lesson
from core.labs.generations import preset as generation
from core.resources import lessons_dir
from tests.app.flow_helpers import make_view, session_on
from tests.app.helpers import settle

R45 = lessons_dir() / "r45-ffn-residual-norm.json"
U_H_Z = ("hook_resid_mid", "mlp.hook_post", "hook_resid_post")      # r45 step 5: u₃ u₄, h₃ h₄, z₃ z₄
# The diagram's share of a 1024×768 projector at r45 step 5 (inspector, block options and plots
# shown) and at a step that shows a lab under it (generations).
STEP_5_VIEW = (660, 264)
UNDER_A_LAB = (1022, 238)


@pytest.fixture
def presenting():
    appearance().set_presenting(True)
    yield appearance()
    appearance().reset()


def on_screen(view: DataflowView, rect: QRectF) -> QRectF:
    return QRectF(view.mapFromScene(rect).boundingRect())


def inside(view: DataflowView, rect: QRectF, slack: float = 1.0) -> bool:
    return QRectF(view.viewport().rect()).adjusted(-slack, -slack, slack, slack).contains(on_screen(view, rect))


def shown_texts(view: DataflowView):
    return [(kind, item) for kind, item, _ in view.flow.text_boxes() if item.isVisible() and item.text()]


def assert_readable_and_whole(view: DataflowView) -> None:
    """Every text drawn is at least READABLE_PX on screen and wholly inside the view."""
    scale = view.transform().m11()
    for kind, item in shown_texts(view):
        assert item.font().pixelSize() * scale >= READABLE_PX - 0.01, (kind, item.text())
        assert inside(view, item.mapRectToScene(item.boundingRect())), (kind, item.text())


def r45_step_5(qtbot, size):
    lesson = load_lesson(R45)
    index = lesson.step_index("relu-residual")
    step = lesson.steps[index]
    session, view = make_view(qtbot, session_on(lesson.step_scenario(index)), size=size)
    session.select(hook=step.select.hook, token=step.select.token, column=step.select.column)
    session.set_highlight(step.highlight.hooks, [(cell.hook, cell.index) for cell in step.highlight.cells])
    return session, view


def test_a_step_spread_wider_than_the_view_is_drawn_side_by_side_readable(qtbot, presenting):
    session, view = r45_step_5(qtbot, STEP_5_VIEW)
    hooks, stacked = view.flow.layout.compact
    assert hooks == frozenset(U_H_Z) and stacked
    assert view.node_order() == list(U_H_Z)                 # only these: the spotlight keys count them
    scale = view.transform().m11()
    for hook in U_H_Z:
        node = view.node_item(hook)
        assert inside(view, view.node_rect(hook)), hook
        assert node.texts[0].font().pixelSize() * scale >= READABLE_PX
        assert view.flow.marked_cells(hook) == [2, 3]       # the cells the caption cites, outlined
    assert view.node_texts("hook_resid_mid")[2:] == ["−0.39", "−1.43"]        # u₃, u₄
    assert view.node_texts("mlp.hook_post")[2:4] == ["0.00", "0.00"]          # h₃, h₄
    # "…" for what is left out, readable, its tooltip naming the nodes
    gaps = view.flow.layout.gaps
    assert [gap.hooks for gap in gaps.values()][1] == ["mlp.hook_pre"]
    assert "x·W_in" in gaps["gap:1"].toolTip()
    assert all(gap.text.font().pixelSize() * scale >= READABLE_PX for gap in gaps.values())
    assert not any(label for *_, label in view.edges())     # no shape labels in presentation mode
    assert_readable_and_whole(view)
    view.show_whole_block()                                 # the whole block: its own layout, scrolled
    assert view.flow.layout.compact is None and view.smallest_text_px(annotations=True) >= READABLE_PX
    assert_readable_and_whole(view)
    for _ in range(5):
        view.zoom_out()                                     # the wheel does not go below 16 px either
    assert view.smallest_text_px(annotations=True) >= READABLE_PX - 0.01
    assert_readable_and_whole(view)


def test_a_step_that_fits_is_framed_in_the_block_with_its_sub_layers_caption(qtbot, presenting):
    session, view = make_view(qtbot, size=(1022, 262))
    session.set_highlight({"attn.hook_attn_scores", "attn.hook_pattern"})           # r45 step 8
    assert view.flow.layout.compact is None
    for hook in ("attn.hook_attn_scores", "attn.hook_pattern"):
        assert inside(view, view.node_rect(hook))
    caption, chips = view.flow.layout.bands[0][1], view.flow.layout.heads
    assert caption.isVisible() and all(chip.text.isVisible() for chip in chips)      # which head: on screen
    assert_readable_and_whole(view)
    # Nothing is shown half: a node the view's edge would cut is hidden whole (its edges run on off
    # screen); scrolled in, it comes back, texts and all.
    screen = QRectF(view.viewport().rect())
    hidden = [hook for hook in view.node_names() if not view.node_item(hook).isVisible()]
    assert hidden and not any(inside(view, view.node_rect(hook), slack=-1.5) for hook in hidden)
    shown = [hook for hook in view.node_names() if view.node_item(hook).isVisible()]
    assert all(inside(view, view.node_rect(hook)) for hook in shown
               if screen.intersects(on_screen(view, view.node_rect(hook))))
    hook = next(hook for hook in hidden if screen.intersects(on_screen(view, view.node_rect(hook))))
    item = view.node_item(hook).text_items()[0]
    view.centerOn(view.node_rect(hook).center())
    assert view.node_item(hook).isVisible() and item.isVisible()
    assert_readable_and_whole(view)


def test_a_column_too_tall_for_the_view_goes_side_by_side(qtbot, presenting):
    session, view = make_view(qtbot, generation("divergence"), size=UNDER_A_LAB)
    clamped = {"mlp.hook_pre_clamped", "mlp.hook_gate_clamped"}                     # generations step 13
    session.set_highlight(clamped)
    assert view.flow.layout.compact == (frozenset(clamped), False)
    for hook in clamped:
        assert inside(view, view.node_rect(hook))
    assert_readable_and_whole(view)


def test_leaving_presentation_mode_gives_the_explorers_diagram_back(qtbot, presenting):
    session, view = r45_step_5(qtbot, STEP_5_VIEW)
    assert view.flow.layout.compact is not None
    presenting.set_presenting(False)
    assert view.flow.layout.compact is None and not view.flow.layout.gaps
    assert set(view.node_names()) > set(U_H_Z)
    assert any(label for *_, label in view.edges())         # the shapes are back on the edges
    assert all(item.isVisible() for _, item, _ in view.flow.text_boxes())
    assert view.smallest_text_px() >= min_text_px(1.0) - 0.01
    assert view.horizontalScrollBar().isVisible() or view.verticalScrollBar().isVisible()


def test_export_in_presentation_mode_draws_every_text(qtbot, presenting, tmp_path):
    session, view = make_view(qtbot, size=(1022, 262))
    session.set_highlight({"attn.hook_attn_scores", "attn.hook_pattern"})
    hidden = [item for _, item, _ in view.flow.text_boxes() if not item.isVisible()]
    assert hidden
    seen = []
    original = view.flow.render

    def render(*args, **kwargs):
        seen.append(all(item.isVisible() for item in hidden))
        return original(*args, **kwargs)

    view.flow.render = render
    assert view.export_image(tmp_path / "diagram.png")
    assert seen == [True]
    assert not any(item.isVisible() for item in hidden)     # and the view is as it was


@pytest.mark.parametrize("language", ["zh", "en"])
def test_r45_step_5_on_a_1024x768_projector(blocklab_open, language):
    """The real window: u₃ u₄, h₃ h₄ and z₃ z₄ are large and whole, and no text of the diagram is
    small, cut or overlapping (the readability walk's measure)."""
    from tests.app.readability import walk_window

    window = _r45_presenting_at_1024x768(blocklab_open, language, "relu-residual")
    view = window.dataflow
    settle(lambda: view.flow.layout.compact is not None)
    scale = view.transform().m11()
    for hook in U_H_Z:
        assert inside(view, view.node_rect(hook)), hook
        assert all(text.isVisible() and text.font().pixelSize() * scale >= READABLE_PX
                   for text in view.node_item(hook).texts + view.node_item(hook).title_lines)
    assert [finding for finding in walk_window(window, "r45 step 5") if finding.area == "diagram"] == []
    window.presentation.leave()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_r45_step_2_shows_the_mid_its_caption_starts_from(blocklab_open, language):
    """"Start from u = (1.171, …) (mid in the diagram)": at 1024×768 the diagram framed only
    x·W_in and ReLU, and mid was off its left edge. The step frames mid beside them."""
    window = _r45_presenting_at_1024x768(blocklab_open, language, "b0")
    view = window.dataflow
    settle(lambda: inside(view, view.node_rect("mlp.hook_post")))          # the step is framed
    for hook in ("hook_resid_mid", "mlp.hook_pre", "mlp.hook_post"):
        assert inside(view, view.node_rect(hook)), hook
    window.presentation.leave()


def _r45_presenting_at_1024x768(blocklab_open, language, step_id):
    """The real window presenting R45 at a projector's 1024×768, at the step `step_id`."""
    window = blocklab_open(R45, language=language).window
    window.resize(1024, 768)
    window.presentation.enter(full_screen=False)
    settle(lambda: window.menuBar().isHidden())
    window.resize(1024, 768)
    window.lessons.go(load_lesson(R45).step_index(step_id))
    return window
