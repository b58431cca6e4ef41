"""What the two-neuron lab's widgets share: sizes, colours, and small label and plot helpers."""
from __future__ import annotations

import html
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QPainter, QPicture
from PySide6.QtWidgets import QLabel

from app.explorer.plots.common import KeptBounds
from app.explorer.plots.residual import round_out
from app.widgets import style  # noqa: F401  (configures row-major images before any plot exists)
from app.widgets.document_label import DocumentPaint
from app.widgets.steady_label import ShapeHints
from app.widgets.style import font, quiet_plot, set_axis_label, set_title
from core.numbers import format_number

SLIDER_SCALE = 100                                    # slider steps per unit: 0.01
BIAS_NEURON = 1                                       # the seed's experiment drags neuron 2's bias
TABLE_DECIMALS = 3                                    # ŷ in the table, as the seed prints it
DIAGRAM_DECIMALS = 3
TEXT_PT = 11
FORMULA_PT = 12
TICK_PT = 10
ROW_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")   # Okabe–Ito
RIGHT_COLOUR = "#1a7f37"
WRONG_COLOUR = "#c62828"
POINT_COLOUR = "#D55E00"
FLOOR_COLOUR = "#c62828"
SEQUENTIAL = pg.colormap.get("viridis")

# The seed's style inside formulas: 2, −0.25, 0.841192 (trailing zeros dropped).
trimmed = partial(format_number, trim=True)


class SteadyLabel(DocumentPaint, QLabel):
    """A wrapping label whose height at a given width does not shrink when its text does: a live
    number one digit shorter (or a sentence one word shorter) must not re-lay out the lab, resize
    its plots and repaint them on every edit. `release()` (a new scenario, a new language) lets it
    fit its text again. Its sizes for a text are remembered by the text's shape (ShapeHints): the
    next value of a live number lays out no text to find them. It paints its text from a document
    of its own, laid out once per new text (DocumentPaint)."""

    MAX_WIDTHS = 64                                  # heights remembered per width, at most

    def __init__(self, parent=None):
        super().__init__(parent)
        self._tallest: dict[int, int] = {}          # the tallest height at each width
        self._fitted: dict[int, int] = {}           # the current text's height at each width
        self._sized: dict[str, QSize] = {}           # the current text's size hints
        self._known_text: str | None = None          # the text both are for
        self._hints = ShapeHints()                   # the sizes of texts, by their shape
        self._twin: QLabel | None = None             # measures them (see _synced_twin)
        self.init_document()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        # A layout asks this dozens of times per edit; laying out rich text each time costs
        # (~30 µs): its answer is kept until the text (or the font) changes, and a new text's
        # is looked up by its shape first.
        self._follow_text()
        height = self._fitted.get(width)
        if height is None:
            if len(self._fitted) >= self.MAX_WIDTHS:
                self._fitted.clear()
            height = self._fitted[width] = self._hints.get(self, "height", self._measure, width)
        tallest = self._tallest.get(width, -1)
        if height <= tallest:
            return tallest
        if len(self._tallest) >= self.MAX_WIDTHS:
            self._tallest.clear()
        self._tallest[width] = height
        return height

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self._size("size", QLabel.sizeHint)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self._size("least", QLabel.minimumSizeHint)

    def _size(self, what: str, measure) -> QSize:
        """The twin's `measure`, kept until the text (or the font) changes, a new text's looked up
        by its shape first."""
        self._follow_text()
        size = self._sized.get(what)
        if size is None:
            size = self._sized[what] = self._hints.get(self, what, lambda: measure(self._synced_twin()))
        return QSize(size)

    def _follow_text(self) -> None:
        """Forget the kept heights and sizes when the text has changed since they were kept."""
        text = self.text()
        if text != self._known_text:
            self._known_text = text
            self._fitted.clear()
            self._sized.clear()

    def _measure(self, width: int) -> int:
        return self._synced_twin().heightForWidth(width)

    def _synced_twin(self) -> QLabel:
        """An unshown twin that measures the text: asked for its sizes, the label itself lays its
        shown text out at another width, and then repaints (one more pass of the window per edit)."""
        twin = self._twin
        if twin is None:
            twin = self._twin = QLabel()
        # only what differs: a setter re-lays out the twin's text (and forgets its sizes)
        for get, put in ((QLabel.textFormat, QLabel.setTextFormat), (QLabel.font, QLabel.setFont),
                         (QLabel.contentsMargins, QLabel.setContentsMargins), (QLabel.margin, QLabel.setMargin),
                         (QLabel.indent, QLabel.setIndent), (QLabel.alignment, QLabel.setAlignment),
                         (QLabel.wordWrap, QLabel.setWordWrap)):
            if get(twin) != get(self):
                put(twin, get(self))
        if twin.text() != self.text():
            twin.setText(self.text())
        return twin

    def release(self) -> None:
        if self._tallest:
            self._tallest.clear()
            self.updateGeometry()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LanguageChange):
            self._tallest.clear()
            self._fitted.clear()
            self._sized.clear()
        self._hints.follow(event)
        super().changeEvent(event)


