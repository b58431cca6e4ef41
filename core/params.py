"""Counting the parameters of whole decoder-only models, part by part."""
from __future__ import annotations

from dataclasses import dataclass, fields

FFN_KINDS = ("standard", "gated", "none")
NORM_KINDS = ("layernorm", "rmsnorm", "none")


@dataclass(frozen=True)
class ModelShape:
    n_layers: int
    d_model: int
    d_ff: int                     # hidden width of the FFN (ignored when ffn == "none")
    vocab: int
    ffn: str = "standard"         # "standard": W_in, W_out; "gated": W_gate, W_in, W_out; "none"
    norm: str = "layernorm"       # "layernorm" (gain and bias) | "rmsnorm" (gain only) | "none"
    bias: bool = True             # linear layers carry biases (GPT-2) or not (Llama-style)
    tied_embeddings: bool = True  # the unembedding reuses the token embedding
    n_positions: int = 0          # learned position embeddings (GPT-2: 1024); 0 for RoPE
    final_norm: bool = True       # one norm after the last layer
    # Attention's shape. n_heads = 0 keeps the classic square attention: Q, K, V, O each d × d.
    n_heads: int = 0              # query heads
    d_head: int = 0               # width of one head; 0 means d_model / n_heads
    n_kv_heads: int = 0           # key/value heads (grouped-query attention); 0 means n_heads
    qk_norm: bool = False         # RMSNorm gains on q and k, d_head each, shared by the heads (Qwen3)
    attn_gate: bool = False       # the output gate doubles q_proj: H·dh for q and H·dh for the gate

    def __post_init__(self) -> None:
        def whole(name: str, low: int) -> None:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name}: expected a whole number of at least {low}, got {value!r}")

        for name in ("n_layers", "d_model", "vocab"):
            whole(name, 1)
        for name in ("d_ff", "n_positions", "n_heads", "d_head", "n_kv_heads"):
            whole(name, 0)
        for name in ("bias", "tied_embeddings", "final_norm", "qk_norm", "attn_gate"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}: expected true or false, got {getattr(self, name)!r}")
        if self.ffn not in FFN_KINDS:
            raise ValueError(f"ffn: expected one of {', '.join(FFN_KINDS)}, got {self.ffn!r}")
        if self.norm not in NORM_KINDS:
            raise ValueError(f"norm: expected one of {', '.join(NORM_KINDS)}, got {self.norm!r}")
        if self.ffn != "none" and self.d_ff < 1:
            raise ValueError(f"d_ff: expected at least 1 with an FFN, got {self.d_ff}")
        if self.n_heads == 0:
            for name in ("d_head", "n_kv_heads"):
                if getattr(self, name):
                    raise ValueError(f"{name}: expected 0 when n_heads is 0 (square attention)")
            if self.qk_norm:
                raise ValueError("n_heads: expected at least 1 with qk_norm (its gains are d_head wide)")
        else:
            if not self.d_head and self.d_model % self.n_heads:
                raise ValueError(f"d_head: expected a width when d_model {self.d_model} is not a multiple "
                                 f"of n_heads {self.n_heads}")
            if self.n_kv_heads and self.n_heads % self.n_kv_heads:
                raise ValueError(f"n_kv_heads: expected a divisor of n_heads {self.n_heads}, got {self.n_kv_heads}")

    @property
    def head_width(self) -> int:
        """d_head as used: given, or d_model / n_heads (d_model for square attention)."""
        if self.n_heads == 0:
            return self.d_model
        return self.d_head or self.d_model // self.n_heads

    @property
    def q_width(self) -> int:
        """H·dh: the width of q (and of z, W_O's input)."""
        return self.d_model if self.n_heads == 0 else self.n_heads * self.head_width

    @property
    def kv_width(self) -> int:
        """H_kv·dh: the width of k and of v."""
        if self.n_heads == 0:
            return self.d_model
        return (self.n_kv_heads or self.n_heads) * self.head_width

    @property
    def q_proj_width(self) -> int:
        """q_proj's output: H·dh, twice that with the output gate (the seed's 12,288 = 2 × 6,144)."""
        return self.q_width * (2 if self.attn_gate else 1)


