"""The two-neuron lab of lesson C4: a linear baseline that cannot learn "exactly one of p, n",
the proof of why, and a two-neuron FFN that can, read neuron by neuron.

Pure NumPy. `inputs` are the table's rows (p, n), T×2; `targets` T×1 (or T); the FFN is the
bare block of resources/scenarios/c4-xor.json (d_model 2, d_ff 2, d_out 1, no attention,
no residual, no norm). Formula texts use symbols only (× · − ReLU GELU), so they read the
same in Chinese and English; the GUI adds the words around them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.analysis import with_value
from core.block import Trace, Weights, forward, mse
from core.config import BlockConfig
from core.fit import least_squares
from core.functions import activate, quiet
from core.numbers import MINUS, format_number, parenthesized

PARAMETERS = ("a", "b", "c")          # ŷ = a·p + b·n + c
PARAMETER_RANGE = (-2.0, 2.0)         # what the lab's sliders span
THRESHOLD = 0.5                       # ŷ above this reads as "yes, positive"
GUESS = 0.5                           # the constant guess the MSE is compared with
BIAS_RANGE = (-1.0, 0.0)              # the seed's experiment: neuron 2's bias from −1 to 0
CORNERS = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0))   # left side: first two; right: last two
ACTIVATION_SYMBOLS = {"relu": "ReLU", "gelu_tanh": "GELU", "gelu": "GELU", "silu": "SiLU", "identity": ""}


# --- numbers as the seed prints them: core.numbers, trimmed (2, −0.25, 0.841192) ----------------
def _num(value: float, decimals: int = 6) -> str:
    return format_number(value, decimals, trim=True)


def _term(value: float, decimals: int = 6) -> str:
    """A number inside a sum: (−1)."""
    return parenthesized(value, decimals, trim=True)


def with_plus(value: float, decimals: int = 6) -> str:
    """A contribution with its sign always written: +2, −2, 0."""
    text = _num(value, decimals)
    return text if text.startswith(MINUS) or text == "0" else f"+{text}"


# --- the linear baseline ŷ = a·p + b·n + c ---------------------------------------------------
@dataclass(frozen=True)
class Linear:
    a: float
    b: float
    c: float

    def value(self, name: str) -> float:
        return float(getattr(self, name))

    def with_value(self, name: str, value: float) -> "Linear":
        values = {n: self.value(n) for n in PARAMETERS}
        values[name] = float(value)
        return Linear(**values)


def _columns(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(inputs, dtype=np.float64)
    return x[:, 0], x[:, 1]


def _flat(targets: np.ndarray) -> np.ndarray:
    return np.asarray(targets, dtype=np.float64).reshape(-1)


def linear_outputs(inputs: np.ndarray, model: Linear) -> np.ndarray:
    """ŷ = a·p + b·n + c for every row (T)."""
    p, n = _columns(inputs)
    return model.a * p + model.b * n + model.c


def linear_mse(inputs: np.ndarray, targets: np.ndarray, model: Linear) -> float:
    return mse(linear_outputs(inputs, model), _flat(targets))


def constant_mse(targets: np.ndarray, guess: float = GUESS) -> float:
    """The MSE of answering `guess` for every row (0.5 everywhere: 0.25 on the seed's table)."""
    y = _flat(targets)
    return mse(np.full_like(y, guess), y)


def best_linear(inputs: np.ndarray, targets: np.ndarray) -> tuple[Linear, float]:
    """The least-squares a, b, c and their MSE (a = b = 0, c = 0.5, MSE 0.25 on the seed's table)."""
    fit = least_squares(inputs, _flat(targets))
    a, b = (float(v) for v in fit.coefficients)
    return Linear(a, b, fit.intercept), fit.mse


def linear_mse_curve(inputs: np.ndarray, targets: np.ndarray, model: Linear, parameter: str,
                     values: np.ndarray) -> np.ndarray:
    """The MSE as one of a, b, c takes each of `values`, the other two held."""
    p, n = _columns(inputs)
    y = _flat(targets)
    v = np.asarray(values, dtype=np.float64)[:, None]
    a = v if parameter == "a" else model.a
    b = v if parameter == "b" else model.b
    c = v if parameter == "c" else model.c
    error = a * p + b * n + c - y                               # (N, T)
    return np.mean(error * error, axis=1)


def linear_mse_landscape(inputs: np.ndarray, targets: np.ndarray, model: Linear, x_parameter: str,
                         y_parameter: str, x_values: np.ndarray, y_values: np.ndarray) -> np.ndarray:
    """The MSE over a grid of two of a, b, c (the third held): rows follow y_values, columns x_values."""
    if x_parameter == y_parameter or {x_parameter, y_parameter} - set(PARAMETERS):
        raise ValueError(f"two different parameters of a, b, c expected, got {x_parameter}, {y_parameter}")
    p, n = _columns(inputs)
    y = _flat(targets)
    grid = {x_parameter: np.asarray(x_values, dtype=np.float64)[None, :, None],
            y_parameter: np.asarray(y_values, dtype=np.float64)[:, None, None]}
    a = grid.get("a", model.a)
    b = grid.get("b", model.b)
    c = grid.get("c", model.c)
    error = a * p + b * n + c - y                               # (Ny, Nx, T)
    return np.mean(error * error, axis=2)


def corner_sums(values_at: dict[tuple[float, float], float]) -> tuple[float, float]:
    """(v(1,0) + v(0,1), v(1,1) + v(0,0)) from values at the four corners of the (p, n) square."""
    left = values_at[CORNERS[0]] + values_at[CORNERS[1]]
    right = values_at[CORNERS[2]] + values_at[CORNERS[3]]
    return float(left), float(right)


def identity_sides(model: Linear) -> tuple[float, float]:
    """ŷ(1,0) + ŷ(0,1) and ŷ(1,1) + ŷ(0,0) of the linear model: equal for every a, b, c."""
    corners = np.array(CORNERS)
    values = linear_outputs(corners, model)
    return corner_sums({corner: float(v) for corner, v in zip(CORNERS, values)})


def target_corners(inputs: np.ndarray, targets: np.ndarray) -> dict[tuple[float, float], float] | None:
    """The target y of the table's row at each corner (p, n); None if a corner is missing."""
    x = np.asarray(inputs, dtype=np.float64)
    y = _flat(targets)
    found: dict[tuple[float, float], float] = {}
    for corner in CORNERS:
        rows = np.flatnonzero(np.all(x == np.array(corner), axis=1))
        if rows.size == 0:
            return None
        found[corner] = float(y[rows[0]])
    return found


def target_sides(inputs: np.ndarray, targets: np.ndarray) -> tuple[float, float] | None:
    """y(1,0) + y(0,1) and y(1,1) + y(0,0) from the table (2 and 0); None if a corner is missing."""
    found = target_corners(inputs, targets)
    return None if found is None else corner_sums(found)


@dataclass(frozen=True)
class LinearProof:
    """The seed's proof with the current a, b, c put in; texts are symbols and numbers only."""
    model: Linear
    at: dict                 # (p, n) → ŷ at that corner
    left: float              # ŷ(1,0) + ŷ(0,1)
    right: float             # ŷ(1,1) + ŷ(0,0)

    def _sum_text(self) -> str:
        m = self.model
        return f"{_num(m.a)} + {_term(m.b)} + 2×{_term(m.c)}"

    def left_text(self) -> str:
        m = self.model
        return (f"ŷ(1,0) + ŷ(0,1) = (a + c) + (b + c) = a + b + 2c = "
                f"({_num(m.a)} + {_term(m.c)}) + ({_num(m.b)} + {_term(m.c)}) = "
                f"{self._sum_text()} = {_num(self.left)}")

    def right_text(self) -> str:
        m = self.model
        return (f"ŷ(1,1) + ŷ(0,0) = (a + b + c) + c = a + b + 2c = "
                f"({_num(m.a)} + {_term(m.b)} + {_term(m.c)}) + {_term(m.c)} = "
                f"{self._sum_text()} = {_num(self.right)}")


def linear_proof(model: Linear) -> LinearProof:
    corners = np.array(CORNERS)
    values = linear_outputs(corners, model)
    at = {corner: float(v) for corner, v in zip(CORNERS, values)}
    left, right = corner_sums(at)
    return LinearProof(model, at, left, right)


def linear_formula(alpha: float, beta: float, gamma: float, decimals: int = 6,
                   symbols: tuple[str, str] = ("p", "n")) -> str:
    """α·p + β·n + γ written as the seed writes it: "−p − n + 2"."""
    pieces: list[str] = []
    for coefficient, symbol in ((alpha, symbols[0]), (beta, symbols[1]), (gamma, "")):
        text = _num(abs(coefficient), decimals)
        if text == "0":
            continue
        if symbol:
            text = symbol if text == "1" else f"{text}·{symbol}"
        negative = coefficient < 0
        if not pieces:
            pieces.append(f"{MINUS}{text}" if negative else text)
        else:
            pieces.append(f"{MINUS if negative else '+'} {text}")
    return " ".join(pieces) if pieces else "0"


# --- the two-neuron FFN ----------------------------------------------------------------------
def lab_mismatches(config: BlockConfig) -> list[tuple[str, object, object]]:
    """(field, current, needed) for every way the block differs from the lab's bare FFN."""
    needed = {"attention": False, "residual": False, "norm": "none", "gated": False,
              "d_model": 2, "d_ff": 2, "d_out": 1}
    current = {"attention": config.attention, "residual": config.residual, "norm": config.norm,
               "gated": config.gated, "d_model": config.d_model, "d_ff": config.d_ff,
               "d_out": config.output_width}
    return [(field, current[field], value) for field, value in needed.items() if current[field] != value]


def outputs_with(config: BlockConfig, weights: Weights, inputs: np.ndarray, **changes: object) -> np.ndarray:
    """ŷ (T) of the block with some config options changed, e.g. activation="gelu"."""
    return forward(config.with_changes(**changes), weights, inputs).output[:, 0].copy()


def collapsed_linear(weights: Weights) -> tuple[float, float, float]:
    """Without an activation the two layers are one line: ŷ = α·p + β·n + γ with
    (α, β) = W_in·W_out and γ = b_in·W_out + b_out (−1, −1, 2 for the shipped weights)."""
    w_in = np.asarray(weights["W_in"], dtype=np.float64)
    w_out = np.asarray(weights["W_out"], dtype=np.float64)[:, 0]
    alpha, beta = w_in @ w_out
    gamma = np.asarray(weights["b_in"], dtype=np.float64) @ w_out + float(np.asarray(weights["b_out"])[0])
    return float(alpha), float(beta), float(gamma)


def says_yes(outputs: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    return np.asarray(outputs, dtype=np.float64).reshape(-1) > threshold


def verdicts(outputs: np.ndarray, targets: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """True where cutting ŷ at the threshold gives the target's answer."""
    return says_yes(outputs, threshold) == says_yes(targets, threshold)


def count_right(outputs: np.ndarray, targets: np.ndarray, threshold: float = THRESHOLD) -> int:
    """How many rows cutting ŷ at the threshold answers as their target does."""
    return int(np.count_nonzero(verdicts(outputs, targets, threshold)))


@dataclass(frozen=True)
class BiasSweep:
    values: np.ndarray       # the bias values (N)
    outputs: np.ndarray      # ŷ of every row at each value (N×T)
    mse: np.ndarray          # the MSE at each value (N)


def _is_bare_ffn(config: BlockConfig) -> bool:
    """The block is one position-wise FFN and nothing else (the lab's block, at any width)."""
    return not (config.attention or config.residual or config.gated) and config.norm == "none"


@quiet
def outputs_over_bias(config: BlockConfig, weights: Weights, inputs: np.ndarray, neuron: int,
                      values: np.ndarray) -> np.ndarray:
    """The block output (N×T×d_out) with b_in[neuron] set to each of `values` (N).

    The bare FFN (the lab's block) is evaluated for every value at once, step by step as
    core.block.forward computes it (x·W_in + b_in, the activation, h·W_out + b_out), so each
    value's output equals that forward's; any other block runs one forward per value."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if not _is_bare_ffn(config):
        outputs = [forward(config, with_value(config, weights, inputs, "b_in", (neuron,), float(v))[0],
                           inputs).output for v in values]
        return np.array(outputs).reshape(len(values), *np.shape(inputs)[:1], config.output_width)
    x = np.asarray(inputs, dtype=np.float64)
    b_in = np.repeat(np.asarray(weights["b_in"], dtype=np.float64)[None, :], len(values), axis=0)   # (N, F)
    b_in[:, neuron] = values
    pre = (x @ np.asarray(weights["W_in"], dtype=np.float64))[None] + b_in[:, None, :]                # (N, T, F)
    hidden = activate(config.activation, pre)
    return hidden @ np.asarray(weights["W_out"], dtype=np.float64) + np.asarray(weights["b_out"], dtype=np.float64)


def bias_sweep(config: BlockConfig, weights: Weights, inputs: np.ndarray, targets: np.ndarray,
               neuron: int = 1, values: np.ndarray | None = None) -> BiasSweep:
    """Every row's output and the MSE as b_in[neuron] takes each value (default −1…0, 101 points)."""
    values = np.linspace(*BIAS_RANGE, 101) if values is None else np.asarray(values, dtype=np.float64)
    outputs = outputs_over_bias(config, weights, inputs, neuron, values)[:, :, 0]        # (N, T)
    error = outputs - _flat(targets)[None, :]
    return BiasSweep(values, outputs, np.mean(error * error, axis=1))


def _right_in_sweep(outputs: np.ndarray, targets: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """verdicts() of each value's outputs (N×T → N×T)."""
    return (np.asarray(outputs, dtype=np.float64) > threshold) == says_yes(targets, threshold)[None, :]


@dataclass(frozen=True)
class Flip:
    rows: tuple[int, ...]    # the rows that go wrong first (ties: all of them)
    value: float             # the bias at which they go wrong
    already_wrong: bool      # wrong at the start of the range already

    @property
    def row(self) -> int:
        return self.rows[0]


FLIP_TOLERANCE = 1e-9                 # a bias this close below the flip counts as there


def has_flipped(bias: float, flip: Flip | None) -> bool:
    """Whether the bias has risen as far as the first flip (always, if the row was already wrong
    at the start of the range; never, if nothing flips)."""
    if flip is None:
        return False
    return flip.already_wrong or float(bias) >= flip.value - FLIP_TOLERANCE


def first_to_flip(config: BlockConfig, weights: Weights, inputs: np.ndarray, targets: np.ndarray,
                  neuron: int = 1, start: float = BIAS_RANGE[0], stop: float = BIAS_RANGE[1],
                  points: int = 101, sweep: BiasSweep | None = None) -> Flip | None:
    """Which sentence's verdict (ŷ cut at 0.5) goes wrong first as b_in[neuron] rises from
    `start` to `stop`, and at which bias; None if every row stays right.

    `sweep`, if given, is a bias_sweep over start…stop already computed (the search then
    only refines its crossings). With ReLU and the shipped weights: 好吃 and 不难吃 together at −0.75 (neuron 2 starts to
    fire on them, taking 2·(1 + b) off their output of 1); 不好吃 only goes further below 0.5.
    """
    y = _flat(targets)
    if sweep is None:
        sweep = bias_sweep(config, weights, inputs, targets, neuron, np.linspace(start, stop, points))
    grid = sweep.values
    right = _right_in_sweep(sweep.outputs, y)                    # (points, T)
    if not right[0].all():
        return Flip(tuple(int(r) for r in np.flatnonzero(~right[0])), float(start), True)
    wrong = ~right
    rows = np.flatnonzero(wrong.any(axis=0))                     # the rows that go wrong somewhere
    if rows.size == 0:
        return None
    first_wrong = np.argmax(wrong[:, rows], axis=0)
    low, high = grid[first_wrong - 1], grid[first_wrong]
    row_yes = says_yes(y)[rows]
    for _ in range(45):                                          # bisect every row's crossing to ~1e-15
        middle = 0.5 * (low + high)
        outputs = outputs_over_bias(config, weights, inputs, neuron, middle)        # (rows, T, d_out)
        at_middle = outputs.reshape(len(rows), -1)[np.arange(len(rows)), rows]
        still_right = (at_middle > THRESHOLD) == row_yes
        low = np.where(still_right, middle, low)
        high = np.where(still_right, high, middle)
    first = float(high.min())
    return Flip(tuple(int(row) for row, value in zip(rows, high) if value - first <= 1e-9), first, False)


# --- how one sentence is computed, neuron by neuron ---------------------------------------------
@dataclass(frozen=True)
class NeuronTerms:
    row: int
    neuron: int              # 0-based
    x: tuple[float, ...]     # the row's features (p, n)
    w: tuple[float, ...]     # the neuron's read weights, W_in[:, neuron]
    bias: float              # b_in[neuron]
    z: float                 # pre-activation (mlp.hook_pre)
    activation: str
    h: float                 # activated value (mlp.hook_post)
    write_back: float        # W_out[neuron, 0]
    contribution: float      # h × write_back

    def z_text(self) -> str:
        """"1×1 + 1×1 + (−1) = 1"."""
        products = " + ".join(f"{_term(x)}×{_term(w)}" for x, w in zip(self.x, self.w))
        return f"{products} + {_term(self.bias)} = {_num(self.z)}"

    def activation_text(self) -> str:
        """"ReLU(1) = 1" ("1" with no activation)."""
        symbol = ACTIVATION_SYMBOLS.get(self.activation, self.activation)
        if not symbol:
            return _num(self.h)
        return f"{symbol}({_num(self.z)}) = {_num(self.h)}"

    def write_text(self) -> str:
        """"1 × (−2) = −2"."""
        return f"{_num(self.h)} × {_term(self.write_back)} = {_num(self.contribution)}"


@dataclass(frozen=True)
class OutputTerms:
    row: int
    neurons: tuple[NeuronTerms, ...]
    b_out: float
    total: float             # ŷ (hook_resid_post)

    def sum_text(self) -> str:
        """"2 + (−2) + 0 = 0": each neuron's contribution, then b_out."""
        parts = [_term(n.contribution) for n in self.neurons] + [_term(self.b_out)]
        return f"{' + '.join(parts)} = {_num(self.total)}"


def neuron_terms(config: BlockConfig, weights: Weights, trace: Trace, row: int, neuron: int) -> NeuronTerms:
    """One neuron on one row: reads a column of W_in, adds its bias, activates, writes back."""
    x = trace["hook_resid_mid"][row]
    w_in = np.asarray(weights["W_in"], dtype=np.float64)[:, neuron]
    h = float(trace["mlp.hook_post"][row, neuron])
    write_back = float(np.asarray(weights["W_out"], dtype=np.float64)[neuron, 0])
    return NeuronTerms(row, neuron, tuple(float(v) for v in x), tuple(float(v) for v in w_in),
                       float(np.asarray(weights["b_in"])[neuron]), float(trace["mlp.hook_pre"][row, neuron]),
                       config.activation, h, write_back, h * write_back)


def output_terms(config: BlockConfig, weights: Weights, trace: Trace, row: int) -> OutputTerms:
    neurons = tuple(neuron_terms(config, weights, trace, row, j) for j in range(config.d_ff))
    return OutputTerms(row, neurons, float(np.asarray(weights["b_out"])[0]), float(trace["hook_resid_post"][row, 0]))


# --- what each neuron responds to over the (p, n) square ---------------------------------------
def neuron_maps(config: BlockConfig, weights: Weights, points: int = 41) -> tuple[np.ndarray, np.ndarray]:
    """(grid, maps): grid = `points` values over 0…1; maps[j] is neuron j's activated value with
    rows following n and columns following p (F×points×points)."""
    grid = np.linspace(0.0, 1.0, points)
    p, n = np.meshgrid(grid, grid)                               # rows: n, columns: p
    w_in = np.asarray(weights["W_in"], dtype=np.float64)
    b_in = np.asarray(weights["b_in"], dtype=np.float64)
    pre = p[None] * w_in[0][:, None, None] + n[None] * w_in[1][:, None, None] + b_in[:, None, None]
    return grid, activate(config.activation, pre)


def neuron_formula(config: BlockConfig, weights: Weights, neuron: int) -> str:
    """"ReLU(p + n − 1)": what the neuron computes, with its weights put in."""
    w_in = np.asarray(weights["W_in"], dtype=np.float64)[:, neuron]
    inside = linear_formula(w_in[0], w_in[1], float(np.asarray(weights["b_in"])[neuron]))
    symbol = ACTIVATION_SYMBOLS.get(config.activation, config.activation)
    return f"{symbol}({inside})" if symbol else inside


def output_formula(weights: Weights) -> str:
    """"h₁ − 2·h₂": how the output combines the two neurons (b_out included)."""
    w_out = np.asarray(weights["W_out"], dtype=np.float64)[:, 0]
    return linear_formula(w_out[0], w_out[1], float(np.asarray(weights["b_out"])[0]), symbols=("h₁", "h₂"))


def always_right(sweep: BiasSweep, targets: np.ndarray) -> np.ndarray:
    """Per row: right (ŷ cut at 0.5) at every value of the sweep."""
    return _right_in_sweep(sweep.outputs, targets).all(axis=0)


def lit_rows(hidden: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """Which rows light a neuron up (activated value ≥ threshold)."""
    return np.asarray(hidden, dtype=np.float64).reshape(-1) >= threshold


def lit_pattern(inputs: np.ndarray, lit: np.ndarray) -> str:
    """Names the rule a set of lit rows follows on the (p, n) table: "at_least_one" (p + n ≥ 1),
    "both", "exactly_one", "none", "all", or "other"."""
    p, n = _columns(inputs)
    yes_p, yes_n = p > 0.5, n > 0.5
    lit = np.asarray(lit, dtype=bool)
    rules = {"none": np.zeros_like(lit), "all": np.ones_like(lit), "both": yes_p & yes_n,
             "at_least_one": yes_p | yes_n, "exactly_one": yes_p ^ yes_n}
    for name, rule in rules.items():
        if np.array_equal(lit, rule):
            return name
    return "other"
