"""core.analysis: the invariants, the MSE sweep, the sweep range and the activation curve.

Expected numbers are recomputed here from the trace or from `forward` directly (means,
variances and MSEs written out again), so a slip in core.analysis cannot hide behind itself.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from core.analysis import (MAX_CURVE_POINTS, Invariant, activation_curve, activation_range, invariants, mse_sweep,
                           sweep_range)
from core.block import forward, mse
from core.functions import activate
from core.formats.scenario import load_scenario
from core.weights import adapt_weights
from tests.conftest import SCENARIOS


def scenario(name: str = "block-default.json"):
    return load_scenario(SCENARIOS / name)


def run(config, weights, inputs):
    """(config, weights fitted to it, trace) for a config derived from a scenario's."""
    weights, _ = adapt_weights(dict(weights), config)
    return config, weights, forward(config, weights, inputs)


def by_key(found: list[Invariant]) -> dict[str, Invariant]:
    return {inv.key: inv for inv in found}


# --- invariants -------------------------------------------------------------------------------
def test_a_healthy_layernorm_block_passes_every_check():
    s = scenario()
    trace = forward(s.config, s.weights, s.inputs)
    found = by_key(invariants(s.config, trace))
    assert {"ln1.mean", "ln1.var", "ln2.mean", "ln2.var", "pattern.rowsum",
            "resid_mid.sum", "resid_post.sum"} <= set(found)
    assert all(inv.ok for inv in found.values()), [k for k, inv in found.items() if not inv.ok]
    for prefix in ("ln1", "ln2"):
        rows = np.asarray(trace[f"{prefix}.hook_normalized"])
        T, width = rows.shape
        means = [sum(rows[t]) / width for t in range(T)]
        variances = [sum((v - means[t]) ** 2 for v in rows[t]) / width for t in range(T)]
        np.testing.assert_allclose(found[f"{prefix}.mean"].values, means, atol=1e-12)
        np.testing.assert_allclose(found[f"{prefix}.var"].values, variances, rtol=1e-12)
        assert found[f"{prefix}.mean"].expected == 0.0 and found[f"{prefix}.var"].expected == 1.0
        assert found[f"{prefix}.var"].values.shape == (T,)


def test_eps_zero_on_a_constant_row_fails_the_variance_check():
    s = scenario()
    # pre-norm: ln1 sees the inputs themselves, so a constant input row is a constant LN1 row
    config = replace(s.config, norm_placement="pre", eps=0.0)
    inputs = np.array(s.inputs, dtype=np.float64)
    inputs[2] = 0.75
    config, weights, trace = run(config, s.weights, inputs)
    found = by_key(invariants(config, trace))
    var = found["ln1.var"]
    assert var.ok is False
    assert var.values[2] == 0.0                        # the constant row normalises to zeros (0/0 taken as 0)
    assert var.worst == 0.0                            # the farthest from 1
    others = np.delete(var.values, 2)
    np.testing.assert_allclose(others, 1.0, atol=1e-2)  # the other rows are still fine
    assert found["ln1.mean"].ok                        # zeros still have mean 0

    # the scenario's own inputs (no constant row), same pre-norm config: the check passes
    config, weights, trace = run(replace(config, eps=1e-5), s.weights, s.inputs)
    assert by_key(invariants(config, trace))["ln1.var"].ok


def test_a_large_eps_shrinks_the_variance_below_one():
    s = scenario()
    config, weights, trace = run(replace(s.config, norm_placement="pre", eps=1.0), s.weights, s.inputs)
    var = by_key(invariants(config, trace))["ln1.var"]
    assert not var.ok
    assert np.all(var.values < 1.0)
    assert var.worst == var.values.min()


def test_rmsnorm_checks_the_mean_square():
    s = scenario()
    config, weights, trace = run(replace(s.config, norm="rmsnorm"), s.weights, s.inputs)
    found = by_key(invariants(config, trace))
    assert "ln1.mean" not in found and "ln1.var" not in found
    for prefix in ("ln1", "ln2"):
        check = found[f"{prefix}.ms"]
        rows = np.asarray(trace[f"{prefix}.hook_normalized"])
        expected = [sum(v * v for v in row) / rows.shape[1] for row in rows]
        np.testing.assert_allclose(check.values, expected, rtol=1e-12)
        assert check.expected == 1.0 and check.ok

    # a zero row with ε = 0 has mean square 0, not 1
    inputs = np.array(s.inputs, dtype=np.float64)
    inputs[0] = 0.0
    config, weights, trace = run(replace(config, norm_placement="pre", eps=0.0), s.weights, inputs)
    check = by_key(invariants(config, trace))["ln1.ms"]
    assert not check.ok and check.values[0] == 0.0 and check.worst == 0.0


@pytest.mark.parametrize("mask", ["full", "causal"])
def test_pattern_rows_sum_to_one(mask):
    s = scenario()
    config, weights, trace = run(replace(s.config, mask=mask), s.weights, s.inputs)
    check = by_key(invariants(config, trace))["pattern.rowsum"]
    pattern = np.asarray(trace["attn.hook_pattern"])
    H, T, _ = pattern.shape
    assert check.values.shape == (H, T)
    sums = [[sum(pattern[h, i]) for i in range(T)] for h in range(H)]
    np.testing.assert_allclose(check.values, sums, rtol=1e-12)
    assert check.ok and check.expected == 1.0


