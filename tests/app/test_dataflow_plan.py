"""The diagram's plan (no Qt): every hook of every kind of block placed exactly once, in the
order of the flow, and the edges between placed hooks only."""
from __future__ import annotations

import pytest

from app.explorer.dataflow_plan import compact, plan, reading_order
from core.block import HOOK_NAMES, forward
from core.config import BlockConfig
from core.formats.generate import preset as sized
from core.labs.generations import GENERATIONS, preset as generation


def blocks():
    for name in GENERATIONS:
        yield pytest.param(generation(name), id=name)
    yield pytest.param(sized("lesson", attention=False), id="no-attention")
    yield pytest.param(sized("lesson", attention=False, residual=False, norm="none"), id="bare-ffn")
    yield pytest.param(sized("lesson", norm_placement="pre", gated=True, activation="silu", ffn_clamp=5.0),
                       id="pre-clamped")


@pytest.mark.parametrize("scenario", blocks())
def test_every_hook_is_placed_once_and_edges_join_placed_hooks(scenario):
    trace = forward(scenario.config, scenario.weights, scenario.inputs)
    rows, edges = plan(scenario.config, trace)
    order = reading_order(rows)
    assert sorted(order) == sorted(trace) and len(order) == len(set(order))
    assert all(e.source in trace and e.target in trace for e in edges)
    # every hook but the input has an edge into it (unknown hooks aside: there are none here)
    targets = {e.target for e in edges}
    assert set(trace) - targets == {"hook_resid_pre"}


def test_unknown_hooks_get_a_column_at_the_end_of_their_row():
    config = BlockConfig(d_model=4, d_ff=6, n_heads=2, d_head=2)
    hooks = [*(h for h in HOOK_NAMES if not h.startswith(("attn.hook_q_", "attn.hook_k_", "attn.hook_gate",
                                                           "attn.hook_z_gated", "mlp.hook_gate",
                                                           "mlp.hook_pre_clamped"))),
             "attn.hook_new", "hook_later"]
    rows, edges = plan(config, hooks)
    assert rows[0].columns[-1] == ["attn.hook_new"]
    assert rows[1].columns[-1] == ["hook_later"]
    assert not [e for e in edges if "hook_new" in (e.source + e.target) or "hook_later" in (e.source + e.target)]


def test_reading_order_is_row_by_row_column_by_column():
    scenario = generation("original")
    trace = forward(scenario.config, scenario.weights, scenario.inputs)
    order = reading_order(plan(scenario.config, trace)[0])
    assert order[:5] == ["hook_resid_pre", "attn.hook_q", "attn.hook_k", "attn.hook_attn_scores", "attn.hook_v"]
    assert order.index("hook_resid_mid") > order.index("ln1.hook_out")
    assert order[-1] == "hook_resid_post"


def _lesson_plan(lesson_id: str, step_id: str):
    from core.formats.lesson import load_lesson
    from core.resources import lessons_dir
    lesson = load_lesson(lessons_dir() / f"{lesson_id}.json")
    index = lesson.step_index(step_id)
    scenario, step = lesson.step_scenario(index), lesson.steps[index]
    trace = forward(scenario.config, scenario.weights, scenario.inputs)
    focus = set(step.highlight.hooks) | {cell.hook for cell in step.highlight.cells}
    return plan(scenario.config, trace), focus


def test_the_compact_plan_puts_a_steps_nodes_side_by_side_with_a_marker_for_each_run_left_out():
    (rows, edges), focus = _lesson_plan("r45-ffn-residual-norm", "relu-residual")     # u, h, z
    (row,), compact_edges, gaps = compact(rows, edges, focus)
    assert row.columns == [["gap:0"], ["hook_resid_mid"], ["gap:1"], ["mlp.hook_post"], ["gap:2"],
                           ["hook_resid_post"]]
    assert gaps == {"gap:0": ["hook_resid_pre"], "gap:1": ["mlp.hook_pre"],
                    "gap:2": ["hook_mlp_out", "ln2.hook_in", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out"]}
    assert [(e.source, e.target, e.kind) for e in compact_edges] == [
        ("gap:0", "hook_resid_mid", "flow"), ("hook_resid_mid", "gap:1", "flow"), ("gap:1", "mlp.hook_post", "flow"),
        ("mlp.hook_post", "gap:2", "flow"), ("gap:2", "hook_resid_post", "flow")]
    # every hook is shown or left out by exactly one marker
    shown = [hook for column in row.columns for hook in column if hook not in gaps]
    assert sorted(shown + [hook for hidden in gaps.values() for hook in hidden]) == sorted(reading_order(rows))


def test_the_compact_plan_keeps_neighbours_joined_and_stacks_or_unstacks_a_column():
    (rows, edges), focus = _lesson_plan("r45-ffn-residual-norm", "b4")                   # pre, post, f: neighbours
    (row,), compact_edges, _ = compact(rows, edges, focus)
    assert row.columns == [["gap:0"], ["mlp.hook_pre"], ["mlp.hook_post"], ["hook_mlp_out"], ["gap:1"]]
    assert ("mlp.hook_pre", "mlp.hook_post", "flow") in [(e.source, e.target, e.kind) for e in compact_edges]
    (rows, edges), focus = _lesson_plan("generations", "anchor")                         # two columns of two
    (stacked,), stacked_edges, _ = compact(rows, edges, focus)
    assert stacked.columns[3] == ["attn.hook_z_gated", "attn.hook_gate_sigmoid"]
    assert ("attn.hook_gate_sigmoid", "attn.hook_z_gated", "vertical") in \
        [(e.source, e.target, e.kind) for e in stacked_edges]
    (flat,), flat_edges, _ = compact(rows, edges, focus, stacked=False)
    assert all(len(column) == 1 for column in flat.columns)
    order = [column[0] for column in flat.columns]
    # side by side, the gate's σ comes before the product it feeds; an edge past a node runs under the row
    assert order.index("attn.hook_gate_sigmoid") + 1 == order.index("attn.hook_z_gated")
    kinds = {(e.source, e.target): e.kind for e in flat_edges}
    assert kinds[("attn.hook_gate_sigmoid", "attn.hook_z_gated")] == "flow"
    assert kinds[("gap:0", "attn.hook_k_normed")] == "below"