def label(name: str, points: float = TEXT_PT, wrap: bool = True) -> QLabel:
    """A rich-text label; a wrapping one keeps its height while its text changes (SteadyLabel)."""
    widget = SteadyLabel() if wrap else QLabel()
    widget.setObjectName(name)
    widget.setFont(font(points))
    widget.setWordWrap(wrap)
    widget.setTextFormat(Qt.TextFormat.RichText)
    widget.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # Opaque, in the window's colour (what the lab's plain containers show behind it): a live
    # number repaints its label, not the lab, the stack, the fence and the overview behind it.
    widget.setAutoFillBackground(True)
    return widget


def set_text(widget: QLabel, text: str) -> None:
    if widget.text() != text:          # re-laying out text costs: only on change
        widget.setText(text)
        if isinstance(widget, SteadyLabel) and widget.isVisible():
            # lay the new text out now, at the label's width: laid out while it is being
            # painted, the label asks for another paint (one more pass of the window)
            widget.lay_out()


def esc(text: str) -> str:
    return html.escape(text, quote=False)


class TickStripAxis(KeptBounds, pg.AxisItem):
    """The lab's plots' axis (new_plot): when a repaint exposes only the strip its ticks reach into
    the plot (a curve, a dot or a map starts a few pixels from the axis: its repaint overlaps the ticks),
    plays only its line and ticks, not its tick labels: the labels lie outside the exposed part,
    clipped away, and replaying their text cost ~0.1 ms an axis on every edit."""

    TEXT_MARGIN = 3                                  # px around a label that its glyphs may touch

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._lines: QPicture | None = None          # the line and ticks of self.picture
        self._lines_of: QPicture | None = None
        self._texts = QRect()                        # where self.picture's labels are

    # --- the bounding box: worked out once per size --------------------------------------------
    # pyqtgraph's AxisItem works it out on every ask (its linked view, its geometry mapped from the
    # parent, its style): ~2.4 µs, a dozen asks per edit of the neuron maps. Without a grid it is
    # the axis's own rectangle widened by the tick length and the labels' overflow: it changes
    # with the axis's size (a resize event), its grid (setGrid) and those two style options
    # (setStyle, the one way pyqtgraph changes them).
    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        if self.grid is not False:                   # a grid reaches across the linked view: not kept
            return super().boundingRect()
        return self.kept_bounds(super().boundingRect)

    def resizeEvent(self, ev=None) -> None:  # noqa: N802 (Qt's name)
        self._kept_rect = None                       # Qt prepared the change (setGeometry)
        super().resizeEvent(ev)

    def setGrid(self, grid) -> None:  # noqa: N802 (pyqtgraph's name)
        self._kept_rect = None
        super().setGrid(grid)                        # prepares the geometry change

    def setStyle(self, **kwargs) -> None:  # noqa: N802 (pyqtgraph's name)
        changes_box = "tickLength" in kwargs or "hideOverlappingLabels" in kwargs
        if changes_box:
            self.forget_bounds()                     # pyqtgraph does not prepare this change
        super().setStyle(**kwargs)
        if changes_box:
            self._kept_rect = None                   # (the preparing asked for the old box again)

    def paint(self, p, opt, widget) -> None:
        if self.picture is None or self._lines_of is not self.picture:
            self._draw_pictures()
        if self._lines is not None and not self._texts_exposed(p):
            self._lines.play(p)
        else:
            self.picture.play(p)

    def _texts_exposed(self, p: QPainter) -> bool:
        """Whether the repaint may reach the tick labels: the region the view repaints is the paint
        engine's system clip, in device pixels (the exposed rectangle Qt hands an item is the
        bounding box of the whole view's region: both plots' curves, across this axis)."""
        engine = p.paintEngine()
        exposed = engine.systemClip() if engine is not None else None
        if exposed is None or exposed.isEmpty():
            return True                                  # not known: the whole axis
        return exposed.intersects(p.deviceTransform().mapRect(QRectF(self._texts)).toAlignedRect())

    def _draw_pictures(self) -> None:
        """pyqtgraph's picture of the axis, and beside it one of its line and ticks alone."""
        pictures = QPicture(), QPicture()
        specs = None
        for picture in pictures:
            painter = QPainter(picture)
            try:
                if self.style["tickFont"]:
                    painter.setFont(self.style["tickFont"])
                if specs is None:
                    specs = self.generateDrawSpecs(painter)
                    if specs is not None:
                        self.drawPicture(painter, *specs)
                elif specs is not None:
                    self.drawPicture(painter, specs[0], specs[1], [])
            finally:
                painter.end()
        self.picture = self._lines_of = pictures[0]
        texts = QRectF()
        for rect, _flags, _text in (specs[2] if specs is not None else []):
            texts = texts.united(rect)
        margin = self.TEXT_MARGIN
        self._texts = texts.toAlignedRect().adjusted(-margin, -margin, margin, margin)
        self._lines = pictures[1] if specs is not None else None


