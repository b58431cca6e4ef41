"""The two-neuron lab of C4 (core/labs/xor.py): every number the seed prints, and the lab's own."""
import numpy as np
import pytest

from core.block import forward, mse
from core.formats.scenario import load_scenario
from core.labs.xor import (
    Flip, Linear, best_linear, bias_sweep, collapsed_linear, constant_mse, count_right, first_to_flip,
    has_flipped,
    identity_sides, lab_mismatches, linear_formula, linear_mse, linear_mse_curve, linear_mse_landscape,
    linear_outputs, linear_proof, lit_pattern, lit_rows, neuron_formula, neuron_maps, neuron_terms,
    output_terms, outputs_with, target_sides, verdicts,
)
from core.numbers import format_number
from tests.conftest import SCENARIOS

GOOD, NOT_GOOD, BAD, NOT_BAD = range(4)      # 好吃, 不好吃, 难吃, 不难吃


@pytest.fixture(scope="module")
def xor():
    return load_scenario(SCENARIOS / "c4-xor.json")


def with_activation(xor, activation):
    return xor.config.with_changes(activation=activation)


# --- the linear baseline -----------------------------------------------------------------------
def test_guessing_half_everywhere_costs_a_quarter(xor):
    assert constant_mse(xor.targets) == 0.25
    assert linear_mse(xor.inputs, xor.targets, Linear(0, 0, 0.5)) == 0.25


def test_least_squares_is_half_everywhere(xor):
    model, error = best_linear(xor.inputs, xor.targets)
    assert model.a == pytest.approx(0, abs=1e-12)
    assert model.b == pytest.approx(0, abs=1e-12)
    assert model.c == pytest.approx(0.5, abs=1e-12)
    assert error == pytest.approx(0.25, abs=1e-12)
    assert [format_number(v, trim=True) for v in (model.a, model.b, model.c, error)] == ["0", "0", "0.5", "0.25"]


def test_linear_outputs_are_a_p_plus_b_n_plus_c(xor):
    assert linear_outputs(xor.inputs, Linear(2, -3, 0.5)).tolist() == [2.5, -0.5, 0.5, -2.5]


@pytest.mark.parametrize("seed", range(20))
def test_the_identity_holds_for_any_a_b_c(xor, seed):
    a, b, c = np.random.default_rng(seed).uniform(-2, 2, 3)
    model = Linear(a, b, c)
    left, right = identity_sides(model)
    assert left == pytest.approx(right, rel=1e-12, abs=1e-12)
    assert left == pytest.approx(a + b + 2 * c)
    # The same sums read off the table's own rows.
    y = linear_outputs(xor.inputs, model)
    assert y[GOOD] + y[NOT_BAD] == pytest.approx(left)
    assert y[NOT_GOOD] + y[BAD] == pytest.approx(right)
    # So the MSE never beats the least-squares floor.
    assert linear_mse(xor.inputs, xor.targets, model) >= 0.25 - 1e-12


def test_the_targets_sides_are_two_and_zero(xor):
    assert target_sides(xor.inputs, xor.targets) == (2.0, 0.0)
    assert target_sides(xor.inputs[:3], xor.targets[:3]) is None     # a corner missing


def test_the_proof_puts_the_numbers_in():
    proof = linear_proof(Linear(0.3, -0.2, 0.5))
    assert proof.left_text() == ("ŷ(1,0) + ŷ(0,1) = (a + c) + (b + c) = a + b + 2c = (0.3 + 0.5) + (−0.2 + 0.5)"
                                 " = 0.3 + (−0.2) + 2×0.5 = 1.1")
    assert proof.right_text() == ("ŷ(1,1) + ŷ(0,0) = (a + b + c) + c = a + b + 2c = (0.3 + (−0.2) + 0.5) + 0.5"
                                  " = 0.3 + (−0.2) + 2×0.5 = 1.1")
    assert proof.at[(1.0, 0.0)] == pytest.approx(0.8) and proof.at[(0.0, 0.0)] == 0.5


