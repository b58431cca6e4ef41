"""The Session alone (no widget): what an edit, an undo, a config change or a load decides.

These are the rules the whole window used to be built for; a view only shows their outcome,
and the view tests (test_weights_editor, test_config_panel, test_plots, test_dataflow …)
check that it does. The Session needs a QApplication (`qapp`) but no window. Undo merging
runs on a fake clock (tests/app/helpers.py): a loaded machine can neither split nor merge steps.
"""
from __future__ import annotations

import numpy as np
import pytest

from app.session import INPUTS, TARGETS, Change, Session
from core.block import forward, mse
from core.formats.generate import preset, random_scenario
from core.formats.scenario import load_scenario
from core.numbers import parse_number
from tests.app.helpers import FakeClock, make_session
from tests.conftest import SCENARIOS


def expected_trace(session: Session):
    s = session.state
    return forward(s.config, s.weights, s.inputs)


def assert_trace_is_core_forward(session: Session) -> None:
    expected = expected_trace(session)
    assert list(session.trace) == list(expected)
    for hook in expected:
        np.testing.assert_array_equal(session.trace[hook], expected[hook], err_msg=hook)


def assert_trace_agrees(session: Session, relative: float = 1e-12) -> None:
    """The trace agrees with core.forward to 1e-12 relative (bit for bit at lesson size)."""
    expected = expected_trace(session)
    assert list(session.trace) == list(expected)
    for hook in expected:
        a, b = session.trace[hook], expected[hook]
        assert np.array_equal(np.isneginf(a), np.isneginf(b)), hook
        finite = np.isfinite(b)
        scale = max(1.0, float(np.max(np.abs(b[finite]), initial=0.0)))
        assert float(np.max(np.abs(a[finite] - b[finite]), initial=0.0)) <= relative * scale, hook


def record(session: Session, signal: str = "message") -> list:
    seen: list = []
    getattr(session, signal).connect(seen.append)
    return seen


# --- editing a cell ----------------------------------------------------------------------------

def test_an_edit_recomputes_the_trace_and_the_mse(session):
    before_mse = session.mse
    assert session.set_value("W_in", (0, 4), 2.5)
    assert session.tensor("W_in")[0, 4] == 2.5
    assert_trace_is_core_forward(session)
    assert session.mse == pytest.approx(mse(session.trace.output, session.state.targets))
    assert session.mse != before_mse
    assert session.mse_history[-1] == session.mse


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-Infinity", "1e7", "", "1,000"])
def test_bad_entries_are_refused_and_change_nothing(session, text):
    before = {name: np.array(a) for name, a in session.trace.items()}
    weight, steps = np.array(session.tensor("W_in")), session.undo_stack.count()
    messages, changes = record(session), record(session, "changed")
    assert not session.set_value("W_in", (1, 1), parse_number(text), text)
    assert np.array_equal(session.tensor("W_in"), weight)
    assert all(np.array_equal(before[n], session.trace[n]) for n in before)
    assert session.undo_stack.count() == steps
    assert len(messages) == 1 and messages[0]              # the user is told why, in one line
    assert changes == []


def test_commas_in_a_cell_are_refused(session):
    assert parse_number("1,000") is None
    assert not session.set_value("W_in", (0, 0), parse_number("1,000"), "1,000")
    assert session.tensor("W_in")[0, 0] == 1.0


def test_the_same_value_again_is_no_undo_step(session):
    steps = session.undo_stack.count()
    assert session.set_value("W_in", (0, 0), float(session.tensor("W_in")[0, 0]))
    assert session.undo_stack.count() == steps


def test_undo_redo_restore_exact_values(session):
    original = np.array(session.trace["hook_resid_post"])
    assert session.set_value("W_Q", (1, 2, 0), 0.75)
    edited = np.array(session.trace["hook_resid_post"])
    assert not np.array_equal(original, edited)
    session.undo_stack.undo()
    assert np.array_equal(session.trace["hook_resid_post"], original)
    assert session.tensor("W_Q")[1, 2, 0] == 1.0
    session.undo_stack.redo()
    assert np.array_equal(session.trace["hook_resid_post"], edited)
    assert_trace_is_core_forward(session)


# --- merging a drag into one undo step (on a fake clock) ---------------------------------------