class SteadyScatter(KeptBounds, pg.ScatterPlotItem):
    """A ScatterPlotItem whose bounding box is worked out once per change of its points, their
    sizes and pens, or its view's transform. pyqtgraph's finds the pen's and symbol's overhang in
    item units through pixelVectors (the device transform) on every ask: ~12 µs, and Qt's scene
    asks on every paint.

    pyqtgraph keeps the data's bounds in `self.bounds`, a list it replaces with a new one on each
    of those changes (addPoints/setData, updateSpots via its spot sizes, clear, viewTransformChanged,
    which also prepares the geometry change): the box is kept for the list it was worked out with."""

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        if (self._kept_rect is None or self.bounds is not self._kept_for) \
                and self.pixelPadding() > 0 and self.pixelVectors()[0] is None:
            return super().boundingRect()               # not shown yet: a pixel has no size, not kept
        return self.kept_bounds(super().boundingRect, self.bounds)

    # --- the paint: the last one's symbols again, where nothing moved --------------------------
    # pyqtgraph's paint (pixel-sized symbols from its atlas) finds the points in view (_maskAt:
    # the pixel's size through pixelVectors again, ~50 µs), maps them to the device and fills its
    # fragment array on every paint. When the points, their symbols and the view are those of the
    # last paint (the same `bounds` list, see above) and the painter maps them the same way, the
    # fragments it filled then are the ones it would fill now: they are drawn again as they are.
    _replay: tuple | None = None                        # (transform, bounds, data, drawargs)

    def _replayable(self) -> bool:
        """Whether pyqtgraph's paint draws pixel-sized symbols from its atlas (not an export)."""
        return self._exportOpts is False and self.opts["pxMode"] is True and self.opts["useCache"] \
            and self.opts.get("compositionMode") is None

    def paint(self, p: QPainter, option, widget) -> None:
        replay = self._replay
        if replay is not None and replay[1] is self.bounds and replay[2] is self.data and self._replayable() \
                and (widget is None or widget.devicePixelRatioF() == self.fragmentAtlas.devicePixelRatio()) \
                and p.transform() == replay[0]:
            p.resetTransform()
            p.drawPixmapFragments(*replay[3], self.fragmentAtlas.pixmap)
            return
        self._replay = None
        transform = p.transform()
        super().paint(p, option, widget)
        if self._replayable():
            self._replay = (transform, self.bounds, self.data, self._pixmapFragments.drawargs())


