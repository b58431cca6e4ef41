"""How the plots look: text sizes and colours, from `appearance()` (zoom and theme).

Every text the plots draw — ticks, axis labels, titles, legends, cell numbers — is at least
TEXT_PX pixels tall at 100 % zoom (the readability floor a projector needs) and grows with
the interface zoom. Sizes are pixel sizes, not points, so what a test measures is what a
viewer at the back of the room gets, whatever the screen's DPI.
"""
from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPicture

from app.widgets import style  # noqa: F401  (row-major images before any plot exists)
from app.widgets.inert import escaped
from app.widgets.appearance import appearance
from app.widgets.style import DIVERGING, minus_ticks

TEXT_PX = 16          # ticks, axis labels, legends, cell numbers: the floor
TITLE_PX = 17         # plot titles
VALUE_PX = 30         # the big MSE number
TICK_LENGTH = 4

SEQUENTIAL = pg.colormap.get("viridis")   # ships with pyqtgraph; colour-blind safe, dark to light
# Okabe–Ito colours, told apart with the common colour-vision deficiencies. On a dark
# background the dark blue becomes Okabe–Ito's sky blue.
_SERIES_LIGHT = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")
_SERIES_DARK = ("#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#D55E00")
MAPS = {"sequential": SEQUENTIAL, "diverging": DIVERGING}


def px(base: float = TEXT_PX) -> int:
    """A text or length size in pixels at the current zoom."""
    return appearance().pixels(base)


_FONTS: dict[tuple[int, bool], QFont] = {}


def font(base: float = TEXT_PX, bold: bool = False) -> QFont:
    """The plots' font at `base` pixels (times the zoom). A copy: callers may change it."""
    key = (px(base), bold)
    if key not in _FONTS:
        made = QFont()
        made.setPixelSize(key[0])
        made.setBold(bold)
        _FONTS[key] = made
    return QFont(_FONTS[key])


def css(base: float = TEXT_PX) -> str:
    return f"{px(base)}px"


def line_height(text_font: QFont) -> float:
    """The height a line of text takes, Chinese glyphs included (a fallback CJK font is taller
    than the Latin one QFontMetrics.height() describes); measured as pyqtgraph's axes measure."""
    metrics = QFontMetricsF(text_font)
    return max(metrics.height(), metrics.boundingRect(QRectF(0, 0, 1000, 200), Qt.AlignmentFlag.AlignCenter,
                                                      "国Ag").height())


def advance(text_font: QFont, text: str) -> float:
    return QFontMetricsF(text_font).horizontalAdvance(text)


_CJK = "\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_PIECES = re.compile(rf"[{_CJK}]|[^ \t\n{_CJK}]+|[ \t\n]+")
_NO_LINE_START = set("),.:;!?)]}、。,:;!?”’》」")


def _split_wide(piece: str, text_font: QFont, width: float) -> list[str]:
    """A word wider than `width` (a hook name such as "mlp.hook_post") as parts that may end a
    line: after its dots, then, if a part is still too wide, after its underscores."""
    if advance(text_font, piece) <= width:
        return [piece]
    parts = []
    for part in re.findall(r"[^.]*\.|[^.]+", piece):
        parts += re.findall(r"[^_]*_|[^_]+", part) if advance(text_font, part) > width else [part]
    return parts


def wrapped(text: str, text_font: QFont, width: float) -> str:
    """`text` broken into lines (HTML <br>) so that each fits `width` pixels where it can: at
    spaces, between Chinese characters (never before closing punctuation), and inside a word
    too wide for a line after its dots or underscores. A part still wider than `width` keeps a
    line of its own. Non-breaking spaces hold their neighbours together. The text is data (a
    token may read `<img src=…>`): each line is escaped, so the result shows exactly its characters."""
    if width <= 0 or advance(text_font, text) <= width:
        return escaped(text)
    lines, current = [], ""
    pieces = [part for piece in _PIECES.findall(text) for part in _split_wide(piece, text_font, width)]
    for piece in pieces:
        candidate = current + piece
        if current.strip(" ") and piece.strip(" ") and piece[0] not in _NO_LINE_START \
                and advance(text_font, candidate.rstrip(" ")) > width:
            lines.append(current.rstrip(" "))
            current = piece
        else:
            current = candidate
    lines.append(current.rstrip(" "))
    return "<br>".join(escaped(line.lstrip(" ")) for line in lines)


