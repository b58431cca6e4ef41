"""How one number of a trace was computed, as structure: what kind of step made it, the
rule in math symbols, its named terms with their current values, and the rule again with
the numbers put in.

No sentences here, in any language: the GUI's inspector words the `Step` and each term's
`name` through Qt's translation (app/explorer/inspector.py). Formulas hold math symbols
only (μ, σ², ε, γ, β, Σ, W_in, ReLU …), which read the same in Chinese and English.
Numbers are printed by core.numbers, like everywhere else.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from core.block import Trace, Weights
from core.config import BlockConfig
from core.functions import ACTIVATION_FORMULAS
from core.numbers import format_number, format_short, parenthesized

MAX_SHOWN_TERMS = 12   # a longer dot product is shown with its first terms and "…"

# How an activation is written inside a formula (no words: the same in every language).
# app/widgets/labels.py reads this table for its "symbol" form.
ACTIVATION_SYMBOLS = {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU", "silu": "SiLU", "identity": "id"}


class Step(str, Enum):
    """The kind of computation that made a number; the GUI has one sentence for each."""
    INPUT = "input"                          # a number of the scenario's inputs (x)
    COPY = "copy"                            # passed on unchanged
    NO_ATTENTION = "no_attention"            # attention is off: the stream goes on as it came in
    RESIDUAL_SUM = "residual_sum"            # stream + sub-layer output
    HEAD_SUM = "head_sum"                    # Σ over heads + b_O
    PROJECTION = "projection"                # Σ input·weight + bias
    WEIGHTED_SUM = "weighted_sum"            # Σ pattern·v
    HEAD_RESULT = "head_result"              # Σ z·W_O (no bias)
    LAYER_NORM = "layer_norm"                # (s − μ)/√(σ² + ε)·γ + β
    RMS_NORM = "rms_norm"                    # s/rms·γ
    LAYER_NORM_SCALE = "layer_norm_scale"    # √(σ² + ε)
    RMS_NORM_SCALE = "rms_norm_scale"        # √(Σ s²/d + ε)
    LAYER_NORMALIZED = "layer_normalized"    # (s − μ)/√(σ² + ε)
    RMS_NORMALIZED = "rms_normalized"        # s/rms
    ROTARY = "rotary"                        # a q or k pair rotated by position·θ
    SCORE = "score"                          # q·k/√d_head
    MASKED_SCORE = "masked_score"            # −∞: the causal mask hides a later token
    SOFTMAX = "softmax"                      # exp(s − max)/Σ exp(sₖ − max)
    MASKED_WEIGHT = "masked_weight"          # exp(−∞) = 0
    ACTIVATION = "activation"                # act(pre)
    GATED_ACTIVATION = "gated_activation"    # act(gate)·pre
    # The later generations' options (docs/hooks-extensions.md):
    QK_NORM_SCALE = "qk_norm_scale"          # QK-Norm: √(Σ_c q_c²/d_head + ε) of one head's q (or k) row
    QK_NORMALIZED = "qk_normalized"          # q/rms
    QK_NORM = "qk_norm"                      # q/rms·γ: what the scores use
    NORMED_SCORE = "normed_score"            # q′·k′/√d_head, from the QK-normed q and k
    OUTPUT_GATE = "output_gate"              # Σ x·W_G + b_G: the gate before its sigmoid
    GATE_SIGMOID = "gate_sigmoid"            # σ(g) = 1/(1 + exp(−g))
    GATED_Z = "gated_z"                      # σ(g)·z
    CLAMP_UP = "clamp_up"                    # clip(pre, −L, L)
    CLAMP_GATE = "clamp_gate"                # min(gate, L)
    CLAMPED_ACTIVATION = "clamped_activation"  # act(gate_c)·pre_c
    UNEXPLAINED = "unexplained"              # a hook this module does not know yet: its value only


@dataclass(frozen=True)
class Term:
    """One named quantity of a formula: `symbol` as written there, `name` an identifier the
    GUI words ("mean", "variance", "eps", "gain", "shift", "bias", …), its current value."""
    symbol: str
    value: float
    name: str


@dataclass(frozen=True)
class Explanation:
    hook: str
    index: tuple[int, ...]
    kind: Step
    formula: str         # the rule in symbols, e.g. "z = (s − μ)/√(σ² + ε)·γ + β"
    substituted: str     # the same with the current numbers put in, ending "= value"
    terms: tuple[Term, ...]
    value: float
    omitted: int = 0     # products of a long dot product written as "…" in `substituted`


def _paren(value: float) -> str:
    return parenthesized(value)


def _dot(left: np.ndarray, right: np.ndarray, bias: float | None) -> tuple[str, int]:
    """The products written out (the first MAX_SHOWN_TERMS, then "…"), and how many were left out.
    Only the shown products are formatted: a dot product over 3,072 units costs no more than one over 12."""
    count = min(len(left), len(right))
    omitted = max(0, count - MAX_SHOWN_TERMS)
    products = [f"{_paren(a)}·{_paren(b)}" for a, b in zip(left[:MAX_SHOWN_TERMS], right[:MAX_SHOWN_TERMS])]
    if omitted:
        products.append("…")
    text = " + ".join(products)
    return (text if bias is None else f"{text} + {_paren(bias)}"), omitted


def explain(config: BlockConfig, weights: Weights, trace: Trace, hook: str,
            index: tuple[int, ...]) -> Explanation:
    """Explain trace[hook][index]. Raises KeyError for an absent hook, IndexError for a bad index;
    a hook of the trace this module does not know yet is Step.UNEXPLAINED (its value only)."""
    array = trace[hook]
    index = tuple(int(i) for i in index)
    if len(index) != array.ndim:
        raise IndexError(f"{hook} has {array.ndim} axes, got an index of {len(index)}")
    value = float(array[index])
    w = {name: np.asarray(v, dtype=np.float64) for name, v in weights.items()}
    pre_norm, post_norm = config.pre_norm, config.post_norm
    layer_norm = config.norm == "layernorm"
    eps = format_short(config.eps)

    def make(kind: Step, formula: str, substituted: str | None, terms: list[Term], omitted: int = 0) -> Explanation:
        result = format_number(value)
        text = result if substituted is None or substituted == result else f"{substituted} = {result}"
        return Explanation(hook, index, kind, formula, text, tuple(terms), value, omitted)

    def dot(kind: Step, formula: str, left: np.ndarray, right: np.ndarray, bias: float | None,
            terms: list[Term]) -> Explanation:
        text, omitted = _dot(left, right, bias)
        return make(kind, formula, text, terms, omitted)

    def attn_in() -> np.ndarray:
        return trace["ln1.hook_out"] if pre_norm else trace["hook_resid_pre"]

    def mlp_in() -> np.ndarray:
        return trace["ln2.hook_out"] if pre_norm else trace["hook_resid_mid"]

    def residual_sum(prefix: str, i: int, j: int) -> Explanation:
        """The value entering a post-norm (or the un-normed output): stream + sub-layer."""
        stream, sub, names, meanings = (
            ("hook_resid_pre", "hook_attn_out", ("x", "a"), ("input", "attention_out")) if prefix == "ln1"
            else ("hook_resid_mid", "hook_mlp_out", ("m", "f"), ("mid", "mlp_out")))
        if not config.residual:
            b = float(trace[sub][i, j])
            return make(Step.COPY, f"s = {names[1]}", format_number(b), [Term(names[1], b, meanings[1])])
        a, b = float(trace[stream][i, j]), float(trace[sub][i, j])
        return make(Step.RESIDUAL_SUM, f"s = {names[0]} + {names[1]}", f"{_paren(a)} + {_paren(b)}",
                    [Term(names[0], a, meanings[0]), Term(names[1], b, meanings[1])])

    def norm_terms(prefix: str, i: int) -> list[Term]:
        s = trace[f"{prefix}.hook_in"][i]
        if layer_norm:
            mean = float(np.mean(s))
            return [Term("μ", mean, "mean"), Term("σ²", float(np.mean((s - mean) ** 2)), "variance"),
                    Term("ε", config.eps, "eps")]
        return [Term("Σⱼ sⱼ²/d", float(np.mean(s * s)), "mean_square"), Term("ε", config.eps, "eps")]

    def gain(name: str, j: int) -> tuple[Term, str, str]:
        """The gain a norm multiplies by: γ, or 1 + w for a zero-centred norm (w is stored)."""
        stored = float(w[name][j])
        if config.zero_centered:
            return Term("w", stored, "gain_offset"), "(1 + w)", f"(1 + {_paren(stored)})"
        return Term("γ", stored, "gain"), "γ", _paren(stored)

    def norm_out(prefix: str, i: int, j: int) -> Explanation:
        s = float(trace[f"{prefix}.hook_in"][i, j])
        terms = [Term("s", s, "norm_input")]
        sum_parts = residual_sum(prefix, i, j) if post_norm else None
        summed = sum_parts is not None and sum_parts.kind == Step.RESIDUAL_SUM
        if summed:
            terms = list(sum_parts.terms) + terms
        statistics = norm_terms(prefix, i)
        gain_term, gain_symbol, gain_text = gain(f"{prefix}.w", j)
        terms += statistics + [gain_term]
        scale = float(trace[f"{prefix}.hook_scale"][i, 0])
        if layer_norm:
            beta = float(w[f"{prefix}.b"][j])
            terms.append(Term("β", beta, "shift"))
            mean, var = statistics[0].value, statistics[1].value
            kind, formula = Step.LAYER_NORM, f"z = (s − μ)/√(σ² + ε)·{gain_symbol} + β"
            sub = f"({_paren(s)} − {_paren(mean)})/√({format_number(var)} + {eps})·{gain_text} + {_paren(beta)}"
        else:
            kind, formula = Step.RMS_NORM, f"z = s/√(Σⱼ sⱼ²/d + ε)·{gain_symbol}"
            sub = f"{_paren(s)}/{format_number(scale)}·{gain_text}"
        if summed:
            formula = f"{sum_parts.formula};  {formula}"
        return make(kind, formula, sub, terms)

    def qk(which: str, h: int, i: int) -> tuple[str, np.ndarray]:
        """What the scores read for q or k: the rotated, the QK-normed, or the raw projection."""
        for name, symbol in ((f"attn.hook_rot_{which}", f"{which}_r"), (f"attn.hook_{which}_normed", f"{which}′")):
            if name in trace:
                return symbol, trace[name][h, i]
        return which, trace[f"attn.hook_{which}"][h, i]

    # --- the hooks, in the order they are computed -------------------------------------
    if hook == "hook_resid_pre":
        return make(Step.INPUT, "x", None, [])

    if hook.startswith(("ln1.", "ln2.")):
        prefix, part = hook.split(".", 1)
        i = index[0]
        if part == "hook_in":
            if post_norm:
                return residual_sum(prefix, *index)
            source, meaning = ("x", "input") if prefix == "ln1" else ("m", "mid")
            return make(Step.COPY, f"s = {source}", None, [Term(source, value, meaning)])
        if part == "hook_scale":
            terms = norm_terms(prefix, i)
            if layer_norm:
                return make(Step.LAYER_NORM_SCALE, "√(σ² + ε)", f"√({format_number(terms[1].value)} + {eps})", terms)
            return make(Step.RMS_NORM_SCALE, "rms = √(Σⱼ sⱼ²/d + ε)", f"√({format_number(terms[0].value)} + {eps})",
                        terms)
        if part == "hook_normalized":
            s = float(trace[f"{prefix}.hook_in"][index])
            scale = float(trace[f"{prefix}.hook_scale"][i, 0])
            terms = [Term("s", s, "norm_input")] + norm_terms(prefix, i)
            if layer_norm:
                return make(Step.LAYER_NORMALIZED, "n = (s − μ)/√(σ² + ε)",
                            f"({_paren(s)} − {_paren(terms[1].value)})/{format_number(scale)}", terms)
            return make(Step.RMS_NORMALIZED, "n = s/√(Σⱼ sⱼ²/d + ε)", f"{_paren(s)}/{format_number(scale)}", terms)
        return norm_out(prefix, *index)

    if hook.startswith(("attn.hook_q_", "attn.hook_k_")):            # QK-Norm of q or k
        which, part = hook[len("attn.hook_")], hook[len("attn.hook_q_"):]
        h, i, c = index
        raw = trace[f"attn.hook_{which}"][h, i]
        ms = Term(f"Σ_c {which}_c²/d_head", float(np.mean(raw * raw)), "mean_square")
        terms = [ms, Term("ε", config.eps, "eps")]
        root = f"√(Σ_c {which}_c²/d_head + ε)"
        if part == "scale":
            return make(Step.QK_NORM_SCALE, f"rms = {root}", f"√({format_number(ms.value)} + {eps})", terms)
        entry = float(raw[c])
        scale = float(trace[f"attn.hook_{which}_scale"][h, i, 0])
        terms = [Term(which, entry, f"raw_{which}")] + terms
        if part == "normalized":
            return make(Step.QK_NORMALIZED, f"n = {which}/{root}", f"{_paren(entry)}/{format_number(scale)}", terms)
        if part == "normed":
            gain_term, gain_symbol, gain_text = gain(f"{which}_norm.w", c)
            return make(Step.QK_NORM, f"{which}′ = {which}/{root}·{gain_symbol}",
                        f"{_paren(entry)}/{format_number(scale)}·{gain_text}", terms + [gain_term])

    if hook == "attn.hook_gate":
        h, i, c = index
        bias = float(w["b_G"][h][c])
        source = "LN1(x)" if pre_norm else "x"
        return dot(Step.OUTPUT_GATE, f"g = Σₖ {source}ₖ·W_G[k] + b_G", attn_in()[i], w["W_G"][h][:, c], bias,
                   [Term("b_G", bias, "bias")])

    if hook == "attn.hook_gate_sigmoid":
        g = float(trace["attn.hook_gate"][index])
        return make(Step.GATE_SIGMOID, "σ(g) = 1/(1 + exp(−g))", f"1/(1 + exp(−{_paren(g)}))",
                    [Term("g", g, "gate_logit")])

    if hook == "attn.hook_z_gated":
        opened, z = float(trace["attn.hook_gate_sigmoid"][index]), float(trace["attn.hook_z"][index])
        return make(Step.GATED_Z, "z_g = σ(g)·z", f"{format_number(opened)}·{_paren(z)}",
                    [Term("σ(g)", opened, "gate_open"), Term("z", z, "head_z")])

    if hook in ("attn.hook_q", "attn.hook_k", "attn.hook_v"):
        h, i, c = index
        letter = hook[-1].upper()
        bias = float(w[f"b_{letter}"][h][c])
        source = "LN1(x)" if pre_norm else "x"
        return dot(Step.PROJECTION, f"{letter.lower()} = Σₖ {source}ₖ·W_{letter}[k] + b_{letter}",
                   attn_in()[i], w[f"W_{letter}"][h][:, c], bias, [Term(f"b_{letter}", bias, "bias")])

    if hook in ("attn.hook_rot_q", "attn.hook_rot_k"):
        h, i, c = index
        letter = hook[-1]
        source_hook = f"attn.hook_{letter}_normed" if f"attn.hook_{letter}_normed" in trace else f"attn.hook_{letter}"
        source = trace[source_hook][h, i]
        half = config.d_head // 2
        pair = c % half
        position = i + trace.position_offset
        angle = position * config.rotary_base ** (-2.0 * pair / config.d_head)
        a, b = float(source[pair]), float(source[pair + half])
        cos, sin = float(np.cos(angle)), float(np.sin(angle))
        terms = [Term(f"{letter}[{pair}]", a, "rotary_first"), Term(f"{letter}[{pair + half}]", b, "rotary_second"),
                 Term("p", float(position), "position"), Term("p·θ", angle, "angle")]
        theta = f"θ = {format_short(config.rotary_base)}^(−2·{pair}/{config.d_head})"
        if c < half:
            return make(Step.ROTARY, f"{letter}_r = {letter}[{pair}]·cos(pθ) − {letter}[{pair + half}]·sin(pθ), {theta}",
                        f"{_paren(a)}·{_paren(cos)} − {_paren(b)}·{_paren(sin)}", terms)
        return make(Step.ROTARY, f"{letter}_r = {letter}[{pair + half}]·cos(pθ) + {letter}[{pair}]·sin(pθ), {theta}",
                    f"{_paren(b)}·{_paren(cos)} + {_paren(a)}·{_paren(sin)}", terms)

    if hook == "attn.hook_attn_scores":
        h, i, j = index
        if np.isneginf(value):
            return make(Step.MASKED_SCORE, "s = −∞  (j > i)", None, [])
        (q_symbol, q), (k_symbol, k) = qk("q", h, i), qk("k", h, j)
        dh = config.d_head
        text, omitted = _dot(q, k, None)
        kind = Step.NORMED_SCORE if q_symbol == "q′" else Step.SCORE
        return make(kind, f"s = {q_symbol}·{k_symbol}/√d_head", f"({text})/√{dh}",
                    [Term(f"{q_symbol}·{k_symbol}", float(q @ k), "dot"),
                     Term("√d_head", float(np.sqrt(dh)), "sqrt_d_head")], omitted)

    if hook == "attn.hook_pattern":
        h, i, j = index
        row = trace["attn.hook_attn_scores"][h, i]
        top = float(np.max(row))
        denominator = float(np.sum(np.exp(row - top)))
        s = float(row[j])
        terms = [Term("s", s, "score"), Term("max", top, "row_max"),
                 Term("Σₖ exp(sₖ − max)", denominator, "denominator")]
        kind = Step.MASKED_WEIGHT if np.isneginf(s) else Step.SOFTMAX
        return make(kind, "p = exp(s − max)/Σₖ exp(sₖ − max)",
                    f"exp({_paren(s)} − {_paren(top)})/{format_number(denominator)}", terms)

    if hook == "attn.hook_z":
        h, i, c = index
        return dot(Step.WEIGHTED_SUM, "z = Σⱼ pⱼ·vⱼ", trace["attn.hook_pattern"][h, i], trace["attn.hook_v"][h][:, c],
                   None, [])

    if hook == "attn.hook_result":
        h, i, j = index
        if "attn.hook_z_gated" in trace:           # the output gate: W_O reads σ(g)·z
            return dot(Step.HEAD_RESULT, "r = Σ_c z_g,c·W_O[c]", trace["attn.hook_z_gated"][h, i], w["W_O"][h][:, j],
                       None, [])
        return dot(Step.HEAD_RESULT, "r = Σ_c z_c·W_O[c]", trace["attn.hook_z"][h, i], w["W_O"][h][:, j], None, [])

    if hook == "hook_attn_out":
        i, j = index
        parts = trace["attn.hook_result"][:, i, j]
        bias = float(w["b_O"][j])
        sub = " + ".join(_paren(p) for p in parts) + f" + {_paren(bias)}"
        return make(Step.HEAD_SUM, "a = Σ_h r_h + b_O", sub,
                    [Term(f"r_{h}", float(p), "head_result") for h, p in enumerate(parts)] + [Term("b_O", bias, "bias")])

    if hook == "hook_resid_mid":
        i, j = index
        if not config.attention:
            return make(Step.NO_ATTENTION, "m = x", None, [])
        if post_norm:
            return norm_out("ln1", i, j)
        return residual_sum("ln1", i, j)

    if hook in ("mlp.hook_pre", "mlp.hook_gate"):
        i, u = index
        name = "in" if hook == "mlp.hook_pre" else "gate"
        bias = float(w[f"b_{name}"][u])
        source = "LN2(m)" if pre_norm else "m"
        return dot(Step.PROJECTION, f"{'pre' if name == 'in' else 'gate'} = Σₖ {source}ₖ·W_{name}[k] + b_{name}",
                   mlp_in()[i], w[f"W_{name}"][:, u], bias, [Term(f"b_{name}", bias, "bias")])

    if hook in ("mlp.hook_pre_clamped", "mlp.hook_gate_clamped"):
        limit = float(config.ffn_clamp)
        bound = format_number(limit, trim=True)
        if hook == "mlp.hook_pre_clamped":
            pre = float(trace["mlp.hook_pre"][index])
            return make(Step.CLAMP_UP, "pre_c = clip(pre, −L, L)",
                        f"clip({format_number(pre)}, {format_number(-limit, trim=True)}, {bound})",
                        [Term("pre", pre, "pre"), Term("L", limit, "limit")])
        gate = float(trace["mlp.hook_gate"][index])
        return make(Step.CLAMP_GATE, "gate_c = min(gate, L)", f"min({format_number(gate)}, {bound})",
                    [Term("gate", gate, "gate"), Term("L", limit, "limit")])

    if hook == "mlp.hook_post":
        i, u = index
        act = ACTIVATION_SYMBOLS[config.activation]
        curve = ACTIVATION_FORMULAS[config.activation]
        pre = float(trace["mlp.hook_pre"][i, u])
        if config.gated and "mlp.hook_gate_clamped" in trace:      # clamped SwiGLU: the clipped values
            gate, pre = float(trace["mlp.hook_gate_clamped"][i, u]), float(trace["mlp.hook_pre_clamped"][i, u])
            return make(Step.CLAMPED_ACTIVATION, f"h = {act}(gate_c)·pre_c,  {act}(x) = {curve}",
                        f"{act}({format_number(gate)})·{_paren(pre)}",
                        [Term("gate_c", gate, "gate_clamped"), Term("pre_c", pre, "pre_clamped")])
        if config.gated:
            gate = float(trace["mlp.hook_gate"][i, u])
            return make(Step.GATED_ACTIVATION, f"h = {act}(gate)·pre,  {act}(x) = {curve}",
                        f"{act}({format_number(gate)})·{_paren(pre)}",
                        [Term("gate", gate, "gate"), Term("pre", pre, "pre")])
        return make(Step.ACTIVATION, f"h = {act}(pre),  {act}(x) = {curve}", f"{act}({format_number(pre)})",
                    [Term("pre", pre, "pre")])

    if hook == "hook_mlp_out":
        i, j = index
        bias = float(w["b_out"][j])
        return dot(Step.PROJECTION, "f = Σᵤ hᵤ·W_out[u] + b_out", trace["mlp.hook_post"][i], w["W_out"][:, j], bias,
                   [Term("b_out", bias, "bias")])

    if hook == "hook_resid_post":
        i, j = index
        if post_norm:
            return norm_out("ln2", i, j)
        return residual_sum("ln2", i, j)

    # A hook of the trace this module was not written for (rotary positions, on another branch):
    # its value, honestly unexplained, rather than an error.
    return make(Step.UNEXPLAINED, hook.split(".")[-1], None, [])
