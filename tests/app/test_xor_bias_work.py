"""Issue 13: the C4 lab's bias part (step 7 of the FFN lesson) does on a weight edit only the work
the edit needs: its curves are bare curves handed their points and their bounds at once (no
PlotDataItem copying the points, no bounds found again from them), and the legend is not named
again while the sentences stay. What is shown stays what core computes. Counted, never timed."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QImage, QPicture
from PySide6.QtWidgets import QApplication

from app.labs.xor.bias import XorBiasPart
from app.labs.xor.common import BIAS_NEURON
from core.labs import xor as lab
from tests.app.helpers import count_calls
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)

# the bench's edit cycle (tools/bench.py edit_values): W_in[0, 0] from −0.875 to 0.875 and back
CYCLE = [0.25 * ((step % 8) - 4) + 0.125 for step in range(8)]


def settle():
    for _ in range(3):
        QApplication.instance().processEvents()


def bias_part(lab_panel):
    session, panel = lab_panel
    panel.set_focus("bias")
    settle()
    part = panel.part("bias")
    for value in CYCLE[:2]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    return session, part


def in_view(part, items):
    return [item for item in items if item.scene() is part.bias_view.scene()]


def test_an_edit_hands_the_moved_curves_their_points_and_bounds_once(lab_panel, monkeypatch):
    session, part = bias_part(lab_panel)
    curves = part.bias_curves + [part.bias_mse_curve]
    wrapped = count_calls(monkeypatch, pg.PlotDataItem, "setData")
    set_curves = count_calls(monkeypatch, pg.PlotCurveItem, "setData")
    found = count_calls(monkeypatch, pg.PlotCurveItem, "dataBounds")          # pyqtgraph's own search
    moved = 0
    for value in CYCLE:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        moved += len(in_view(part, set_curves))
        set_curves.clear()
        sweep = lab.bias_sweep(session.config, session.state.weights, session.state.inputs,
                               session.state.targets, BIAS_NEURON)
        for curve, y in zip(curves, [*sweep.outputs.T, sweep.mse]):
            assert np.array_equal(curve.yData, y) and np.array_equal(curve.xData, sweep.values)
    assert moved > 0
    # no PlotDataItem copies the points, and no curve searches them for its bounds again
    assert in_view(part, wrapped) == [] and in_view(part, found) == []
    # the bounds it was handed are pyqtgraph's, and so is its extent
    for curve in curves:
        for ax in (0, 1):
            assert curve.dataBounds(ax) == pg.PlotCurveItem.dataBounds(curve, ax)
    assert len(in_view(part, found)) == 2 * len(curves)


def test_the_bounds_follow_pyqtgraph_for_nan_and_infinite_points(qapp):
    from app.labs.xor.bias import SweepCurve, _bounds
    xs = np.linspace(-1, 0, 5)
    for ys in ([0.0, np.nan, 2.0, -1.0, 0.5], [0.0, np.inf, 2.0, -np.inf, 0.5], [np.nan] * 5, [np.inf] * 5):
        ys = np.array(ys)
        given, found = SweepCurve(pen=pg.mkPen("k", width=2.5)), pg.PlotCurveItem(pen=pg.mkPen("k", width=2.5))
        given.show_points(xs, ys, (_bounds(xs)[0], _bounds(ys)[0]))
        found.setData(xs, ys)
        for ax in (0, 1):
            np.testing.assert_equal(given.dataBounds(ax), found.dataBounds(ax))    # NaN equal to NaN


def test_the_legend_is_not_named_again_while_the_sentences_stay(lab_panel, monkeypatch):
    session, part = bias_part(lab_panel)
    named = count_calls(monkeypatch, XorBiasPart, "_name_curves")
    for value in CYCLE:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    assert named == []
    legend = [label.text for _sample, label in part.bias_legend.items]
    assert len(legend) == len(session.tokens) and all(legend)


def image(pixmap) -> np.ndarray:
    shot = pixmap.toImage().convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(shot.constBits(), np.uint8).reshape(shot.height(), shot.bytesPerLine()).copy()


def test_an_edit_replays_no_tick_labels_and_the_axes_look_as_painted_whole(lab_panel, monkeypatch):
    session, part = bias_part(lab_panel)
    axes = [plot.getAxis(side) for plot in (part.bias_outputs_plot, part.bias_mse_plot) for side in ("left", "bottom")]
    played = count_calls(monkeypatch, QPicture, "play")
    for value in CYCLE:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    pictures = [picture for picture in played if any(picture is axis.picture for axis in axes)]
    assert pictures == [] and len(played) >= len(CYCLE)         # the curves' repaints: ticks alone
    # what the repaints left on the screen is what a whole paint of the window draws
    window = part.window()
    on_screen = image(QApplication.primaryScreen().grabWindow(window.winId()))
    assert np.array_equal(on_screen, image(window.grab()))
