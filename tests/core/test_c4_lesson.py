"""The C4 lesson: the seed's numbers come out of each step's live state."""
import numpy as np
import pytest

from core.block import forward, mse
from core.formats.lesson import load_lesson
from tests.conftest import ROOT

C4 = ROOT / "resources" / "lessons" / "c4-ffn.json"


@pytest.fixture(scope="module")
def lesson():
    return load_lesson(C4)


def state(lesson, step_id):
    scenario = lesson.step_scenario(step_id)
    return scenario, scenario.run()


@pytest.mark.parametrize("step_id, shown, expected_mse", [
    ("relu", "1, 0, 0, 1", 0.0),
    ("collapse", "1, 0, 2, 1", 1.0),
    ("gelu", "0.841, 0.272, 0.318, 0.841", None),
])
def test_outputs_and_mse_at_each_activation_step(lesson, step_id, shown, expected_mse):
    scenario, trace = state(lesson, step_id)
    for language in ("en", "zh"):
        caption = lesson.caption(step_id, language)
        assert shown.replace(", ", "、" if language == "zh" else ", ") in caption
    if expected_mse is not None:
        assert mse(trace.output, scenario.targets) == expected_mse


def test_gelu_step_uses_gpt2s_tanh_gelu_and_still_classifies(lesson):
    scenario, trace = state(lesson, "gelu")
    assert scenario.config.activation == "gelu_tanh"
    assert ((trace.output[:, 0] > 0.5) == (scenario.targets[:, 0] > 0.5)).all()


def test_collapse_step_is_the_line_minus_p_minus_n_plus_two(lesson):
    scenario, trace = state(lesson, "collapse")
    p, n = scenario.inputs.T
    assert trace.output[:, 0].tolist() == (-p - n + 2).tolist()


def test_compute_step_expands_bu_hao_chi(lesson):
    caption = lesson.caption("compute", "en")
    assert "z = p + n + b₂ = 1" in caption and "z = 2" in caption and "the total is 0" in caption


def test_bias_answer_matches_the_model(lesson):
    """The answer says 好吃 and 不难吃 cross 0.5 first, at b₂ = −0.75; check it against core."""
    scenario = lesson.step_scenario("bias")
    crossed_at = {}
    for bias in np.linspace(-1, 0, 401):
        weights = dict(scenario.weights)
        weights["b_in"] = np.array([scenario.weights["b_in"][0], bias])
        output = forward(scenario.config, weights, scenario.inputs).output[:, 0]
        wrong = (output > 0.5) != (scenario.targets[:, 0] > 0.5)
        for row in np.flatnonzero(wrong):
            crossed_at.setdefault(scenario.tokens[row], bias)
    first = min(crossed_at.values())
    assert {token for token, b in crossed_at.items() if b == first} == {"好吃", "不难吃"}
    assert first == pytest.approx(-0.7475, abs=0.003)
    assert "不好吃" not in crossed_at
    assert "−0.75" in lesson.step("bias").answer.en