def test_two_drags_of_one_cell_are_two_undo_steps(session):
    start = session.undo_stack.count()
    for value in (0.1, 0.2, 0.3):
        session.set_value("W_in", (0, 0), value, merge=True)
    assert session.undo_stack.count() == start + 1          # one drag
    session.end_gesture()                                    # the slider was released
    for value in (0.4, 0.5):
        session.set_value("W_in", (0, 0), value, merge=True)
    assert session.undo_stack.count() == start + 2
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 0.3
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 1.0


def test_a_pause_longer_than_the_gesture_gap_starts_a_new_step(session, clock):
    start = session.undo_stack.count()
    session.set_value("W_in", (0, 0), 0.1, merge=True)
    clock.advance(Session.GESTURE_GAP_S)                     # exactly the gap: still one gesture
    session.set_value("W_in", (0, 0), 0.2, merge=True)
    assert session.undo_stack.count() == start + 1
    clock.advance(Session.GESTURE_GAP_S + 0.001)             # a real pause: a new step
    session.set_value("W_in", (0, 0), 0.3, merge=True)
    assert session.undo_stack.count() == start + 2
    clock.advance(0.1)
    session.set_value("W_in", (0, 0), 0.4, merge=True)
    assert session.undo_stack.count() == start + 2
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 0.2


def test_merged_edits_of_different_cells_stay_apart(session):
    start = session.undo_stack.count()
    session.set_value("W_in", (0, 0), 0.1, merge=True)
    session.set_value("W_in", (0, 1), 0.2, merge=True)
    session.set_value("W_in", (0, 0), 0.3)                   # an unmerged edit is always its own step
    assert session.undo_stack.count() == start + 3


def test_the_session_reads_the_clock_it_was_given(qapp):
    ticks = []

    def clock():
        ticks.append(len(ticks) * 10.0)                      # every reading 10 s after the last
        return ticks[-1]

    session = make_session(clock=clock)
    start = session.undo_stack.count()
    session.set_value("W_in", (0, 0), 0.1, merge=True)
    session.set_value("W_in", (0, 0), 0.2, merge=True)
    assert len(ticks) == 2 and session.undo_stack.count() == start + 2


# --- whole tensors -----------------------------------------------------------------------------

def test_set_tensor_refuses_a_wrong_shape_or_a_bad_value(session):
    messages, steps = record(session), session.undo_stack.count()
    assert not session.set_tensor("W_in", np.zeros((3, 3)), "paste")
    assert "4×6" in messages[-1]
    assert not session.set_tensor("W_in", np.full((4, 6), np.nan), "paste")
    assert not session.set_tensor("W_in", np.full((4, 6), 2e6), "paste")
    assert session.undo_stack.count() == steps
    assert session.set_tensor("W_in", np.array(session.tensor("W_in")), "same")   # no change, no step
    assert session.undo_stack.count() == steps


def test_fill_and_reset_a_tensor(session):
    assert session.fill_tensor("W_out", "zero")
    assert not session.tensor("W_out").any()
    assert session.fill_tensor("W_out", "random", seed=3)
    assert "3" in session.undo_stack.text(session.undo_stack.count() - 1)
    assert session.reset_tensor("W_out")
    np.testing.assert_array_equal(session.tensor("W_out"), session.loaded.weights["W_out"])
    assert_trace_is_core_forward(session)


def test_a_tensor_that_was_not_loaded_cannot_be_reset(session):
    assert session.set_config(gated=True)
    messages = record(session)
    assert not session.reset_tensor("W_gate")
    assert "W_gate" in messages[-1]


def test_reset_everything_is_one_undo_step_back_to_the_file(session):
    loaded = session.loaded
    assert session.set_value("inputs", (0, 0), 9.0)
    assert session.set_config(d_ff=8, activation="gelu")
    steps = session.undo_stack.count()
    session.reset_all()
    assert session.undo_stack.count() == steps + 1
    assert session.config == loaded.config
    np.testing.assert_array_equal(session.tensor("inputs"), loaded.inputs)
    for name, array in loaded.weights.items():
        np.testing.assert_array_equal(session.tensor(name), array)
    session.undo_stack.undo()
    assert session.config.d_ff == 8 and session.tensor("inputs")[0, 0] == 9.0


def test_tensor_names_and_targets(qapp):
    session = make_session("r45-ffn.json")
    assert session.tensor_names()[0] == INPUTS and TARGETS not in session.tensor_names()
    with pytest.raises(KeyError):
        session.tensor(TARGETS)
    assert session.loaded_tensor(TARGETS) is None


