"""What each node of the block diagram is called, in the current language.

Titles are short (a node is as wide as its title): symbols where the course writes symbols
(Q, z·W_O, x + a, σ), words where it writes words, translated under "DataflowScene".
"""
from __future__ import annotations

from app.explorer.dataflow_plan import (A_GATE, A_GATE_SIGMOID, ATTN_OUT, GATE, GATE_CLAMPED, K, MID, MLP_OUT, OUT,
                                        PATTERN, POST, PRE, PRE_CLAMPED, Q, QK_NORM, RESULT, ROT_K, ROT_Q, SCORES, V,
                                        X, Z, Z_GATED)
from app.explorer.dataflow_style import tr
from app.widgets.labels import activation_label


def generic_title(hook: str) -> str:
    """A hook this diagram does not know: its own short name (attn.hook_foo → foo)."""
    name = hook.rsplit(".", 1)[-1]
    return name[len("hook_"):] if name.startswith("hook_") else name


def titles(config, hooks) -> dict[str, str]:
    """Every hook's title for this block (unknown hooks get their short name)."""
    post_norm, residual = config.post_norm, config.residual
    layer = config.norm == "layernorm"
    gain = "(1+w)" if getattr(config, "zero_centered", False) else "w"
    act = activation_label(config.activation, "symbol")
    named = {
        X: tr("input x"), Q: "Q", K: "K", V: "V",
        SCORES: tr("scores"), PATTERN: tr("pattern"), Z: "z", RESULT: "z·W_O", ATTN_OUT: tr("attn\nout"),
        PRE: "x·W_in", GATE: "x·W_gate", POST: act, MLP_OUT: "f = W_out",
        ROT_Q: tr("RoPE q"), ROT_K: tr("RoPE k"),
        A_GATE: "x·W_G", A_GATE_SIGMOID: "σ(gate)", Z_GATED: "z ⊙ σ",
        PRE_CLAMPED: tr("clip(pre)"), GATE_CLAMPED: tr("clip(gate)"),
    }
    for which in "qk":
        scale, normalized, normed = QK_NORM[which]
        named[scale] = f"rms {which}"
        named[normalized] = f"{which}/rms"
        named[normed] = f"{which}·{gain}"
    for number, prefix, summed in ((1, "ln1", "x + a"), (2, "ln2", "m + f")):
        name = f"LN{number}"
        named[f"{prefix}.hook_in"] = summed if post_norm and residual else tr("%1 in").replace("%1", name)
        named[f"{prefix}.hook_scale"] = "σ" if layer else "rms"
        named[f"{prefix}.hook_normalized"] = "(x−μ)/σ" if layer else "x/rms"
        named[f"{prefix}.hook_out"] = f"{name} (1+w)" if getattr(config, "zero_centered", False) else name
    if not config.attention or post_norm or not residual:
        named[MID] = tr("mid")
    else:
        named[MID] = "x + a"
    named[OUT] = tr("output") if post_norm or not residual else tr("output\nm + f")
    return {hook: named.get(hook) or generic_title(hook) for hook in hooks}