def new_plot(title: str = "") -> pg.PlotItem:
    plot = quiet_plot(pg.PlotItem(axisItems={side: TickStripAxis(side) for side in ("left", "bottom")}), TICK_PT)
    # Tick labels may widen an axis, never narrow it: a y range that rescales on an edit
    # ("0.5" → "0.25" → "1") must not re-lay out (and repaint) every plot in the view.
    for side in ("left", "bottom"):
        plot.getAxis(side).setStyle(autoReduceTextSpace=False)
    if title:
        plot_title(plot, title)
    return plot


def axis_label(plot: pg.PlotItem, side: str, text: str) -> None:
    set_axis_label(plot, side, text, "11pt")


def plot_title(plot: pg.PlotItem, text: str) -> None:
    set_title(plot, text, "11pt")


def steady_y_range(plot: pg.PlotItem, low: float, high: float, padding: float = 0.05, fill: float = 0.4) -> None:
    """Show low…high on the y axis, keeping the shown range while the data fit it and fill at least
    `fill` of it (an edit swinging the MSE's top between 3.8 and 7 keeps 0…8). A range set on
    every edit re-ticks the axis; left to pyqtgraph's auto-range it is set while the plot paints,
    which paints the whole plot a second time."""
    low, high = float(low), float(high)
    if not (np.isfinite(low) and np.isfinite(high)):
        return
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    shown = getattr(plot, "_steady_y", None)
    if shown is None or low < shown[0] or high > shown[1] or high - low < fill * (shown[1] - shown[0]):
        # a new range reaches out to round numbers (as the residual plot's): the next edits'
        # slightly taller curves still fit it, and the axis is not re-ticked for them
        low, high = round_out(low, high)
        plot._steady_y = (low, high)
        plot.setYRange(low, high, padding=padding)
        # pyqtgraph applies a new range, and a line works out its new extent, when the plot
        # paints; a line's new extent found then paints the plot a second time. Both now:
        plot.vb.updateMatrix()
        for item in plot.items:
            if isinstance(item, pg.InfiniteLine):
                item.boundingRect()


def set_curve(curve: pg.PlotDataItem, x: np.ndarray, y: np.ndarray) -> bool:
    """Give a curve new points only when they differ from the ones it shows: setData re-reads
    the arrays, finds their bounds and repaints the curve (~0.2 ms each); an edit that moves
    one sentence's curve leaves the others' as they were. True if set."""
    if curve.xData is not None and curve.yData is not None and np.array_equal(curve.xData, x) \
            and np.array_equal(curve.yData, y, equal_nan=True):
        return False
    curve.setData(x, y)
    return True


def set_points(item: pg.ScatterPlotItem, x, y) -> bool:
    """Give a scatter new points only when they differ from the ones it shows. True if set."""
    key = (tuple(float(v) for v in x), tuple(float(v) for v in y))
    if getattr(item, "_shown_points", None) == key:
        return False
    item._shown_points = key
    item.setData(list(key[0]), list(key[1]))
    return True


