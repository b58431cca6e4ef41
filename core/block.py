"""The forward pass of one Transformer block, returning every intermediate by hook name.

Shapes: T tokens, H heads, d = d_model, dh = d_head, F = d_ff. Attention is written out
per head so that every matrix a learner may want to look at exists.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from core.config import BlockConfig
from core.functions import activate, clamp_gated, norm_gain, norm_parts, rms_norm_parts, sigmoid, softmax

Weights = Mapping[str, np.ndarray]


class Trace(Mapping[str, np.ndarray]):
    """Every intermediate of one forward pass, keyed by TransformerLens-style hook names,
    in the order they are computed. Read-only arrays."""

    def __init__(self, hooks: dict[str, np.ndarray], position_offset: int = 0):
        for array in hooks.values():
            array.setflags(write=False)
        self._hooks = hooks
        self.position_offset = position_offset      # absolute position of row 0 (rotary only)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._hooks[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._hooks)

    def __len__(self) -> int:
        return len(self._hooks)

    @property
    def output(self) -> np.ndarray:
        return self._hooks["hook_resid_post"]


def _norm(hooks: dict, prefix: str, config: BlockConfig, weights: Weights, x: np.ndarray) -> np.ndarray:
    """Apply ln1/ln2 to x (T×width), recording its four hooks; returns the output.
    A zero-centred norm multiplies by 1 + w instead of w."""
    scale, normalized = norm_parts(config.norm, x, config.eps)
    out = normalized * norm_gain(weights[f"{prefix}.w"], config.zero_centered)
    if config.norm == "layernorm":
        out = out + weights[f"{prefix}.b"]
    hooks[f"{prefix}.hook_in"] = x
    hooks[f"{prefix}.hook_scale"] = scale                  # (T, 1)
    hooks[f"{prefix}.hook_normalized"] = normalized        # (T, width)
    hooks[f"{prefix}.hook_out"] = out                      # (T, width)
    return out


def causal_mask(T: int) -> np.ndarray:
    """True where token i may not look at token j (j > i)."""
    return np.triu(np.ones((T, T), dtype=bool), k=1)


# --- attention, one small step per stage --------------------------------------------------

def rotary_angles(positions: np.ndarray, d_head: int, base: float = 10000.0) -> np.ndarray:
    """(T, dh/2) angles p·θ_i with θ_i = base^(−2i/d_head): the GPT-NeoX / Llama convention."""
    theta = base ** (-2.0 * np.arange(d_head // 2) / d_head)
    return np.asarray(positions, dtype=np.float64)[:, None] * theta[None, :]


def rotate(x: np.ndarray, positions: np.ndarray, base: float = 10000.0) -> np.ndarray:
    """Rotary positions on x (…×T×dh), "rotate_half" on the full head: the pair
    (x_i, x_{i+dh/2}) at position p is rotated by the angle p·θ_i."""
    half = x.shape[-1] // 2
    angles = rotary_angles(positions, x.shape[-1], base)
    cos, sin = np.cos(angles), np.sin(angles)
    first, second = x[..., :half], x[..., half:]
    return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)


def _rotary(hooks: dict, config: BlockConfig, q: np.ndarray, k: np.ndarray,
            position_offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Rotate q and k (H×T×dh) by their absolute positions; positions enter only here."""
    positions = np.arange(position_offset, position_offset + q.shape[1])
    rot_q = rotate(q, positions, config.rotary_base)
    rot_k = rotate(k, positions, config.rotary_base)
    hooks.update({"attn.hook_rot_q": rot_q, "attn.hook_rot_k": rot_k})
    return rot_q, rot_k


def _heads(weights: Weights, matrix: str, bias: str, x: np.ndarray) -> np.ndarray:
    """x·W[h] + b[h] for every head h: (H, T, dh)."""
    W, b = weights[matrix], weights[bias]
    out = np.empty((W.shape[0], x.shape[0], W.shape[2]))
    for h in range(W.shape[0]):
        out[h] = x @ W[h] + b[h]                                  # (T, dh)
    return out


