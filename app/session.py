"""The Session: owner of the current scenario, its undo stack and its trace.

Every edit is an undo command that goes through here; after each change the Session asks
`core` for a new trace and emits one signal, `changed(Change)`, that every view listens to.

How an edit is stored (so that a cell edit costs O(cells), at any size)
-----------------------------------------------------------------------
The current arrays and their trace live in a `LiveBlock` (app/live_block.py), edited in
place. A cell edit (`set_value`, a paste or a reset that changes few cells) is an undo step
holding only the cells: the tensor's name, their indices, old and new values. Redo writes the
new values, undo the old ones, and the changed cells go straight to
`core.incremental.recompute`: nothing searches for what changed, nothing copies the tensor.
A whole-state step (a fill, a paste of most of a tensor, a config change, reset everything,
a lesson's kept state) keeps only the arrays that differ between before and after (an
activation change keeps none), and those arrays are never written again.

Copy-on-write: the Session writes only into arrays it allocated and nothing else holds. An
array from the loaded scenario, from a kept state, or kept by a whole-state step is copied
once before its first cell edit (a GPT-2-small W_in: 19 MB, tens of ms). `select_edit_cell`
makes that copy in idle time, so that a drag of the chosen cell never waits for it.

What the Session hands out
--------------------------
- `session.tensor(name)`: a read-only view of the current array. It follows edits (a cell
  edit changes it in place): read it again on `changed`, never keep it as a record.
- `session.state`: a snapshot (config, inputs, weights, targets) of read-only views that
  never changes afterwards, however the Session is edited. It costs no copy: while a
  snapshot is alive, the Session copies a tensor before writing into it (copy-on-write); a
  snapshot nobody keeps costs nothing. Keep it to restore it later with `push_state` (a
  lesson step's edits) or `load(scenario, state)`; a view that kept one across edits would
  make every edited tensor be copied once more, so views read `tensor()` and keep nothing.
  `session.scenario` is the same snapshot as a Scenario (what Save writes).
- `session.trace`: the trace of the current block. core never changes a trace's arrays (they
  are read-only); every update is a new Trace (an `EditedTrace` saying what was recomputed).
  `session.trace` and `session.mse` are always those of the current weights, even between a
  coalesced edit and its frame (reading them then computes the trace, without a signal).

Smooth drags: `set_value_coalesced`
-----------------------------------
A slider or spin box that sends many values per frame calls `set_value_coalesced(tensor,
index, value, text, merge=True)` instead of `set_value`. Each call is checked, written and
recorded in the undo stack at once (so `tensor()`, undo and redo are always current; a
refused value is refused at once, as by set_value); the recompute and the
`changed(Change.TRACE)` notification come once per frame (FRAME_MS), however many values
came in between. `flush()` brings them now; `pending` says whether one is owed. Any other
action (set_value, undo, redo, a config change, a load) brings a pending update along with
its own, in one notification.
"""
from __future__ import annotations

import enum
import math
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from app.live_block import INPUTS, TARGETS, LiveBlock, State, read_only
from core.analysis import Invariant, invariants
from core.block import Trace, forward
from core.config import BlockConfig, ConfigError, weight_shapes
from core.formats.scenario import MAX_ABS_VALUE, Scenario, check_finite
from core.numbers import format_short, parse_number  # noqa: F401  (parse_number: views import it from here too)
from core.weights import adapt_weights, filled, is_gain

__all__ = ["INPUTS", "TARGETS", "Change", "Highlight", "Session", "State"]
# A replacement of a whole tensor that changes at most this fraction of its cells is stored as
# cells (a paste of a small block, a reset after a few edits); more, as the whole arrays.
FEW_CELLS = 1 / 8


class Change(enum.Flag):
    """What a `Session.changed` notification covers; views redraw only what it names."""
    TRACE = enum.auto()          # the trace (and possibly config, shapes, targets)
    SELECTION = enum.auto()      # hook, token, head or column selected
    EDIT_TARGET = enum.auto()    # the tensor cell chosen for editing / sweeping
    HIGHLIGHT = enum.auto()      # what a lesson step or a clicked term points at
    LOADED = enum.auto()         # a new scenario replaced the old one (limits, histories restart)
    ALL = TRACE | SELECTION | EDIT_TARGET | HIGHLIGHT | LOADED


