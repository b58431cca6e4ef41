"""Every number the two course pages print, reproduced by the engine from the shipped files."""
import numpy as np
import pytest

from core.block import forward, mse
from core.fit import least_squares
from core.params import ModelShape, count_parameters, ffn_parameters
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS


def six(values) -> list[str]:
    """Numbers as the seed prints them: rounded to 6 decimals."""
    return [f"{v:.6f}" for v in np.ravel(values)]


@pytest.fixture(scope="module")
def r45():
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    return scenario, scenario.run()


def test_r45_starts_from_the_seeds_u(r45):
    scenario, trace = r45
    assert six(trace["hook_resid_pre"]) == six([1.170705, 0.649589, -0.385419, -1.434875])
    assert scenario.config.activation == "relu" and scenario.config.norm_placement == "post"
    assert scenario.config.eps == 1e-5


def test_r45_hidden_units(r45):
    _, trace = r45
    # W₁ maps u to (u₁, u₂, u₃, u₄, u₁−u₂, u₂−u₁); ReLU zeroes the negatives.
    assert six(trace["mlp.hook_post"]) == six([1.170705, 0.649589, 0, 0, 0.521116, 0])


def test_r45_ffn_output(r45):
    _, trace = r45
    assert six(trace["hook_mlp_out"]) == six([0.585353, 0.324795, 0.130279, 0])


def test_r45_residual_sum(r45):
    _, trace = r45
    assert six(trace["ln2.hook_in"]) == six([1.756058, 0.974384, -0.255140, -1.434875])


def test_r45_block_output_z(r45):
    _, trace = r45
    assert six(trace["hook_resid_post"]) == six([1.233154, 0.588798, -0.424732, -1.397220])


def test_r45_layernorm_uses_unit_gain_and_zero_bias(r45):
    scenario, _ = r45
    assert np.array_equal(scenario.weights["ln2.w"], np.ones(4))
    assert np.array_equal(scenario.weights["ln2.b"], np.zeros(4))


@pytest.fixture(scope="module")
def xor():
    return load_scenario(SCENARIOS / "c4-xor.json")


def run_with(scenario, activation):
    config = scenario.config.with_changes(activation=activation)
    return forward(config, scenario.weights, scenario.inputs).output[:, 0]


def test_xor_table_is_the_seeds(xor):
    assert xor.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert xor.inputs.tolist() == [[1, 0], [1, 1], [0, 0], [0, 1]]
    assert xor.targets[:, 0].tolist() == [1, 0, 0, 1]


def test_xor_relu_gets_all_four_right(xor):
    outputs = run_with(xor, "relu")
    assert outputs.tolist() == [1, 0, 0, 1]
    assert mse(outputs, xor.targets[:, 0]) == 0.0


def test_xor_without_activation_collapses_to_a_line(xor):
    outputs = run_with(xor, "identity")
    p, n = xor.inputs[:, 0], xor.inputs[:, 1]
    assert outputs.tolist() == (-p - n + 2).tolist()      # ŷ = −p − n + 2
    assert mse(outputs, xor.targets[:, 0]) == 1.0


def test_xor_gelu_outputs_to_three_decimals(xor):
    # The seed's 0.841, 0.272, 0.318, 0.841 are GPT-2's tanh-approximated GELU:
    # the exact (erf) GELU gives 0.317 for 难吃.
    outputs = run_with(xor, "gelu_tanh")
    assert [f"{v:.3f}" for v in outputs] == ["0.841", "0.272", "0.318", "0.841"]
    assert [f"{v:.3f}" for v in run_with(xor, "gelu")] == ["0.841", "0.272", "0.317", "0.841"]
    assert ((outputs > 0.5) == (xor.targets[:, 0] > 0.5)).all()   # a 0.5 threshold still classifies all four


def test_xor_column_expansion_of_bu_hao_chi(xor):
    trace = forward(xor.config, xor.weights, xor.inputs)
    row = xor.tokens.index("不好吃")
    assert trace["mlp.hook_pre"][row].tolist() == [2, 1]      # neuron 1: z = 2; neuron 2: z = 1·1 + 1·1 − 1 = 1
    assert (trace["mlp.hook_post"][row] * xor.weights["W_out"][:, 0]).tolist() == [2, -2]
    assert trace.output[row, 0] == 0


def test_xor_linear_least_squares_baseline(xor):
    fit = least_squares(xor.inputs, xor.targets)
    assert fit.coefficients == pytest.approx([0, 0], abs=1e-12)
    assert fit.intercept == pytest.approx(0.5)
    assert fit.mse == pytest.approx(0.25)


PROJECT_BASELINE = dict(n_layers=4, d_model=256, d_ff=688, vocab=2048, ffn="gated", norm="rmsnorm",
                        bias=False, tied_embeddings=True)


def test_parameter_count_of_the_project_baseline():
    assert count_parameters(ModelShape(**PROJECT_BASELINE))["total"] == 3_688_704


def test_parameter_count_without_ffn():
    assert count_parameters(ModelShape(**{**PROJECT_BASELINE, "ffn": "none"}))["total"] == 1_574_144


def test_parameter_count_of_twelve_attention_only_layers():
    total = count_parameters(ModelShape(**{**PROJECT_BASELINE, "ffn": "none", "n_layers": 12}))["total"]
    assert total == 3_673_344
    assert f"{(3_688_704 - total) / 3_688_704:.2%}" == "0.42%"


def test_gpt2_small_ffn_per_layer():
    assert ffn_parameters(768, 3072, "standard", bias=True) == 4_722_432


def test_default_block_is_a_whole_post_norm_block():
    scenario = load_scenario(SCENARIOS / "block-default.json")
    config = scenario.config
    assert scenario.tokens == ("小明", "把", "苹果", "给了", "小王")
    assert (config.d_model, config.n_heads, config.d_head, config.mask) == (4, 2, 2, "full")
    assert config.attention and config.residual and config.norm_placement == "post"
    r45 = load_scenario(SCENARIOS / "r45-ffn.json")
    for name in ("W_in", "b_in", "W_out", "b_out"):
        assert np.array_equal(scenario.weights[name], r45.weights[name])
    # Hand-readable: every input and weight is a multiple of 1/4.
    for array in [scenario.inputs, *scenario.weights.values()]:
        assert np.array_equal(array * 4, np.round(array * 4))
