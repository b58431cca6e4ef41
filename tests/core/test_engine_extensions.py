"""The engine's later-generation options (zero-centred norms, QK-Norm, the attention output
gate, the clamped SwiGLU) against hand-computed values and their invariants, their config
validation and file round trip, and proof that every block without them computes exactly,
bit for bit, what it computed before they existed."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from core.analysis import invariants, qk_norm_invariants
from core.block import HOOK_NAMES, forward
from core.config import BlockConfig, ConfigError, numbers_needed, weight_shapes
from core.formats.lesson import load_lesson
from core.formats.scenario import (Scenario, ScenarioError, load_scenario, parse_scenario, scenario_to_json,
                                  sidecar_name)
from core.functions import activate, softmax
from core.resources import lessons_dir, scenarios_dir
from core.weights import adapt_weights, default_weight

FAST = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def sigma(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


def silu(v: float) -> float:
    return v * sigma(v)


def ones_block(config: BlockConfig, seed: int = 3) -> dict[str, np.ndarray]:
    return {name: default_weight(name, shape, seed, config.zero_centered)
            for name, shape in weight_shapes(config).items()}


def default() -> Scenario:
    return load_scenario(scenarios_dir() / "block-default.json")


# --- the pre-extension engine, frozen, to prove old blocks compute bit for bit the same ---------

def _old_norm(kind, x, eps):
    if kind == "layernorm":
        centered = x - np.mean(x, axis=-1, keepdims=True)
        scale = np.sqrt(np.mean(centered * centered, axis=-1, keepdims=True) + eps)
        numerator = centered
    else:
        scale = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
        numerator = x
    with np.errstate(divide="ignore", invalid="ignore"):
        return scale, np.where(scale > 0, numerator / np.where(scale > 0, scale, 1.0), 0.0)


def old_forward(config: BlockConfig, weights, inputs) -> dict[str, np.ndarray]:
    """core.block.forward as it was before the extensions (commit 6057804), written out again."""
    x = np.array(inputs, dtype=np.float64)
    w = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    hooks = {"hook_resid_pre": x}

    def norm(prefix, value):
        scale, normalized = _old_norm(config.norm, value, config.eps)
        out = normalized * w[f"{prefix}.w"]
        if config.norm == "layernorm":
            out = out + w[f"{prefix}.b"]
        hooks.update({f"{prefix}.hook_in": value, f"{prefix}.hook_scale": scale,
                      f"{prefix}.hook_normalized": normalized, f"{prefix}.hook_out": out})
        return out

    def attention(a):
        H, dh, T = config.n_heads, config.d_head, a.shape[0]
        q, k, v, z = (np.empty((H, T, dh)) for _ in range(4))
        scores, pattern = np.empty((H, T, T)), np.empty((H, T, T))
        result = np.empty((H, T, config.d_model))
        blocked = np.triu(np.ones((T, T), dtype=bool), k=1) if config.mask == "causal" else np.zeros((T, T), bool)
        for h in range(H):
            q[h] = a @ w["W_Q"][h] + w["b_Q"][h]
            k[h] = a @ w["W_K"][h] + w["b_K"][h]
            v[h] = a @ w["W_V"][h] + w["b_V"][h]
            scores[h] = np.where(blocked, -np.inf, q[h] @ k[h].T / np.sqrt(dh))
            top = np.max(scores[h], axis=-1, keepdims=True)
            shifted = np.exp(scores[h] - top)
            pattern[h] = shifted / np.sum(shifted, axis=-1, keepdims=True)
            z[h] = pattern[h] @ v[h]
            result[h] = z[h] @ w["W_O"][h]
        out = result.sum(axis=0) + w["b_O"]
        hooks.update({"attn.hook_q": q, "attn.hook_k": k, "attn.hook_v": v, "attn.hook_attn_scores": scores,
                      "attn.hook_pattern": pattern, "attn.hook_z": z, "attn.hook_result": result,
                      "hook_attn_out": out})
        return out

    def mlp(a):
        pre = a @ w["W_in"] + w["b_in"]
        hooks["mlp.hook_pre"] = pre
        if config.gated:
            gate = a @ w["W_gate"] + w["b_gate"]
            hooks["mlp.hook_gate"] = gate
            hidden = activate(config.activation, gate) * pre
        else:
            hidden = activate(config.activation, pre)
        hooks["mlp.hook_post"] = hidden
        out = hidden @ w["W_out"] + w["b_out"]
        hooks["hook_mlp_out"] = out
        return out

    pre_norm, post_norm = config.pre_norm, config.post_norm
    if config.attention:
        attn_out = attention(norm("ln1", x) if pre_norm else x)
        summed = x + attn_out if config.residual else attn_out
        mid = norm("ln1", summed) if post_norm else summed
    else:
        mid = x
    hooks["hook_resid_mid"] = mid
    mlp_out = mlp(norm("ln2", mid) if pre_norm else mid)
    summed = mid + mlp_out if config.residual else mlp_out
    hooks["hook_resid_post"] = norm("ln2", summed) if post_norm else summed
    return hooks


def assert_bitwise_equal(trace, reference: dict[str, np.ndarray]) -> None:
    assert sorted(trace) == sorted(reference)
    for hook, array in reference.items():
        assert trace[hook].shape == array.shape, hook
        assert trace[hook].tobytes() == array.tobytes(), hook


def shipped_scenarios() -> list[Scenario]:
    found = [load_scenario(path) for path in sorted(scenarios_dir().glob("*.json"))]
    for path in sorted(lessons_dir().glob("*.json")):
        lesson = load_lesson(path)
        found += [lesson.step_scenario(k) for k in range(len(lesson))]
    return found


def uses_later_generations(config: BlockConfig) -> bool:
    """Built with an option that did not exist before (the generations lab's presets are)."""
    return (config.zero_centered or config.qk_norm or config.attn_gate or config.ffn_clamp is not None
            or config.positional != "none")


def test_every_shipped_scenario_and_lesson_step_computes_bit_for_bit_as_before():
    scenarios = [scenario for scenario in shipped_scenarios() if not uses_later_generations(scenario.config)]
    assert len(scenarios) >= 10
    for scenario in scenarios:
        assert_bitwise_equal(scenario.run(), old_forward(scenario.config, scenario.weights, scenario.inputs))


VALUES = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False, width=64)