# --- targets and MSE ---------------------------------------------------------------------------

def test_use_output_as_target(qapp):
    session = make_session("r45-ffn.json")
    assert session.mse is None
    messages = record(session)
    session.use_output_as_targets()
    assert session.mse == 0.0 and messages
    assert TARGETS in session.tensor_names()
    assert session.set_value("W_in", (0, 0), 2.0)
    assert session.mse > 0
    session.undo_stack.undo()
    session.undo_stack.undo()
    assert session.mse is None


def test_open_another_scenario(session):
    steps = session.undo_stack.count()
    session.set_value("W_in", (0, 0), 3.0)
    assert session.undo_stack.count() == steps + 1
    session.load(load_scenario(SCENARIOS / "c4-xor.json"))
    assert session.tokens == ("好吃", "不好吃", "难吃", "不难吃")
    assert session.mse == 0.0
    assert session.undo_stack.count() == 0                  # a load starts a new history
    assert session.mse_history == [0.0]
    assert session.set_config(activation="identity")
    assert session.mse == 1.0


def test_a_block_core_cannot_compute_leaves_the_open_one(session, monkeypatch):
    import app.session as module
    weights = np.array(session.tensor("W_in"))
    monkeypatch.setattr(module, "forward", lambda *a: (_ for _ in ()).throw(MemoryError("too big")))
    with pytest.raises(MemoryError):
        session.load(load_scenario(SCENARIOS / "c4-xor.json"))
    assert session.tokens == ("小明", "把", "苹果", "给了", "小王")
    np.testing.assert_array_equal(session.tensor("W_in"), weights)


# --- config changes ----------------------------------------------------------------------------

@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "silu", "identity"])
def test_an_activation_change_recomputes(session, activation):
    assert session.set_config(activation=activation)
    assert session.config.activation == activation
    assert_trace_is_core_forward(session)
    assert not np.array_equal(session.trace["mlp.hook_post"], np.maximum(session.trace["mlp.hook_pre"], 0))


def test_pre_norm_puts_the_norm_at_the_entry(session):
    assert session.set_config(norm_placement="pre")
    assert session.config.norm_placement == "pre"
    assert "ln2.hook_in" in session.trace
    assert np.array_equal(session.trace["ln2.hook_in"], session.trace["hook_resid_mid"])


def test_switching_attention_off_removes_it_and_back_restores_it(session):
    heads = session.config.n_heads, session.config.d_head
    w_q = np.array(session.tensor("W_Q"))
    assert session.set_config(attention=False)
    assert not any(name.startswith("attn.") for name in session.trace)
    assert "W_Q" not in session.tensor_names()
    assert session.set_config(attention=True)
    assert "attn.hook_pattern" in session.trace
    assert (session.config.n_heads, session.config.d_head) == heads
    np.testing.assert_array_equal(session.tensor("W_Q"), w_q)     # its weights come back too


def test_gated_creates_weights_deterministically_and_says_so(session):
    messages = record(session)
    assert session.set_config(gated=True)
    assert "W_gate" in session.tensor_names()
    assert "W_gate" in messages[-1]
    first = np.array(session.tensor("W_gate"))
    session.undo_stack.undo()
    assert "W_gate" not in session.tensor_names()
    session.undo_stack.redo()
    assert np.array_equal(session.tensor("W_gate"), first)
    other = make_session()                                       # another session makes the same
    assert other.set_config(gated=True)
    np.testing.assert_array_equal(other.tensor("W_gate"), first)


def test_causal_mask_zeroes_the_upper_triangle(session):
    assert session.set_config(mask="causal")
    pattern = session.trace["attn.hook_pattern"]
    for head in pattern:
        assert np.all(np.triu(head, k=1) == 0)


def test_a_size_change_is_one_step_and_names_the_weights_it_made(session):
    messages, start = record(session), session.undo_stack.count()
    assert session.set_config(d_ff=12)
    assert session.config.d_ff == 12
    assert session.undo_stack.count() == start + 1
    assert "W_in" in messages[-1]
    assert session.tensor("W_in").shape == (4, 12)


