"""The Session recomputes a one-tensor edit incrementally (undo, redo and drags included) and
runs the full forward on loads and config changes; every trace agrees with core.forward."""
from __future__ import annotations

import numpy as np
import pytest

from app.session import INPUTS, TARGETS, Session
from core.block import forward
from core.formats.generate import preset, random_scenario
from core.formats.scenario import load_scenario
from core.resources import default_scenario

RELATIVE = 1e-12


def assert_agrees(trace, state) -> None:
    want = forward(state.config, state.weights, state.inputs)
    assert list(trace) == list(want)
    for name in want:
        a, b = trace[name], want[name]
        assert np.array_equal(np.isneginf(a), np.isneginf(b)), name
        finite = np.isfinite(b)
        scale = max(1.0, float(np.max(np.abs(b[finite]), initial=0.0)))
        assert float(np.max(np.abs(a[finite] - b[finite]), initial=0.0)) <= RELATIVE * scale, name


@pytest.fixture
def session(qapp):
    # 8 tokens, d 128: just above core.incremental.SMALL_WORK, so edits are incremental.
    return Session(random_scenario(8, 128, 2, 32, 512, seed=2, norm_placement="pre", targets=True))


def test_a_cell_edit_is_incremental_and_agrees(session):
    before = session.trace
    assert session.set_value("W_in", (3, 17), 0.5)
    after = session.trace
    assert not after.full
    assert after.recomputed == {"mlp.hook_pre", "mlp.hook_post", "hook_mlp_out", "hook_resid_post"}
    assert after["attn.hook_pattern"] is before["attn.hook_pattern"]
    assert_agrees(after, session.state)
    assert session.mse == pytest.approx(float(np.mean((after.output - session.state.targets) ** 2)))


def test_undo_and_redo_stay_incremental(session):
    original = session.trace
    session.set_value("W_Q", (1, 2, 3), -0.7)
    session.set_value("b_out", (5,), 0.25)
    for step in (session.undo_stack.undo, session.undo_stack.undo, session.undo_stack.redo):
        step()
        assert not session.trace.full
        assert_agrees(session.trace, session.state)
    session.undo_stack.undo()
    for name in original:
        np.testing.assert_allclose(session.trace[name], original[name], rtol=0, atol=1e-12)


def test_a_drag_is_incremental_at_every_step(session):
    for step in range(20):
        session.set_value("W_out", (40, 7), 0.01 * step - 0.1, merge=True)
        assert not session.trace.full
        assert session.trace.recomputed <= {"hook_mlp_out", "hook_resid_post"}
    assert session.undo_stack.count() == 1
    assert_agrees(session.trace, session.state)
    session.undo_stack.undo()
    assert not session.trace.full
    assert_agrees(session.trace, session.state)


def test_a_whole_tensor_replaced_agrees(session):
    assert session.fill_tensor("W_V", "random", seed=4)
    assert not session.trace.full
    assert_agrees(session.trace, session.state)
    assert session.reset_tensor("W_V")
    assert_agrees(session.trace, session.state)


def test_a_target_edit_recomputes_nothing(session):
    before = session.trace
    assert session.set_value(TARGETS, (0, 0), 3.0)
    assert not session.trace.recomputed
    assert all(session.trace[name] is before[name] for name in before)
    assert session.mse == pytest.approx(float(np.mean((before.output - session.state.targets) ** 2)))


def test_inputs_config_changes_and_loads_run_the_full_forward(session):
    assert session.set_value(INPUTS, (2, 2), 1.5)
    assert session.trace.full
    assert_agrees(session.trace, session.state)
    assert session.set_config(activation="gelu")
    assert_agrees(session.trace, session.state)
    assert getattr(session.trace, "full", True)
    session.undo_stack.undo()                # back across a config change: full again
    assert getattr(session.trace, "full", True)
    assert_agrees(session.trace, session.state)
    session.load(random_scenario(8, 128, 2, 32, 512, seed=5))
    assert getattr(session.trace, "full", True)
    assert_agrees(session.trace, session.state)
    session.set_value("W_in", (0, 0), 0.1)
    assert not session.trace.full