def test_no_attention_no_norm_no_pattern_checks():
    s = scenario("c4-xor.json")
    trace = forward(s.config, s.weights, s.inputs)
    keys = {inv.key for inv in invariants(s.config, trace)}
    assert not any(key.startswith(("ln1.", "ln2.", "pattern.")) for key in keys)


def test_worst_is_the_value_farthest_from_expected():
    inv = Invariant("x", "x", 1.0, np.array([[0.9, 1.05], [1.0, 1.3]]), False)
    assert inv.worst == 1.3
    inv = Invariant("x", "x", 0.0, np.array([0.1, -0.4, 0.3]), False)
    assert inv.worst == -0.4
    inv = Invariant("x", "x", 1.0, np.array([1.0, math.nan, 0.0]), False)
    assert math.isnan(inv.worst)          # a NaN is as far off as it gets
    # the fields config_panel.py reads are still there
    assert (inv.key, inv.label, inv.expected, inv.ok) == ("x", "x", 1.0, False)
    assert inv.values.shape == (3,)


# --- the MSE sweep ----------------------------------------------------------------------------
@pytest.mark.parametrize("name, tensor, index", [
    ("block-default.json", "W_in", (0, 0)),
    ("block-default.json", "inputs", (2, 1)),
    ("block-default.json", "W_Q", (1, 0, 1)),
    ("c4-xor.json", "b_in", (1,)),
])
def test_mse_sweep_is_the_forward_mse_at_each_value(name, tensor, index):
    s = scenario(name)
    current = float((s.inputs if tensor == "inputs" else s.weights[tensor])[index])
    values = sweep_range(current, half_width=1.5, points=13)
    errors = mse_sweep(s.config, s.weights, s.inputs, s.targets, tensor, index, values)
    assert errors.shape == values.shape
    for value, error in zip(values, errors):
        inputs = np.array(s.inputs, dtype=np.float64)
        weights = {k: np.array(v, dtype=np.float64) for k, v in s.weights.items()}
        (inputs if tensor == "inputs" else weights[tensor])[index] = value
        output = forward(s.config, weights, inputs).output
        by_hand = float(np.mean((np.asarray(output) - s.targets) ** 2))
        assert error == pytest.approx(by_hand, rel=1e-12, abs=1e-15)
    # at the current value the sweep gives exactly the block's MSE
    now = int(np.flatnonzero(values == current)[0])
    assert errors[now] == mse(forward(s.config, s.weights, s.inputs).output, s.targets)
    # the sweep did not change the scenario's own arrays
    assert float((s.inputs if tensor == "inputs" else s.weights[tensor])[index]) == current


@pytest.mark.parametrize("current", [0.0, 0.7, 1 / 3, -2.9, 0.1 + 0.2, 123.456, -1e6, 1e6])
def test_sweep_range_contains_the_current_value(current):
    values = sweep_range(current)
    assert current in values
    assert values[0] == pytest.approx(current - 2.0) and values[-1] == pytest.approx(current + 2.0)
    assert np.all(np.diff(values) > 0)
    assert len(values) == 61


def test_sweep_range_contains_many_current_values():
    rng = np.random.default_rng(1)
    for current in rng.uniform(-3, 3, 500):
        assert current in sweep_range(float(current))
        assert current in sweep_range(float(current), half_width=0.5, points=20)   # even counts too


# --- the activation curve ---------------------------------------------------------------------
def test_activation_curve_default_range():
    xs, ys = activation_curve("relu")
    assert len(xs) == 161 and xs[0] == -4.0 and xs[-1] == 4.0
    np.testing.assert_array_equal(ys, np.maximum(xs, 0.0))


@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu", "identity"])
@pytest.mark.parametrize("low, high", [(-4.0, 6e12), (-1e30, 1e30), (-math.inf, math.inf), (math.nan, 5.0),
                                       (-1e308, 1e308)])
def test_activation_curve_respects_its_cap(activation, low, high):
    xs, ys = activation_curve(activation, low, high)
    assert 2 <= len(xs) <= MAX_CURVE_POINTS == 2001
    assert np.all(np.isfinite(xs)) and np.all(np.isfinite(ys))
    assert np.all(np.diff(xs) > 0)
    if math.isfinite(low) and abs(low) <= 1e100:
        assert xs[0] == low
    if math.isfinite(high) and abs(high) <= 1e100:
        assert xs[-1] == high
    np.testing.assert_array_equal(ys, activate(activation, xs))


def test_activation_curve_caps_an_explicit_count_and_keeps_a_small_one():
    xs, _ = activation_curve("silu", -1.0, 1.0, points=10**9)
    assert len(xs) == MAX_CURVE_POINTS
    xs, _ = activation_curve("silu", -1.0, 1.0, points=7)
    np.testing.assert_array_equal(xs, np.linspace(-1.0, 1.0, 7))
    xs, _ = activation_curve("silu", -10.0, 10.0)          # 20 per unit on a moderate range
    assert len(xs) == 401


def test_activation_range_holds_every_finite_value():
    assert activation_range(np.array([0.5, -1.0])) == (-4.0, 4.0)
    low, high = activation_range(np.array([6e12, -7.2, math.inf, math.nan]))
    assert low <= -7.2 and high >= 6e12 and math.isfinite(low) and math.isfinite(high)
    low, high = activation_range(np.array([1e200]))
    assert math.isfinite(high) and high - low < math.inf
    xs, _ = activation_curve("relu", low, high)
    assert len(xs) <= MAX_CURVE_POINTS