@dataclass(frozen=True)
class Highlight:
    """What to emphasise: hooks (diagram nodes) and cells (hook, index) in the inspector."""
    hooks: frozenset = frozenset()
    cells: tuple = ()

    def __bool__(self) -> bool:
        return bool(self.hooks or self.cells)


class _Command(QUndoCommand):
    """An undo step. It holds the Session weakly: a closed Session's stack must not keep it
    alive through a reference cycle (collecting that cycle crashed PySide)."""

    def __init__(self, session: "Session", text: str, merge_key: object = None):
        super().__init__(text)
        self._session = weakref.ref(session)
        self._merge_key = merge_key

    def id(self) -> int:
        return 1 if self._merge_key is not None else -1


class _CellsCommand(_Command):
    """Some cells of one tensor: their indices, old and new values. Consecutive drags of one
    cell merge into one step (the first old values, the last new ones)."""

    def __init__(self, session: "Session", tensor: str, where: tuple[np.ndarray, ...], old: np.ndarray,
                 new: np.ndarray, text: str, merge_key: object = None):
        super().__init__(session, text, merge_key)
        self.tensor, self.where, self.old, self.new = tensor, where, old, new

    @property
    def nbytes(self) -> int:
        """The bytes of numbers this step keeps (for tests and the benchmark)."""
        return sum(a.nbytes for a in (*self.where, self.old, self.new))

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, _CellsCommand) or other._merge_key != self._merge_key:
            return False
        self.new = other.new
        self.setText(other.text())
        return True

    def redo(self) -> None:
        session = self._session()
        if session is not None:
            session._write(self.tensor, self.where, self.new)

    def undo(self) -> None:
        session = self._session()
        if session is not None:
            session._write(self.tensor, self.where, self.old)


class _StateCommand(_Command):
    """Swap between two whole states (a config change, a whole tensor replaced, a kept state).

    Only what differs is kept: the two configs, and the tensors that are not the very same
    array on both sides (the rest are left as they are when the step is undone or redone, so
    that cell steps before and after it keep writing into them). The arrays kept here are
    frozen: the Session never writes into them (it copies one before its next cell edit)."""

    def __init__(self, session: "Session", before: State, after: State, text: str):
        super().__init__(session, text)
        self._sides = (self._keep(session, before, after), self._keep(session, after, before))

    @staticmethod
    def _keep(session: "Session", side: State, other: State) -> tuple:
        weights = {name: array for name, array in side.weights.items() if other.weights.get(name) is not array}
        inputs = side.inputs if side.inputs is not other.inputs else None
        targets = (side.targets,) if side.targets is not other.targets else None
        for array in (inputs, *weights.values(), *(targets or ())):
            if array is not None:
                session._block.freeze(array)
        return side.config, list(side.weights), weights, inputs, targets

    @property
    def nbytes(self) -> int:
        """The bytes of the arrays this step keeps (each array once)."""
        arrays = {}
        for _config, _names, weights, inputs, targets in self._sides:
            for array in (inputs, *weights.values(), *(targets or ())):
                if array is not None:
                    arrays[id(array)] = array.nbytes
        return sum(arrays.values())

    def _apply(self, side: tuple) -> None:
        session = self._session()
        if session is None:
            return
        config, names, weights, inputs, targets = side
        live = session._block
        state = State(config, live.inputs if inputs is None else inputs,
                      {name: weights[name] if name in weights else live.weights[name] for name in names},
                      live.targets if targets is None else targets[0])
        session._set_state(state)

    def redo(self) -> None:
        self._apply(self._sides[1])

    def undo(self) -> None:
        self._apply(self._sides[0])


