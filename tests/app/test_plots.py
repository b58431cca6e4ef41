"""The explorer's plots show exactly what `core` computes, follow every edit, and keep their items."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from core.analysis import activate_values, activation_curve, mse_sweep, sweep_range
from core.formats.scenario import load_scenario
from tests.app.helpers import make_session, settle

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "resources" / "scenarios"


@pytest.fixture
def plots(qtbot, session):
    from app.explorer.plots import PlotsPanel
    panel = PlotsPanel(session)
    qtbot.addWidget(panel)
    panel.resize(800, 450)
    panel.show()
    qtbot.waitExposed(panel)
    yield panel
    panel.close()


def image_of(item) -> np.ndarray:
    return np.asarray(item.image)


def scatter_xy(item) -> tuple[np.ndarray, np.ndarray]:
    x, y = item.getData()
    return np.asarray(x), np.asarray(y)


def test_hidden_units_and_mse_follow_an_edit(plots, session):
    pre_item, post_item = plots.pre_image, plots.post_image
    before = image_of(pre_item).copy()
    assert session.set_value("W_in", (0, 1), 2.5)
    trace = session.trace
    assert not np.array_equal(image_of(plots.pre_image), before)
    np.testing.assert_array_equal(image_of(plots.pre_image), trace["mlp.hook_pre"].astype(np.float32))
    np.testing.assert_array_equal(image_of(plots.post_image), trace["mlp.hook_post"].astype(np.float32))
    assert image_of(plots.pre_image).dtype == np.float32
    assert plots.mse_label.text() == f"{session.mse:.6f}"
    assert plots.pre_image is pre_item and plots.post_image is post_item
    # one symmetric scale for both maps, so they compare
    assert tuple(pre_item.levels) == tuple(post_item.levels)
    assert pre_item.levels[0] == -pre_item.levels[1]


def test_a_hidden_panel_redraws_nothing_until_it_is_shown(plots, session, monkeypatch):
    """A lab step fills the window and hides the plots: an edit then costs them nothing, and shown
    again they show the block as it is now."""
    plots.show_tab("hidden")
    tab = plots.hidden_tab
    redraws = []
    original = tab.refresh
    monkeypatch.setattr(tab, "refresh", lambda: (redraws.append(1), original())[1])
    plots.hide()
    session.set_value("W_in", (0, 1), 2.5)
    session.set_value("W_in", (1, 2), -1.5)
    assert redraws == []
    plots.show()
    assert redraws                                          # shown: drawn as the block is now
    np.testing.assert_array_equal(image_of(tab.pre_image), session.trace["mlp.hook_pre"].astype(np.float32))
    shown = len(redraws)
    session.set_value("W_in", (0, 1), 0.5)                  # on screen: redrawn at once
    assert len(redraws) == shown + 1


def test_patterns_per_head_and_the_causal_mask(plots, session):
    images = [plots.pattern_image(h) for h in range(session.config.n_heads)]
    pattern = session.trace["attn.hook_pattern"]
    for h, image in enumerate(images):
        np.testing.assert_array_equal(image_of(image), pattern[h].astype(np.float32))
    upper = np.triu(np.ones(pattern.shape[1:], dtype=bool), k=1)
    assert all(image_of(image)[upper].min() > 0 for image in images)   # full mask: every key seen

    assert session.set_config(mask="causal")
    pattern = session.trace["attn.hook_pattern"]
    for h, image in enumerate(images):
        assert plots.pattern_image(h) is image
        np.testing.assert_array_equal(image_of(image), pattern[h].astype(np.float32))
        assert np.all(image_of(image)[upper] == 0)
        assert tuple(image.levels) == (0.0, 1.0)
    # the learner reads the masked cell as masked, the others as numbers
    numbers = plots.attention_tab.numbers[0]
    T = pattern.shape[1]
    shown = numbers.shown()
    assert (shown[1].row, shown[1].column, shown[1].text) == (0, 1, "—")
    assert (shown[T].row, shown[T].column, shown[T].text) == (1, 0, f"{pattern[0, 1, 0]:.2f}")


def test_activation_curve_switches_to_gelu(plots, session):
    curve = plots.activation_curve
    x_relu, y_relu = (np.asarray(a) for a in curve.getData())
    np.testing.assert_allclose(y_relu, activate_values("relu", x_relu))
    assert session.set_config(activation="gelu")
    assert plots.activation_curve is curve
    x, y = (np.asarray(a) for a in curve.getData())
    core_x, core_y = activation_curve("gelu", x[0], x[-1], len(x))
    np.testing.assert_array_equal(x, core_x)
    np.testing.assert_array_equal(y, core_y)
    assert x[0] <= -4 and x[-1] >= 4
    assert not np.allclose(y, activate_values("relu", x))
    assert not plots.activation_tab.dead_zone.isVisible()   # the shaded dead zone is ReLU's only


def test_activation_points_are_the_selected_tokens_pre_activations(plots, session):
    points = plots.activation_points
    x, y = scatter_xy(points)
    np.testing.assert_array_equal(x, session.trace["mlp.hook_pre"][0])
    np.testing.assert_array_equal(y, activate_values("relu", session.trace["mlp.hook_pre"][0]))
    assert plots.activation_tab.dead_zone.isVisible()
    session.select(token=2)
    x, y = scatter_xy(plots.activation_points)
    assert plots.activation_points is points
    np.testing.assert_array_equal(x, session.trace["mlp.hook_pre"][2])
    np.testing.assert_array_equal(y, activate_values("relu", session.trace["mlp.hook_pre"][2]))
    # every point lies inside the plotted range
    (x_low, x_high), (y_low, y_high) = plots.activation_tab.plot.vb.viewRange()
    assert x_low <= x.min() and x.max() <= x_high and y_low <= y.min() and y.max() <= y_high


@pytest.mark.parametrize("tab", ["activation", "mse"])
def test_restyling_keeps_one_picture_of_each_symbol(plots, tab):
    """A zoom or theme change restyles the plots. pyqtgraph keeps every symbol it draws in a picture
    per scatter, keyed by the pen's and brush's objects: a new pen of the same colour on each
    restyle added a copy of the symbol each time (the soak: +0.6 MB over 5,000 actions). The
    activation points, the MSE sweep's marker and the MSE history's dots take one pen and brush
    object per colour."""
    from app.widgets.appearance import appearance
    plots.show_tab(tab)
    points = plots.activation_points if tab == "activation" else plots.history_curve.scatter

    def zoom_and_themes() -> int:
        for change in (appearance().zoom_in, appearance().zoom_out, lambda: appearance().set_theme("dark"),
                       lambda: appearance().set_theme("light")):
            change()
            plots.grab()
        return len(points.fragmentAtlas)

    first = zoom_and_themes()
    assert zoom_and_themes() == first and zoom_and_themes() == first


def test_huge_pre_activations_keep_the_curve_small(plots, session):
    """±1e6 inputs and weights (allowed values) once froze the tab or ran it out of memory."""
    from core.analysis import MAX_CURVE_POINTS
    plots.show_tab("activation")
    assert session.set_config(norm="none")
    T, d = session.tensor("inputs").shape
    for t in range(T):
        for j in range(d):
            assert session.set_value("inputs", (t, j), 1e6)
    rows, columns = session.tensor("W_in").shape
    for i in range(rows):
        for j in range(columns):
            assert session.set_value("W_in", (i, j), 1e6)
    pre = session.trace["mlp.hook_pre"][0]
    assert np.abs(pre).max() > 1e12
    x, y = (np.asarray(a) for a in plots.activation_curve.getData())
    assert 2 <= len(x) <= MAX_CURVE_POINTS == 2001
    assert np.isfinite(x).all() and np.isfinite(y).all()
    assert x[0] <= pre.min() and x[-1] >= pre.max()           # the curve reaches every point
    np.testing.assert_array_equal(y, activate_values("relu", x))
    px, py = scatter_xy(plots.activation_points)
    np.testing.assert_array_equal(px, pre)
    np.testing.assert_array_equal(py, activate_values("relu", pre))
    (x_low, x_high), (y_low, y_high) = plots.activation_tab.plot.vb.viewRange()
    assert x_low <= px.min() and px.max() <= x_high and y_low <= py.min() and py.max() <= y_high


def test_hidden_unit_levels_stay_put_and_only_widen(plots, session):
    plots.show_tab("hidden")
    pre_item, post_item = plots.pre_image, plots.post_image
    levels = tuple(pre_item.levels)
    limit = levels[1]
    assert levels == (-limit, limit) and limit >= np.abs(session.trace["mlp.hook_pre"]).max()
    # a small edit: the colours keep their meaning
    assert session.set_value("W_in", (0, 1), float(session.tensor("W_in")[0, 1]) + 0.05)
    assert tuple(plots.pre_image.levels) == levels == tuple(post_item.levels)
    assert tuple(plots.hidden_tab.bar.levels()) == levels
    # a value past the limit widens it, so the extreme value still stands out
    assert session.set_value("W_in", (0, 0), 40.0)
    biggest = max(np.abs(session.trace["mlp.hook_pre"]).max(), np.abs(session.trace["mlp.hook_post"]).max())
    assert biggest > limit
    wide = tuple(plots.pre_image.levels)
    assert wide[1] >= biggest and wide == (-wide[1], wide[1]) and wide[1] > limit
    assert tuple(post_item.levels) == wide == tuple(plots.hidden_tab.bar.levels())
    # undoing it does not narrow them again: no jumps back and forth while editing
    session.undo_stack.undo()
    assert tuple(plots.pre_image.levels) == wide
    # a freshly loaded scenario starts from its own numbers
    session.load(load_scenario(SCENARIOS / "block-default.json"))
    assert tuple(plots.pre_image.levels) == levels
    # a new structure too
    assert session.set_config(d_ff=8)
    from app.widgets.style import limit_for
    fresh = max(limit_for(session.trace["mlp.hook_pre"]), limit_for(session.trace["mlp.hook_post"]))
    assert tuple(plots.pre_image.levels) == (-fresh, fresh)


def test_history_shows_at_most_the_last_500_steps(plots, session):
    from app.explorer.plots import MAX_HISTORY_SHOWN
    plots.show_tab("mse")
    session.mse_history.extend(np.linspace(0.1, 0.9, 700).tolist())
    assert session.set_value("W_in", (1, 1), 0.25)
    total = len(session.mse_history)
    assert total == 702                                   # the session keeps every step
    x, y = (np.asarray(a) for a in plots.history_curve.getData())
    assert MAX_HISTORY_SHOWN == 500 and len(x) == len(y) == 500
    np.testing.assert_array_equal(y, session.mse_history[-500:])
    np.testing.assert_array_equal(x, np.arange(total - 500, total))   # steps keep their numbers
    (x_low, x_high), _ = plots.mse_tab.history_plot.vb.viewRange()
    assert x_low <= x[0] and x[-1] <= x_high and x_low > 0


def test_gated_ffn_marks_the_gate_values(plots, session):
    assert session.set_config(gated=True, activation="silu")
    gate = session.trace["mlp.hook_gate"][0]
    x, y = scatter_xy(plots.activation_points)
    np.testing.assert_array_equal(x, gate)
    np.testing.assert_array_equal(y, activate_values("silu", gate))
    assert plots.gate_image.isVisible()
    np.testing.assert_array_equal(image_of(plots.gate_image), session.trace["mlp.hook_gate"].astype(np.float32))
    np.testing.assert_array_equal(image_of(plots.post_image), session.trace["mlp.hook_post"].astype(np.float32))


def test_residual_bars_show_the_selected_token(plots, session):
    session.select(token=3)
    stages = ["hook_resid_pre", "ln1.hook_in", "hook_resid_mid", "ln2.hook_in", "hook_resid_post"]
    for bar, hook in zip(plots.residual_bars, stages):
        assert bar.isVisible()
        np.testing.assert_array_equal(bar.opts["height"], session.trace[hook][3])
    assert "给了" in plots.residual_tab.plot.titleLabel.text


SWEEP_MS = 20_000      # the sweep runs on the worker thread: generous, never a stopwatch


def swept(qtbot, plots):
    qtbot.waitUntil(lambda: not plots.mse_tab.sweep_stale and not plots.mse_tab.worker.busy, timeout=SWEEP_MS)


def show_mse_tab(qtbot, plots):
    plots.setCurrentWidget(plots.mse_tab)
    swept(qtbot, plots)


def test_sweep_passes_through_the_current_mse(qtbot, plots, session):
    show_mse_tab(qtbot, plots)
    curve, marker = plots.sweep_curve, plots.sweep_marker
    session.select_edit_cell("W_in", (0, 0))
    assert session.set_value("W_in", (0, 0), 0.7)
    swept(qtbot, plots)
    xs, ys = (np.asarray(a) for a in curve.getData())
    np.testing.assert_array_equal(xs, sweep_range(0.7))
    state = session.state
    expected = mse_sweep(state.config, state.weights, state.inputs, state.targets, "W_in", (0, 0), xs)
    np.testing.assert_array_equal(ys, expected)
    middle = int(np.argmin(np.abs(xs - 0.7)))
    assert ys[middle] == pytest.approx(session.mse, rel=1e-9, abs=1e-12)
    mx, my = scatter_xy(marker)
    assert (mx[0], my[0]) == (0.7, session.mse)

    # another edit cell: the sweep follows it, on the same items
    session.select_edit_cell("W_out", (1, 2))
    swept(qtbot, plots)
    xs, _ = (np.asarray(a) for a in curve.getData())
    np.testing.assert_array_equal(xs, sweep_range(float(session.tensor("W_out")[1, 2])))
    assert plots.sweep_curve is curve and plots.sweep_marker is marker


def test_several_edits_in_one_turn_sweep_once(qtbot, plots, session, monkeypatch):
    show_mse_tab(qtbot, plots)
    session.select_edit_cell("W_in", (0, 0))
    swept(qtbot, plots)
    calls = []
    original = plots.mse_tab.update_sweep
    monkeypatch.setattr(plots.mse_tab, "update_sweep", lambda: (calls.append(1), original()))
    for value in (0.1, 0.2, 0.3):
        session.set_value("W_in", (0, 0), value)
    swept(qtbot, plots)
    assert len(calls) == 1


def test_history_grows_by_one_per_edit(plots, session):
    curve = plots.history_curve
    start = len(curve.getData()[1])
    assert start == len(session.mse_history) >= 1
    session.set_value("W_in", (1, 1), 0.25)
    session.set_value("b_out", (0,), -0.5)
    x, y = (np.asarray(a) for a in plots.history_curve.getData())
    assert len(y) == start + 2
    np.testing.assert_array_equal(y, session.mse_history)
    assert plots.history_curve is curve


def test_no_targets_offers_the_output_as_target(qtbot):
    from app.explorer.plots import PlotsPanel
    session = make_session("r45-ffn.json")
    plots = PlotsPanel(session)
    qtbot.addWidget(plots)
    plots.resize(800, 450)
    plots.show()
    plots.setCurrentWidget(plots.mse_tab)
    assert session.mse is None
    button = plots.findChild(QPushButton, "plotsUseOutputAsTarget")
    assert button is not None and button.isVisible()
    assert "no targets" in plots.findChild(type(plots.mse_label), "plotsNoTargets").text()
    assert not plots.mse_label.isVisible()
    # attention is off in this scenario: the attention tab says so
    assert plots.attention_tab.stack.currentWidget() is plots.attention_tab.off_label
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert session.mse == 0
    assert plots.mse_label.isVisible()
    assert plots.mse_label.text() == "0.000000"
    swept(qtbot, plots)
    xs, ys = (np.asarray(a) for a in plots.sweep_curve.getData())
    assert ys[int(np.argmin(np.abs(xs - session.tensor(session.edit_tensor)[session.edit_index])))] == \
        pytest.approx(0.0, abs=1e-12)
    plots.close()


def test_items_survive_edits_and_shape_changes(plots, session):
    tab = plots.attention_tab
    images = [plots.pattern_image(slot) for slot in range(len(tab.slots))]
    kept = [plots.pre_image, plots.post_image, plots.activation_points, plots.sweep_curve,
            plots.sweep_marker, plots.history_curve, *plots.residual_bars]
    session.set_value("W_in", (2, 3), -1.0)
    assert session.set_config(d_ff=8)
    assert image_of(plots.pre_image).shape == (5, 8)
    assert session.set_config(n_heads=3)
    shown = tab.shown_heads()
    assert shown and all(plots.pattern_image(i).isVisible() for i in range(len(shown)))
    for i, head in enumerate(shown):
        np.testing.assert_array_equal(image_of(plots.pattern_image(i)),
                                      session.trace["attn.hook_pattern"][head].astype(np.float32))
    assert not any(slot.plot.isVisible() for slot in tab.slots[len(shown):])
    assert session.set_config(attention=False)
    assert plots.attention_tab.stack.currentWidget() is plots.attention_tab.off_label
    assert session.set_config(attention=True)
    assert [plots.pattern_image(slot) for slot in range(len(images))] == images   # the same items, reused
    assert [plots.pre_image, plots.post_image, plots.activation_points, plots.sweep_curve,
            plots.sweep_marker, plots.history_curve, *plots.residual_bars] == kept


def tr_strings() -> dict[str, set[str]]:
    """Every literal the plots package translates, by context: self.tr("…") in a class (the
    class name is the context) and translate("Context", "…") anywhere."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "app" / "explorer" / "plots").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
            for call in ast.walk(cls):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "tr"
                        and call.args and isinstance(call.args[0], ast.Constant)):
                    found.setdefault(cls.name, set()).add(call.args[0].value)
        for call in ast.walk(tree):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "translate"
                    and len(call.args) == 2 and all(isinstance(a, ast.Constant) for a in call.args)):
                found.setdefault(call.args[0].value, set()).add(call.args[1].value)
    return found


