"""Extreme numbers, said plainly: the words and marks every view uses where a value is not finite
(or would not be in half precision), and the watch that tells the status line.

core.finite finds the problems (per hook, per cell); this module words them through tr() under
the context "FiniteMarks" and keeps one `FiniteWatch` per Session: it remembers each hook's
issues by the identity of its array (an edit shares every array it did not recompute, so only
recomputed hooks are looked at again) and says in the status line which hook went non-finite
first, and again when every value is finite once more.
"""
from __future__ import annotations

import weakref

import numpy as np
from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QColor

from app.session import Change, Session
from app.widgets.appearance import appearance
from core.finite import FLOAT16_MAX, Cell, HookIssue, Problem, cell_marks, hook_issues, with_origins
from core.numbers import NumberKind, format_number

CONTEXT = "FiniteMarks"
SEVERE_CELLS = (Cell.OVERFLOW, Cell.UNDEFINED)
NOTE_CELLS = (Cell.ZERO_SPREAD, Cell.BEYOND_FLOAT16)


def tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def number_words() -> dict[NumberKind, str]:
    """What a value that is not finite reads as in a cell (a masked score keeps its −∞)."""
    return {NumberKind.NAN: tr("undefined"), NumberKind.POSITIVE_INFINITY: tr("overflow"),
            NumberKind.NEGATIVE_INFINITY: tr("−overflow")}


def cell_text(value: float, mark: int, decimals: int = 6) -> str:
    """A cell's number, or its word when it is an overflow or undefined."""
    if mark in SEVERE_CELLS:
        return format_number(value, decimals, words=number_words())
    return format_number(value, decimals)


def cell_reason(mark: int) -> str:
    """Why a marked cell is marked, one sentence; "" for an ordinary cell."""
    if mark == Cell.OVERFLOW:
        return tr("Overflow: the result is beyond the largest float64 (about 1.8e308), so it is ±∞.")
    if mark == Cell.UNDEFINED:
        return tr("Undefined (NaN): ∞ − ∞, 0·∞ or ∞/∞ after an overflow has no value.")
    if mark == Cell.ZERO_SPREAD:
        return tr("0/0: ε = 0 on a constant row makes the norm's scale 0; the value is shown as 0.")
    if mark == Cell.BEYOND_FLOAT16:
        return tr("Beyond %1: this value would overflow in half precision (float16).").replace(
            "%1", format_number(FLOAT16_MAX, 0))
    return ""


def issue_text(issue: HookIssue) -> str:
    """One line about one issue of one hook: what, how many cells, where it began."""
    count = str(issue.count)
    if issue.problem is Problem.OVERFLOW:
        text = tr("overflow: %1 values beyond float64's range (±∞)").replace("%1", count)
    elif issue.problem is Problem.UNDEFINED:
        text = tr("undefined: %1 values are NaN (∞ − ∞ or 0·∞)").replace("%1", count)
    elif issue.problem is Problem.ZERO_SPREAD:
        text = tr("0/0: %1 values of a constant row with ε = 0, shown as 0").replace("%1", count)
    elif issue.problem is Problem.BEYOND_BFLOAT16:
        text = tr("%1 values beyond bfloat16's largest (3.4e38): would overflow in bfloat16 and float16"
                  ).replace("%1", count)
    elif issue.problem is Problem.BEYOND_FLOAT16:
        text = tr("%1 values beyond float16's largest (65504): would overflow in half precision").replace("%1", count)
    else:
        text = tr("%1 scores above 709.78: a naive softmax would overflow; the row maximum is subtracted first"
                  ).replace("%1", count)
    if issue.origin:
        text += " " + tr("(from %1)").replace("%1", issue.origin)
    return text


def problem_colour(severe: bool) -> QColor:
    """Red for a value that is not finite, amber for a note."""
    return QColor(appearance().colours.bad) if severe else QColor("#b36b00")


class FiniteWatch(QObject):
    """The issues of the Session's current trace, hook by hook, kept up to date lazily; says in the
    status line which hook went non-finite first and when every value is finite again."""

    def __init__(self, session: Session):
        super().__init__(session)
        self.setObjectName("finiteWatch")
        self.session = session
        self._issues: dict[str, tuple[object, object, list[HookIssue]]] = {}
        self._whole: tuple[object, object, list[HookIssue]] | None = None    # all_issues() of a trace
        self._said: tuple[str, str] | None = None
        session.changed.connect(self._on_changed)
        self._on_changed(Change.TRACE)

    def issues(self, hook: str) -> list[HookIssue]:
        """The hook's issues in the current trace ([] when every value is ordinary)."""
        session = self.session
        array, config = session.trace[hook], session.config
        known = self._issues.get(hook)
        if known is not None and known[0] is array and (known[1] is config or known[1] == config):
            return known[2]
        found = hook_issues(config, session.trace, hook)
        self._issues[hook] = (array, config, found)
        return found

    def all_issues(self) -> list[HookIssue]:
        """Every hook's issues in trace order; a severe one after the first names it as its origin.
        Found once per trace: the status line, the checks, the diagram and the inspector all ask
        after each edit (each edit makes a new trace object; the list is not to be changed)."""
        trace, config = self.session.trace, self.session.config
        whole = self._whole
        if whole is None or whole[0] is not trace or not (whole[1] is config or whole[1] == config):
            whole = self._whole = (trace, config, with_origins(
                issue for hook in trace for issue in self.issues(hook)))
        return whole[2]

    def first_severe(self) -> HookIssue | None:
        return next((issue for issue in self.all_issues() if issue.problem.severe), None)

    def any_severe(self) -> bool:
        """Whether some value of the trace is not finite (the usual answer, no, in one look)."""
        return self.first_severe() is not None

    def marks(self, hook: str) -> np.ndarray | None:
        """Cell codes of the hook (core.finite.Cell), or None when no cell needs a mark."""
        if not self.issues(hook):
            return None
        return cell_marks(self.session.config, self.session.trace, hook)

    def severe_hooks(self) -> set[str]:
        return {issue.hook for issue in self.all_issues() if issue.problem.severe}

    def _on_changed(self, change: Change) -> None:
        if not change & (Change.TRACE | Change.LOADED):
            return
        for hook in [h for h in self._issues if h not in self.session.trace]:
            del self._issues[hook]
        first = self.first_severe()
        said = None if first is None else (first.hook, first.problem.value)
        previous, self._said = self._said, said
        if first is not None:              # again after every edit: an edit clears the status line
            self.session.message.emit(self.status_text(first))
        elif previous is not None:
            self.session.message.emit(tr("Every value is finite again."))

    @staticmethod
    def status_text(first: HookIssue) -> str:
        what = tr("overflow") if first.problem is Problem.OVERFLOW else tr("undefined (NaN)")
        return (tr("⚠ %1 went non-finite first (%2); what follows it is marked in red. "
                   "Bring the value back to recover.").replace("%1", first.hook).replace("%2", what))


_WATCHES: "weakref.WeakKeyDictionary[Session, FiniteWatch]" = weakref.WeakKeyDictionary()


def watch_for(session: Session) -> FiniteWatch:
    """The one FiniteWatch of `session` (made on first use)."""
    watch = _WATCHES.get(session)
    if watch is None:
        watch = _WATCHES[session] = FiniteWatch(session)
    return watch


__all__ = ["FiniteWatch", "watch_for", "cell_text", "cell_reason", "issue_text", "number_words", "problem_colour"]