def test_a_shape_that_comes_back_brings_its_weights_back(session):
    original = np.array(session.tensor("W_in"))
    assert session.set_config(d_ff=7)
    assert session.tensor("W_in").shape == (4, 7)
    assert session.set_config(d_ff=6)
    assert np.array_equal(session.tensor("W_in"), original)


def test_switching_zero_centred_norms_keeps_every_gain_and_the_output(session):
    """The gains are converted (w ↦ w − 1 and back): the block computes the same, never 1 + 1."""
    output = np.array(session.trace.output)
    gain = np.array(session.tensor("ln1.w"))
    assert session.set_config(zero_centered=True)
    assert np.allclose(session.tensor("ln1.w"), gain - 1.0)
    assert np.allclose(session.trace.output, output)
    assert session.set_config(d_ff=7)                 # a shape change in between, then back
    assert session.set_config(zero_centered=False)
    assert session.set_config(d_ff=6)
    assert np.allclose(session.tensor("ln1.w"), gain)
    assert np.allclose(session.trace.output, output)
    for _ in range(3):                                # back to zero-centred at the first shape
        session.undo_stack.undo()
    assert np.allclose(session.tensor("ln1.w"), gain - 1.0)
    assert np.allclose(session.trace.output, output)


def test_a_gain_shelved_in_the_other_convention_comes_back_converted(session):
    assert session.set_config(qk_norm=True)
    assert session.set_value("q_norm.w", (0,), 1.5)
    assert session.set_config(d_head=3)               # d_head 2's gains go on the shelf, not zero-centred
    assert session.set_config(zero_centered=True)
    assert session.set_config(d_head=2)
    assert np.allclose(session.tensor("q_norm.w"), [0.5, 0.0])


def test_the_same_config_again_changes_nothing(session):
    assert session.set_config(eps=1.2345678e-05)
    count = session.undo_stack.count()
    assert session.set_config(eps=1.2345678e-05)
    assert session.config.eps == 1.2345678e-05
    assert session.undo_stack.count() == count


def test_an_impossible_config_is_refused_with_a_message(session):
    messages, config = record(session), session.config
    assert not session.set_config(d_out=3)            # d_out ≠ d_model needs residual off
    assert session.config == config
    assert messages and messages[-1].startswith("Not possible")


def test_targets_of_the_wrong_width_are_dropped_by_a_width_change(session):
    assert session.set_config(residual=False, norm="none")
    assert session.state.targets is not None
    assert session.set_config(d_out=2)
    assert session.state.targets is None and session.mse is None
    session.undo_stack.undo()
    assert session.state.targets is not None


def test_eps_zero_on_a_constant_row_breaks_the_variance_check(session):
    assert session.set_config(attention=False)
    for column in range(4):                       # token 0 becomes a constant row
        assert session.set_value("inputs", (0, column), 0.5)
    for index in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 2), (5, 3)):
        assert session.set_value("W_out", index, 0.0)    # keep the FFN from changing the row
    assert session.set_config(eps=0.0)
    checks = {check.key: check for check in session.invariants()}
    assert not checks["ln2.var"].ok


# --- selection ---------------------------------------------------------------------------------

def test_selection_is_clamped_to_the_trace(session):
    session.select(hook="mlp.hook_post", token=99, head=5, column=50)
    assert session.selected_hook == "mlp.hook_post" and session.selected_token == 4
    assert session.selected_index() == (4, 5)                       # clamped to T×F
    assert session.selected_index("attn.hook_pattern") == (1, 4, 4)  # and to H×T×T
    session.select(hook="no.such.hook")
    assert session.selected_hook == "mlp.hook_post"
    assert session.set_config(attention=False)
    assert session.selected_index("attn.hook_pattern") is None


def test_a_selected_hook_that_goes_away_falls_back_to_the_output(session):
    session.select(hook="attn.hook_pattern")
    assert session.set_config(attention=False)
    assert session.selected_hook == "hook_resid_post"


def test_the_edit_cell_refuses_what_does_not_exist(session):
    seen = record(session, "changed")
    session.select_edit_cell("W_in", (9, 9))
    session.select_edit_cell("W_in", (0,))
    session.select_edit_cell("W_nothing", (0, 0))
    assert seen == []
    session.select_edit_cell("W_out", (4, 2))
    assert (session.edit_tensor, session.edit_index) == ("W_out", (4, 2))
    assert seen == [Change.EDIT_TARGET]


