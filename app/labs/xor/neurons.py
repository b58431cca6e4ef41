"""Part ⑥ of the two-neuron lab: what each neuron responds to over the (p, n) square."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRectF, Qt
from PySide6.QtWidgets import QBoxLayout, QVBoxLayout, QWidget

from app import i18n
from app.explorer.plots.heatmap import MapImage  # drawn from 32-bit colour: see its docstring
from app.labs.base import show_only
from app.labs.xor.common import (TEXT_PT, TICK_PT, BoxedText, SteadyScatter, axis_label, esc, graphics, label,
                                 new_plot, set_text, steady_plot_title, trimmed)
from app.widgets.appearance import appearance
from app.widgets.style import DIVERGING, DIVERGING_LUT, font, limit_for, minus_ticks
from core.labs import xor as lab

MAP_POINTS = 41                                       # each neuron over the (p, n) square
SUBSCRIPT_H = ("h₁", "h₂")


NOTES_WIDTH = 200                                     # presenting: the notes' column, in pixels at 100 %


class XorNeuronsPart(QWidget):
    """Two heatmaps (one per neuron) with the four sentences on them, and what each one lights up for.

    The texts sit below the maps; in presentation mode, where the table above leaves a projector
    little height, they sit in a column beside them, so the maps keep the whole height."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorNeuronsPage")
        self.session = session
        layout = QBoxLayout(QBoxLayout.Direction.TopToBottom, self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.page_layout = layout
        self.maps_view = graphics("xorNeuronMaps")
        self.maps_view.ci.setContentsMargins(2, 8, 2, 8)      # room for the colour bar's end labels
        self.map_plots: list[pg.PlotItem] = []
        self.neuron_images: list[pg.ImageItem] = []
        self.map_points: list[pg.ScatterPlotItem] = []
        self.map_labels: list[list[pg.TextItem]] = []
        half = 0.5 / (MAP_POINTS - 1)
        self.map_rect = QRectF(-half, -half, 1 + 2 * half, 1 + 2 * half)
        for j in range(2):
            plot = new_plot()
            image = MapImage()
            image.setLookupTable(DIVERGING_LUT)
            plot.addItem(image)
            points = SteadyScatter(size=11, brush=pg.mkBrush("#ffffff"), pen=pg.mkPen("#111111", width=2))
            plot.addItem(points)
            plot.setXRange(-half, 1 + half, padding=0.02)
            plot.setYRange(-half, 1 + half, padding=0.02)
            plot.setAspectLocked(True)
            for side, text in (("bottom", "p"), ("left", "n")):
                axis_label(plot, side, text)
            self.maps_view.addItem(plot, 0, j)
            self.map_plots.append(plot)
            self.neuron_images.append(image)
            self.map_points.append(points)
            self.map_labels.append([])
        self.maps_bar = pg.ColorBarItem(values=(-1, 1), colorMap=DIVERGING, interactive=False, width=12,
                                        colorMapMenu=False, pen="#888888")
        self.maps_bar.axis.setTickFont(font(TICK_PT))
        minus_ticks(self.maps_bar.axis)                        # −1, as every number is printed
        # wider tick labels widen the bar, narrower ones do not narrow it: a new scale must not
        # re-lay out (and repaint) both maps on an edit
        self.maps_bar.axis.setStyle(autoReduceTextSpace=False)
        self.maps_bar.axis.enableAutoSIPrefix(False)
        self.maps_view.addItem(self.maps_bar, 0, 2)
        self.maps_levels = (-1.0, 1.0)
        layout.addWidget(self.maps_view, 1)
        self.notes = QWidget()
        self.notes.setObjectName("xorNeuronNotes")
        notes = QVBoxLayout(self.notes)
        notes.setContentsMargins(0, 0, 0, 0)
        self.captions = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        self.map_captions = [label(f"xorNeuronCaption{j + 1}", 10) for j in range(2)]
        for caption in self.map_captions:
            caption.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            self.captions.addWidget(caption, 1)
        notes.addLayout(self.captions)
        self.maps_summary = label("xorNeuronSummary", TEXT_PT)
        notes.addWidget(self.maps_summary)
        notes.addStretch(0)
        layout.addWidget(self.notes)
        self._beside = False
        self._points: bytes | None = None                     # the table's (p, n) the maps show
        self._limit: float | None = None                      # the colour scale's, kept (_steady_limit)
        self._viewport: QWidget | None = None                 # the scroll area's, followed (_step_aside)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    def _follow_presenting(self) -> None:
        beside = appearance().presenting
        if beside == self._beside:
            if beside:                                               # the zoom changed
                self.notes.setFixedWidth(appearance().pixels(NOTES_WIDTH))
            return
        self._beside = beside
        self.page_layout.setDirection(QBoxLayout.Direction.LeftToRight if beside else QBoxLayout.Direction.TopToBottom)
        self.captions.setDirection(QBoxLayout.Direction.TopToBottom if beside else QBoxLayout.Direction.LeftToRight)
        self.notes.layout().setStretch(2, 1 if beside else 0)        # beside: the texts at the top
        if beside:
            self.notes.setFixedWidth(appearance().pixels(NOTES_WIDTH))
        else:
            self.notes.setMinimumWidth(0)
            self.notes.setMaximumWidth(16777215)
        self._step_aside()

    # --- presenting, short of room ---------------------------------------------------------
    # The notes say again what the step's caption says (what each neuron lights up for, the output's
    # sum) and the maps show each sentence's h: presenting, the sum steps aside while the notes are
    # taller than the page, and the whole column while the maps and the notes are wider than it
    # (the maps' titles at 150 % on 1024 px). At the desk, and with the room, all are shown.
    def _step_aside(self) -> None:
        aside = (self.maps_summary, self.notes)
        viewport = self.parentWidget()
        if not appearance().presenting or viewport is None:
            show_only(aside, (), self)
            self._fill_width(False)
            return
        if viewport is not self._viewport:
            self._viewport = viewport
            viewport.installEventFilter(self)
        margins, spacing = self.page_layout.contentsMargins(), max(0, self.page_layout.spacing())
        width = viewport.width() - margins.left() - margins.right()
        height = viewport.height() - margins.top() - margins.bottom()
        maps = math.ceil(self.maps_view.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()) \
            + 2 * self.maps_view.frameWidth()
        notes = self.notes.maximumWidth()
        hidden: list[QWidget] = []
        if maps + spacing + notes > width:
            hidden = [self.maps_summary, self.notes]
        elif self._notes_height(notes, True) > height:
            hidden = [self.maps_summary]
            if self._notes_height(notes, False) > height:
                hidden.append(self.notes)
        show_only(aside, hidden, self)
        self._fill_width(self.notes in hidden)

    def _fill_width(self, wide: bool) -> None:
        """Without the notes beside them (short of room), the maps fill the page's width: their
        (p, n) squares are drawn wider than tall, so the sentences' labels have the width they
        need side by side; else each is square."""
        half = 0.5 / (MAP_POINTS - 1)
        for plot in self.map_plots:
            if (plot.vb.state["aspectLocked"] is not False) != wide:
                continue                                      # as it should be: no new range
            plot.setAspectLocked(not wide)
            plot.setXRange(-half, 1 + half, padding=0.02)
            plot.setYRange(-half, 1 + half, padding=0.02)

    def _notes_height(self, width: int, summary: bool) -> int:
        """The notes' height at `width`: the two captions (and the sum) one under the other."""
        spacing = max(0, self.notes.layout().spacing())
        texts = [*self.map_captions, self.maps_summary] if summary else list(self.map_captions)
        return sum(text.heightForWidth(width) for text in texts) + spacing * (len(texts) - 1)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self._step_aside()
        return super().eventFilter(watched, event)

    def _steady_limit(self, limit: float) -> float:
        """The maps' colour scale ±limit: a round limit (1, 2, 5, …) that grows at once when a map
        needs more, and shrinks only when the maps would fill less than 40 % of it. Set anew on
        every edit, an edit moving a map's peak across 1 (the bench's W_in cycle: a quarter of its
        edits) re-rendered both maps and re-ticked the colour bar; `release()` (a new scenario)
        fits it again."""
        kept = self._limit
        if kept is None or limit > kept or limit < 0.4 * kept:
            self._limit = kept = limit
        return kept

    def release(self) -> None:
        """The next refresh fits the colour scale to the maps again (a lesson step, a file opened)."""
        self._limit = None

    def _names(self, rows) -> str:
        return self.tr(", ").join(i18n.with_gloss(self.session.tokens[int(r)]) for r in rows)

    def refresh(self) -> None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        grid, maps = lab.neuron_maps(s.config, state.weights, MAP_POINTS)
        limit = self._steady_limit(limit_for(maps))
        levels = (-limit, limit)
        for j, image in enumerate(self.neuron_images):
            data = np.ascontiguousarray(maps[j], dtype=np.float32)
            if image.image is not None and getattr(image, "_levels", None) == levels \
                    and np.array_equal(image.image, data):
                continue                     # this neuron's weights did not change: its map is not drawn again
            new = image.image is None
            image.setImage(data, levels=levels)
            image._levels = levels
            if new:
                image.setRect(self.map_rect)                     # needs an image first; the grid's size never changes
        if levels != self.maps_levels:
            self.maps_levels = levels
            self.maps_bar.setLevels(values=levels)
        inputs = state.inputs
        hidden = s.trace["mlp.hook_post"]
        rules = {"at_least_one": self.tr("at least one of p, n holds (p + n ≥ 1)"),
                 "both": self.tr("only when both hold"), "exactly_one": self.tr("exactly one holds"),
                 "none": self.tr("none of the four sentences"), "all": self.tr("all four sentences"), "other": ""}
        patterns = []
        points = inputs[:, :2].tobytes()
        new_points = points != self._points                     # the table's rows: rarely new
        self._points = points
        for j, plot in enumerate(self.map_plots):
            if new_points:
                self.map_points[j].setData(inputs[:, 0], inputs[:, 1])
            labels = self.map_labels[j]
            while len(labels) < len(s.tokens):
                item = BoxedText(anchor=(0.5, 1.3), color="#111111", fill=pg.mkBrush(255, 255, 255, 200))
                item.setFont(font(10))
                plot.addItem(item)
                labels.append(item)
            for k, item in enumerate(labels):
                if k < len(s.tokens):
                    text = f"{s.tokens[k]} {trimmed(hidden[k, j], 3)}"
                    meaning = i18n.gloss(s.tokens[k])            # English: the gloss on a line below
                    if meaning:
                        text += f"\n“{meaning}”"
                    if item.toPlainText() != text:
                        item.setText(text)
                    # labels stay inside the square: the top row's below their point, the bottom
                    # row's above it; the left column's to the right of it, the right column's to the left
                    x_anchor = 0.0 if inputs[k, 0] < 0.25 else 1.0 if inputs[k, 0] > 0.75 else 0.5
                    place = (float(inputs[k, 0]), float(inputs[k, 1]),
                             (x_anchor, -0.3) if inputs[k, 1] > 0.5 else (x_anchor, 1.3))
                    if getattr(item, "_placed", None) != place:           # the table's rows rarely move
                        item._placed = place
                        item.setPos(place[0], place[1])
                        item.setAnchor(place[2])
                    if not item.isVisible():
                        item.show()
                else:
                    item.hide()
            formula = lab.neuron_formula(s.config, state.weights, j)
            steady_plot_title(plot, self.tr("neuron %1: %2 = %3").replace("%1", str(j + 1))
                              .replace("%2", SUBSCRIPT_H[j]).replace("%3", formula))
            lit = lab.lit_rows(hidden[:, j])
            pattern = lab.lit_pattern(inputs, lit)
            patterns.append(pattern)
            lit_names = self._names(np.flatnonzero(lit)) or self.tr("none")
            caption = self.tr("Neuron %1 lights up (h ≥ 0.5) for: <b>%2</b>").replace("%1", str(j + 1)) \
                .replace("%2", esc(lit_names))
            if rules[pattern]:
                caption += self.tr(" — %1.").replace("%1", rules[pattern])
            set_text(self.map_captions[j], caption)
        summary = self.tr("The output adds them with the write-back coefficients: <b>ŷ = %1</b>.") \
            .replace("%1", lab.output_formula(state.weights))
        if patterns == ["at_least_one", "both"] and lab.verdicts(s.trace["hook_resid_post"], state.targets).all():
            summary += self.tr(" “At least one” minus twice “both” is “exactly one”.")
        set_text(self.maps_summary, summary)
        if appearance().presenting:
            self._step_aside()                                # another text, another height
