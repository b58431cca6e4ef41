"""Extreme numbers: the forward pass stays quiet and stable, and core.finite says what is not finite and why."""
from __future__ import annotations

import dataclasses
import itertools
import math
import warnings

import numpy as np
import pytest

from core.analysis import invariants, qk_norm_invariants
from core.block import forward
from core.config import BlockConfig, weight_shapes
from core.explain import explain
from core.finite import (BFLOAT16_MAX, FLOAT16_MAX, Cell, Problem, cell_marks, check, first_non_finite,
                         hook_issues)
from core.functions import softmax
from core.incremental import trace_after
from core.numbers import NumberKind, format_number, number_kind

CONFIG = BlockConfig(d_model=4, d_ff=6, n_heads=2, d_head=2)


def _block(config: BlockConfig, value: float = 0.5, seed: int = 0):
    rng = np.random.default_rng(seed)
    weights = {name: rng.normal(0, value, shape) for name, shape in weight_shapes(config).items()}
    inputs = rng.normal(0, 1, (3, config.d_model))
    return weights, inputs


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _explain_every_cell(config, weights, trace):
    for hook, array in trace.items():
        for index in np.ndindex(array.shape):
            explain(config, weights, trace, hook, index)


@pytest.mark.parametrize("norm, activation, gated, placement", list(itertools.product(
    ("layernorm", "rmsnorm", "none"), ("relu", "gelu", "gelu_tanh", "silu", "identity"), (False, True),
    ("pre", "post"))))
def test_weights_at_plus_minus_a_million_stay_finite_and_quiet(norm, activation, gated, placement):
    """The GUI's bound (±1e6) on every weight and input: finite in float64, no warning, and the
    half-precision notes say where float16 would have overflowed."""
    config = dataclasses.replace(CONFIG, norm=norm, activation=activation, gated=gated, norm_placement=placement,
                                 mask="causal")
    rng = np.random.default_rng(1)
    weights = {name: rng.choice([-1e6, 1e6], size=shape) for name, shape in weight_shapes(config).items()}
    inputs = rng.choice([-1e6, 1e6], size=(3, 4))
    trace = forward(config, weights, inputs)
    invariants(config, trace)
    issues = check(config, trace)
    assert first_non_finite(issues) is None
    assert all(np.isfinite(a[cell_marks(config, trace, h) != Cell.MASKED]).all() for h, a in trace.items())
    assert any(issue.problem in (Problem.BEYOND_FLOAT16, Problem.BEYOND_BFLOAT16) for issue in issues)
    noted = {issue.hook for issue in issues if issue.problem is Problem.BEYOND_FLOAT16}
    assert "hook_resid_pre" in noted                       # 1e6 itself is beyond 65,504


def test_scores_beyond_a_naive_softmax_stay_a_distribution():
    """Scores of ~1e25: exp would overflow without the row-maximum subtraction; ours stays a
    distribution, and the scores hook notes that a naive softmax would have failed."""
    assert np.allclose(softmax(np.array([[1e25, 0.0, -1e25]])), [[1.0, 0.0, 0.0]])
    assert np.allclose(softmax(np.array([[800.0, 800.0]])), [[0.5, 0.5]])
    config = dataclasses.replace(CONFIG, norm="none")
    weights, inputs = _block(config)
    weights = {**weights, "W_Q": np.full_like(weights["W_Q"], 1e6), "W_K": np.full_like(weights["W_K"], 1e6)}
    trace = forward(config, weights, inputs * 1e6)
    assert np.abs(trace["attn.hook_attn_scores"]).max() > 1e20
    assert np.allclose(trace["attn.hook_pattern"].sum(axis=-1), 1.0)
    problems = {issue.problem for issue in hook_issues(config, trace, "attn.hook_attn_scores")}
    assert Problem.NAIVE_SOFTMAX in problems and Problem.BEYOND_FLOAT16 in problems
    assert first_non_finite(check(config, trace)) is None
    _explain_every_cell(config, weights, trace)


