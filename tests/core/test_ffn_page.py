"""Lesson C4's FFN page: the seed's figures, the shape view, the shuffle test, attention's linear first row."""
from __future__ import annotations

import numpy as np
import pytest

from core.config import BlockConfig
from core.labs.ffn_page import (FORMULA_TERMS, GPT2_D_FF, GPT2_D_MODEL, SCALE_GRID, SHAPE_BLOCKS, SHAPE_SCALES,
                           VASWANI_D_MODEL, VASWANI_SOURCE, VASWANI_WIDTH, edge_length, ffn_parameter_parts,
                           first_token_scaling, gpt2_ffn_parameters, rows_kept, scaled_attention_rows,
                           second_difference, shape_view, shuffle_demo, shuffle_permutation, term_hooks,
                           term_shapes, unshuffle, width_ratio)
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS


@pytest.fixture(scope="module")
def block():
    return load_scenario(SCENARIOS / "block-default.json")


# --- the seed's figures ----------------------------------------------------------------------
def test_vaswani_table_3_figures_as_the_seed_quotes_them():
    assert VASWANI_D_MODEL == 512
    assert [(r.d_ff, r.dev_perplexity, r.parameters_millions) for r in VASWANI_WIDTH] == [
        (1024, 5.12, 53), (2048, 4.92, 65), (4096, 4.75, 90)]
    assert "Vaswani et al. 2017" in VASWANI_SOURCE and "Table 3" in VASWANI_SOURCE
    # wider is better and dearer
    assert np.all(np.diff([r.dev_perplexity for r in VASWANI_WIDTH]) < 0)
    assert np.all(np.diff([r.parameters_millions for r in VASWANI_WIDTH]) > 0)


def test_gpt2_small_ffn_is_four_times_wide_with_4722432_parameters():
    assert (GPT2_D_MODEL, GPT2_D_FF) == (768, 3072)
    assert width_ratio(GPT2_D_MODEL, GPT2_D_FF) == 4.0
    assert gpt2_ffn_parameters() == 4_722_432
    parts = ffn_parameter_parts(768, 3072)
    assert parts == {"W_up": 2_359_296, "b_up": 3072, "W_down": 2_359_296, "b_down": 768, "total": 4_722_432}


def test_the_two_neuron_lab_has_nine_parameters_and_the_square_small_scale_twelve():
    lab = load_scenario(SCENARIOS / "c4-xor.json")
    assert ffn_parameter_parts(2, 2, 1)["total"] == sum(w.size for w in lab.weights.values()) == 9
    assert shape_view("small").parameters == 12


# --- the formula -----------------------------------------------------------------------------
def test_formula_terms_map_to_their_hooks_and_shapes(block):
    config = block.config
    assert term_hooks("W_up", config) == ["mlp.hook_pre"]
    assert term_hooks("b_up", config) == ["mlp.hook_pre"]
    assert term_hooks("act", config) == ["mlp.hook_post"]
    assert term_hooks("W_down", config) == ["hook_mlp_out"]
    assert term_hooks("b_down", config) == ["hook_mlp_out"]
    assert term_hooks("x", config) == ["hook_resid_mid"]
    assert term_hooks("x", config.with_changes(norm_placement="pre")) == ["ln2.hook_out"]
    trace = block.run()
    for term in FORMULA_TERMS:
        assert all(hook in trace for hook in term_hooks(term, config))
    shapes = term_shapes(config, len(block.tokens))
    assert shapes == {"x": (5, 4), "W_up": (4, 6), "b_up": (6,), "act": (5, 6), "W_down": (6, 4), "b_down": (4,)}
    assert shapes["act"] == trace["mlp.hook_post"].shape
    with pytest.raises(ValueError):
        term_hooks("W_gate", config)


# --- the shape view --------------------------------------------------------------------------
@pytest.mark.parametrize("scale", ["gpt2", "small"])
def test_equal_symbols_are_drawn_equally_long(scale):
    view = shape_view(scale)
    by_symbol: dict[str, set[float]] = {}
    for block in view.blocks:
        height, width = view.block_size(block)
        by_symbol.setdefault(block.rows, set()).add(height)
        by_symbol.setdefault(block.columns, set()).add(width)
    assert set(by_symbol) == {"T", "d", "d_ff"}
    assert all(len(lengths) == 1 for lengths in by_symbol.values())
    assert view.sizes == SHAPE_SCALES[scale]


