"""The configuration of one Transformer block, and the weight shapes it implies."""
from __future__ import annotations

from dataclasses import dataclass, replace

MASKS = ("full", "causal")
NORMS = ("layernorm", "rmsnorm", "none")
PLACEMENTS = ("post", "pre")
ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu", "identity")
POSITIONALS = ("none", "rotary")

# Any one dimension above this, or more numbers than MAX_NUMBERS in a scenario,
# is refused: a lesson block is tiny, and a typo must not allocate gigabytes.
MAX_DIM = 4096
MAX_NUMBERS = 50_000_000
MAX_CLAMP = 1e6      # the largest SwiGLU clamp limit (the same bound as any number in a scenario)


class ConfigError(ValueError):
    """A configuration that cannot describe a block; the message names the field."""


@dataclass(frozen=True)
class BlockConfig:
    d_model: int                  # width of the residual stream
    d_ff: int                     # number of hidden units in the FFN
    n_heads: int = 0              # attention heads (0 when attention is off)
    d_head: int = 0               # width of one head's q, k, v
    d_out: int | None = None      # width of the block output; None means d_model
    attention: bool = True        # is there an attention sub-layer at all
    mask: str = "full"            # "full": every token sees all; "causal": only earlier ones
    residual: bool = True         # add each sub-layer's input back to its output
    norm: str = "layernorm"       # "layernorm" | "rmsnorm" | "none"
    norm_placement: str = "post"  # "post": norm after the residual sum; "pre": at the sub-layer's entry
    eps: float = 1e-5             # added to the variance (or mean square) before the square root
    activation: str = "relu"      # the FFN non-linearity
    gated: bool = False           # gated FFN: act(x·W_gate) ⊙ (x·W_in); silu → SwiGLU, gelu → GEGLU
    # Later generations (optional; the defaults are the block as it was before them):
    zero_centered: bool = False   # every norm gain is 1 + w (w starts at 0), as in Qwen3-Next and Gemma
    qk_norm: bool = False         # RMSNorm on each head's q and k over d_head before the scores (Qwen3)
    attn_gate: bool = False       # sigmoid(x·W_G + b_G) multiplies each head's z before W_O (gated attention)
    ffn_clamp: float | None = None  # gated FFN only: gate ≤ limit, −limit ≤ up ≤ limit (gpt-oss: 7)
    positional: str = "none"      # "rotary": rotate q and k by their positions (RoPE) before the scores
    rotary_base: float = 10000.0  # RoPE's base: θ_i = base^(−2i/d_head)

    def __post_init__(self) -> None:
        self.validate()

    @property
    def output_width(self) -> int:
        return self.d_model if self.d_out is None else self.d_out

    @property
    def has_norm(self) -> bool:
        return self.norm != "none"

    @property
    def pre_norm(self) -> bool:
        """Norms sit at each sub-layer's entry (and there are norms)."""
        return self.has_norm and self.norm_placement == "pre"

    @property
    def post_norm(self) -> bool:
        """Norms follow each residual sum (and there are norms)."""
        return self.has_norm and self.norm_placement == "post"

    @property
    def ln2_width(self) -> int:
        # Post-norm normalizes the block output (d_out wide); pre-norm the FFN input (d_model).
        return self.output_width if self.norm_placement == "post" else self.d_model

    def validate(self) -> None:
        def whole(name: str, value: object, low: int) -> None:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"config.{name}: expected a whole number, got {value!r}")
            if not low <= value <= MAX_DIM:
                raise ConfigError(f"config.{name}: expected {low} to {MAX_DIM}, got {value}")

        def choice(name: str, value: object, options: tuple[str, ...]) -> None:
            if value not in options:
                raise ConfigError(f"config.{name}: expected one of {', '.join(options)}, got {value!r}")

        def flag(name: str, value: object) -> None:
            if not isinstance(value, bool):
                raise ConfigError(f"config.{name}: expected true or false, got {value!r}")

        whole("d_model", self.d_model, 1)
        whole("d_ff", self.d_ff, 1)
        for name in ("attention", "residual", "gated", "zero_centered", "qk_norm", "attn_gate"):
            flag(name, getattr(self, name))
        if self.attention:
            whole("n_heads", self.n_heads, 1)
            whole("d_head", self.d_head, 1)
        elif self.n_heads or self.d_head:
            raise ConfigError("config.n_heads: expected no heads when attention is false")
        if self.d_out is not None:
            whole("d_out", self.d_out, 1)
            if self.residual and self.d_out != self.d_model:
                raise ConfigError(
                    f"config.d_out: expected {self.d_model} (= d_model) while residual is true, got {self.d_out}")
        choice("mask", self.mask, MASKS)
        choice("norm", self.norm, NORMS)
        choice("norm_placement", self.norm_placement, PLACEMENTS)
        choice("activation", self.activation, ACTIVATIONS)
        if isinstance(self.eps, bool) or not isinstance(self.eps, (int, float)) or not 0 <= self.eps <= 1:
            raise ConfigError(f"config.eps: expected a number from 0 to 1, got {self.eps!r}")
        for name in ("qk_norm", "attn_gate"):
            if getattr(self, name) and not self.attention:
                raise ConfigError(f"config.{name}: expected false when attention is false")
        if self.ffn_clamp is not None:
            limit = self.ffn_clamp
            if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 < limit <= MAX_CLAMP:
                raise ConfigError(f"config.ffn_clamp: expected null or a number above 0 and at most "
                                  f"{MAX_CLAMP:g}, got {limit!r}")
            if not self.gated:
                raise ConfigError("config.ffn_clamp: expected null when gated is false "
                                  "(the clamp bounds a gated FFN's gate and up values)")
        choice("positional", self.positional, POSITIONALS)
        if (isinstance(self.rotary_base, bool) or not isinstance(self.rotary_base, (int, float))
                or not 1 < self.rotary_base <= 1e9):
            raise ConfigError(f"config.rotary_base: expected a number above 1 and at most 1e9, got {self.rotary_base!r}")
        if self.positional == "rotary":
            if not self.attention:
                raise ConfigError("config.positional: expected none when attention is false (rotary acts on q and k)")
            if self.d_head % 2:
                raise ConfigError(f"config.d_head: expected an even number with rotary positions, got {self.d_head}")

    @property
    def has_any_norm(self) -> bool:
        """There is at least one norm whose gain `zero_centered` shapes (ln1/ln2, q_norm/k_norm)."""
        return self.has_norm or self.qk_norm

    def with_changes(self, **changes: object) -> "BlockConfig":
        """A copy with some fields changed; heads (and QK-Norm, the attention gate) are cleared with
        attention, the FFN clamp with the gated FFN."""
        if changes.get("attention") is False:
            changes.setdefault("n_heads", 0)
            changes.setdefault("d_head", 0)
            changes.setdefault("qk_norm", False)
            changes.setdefault("attn_gate", False)
            changes.setdefault("positional", "none")
        if changes.get("gated") is False:
            changes.setdefault("ffn_clamp", None)
        return replace(self, **changes)