def test_every_string_has_a_chinese_translation():
    table = json.loads((ROOT / "resources" / "i18n" / "zh" / "plots.json").read_text(encoding="utf-8"))
    strings = tr_strings()
    assert set(strings) >= {"PlotsPanel", "AttentionTab", "HiddenUnitsTab", "ResidualTab", "ActivationTab", "MseTab",
                            "PlotExport"}
    for context, sources in strings.items():
        for source in sources:
            translation = table.get(context, {}).get(source)
            assert translation, f"{context}: {source!r} has no Chinese"
            assert translation.count("%1") == source.count("%1") and translation.count("%2") == source.count("%2")


def test_chinese_texts_are_shown(qtbot, session):
    from app import i18n
    from app.explorer.plots import PlotsPanel
    plots = PlotsPanel(session)
    qtbot.addWidget(plots)
    assert plots.tabText(4) == "MSE"
    i18n.install("zh")          # switching language while the panel is open retranslates it
    try:
        settle(lambda: plots.tabText(0) == "注意力")
        assert [plots.tabText(i) for i in range(plots.count())] == ["注意力", "隐藏单元", "残差流", "激活函数", "均方误差"]
        assert plots.activation_tab.dead_zone_label.toPlainText() == "ReLU 的死区"
        assert plots.residual_tab.plot.titleLabel.text == "token「小明」的残差流"
        assert plots.mse_tab.history_plot.getAxis("bottom").labelText == "步数"
        assert plots.attention_tab.plots[0].titleLabel.text == "头 1"
    finally:
        i18n.install("en")
    settle(lambda: plots.tabText(0) == "Attention")
    assert plots.residual_tab.plot.titleLabel.text == "Residual stream of token “小明 (Xiaoming)”"
    plots.close()