def test_the_mse_curve_and_landscape_are_pointwise_mses(xor):
    model = Linear(0.4, -0.7, 0.2)
    values = np.linspace(-2, 2, 9)
    curve = linear_mse_curve(xor.inputs, xor.targets, model, "b", values)
    assert curve == pytest.approx([linear_mse(xor.inputs, xor.targets, model.with_value("b", v)) for v in values])
    grid = linear_mse_landscape(xor.inputs, xor.targets, model, "a", "c", values, values[:5])
    assert grid.shape == (5, 9)
    for row, c in enumerate(values[:5]):
        for column, a in enumerate(values):
            expected = linear_mse(xor.inputs, xor.targets, Linear(a, model.b, c))
            assert grid[row, column] == pytest.approx(expected)
    fine = np.linspace(-2, 2, 81)
    everywhere = linear_mse_landscape(xor.inputs, xor.targets, Linear(0, 0, 0.5), "a", "b", fine, fine)
    assert everywhere.min() == pytest.approx(0.25)          # reached at a = b = 0 (grid centre)
    assert everywhere[40, 40] == pytest.approx(0.25)
    with pytest.raises(ValueError):
        linear_mse_landscape(xor.inputs, xor.targets, model, "a", "a", values, values)


# --- the two-neuron FFN ------------------------------------------------------------------------
def test_the_shipped_block_is_the_labs(xor):
    assert lab_mismatches(xor.config) == []
    assert lab_mismatches(xor.config.with_changes(d_ff=3)) == [("d_ff", 3, 2)]


def test_relu_gets_all_four_right(xor):
    outputs = outputs_with(xor.config, xor.weights, xor.inputs, activation="relu")
    assert outputs.tolist() == [1, 0, 0, 1]
    assert mse(outputs, xor.targets[:, 0]) == 0
    assert verdicts(outputs, xor.targets).all()


def test_gelu_is_the_seeds_tanh_gelu_and_still_all_right(xor):
    outputs = outputs_with(xor.config, xor.weights, xor.inputs, activation="gelu_tanh")
    assert [f"{v:.3f}" for v in outputs] == ["0.841", "0.272", "0.318", "0.841"]
    assert verdicts(outputs, xor.targets).all()
    exact = outputs_with(xor.config, xor.weights, xor.inputs, activation="gelu")
    assert f"{exact[BAD]:.3f}" == "0.317"


def test_without_activation_the_layers_collapse_to_minus_p_minus_n_plus_two(xor):
    alpha, beta, gamma = collapsed_linear(xor.weights)
    assert (alpha, beta, gamma) == (-1.0, -1.0, 2.0)
    assert linear_formula(alpha, beta, gamma) == "−p − n + 2"
    outputs = outputs_with(xor.config, xor.weights, xor.inputs, activation="identity")
    assert mse(outputs, xor.targets[:, 0]) == 1.0
    assert outputs.tolist() == linear_outputs(xor.inputs, Linear(alpha, beta, gamma)).tolist()
    assert verdicts(outputs, xor.targets).tolist() == [True, True, False, True]   # 难吃 → 2


@pytest.mark.parametrize("seed", range(5))
def test_the_collapse_holds_for_any_weights(xor, seed):
    rng = np.random.default_rng(seed)
    weights = {name: rng.normal(size=w.shape) for name, w in xor.weights.items()}
    alpha, beta, gamma = collapsed_linear(weights)
    outputs = outputs_with(xor.config, weights, xor.inputs, activation="identity")
    assert outputs == pytest.approx(linear_outputs(xor.inputs, Linear(alpha, beta, gamma)))


def test_linear_formula_reads_like_the_seed():
    assert linear_formula(1, 1, 0) == "p + n"
    assert linear_formula(1, 1, -1) == "p + n − 1"
    assert linear_formula(0.5, -2, 0) == "0.5·p − 2·n"
    assert linear_formula(0, 0, 0) == "0"


