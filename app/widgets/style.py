"""Shared look: the diverging colour map, value tints, fonts sizes and number format."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont

pg.setConfigOptions(imageAxisOrder="row-major", antialias=True, useOpenGL=False,
                    background="w", foreground="#222222")

# Blue–white–orange, from ColorBrewer's PuOr family: distinguishable with the common colour
# vision deficiencies, white at zero so "nothing" looks like nothing.
_STOPS = [(0.0, "#2d004b"), (0.15, "#542788"), (0.3, "#8073ac"), (0.42, "#b2abd2"), (0.5, "#f7f7f7"),
          (0.58, "#fdb863"), (0.7, "#e08214"), (0.85, "#b35806"), (1.0, "#7f3b08")]
DIVERGING = pg.ColorMap([p for p, _ in _STOPS], [QColor(c) for _, c in _STOPS], name="blocklab-diverging")
DIVERGING_LUT = DIVERGING.getLookupTable(0.0, 1.0, 256)
# tint() runs for every table cell on every edit: precomputed colours, not ColorMap.map().
_TINTS = [QColor(*(int(c) for c in DIVERGING_LUT[i][:3])) for i in range(256)]
_TINTS = [c.lighter(135) if abs(i - 127.5) > 0.3 * 255 else c for i, c in enumerate(_TINTS)]
_UNDEFINED = QColor("#dddddd")

DECIMALS = 6                     # enough to recompute any cell by hand
NEGATIVE_INFINITY_TEXT = "-∞"


def nice_limit(max_abs: float) -> float:
    """A round symmetric colour limit (1, 2, 5, 10, …) at or above max_abs, at least 1."""
    if not math.isfinite(max_abs) or max_abs <= 1:
        return 1.0
    power = 10 ** math.floor(math.log10(max_abs))
    for step in (1, 2, 5, 10):
        if step * power >= max_abs:
            return float(step * power)
    return float(10 * power)


def limit_for(array: np.ndarray) -> float:
    finite = np.asarray(array)[np.isfinite(array)]
    return nice_limit(float(np.max(np.abs(finite))) if finite.size else 1.0)


def tint(value: float, limit: float) -> QColor:
    """The diverging colour of a value on the fixed scale ±limit (clipped), lightened for text on top."""
    if not math.isfinite(value):
        return _UNDEFINED
    position = 0.5 + 0.5 * max(-1.0, min(1.0, value / limit))
    return _TINTS[min(255, int(position * 256))]


def format_number(value: float, decimals: int = DECIMALS) -> str:
    if value == -math.inf:
        return NEGATIVE_INFINITY_TEXT
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


# --- shared plot and text helpers --------------------------------------------------------
def font(points: float, bold: bool = False) -> QFont:
    result = QFont()
    result.setPointSizeF(points)
    result.setBold(bold)
    return result


def quiet_plot(plot: pg.PlotItem, tick_points: float) -> pg.PlotItem:
    """Projector-size ticks, no "(x0.001)" prefixes, no menu, no mouse panning: a learner
    cannot lose the view."""
    for side in ("left", "bottom"):
        plot.getAxis(side).setTickFont(font(tick_points))
        plot.getAxis(side).enableAutoSIPrefix(False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    return plot


def set_title(plot: pg.PlotItem, text: str, size: str) -> None:
    """Set a plot title only when it changes (re-laying out text costs on every edit)."""
    if plot.titleLabel.text != text or not plot.titleLabel.isVisible():
        plot.setTitle(text, size=size)


def set_axis_label(plot: pg.PlotItem, side: str, text: str, size: str) -> None:
    axis = plot.getAxis(side)
    if axis.labelText != text or not axis.label.isVisible():
        plot.setLabel(side, text, **{"font-size": size})
