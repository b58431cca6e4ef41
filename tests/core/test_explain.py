"""The inspector's explanations: structure (the kind of step, symbols, named terms, the
numbers put in), agreeing with the trace, and no words of any language."""
import re
import sys

import numpy as np
import pytest

from core.block import HOOK_NAMES, Trace, forward
from core.explain import MAX_SHOWN_TERMS, Step, explain
from core.numbers import format_number, parenthesized
from core.formats.scenario import load_scenario
from core.weights import adapt_weights
from tests.conftest import SCENARIOS

# What a formula may spell with Latin letters: symbols, not words.
SYMBOLS = {"ReLU", "GELU", "SiLU", "id", "max", "exp", "tanh", "pre", "gate", "rms", "d_head",
           "LN1", "LN2", "W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O", "W_in", "b_in",
           "W_gate", "b_gate", "W_out", "b_out", "q", "k", "v",
           "W_G", "b_G", "clip", "min", "pre_c", "gate_c"}


def _seed():
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    return scenario, scenario.run()


def test_seed_post_norm_output_is_the_sum_then_layer_norm_with_the_numbers_put_in():
    scenario, trace = _seed()
    ex = explain(scenario.config, scenario.weights, trace, "hook_resid_post", (0, 0))
    assert ex.kind is Step.LAYER_NORM
    assert ex.formula == "s = m + f;  z = (s − μ)/√(σ² + ε)·γ + β"
    assert [(t.symbol, t.name) for t in ex.terms] == [
        ("m", "mid"), ("f", "mlp_out"), ("s", "norm_input"), ("μ", "mean"), ("σ²", "variance"),
        ("ε", "eps"), ("γ", "gain"), ("β", "shift")]
    assert ex.substituted == "(1.756058 − 0.260107)/√(1.471626 + 1e−05)·1.000000 + 0.000000 = 1.233154"
    terms = {term.symbol: term.value for term in ex.terms}
    assert terms["m"] + terms["f"] == pytest.approx(terms["s"])
    assert terms["s"] == pytest.approx(1.756058, abs=1e-6)
    s = trace["ln2.hook_in"][0]
    assert terms["μ"] == pytest.approx(s.mean())
    assert terms["σ²"] == pytest.approx(s.var())
    assert (terms["ε"], terms["γ"], terms["β"]) == (1e-5, 1.0, 0.0)
    assert ex.value == trace["hook_resid_post"][0, 0]
    # The terms recompute the value.
    recomputed = (terms["s"] - terms["μ"]) / np.sqrt(terms["σ²"] + terms["ε"]) * terms["γ"] + terms["β"]
    assert recomputed == pytest.approx(ex.value)


def test_seed_norm_steps_scale_and_normalized():
    scenario, trace = _seed()
    scale = explain(scenario.config, scenario.weights, trace, "ln2.hook_scale", (0, 0))
    assert (scale.kind, scale.formula) == (Step.LAYER_NORM_SCALE, "√(σ² + ε)")
    assert scale.substituted == "√(1.471626 + 1e−05) = 1.213110"
    normalized = explain(scenario.config, scenario.weights, trace, "ln2.hook_normalized", (0, 0))
    assert (normalized.kind, normalized.formula) == (Step.LAYER_NORMALIZED, "n = (s − μ)/√(σ² + ε)")
    assert normalized.substituted == "(1.756058 − 0.260107)/1.213110 = 1.233154"
    summed = explain(scenario.config, scenario.weights, trace, "ln2.hook_in", (0, 0))
    assert (summed.kind, summed.formula, summed.substituted) == (Step.RESIDUAL_SUM, "s = m + f",
                                                                 "1.170705 + 0.585353 = 1.756058")


def test_hidden_unit_shows_the_dot_product_with_unicode_minus():
    scenario, trace = _seed()
    ex = explain(scenario.config, scenario.weights, trace, "mlp.hook_pre", (0, 4))
    assert ex.kind is Step.PROJECTION
    assert ex.formula == "pre = Σₖ mₖ·W_in[k] + b_in"
    assert [(t.symbol, t.name, t.value) for t in ex.terms] == [("b_in", "bias", 0.0)]
    assert ex.substituted == ("1.170705·1.000000 + 0.649589·(−1.000000) + (−0.385419)·0.000000 "
                              "+ (−1.434875)·0.000000 + 0.000000 = 0.521116")
    assert "-" not in ex.substituted
    relu = explain(scenario.config, scenario.weights, trace, "mlp.hook_post", (0, 2))
    assert relu.kind is Step.ACTIVATION
    assert relu.formula == "h = ReLU(pre),  ReLU(x) = max(0, x)"
    assert relu.substituted == "ReLU(−0.385419) = 0.000000"
    assert relu.value == 0.0