def test_the_column_expansion_of_not_good(xor):
    trace = forward(xor.config, xor.weights, xor.inputs)
    second = neuron_terms(xor.config, xor.weights, trace, NOT_GOOD, 1)
    assert second.z_text() == "1×1 + 1×1 + (−1) = 1"
    assert second.activation_text() == "ReLU(1) = 1"
    assert second.write_text() == "1 × (−2) = −2"
    assert second.contribution == -2
    first = neuron_terms(xor.config, xor.weights, trace, NOT_GOOD, 0)
    assert first.z_text() == "1×1 + 1×1 + 0 = 2"
    assert (first.z, first.h, first.contribution) == (2, 2, 2)
    total = output_terms(xor.config, xor.weights, trace, NOT_GOOD)
    assert total.sum_text() == "2 + (−2) + 0 = 0"
    assert total.total == 0


def test_the_column_expansion_with_gelu_and_without_activation(xor):
    config = with_activation(xor, "gelu_tanh")
    trace = forward(config, xor.weights, xor.inputs)
    terms = output_terms(config, xor.weights, trace, NOT_GOOD)
    assert terms.neurons[0].activation_text() == "GELU(2) = 1.954598"
    assert terms.neurons[1].activation_text() == "GELU(1) = 0.841192"
    assert terms.neurons[1].write_text() == "0.841192 × (−2) = −1.682384"
    assert terms.sum_text() == "1.954598 + (−1.682384) + 0 = 0.272214"
    config = with_activation(xor, "identity")
    trace = forward(config, xor.weights, xor.inputs)
    bad = output_terms(config, xor.weights, trace, BAD)
    assert bad.neurons[1].z_text() == "0×1 + 0×1 + (−1) = −1"
    assert bad.neurons[1].activation_text() == "−1"
    assert bad.sum_text() == "0 + 2 + 0 = 2"


def test_first_to_flip_with_relu(xor):
    flip = first_to_flip(xor.config, xor.weights, xor.inputs, xor.targets)
    # Neuron 2 starts to fire on 好吃 and 不难吃 (z = b + 1 > 0) and takes 2·(1 + b) off their 1:
    # both reach 0.5 at b = −0.75. 不好吃's output only falls further below 0.5.
    assert flip.rows == (GOOD, NOT_BAD) and flip.row == GOOD
    assert flip.value == pytest.approx(-0.75, abs=1e-12)
    assert format_number(flip.value, trim=True) == "−0.75"
    assert not flip.already_wrong
    sweep = bias_sweep(xor.config, xor.weights, xor.inputs, xor.targets)
    assert sweep.outputs[:, NOT_GOOD] == pytest.approx(-2 - 2 * sweep.values)
    assert sweep.outputs[:, GOOD] == pytest.approx(-1 - 2 * sweep.values)
    assert sweep.mse[0] == 0 and sweep.values[0] == -1 and sweep.values[-1] == 0
    assert first_to_flip(xor.config, xor.weights, xor.inputs, xor.targets, sweep=sweep) == flip


def test_first_to_flip_with_gelu_and_without_activation(xor):
    flip = first_to_flip(with_activation(xor, "gelu_tanh"), xor.weights, xor.inputs, xor.targets)
    assert flip.rows == (GOOD, NOT_BAD) and -0.75 < flip.value < -0.7
    none = first_to_flip(with_activation(xor, "identity"), xor.weights, xor.inputs, xor.targets)
    assert none.already_wrong and none.rows == (BAD,) and none.value == -1


def test_no_flip_when_neuron_two_does_not_matter(xor):
    weights = dict(xor.weights, W_out=np.array([[1.0], [0.0]]), b_out=np.array([0.0]))
    assert first_to_flip(xor.config, weights, xor.inputs, np.array([[1.0], [1.0], [0.0], [1.0]])) is None


