"""Lesson C4's FFN page: what a learner clicks and sees equals what `core.labs.ffn_page` computes."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLabel, QPushButton, QSlider, QWidget

from core.labs.ffn_page import (FORMULA_TERMS, SCALE_GRID, VASWANI_WIDTH, first_token_scaling, gpt2_ffn_parameters,
                           shape_view, shuffle_demo, shuffle_permutation, term_hooks)
from core.formats.scenario import load_scenario
from core.numbers import format_number
from tests.app.helpers import settle
from tests.conftest import SCENARIOS

PARTS = ["formula", "width", "shapes", "shuffle", "misconceptions", "summary"]
EXPECTED_HOOKS = {"x": ["hook_resid_mid"], "W_up": ["mlp.hook_pre"], "b_up": ["mlp.hook_pre"],
                  "act": ["mlp.hook_post"], "W_down": ["hook_mlp_out"], "b_down": ["hook_mlp_out"]}


def make_panel(qtbot, scenario: str = "c4-xor.json"):
    from app.labs.ffn_page import FfnPagePanel
    from app.session import Session
    session = Session(load_scenario(SCENARIOS / scenario))
    panel = FfnPagePanel(session)
    qtbot.addWidget(panel)
    panel.resize(880, 650)
    panel.show()
    qtbot.waitExposed(panel)
    return session, panel


@pytest.fixture
def lab(qtbot):
    session, panel = make_panel(qtbot)
    yield session, panel
    panel.close()


@pytest.fixture
def block(qtbot):
    session, panel = make_panel(qtbot, "block-default.json")
    yield session, panel
    panel.close()


def find(panel, cls, name):
    widget = panel.findChild(cls, name)
    assert widget is not None, name
    return widget


def click(qtbot, widget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


# --- the panel ---------------------------------------------------------------------------------
def test_parts_and_focus(lab):
    _, panel = lab
    assert panel.objectName() == "ffnPage"
    assert panel.parts() == PARTS
    for part in reversed(PARTS):
        panel.set_focus(part)
        assert panel.current_part() == part
        assert panel.tabs.currentWidget().widget() is panel.pages[part]
        assert panel.pages[part].isVisible()
    with pytest.raises(ValueError):
        panel.set_focus("gating")


def test_interactive_widgets_have_unique_object_names(lab):
    _, panel = lab
    names = [w.objectName() for w in panel.findChildren(QWidget)
             if isinstance(w, (QPushButton, QCheckBox, QSlider)) and w.parent() is not None]
    names = [n for n in names if n]
    assert len(names) == len(set(names))
    for term in FORMULA_TERMS:
        assert f"ffnTerm_{term}" in names
    assert {"ffnShapesSmall", "ffnShuffle", "ffnScaleFirst", "ffnMisGoShuffle"} <= set(names)


# --- formula -----------------------------------------------------------------------------------
def test_clicking_each_term_explains_it_and_highlights_its_hooks(qtbot, lab):
    session, panel = lab
    panel.set_focus("formula")
    explanation = find(panel, QWidget, "ffnTermExplanation")
    seen: list[list[str]] = []
    panel.termHighlighted.connect(seen.append)
    texts = set()
    for term in FORMULA_TERMS:
        button = find(panel, QPushButton, f"ffnTerm_{term}")
        with qtbot.waitSignal(panel.termHighlighted, timeout=1000) as blocker:
            click(qtbot, button)
        assert blocker.args == [EXPECTED_HOOKS[term]]
        assert seen[-1] == EXPECTED_HOOKS[term] == term_hooks(term, session.config)
        assert button.isChecked()
        assert explanation.text() == panel.formula.explanations()[term]
        assert f"<b>{term}</b>" in explanation.text()
        assert ", ".join(EXPECTED_HOOKS[term]) in find(panel, QWidget, "ffnTermHooks").text()
        texts.add(explanation.text())
    assert len(texts) == len(FORMULA_TERMS)
    assert len(seen) == len(FORMULA_TERMS)


def test_formula_shows_the_open_scenarios_shapes_and_follows_a_config_change(qtbot, lab):
    session, panel = lab
    shapes = find(panel, QWidget, "ffnFormulaShapes")
    assert "W_up 2×2" in shapes.text() and "W_down 2×1" in shapes.text() and "T = 4" in shapes.text()
    click(qtbot, find(panel, QPushButton, "ffnTerm_W_up"))
    assert "2×2" in panel.formula.explanation.text()
    assert session.set_config(d_ff=3)
    assert "W_up 2×3" in shapes.text() and "W_down 3×1" in shapes.text()
    assert "2×3" in panel.formula.explanation.text()


def test_x_points_at_ln2_in_a_pre_norm_block(qtbot, block):
    session, panel = block
    assert session.set_config(norm_placement="pre")
    with qtbot.waitSignal(panel.termHighlighted, timeout=1000) as blocker:
        click(qtbot, find(panel, QPushButton, "ffnTerm_x"))
    assert blocker.args == [["ln2.hook_out"]]


# --- width -------------------------------------------------------------------------------------
def test_width_plot_shows_the_vaswani_table(lab):
    _, panel = lab
    panel.set_focus("width")
    x, y = panel.width_part.plotted()
    np.testing.assert_array_equal(x, [row.d_ff for row in VASWANI_WIDTH])
    np.testing.assert_array_equal(y, [row.dev_perplexity for row in VASWANI_WIDTH])
    labels = [item.toPlainText() for item in panel.width_part.point_labels]
    assert labels == ["5.12 · 53M params", "4.92 · 65M params", "4.75 · 90M params"]
    source = find(panel, QWidget, "ffnWidthSource").text()
    assert "Vaswani et al. 2017" in source and "Table 3" in source
    gpt2 = find(panel, QWidget, "ffnWidthGpt2").text()
    assert f"{gpt2_ffn_parameters():,}" == "4,722,432" and "4,722,432" in gpt2
    assert "768" in gpt2 and "3,072" in gpt2 and "×4" in gpt2



def test_the_width_plots_point_labels_lie_off_the_line(qtbot, lab):
    """Each "5.12 · 53M params" stands clear of the curve (centred above every point, the falling
    line ran through the labels of the last two), in the plot."""
    from app.widgets.appearance import appearance
    _, panel = lab
    appearance().set_presenting(True)
    panel.set_focus("width")
    part = panel.width_part
    view_box = part.plot.getViewBox()
    qtbot.waitUntil(lambda: view_box.height() > 0, timeout=2000)
    x, y = part.plotted()
    along = [(float(np.interp(t, [0, 1], x[k:k + 2])), float(np.interp(t, [0, 1], y[k:k + 2])))
             for k in range(len(x) - 1) for t in np.linspace(0, 1, 200)]
    part.plot_widget.grab()                  # a TextItem places itself (ignoring the zoom) as it paints
    plot_box = view_box.sceneBoundingRect()
    for label in part.point_labels:
        box = label.textItem.mapRectToScene(label.textItem.boundingRect())
        assert plot_box.contains(box), label.toPlainText()
        crossed = [point for point in along if box.contains(view_box.mapViewToScene(pg.Point(*point)))]
        assert crossed == [], label.toPlainText()

def _laid_out(part, size) -> None:
    """The page at `size`, its plot laid out at the room it has there."""
    part.window().resize(*size)
    view_box = part.plot.getViewBox()
    before: list = []

    def steady() -> bool:                      # the same room two turns running
        now = (part.plot_widget.width(), part.plot_widget.height(), view_box.width(), view_box.height())
        steady_now = before[-1:] == [now]
        before.append(now)
        return steady_now and view_box.width() > 0

    settle(steady)


def _plot_problems(part) -> list[str]:
    """Every text of the width plot (point labels, axis names, tick labels) that is cut by the
    plot's view, clipped by the box the points are drawn in, reaches past the side of the plot
    its axis spans, or overlaps another."""
    from tests.app.plot_helpers import cut_off, describe, overlaps, texts_of
    graphics = part.plot_widget
    part.plot_widget.grab()                          # a TextItem places itself as it paints
    texts = texts_of(graphics)
    view_box = part.plot.getViewBox()
    box = graphics.mapFromScene(view_box.sceneBoundingRect()).boundingRect().toRectF().adjusted(-1, -1, 1, 1)
    problems = [f"cut by the view: {t.text!r} {t.rect.getRect()}" for t in cut_off(graphics, texts)]
    problems += [f"outside the points' box: {t.text!r}" for t in texts
                 if isinstance(t.owner, pg.TextItem) and not box.contains(t.rect)]
    for t in texts:
        if t.owner is part.plot.getAxis("left") and t.kind == "label" \
                and (t.rect.top() < box.top() or t.rect.bottom() > box.bottom()):
            problems.append(f"the y axis's name runs past the plot's height: {t.text!r}")
        if t.owner is part.plot.getAxis("bottom") and t.kind == "label" \
                and (t.rect.left() < box.left() or t.rect.right() > box.right()):
            problems.append(f"the x axis's name runs past the plot's width: {t.text!r}")
    labels = [t.text for t in texts if isinstance(t.owner, pg.TextItem)]
    ticks = [t.text for t in texts if t.kind == "tick" and t.owner is part.plot.getAxis("bottom")]
    if len(labels) != len(VASWANI_WIDTH) or ticks != [f"{row.d_ff:,}" for row in VASWANI_WIDTH]:
        problems.append(f"not every label and d_ff tick shown: {labels}, {ticks}")
    pairs = overlaps(texts)
    if pairs:
        problems.append(f"overlapping: {describe(pairs)}")
    return problems


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_width_plot_keeps_every_text_whole_at_any_size(qtbot, lab, language):
    """At the desk with 150 % zoom on a 1024×768 screen (a teacher's projector) the plot had about
    640 × 250 px: "5.12 · 53M params" was cut at the left, "4.75 · 90M params" at the right, and
    "dev perplexity (lower is better)" at both ends. At any room the page gives it, every text
    of the plot lies whole inside it (the labels placed and the ranges widened by what the labels
    need, measured in their font); its y axis's name is worded shorter where the full one does
    not fit, and in full where it does."""
    from app import i18n
    from app.widgets.appearance import appearance
    _, panel = lab
    i18n.install(language)
    try:
        panel.hide()                                                 # zoomed before the page is shown,
        appearance().set_zoom(1.5)                                   # as a window opens at 150 %
        panel.show()
        panel.set_focus("width")
        part = panel.width_part
        full = part.tr("dev perplexity (lower is better)")
        for size in ((665, 530), (560, 600), (520, 700)):      # 1024×768 at 150 %: the page is 665 px wide
            _laid_out(part, size)
            assert _plot_problems(part) == [], (size, language)
        assert part.plot.getAxis("left").labelText != full          # the full name did not fit
        appearance().set_presenting(True)
        _laid_out(part, (1024, 573))                                 # presenting, 1024×768 at 150 %
        assert _plot_problems(part) == [], language
        appearance().reset()
        _laid_out(part, (1280, 700))                                 # room enough: the full name
        assert _plot_problems(part) == [], language
        assert part.plot.getAxis("left").labelText == full
        appearance().set_zoom(2.0)                                   # a zoom on screen, at the same size
        _laid_out(part, (1280, 700))
        assert _plot_problems(part) == [], language
        x, y = part.plotted()                                        # the points stay the paper's
        np.testing.assert_array_equal(x, [row.d_ff for row in VASWANI_WIDTH])
        np.testing.assert_array_equal(y, [row.dev_perplexity for row in VASWANI_WIDTH])
    finally:
        appearance().reset()
        i18n.install("en")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_window_opened_at_150_percent_shows_the_width_plots_texts_whole(qtbot, language):
    """A window opened at 150 % (the zoom the teacher chose last time) on the C4 lesson's step 11,
    at 1024×768: the plot's names were fitted before the page's fonts followed the zoom, and
    pyqtgraph left each larger name where the smaller one had been centred: "困惑度，越低越好" ran
    past the plot's top, "d_ff (d_model = 512)" past its bottom."""
    from app.launch import build_window, find_lesson
    from app.widgets.appearance import appearance
    try:
        _, window = build_window(find_lesson("c4-ffn"), language, 10, zoom=1.5)
        qtbot.addWidget(window)
        window.resize(1024, 768)
        window.show()
        part = window.findChild(QWidget, "ffnWidthPart")
        _laid_out(part, (1024, 768))
        assert _plot_problems(part) == [], language
        window.close()
    finally:
        appearance().reset()


# --- shapes ------------------------------------------------------------------------------------
def test_small_scale_toggle_changes_edges_and_parameter_count(qtbot, lab):
    _, panel = lab
    panel.set_focus("shapes")
    canvas = panel.shapes.canvas
    params = find(panel, QWidget, "ffnShapesParams")
    before = canvas.edge_labels()
    assert {text for symbol, text in before if symbol == "d"} == {"768"}
    assert {text for symbol, text in before if symbol == "d_ff"} == {"3,072"}
    assert {text for symbol, text in before if symbol == "T"} == {"5"}
    assert "4,722,432" in params.text()
    big = canvas.block_rects()

    toggle = find(panel, QCheckBox, "ffnShapesSmall")
    click(qtbot, toggle)
    assert toggle.isChecked()
    after = canvas.edge_labels()
    assert {text for symbol, text in after if symbol in ("d", "d_ff")} == {"2"}
    assert {text for symbol, text in after if symbol == "T"} == {"5"}
    assert f"<b>{shape_view('small').parameters}</b>" in params.text() == params.text()
    assert "<b>12</b>" in params.text() and "9" in params.text() and "4,722,432" not in params.text()
    small = canvas.block_rects()
    assert small["W_up"].width() < big["W_up"].width()
    assert small["X"].height() == big["X"].height()          # T is 5 in both scales

    click(qtbot, toggle)
    assert canvas.edge_labels() == before


def test_equal_symbols_are_drawn_equally_long_on_screen(lab):
    _, panel = lab
    canvas = panel.shapes.canvas
    rects = canvas.block_rects()
    view = canvas.view
    lengths: dict[str, set[float]] = {}
    for block in view.blocks:
        rect = rects[block.name]
        lengths.setdefault(block.rows, set()).add(round(rect.height(), 6))
        lengths.setdefault(block.columns, set()).add(round(rect.width(), 6))
    assert all(len(v) == 1 for v in lengths.values())
    (t,), (d,), (f,) = lengths["T"], lengths["d"], lengths["d_ff"]
    assert t < d < f
    table = panel.shapes.table
    assert [table.item(r, 0).text() for r in range(3)] == ["T", "d", "d_ff"]
    assert [table.item(r, 2).text() for r in range(3)] == ["5", "768", "3,072"]
    assert [table.item(r, 3).text() for r in range(3)] == ["5", "2", "2"]


# --- shuffle -----------------------------------------------------------------------------------
def test_shuffle_button_moves_ffn_rows_unchanged_and_changes_causal_attention(qtbot, lab):
    _, panel = lab
    panel.set_focus("shuffle")
    part = panel.shuffle
    ffn, attention = part.ffn_table, part.attention_table
    assert ffn.item(0, 2).text() == ""                       # nothing shuffled yet
    click(qtbot, find(panel, QPushButton, "ffnShuffle"))
    default = load_scenario(SCENARIOS / "block-default.json")   # the lab has no attention
    expected = shuffle_demo(default, shuffle_permutation(5, 0))
    assert "block-default.json" in find(panel, QWidget, "ffnShuffleSource").text()
    assert " ".join(expected.shuffled_tokens) in find(panel, QWidget, "ffnShuffleOrder").text()
    changed = 0
    for t in range(5):
        assert ffn.item(t, 2).text() == "✓"
        before, after = part.cell_lines(ffn, t, 1)
        assert before == after
        assert before.split() == [format_number(v, 3) for v in expected.ffn_original[t]]
        a_before, a_after = part.cell_lines(attention, t, 1)
        assert a_before.split() == [format_number(v, 3) for v in expected.attention_original[t]]
        new = expected.new_positions[t]
        assert a_after.split() == [format_number(v, 3) for v in expected.attention_shuffled[new]]
        if attention.item(t, 2).text().startswith("Δ"):
            changed += 1
            assert a_before != a_after
            assert attention.item(t, 2).text() == f"Δ {format_number(expected.attention_change[t], 3)}"
    assert changed == expected.attention_changed_count >= 1
    verdict = find(panel, QWidget, "ffnShuffleVerdict").text()
    assert "5 of 5 rows" in verdict

    click(qtbot, find(panel, QPushButton, "ffnShuffle"))
    second = shuffle_demo(default, shuffle_permutation(5, 1))
    assert "#2" in find(panel, QWidget, "ffnShuffleOrder").text()
    assert part.cell_lines(attention, 0, 1)[1].split() == \
        [format_number(v, 3) for v in second.attention_shuffled[second.new_positions[0]]]


def test_before_a_shuffle_the_lower_line_says_so_in_words(qtbot, lab):
    """Before the first shuffle each cell's lower line (the row after the shuffle) is a few words
    in both languages, not a lone dash: one character wide in the fixed-width font under a row of
    digits, "—" read as "_" on a projector (C4 step 13)."""
    from app import i18n
    _, panel = lab
    panel.set_focus("shuffle")
    part = panel.shuffle
    for language, words in (("en", "(not shuffled yet)"), ("zh", "（还没打乱）")):
        i18n.install(language)
        try:
            settle(lambda: part.cell_lines(part.ffn_table, 0, 1)[1] == words)
            for table in (part.ffn_table, part.attention_table):
                assert {part.cell_lines(table, t, 1)[1] for t in range(table.rowCount())} == {words}
            order = find(panel, QWidget, "ffnShuffleOrder").text()         # the sentence, glossed in English
            assert ("Xiaoming gave the apple to Xiao Wang" in order) == (language == "en")
            # the tables' tokens word by word, in English only (C4 step 13's token column had none)
            glossary = find(panel, QLabel, "ffnShuffleGlossary")
            if language == "en":
                assert glossary.isVisible() and glossary.text() == \
                    "小明 Xiaoming · 把 (object marker) · 苹果 the apple · 给了 gave · 小王 Xiao Wang"
            else:
                assert not glossary.isVisible()
        finally:
            i18n.install("en")


def test_shuffle_runs_on_the_open_block_and_follows_its_edits(qtbot, block):
    session, panel = block
    panel.set_focus("shuffle")
    click(qtbot, find(panel, QPushButton, "ffnShuffle"))
    assert "open scenario" in find(panel, QWidget, "ffnShuffleSource").text()
    assert session.set_value("W_out", (0, 0), 3.0)
    expected = shuffle_demo(session.scenario, shuffle_permutation(5, 0))
    assert panel.shuffle.cell_lines(panel.shuffle.ffn_table, 0, 1)[0].split() == \
        [format_number(v, 3) for v in expected.ffn_original[0]]
    assert expected.ffn_original[0][0] == pytest.approx(3.0)          # relu(x₁[0] = 1) · 3


# --- misconceptions ----------------------------------------------------------------------------
def test_scale_slider_moves_the_point_and_the_curves_come_from_core(qtbot, lab):
    _, panel = lab
    panel.set_focus("misconceptions")
    part = panel.misconceptions
    expected = first_token_scaling(load_scenario(SCENARIOS / "block-default.json"))
    for curve, k in zip(part.first_curves, range(4)):
        x, y = curve.getData()
        np.testing.assert_array_equal(x, expected.scales)
        np.testing.assert_array_equal(y, expected.first[:, k])
    for curve, k in zip(part.late_curves, range(4)):
        np.testing.assert_array_equal(curve.getData()[1], expected.late[:, k])
    assert not any(curve.isVisible() for curve in part.first_curves[4:])

    slider = find(panel, QSlider, "ffnScaleFirst")
    start = slider.value()
    assert SCALE_GRID[start] == pytest.approx(1.0)
    (x0, y0), _ = part.point_data()
    np.testing.assert_array_equal(y0, expected.first[start])
    slider.setFocus()
    for _ in range(5):
        qtbot.keyClick(slider, Qt.Key.Key_Left)
    index = slider.value()
    assert index == start - 5 and SCALE_GRID[index] == pytest.approx(0.5)
    (x1, y1), (lx, ly) = part.point_data()
    assert np.all(x1 == SCALE_GRID[index]) and not np.array_equal(x0, x1)
    np.testing.assert_array_equal(y1, expected.first[index])
    np.testing.assert_array_equal(ly, expected.late[index])
    assert find(panel, QWidget, "ffnScaleValue").text() == "s = 0.5"
    check = find(panel, QWidget, "ffnScaleCheck").text()
    assert format_number(expected.first_curvature, 6) == "0.000000" and "<b>0.000000</b>" in check
    assert f"<b>{format_number(expected.late_curvature, 6)}</b>" in check
    assert "straight" in part.first_plot.titleLabel.text and "curved" in part.late_plot.titleLabel.text
    assert "(小明 “Xiaoming”)" in part.first_plot.titleLabel.text           # the sample sentence, glossed
    assert "(小王 “Xiao Wang”)" in part.late_plot.titleLabel.text


def test_misconception_one_summarises_the_live_shuffle(qtbot, lab):
    _, panel = lab
    panel.set_focus("misconceptions")
    summary = find(panel, QWidget, "ffnMisShuffleSummary")
    assert "shuffle #1: 5 of 5 FFN rows" in summary.text()
    click(qtbot, find(panel, QPushButton, "ffnMisGoShuffle"))
    assert panel.current_part() == "shuffle"
    click(qtbot, find(panel, QPushButton, "ffnShuffle"))
    click(qtbot, find(panel, QPushButton, "ffnShuffle"))
    second = shuffle_demo(load_scenario(SCENARIOS / "block-default.json"), shuffle_permutation(5, 1))
    assert "shuffle #2: 5 of 5 FFN rows" in summary.text()
    assert f"output of {second.attention_changed_count} of 5 tokens" in summary.text()


def test_the_plots_follow_an_edit_of_the_open_block(qtbot, block):
    session, panel = block
    panel.set_focus("misconceptions")
    assert session.set_value("W_V", (0, 0, 0), 1.5)
    expected = first_token_scaling(session.scenario)
    np.testing.assert_array_equal(panel.misconceptions.first_curves[0].getData()[1], expected.first[:, 0])
    assert expected.first[-1, 0] == pytest.approx(2 * 1.5 * 1.0)   # s = 2, x₁[0] = 1, W_V·W_O = 1.5


def test_an_ffn_weight_edit_leaves_the_attention_scaling_as_it_is(qtbot, block, monkeypatch):
    """The scaling demo reads the inputs and the attention weights: an edit of W_in or a norm
    recomputes and redraws nothing there; an input or attention edit (or its undo) does."""
    session, panel = block
    panel.set_focus("misconceptions")
    qtbot.waitUntil(lambda: panel.misconceptions.result is not None)       # drawn once
    import app.labs.ffn_page.source as page
    runs = []
    real = page.first_token_scaling
    monkeypatch.setattr(page, "first_token_scaling", lambda *a, **k: (runs.append(1), real(*a, **k))[1])
    shown = panel.misconceptions.result
    for tensor, index, value in (("W_in", (0, 0), 2.5), ("b_out", (1,), -0.5), ("ln2.w", (0,), 0.5)):
        assert session.set_value(tensor, index, value)
    assert runs == [] and panel.misconceptions.result is shown
    for tensor, index, value in (("inputs", (0, 1), 3.0), ("b_O", (2,), 0.25)):
        assert session.set_value(tensor, index, value)
        np.testing.assert_array_equal(panel.misconceptions.first_curves[1].getData()[1],
                                      first_token_scaling(session.scenario).first[:, 1])
    assert len(runs) == 2
    session.undo_stack.undo()
    assert len(runs) == 3
    np.testing.assert_array_equal(panel.misconceptions.late_curves[2].getData()[1],
                                  first_token_scaling(session.scenario).late[:, 2])


def test_hidden_parts_do_not_recompute_on_an_edit(qtbot, block, monkeypatch):
    session, panel = block
    panel.set_focus("formula")
    calls = []
    import app.labs.ffn_page.source as page
    monkeypatch.setattr(page, "first_token_scaling", lambda *a, **k: calls.append(1))
    assert session.set_value("W_V", (0, 0, 0), 0.7)
    assert calls == []
    assert panel.misconceptions._stale


# --- language ----------------------------------------------------------------------------------
def test_chinese(qtbot, lab):
    from app import i18n
    _, panel = lab
    i18n.install("zh")
    qtbot.wait(10)
    assert panel.tabs.tabText(0) == "公式"
    assert find(panel, QPushButton, "ffnShuffle").text() == "打乱 token"
    panel.set_focus("shapes")
    click(qtbot, find(panel, QCheckBox, "ffnShapesSmall"))
    assert "两个神经元" in panel.shapes.heading.text()
    i18n.install("en")
    qtbot.wait(10)
    assert panel.tabs.tabText(0) == "Formula"


def test_the_shapes_drawing_writes_its_numbers_at_presentation_size(qtbot, lab):
    """The edge numbers and captions are painted, not widgets: they follow presentation mode
    like every other text (they stayed at 13 px on a projector), and the drawing still fits."""
    from app.widgets.appearance import appearance
    _, panel = lab
    panel.set_focus("shapes")
    canvas = panel.shapes.canvas

    def edge_heights():
        return sorted({round(rect.height()) for what, rect, _text, _kind in canvas.layout_items() if what == "edge_top"})

    before = edge_heights()
    appearance().set_presenting(True)
    after = edge_heights()
    assert before and len(after) == len(before) and all(a > b for a, b in zip(after, before))
    assert canvas.edge_font.pointSizeF() * 96 / 72 >= 16                     # 16 px text on a projector
    for what, rect, _text, _kind in canvas.layout_items():
        assert canvas.rect().toRectF().contains(rect), what


@pytest.mark.parametrize("language", ["en", "zh"])
def test_presenting_at_1024x768_with_150_percent_zoom_the_shapes_page_needs_no_scrolling(qtbot, lab, language):
    """A projector at 1024×768 with 150 % zoom: the shapes page asked for 42 px (Chinese 69 px)
    more than its 534 px high room, the drawing's height following its width. Presenting, the
    drawing takes the height left and asks only for its texts and its blocks at their least: the
    page fits, every text and block of the drawing inside it, the parameter count below it seen."""
    from app import i18n
    from app.widgets.appearance import appearance
    from tests.app.fit_helpers import hidden_part, scrolling_pages
    _, panel = lab
    i18n.install(language)
    try:
        panel.set_focus("shapes")
        appearance().set_zoom(1.5)
        appearance().set_presenting(True)
        panel.resize(1024, 573)                     # the lab's room in the window, 1024×768 at 150 %
        scroll = panel.findChild(QWidget, "ffnScroll_shapes")
        bar = scroll.verticalScrollBar()
        settle(lambda: scroll.viewport().height() > 500 and bar.isVisible() == (bar.maximum() > 0))   # laid out
        assert scrolling_pages(panel) == []
        canvas = panel.shapes.canvas
        assert canvas.height() >= canvas.least_height()
        for what, rect, text, _kind in canvas.layout_items():
            assert canvas.rect().toRectF().contains(rect), (what, text)
        parameters = find(panel, QWidget, "ffnShapesParams")
        assert hidden_part(parameters, panel) is None and hidden_part(canvas, panel) is None
    finally:
        i18n.install("en")
