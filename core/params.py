"""Counting the parameters of whole decoder-only models, part by part."""
from __future__ import annotations

from dataclasses import dataclass

FFN_KINDS = ("standard", "gated", "none")


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


def norm_parameters(d_model: int, norm: str) -> int:
    return {"layernorm": 2 * d_model, "rmsnorm": d_model, "none": 0}[norm]


def count_parameters(shape: ModelShape) -> dict[str, int]:
    """Parameters by part (embeddings, attention, ffn, norms, unembedding) and their "total".

    Attention is Q, K, V and O, each d_model × d_model. A layer without an FFN also has
    no norm in front of one.
    """
    d = shape.d_model
    attention = 4 * d * d + (4 * d if shape.bias else 0)
    ffn = ffn_parameters(d, shape.d_ff, shape.ffn, shape.bias)
    norms_per_layer = (1 if shape.ffn == "none" else 2) * norm_parameters(d, shape.norm)
    parts = {
        "embeddings": shape.vocab * d + shape.n_positions * d,
        "attention": shape.n_layers * attention,
        "ffn": shape.n_layers * ffn,
        "norms": shape.n_layers * norms_per_layer + (norm_parameters(d, shape.norm) if shape.final_norm else 0),
        "unembedding": 0 if shape.tied_embeddings else shape.vocab * d,
    }
    parts["total"] = sum(parts.values())
    return parts
