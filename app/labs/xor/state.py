"""The lab's own state beside the Session: the naive line's a, b, c, and what the table implies."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from app.labs.xor.common import trimmed
from core.labs import xor as lab


class LinearModel(QObject):
    """The naive lab's ŷ = a·p + b·n + c: three numbers, which one was touched last. They are
    not part of the block, so they live here rather than in the Session."""

    changed = Signal()

    def __init__(self, a: float = 1.0, b: float = 1.0, c: float = 0.0, parent: QObject | None = None):
        super().__init__(parent)
        self.initial = lab.Linear(a, b, c)
        self.model = self.initial
        self.last = "a"

    def reset(self) -> None:
        """Back to the values it started with (a new lesson step, or "reset this step")."""
        self.last = "a"
        self.set_all(self.initial)

    def value(self, name: str) -> float:
        return self.model.value(name)

    def set(self, name: str, value: float) -> None:
        self.last = name
        if self.model.value(name) != value:
            self.model = self.model.with_value(name, value)
            self.changed.emit()

    def set_all(self, model: lab.Linear) -> None:
        if model != self.model:
            self.model = model
            self.changed.emit()


class TableFacts:
    """What depends on the table's inputs and targets only: the best line and its MSE, the MSE
    of guessing 0.5, the targets at the four corners. Recomputed only when the table changes."""

    def __init__(self):
        self.key: tuple | None = None
        self.best = lab.Linear(0.0, 0.0, 0.0)
        self.best_mse = 0.0
        self.guess_mse = 0.0
        self.target_corners: dict | None = None
        self.target_sides: tuple[float, float] | None = None

    def update(self, session) -> bool:
        """Recompute from the session's table if it changed; True if it did."""
        state = session.state
        key = (state.inputs.tobytes(), state.targets.tobytes(), session.tokens)
        if key == self.key:
            return False
        self.key = key
        self.best, self.best_mse = lab.best_linear(state.inputs, state.targets)
        self.guess_mse = lab.constant_mse(state.targets)
        self.target_corners = lab.target_corners(state.inputs, state.targets)
        self.target_sides = lab.target_sides(state.inputs, state.targets)
        return True

    def target_sums_text(self, separator: str = ", ") -> str:
        """"y(1,0) + y(0,1) = 1 + 1 = 2, y(1,1) + y(0,0) = 0 + 0 = 0"."""
        y, sides = self.target_corners, self.target_sides
        return (f"y(1,0) + y(0,1) = {trimmed(y[(1.0, 0.0)])} + {trimmed(y[(0.0, 1.0)])} = {trimmed(sides[0])}"
                f"{separator}y(1,1) + y(0,0) = {trimmed(y[(1.0, 1.0)])} + {trimmed(y[(0.0, 0.0)])} = "
                f"{trimmed(sides[1])}")
