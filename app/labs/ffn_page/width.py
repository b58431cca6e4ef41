"""Part 2 of the FFN page: why d_ff is four times d, from the original paper's table."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.labs.ffn_page.common import (EDGE_PT, HEADING_PT, NOTE_MARGINS, Part, PlotWidget, new_plot, note_frame,
                                      show_if_room, text_label, tighten)
from app.widgets.style import font
from app.widgets.symbols import point_brush, point_pen
from core.labs.ffn_page import (GPT2_D_FF, GPT2_D_MODEL, VASWANI_BASE_D_FF, VASWANI_D_MODEL, VASWANI_SOURCE,
                                VASWANI_WIDTH, ffn_parameter_parts, gpt2_ffn_parameters, width_ratio)


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
        self.curve = self.plot.plot(d_ff, perplexity, pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=11,
                                    symbolBrush=point_brush("#0072B2"), symbolPen=point_pen("w"))
        self.point_labels: list[pg.TextItem] = []
        for k, row in enumerate(VASWANI_WIDTH):
            # off the line: the curve falls from the first point (label above it) into the others
            # (labels below, the middle one to the left of where the curve goes on falling);
            # centred above every point the line ran through the labels of the last two
            anchor = (0.5, 1.25) if k == 0 else (0.5, -0.25) if k == len(VASWANI_WIDTH) - 1 else (1.0, -0.25)
            text = pg.TextItem(anchor=anchor, color="#222222")
            text.setFont(font(EDGE_PT))
            text.setPos(row.d_ff, row.dev_perplexity)
            self.plot.addItem(text)
            self.point_labels.append(text)
        self.plot.getAxis("bottom").setTicks([[(row.d_ff, f"{row.d_ff:,}") for row in VASWANI_WIDTH]])
        self.plot.setXRange(600, 4500, padding=0)
        low, high = float(perplexity.min()), float(perplexity.max())
        self.plot.setYRange(low - 0.1, high + 0.12, padding=0)
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
        # the plot's height is its least (its size hint) and what the page has left
        needed = self.plot.getAxis("left").label.boundingRect().width() + self.plot.getAxis("bottom").height() + 12
        show_if_room(self, self.page_layout, self.intro, self.width() - 12, self.page_layout.spacing(),
                     lambda left: self.plot_widget.sizeHint().height() + left >= needed)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_intro()

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
        self.plot.setLabel("bottom", self.tr("d_ff (d_model = %1)").replace("%1", str(VASWANI_D_MODEL)),
                           **{"font-size": "11pt"})
        self.plot.setLabel("left", self.tr("dev perplexity (lower is better)"), **{"font-size": "11pt"})
        for row, text in zip(VASWANI_WIDTH, self.point_labels):
            text.setText(self.tr("%1 · %2M params").replace("%1", f"{row.dev_perplexity:.2f}")
                         .replace("%2", str(row.parameters_millions)))
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