@st.composite
def old_blocks(draw):
    attention = draw(st.booleans())
    residual = draw(st.booleans())
    d_model = draw(st.integers(1, 5))
    config = BlockConfig(
        d_model=d_model, d_ff=draw(st.integers(1, 6)),
        n_heads=draw(st.integers(1, 3)) if attention else 0, d_head=draw(st.integers(1, 3)) if attention else 0,
        d_out=None if residual else draw(st.integers(1, 5)), attention=attention,
        mask=draw(st.sampled_from(["full", "causal"])), residual=residual,
        norm=draw(st.sampled_from(["layernorm", "rmsnorm", "none"])),
        norm_placement=draw(st.sampled_from(["post", "pre"])), eps=draw(st.sampled_from([1e-5, 1e-6, 0.0])),
        activation=draw(st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "identity"])),
        gated=draw(st.booleans()))
    weights = {name: draw(hnp.arrays(np.float64, shape, elements=VALUES))
               for name, shape in weight_shapes(config).items()}
    inputs = draw(hnp.arrays(np.float64, (draw(st.integers(1, 5)), d_model), elements=VALUES))
    return config, weights, inputs


@FAST
@given(old_blocks())
def test_any_block_without_the_new_options_computes_bit_for_bit_as_before(block):
    config, weights, inputs = block
    with np.errstate(all="ignore"):
        assert_bitwise_equal(forward(config, weights, inputs), old_forward(config, weights, inputs))


def test_old_configs_save_without_the_new_fields():
    for path in sorted(scenarios_dir().glob("*.json")):
        scenario = load_scenario(path)
        # a file shipped with a sidecar saves in that form (written inline, GPT-2's shape is
        # seven million numbers of JSON: half a minute for this test alone)
        arrays = sidecar_name(scenario, path)
        text = scenario_to_json(scenario, arrays)
        document = json.loads(text)
        if not uses_later_generations(scenario.config):       # the generations lab's presets use them
            assert not {"zero_centered", "qk_norm", "attn_gate", "ffn_clamp"} & set(document["config"])
        assert scenario_to_json(parse_scenario(text, folder=path.parent), arrays) == text