@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_eps_zero_on_a_constant_row_is_named_not_hidden(norm):
    """ε = 0 and a constant (LayerNorm) or zero (RMSNorm) row: the scale is 0, the normalized row
    0/0 — taken as 0 and finite, but marked ZERO_SPREAD on the scale and normalized hooks."""
    config = dataclasses.replace(CONFIG, norm=norm, norm_placement="pre", eps=0.0)
    weights, inputs = _block(config)
    inputs[1] = 0.0 if norm == "rmsnorm" else 3.0
    trace = forward(config, weights, inputs)
    assert trace["ln1.hook_scale"][1, 0] == 0
    assert np.isfinite(trace["ln1.hook_normalized"]).all()
    issues = {(i.hook, i.problem): i for i in check(config, trace)}
    for hook in ("ln1.hook_scale", "ln1.hook_normalized"):
        issue = issues[(hook, Problem.ZERO_SPREAD)]
        assert issue.first[0] == 1
    marks = cell_marks(config, trace, "ln1.hook_normalized")
    assert (marks[1] == Cell.ZERO_SPREAD).all() and (marks[0] == Cell.FINE).all()
    assert first_non_finite(check(config, trace)) is None     # finite: a note, not an overflow
    assert not all(i.ok for i in invariants(config, trace))    # and the checks fail
    _explain_every_cell(config, weights, trace)


def test_overflow_beyond_float64_is_found_with_its_origin_and_no_warning():
    """Weights far beyond the GUI's bound (core only): q overflows to ±inf, the scores become
    inf − inf = NaN. No warning; the first non-finite hook is named; later ones point back to it."""
    config = dataclasses.replace(CONFIG, norm="none", mask="causal")
    weights, inputs = _block(config)
    weights["W_Q"] = np.full_like(weights["W_Q"], 1e200)
    weights["W_K"] = np.full_like(weights["W_K"], -1e200)
    inputs = np.abs(inputs) * 1e200
    trace = forward(config, weights, inputs)
    invariants(config, trace)
    qk_norm_invariants(config, trace)
    issues = check(config, trace)
    first = first_non_finite(issues)
    assert first.hook == "attn.hook_q" and first.problem is Problem.OVERFLOW and first.origin is None
    later = [i for i in issues if i.problem.severe and i.hook != "attn.hook_q"]
    assert later and all(i.origin == "attn.hook_q" for i in later)
    assert any(i.hook == "attn.hook_pattern" and i.problem is Problem.UNDEFINED for i in issues)
    marks = cell_marks(config, trace, "attn.hook_attn_scores")
    assert (marks[:, 0, 1:] == Cell.MASKED).all()             # the mask's −∞ is not an overflow
    _explain_every_cell(config, weights, trace)


def test_bringing_the_value_back_recovers_bit_for_bit():
    config = dataclasses.replace(CONFIG, norm="none", activation="identity")
    weights, inputs = _block(config)
    before = forward(config, weights, inputs)
    huge = {**weights, "W_in": weights["W_in"].copy(), "W_out": weights["W_out"].copy()}
    huge["W_in"][:, 0] = 1e300
    huge["W_out"][0, :] = 1e300
    broken = trace_after(config, weights, inputs, before, huge, inputs)
    assert first_non_finite(check(config, broken)) is not None
    back = trace_after(config, huge, inputs, broken, weights, inputs)
    assert first_non_finite(check(config, back)) is None
    for hook in before:
        assert np.array_equal(before[hook], back[hook])


def test_half_precision_limits():
    config = BlockConfig(d_model=4, d_ff=6, attention=False, norm="none", residual=False, activation="identity")
    weights, _ = _block(config)
    inputs = np.array([[FLOAT16_MAX, FLOAT16_MAX + 1, -1e30, 1.0], [1e39, 0, 0, 0]])
    trace = forward(config, weights, inputs)
    (issue,) = hook_issues(config, trace, "hook_resid_pre")
    assert issue.problem is Problem.BEYOND_BFLOAT16 and issue.first == (1, 0) and issue.peak == 1e39
    inputs[1, 0] = 0.0
    (issue,) = hook_issues(config, forward(config, weights, inputs), "hook_resid_pre")
    assert issue.problem is Problem.BEYOND_FLOAT16 and issue.count == 2 and issue.first == (0, 1)
    assert BFLOAT16_MAX == pytest.approx(3.3895313892515355e38)


