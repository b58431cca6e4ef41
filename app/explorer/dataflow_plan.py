"""Where each hook of a trace goes in the block diagram, and which edges join them (no Qt).

`plan(config, hooks)` returns rows of columns of hook names (the attention sub-layer above, the
FFN sub-layer below; one row when attention is off) and the edges between them. It draws every
hook that is present and only those: optional hooks of the later generations (QK-Norm, rotary
positions, the attention output gate, the clamped SwiGLU) take their place in the flow; a hook
this module does not know is still drawn, as a node of its own at the end of its row.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

# Hook names (DESIGN.md, docs/hooks-extensions.md).
X, MID, OUT = "hook_resid_pre", "hook_resid_mid", "hook_resid_post"
Q, K, V = "attn.hook_q", "attn.hook_k", "attn.hook_v"
SCORES, PATTERN, Z, RESULT = "attn.hook_attn_scores", "attn.hook_pattern", "attn.hook_z", "attn.hook_result"
ATTN_OUT = "hook_attn_out"
PRE, GATE, POST, MLP_OUT = "mlp.hook_pre", "mlp.hook_gate", "mlp.hook_post", "hook_mlp_out"
# QK-Norm, rotary positions, the attention output gate, the clamped SwiGLU.
QK_NORM = {which: tuple(f"attn.hook_{which}_{part}" for part in ("scale", "normalized", "normed")) for which in "qk"}
ROT_Q, ROT_K = "attn.hook_rot_q", "attn.hook_rot_k"
A_GATE, A_GATE_SIGMOID, Z_GATED = "attn.hook_gate", "attn.hook_gate_sigmoid", "attn.hook_z_gated"
PRE_CLAMPED, GATE_CLAMPED = "mlp.hook_pre_clamped", "mlp.hook_gate_clamped"


@dataclass(frozen=True)
class EdgeSpec:
    source: str
    target: str
    kind: str = "flow"        # flow | vertical (within a column) | below (around a row) | wrap | residual
    labelled: bool = True     # fan-outs label only one of their edges


@dataclass
class RowSpec:
    name: str                                   # "attention" | "ffn"
    columns: list[list[str]]
    band: list[str] = field(default_factory=list)  # the sub-layer's own nodes (the branch)


def _norm_cluster(prefix: str, edges: list[EdgeSpec]) -> list[list[str]]:
    hook_in, scale, normalized, out = (f"{prefix}.hook_{part}" for part in ("in", "scale", "normalized", "out"))
    edges += [EdgeSpec(hook_in, scale, labelled=False), EdgeSpec(hook_in, normalized),
              EdgeSpec(scale, normalized, "vertical"), EdgeSpec(normalized, out)]
    return [[hook_in], [scale, normalized], [out]]


def _pre_norm_entry(prefix: str, stream: str, columns: list[list[str]], band: list[str],
                    edges: list[EdgeSpec]) -> str:
    """Draw a pre-norm at a sub-layer's entry, on its branch; returns what the sub-layer reads."""
    cluster = _norm_cluster(prefix, edges)
    columns += cluster
    band += [hook for column in cluster for hook in column]
    edges.append(EdgeSpec(stream, f"{prefix}.hook_in"))
    return f"{prefix}.hook_out"