# --- zero-centred norms ----------------------------------------------------------------------

def ffn_norm_config(**changes) -> BlockConfig:
    """A block that is only the FFN sub-layer behind a pre-norm: ln2 reads the input directly."""
    base = dict(d_model=4, d_ff=2, attention=False, residual=False, norm="rmsnorm", norm_placement="pre",
                eps=1e-6, activation="identity")
    return BlockConfig(**{**base, **changes})


def test_zero_centred_rmsnorm_multiplies_by_one_plus_w():
    config = ffn_norm_config(zero_centered=True)
    weights = ones_block(config)
    weights["ln2.w"] = np.array([0.0, 0.5, -1.0, 1.0])          # gains 1, 1.5, 0, 2
    trace = forward(config, weights, np.array([[1.0, 2.0, 3.0, 4.0]]))
    scale = math.sqrt((1 + 4 + 9 + 16) / 4 + 1e-6)              # √(7.5 + ε)
    assert trace["ln2.hook_scale"][0, 0] == pytest.approx(scale, rel=1e-15)
    expected = [1 * 1.0 / scale, 2 * 1.5 / scale, 0.0, 4 * 2.0 / scale]
    assert trace["ln2.hook_out"][0] == pytest.approx(expected, rel=1e-14, abs=1e-15)
    assert trace["ln2.hook_normalized"][0] == pytest.approx([1 / scale, 2 / scale, 3 / scale, 4 / scale], rel=1e-14)


@pytest.mark.parametrize("norm", ["rmsnorm", "layernorm"])
@pytest.mark.parametrize("placement", ["pre", "post"])
def test_zero_centred_with_w_zero_is_the_plain_norm_with_gain_one(norm, placement):
    scenario = default()
    plain = scenario.config.with_changes(norm=norm, norm_placement=placement)
    centred = plain.with_changes(zero_centered=True)
    weights, _ = adapt_weights(scenario.weights, plain)
    weights.update({name: np.ones_like(a) for name, a in weights.items() if name.endswith(".w")})
    zero = {name: (np.zeros_like(a) if name.endswith(".w") else a) for name, a in weights.items()}
    assert_bitwise_equal(forward(centred, zero, scenario.inputs), dict(forward(plain, weights, scenario.inputs)))


def test_zero_centred_gains_are_created_at_zero_and_converted_when_flipped():
    scenario = default()
    config = scenario.config.with_changes(norm="rmsnorm", zero_centered=True)
    created, names = adapt_weights({}, config)
    assert np.array_equal(created["ln1.w"], np.zeros(4)) and "ln1.w" in names
    kept, _ = adapt_weights(scenario.weights, config, previous=scenario.config)
    assert np.array_equal(kept["ln1.w"], scenario.weights["ln1.w"] - 1)
    plain = scenario.config.with_changes(norm="rmsnorm")
    back, _ = adapt_weights(kept, plain, previous=config)
    assert np.array_equal(back["ln1.w"], scenario.weights["ln1.w"])
    # The conversion keeps what the block computes.
    assert np.allclose(forward(config, kept, scenario.inputs).output, forward(plain, back, scenario.inputs).output,
                       rtol=0, atol=1e-15)


# --- QK-Norm ---------------------------------------------------------------------------------

def qk_config(**changes) -> BlockConfig:
    base = dict(d_model=2, n_heads=1, d_head=2, d_ff=1, mask="full", norm="none", eps=1e-6, activation="identity",
                qk_norm=True)
    return BlockConfig(**{**base, **changes})