def test_edge_lengths_are_logarithmic_and_monotone():
    sizes = [1, 2, 4, 5, 768, 1024, 3072]
    lengths = [edge_length(n) for n in sizes]
    assert np.all(np.diff(lengths) > 0)
    assert edge_length(1536) - edge_length(768) == pytest.approx(edge_length(4) - edge_length(2))
    gpt2 = shape_view("gpt2")
    assert gpt2.lengths["T"] < gpt2.lengths["d"] < gpt2.lengths["d_ff"]
    assert gpt2.sizes == {"T": 5, "d": 768, "d_ff": 3072}
    assert gpt2.parameters == 4_722_432
    small = shape_view("small")
    assert small.lengths["d"] == small.lengths["d_ff"] < small.lengths["T"]
    with pytest.raises(ValueError):
        edge_length(0)


def test_shape_blocks_spell_y_equals_gelu_x_w_up_w_down():
    kinds = {block.name: (block.kind, block.rows, block.columns) for block in SHAPE_BLOCKS}
    assert kinds["X"] == ("input", "T", "d")
    assert kinds["W_up"] == ("parameter", "d", "d_ff")
    assert kinds["W_down"] == ("parameter", "d_ff", "d")
    assert kinds["Y"] == ("output", "T", "d")
    assert {kinds["Z"][0], kinds["H"][0]} == {"intermediate"}
    # each product's inner dimensions agree
    blocks = list(SHAPE_BLOCKS)
    assert blocks[0].columns == blocks[1].rows and blocks[3].columns == blocks[4].rows


# --- the shuffle test ------------------------------------------------------------------------
@pytest.mark.parametrize("step", range(6))
def test_ffn_rows_follow_their_tokens_exactly_and_causal_attention_changes(block, step):
    permutation = shuffle_permutation(len(block.tokens), step)
    assert not np.array_equal(permutation, np.arange(5))
    result = shuffle_demo(block, permutation)
    assert np.array_equal(unshuffle(result.ffn_shuffled, permutation), result.ffn_original)
    assert result.ffn_kept.all() and result.ffn_kept_count == 5
    assert result.attention_changed.any()
    token = int(np.argmax(result.attention_change))
    before = result.attention_original[token]
    after = result.attention_shuffled[result.new_positions[token]]
    assert not np.allclose(before, after)
    # without a mask and without positions, attention would only permute too
    assert result.full_attention_change.max() < 1e-12
    assert result.shuffled_tokens == tuple(block.tokens[i] for i in permutation)


def test_the_ffn_rows_are_the_scenario_ffn_on_each_token(block):
    result = shuffle_demo(block, shuffle_permutation(5, 0))
    # one token alone through the FFN gives the same row: nothing crosses positions
    from core.block import forward
    from core.labs.ffn_page import ffn_only
    config, weights = ffn_only(block)
    for t in range(5):
        alone = forward(config, weights, block.inputs[t:t + 1])["hook_mlp_out"][0]
        np.testing.assert_allclose(result.ffn_original[t], alone, rtol=0, atol=1e-15)


def test_rows_kept_detects_a_changed_row():
    original = np.arange(12.0).reshape(4, 3)
    permutation = np.array([2, 0, 3, 1])
    shuffled = original[permutation].copy()
    assert rows_kept(original, shuffled, permutation).all()
    shuffled[0, 1] += 1e-12          # the row of original token 2
    assert rows_kept(original, shuffled, permutation).tolist() == [True, True, False, True]


def test_shuffle_refuses_a_non_permutation_and_a_block_without_attention(block):
    with pytest.raises(ValueError):
        shuffle_demo(block, np.array([0, 0, 1, 2, 3]))
    with pytest.raises(ValueError):
        shuffle_demo(load_scenario(SCENARIOS / "c4-xor.json"), np.array([1, 0, 2, 3]))