MODEL_SHAPE_FIELDS = tuple(f.name for f in fields(ModelShape))


def ffn_parameters(d_model: int, d_ff: int, ffn: str = "standard", bias: bool = True) -> int:
    """Parameters of one FFN sub-layer: 768 → 3,072 with biases gives 4,722,432."""
    if ffn == "none":
        return 0
    if ffn not in FFN_KINDS:
        raise ValueError(f"ffn: expected one of {', '.join(FFN_KINDS)}, got {ffn!r}")
    matrices = 3 if ffn == "gated" else 2
    weights = matrices * d_model * d_ff
    biases = ((matrices - 1) * d_ff + d_model) if bias else 0
    return weights + biases


def attention_parameters(shape: ModelShape) -> int:
    """Parameters of one attention sub-layer: q_proj d × q_proj_width, k_proj and v_proj
    d × kv_width, o_proj q_width × d (and their biases). Square attention: 4d² (+ 4d)."""
    d = shape.d_model
    weights = d * shape.q_proj_width + 2 * d * shape.kv_width + shape.q_width * d
    biases = shape.q_proj_width + 2 * shape.kv_width + d if shape.bias else 0
    return weights + biases


def norm_parameters(d_model: int, norm: str) -> int:
    return {"layernorm": 2 * d_model, "rmsnorm": d_model, "none": 0}[norm]


def count_parameters(shape: ModelShape) -> dict[str, int]:
    """Parameters by part (embeddings, attention, ffn, norms, unembedding) and their "total".

    A layer without an FFN also has no norm in front of one. QK-Norm's gains (2 × d_head a
    layer) are counted with the norms.
    """
    d = shape.d_model
    ffn = ffn_parameters(d, shape.d_ff, shape.ffn, shape.bias)
    norms_per_layer = (1 if shape.ffn == "none" else 2) * norm_parameters(d, shape.norm)
    if shape.qk_norm:
        norms_per_layer += 2 * shape.head_width
    parts = {
        "embeddings": shape.vocab * d + shape.n_positions * d,
        "attention": shape.n_layers * attention_parameters(shape),
        "ffn": shape.n_layers * ffn,
        "norms": shape.n_layers * norms_per_layer + (norm_parameters(d, shape.norm) if shape.final_norm else 0),
        "unembedding": 0 if shape.tied_embeddings else shape.vocab * d,
    }
    parts["total"] = sum(parts.values())
    return parts


def ffn_share(shape: ModelShape) -> float:
    """The FFN's fraction of all parameters (0 to 1)."""
    parts = count_parameters(shape)
    return parts["ffn"] / parts["total"]


def swiglu_width(d_model: int, multiple_of: int = 256) -> int:
    """The gated FFN width with the parameters of a 4d standard FFN: 2·d·4d = 3·d·F gives
    F = 8d/3. Llama's reference code takes int(8d/3) and rounds it up to a multiple of
    `multiple_of`: DeepSeek-LLM-67B's 8,192 → 22,016 (multiple 256); at lesson size (d = 4,
    multiple 1) int(10.67) = 10."""
    if isinstance(d_model, bool) or not isinstance(d_model, int) or d_model < 1:
        raise ValueError(f"d_model: expected a whole number of at least 1, got {d_model!r}")
    if isinstance(multiple_of, bool) or not isinstance(multiple_of, int) or multiple_of < 1:
        raise ValueError(f"multiple_of: expected a whole number of at least 1, got {multiple_of!r}")
    hidden = (8 * d_model) // 3                     # int(2 · 4d / 3), exactly, in integers
    return multiple_of * -(-hidden // multiple_of)      # rounded up, in integers


# Whole models the calculator starts from.
PROJECT_BASELINE = ModelShape(n_layers=4, d_model=256, d_ff=688, vocab=2048, ffn="gated", norm="rmsnorm",
                              bias=False, tied_embeddings=True)   # the course's own small model: 3,688,704
GPT2_SMALL = ModelShape(n_layers=12, d_model=768, d_ff=3072, vocab=50257, ffn="standard", norm="layernorm",
                        bias=True, tied_embeddings=True, n_positions=1024)  # 124,439,808
