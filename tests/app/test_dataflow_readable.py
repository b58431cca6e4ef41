"""The block diagram is readable: it fills its space, its text is large enough from the back row,
it follows the interface zoom and the theme, every text stays inside its box, nothing overlaps,
and huge values are written compactly instead of shrinking."""
from __future__ import annotations

import numpy as np
import pytest

from app import i18n
from app.explorer.dataflow_style import NUMBER_PX, READABLE_PX, compact_number, exponent_text, min_text_px
from app.widgets.appearance import DARK, LIGHT, appearance
from core.formats.lesson import list_lessons, load_lesson
from core.formats.scenario import load_scenario
from core.labs.generations import GENERATIONS, preset
from core.numbers import MINUS, format_exact
from core.resources import lessons_dir
from tests.app.flow_helpers import make_view, overlap_problems, session_on, text_problems
from tests.app.helpers import settle
from tests.conftest import SCENARIOS

# The diagram's share of a 1024×768 projector in presentation mode (editing panels hidden): the
# full width and 540 px of height. DataflowView.readable_size(16) says what the current block needs.
PRESENTATION_1024 = (1016, 540)
# Its share of a 1920×1080 window at 150 % interface zoom, editing panels shown (the main window
# gives the diagram the left 3/4 and about 45 % of the height; the zoomed panels take more).
WINDOW_1920_AT_150 = (1350, 440)


@pytest.fixture
def look():
    """The interface zoom and theme, put back after the test."""
    yield appearance()
    appearance().set_zoom(1.0)
    appearance().set_theme("system")


def test_fit_enlarges_as_well_as_shrinks(qtbot):
    session, view = make_view(qtbot, size=(800, 450))
    small = view.transform().m11()
    view.resize(2000, 1100)
    big = view.transform().m11()
    assert big > 1.6 * small and big > 1.5              # past 100 %: the block fills a projector
    scene = view.sceneRect()
    assert scene.width() * big <= view.viewport().width() + 1
    assert scene.height() * big <= view.viewport().height() + 1
    view.resize(900, 500)
    assert view.transform().m11() < big
    view.zoom_in()                                      # the user's zoom then stays on a resize …
    zoomed = view.transform().m11()
    view.resize(1000, 560)
    assert view.transform().m11() == pytest.approx(zoomed)
    view.fit_to_window()                                # … until Fit
    assert view.transform().m11() != pytest.approx(zoomed)
    view.close()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_text_is_16_px_on_a_1024x768_projector(qtbot, language):
    i18n.install(language)
    session, view = make_view(qtbot, size=PRESENTATION_1024)
    assert view.smallest_text_px() >= READABLE_PX, view.smallest_text_px()
    needed = view.readable_size(READABLE_PX)
    assert needed.width() <= PRESENTATION_1024[0] and needed.height() <= PRESENTATION_1024[1]
    # measured as the brief says: each value's font pixel size × the view's scale
    node = view.node_item("mlp.hook_post")
    assert node.texts[0].font().pixelSize() * view.transform().m11() >= READABLE_PX
    view.close()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_text_is_16_px_at_1920x1080_with_150_percent_zoom(qtbot, look, language):
    i18n.install(language)
    look.set_zoom(1.5)
    session, view = make_view(qtbot, size=WINDOW_1920_AT_150)
    assert view.node_item("mlp.hook_post").texts[0].font().pixelSize() == round(NUMBER_PX * 1.5)
    assert view.smallest_text_px() >= READABLE_PX, view.smallest_text_px()
    view.close()


def test_text_never_shrinks_below_the_floor_it_scrolls_instead(qtbot, look):
    assert (min_text_px(1.0), min_text_px(1.5)) == (10.0, 16.0)
    session, view = make_view(qtbot, size=(400, 250))
    assert view.smallest_text_px() >= min_text_px(1.0) - 0.01
    assert view.horizontalScrollBar().maximum() > 0        # the rest is a drag or a scroll away
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert shown.contains(view.token_rect(0)) and shown.intersects(view.node_rect("hook_resid_pre"))   # top left
    look.set_zoom(2.0)                                     # the floor follows the interface zoom
    assert view.smallest_text_px() >= min_text_px(2.0) - 0.01
    view.close()