def test_format_number_words_non_finite_values_by_kind():
    assert [number_kind(v) for v in (1.0, math.nan, math.inf, -math.inf)] == [
        NumberKind.FINITE, NumberKind.NAN, NumberKind.POSITIVE_INFINITY, NumberKind.NEGATIVE_INFINITY]
    words = {NumberKind.NAN: "undefined", NumberKind.POSITIVE_INFINITY: "overflow"}
    assert format_number(math.nan, words=words) == "undefined"
    assert format_number(math.inf, words=words) == "overflow"
    assert format_number(-math.inf, words=words) == "−∞"       # no word given: the symbol
    for value in (math.nan, math.inf, -math.inf):
        assert "nan" not in format_number(value) and "inf" not in format_number(value)


@pytest.mark.parametrize("peak", [1.0, FLOAT16_MAX, -FLOAT16_MAX, 65505.0, -7e4, 1e39, math.inf, -math.inf,
                                  math.nan])
def test_hook_issues_fast_path_agrees_with_the_cell_marks(peak):
    """hook_issues answers an ordinary hook without cell marks; at the edges it must say what
    the marks say (float16 limit, overflow, NaN, a zero spread under a norm)."""
    array = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    array[1, 2] = peak
    trace = {"hook_resid_mid": array, "ln2.hook_scale": np.array([[1.0], [0.0], [2.0]]),
             "ln2.hook_normalized": np.linspace(-1.0, 1.0, 12).reshape(3, 4)}
    found = hook_issues(CONFIG, trace, "hook_resid_mid")
    problems = [issue.problem for issue in found]
    if abs(peak) <= FLOAT16_MAX:
        assert found == []
    else:
        assert problems and all(issue.first == (1, 2) for issue in found)
    assert [i.problem for i in hook_issues(CONFIG, trace, "ln2.hook_normalized")] == [Problem.ZERO_SPREAD]
    assert [i.problem for i in hook_issues(CONFIG, trace, "ln2.hook_scale")] == [Problem.ZERO_SPREAD]


@pytest.mark.parametrize("seed", range(40))
def test_hook_issues_of_finite_large_values_are_what_the_cell_marks_say(seed):
    """A hook whose values are all finite (no zero spread) but some beyond float16 is answered
    without the cell marks; the answer is the general way's, issue for issue."""
    from core.finite import _marked_issues
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    array = rng.normal(0.0, 1.0, shape) * 10.0 ** rng.uniform(0, 40, shape) * rng.choice([-1.0, 1.0], shape)
    if seed % 5 == 0:
        array.flat[0] = BFLOAT16_MAX * 1.5                       # beyond bfloat16 too
    scale = np.ones(shape[:-1] + (1,)) if len(shape) > 1 else np.ones(1)
    trace = {"hook_resid_mid": array, "ln2.hook_normalized": array, "ln2.hook_scale": scale,
             "mlp.hook_post": np.clip(array, -3e38, 3e38).astype(np.float32)}      # (float32 holds ±3.4e38)
    for hook in trace:
        assert hook_issues(CONFIG, trace, hook) == _marked_issues(CONFIG, trace, hook, np.asarray(trace[hook]))


def test_hook_issues_of_finite_large_values_build_no_cell_marks(monkeypatch):
    """The common extreme case — a weight pushed to ±1e5, every value still finite — is worded
    from one pass over the values, not the dozen of the cell marks."""
    import core.finite as finite
    built = []
    monkeypatch.setattr(finite, "cell_marks", lambda *args: built.append(args) or cell_marks(*args))
    trace = {"hook_resid_mid": np.array([[1.0, 4e5], [-7e4, 2.0]])}
    (issue,) = hook_issues(CONFIG, trace, "hook_resid_mid")
    assert (issue.problem, issue.count, issue.first, issue.peak) == (Problem.BEYOND_FLOAT16, 2, (0, 1), 4e5)
    assert built == []
    trace["hook_resid_mid"][1, 1] = math.inf                     # not all finite: the general way
    assert [i.problem for i in hook_issues(CONFIG, trace, "hook_resid_mid")] == [Problem.OVERFLOW,
                                                                                Problem.BEYOND_FLOAT16]
    assert len(built) == 1