def _attention(config, has: set[str], edges: list[EdgeSpec]) -> RowSpec:
    columns: list[list[str]] = [[X]]
    source = _pre_norm_entry("ln1", X, columns, [], edges) if config.pre_norm else X
    columns.append([Q, K])
    edges += [EdgeSpec(source, K), EdgeSpec(source, Q, labelled=False)]
    q, k = Q, K
    if QK_NORM["q"][0] in has:                 # QK-Norm: an RMSNorm of each head's q and k
        (qs, qn, qo), (ks, kn, ko) = QK_NORM["q"], QK_NORM["k"]
        columns += [[qs, qn, ks, kn], [qo, ko]]
        for raw, (scale, normalized, normed) in ((Q, QK_NORM["q"]), (K, QK_NORM["k"])):
            edges += [EdgeSpec(raw, scale, labelled=False), EdgeSpec(raw, normalized),
                      EdgeSpec(scale, normalized, "vertical"), EdgeSpec(normalized, normed)]
        q, k = qo, ko
    if ROT_Q in has or ROT_K in has:           # rotary positions, after QK-Norm (as Qwen3)
        columns.append([ROT_Q, ROT_K])
        edges += [EdgeSpec(q, ROT_Q), EdgeSpec(k, ROT_K)]
        q, k = ROT_Q, ROT_K
    # V waits under the scores for the pattern: the row stays two nodes deep.
    columns += [[SCORES, V], [PATTERN]]
    edges += [EdgeSpec(q, SCORES), EdgeSpec(k, SCORES), EdgeSpec(source, V, "below", labelled=False),
              EdgeSpec(SCORES, PATTERN), EdgeSpec(PATTERN, Z), EdgeSpec(V, Z, "below")]
    if A_GATE in has:                          # the output gate: σ(x·W_G) ⊙ z feeds W_O
        columns += [[Z, A_GATE], [Z_GATED, A_GATE_SIGMOID], [RESULT]]
        edges += [EdgeSpec(source, A_GATE, "below", labelled=False), EdgeSpec(A_GATE, A_GATE_SIGMOID),
                  EdgeSpec(Z, Z_GATED), EdgeSpec(A_GATE_SIGMOID, Z_GATED, "vertical"), EdgeSpec(Z_GATED, RESULT)]
    else:
        # z sits under its W_O product so that V reaches it along the bottom of the row.
        columns.append([RESULT, Z])
        edges.append(EdgeSpec(Z, RESULT, "vertical"))
    columns.append([ATTN_OUT])
    edges.append(EdgeSpec(RESULT, ATTN_OUT))
    band = [hook for column in columns[1:] for hook in column]      # the branch: all but x
    if config.post_norm:
        columns += _norm_cluster("ln1", edges)
        edges.append(EdgeSpec(ATTN_OUT, "ln1.hook_in"))
        if config.residual:
            edges.append(EdgeSpec(X, "ln1.hook_in", "residual"))
        edges.append(EdgeSpec("ln1.hook_out", MID, "wrap"))
    else:
        edges.append(EdgeSpec(ATTN_OUT, MID, "wrap"))
        if config.residual:
            edges.append(EdgeSpec(X, MID, "residual"))
    return RowSpec("attention", columns, band)


def _ffn(config, has: set[str], columns: list[list[str]], edges: list[EdgeSpec]) -> RowSpec:
    band: list[str] = []
    source = _pre_norm_entry("ln2", MID, columns, band, edges) if config.pre_norm else MID
    first = len(columns)
    gated = GATE in has
    columns.append([PRE, GATE] if gated else [PRE])
    edges.append(EdgeSpec(source, PRE))
    if gated:
        edges.append(EdgeSpec(source, GATE, labelled=False))
    pre, gate = PRE, GATE
    if PRE_CLAMPED in has or GATE_CLAMPED in has:     # the clamped SwiGLU (gpt-oss)
        columns.append([PRE_CLAMPED, GATE_CLAMPED])
        edges += [EdgeSpec(PRE, PRE_CLAMPED), EdgeSpec(GATE, GATE_CLAMPED)]
        pre, gate = PRE_CLAMPED, GATE_CLAMPED
    columns += [[POST], [MLP_OUT]]
    edges += [EdgeSpec(pre, POST), EdgeSpec(POST, MLP_OUT)]
    if gated:
        edges.append(EdgeSpec(gate, POST))
    band += [hook for column in columns[first:] for hook in column]
    if config.post_norm:
        columns += _norm_cluster("ln2", edges)
        edges += [EdgeSpec(MLP_OUT, "ln2.hook_in"), EdgeSpec("ln2.hook_out", OUT)]
        if config.residual:
            edges.append(EdgeSpec(MID, "ln2.hook_in", "residual"))
    else:
        edges.append(EdgeSpec(MLP_OUT, OUT))
        if config.residual:
            edges.append(EdgeSpec(MID, OUT, "residual"))
    columns.append([OUT])
    return RowSpec("ffn", columns, band)


