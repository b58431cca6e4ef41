"""The Session: owner of the current scenario, its undo stack and its trace.

Every edit is an undo command that goes through here; after each change the Session asks
`core` for a new trace and emits one signal, `traceChanged`, that every view listens to.
"""
from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from core.analysis import Invariant, invariants
from core.block import Trace, forward, mse
from core.config import BlockConfig, ConfigError, weight_shapes
from core.formats.scenario import MAX_ABS_VALUE, Scenario, check_finite
from core.incremental import trace_after
from core.numbers import format_short, parse_number  # noqa: F401  (parse_number: views import it from here too)
from core.weights import adapt_weights, filled

INPUTS = "inputs"
TARGETS = "targets"


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


@dataclass(frozen=True)
class State:
    """Everything an undo step restores."""
    config: BlockConfig
    inputs: np.ndarray
    weights: Mapping[str, np.ndarray]
    targets: np.ndarray | None


class _StateCommand(QUndoCommand):
    """Swap between two whole states. Consecutive drags of one cell merge into one step."""

    def __init__(self, session: "Session", before: State, after: State, text: str, merge_key: object = None):
        super().__init__(text)
        self._session, self._before, self._after, self._merge_key = session, before, after, merge_key

    def id(self) -> int:
        return 1 if self._merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, _StateCommand) or other._merge_key != self._merge_key:
            return False
        self._after = other._after
        self.setText(other.text())
        return True

    def redo(self) -> None:
        self._session._apply(self._after)

    def undo(self) -> None:
        self._session._apply(self._before)