def test_english_glosses_the_chinese_tokens_of_the_plots(qtbot, session):
    """English mode glosses the sample sentence's tokens: the residual plot's title, the attention
    maps' hover text, and a glossary line under the maps where the maps keep every tick with it."""
    from app import i18n
    from app.explorer.plots import PlotsPanel
    from tests.app.helpers import show
    plots = show(qtbot, PlotsPanel(session), 900, 600)
    session.select(token=1)
    plots.setCurrentWidget(plots.residual_tab)
    settle(lambda: "把" in plots.residual_tab.plot.titleLabel.text)
    assert plots.residual_tab.plot.titleLabel.text == "Residual stream of token “把 (object marker)”"
    attention = plots.attention_tab
    plots.setCurrentWidget(attention)
    glossary = attention.glossary
    settle(lambda: glossary.isVisible())
    assert glossary.text() == "小明 Xiaoming · 把 (object marker) · 苹果 the apple · 给了 gave · 小王 Xiao Wang"
    rows = attention.slots[0].rows
    assert rows.step == 1                                   # every query's token still labelled
    tip = attention.hover_text(attention.slots[0].image.mapToScene(attention.slots[0].image.boundingRect().center()))
    assert "“苹果 (the apple)” → key “苹果 (the apple)”" in tip
    plots.resize(900, 270)                                  # too short for the line: the ticks keep their room
    settle(lambda: not glossary.isVisible() and attention.slots[0].rows.step == 1)
    assert not glossary.isVisible() and attention.slots[0].rows.step == 1
    plots.resize(900, 600)
    settle(lambda: glossary.isVisible())
    i18n.install("zh")                                     # Chinese needs no gloss
    try:
        settle(lambda: plots.tabText(0) == "注意力")
        assert not glossary.isVisible()
        plots.setCurrentWidget(plots.residual_tab)
        settle(lambda: plots.residual_tab.plot.titleLabel.text == "token「把」的残差流")
        assert plots.residual_tab.plot.titleLabel.text == "token「把」的残差流"
        plots.setCurrentWidget(attention)
    finally:
        i18n.install("en")
    settle(lambda: glossary.isVisible())
    assert glossary.isVisible()


