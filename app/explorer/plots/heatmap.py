"""One heatmap: a matrix as an image, labelled rows and columns, numbers in the cells when they fit.

Built once per slot and updated in place: `set_data` calls `ImageItem.setImage` with a
C-contiguous float32 array and explicit levels (auto-levels would sample and jump between
frames). Cell numbers are painted (by one NumbersItem per map) only when the cells are big
enough to hold them at the readable size (look.TEXT_PX); otherwise the value is shown on hover.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QStaticText, QTextDocument, QTextLayout, QTransform
from PySide6.QtWidgets import QGraphicsItem

from app.explorer.plots import look
from app.explorer.plots.ticks import CellLabels
from app.widgets.style import text_colours_on_map

MAX_NUMBERED_CELLS = 400      # no more cells are numbered (20 × 20 cells at ≥ 40 px is a full screen)
CELL_PADDING = 3              # pixels kept free beside a cell's number (both sides together)


class MapImage(pg.ImageItem):
    """An ImageItem painted from a premultiplied ARGB32 image. pyqtgraph renders a colour-mapped
    matrix as an 8-bit indexed image, which QPainter converts and scales on the slow path at every
    paint (about 1 ms for a map of a few hundred pixels, four times the premultiplied one); the
    conversion, made once per new image, draws the same pixels.

    The common case (a finite float matrix on a colour table of at most 256 opaque colours) is
    rendered here straight to 32-bit colour: pyqtgraph's index per value (its rescale: colour_indices), then
    the table's colours as opaque ARGB32 words. pyqtgraph made a Qt colour table of 256 qRgb calls
    at every render (most of its ~150 µs for a map of six cells), then the conversion above; the
    pixels are the same."""

    def render(self) -> None:
        if self._render_direct():
            return
        super().render()
        image = self.qimage
        if image is not None and image.format() != QImage.Format.Format_ARGB32_Premultiplied:
            self.qimage = image.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)

    def _render_direct(self) -> bool:
        """render() for a finite 2-D float image, its levels and a (n ≤ 256) × 3 uint8 table;
        False (nothing done) for anything else, which pyqtgraph renders."""
        image, lut, levels = self.image, self.lut, self.levels
        if image is None or image.ndim != 2 or image.size == 0 or image.dtype.kind != "f" \
                or not isinstance(lut, np.ndarray) or lut.dtype != np.uint8 or lut.ndim != 2 \
                or lut.shape[1] != 3 or not 0 < lut.shape[0] <= 256 or levels is None \
                or np.ndim(levels) != 1 or self.axisOrder != "row-major" or self._xp is not np:
            return False
        if self._imageHasNans is None:
            self._imageHasNans = bool(np.isnan(image.min()))
            self._imageNanLocations = None
        if self._imageHasNans:
            return False
        if self.autoDownsample:
            xds, yds = self._downsample_factors()
            if (xds, yds) != (1, 1):
                image = pg.functions.downsample(image, xds, axis=1)
                image = pg.functions.downsample(image, yds, axis=0)
            self._lastDownsample = (xds, yds)
            self._imageNanLocations = None
            if image.size == 0:
                self._unrenderable = True
                return True
        indices = colour_indices(image, levels, lut.shape[0])
        table = self._colour_words(lut)
        words = np.ascontiguousarray(table[indices])
        self.qimage = pg.functions.ndarray_to_qimage(words.view(np.uint8).reshape(*words.shape, 4),
                                                     QImage.Format.Format_ARGB32_Premultiplied)
        self._processingBuffer = None
        self._displayBuffer = None
        self._renderRequired = False
        self._unrenderable = False
        return True

    def _downsample_factors(self) -> tuple[int, int]:
        """pyqtgraph's _computeDownsampleFactors (how many cells share a screen pixel, across and down)
        from one device transform: it asked for the transform three times (half the render of a small map)."""
        transform = self.deviceTransform_()             # (pyqtgraph's: None without a view)
        if transform is None:
            return 1, 1
        origin = transform.map(QPointF(0, 0))
        across, down = transform.map(QPointF(1, 0)) - origin, transform.map(QPointF(0, 1)) - origin
        width = (across.x() ** 2 + across.y() ** 2) ** 0.5
        height = (down.x() ** 2 + down.y() ** 2) ** 0.5
        if width == 0 or height == 0:
            return 1, 1
        return max(1, int(1.0 / width)), max(1, int(1.0 / height))

    def _colour_words(self, lut: np.ndarray) -> np.ndarray:
        """The table as opaque ARGB32 words (qRgb's), made again only for a new table."""
        made = getattr(self, "_words_for", None)
        if made is not None and made[0] is lut:
            return made[1]
        rgb = lut.astype(np.uint32)
        words = np.uint32(0xFF000000) | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        self._words_for = (lut, words)
        return words


def colour_indices(image: np.ndarray, levels, colours: int) -> np.ndarray:
    """Each value's entry in a table of `colours` (≤ 256) spread over `levels`: pyqtgraph's rescale
    (_rescale_and_lookup_float without numba: (value − low) · colours / (high − low) in float32 for
    a float32 image, clipped to the table, truncated), the same numbers in a few NumPy calls. Its
    buffered iterator cost about 40 µs for a map of six cells, a third of the map's render."""
    low, high = (float(level) for level in np.asarray(levels)[:2])
    span = high - low
    scale = colours / (1 if span == 0 else span)
    work = image.astype(np.float32 if np.can_cast(image.dtype, np.float32) else np.float64)
    work -= low
    work *= scale
    np.clip(work, 0, colours - 1, out=work)
    return work.astype(np.uint8)


def image_data(array: np.ndarray) -> np.ndarray:
    """What ImageItem is given: C-contiguous float32, rows first."""
    return np.ascontiguousarray(array, dtype=np.float32)


class NumbersItem(QGraphicsItem):
    """All of a heatmap's cell numbers, painted by one item: each text unscaled, centred on its
    cell, in its cell's ink, on the very pixels where a pyqtgraph TextItem (anchor 0.5, 0.5) drew
    it. A TextItem was a QGraphicsTextItem with a QTextDocument inside, laid out again at every new
    text and painted item by item (about 1 ms per edit for a hidden-units map); here each distinct
    text is a prepared QStaticText and one paint draws them all.

    Where the TextItem drew: its text item's box (the document: the line's natural width and its
    height, rounded up, plus a margin of MARGIN all round) centred on the cell's centre on screen,
    the text at (MARGIN, MARGIN) inside it (tests/app/test_cell_numbers.py compares the pixels)."""

    MARGIN = 4.0                 # QTextDocument's documentMargin
    STATIC_TEXTS = 4 * MAX_NUMBERED_CELLS      # texts prepared (and measured) kept per font

    def __init__(self):
        super().__init__()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(10)
        self.rows = 0
        self.columns = 0
        self.texts: list[str] = []
        self.inks: list[str] = []
        self._colours: dict[str, QColor] = {}
        self._statics: dict[str, QStaticText] = {}
        self._widths: dict[str, float] = {}
        # Each number's transform (None: the device's), corner, prepared text and ink, for the
        # painter's transform `_placed_for`.
        self._placed: list[tuple[QTransform | None, QPointF, QStaticText, QColor]] | None = None
        self._placed_for: QTransform | None = None
        self._on_device = True
        self.set_font(look.font())

    def set_font(self, font: QFont) -> None:
        self.text_font = font
        # the document's box height (the line's height rounded up) and its margins, as QTextDocument
        document = QTextDocument()
        document.setDefaultFont(font)
        document.setPlainText("0")
        self._box_height = document.size().height()
        self._statics.clear()
        self._widths.clear()
        self._placed = None
        self.update()

    def set_numbers(self, rows: int, columns: int, texts: list[str], inks: list[str]) -> None:
        """Show `texts` (row-major, rows × columns) in `inks` (colour names); repaints only on a change."""
        if (rows, columns) != (self.rows, self.columns):
            self.prepareGeometryChange()
            self.rows, self.columns = rows, columns
        elif texts == self.texts and inks == self.inks:
            return
        self.texts, self.inks = list(texts), list(inks)
        self._placed = None
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return QRectF(0.0, 0.0, float(self.columns), float(self.rows))

    def _width(self, text: str) -> float:
        """The width of a text's document box: its line's natural width (the advance, or more where
        the last glyph overhangs it: "inf" at 20 px) plus the margins."""
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) > self.STATIC_TEXTS:
                self._widths.clear()
            layout = QTextLayout(text, self.text_font)
            layout.beginLayout()
            line = layout.createLine()
            layout.endLayout()
            width = self._widths[text] = line.naturalTextWidth() + 2 * self.MARGIN
        return width

    def _static(self, text: str) -> QStaticText:
        static = self._statics.get(text)
        if static is None:
            if len(self._statics) > self.STATIC_TEXTS:
                self._statics.clear()
            static = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(QTransform(), self.text_font)
            self._statics[text] = static
        return static

    def _colour(self, name: str) -> QColor:
        colour = self._colours.get(name)
        if colour is None:
            colour = self._colours[name] = QColor(name)
        return colour

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if not self.columns or not self.texts:
            return
        world = painter.worldTransform()
        if self._placed is None or self._placed_for != world:
            self._place(world)
        painter.save()
        painter.setFont(self.text_font)
        if self._on_device:
            painter.setTransform(QTransform())
        pen = None
        for transform, at, static, ink in self._placed:
            if ink is not pen:
                painter.setPen(ink)
                pen = ink
            if transform is not None:
                painter.setTransform(transform)
            painter.drawStaticText(at, static)
        painter.restore()

    def _place(self, world: QTransform) -> None:
        """Where each number is drawn under the painter's `world` transform, kept until the texts,
        the inks or the transform change (an edit's repaints, a hover's, place nothing again).

        On screen the painter only translates the scene: each number is drawn unscaled in device
        pixels, at its box's corner plus the margin. Otherwise (an exporter's scale) its box's
        corner is placed in the scene and the painter's own transform applied to it."""
        columns = self.columns
        scene = self.sceneTransform()
        device = pg.functions.invertQTransform(scene) * world
        on_device = device.type().value <= QTransform.TransformationType.TxTranslate.value
        half_height = self._box_height / 2
        placed = []
        for n, (text, ink) in enumerate(zip(self.texts, self.inks)):
            centre = QPointF(n % columns + 0.5, n // columns + 0.5)
            half_width = self._width(text) / 2
            if on_device:
                at = world.map(centre)
                corner = QPointF(at.x() - half_width + self.MARGIN, at.y() - half_height + self.MARGIN)
                placed.append((None, corner, self._static(text), self._colour(ink)))
            else:
                at = scene.map(centre)
                transform = QTransform.fromTranslate(at.x() - half_width, at.y() - half_height) * device
                placed.append((transform, QPointF(self.MARGIN, self.MARGIN), self._static(text), self._colour(ink)))
        self._placed, self._placed_for, self._on_device = placed, QTransform(world), on_device

    def text_rects(self) -> list[QRectF]:
        """Each number's glyph box in scene coordinates (its document box less the margins), row-major,
        where the next paint puts it (a ViewBox brings its transform up to date before painting)."""
        group = self.parentItem()
        view_box = group.parentItem() if group is not None else None
        if hasattr(view_box, "updateMatrix"):
            view_box.updateMatrix()
        scene = self.sceneTransform()
        rects = []
        height = self._box_height - 2 * self.MARGIN
        for n, text in enumerate(self.texts):
            at = scene.map(QPointF(n % self.columns + 0.5, n // self.columns + 0.5))
            width = self._width(text) - 2 * self.MARGIN
            rects.append(QRectF(at.x() - width / 2, at.y() - height / 2, width, height))
        return rects


@dataclass(frozen=True)
class ShownNumber:
    """A number a heatmap shows: its cell, text, ink (colour name) and glyph box (scene coordinates)."""
    row: int
    column: int
    text: str
    ink: str
    rect: QRectF


class CellNumbers:
    """Numbers centred on the cells of a heatmap, while the cells are big enough to hold them.

    Texts are formatted only when shown, and painted by one NumbersItem (made when first shown).
    At most MAX_NUMBERED_CELLS are numbered: a bigger matrix is shown without numbers.
    """

    def __init__(self, plot: pg.PlotItem):
        self.plot = plot
        self.item: NumbersItem | None = None
        # The colour positions the inks were found for (and on which map): an edit finds the ink
        # again only for the cells whose position moved (text_colour_on per cell is most of the work).
        self._ink_positions: np.ndarray | None = None
        self._ink_map: pg.ColorMap | None = None
        self._colours: list[str] = []
        # Text advances at the font size they were measured at: an edit's numbers are mostly the
        # texts already measured (fits() asks for every text twice per edit).
        self._metrics: tuple[int, QFontMetricsF] | None = None
        self._advances: dict[str, float] = {}
        self.values: np.ndarray | None = None
        self.format: Callable[[np.ndarray], list[str]] = lambda values: []
        self.colour_positions: Callable[[np.ndarray], np.ndarray] = lambda values: values
        self.colour_map: pg.ColorMap = look.SEQUENTIAL
        self.wanted = True
        self.visible = False
        self._drawn: object = None
        plot.vb.sigResized.connect(self.fit)
        plot.vb.sigRangeChanged.connect(self.fit)

    def set(self, values: np.ndarray, texts: Callable[[np.ndarray], list[str]],
            colour_map: pg.ColorMap, positions: Callable[[np.ndarray], np.ndarray]) -> None:
        """values: the rows×columns matrix; texts(values) the cell texts (row-major); positions(values)
        where each value sits on the colour map (0…1), for the ink that reads on it."""
        self.values, self.format, self.colour_map, self.colour_positions = values, texts, colour_map, positions
        self._drawn = None
        self.fit()

    def clear(self) -> None:
        self.values = None
        self._drawn = None
        if self.item is not None:
            self.item.set_numbers(0, 0, [], [])
        self.fit()

    def restyle(self) -> None:
        if self.item is not None:
            self.item.set_font(look.font())
        self._drawn = None
        self._ink_map = None
        self.fit()

    def cell_size(self) -> tuple[float, float]:
        vb = self.plot.vb
        (x0, x1), (y0, y1) = vb.viewRange()
        if x1 <= x0 or y1 <= y0:
            return 0.0, 0.0
        return vb.width() / (x1 - x0), vb.height() / (y1 - y0)

    def fits(self, texts: Sequence[str] | None = None) -> bool:
        """Whether every number fits in its cell at the readable size."""
        if self.values is None or self.values.size > MAX_NUMBERED_CELLS:
            return False
        width, height = self.cell_size()
        metrics = self._font_metrics()
        if height < metrics.height() + CELL_PADDING:
            return False
        if texts is None:       # before formatting: the narrowest a cell's number gets
            texts = ["0.00"]
        advances = self._advances
        widest = 0.0
        for text in texts:
            advance = advances.get(text)
            if advance is None:
                if len(advances) > 4 * MAX_NUMBERED_CELLS:
                    advances.clear()
                advance = advances[text] = metrics.horizontalAdvance(text)
            widest = max(widest, advance)
        return width >= widest + CELL_PADDING

    def _font_metrics(self) -> QFontMetricsF:
        """The metrics of the numbers' font (look.font(): its size follows the zoom)."""
        text_font = look.font()
        size = text_font.pixelSize()
        if self._metrics is None or self._metrics[0] != size:
            self._metrics = (size, QFontMetricsF(text_font))
            self._advances = {}
        return self._metrics[1]

    def on_screen(self) -> bool:
        """Whether the plot's view is shown (a hidden tab paints no number: it fits them when
        shown, see PlotTab.showEvent)."""
        scene = self.plot.scene()
        return scene is not None and any(view.isVisible() for view in scene.views())

    def fit(self, *args: object) -> None:
        values = self.values
        if values is not None and self.wanted and not self.visible and not self.on_screen():
            return
        show = self.wanted and values is not None and self.fits()
        texts: list[str] = []
        if show:
            texts = self.format(values)
            show = self.fits(texts)
        key = (show, self.cell_size() if show else None)
        if not show:
            if self.visible:
                self.item.setVisible(False)
                self.visible = False
            self._drawn = None
            return
        if self._drawn == key and self.visible:
            return
        self._draw(values, texts)
        self._drawn = key

    def _draw(self, values: np.ndarray, texts: list[str]) -> None:
        if self.item is None:
            self.item = NumbersItem()
            self.plot.addItem(self.item, ignoreBounds=True)
        rows, columns = values.shape
        self.item.set_numbers(rows, columns, texts, self._inks_for(values))
        if not self.item.isVisible():
            self.item.setVisible(True)
        self.visible = True

    def _inks_for(self, values: np.ndarray) -> list[str]:
        """The ink of each cell's number (row-major): found again only where the cell's colour
        position moved since the last call on the same colour map (an edit moves a few cells)."""
        positions = np.array(self.colour_positions(values.ravel()), dtype=np.float64).ravel()   # (a copy)
        last = self._ink_positions
        if self._ink_map is self.colour_map and last is not None and last.shape == positions.shape:
            moved = np.flatnonzero(positions != last)            # (a NaN is always found again)
            colours = self._colours
            for n, ink in zip(moved.tolist(), text_colours_on_map(self.colour_map, positions[moved])):
                colours[n] = ink
        else:
            self._colours = colours = text_colours_on_map(self.colour_map, positions)
        self._ink_positions, self._ink_map = positions, self.colour_map
        return list(colours)

    def shown(self) -> list[ShownNumber]:
        """The numbers on screen, row-major: each one's cell, text, ink and glyph box."""
        item = self.item
        if not self.visible or item is None or not item.isVisible():
            return []
        columns = item.columns
        return [ShownNumber(n // columns, n % columns, text, ink, rect)
                for n, (text, ink, rect) in enumerate(zip(item.texts, item.inks, item.text_rects()))]


class Heatmap:
    """A PlotItem showing one matrix (rows top to bottom), its row and column labels thinned to
    fit, numbers in its cells when they fit, and a hover text for any cell."""

    def __init__(self, colour_map: pg.ColorMap, downsample: bool = False, columns_from_one: bool = False):
        self.plot = look.new_plot()
        self.plot.invertY(True)
        self.image = MapImage(axisOrder="row-major")
        if downsample:
            # thousands of columns on a few hundred pixels: average blocks rather than drop them
            self.image.setAutoDownsample(True)
        self.plot.addItem(self.image)
        self.colour_map = colour_map
        self.rows = CellLabels(self.plot, "left")
        self.columns = CellLabels(self.plot, "bottom", counts_from_one=columns_from_one)
        self.numbers = CellNumbers(self.plot)
        self.shape = (0, 0)
        self.array: np.ndarray | None = None     # the array last drawn (identity tells if it changed)
        self.levels: tuple[float, float] | None = None     # and the levels it was drawn on
        self.hover: Callable[[int, int], str] | None = None

    def set_shape(self, rows: int, columns: int) -> None:
        if (rows, columns) != self.shape:
            self.shape = (rows, columns)
            self.plot.setRange(xRange=(0, columns), yRange=(0, rows), padding=0)

    def set_labels(self, rows: Sequence[str], columns: Sequence[str]) -> None:
        self.set_shape(len(rows), len(columns))
        self.rows.set_labels(rows)
        self.columns.set_labels(columns)

    def set_data(self, array: np.ndarray, levels: tuple[float, float],
                 texts: Callable[[np.ndarray], list[str]] | None = None,
                 positions: Callable[[np.ndarray], np.ndarray] | None = None) -> None:
        """Draw `array` on the fixed `levels`; numbers (texts(array)) in its cells when they fit."""
        self.array, self.levels = array, tuple(levels)
        self.set_shape(*array.shape)
        self.image.setImage(image_data(array), levels=levels)
        if texts is None:
            self.numbers.clear()
        else:
            low, high = levels
            span = (high - low) or 1.0
            self.numbers.set(array, texts, self.colour_map,
                             positions or (lambda values: (np.asarray(values) - low) / span))

    def cell_at(self, scene_pos) -> tuple[int, int] | None:
        """The (row, column) under a scene position, or None outside the map."""
        if not self.plot.isVisible() or not self.plot.vb.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.plot.vb.mapSceneToView(scene_pos)
        row, column = int(np.floor(point.y())), int(np.floor(point.x()))
        rows, columns = self.shape
        if 0 <= row < rows and 0 <= column < columns:
            return row, column
        return None

    def restyle(self) -> None:
        look.style_plot(self.plot)
        self.rows.restyle()
        self.columns.restyle()
        self.numbers.restyle()


def colour_bar_width(bar: pg.ColorBarItem) -> float:
    """The width a vertical colour bar takes: the bar, its numbered axis (the width set for it:
    an axis out of view reports none) and its margins."""
    left, _top, right, _bottom = bar.layout.getContentsMargins()
    axis = bar.axis.fixedWidth if bar.axis.fixedWidth is not None else bar.axis.minimumWidth()
    return bar.layout.columnMaximumWidth(1) + axis + left + right + 2


def equal_maps(graphics: pg.GraphicsLayoutWidget, placed: list[tuple[Heatmap, int, int]],
               reserved_width: float) -> None:
    """Give every placed map (heatmap, row, column) the same data area, whatever axes it carries:
    each PlotItem's view-box column and row are fixed to an equal share of the room left after
    the axes, titles and `reserved_width` (a colour bar). Maps that compare have equal cells."""
    if not placed or graphics.width() <= 0:
        return
    layout = graphics.ci.layout
    margins = layout.getContentsMargins()
    columns = max(column for _, _, column in placed) + 1
    rows = max(row for _, row, _ in placed) + 1
    axis_width = [0.0] * columns
    row_extra = [0.0] * rows
    for heatmap, row, column in placed:
        plot = heatmap.plot
        axis_width[column] = max(axis_width[column], plot.getAxis("left").minimumWidth())
        title = plot.layout.rowMaximumHeight(0) if plot.titleLabel.isVisibleTo(plot) else 0.0
        row_extra[row] = max(row_extra[row], title + plot.getAxis("bottom").minimumHeight())
    slack = 4.0                      # the PlotItems' own margins, and rounding
    width = (graphics.width() - margins[0] - margins[2] - reserved_width - layout.horizontalSpacing() * columns
             - sum(axis_width) - slack * columns) / columns
    height = (graphics.height() - margins[1] - margins[3] - layout.verticalSpacing() * (rows - 1)
              - sum(row_extra) - slack * rows) / rows
    width, height = max(8.0, width), max(8.0, height)
    for heatmap, _, _ in placed:
        grid = heatmap.plot.layout
        # Set only on a change: setting the same fixed size invalidates the plot's layout all the
        # same, and the plot and the figure were laid out again after every edit.
        if grid.columnMinimumWidth(1) != width or grid.columnMaximumWidth(1) != width:
            grid.setColumnFixedWidth(1, width)
        if grid.rowMinimumHeight(2) != height or grid.rowMaximumHeight(2) != height:
            grid.setRowFixedHeight(2, height)
