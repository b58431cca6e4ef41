"""mse_sweep's additive options: a progress callback that can stop it, and an incremental
recompute from the current trace (what the plots use for large blocks)."""
from __future__ import annotations

import numpy as np

from core.analysis import mse_sweep, sweep_range
from core.block import forward
from core.formats.generate import preset


def test_progress_reports_every_value_and_can_stop_the_sweep():
    s = preset("lesson", targets=True)
    values = sweep_range(0.2, points=11)
    seen: list[float] = []
    full = mse_sweep(s.config, s.weights, s.inputs, s.targets, "W_in", (0, 1), values,
                     progress=lambda fraction: seen.append(fraction) or True)
    assert seen == [(n + 1) / 11 for n in range(11)]
    np.testing.assert_array_equal(full, mse_sweep(s.config, s.weights, s.inputs, s.targets, "W_in", (0, 1), values))

    asked = []
    stopped = mse_sweep(s.config, s.weights, s.inputs, s.targets, "W_in", (0, 1), values,
                        progress=lambda fraction: asked.append(fraction) or len(asked) < 3)
    assert stopped is None and len(asked) == 3             # stopped after the third value


def test_from_the_trace_agrees_with_full_forwards():
    s = preset("d64", targets=True)
    trace = forward(s.config, s.weights, s.inputs)
    for tensor, index in (("W_in", (3, 17)), ("W_Q", (1, 5, 2)), ("W_out", (40, 9)), ("inputs", (2, 7))):
        values = sweep_range(0.1, points=7)
        full = mse_sweep(s.config, s.weights, s.inputs, s.targets, tensor, index, values)
        incremental = mse_sweep(s.config, s.weights, s.inputs, s.targets, tensor, index, values, trace=trace)
        np.testing.assert_allclose(incremental, full, rtol=1e-12, atol=1e-15)


def test_value_histogram_counts_every_finite_value_once():
    from core.analysis import value_histogram
    values = np.array([-10.0, -1.0, -0.5, 0.0, 0.5, 3.9, 100.0, np.nan])
    edges, counts = value_histogram(values, -4.0, 4.0, bins=8)
    assert len(edges) == 9 and edges[0] == -4.0 and edges[-1] == 4.0
    assert counts.sum() == 7                                  # NaN left out, the far ones in the end bins
    assert counts[0] == 1 and counts[-1] == 2 and counts[3] == 2   # −10; 3.9 and 100; −1 and −0.5
