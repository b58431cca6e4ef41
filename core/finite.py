"""Numbers that are not ordinary: where a trace is not finite (or would not be in a smaller
float type), and why, hook by hook.

The forward pass never raises and never warns on extreme numbers (core.functions.quiet): an
overflow becomes ±inf, inf − inf becomes NaN, and both travel on through the block. This module
finds them so that a view can say so plainly instead of showing "inf" or "nan" silently.

Problems (`Problem`), the serious ones first:
- OVERFLOW: ±inf, a result beyond float64's range (≈ 1.8e308);
- UNDEFINED: NaN, from inf − inf, 0·inf or inf/inf after an overflow (or 0/0);
- ZERO_SPREAD: a norm's scale is 0 (ε = 0 on a constant row): the normalized row is 0/0, which
  the engine takes as 0 — finite, but not a normalized row;
notes on finite values (what would happen in a smaller float type or a naive formula):
- BEYOND_BFLOAT16: |value| > 3.39e38, would overflow in bfloat16 (and float16);
- BEYOND_FLOAT16: |value| > 65,504, would overflow in float16 (half precision);
- NAIVE_SOFTMAX: a score above 709.78, whose exp overflows float64: a softmax without the
  row-maximum subtraction would return NaN (Block Lab's does subtract it).

A masked attention score is −∞ by design (exp(−∞) = 0): it is `Cell.MASKED`, never a problem.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, IntEnum

import numpy as np

from core.block import Trace, causal_mask
from core.config import BlockConfig

FLOAT16_MAX = 65504.0                              # the largest finite float16
BFLOAT16_MAX = float((2 - 2 ** -7) * 2.0 ** 127)   # ≈ 3.3895e38, the largest finite bfloat16
EXP_LIMIT = math.log(np.finfo(np.float64).max)     # ≈ 709.78: exp of anything larger is inf


class Problem(str, Enum):
    OVERFLOW = "overflow"
    UNDEFINED = "undefined"
    ZERO_SPREAD = "zero_spread"
    BEYOND_BFLOAT16 = "beyond_bfloat16"
    BEYOND_FLOAT16 = "beyond_float16"
    NAIVE_SOFTMAX = "naive_softmax"

    @property
    def severe(self) -> bool:
        """Not a number the trace can show as it is (OVERFLOW, UNDEFINED)."""
        return self in (Problem.OVERFLOW, Problem.UNDEFINED)


class Cell(IntEnum):
    """What one cell is, for a view that marks cells (`cell_marks`)."""
    FINE = 0
    MASKED = 1            # −∞ from the causal mask: as designed
    OVERFLOW = 2          # ±inf
    UNDEFINED = 3         # NaN
    ZERO_SPREAD = 4       # 0/0 of a constant row with ε = 0, shown as 0
    BEYOND_FLOAT16 = 5    # finite, |value| > FLOAT16_MAX (bfloat16 too if > BFLOAT16_MAX)


@dataclass(frozen=True)
class HookIssue:
    hook: str
    problem: Problem
    count: int                      # how many cells
    first: tuple[int, ...]          # the first such cell (row-major order)
    peak: float                     # the largest |value| among them (inf for OVERFLOW, NaN for UNDEFINED)
    origin: str | None = None       # severe problems: the hook where non-finite values began, if earlier


def _scale_hook(hook: str) -> str | None:
    """The scale hook whose zero rows make `hook`'s rows 0/0 (a norm's normalized value)."""
    if hook.endswith(".hook_normalized"):
        return hook.removesuffix("normalized") + "scale"
    if hook.endswith("_normalized"):                       # attn.hook_q_normalized → attn.hook_q_scale
        return hook.removesuffix("normalized") + "scale"
    if hook.endswith("scale"):
        return hook
    return None


def _masked(config: BlockConfig, hook: str, array: np.ndarray) -> np.ndarray | None:
    """Where `hook` is −∞ because of the causal mask (attention scores only)."""
    if hook != "attn.hook_attn_scores" or config.mask != "causal":
        return None
    return np.broadcast_to(causal_mask(array.shape[-1]), array.shape) & (array == -np.inf)


def cell_marks(config: BlockConfig, trace: Trace, hook: str) -> np.ndarray:
    """A `Cell` code (uint8) for every cell of `hook`, in its shape."""
    array = np.asarray(trace[hook])
    marks = np.zeros(array.shape, dtype=np.uint8)
    with np.errstate(all="ignore"):
        marks[np.abs(array) > FLOAT16_MAX] = Cell.BEYOND_FLOAT16
        scale = _scale_hook(hook)
        if scale is not None and scale in trace:
            marks[np.broadcast_to(np.asarray(trace[scale]) == 0, array.shape)] = Cell.ZERO_SPREAD
        marks[np.isinf(array)] = Cell.OVERFLOW
        marks[np.isnan(array)] = Cell.UNDEFINED
        masked = _masked(config, hook, array)
        if masked is not None:
            marks[masked] = Cell.MASKED
    return marks


def _issue(hook: str, problem: Problem, where: np.ndarray, array: np.ndarray) -> HookIssue:
    count = int(np.count_nonzero(where))
    first = tuple(int(i) for i in np.unravel_index(int(np.argmax(where.ravel())), where.shape))
    values = np.abs(array[where])
    peak = float(values.max()) if problem is not Problem.UNDEFINED else math.nan
    return HookIssue(hook, problem, count, first, peak)


def _ordinary(trace: Trace, hook: str, array: np.ndarray) -> bool:
    """The common case in two reductions (no temporary arrays): every value finite and within
    float16, no zero spread under a norm, not the scores. hook_issues is then [] without
    building the cell marks (several full passes: 10 ms a hook at GPT-2-small size)."""
    if hook == "attn.hook_attn_scores" or array.dtype.kind not in "fiu":
        return False
    with np.errstate(all="ignore"):
        high, low = array.max(), array.min()
    if not (high <= FLOAT16_MAX and -low <= FLOAT16_MAX):        # NaN compares False
        return False
    return _spread_kept(trace, hook)


def _spread_kept(trace: Trace, hook: str) -> bool:
    """No zero spread under the norm that `hook` is part of (True for a hook of no norm)."""
    scale = _scale_hook(hook)
    return scale is None or scale not in trace or bool(np.all(np.asarray(trace[scale]) != 0))


def _only_large(trace: Trace, hook: str, array: np.ndarray) -> bool:
    """Every value finite and no zero spread under a norm, not the scores: then the only thing out
    of the ordinary can be values beyond float16 (a weight pushed to ±1e5 and more), and the cell
    marks (a dozen passes) are not needed: 18 µs against 34 for a 4 × 2 hook, 0.25 ms against 2.5
    for GPT-2-small's 64 × 3,072 hidden units."""
    if hook == "attn.hook_attn_scores" or array.dtype.kind not in "fiu":
        return False
    with np.errstate(all="ignore"):
        if not (np.isfinite(array.max()) and np.isfinite(array.min())):     # an inf or a NaN somewhere
            return False
    return _spread_kept(trace, hook)


