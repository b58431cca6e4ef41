"""The elementwise and row-wise functions of a block, written to stay finite.

Every function takes and returns float64 arrays; none of them mutates its input.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from scipy.special import expit, ndtr

_SQRT_2_OVER_PI = np.sqrt(2.0 / np.pi)

_F = TypeVar("_F", bound=Callable)


def quiet(function: _F) -> _F:
    """Run `function` with NumPy's floating-point warnings off. Extreme numbers (an overflow to
    ±inf, inf − inf = NaN) are not an error here: they end up in the trace, where core.finite
    finds them and the app says so plainly, instead of a flood of RuntimeWarnings on the console."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x·Φ(x); ndtr keeps Φ accurate far into both tails."""
    return x * ndtr(x)


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """The tanh approximation of GELU used by GPT-2 (and by the seed's 0.841 / 0.272 / 0.318).
    x·x·x, not x ** 3: NumPy's float power with exponent 3 calls pow() per element, ~300× slower
    (14 ms of a 33 ms edit budget at GPT-2-small's 64 × 3,072 hidden units)."""
    return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))))


def silu(x: np.ndarray) -> np.ndarray:
    """x·σ(x); expit never overflows."""
    return x * expit(x)


def identity(x: np.ndarray) -> np.ndarray:
    return np.array(x, dtype=np.float64, copy=True)


ACTIVATION_FUNCTIONS = {
    "relu": relu,
    "gelu": gelu,
    "gelu_tanh": gelu_tanh,
    "silu": silu,
    "identity": identity,
}

ACTIVATION_FORMULAS = {
    "relu": "max(0, x)",
    "gelu": "x·Φ(x)",
    "gelu_tanh": "0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))",
    "silu": "x·σ(x)",
    "identity": "x",
}


def activate(name: str, x: np.ndarray) -> np.ndarray:
    return ACTIVATION_FUNCTIONS[name](np.asarray(x, dtype=np.float64))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """σ(x) = 1/(1 + e^(−x)), in (0, 1); expit never overflows (σ(−1000) = 0, not a warning)."""
    return expit(np.asarray(x, dtype=np.float64))


def clamp_gated(gate: np.ndarray, up: np.ndarray, limit: float) -> tuple[np.ndarray, np.ndarray]:
    """The clamped SwiGLU's inputs, gpt-oss's convention: the gate (the value that goes through
    SiLU) is clipped from above only, gate ≤ limit, since SiLU of a large negative number is
    already ≈ 0; the linear up value is clipped on both sides, −limit ≤ up ≤ limit.
    So |SiLU(gate)·up| ≤ SiLU(limit)·limit: 48.96 at gpt-oss's 7, 99.995 at DeepSeek V4's 10."""
    return np.minimum(gate, limit), np.clip(up, -limit, limit)


def norm_gain(w: np.ndarray, zero_centered: bool) -> np.ndarray:
    """The gain a norm multiplies by: w itself, or 1 + w for a zero-centred norm (w starts at 0,
    so weight decay pulls the gain towards 1, not towards 0)."""
    return 1.0 + w if zero_centered else w


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis. −inf entries get weight 0; each row needs one finite entry."""
    top = np.max(scores, axis=-1, keepdims=True)
    shifted = np.exp(scores - top)
    return shifted / np.sum(shifted, axis=-1, keepdims=True)


def _safe_divide(numerator: np.ndarray, scale: np.ndarray) -> np.ndarray:
    # With ε = 0 a constant row has scale 0; 0/0 is taken as 0 so the trace stays finite
    # and the invariant readouts (variance ≠ 1) show what went wrong.
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, numerator / np.where(scale > 0, scale, 1.0), 0.0)


def layer_norm_parts(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(scale, normalized) of LayerNorm over the last axis: scale = √(var + ε), keepdims.

    The mean is subtracted before squaring (two passes), so rows of ±1e6 lose no precision.
    """
    centered = x - np.mean(x, axis=-1, keepdims=True)
    variance = np.mean(centered * centered, axis=-1, keepdims=True)
    scale = np.sqrt(variance + eps)
    return scale, _safe_divide(centered, scale)


def rms_norm_parts(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(scale, normalized) of RMSNorm over the last axis: scale = √(mean x² + ε), keepdims."""
    mean_square = np.mean(x * x, axis=-1, keepdims=True)
    scale = np.sqrt(mean_square + eps)
    return scale, _safe_divide(x, scale)


def norm_parts(kind: str, x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    if kind == "layernorm":
        return layer_norm_parts(x, eps)
    if kind == "rmsnorm":
        return rms_norm_parts(x, eps)
    raise ValueError(f"no norm called {kind!r}")
