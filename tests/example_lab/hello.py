"""The hello lab's math: the number the learner selected. Pure NumPy, no Qt."""
from __future__ import annotations

import numpy as np

from core.block import Trace


def selected_value(trace: Trace, hook: str, index: tuple[int, ...]) -> float:
    """trace[hook][index]: the selected hook's value at the selected cell."""
    return float(np.asarray(trace[hook])[index])