def test_the_edit_cell_follows_a_shape_change(session):
    session.select_edit_cell("W_in", (3, 5))
    assert session.set_config(d_ff=3)
    assert session.edit_index == (3, 2)
    session.select_edit_cell("W_gate", (0, 0))                  # not there: ignored
    assert session.edit_tensor == "W_in"
    assert session.set_config(gated=True)
    session.select_edit_cell("W_gate", (1, 1))
    session.undo_stack.undo()                                   # the gate goes away again
    assert session.edit_tensor == INPUTS


# --- notifications: one per action -------------------------------------------------------------

def test_a_load_is_one_notification_naming_everything(session):
    seen = record(session, "changed")
    session.load(load_scenario(SCENARIOS / "r45-ffn.json"))
    assert seen == [Change.ALL]


def test_an_edit_is_one_trace_notification(session):
    seen = record(session, "changed")
    assert session.set_value("W_in", (0, 0), 0.75)
    assert seen == [Change.TRACE]


def test_a_refused_edit_notifies_nothing(session):
    seen = record(session, "changed")
    assert not session.set_value("W_in", (0, 0), float("nan"), "nan")
    assert seen == []


def test_a_selection_is_one_selection_notification(session):
    seen = record(session, "changed")
    session.select(token=2)
    assert seen == [Change.SELECTION]


def test_highlight_is_selection_state_and_repeats_are_quiet(session):
    seen = record(session, "changed")
    session.set_highlight(["mlp.hook_post"], [("hook_resid_post", (0, 2))])
    assert seen == [Change.HIGHLIGHT]
    assert session.highlight.hooks == {"mlp.hook_post", "hook_resid_post"}
    assert session.highlight.cells == (("hook_resid_post", (0, 2)),)
    session.set_highlight(["mlp.hook_post"], [("hook_resid_post", (0, 2))])
    assert seen == [Change.HIGHLIGHT]
    session.set_highlight()
    assert seen == [Change.HIGHLIGHT, Change.HIGHLIGHT] and not session.highlight


def test_a_kept_state_comes_back_as_one_undo_step(session):
    assert session.set_value("W_in", (0, 0), 4.0)
    kept = session.state
    session.load(session.loaded)
    assert session.tensor("W_in")[0, 0] == 1.0
    session.push_state(kept, "kept")
    assert session.tensor("W_in")[0, 0] == 4.0 and session.undo_stack.count() == 1
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 1.0


def test_a_load_can_show_an_edited_state_but_resets_to_the_file(session):
    assert session.set_value("W_in", (0, 0), 4.0)
    edited = session.state
    session.load(session.loaded, edited)
    assert session.tensor("W_in")[0, 0] == 4.0
    session.reset_all()
    assert session.tensor("W_in")[0, 0] == 1.0



# --- how edits are stored: cells, not copies of the tensor (issue 10) ----------------------------

def above_small_work(seed: int = 1, **options):
    """16 tokens, d 64, d_ff 1024: above core.incremental.SMALL_WORK, so edits are incremental."""
    return random_scenario(16, 64, 4, 16, 1024, seed=seed, **options)


def every_array(session: Session) -> dict:
    return {name: np.array(session.tensor(name)) for name in session.tensor_names()}


