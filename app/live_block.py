"""The Session's current block: its arrays, written in place, and its trace, brought up to date
from the cells that changed. No Qt here: the Session (app/session.py) owns one and wraps it in
undo steps and notifications.

Ownership. The block writes only into arrays it allocated itself and that no undo step and no
snapshot holds; anything else (the loaded scenario's arrays, a kept state, an array an undo
step keeps) is copied once before the first write (copy-on-write per tensor).

Snapshots. `snapshot()` hands out read-only views without copying; while one is alive, a
write into the array it shows copies the array first, so a snapshot never changes.
"""
from __future__ import annotations

import itertools
import weakref
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from core.block import Trace, forward, mse
from core.config import BlockConfig
from core.incremental import SMALL_WORK, EditedTrace, forward_work, recompute

INPUTS = "inputs"
TARGETS = "targets"
LISTED_CELLS = 64      # changed cells go to core as a list of indices up to this many; more, as a mask
LOGGED_WRITES = 512    # in-place writes remembered for views that repaint only the written cells
_SERIALS = itertools.count(1)   # numbers every in-place write of every block (a new block never reuses one)


@dataclass(frozen=True)
class State:
    """Everything a whole-state undo step restores. From `Session.state`: a snapshot that never
    changes (read-only arrays)."""
    config: BlockConfig
    inputs: np.ndarray
    weights: Mapping[str, np.ndarray]
    targets: np.ndarray | None


