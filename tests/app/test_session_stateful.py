"""Model-based testing of the Session (Hypothesis stateful testing, issue 13).

A `RuleBasedStateMachine` does what a user can do to a Session — set any cell of any tensor
(ordinary, tiny, ±1e6 and refused values), drag a cell, change every block option, fill,
reset or paste into a tensor, undo, redo, open a shipped scenario or a lesson step, save and
open again — and keeps its own model: the list of states the undo stack should hold (deep
copies, so an edit written in place into a shared array is caught) and where it stands.

After every step:
- the Session's trace equals `core.block.forward` of its current config, weights and inputs,
  bit for bit (shipped lesson-size blocks: the incremental path reruns the full forward there);
- the undo stack holds exactly the model's steps, at the model's index;
- the state is the model's state at that index, bit for bit;
and the rule `undo_all_redo_all` walks the whole history both ways, checking every state.
A refused action must leave the state, the trace and the stack as they were.

Examples per run: BLOCKLAB_STATEFUL_EXAMPLES (default 25) and BLOCKLAB_STATEFUL_STEPS
(default 30). The nightly profile in docs/testing.md runs 2,000 × 60.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from core.block import forward
from core.config import ACTIVATIONS, MASKS, NORMS, PLACEMENTS
from core.formats.lesson import load_lesson
from core.formats.scenario import load_scenario, save_scenario
from core.resources import lessons_dir, scenarios_dir
from tests.app.helpers import FakeClock

EXAMPLES = int(os.environ.get("BLOCKLAB_STATEFUL_EXAMPLES", "25"))
STEPS = int(os.environ.get("BLOCKLAB_STATEFUL_STEPS", "30"))
LESSON_SIZE = 1_000_000          # multiply-adds: below it the Session's trace is the full forward's


def _small(path: Path) -> bool:
    """Lesson-size shipped scenarios (the GPT-2-shaped layer is tested for agreement elsewhere)."""
    return path.stat().st_size < 200_000 and not path.with_suffix(".npz").exists()


SCENARIO_FILES = sorted(p for p in scenarios_dir().glob("*.json") if _small(p))
LESSON_FILES = sorted(lessons_dir().glob("*.json"))

ORDINARY = st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 2))
TINY = st.sampled_from([1e-300, -1e-300, 5e-324, 1e-12, -0.0])
HUGE = st.sampled_from([1e6, -1e6, 999_999.5])
ACCEPTED = st.one_of(ORDINARY, TINY, HUGE)
REFUSED = st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e6 + 1, -2e6, 1e300, None])

OPTIONS = {
    "activation": st.sampled_from(ACTIVATIONS),
    "gated": st.booleans(),
    "norm": st.sampled_from(NORMS),
    "norm_placement": st.sampled_from(PLACEMENTS),
    "mask": st.sampled_from(MASKS),
    "residual": st.booleans(),
    "attention": st.booleans(),
    "eps": st.sampled_from([1e-5, 1e-6, 0.0, 0.1, -1.0, float("nan")]),
    "d_ff": st.integers(-1, 9),
    "n_heads": st.integers(0, 3),
    "d_head": st.integers(0, 4),
    "zero_centered": st.booleans(),
    "qk_norm": st.booleans(),
    "attn_gate": st.booleans(),
    "ffn_clamp": st.sampled_from([None, 7.0, 10.0, 0.5, -1.0]),
    "positional": st.sampled_from(["none", "rotary", "sinusoid"]),
}


def _snapshot(session) -> tuple:
    """A deep copy of everything an undo step restores."""
    s = session.state
    return (s.config, np.array(s.inputs, copy=True),
            {name: np.array(array, copy=True) for name, array in s.weights.items()},
            None if s.targets is None else np.array(s.targets, copy=True))


def _same_arrays(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True) \
        and np.array_equal(np.signbit(a), np.signbit(b))


def _same_state(a: tuple, b: tuple) -> bool:
    return (a[0] == b[0] and _same_arrays(a[1], b[1]) and list(a[2]) == list(b[2])
            and all(_same_arrays(a[2][n], b[2][n]) for n in a[2]) and _same_arrays(a[3], b[3]))


def _describe(a: tuple, b: tuple) -> str:
    if a[0] != b[0]:
        return f"config {a[0]} != {b[0]}"
    names = [n for n in a[2] if n not in b[2] or not _same_arrays(a[2][n], b[2][n])]
    return f"inputs same={_same_arrays(a[1], b[1])} weights differing={names} targets same={_same_arrays(a[3], b[3])}"


class SessionMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        from app.session import Session
        self.folder = tempfile.TemporaryDirectory()
        self.session = Session(load_scenario(SCENARIO_FILES[0]), clock=FakeClock())
        self.messages: list[str] = []
        self.session.message.connect(self.messages.append)
        self._reset_model()

    def teardown(self):
        self.session.deleteLater()
        self.folder.cleanup()

    # --- the model ------------------------------------------------------------------------
    def _reset_model(self) -> None:
        self.history = [_snapshot(self.session)]
        self.position = 0

    def _record(self, before: tuple, accepted: bool, changed: bool = True) -> None:
        """After an action: refused, or accepted without changing anything (the value a cell
        already holds) → the state is as before and no step is added; else exactly one step."""
        after = _snapshot(self.session)
        if not (accepted and changed):
            assert _same_state(after, before), "an action that changes nothing changed the state: " + \
                _describe(after, before)
            return
        del self.history[self.position + 1:]
        self.history.append(after)
        self.position += 1

    def _tensor_and_index(self, data) -> tuple[str, tuple[int, ...]]:
        name = data.draw(st.sampled_from(self.session.tensor_names()), label="tensor")
        shape = self.session.tensor(name).shape
        index = tuple(data.draw(st.integers(0, n - 1), label=f"axis{k}") for k, n in enumerate(shape))
        return name, index

    # --- rules: cells ---------------------------------------------------------------------
    @rule(data=st.data(), value=ACCEPTED)
    def set_cell(self, data, value):
        name, index = self._tensor_and_index(data)
        before = _snapshot(self.session)
        changed = bool(self.session.tensor(name)[index] != value)
        assert self.session.set_value(name, index, value, repr(value))
        self._record(before, True, changed)
        assert self.session.tensor(name)[index] == value

    @rule(data=st.data(), value=REFUSED)
    def set_cell_refused(self, data, value):
        name, index = self._tensor_and_index(data)
        before, trace_before, count = _snapshot(self.session), self.session.trace, self.session.undo_stack.count()
        self.messages.clear()
        assert not self.session.set_value(name, index, value, "abc" if value is None else repr(value))
        assert self.messages and self.messages[-1], "a refusal says why"
        self._record(before, False)
        assert self.session.trace is trace_before and self.session.undo_stack.count() == count

    @rule(data=st.data(), values=st.lists(ORDINARY, min_size=1, max_size=6))
    def drag_cell(self, data, values):
        """A slider drag: many merged values of one cell make one undo step."""
        name, index = self._tensor_and_index(data)
        self.session.end_gesture()
        before = _snapshot(self.session)
        changed = False
        for value in values:
            changed |= bool(self.session.tensor(name)[index] != value)
            assert self.session.set_value(name, index, value, repr(value), merge=True)
        self.session.end_gesture()
        self._record(before, True, changed)

    # --- rules: whole tensors -------------------------------------------------------------
    @rule(data=st.data(), fill=st.sampled_from(["zero", "identity", "random"]), seed=st.integers(0, 5))
    def fill_tensor(self, data, fill, seed):
        name = data.draw(st.sampled_from(self.session.tensor_names()), label="tensor")
        from core.weights import filled
        before = _snapshot(self.session)
        changed = not np.array_equal(filled(self.session.tensor(name).shape, fill, seed), self.session.tensor(name))
        assert self.session.fill_tensor(name, fill, seed)
        self._record(before, True, changed)

    @rule(data=st.data())
    def reset_tensor(self, data):
        name = data.draw(st.sampled_from(self.session.tensor_names()), label="tensor")
        before = _snapshot(self.session)
        original = self.session.loaded_tensor(name)
        changed = original is not None and not np.array_equal(original, self.session.tensor(name))
        accepted = self.session.reset_tensor(name)
        assert accepted == (original is not None and original.shape == self.session.tensor(name).shape)
        self._record(before, accepted, changed)

    @rule(data=st.data())
    def paste_block(self, data):
        """Paste a block of numbers at a cell (as the weight editor does: the block, cut to the
        tensor's edge, replaces the cells it covers), in one undo step."""
        name, index = self._tensor_and_index(data)
        array = np.array(self.session.tensor(name), dtype=np.float64)
        rows = data.draw(st.integers(1, 3), label="rows")
        columns = data.draw(st.integers(1, 3), label="columns")
        block = np.array(data.draw(st.lists(ORDINARY, min_size=rows * columns, max_size=rows * columns),
                                   label="block")).reshape(rows, columns)
        if array.ndim == 1:
            block = block[0]
        where = tuple(slice(i, None) for i in index[-block.ndim:])
        target = array[index[:-block.ndim]][where] if array.ndim > block.ndim else array[where]
        cut = block[tuple(slice(0, n) for n in target.shape)]
        target[tuple(slice(0, n) for n in cut.shape)] = cut
        before = _snapshot(self.session)
        changed = not np.array_equal(array, self.session.tensor(name))
        assert self.session.set_tensor(name, array, "paste")
        self._record(before, True, changed)

    @rule(data=st.data(), bad=st.sampled_from(["shape", "nan", "huge"]))
    def set_tensor_refused(self, data, bad):
        name = data.draw(st.sampled_from(self.session.tensor_names()), label="tensor")
        array = np.array(self.session.tensor(name), dtype=np.float64)
        if bad == "shape":
            array = np.zeros(array.shape + (2,))
        else:
            array.flat[0] = float("nan") if bad == "nan" else 5e6
        before, count = _snapshot(self.session), self.session.undo_stack.count()
        assert not self.session.set_tensor(name, array, "bad")
        self._record(before, False)
        assert self.session.undo_stack.count() == count

    # --- rules: block options -------------------------------------------------------------
    @rule(data=st.data(), option=st.sampled_from(sorted(OPTIONS)))
    def set_option(self, data, option):
        value = data.draw(OPTIONS[option], label=option)
        before, count = _snapshot(self.session), self.session.undo_stack.count()
        accepted = self.session.set_config(**{option: value})
        changed = accepted and self.session.config != before[0]
        if not changed:
            assert self.session.undo_stack.count() == count
        self._record(before, accepted, changed)
        if accepted:
            assert self.session.config == self.history[self.position][0]

    # --- rules: history -------------------------------------------------------------------
    @precondition(lambda self: self.position > 0)
    @rule()
    def undo(self):
        self.session.undo_stack.undo()
        self.position -= 1

    @precondition(lambda self: self.position < len(self.history) - 1)
    @rule()
    def redo(self):
        self.session.undo_stack.redo()
        self.position += 1

    @rule()
    def undo_all_redo_all(self):
        """Undoing everything returns the loaded state bit-exactly; redoing everything the last."""
        stack = self.session.undo_stack
        here = stack.index()
        stack.setIndex(0)
        assert _same_state(_snapshot(self.session), self.history[0]), _describe(_snapshot(self.session), self.history[0])
        self._check_trace()
        stack.setIndex(stack.count())
        assert _same_state(_snapshot(self.session), self.history[-1]), _describe(_snapshot(self.session), self.history[-1])
        self._check_trace()
        stack.setIndex(here)

    # --- rules: files ---------------------------------------------------------------------
    @rule(path=st.sampled_from(SCENARIO_FILES))
    def open_scenario(self, path):
        self.session.load(load_scenario(path))
        self._reset_model()
        assert self.session.undo_stack.count() == 0

    @rule(path=st.sampled_from(LESSON_FILES), data=st.data())
    def open_lesson_step(self, path, data):
        lesson = load_lesson(path)
        step = data.draw(st.integers(0, len(lesson) - 1), label="step")
        scenario = lesson.step_scenario(step)
        if scenario.config.d_model * scenario.config.d_ff * len(scenario.tokens) > LESSON_SIZE:
            return
        self.session.load(scenario)
        self._reset_model()

    @rule()
    def save_and_open_again(self):
        before = _snapshot(self.session)
        path = Path(self.folder.name) / "saved.json"
        save_scenario(self.session.scenario, path)
        self.session.load(load_scenario(path))
        assert _same_state(_snapshot(self.session), before), "a save and reopen changed the block: " + \
            _describe(_snapshot(self.session), before)
        self._reset_model()

    # --- after every step -----------------------------------------------------------------
    def _check_trace(self) -> None:
        s = self.session.state
        expected = forward(s.config, s.weights, s.inputs)
        trace = self.session.trace
        assert list(trace) == list(expected)
        for hook in expected:
            assert _same_arrays(np.asarray(trace[hook]), np.asarray(expected[hook])), f"{hook} differs from forward"

    @invariant()
    def trace_is_forward(self):
        self._check_trace()

    @invariant()
    def history_matches(self):
        stack = self.session.undo_stack
        assert stack.count() == len(self.history) - 1, (stack.count(), len(self.history) - 1)
        assert stack.index() == self.position, (stack.index(), self.position)
        now = _snapshot(self.session)
        assert _same_state(now, self.history[self.position]), _describe(now, self.history[self.position])


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_session_state_machine(qapp):
    run_state_machine_as_test(SessionMachine, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]))