def test_the_neuron_maps_are_the_neurons_over_the_square(xor):
    grid, maps = neuron_maps(xor.config, xor.weights, 41)
    assert grid[0] == 0 and grid[-1] == 1 and maps.shape == (2, 41, 41)
    trace = forward(xor.config, xor.weights, xor.inputs)
    for row, (p, n) in enumerate(xor.inputs):
        i, j = int(n * 40), int(p * 40)                  # rows follow n, columns follow p
        assert maps[:, i, j] == pytest.approx(trace["mlp.hook_post"][row])
    assert maps[0, 20, 20] == pytest.approx(1.0)         # p = n = 0.5: p + n = 1
    assert maps[1, 20, 20] == 0 and maps[1, 40, 40] == 1
    assert neuron_formula(xor.config, xor.weights, 0) == "ReLU(p + n)"
    assert neuron_formula(xor.config, xor.weights, 1) == "ReLU(p + n − 1)"


@pytest.mark.parametrize("activation", ["relu", "gelu_tanh", "identity"])
def test_one_neuron_lights_for_at_least_one_the_other_for_both(xor, activation):
    trace = forward(with_activation(xor, activation), xor.weights, xor.inputs)
    hidden = trace["mlp.hook_post"]
    assert lit_pattern(xor.inputs, lit_rows(hidden[:, 0])) == "at_least_one"
    assert lit_pattern(xor.inputs, lit_rows(hidden[:, 1])) == "both"


def test_the_lab_prints_numbers_like_the_seed():
    assert [format_number(v, trim=True) for v in (1.0, -1.0, 2.0, -0.0, 0.25, 1.9545977, -0.7499999999999999, 1e-17)] == \
        ["1", "−1", "2", "0", "0.25", "1.954598", "−0.75", "0"]


def test_the_output_is_neuron_one_minus_twice_neuron_two(xor):
    from core.labs.xor import always_right, output_formula
    assert output_formula(xor.weights) == "h₁ − 2·h₂"
    sweep = bias_sweep(xor.config, xor.weights, xor.inputs, xor.targets)
    assert always_right(sweep, xor.targets).tolist() == [False, True, True, False]


def test_count_right_cuts_at_the_threshold(xor):
    assert count_right(np.array([1.0, 0.0, 0.0, 1.0]), xor.targets) == 4
    assert count_right(np.array([[1.0], [0.0], [2.0], [1.0]]), xor.targets) == 3      # T×1 as the trace gives it
    assert count_right(np.array([0.5, 0.5, 0.5, 0.5]), xor.targets) == 2                # 0.5 is not above 0.5
    assert count_right(np.array([0.6, 0.6, 0.6, 0.6]), xor.targets, threshold=0.7) == 2
    assert isinstance(count_right(np.zeros(4), xor.targets), int)
    for activation, right in (("relu", 4), ("gelu_tanh", 4), ("identity", 3)):
        outputs = forward(with_activation(xor, activation), xor.weights, xor.inputs).output
        assert count_right(outputs, xor.targets) == right == int(np.sum(verdicts(outputs, xor.targets)))


def test_has_flipped_once_the_bias_reaches_the_first_flip(xor):
    flip = first_to_flip(xor.config, xor.weights, xor.inputs, xor.targets)          # −0.75
    assert not has_flipped(-1.0, flip)
    assert not has_flipped(-0.76, flip)
    assert not has_flipped(flip.value - 1e-6, flip)
    assert has_flipped(flip.value - 1e-12, flip)                                    # within the tolerance
    assert has_flipped(-0.75, flip) and has_flipped(0.0, flip)
    assert has_flipped(-1.0, Flip((BAD,), -1.0, True))                              # wrong from the start
    assert not has_flipped(0.0, None)                                               # nothing ever flips


# --- the bias sweep, evaluated for every value at once, against one forward per value -----------
def _sweep_point_by_point(config, weights, inputs, targets, neuron, values):
    """The sweep as a learner would make it: set b_in[neuron], run the block, read ŷ and the MSE."""
    outputs, errors = [], []
    for value in values:
        changed = dict(weights, b_in=np.array(weights["b_in"], dtype=np.float64))
        changed["b_in"][neuron] = value
        outputs.append(forward(config, changed, inputs).output[:, 0])
        errors.append(mse(outputs[-1], np.reshape(targets, -1)))
    return np.array(outputs), np.array(errors)


