"""What the inspector and the weight editor share: a virtual table of numbers tinted by value,
sized by the interface zoom, and a picture of the whole tensor to jump around in.

The tables are Qt models over NumPy arrays: a cell's text and colour are made when the view
asks for it (only visible cells are ever asked), so a 768 × 3,072 matrix costs what its
visible corner costs. Column widths and row heights are fixed, set from the font and the
widest number (never resizeColumnsToContents over thousands of columns).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (QColor, QFont, QFontDatabase, QFontInfo, QFontMetrics, QImage, QPainter, QPen, QPixmap,
                           QPolygon)
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QHeaderView, QLabel, QSizePolicy, QStyle,
                               QStyledItemDelegate, QStyleOptionViewItem, QTableView, QWidget)

from app.widgets import style
from app.widgets.appearance import appearance
from core.numbers import format_short

CELL_POINT_SIZE = 10        # at 100 % zoom; 150 % makes it 15 pt = 20 px, projector size
FIT_ROWS = 8                # a lesson's tensors (T ≤ 8 tokens) are meant to show whole
CELL_TEXT_MARGIN = 1        # px between a number and the selection frame
FRAME = 3                   # px the selection frame covers inside a cell: 2 dark, 1 white
ROW_PADDING = 4             # px above and below the text of a row, together
OVERVIEW_WIDTH = 72         # px at 100 % zoom
OVERVIEW_ABOVE = 16         # the overview shows once a slice has more rows or columns than this

_INKS: dict[int, QColor] = {}
MARK_ROLE = int(Qt.ItemDataRole.UserRole) + 20     # a QColor: a corner mark (a note on the cell: finite_marks)


def ink_on(colour: QColor) -> QColor:
    """style.text_colour_on, remembered per colour (the tints are 256 fixed colours)."""
    key = colour.rgba()
    ink = _INKS.get(key)
    if ink is None:
        ink = _INKS[key] = style.text_colour_on(colour)
    return ink


def number_font(points: float) -> QFont:
    """The tables' font at `points`: the application's family, the condensed cut of DejaVu Sans
    where that is the system font (six columns of "−1.434875" fit a side panel)."""
    font = QFont(QApplication.font())
    font.setPointSizeF(points)
    if QFontInfo(font).family() == "DejaVu Sans" and "DejaVu Sans Condensed" in QFontDatabase.families():
        font.setFamilies(["DejaVu Sans Condensed", *font.families()])
    return font


def zoomed_font(base_points: float, bold: bool = False, extra: float = 0.0) -> QFont:
    """The application font, at least `base_points` × the interface zoom (a window that scales
    the application font itself is not scaled twice), plus `extra` points."""
    font = QFont(QApplication.font())
    font.setPointSizeF(max(font.pointSizeF(), appearance().points(base_points)) + extra)
    font.setBold(bold)
    return font


def padding() -> int:
    """px between a cell's edge and its text: room for the frame and a margin."""
    return appearance().pixels(FRAME + CELL_TEXT_MARGIN)