class Session(QObject):
    changed = Signal(object)         # one Change per user action or load: every view listens here
    message = Signal(str)            # one line for the status bar

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
        self._load(scenario)

    # --- reading --------------------------------------------------------------------------
    @property
    def config(self) -> BlockConfig:
        return self.state.config

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.scenario.tokens

    @property
    def scenario(self) -> Scenario:
        s = self.state
        return replace(self.loaded, config=s.config, inputs=s.inputs, weights=dict(s.weights), targets=s.targets)

    def tensor_names(self) -> list[str]:
        """Every editable tensor: the input embeddings, the weights, and targets if any."""
        names = [INPUTS, *self.state.weights]
        if self.state.targets is not None:
            names.append(TARGETS)
        return names

    def tensor(self, name: str) -> np.ndarray:
        if name == INPUTS:
            return self.state.inputs
        if name == TARGETS:
            if self.state.targets is None:
                raise KeyError(name)
            return self.state.targets
        return self.state.weights[name]

    def selected_index(self, hook: str | None = None) -> tuple[int, ...] | None:
        """The selected cell of a hook (of the selected hook by default), clamped to its shape."""
        hook = hook or self.selected_hook
        if hook not in self.trace:
            return None
        shape = self.trace[hook].shape
        token = min(self.selected_token, shape[-2] - 1)
        column = min(self.selected_column, shape[-1] - 1)
        if len(shape) == 3:
            return (min(self.selected_head, shape[0] - 1), token, column)
        return (token, column)

    def invariants(self) -> list[Invariant]:
        return invariants(self.config, self.trace)

    # --- loading --------------------------------------------------------------------------
    def _load(self, scenario: Scenario, state: State | None = None) -> None:
        state = state or State(scenario.config, scenario.inputs, dict(scenario.weights), scenario.targets)
        trace = self._forward(state)          # first: if this fails, nothing open has changed
        self.loaded = scenario
        # Weights to restore when a part or a shape comes back, by (name, shape).
        self._shelf: dict[tuple[str, tuple[int, ...]], np.ndarray] = {}
        self._heads = (scenario.config.n_heads, scenario.config.d_head) if scenario.config.attention else (2, 2)
        self.undo_stack.clear()
        self.mse_history = []
        self.selected_token = self.selected_head = self.selected_column = 0
        self.selected_hook = "hook_resid_post"
        first_matrix = next(name for name in scenario.weights if name.startswith("W_"))
        self.edit_tensor, self.edit_index = first_matrix, (0,) * scenario.weights[first_matrix].ndim
        self._remember(scenario.weights)
        self._apply(state, notify=False, trace=trace)

    def load(self, scenario: Scenario, state: State | None = None) -> None:
        """Replace the scenario (already validated by core); clears undo history.

        `state`, if given, is shown instead of the scenario's own (a lesson step the learner
        had edited); "reset" still goes back to `scenario`."""
        self._load(scenario, state)
        self.changed.emit(Change.ALL)

    @staticmethod
    def _forward(state: State) -> Trace:
        return forward(state.config, state.weights, state.inputs)

    def _next_trace(self, state: State) -> Trace:
        """The trace of `state`. An edit of the current state (same config, same number of
        tokens; the weights dicts share every array but the edited ones) is recomputed
        incrementally by core: only what the changed cells can change. Undo, redo and drags
        are such edits too. Anything else runs the full forward."""
        current = getattr(self, "state", None)
        if current is None or state.config != current.config or np.shape(state.inputs) != np.shape(current.inputs):
            return self._forward(state)
        return trace_after(state.config, current.weights, current.inputs, self.trace, state.weights, state.inputs)

    def _remember(self, weights: Mapping[str, np.ndarray]) -> None:
        self._shelf.update({(name, np.shape(array)): array for name, array in weights.items()})

    def _apply(self, state: State, notify: bool = True, trace: Trace | None = None) -> None:
        trace = self._next_trace(state) if trace is None else trace
        self.state = state
        self._remember(state.weights)
        self.trace: Trace = trace
        self.mse = None if state.targets is None else mse(self.trace.output, state.targets)
        if self.mse is not None:
            self.mse_history.append(self.mse)
        if self.edit_tensor not in self.tensor_names():
            self.edit_tensor = INPUTS
        self.edit_index = tuple(min(i, n - 1) for i, n in zip(self.edit_index, self.tensor(self.edit_tensor).shape))
        if len(self.edit_index) != self.tensor(self.edit_tensor).ndim:
            self.edit_index = (0,) * self.tensor(self.edit_tensor).ndim
        if self.selected_hook not in self.trace:
            self.selected_hook = "hook_resid_post"
        if notify:
            self.changed.emit(Change.TRACE)

    def push_state(self, state: State, text: str) -> None:
        """Show a whole earlier state as one undo step (a lesson step's kept edits)."""
        self._push(state, text)

    def _push(self, after: State, text: str, merge_key: object = None) -> None:
        self.undo_stack.push(_StateCommand(self, self.state, after, text, merge_key))

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
        """Put one number in one cell of a tensor; False (and a message) if it is refused."""
        problem = self.check_value(value, text)
        if problem:
            self.message.emit(problem)
            return False
        self._clear_message()
        current = self.tensor(tensor)
        index = tuple(int(i) for i in index)
        if current[index] == value:
            return True
        changed = np.array(current, dtype=np.float64)
        changed[index] = value
        label = self.tr("Set %1%2 = %3").replace("%1", tensor).replace("%2", str(list(index))).replace("%3", format_short(value))
        if merge:
            now = self.clock()
            if now - self._last_merge > self.GESTURE_GAP_S:
                self.end_gesture()
            self._last_merge = now
        self._push(self._with_tensor(tensor, changed), label, (tensor, index, self._gesture) if merge else None)
        return True

    GESTURE_GAP_S = 1.0   # a pause this long between drag steps starts a new undo step

    def end_gesture(self) -> None:
        """The current drag is over: the next merged edit starts a new undo step."""
        self._gesture += 1

    def set_tensor(self, tensor: str, array: np.ndarray, text: str) -> bool:
        """Replace a whole tensor in one undo step (paste, zero, identity, random, reset)."""
        array = np.asarray(array, dtype=np.float64)
        if array.shape != self.tensor(tensor).shape:
            self.message.emit(self.tr("%1 needs shape %2; nothing changed.")
                              .replace("%1", tensor).replace("%2", "×".join(map(str, self.tensor(tensor).shape))))
            return False
        if not np.all(np.isfinite(array)) or np.any(np.abs(array) > MAX_ABS_VALUE):
            self.message.emit(self.tr("Values must be finite and within ±1,000,000; nothing changed."))
            return False
        self._clear_message()
        if np.array_equal(array, self.tensor(tensor)):
            return True
        self._push(self._with_tensor(tensor, array), text)
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
        return self.set_tensor(tensor, filled(shape, fill, seed), text)

    def reset_tensor(self, tensor: str) -> bool:
        """Back to the scenario as loaded (if the tensor existed then with this shape)."""
        original = self.loaded_tensor(tensor)
        if original is None or original.shape != self.tensor(tensor).shape:
            self.message.emit(self.tr("%1 was not in the scenario as loaded; nothing to reset to.").replace("%1", tensor))
            return False
        return self.set_tensor(tensor, original, self.tr("Reset %1").replace("%1", tensor))

    def reset_all(self) -> None:
        loaded = self.loaded
        self._push(State(loaded.config, loaded.inputs, dict(loaded.weights), loaded.targets),
                   self.tr("Reset everything"))

    def loaded_tensor(self, tensor: str) -> np.ndarray | None:
        if tensor == INPUTS:
            return self.loaded.inputs
        if tensor == TARGETS:
            return self.loaded.targets
        return self.loaded.weights.get(tensor)

    def _with_tensor(self, tensor: str, array: np.ndarray) -> State:
        s = self.state
        if tensor == INPUTS:
            return replace(s, inputs=array)
        if tensor == TARGETS:
            return replace(s, targets=array)
        return replace(s, weights={**s.weights, tensor: array})

    def use_output_as_targets(self) -> None:
        self._push(replace(self.state, targets=np.array(self.trace.output)), self.tr("Use the current output as target"))
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
        pool = {name: self._shelf[(name, shape)] for name, shape in weight_shapes(config).items()
                if (name, shape) in self._shelf}
        weights, created = adapt_weights(pool, config)
        targets = self.state.targets
        if targets is not None and targets.shape[1] != config.output_width:
            targets = None
        summary = ", ".join(f"{key} = {value}" for key, value in changes.items())
        self._push(State(config, self.state.inputs, weights, targets), self.tr("Set %1").replace("%1", summary))
        if created:
            self.message.emit(self.tr("Created %1 for the new shape: matrices seeded random (seed 0), gains 1, biases 0.")
                              .replace("%1", ", ".join(created)))
        return True

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

    def set_highlight(self, hooks=(), cells=()) -> None:
        """Point at hooks (diagram nodes) and cells ((hook, index) pairs): a lesson step or a
        clicked formula term. Hooks not in the trace are ignored by the views."""
        highlight = Highlight(frozenset(hooks) | {hook for hook, _ in cells},
                              tuple((hook, tuple(index)) for hook, index in cells))
        if highlight != self.highlight:
            self.highlight = highlight
            self.changed.emit(Change.HIGHLIGHT)
