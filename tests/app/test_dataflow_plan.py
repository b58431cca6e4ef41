"""The diagram's plan (no Qt): every hook of every kind of block placed exactly once, in the
order of the flow, and the edges between placed hooks only."""
from __future__ import annotations

import pytest

from app.explorer.dataflow_plan import plan, reading_order
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