def assert_same_arrays(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for name in want:
        assert np.array_equal(got[name], want[name]), name


def test_a_cell_edit_writes_in_place_and_passes_the_cell_to_core(qapp, monkeypatch):
    import app.live_block as module
    seen = []
    real = module.recompute
    monkeypatch.setattr(module, "recompute", lambda *a: seen.append(a[4]) or real(*a))
    session = Session(above_small_work(), clock=FakeClock())   # above SMALL_WORK: incremental
    assert session.set_value("W_in", (3, 70), 0.5)          # the first edit copies W_in once ...
    owned = session._block.weights["W_in"]
    for value in (0.6, 0.7, -0.2):
        assert session.set_value("W_in", (3, 70), value)
        assert session._block.weights["W_in"] is owned           # ... the next ones write into that copy
    assert seen == [{"W_in": [(3, 70)]}] * 4                 # the cell itself: nothing searched for it
    assert session.undo_nbytes() < 1000                      # four steps of one cell each
    assert_trace_agrees(session)


def test_the_loaded_arrays_are_never_written(session):
    loaded = {name: np.array(array) for name, array in session.loaded.weights.items()}
    inputs = np.array(session.loaded.inputs)
    assert session.set_value("W_in", (0, 0), 7.0)
    assert session.set_value(INPUTS, (1, 1), -3.0)
    assert session.fill_tensor("W_out", "random", seed=2)
    assert session.set_value("W_out", (1, 1), 0.5)
    assert_same_arrays(dict(session.loaded.weights), loaded)
    assert np.array_equal(session.loaded.inputs, inputs)


def test_handed_out_arrays_are_read_only(session):
    with pytest.raises(ValueError):
        session.tensor("W_in")[0, 0] = 3.0
    with pytest.raises(ValueError):
        session.state.weights["W_in"][0, 0] = 3.0
    with pytest.raises(ValueError):
        session.trace["hook_resid_post"][0, 0] = 3.0
    assert session.tensor("W_in")[0, 0] == 1.0


def test_a_snapshot_never_changes_but_tensor_follows_edits(session):
    snapshot = session.state
    kept = {name: np.array(array) for name, array in snapshot.weights.items()}
    view = session.tensor("W_in")
    for value in (2.0, 3.0):
        assert session.set_value("W_in", (0, 0), value, merge=True)
    assert session.set_value(TARGETS, (0, 0), 9.0)
    assert_same_arrays(dict(snapshot.weights), kept)         # the snapshot is as it was
    assert session.tensor("W_in")[0, 0] == 3.0               # the Session's view follows
    assert view[0, 0] in (1.0, 3.0)                          # an old view: re-read it on `changed`
    session.load(session.loaded, snapshot)                   # and the snapshot can come back
    assert session.tensor("W_in")[0, 0] == 1.0


def test_a_snapshot_nobody_keeps_costs_no_copy(qapp):
    session = Session(above_small_work(), clock=FakeClock())
    session.set_value("W_in", (0, 0), 0.25)
    owned = session._block.weights["W_in"]
    session.state.weights["W_in"].sum()                      # a view reads a snapshot and drops it
    session.set_value("W_in", (0, 0), 0.5)
    assert session._block.weights["W_in"] is owned                 # written in place: no copy
    kept = session.state                                     # a lesson keeps one: copy on write
    session.set_value("W_in", (0, 0), 0.75)
    assert session._block.weights["W_in"] is not owned and kept.weights["W_in"][0, 0] == 0.5


def test_a_kept_state_edited_again_stays_as_it_was_kept(qapp):
    """What the lesson controller does: keep `state` at a step, load the step as written, push
    the kept state back, edit on. The kept snapshot never changes; undo walks back through it."""
    session = Session(above_small_work(), clock=FakeClock())
    original = float(session.tensor("W_in")[1, 1])
    assert session.set_value("W_in", (0, 0), 4.0)
    kept = session.state
    session.load(session.loaded)
    session.push_state(kept, "kept")
    assert session.set_value("W_in", (0, 0), 5.0)
    assert session.set_value("W_in", (1, 1), 6.0)
    assert kept.weights["W_in"][0, 0] == 4.0 and kept.weights["W_in"][1, 1] == original
    assert_trace_agrees(session)
    session.undo_stack.undo()
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == 4.0 and session.tensor("W_in")[1, 1] == original
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 0] == session.loaded.weights["W_in"][0, 0]
    assert_trace_agrees(session)


def test_a_tensor_chosen_for_editing_is_copied_before_the_first_edit(qapp):
    from tests.app.helpers import settle
    session = Session(above_small_work(), clock=FakeClock())
    loaded = session.loaded.weights["W_out"]
    session.select_edit_cell("W_out", (2, 3))
    settle(lambda: session._block.owns(session._block.weights["W_out"]))    # copied in idle time
    owned = session._block.weights["W_out"]
    assert owned is not loaded and np.array_equal(owned, loaded)
    assert session.set_value("W_out", (2, 3), 0.5)
    assert session._block.weights["W_out"] is owned                 # the edit itself copies nothing
    assert loaded[2, 3] != 0.5


