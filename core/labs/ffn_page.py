"""Facts and math behind lesson C4's FFN page: the formula's terms, why 4× wide, the shape
view, the shuffle test of "position-wise", and the linearity of attention's value path.

Pure NumPy; every number the page shows comes from here (or from `core.block.forward`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.block import causal_mask, forward
from core.config import BlockConfig, weight_shapes
from core.functions import quiet, softmax
from core.params import ffn_parameters
from core.formats.scenario import Scenario
from core.weights import adapt_weights

# --- the formula ---------------------------------------------------------------------------
# Vaswani et al. 2017, eq. (2), row-vector form: FFN(x) = max(0, x·W₁ + b₁)·W₂ + b₂.
# Written with the page's names: FFN(x) = act(x·W_up + b_up)·W_down + b_down.
FORMULA_TERMS = ("x", "W_up", "b_up", "act", "W_down", "b_down")
EXPLORER_NAMES = {"W_up": "W_in", "b_up": "b_in", "W_down": "W_out", "b_down": "b_out"}


def ffn_input_hook(config: BlockConfig) -> str:
    """The hook holding the x the FFN reads: ln2's output in a pre-norm block, else the mid stream."""
    return "ln2.hook_out" if config.pre_norm else "hook_resid_mid"


def term_hooks(term: str, config: BlockConfig) -> list[str]:
    """The dataflow hooks a formula term shows up in: W_up and b_up make mlp.hook_pre,
    act makes mlp.hook_post, W_down and b_down make hook_mlp_out."""
    if term == "x":
        return [ffn_input_hook(config)]
    hooks = {"W_up": "mlp.hook_pre", "b_up": "mlp.hook_pre", "act": "mlp.hook_post",
             "W_down": "hook_mlp_out", "b_down": "hook_mlp_out"}
    if term not in hooks:
        raise ValueError(f"term: expected one of {', '.join(FORMULA_TERMS)}, got {term!r}")
    return [hooks[term]]


def term_shapes(config: BlockConfig, tokens: int) -> dict[str, tuple[int, ...]]:
    """The shape of every term for a block config and T tokens (act: the hidden units, T×d_ff)."""
    shapes = weight_shapes(config)
    return {"x": (tokens, config.d_model), "W_up": shapes["W_in"], "b_up": shapes["b_in"],
            "act": (tokens, config.d_ff), "W_down": shapes["W_out"], "b_down": shapes["b_out"]}


# --- why 4× wide ---------------------------------------------------------------------------
@dataclass(frozen=True)
class WidthRow:
    d_ff: int
    dev_perplexity: float        # English–German newstest2013 dev set, per word-piece
    parameters_millions: int     # whole model, ×10⁶


VASWANI_SOURCE = "Vaswani et al. 2017, Attention Is All You Need, Table 3 (rows C)"
VASWANI_D_MODEL = 512
# Table 3: the base model (d_ff 2048) and the two rows (C) that change only d_ff.
VASWANI_WIDTH = (WidthRow(1024, 5.12, 53), WidthRow(2048, 4.92, 65), WidthRow(4096, 4.75, 90))
VASWANI_BASE_D_FF = 2048

GPT2_SOURCE = "GPT-2 small, official config: n_embd 768, n_inner None (4 × n_embd)"
GPT2_D_MODEL = 768
GPT2_D_FF = 3072


def width_ratio(d_model: int, d_ff: int) -> float:
    return d_ff / d_model


def ffn_parameter_parts(d_model: int, d_ff: int, d_out: int | None = None) -> dict[str, int]:
    """Parameters of one standard FFN with biases, by part, and their "total"."""
    d_out = d_model if d_out is None else d_out
    parts = {"W_up": d_model * d_ff, "b_up": d_ff, "W_down": d_ff * d_out, "b_down": d_out}
    parts["total"] = sum(parts.values())
    return parts


def gpt2_ffn_parameters() -> int:
    """One GPT-2 small FFN layer, biases included: 4,722,432."""
    return ffn_parameters(GPT2_D_MODEL, GPT2_D_FF, "standard", bias=True)