def test_an_input_is_just_its_value():
    scenario, trace = _seed()
    ex = explain(scenario.config, scenario.weights, trace, "hook_resid_pre", (0, 1))
    assert (ex.kind, ex.formula, ex.substituted, ex.terms) == (Step.INPUT, "x", "0.649589", ())


@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm", "none"])
@pytest.mark.parametrize("mask", ["full", "causal"])
def test_every_cell_of_every_hook_is_explained_in_symbols(placement, norm, mask):
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(norm_placement=placement, norm=norm, mask=mask)
    weights, _ = adapt_weights(scenario.weights, config)
    trace = forward(config, weights, scenario.inputs)
    for hook, array in trace.items():
        assert hook in HOOK_NAMES
        for index in np.ndindex(array.shape):
            ex = explain(config, weights, trace, hook, index)
            assert ex.value == array[index] or (np.isneginf(ex.value) and np.isneginf(array[index]))
            assert isinstance(ex.kind, Step) and ex.formula and ex.substituted
            assert all(term.name for term in ex.terms)
            words = set(re.findall(r"[A-Za-z][A-Za-z0-9_]+", ex.formula + " " + ex.substituted))
            words = {word for word in words if not re.fullmatch(r"[a-z]_[a-z0-9]", word)}   # z_c, r_0
            assert words <= SYMBOLS, (hook, index, words - SYMBOLS)


@pytest.mark.parametrize("activation, gated, formula", [
    ("gelu_tanh", False, "h = GELU(pre),  GELU(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))"),
    ("silu", True, "h = SiLU(gate)·pre,  SiLU(x) = x·σ(x)"),
    ("identity", False, "h = id(pre),  id(x) = x"),
])
def test_activation_formulas_name_the_function_by_its_symbol(activation, gated, formula):
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(activation=activation, gated=gated)
    weights, _ = adapt_weights(scenario.weights, config)
    trace = forward(config, weights, scenario.inputs)
    ex = explain(config, weights, trace, "mlp.hook_post", (0, 0))
    assert ex.kind is (Step.GATED_ACTIVATION if gated else Step.ACTIVATION)
    assert ex.formula == formula


def test_masked_score_and_its_weight():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(mask="causal")
    trace = forward(config, scenario.weights, scenario.inputs)
    ex = explain(config, scenario.weights, trace, "attn.hook_attn_scores", (0, 0, 3))
    assert ex.kind is Step.MASKED_SCORE and np.isneginf(ex.value)
    assert ex.substituted == "−∞"
    weight = explain(config, scenario.weights, trace, "attn.hook_pattern", (0, 0, 3))
    assert weight.kind is Step.MASKED_WEIGHT and weight.value == 0.0
    assert weight.substituted.startswith("exp((−∞) − ") and weight.substituted.endswith(" = 0.000000")


def test_rms_norm_uses_the_mean_square_symbol():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(norm="rmsnorm")
    weights, _ = adapt_weights(scenario.weights, config)
    trace = forward(config, weights, scenario.inputs)
    ex = explain(config, weights, trace, "ln2.hook_scale", (1, 0))
    assert (ex.kind, ex.formula) == (Step.RMS_NORM_SCALE, "rms = √(Σⱼ sⱼ²/d + ε)")
    assert [t.name for t in ex.terms] == ["mean_square", "eps"]
    assert ex.terms[0].value == pytest.approx(np.mean(trace["ln2.hook_in"][1] ** 2))


def test_a_long_dot_product_shows_its_first_terms_and_counts_the_rest():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(d_ff=MAX_SHOWN_TERMS + 8)
    weights, _ = adapt_weights(scenario.weights, config)
    trace = forward(config, weights, scenario.inputs)
    ex = explain(config, weights, trace, "hook_mlp_out", (0, 0))
    assert ex.omitted == 8
    assert ex.substituted.count("·") == MAX_SHOWN_TERMS and " + … + " in ex.substituted


def test_bad_index_is_refused():
    scenario, trace = _seed()
    with pytest.raises(IndexError):
        explain(scenario.config, scenario.weights, trace, "hook_resid_post", (0,))
    with pytest.raises(KeyError):
        explain(scenario.config, scenario.weights, trace, "attn.hook_q", (0, 0, 0))


