"""Part 3 of the FFN page: the FFN's shapes at GPT-2's scale and at the lab's."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from app.labs.ffn_page.common import HEADING_PT, KIND_COLOURS, TEXT_PT, Part, note_frame, text_label
from app.labs.ffn_page.shape_canvas import FfnShapeCanvas
from app.labs.fonts import fit_table
from app.widgets.appearance import appearance
from app.widgets.style import font
from core.labs.ffn_page import SHAPE_SCALES, SHAPE_SYMBOLS, ShapeView, ffn_parameter_parts, shape_view


class FfnShapesPart(Part):
    SYMBOL_NAMES = {"T": "T", "d": "d", "d_ff": "d_ff"}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnShapesPart")
        self.heading = text_label("", HEADING_PT, bold=True)
        self.formula = text_label("ffnShapesFormula", 12)
        self.small = QCheckBox()
        self.small.setObjectName("ffnShapesSmall")
        self.small.setFont(font(TEXT_PT))
        self.small.toggled.connect(self._on_toggled)
        self.canvas = FfnShapeCanvas()
        self.legend_labels: dict[str, QLabel] = {}
        legend = QHBoxLayout()
        for kind in ("input", "parameter", "output", "intermediate"):
            swatch = QLabel()
            swatch.setFixedSize(16, 16)
            swatch.setStyleSheet(f"background: {KIND_COLOURS[kind]}; border-radius: 3px;")
            text = text_label(f"ffnShapesLegend_{kind}")
            text.setWordWrap(False)
            legend.addWidget(swatch)
            legend.addWidget(text)
            legend.addSpacing(14)
            self.legend_labels[kind] = text
        legend.addStretch(1)
        self.scale_note = text_label("ffnShapesScaleNote")
        self.scale_note.setStyleSheet("color: #555555;")
        self.parameters = text_label("ffnShapesParams", 12, rich=True)
        self.table = QTableWidget(len(SHAPE_SYMBOLS), 4)
        self.table.setObjectName("ffnShapesTable")
        self.table.setFont(font(TEXT_PT))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.rows_note = text_label("ffnShapesRowsNote")

        top = QHBoxLayout()
        top.addWidget(self.formula, 1)
        top.addWidget(self.small)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(top)
        layout.addWidget(self.canvas)
        layout.addLayout(legend)
        layout.addWidget(self.scale_note)
        layout.addWidget(note_frame(self.parameters))
        layout.addWidget(self.table)
        layout.addWidget(self.rows_note)
        layout.addStretch(1)
        self.page_layout = layout
        # The symbols' table and the notes under the drawing are for the desk: a projector shows the
        # drawing, its legend and the parameter count whole (the caption says the edges are log-scaled)
        self.desk_only = (self.scale_note, self.table, self.rows_note)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()
        self.retranslate()

    def _follow_presenting(self) -> None:
        """Presenting, the drawing takes the room the page has left (it asks only for its least
        height); at the desk its height follows its width and the room left stays below."""
        presenting = appearance().presenting
        self.page_layout.setStretchFactor(self.canvas, 1 if presenting else 0)
        self.page_layout.setStretch(self.page_layout.count() - 1, 0 if presenting else 1)

    @property
    def view(self) -> ShapeView:
        return self.canvas.view

    def _on_toggled(self, small: bool) -> None:
        self.canvas.set_view(shape_view("small" if small else "gpt2"))
        self._refresh()

    def _refresh(self) -> None:
        view = self.view
        if view.scale == "gpt2":
            self.heading.setText(self.tr("GPT-2 small's FFN, drawn to (log) scale"))
            parameters = self.tr("Parameters of this FFN (W_up, b_up, W_down, b_down): <b>%1</b>") \
                .replace("%1", f"{view.parameters:,}")
        else:
            self.heading.setText(self.tr("The same FFN at the small scale: the two-neuron lab"))
            lab = ffn_parameter_parts(view.sizes["d"], view.sizes["d_ff"], 1)["total"]
            parameters = self.tr("Parameters of this FFN (W_up, b_up, W_down, b_down): <b>%1</b>. The lab writes one "
                                 "number per sentence (d_out = 1), so its W_down is 2×1 and it has %2.") \
                .replace("%1", f"{view.parameters:,}").replace("%2", f"{lab:,}")
        self.parameters.setText(parameters)
        self.formula.setText(self.tr("Y = GELU(X·W_up)·W_down with T = %1, d = %2, d_ff = %3")
                             .replace("%1", f"{view.sizes['T']:,}").replace("%2", f"{view.sizes['d']:,}")
                             .replace("%3", f"{view.sizes['d_ff']:,}"))
        self.canvas.setToolTip(self.tr("Edges drawn on a log scale; the numbers are the real sizes."))

    def retranslate(self) -> None:
        self.small.setText(self.tr("small scale (d = 2, d_ff = 2)"))
        names = {"input": self.tr("input"), "parameter": self.tr("parameters (learned)"),
                 "output": self.tr("output"), "intermediate": self.tr("intermediate")}
        for kind, label in self.legend_labels.items():
            label.setText(names[kind])
        self.scale_note.setText(self.tr(
            "Edge lengths are on a log scale (one step per doubling) and the same symbol always has the same "
            "length; the numbers on the edges are the real sizes. Biases are not drawn but are counted."))
        self.table.setHorizontalHeaderLabels([self.tr("symbol"), self.tr("meaning"), self.tr("GPT-2 small"),
                                              self.tr("small scale")])
        meanings = {"T": self.tr("sequence length (5 here, only for drawing)"),
                    "d": self.tr("hidden size (GPT-2's n_embd)"),
                    "d_ff": self.tr("FFN hidden width (4 × d in GPT-2)")}
        for row, symbol in enumerate(SHAPE_SYMBOLS):
            for column, text in enumerate((self.SYMBOL_NAMES[symbol], meanings[symbol],
                                           f"{SHAPE_SCALES['gpt2'][symbol]:,}", f"{SHAPE_SCALES['small'][symbol]:,}")):
                item = QTableWidgetItem(text)
                if column != 1:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, column, item)
        fit_table(self.table)
        self.rows_note.setText(self.tr(
            "The T rows never exchange information: each row is multiplied by the same W_up and W_down. T = 5 is "
            "only for drawing, in both scales; the lab feeds its 4 sentences through as 4 rows."))
        self._refresh()