def test_zoom_and_theme_redraw_the_diagram(qtbot, look):
    session, view = make_view(qtbot)
    node = view.node_item("hook_resid_post")
    assert node.texts[0].font().pixelSize() == NUMBER_PX
    assert view.flow.backgroundBrush().color().name() == LIGHT.background
    session.select(hook="attn.hook_pattern")
    look.set_zoom(2.0)
    assert view.node_item("hook_resid_post").texts[0].font().pixelSize() == 2 * NUMBER_PX
    assert view.node_item("attn.hook_pattern").outline.isVisible()          # the selection survives
    look.set_theme("dark")
    assert view.flow.backgroundBrush().color().name() == DARK.background
    assert view.node_item("mlp.hook_pre").brush().color().name() == DARK.panel
    assert view.node_item("mlp.hook_pre").title_lines[0].brush().color().name() == DARK.foreground
    assert text_problems(view) == []
    view.close()


# --- text inside its box ---------------------------------------------------------------------

def lesson_steps():
    for lesson_id, _, path in list_lessons(lessons_dir()):
        lesson = load_lesson(path)
        for index, step in enumerate(lesson.steps):
            yield pytest.param(path, index, id=f"{lesson_id}-{step.id}")


@pytest.mark.parametrize("path, index", list(lesson_steps()))
def test_every_text_fits_in_every_lesson_step(qtbot, path, index):
    lesson = load_lesson(path)
    step = lesson.steps[index]
    session, view = make_view(qtbot, session_on(lesson.step_scenario(index)))
    if step.select is not None:
        chosen = step.select
        session.select(hook=chosen.hook, token=chosen.token, head=chosen.head, column=chosen.column)
    session.set_highlight(step.highlight.hooks, [(cell.hook, cell.index) for cell in step.highlight.cells])
    assert text_problems(view) == []
    assert overlap_problems(view) == []
    view.close()


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_selected_node_keeps_its_whole_title_and_minus_signs(qtbot, language):
    """The run-through's "patterr" and clipped minus signs: a selected node's texts stay inside it."""
    i18n.install(language)
    session, view = make_view(qtbot)
    for hook in ("attn.hook_pattern", "hook_resid_post", "ln1.hook_normalized", "mlp.hook_pre"):
        session.select(hook=hook, token=3)
        node = view.node_item(hook)
        assert node.outline.isVisible()
        outline = node.outline.mapRectToScene(node.outline.rect())
        for item in node.text_items():
            glyphs = item.mapRectToScene(item.boundingRect())
            assert view.node_rect(hook).contains(glyphs), (hook, item.text())
            assert outline.contains(glyphs)
        assert text_problems(view) == []
    assert any(text.startswith(MINUS) for text in view.node_texts("hook_resid_post"))
    view.close()


def huge_block():
    """The default block with inputs and weights at ±1e6: values up to 1e12 and beyond."""
    scenario = load_scenario(SCENARIOS / "block-default.json")
    signs = np.where(np.arange(scenario.inputs.size).reshape(scenario.inputs.shape) % 2, -1.0, 1.0)
    weights = {name: (np.full_like(array, 1e6) if name.startswith("W_") else array)
               for name, array in scenario.weights.items()}
    return scenario.__class__(scenario.config, scenario.tokens, signs * 1e6, weights, scenario.targets, scenario.title)