def steady_plot_title(plot: pg.PlotItem, text: str) -> None:
    """A title that changes with the numbers (a formula): it may widen its plot, never narrow it,
    so a coefficient losing its minus sign does not re-lay out (and repaint) every plot beside it."""
    title = plot.titleLabel
    if getattr(title, "_steady_width", 0.0) and title.isVisible() and title.text != text \
            and _title_in_place(title, text):
        return
    plot_title(plot, text)
    width = title.minimumWidth()
    kept = getattr(title, "_steady_width", 0.0)
    if width < kept:
        title.setMinimumWidth(kept)
        hints = getattr(title, "_sizeHint", None)               # pyqtgraph's LabelItem keeps its hints here
        if hints:
            for which in (Qt.SizeHint.MinimumSize, Qt.SizeHint.PreferredSize):
                hints[which] = (kept, hints[which][1])
    else:
        title._steady_width = width


def _no_new_size() -> None:
    pass


def _title_in_place(title: pg.LabelItem, text: str) -> bool:
    """Put a shown title's new text in the room the title has, centred as pyqtgraph centres it,
    without asking its layout for a new size: pyqtgraph's setText (and PlotItem.setTitle, which
    fixes the title row's height again) re-lays out every plot in the view for each new formula.
    True if the text fits that room; if not, the title asks for more room the usual way."""
    height = title._sizeHint[Qt.SizeHint.PreferredSize][1]
    title.updateMin = title.updateGeometry = _no_new_size      # this once: no new size asked
    try:
        title.setText(text)                                     # the size option set before stays
    finally:
        del title.updateMin, title.updateGeometry
    room = title.itemRect()
    if room.width() <= title._steady_width and room.height() == height:
        return True
    title.updateMin()
    return False


class FigureView(pg.GraphicsLayoutWidget):
    """Plots that take the height their page gives them. The parts sit in scroll areas, and a
    scroll area makes its page as tall as the page's preferred height for its width: a view that
    preferred pyqtgraph's 480 px pushed the plots' axes below a 1024×768 projector's edge. Its
    preferred height is its least one, so the page scrolls only when even that does not fit, and
    its stretch gives it whatever room there is."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().sizeHint().width(), self.minimumHeight())


def graphics(name: str) -> pg.GraphicsLayoutWidget:
    widget = FigureView()
    widget.setObjectName(name)
    widget.ci.setContentsMargins(2, 2, 2, 2)
    widget.setMinimumHeight(180)
    return widget


_NO_FILL = QBrush()                                  # Qt.NoBrush


class BoxedText(KeptBounds, pg.TextItem):
    """A pyqtgraph TextItem on a translucent box, the box filled as a rectangle of whole device
    pixels. pyqtgraph fills it as an antialiased polygon, which Qt's raster engine draws through
    its slow path when the view's paint is clipped to the changed region: about 0.2 ms a box, four
    boxes on every edit of the neuron maps. The box is the same colour; its edges fall on whole
    pixels instead of being blended over a fraction of one.

    Its bounding box (its text's, in its own coordinates) is worked out once per change of the
    text, its font, anchor or width, or its orientation in the view: every one of them places the
    text again through pyqtgraph's updateTextPos (a new transform too: updateTransform ends with
    it). Qt's scene asks for it on every paint, several times per edit."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # a document laid out again later than its new text (Qt lays out lazily) resizes the text
        self.textItem.document().documentLayout().documentSizeChanged.connect(self._text_resized)

    def _text_resized(self, _size) -> None:
        self.forget_bounds()

    def updateTextPos(self) -> None:  # noqa: N802 (pyqtgraph's name)
        self.forget_bounds()                            # the text moves or resizes within the item
        super().updateTextPos()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return self.kept_bounds(super().boundingRect)

    def paint(self, painter: QPainter, *args) -> None:
        if self.border.style() != Qt.PenStyle.NoPen or self.fill.style() == Qt.BrushStyle.NoBrush:
            super().paint(painter, *args)               # framed, or no box: pyqtgraph's way
            return
        fill, self.fill = self.fill, _NO_FILL           # pyqtgraph's paint without its polygon
        try:
            super().paint(painter, *args)
        finally:
            self.fill = fill
        box = painter.transform().mapRect(self.boundingRect())   # the text's rectangle, as pyqtgraph's polygon
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(box.toRect(), fill)
        painter.restore()