def _project_qkv(hooks: dict, weights: Weights, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q = _heads(weights, "W_Q", "b_Q", x)
    k = _heads(weights, "W_K", "b_K", x)
    v = _heads(weights, "W_V", "b_V", x)
    hooks.update({"attn.hook_q": q, "attn.hook_k": k, "attn.hook_v": v})
    return q, k, v


def _qk_norm(hooks: dict, which: str, config: BlockConfig, weights: Weights, a: np.ndarray) -> np.ndarray:
    """QK-Norm of q or k (H×T×dh): RMSNorm of each head's row over d_head, times the gain
    `q_norm.w` / `k_norm.w` (d_head wide, shared by every head, as in Qwen3; 1 + w if zero-centred)."""
    scale, normalized = rms_norm_parts(a, config.eps)             # (H, T, 1), (H, T, dh)
    out = normalized * norm_gain(weights[f"{which}_norm.w"], config.zero_centered)
    hooks[f"attn.hook_{which}_scale"] = scale
    hooks[f"attn.hook_{which}_normalized"] = normalized
    hooks[f"attn.hook_{which}_normed"] = out
    return out


def _pattern(hooks: dict, config: BlockConfig, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Scores q·kᵀ/√dh (masked = −inf) and their softmax, per head: (H, T, T) each."""
    H, T, dh = q.shape
    blocked = causal_mask(T) if config.mask == "causal" else np.zeros((T, T), dtype=bool)
    scores = np.empty((H, T, T))
    pattern = np.empty((H, T, T))
    for h in range(H):
        scores[h] = np.where(blocked, -np.inf, q[h] @ k[h].T / np.sqrt(dh))  # (T, T)
        pattern[h] = softmax(scores[h])                           # (T, T), rows sum to 1
    hooks["attn.hook_attn_scores"] = scores
    hooks["attn.hook_pattern"] = pattern
    return pattern


def _mix(hooks: dict, pattern: np.ndarray, v: np.ndarray) -> np.ndarray:
    """z = pattern · v per head: (H, T, dh)."""
    z = np.empty(v.shape)
    for h in range(v.shape[0]):
        z[h] = pattern[h] @ v[h]                                  # (T, dh)
    hooks["attn.hook_z"] = z
    return z


def _output_gate(hooks: dict, weights: Weights, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The attention output gate: σ(x·W_G[h] + b_G[h]) ⊙ z[h], elementwise per head (H×T×dh).
    x is the sub-layer's input (what q, k and v are projected from)."""
    gate = _heads(weights, "W_G", "b_G", x)                       # (H, T, dh), before the sigmoid
    opened = sigmoid(gate)                                        # in (0, 1)
    gated = z * opened
    hooks.update({"attn.hook_gate": gate, "attn.hook_gate_sigmoid": opened, "attn.hook_z_gated": gated})
    return gated


def _output(hooks: dict, config: BlockConfig, weights: Weights, z: np.ndarray) -> np.ndarray:
    """Each head's result z[h]·W_O[h] (H×T×d) and their sum plus b_O (T×d)."""
    result = np.empty((z.shape[0], z.shape[1], config.d_model))
    for h in range(z.shape[0]):
        result[h] = z[h] @ weights["W_O"][h]                      # (T, d)
    attn_out = result.sum(axis=0) + weights["b_O"]                # (T, d)
    hooks["attn.hook_result"] = result
    hooks["hook_attn_out"] = attn_out
    return attn_out


def _attention(hooks: dict, config: BlockConfig, weights: Weights, x: np.ndarray,
               position_offset: int = 0) -> np.ndarray:
    """Multi-head attention on x (T×d); returns attn_out (T×d)."""
    q, k, v = _project_qkv(hooks, weights, x)
    if config.qk_norm:            # QK-Norm first, as in Qwen3 …
        q = _qk_norm(hooks, "q", config, weights, q)
        k = _qk_norm(hooks, "k", config, weights, k)
    if config.positional == "rotary":  # … then rotary positions
        q, k = _rotary(hooks, config, q, k, position_offset)
    pattern = _pattern(hooks, config, q, k)
    z = _mix(hooks, pattern, v)
    if config.attn_gate:
        z = _output_gate(hooks, weights, x, z)
    return _output(hooks, config, weights, z)


def _mlp(hooks: dict, config: BlockConfig, weights: Weights, x: np.ndarray) -> np.ndarray:
    """The position-wise FFN on x (T×d); returns mlp_out (T×d_out)."""
    pre = x @ weights["W_in"] + weights["b_in"]                   # (T, F)
    hooks["mlp.hook_pre"] = pre
    if config.gated:
        gate = x @ weights["W_gate"] + weights["b_gate"]          # (T, F)
        hooks["mlp.hook_gate"] = gate
        if config.ffn_clamp is not None:                          # gate ≤ limit, |pre| ≤ limit (gpt-oss)
            gate, pre = clamp_gated(gate, pre, config.ffn_clamp)
            hooks["mlp.hook_pre_clamped"] = pre
            hooks["mlp.hook_gate_clamped"] = gate
        hidden = activate(config.activation, gate) * pre
    else:
        hidden = activate(config.activation, pre)
    hooks["mlp.hook_post"] = hidden                               # (T, F)
    mlp_out = hidden @ weights["W_out"] + weights["b_out"]        # (T, d_out)
    hooks["hook_mlp_out"] = mlp_out
    return mlp_out


def forward(config: BlockConfig, weights: Weights, inputs: np.ndarray, position_offset: int = 0) -> Trace:
    """Run the block on inputs (T×d_model) and return the trace of every hook.

    Parts that are switched off (attention, norms) leave no hooks at all. position_offset: the
    absolute position of the first row (rotary positions only), so that a window sliding over a
    long text keeps each token's position.
    """
    x = np.array(inputs, dtype=np.float64)      # a copy: the trace makes its arrays read-only
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    hooks: dict[str, np.ndarray] = {"hook_resid_pre": x}
    pre_norm, post_norm = config.pre_norm, config.post_norm

    # Attention sub-layer: moves information between positions.
    if config.attention:
        attn_in = _norm(hooks, "ln1", config, weights, x) if pre_norm else x
        attn_out = _attention(hooks, config, weights, attn_in, position_offset)
        summed = x + attn_out if config.residual else attn_out
        mid = _norm(hooks, "ln1", config, weights, summed) if post_norm else summed
    else:
        mid = x
    hooks["hook_resid_mid"] = mid

    # FFN sub-layer: transforms each position on its own.
    mlp_in = _norm(hooks, "ln2", config, weights, mid) if pre_norm else mid
    mlp_out = _mlp(hooks, config, weights, mlp_in)
    summed = mid + mlp_out if config.residual else mlp_out
    hooks["hook_resid_post"] = _norm(hooks, "ln2", config, weights, summed) if post_norm else summed
    return Trace(_in_design_order(hooks), position_offset)


_ORDER = (
    "hook_resid_pre",
    "ln1.hook_in", "ln1.hook_scale", "ln1.hook_normalized", "ln1.hook_out",
    "attn.hook_q", "attn.hook_k", "attn.hook_v",
    "attn.hook_q_scale", "attn.hook_q_normalized", "attn.hook_q_normed",       # qk_norm
    "attn.hook_k_scale", "attn.hook_k_normalized", "attn.hook_k_normed",       # qk_norm
    "attn.hook_rot_q", "attn.hook_rot_k",                                      # positional: rotary
    "attn.hook_attn_scores", "attn.hook_pattern",
    "attn.hook_z",
    "attn.hook_gate", "attn.hook_gate_sigmoid", "attn.hook_z_gated",           # attn_gate
    "attn.hook_result", "hook_attn_out", "hook_resid_mid",
    "ln2.hook_in", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out",
    "mlp.hook_pre", "mlp.hook_gate",
    "mlp.hook_pre_clamped", "mlp.hook_gate_clamped",                           # ffn_clamp
    "mlp.hook_post", "hook_mlp_out", "hook_resid_post",
)
HOOK_NAMES = _ORDER


def _in_design_order(hooks: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {name: hooks[name] for name in _ORDER if name in hooks}


def mse(outputs: np.ndarray, targets: np.ndarray) -> float:
    """Mean squared error over every cell."""
    diff = np.asarray(outputs, dtype=np.float64) - np.asarray(targets, dtype=np.float64)
    return float(np.mean(diff * diff))
