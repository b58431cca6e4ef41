"""Issue 13: the C4 two-neuron lab's plots keep what an edit did not change — the bias part's
curves that did not move are not set again, its axes keep a round range that the next edits fit,
the neuron maps keep their colour scale while it still suits them — and what they show is what
core computes after every edit. Counted, never timed."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from app.explorer.plots.residual import round_out
from app.labs.xor.common import BIAS_NEURON
from app.labs.xor.neurons import MAP_POINTS
from app.widgets.style import limit_for
from core.formats.scenario import load_scenario
from core.labs import xor as lab
from tests.app.helpers import count_calls
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)

# the bench's edit cycle (tools/bench.py edit_values): W_in[0, 0] from −0.875 to 0.875 and back
CYCLE = [0.25 * ((step % 8) - 4) + 0.125 for step in range(8)]


def settle():
    for _ in range(3):
        QApplication.instance().processEvents()


def test_the_bias_plots_set_only_the_curves_an_edit_moved(lab_panel, monkeypatch):
    session, panel = lab_panel
    panel.set_focus("bias")
    settle()
    part = panel.part("bias")
    for value in CYCLE:                                   # the first round may widen the axes
        assert session.set_value("W_in", (0, 0), value)
        settle()
    curves = part.bias_curves + [part.bias_mse_curve]
    set_curves = count_calls(monkeypatch, pg.PlotCurveItem, "setData")
    ranges = count_calls(monkeypatch, pg.ViewBox, "setYRange")
    ticks = count_calls(monkeypatch, pg.AxisItem, "generateDrawSpecs")
    moved = 0
    for value in CYCLE:
        before = [curve.yData.copy() for curve in curves]
        set_curves.clear()
        assert session.set_value("W_in", (0, 0), value)
        settle()
        changed = [curve for curve, old in zip(curves, before) if not np.array_equal(curve.yData, old)]
        # W_in[0, 0] is read for the sentences with p = 1 only: the others' curves are kept
        assert set(set_curves) == set(changed) and len(set_curves) == len(changed) < len(curves)
        moved += len(changed)
        sweep = lab.bias_sweep(session.config, session.state.weights, session.state.inputs,
                               session.state.targets, BIAS_NEURON)
        for k, curve in enumerate(part.bias_curves):
            assert np.allclose(curve.yData, sweep.outputs[:, k]) and np.allclose(curve.xData, sweep.values)
        assert np.allclose(part.bias_mse_curve.yData, sweep.mse)
        for plot, shown in ((part.bias_outputs_plot, part.bias_curves), (part.bias_mse_plot, [part.bias_mse_curve])):
            low, high = plot.vb.viewRange()[1]
            ys = np.concatenate([curve.yData for curve in shown if curve.isVisible()])
            assert low <= ys.min() and ys.max() <= high
    assert moved > 0
    # the second round fits the round ranges the first one set: no axis re-ranged, none re-ticked
    assert ranges == [] and ticks == []


def test_a_steady_range_is_round_and_filled(lab_panel):
    session, panel = lab_panel
    panel.set_focus("bias")
    settle()
    part = panel.part("bias")
    assert session.set_value("W_in", (0, 0), CYCLE[0])          # the MSE's top is 7.004: shown 0…8
    settle()
    for plot, curves in ((part.bias_outputs_plot, part.bias_curves), (part.bias_mse_plot, [part.bias_mse_curve])):
        low, high = plot._steady_y
        assert round_out(low, high) == (low, high)              # whole multiples of a round step
        ys = np.concatenate([curve.yData for curve in curves if curve.isVisible()])
        assert low <= ys.min() and ys.max() <= high and ys.max() - ys.min() >= 0.4 * (high - low)


def test_the_neuron_maps_keep_their_colour_scale_while_it_suits_them(lab_panel, monkeypatch):
    session, panel = lab_panel
    panel.set_focus("neurons")
    settle()
    part = panel.part("neurons")
    for value in CYCLE:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    levels = count_calls(monkeypatch, pg.ColorBarItem, "setLevels")
    images = count_calls(monkeypatch, pg.ImageItem, "setImage")
    for value in CYCLE:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        _, maps = lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)
        low, high = part.maps_levels
        # the scale is round, holds every value of both maps, and they fill at least 40 % of it
        assert -low == high == limit_for(np.array([high])) and np.abs(maps).max() <= high
        assert limit_for(maps) >= 0.4 * high
        for image, expected in zip(part.neuron_images, maps):
            assert np.allclose(image.image, expected, atol=1e-6) and image._levels == part.maps_levels
    # the bench's cycle moves neuron 1's peak across 1: before, a quarter of its edits set a new
    # scale, both maps and the colour bar's ticks; now neuron 1's map alone, once per edit
    assert levels == []
    assert images == [part.neuron_images[0]] * len(CYCLE)
    # a map that needs more widens the scale at once; one that needs far less narrows it
    assert session.set_value("W_in", (0, 0), 40.0)
    settle()
    assert part.maps_levels[1] >= np.abs(lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)[1]).max()
    assert session.set_value("W_in", (0, 0), CYCLE[0])
    settle()
    _, maps = lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)
    assert part.maps_levels == (-limit_for(maps), limit_for(maps))


def test_a_new_scenario_fits_the_colour_scale_again(lab_panel):
    from tests.app.test_xor_lab import SCENARIOS
    session, panel = lab_panel
    panel.set_focus("neurons")
    settle()
    part = panel.part("neurons")
    fresh = part.maps_levels
    assert session.set_value("W_in", (0, 0), 3.0)              # the scale grows
    settle()
    assert session.set_value("W_in", (0, 0), float(session.loaded.weights["W_in"][0, 0]))
    settle()
    kept = part.maps_levels
    assert kept[1] >= fresh[1]
    session.load(load_scenario(SCENARIOS / "c4-xor.json"))     # as a lesson step loads it
    settle()
    _, maps = lab.neuron_maps(session.config, session.state.weights, MAP_POINTS)
    assert part.maps_levels == fresh == (-limit_for(maps), limit_for(maps))


def test_a_new_formula_in_a_map_title_re_lays_out_nothing(lab_panel, monkeypatch):
    session, panel = lab_panel
    panel.set_focus("neurons")
    settle()
    part = panel.part("neurons")
    plot = part.map_plots[0]
    title = plot.titleLabel
    assert session.set_value("W_in", (0, 0), -0.875)           # the widest formula of the test first
    settle()
    layouts = count_calls(monkeypatch, pg.LabelItem, "updateMin")      # a title asking for a new size
    geometry = title.geometry()
    for value in (0.5, 2.0, -12.5):
        assert session.set_value("W_in", (0, 0), value)
        settle()
        formula = lab.neuron_formula(session.config, session.state.weights, 0)
        assert formula in title.text and formula in title.item.toPlainText()
        # the text sits centred in the title's kept room, which did not change
        room, text = title.rect(), title.itemRect()
        assert abs(room.center().x() - text.center().x()) < 1 and text.width() <= room.width()
        assert title.geometry() == geometry
    assert layouts == []                  # before: 2 per edit, each a new size and a relayout
    # a formula wider than the room asks for more, and gets it
    assert session.set_value("W_in", (0, 0), -123456.25)
    settle()
    assert layouts and title.geometry().width() > geometry.width()
    assert title.itemRect().width() <= title.rect().width()
    assert lab.neuron_formula(session.config, session.state.weights, 0) in title.item.toPlainText()