class ElidedLabel(QLabel):
    """One line of text that ends in "…" when the space is short (never clipped mid-letter, never
    wider than its place); the whole text is its tooltip. `set_wrapping(True)` (presentation
    mode, where nothing may be cut): the whole text, wrapped onto more lines where it is short."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._full = ""
        self._wrapping = False

    def set_wrapping(self, wrapping: bool) -> None:
        if wrapping == self._wrapping:
            return
        self._wrapping = wrapping
        self.setWordWrap(wrapping)
        self.setSizePolicy(QSizePolicy.Policy.Ignored,
                           QSizePolicy.Policy.Minimum if wrapping else QSizePolicy.Policy.Fixed)
        self._elide()
        self.updateGeometry()

    def height_at(self, width: int) -> int:
        """The height the text takes at `width` (one line unless it wraps)."""
        return self.heightForWidth(width) if self._wrapping else self.sizeHint().height()

    def set_full_text(self, text: str) -> None:
        if text != self._full:
            self._full = text
            self.setToolTip(text)
            self._elide()

    def full_text(self) -> str:
        return self._full

    def _elide(self) -> None:
        if self._wrapping:
            if self.text() != self._full:
                super().setText(self._full)
            return
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(self.width(), 20)))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._elide()


class NumberDelegate(QStyledItemDelegate):
    """Paints a cell by hand: its tint, its number right-aligned inside room for a frame, a
    double frame (dark, then white: visible on every tint) when selected, and the lesson's
    outline around cells the model lists in `outlined` (or, for a model that turns its cells,
    `outlined_view`)."""

    _scale: float | None = None          # the zoom the sizes below are for
    _pad = _line = _corner = 0

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        # Called once per cell shown: what does not change from cell to cell (the zoom's sizes, the
        # flags) is worked out once, and the flags are compared as numbers (a Flag operation in
        # Python makes a new Flag each time).
        look = appearance()
        if look.scale != self._scale:
            self._scale = look.scale
            self._pad, self._line, self._corner = padding(), look.pixels(1), look.pixels(7)
        rect = QRect(option.rect)
        painter.save()
        # A model with cell_look(row, column) gives the cell's tint, ink, text and mark in one call
        # (the same as its data() for those four roles): one Python call per cell, not four.
        model = index.model()
        row, column = index.row(), index.column()
        cell_look = getattr(model, "cell_look", None)
        if cell_look is not None:
            background, foreground, text, mark = cell_look(row, column)
        else:
            background = index.data(Qt.ItemDataRole.BackgroundRole)
            foreground = index.data(Qt.ItemDataRole.ForegroundRole)
            text = index.data(Qt.ItemDataRole.DisplayRole)
            mark = index.data(MARK_ROLE)
        if background is not None:
            painter.fillRect(rect, background)
        painter.setFont(option.font)
        painter.setPen(foreground or option.palette.text().color())
        pad = self._pad
        painter.drawText(rect.adjusted(pad, 0, -pad, 0), _RIGHT_MIDDLE, text or "")
        width = self._line
        if mark is not None:                  # a triangle in the top-left corner, clear of the number
            size = self._corner
            corner = QPolygon([rect.topLeft(), rect.topLeft() + QPoint(size, 0), rect.topLeft() + QPoint(0, size)])
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(mark)
            painter.drawPolygon(corner)
        # (a model that shows its cells turned lists them as the view's in outlined_view)
        outlined = getattr(model, "outlined_view", None)
        if outlined is None:
            outlined = getattr(model, "outlined", ())
        if outlined and (row, column) in outlined:
            _frame(painter, rect, QColor(look.colours.glow).darker(115), 3 * width, 0)
        if option.state.value & _SELECTED:
            # Inside the cell's first FRAME px, never over its number (padding() leaves room).
            _frame(painter, rect, _FRAME_DARK, 2 * width, 0)
            _frame(painter, rect, _FRAME_LIGHT, width, 2 * width)
        painter.restore()


_RIGHT_MIDDLE = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_SELECTED = QStyle.StateFlag.State_Selected.value
_FRAME_DARK, _FRAME_LIGHT = QColor("#111111"), QColor("#ffffff")


def _frame(painter: QPainter, rect: QRect, colour: QColor, thickness: int, inset: int) -> None:
    """A frame `thickness` px thick whose outer edge is `inset` px inside `rect` (filled bands, so
    its extent does not depend on how a pen straddles the line)."""
    outer = rect.adjusted(inset, inset, -inset, -inset)
    for band in (QRect(outer.left(), outer.top(), outer.width(), thickness),
                 QRect(outer.left(), outer.bottom() - thickness + 1, outer.width(), thickness),
                 QRect(outer.left(), outer.top(), thickness, outer.height()),
                 QRect(outer.right() - thickness + 1, outer.top(), thickness, outer.height())):
        painter.fillRect(band, colour)


class _Labels(QHeaderView):
    """A number table's row or column labels, whose size hint is measured once per font and set
    of labels: Qt measures it again (asking the model for some 200 labels) whenever a section is
    resized, and a table that shares its width among whole columns resizes them at every step
    of a splitter's drag."""

    def __init__(self, orientation: Qt.Orientation, parent: QWidget):
        super().__init__(orientation, parent)
        self._hint: QSize | None = None
        self.sectionCountChanged.connect(lambda _old, _new: self.forget())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        if self._hint is None:
            self._hint = super().sizeHint()
        return QSize(self._hint)

    def forget(self) -> None:
        """Other labels (or another font): measured again when next asked."""
        self._hint = None
        self.updateGeometry()

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._hint = None
        super().changeEvent(event)