@pytest.mark.parametrize("changes", [{}, {"norm_placement": "pre"}, {"norm": "none", "residual": False}])
def test_huge_values_are_written_compactly_at_full_size(qtbot, changes):
    session, view = make_view(qtbot, session_on(huge_block()), **changes)
    texts = [t for hook in view.node_names() for t in view.node_texts(hook)]
    assert any("e" in t for t in texts)                   # 1.2e5 …
    assert any(t.startswith(MINUS) and "e" in t for t in texts)
    for hook in view.node_names():
        for item in view.node_item(hook).text_items():
            assert item.font().pixelSize() in (NUMBER_PX, NUMBER_PX)   # nothing shrinks
            assert item.scale() == 1.0
    assert text_problems(view) == []
    # every digit stays in the tooltip
    hook = "mlp.hook_pre"
    cell = view.node_item(hook).cells[0]
    tip = view.flow.tooltip_at(cell.mapRectToScene(cell.rect()).center())
    assert format_exact(session.trace[hook][0, 0]) in tip
    view.close()


def test_compact_numbers():
    from PySide6.QtGui import QFontMetricsF
    from app.explorer.dataflow_style import Geometry
    geometry = Geometry.at(1.0)
    metrics, room = QFontMetricsF(geometry.number), geometry.cell_w - 3
    fits = lambda value: compact_number(value, room, metrics)  # noqa: E731
    assert fits(0.4512) == "0.45"
    assert fits(-0.4512) == f"{MINUS}0.45"
    assert fits(-12.345) == f"{MINUS}12.3"
    assert fits(123.456) == "123.5"
    assert fits(-123456.0) == f"{MINUS}1e5" or fits(-123456.0) == f"{MINUS}1.2e5"
    assert fits(1e12).endswith("e12")
    assert fits(float("-inf")) == f"{MINUS}∞"
    assert exponent_text(123456, 1) == "1.2e5"
    assert exponent_text(-0.000012, 1) == f"{MINUS}1.2e{MINUS}5"
    assert exponent_text(99999, 1) == "1e5"                 # rounding carries into the power
    for value in (0.0, 1.0, -9.99, 54321.0, -7.5e11, 3e15):
        assert metrics.horizontalAdvance(fits(value)) <= room


# --- nothing overlaps -----------------------------------------------------------------------

@pytest.mark.parametrize("changes", [{}, {"norm_placement": "pre"}, {"gated": True, "activation": "silu"},
                                     {"attention": False}, {"mask": "causal", "n_heads": 4, "d_head": 1}])
def test_labels_and_nodes_never_overlap(qtbot, changes):
    session, view = make_view(qtbot, **changes)
    assert overlap_problems(view) == []
    assert text_problems(view) == []
    view.close()


@pytest.mark.parametrize("generation", GENERATIONS)
def test_generation_presets_are_tidy(qtbot, generation):
    session, view = make_view(qtbot, session_on(preset(generation)), size=(1280, 560))
    assert sorted(view.node_names()) == sorted(session.trace)
    assert overlap_problems(view) == []
    assert text_problems(view) == []
    view.close()


def test_switching_language_keeps_the_text_inside(qtbot):
    session, view = make_view(qtbot)
    i18n.install("zh")
    settle(lambda: view.node_title("attn.hook_attn_scores") == "分数")
    assert text_problems(view) == [] and overlap_problems(view) == []
    i18n.install("en")
    settle(lambda: view.node_title("attn.hook_attn_scores") == "scores")
    assert text_problems(view) == [] and overlap_problems(view) == []
    view.close()


def test_a_caption_retranslated_in_place_moves_its_head_chips(qtbot, monkeypatch):
    import app.explorer.dataflow_scene as scene_module
    session, view = make_view(qtbot)
    chips = [id(chip) for chip in view.flow.layout.heads]
    original = scene_module.band_caption
    monkeypatch.setattr(scene_module, "band_caption",
                        lambda row: "a much longer caption for this band · head" if row == "attention" else original(row))
    assert view.flow.retranslate() is False                   # titles unchanged: nothing rebuilt
    assert [id(chip) for chip in view.flow.layout.heads] == chips
    assert overlap_problems(view) == [] and text_problems(view) == []
    view.close()