def test_undo_everything_is_the_loaded_state_and_redo_everything_the_last(qapp):
    """Cells, a merged drag, a paste of a few cells, whole tensors, a config change, inputs and
    targets: undoing all returns the loaded block bit for bit, redoing all the last one."""
    for scenario in (load_scenario(SCENARIOS / "block-default.json"), above_small_work(seed=3, targets=True)):
        session = Session(scenario, clock=FakeClock())
        loaded, loaded_trace = every_array(session), {n: np.array(a) for n, a in session.trace.items()}
        rows, columns = session.tensor("W_in").shape
        session.set_value("W_in", (1, 2), 0.5)
        for step in range(10):
            session.set_value("W_out", (2, 1), 0.1 * step, merge=True)
        session.end_gesture()
        block = np.array(session.tensor("W_in"))
        block[0, :2] = [0.25, -0.25]
        assert session.set_tensor("W_in", block, "paste")                   # two cells: stored as cells
        assert session.fill_tensor("W_Q", "random", seed=5)                 # the whole tensor
        assert session.set_value("W_Q", (0, 1, 1), 0.125)                   # then a cell of it
        assert session.set_config(activation="gelu")
        assert session.set_value("b_in", (columns - 1,), -0.5)
        assert session.set_value(INPUTS, (0, 1), 2.0)
        assert session.set_value(TARGETS, (1, 0), 1.5)
        assert session.reset_tensor("W_Q")
        last, last_trace = every_array(session), {n: np.array(a) for n, a in session.trace.items()}
        steps = session.undo_stack.count()
        assert steps == 10
        for _ in range(steps):
            session.undo_stack.undo()
            assert_trace_agrees(session)
        assert_same_arrays(every_array(session), loaded)
        assert session.config == scenario.config
        for name, array in loaded_trace.items():
            np.testing.assert_allclose(session.trace[name], array, rtol=0, atol=1e-12 * max(1, np.abs(array[np.isfinite(array)]).max()))
        for _ in range(steps):
            session.undo_stack.redo()
        assert_same_arrays(every_array(session), last)
        assert_trace_agrees(session)
        assert all(np.allclose(session.trace[n], a, rtol=1e-12, atol=1e-12) for n, a in last_trace.items())


def test_at_lesson_size_undo_and_redo_are_bit_identical(session):
    original = {n: np.array(a) for n, a in session.trace.items()}
    session.set_value("W_in", (1, 2), 0.123456789)
    session.fill_tensor("W_V", "random", seed=1)
    session.undo_stack.undo()
    session.undo_stack.undo()
    assert all(np.array_equal(session.trace[n], original[n]) for n in original)
    session.undo_stack.redo()
    assert_trace_is_core_forward(session)


def test_200_edits_of_one_cell_keep_memory_of_the_cells_not_of_the_tensor(qapp):
    """d256: W_in is 256×1024 (2 MB). 200 undo steps of one cell must keep about 200 cells'
    worth, not 200 copies of W_in (400 MB). Measured with tracemalloc (NumPy reports its data
    to it) and by the bytes the undo steps hold; never by time."""
    import gc
    import tracemalloc
    session = Session(preset("d256"), clock=FakeClock())
    tensor_bytes = session.tensor("W_in").nbytes
    session.set_value("W_in", (3, 5), 0.5)                    # the one copy of W_in, before measuring
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for step in range(200):
            session.set_value("W_in", (3, 5), 0.001 * (step + 1))
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert session.undo_stack.count() == 201
    assert growth < tensor_bytes                              # 200 edits cost less than one copy
    assert growth < 200 * 16_000                              # and a few kB each
    assert session.undo_nbytes() < 201 * 64                   # indices, old and new value per step


def test_a_whole_tensor_step_keeps_the_two_arrays_and_a_config_change_copies_nothing(qapp):
    session = Session(above_small_work(), clock=FakeClock())
    size = session.tensor("W_in").nbytes
    before = dict(session._block.weights)
    assert session.fill_tensor("W_in", "random", seed=3)
    assert session.undo_nbytes() == 2 * size                  # the arrays before and after
    assert session.set_config(activation="silu")
    assert all(session._block.weights[n] is before[n] for n in before if n != "W_in")   # the same arrays
    assert session.undo_nbytes() == 2 * size


# --- coalescing a drag: one update per frame ---------------------------------------------------