def test_qk_norm_by_hand():
    config = qk_config()
    weights = {name: np.zeros(shape) for name, shape in weight_shapes(config).items()}
    weights["W_Q"] = np.eye(2)[None]                 # q = x
    weights["W_K"] = np.array([[[0.0, 1.0], [1.0, 0.0]]])   # k = x swapped
    weights["W_V"] = np.eye(2)[None]
    weights["q_norm.w"] = np.array([2.0, 0.5])
    weights["k_norm.w"] = np.array([1.0, 1.0])
    x = np.array([[3.0, 4.0], [1.0, 0.0]])
    trace = forward(config, weights, x)
    s0 = math.sqrt(12.5 + 1e-6)                      # q row 0 = (3, 4): mean square 12.5
    assert trace["attn.hook_q_scale"][0, 0, 0] == pytest.approx(s0, rel=1e-15)
    assert trace["attn.hook_q_normalized"][0, 0] == pytest.approx([3 / s0, 4 / s0], rel=1e-14)
    assert trace["attn.hook_q_normed"][0, 0] == pytest.approx([2 * 3 / s0, 0.5 * 4 / s0], rel=1e-14)
    s1 = math.sqrt(0.5 + 1e-6)                       # k row 1 = (0, 1)
    assert trace["attn.hook_k_normed"][0, 1] == pytest.approx([0.0, 1 / s1], rel=1e-14)
    q, k = trace["attn.hook_q_normed"][0], trace["attn.hook_k_normed"][0]
    assert trace["attn.hook_attn_scores"][0] == pytest.approx(q @ k.T / math.sqrt(2), rel=1e-14)
    assert trace["attn.hook_q"][0] == pytest.approx(x)          # hook_q stays the raw projection


def test_qk_normed_rows_have_rms_one_before_the_gain_and_bounded_scores():
    scenario = default()
    config = scenario.config.with_changes(qk_norm=True, mask="causal", eps=1e-9)
    weights, created = adapt_weights(scenario.weights, config)
    assert created == ["q_norm.w", "k_norm.w"] and weights["q_norm.w"].shape == (2,)
    weights["W_Q"] = weights["W_Q"] * 100.0          # huge queries: the pattern cannot saturate
    trace = forward(config, weights, scenario.inputs)
    for which in ("q", "k"):
        normalized = trace[f"attn.hook_{which}_normalized"]
        assert normalized.shape == (2, 5, 2) and trace[f"attn.hook_{which}_scale"].shape == (2, 5, 1)
        assert np.sqrt(np.mean(normalized ** 2, axis=-1)) == pytest.approx(np.ones((2, 5)), abs=1e-6)
        raw = np.mean(trace[f"attn.hook_{which}"] ** 2, axis=-1)         # exactly ms / (ms + ε)
        assert np.mean(normalized ** 2, axis=-1) == pytest.approx(raw / (raw + 1e-9), rel=1e-13)
    finite = trace["attn.hook_attn_scores"][np.isfinite(trace["attn.hook_attn_scores"])]
    assert np.abs(finite).max() <= math.sqrt(2) + 1e-12   # |q̂·k̂|/√dh ≤ √dh with gains 1
    found = {inv.key: inv for inv in qk_norm_invariants(config, trace)}
    assert found["q_norm.ms"].ok and found["k_norm.ms"].ok and found["q_norm.ms"].values.shape == (2, 5)
    assert all(inv.ok for inv in invariants(config, trace))
    assert qk_norm_invariants(scenario.config, scenario.run()) == []
    weights["q_norm.w"] = np.array([3.0, -2.0])      # the check is on the rows before the gain
    assert all(inv.ok for inv in qk_norm_invariants(config, forward(config, weights, scenario.inputs)))


def test_qk_norm_zero_centred_gain_zero_equals_gain_one():
    scenario = default()
    plain = scenario.config.with_changes(qk_norm=True)
    centred = plain.with_changes(zero_centered=True)
    weights, _ = adapt_weights(scenario.weights, plain)
    zero = dict(weights, **{"q_norm.w": np.zeros(2), "k_norm.w": np.zeros(2), "ln1.w": weights["ln1.w"] - 1,
                            "ln2.w": weights["ln2.w"] - 1})
    assert_bitwise_equal(forward(centred, zero, scenario.inputs), dict(forward(plain, weights, scenario.inputs)))