def plan(config, hooks: Iterable[str]) -> tuple[list[RowSpec], list[EdgeSpec]]:
    """Rows of columns of hooks, and the edges between them, for a block configuration and the
    hooks its trace holds (every one of them is placed exactly once)."""
    hooks = list(hooks)
    has = set(hooks)
    edges: list[EdgeSpec] = []
    rows: list[RowSpec] = []
    if Q in has:
        rows.append(_attention(config, has, edges))
        columns = [[MID]]
    else:
        columns = [[X], [MID]]
        edges.append(EdgeSpec(X, MID))
    rows.append(_ffn(config, has, columns, edges))

    # Only what the trace holds; anything it holds that no rule placed gets a column of its own.
    placed: set[str] = set()
    for row in rows:
        kept = []
        for column in row.columns:
            column = [hook for hook in dict.fromkeys(column) if hook in has and hook not in placed]
            placed.update(column)
            if column:
                kept.append(column)
        row.columns = kept
        row.band = [hook for hook in row.band if hook in has]
    for hook in hooks:
        if hook not in placed:
            row = rows[0] if hook.startswith("attn.") else rows[-1]
            row.columns.append([hook])
            row.band.append(hook)
            placed.add(hook)
    edges = [edge for edge in edges if edge.source in has and edge.target in has]
    return rows, edges


def reading_order(rows: list[RowSpec]) -> list[str]:
    """The nodes as a reader meets them: row by row, column by column, top to bottom. Spotlight
    numbers count in this order (1 = the first)."""
    return [hook for row in rows for column in row.columns for hook in column]


# --- the compact plan of presentation mode ---------------------------------------------------------
GAP = "gap:"                  # the name of a "…" marker stands for the hooks it leaves out: gap:<n>


def compact(rows: list[RowSpec], edges: list[EdgeSpec], focus: Iterable[str], stacked: bool = True
            ) -> tuple[list[RowSpec], list[EdgeSpec], dict[str, list[str]]]:
    """The focused hooks side by side in one row, in reading order, each run of columns without
    one (before, between and after them) replaced by one "…" marker. A column keeps its focused
    hooks stacked (`stacked`), or puts them side by side, the first of a pair of joined ones
    first; the others of a partly focused column are left out.

    Edges: the plan's edges between neighbouring groups (vertical within a stacked column; flow
    between neighbouring columns; under the row where it passes a node), and through each marker
    the edges that lead into and out of the hooks it stands for (or jump over it). Returns the
    row, the edges and, per marker name, the hooks it stands for."""
    focus = set(focus)
    groups: list[list[str]] = []           # the focused hooks of a column, or one marker
    gaps: dict[str, list[str]] = {}
    skipped: list[str] = []

    def close_gap() -> None:
        if skipped:
            name = f"{GAP}{len(gaps)}"
            gaps[name] = list(skipped)
            groups.append([name])
            skipped.clear()

    for row in rows:
        for column in row.columns:
            kept = [hook for hook in column if hook in focus]
            if kept:
                close_gap()
                groups.append(kept if stacked else _sources_first(kept, edges))
            else:
                skipped.extend(column)
    close_gap()
    columns = groups if stacked else [[hook] for group in groups for hook in group]
    group_of = {hook: g for g, group in enumerate(groups) for hook in group}
    column_of = {hook: c for c, column in enumerate(columns) for hook in column}

    def joined(source: str, target: str) -> EdgeSpec | None:
        step = column_of[target] - column_of[source]
        if step == 0:
            return EdgeSpec(source, target, "vertical")
        return EdgeSpec(source, target, "flow" if step == 1 else "below") if step > 0 else None

    result: list[EdgeSpec] = []
    for edge in edges:
        if edge.source in group_of and edge.target in group_of \
                and group_of[edge.target] - group_of[edge.source] in (0, 1):
            result += [e for e in (joined(edge.source, edge.target),) if e is not None]
    for name, hidden in gaps.items():
        g, inside = group_of[name], set(hidden)
        before = {hook for hook in group_of if group_of[hook] < g and hook not in gaps}
        after = {hook for hook in group_of if group_of[hook] > g and hook not in gaps}
        sources = {e.source for e in edges if e.source in before and (e.target in inside or e.target in after)}
        targets = {e.target for e in edges if e.target in after and (e.source in inside or e.source in before)}
        if g > 0:
            result += [joined(hook, name) for hook in groups[g - 1] if hook in sources]
        if g + 1 < len(groups):
            result += [joined(name, hook) for hook in groups[g + 1] if hook in targets]
    return [RowSpec("compact", columns)], result, gaps


def _sources_first(hooks: list[str], edges: list[EdgeSpec]) -> list[str]:
    """Hooks of one column in an order in which an edge between two of them points right."""
    ordered: list[str] = []
    waiting = list(hooks)
    while waiting:
        ready = next(hook for hook in waiting
                     if not any(e.target == hook and e.source in waiting for e in edges) or hook == waiting[-1])
        ordered.append(ready)
        waiting.remove(ready)
    return ordered
