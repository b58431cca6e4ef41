"""Creating weights: zero, identity, seeded random, and carrying weights over a config change."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from core.config import BlockConfig, weight_shapes

FILLS = ("zero", "identity", "random")


def filled(shape: tuple[int, ...], fill: str, seed: int = 0) -> np.ndarray:
    """A new array: zeros; identity (ones on each matrix's diagonal, a vector of ones);
    or seeded random values N(0, 1/fan_in) rounded to two decimals so they can be read."""
    if fill == "zero":
        return np.zeros(shape)
    if fill == "identity":
        if len(shape) == 1:
            return np.ones(shape)
        eye = np.eye(shape[-2], shape[-1])
        return np.broadcast_to(eye, shape).copy()
    if fill == "random":
        rng = np.random.default_rng(seed)
        fan_in = shape[-2] if len(shape) >= 2 else shape[-1]
        return np.round(rng.normal(0.0, 1.0 / np.sqrt(fan_in), size=shape), 2)
    raise ValueError(f"fill: expected one of {', '.join(FILLS)}, got {fill!r}")


def default_weight(name: str, shape: tuple[int, ...], seed: int = 0,
                   zero_centered: bool = False) -> np.ndarray:
    """What a freshly created weight holds: norm gains 1 (w = 0 when the norm is zero-centred, so
    that its gain 1 + w is 1 too), biases 0, matrices seeded random (W_G, the attention output
    gate, included: its own stream, biases b_G 0, so every gate starts near σ(0) = 0.5)."""
    if name.endswith(".w"):
        return np.zeros(shape) if zero_centered else np.ones(shape)
    if name.startswith("b_") or name.endswith(".b"):
        return np.zeros(shape)
    # Each matrix gets its own stream, so adding W_gate does not change W_in's numbers.
    return filled(shape, "random", seed + sum(map(ord, name)))


def adapt_weights(weights: Mapping[str, np.ndarray], config: BlockConfig, seed: int = 0,
                  previous: BlockConfig | None = None) -> tuple[dict[str, np.ndarray], list[str]]:
    """The weights `config` needs: every existing one of the right shape is kept, the rest are
    created deterministically. Returns (weights, names of those created).

    When `previous` (the config the weights were made for) says the norms were not zero-centred
    and `config` says they are (or the other way round), kept gains are converted, w ↦ w − 1 (or
    w ↦ w + 1), so that every norm still multiplies by the same gain. Without `previous`, kept
    gains are kept as they are."""
    convert = 0.0
    if previous is not None and previous.zero_centered != config.zero_centered:
        convert = -1.0 if config.zero_centered else 1.0
    result: dict[str, np.ndarray] = {}
    created: list[str] = []
    for name, shape in weight_shapes(config).items():
        old = weights.get(name)
        if old is not None and np.shape(old) == shape:
            result[name] = np.array(old, dtype=np.float64)
            if convert and is_gain(name):
                result[name] = result[name] + convert
        else:
            result[name] = default_weight(name, shape, seed, config.zero_centered)
            created.append(name)
    return result, created


def is_gain(name: str) -> bool:
    """A norm's gain: ln1.w, ln2.w, q_norm.w, k_norm.w."""
    return name.endswith(".w")