def dark() -> bool:
    return appearance().effective_theme == "dark"


def foreground() -> str:
    return appearance().colours.foreground


def muted() -> str:
    return appearance().colours.muted


def background() -> str:
    return appearance().colours.background


def accent() -> str:
    return appearance().colours.accent


def series_colours() -> tuple[str, ...]:
    return _SERIES_DARK if dark() else _SERIES_LIGHT


def curve_colour() -> str:
    return series_colours()[0]


def point_colour() -> str:
    return series_colours()[4]


def faint(colour: str, alpha: int) -> QColor:
    result = QColor(colour)
    result.setAlpha(alpha)
    return result


# --- plot items ----------------------------------------------------------------------------
def new_plot() -> pg.PlotItem:
    """A plot a learner cannot lose: no menu, no mouse panning, no auto-range button, the
    Unicode minus on number ticks, no "(x0.001)" prefixes. Styled by style_plot."""
    from app.explorer.plots.ticks import spaced_numbers
    plot = pg.PlotItem(enableMenu=False)     # no menu: also skips building pyqtgraph's (slow to make)
    for side in ("right", "top"):
        # hidden axes too: with the prefix on, every range change re-sets the hidden axis's label
        # HTML and size (as app.widgets.style does for the labs' plots)
        plot.getAxis(side).enableAutoSIPrefix(False)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.enableAutoSIPrefix(False)
        minus_ticks(axis)
        spaced_numbers(axis)
        axis.setStyle(tickLength=TICK_LENGTH)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    plot.vb.setDefaultPadding(0.0)
    style_plot(plot)
    return plot


LABEL_NUDGE = 5        # pyqtgraph sets an axis label this far into the axis's edge


def label_space(axis: pg.AxisItem) -> float:
    """What an axis's title takes across the axis (its text box, less pyqtgraph's nudge)."""
    return axis.label.boundingRect().height() - LABEL_NUDGE + 2 if axis.label.isVisibleTo(axis) else 0.0


def fit_axis_height(axis: pg.AxisItem) -> None:
    """A number axis at the bottom, sized for its tick numbers and its (possibly wrapped, possibly
    Chinese) title: pyqtgraph's own estimate keeps 80 % of each and cuts the title's last pixels.
    Heatmap axes are sized by their CellLabels instead."""
    if axis.orientation != "bottom" or getattr(axis, "cell_labels", False):
        return
    ticks = TICK_LENGTH + 2 + line_height(font()) if axis.style["showValues"] else TICK_LENGTH + 1
    axis.setHeight(int(ticks + label_space(axis) + 0.999))


def measure_ticks(axis: pg.AxisItem) -> None:
    """Lay a number axis's ticks out now, as its paint would (the same picture, kept for that
    paint). pyqtgraph learns how wide the tick labels are only while painting the axis: after a
    new range a wider or narrower label then resized the axis from inside the paint, and the plot
    was laid out and painted again, up to three paints per edit. Measured before the paint, the
    new width is laid out first and the plot painted once."""
    if axis.picture is not None or not axis.isVisible():
        return
    picture = QPicture()
    painter = QPainter(picture)
    try:
        if axis.style["tickFont"]:
            painter.setFont(axis.style["tickFont"])
        specs = axis.generateDrawSpecs(painter)
        if specs is not None:
            axis.drawPicture(painter, *specs)
    finally:
        painter.end()
    axis.picture = picture


