"""The explorer's plots: attention patterns, hidden units, the residual stream, the activation, the MSE.

One module per tab (attention, hidden, residual, activation, mse), the panel that holds them
(panel), and what they share: sizes and colours from the appearance (look), thinned tick labels
(ticks), heatmaps with cell numbers (heatmap), grid arithmetic (grid), export (export).

Every plot item is created once and updated in place when the session's trace changes; a
change of structure (T, d_ff, heads, gating) or of room only re-lays out, re-ticks and shows or
hides the same items. Every number comes from `core`.
"""
from app.explorer.plots.export import ExportError
from app.explorer.plots.mse import MAX_HISTORY_SHOWN
from app.explorer.plots.panel import PlotsPanel

__all__ = ["ExportError", "MAX_HISTORY_SHOWN", "PlotsPanel"]
