"""How one number of a trace was computed: the formula, its terms' current values, the result.

The GUI's inspector prints an Explanation; it lives here so that it is tested without Qt.
Formulas use math symbols only, so they read the same in Chinese and English; `kind` names
the step so a view can add a translated sentence.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .block import Trace, Weights
from .config import BlockConfig
from .functions import ACTIVATION_FORMULAS

MAX_SHOWN_TERMS = 12   # a longer dot product is shown with its first terms and "…"


@dataclass(frozen=True)
class Term:
    symbol: str
    value: float


@dataclass(frozen=True)
class Explanation:
    hook: str
    index: tuple[int, ...]
    kind: str            # "input", "copy", "sum", "dot", "norm", "norm_scale", "normalized",
                         # "score", "masked", "softmax", "activation", "gated_activation"
    formula: str         # the rule in symbols, e.g. "z = (s − μ)/√(σ² + ε)·γ + β"
    substituted: str     # the same with the current numbers put in, ending "= value"
    terms: tuple[Term, ...]
    value: float

    def text(self) -> str:
        lines = [self.formula]
        lines += [f"  {term.symbol} = {term.value:g}" if term.symbol == "ε" else f"  {term.symbol} = {fmt(term.value)}"
                  for term in self.terms]
        lines.append(self.substituted)
        return "\n".join(lines)


def fmt(value: float, decimals: int = 6) -> str:
    """A number as the inspector shows it; −∞ for masked scores."""
    if np.isneginf(value):
        return "-∞"
    text = f"{value:.{decimals}f}"
    return "0." + "0" * decimals if text == "-0." + "0" * decimals else text


def _paren(value: float) -> str:
    text = fmt(value)
    return f"({text})" if text.startswith("-") else text


def _dot(left: np.ndarray, right: np.ndarray, bias: float | None) -> str:
    products = [f"{_paren(a)}·{_paren(b)}" for a, b in zip(left, right)]
    if len(products) > MAX_SHOWN_TERMS:
        products = products[:MAX_SHOWN_TERMS] + [f"… ({len(left)} terms)"]
    text = " + ".join(products)
    return text if bias is None else f"{text} + {_paren(bias)}"


def explain(config: BlockConfig, weights: Weights, trace: Trace, hook: str,
            index: tuple[int, ...]) -> Explanation:
    """Explain trace[hook][index]. Raises KeyError for an absent hook, IndexError for a bad index."""
    array = trace[hook]
    index = tuple(int(i) for i in index)
    if len(index) != array.ndim:
        raise IndexError(f"{hook} has {array.ndim} axes, got an index of {len(index)}")
    value = float(array[index])
    w = {name: np.asarray(v, dtype=np.float64) for name, v in weights.items()}
    pre_norm, post_norm = config.pre_norm, config.post_norm

    def make(kind: str, formula: str, substituted: str, terms: list[Term]) -> Explanation:
        return Explanation(hook, index, kind, formula, f"{substituted} = {fmt(value)}", tuple(terms), value)

    def attn_in() -> np.ndarray:
        return trace["ln1.hook_out"] if pre_norm else trace["hook_resid_pre"]

    def mlp_in() -> np.ndarray:
        return trace["ln2.hook_out"] if pre_norm else trace["hook_resid_mid"]

    def residual_sum(prefix: str, i: int, j: int) -> Explanation:
        """The value entering a post-norm (or the un-normed output): stream + sub-layer."""
        stream, sub, names = (("hook_resid_pre", "hook_attn_out", ("x", "a")) if prefix == "ln1"
                              else ("hook_resid_mid", "hook_mlp_out", ("m", "f")))
        if not config.residual:
            b = float(trace[sub][i, j])
            return make("copy", f"s = {names[1]}", fmt(b), [Term(names[1], b)])
        a, b = float(trace[stream][i, j]), float(trace[sub][i, j])
        return make("sum", f"s = {names[0]} + {names[1]}", f"{_paren(a)} + {_paren(b)}",
                    [Term(names[0], a), Term(names[1], b)])

    def norm_terms(prefix: str, i: int) -> list[Term]:
        s = trace[f"{prefix}.hook_in"][i]
        if config.norm == "layernorm":
            mean = float(np.mean(s))
            return [Term("μ", mean), Term("σ²", float(np.mean((s - mean) ** 2))), Term("ε", config.eps)]
        return [Term("mean(s²)", float(np.mean(s * s))), Term("ε", config.eps)]

    def norm_out(prefix: str, i: int, j: int) -> Explanation:
        s = float(trace[f"{prefix}.hook_in"][i, j])
        terms = [Term("s", s)]
        sum_parts = residual_sum(prefix, i, j) if post_norm else None
        if sum_parts is not None and sum_parts.kind == "sum":
            terms = list(sum_parts.terms) + terms
        terms += norm_terms(prefix, i)
        gamma = float(w[f"{prefix}.w"][j])
        terms.append(Term("γ", gamma))
        scale = float(trace[f"{prefix}.hook_scale"][i, 0])
        if config.norm == "layernorm":
            beta = float(w[f"{prefix}.b"][j])
            terms.append(Term("β", beta))
            mean, var = terms[-5].value, terms[-4].value
            formula = "z = (s − μ)/√(σ² + ε)·γ + β"
            if sum_parts is not None and sum_parts.kind == "sum":
                formula = f"{sum_parts.formula};  {formula}"
            sub = (f"({_paren(s)} − {_paren(mean)})/√({fmt(var)} + {config.eps:g})·{_paren(gamma)}"
                   f" + {_paren(beta)}")
        else:
            formula = "z = s/√(mean(s²) + ε)·γ"
            if sum_parts is not None and sum_parts.kind == "sum":
                formula = f"{sum_parts.formula};  {formula}"
            sub = f"{_paren(s)}/{fmt(scale)}·{_paren(gamma)}"
        return make("norm", formula, sub, terms)

    # --- the hooks, in the order they are computed -------------------------------------
    if hook == "hook_resid_pre":
        return make("input", "x = block input", fmt(value), [])

    if hook.startswith(("ln1.", "ln2.")):
        prefix, part = hook.split(".", 1)
        i = index[0]
        if part == "hook_in":
            if post_norm:
                return residual_sum(prefix, *index)
            source = "x" if prefix == "ln1" else "m"
            return make("copy", f"s = {source}", fmt(value), [Term(source, value)])
        if part == "hook_scale":
            terms = norm_terms(prefix, i)
            if config.norm == "layernorm":
                return make("norm_scale", "√(σ² + ε)", f"√({fmt(terms[1].value)} + {config.eps:g})", terms)
            return make("norm_scale", "√(mean(s²) + ε)", f"√({fmt(terms[0].value)} + {config.eps:g})", terms)
        if part == "hook_normalized":
            s = float(trace[f"{prefix}.hook_in"][index])
            scale = float(trace[f"{prefix}.hook_scale"][i, 0])
            terms = [Term("s", s)] + norm_terms(prefix, i)
            if config.norm == "layernorm":
                return make("normalized", "n = (s − μ)/√(σ² + ε)",
                            f"({_paren(s)} − {_paren(terms[1].value)})/{fmt(scale)}", terms)
            return make("normalized", "n = s/√(mean(s²) + ε)", f"{_paren(s)}/{fmt(scale)}", terms)
        return norm_out(prefix, *index)

    if hook in ("attn.hook_q", "attn.hook_k", "attn.hook_v"):
        h, i, c = index
        letter = hook[-1].upper()
        row = attn_in()[i]
        column = w[f"W_{letter}"][h][:, c]
        bias = float(w[f"b_{letter}"][h][c])
        source = "LN1(x)" if pre_norm else "x"
        return make("dot", f"{letter.lower()} = Σₖ {source}ₖ·W_{letter}[k] + b_{letter}",
                    _dot(row, column, bias), [Term("b", bias)])

    if hook in ("attn.hook_rot_q", "attn.hook_rot_k"):
        h, i, c = index
        letter = hook[-1]
        source = trace[f"attn.hook_{letter}"][h, i]
        half = config.d_head // 2
        pair = c % half
        p = i + getattr(trace, "position_offset", 0)
        angle = p * config.rotary_base ** (-2.0 * pair / config.d_head)
        a, b = float(source[pair]), float(source[pair + half])
        cos, sin = float(np.cos(angle)), float(np.sin(angle))
        terms = [Term(f"{letter}[{pair}]", a), Term(f"{letter}[{pair + half}]", b), Term("p", float(p)),
                 Term("p·θ", angle)]
        if c < half:
            return make("rotary", f"{letter}' = {letter}[{pair}]·cos(pθ) − {letter}[{pair + half}]·sin(pθ), "
                        f"θ = {config.rotary_base:g}^(−2·{pair}/{config.d_head})",
                        f"{_paren(a)}·{fmt(cos)} − {_paren(b)}·{fmt(sin)}", terms)
        return make("rotary", f"{letter}' = {letter}[{pair + half}]·cos(pθ) + {letter}[{pair}]·sin(pθ), "
                    f"θ = {config.rotary_base:g}^(−2·{pair}/{config.d_head})",
                    f"{_paren(b)}·{fmt(cos)} + {_paren(a)}·{fmt(sin)}", terms)

    if hook == "attn.hook_attn_scores":
        h, i, j = index
        if np.isneginf(value):
            return make("masked", "causal mask: a token cannot read later tokens (j > i) → −∞", "−∞", [])
        dh = config.d_head
        if "attn.hook_rot_q" in trace:          # rotary: the scores use the rotated q and k
            q, k = trace["attn.hook_rot_q"][h, i], trace["attn.hook_rot_k"][h, j]
            return make("score", "score = q'·k'/√d_head (q, k rotated by their positions)",
                        f"({_dot(q, k, None)})/√{dh}",
                        [Term("q'·k'", float(q @ k)), Term("√d_head", float(np.sqrt(dh)))])
        q, k = trace["attn.hook_q"][h, i], trace["attn.hook_k"][h, j]
        return make("score", "score = q·k/√d_head", f"({_dot(q, k, None)})/√{dh}",
                    [Term("q·k", float(q @ k)), Term("√d_head", float(np.sqrt(dh)))])

    if hook == "attn.hook_pattern":
        h, i, j = index
        row = trace["attn.hook_attn_scores"][h, i]
        top = float(np.max(row))
        denominator = float(np.sum(np.exp(row - top)))
        s = float(row[j])
        if np.isneginf(s):
            return make("masked", "masked score → weight 0", "exp(−∞)", [])
        return make("softmax", "p = exp(s − max)/Σₖ exp(sₖ − max)",
                    f"exp({_paren(s)} − {_paren(top)})/{fmt(denominator)}",
                    [Term("s", s), Term("max", top), Term("Σₖ exp(sₖ − max)", denominator)])

    if hook == "attn.hook_z":
        h, i, c = index
        return make("dot", "z = Σⱼ pⱼ·vⱼ", _dot(trace["attn.hook_pattern"][h, i], trace["attn.hook_v"][h][:, c], None), [])

    if hook == "attn.hook_result":
        h, i, j = index
        return make("dot", "r = Σ_c z_c·W_O[c]", _dot(trace["attn.hook_z"][h, i], w["W_O"][h][:, j], None), [])

    if hook == "hook_attn_out":
        i, j = index
        parts = trace["attn.hook_result"][:, i, j]
        bias = float(w["b_O"][j])
        sub = " + ".join(_paren(p) for p in parts) + f" + {_paren(bias)}"
        return make("sum", "a = Σ_h r_h + b_O", sub,
                    [Term(f"r_{h}", float(p)) for h, p in enumerate(parts)] + [Term("b_O", bias)])

    if hook == "hook_resid_mid":
        i, j = index
        if not config.attention:
            return make("copy", "m = x (no attention)", fmt(value), [])
        if post_norm:
            return norm_out("ln1", i, j)
        return residual_sum("ln1", i, j)

    if hook in ("mlp.hook_pre", "mlp.hook_gate"):
        i, u = index
        name = "in" if hook == "mlp.hook_pre" else "gate"
        bias = float(w[f"b_{name}"][u])
        source = "LN2(m)" if pre_norm else "m"
        return make("dot", f"{'pre' if name == 'in' else 'gate'} = Σₖ {source}ₖ·W_{name}[k] + b_{name}",
                    _dot(mlp_in()[i], w[f"W_{name}"][:, u], bias), [Term(f"b_{name}", bias)])

    if hook == "mlp.hook_post":
        i, u = index
        act = config.activation
        pre = float(trace["mlp.hook_pre"][i, u])
        if config.gated:
            gate = float(trace["mlp.hook_gate"][i, u])
            return make("gated_activation", f"h = act(gate)·pre,  act(x) = {ACTIVATION_FORMULAS[act]}",
                        f"{act}({fmt(gate)})·{_paren(pre)}", [Term("gate", gate), Term("pre", pre)])
        return make("activation", f"h = {act}(pre),  {act}(x) = {ACTIVATION_FORMULAS[act]}",
                    f"{act}({fmt(pre)})", [Term("pre", pre)])

    if hook == "hook_mlp_out":
        i, j = index
        bias = float(w["b_out"][j])
        return make("dot", "f = Σᵤ hᵤ·W_out[u] + b_out",
                    _dot(trace["mlp.hook_post"][i], w["W_out"][:, j], bias), [Term("b_out", bias)])

    if hook == "hook_resid_post":
        i, j = index
        if post_norm:
            return norm_out("ln2", i, j)
        return residual_sum("ln2", i, j)

    raise KeyError(hook)