def test_coalesced_values_are_one_update_and_one_undo_step(session, qtbot):
    seen = record(session, "changed")
    start, original = session.undo_stack.count(), float(session.tensor("W_in")[0, 1])
    for step in range(1, 30):
        assert session.set_value_coalesced("W_in", (0, 1), 0.1 * step)
    assert seen == [] and session.pending                     # nothing recomputed or sent yet
    assert session.tensor("W_in")[0, 1] == pytest.approx(2.9)  # but the value is in
    assert session.undo_stack.count() == start + 1             # and one undo step (a drag)
    with qtbot.waitSignal(session.changed, timeout=5000):
        pass
    assert seen == [Change.TRACE] and not session.pending
    assert_trace_is_core_forward(session)
    session.undo_stack.undo()
    assert session.tensor("W_in")[0, 1] == original


def test_the_trace_is_current_even_before_the_frame(session):
    assert session.set_value_coalesced("W_out", (1, 1), 0.3125)
    assert session.pending
    assert_trace_is_core_forward(session)                     # read now: computed now, no signal
    assert session.mse == pytest.approx(mse(session.trace.output, session.state.targets))
    seen = record(session, "changed")
    session.flush()                                           # the owed notification, once
    session.flush()
    assert seen == [Change.TRACE]


def test_a_refused_coalesced_value_changes_nothing(session):
    messages, seen = record(session), record(session, "changed")
    assert not session.set_value_coalesced("W_in", (0, 0), float("inf"), "inf")
    assert len(messages) == 1 and seen == [] and not session.pending
    assert session.tensor("W_in")[0, 0] == 1.0 and session.undo_stack.count() == 0


def test_an_undo_during_a_drag_brings_the_pending_update_along(session):
    assert session.set_value("W_in", (2, 2), 0.5)
    session.end_gesture()
    for value in (0.6, 0.7):
        session.set_value_coalesced("W_in", (3, 3), value)
    seen = record(session, "changed")
    session.undo_stack.undo()                                 # the drag's step
    assert seen == [Change.TRACE] and not session.pending
    assert session.tensor("W_in")[3, 3] == 1.0 and session.tensor("W_in")[2, 2] == 0.5
    assert_trace_is_core_forward(session)


def test_coalesced_updates_come_at_most_once_per_frame(session, qtbot):
    """Values sent over several frames: the first goes at once (0 ms), later ones wait for the
    frame; never more updates than values, never one per value within a frame."""
    seen = record(session, "changed")
    session.set_value_coalesced("W_in", (0, 2), 0.1)
    with qtbot.waitSignal(session.changed, timeout=5000):
        pass
    for value in (0.2, 0.3, 0.4):                             # within one frame after that update
        session.set_value_coalesced("W_in", (0, 2), value)
    assert session._frame.isActive() and session._frame.interval() <= Session.FRAME_MS
    with qtbot.waitSignal(session.changed, timeout=5000):
        pass
    assert seen == [Change.TRACE, Change.TRACE]
    assert_trace_is_core_forward(session)


def test_two_slider_drags_as_the_weight_editor_sends_them(session):
    """The weight editor's slider and spin box: every position through set_value_coalesced,
    the release through end_gesture. Two drags are two undo steps and, flushed, two updates."""
    seen = record(session, "changed")
    start = session.undo_stack.count()
    for position in range(1, 21):                             # slider pressed, dragged
        session.set_value_coalesced("W_in", (1, 3), 1.0 + 0.01 * position, "…")
    session.end_gesture()                                     # sliderReleased
    session.flush()
    for position in range(1, 11):
        session.set_value_coalesced("W_in", (1, 3), 1.2 - 0.01 * position, "…")
    session.end_gesture()
    session.flush()
    assert session.undo_stack.count() == start + 2 and seen == [Change.TRACE, Change.TRACE]
    assert_trace_is_core_forward(session)
    session.undo_stack.undo()
    assert session.tensor("W_in")[1, 3] == pytest.approx(1.2)
    session.undo_stack.undo()
    assert session.tensor("W_in")[1, 3] == session.loaded.weights["W_in"][1, 3]


def test_a_closed_session_with_a_history_is_collected_safely(qapp):
    """Undo steps hold the Session weakly: collecting a Session and its stack (a reference cycle
    before) crashed PySide."""
    import gc
    import weakref
    session = Session(preset("d64"), clock=FakeClock())
    for step in range(20):
        session.set_value("W_in", (1, 1), 0.01 * step, merge=step % 2 == 0)
        session.set_value_coalesced("W_out", (1, 1), 0.01 * step)
    session.fill_tensor("W_V", "zero")
    gone = weakref.ref(session)
    del session
    gc.collect()
    assert gone() is None
