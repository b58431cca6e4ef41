"""Numbers the explorer shows beside the trace: invariants, MSE sweeps, activation curves."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.block import Trace, Weights, forward, mse
from core.config import BlockConfig
from core.functions import activate
from core.incremental import trace_after

TOLERANCE = 1e-6


@dataclass(frozen=True)
class Invariant:
    key: str                 # "ln2.mean", "ln2.var", "pattern.rowsum", "resid_post.sum", …
    label: str               # in symbols, e.g. "mean(LN2 normalized)"
    expected: float
    values: np.ndarray       # one per token (per head and token for the pattern)
    ok: bool
    worst: float = field(init=False)   # the value farthest from `expected` (NaN if any value is NaN)

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        worst = float(values.flat[np.argmax(np.abs(values - self.expected))]) if values.size else self.expected
        object.__setattr__(self, "worst", worst)


def invariants(config: BlockConfig, trace: Trace) -> list[Invariant]:
    """What must hold in any healthy trace, checked on the current numbers.

    Norms: each token's normalized row has mean 0 (LayerNorm only) and variance
    (LayerNorm) or mean square (RMSNorm) ≈ 1 — it is not when ε is large compared with the
    row's spread, or 0 on a constant row. (QK-Norm's rows: `qk_norm_invariants`.) Attention rows sum to 1. A residual output is
    exactly its two summands.
    """
    found: list[Invariant] = []

    def add(key: str, label: str, expected: float, values: np.ndarray, tolerance: float) -> None:
        values = np.asarray(values, dtype=np.float64)
        ok = bool(np.all(np.abs(values - expected) <= tolerance))
        found.append(Invariant(key, label, expected, values, ok))

    for prefix in ("ln1", "ln2"):
        name = f"{prefix}.hook_normalized"
        if name not in trace:
            continue
        rows = trace[name]
        if config.norm == "layernorm":
            add(f"{prefix}.mean", f"mean({prefix.upper()} n)", 0.0, rows.mean(axis=1), 1e-9)
            add(f"{prefix}.var", f"var({prefix.upper()} n)", 1.0, rows.var(axis=1), 1e-2)
        else:
            add(f"{prefix}.ms", f"mean({prefix.upper()} n²)", 1.0, (rows * rows).mean(axis=1), 1e-2)
    if "attn.hook_pattern" in trace:
        add("pattern.rowsum", "Σⱼ pᵢⱼ", 1.0, trace["attn.hook_pattern"].sum(axis=-1), 1e-9)
    if config.residual:
        if config.attention:
            summed = trace["hook_resid_pre"] + trace["hook_attn_out"]
            stream = trace["ln1.hook_in"] if "ln1.hook_in" in trace and config.norm_placement == "post" \
                else trace["hook_resid_mid"]
            add("resid_mid.sum", "x + attn_out", 0.0, np.abs(stream - summed).max(axis=1), TOLERANCE)
        summed = trace["hook_resid_mid"] + trace["hook_mlp_out"]
        stream = trace["ln2.hook_in"] if "ln2.hook_in" in trace and config.norm_placement == "post" \
            else trace["hook_resid_post"]
        add("resid_post.sum", "m + f", 0.0, np.abs(stream - summed).max(axis=1), TOLERANCE)
    return found


def qk_norm_invariants(config: BlockConfig, trace: Trace) -> list[Invariant]:
    """QK-Norm's check: each head's normalized q and k rows have mean square ≈ 1 before the gain
    ("q_norm.ms", "k_norm.ms"; values H×T, one per head and token). Empty without QK-Norm.

    Kept apart from `invariants` so that a view that knows only the norm, pattern and residual
    keys keeps working; a view that shows QK-Norm lists both."""
    found: list[Invariant] = []
    for which in ("q", "k"):
        name = f"attn.hook_{which}_normalized"
        if name in trace:
            values = np.mean(trace[name] * trace[name], axis=-1)      # (H, T)
            found.append(Invariant(f"{which}_norm.ms", f"mean({which.upper()} n²)", 1.0, values,
                                   bool(np.all(np.abs(values - 1.0) <= 1e-2))))
    return found


def with_value(config: BlockConfig, weights: Weights, inputs: np.ndarray, tensor: str,
               index: tuple[int, ...], value: float) -> tuple[Weights, np.ndarray]:
    """Weights and inputs with one cell of `tensor` ("inputs" or a weight name) replaced."""
    if tensor == "inputs":
        changed = np.array(inputs, dtype=np.float64)
        changed[index] = value
        return weights, changed
    changed_weights = dict(weights)
    array = np.array(weights[tensor], dtype=np.float64)
    array[index] = value
    changed_weights[tensor] = array
    return changed_weights, inputs


def mse_sweep(config: BlockConfig, weights: Weights, inputs: np.ndarray, targets: np.ndarray,
              tensor: str, index: tuple[int, ...], values: np.ndarray,
              progress: Callable[[float], bool] | None = None, trace: Trace | None = None) -> np.ndarray | None:
    """The MSE of the block output against targets as one cell takes each of `values`.

    progress: called after each value with the fraction done; when it returns False the sweep
    stops and returns None. trace: the trace of (weights, inputs); given, each value's output
    is recomputed incrementally from it (core.incremental.trace_after: only what the cell can
    change, equal to a full forward to 1e-12 relative, bit-identical at lesson sizes)."""
    result = np.empty(len(values))
    for position, value in enumerate(values):
        sweep_weights, sweep_inputs = with_value(config, weights, inputs, tensor, index, float(value))
        if trace is None:
            output = forward(config, sweep_weights, sweep_inputs).output
        else:
            output = trace_after(config, weights, inputs, trace, sweep_weights, sweep_inputs).output
        result[position] = mse(output, targets)
        if progress is not None and progress((position + 1) / len(values)) is False:
            return None
    return result


def sweep_range(current: float, half_width: float = 2.0, points: int = 61) -> np.ndarray:
    """Values around the current one for a sweep: current ± half_width, current exactly included."""
    values = np.linspace(current - half_width, current + half_width, points)
    values[int(np.argmin(np.abs(values - current)))] = current   # linspace may miss it by a rounding
    return values


CURVE_POINTS = 161              # the fewest points of an activation curve
CURVE_POINTS_PER_UNIT = 20      # density on a narrow range
MAX_CURVE_POINTS = 2001         # never more, however wide the range (a value may be ±1e12)
MAX_CURVE_EXTENT = 1e100        # ends beyond ±this (or not finite) are clipped to it


def activation_range(values: np.ndarray, half_width: float = 4.0) -> tuple[float, float]:
    """An x range for an activation curve: at least ±half_width, widened to hold every finite value
    with half a unit to spare, and never beyond ±MAX_CURVE_EXTENT."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    low, high = -half_width, half_width
    if finite.size:
        low = min(low, math.floor(float(finite.min())) - 0.5)
        high = max(high, math.ceil(float(finite.max())) + 0.5)
    return max(low, -MAX_CURVE_EXTENT), min(high, MAX_CURVE_EXTENT)