class _WholeEdits:
    """The Session's edits of whole tensors and of the config (a part of Session, in a class of
    its own to keep each readable). Few changed cells are stored as a cell step; more, and any
    config change, as a whole-state step that keeps only the arrays that differ."""

    def set_tensor(self, tensor: str, array: np.ndarray, text: str) -> bool:
        """Replace a whole tensor in one undo step (paste, zero, identity, random, reset).
        Few changed cells are stored as cells; more, as the arrays before and after."""
        return self._replace_tensor(tensor, array, text, copy=True)

    def _replace_tensor(self, tensor: str, array: np.ndarray, text: str, copy: bool) -> bool:
        current = self._block.live(tensor)
        array = np.asarray(array, dtype=np.float64)
        if array.shape != current.shape:
            self.message.emit(self.tr("%1 needs shape %2; nothing changed.")
                              .replace("%1", tensor).replace("%2", "×".join(map(str, current.shape))))
            return False
        if not np.all(np.isfinite(array)) or np.any(np.abs(array) > MAX_ABS_VALUE):
            self.message.emit(self.tr("Values must be finite and within ±1,000,000; nothing changed."))
            return False
        self._clear_message()
        differs = array != current
        count = int(np.count_nonzero(differs))
        if count == 0:
            return True
        if count <= FEW_CELLS * array.size:
            where = np.nonzero(differs)
            self._push(_CellsCommand(self, tensor, where, np.array(current[where]), np.array(array[where]), text))
            return True
        replacement = np.array(array) if copy else array
        self._push_state(self._with_tensor(tensor, replacement), text)
        return True

    def _note_message(self, text: str) -> None:
        self._message_shown = bool(text)

    def _clear_message(self) -> None:
        """An accepted edit: a refusal (or any note) still standing no longer applies; an empty
        message clears the status bar."""
        if self._message_shown:
            self.message.emit("")

    def fill_tensor(self, tensor: str, fill: str, seed: int = 0) -> bool:
        shape = self.tensor(tensor).shape
        names = {"zero": self.tr("Zero %1"), "identity": self.tr("Identity %1"),
                 "random": self.tr("Random %1 (seed %2)")}
        text = names[fill].replace("%1", tensor).replace("%2", str(seed))
        return self._replace_tensor(tensor, filled(shape, fill, seed), text, copy=False)

    def reset_tensor(self, tensor: str) -> bool:
        """Back to the scenario as loaded (if the tensor existed then with this shape)."""
        original = self.loaded_tensor(tensor)
        if original is None or original.shape != self.tensor(tensor).shape:
            self.message.emit(self.tr("%1 was not in the scenario as loaded; nothing to reset to.").replace("%1", tensor))
            return False
        return self.set_tensor(tensor, original, self.tr("Reset %1").replace("%1", tensor))

    def reset_all(self) -> None:
        loaded = self.loaded
        self._push_state(State(loaded.config, loaded.inputs, dict(loaded.weights), loaded.targets),
                         self.tr("Reset everything"))

    def loaded_tensor(self, tensor: str) -> np.ndarray | None:
        if tensor == INPUTS:
            return self.loaded.inputs
        if tensor == TARGETS:
            return self.loaded.targets
        return self.loaded.weights.get(tensor)

    def _with_tensor(self, tensor: str, array: np.ndarray) -> State:
        s = self._block.current()
        if tensor == INPUTS:
            return replace(s, inputs=array)
        if tensor == TARGETS:
            return replace(s, targets=array)
        return replace(s, weights={**s.weights, tensor: array})

    def use_output_as_targets(self) -> None:
        targets = np.array(self.trace.output)
        self._push_state(replace(self._block.current(), targets=targets), self.tr("Use the current output as target"))
        self.message.emit(self.tr("The current output is now the target: MSE is 0 until you edit something."))

    def set_config(self, **changes: object) -> bool:
        """Change config options; weights a new shape needs are created deterministically."""
        old = self.config
        if changes.get("attention") is True and not old.attention:
            changes.setdefault("n_heads", self._heads[0])
            changes.setdefault("d_head", self._heads[1])
        try:
            config = old.with_changes(**changes)
        except ConfigError as error:
            self.message.emit(self.tr("Not possible: %1").replace("%1", str(error)))
            return False
        if config == old:
            return True
        if config.attention:
            self._heads = (config.n_heads, config.d_head)
        # Each weight comes back as it last was in this shape; only never-seen shapes are generated.
        pool = self._shelved(config, old.zero_centered)
        # `previous`: switching zero-centred norms converts the kept gains (w ↦ w ∓ 1).
        weights, created = adapt_weights(pool, config, previous=old)
        converted = {name for name in weights if is_gain(name)} if config.zero_centered != old.zero_centered else set()
        # Kept weights are the very arrays (adapt_weights copied them): no copy per config change.
        weights = {name: array if name in created or name in converted else pool[name]
                   for name, array in weights.items()}
        targets = self._block.targets
        if targets is not None and targets.shape[1] != config.output_width:
            targets = None
        summary = ", ".join(f"{key} = {value}" for key, value in changes.items())
        self._push_state(State(config, self._block.inputs, weights, targets), self.tr("Set %1").replace("%1", summary))
        if created:
            self.message.emit(self.tr("Created %1 for the new shape: matrices seeded random (seed 0), gains 1, biases 0.")
                              .replace("%1", ", ".join(created)))
        return True

    def _remember(self, weights: Mapping[str, np.ndarray], zero_centered: bool) -> None:
        """Shelve the weights by (name, shape), with the norm convention their gains are in."""
        self._shelf.update({(name, np.shape(array)): (array, zero_centered) for name, array in weights.items()})

    def _shelved(self, config: BlockConfig, zero_centered: bool) -> dict[str, np.ndarray]:
        """The shelved weights `config`'s shapes take, gains in the `zero_centered` convention."""
        pool = {}
        for name, shape in weight_shapes(config).items():
            if (name, shape) in self._shelf:
                array, centred = self._shelf[(name, shape)]
                if is_gain(name) and centred != zero_centered:
                    array = array + (1.0 if centred else -1.0)
                pool[name] = array
        return pool


