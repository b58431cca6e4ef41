"""Recomputing a trace after an edit: only what the edited tensors can change.

`recompute(config, weights, inputs, previous, changes)` returns the trace of (config, weights,
inputs) given `previous`, the trace of the same config and inputs with the tensors named in
`changes` as they were before. It agrees with `core.block.forward` to 1e-12 relative
(|a − b| ≤ 1e-12 · max(1, max |b|) per hook; tests/core/test_incremental.py checks it).

What an edit recomputes (everything else is the previous trace's array, shared):

- `W_in[:, j]`, `b_in[j]`, `W_gate[:, j]`, `b_gate[j]`: hidden unit j's column of mlp.hook_pre /
  hook_gate / hook_post, then hook_mlp_out by a rank-1 update (rank k for k units, up to F/4;
  more and the FFN is recomputed), then the residual sum and ln2 (post-norm).
- `W_out[:, c]`, `b_out[c]`: output column c of hook_mlp_out, then what follows.
- `W_Q/b_Q/W_K/b_K[h]`: head h's q or k, scores, pattern, z, result; `W_V/b_V[h]`: its v, z,
  result; `W_O[h]`: its result. Then hook_attn_out (Σ_h result + b_O, summed afresh), and
  everything after it (the whole FFN sub-layer: its input changes on every token).
- `ln1.w/b`, `ln2.w/b`: the norm's output (its scale and normalized value do not depend on
  them), then what follows.
- `inputs` (alone, without a weight edit at the same time): every hook in the rows that can see
  an edited row, and nothing else — the edited rows in a block without attention (it is
  position-wise), every row from the first edited one on under a causal mask (row i attends
  to rows ≤ i only). Under a full mask every row attends to the edited one: the full forward.
- `trace_after` (what the Session calls) reruns the full forward for a block under
  SMALL_WORK multiply-adds (lesson sizes: it is as fast, and bit-identical).
- A config change, and anything this module does not know (a config option it was not written
  for set away from its default, a weight or a hook it does not know): the full
  `core.block.forward`. New engine features therefore work, only not incrementally.

Rank-k updates of hook_mlp_out accumulate rounding (about one ulp per update); after
REFRESH_AFTER of them in a row the FFN's output product is recomputed in full.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import MISSING, fields

import numpy as np

from core.block import Trace, causal_mask, forward
from core.config import BlockConfig, weight_shapes
from core.functions import activate, norm_parts, quiet, softmax

INPUTS = "inputs"
REFRESH_AFTER = 1024          # rank updates of hook_mlp_out before its product is recomputed
# Below this many multiply-adds a full forward takes well under a millisecond: trace_after
# then simply reruns it, which keeps lesson-sized blocks bit-identical to core.block.forward
# (their printed numbers never depend on a last-bit rounding difference).
SMALL_WORK = 1_000_000

# What this module was written for. Anything else falls back to the full forward.
KNOWN_CONFIG = frozenset({"d_model", "d_ff", "n_heads", "d_head", "d_out", "attention", "mask", "residual",
                          "norm", "norm_placement", "eps", "activation", "gated"})
_HEAD_TENSORS = {"W_Q": "q", "b_Q": "q", "W_K": "k", "b_K": "k", "W_V": "v", "b_V": "v", "W_O": "o"}
_UNIT_TENSORS = {"W_in": 1, "b_in": 0, "W_gate": 1, "b_gate": 0}       # name -> axis of the hidden unit
_COLUMN_TENSORS = {"W_out": 1, "b_out": 0}                             # name -> axis of the output column
_NORM_TENSORS = {"ln1.w", "ln1.b", "ln2.w", "ln2.b"}
KNOWN_TENSORS = frozenset({*_HEAD_TENSORS, "b_O", *_UNIT_TENSORS, *_COLUMN_TENSORS, *_NORM_TENSORS})
_NORM_HOOKS = ("hook_in", "hook_scale", "hook_normalized", "hook_out")
_ATTENTION_HOOKS = ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores", "attn.hook_pattern",
                    "attn.hook_z", "attn.hook_result", "hook_attn_out")


class EditedTrace(Trace):
    """A Trace that also says what was recomputed.

    `recomputed`: the hooks whose arrays are new; every other hook is the very array of the
    previous trace (views may skip them). `full`: the whole forward ran. `updates`: rank
    updates of hook_mlp_out since its product was last computed in full."""

    def __init__(self, hooks: dict[str, np.ndarray], recomputed: Iterable[str], full: bool, updates: int = 0):
        super().__init__(hooks)
        self.recomputed = frozenset(recomputed)
        self.full = full
        self.updates = updates


# --- finding what changed -----------------------------------------------------------------

def find_changes(old_weights: Mapping[str, np.ndarray], old_inputs: np.ndarray,
                 new_weights: Mapping[str, np.ndarray], new_inputs: np.ndarray) -> dict[str, np.ndarray] | None:
    """Which cells differ: {tensor name or "inputs": boolean mask of the tensor's shape}, for
    the tensors that changed. A tensor that is the same object in both is not looked at (an
    edit shares every array it does not change). None when the names or shapes differ: that
    is not an edit but a new block."""
    if list(old_weights) != list(new_weights):
        return None
    changes: dict[str, np.ndarray] = {}
    pairs = [(INPUTS, old_inputs, new_inputs), *((name, old_weights[name], new_weights[name]) for name in new_weights)]
    for name, old, new in pairs:
        if old is new:
            continue
        if np.shape(old) != np.shape(new):
            return None
        differs = np.asarray(old) != np.asarray(new)
        if differs.any():
            changes[name] = differs
    return changes


def _mask(cells: object, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean mask from a mask, a list of index tuples, or None (every cell)."""
    if cells is None:
        return np.ones(shape, dtype=bool)
    if isinstance(cells, np.ndarray) and cells.dtype == bool:
        if cells.shape != shape:
            raise ValueError(f"changes: a mask of shape {cells.shape} for a tensor of shape {shape}")
        return cells
    mask = np.zeros(shape, dtype=bool)
    for index in cells:
        mask[tuple(int(i) for i in np.atleast_1d(index))] = True
    return mask


def _indices(masks: Mapping[str, np.ndarray], axes: Mapping[str, int]) -> np.ndarray:
    """The sorted indices along each named tensor's axis with any changed cell, together."""
    found = [_along(masks[name], axis) for name, axis in axes.items() if name in masks]
    return np.unique(np.concatenate(found)) if found else np.empty(0, dtype=np.intp)


def _along(mask: np.ndarray, axis: int) -> np.ndarray:
    """The indices along `axis` with any changed cell."""
    other = tuple(a for a in range(mask.ndim) if a != axis)
    return np.flatnonzero(mask.any(axis=other) if other else mask)


# --- what this module can do ----------------------------------------------------------------

def expected_hooks(config: BlockConfig) -> list[str]:
    """The hooks a trace of `config` has, as this module knows the block."""
    hooks = ["hook_resid_pre"]
    if config.attention:
        if config.has_norm:
            hooks += [f"ln1.{part}" for part in _NORM_HOOKS]
        hooks += list(_ATTENTION_HOOKS)
    hooks.append("hook_resid_mid")
    if config.has_norm:
        hooks += [f"ln2.{part}" for part in _NORM_HOOKS]
    hooks += ["mlp.hook_pre", *(["mlp.hook_gate"] if config.gated else []), "mlp.hook_post", "hook_mlp_out",
              "hook_resid_post"]
    return hooks


def supports(config: BlockConfig) -> bool:
    """True if every config option is one this module knows, or is left at its default
    (a feature added to the engine later is off then, and the block is the one known here)."""
    for option in fields(config):
        if option.name in KNOWN_CONFIG:
            continue
        if option.default is not MISSING:
            default = option.default
        elif option.default_factory is not MISSING:  # type: ignore[misc]
            default = option.default_factory()      # type: ignore[misc]
        else:
            return False
        if getattr(config, option.name) != default:
            return False
    return True


def _can_update(config: BlockConfig, weights: Mapping[str, np.ndarray], inputs: np.ndarray,
                previous: Trace, names: Iterable[str], edited_rows: np.ndarray | None = None) -> bool:
    """Whether `previous` can be updated for an edit of `names`; `edited_rows`: input rows that
    may differ from the previous trace's (every other row must be the same)."""
    names = set(names)
    if not supports(config) or not names <= KNOWN_TENSORS or not names <= set(weights):
        return False
    if set(weights) != set(weight_shapes(config)) or not set(weights) <= KNOWN_TENSORS:
        return False
    if list(previous) != expected_hooks(config):
        return False
    T = np.shape(inputs)[0]
    resid_pre = previous["hook_resid_pre"]
    if not (resid_pre.shape == np.shape(inputs) and previous["mlp.hook_pre"].shape == (T, config.d_ff)
            and previous["hook_mlp_out"].shape == (T, config.output_width)):
        return False
    if edited_rows is None:
        return np.array_equal(resid_pre, inputs)
    kept = np.ones(T, dtype=bool)
    kept[edited_rows] = False
    return np.array_equal(resid_pre[kept], np.asarray(inputs)[kept])


# --- the pieces of the block, written as core.block writes them -----------------------------

def _norm(hooks: dict, prefix: str, config: BlockConfig, weights: Mapping, x: np.ndarray) -> np.ndarray:
    scale, normalized = norm_parts(config.norm, x, config.eps)
    hooks[f"{prefix}.hook_in"] = x
    hooks[f"{prefix}.hook_scale"] = scale
    hooks[f"{prefix}.hook_normalized"] = normalized
    return _norm_out(hooks, prefix, config, weights, normalized)


def _norm_out(hooks: dict, prefix: str, config: BlockConfig, weights: Mapping, normalized: np.ndarray) -> np.ndarray:
    out = normalized * weights[f"{prefix}.w"]
    if config.norm == "layernorm":
        out = out + weights[f"{prefix}.b"]
    hooks[f"{prefix}.hook_out"] = out
    return out


def _heads(hooks: dict, old: Trace, config: BlockConfig, weights: Mapping, x: np.ndarray,
           parts: dict[int, set[str]]) -> None:
    """Recompute the named parts ("q", "k", "v", "o") of some heads; other heads are copied."""
    dh = config.d_head
    every = old is None
    names = {"q": "attn.hook_q", "k": "attn.hook_k", "v": "attn.hook_v", "s": "attn.hook_attn_scores",
             "p": "attn.hook_pattern", "z": "attn.hook_z", "r": "attn.hook_result"}
    needed = {"r"}
    for wanted in parts.values():
        needed |= wanted & {"q", "k", "v"}
        if wanted & {"q", "k"}:
            needed |= {"s", "p"}
        if wanted & {"q", "k", "v"}:
            needed.add("z")
    T = x.shape[0]
    shapes = {"q": (T, dh), "k": (T, dh), "v": (T, dh), "s": (T, T), "p": (T, T), "z": (T, dh), "r": (T, config.d_model)}
    arrays = {}
    for key in needed:
        if every:
            arrays[key] = np.empty((config.n_heads, *shapes[key]))
        else:
            arrays[key] = np.array(old[names[key]])          # a writable copy
    current = {key: arrays.get(key, None if every else old[names[key]]) for key in names}
    blocked = causal_mask(T) if config.mask == "causal" else np.zeros((T, T), dtype=bool)
    for h, wanted in sorted(parts.items()):
        q, k, v = current["q"], current["k"], current["v"]
        if "q" in wanted:
            q[h] = x @ weights["W_Q"][h] + weights["b_Q"][h]
        if "k" in wanted:
            k[h] = x @ weights["W_K"][h] + weights["b_K"][h]
        if "v" in wanted:
            v[h] = x @ weights["W_V"][h] + weights["b_V"][h]
        if wanted & {"q", "k"}:
            current["s"][h] = np.where(blocked, -np.inf, q[h] @ k[h].T / np.sqrt(dh))
            current["p"][h] = softmax(current["s"][h])
        if wanted & {"q", "k", "v"}:
            current["z"][h] = current["p"][h] @ v[h]
        current["r"][h] = current["z"][h] @ weights["W_O"][h]
    for key, array in arrays.items():
        hooks[names[key]] = array


def _mlp(hooks: dict, config: BlockConfig, weights: Mapping, x: np.ndarray) -> np.ndarray:
    pre = x @ weights["W_in"] + weights["b_in"]
    hooks["mlp.hook_pre"] = pre
    if config.gated:
        gate = x @ weights["W_gate"] + weights["b_gate"]
        hooks["mlp.hook_gate"] = gate
        hidden = activate(config.activation, gate) * pre
    else:
        hidden = activate(config.activation, pre)
    hooks["mlp.hook_post"] = hidden
    return _mlp_out(hooks, weights, hidden)


def _mlp_out(hooks: dict, weights: Mapping, hidden: np.ndarray) -> np.ndarray:
    mlp_out = hidden @ weights["W_out"] + weights["b_out"]
    hooks["hook_mlp_out"] = mlp_out
    return mlp_out


def _units(hooks: dict, old: Trace, config: BlockConfig, weights: Mapping, x: np.ndarray,
           pre_units: np.ndarray, gate_units: np.ndarray) -> None:
    """Recompute hidden units: the columns `pre_units` of pre and `gate_units` of gate, then
    those units' columns of post, and update hook_mlp_out by the change of their
    contribution (a rank-k update for k units)."""
    units = np.union1d(pre_units, gate_units)
    pre = old["mlp.hook_pre"]
    if len(pre_units):
        pre = np.array(pre)
        pre[:, pre_units] = x @ weights["W_in"][:, pre_units] + weights["b_in"][pre_units]
        hooks["mlp.hook_pre"] = pre
    if config.gated:
        gate = old["mlp.hook_gate"]
        if len(gate_units):
            gate = np.array(gate)
            gate[:, gate_units] = x @ weights["W_gate"][:, gate_units] + weights["b_gate"][gate_units]
            hooks["mlp.hook_gate"] = gate
        hidden_units = activate(config.activation, gate[:, units]) * pre[:, units]
    else:
        hidden_units = activate(config.activation, pre[:, units])
    hidden = np.array(old["mlp.hook_post"])
    delta = hidden_units - hidden[:, units]
    hidden[:, units] = hidden_units
    hooks["mlp.hook_post"] = hidden
    hooks["hook_mlp_out"] = old["hook_mlp_out"] + delta @ weights["W_out"][units]


# --- the update -------------------------------------------------------------------------------

@quiet
def recompute(config: BlockConfig, weights: Mapping[str, np.ndarray], inputs: np.ndarray, previous: Trace,
              changes: Mapping[str, object]) -> EditedTrace:
    """The trace of (config, weights, inputs), recomputing only what `changes` can change.

    `previous` is the trace of the same config and inputs with the changed tensors as they
    were before. `changes` maps each changed tensor (a weight name, or "inputs") to the cells
    that changed: a boolean mask of its shape, a list of index tuples, or None (any cell).
    Cells outside `changes` must be unchanged; what cannot be updated runs the full forward.
    """
    if INPUTS in changes:
        return _input_rows(config, weights, inputs, previous, changes)
    if not _can_update(config, weights, inputs, previous, changes):
        return _full(config, weights, inputs)
    masks = {name: _mask(cells, np.shape(weights[name])) for name, cells in changes.items()}
    masks = {name: mask for name, mask in masks.items() if mask.any()}
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    old = previous
    new: dict[str, np.ndarray] = {}
    pre, post = config.pre_norm, config.post_norm
    x = old["hook_resid_pre"]
    norm1 = bool(masks.keys() & {"ln1.w", "ln1.b"})
    norm2 = bool(masks.keys() & {"ln2.w", "ln2.b"})

    # Attention sub-layer.
    mid_changed = False
    if config.attention:
        attn_in = old["ln1.hook_out"] if pre else x
        parts: dict[int, set[str]] = {}
        if pre and norm1:
            attn_in = _norm_out(new, "ln1", config, weights, old["ln1.hook_normalized"])
            parts = {h: {"q", "k", "v", "o"} for h in range(config.n_heads)}
        for name, part in _HEAD_TENSORS.items():
            if name in masks:
                for h in _along(masks[name], 0):
                    parts.setdefault(int(h), set()).add(part)
        if parts or "b_O" in masks:
            if parts:
                every = len(parts) == config.n_heads and all(p >= {"q", "k", "v"} for p in parts.values())
                _heads(new, None if every else old, config, weights, attn_in, parts)
            result = new.get("attn.hook_result", old["attn.hook_result"])
            attn_out = result.sum(axis=0) + weights["b_O"]
            new["hook_attn_out"] = attn_out
            summed = x + attn_out if config.residual else attn_out
            mid = _norm(new, "ln1", config, weights, summed) if post else summed
            new["hook_resid_mid"] = mid
            mid_changed = True
        elif post and norm1:
            new["hook_resid_mid"] = _norm_out(new, "ln1", config, weights, old["ln1.hook_normalized"])
            mid_changed = True
    mid = new.get("hook_resid_mid", old["hook_resid_mid"])

    # FFN sub-layer.
    mlp_in_changed = mid_changed
    if pre:
        if mid_changed:
            mlp_in = _norm(new, "ln2", config, weights, mid)
        elif norm2:
            mlp_in = _norm_out(new, "ln2", config, weights, old["ln2.hook_normalized"])
            mlp_in_changed = True
        else:
            mlp_in = old["ln2.hook_out"]
    else:
        mlp_in = mid
    updates = getattr(old, "updates", 0)
    F = config.d_ff
    pre_units = _indices(masks, {"W_in": 1, "b_in": 0})
    gate_units = _indices(masks, {"W_gate": 1, "b_gate": 0})
    units = np.union1d(pre_units, gate_units)
    columns = _indices(masks, _COLUMN_TENSORS)
    refresh = len(units) and updates + 1 > REFRESH_AFTER
    if mlp_in_changed or len(units) > F // 4 or refresh:
        _mlp(new, config, weights, mlp_in)
        updates = 0
    else:
        if len(units):
            _units(new, old, config, weights, mlp_in, pre_units, gate_units)
            updates += 1
        if len(columns):
            hidden = new.get("mlp.hook_post", old["mlp.hook_post"])
            if len(columns) > config.output_width // 4:
                _mlp_out(new, weights, hidden)
                updates = 0
            else:
                mlp_out = np.array(new.get("hook_mlp_out", old["hook_mlp_out"]))
                mlp_out[:, columns] = hidden @ weights["W_out"][:, columns] + weights["b_out"][columns]
                new["hook_mlp_out"] = mlp_out
    if "hook_mlp_out" in new or mid_changed:
        mlp_out = new.get("hook_mlp_out", old["hook_mlp_out"])
        summed = mid + mlp_out if config.residual else mlp_out
        new["hook_resid_post"] = _norm(new, "ln2", config, weights, summed) if post else summed
    elif post and norm2:
        new["hook_resid_post"] = _norm_out(new, "ln2", config, weights, old["ln2.hook_normalized"])

    hooks = {name: new[name] if name in new else old[name] for name in old}
    recomputed = [name for name in new if new[name] is not old[name]]
    return EditedTrace(hooks, recomputed, full=False, updates=updates)


def _input_rows(config: BlockConfig, weights: Mapping[str, np.ndarray], inputs: np.ndarray, previous: Trace,
                changes: Mapping[str, object]) -> EditedTrace:
    """An edit of input cells alone: each hook's rows that can see an edited row are recomputed
    (as core.block computes them, on those rows), its other rows are the previous trace's."""
    inputs = np.asarray(inputs, dtype=np.float64)
    edited = _along(_mask(changes[INPUTS], inputs.shape), 0)
    T = inputs.shape[0]
    if config.attention and config.mask != "causal":
        rows = np.arange(T)                                 # every row attends to the edited ones
    elif config.attention:
        rows = np.arange(edited[0], T) if edited.size else edited
    else:
        rows = edited                                       # position-wise: the edited rows alone
    if (set(changes) != {INPUTS} or rows.size == T
            or not _can_update(config, weights, inputs, previous, (), edited_rows=edited)):
        return _full(config, weights, inputs)
    if rows.size == 0:
        return EditedTrace(dict(previous.items()), (), full=False, updates=getattr(previous, "updates", 0))
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    old = previous
    part: dict[str, np.ndarray] = {}                        # row-wise hooks, on `rows` only
    new: dict[str, np.ndarray] = {"hook_resid_pre": np.array(inputs)}
    x = inputs[rows]
    if config.attention:
        attn_in = _norm(part, "ln1", config, weights, x) if config.pre_norm else x
        attn_out = _causal_rows(new, old, config, weights, attn_in, rows)
        summed = x + attn_out if config.residual else attn_out
        mid = _norm(part, "ln1", config, weights, summed) if config.post_norm else summed
    else:
        mid = x
    part["hook_resid_mid"] = mid
    mlp_in = _norm(part, "ln2", config, weights, mid) if config.pre_norm else mid
    mlp_out = _mlp(part, config, weights, mlp_in)
    summed = mid + mlp_out if config.residual else mlp_out
    part["hook_resid_post"] = _norm(part, "ln2", config, weights, summed) if config.post_norm else summed
    for name, values in part.items():
        array = np.array(old[name])
        array[rows] = values
        new[name] = array
    hooks = {name: new.get(name, old[name]) for name in old}
    return EditedTrace(hooks, new, full=False, updates=getattr(old, "updates", 0))


def _causal_rows(new: dict, old: Trace, config: BlockConfig, weights: Mapping, x: np.ndarray,
                 rows: np.ndarray) -> np.ndarray:
    """Causal attention for `rows` (every row from the first edited one to the last) from their
    new inputs x; the earlier rows' keys and values are the previous trace's. Returns attn_out's
    rows; the attention hooks, copied with these rows recomputed, go into `new`."""
    names = ("attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_attn_scores", "attn.hook_pattern",
             "attn.hook_z", "attn.hook_result")
    q, k, v, scores, pattern, z, result = (np.array(old[name]) for name in names)
    blocked = causal_mask(old["attn.hook_q"].shape[1])[rows]
    for h in range(config.n_heads):
        q[h, rows] = x @ weights["W_Q"][h] + weights["b_Q"][h]
        k[h, rows] = x @ weights["W_K"][h] + weights["b_K"][h]
        v[h, rows] = x @ weights["W_V"][h] + weights["b_V"][h]
        scores[h, rows] = np.where(blocked, -np.inf, q[h, rows] @ k[h].T / np.sqrt(config.d_head))
        pattern[h, rows] = softmax(scores[h, rows])
        z[h, rows] = pattern[h, rows] @ v[h]
        result[h, rows] = z[h, rows] @ weights["W_O"][h]
    attn_out = np.array(old["hook_attn_out"])
    attn_out[rows] = result[:, rows].sum(axis=0) + weights["b_O"]
    new.update(zip(names, (q, k, v, scores, pattern, z, result)))
    new["hook_attn_out"] = attn_out
    return attn_out[rows]


def _full(config: BlockConfig, weights: Mapping[str, np.ndarray], inputs: np.ndarray) -> EditedTrace:
    trace = forward(config, weights, inputs)
    return EditedTrace(dict(trace.items()), trace, full=True)


def forward_work(config: BlockConfig, T: int) -> int:
    """Multiply-adds in the matrix products of one full forward on T tokens."""
    d, F = config.d_model, config.d_ff
    work = T * d * F * (2 if config.gated else 1) + T * F * config.output_width
    if config.attention:
        H, dh = config.n_heads, config.d_head
        work += H * (3 * T * d * dh + 2 * T * T * dh + T * dh * d)
    return work


@quiet
def trace_after(config: BlockConfig, old_weights: Mapping[str, np.ndarray], old_inputs: np.ndarray, old_trace: Trace,
                weights: Mapping[str, np.ndarray], inputs: np.ndarray, min_work: int = SMALL_WORK) -> EditedTrace:
    """The trace of (config, weights, inputs), given the trace of (config, old_weights,
    old_inputs): the changed cells are found (arrays shared by both are skipped unread) and
    only what they can change is recomputed. Nothing changed: the old trace's arrays.
    A block whose full forward is under `min_work` multiply-adds is simply rerun in full."""
    changes = find_changes(old_weights, old_inputs, weights, inputs)
    if changes is None or (changes and forward_work(config, np.shape(inputs)[0]) < min_work):
        return _full(config, weights, inputs)
    if not changes:
        return EditedTrace(dict(old_trace.items()), (), full=False, updates=getattr(old_trace, "updates", 0))
    return recompute(config, weights, inputs, old_trace, changes)