# (at 520×215 the glossed rows left the maps 118 px wide, too narrow for the end keys' labels
# 小明 and 小王: the gloss cost two keys' labels, so there it stays in the hover text)
@pytest.mark.parametrize("size", [(900, 270), (700, 215)], ids=["all-rows-labelled", "rows-thinned"])
def test_where_the_gloss_line_would_cost_the_maps_a_label_the_query_ticks_carry_the_gloss(qtbot, session, size):
    """Issue 9: at a projector's 1024×768 the attention tab is too short for the glossary line
    under the maps (every query's label or number would go), so English showed the glosses in
    the hover text only. There the query ticks carry them (小明 Xiaoming), at the cost of width
    only: the same maps, numbers and tick steps as in Chinese at the same size, and no tick label
    overlapping another or leaving the figure. Where the rows are thinned, only the labelled ones
    are glossed (the others would take width for nothing)."""
    from app import i18n
    from app.explorer.plots import PlotsPanel
    from app.explorer.plots.ticks import drawn_tick_texts
    from tests.app.helpers import show
    plots = show(qtbot, PlotsPanel(session), *size)
    attention = plots.attention_tab
    plots.setCurrentWidget(attention)
    first = attention.slots[0]
    settle(lambda: attention.gloss_form == "rows" and first.rows.labels[0] == "小明 Xiaoming")
    assert not attention.glossary.isVisible()
    english = (attention.arrangement.shown, attention.arrangement.numbers, first.rows.step, first.columns.step)
    drawn_rows = [text for _rect, text in drawn_tick_texts(first.plot.getAxis("left"))]
    labelled = attention.session.tokens[::first.rows.step]
    assert drawn_rows == [i18n.glossed(token) for token in labelled]
    assert drawn_rows[0] == "小明 Xiaoming" and drawn_rows[-1] == "小王 Xiao Wang"
    assert ("把 (object marker)" in first.rows.labels) == (first.rows.step == 1)
    rects = [rect for axis in ("left", "bottom") for rect, _t in drawn_tick_texts(first.plot.getAxis(axis))]
    scene = attention.graphics.mapToScene(attention.graphics.viewport().rect()).boundingRect()
    assert all(scene.contains(rect) for rect in rects)
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    i18n.install("zh")                                     # the same room without a gloss
    try:
        settle(lambda: attention.gloss_form == "" and first.rows.labels[0] == "小明")
        settle(lambda: (attention.arrangement.shown, attention.arrangement.numbers, first.rows.step,
                        first.columns.step) == english)
    finally:
        i18n.install("en")
    settle(lambda: attention.gloss_form == "rows")
    plots.close()