def hook_issues(config: BlockConfig, trace: Trace, hook: str) -> list[HookIssue]:
    """What is out of the ordinary in one hook, the most serious first; [] when nothing is."""
    array = np.asarray(trace[hook])
    if not array.size:
        return []
    if _ordinary(trace, hook, array):
        return []
    if _only_large(trace, hook, array):
        magnitude = np.abs(array)
        peak = magnitude.max()
        if peak > BFLOAT16_MAX:
            return [_issue(hook, Problem.BEYOND_BFLOAT16, magnitude > BFLOAT16_MAX, array)]
        if peak > FLOAT16_MAX:
            return [_issue(hook, Problem.BEYOND_FLOAT16, magnitude > FLOAT16_MAX, array)]
        return []
    return _marked_issues(config, trace, hook, array)


def _marked_issues(config: BlockConfig, trace: Trace, hook: str, array: np.ndarray) -> list[HookIssue]:
    """hook_issues from the cell marks: every kind of issue (the general way)."""
    marks = cell_marks(config, trace, hook)
    found = []
    for code, problem in ((Cell.OVERFLOW, Problem.OVERFLOW), (Cell.UNDEFINED, Problem.UNDEFINED),
                          (Cell.ZERO_SPREAD, Problem.ZERO_SPREAD)):
        where = marks == code
        if where.any():
            found.append(_issue(hook, problem, where, array))
    with np.errstate(all="ignore"):
        magnitude = np.where(np.isfinite(array), np.abs(array), 0.0)
    if magnitude.max() > BFLOAT16_MAX:
        found.append(_issue(hook, Problem.BEYOND_BFLOAT16, magnitude > BFLOAT16_MAX, array))
    elif magnitude.max() > FLOAT16_MAX:
        found.append(_issue(hook, Problem.BEYOND_FLOAT16, magnitude > FLOAT16_MAX, array))
    if hook == "attn.hook_attn_scores":
        high = np.isfinite(array) & (array > EXP_LIMIT)
        if high.any():
            found.append(_issue(hook, Problem.NAIVE_SOFTMAX, high, array))
    return found


def check(config: BlockConfig, trace: Trace, hooks: Iterable[str] | None = None) -> list[HookIssue]:
    """Every hook's issues in trace order (`hooks`: only these). A severe issue after the first
    hook that went non-finite names that hook as its `origin`."""
    wanted = None if hooks is None else set(hooks)
    return with_origins(issue for hook in trace if wanted is None or hook in wanted
                        for issue in hook_issues(config, trace, hook))


def with_origins(issues: Iterable[HookIssue]) -> list[HookIssue]:
    """`issues` (in trace order), each severe one after the first hook that went non-finite
    naming that hook as its `origin`."""
    found: list[HookIssue] = []
    origin: str | None = None
    for issue in issues:
        if issue.problem.severe:
            if origin is None:
                origin = issue.hook
            elif origin != issue.hook:
                issue = HookIssue(issue.hook, issue.problem, issue.count, issue.first, issue.peak, origin)
        found.append(issue)
    return found


def first_non_finite(issues: Iterable[HookIssue]) -> HookIssue | None:
    """The first severe issue (the hook where the trace stopped being finite), or None."""
    return next((issue for issue in issues if issue.problem.severe), None)


def all_finite(trace: Trace, config: BlockConfig) -> bool:
    """True when every value is finite, masked scores aside."""
    return first_non_finite(check(config, trace)) is None
