"""Generated scenarios of any size: seeded random weights, for tests, the benchmark and the
shipped GPT-2-small-shaped example.

Weights follow GPT-2's initialisation: every matrix N(0, 0.02²), every bias 0, norm gains 1
and norm biases 0. Inputs (the residual stream entering the block) are N(0, 1), the scale a
real residual stream has after the first LayerNorm'd layers. The same arguments always give
the same numbers, on every machine (NumPy's PCG64 stream, one per tensor).
"""
from __future__ import annotations

import numpy as np

from core.config import BlockConfig, weight_shapes
from core.formats.scenario import Scenario

WEIGHT_STD = 0.02

# name -> (T, d_model, n_heads, d_head, d_ff, config options)
PRESETS: dict[str, tuple[int, int, int, int, int, dict]] = {
    # The lesson block's shapes (block-default.json): 5 tokens, d = 4, 2 heads × 2, d_ff = 6.
    "lesson": (5, 4, 2, 2, 6, {}),
    "d64": (16, 64, 4, 16, 256, {}),
    "d256": (32, 256, 4, 64, 1024, {}),
    # One GPT-2-small layer: pre-LN, GELU (tanh approximation), causal attention.
    "gpt2-small": (64, 768, 12, 64, 3072,
                   {"norm_placement": "pre", "activation": "gelu_tanh", "mask": "causal"}),
}


def _stream(seed: int, name: str) -> np.random.Generator:
    # One stream per tensor, so adding W_gate or targets does not change W_in's numbers.
    return np.random.default_rng([seed, *name.encode("utf-8")])


def random_weight(name: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """GPT-2's initialisation for one weight: matrices N(0, 0.02²), biases 0, gains 1."""
    if name.endswith(".w"):
        return np.ones(shape)
    if name.startswith("b_") or name.endswith(".b"):
        return np.zeros(shape)
    return _stream(seed, name).normal(0.0, WEIGHT_STD, size=shape)


def random_scenario(T: int, d_model: int, n_heads: int, d_head: int, d_ff: int, seed: int = 0,
                    targets: bool = False, title: dict[str, str] | None = None, **config: object) -> Scenario:
    """A block of the given shapes with seeded random weights and inputs.

    `config` sets any other BlockConfig option (norm, norm_placement, activation, gated, mask,
    residual, eps, d_out); attention is on when n_heads > 0. Defaults: post-norm LayerNorm,
    ReLU, full attention, residual on. `targets=True` adds seeded N(0, 1) targets.
    """
    config = dict(config)
    config.setdefault("attention", n_heads > 0)
    if not config["attention"]:
        n_heads = d_head = 0
    block = BlockConfig(d_model=d_model, d_ff=d_ff, n_heads=n_heads, d_head=d_head, **config)
    weights = {name: random_weight(name, shape, seed) for name, shape in weight_shapes(block).items()}
    inputs = _stream(seed, "inputs").normal(0.0, 1.0, size=(T, d_model))
    target_array = _stream(seed, "targets").normal(0.0, 1.0, size=(T, block.output_width)) if targets else None
    tokens = tuple(f"t{i}" for i in range(T))
    if title is None:
        shape = f"{T} tokens, d_model {d_model}, {n_heads} heads × {d_head}, d_ff {d_ff}"
        title = {"zh": f"随机权重（种子 {seed}）：{T} 个词元，d_model {d_model}，{n_heads} 个头 × {d_head}，d_ff {d_ff}",
                 "en": f"Random weights (seed {seed}): {shape}"}
    return Scenario(block, tokens, inputs, weights, target_array, dict(title))


def preset(name: str, seed: int = 0, **config: object) -> Scenario:
    """One of PRESETS (lesson, d64, d256, gpt2-small); `config` overrides its options."""
    try:
        T, d_model, n_heads, d_head, d_ff, options = PRESETS[name]
    except KeyError:
        raise ValueError(f"preset: expected one of {', '.join(PRESETS)}, got {name!r}") from None
    return random_scenario(T, d_model, n_heads, d_head, d_ff, seed, **{**options, **config})


def as_float16(scenario: Scenario) -> Scenario:
    """The same scenario with every number rounded to the nearest float16 (kept as float64),
    so that a float16 sidecar stores it exactly."""
    def rounded(array: np.ndarray | None) -> np.ndarray | None:
        return None if array is None else np.asarray(array, dtype=np.float16).astype(np.float64)

    return Scenario(scenario.config, scenario.tokens, rounded(scenario.inputs),
                    {name: rounded(array) for name, array in scenario.weights.items()},
                    rounded(scenario.targets), dict(scenario.title))