def activation_curve(activation: str, low: float = -4.0, high: float = 4.0,
                     points: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x, activation(x)) at evenly spaced x from low to high.

    points defaults to CURVE_POINTS_PER_UNIT per unit of x (at least CURVE_POINTS); it is
    never more than MAX_CURVE_POINTS. Ends that are not finite or lie beyond
    ±MAX_CURVE_EXTENT are clipped, so every x is finite.
    """
    def clip(end: float, default: float) -> float:
        end = float(end)
        return default if math.isnan(end) else max(-MAX_CURVE_EXTENT, min(MAX_CURVE_EXTENT, end))

    low, high = clip(low, -4.0), clip(high, 4.0)
    if low > high:
        low, high = high, low
    if points is None:
        points = max(CURVE_POINTS, int(min((high - low) * CURVE_POINTS_PER_UNIT, MAX_CURVE_POINTS)) + 1)
    points = max(2, min(int(points), MAX_CURVE_POINTS))
    xs = np.linspace(low, high, points)
    return xs, activate(activation, xs)


def value_histogram(values: np.ndarray, low: float, high: float, bins: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(edges, counts): how many of the finite `values` fall in each of `bins` equal bins from
    low to high (values outside are counted in the end bins). For thousands of hidden units,
    where one point per unit would be a smear: how many units sit at each x."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.clip(values[np.isfinite(values)], low, high)
    counts, edges = np.histogram(finite, bins=bins, range=(low, high))
    return edges, counts


def activate_values(activation: str, values: np.ndarray) -> np.ndarray:
    return activate(activation, np.asarray(values, dtype=np.float64))