def test_an_input_edit_of_a_causal_block_recomputes_the_later_rows(qapp):
    """GPT-style (causal): editing token 5's input leaves tokens 0–4 as they were; undo and redo
    of it, and a drag of it, are incremental too."""
    session = Session(random_scenario(8, 128, 2, 32, 512, seed=3, mask="causal", norm_placement="pre",
                                      activation="gelu_tanh", targets=True))
    before = session.trace
    assert session.set_value(INPUTS, (5, 40), 2.5)
    after = session.trace
    assert not after.full
    assert_agrees(after, session.state)
    for name in before:
        rows = (slice(None), slice(0, 5)) if name.startswith("attn.") else (slice(0, 5),)
        np.testing.assert_array_equal(after[name][rows], before[name][rows], err_msg=name)
    assert session.mse == pytest.approx(float(np.mean((after.output - session.state.targets) ** 2)))
    for step in (session.undo_stack.undo, session.undo_stack.redo, session.undo_stack.undo):
        step()
        assert not session.trace.full
        assert_agrees(session.trace, session.state)
    for position in range(10):
        session.set_value_coalesced(INPUTS, (7, 3), 0.1 * position, merge=True)
    session.end_gesture()
    assert not session.trace.full
    assert_agrees(session.trace, session.state)


def test_a_lesson_block_stays_bit_identical_to_core_forward(qapp):
    session = Session(load_scenario(default_scenario()))
    session.set_value("W_in", (1, 2), 0.123456789)
    session.undo_stack.undo()
    session.undo_stack.redo()
    want = forward(session.config, session.state.weights, session.state.inputs)
    assert all(np.array_equal(session.trace[name], want[name]) for name in want)


def test_a_random_walk_of_edits_undos_and_redos_always_agrees(session):
    """Seeded: cells of every tensor (direct and coalesced), fills, a config change, undo and
    redo in any order. After every action the trace agrees with core.forward; at the end,
    undoing everything gives back the loaded arrays bit for bit."""
    rng = np.random.default_rng(7)
    loaded = {name: np.array(session.tensor(name)) for name in session.tensor_names()}
    names = session.tensor_names()
    for step in range(80):
        action = rng.choice(["cell", "cell", "coalesced", "undo", "redo", "fill", "config"])
        if action in ("cell", "coalesced"):
            name = str(rng.choice(names))
            if name not in session.tensor_names():
                continue
            index = tuple(int(rng.integers(n)) for n in session.tensor(name).shape)
            setter = session.set_value if action == "cell" else session.set_value_coalesced
            assert setter(name, index, float(np.round(rng.normal(), 3)))
        elif action == "undo":
            session.undo_stack.undo()
        elif action == "redo":
            session.undo_stack.redo()
        elif action == "fill":
            assert session.fill_tensor(str(rng.choice(["W_V", "b_in", "W_out"])), "random", seed=step)
        else:
            assert session.set_config(activation=str(rng.choice(["relu", "gelu", "silu"])))
        assert_agrees(session.trace, session.state)
    session.flush()
    while session.undo_stack.canUndo():
        session.undo_stack.undo()
    assert session.config.activation == "relu"
    for name, array in loaded.items():
        assert np.array_equal(session.tensor(name), array), name
    assert_agrees(session.trace, session.state)


def test_a_lesson_size_edit_keeps_the_arrays_it_did_not_change(qapp):
    """Lesson sizes run the full forward (bit-identical to core); an array whose numbers the edit
    left as they were is still the very array of the trace before, so views skip it."""
    session = Session(load_scenario(default_scenario()))
    before = session.trace
    assert session.set_value("W_in", (0, 0), 0.75)
    after = session.trace
    want = forward(session.config, session.state.weights, session.state.inputs)
    for name in want:
        assert np.array_equal(after[name], want[name]), name       # bit-identical, not close
    kept = {name for name in after if after[name] is before[name]}
    assert {"attn.hook_pattern", "attn.hook_attn_scores", "hook_resid_mid"} <= kept
    assert {"mlp.hook_pre", "hook_resid_post"} <= set(after.recomputed)
    assert set(after.recomputed) == set(after) - kept
    assert not after.full
    assert session.set_value("W_Q", (0, 0, 0), 0.5)          # the attention's own weight: drawn anew
    assert {"attn.hook_q", "attn.hook_pattern"} <= set(session.trace.recomputed)