def weight_shapes(config: BlockConfig) -> dict[str, tuple[int, ...]]:
    """Every weight the block has, in DESIGN.md's names, with its shape, in a fixed order."""
    d, F, out = config.d_model, config.d_ff, config.output_width
    shapes: dict[str, tuple[int, ...]] = {}
    if config.attention:
        H, dh = config.n_heads, config.d_head
        shapes.update({
            "W_Q": (H, d, dh), "b_Q": (H, dh),
            "W_K": (H, d, dh), "b_K": (H, dh),
            "W_V": (H, d, dh), "b_V": (H, dh),
            "W_O": (H, dh, d), "b_O": (d,),
        })
        if config.qk_norm:                     # one gain of d_head shared by every head (as Qwen3)
            shapes["q_norm.w"] = (dh,)
            shapes["k_norm.w"] = (dh,)
        if config.attn_gate:
            shapes["W_G"] = (H, d, dh)
            shapes["b_G"] = (H, dh)
        if config.has_norm:
            shapes["ln1.w"] = (d,)
            if config.norm == "layernorm":
                shapes["ln1.b"] = (d,)
    shapes["W_in"] = (d, F)
    shapes["b_in"] = (F,)
    if config.gated:
        shapes["W_gate"] = (d, F)
        shapes["b_gate"] = (F,)
    shapes["W_out"] = (F, out)
    shapes["b_out"] = (out,)
    if config.has_norm:
        shapes["ln2.w"] = (config.ln2_width,)
        if config.norm == "layernorm":
            shapes["ln2.b"] = (config.ln2_width,)
    return shapes


def numbers_needed(config: BlockConfig, T: int, targets: bool = False) -> int:
    """How many numbers a block on T tokens holds: inputs, weights, targets and every hook of
    its trace. A file is refused when this exceeds MAX_NUMBERS, so that a small file cannot
    ask for a trace of gigabytes (64 heads on 4096 tokens is 2 × 10⁹ attention scores)."""
    d, F, out = config.d_model, config.d_ff, config.output_width
    stored = T * d + sum(_product(shape) for shape in weight_shapes(config).values()) + (T * out if targets else 0)
    trace = 2 * T * d + 2 * T * out + 3 * T * F            # resid_pre/mid, mlp_out/resid_post, pre/gate/post
    if config.ffn_clamp is not None:
        trace += 2 * T * F                                  # pre and gate after the clamp
    if config.has_norm:
        trace += 2 * (3 * T * max(d, out) + T)             # two norms: in, normalized, out, scale
    if config.attention:
        H, dh = config.n_heads, config.d_head
        trace += H * T * (4 * dh + 2 * T + d) + T * d      # q k v z, scores and pattern, result; attn_out
        if config.qk_norm:
            trace += 2 * H * T * (1 + 2 * dh)               # q and k: scale, normalized, normed
        if config.attn_gate:
            trace += 3 * H * T * dh                         # gate, its sigmoid, gated z
        if config.positional == "rotary":
            trace += 2 * H * T * dh                        # rot_q, rot_k
    return stored + trace


def _product(shape: tuple[int, ...]) -> int:
    total = 1
    for n in shape:
        total *= n
    return total