# --- the attention output gate ---------------------------------------------------------------

def gate_setup(bias: float):
    scenario = default()
    plain = scenario.config.with_changes(mask="causal")
    gated = plain.with_changes(attn_gate=True)
    weights, created = adapt_weights(scenario.weights, gated)
    assert created == ["W_G", "b_G"]
    weights["W_G"] = np.zeros((2, 4, 2))
    weights["b_G"] = np.full((2, 2), bias)
    weights["b_O"] = np.array([0.25, -0.5, 0.0, 1.0])
    return scenario, plain, gated, weights


def test_a_gate_of_zero_halves_every_head():
    scenario, plain, gated, weights = gate_setup(0.0)
    with_gate = forward(gated, weights, scenario.inputs)
    without = forward(plain, {k: v for k, v in weights.items() if k not in ("W_G", "b_G")}, scenario.inputs)
    assert np.array_equal(with_gate["attn.hook_gate_sigmoid"], np.full((2, 5, 2), 0.5))
    assert np.array_equal(with_gate["attn.hook_z_gated"], without["attn.hook_z"] / 2)
    assert np.array_equal(with_gate["attn.hook_pattern"], without["attn.hook_pattern"])   # softmax untouched
    b_O = weights["b_O"]
    assert with_gate["hook_attn_out"] == pytest.approx((without["hook_attn_out"] - b_O) / 2 + b_O, abs=1e-15)


def test_a_very_negative_gate_silences_the_head():
    scenario, _, gated, weights = gate_setup(-40.0)
    trace = forward(gated, weights, scenario.inputs)
    assert np.all(trace["attn.hook_gate_sigmoid"] < 1e-17)
    assert np.abs(trace["attn.hook_z_gated"]).max() < 1e-16
    assert trace["hook_attn_out"] == pytest.approx(np.broadcast_to(weights["b_O"], (5, 4)), abs=1e-15)


def test_the_gate_by_hand():
    config = qk_config(qk_norm=False, attn_gate=True)
    weights = {name: np.zeros(shape) for name, shape in weight_shapes(config).items()}
    weights["W_V"] = np.eye(2)[None]                 # one token: pattern [1], z = v = x
    weights["W_O"] = np.eye(2)[None]
    weights["W_G"] = np.array([[[1.0, 0.0], [0.0, -1.0]]])
    weights["b_G"] = np.array([[0.5, 0.0]])
    trace = forward(config, weights, np.array([[1.0, 2.0]]))
    gate = [1.0 + 0.5, -2.0]
    assert trace["attn.hook_gate"][0, 0] == pytest.approx(gate)
    assert trace["attn.hook_gate_sigmoid"][0, 0] == pytest.approx([sigma(1.5), sigma(-2.0)], rel=1e-15)
    assert trace["attn.hook_z_gated"][0, 0] == pytest.approx([1.0 * sigma(1.5), 2.0 * sigma(-2.0)], rel=1e-15)
    assert trace["hook_attn_out"][0] == pytest.approx([0.8175744761936437, 0.2384058440442351], rel=1e-13)
    assert list(trace).index("attn.hook_z") < list(trace).index("attn.hook_z_gated") < list(trace).index(
        "attn.hook_result")


# --- the clamped SwiGLU ----------------------------------------------------------------------

def clamp_config(limit) -> BlockConfig:
    return BlockConfig(d_model=1, d_ff=3, attention=False, residual=False, norm="none", activation="silu",
                       gated=True, ffn_clamp=limit)


def clamp_weights() -> dict[str, np.ndarray]:
    # x = 1: gate = (10, −10, 3), up = (−9, 9, 2)
    return {"W_in": np.array([[-9.0, 9.0, 2.0]]), "b_in": np.zeros(3), "W_gate": np.array([[10.0, -10.0, 3.0]]),
            "b_gate": np.zeros(3), "W_out": np.ones((3, 1)), "b_out": np.zeros(1)}