# --- attention's first position is linear in its own input -----------------------------------
def test_first_position_is_a_straight_line_and_a_later_one_curves(block):
    result = first_token_scaling(block)
    assert result.scales.shape == (41,) and result.scales[0] == -2 and result.scales[-1] == 2
    assert result.first_curvature < 1e-12 and result.first_is_linear
    assert result.late_curvature > 1e-4 and not result.late_is_linear
    # x₁·W_V·W_O exactly, no biases here: s · (row at s = 1)
    at_one = result.first[np.argmin(np.abs(result.scales - 1.0))]
    np.testing.assert_allclose(result.first, np.outer(result.scales, at_one), atol=1e-12)
    w_vo = sum(block.weights["W_V"][h] @ block.weights["W_O"][h] for h in range(2))
    np.testing.assert_allclose(at_one, block.inputs[0] @ w_vo, atol=1e-12)


def test_linearity_holds_in_any_block_for_the_first_position(block):
    # biases make it affine, still straight; a pre-norm block is read before LN1 is applied
    weights = dict(block.weights)
    weights["b_V"] = np.full((2, 2), 0.3)
    weights["b_O"] = np.array([0.1, -0.2, 0.0, 0.5])
    changed = type(block)(block.config.with_changes(norm_placement="pre", mask="full"), block.tokens,
                          block.inputs, weights)
    result = first_token_scaling(changed)
    assert result.first_is_linear and not result.late_is_linear


@pytest.mark.parametrize("placement", ["post", "pre"])
def test_the_grid_equals_the_forward_pass_at_every_point(block, placement):
    weights = dict(block.weights)
    weights["b_V"] = np.array([[0.1, -0.3], [0.2, 0.0]])
    weights["b_Q"] = np.array([[0.5, 0.0], [0.0, -0.4]])
    changed = type(block)(block.config.with_changes(norm_placement=placement), block.tokens, block.inputs, weights)
    result = first_token_scaling(changed)
    for i, s in enumerate(SCALE_GRID):
        first, late = scaled_attention_rows(changed, float(s))
        np.testing.assert_allclose(result.first[i], first, rtol=0, atol=1e-12)
        np.testing.assert_allclose(result.late[i], late, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_the_grid_evaluated_at_once_is_one_forward_per_scale_in_any_block(block, seed):
    """first_token_scaling evaluates the 41 scaled tables together; each must be the block's own
    forward (scaled_attention_rows) — other head counts, widths, lengths, masks and placements."""
    import dataclasses

    from core.config import weight_shapes
    rng = np.random.default_rng(seed)
    heads, d_head, tokens = (1, 2, 3, 4)[seed % 4], (2, 3)[seed % 2], (2, 5, 7)[seed % 3]
    config = block.config.with_changes(n_heads=heads, d_head=d_head, d_model=6, d_ff=5,
                                       mask=("full", "causal")[seed % 2], norm_placement=("post", "pre")[seed // 4])
    weights = {name: rng.normal(size=shape) for name, shape in weight_shapes(config).items()}
    changed = dataclasses.replace(block, config=config, weights=weights, inputs=rng.normal(size=(tokens, 6)) * 3,
                                  tokens=tuple(f"t{i}" for i in range(tokens)), targets=None)
    result = first_token_scaling(changed)
    assert result.late_token == min(4, tokens - 1)
    for i, s in enumerate(SCALE_GRID):
        first, late = scaled_attention_rows(changed, float(s))
        np.testing.assert_allclose(result.first[i], first, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(result.late[i], late, rtol=1e-12, atol=1e-12)
    assert result.first_is_linear


def test_second_difference():
    s = np.linspace(-2, 2, 41)
    assert second_difference(3 * s - 1) < 1e-12
    assert second_difference(s ** 2) == pytest.approx(0.02)


def test_config_helpers_do_not_touch_the_scenario(block):
    before = block.inputs.copy()
    scaled_attention_rows(block, -2.0)
    assert np.array_equal(block.inputs, before)
    assert isinstance(block.config, BlockConfig) and block.config.mask == "full"
