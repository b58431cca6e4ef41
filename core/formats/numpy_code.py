"""“Copy as NumPy code”: a short script, NumPy only, that rebuilds the current block and prints
its output.

The script needs nothing of Block Lab: its numbers (config, tokens, inputs, weights, targets)
are written into it with every digit (Python's repr of each float), or, for a big block, into
a sibling .npz file it loads. Its code is the block's forward pass as core/block.py computes it
— the same operations in the same order — written for this block's options only, so a learner
reads just the path their block takes. It prints `hook_resid_post`, one row per token, each
number exact (repr), and the MSE when the block has targets.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from core.config import BlockConfig
from core.formats.files import write_atomically
from core.formats.scenario import Scenario, stored_numbers

INLINE_LIMIT = 20_000        # more stored numbers than this go to a sibling .npz
OUTPUT_HEADER = "hook_resid_post"


def needs_arrays_file(scenario: Scenario) -> bool:
    return stored_numbers(scenario) > INLINE_LIMIT


def arrays_file_name(script: str | os.PathLike) -> str:
    """The .npz beside a script (never the name a scenario's own sidecar would take)."""
    return f"{Path(script).stem}-arrays.npz"


def script_arrays(scenario: Scenario) -> dict[str, np.ndarray]:
    """The arrays a script loads from its .npz: inputs, weights.<name>, targets."""
    arrays = {"inputs": scenario.inputs, **{f"weights.{name}": a for name, a in scenario.weights.items()}}
    if scenario.targets is not None:
        arrays["targets"] = scenario.targets
    return {key: np.ascontiguousarray(value, dtype=np.float64) for key, value in arrays.items()}


def write_numpy_script(scenario: Scenario, path: str | os.PathLike) -> list[Path]:
    """Write the script to `path` (and, for a big block, its .npz beside it), atomically.
    Returns the files written."""
    path = Path(path)
    if not needs_arrays_file(scenario):
        write_atomically(path, numpy_script(scenario))
        return [path]
    name = arrays_file_name(path)
    buffer = io.BytesIO()
    np.savez(buffer, **script_arrays(scenario))
    write_atomically(path.parent / name, buffer.getvalue())
    write_atomically(path, numpy_script(scenario, arrays_file=name))
    return [path, path.parent / name]


# --- the script's text ------------------------------------------------------------------

def _number(value: float) -> str:
    return repr(float(value))


def _literal(array: np.ndarray, indent: int = 0) -> str:
    """A nested list of `array` with every digit, one innermost row per line."""
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 1:
        return "[" + ", ".join(map(_number, array)) + "]"
    pad = " " * (indent + 4)
    rows = [pad + _literal(part, indent + 4) for part in array]
    return "[\n" + ",\n".join(rows) + "\n" + " " * indent + "]"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


_HELPERS = {
    "safe_divide": '''
def safe_divide(numerator, scale):
    """numerator / scale, and 0 where scale is 0 (a constant row with ε = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, numerator / np.where(scale > 0, scale, 1.0), 0.0)
''',
    "layernorm": '''
def norm_parts(x):
    """LayerNorm over the last axis: scale = √(variance + ε), normalized = (x − mean) / scale."""
    centered = x - np.mean(x, axis=-1, keepdims=True)
    variance = np.mean(centered * centered, axis=-1, keepdims=True)
    scale = np.sqrt(variance + EPS)
    return scale, safe_divide(centered, scale)
''',
    "rmsnorm": '''
def norm_parts(x):
    """RMSNorm over the last axis: scale = √(mean x² + ε), normalized = x / scale."""
    mean_square = np.mean(x * x, axis=-1, keepdims=True)
    scale = np.sqrt(mean_square + EPS)
    return scale, safe_divide(x, scale)
''',
    "rms_parts": '''
def rms_parts(x):
    """RMSNorm over the last axis (QK-Norm uses it on each head's q and k)."""
    mean_square = np.mean(x * x, axis=-1, keepdims=True)
    scale = np.sqrt(mean_square + EPS)
    return scale, safe_divide(x, scale)
''',
    "sigmoid": '''
def sigmoid(x):
    """σ(x) = 1 / (1 + e^(−x)), one number at a time."""
    def one(v):
        try:
            return 1.0 / (1.0 + math.exp(-v))
        except OverflowError:            # e^(−v) beyond any float: σ is 0
            return 0.0
    return np.vectorize(one, otypes=[float])(x)
''',
    "softmax": '''
def softmax(scores):
    """Softmax over the last axis; a −inf score gets weight 0."""
    top = np.max(scores, axis=-1, keepdims=True)
    shifted = np.exp(scores - top)
    return shifted / np.sum(shifted, axis=-1, keepdims=True)
''',
    "heads": '''
def heads(matrix, bias, x):
    """x·W[h] + b[h] for every head h: heads × tokens × d_head."""
    weight, offset = W[matrix], W[bias]
    out = np.empty((weight.shape[0], x.shape[0], weight.shape[2]))
    for h in range(weight.shape[0]):
        out[h] = x @ weight[h] + offset[h]
    return out
''',
}

_ACTIVATIONS = {
    "relu": ('''
def activation(x):
    """ReLU: max(0, x)."""
    return np.maximum(x, 0.0)
''', ()),
    "gelu": ('''
def activation(x):
    """GELU, exact: x·Φ(x), Φ the standard normal distribution function."""
    def phi(v):
        return 0.5 * math.erfc(-v / math.sqrt(2.0))
    return x * np.vectorize(phi, otypes=[float])(x)
''', ()),
    "gelu_tanh": ('''
def activation(x):
    """GELU, the tanh approximation (GPT-2)."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
''', ()),
    "silu": ('''
def activation(x):
    """SiLU: x·σ(x)."""
    return x * sigmoid(x)
''', ("sigmoid",)),
    "identity": ('''
def activation(x):
    """No activation: x itself."""
    return np.array(x, dtype=np.float64, copy=True)
''', ()),
}


def _norm_function(config: BlockConfig) -> str:
    gain = "(1.0 + W[name + \".w\"])" if config.zero_centered else "W[name + \".w\"]"
    bias = "\n    out = out + W[name + \".b\"]" if config.norm == "layernorm" else ""
    what = "1 + w (zero-centred)" if config.zero_centered else "w"
    return f'''
def norm(x, name):
    """The norm `name` (ln1 or ln2): normalize each row, then multiply by the gain {what}{', add b' if bias else ''}."""
    scale, normalized = norm_parts(x)
    out = normalized * {gain}{bias}
    return out
'''


def _attention_function(config: BlockConfig) -> str:
    lines = ['''
def attention(x):
    """Multi-head attention on x (tokens × d_model); returns hook_attn_out."""
    q = heads("W_Q", "b_Q", x)                     # attn.hook_q
    k = heads("W_K", "b_K", x)                     # attn.hook_k
    v = heads("W_V", "b_V", x)                     # attn.hook_v''']
    if config.qk_norm:
        q_gain, k_gain = (f"(1.0 + W[{name!r}])" if config.zero_centered else f"W[{name!r}]"
                          for name in ("q_norm.w", "k_norm.w"))
        lines.append(f"""    # QK-Norm: RMSNorm of each head's q and k over d_head, times a gain shared by every head
    q = rms_parts(q)[1] * {q_gain}               # attn.hook_q_normed
    k = rms_parts(k)[1] * {k_gain}               # attn.hook_k_normed""")
    mask = ("np.triu(np.ones((T, T), dtype=bool), k=1)      # causal: token i sees tokens 0 … i"
            if config.mask == "causal" else "np.zeros((T, T), dtype=bool)                 # full: every token sees all")
    lines.append(f'''    H, T, dh = q.shape
    blocked = {mask}
    pattern = np.empty((H, T, T))
    for h in range(H):
        scores = np.where(blocked, -np.inf, q[h] @ k[h].T / np.sqrt(dh))   # attn.hook_attn_scores
        pattern[h] = softmax(scores)                                       # attn.hook_pattern
    z = np.empty(v.shape)
    for h in range(H):
        z[h] = pattern[h] @ v[h]                   # attn.hook_z''')
    if config.attn_gate:
        lines.append('''    gate = heads("W_G", "b_G", x)                  # attn.hook_gate (output gate, before σ)
    z = z * sigmoid(gate)                          # attn.hook_z_gated''')
    lines.append('''    result = np.empty((H, T, D_MODEL))
    for h in range(H):
        result[h] = z[h] @ W["W_O"][h]             # attn.hook_result: each head's contribution
    return result.sum(axis=0) + W["b_O"]           # hook_attn_out
''')
    return "\n".join(lines)


def _mlp_lines(config: BlockConfig) -> list[str]:
    lines = ['    pre = mlp_in @ W["W_in"] + W["b_in"]           # mlp.hook_pre']
    if config.gated:
        lines.append('    gate = mlp_in @ W["W_gate"] + W["b_gate"]      # mlp.hook_gate')
        if config.ffn_clamp is not None:
            lines += ['    gate = np.minimum(gate, FFN_CLAMP)             # mlp.hook_gate_clamped: gate ≤ limit',
                      '    pre = np.clip(pre, -FFN_CLAMP, FFN_CLAMP)      # mlp.hook_pre_clamped: |pre| ≤ limit']
        lines.append('    hidden = activation(gate) * pre                # mlp.hook_post (gated)')
    else:
        lines.append('    hidden = activation(pre)                       # mlp.hook_post')
    lines.append('    mlp_out = hidden @ W["W_out"] + W["b_out"]     # hook_mlp_out')
    return lines


def _block_function(config: BlockConfig) -> str:
    pre, post = config.pre_norm, config.post_norm
    lines = ['', 'def block(inputs):',
             '    """The block\'s forward pass; returns hook_resid_post (tokens × d_out)."""',
             '    x = np.array(inputs, dtype=np.float64)         # hook_resid_pre']
    if config.attention:
        lines.append('    attn_out = attention(norm(x, "ln1"))          # pre-norm: ln1 at the entry' if pre
                     else '    attn_out = attention(x)                        # hook_attn_out')
        lines.append('    mid = x + attn_out                             # the residual sum' if config.residual
                     else '    mid = attn_out                                 # no residual')
        if post:
            lines.append('    mid = norm(mid, "ln1")                         # post-norm: ln1 after the sum')
    else:
        lines.append('    mid = x                                        # no attention sub-layer')
    lines.append('    # hook_resid_mid is mid; the FFN sub-layer follows')
    lines.append('    mlp_in = norm(mid, "ln2")                      # pre-norm: ln2 at the entry' if pre
                 else '    mlp_in = mid')
    lines += _mlp_lines(config)
    lines.append('    out = mid + mlp_out                            # the residual sum' if config.residual
                 else '    out = mlp_out                                  # no residual')
    if post:
        lines.append('    out = norm(out, "ln2")                         # post-norm: ln2 after the sum')
    lines.append('    return out')
    return "\n".join(lines) + "\n"


def _config_lines(config: BlockConfig) -> list[str]:
    lines = ["# The block's options (Block Lab's config):"]
    lines.append(f"#   d_model {config.d_model}, d_ff {config.d_ff}, d_out {config.output_width}"
                 + (f", {config.n_heads} heads × d_head {config.d_head}, {config.mask} mask" if config.attention
                    else ", no attention"))
    lines.append(f"#   norm {config.norm}" + (f" ({config.norm_placement}-norm)" if config.has_norm else "")
                 + f", residual {'on' if config.residual else 'off'}, activation {config.activation}"
                 + (", gated FFN" if config.gated else ""))
    extras = [name for name in ("zero_centered", "qk_norm", "attn_gate") if getattr(config, name)]
    if config.ffn_clamp is not None:
        extras.append(f"ffn_clamp {config.ffn_clamp!r}")
    if extras:
        lines.append("#   " + ", ".join(extras))
    lines.append(f"D_MODEL = {config.d_model}")
    lines.append(f"EPS = {float(config.eps)!r}")
    if config.ffn_clamp is not None:
        lines.append(f"FFN_CLAMP = {float(config.ffn_clamp)!r}")
    return lines


def _data_lines(scenario: Scenario, arrays_file: str | None) -> list[str]:
    config = scenario.config
    T = len(scenario.tokens)
    lines = [f"TOKENS = {list(scenario.tokens)!r}", ""]
    if arrays_file is not None:
        lines += [f"# The numbers are in {arrays_file}, beside this script (NumPy's .npz).",
                  f"arrays = np.load(Path(__file__).with_name({arrays_file!r}), allow_pickle=False)",
                  'inputs = arrays["inputs"]                          # hook_resid_pre',
                  'W = {key[len("weights."):]: arrays[key] for key in arrays.files if key.startswith("weights.")}']
        if scenario.targets is not None:
            lines.append('targets = arrays["targets"]')
        return lines
    lines.append(f"# hook_resid_pre: the block's input, {T} tokens × d_model {config.d_model}")
    lines.append(f"inputs = np.array({_literal(scenario.inputs)})")
    lines += ["", "# The weights, by Block Lab's names (shapes as in the app)", "W = {}"]
    for name, array in scenario.weights.items():
        shape = "×".join(map(str, np.shape(array)))
        lines.append(f"W[{name!r}] = np.array({_literal(array)})  # {shape}")
    if scenario.targets is not None:
        lines += ["", f"# targets: what the output is compared with (MSE), {T} × {config.output_width}",
                  f"targets = np.array({_literal(scenario.targets)})"]
    return lines


def numpy_script(scenario: Scenario, arrays_file: str | None = None) -> str:
    """The script's text. With `arrays_file` (a .npz name) the numbers are loaded from that file
    beside the script (`script_arrays` gives its contents); else they are written in."""
    config = scenario.config
    title = scenario.title.get("en") or scenario.title.get("zh") or "a block"
    parts = ['"""One Transformer block, rebuilt with NumPy alone by Block Lab: it computes what Block Lab',
             "computes and prints the block's output, hook_resid_post, one row per token, every number",
             'exact. Run it with Python 3 and NumPy."""',
             f"# The block: {_one_line(title)}"]
    needs_math = config.activation in ("gelu", "silu") or config.attn_gate
    parts += (["import math"] if needs_math else []) + (["from pathlib import Path"] if arrays_file else [])
    parts += ["", "import numpy as np", ""]
    parts += _config_lines(config)
    parts += _data_lines(scenario, arrays_file)
    helpers: list[str] = []
    if config.has_norm or config.qk_norm:
        helpers.append("safe_divide")
    if config.has_norm:
        helpers.append(config.norm)
    if config.qk_norm:
        helpers.append("rms_parts")
    activation, activation_needs = _ACTIVATIONS[config.activation]
    if config.attn_gate or "sigmoid" in activation_needs:
        helpers.append("sigmoid")
    if config.attention:
        helpers += ["softmax", "heads"]
    code = [_HELPERS[name] for name in helpers]
    if config.has_norm:
        code.append(_norm_function(config))
    code.append(activation)
    if config.attention:
        code.append(_attention_function(config))
    code.append(_block_function(config))
    parts.append("\n".join(code))
    parts += ["",
              "out = block(inputs)",
              f'print("{OUTPUT_HEADER}: the block\'s output, {len(scenario.tokens)} tokens × {config.output_width}")',
              "for row in out:",
              '    print(" ".join(repr(float(value)) for value in row))']
    if scenario.targets is not None:
        parts += ["difference = out - targets",
                  'print("MSE:", repr(float(np.mean(difference * difference))))']
    return "\n".join(parts) + "\n"


def parse_output(text: str) -> tuple[np.ndarray, float | None]:
    """Read back what a script printed: (hook_resid_post, MSE or None)."""
    lines = text.strip().splitlines()
    if not lines or not lines[0].startswith(OUTPUT_HEADER):
        raise ValueError("expected the script's output to start with hook_resid_post")
    rows, mse = [], None
    for line in lines[1:]:
        if line.startswith("MSE:"):
            mse = float(line.split(":", 1)[1])
        else:
            rows.append([float(cell) for cell in line.split()])
    return np.array(rows, dtype=np.float64), mse