class NumberTable(QTableView):
    """A table of numbers whose size follows its content: as tall as its rows (no empty band
    below a short tensor, never a scrollbar over a lesson's ≤ 8 rows when the space is there),
    columns as wide as the widest number, fonts and rows scaled by the interface zoom.

    It never shows part of a cell: when the columns (or rows) do not all fit, as many as fit
    whole share the view's width (height), a few px wider (taller) each, and the table scrolls
    by whole columns (rows). A half column is a cut-off number."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setHorizontalHeader(_Labels(Qt.Orientation.Horizontal, self))
        self.setVerticalHeader(_Labels(Qt.Orientation.Vertical, self))
        self.setItemDelegate(NumberDelegate(self))
        self.setWordWrap(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        for header in (self.horizontalHeader(), self.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setHighlightSections(False)
            header.setMinimumSectionSize(8)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        # Whole cells only (see _show_whole_cells): the view scrolls by columns and rows.
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        self._texts: tuple[str, ...] = ("−0.000000",)
        self._cell_width = self._cell_height = 8         # what a cell needs: set by fit_columns, restyle
        self.grows_by_stretch = False                    # see sizeHint
        self._filling = False
        self._overflows = False
        self._header_width = self._header_height = 0     # measured by fit_height
        self.restyle()

    # --- size --------------------------------------------------------------------------------
    def restyle(self) -> None:
        """Fonts and row height for the current zoom, then the column width again."""
        font = number_font(appearance().points(CELL_POINT_SIZE))
        self.setFont(font)
        self.horizontalHeader().setFont(font)
        self.verticalHeader().setFont(font)
        self._cell_height = QFontMetrics(font).height() + appearance().pixels(ROW_PADDING)
        self.fit_columns(self._texts, force=True)

    def fit_columns(self, texts, force: bool = False) -> None:
        """Every column as wide as the widest of `texts` (the longest numbers the table can show,
        e.g. its minimum and maximum) and of the widest column label, plus the frame's room.
        Nothing is measured again unless the width changes (or `force`): an edit costs nothing here."""
        texts = tuple(texts) or ("0",)
        self._texts = texts
        metrics = QFontMetrics(self.font())
        model = self.model()
        labels = ()
        if model is not None and model.columnCount():
            last = model.columnCount() - 1
            labels = (str(model.headerData(0, Qt.Orientation.Horizontal)),
                      str(model.headerData(last, Qt.Orientation.Horizontal)))
        widest = max(metrics.horizontalAdvance(text) for text in texts + labels)
        width = widest + 2 * padding() + self._grid()
        if not force and self._cell_width == width:
            return
        self._cell_width = width
        self._show_whole_cells(force=True)
        self.fit_height(measure=force)

    def widen_for(self, texts) -> None:
        """Wider columns if one of `texts` (an edit's new numbers) needs it; never narrower."""
        metrics = QFontMetrics(self.font())
        if any(metrics.horizontalAdvance(text) + 2 * padding() + self._grid() > self._cell_width for text in texts):
            self.fit_columns(tuple(texts) + self._texts)

    def _show_whole_cells(self, force: bool = False) -> None:
        """Columns and rows sized so the view shows only whole cells: all at the size their text
        needs when they fit, else as many as fit sharing the room (whole_cell_size); the few px
        left over widen the row labels (heighten the column labels), so no sliver of the next
        cell shows. Run again whenever the table's size, the cells' size or their number changes."""
        model = self.model()
        if self._filling or model is None:
            return
        self._filling = True
        try:
            columns, rows = model.columnCount(), model.rowCount()
            (room_w, label_w), (room_h, label_h) = self._rooms(columns, rows)
            width = whole_cell_size(self._cell_width, columns, room_w)
            height = whole_cell_size(self._cell_height, rows, room_h)
            changed = _set_sections(self.horizontalHeader(), width, force)
            changed |= _set_sections(self.verticalHeader(), height, force)
            row_labels, column_labels = self.verticalHeader(), self.horizontalHeader()
            if not row_labels.isHidden():
                wanted = label_w + (room_w % width if columns * width > room_w >= width else 0)
                if row_labels.minimumWidth() != wanted:
                    row_labels.setMinimumWidth(wanted)
                    changed = True
            if not column_labels.isHidden():
                wanted = label_h + (room_h % height if rows * height > room_h >= height else 0)
                if column_labels.minimumHeight() != wanted:
                    column_labels.setMinimumHeight(wanted)
                    changed = True
            if changed:
                self.updateGeometries()  # the labels' room and the scroll bars for the new sizes
                # The first column (row) shown starts at the view's edge again: the offset Qt
                # keeps in px would cut it after the columns' (rows') sizes change.
                self.horizontalHeader().setOffsetToSectionPosition(self.horizontalScrollBar().value())
                self.verticalHeader().setOffsetToSectionPosition(self.verticalScrollBar().value())
                if self.currentIndex().isValid():       # the selected cell stays in view
                    self.scrollTo(self.currentIndex())
                self.viewport().update()
        finally:
            self._filling = False

    def _rooms(self, columns: int, rows: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """((px for the columns, the row labels' own width), (px for the rows, the column labels'
        own height)): the view's room without the scroll bars the cells will need, plus any px
        the labels now take beyond their own need. As Qt decides: no scroll bar when all fits."""
        row_labels, column_labels = self.verticalHeader(), self.horizontalHeader()
        label_w = max(0, row_labels.sizeHint().width()) if not row_labels.isHidden() else 0
        label_h = max(0, column_labels.sizeHint().height()) if not column_labels.isHidden() else 0
        margins = self.viewportMargins()
        largest = self.maximumViewportSize()       # without scroll bars, with the labels as they are
        room_w = largest.width() + max(0, margins.left() + margins.right() - label_w)
        room_h = largest.height() + max(0, margins.top() - label_h)
        bar_w = self.verticalScrollBar().sizeHint().width()
        bar_h = self.horizontalScrollBar().sizeHint().height()
        across = columns * self._cell_width > room_w
        down = rows * self._cell_height > room_h
        if across and not down:
            down = rows * self._cell_height > room_h - bar_h
        if down and not across:
            across = columns * self._cell_width > room_w - bar_w
        return ((room_w - (bar_w if down else 0), label_w), (room_h - (bar_h if across else 0), label_h))

    def viewportEvent(self, event) -> bool:  # noqa: N802 (Qt's name)
        handled = super().viewportEvent(event)
        if event.type() == QEvent.Type.Resize:
            self._show_whole_cells()
        return handled

    def cell_size(self) -> QSize:
        """The size a cell needs (columns and rows may be shown a little larger: _show_whole_cells)."""
        return QSize(self._cell_width, self._cell_height)

    def _grid(self) -> int:
        """The grid line takes one px of each column (a cell is drawn in the rest)."""
        return 1 if self.showGrid() else 0

    def row_height(self) -> int:
        """The height a row needs (it may be shown a few px taller: _show_whole_cells)."""
        return self._cell_height

    def content_width(self) -> int:
        model = self.model()
        columns = model.columnCount() if model is not None else 0
        return self._header_width + columns * self._cell_width + 2 * self.frameWidth()

    def content_height(self, rows: int | None = None, width: int | None = None) -> int:
        """The height that shows `rows` rows (all by default) with the header, the frame and, if the
        columns do not fit the width (the table's own, or `width`), the horizontal scrollbar."""
        model = self.model()
        if rows is None:
            rows = model.rowCount() if model is not None else 0
        overflows = self._overflows if width is None else self.content_width() > width
        scrollbar = self.horizontalScrollBar().sizeHint().height() if overflows else 0
        return self._header_height + rows * self.row_height() + 2 * self.frameWidth() + scrollbar

    def fit_height(self, measure: bool = True) -> None:
        """The table's maximum height: all its rows. `measure`: the headers' sizes again (they ask
        the model for up to 200 labels: on a reset or a zoom, not on an edit)."""
        if measure:
            self._header_width = self.verticalHeader().sizeHint().width()
            self._header_height = self.horizontalHeader().sizeHint().height()
        self._overflows = self.content_width() > max(self.width(), 1)
        height = self.content_height()
        if self.maximumHeight() != height:
            self.setMaximumHeight(height)
        self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """As wide as its columns (up to 640 px at 100 % zoom); as tall as all its rows, or with
        `grows_by_stretch` as its least (two rows): its layout then gives it the rest of its rows
        by stretch, up to its maximum height (all of them), and a panel short of height scrolls
        the table's rows rather than cut the widgets under it (a panel's height for its width,
        which Qt takes as its minimum in a column, counts the table at its size hint)."""
        rows = self.minimumSizeHint().height() if self.grows_by_stretch else self.content_height()
        # (a table that may scroll its rows wants room for the scroll bar beside its columns)
        bar = self.verticalScrollBar().sizeHint().width() if self.grows_by_stretch else 0
        return QSize(min(self.content_width() + bar, appearance().pixels(640)), rows)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        """Room for one whole column (and the vertical scroll bar) and two rows."""
        model = self.model()
        rows = min(2, model.rowCount()) if model is not None else 0
        one_column = (self._header_width + self._cell_width + 2 * self.frameWidth()
                      + self.verticalScrollBar().sizeHint().width())
        return QSize(max(120, one_column), self.content_height(rows))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._show_whole_cells()
        if (self.content_width() > max(self.width(), 1)) != self._overflows:
            self.fit_height()               # a horizontal scrollbar came or went

    def setModel(self, model) -> None:  # noqa: N802
        super().setModel(model)
        model.modelReset.connect(self._reset)
        model.headerDataChanged.connect(self._relabelled)
        for signal in (model.rowsInserted, model.rowsRemoved, model.columnsInserted, model.columnsRemoved):
            signal.connect(self._reset)
        self._reset()

    def _forget_labels(self) -> None:
        for header in (self.horizontalHeader(), self.verticalHeader()):
            if isinstance(header, _Labels):
                header.forget()

    def _reset(self, *_args) -> None:
        """Another tensor (other counts of rows and columns): whole cells again, the height again."""
        self._forget_labels()
        self._show_whole_cells(force=True)
        self.fit_height()

    def _relabelled(self, *_args) -> None:
        """Other labels (another language): their room measured again."""
        self._forget_labels()
        self.fit_height()
        self._show_whole_cells()

    # --- where the view is ---------------------------------------------------------------------
    def visible_cells(self) -> tuple[int, int, int, int]:
        """(first row, last row, first column, last column) at least partly in view."""
        model = self.model()
        rows, columns = model.rowCount(), model.columnCount()
        if not rows or not columns:
            return 0, -1, 0, -1
        viewport = self.viewport().rect()
        top, bottom = self.rowAt(0), self.rowAt(viewport.height() - 1)
        left, right = self.columnAt(0), self.columnAt(viewport.width() - 1)
        return (max(top, 0), rows - 1 if bottom < 0 else bottom, max(left, 0), columns - 1 if right < 0 else right)

    def shows_everything(self) -> bool:
        first_row, last_row, first_column, last_column = self.visible_cells()
        model = self.model()
        return (first_row == 0 and last_row == model.rowCount() - 1 and first_column == 0
                and last_column == model.columnCount() - 1
                and self.rowViewportPosition(last_row) + self.row_height() <= self.viewport().height()
                and self.columnViewportPosition(last_column) + self.columnWidth(last_column) <= self.viewport().width())


def whole_cell_size(needed: int, count: int, room: int) -> int:
    """The size to show `count` cells that each need `needed` px in `room` px, so that the view
    never shows part of one: `needed` when all fit (or not even one does); else the room shared
    by as many as fit whole (at most `shown` − 1 px of the room stay empty)."""
    if count <= 0 or room < needed or count * needed <= room:
        return needed
    shown = room // needed
    return room // shown


def _set_sections(header: QHeaderView, size: int, force: bool) -> bool:
    """Every section of `header` `size` px; True if any changed."""
    if not force and header.defaultSectionSize() == size:
        return False
    header.setDefaultSectionSize(size)      # every section (setDefaultSectionSize resizes them all)
    for section in range(min(header.count(), 64)):   # sections sized by hand before, if any
        if header.sectionSize(section) != size:
            header.resizeSection(section, size)
    return True


class TensorOverview(QWidget):
    """The whole 2-D slice as a small picture on the tables' fixed colour scale, sampled to the
    widget's pixels (nearest cell; a picture of 768 × 3,072 numbers costs what its ~15,000
    pixels cost); a frame marks the part the table shows and a cross the current cell. A click
    (or a drag) picks the cell under the pointer: `cellPicked(row, column)`."""

    cellPicked = Signal(int, int)

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(name)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self._array = np.zeros((0, 0))
        self._limit = 1.0
        self._image = QPixmap()
        self._pixels = np.zeros((0, 0), dtype=np.uint32)
        self._window = (0, -1, 0, -1)
        self._current = (0, 0)
        self._lut = _argb_lut()
        appearance().changed.connect(self.updateGeometry)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self._array.shape)

    def set_array(self, array: np.ndarray, new: bool = True) -> None:
        """Show `array` (2-D). `new` (another tensor, head or shape): its colour scale ±limit is
        taken afresh from its largest value, rounded (1, 2, 5 × 10ⁿ; GPT-2's weights of ~0.02
        are not all white on a scale of ±1) and printed under the picture; an edit (`new` False)
        keeps the scale, so colours do not jump while a value is dragged."""
        self._array = np.asarray(array)
        if new:
            self._limit = overview_limit(self._array)
        self._image = QPixmap()                 # sampled again at the next paint (a few thousand pixels)
        self.update()

    @property
    def limit(self) -> float:
        return self._limit

    def _sample(self, width: int, height: int) -> None:
        rows, columns = self._array.shape
        row_of = np.minimum(((np.arange(height) + 0.5) * rows / height).astype(np.intp), rows - 1)
        column_of = np.minimum(((np.arange(width) + 0.5) * columns / width).astype(np.intp), columns - 1)
        values = self._array[np.ix_(row_of, column_of)]
        with np.errstate(invalid="ignore"):
            position = np.clip(0.5 + 0.5 * values / self._limit, 0.0, 1.0)
        colours = self._lut[np.where(np.isfinite(position), position * 255.0, 0).astype(np.intp)]
        colours[~np.isfinite(values)] = 0xFFDDDDDD        # as style.tint: undefined is grey
        self._pixels = np.ascontiguousarray(colours, dtype=np.uint32)
        # Opaque RGB32 as a pixmap: drawn without a per-paint format conversion.
        self._image = QPixmap.fromImage(QImage(self._pixels.data, width, height, 4 * width, QImage.Format.Format_RGB32))

    def set_view(self, window: tuple[int, int, int, int], current: tuple[int, int]) -> None:
        if (window, current) != (self._window, self._current):
            self._window, self._current = window, current
            self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(appearance().pixels(OVERVIEW_WIDTH), appearance().pixels(OVERVIEW_WIDTH))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(appearance().pixels(OVERVIEW_WIDTH), appearance().pixels(24))

    def _area(self) -> QRect:
        """Where the picture goes: all but a line at the bottom for the scale."""
        return self.rect().adjusted(1, 1, -1, -1 - self.fontMetrics().height())

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        area = self._area()
        colours = appearance().colours
        painter.fillRect(self.rect(), QColor(colours.panel))
        if not self._array.size or area.width() <= 0 or area.height() <= 0:
            return
        if self._image.isNull() or self._image.size() != area.size():
            self._sample(area.width(), area.height())
        painter.drawPixmap(area.topLeft(), self._image)
        rows, columns = self._array.shape
        sx, sy = area.width() / columns, area.height() / rows
        first_row, last_row, first_column, last_column = self._window
        if last_row >= first_row and last_column >= first_column:
            painter.setPen(QPen(QColor(colours.accent), 2))
            painter.drawRect(QRect(QPoint(area.left() + int(first_column * sx), area.top() + int(first_row * sy)),
                                   QPoint(area.left() + int((last_column + 1) * sx) - 1,
                                          area.top() + int((last_row + 1) * sy) - 1)))
        row, column = self._current
        x, y = area.left() + int((column + 0.5) * sx), area.top() + int((row + 0.5) * sy)
        painter.setPen(QPen(QColor("#111111"), 1))
        painter.drawLine(x - 4, y, x + 4, y)
        painter.drawLine(x, y - 4, x, y + 4)
        painter.setPen(QColor(colours.muted))
        painter.drawText(QRect(0, area.bottom() + 1, self.width(), self.fontMetrics().height()),
                         Qt.AlignmentFlag.AlignCenter, "±" + format_short(self._limit))

    def cell_at(self, position: QPoint) -> tuple[int, int] | None:
        rows, columns = self._array.shape
        area = self._area()
        if not rows or not columns or area.width() <= 0 or area.height() <= 0:
            return None
        row = int((position.y() - area.top()) * rows / area.height())
        column = int((position.x() - area.left()) * columns / area.width())
        return min(max(row, 0), rows - 1), min(max(column, 0), columns - 1)

    def point_of(self, row: int, column: int) -> QPoint:
        """Where cell (row, column) is drawn: for a test's click, or a learner's."""
        rows, columns = self._array.shape
        area = self._area()
        return QPoint(area.left() + int((column + 0.5) * area.width() / columns),
                      area.top() + int((row + 0.5) * area.height() / rows))

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self._pick(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._pick(event)

    def _pick(self, event) -> None:
        cell = self.cell_at(event.position().toPoint())
        if cell is not None and cell != self._current:
            self.cellPicked.emit(*cell)
        event.accept()


def _argb_lut() -> np.ndarray:
    """The diverging colour map as 256 opaque ARGB32 words."""
    rgb = style.DIVERGING_LUT[:, :3].astype(np.uint32)
    return (0xFF000000 | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]).astype(np.uint32)


def overview_limit(array: np.ndarray) -> float:
    """A round symmetric colour limit (1, 2 or 5 × 10ⁿ) at or above the largest finite |value|."""
    finite = np.abs(array[np.isfinite(array)])
    top = float(finite.max()) if finite.size else 0.0
    if top <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(top))
    return next(float(f"{step * power:.12g}") for step in (1, 2, 5, 10) if step * power >= top)


def changed_region(old: np.ndarray, new: np.ndarray) -> tuple[slice, slice] | None:
    """The smallest block of rows × columns holding every cell that differs (None: none does).
    −∞ equals −∞ here (masked scores stay masked)."""
    differs = old != new
    if not differs.any():
        return None
    rows, columns = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
    return slice(int(rows[0]), int(rows[-1]) + 1), slice(int(columns[0]), int(columns[-1]) + 1)


def show_overview(shape: tuple[int, ...]) -> bool:
    """Whether a 2-D slice of this shape is large enough for the overview picture."""
    return len(shape) == 2 and (shape[0] > OVERVIEW_ABOVE or shape[1] > OVERVIEW_ABOVE)