def style_axis(axis: pg.AxisItem) -> None:
    """Tick font and colours of one axis at the current zoom and theme; its label re-set too."""
    axis.setTickFont(font())
    axis.setPen(pg.mkPen(foreground()))
    axis.setTextPen(pg.mkPen(foreground()))
    if axis.labelText:
        axis.setLabel(axis.labelText, **{"font-size": css(), "color": foreground()})
    fit_axis_height(axis)


def style_plot(plot: pg.PlotItem) -> None:
    for side in ("left", "bottom", "right", "top"):
        style_axis(plot.getAxis(side))
    if plot.titleLabel.isVisibleTo(plot) and plot.titleLabel.text:
        set_title(plot, plot.titleLabel.text, foreground())


def set_title(plot: pg.PlotItem, text: str, colour: str | None = None) -> None:
    """Set a title only when it (or its colour or size) changes: re-laying out text costs on every
    edit. A title of several lines (<br>) gets the rows it needs (pyqtgraph fixes one)."""
    colour = colour or foreground()
    label = plot.titleLabel
    if label.text != text or not label.isVisibleTo(plot) or label.opts.get("color") != colour \
            or label.opts.get("size") != css(TITLE_PX):
        plot.setTitle(text, size=css(TITLE_PX), color=colour)
        height = int((text.count("<br>") + 1) * line_height(font(TITLE_PX)) + 6)
        label.setMaximumHeight(height)
        plot.layout.setRowFixedHeight(0, height)


def set_axis_label(plot: pg.PlotItem, side: str, text: str) -> None:
    axis = plot.getAxis(side)
    if axis.labelText != text or not axis.label.isVisibleTo(axis) or axis.labelStyle.get("font-size") != css():
        axis.setLabel(text, **{"font-size": css(), "color": foreground()})
        fit_axis_height(axis)


def colour_bar(colour_map: pg.ColorMap, levels: tuple[float, float]) -> pg.ColorBarItem:
    bar = pg.ColorBarItem(values=levels, colorMap=colour_map, interactive=False, width=14,
                          colorMapMenu=False, pen="#888888")
    from app.explorer.plots.ticks import spaced_numbers
    bar.axis.enableAutoSIPrefix(False)
    minus_ticks(bar.axis)
    spaced_numbers(bar.axis)
    style_colour_bar(bar)
    return bar


def style_colour_bar(bar: pg.ColorBarItem) -> None:
    style_axis(bar.axis)
    bar.layout.setColumnFixedWidth(1, px(14))
    # pyqtgraph sets a right axis's title LABEL_NUDGE past the axis's edge: keep that inside the bar
    bar.layout.setContentsMargins(1, 1, LABEL_NUDGE + 2, 1)
    # room above and below the bar for half of its end labels
    for side in ("top", "bottom"):
        bar.getAxis(side).setHeight(int(line_height(font()) / 2 + 2))
    fit_colour_bar(bar)


def fit_colour_bar(bar: pg.ColorBarItem) -> None:
    """Room for the bar's tick numbers and its label at the current font (pyqtgraph fixes 45 px)."""
    low, high = (float(v) for v in bar.levels())
    tick_font = font()
    samples = [f"{value:.6g}".replace("-", "\u2212") + "0" for value in (low, high, (low + high) / 2, low / 2)]
    width = max(advance(tick_font, text) for text in samples) + TICK_LENGTH + 8
    if bar.axis.labelText:
        width += label_space(bar.axis)
    bar.axis.setWidth(int(width + 0.999))


def set_levels(bar: pg.ColorBarItem, levels: tuple[float, float]) -> None:
    if tuple(bar.levels()) != tuple(levels):
        bar.setLevels(values=levels)
        fit_colour_bar(bar)


def style_view(graphics: pg.GraphicsLayoutWidget) -> None:
    graphics.setBackground(background())