def test_clamp_by_hand_gate_from_above_up_on_both_sides():
    trace = forward(clamp_config(7), clamp_weights(), np.array([[1.0]]))
    assert trace["mlp.hook_gate"][0] == pytest.approx([10, -10, 3])          # before the clamp
    assert trace["mlp.hook_pre"][0] == pytest.approx([-9, 9, 2])
    assert trace["mlp.hook_gate_clamped"][0] == pytest.approx([7, -10, 3])  # −10 stays: SiLU(−10) ≈ 0 anyway
    assert trace["mlp.hook_pre_clamped"][0] == pytest.approx([-7, 7, 2])
    assert trace["mlp.hook_post"][0] == pytest.approx([silu(7) * -7, silu(-10) * 7, silu(3) * 2], rel=1e-14)
    assert np.all(trace["mlp.hook_gate_clamped"] <= 7) and np.all(np.abs(trace["mlp.hook_pre_clamped"]) <= 7)


def test_clamp_bounds_the_product_and_a_far_limit_changes_nothing():
    x = np.array([[1.0], [50.0], [-50.0], [1e4]])
    clamped = forward(clamp_config(10), clamp_weights(), x)
    assert np.abs(clamped["mlp.hook_post"]).max() <= silu(10) * 10 + 1e-9     # 99.995…
    loose = forward(clamp_config(1e6), clamp_weights(), x[:3])
    free = forward(clamp_config(None), clamp_weights(), x[:3])
    assert np.array_equal(loose["mlp.hook_post"], free["mlp.hook_post"])
    assert "mlp.hook_gate_clamped" not in free and "mlp.hook_pre_clamped" not in free


# --- config, files, hooks, sizes -------------------------------------------------------------

@pytest.mark.parametrize("field, value, message", [
    ("zero_centered", 1, "config.zero_centered: expected true or false"),
    ("qk_norm", "yes", "config.qk_norm: expected true or false"),
    ("attn_gate", None, "config.attn_gate: expected true or false"),
    ("ffn_clamp", 0, "config.ffn_clamp: expected null or a number above 0"),
    ("ffn_clamp", -7, "config.ffn_clamp: expected null or a number above 0"),
    ("ffn_clamp", float("nan"), "config.ffn_clamp: expected null or a number above 0"),
    ("ffn_clamp", float("inf"), "config.ffn_clamp: expected null or a number above 0"),
    ("ffn_clamp", "7", "config.ffn_clamp: expected null or a number above 0"),
    ("ffn_clamp", True, "config.ffn_clamp: expected null or a number above 0"),
])
def test_bad_values_are_refused_naming_the_field(field, value, message):
    config = default().config.with_changes(activation="silu", gated=True)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        config.with_changes(**{field: value})


def test_options_that_need_a_part_are_refused_without_it_and_cleared_with_it():
    config = default().config
    with pytest.raises(ConfigError, match=r"^config\.ffn_clamp: expected null when gated is false"):
        config.with_changes(ffn_clamp=7)
    with pytest.raises(ConfigError, match=r"^config\.qk_norm: expected false when attention is false"):
        BlockConfig(d_model=2, d_ff=2, attention=False, qk_norm=True)
    with pytest.raises(ConfigError, match=r"^config\.attn_gate: expected false when attention is false"):
        BlockConfig(d_model=2, d_ff=2, attention=False, attn_gate=True)
    rich = config.with_changes(qk_norm=True, attn_gate=True, gated=True, activation="silu", ffn_clamp=7)
    off = rich.with_changes(attention=False, gated=False)
    assert (off.qk_norm, off.attn_gate, off.ffn_clamp) == (False, False, None)


def _document(config: dict, weights: dict) -> str:
    return json.dumps({"format": "blocklab-scenario", "version": 1, "config": config, "tokens": ["a", "b"],
                       "inputs": [[1.0, 0.0], [0.0, 1.0]], "weights": weights})


