"""Part 5 of the FFN page: three misconceptions, two of them shown live."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QVBoxLayout, QWidget

from app import i18n
from app.labs.ffn_page.common import (HEADING_PT, LINE_COLOURS, NOTE_MARGINS, TEXT_PT, PlotWidget, new_plot,
                                      note_frame, show_if_room, snapped_range, text_label, tighten)
from app.labs.ffn_page.source import DemoPart, FfnDemoSource
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs.ffn_page import SCALE_GRID, ScalingResult
from core.numbers import format_number


class FixedLabel(QLabel):
    """A one-line plain label fixed at the size a QLabel would ask for its text (at least `least_width`
    wide). A label whose size may change re-lays out its page on every new text (QLabel.setText
    asks for a new geometry), and the page, its texts and both plots repaint: the slider's s is
    new on every move. Fixed, a new text repaints the label alone."""

    def __init__(self, object_name: str, points: float, least_width: int):
        super().__init__()
        self._twin = QLabel()            # measures the text: a fixed label's own size hint is its fixed size
        self._twin.setTextFormat(Qt.TextFormat.PlainText)
        self.least_width = least_width
        self.setObjectName(object_name)
        self.setFont(font(points))
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text != self.text():
            super().setText(text)
            self._fit()
            # and its own text laid out now: laid out while it is painted, the label asks for
            # another paint (of itself and the page beneath it)
            self.sizeHint()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()

    def _fit(self) -> None:
        twin = self._twin
        if twin.font() != self.font():
            twin.setFont(self.font())
        twin.setText(self.text())
        size = twin.sizeHint().expandedTo(QSize(self.least_width, 0))
        if self.minimumSize() != size or self.maximumSize() != size:
            self.setFixedSize(size)


class FfnMisconceptionsPart(DemoPart):
    goToShuffle = Signal()

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(source, parent)
        self.setObjectName("ffnMisconceptionsPart")
        self.heading = text_label("", HEADING_PT, bold=True)
        # (1) the FFN moves nothing between tokens
        self.claim1 = text_label("", 12, bold=True)
        self.text1 = text_label("ffnMis1Text")
        self.summary1 = text_label("ffnMisShuffleSummary", rich=True)
        self.go_shuffle = QPushButton()
        self.go_shuffle.setObjectName("ffnMisGoShuffle")
        self.go_shuffle.clicked.connect(self.goToShuffle)
        # (2) softmax's nonlinearity is about how much is taken
        self.claim2 = text_label("", 12, bold=True)
        self.text2 = text_label("ffnMis2Text")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("ffnScaleFirst")
        self.slider.setRange(0, len(SCALE_GRID) - 1)
        self.slider.setValue(int(np.argmin(np.abs(SCALE_GRID - 1.0))))
        self.slider.setPageStep(5)
        self.slider.valueChanged.connect(self._move_point)
        least = QFontMetrics(font(12)).horizontalAdvance("s·x₁, s = −2.0") + 10
        self.scale_label = FixedLabel("ffnScaleValue", 12, least)
        self.first_widget, self.first_plot, self.first_curves, self.first_point = self._plot("ffnScalePlotFirst")
        self.late_widget, self.late_plot, self.late_curves, self.late_point = self._plot("ffnScalePlotLate")
        self.check = text_label("ffnScaleCheck", rich=True)
        # (3) one neuron, one concept
        self.claim3 = text_label("", 12, bold=True)
        self.text3 = text_label("ffnMis3Text")

        slider_row = QHBoxLayout()
        self.slider_caption = text_label("", TEXT_PT)
        self.slider_caption.setWordWrap(False)
        slider_row.addWidget(self.slider_caption)
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(self.scale_label)
        plots = QHBoxLayout()
        plots.addWidget(self.first_widget)
        plots.addWidget(self.late_widget)
        go_row = QHBoxLayout()
        go_row.addWidget(self.summary1, 1)
        go_row.addWidget(self.go_shuffle, 0, Qt.AlignmentFlag.AlignTop)

        layout = self.page_layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        box1 = note_frame(self.claim1, self.text1, object_name="ffnMis1")
        layout.addWidget(box1)
        layout.addLayout(go_row)
        box2 = note_frame(self.claim2, self.text2, object_name="ffnMis2")
        layout.addWidget(box2)
        layout.addLayout(slider_row)
        layout.addLayout(plots, 1)                       # the room left goes to the plots
        layout.addWidget(self.check)
        box3 = note_frame(self.claim3, self.text3, object_name="ffnMis3")
        layout.addWidget(box3)
        self.box_layouts = [box.layout() for box in (box1, box2, box3)]
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()
        source.shuffled.connect(self._refresh_summary)
        self.result: ScalingResult | None = None
        self._ranges: dict[int, tuple] = {}
        self._brushes = [pg.mkBrush(colour) for colour in LINE_COLOURS]
        self.retranslate()

    def _follow_presenting(self) -> None:
        """On a projector the page shows the three claims, the live shuffle count, the softmax
        explanation with its slider and plots, all without scrolling: the other two explanations
        and the curvature check (the plots' titles say straight or curved) wait for the desk (the
        heading too: the panel hides it, the lesson's title says it)."""
        presenting = appearance().presenting
        for widget in (self.text1, self.text3, self.check):
            widget.setVisible(not presenting)
        # the rows and the claims' boxes closer (at 1024×768 with 150 % zoom the page scrolled 127 px,
        # zh 115, and the plots' axes were below the edge)
        tighten(self.page_layout, presenting)
        for box in self.box_layouts:
            tighten(box, presenting, (10, 1, 10, 1), -1, NOTE_MARGINS)
        self._fit_explanation()

    def _fit_explanation(self) -> None:
        """Presenting, the softmax explanation stays when the page has the height for it and steps
        aside when not (1024×768 with 150 % zoom: the lesson's caption says it, and the plots it
        explains need the height); its claim, the slider and the plots always stay. Whether it fits
        is worked out as if it were shown, so showing or hiding it never changes the answer."""
        show_if_room(self, self.page_layout, self.text2, self.claim2.width(), self.box_layouts[1].spacing())

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_explanation()

    @staticmethod
    def _plot(object_name: str):
        widget = PlotWidget(object_name, 220)
        plot = new_plot(widget)
        curves = []
        for colour in LINE_COLOURS:
            curves.append(plot.plot([], [], pen=pg.mkPen(colour, width=2)))
        point = pg.ScatterPlotItem(size=11, pen=pg.mkPen("w"), brush=pg.mkBrush("#D55E00"))
        plot.addItem(point)
        plot.addLine(x=0, pen=pg.mkPen("#bbbbbb", style=Qt.PenStyle.DashLine))
        return widget, plot, curves, point

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Three common misconceptions"))
        self.claim1.setText(self.tr("✗ “The FFN also passes information between tokens.”"))
        self.text1.setText(self.tr(
            "It computes every position on its own: shuffle the tokens and its output rows are only shuffled. "
            "Between tokens, information flows only through attention."))
        self.go_shuffle.setText(self.tr("Open the shuffle demo"))
        self.claim2.setText(self.tr("✗ “Attention has softmax, so it is already nonlinear; the FFN is optional.”"))
        self.text2.setText(self.tr(
            "Softmax is nonlinear, but it only decides how much is taken from each token. Once those weights are "
            "fixed, the value path x → x·W_V·W_O is two matrix products: linear. Under a causal mask the first token "
            "can only take from itself (weight exactly 1), so its output is a linear function of its own x₁. Scale "
            "x₁ by s: the first token's output moves on straight lines; a later token's weights shift with s, so its "
            "lines bend."))
        self.slider_caption.setText(self.tr("scale x₁ by s:"))
        self.claim3.setText(self.tr("✗ “Each neuron stands for one nameable concept.”"))
        self.text3.setText(self.tr(
            "The lab's two neurons have names — “at least one holds” and “both hold” — only because their weights "
            "were built by hand to mean that. In trained models most neurons respond to several unrelated patterns, "
            "and one picked at random often shows no pattern at all. The lesson on the trained model shows both: "
            "its neurons with the largest activations beside randomly drawn ones."))
        for plot in (self.first_plot, self.late_plot):
            plot.setLabel("bottom", self.tr("s"), **{"font-size": "11pt"})
        self.first_plot.setLabel("left", self.tr("attention output"), **{"font-size": "11pt"})

    def refresh(self) -> None:
        self._stale = False
        self._refresh_summary()
        result = self.source.scaling_result()
        redraw, self.result = result is not self.result, result       # the same result: the same curves
        tokens = self.source.tokens()
        width = min(result.first.shape[1], len(LINE_COLOURS))      # a wide block: its first components
        for curves, rows in ((self.first_curves, result.first), (self.late_curves, result.late)) if redraw else ():
            for k, curve in enumerate(curves):
                if k < width:
                    curve.setData(result.scales, rows[:, k])
                if curve.isVisible() != (k < width):
                    curve.setVisible(k < width)
        for plot, rows in ((self.first_plot, result.first), (self.late_plot, result.late)):
            wanted = ((float(result.scales[0]), float(result.scales[-1])), snapped_range(rows))
            if self._ranges.get(id(plot)) != wanted:     # re-ranging re-lays out the axes: only on change
                self._ranges[id(plot)] = wanted
                plot.setXRange(*wanted[0], padding=0.02)
                plot.setYRange(*wanted[1], padding=0)

        def verdict(linear: bool) -> str:
            return self.tr("straight") if linear else self.tr("curved")

        titles = ((self.first_plot, self.tr("token 1 (%1): %2").replace("%1", i18n.with_gloss(tokens[0]))
                   .replace("%2", verdict(result.first_is_linear))),
                  (self.late_plot, self.tr("token %1 (%2): %3").replace("%1", str(result.late_token + 1))
                   .replace("%2", i18n.with_gloss(tokens[result.late_token])).replace("%3", verdict(result.late_is_linear))))
        for plot, title in titles:
            if plot.titleLabel.text != title:
                plot.setTitle(title, size="11pt")
        d = result.first.shape[1]
        components = (self.tr("the %1 components").replace("%1", str(d)) if width == d else
                      self.tr("the first %1 of %2 components").replace("%1", str(width)).replace("%2", str(d)))
        self.check.setText(self.tr(
            "Largest second difference over the grid (0 for a straight line): token 1 <b>%1</b>, token %2 <b>%3</b>. "
            "Lines: %4 of hook_attn_out, causal mask. %5")
            .replace("%1", format_number(result.first_curvature, 6)).replace("%2", str(result.late_token + 1))
            .replace("%3", format_number(result.late_curvature, 6)).replace("%4", components)
            .replace("%5", self.source_text()))
        if redraw:
            self._move_point()
        else:
            self._scale_text()

    def _scale_text(self) -> None:
        self.scale_label.setText(self.tr("s = %1").replace("%1", format_number(float(SCALE_GRID[self.slider.value()]), 1)))

    def _move_point(self) -> None:
        index = self.slider.value()
        self._scale_text()
        if self.result is None:
            return
        s = self.result.scales[index]
        width = min(self.result.first.shape[1], len(LINE_COLOURS))
        brushes = self._brushes[:width]
        for point, rows in ((self.first_point, self.result.first), (self.late_point, self.result.late)):
            point.setData(x=np.full(width, s), y=rows[index, :width], brush=brushes)

    def point_data(self) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
        first = self.first_point.getData()
        late = self.late_point.getData()
        return (np.asarray(first[0]), np.asarray(first[1])), (np.asarray(late[0]), np.asarray(late[1]))

    def _refresh_summary(self) -> None:
        result = self.source.shuffle_result()
        step = max(self.source.step, 1)
        self.summary1.setText(self.tr(
            "Live, shuffle #%1: %2 of %3 FFN rows moved with their token unchanged; causal attention changed "
            "the output of %4 of %3 tokens.")
            .replace("%1", str(step)).replace("%2", str(result.ffn_kept_count)).replace("%3", str(len(result.tokens)))
            .replace("%4", str(result.attention_changed_count)))
