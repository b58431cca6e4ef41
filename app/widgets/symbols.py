"""The pens and brushes of plotted symbols (dots, triangles), one object per colour.

pyqtgraph keeps every symbol a scatter draws in a picture of its own (SymbolAtlas), keyed by the
pen's and the brush's *objects*: a new pen of the same colour is a new key and a new copy of the
symbol, kept until that picture holds 1,000 of them. A curve's symbols given as a colour (or None)
become new objects on every data update (PlotDataItem passes its style again each time), and a
restyle made new ones on every zoom or theme change: the soak saw these pictures grow by ~2 MB
over 9,000 actions. Symbols take their pen and brush from here instead.
"""
from __future__ import annotations

import pyqtgraph as pg

_STYLES: dict[tuple, object] = {}


def point_pen(colour: str | None, width: float = 1.0):
    """The pen of symbols' outlines (None: no outline), one object per colour and width."""
    key = ("pen", colour, width)
    if key not in _STYLES:
        _STYLES[key] = pg.mkPen(colour, width=width) if colour is not None else pg.mkPen(None)
    return _STYLES[key]


def point_brush(colour: str):
    """The brush that fills symbols, one object per colour."""
    key = ("brush", colour)
    if key not in _STYLES:
        _STYLES[key] = pg.mkBrush(colour)
    return _STYLES[key]


def set_symbol_style(curve: pg.PlotDataItem, pen, brush) -> None:
    """A curve's symbols in `pen` and `brush` (from point_pen / point_brush). pyqtgraph's own
    setSymbolPen / setSymbolBrush copy them (new keys on every theme change); the curve's options
    take these objects themselves."""
    if curve.opts["symbolPen"] is pen and curve.opts["symbolBrush"] is brush:
        return
    curve.opts["symbolPen"], curve.opts["symbolBrush"] = pen, brush
    curve.updateItems(styleUpdate=True)