def _flip_point_by_point(config, weights, inputs, targets, neuron, grid):
    """first_to_flip's search, one forward per bias: the first grid value a row is wrong at, then
    bisection of that step to ~1e-15."""
    def right_at(value):
        changed = dict(weights, b_in=np.array(weights["b_in"], dtype=np.float64))
        changed["b_in"][neuron] = value
        return verdicts(forward(config, changed, inputs).output, targets)
    right = np.array([right_at(value) for value in grid])
    if not right[0].all():
        return tuple(np.flatnonzero(~right[0])), float(grid[0]), True
    crossings = {}
    for row in range(right.shape[1]):
        wrong = np.flatnonzero(~right[:, row])
        if wrong.size:
            low, high = grid[wrong[0] - 1], grid[wrong[0]]
            for _ in range(45):
                middle = 0.5 * (low + high)
                low, high = (middle, high) if right_at(middle)[row] else (low, middle)
            crossings[row] = float(high)
    if not crossings:
        return None
    first = min(crossings.values())
    return tuple(row for row, value in crossings.items() if value - first <= 1e-9), first, False


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("activation", ["relu", "gelu", "gelu_tanh", "silu", "identity"])
def test_the_batched_bias_sweep_is_the_sweep_point_by_point(xor, activation, seed):
    rng = np.random.default_rng(seed)
    if seed == 0:                       # the lesson's own block and table
        config, weights, inputs, targets, neuron = with_activation(xor, activation), xor.weights, xor.inputs, \
            xor.targets, 1
    else:                               # wider blocks, longer tables, other neurons, numbers off the grid
        width, rows = (2, 3, 6)[seed % 3], (4, 7, 16)[seed % 3]
        config = xor.config.with_changes(activation=activation, d_ff=width)
        weights = {"W_in": rng.normal(size=(2, width)), "b_in": rng.normal(size=width),
                   "W_out": rng.normal(size=(width, 1)), "b_out": rng.normal(size=1)}
        inputs = rng.integers(0, 2, size=(rows, 2)).astype(float) if seed % 2 else rng.normal(size=(rows, 2))
        targets = rng.integers(0, 2, size=(rows, 1)).astype(float)
        neuron = int(rng.integers(width))
    grid = np.linspace(-1.0, 0.0, 101)
    outputs, errors = _sweep_point_by_point(config, weights, inputs, targets, neuron, grid)
    sweep = bias_sweep(config, weights, inputs, targets, neuron)
    assert sweep.values.tolist() == grid.tolist()
    np.testing.assert_allclose(sweep.outputs, outputs, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sweep.mse, errors, rtol=1e-12, atol=1e-12)

    expected = _flip_point_by_point(config, weights, inputs, targets, neuron, grid)
    flip = first_to_flip(config, weights, inputs, targets, neuron, sweep=sweep)
    if expected is None:
        assert flip is None
    else:
        assert (flip.rows, flip.already_wrong) == (expected[0], expected[2])
        assert flip.value == pytest.approx(expected[1], abs=1e-12)


def test_the_bias_sweep_of_another_block_is_one_forward_per_value(xor):
    config = xor.config.with_changes(residual=True, d_out=2, norm="layernorm")   # not the lab's bare FFN
    weights = dict(xor.weights, W_out=np.array([[1.0, -1.0], [-2.0, 0.5]]), b_out=np.array([0.0, 0.25]),
                   **{"ln2.w": np.ones(2), "ln2.b": np.zeros(2)})
    targets = xor.targets
    outputs, errors = _sweep_point_by_point(config, weights, xor.inputs, targets, 1, np.linspace(-1.0, 0.0, 101))
    sweep = bias_sweep(config, weights, xor.inputs, targets, 1)
    np.testing.assert_array_equal(sweep.outputs, outputs)
    np.testing.assert_array_equal(sweep.mse, errors)
