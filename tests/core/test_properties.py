"""Properties of the forward pass that hold for every configuration, checked on random
small blocks (hypothesis), plus the numerical edge cases and one attention computed by hand.

Expected values here are computed independently of `core` (hook sets, shapes and
activations are written out again), so a slip in the engine cannot hide behind itself.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.block import forward, mse
from core.config import BlockConfig, weight_shapes
from core.fit import least_squares
from core.functions import activate, layer_norm_parts, rms_norm_parts

FAST = settings(max_examples=50, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# The hook order of DESIGN.md's table, written out again rather than imported.
DESIGN_ORDER = (
    "hook_resid_pre",
    "ln1.hook_in", "ln1.hook_scale", "ln1.hook_normalized", "ln1.hook_out",
    "attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores", "attn.hook_pattern",
    "attn.hook_z", "attn.hook_result", "hook_attn_out", "hook_resid_mid",
    "ln2.hook_in", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out",
    "mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post", "hook_mlp_out", "hook_resid_post",
)
ATTENTION_HOOKS = ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores",
                   "attn.hook_pattern", "attn.hook_z", "attn.hook_result", "hook_attn_out")
NORM_PARTS = ("hook_in", "hook_scale", "hook_normalized", "hook_out")


# --- independent reference activations ---------------------------------------------------

def _reference_activation(name: str, x: np.ndarray) -> np.ndarray:
    def one(v: float) -> float:
        if name == "relu":
            return max(v, 0.0)
        if name == "gelu":
            return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))
        if name == "gelu_tanh":
            return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
        if name == "silu":
            return v / (1.0 + math.exp(-v)) if v >= 0 else v * math.exp(v) / (1.0 + math.exp(v))
        if name == "identity":
            return v
        raise AssertionError(name)
    return np.vectorize(one, otypes=[np.float64])(x)


# --- strategies --------------------------------------------------------------------------

VALUES = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def configs(draw, **fixed) -> BlockConfig:
    """A random small BlockConfig; keyword arguments pin fields (to a value or a strategy)."""
    def pick(name, strategy):
        chosen = fixed.get(name, strategy)
        return draw(chosen) if isinstance(chosen, st.SearchStrategy) else chosen

    d_model = pick("d_model", st.integers(1, 6))
    attention = pick("attention", st.booleans())
    residual = pick("residual", st.booleans())
    d_out = None if residual else pick("d_out", st.one_of(st.none(), st.integers(1, 6)))
    return BlockConfig(
        d_model=d_model,
        d_ff=pick("d_ff", st.integers(1, 8)),
        n_heads=pick("n_heads", st.integers(1, 3)) if attention else 0,
        d_head=pick("d_head", st.integers(1, 4)) if attention else 0,
        d_out=d_out,
        attention=attention,
        mask=pick("mask", st.sampled_from(["full", "causal"])),
        residual=residual,
        norm=pick("norm", st.sampled_from(["layernorm", "rmsnorm", "none"])),
        norm_placement=pick("norm_placement", st.sampled_from(["post", "pre"])),
        eps=pick("eps", st.sampled_from([1e-5, 1e-6])),
        activation=pick("activation", st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "identity"])),
        gated=pick("gated", st.booleans()),
    )


@st.composite
def blocks(draw, min_tokens: int = 1, **fixed):
    """(config, weights, inputs): a random small block with random weights and inputs."""
    config = draw(configs(**fixed))
    weights = {name: draw(hnp.arrays(np.float64, shape, elements=VALUES))
               for name, shape in weight_shapes(config).items()}
    T = draw(st.integers(min_tokens, 6))
    inputs = draw(hnp.arrays(np.float64, (T, config.d_model), elements=VALUES))
    return config, weights, inputs


def expected_hooks(config: BlockConfig) -> list[str]:
    names = {"hook_resid_pre", "hook_resid_mid", "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out",
             "hook_resid_post"}
    if config.gated:
        names.add("mlp.hook_gate")
    if config.attention:
        names.update(ATTENTION_HOOKS)
    if config.norm != "none":
        names.update(f"ln2.{part}" for part in NORM_PARTS)
        if config.attention:
            names.update(f"ln1.{part}" for part in NORM_PARTS)
    return [name for name in DESIGN_ORDER if name in names]


def expected_shapes(config: BlockConfig, T: int) -> dict[str, tuple[int, ...]]:
    d, F = config.d_model, config.d_ff
    out = d if config.d_out is None else config.d_out
    H, dh = config.n_heads, config.d_head
    ln2_width = d if config.norm_placement == "pre" else out
    shapes = {
        "hook_resid_pre": (T, d),
        "ln1.hook_in": (T, d), "ln1.hook_scale": (T, 1), "ln1.hook_normalized": (T, d), "ln1.hook_out": (T, d),
        "attn.hook_q": (H, T, dh), "attn.hook_k": (H, T, dh), "attn.hook_v": (H, T, dh),
        "attn.hook_attn_scores": (H, T, T), "attn.hook_pattern": (H, T, T),
        "attn.hook_z": (H, T, dh), "attn.hook_result": (H, T, d), "hook_attn_out": (T, d),
        "hook_resid_mid": (T, d),
        "ln2.hook_in": (T, ln2_width), "ln2.hook_scale": (T, 1),
        "ln2.hook_normalized": (T, ln2_width), "ln2.hook_out": (T, ln2_width),
        "mlp.hook_pre": (T, F), "mlp.hook_gate": (T, F), "mlp.hook_post": (T, F),
        "hook_mlp_out": (T, out), "hook_resid_post": (T, out),
    }
    return {name: shapes[name] for name in expected_hooks(config)}


# --- structure ---------------------------------------------------------------------------

@FAST
@given(blocks())
def test_hooks_present_in_design_order_with_design_shapes(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    shapes = expected_shapes(config, len(inputs))
    assert list(trace) == list(shapes)
    for name, shape in shapes.items():
        assert trace[name].shape == shape, name
        assert trace[name].dtype == np.float64, name
    assert np.array_equal(trace["hook_resid_pre"], inputs)


@FAST
@given(blocks(attention=False))
def test_switched_off_attention_leaves_no_attention_or_ln1_hooks(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    assert not [name for name in trace if name.startswith(("attn.", "ln1.")) or name == "hook_attn_out"]
    assert np.array_equal(trace["hook_resid_mid"], inputs)


@FAST
@given(blocks(norm="none"))
def test_no_norm_leaves_no_norm_hooks(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    assert not [name for name in trace if name.startswith("ln")]


@FAST
@given(blocks())
def test_trace_arrays_are_read_only(block):
    trace = forward(*block)
    for name, array in trace.items():
        with pytest.raises(ValueError):
            array[(0,) * array.ndim] = 1.0


# --- norms -------------------------------------------------------------------------------

@FAST
@given(blocks(norm="layernorm"))
def test_layernorm_rows_have_mean_zero_and_unit_variance(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    for prefix in ("ln1", "ln2"):
        if f"{prefix}.hook_in" not in trace:
            continue
        raw = trace[f"{prefix}.hook_in"]
        normalized = trace[f"{prefix}.hook_normalized"]
        variance = np.var(raw, axis=-1, keepdims=True)
        np.testing.assert_allclose(trace[f"{prefix}.hook_scale"], np.sqrt(variance + config.eps), rtol=1e-9)
        np.testing.assert_allclose(normalized.mean(axis=-1), 0.0, atol=1e-9)
        # var(normalized) = var/(var + eps) exactly; ≈ 1 once var dwarfs eps.
        np.testing.assert_allclose(normalized.var(axis=-1, keepdims=True),
                                   variance / (variance + config.eps), rtol=1e-7, atol=1e-12)
        wide = variance[:, 0] > 1e-2
        np.testing.assert_allclose(normalized.var(axis=-1)[wide], 1.0, atol=2e-3)
        gain = weights[f"{prefix}.w"]
        bias = weights[f"{prefix}.b"]
        np.testing.assert_allclose(trace[f"{prefix}.hook_out"], normalized * gain + bias, rtol=1e-12, atol=1e-12)


@FAST
@given(blocks(norm="rmsnorm"))
def test_rmsnorm_rows_have_unit_mean_square(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    for prefix in ("ln1", "ln2"):
        if f"{prefix}.hook_in" not in trace:
            continue
        raw = trace[f"{prefix}.hook_in"]
        normalized = trace[f"{prefix}.hook_normalized"]
        mean_square = np.mean(raw ** 2, axis=-1, keepdims=True)
        np.testing.assert_allclose(trace[f"{prefix}.hook_scale"], np.sqrt(mean_square + config.eps), rtol=1e-9)
        np.testing.assert_allclose(np.mean(normalized ** 2, axis=-1, keepdims=True),
                                   mean_square / (mean_square + config.eps), rtol=1e-7, atol=1e-12)
        wide = mean_square[:, 0] > 1e-2
        np.testing.assert_allclose(np.mean(normalized ** 2, axis=-1)[wide], 1.0, atol=2e-3)
        np.testing.assert_allclose(trace[f"{prefix}.hook_out"], normalized * weights[f"{prefix}.w"],
                                   rtol=1e-12, atol=1e-12)
        assert f"{prefix}.b" not in weights


# --- attention ---------------------------------------------------------------------------

@FAST
@given(blocks(attention=True))
def test_pattern_rows_sum_to_one(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    pattern = trace["attn.hook_pattern"]
    assert np.all(pattern >= 0.0)
    np.testing.assert_allclose(pattern.sum(axis=-1), 1.0, atol=1e-12)


@FAST
@given(blocks(attention=True, mask="causal"))
def test_causal_mask_zeroes_the_future_exactly(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    T = len(inputs)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    for h in range(config.n_heads):
        assert np.all(trace["attn.hook_pattern"][h][future] == 0.0)
        assert np.all(np.isneginf(trace["attn.hook_attn_scores"][h][future]))
        assert np.all(np.isfinite(trace["attn.hook_attn_scores"][h][~future]))
    assert T == 1 or trace["attn.hook_pattern"][:, 0, 0].tolist() == [1.0] * config.n_heads


@FAST
@given(blocks(attention=True))
def test_attention_matches_its_formulas(block):
    """q, k, v, scores, pattern, z, result, attn_out recomputed with einsum from the hook input."""
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    x = trace["ln1.hook_out"] if config.norm_placement == "pre" and config.norm != "none" else inputs
    q = np.einsum("td,hde->hte", x, weights["W_Q"]) + weights["b_Q"][:, None, :]
    k = np.einsum("td,hde->hte", x, weights["W_K"]) + weights["b_K"][:, None, :]
    v = np.einsum("td,hde->hte", x, weights["W_V"]) + weights["b_V"][:, None, :]
    scores = np.einsum("hie,hje->hij", q, k) / math.sqrt(config.d_head)
    if config.mask == "causal":
        scores = np.where(np.triu(np.ones(scores.shape[1:], dtype=bool), k=1), -np.inf, scores)
    weight = np.exp(scores - scores.max(axis=-1, keepdims=True))
    pattern = weight / weight.sum(axis=-1, keepdims=True)
    z = np.einsum("hij,hje->hie", pattern, v)
    result = np.einsum("hte,hed->htd", z, weights["W_O"])
    tolerance = dict(rtol=1e-9, atol=1e-9)
    for name, expected in [("attn.hook_q", q), ("attn.hook_k", k), ("attn.hook_v", v),
                           ("attn.hook_attn_scores", scores), ("attn.hook_pattern", pattern),
                           ("attn.hook_z", z), ("attn.hook_result", result),
                           ("hook_attn_out", result.sum(axis=0) + weights["b_O"])]:
        np.testing.assert_allclose(trace[name], expected, err_msg=name, **tolerance)


def _permuted(name: str, array: np.ndarray, order: np.ndarray) -> np.ndarray:
    """The hook as it should look when the tokens are reordered by `order`."""
    if name in ("attn.hook_attn_scores", "attn.hook_pattern"):
        return array[:, order][:, :, order]
    if name.startswith("attn.hook_"):
        return array[:, order]
    return array[order]


def _assert_permuted(trace, permuted_trace, order):
    assert list(trace) == list(permuted_trace)
    for name in trace:
        np.testing.assert_allclose(permuted_trace[name], _permuted(name, trace[name], order),
                                   rtol=1e-9, atol=1e-9, err_msg=name)


@FAST
@given(blocks(min_tokens=2, attention=False), st.randoms(use_true_random=False))
def test_ffn_is_position_wise(block, random):
    config, weights, inputs = block
    order = np.array(random.sample(range(len(inputs)), len(inputs)))
    _assert_permuted(forward(config, weights, inputs), forward(config, weights, inputs[order]), order)


@FAST
@given(blocks(min_tokens=2, attention=True, mask="full"), st.randoms(use_true_random=False))
def test_full_attention_is_permutation_equivariant(block, random):
    config, weights, inputs = block
    order = np.array(random.sample(range(len(inputs)), len(inputs)))
    _assert_permuted(forward(config, weights, inputs), forward(config, weights, inputs[order]), order)


def test_causal_attention_is_not_permutation_equivariant():
    # One head that averages the values it may see: token 0 sees only itself, token 1 both.
    config = BlockConfig(d_model=1, d_ff=1, n_heads=1, d_head=1, mask="causal", residual=False,
                         norm="none", activation="identity")
    weights = {"W_Q": np.zeros((1, 1, 1)), "b_Q": np.zeros((1, 1)),
               "W_K": np.zeros((1, 1, 1)), "b_K": np.zeros((1, 1)),
               "W_V": np.ones((1, 1, 1)), "b_V": np.zeros((1, 1)),
               "W_O": np.ones((1, 1, 1)), "b_O": np.zeros(1),
               "W_in": np.ones((1, 1)), "b_in": np.zeros(1), "W_out": np.ones((1, 1)), "b_out": np.zeros(1)}
    inputs = np.array([[1.0], [3.0]])
    order = np.array([1, 0])
    trace = forward(config, weights, inputs)
    swapped = forward(config, weights, inputs[order])
    assert trace["hook_attn_out"].tolist() == [[1.0], [2.0]]
    assert swapped["hook_attn_out"].tolist() == [[3.0], [2.0]]
    assert not np.allclose(swapped["hook_attn_out"], trace["hook_attn_out"][order])
    # The same block with a full mask is equivariant: both tokens see the mean, 2.
    full = forward(config.with_changes(mask="full"), weights, inputs)
    full_swapped = forward(config.with_changes(mask="full"), weights, inputs[order])
    assert full["hook_attn_out"].tolist() == [[2.0], [2.0]] == full_swapped["hook_attn_out"].tolist()


# --- residual sums -----------------------------------------------------------------------

@FAST
@given(blocks(residual=True, norm_placement="pre"))
def test_pre_norm_output_is_mid_plus_mlp_out_exactly(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    assert np.array_equal(trace["hook_resid_post"], trace["hook_resid_mid"] + trace["hook_mlp_out"])
    if config.attention:
        assert np.array_equal(trace["hook_resid_mid"], inputs + trace["hook_attn_out"])
    if config.norm != "none":
        assert np.array_equal(trace["ln2.hook_in"], trace["hook_resid_mid"])
        if config.attention:
            assert np.array_equal(trace["ln1.hook_in"], inputs)


@FAST
@given(blocks(residual=True, norm_placement="post", norm=st.sampled_from(["layernorm", "rmsnorm"])))
def test_post_norm_normalizes_the_residual_sums(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    assert np.array_equal(trace["ln2.hook_in"], trace["hook_resid_mid"] + trace["hook_mlp_out"])
    assert np.array_equal(trace["hook_resid_post"], trace["ln2.hook_out"])
    if config.attention:
        assert np.array_equal(trace["ln1.hook_in"], inputs + trace["hook_attn_out"])
        assert np.array_equal(trace["hook_resid_mid"], trace["ln1.hook_out"])


@FAST
@given(blocks(residual=False))
def test_without_residual_nothing_is_added_back(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    post_norm = config.norm != "none" and config.norm_placement == "post"
    if config.attention:
        attended = trace["ln1.hook_in"] if post_norm else trace["hook_resid_mid"]
        assert np.array_equal(attended, trace["hook_attn_out"])
    summed = trace["ln2.hook_in"] if post_norm else trace["hook_resid_post"]
    assert np.array_equal(summed, trace["hook_mlp_out"])


# --- FFN ---------------------------------------------------------------------------------

@FAST
@given(blocks())
def test_ffn_matches_its_formulas(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    pre_norm = config.norm_placement == "pre" and config.norm != "none"
    mlp_in = trace["ln2.hook_out"] if pre_norm else trace["hook_resid_mid"]
    pre = mlp_in @ weights["W_in"] + weights["b_in"]
    np.testing.assert_allclose(trace["mlp.hook_pre"], pre, rtol=1e-12, atol=1e-12)
    if config.gated:
        gate = mlp_in @ weights["W_gate"] + weights["b_gate"]
        np.testing.assert_allclose(trace["mlp.hook_gate"], gate, rtol=1e-12, atol=1e-12)
        post = _reference_activation(config.activation, trace["mlp.hook_gate"]) * trace["mlp.hook_pre"]
    else:
        post = _reference_activation(config.activation, trace["mlp.hook_pre"])
    np.testing.assert_allclose(trace["mlp.hook_post"], post, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(trace["hook_mlp_out"], trace["mlp.hook_post"] @ weights["W_out"] + weights["b_out"],
                               rtol=1e-12, atol=1e-12)


@FAST
@given(blocks(gated=True))
def test_gated_hidden_units_are_act_of_gate_times_pre(block):
    config, weights, inputs = block
    trace = forward(config, weights, inputs)
    np.testing.assert_allclose(
        trace["mlp.hook_post"],
        _reference_activation(config.activation, trace["mlp.hook_gate"]) * trace["mlp.hook_pre"],
        rtol=1e-9, atol=1e-12)


def test_swiglu_by_hand():
    config = BlockConfig(d_model=1, d_ff=1, attention=False, n_heads=0, d_head=0, residual=False,
                         norm="none", activation="silu", gated=True)
    weights = {"W_in": np.array([[3.0]]), "b_in": np.array([0.0]), "W_gate": np.array([[1.0]]),
               "b_gate": np.array([1.0]), "W_out": np.array([[1.0]]), "b_out": np.array([0.0])}
    trace = forward(config, weights, np.array([[1.0]]))
    # gate = 2, pre = 3: silu(2)·3 = 2/(1 + e⁻²)·3
    assert trace["mlp.hook_gate"].tolist() == [[2.0]]
    assert trace["mlp.hook_pre"].tolist() == [[3.0]]
    assert trace["mlp.hook_post"][0, 0] == pytest.approx(3 * 2 / (1 + math.exp(-2)), rel=1e-12)


# --- numerical stability ------------------------------------------------------------------

def _attention_weights(d: int, H: int, dh: int, F: int, value: float = 0.0) -> dict[str, np.ndarray]:
    config = BlockConfig(d_model=d, d_ff=F, n_heads=H, d_head=dh, residual=False, norm="none")
    return {name: np.full(shape, value) for name, shape in weight_shapes(config).items()}


def test_huge_scores_give_a_finite_one_hot_pattern():
    config = BlockConfig(d_model=1, d_ff=1, n_heads=1, d_head=1, residual=False, norm="none")
    weights = _attention_weights(1, 1, 1, 1)
    weights["W_Q"][...] = 100.0
    weights["W_K"][...] = 100.0
    trace = forward(config, weights, np.array([[1.0], [-1.0], [0.5]]))
    scores = trace["attn.hook_attn_scores"][0]
    assert scores[0].tolist() == [1e4, -1e4, 5e3]
    assert scores[1].tolist() == [-1e4, 1e4, -5e3]
    pattern = trace["attn.hook_pattern"][0]
    assert np.all(np.isfinite(pattern))
    assert pattern.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    for array in trace.values():
        assert np.all(np.isfinite(array))


def test_huge_negative_scores_everywhere_still_sum_to_one():
    # Every score about −1e4: a naive exp underflows to 0/0; the shifted softmax does not.
    config = BlockConfig(d_model=1, d_ff=1, n_heads=1, d_head=1, residual=False, norm="none")
    weights = _attention_weights(1, 1, 1, 1)
    weights["W_Q"][...] = 100.0
    weights["W_K"][...] = -100.0
    trace = forward(config, weights, np.array([[1.0], [1.0]]))
    assert trace["attn.hook_attn_scores"][0].tolist() == [[-1e4, -1e4], [-1e4, -1e4]]
    assert trace["attn.hook_pattern"][0].tolist() == [[0.5, 0.5], [0.5, 0.5]]


@pytest.mark.parametrize("eps", [0.0, 1e-5])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm"])
def test_zero_variance_rows_normalize_to_finite_values(norm, eps):
    config = BlockConfig(d_model=3, d_ff=2, attention=False, n_heads=0, d_head=0, norm=norm,
                         norm_placement="pre", eps=eps)
    weights = {name: np.ones(shape) for name, shape in weight_shapes(config).items()}
    constant = 0.0 if norm == "rmsnorm" else 2.0   # RMSNorm's "no spread" is an all-zero row
    trace = forward(config, weights, np.array([[constant] * 3, [1.0, 2.0, 4.0]]))
    for array in trace.values():
        assert np.all(np.isfinite(array))
    assert trace["ln2.hook_normalized"][0].tolist() == [0.0, 0.0, 0.0]
    assert trace["ln2.hook_scale"][0, 0] == pytest.approx(math.sqrt(eps))


@pytest.mark.parametrize("offset", [1e6, -1e6])
def test_layernorm_of_offset_row_equals_the_unoffset_row(offset):
    config = BlockConfig(d_model=4, d_ff=2, attention=False, n_heads=0, d_head=0, norm="layernorm",
                         norm_placement="pre")
    weights = {name: np.ones(shape) for name, shape in weight_shapes(config).items()}
    row = np.array([0.3, -1.2, 0.7, 2.0])
    trace = forward(config, weights, np.array([row, row + offset]))
    normalized = trace["ln2.hook_normalized"]
    np.testing.assert_allclose(normalized[1], normalized[0], atol=1e-8)
    centered = row - row.mean()
    np.testing.assert_allclose(normalized[0], centered / math.sqrt(np.mean(centered ** 2) + 1e-5), rtol=1e-12)
    # The same through the parts function, with eps 0.
    _, bare = layer_norm_parts(np.array([row + offset]), 0.0)
    np.testing.assert_allclose(bare[0], centered / math.sqrt(np.mean(centered ** 2)), atol=1e-8)


def test_rmsnorm_of_huge_row_is_finite_and_right():
    scale, normalized = rms_norm_parts(np.array([[1e6, -1e6, 1e6, -1e6]]), 1e-5)
    assert np.all(np.isfinite(normalized))
    np.testing.assert_allclose(normalized, [[1.0, -1.0, 1.0, -1.0]], rtol=1e-12)
    assert scale[0, 0] == pytest.approx(1e6)


ALL_ACTIVATIONS = ["relu", "gelu", "gelu_tanh", "silu", "identity"]


@pytest.mark.parametrize("activation", ALL_ACTIVATIONS)
def test_every_activation_is_finite_and_right_at_a_million(activation):
    values = activate(activation, np.array([-1e6, 1e6]))
    assert np.all(np.isfinite(values))
    expected = [-1e6, 1e6] if activation == "identity" else [0.0, 1e6]
    assert values.tolist() == expected


@pytest.mark.parametrize("activation", ALL_ACTIVATIONS)
def test_activations_agree_with_the_reference(activation):
    x = np.linspace(-8.0, 8.0, 161)
    np.testing.assert_allclose(activate(activation, x), _reference_activation(activation, x), rtol=1e-9, atol=1e-15)


def test_gelu_exact_and_tanh_approximation_differ():
    exact = float(activate("gelu", np.array(-1.0)))
    approximate = float(activate("gelu_tanh", np.array(-1.0)))
    assert exact == pytest.approx(-0.15865525393145707, abs=1e-15)
    assert approximate == pytest.approx(-0.15880800939172324, abs=1e-15)
    assert f"{exact:.6f}" == "-0.158655" and f"{approximate:.6f}" == "-0.158808"
    # The seed's tanh-GELU of 1: 0.841; the exact one is 0.8413.
    assert float(activate("gelu_tanh", np.array(1.0))) == pytest.approx(0.8411919906, abs=1e-10)
    assert float(activate("gelu", np.array(1.0))) == pytest.approx(0.8413447461, abs=1e-10)


@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm", "none"])
@pytest.mark.parametrize("activation", ALL_ACTIVATIONS)
def test_every_hook_finite_with_inputs_and_weights_of_a_million(activation, norm, placement, gated):
    config = BlockConfig(d_model=6, d_ff=8, n_heads=3, d_head=4, norm=norm, norm_placement=placement,
                         activation=activation, gated=gated, mask="causal")
    rng = np.random.default_rng(7)
    weights = {name: rng.choice([-1e6, 1e6], size=shape) for name, shape in weight_shapes(config).items()}
    inputs = rng.choice([-1e6, 1e6], size=(5, 6))
    trace = forward(config, weights, inputs)
    for name, array in trace.items():
        finite = np.isfinite(array) | (name == "attn.hook_attn_scores")
        assert np.all(finite), name
    np.testing.assert_allclose(trace["attn.hook_pattern"].sum(axis=-1), 1.0, atol=1e-12)


# --- one attention computed by hand -------------------------------------------------------

def test_attention_arithmetic_by_hand():
    """Two tokens, one head, d_model = d_head = 2, every number written out."""
    config = BlockConfig(d_model=2, d_ff=1, n_heads=1, d_head=2, residual=False, norm="none",
                         activation="identity")
    weights = {
        "W_Q": np.array([[[1.0, 0.0], [0.0, 1.0]]]), "b_Q": np.array([[0.0, 0.5]]),
        "W_K": np.array([[[1.0, 0.0], [0.0, 1.0]]]), "b_K": np.array([[0.0, 0.0]]),
        "W_V": np.array([[[1.0, 0.0], [0.0, 0.5]]]), "b_V": np.array([[0.25, 0.0]]),
        "W_O": np.array([[[2.0, 0.0], [0.0, -1.0]]]), "b_O": np.array([0.5, 0.0]),
        "W_in": np.zeros((2, 1)), "b_in": np.zeros(1), "W_out": np.zeros((1, 2)), "b_out": np.zeros(2),
    }
    x = np.array([[1.0, 0.0], [0.0, 2.0]])
    trace = forward(config, weights, x)

    # q = x·W_Q + b_Q: [1, 0.5], [0, 2.5];  k = x: [1, 0], [0, 2];  v = x·W_V + b_V: [1.25, 0], [0.25, 1]
    assert trace["attn.hook_q"].tolist() == [[[1.0, 0.5], [0.0, 2.5]]]
    assert trace["attn.hook_k"].tolist() == [[[1.0, 0.0], [0.0, 2.0]]]
    assert trace["attn.hook_v"].tolist() == [[[1.25, 0.0], [0.25, 1.0]]]
    # scores = q·kᵀ/√2: [1, 1], [0, 5] over √2
    r = math.sqrt(2.0)
    s = [[1.0 / r, 1.0 / r], [0.0, 5.0 / r]]
    np.testing.assert_allclose(trace["attn.hook_attn_scores"][0], s, rtol=1e-15)
    # pattern: row 0 equal scores → [½, ½]; row 1 = [1, e^(5/√2)] / (1 + e^(5/√2))
    e = math.exp(5.0 / r)
    p = [[0.5, 0.5], [1.0 / (1.0 + e), e / (1.0 + e)]]
    np.testing.assert_allclose(trace["attn.hook_pattern"][0], p, rtol=1e-14)
    # z = pattern·v
    z = [[0.5 * 1.25 + 0.5 * 0.25, 0.5 * 0.0 + 0.5 * 1.0],
         [p[1][0] * 1.25 + p[1][1] * 0.25, p[1][0] * 0.0 + p[1][1] * 1.0]]
    np.testing.assert_allclose(trace["attn.hook_z"][0], z, rtol=1e-14)
    assert z[0] == [0.75, 0.5]
    # result = z·W_O = [2 z₀, −z₁];  attn_out = result + b_O
    result = [[2 * z[0][0], -z[0][1]], [2 * z[1][0], -z[1][1]]]
    np.testing.assert_allclose(trace["attn.hook_result"][0], result, rtol=1e-14)
    attn_out = [[result[0][0] + 0.5, result[0][1]], [result[1][0] + 0.5, result[1][1]]]
    np.testing.assert_allclose(trace["hook_attn_out"], attn_out, rtol=1e-14)
    assert trace["hook_attn_out"][0].tolist() == [2.0, -0.5]
    # Without a residual the stream entering the FFN is attn_out itself; with one, x + attn_out.
    assert np.array_equal(trace["hook_resid_mid"], trace["hook_attn_out"])
    with_residual = forward(config.with_changes(residual=True), weights, x)
    np.testing.assert_allclose(with_residual["hook_resid_mid"], x + np.array(attn_out), rtol=1e-14)


# --- mse and the linear baseline ------------------------------------------------------------

def test_mse_is_the_mean_over_every_cell():
    assert mse(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 0.0], [0.0, 4.0]])) == 3.25
    assert mse(np.zeros((3, 1)), np.zeros((3, 1))) == 0.0
    assert mse([[0.5]], [[-0.5]]) == 1.0


def test_least_squares_on_xor_is_the_constant_half():
    inputs = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    targets = np.array([0.0, 1.0, 1.0, 0.0])
    fit = least_squares(inputs, targets)
    np.testing.assert_allclose(fit.coefficients, [0.0, 0.0], atol=1e-12)
    assert fit.intercept == pytest.approx(0.5, abs=1e-12)
    assert fit.mse == pytest.approx(0.25, abs=1e-12)
    np.testing.assert_allclose(fit.predict(inputs), [0.5] * 4, atol=1e-12)


def test_least_squares_recovers_an_exact_line():
    inputs = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [-1.0, 5.0]])
    targets = inputs @ np.array([2.0, -3.0]) + 0.5
    fit = least_squares(inputs, targets.reshape(-1, 1))
    np.testing.assert_allclose(fit.coefficients, [2.0, -3.0], atol=1e-10)
    assert fit.intercept == pytest.approx(0.5, abs=1e-10)
    assert fit.mse == pytest.approx(0.0, abs=1e-20)