# --- the shape view ------------------------------------------------------------------------
SHAPE_SYMBOLS = ("T", "d", "d_ff")
SHAPE_SCALES = {
    # T = 5 in both scales, only so there is something to draw (the seed's choice). The lab
    # itself feeds its 4 sentences as 4 rows through the same W_up and W_down.
    "gpt2": {"T": 5, "d": GPT2_D_MODEL, "d_ff": GPT2_D_FF},
    "small": {"T": 5, "d": 2, "d_ff": 2},
}
BLOCK_KINDS = ("input", "parameter", "intermediate", "output")


def edge_length(n: int) -> float:
    """Drawn edge length of a dimension of size n, log scale: one unit per doubling, plus one."""
    if n < 1:
        raise ValueError(f"n: expected a size of at least 1, got {n}")
    return 1.0 + math.log2(n)


@dataclass(frozen=True)
class ShapeBlock:
    name: str          # "X", "W_up", "Z", "H", "W_down", "Y"
    kind: str          # one of BLOCK_KINDS
    rows: str          # dimension symbol of its height
    columns: str       # dimension symbol of its width


# Y = GELU(X·W_up)·W_down, left to right: X · W_up = Z, GELU(Z) = H, H · W_down = Y.
SHAPE_BLOCKS = (
    ShapeBlock("X", "input", "T", "d"),
    ShapeBlock("W_up", "parameter", "d", "d_ff"),
    ShapeBlock("Z", "intermediate", "T", "d_ff"),
    ShapeBlock("H", "intermediate", "T", "d_ff"),
    ShapeBlock("W_down", "parameter", "d_ff", "d"),
    ShapeBlock("Y", "output", "T", "d"),
)


@dataclass(frozen=True)
class ShapeView:
    scale: str
    sizes: dict[str, int]          # symbol → real size
    lengths: dict[str, float]      # symbol → drawn length (log scale)
    blocks: tuple[ShapeBlock, ...]
    parameters: int                # W_up, b_up, W_down, b_down

    def block_size(self, block: ShapeBlock) -> tuple[float, float]:
        """(height, width) in drawing units."""
        return self.lengths[block.rows], self.lengths[block.columns]


def shape_view(scale: str) -> ShapeView:
    """The blocks of Y = GELU(X·W_up)·W_down at GPT-2 small's scale or the two-neuron lab's."""
    if scale not in SHAPE_SCALES:
        raise ValueError(f"scale: expected one of {', '.join(SHAPE_SCALES)}, got {scale!r}")
    sizes = dict(SHAPE_SCALES[scale])
    lengths = {symbol: edge_length(n) for symbol, n in sizes.items()}
    parameters = ffn_parameters(sizes["d"], sizes["d_ff"], "standard", bias=True)
    return ShapeView(scale, sizes, lengths, SHAPE_BLOCKS, parameters)


# --- position-wise: the shuffle test ---------------------------------------------------------
def shuffle_permutation(tokens: int, step: int) -> np.ndarray:
    """The step-th shuffle of a sequence (deterministic, never the identity when T > 1):
    new position i holds original token permutation[i]."""
    rng = np.random.default_rng(1000 + step)
    permutation = rng.permutation(tokens)
    if tokens > 1 and np.array_equal(permutation, np.arange(tokens)):
        permutation = np.roll(permutation, 1)
    return permutation


def unshuffle(rows: np.ndarray, permutation: np.ndarray) -> np.ndarray:
    """Rows of a run on shuffled tokens, put back into the original tokens' order."""
    back = np.empty_like(rows)
    back[np.asarray(permutation)] = rows
    return back


def rows_kept(original: np.ndarray, shuffled: np.ndarray, permutation: np.ndarray) -> np.ndarray:
    """Per original token: is its row in the shuffled run bit-for-bit the row it had before?"""
    back = unshuffle(shuffled, permutation)
    return np.array([np.array_equal(a, b) for a, b in zip(original, back)])


def row_changes(original: np.ndarray, shuffled: np.ndarray, permutation: np.ndarray) -> np.ndarray:
    """Per original token: the largest |difference| between its row before and after the shuffle."""
    return np.max(np.abs(unshuffle(shuffled, permutation) - original), axis=1)


