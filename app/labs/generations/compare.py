"""The side-by-side part: two generations' traces hook by hook (core.labs.generations
.compare_traces), with the difference where the shapes agree, and one hook as three heatmaps:
A, B and A − B."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (QAbstractItemView, QBoxLayout, QComboBox, QHBoxLayout, QHeaderView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.explorer.plots.heatmap import MapImage
from app.labs.generations.common import (HEADING_PT, TICK_PT, Part, PlotView, generation_name, generation_of,
                                         part_heading, preset_trace, sized_font)
from app.labs.fonts import fit_table
from app.widgets.appearance import appearance
from app.widgets.style import DIVERGING_LUT, limit_for, text_colour_on, tint
from core.labs import generations as core
from core.numbers import format_number

EXPLORER = "explorer"            # the block in the explorer, with the learner's edits
DECIMALS = 4
LEAST_ROWS = 4                   # presenting: the table shows at least this many rows
MAP_PX = 220                     # a map's height at the desk, at 100 %
MAP_LEAST_PX = 95                # presenting: each of the three stacked maps, at 100 %
PRESENT_GAP = 3                  # presenting: the page's margins and the gaps between its rows, px
MAP_AXIS_PX = 45                 # … and the lowest one's axis below it


def _shape(shape: tuple[int, ...]) -> str:
    return "×".join(str(n) for n in shape)


def _least_row_height(table: QTableWidget) -> int:
    """The lowest row that shows every cell's text whole: its tallest text's line (a Chinese
    text, drawn in a fallback font, is taller than a Latin one) and the grid line below it."""
    metrics = QFontMetricsF(table.font())
    tallest = metrics.height()
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            item = table.item(r, c)
            if item is not None and item.text():
                tallest = max(tallest, metrics.boundingRect(QRectF(0, 0, 4000, 400), Qt.AlignmentFlag.AlignCenter,
                                                            item.text()).height())
    return int(np.ceil(tallest)) + (1 if table.showGrid() else 0)


class GenerationsComparePart(Part):
    """Choose A and B; every hook both traces have, its shapes and the largest |A − B|.

    At the desk the table shows every hook and the three maps sit below it, side by side, the
    note on them below (the page scrolls). In presentation mode the maps stand beside the table,
    one above the other, with their note under them, and the table shows every hook: when the
    rows as tall as their texts ask do not all fit the projector's height, they are made lower
    (down to a line of text each: 22 hooks at 1024×768). Only a longer list than that (a pair
    that no lesson shows) shows as many whole rows as fit, scrolled to the chosen hook."""

    hookChosen = Signal(str)            # the panel points the explorer at the hook

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__("genComparePart", parent)
        self.session = session
        self.comparison: core.TraceComparison | None = None
        self.traces: tuple = (None, None)
        self.hook = "hook_resid_post"
        self.heading = self.label("genCompareHeading", HEADING_PT, bold=True)
        self.choice_a, self.choice_b = QComboBox(), QComboBox()
        for name, combo in (("genCompareA", self.choice_a), ("genCompareB", self.choice_b)):
            combo.setObjectName(name)
            self.sized(combo)
            for generation in core.GENERATIONS:
                combo.addItem("", generation)
            combo.addItem("", EXPLORER)
            combo.currentIndexChanged.connect(lambda _index: self.refresh())
        self.label_a, self.label_b = self.label("genCompareLabelA", wrap=False), self.label("genCompareLabelB",
                                                                                             wrap=False)
        choices = QHBoxLayout()
        choices.addWidget(self.label_a)
        choices.addWidget(self.choice_a, 1)
        choices.addWidget(self.label_b)
        choices.addWidget(self.choice_b, 1)
        self.summary = self.label("genCompareSummary")
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("genCompareTable")
        self.sized(self.table)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._row_chosen)
        self.table.setMinimumHeight(180)
        self._row_limit = self.table.verticalHeader().maximumSectionSize()      # Qt's: no limit

        # one view per map: presentation mode stacks them (pyqtgraph crashes when plots move
        # within one view's grid)
        self.maps_box = QWidget()
        self.maps_box.setObjectName("genCompareMaps")
        self.maps_layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self.maps_box)
        self.maps_layout.setContentsMargins(0, 0, 0, 0)
        self.maps_layout.setSpacing(0)
        self.map_views: list[PlotView] = []
        self.maps: list[pg.ImageItem] = []
        self.map_plots: list[pg.PlotItem] = []
        for column in range(3):
            view = PlotView(f"genCompareMap{column + 1}", MAP_PX)
            self.maps_layout.addWidget(view, 1)
            self.map_views.append(view)
            plot = self.plot(view)
            plot.invertY(True)
            plot.setAspectLocked(False)
            image = MapImage(axisOrder="row-major")          # drawn from 32-bit colour: the fast path
            image.setLookupTable(DIVERGING_LUT)
            plot.addItem(image)
            self.maps.append(image)
            self.map_plots.append(plot)
            plot.vb.sigResized.connect(self._label_rows)
            plot.vb.sigYRangeChanged.connect(self._label_rows)
        self.row_names: list[list[str]] = [[], [], []]      # each map's row labels, before thinning
        self.map_note = self.label("genCompareMapNote", muted=True)

        # The table's room: the table inside is placed by hand (whole at the desk; in presentation
        # mode as many whole rows as the room holds), so its height never feeds back into the room's.
        self.table_box = QWidget()
        self.table_box.setObjectName("genCompareTableBox")
        self.table.setParent(self.table_box)
        self.table_box.installEventFilter(self)
        self.body = QHBoxLayout()
        self.body.addWidget(self.table_box, 5)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addLayout(choices)
        layout.addWidget(self.summary)
        layout.addLayout(self.body, 1)
        self.page_layout = layout
        self._spacing = layout.spacing()
        self._beside: bool | None = None
        self._arrange()
        self.retranslate()

    # --- presentation mode: the maps beside the table ----------------------------------------
    def _arrange(self) -> None:
        beside = appearance().presenting
        if beside != self._beside:
            self._beside = beside
            self.page_layout.removeWidget(self.maps_box)
            self.body.removeWidget(self.maps_box)
            self.page_layout.removeWidget(self.map_note)
            self.maps_layout.removeWidget(self.map_note)
            if beside:                      # the note under the maps, the table the whole height
                self.body.addWidget(self.maps_box, 4)
                self.maps_layout.addWidget(self.map_note)
            else:
                self.page_layout.addWidget(self.maps_box)
                self.page_layout.addWidget(self.map_note)
            self.maps_layout.setDirection(QBoxLayout.Direction.TopToBottom if beside
                                          else QBoxLayout.Direction.LeftToRight)
            # presenting, the narrower gaps go to the table's rows
            gap = PRESENT_GAP if beside else 6
            self.page_layout.setContentsMargins(gap, gap, gap, gap)
            self.page_layout.setSpacing(PRESENT_GAP if beside else self._spacing)
        for index, view in enumerate(self.map_views):
            # stacked, the lowest map also holds the columns' axis
            axis = appearance().pixels(MAP_AXIS_PX) if beside and index == len(self.map_views) - 1 else 0
            view.setMinimumHeight(appearance().pixels(MAP_LEAST_PX) + axis if beside else max(160, MAP_PX - 80))
        for plot in self.map_plots[:-1]:                    # stacked, the maps share the lowest one's columns
            plot.showAxis("bottom", not beside)
        self._fit_rows()

    def restyle(self) -> None:
        self._arrange()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table_box and event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self._fit_rows()
        return super().eventFilter(watched, event)

    def _fit_rows(self) -> None:
        """The table in its room: at the desk every hook (the room as tall as the table: the page
        scrolls); presenting, every hook too, the rows made lower when they must (never lower
        than a line of text: a text cut in half reads as a defect from the back); only when even
        that does not fit, as many whole rows as the room holds, the chosen hook's among them."""
        table, box = self.table, self.table_box
        table.verticalHeader().setMaximumSectionSize(self._row_limit)
        fit_table(table, whole=False)                      # columns and rows to their texts
        header = table.horizontalHeader()
        count = table.rowCount()
        row = max(1, table.rowHeight(0)) if count else 1
        fixed = header.height() + 2 * table.frameWidth()
        every = fixed + sum(table.rowHeight(r) for r in range(count))
        columns = sum(max(header.sectionSizeHint(c), table.sizeHintForColumn(c)) for c in range(table.columnCount()))
        if self._beside:
            box.setMinimumSize(columns + 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width(),
                               fixed + LEAST_ROWS * row)
            room = box.height() - fixed
            if count and every - fixed > room:                 # lower rows, down to a line each
                # a row's height at most: every refit of the rows (the fitter's, at a new font) keeps it
                table.verticalHeader().setMaximumSectionSize(max(_least_row_height(table), room // count))
                table.resizeRowsToContents()
                row = max(1, table.rowHeight(0))
            heights = [table.rowHeight(r) for r in range(count)]
            if sum(heights) <= room:
                height = fixed + sum(heights)
            else:
                height = fixed + max(1, min(count, room // row)) * row
        else:
            box.setMinimumSize(0, every)
            height = every
        table.setMinimumSize(0, 0)
        table.setMaximumSize(16777215, 16777215)
        if table.geometry().getRect() != (0, 0, box.width(), height):
            table.setGeometry(0, 0, box.width(), height)
        if table.currentRow() >= 0:
            table.scrollToItem(table.item(table.currentRow(), 0))

    # --- choosing A and B -------------------------------------------------------------------
    def follow_session(self) -> None:
        """A new block in the explorer: B is its generation (else the explorer's block), A the one before."""
        current = generation_of(self.session.config)
        if current is None:
            a, b = "original", EXPLORER
        else:
            index = core.GENERATIONS.index(current)
            a, b = core.GENERATIONS[max(0, index - 1)], current
            if a == b:
                b = core.GENERATIONS[1]
        self.set_pair(a, b)

    def set_pair(self, a: str, b: str) -> None:
        with QSignalBlocker(self.choice_a), QSignalBlocker(self.choice_b):
            self.choice_a.setCurrentIndex(self.choice_a.findData(a))
            self.choice_b.setCurrentIndex(self.choice_b.findData(b))
        self.refresh()

    def pair(self) -> tuple[str, str]:
        return self.choice_a.currentData(), self.choice_b.currentData()

    def _trace(self, which: str):
        return self.session.trace if which == EXPLORER else preset_trace(which)

    # --- showing ----------------------------------------------------------------------------
    def refresh(self) -> None:
        a, b = self.pair()
        self.traces = (self._trace(a), self._trace(b))
        self.comparison = core.compare_traces(*self.traces)
        rows = self.comparison.common
        self.table.setRowCount(len(rows))
        finite = [row.largest for row in rows if row.largest is not None]
        limit = limit_for(np.array(finite)) if finite else 1.0
        for r, row in enumerate(rows):
            largest = self.tr("shapes differ") if row.largest is None else format_number(row.largest, DECIMALS)
            texts = (row.hook, _shape(row.shape_a), _shape(row.shape_b), largest)
            for c, text in enumerate(texts):
                item = self.table.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    self.table.setItem(r, c, item)
                item.setText(text)
            item = self.table.item(r, 3)
            colour = tint(row.largest if row.largest is not None else float("nan"), limit)
            item.setBackground(colour)
            item.setForeground(text_colour_on(colour))
        self._fit_rows()                   # every hook shown (the page scrolls); presenting: whole rows
        same = sum(1 for row in rows if row.same_shape)
        separator = self.tr(", ")                     # Chinese lists its hooks with 、
        only_a = separator.join(self.comparison.only_a) or self.tr("none")
        only_b = separator.join(self.comparison.only_b) or self.tr("none")
        self.summary.setText(self.tr("%1 hooks in both traces, %2 of them the same shape. Only in A: %3. "
                                     "Only in B: %4.").replace("%1", str(len(rows))).replace("%2", str(same))
                             .replace("%3", only_a).replace("%4", only_b))
        hooks = [row.hook for row in rows]
        if self.hook not in hooks:
            self.hook = "hook_resid_post" if "hook_resid_post" in hooks else hooks[-1]
        with QSignalBlocker(self.table):
            self.table.selectRow(hooks.index(self.hook))
        self.table.scrollToItem(self.table.item(hooks.index(self.hook), 0))
        self._show_hook()

    def _row_chosen(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows and self.comparison is not None:
            self.hook = self.comparison.common[rows[0].row()].hook
            self._show_hook()
            self.hookChosen.emit(self.hook)

    def _show_hook(self) -> None:
        """The chosen hook as three heatmaps (head 1 of a per-head hook): A, B, A − B."""
        found = self.comparison.get(self.hook)
        arrays = [np.asarray(trace[self.hook], dtype=np.float64) for trace in self.traces]
        difference = found.difference if found.difference is not None else None
        shown = [_matrix(arrays[0]), _matrix(arrays[1]), None if difference is None else _matrix(difference)]
        finite = np.concatenate([m[np.isfinite(m)] for m in shown if m is not None] or [np.zeros(1)])
        limit = limit_for(finite)
        tokens = self.session.tokens
        for index, (image, plot, matrix) in enumerate(zip(self.maps, self.map_plots, shown)):
            if matrix is None:
                image.setImage(np.full((1, 1), np.nan), levels=(-limit, limit))
                self.row_names[index] = []
                self.set_ticks(plot.getAxis("bottom"), [])
                continue
            image.setImage(np.where(np.isfinite(matrix), matrix, np.nan), levels=(-limit, limit))
            rows, columns = matrix.shape
            self.row_names[index] = list(tokens) if rows == len(tokens) else [str(i + 1) for i in range(rows)]
            column_names = list(tokens) if "pattern" in self.hook or "scores" in self.hook else \
                [str(j + 1) for j in range(columns)]
            self.set_ticks(plot.getAxis("bottom"), [(j + 0.5, name) for j, name in enumerate(column_names)
                                                    if columns <= 16 or j % 4 == 0])
        self._label_rows()
        a, b = self.pair()
        titles = (self.tr("A: %1").replace("%1", self._name(a)), self.tr("B: %1").replace("%1", self._name(b)),
                  self.tr("A − B"))
        for plot, title in zip(self.map_plots, titles):
            self.plot_title(plot, title)
        notes = [self.tr("%1: rows are tokens; colour scale ±%2 for all three.").replace("%1", self.hook)
                 .replace("%2", format_number(limit, trim=True))]
        if arrays[0].ndim == 3:
            notes.append(self.tr("Per-head hook: head 1 shown."))
        if shown[0].shape[0] == len(tokens):
            notes.append(i18n.glossary(tokens))      # English: what the tokens on the rows say
        if difference is None:
            notes.append(self.tr("The shapes differ (%1 and %2): no difference to take.")
                         .replace("%1", _shape(found.shape_a)).replace("%2", _shape(found.shape_b)))
        self.map_note.setText(" ".join(note for note in notes if note))

    def _label_rows(self, *_args) -> None:
        """Each map's row labels, one text line apart at least: every row where the map is tall
        enough, else every second (third …) row from the first. Presenting at 1024×768 the three
        stacked maps give 5 tokens about 75 px: their labels were drawn one into the next."""
        metrics = QFontMetricsF(sized_font(TICK_PT))
        # a Chinese token drawn in the fallback font is taller than the Latin font's line
        line = max(metrics.height(), metrics.boundingRect(QRectF(0, 0, 1000, 200), Qt.AlignmentFlag.AlignCenter,
                                                          "国Ag").height())
        for plot, names in zip(self.map_plots, self.row_names):
            low, high = plot.vb.viewRange()[1]                 # rows, and the view's padding
            row = plot.vb.height() / (high - low) if names and plot.vb.height() > 0 and high > low else line
            step = max(1, int(np.ceil(line / row - 1e-9)))
            self.set_ticks(plot.getAxis("left"), [(i + 0.5, names[i]) for i in range(0, len(names), step)])

    def _name(self, which: str) -> str:
        return self.tr("the explorer's block") if which == EXPLORER else generation_name(which)

    def retranslate(self) -> None:
        self.heading.setText(part_heading("compare"))
        self.label_a.setText(self.tr("A:"))
        self.label_b.setText(self.tr("B:"))
        for combo in (self.choice_a, self.choice_b):
            for index in range(combo.count()):
                combo.setItemText(index, self._name(combo.itemData(index)))
        self.table.setHorizontalHeaderLabels([self.tr("hook"), self.tr("shape A"), self.tr("shape B"),
                                              self.tr("largest |A − B|")])
        if self.comparison is not None:
            self.refresh()


def _matrix(array: np.ndarray) -> np.ndarray:
    """What a heatmap shows: a T×… hook as it is, a per-head hook's first head."""
    return array[0] if array.ndim == 3 else array