def test_files_round_trip_the_new_fields_and_refuse_bad_ones():
    config = BlockConfig(d_model=2, n_heads=1, d_head=2, d_ff=3, mask="causal", norm="rmsnorm",
                         norm_placement="pre", eps=1e-6, activation="silu", gated=True, zero_centered=True,
                         qk_norm=True, attn_gate=True, ffn_clamp=7.0)
    weights = {name: np.round(default_weight(name, shape, 1, True) + 0.25, 2)
               for name, shape in weight_shapes(config).items()}
    scenario = Scenario(config, ("a", "b"), np.array([[1.0, 0.0], [0.0, 1.0]]), weights)
    text = scenario_to_json(scenario)
    again = parse_scenario(text)
    assert again.config == config and list(again.weights) == list(weights)
    assert all(np.array_equal(again.weights[n], weights[n]) for n in weights)
    assert scenario_to_json(again) == text
    saved = json.loads(text)["config"]
    assert (saved["zero_centered"], saved["qk_norm"], saved["attn_gate"], saved["ffn_clamp"]) == (True, True, True, 7.0)
    raw = {name: np.asarray(a).tolist() for name, a in weights.items()}
    bad = dict(saved, ffn_clamp=-1)
    with pytest.raises(ScenarioError, match=r"^config\.ffn_clamp: expected null or a number above 0"):
        parse_scenario(_document(bad, raw))
    with pytest.raises(ScenarioError, match=r"^weights\.q_norm\.w: missing"):
        parse_scenario(_document(saved, {k: v for k, v in raw.items() if k != "q_norm.w"}))
    with pytest.raises(ScenarioError, match=r"^weights\.W_G: expected 1×2×2, got 1×2×3"):
        parse_scenario(_document(saved, dict(raw, W_G=[[[0, 0, 0], [0, 0, 0]]])))
    plain = dict(saved, qk_norm=False, attn_gate=False)
    with pytest.raises(ScenarioError, match=r"^weights\.q_norm\.w: unexpected for this config"):
        parse_scenario(_document(plain, raw))
    null_clamp = parse_scenario(_document(dict(saved, ffn_clamp=None), raw))
    assert null_clamp.config.ffn_clamp is None


def test_new_hooks_follow_the_design_order_and_sizes_are_counted():
    config = BlockConfig(d_model=4, n_heads=2, d_head=3, d_ff=5, mask="causal", norm="rmsnorm",
                         norm_placement="pre", activation="silu", gated=True, zero_centered=True, qk_norm=True,
                         attn_gate=True, ffn_clamp=7)
    inputs = np.linspace(-1, 1, 24).reshape(6, 4)
    weights = ones_block(config)
    trace = forward(config, weights, inputs)
    names = list(trace)
    assert names == [name for name in HOOK_NAMES if name in trace]
    new = {"attn.hook_q_scale", "attn.hook_q_normalized", "attn.hook_q_normed", "attn.hook_k_scale",
           "attn.hook_k_normalized", "attn.hook_k_normed", "attn.hook_gate", "attn.hook_gate_sigmoid",
           "attn.hook_z_gated", "mlp.hook_pre_clamped", "mlp.hook_gate_clamped"}
    assert new <= set(names)
    assert names.index("attn.hook_k_normed") < names.index("attn.hook_attn_scores")
    shapes = {"attn.hook_q_scale": (2, 6, 1), "attn.hook_k_normed": (2, 6, 3), "attn.hook_gate": (2, 6, 3),
              "attn.hook_z_gated": (2, 6, 3), "mlp.hook_pre_clamped": (6, 5), "mlp.hook_gate_clamped": (6, 5)}
    assert all(trace[name].shape == shape for name, shape in shapes.items())
    assert weight_shapes(config)["W_G"] == (2, 4, 3) and weight_shapes(config)["b_G"] == (2, 3)
    assert weight_shapes(config)["q_norm.w"] == (3,) == weight_shapes(config)["k_norm.w"]
    stored = inputs.size + sum(a.size for a in weights.values())
    assert numbers_needed(config, 6) >= stored + sum(a.size for a in trace.values())
    plain = BlockConfig(d_model=4, n_heads=2, d_head=3, d_ff=5, mask="causal", norm="rmsnorm", norm_placement="pre",
                        activation="silu", gated=True)
    extra = sum(trace[name].size for name in new) + 2 * 3 + 2 * 4 * 3 + 2 * 3
    assert numbers_needed(config, 6) - numbers_needed(plain, 6) == extra