CHANGE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class ShuffleResult:
    tokens: tuple[str, ...]
    permutation: np.ndarray            # new position i holds original token permutation[i]
    ffn_original: np.ndarray           # T×d_out hook_mlp_out, FFN alone (attention off)
    ffn_shuffled: np.ndarray           # the same on the shuffled tokens, in shuffled order
    ffn_kept: np.ndarray               # per original token: row moved with it, values identical
    attention_original: np.ndarray     # T×d hook_attn_out, causal mask
    attention_shuffled: np.ndarray
    attention_change: np.ndarray       # per original token: max |Δ| of its attention output
    full_attention_change: np.ndarray  # the same with the full mask (no positions in this block)

    @property
    def largest_full_attention_change(self) -> float:
        return float(np.max(self.full_attention_change))

    @property
    def shuffled_tokens(self) -> tuple[str, ...]:
        return tuple(self.tokens[i] for i in self.permutation)

    @property
    def new_positions(self) -> np.ndarray:
        """Per original token: where it sits after the shuffle."""
        return np.argsort(self.permutation)

    @property
    def attention_changed(self) -> np.ndarray:
        return self.attention_change > CHANGE_TOLERANCE

    @property
    def ffn_kept_count(self) -> int:
        return int(np.count_nonzero(self.ffn_kept))

    @property
    def attention_changed_count(self) -> int:
        return int(np.count_nonzero(self.attention_changed))


def ffn_only(scenario: Scenario) -> tuple[BlockConfig, dict[str, np.ndarray]]:
    """The scenario's block with attention switched off: the FFN sub-layer alone."""
    config = scenario.config.with_changes(attention=False) if scenario.config.attention else scenario.config
    weights, _ = adapt_weights(scenario.weights, config)
    return config, weights


def shuffle_demo(scenario: Scenario, permutation: np.ndarray) -> ShuffleResult:
    """Run the FFN alone and the causal attention on the tokens and on the shuffled tokens.

    The FFN's rows follow their tokens exactly; causal attention's output for a token changes
    when the tokens before it change. (Full attention without position information would only
    permute too — kept as `full_attention_change` to say so honestly.)
    """
    if not scenario.config.attention:
        raise ValueError("scenario: expected a block with attention, for the comparison")
    permutation = np.asarray(permutation, dtype=int)
    T = len(scenario.tokens)
    if sorted(permutation.tolist()) != list(range(T)):
        raise ValueError(f"permutation: expected a reordering of 0…{T - 1}, got {permutation.tolist()}")
    inputs = np.asarray(scenario.inputs, dtype=np.float64)
    shuffled_inputs = inputs[permutation]

    ffn_config, ffn_weights = ffn_only(scenario)
    ffn_original = forward(ffn_config, ffn_weights, inputs)["hook_mlp_out"]
    ffn_shuffled = forward(ffn_config, ffn_weights, shuffled_inputs)["hook_mlp_out"]

    def attention(mask: str, x: np.ndarray) -> np.ndarray:
        return forward(scenario.config.with_changes(mask=mask), scenario.weights, x)["hook_attn_out"]

    causal_original = attention("causal", inputs)
    causal_shuffled = attention("causal", shuffled_inputs)
    full_change = row_changes(attention("full", inputs), attention("full", shuffled_inputs), permutation)
    return ShuffleResult(
        tokens=tuple(scenario.tokens), permutation=permutation,
        ffn_original=ffn_original, ffn_shuffled=ffn_shuffled,
        ffn_kept=rows_kept(ffn_original, ffn_shuffled, permutation),
        attention_original=causal_original, attention_shuffled=causal_shuffled,
        attention_change=row_changes(causal_original, causal_shuffled, permutation),
        full_attention_change=full_change)


# --- attention's value path is linear for the first position ----------------------------------
SCALE_GRID = np.linspace(-2.0, 2.0, 41)     # s for "scale x₁ by s", in steps of 0.1
LATE_TOKEN = 4                              # the later token plotted beside the first (the last of 5,
                                            # 小王: its curve bends the most in block-default)
LINEAR_TOLERANCE = 1e-9


def _scaling_config(config: BlockConfig) -> BlockConfig:
    # Causal mask; post placement so that attention reads x itself (hook_attn_out does not
    # depend on a post-norm, which comes after it; a pre-norm's LN1 would sit in between).
    return config.with_changes(mask="causal", norm_placement="post")