def read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class LiveBlock:
    """The current config, inputs, weights and targets, and the trace and mse of them."""

    def __init__(self, state: State, trace: Trace):
        self._owned: dict[int, weakref.ref] = {}       # id → the arrays this block allocated
        self._handed: list[weakref.ref] = []           # views handed out in snapshots
        self._dirty: dict[str, list] = {}              # cells changed since the trace: {tensor: [cells]}
        self.stale = False                             # the trace or the mse is not of these arrays
        self.serial = next(_SERIALS)                   # the number of the last in-place write (see writes_since)
        self._floor = self.serial                      # every write numbered above this is in the log
        self._log: deque = deque(maxlen=LOGGED_WRITES)  # (serial, tensor, cells) of the last writes
        self.adopt(state)
        self.commit(EditedTrace(dict(trace.items()), trace, full=True))

    # --- the arrays --------------------------------------------------------------------------
    def adopt(self, state: State) -> None:
        """Make `state`'s arrays the current ones (not owned: copied before the first write)."""
        if hasattr(self, "weights"):
            for name in (INPUTS, *state.weights, TARGETS):
                before = self.inputs if name == INPUTS else self.targets if name == TARGETS else self.weights.get(name)
                after = state.inputs if name == INPUTS else state.targets if name == TARGETS else state.weights[name]
                if after is not before:
                    self._log_write(name, None)
        self.config = state.config
        self.inputs = state.inputs
        self.weights = dict(state.weights)
        self.targets = state.targets

    def names(self) -> list[str]:
        return [INPUTS, *self.weights, *([TARGETS] if self.targets is not None else [])]

    def live(self, name: str) -> np.ndarray:
        if name == INPUTS:
            return self.inputs
        if name == TARGETS:
            if self.targets is None:
                raise KeyError(name)
            return self.targets
        return self.weights[name]

    def _set_live(self, name: str, array: np.ndarray) -> None:
        if name == INPUTS:
            self.inputs = array
        elif name == TARGETS:
            self.targets = array
        else:
            self.weights[name] = array

    def current(self) -> State:
        """The current state, its arrays as they are (for undo steps, which freeze what they keep)."""
        return State(self.config, self.inputs, dict(self.weights), self.targets)

    def snapshot(self) -> State:
        """The current state as read-only views that never change (copy-on-write while alive)."""
        return State(self.config, self._hand_out(self.inputs),
                     {name: self._hand_out(array) for name, array in self.weights.items()},
                     None if self.targets is None else self._hand_out(self.targets))

    def _hand_out(self, array: np.ndarray) -> np.ndarray:
        view = read_only(array)
        if len(self._handed) > 256:
            self._handed = [ref for ref in self._handed if ref() is not None]
        self._handed.append(weakref.ref(view))
        return view

    def _handed_out(self, array: np.ndarray) -> bool:
        self._handed = [ref for ref in self._handed if ref() is not None]
        return any(np.may_share_memory(ref(), array) for ref in self._handed)

    def freeze(self, array: np.ndarray) -> None:
        """An undo step keeps `array`: never write into it again (copy it first)."""
        self._owned.pop(id(array), None)

    def owns(self, array: np.ndarray) -> bool:
        ref = self._owned.get(id(array))
        return ref is not None and ref() is array

    def writable(self, name: str) -> np.ndarray:
        """The array of `name`, ready to be written in place: copied first (once) if this block
        did not allocate it, an undo step keeps it, or a snapshot still shows it."""
        array = self.live(name)
        if not self.owns(array) or not array.flags.writeable or self._handed_out(array):
            array = np.array(array, dtype=np.float64)
            if len(self._owned) > 4 * (len(self.weights) + 2):
                self._owned = {key: ref for key, ref in self._owned.items() if ref() is not None}
            self._owned[id(array)] = weakref.ref(array)
            self._set_live(name, array)
            self._log_write(name, None)
        return array

    def write(self, tensor: str, where: tuple, values: np.ndarray) -> None:
        """Put `values` in the cells `where` (index arrays) of `tensor`; the trace is then stale."""
        self.writable(tensor)[where] = values
        self._mark(tensor, where)
        self._log_write(tensor, where)

    def _log_write(self, tensor: str, where: tuple | None) -> None:
        """Number a write of cells `where` (None: the array was replaced by another one)."""
        self.serial = next(_SERIALS)
        if len(self._log) == self._log.maxlen:
            self._floor = self._log[0][0]
        self._log.append((self.serial, tensor, where))

    def writes_since(self, tensor: str, serial: int) -> list[tuple | None] | None:
        """What happened to `tensor` after write number `serial`: the cells written in place (index
        arrays), None for each time the array was replaced by another; None instead of the list
        if so many writes came since that they are no longer all remembered."""
        if serial < self._floor:
            return None
        found = []
        for number, name, where in reversed(self._log):
            if number <= serial:
                break
            if name == tensor:
                found.append(where)
        return found

    # --- the trace -----------------------------------------------------------------------------
    def _mark(self, tensor: str, cells: object) -> None:
        self.stale = True
        if tensor != TARGETS:                         # targets: only the mse depends on them
            self._dirty.setdefault(tensor, []).append(cells)

    def mark_differences(self, state: State) -> bool:
        """Note the cells in which `state` differs from the current arrays (arrays that are the
        same object are not read). True if only a full forward can compute `state`'s trace."""
        if (state.config != self.config or list(state.weights) != list(self.weights)
                or np.shape(state.inputs) != np.shape(self.inputs)
                or any(np.shape(array) != self.weights[name].shape for name, array in state.weights.items())):
            return True
        for name, array in state.weights.items():
            if array is not self.weights[name]:
                differs = np.asarray(array) != self.weights[name]
                if differs.any():
                    self._dirty.setdefault(name, []).append(differs)
        return state.inputs is not self.inputs and not np.array_equal(state.inputs, self.inputs)

    def _changes(self) -> dict[str, object]:
        """The dirty cells as core.incremental.recompute takes them."""
        changes: dict[str, object] = {}
        for name, parts in self._dirty.items():
            if len(parts) == 1 and isinstance(parts[0], tuple) and parts[0][0].size <= LISTED_CELLS:
                changes[name] = list(zip(*(axis.tolist() for axis in parts[0])))
                continue
            mask = np.zeros(self.live(name).shape, dtype=bool)
            for part in parts:
                mask[part] = True
            changes[name] = mask
        return changes

    def compute(self, state: State | None = None, full: bool = False) -> EditedTrace:
        """The trace of `state` (default: the current arrays) from the current trace and the
        dirty cells. Lesson sizes (under SMALL_WORK) run the full forward: as fast, and
        bit-identical to core.block.forward."""
        config, weights, inputs = (self.config, self.weights, self.inputs) if state is None else \
            (state.config, state.weights, state.inputs)
        if full or self._dirty and forward_work(config, np.shape(inputs)[0]) < SMALL_WORK:
            trace = forward(config, weights, inputs)
            if full:
                return EditedTrace(dict(trace.items()), trace, full=True)
            return self._sharing(trace)
        if not self._dirty:
            return EditedTrace(dict(self.trace.items()), (), full=False, updates=getattr(self.trace, "updates", 0))
        return recompute(config, weights, inputs, self.trace, self._changes())

    def _sharing(self, trace: Trace) -> EditedTrace:
        """`trace` (a full forward after an edit) with every array that holds exactly the numbers
        of the current trace's array replaced by that very array: as after core's incremental
        recompute, views skip (and do not repaint) what the edit did not change. A W_in edit
        leaves the attention half as it was; the full forward had made every array new."""
        before = self.trace
        hooks, recomputed = {}, []
        for name, array in trace.items():
            old = before.get(name)
            # the same bits (lesson-sized arrays: a bytes compare is ~50 times faster than array_equal)
            if old is not None and old.shape == array.shape and old.dtype == array.dtype \
                    and old.tobytes() == array.tobytes():
                hooks[name] = old
            else:
                hooks[name] = array
                recomputed.append(name)
        return EditedTrace(hooks, recomputed, full=False)

    def forget_changes(self) -> None:
        self._dirty = {}

    def commit(self, trace: Trace) -> None:
        """`trace` is the trace of the current arrays: keep it, and the mse."""
        self.forget_changes()
        self.stale = False
        self.trace = trace
        self.mse = None if self.targets is None else mse(trace.output, self.targets)