class Session(QObject, _WholeEdits):
    changed = Signal(object)         # one Change per user action or load: every view listens here
    message = Signal(str)            # one line for the status bar

    GESTURE_GAP_S = 1.0   # a pause this long between drag steps starts a new undo step
    FRAME_MS = 16         # coalesced edits: at most one update per frame (60 Hz)

    def __init__(self, scenario: Scenario, parent: QObject | None = None,
                 clock: Callable[[], float] = time.monotonic):
        """`clock` (seconds) decides when a pause splits a drag into two undo steps; tests pass
        a fake one so that a loaded machine can neither split nor merge their steps."""
        super().__init__(parent)
        self.clock = clock
        self.undo_stack = QUndoStack(self)
        self.mse_history: list[float] = []
        self.selected_hook = "hook_resid_post"
        self.selected_token = 0
        self.selected_head = 0
        self.selected_column = 0
        self._gesture = 0                  # merged edits belong to one drag: see end_gesture()
        self._last_merge = -math.inf       # when the last merged edit came, on self.clock
        self.edit_tensor = "W_in"
        self.edit_index: tuple[int, ...] = (0, 0)
        self.highlight = Highlight()
        self._message_shown = False        # a message may still stand in the status bar
        self.message.connect(self._note_message)
        self._block: LiveBlock                 # the current arrays and their trace (app/live_block.py)
        self._owed = False                 # a coalesced edit's notification is still to come
        self._deferring = False            # inside set_value_coalesced: defer the update
        self._last_update = -math.inf      # time.monotonic() of the last update (frame pacing)
        self._frame = QTimer(self)
        self._frame.setSingleShot(True)
        self._frame.timeout.connect(self.flush)
        self._prepare = QTimer(self)           # copies the chosen edit tensor in idle time
        self._prepare.setSingleShot(True)
        self._prepare.timeout.connect(self._prepare_edit_tensor)
        self._load(scenario)

    # --- reading --------------------------------------------------------------------------
    @property
    def config(self) -> BlockConfig:
        return self._block.config

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.loaded.tokens

    @property
    def trace(self) -> Trace:
        """The trace of the current block (computed now if a coalesced edit is not yet in it)."""
        return self._up_to_date().trace

    @property
    def mse(self) -> float | None:
        return self._up_to_date().mse

    @property
    def state(self) -> State:
        """A snapshot of the current block that never changes afterwards (read-only arrays; no
        copy is made: the Session copies a tensor before it next writes into it while the
        snapshot is alive)."""
        return self._block.snapshot()

    @property
    def scenario(self) -> Scenario:
        """The current block as a Scenario (a snapshot, as `state`): what Save writes."""
        s = self.state
        return replace(self.loaded, config=s.config, inputs=s.inputs, weights=dict(s.weights), targets=s.targets)

    def tensor_names(self) -> list[str]:
        """Every editable tensor: the input embeddings, the weights, and targets if any."""
        return self._block.names()

    def tensor(self, name: str) -> np.ndarray:
        """A read-only view of a tensor as it is now. It changes in place when a cell is edited
        (then `changed` follows): read it again on `changed`; to keep values, keep `state`."""
        return read_only(self._block.live(name))

    def writes_since(self, name: str, mark: int) -> tuple[int, list | None]:
        """For views that repaint only what changed (`tensor(name)` changes in place, so comparing
        it with the array shown finds nothing). Returns a new mark and what happened to `name`
        since `mark`: the cells written in place (index arrays) and a None each time the array was
        replaced by another (compare those); None instead of a list: too much to tell, redraw all."""
        return self._block.serial, self._block.writes_since(name, mark)

    def selected_index(self, hook: str | None = None) -> tuple[int, ...] | None:
        """The selected cell of a hook (of the selected hook by default), clamped to its shape."""
        hook = hook or self.selected_hook
        trace = self.trace
        if hook not in trace:
            return None
        shape = trace[hook].shape
        token = min(self.selected_token, shape[-2] - 1)
        column = min(self.selected_column, shape[-1] - 1)
        if len(shape) == 3:
            return (min(self.selected_head, shape[0] - 1), token, column)
        return (token, column)

    def invariants(self) -> list[Invariant]:
        return invariants(self.config, self.trace)

    def undo_nbytes(self) -> int:
        """The bytes of numbers the undo stack keeps (cells, and arrays a whole-state step holds)."""
        total = 0
        for position in range(self.undo_stack.count()):
            command = self.undo_stack.command(position)
            total += getattr(command, "nbytes", 0)
        return total

    # --- loading --------------------------------------------------------------------------
    def _load(self, scenario: Scenario, state: State | None = None) -> None:
        state = state or State(scenario.config, scenario.inputs, dict(scenario.weights), scenario.targets)
        trace = forward(state.config, state.weights, state.inputs)   # first: if this fails, nothing open has changed
        self._frame.stop()
        self._prepare.stop()
        self._owed = False
        self.loaded = scenario
        # Weights to restore when a part or a shape comes back, by (name, shape).
        self._shelf: dict[tuple[str, tuple[int, ...]], tuple[np.ndarray, bool]] = {}
        self._heads = (scenario.config.n_heads, scenario.config.d_head) if scenario.config.attention else (2, 2)
        self.undo_stack.clear()
        self.mse_history = []
        self.selected_token = self.selected_head = self.selected_column = 0
        self.selected_hook = "hook_resid_post"
        first_matrix = next(name for name in scenario.weights if name.startswith("W_"))
        self.edit_tensor, self.edit_index = first_matrix, (0,) * scenario.weights[first_matrix].ndim
        self._remember(scenario.weights, scenario.config.zero_centered)
        self._block = LiveBlock(state, trace)
        self._commit()

    def load(self, scenario: Scenario, state: State | None = None) -> None:
        """Replace the scenario (already validated by core); clears undo history.

        `state`, if given, is shown instead of the scenario's own (a lesson step the learner
        had edited: a snapshot from `session.state`); "reset" still goes back to `scenario`."""
        self._load(scenario, state)
        self.changed.emit(Change.ALL)

    # --- bringing the trace up to date ---------------------------------------------------------
    def _up_to_date(self) -> LiveBlock:
        block = self._block
        if block.stale:
            block.commit(block.compute())
            self._commit()
        return block

    def _commit(self) -> None:
        """After a new trace: the mse history, the shelf, an edit cell and a hook that still exist."""
        block = self._block
        if block.mse is not None:
            self.mse_history.append(block.mse)
        self._remember(block.weights, block.config.zero_centered)
        if self.edit_tensor not in block.names():
            self.edit_tensor = INPUTS
        shape = block.live(self.edit_tensor).shape
        self.edit_index = tuple(min(i, n - 1) for i, n in zip(self.edit_index, shape))
        if len(self.edit_index) != len(shape):
            self.edit_index = (0,) * len(shape)
        if self.selected_hook not in block.trace:
            self.selected_hook = "hook_resid_post"

    def _updated(self) -> None:
        """After a command wrote: update now and notify, or (coalescing) at the next frame."""
        if self._deferring:
            self._owed = True
            if not self._frame.isActive():
                since = (time.monotonic() - self._last_update) * 1000.0      # ms (inf before the first)
                self._frame.start(0 if since >= self.FRAME_MS else math.ceil(self.FRAME_MS - since))
            return
        self._notify()

    def _notify(self) -> None:
        self._frame.stop()
        self._owed = False
        self._last_update = time.monotonic()
        self._up_to_date()
        self.changed.emit(Change.TRACE)

    @property
    def pending(self) -> bool:
        """A coalesced edit's update (and its `changed` notification) is still to come."""
        return self._owed

    def flush(self) -> None:
        """Bring a coalesced edit's update now: the trace, then one `changed(TRACE)`."""
        if self._owed:
            self._notify()

    # --- applying undo steps ----------------------------------------------------------------
    def _write(self, tensor: str, where: tuple[np.ndarray, ...], values: np.ndarray) -> None:
        """Put `values` into the cells `where` of `tensor` (a cell step's redo or undo)."""
        self._block.write(tensor, where, values)
        self._updated()

    def _set_state(self, state: State) -> None:
        """Make `state` the current block (a whole-state step's redo or undo). The new trace is
        computed before anything is replaced: if core fails, the block stays as it was."""
        block = self._up_to_date()
        try:
            trace = block.compute(state, full=block.mark_differences(state))
        finally:
            block.forget_changes()
        block.adopt(state)
        block.commit(trace)
        self._commit()
        self._last_update = time.monotonic()
        self._frame.stop()
        self._owed = False
        self.changed.emit(Change.TRACE)

    def push_state(self, state: State, text: str) -> None:
        """Show a whole earlier state as one undo step (a lesson step's kept edits: a snapshot
        from `session.state`)."""
        self._push_state(state, text)

    def _push_state(self, after: State, text: str) -> None:
        self.undo_stack.push(_StateCommand(self, self._block.current(), after, text))

    # --- editing --------------------------------------------------------------------------
    def check_value(self, value: float | None, text: str = "") -> str | None:
        """Why a value cannot go in a cell, or None if it can (the rule is core's check_finite)."""
        if value is None:
            return self.tr("“%1” is not a number; the cell keeps its value.").replace("%1", text[:40])
        if check_finite(value):
            return None
        if math.isnan(value) or math.isinf(value):
            return self.tr("NaN and infinity are not allowed; the cell keeps its value.")
        return self.tr("Values must lie within ±1,000,000; the cell keeps its value.")

    def set_value(self, tensor: str, index: tuple[int, ...], value: float | None, text: str = "",
                  merge: bool = False) -> bool:
        """Put one number in one cell of a tensor; False (and a message) if it is refused.
        The trace is recomputed and `changed(TRACE)` emitted before this returns.
        `merge`: consecutive edits of this cell within one gesture are one undo step."""
        return self._set_cell(tensor, index, value, text, merge, defer=False)

    def set_value_coalesced(self, tensor: str, index: tuple[int, ...], value: float | None, text: str = "",
                            merge: bool = True) -> bool:
        """As set_value, for a slider or a spin box that sends many values per frame: the value
        is checked, written and recorded in the undo stack now, the recompute and the
        `changed(TRACE)` notification come once per frame for all the values sent meanwhile
        (see `flush`, `pending`). Merged (one undo step per drag) unless `merge=False`."""
        return self._set_cell(tensor, index, value, text, merge, defer=True)

    def _set_cell(self, tensor: str, index: tuple[int, ...], value: float | None, text: str, merge: bool,
                  defer: bool) -> bool:
        problem = self.check_value(value, text)
        if problem:
            self.message.emit(problem)
            return False
        self._clear_message()
        current = self._block.live(tensor)
        index = tuple(int(i) for i in index)
        old = current[index]                        # raises for a cell that is not there
        if old == value:
            return True
        label = self.tr("Set %1%2 = %3").replace("%1", tensor).replace("%2", str(list(index))).replace("%3", format_short(value))
        if merge:
            now = self.clock()
            if now - self._last_merge > self.GESTURE_GAP_S:
                self.end_gesture()
            self._last_merge = now
        where = tuple(np.array([i], dtype=np.intp) for i in index)
        command = _CellsCommand(self, tensor, where, np.array([old], dtype=np.float64),
                                np.array([value], dtype=np.float64), label,
                                (tensor, index, self._gesture) if merge else None)
        self._push(command, defer)
        return True

    def _push(self, command: QUndoCommand, defer: bool = False) -> None:
        self._deferring = defer
        try:
            if not self._merged_into_top(command):
                self.undo_stack.push(command)
        finally:
            self._deferring = False

    def _merged_into_top(self, command: QUndoCommand) -> bool:
        """Merge a drag step into the top step here, as QUndoStack.push would. Qt's own merge deletes
        the pushed command, but PySide has already made the stack the Python owner of its wrapper and
        never lets go: one dead command (with its arrays) kept per slider move, for the Session's life
        (the soak's +470 `_CellsCommand`). Only the plain case (top of the stack, not the clean state)
        is handled here; anything else goes to Qt."""
        stack = self.undo_stack
        index = stack.index()
        if command.id() == -1 or index == 0 or index != stack.count() or index == stack.cleanIndex():
            return False
        top = stack.command(index - 1)
        if not isinstance(top, _CellsCommand) or top.id() != command.id() or not top.mergeWith(command):
            return False
        command.redo()
        stack.indexChanged.emit(index)
        stack.undoTextChanged.emit(top.text())
        return True

    def end_gesture(self) -> None:
        """The current drag is over: the next merged edit starts a new undo step."""
        self._gesture += 1

    # --- selection ------------------------------------------------------------------------
    def select(self, hook: str | None = None, token: int | None = None, head: int | None = None,
               column: int | None = None) -> None:
        if hook is not None and hook in self.trace:
            self.selected_hook = hook
        if token is not None:
            self.selected_token = max(0, min(int(token), len(self.tokens) - 1))
        if head is not None:
            self.selected_head = max(0, int(head))
        if column is not None:
            self.selected_column = max(0, int(column))
        self.changed.emit(Change.SELECTION)

    def select_edit_cell(self, tensor: str, index: tuple[int, ...]) -> None:
        if tensor not in self.tensor_names():
            return
        shape = self.tensor(tensor).shape
        if len(index) != len(shape) or any(not 0 <= i < n for i, n in zip(index, shape)):
            return
        self.edit_tensor, self.edit_index = tensor, tuple(int(i) for i in index)
        self.changed.emit(Change.EDIT_TARGET)
        self._prepare.start(0)

    def _prepare_edit_tensor(self) -> None:
        """The first cell edit of a tensor the Session did not allocate copies it (19 MB for a
        GPT-2-small W_in: tens of ms of page faults). A tensor chosen for editing is copied in
        idle time right after the choice, so that a drag never waits for it."""
        if self.edit_tensor in self.tensor_names():
            self._block.writable(self.edit_tensor)

    def set_highlight(self, hooks=(), cells=()) -> None:
        """Point at hooks (diagram nodes) and cells ((hook, index) pairs): a lesson step or a
        clicked formula term. Hooks not in the trace are ignored by the views."""
        highlight = Highlight(frozenset(hooks) | {hook for hook, _ in cells},
                              tuple((hook, tuple(index)) for hook, index in cells))
        if highlight != self.highlight:
            self.highlight = highlight
            self.changed.emit(Change.HIGHLIGHT)