def scaled_attention_rows(scenario: Scenario, scale: float, late_token: int = LATE_TOKEN) -> tuple[np.ndarray, np.ndarray]:
    """hook_attn_out[0] and hook_attn_out[late_token] under a causal mask when the first
    token's input row is multiplied by `scale`."""
    if not scenario.config.attention:
        raise ValueError("scenario: expected a block with attention")
    late = min(late_token, len(scenario.tokens) - 1)
    inputs = np.array(scenario.inputs, dtype=np.float64)
    inputs[0] = inputs[0] * scale
    out = forward(_scaling_config(scenario.config), scenario.weights, inputs)["hook_attn_out"]
    return out[0].copy(), out[late].copy()


def second_difference(values: np.ndarray) -> float:
    """Largest |f(s−h) − 2f(s) + f(s+h)| on an even grid: 0 for straight lines, > 0 for curves."""
    values = np.asarray(values, dtype=np.float64)
    return float(np.max(np.abs(values[2:] - 2.0 * values[1:-1] + values[:-2])))


@dataclass(frozen=True)
class ScalingResult:
    scales: np.ndarray            # (S,)
    first: np.ndarray             # (S, d): hook_attn_out[0] for each scale
    late: np.ndarray              # (S, d): hook_attn_out[late_token]
    late_token: int
    first_curvature: float        # second_difference of `first`
    late_curvature: float

    @property
    def first_is_linear(self) -> bool:
        return self.first_curvature <= LINEAR_TOLERANCE

    @property
    def late_is_linear(self) -> bool:
        return self.late_curvature <= LINEAR_TOLERANCE


def first_token_scaling(scenario: Scenario, scales: np.ndarray = SCALE_GRID,
                        late_token: int = LATE_TOKEN) -> ScalingResult:
    """Scale x₁ over a grid and record the first and a later token's attention output.

    Under a causal mask the first token attends only to itself (weight exactly 1), so its
    output x₁·W_V·W_O (+ biases) is a straight line in s; the later token's softmax weights
    move with s, so its output curves.
    """
    scales = np.asarray(scales, dtype=np.float64)
    late = min(late_token, len(scenario.tokens) - 1)
    config = _scaling_config(scenario.config)
    if not config.attention:
        raise ValueError("scenario: expected a block with attention")
    if config.qk_norm or config.attn_gate or config.positional != "none":
        rows = [scaled_attention_rows(scenario, float(scale), late) for scale in scales]   # the block's own forward
        first = np.array([row[0] for row in rows])
        later = np.array([row[1] for row in rows])
    else:
        inputs = np.repeat(np.asarray(scenario.inputs, dtype=np.float64)[None], len(scales), axis=0)   # (S, T, d)
        inputs[:, 0] = inputs[:, 0] * scales[:, None]
        out = _attention_outputs(config, scenario.weights, inputs)
        first, later = out[:, 0].copy(), out[:, late].copy()
    return ScalingResult(scales, first, later, late, second_difference(first), second_difference(later))


@quiet
def _attention_outputs(config: BlockConfig, weights, inputs: np.ndarray) -> np.ndarray:
    """hook_attn_out (S×T×d) of S input tables (S×T×d) at once, step by step as core.block.forward
    computes it for one (plain attention: no QK-Norm, output gate or rotary positions)."""
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    S, T, _d = inputs.shape
    blocked = causal_mask(T) if config.mask == "causal" else np.zeros((T, T), dtype=bool)
    result = np.empty((S, config.n_heads, T, config.d_model))
    for h in range(config.n_heads):
        q = inputs @ weights["W_Q"][h] + weights["b_Q"][h]                                   # (S, T, dh)
        k = inputs @ weights["W_K"][h] + weights["b_K"][h]
        v = inputs @ weights["W_V"][h] + weights["b_V"][h]
        scores = np.where(blocked, -np.inf, q @ k.swapaxes(1, 2) / np.sqrt(config.d_head))  # (S, T, T)
        result[:, h] = (softmax(scores) @ v) @ weights["W_O"][h]                            # (S, T, d)
    return result.sum(axis=1) + weights["b_O"]