# --- the later generations: every cell explained, and the numbers put in give the cell back -------

def evaluate(substituted: str, activation: str) -> float:
    """The number a substituted formula (without its "= value" ending) stands for: its text read
    as arithmetic, the way a learner would check it on a calculator."""
    from core.functions import activate
    expression = substituted.rsplit(" = ", 1)[0] if " = " in substituted else substituted
    python = (expression.replace("·", "*").replace("−", "-").replace("∞", "inf")
              .replace("ReLU(", "act(").replace("GELU(", "act(").replace("SiLU(", "act(").replace("id(", "act("))
    python = re.sub(r"√(\d+(?:\.\d+)?)", r"sqrt(\1)", python).replace("√(", "sqrt(").replace("σ(", "sigmoid(")
    names = {"sqrt": np.sqrt, "exp": np.exp, "inf": np.inf, "min": min, "clip": lambda x, lo, hi: min(max(x, lo), hi),
             "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "act": lambda x: float(activate(activation, np.array(x)))}
    with np.errstate(over="ignore"):
        return float(eval(python, {"__builtins__": {}}, names))   # noqa: S307 (our own formula text)


def generation_blocks():
    """Every preset of the generations lab, plus post-norm variants of the options it uses
    pre-norm only (a zero-centred gain inside a post-norm sum, a gate and QK-Norm after one)."""
    from core.labs.generations import presets
    blocks = {name: (scenario.config, scenario.weights, scenario.inputs) for name, scenario in presets().items()}
    anchor = presets()["divergence"]
    for norm in ("layernorm", "rmsnorm"):
        config = anchor.config.with_changes(norm=norm, norm_placement="post", mask="full")
        weights, _ = adapt_weights(anchor.weights, config, seed=3, previous=anchor.config)
        blocks[f"post-{norm}"] = (config, weights, anchor.inputs)
    # Random gains and gate weights, so that 1 + w, σ(g) and the clamp are not all trivial.
    rng = np.random.default_rng(7)
    for name in list(blocks):
        config, weights, inputs = blocks[name]
        weights = {key: value + (rng.normal(0, 0.3, value.shape) if key.endswith(".w") or key.endswith("_G") else 0)
                   for key, value in weights.items()}
        if config.ffn_clamp is not None:        # large enough that some values are clipped at the limit
            weights = {**weights, "W_in": weights["W_in"] * 12, "W_gate": weights["W_gate"] * 12}
        blocks[name] = (config, weights, inputs)
    return blocks


@pytest.mark.parametrize("name", ["original", "gpt2", "llama", "anchor", "divergence", "post-layernorm",
                                  "post-rmsnorm"])
def test_every_cell_of_every_generation_is_explained_and_its_numbers_give_it_back(monkeypatch, name):
    monkeypatch.setattr(sys.modules["core.explain"], "MAX_SHOWN_TERMS", 10_000)     # every product written out
    config, weights, inputs = generation_blocks()[name]
    trace = forward(config, weights, inputs)
    seen = set()
    for hook, array in trace.items():
        for index in np.ndindex(array.shape):
            ex = explain(config, weights, trace, hook, index)
            seen.add(ex.kind)
            assert ex.kind is not Step.UNEXPLAINED, hook
            assert ex.value == array[index] or (np.isneginf(ex.value) and np.isneginf(array[index]))
            words = set(re.findall(r"[A-Za-z][A-Za-z0-9_]+", ex.formula + " " + ex.substituted))
            words = {word for word in words if not re.fullmatch(r"[a-z]_[a-z0-9]", word)}
            assert words <= SYMBOLS, (hook, index, words - SYMBOLS)
            got = evaluate(ex.substituted, config.activation)
            if np.isneginf(ex.value):
                assert np.isneginf(got), (hook, index, ex.substituted)
            else:   # six printed decimals: the rounding of each printed number, carried through
                assert got == pytest.approx(ex.value, rel=1e-4, abs=2e-5), (hook, index, ex.substituted)
    if config.qk_norm:
        assert {Step.QK_NORM_SCALE, Step.QK_NORMALIZED, Step.QK_NORM, Step.NORMED_SCORE} <= seen
    if config.attn_gate:
        assert {Step.OUTPUT_GATE, Step.GATE_SIGMOID, Step.GATED_Z} <= seen
    if config.ffn_clamp is not None:
        assert {Step.CLAMP_UP, Step.CLAMP_GATE, Step.CLAMPED_ACTIVATION} <= seen


def test_zero_centred_gain_is_written_one_plus_w():
    config, weights, inputs = generation_blocks()["post-rmsnorm"]
    trace = forward(config, weights, inputs)
    ex = explain(config, weights, trace, "hook_resid_post", (1, 2))
    assert ex.formula == "s = m + f;  z = s/√(Σⱼ sⱼ²/d + ε)·(1 + w)"
    gain = next(term for term in ex.terms if term.name == "gain_offset")
    assert (gain.symbol, gain.value) == ("w", weights["ln2.w"][2])
    assert f"·(1 + {parenthesized(gain.value)}) = " in ex.substituted


def test_scores_read_the_qk_normed_values_and_the_result_the_gated_z():
    config, weights, inputs = generation_blocks()["anchor"]
    trace = forward(config, weights, inputs)
    score = explain(config, weights, trace, "attn.hook_attn_scores", (1, 3, 2))
    assert (score.kind, score.formula) == (Step.NORMED_SCORE, "s = q′·k′/√d_head")
    dot = next(term for term in score.terms if term.name == "dot")
    assert dot.value == pytest.approx(trace["attn.hook_q_normed"][1, 3] @ trace["attn.hook_k_normed"][1, 2])
    result = explain(config, weights, trace, "attn.hook_result", (0, 2, 1))
    assert result.formula == "r = Σ_c z_g,c·W_O[c]"
    gated = trace["attn.hook_z_gated"][0, 2]
    assert result.substituted.startswith(f"{parenthesized(gated[0])}·")


def test_clamped_swiglu_uses_the_clipped_values():
    config, weights, inputs = generation_blocks()["divergence"]
    trace = forward(config, weights, inputs)
    clipped = np.argwhere(trace["mlp.hook_pre_clamped"] != trace["mlp.hook_pre"])
    assert len(clipped), "the test block should clip some up value"
    i, u = clipped[0]
    ex = explain(config, weights, trace, "mlp.hook_post", (i, u))
    assert ex.kind is Step.CLAMPED_ACTIVATION
    assert {term.name: term.value for term in ex.terms}["pre_clamped"] in (7.0, -7.0)
    clamp = explain(config, weights, trace, "mlp.hook_pre_clamped", (i, u))
    assert clamp.substituted.startswith("clip(") and clamp.substituted.endswith(format_number(clamp.value))


def test_a_hook_explain_does_not_know_yet_is_shown_unexplained_not_an_error():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    trace = scenario.run()
    hooks = dict(trace.items())
    hooks["attn.hook_future"] = np.array(trace["attn.hook_q"])     # as a later engine option might add one
    ex = explain(scenario.config, scenario.weights, Trace(hooks), "attn.hook_future", (0, 1, 1))
    assert ex.kind is Step.UNEXPLAINED and ex.value == trace["attn.hook_q"][0, 1, 1]


def test_a_long_dot_product_formats_only_what_it_shows():
    from core.formats.generate import preset
    scenario = preset("d256")
    trace = scenario.run()
    ex = explain(scenario.config, scenario.weights, trace, "hook_mlp_out", (3, 7))
    assert ex.omitted == scenario.config.d_ff - MAX_SHOWN_TERMS
    assert ex.substituted.count("·") == MAX_SHOWN_TERMS


def test_rotary_cells_are_explained_with_their_angle():
    from core.config import BlockConfig
    from core.weights import adapt_weights
    config = BlockConfig(d_model=4, d_ff=4, n_heads=1, d_head=4, mask="causal", positional="rotary")
    weights, _ = adapt_weights({}, config)
    rng = np.random.default_rng(0)
    weights = {name: rng.standard_normal(w.shape) for name, w in weights.items()}
    from core.block import forward
    trace = forward(config, weights, rng.standard_normal((3, 4)), position_offset=2)
    for column in range(4):
        ex = explain(config, weights, trace, "attn.hook_rot_k", (0, 1, column))
        assert ex.kind is Step.ROTARY
        terms = {term.name: term.value for term in ex.terms}
        assert terms["position"] == 3                       # row 1 of a window starting at 2
        a, b, angle = terms["rotary_first"], terms["rotary_second"], terms["angle"]
        expected = a * np.cos(angle) - b * np.sin(angle) if column < 2 else b * np.cos(angle) + a * np.sin(angle)
        assert np.isclose(expected, trace["attn.hook_rot_k"][0, 1, column], rtol=0, atol=1e-12)
