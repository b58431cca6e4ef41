"""The inspector's explanations: the formula with current numbers, agreeing with the trace."""
import numpy as np
import pytest

from core.block import HOOK_NAMES
from core.explain import explain
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS


def test_post_norm_output_names_sum_mean_variance_eps_gain_bias():
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    trace = scenario.run()
    ex = explain(scenario.config, scenario.weights, trace, "hook_resid_post", (0, 0))
    symbols = [term.symbol for term in ex.terms]
    assert symbols == ["m", "f", "s", "μ", "σ²", "ε", "γ", "β"]
    terms = {term.symbol: term.value for term in ex.terms}
    assert terms["s"] == pytest.approx(1.756058, abs=1e-6)
    s = trace["ln2.hook_in"][0]
    assert terms["μ"] == pytest.approx(s.mean())
    assert terms["σ²"] == pytest.approx(s.var())
    assert (terms["ε"], terms["γ"], terms["β"]) == (1e-5, 1.0, 0.0)
    assert ex.value == trace["hook_resid_post"][0, 0]
    assert ex.substituted.endswith("= 1.233154")
    # The substituted expression recomputes the value.
    recomputed = (terms["s"] - terms["μ"]) / np.sqrt(terms["σ²"] + terms["ε"]) * terms["γ"] + terms["β"]
    assert recomputed == pytest.approx(ex.value)


def test_hidden_unit_shows_the_dot_product():
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    trace = scenario.run()
    ex = explain(scenario.config, scenario.weights, trace, "mlp.hook_pre", (0, 4))
    assert ex.kind == "dot"
    assert "1.170705·1.000000" in ex.substituted and "0.649589·(-1.000000)" in ex.substituted
    assert ex.substituted.endswith("= 0.521116")
    relu = explain(scenario.config, scenario.weights, trace, "mlp.hook_post", (0, 2))
    assert relu.substituted == "relu(-0.385419) = 0.000000"
    assert relu.value == 0.0


@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("norm", ["layernorm", "rmsnorm", "none"])
@pytest.mark.parametrize("mask", ["full", "causal"])
def test_every_cell_of_every_hook_is_explained(placement, norm, mask):
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(norm_placement=placement, norm=norm, mask=mask)
    from core.weights import adapt_weights
    weights, _ = adapt_weights(scenario.weights, config)
    from core.block import forward
    trace = forward(config, weights, scenario.inputs)
    for hook, array in trace.items():
        assert hook in HOOK_NAMES
        for index in np.ndindex(array.shape):
            ex = explain(config, weights, trace, hook, index)
            assert ex.value == array[index] or (np.isneginf(ex.value) and np.isneginf(array[index]))
            assert ex.formula and ex.substituted


def test_masked_score_says_why():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config.with_changes(mask="causal")
    from core.block import forward
    trace = forward(config, scenario.weights, scenario.inputs)
    ex = explain(config, scenario.weights, trace, "attn.hook_attn_scores", (0, 0, 3))
    assert ex.kind == "masked" and np.isneginf(ex.value)


def test_bad_index_is_refused():
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    trace = scenario.run()
    with pytest.raises(IndexError):
        explain(scenario.config, scenario.weights, trace, "hook_resid_post", (0,))
    with pytest.raises(KeyError):
        explain(scenario.config, scenario.weights, trace, "attn.hook_q", (0, 0, 0))
