"""Part 2 of the FFN page: why d_ff is four times d, from the original paper's table."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF, QTextDocument
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.explorer.plots.look import LABEL_NUDGE, advance, line_height
from app.labs.ffn_page.common import (EDGE_PT, HEADING_PT, NOTE_MARGINS, TICK_PT, Part, PlotWidget, new_plot,
                                      note_frame, show_if_room, text_label, tighten)
from app.widgets.appearance import appearance
from app.widgets.style import font
from app.widgets.symbols import point_brush, point_pen
from core.labs.ffn_page import (GPT2_D_FF, GPT2_D_MODEL, VASWANI_BASE_D_FF, VASWANI_D_MODEL, VASWANI_SOURCE,
                                VASWANI_WIDTH, ffn_parameter_parts, gpt2_ffn_parameters, width_ratio)


LABEL_PT = 11               # the axes' names
SYMBOL_PX = 11              # the points' diameter
X_PADDING, Y_PADDING = 0.14, (0.27, 0.32)   # the least room around the points, in parts of the data's span
# Where each point's label stands (a TextItem's anchor: the share of the text left of and above
# its point). Centred, as the plot has room: the first above its point, the others below, the
# middle one to the left of where the curve goes on falling (centred above every point the line
# ran through the labels of the last two). Narrow, the first starts at its point and the last
# ends at its: the labels then need less room beyond the points.
CENTRED = ((0.5, 1.25), (1.0, -0.25), (0.5, -0.25))
NARROW = ((0.0, 1.25), (1.0, -0.25), (1.0, -0.25))


def _anchors(count: int, placing: tuple) -> list[tuple[float, float]]:
    return [placing[0] if k == 0 else placing[2] if k == count - 1 else placing[1] for k in range(count)]


def fitted_range(spots: list[tuple[float, float, float]], least: tuple[float, float],
                 room: float) -> tuple[tuple[float, float], float]:
    """The shortest data range holding `least` in which each spot (a data position p, and the
    pixels its drawing reaches before and after it) lies whole inside `room` pixels, the spare
    room split evenly; and its scale in pixels per data unit (0: no range fits). Each pair of
    spots a before b needs scale × (p_b − p_a) ≤ room − before_a − after_b."""
    spots = spots + [(least[0], 0.0, 0.0), (least[1], 0.0, 0.0)]
    scale = np.inf
    for p_a, before_a, _ in spots:
        for p_b, _, after_b in spots:
            free = room - before_a - after_b
            if p_b > p_a:
                scale = min(scale, free / (p_b - p_a))
            elif free < 0:
                scale = 0.0
    if not np.isfinite(scale) or scale <= 0:
        return least, 0.0
    low = min(p - before / scale for p, before, _ in spots)
    high = max(p + after / scale for p, _, after in spots)
    spare = (room / scale - (high - low)) / 2
    return (low - spare, high + spare), scale


class FfnWidthPart(Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnWidthPart")
        self.heading = text_label("", HEADING_PT, bold=True)
        self.intro = text_label("ffnWidthIntro")
        self.plot_widget = PlotWidget("ffnWidthPlot", 300)
        self.plot = new_plot(self.plot_widget)
        d_ff = np.array([row.d_ff for row in VASWANI_WIDTH], dtype=float)
        perplexity = np.array([row.dev_perplexity for row in VASWANI_WIDTH])
        self.curve = self.plot.plot(d_ff, perplexity, pen=pg.mkPen("#0072B2", width=2), symbol="o",
                                    symbolSize=SYMBOL_PX, symbolBrush=point_brush("#0072B2"), symbolPen=point_pen("w"))
        self.point_labels: list[pg.TextItem] = []
        for anchor, row in zip(_anchors(len(VASWANI_WIDTH), CENTRED), VASWANI_WIDTH):
            # off the line: the curve falls from the first point (label above it) into the others
            text = pg.TextItem(anchor=anchor, color="#222222")
            text.setFont(font(EDGE_PT))
            text.setPos(row.d_ff, row.dev_perplexity)
            self.plot.addItem(text)
            self.point_labels.append(text)
        self.plot.getAxis("bottom").setTicks([[(row.d_ff, f"{row.d_ff:,}") for row in VASWANI_WIDTH]])
        x_span, y_span = float(np.ptp(d_ff)), float(np.ptp(perplexity))
        self.least_x = (float(d_ff.min()) - X_PADDING * x_span, float(d_ff.max()) + X_PADDING * x_span)
        self.least_y = (float(perplexity.min()) - Y_PADDING[0] * y_span,
                        float(perplexity.max()) + Y_PADDING[1] * y_span)
        self.plot.setXRange(*self.least_x, padding=0)
        self.plot.setYRange(*self.least_y, padding=0)
        self.fitted: tuple | None = None              # what the plot's texts were last fitted to
        self.y_ticks: list[tuple[float, str]] | None = None
        self.plot.getViewBox().sigResized.connect(self._fit_plot)
        for side in ("left", "bottom"):
            # an axis's name centred on its axis again whenever its text or size changes (the zoom
            # too): pyqtgraph places it only when the axis resizes, and a longer name on an axis of
            # the same size ran past its end
            axis = self.plot.getAxis(side)
            axis.label.document().contentsChanged.connect(axis.resizeEvent)
        appearance().changed.connect(self._fit_plot)
        self.source = text_label("ffnWidthSource")
        self.source.setStyleSheet("color: #555555;")
        self.gpt2 = text_label("ffnWidthGpt2", rich=True)

        layout = self.page_layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.source)
        self.gpt2_box = note_frame(self.gpt2)
        self.gpt2_layout = self.gpt2_box.layout()
        layout.addWidget(self.gpt2_box)
        layout.addStretch(0)
        self.retranslate()

    def follow_presenting(self, presenting: bool) -> None:
        """Presenting, the rows and the GPT-2 box's margins closer: at 1024×768 with 150 % zoom the
        page scrolled 12 px (zh 40)."""
        tighten(self.page_layout, presenting, (6, 0, 6, 0))
        tighten(self.gpt2_layout, presenting, (10, 3, 10, 3), -1, NOTE_MARGINS)
        self._fit_intro()

    def _fit_intro(self) -> None:
        """Presenting, the intro (the lesson's caption says it) steps aside when the plot would
        otherwise be lower than its y axis's name is long (1024×768 with 150 % zoom: "dev perplexity
        (lower is better)" ran past the plot's top and bottom). Worked out as if the intro were
        shown, so showing or hiding it never changes the answer."""
        # the plot's height is its least (its size hint) and what the page has left; the y axis's
        # name in full (a shorter one is for a plot with less room still)
        left = self.plot.getAxis("left").label
        needed = advance(font(appearance().points(LABEL_PT)), self._titles()[1][0]) \
            + 2 * left.document().documentMargin() + self.plot.getAxis("bottom").height() + 12
        show_if_room(self, self.page_layout, self.intro, self.width() - 12, self.page_layout.spacing(),
                     lambda left: self.plot_widget.sizeHint().height() + left >= needed)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_intro()

    # --- the plot's texts, whole at any size ---------------------------------------------------
    def _titles(self) -> tuple[list[str], list[str]]:
        """The x and y axes' names, each from its full wording to its shortest."""
        x_title = self.tr("d_ff (d_model = %1)").replace("%1", str(VASWANI_D_MODEL))
        return [x_title, "d_ff"], [self.tr("dev perplexity (lower is better)"),
                                   self.tr("perplexity (lower = better)"), self.tr("perplexity")]

    def _label_texts(self) -> list[str]:
        return [self.tr("%1 · %2M params").replace("%1", f"{row.dev_perplexity:.2f}")
                .replace("%2", str(row.parameters_millions)) for row in VASWANI_WIDTH]

    def _fit_plot(self) -> None:
        """Every text of the plot whole inside it at the room it has now: the point labels
        centred where the points' range leaves them room, else the first starting at its point
        and the last ending at its; the ranges widened by what the labels, the points and the
        d_ff ticks reach past their points (measured in their fonts at the current zoom); each
        axis's name in the longest wording its side holds. The fonts are the sizes the page's
        fonts follow the zoom to (app/labs/fonts.py), so this need not wait for them."""
        view_box = self.plot.getViewBox()
        width, height = view_box.width(), view_box.height()
        texts = self._label_texts()
        x_titles, y_titles = self._titles()
        key = (width, height, appearance().scale, tuple(texts), y_titles[0])
        if width <= 0 or height <= 0:               # not laid out yet: the full names, fitted once it is
            self._set_title("bottom", x_titles[0])
            self._set_title("left", y_titles[0])
            return
        if key == self.fitted:
            return
        self.fitted = key
        label_font, tick_font = font(appearance().points(EDGE_PT)), font(appearance().points(TICK_PT))
        title_font = font(appearance().points(LABEL_PT))
        margin = self.point_labels[0].textItem.document().documentMargin()
        label_sizes = [(advance(label_font, text) + 2 * margin + 1, line_height(label_font) + 2 * margin)
                       for text in texts]
        dot = SYMBOL_PX / 2 + 1
        ticks = [(row.d_ff, advance(tick_font, f"{row.d_ff:,}") / 2 + 1) for row in VASWANI_WIDTH]

        def x_fit(placing):
            spots = [(row.d_ff, max(dot, ax * w), max(dot, (1 - ax) * w))
                     for (ax, _), (w, _h), row in zip(_anchors(len(texts), placing), label_sizes, VASWANI_WIDTH)]
            return fitted_range(spots + [(x, half, half) for x, half in ticks], self.least_x, width)

        centred, narrow = x_fit(CENTRED), x_fit(NARROW)
        least_scale = width / (self.least_x[1] - self.least_x[0])
        fits_centred = centred[1] >= least_scale * (1 - 1e-9) or centred[1] >= narrow[1]
        placing, (x_range, _) = (CENTRED, centred) if fits_centred else (NARROW, narrow)
        anchors = _anchors(len(texts), placing)
        y_spots = [(row.dev_perplexity, max(dot, (1 - ay) * h), max(dot, ay * h))
                   for (_, ay), (_w, h), row in zip(anchors, label_sizes, VASWANI_WIDTH)]
        y_range, _ = fitted_range(y_spots, self.least_y, height)
        for text, anchor in zip(self.point_labels, anchors):
            if tuple(text.anchor) != anchor:
                text.setAnchor(anchor)
        self.plot.setXRange(*x_range, padding=0)
        self.plot.setYRange(*y_range, padding=0)
        room = 2 * self.plot.getAxis("left").label.document().documentMargin()
        x_title = next((t for t in x_titles if advance(title_font, t) + room <= width), x_titles[-1])
        y_title = next((t for t in y_titles if advance(title_font, t) + room <= height), y_titles[-1])
        self._set_title("bottom", x_title)
        self._set_title("left", y_title)
        self._fit_axes(x_title, y_title, y_range, height, tick_font, title_font)

    def _fit_axes(self, x_title: str, y_title: str, y_range: tuple[float, float], height: float,
                  tick_font, title_font) -> None:
        """The perplexity ticks a round step apart and never at the plot's top or bottom edge
        (pyqtgraph centres a tick's number on it: at the top edge half of it was cut), and each
        axis as deep as its numbers and its name's box (as look.fit_axis_height and the heatmaps'
        CellLabels size the explorer's): pyqtgraph keeps 80 % of the name's, and the name touched
        the numbers (a Chinese one, whose box is taller, ran into them)."""
        tick_line = QFontMetricsF(tick_font).height()            # (digits: no Chinese line height)
        per_unit = height / (y_range[1] - y_range[0])
        wanted = max(1.2 * tick_line, 40.0) / per_unit               # (a tall plot: 0.1 apart, not 0.05)
        power = 10.0 ** np.floor(np.log10(wanted))
        step = next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= wanted * (1 - 1e-9))
        inset = (tick_line / 2 + 1) / per_unit
        first, last = np.ceil((y_range[0] + inset) / step - 1e-9), np.floor((y_range[1] - inset) / step + 1e-9)
        decimals = max(0, int(-np.floor(np.log10(step) + 1e-9)))
        y_ticks = [(k * step, f"{k * step:.{decimals}f}") for k in range(int(first), int(last) + 1)]
        left, bottom = self.plot.getAxis("left"), self.plot.getAxis("bottom")
        if y_ticks != self.y_ticks:
            left.setTicks([y_ticks])
            self.y_ticks = y_ticks

        def name_depth(text: str) -> float:                      # the name's box as pyqtgraph lays it out
            name = QTextDocument()
            name.setDefaultFont(title_font)
            name.setPlainText(text)
            return name.size().height() - LABEL_NUDGE + 2

        widest = max((advance(tick_font, text) for _, text in y_ticks), default=0.0)
        left_width = int(widest + left.style["tickTextOffset"][0] + max(0, left.style["tickLength"])
                         + name_depth(y_title) + 1.999)
        bottom_height = int(max(0, bottom.style["tickLength"]) + bottom.style["tickTextOffset"][1] + tick_line
                            + name_depth(x_title) + 0.999)
        if left.fixedWidth != left_width:
            left.setWidth(left_width)
        if bottom.fixedHeight != bottom_height:
            bottom.setHeight(bottom_height)

    def _set_title(self, side: str, text: str) -> None:
        """An axis's name, set only when it changes (the page's fonts follow the zoom into its style)."""
        axis = self.plot.getAxis(side)
        if axis.labelText != text:
            self.plot.setLabel(side, text, **(axis.labelStyle if axis.labelText else {"font-size": f"{LABEL_PT}pt"}))

    def plotted(self) -> tuple[np.ndarray, np.ndarray]:
        x, y = self.curve.getData()
        return np.asarray(x), np.asarray(y)

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Why four times as wide?"))
        self.intro.setText(self.tr(
            "Two neurons solved one hand-made problem; a real model needs thousands of reading directions at once. "
            "d_ff = 4d gives every token 4d hidden units. Nothing derives the 4: the original paper tried three "
            "widths at d_model = %1 — wider was better but dearer — and kept %2 = 4 × %1.")
            .replace("%1", str(VASWANI_D_MODEL)).replace("%2", f"{VASWANI_BASE_D_FF:,}"))
        for text, words in zip(self.point_labels, self._label_texts()):
            text.setText(words)
        self.source.setText(self.tr("Source: %1. English–German dev set (newstest2013); the middle point is the "
                                    "base model.").replace("%1", VASWANI_SOURCE))
        parts = ffn_parameter_parts(GPT2_D_MODEL, GPT2_D_FF)
        self.gpt2.setText(self.tr(
            "<b>GPT-2 small keeps the 4×:</b> d = %1 → d_ff = %2 (×%3). One layer's FFN holds "
            "W_up %4 + b_up %5 + W_down %6 + b_down %7 = <b>%8</b> parameters.")
            .replace("%1", f"{GPT2_D_MODEL:,}").replace("%2", f"{GPT2_D_FF:,}")
            .replace("%3", f"{width_ratio(GPT2_D_MODEL, GPT2_D_FF):g}").replace("%4", f"{parts['W_up']:,}")
            .replace("%5", f"{parts['b_up']:,}").replace("%6", f"{parts['W_down']:,}")
            .replace("%7", f"{parts['b_down']:,}").replace("%8", f"{gpt2_ffn_parameters():,}"))
        self.fitted = None
        self._fit_plot()                              # the axes' names and the labels' room in these words