def test_the_plots_hidden_axes_take_no_si_prefix(plots):
    """Issue 13: the hidden top and right axes kept pyqtgraph's automatic SI prefix, so every
    range change re-set their label's HTML and size. (The colour bars' own hidden axes keep it:
    their range follows the levels, which change seldom.)"""
    import pyqtgraph as pg
    items = [item for view in plots.findChildren(pg.GraphicsView) for item in view.scene().items()
             if isinstance(item, pg.PlotItem) and not isinstance(item, pg.ColorBarItem)]
    assert items
    assert all(not item.getAxis(side).autoSIPrefix for item in items for side in ("left", "bottom", "right", "top"))


def _counting(kinds):
    from PySide6.QtCore import QObject
    seen = []

    class Watch(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() in kinds:
                seen.append(watched)
            return False

    return Watch(), seen


def _turns():
    """Deliver every paint and layout request an edit posted."""
    from PySide6.QtCore import QCoreApplication
    for _ in range(6):
        QCoreApplication.processEvents()


def test_an_edit_lays_out_no_attention_figure(plots, session):
    """Issue 13: the maps' equal cell sizes were set again on every edit, which laid the plots and
    their figure out again each time."""
    from PySide6.QtCore import QEvent
    watch, seen = _counting((QEvent.Type.LayoutRequest,))
    attention = plots.attention_tab
    for item in [attention.graphics.ci] + [slot.plot for slot in attention.slots]:
        item.installEventFilter(watch)
    for value in (0.5, -0.25):                   # settled: the figure laid out for these values
        assert session.set_value("W_in", (0, 0), value)
        _turns()
    seen.clear()
    assert session.set_value("W_in", (0, 0), 0.75)
    _turns()
    assert seen == []


@pytest.mark.parametrize("step", ["relu-residual", "b2"])
def test_a_new_y_range_paints_the_residual_plot_once(blocklab_open, step):
    """Issue 13: pyqtgraph applied a new y range while painting, which posted a second paint; and
    it learnt the new tick labels' width only while painting, which resized the axis and painted
    the plot twice more (step b2's ranges go from one-digit to two-character labels and back)."""
    from PySide6.QtCore import QEvent
    lab = blocklab_open(ROOT / "resources" / "lessons" / "r45-ffn-residual-norm.json")
    lab.window.lessons.go(lab.window.lessons.lesson.step_index(step))
    residual = lab.window.plots.residual_tab.graphics.viewport()
    assert residual.isVisible()
    watch, seen = _counting((QEvent.Type.Paint,))
    residual.installEventFilter(watch)
    _turns()
    paints = []
    values = (1.5, -1.2, 2.5, -2.0, 0.9, 3.1, -0.4, 6.5, 0.2, -3.5)
    for value in values:
        seen.clear()
        assert lab.session.set_value("W_in", (0, 0), value)
        _turns()
        paints.append(len(seen))
    assert paints == [1] * len(values)
