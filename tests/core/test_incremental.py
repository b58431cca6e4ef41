"""The incremental recompute agrees with the full forward after any edit of any tensor, and
recomputes only what the edit can change.

Agreement, per hook: the same shape, −∞ in the same cells, and
max |incremental − full| ≤ 1e-12 · max(1, max |full|) over the finite cells.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.incremental as incremental
from core.block import forward
from core.config import BlockConfig, weight_shapes
from core.formats.generate import preset
from core.incremental import INPUTS, EditedTrace, find_changes, recompute, trace_after

RELATIVE = 1e-12
PROPERTY = settings(max_examples=300, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def disagreement(got, want) -> float:
    """The largest per-hook relative difference; fails on different hooks, shapes or −∞ cells."""
    assert list(got) == list(want)
    worst = 0.0
    for name in want:
        a, b = np.asarray(got[name]), np.asarray(want[name])
        assert a.shape == b.shape, name
        assert np.array_equal(np.isneginf(a), np.isneginf(b)), name
        assert np.all(np.isfinite(a) | np.isneginf(a)), name
        finite = np.isfinite(b)
        if finite.any():
            scale = max(1.0, float(np.max(np.abs(b[finite]))))
            worst = max(worst, float(np.max(np.abs(a[finite] - b[finite]))) / scale)
    return worst


def assert_agrees(got, want) -> None:
    worst = disagreement(got, want)
    assert worst <= RELATIVE, f"incremental and full forward differ by {worst:.3g} (relative)"


# --- random blocks -------------------------------------------------------------------------

@dataclass
class Block:
    config: BlockConfig
    weights: dict
    inputs: np.ndarray


def random_weights(config: BlockConfig, rng: np.random.Generator) -> dict[str, np.ndarray]:
    weights = {}
    for name, shape in weight_shapes(config).items():
        if name.endswith(".w"):
            weights[name] = 1.0 + rng.normal(0.0, 0.2, shape)
        elif name.startswith("b_") or name.endswith(".b"):
            weights[name] = rng.normal(0.0, 0.3, shape)
        else:
            fan_in = shape[-2]
            weights[name] = rng.normal(0.0, 1.0 / np.sqrt(fan_in), shape)
    return weights


@st.composite
def blocks(draw, sizes=(4, 16, 64)) -> Block:
    d = draw(st.sampled_from(sizes))
    attention = draw(st.booleans())
    residual = draw(st.booleans())
    n_heads = draw(st.sampled_from([1, 2, 4])) if attention else 0
    d_head = draw(st.sampled_from([1, 3, max(1, d // max(n_heads, 1))])) if attention else 0
    config = BlockConfig(
        d_model=d, d_ff=draw(st.sampled_from([1, d, 4 * d])), n_heads=n_heads, d_head=d_head,
        d_out=None if residual else draw(st.sampled_from([None, 1, 3, d])),
        attention=attention, mask=draw(st.sampled_from(["full", "causal"])), residual=residual,
        norm=draw(st.sampled_from(["layernorm", "rmsnorm", "none"])),
        norm_placement=draw(st.sampled_from(["post", "pre"])),
        eps=draw(st.sampled_from([1e-5, 1e-6, 0.01])),
        activation=draw(st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "identity"])),
        gated=draw(st.booleans()))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    T = draw(st.sampled_from([1, 2, 5, 12]))
    return Block(config, random_weights(config, rng), rng.normal(0.0, 1.0, (T, d)))


@st.composite
def edits(draw, block: Block):
    """(tensor, new array, cells as given to recompute): one cell, one slice (a head, a hidden
    unit, an output column, a row), a few scattered cells, or the whole tensor."""
    name = draw(st.sampled_from(list(block.weights)))
    old = block.weights[name]
    new = np.array(old)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["cell", "cell", "slice", "scattered", "whole"]))
    if kind == "cell":
        index = tuple(int(rng.integers(n)) for n in old.shape)
        new[index] = float(rng.normal(0.0, 1.0)) if draw(st.booleans()) else new[index] + 1e-3
    elif kind == "slice":
        axis = draw(st.integers(0, old.ndim - 1))
        position = int(rng.integers(old.shape[axis]))
        selection = [slice(None)] * old.ndim
        selection[axis] = position
        new[tuple(selection)] += rng.normal(0.0, 0.5, new[tuple(selection)].shape)
    elif kind == "scattered":
        for _ in range(draw(st.integers(2, 5))):
            new[tuple(int(rng.integers(n)) for n in old.shape)] += float(rng.normal(0.0, 0.5))
    else:
        new = new + rng.normal(0.0, 0.5, old.shape)
    given_as = draw(st.sampled_from(["cells", "mask", "none"]))
    changed = old != new
    cells = {"cells": [tuple(map(int, i)) for i in np.argwhere(changed)], "mask": changed, "none": None}[given_as]
    return name, new, cells


@PROPERTY
@given(st.data())
def test_an_edit_of_any_tensor_agrees_with_the_full_forward(data):
    block = data.draw(blocks())
    trace = forward(block.config, block.weights, block.inputs)
    weights = block.weights
    for _ in range(data.draw(st.integers(1, 4))):       # chains: incremental on incremental
        name, array, cells = data.draw(edits(Block(block.config, weights, block.inputs)))
        weights = {**weights, name: array}
        trace = recompute(block.config, weights, block.inputs, trace, {name: cells})
        assert isinstance(trace, EditedTrace) and not trace.full, name
        assert_agrees(trace, forward(block.config, weights, block.inputs))


@PROPERTY
@given(st.data())
def test_trace_after_finds_the_changed_cells_of_several_tensors(data):
    block = data.draw(blocks())
    trace = forward(block.config, block.weights, block.inputs)
    weights = dict(block.weights)
    for _ in range(data.draw(st.integers(1, 3))):
        name, array, _ = data.draw(edits(block))
        weights[name] = array
    result = trace_after(block.config, block.weights, block.inputs, trace, weights, block.inputs, min_work=0)
    assert_agrees(result, forward(block.config, weights, block.inputs))


@pytest.mark.parametrize("name", ["d64", "d256"])
@pytest.mark.parametrize("options", [{}, {"norm_placement": "pre", "activation": "gelu_tanh", "mask": "causal"},
                                     {"norm": "rmsnorm", "gated": True, "activation": "silu"}])
def test_every_tensor_of_a_larger_block(name, options):
    scenario = preset(name, **options)
    config, inputs = scenario.config, scenario.inputs
    rng = np.random.default_rng(1)
    trace = forward(config, scenario.weights, inputs)
    for tensor, old in scenario.weights.items():
        array = np.array(old)
        array[tuple(int(rng.integers(n)) for n in old.shape)] += 0.3
        weights = {**scenario.weights, tensor: array}
        result = trace_after(config, scenario.weights, inputs, trace, weights, inputs, min_work=0)
        assert not result.full, tensor
        assert_agrees(result, forward(config, weights, inputs))


# --- only what an edit can change -----------------------------------------------------------

def lesson_block(**options) -> tuple[BlockConfig, dict, np.ndarray]:
    scenario = preset("d64", seed=3, **options)
    weights = random_weights(scenario.config, np.random.default_rng(3))
    return scenario.config, weights, scenario.inputs


def edit(weights: dict, name: str, index: tuple, delta: float = 0.25) -> dict:
    array = np.array(weights[name])
    array[index] += delta
    return {**weights, name: array}


def shared(before, after) -> set[str]:
    return {name for name in after if after[name] is before[name]}


@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("name, index", [("W_in", (5, 7)), ("b_in", (7,)), ("W_gate", (5, 7)), ("b_gate", (7,))])
def test_a_hidden_unit_edit_recomputes_its_column_and_what_follows(placement, name, index):
    config, weights, inputs = lesson_block(norm_placement=placement, gated=True, activation="silu")
    before = forward(config, weights, inputs)
    after = recompute(config, edit(weights, name, index), inputs, before, {name: [index]})
    expected = {"mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post", "hook_mlp_out", "hook_resid_post"}
    if placement == "post":
        expected |= {"ln2.hook_in", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out"}
    expected -= {"mlp.hook_pre"} if "gate" in name else {"mlp.hook_gate"}
    assert after.recomputed == expected
    assert shared(before, after) == set(after) - expected
    for hook in ("mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post"):
        changed_columns = np.flatnonzero(np.any(after[hook] != before[hook], axis=0))
        assert set(changed_columns) <= {7}, hook
    assert after.updates == 1


def test_an_output_column_edit_recomputes_that_column():
    config, weights, inputs = lesson_block(norm_placement="pre")
    before = forward(config, weights, inputs)
    after = recompute(config, edit(weights, "W_out", (9, 4)), inputs, before, {"W_out": [(9, 4)]})
    assert after.recomputed == {"hook_mlp_out", "hook_resid_post"}
    assert set(np.flatnonzero(np.any(after["hook_mlp_out"] != before["hook_mlp_out"], axis=0))) == {4}
    assert set(np.flatnonzero(np.any(after["hook_resid_post"] != before["hook_resid_post"], axis=0))) == {4}


@pytest.mark.parametrize("name, index, same", [
    ("W_Q", (2, 3, 1), {"attn.hook_k", "attn.hook_v"}),
    ("b_K", (2, 1), {"attn.hook_q", "attn.hook_v"}),
    ("W_V", (2, 3, 1), {"attn.hook_q", "attn.hook_k", "attn.hook_attn_scores", "attn.hook_pattern"}),
    ("W_O", (2, 1, 3), {"attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores",
                        "attn.hook_pattern", "attn.hook_z"}),
])
def test_a_head_edit_recomputes_only_that_head(name, index, same):
    config, weights, inputs = lesson_block(mask="causal")
    before = forward(config, weights, inputs)
    after = recompute(config, edit(weights, name, index), inputs, before, {name: [index]})
    assert same <= shared(before, after)
    assert "hook_resid_pre" in shared(before, after)
    for hook in {"attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_pattern", "attn.hook_z",
                 "attn.hook_result"} - same:
        heads = {h for h in range(config.n_heads) if not np.array_equal(after[hook][h], before[hook][h])}
        assert heads == {2}, hook


def test_a_norm_gain_at_the_end_recomputes_only_the_output():
    config, weights, inputs = lesson_block(norm_placement="post")
    before = forward(config, weights, inputs)
    after = recompute(config, edit(weights, "ln2.w", (3,)), inputs, before, {"ln2.w": None})
    assert after.recomputed == {"ln2.hook_out", "hook_resid_post"}
    assert_agrees(after, forward(config, edit(weights, "ln2.w", (3,)), inputs))


def test_nothing_changed_shares_every_array():
    config, weights, inputs = lesson_block()
    before = forward(config, weights, inputs)
    after = trace_after(config, weights, inputs, before, dict(weights), inputs, min_work=0)
    assert shared(before, after) == set(before) and not after.recomputed


# --- what falls back to the full forward ----------------------------------------------------

@pytest.fixture
def count_full(monkeypatch):
    calls = []
    real = incremental.forward

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(incremental, "forward", counting)
    return calls


def test_an_input_edit_under_a_full_mask_runs_the_full_forward(count_full):
    config, weights, inputs = lesson_block()                 # full mask: every row sees every other
    before = forward(config, weights, inputs)
    changed = np.array(inputs)
    changed[3, 0] += 1.0
    after = trace_after(config, weights, inputs, before, weights, changed, min_work=0)
    assert after.full and len(count_full) == 1
    assert_agrees(after, forward(config, weights, changed))
    # an input edit together with a weight edit, or one that reaches every row: the full forward too
    both = recompute(config, edit(weights, "W_in", (0, 0)), changed, before, {INPUTS: [(3, 0)], "W_in": [(0, 0)]})
    assert both.full
    causal, weights, inputs = lesson_block(mask="causal")
    before = forward(causal, weights, inputs)
    changed = np.array(inputs)
    changed[0, 5] += 1.0                                     # the first row: every row attends to it
    assert recompute(causal, weights, changed, before, {INPUTS: [(0, 5)]}).full


@pytest.mark.parametrize("options, first", [({"mask": "causal"}, 6), ({"mask": "causal", "norm_placement": "pre",
                                                                      "gated": True, "activation": "silu"}, 6),
                                            ({"attention": False}, None)])
def test_an_input_edit_recomputes_only_the_rows_that_see_it(count_full, options, first):
    """Causal: rows before the first edited one keep every value (they never attend to it);
    without attention only the edited rows change (the block is position-wise)."""
    config, weights, inputs = lesson_block(**options)
    before = forward(config, weights, inputs)
    changed = np.array(inputs)
    changed[6, 2] += 0.75
    changed[9, 0] -= 0.5
    after = recompute(config, weights, changed, before, {INPUTS: [(6, 2), (9, 0)]})
    assert not after.full and not count_full
    assert_agrees(after, forward(config, weights, changed))
    assert after.recomputed == set(before)
    rows = set(range(first, len(inputs))) if first is not None else {6, 9}
    for hook in before:
        token_axis = 1 if hook.startswith("attn.") else 0
        differ = np.flatnonzero(np.any(after[hook] != before[hook], axis=tuple(
            a for a in range(after[hook].ndim) if a != token_axis)))
        assert set(differ) <= rows, hook
        assert set(differ) >= {6, 9}, hook


@PROPERTY
@given(st.data())
def test_an_input_edit_agrees_with_the_full_forward(data):
    block = data.draw(blocks())
    trace = forward(block.config, block.weights, block.inputs)
    inputs = block.inputs
    for _ in range(data.draw(st.integers(1, 3))):          # chains: incremental on incremental
        changed = np.array(inputs)
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
        for _cell in range(data.draw(st.integers(1, 3))):
            changed[tuple(int(rng.integers(n)) for n in changed.shape)] += float(rng.normal(0.0, 1.0))
        if data.draw(st.booleans()):
            changed[int(rng.integers(len(changed)))] = rng.normal(0.0, 1.0, changed.shape[1])   # a whole row
        given_as = data.draw(st.sampled_from(["cells", "mask"]))
        differs = changed != inputs
        cells = [tuple(map(int, i)) for i in np.argwhere(differs)] if given_as == "cells" else differs
        trace = recompute(block.config, block.weights, changed, trace, {INPUTS: cells})
        assert_agrees(trace, forward(block.config, block.weights, changed))
        inputs = changed


def test_different_weight_names_or_shapes_are_not_an_edit(count_full):
    config, weights, inputs = lesson_block()
    before = forward(config, weights, inputs)
    assert find_changes(weights, inputs, dict(reversed(weights.items())), inputs) is None
    assert find_changes(weights, inputs, {**weights, "W_in": weights["W_in"][:, :-1]}, inputs) is None
    after = trace_after(config, weights, inputs, before, dict(reversed(weights.items())), inputs)
    assert after.full and len(count_full) == 1


@dataclass(frozen=True)
class FutureConfig(BlockConfig):
    """The engine after another branch adds a feature this module was not written for."""
    rotary: bool = False


@pytest.mark.parametrize("rotary, full", [(False, False), (True, True)])
def test_an_unknown_config_option_falls_back_unless_left_at_its_default(rotary, full, count_full):
    config, weights, inputs = lesson_block()
    future = FutureConfig(**{f: getattr(config, f) for f in config.__dataclass_fields__}, rotary=rotary)
    assert incremental.supports(future) is not full
    before = forward(config, weights, inputs)
    count_full.clear()
    after = recompute(future, edit(weights, "W_in", (0, 0)), inputs, before, {"W_in": [(0, 0)]})
    assert after.full is full and len(count_full) == int(full)


def test_an_unknown_weight_or_hook_falls_back(count_full):
    config, weights, inputs = lesson_block()
    before = forward(config, weights, inputs)
    after = recompute(config, {**weights, "q_norm.w": np.ones(4)}, inputs, before, {"q_norm.w": None})
    assert after.full
    extra = EditedTrace({**dict(before.items()), "attn.hook_gate": np.zeros(1)}, (), full=True)
    after = recompute(config, edit(weights, "W_in", (0, 0)), inputs, extra, {"W_in": [(0, 0)]})
    assert after.full


def test_a_trace_of_other_inputs_is_not_trusted(count_full):
    config, weights, inputs = lesson_block()
    before = forward(config, weights, inputs + 1.0)
    after = recompute(config, edit(weights, "W_in", (0, 0)), inputs, before, {"W_in": [(0, 0)]})
    assert after.full
    assert_agrees(after, forward(config, edit(weights, "W_in", (0, 0)), inputs))


# --- rounding does not accumulate -------------------------------------------------------------

def test_a_long_drag_stays_within_tolerance_and_refreshes(monkeypatch):
    config, weights, inputs = lesson_block(gated=True, activation="gelu")
    trace = forward(config, weights, inputs)
    rng = np.random.default_rng(0)
    for step in range(400):
        name = ("W_in", "b_in", "W_gate", "b_gate")[step % 4]
        index = tuple(int(rng.integers(n)) for n in weights[name].shape)
        weights = edit(weights, name, index, float(rng.normal(0.0, 0.5)))
        trace = recompute(config, weights, inputs, trace, {name: [index]})
    assert trace.updates == 400
    assert_agrees(trace, forward(config, weights, inputs))
    monkeypatch.setattr(incremental, "REFRESH_AFTER", 3)
    counts = []
    for step in range(5):
        weights = edit(weights, "W_in", (0, step))
        trace = recompute(config, weights, inputs, trace, {"W_in": [(0, step)]})
        counts.append(trace.updates)
    assert counts == [0, 1, 2, 3, 0]
    assert_agrees(trace, forward(config, weights, inputs))


def test_a_small_block_is_rerun_in_full_and_bit_identical():
    scenario = preset("lesson")
    config, weights, inputs = scenario.config, scenario.weights, scenario.inputs
    assert incremental.forward_work(config, len(inputs)) < incremental.SMALL_WORK
    larger = preset("d256")
    assert incremental.forward_work(larger.config, len(larger.inputs)) > incremental.SMALL_WORK
    before = forward(config, weights, inputs)
    changed = edit(weights, "W_in", (1, 2))
    after = trace_after(config, weights, inputs, before, changed, inputs)
    assert after.full
    want = forward(config, changed, inputs)
    assert all(np.array_equal(after[name], want[name]) for name in want)
    assert not trace_after(config, weights, inputs, before, changed, inputs, min_work=0).full


def test_find_changes_skips_shared_arrays_and_finds_cells():
    config, weights, inputs = lesson_block()
    assert find_changes(weights, inputs, dict(weights), inputs) == {}
    changed = edit(weights, "W_out", (3, 2))
    changes = find_changes(weights, inputs, changed, inputs)
    assert list(changes) == ["W_out"] and [tuple(i) for i in np.argwhere(changes["W_out"])] == [(3, 2)]
    moved = np.array(inputs)
    moved[1, 1] += 1
    assert list(find_changes(weights, inputs, weights, moved)) == [INPUTS]
