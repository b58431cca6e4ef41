"""Issue 13: an edit's new numbers re-measure, re-tick and re-lay out nothing that stays.

Counts work (range changes, texts set, paints), never time."""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QApplication

from tests.app.helpers import make_session, show

BENCH_VALUES = [0.25 * ((step % 8) - 4) + 0.125 for step in range(16)]   # tools/bench.py's edit cycle


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def test_round_out_reaches_round_numbers_and_keeps_the_bars_over_half():
    from app.explorer.plots.residual import round_out
    assert round_out(-1.4348, 1.7561) == (-2.0, 2.0)
    assert round_out(0.0, 0.37) == (0.0, 0.4)
    assert round_out(-3.1e6, 0.0) == (-4e6, 0.0)
    for low, high in ((-1.0, 1.0), (0.0, 0.013), (-7.3, 2.2), (-0.6, 0.0), (-123.0, 456.0)):
        shown = round_out(low, high)
        assert shown[0] <= low and shown[1] >= high
        assert high - low >= 0.5 * (shown[1] - shown[0])          # not re-ranged at once as too wide
    assert round_out(0.0, 0.0) == (0.0, 0.0)
    assert round_out(-np.inf, 1.0) == (-np.inf, 1.0)


def test_a_sweep_of_edits_re_ranges_the_residual_plot_at_most_once(qtbot, qapp, monkeypatch):
    """A new y range re-ticks and re-measures the axis and lays the plot out again. The bench's
    edit cycle used to widen the range by a hair on nearly every edit; now it reaches out to round
    numbers, and the cycle's bars fit it."""
    from app.explorer.plots import PlotsPanel
    session = make_session()
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("residual")
    settle()
    tab = panel.residual_tab
    ranges = []
    set_range = tab.plot.setYRange
    monkeypatch.setattr(tab.plot, "setYRange", lambda *a, **k: ranges.append(a) or set_range(*a, **k))
    drawn = 0
    for value in BENCH_VALUES:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        stages = tab._stages()
        token = session.selected_token
        low, high = tab.plot.vb.viewRange()[1]
        for n, hook in enumerate(stages):                        # the new numbers, inside the axis
            np.testing.assert_array_equal(panel.residual_bars[n].opts["height"], session.trace[hook][token])
            assert low <= session.trace[hook][token].min() and session.trace[hook][token].max() <= high
        drawn += 1
    assert drawn == len(BENCH_VALUES)
    assert len(ranges) <= 1, ranges
