"""The parameters part: a whole model's parameters counted part by part (core.params through
core.labs.generations.parameter_report), with presets that reproduce the seed's figures and the
FFN widths of real models. A field that is not a whole number in range is refused with one
message and the last good value comes back; nothing else changes."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSignalBlocker, Qt, QT_TRANSLATE_NOOP
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QGridLayout, QHBoxLayout,
                               QHeaderView, QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from app.labs.generations.common import HEADING_PT, Part, part_heading, set_text_colour, short_source
from app.widgets import labels
from app.widgets.appearance import appearance
from core.labs import generations as core
from core.labs.ffn_page import width_ratio
from core.numbers import format_number, parse_number
from core.params import FFN_KINDS, GPT2_SMALL, NORM_KINDS, PROJECT_BASELINE, ModelShape

# field → (label, at most); every field is a whole number of at least what ModelShape says.
NUMBERS = {
    "n_layers": (QT_TRANSLATE_NOOP("ParametersPart", "layers"), 1_000),
    "d_model": (QT_TRANSLATE_NOOP("ParametersPart", "d_model"), 100_000),
    "d_ff": (QT_TRANSLATE_NOOP("ParametersPart", "d_ff"), 1_000_000),
    "n_heads": (QT_TRANSLATE_NOOP("ParametersPart", "heads (0: Q, K, V, O d × d)"), 4_096),
    "n_kv_heads": (QT_TRANSLATE_NOOP("ParametersPart", "KV heads (0: as many)"), 4_096),
    "d_head": (QT_TRANSLATE_NOOP("ParametersPart", "d_head (0: d_model ÷ heads)"), 4_096),
    "vocab": (QT_TRANSLATE_NOOP("ParametersPart", "vocabulary"), 10_000_000),
    "n_positions": (QT_TRANSLATE_NOOP("ParametersPart", "learned positions"), 1_000_000),
}
FLAGS = {
    "tied_embeddings": QT_TRANSLATE_NOOP("ParametersPart", "tied embeddings"),
    "bias": QT_TRANSLATE_NOOP("ParametersPart", "biases"),
    "qk_norm": QT_TRANSLATE_NOOP("ParametersPart", "QK-Norm"),
    "attn_gate": QT_TRANSLATE_NOOP("ParametersPart", "attention output gate"),
}
FFN_NAMES = {"standard": QT_TRANSLATE_NOOP("ParametersPart", "two matrices"),
             "gated": QT_TRANSLATE_NOOP("ParametersPart", "gated, three matrices"),
             "none": QT_TRANSLATE_NOOP("ParametersPart", "no FFN")}
PARTS = {"embeddings": QT_TRANSLATE_NOOP("ParametersPart", "embeddings"),
         "attention": QT_TRANSLATE_NOOP("ParametersPart", "attention"),
         "ffn": QT_TRANSLATE_NOOP("ParametersPart", "FFN"),
         "norms": QT_TRANSLATE_NOOP("ParametersPart", "norms"),
         "unembedding": QT_TRANSLATE_NOOP("ParametersPart", "unembedding"),
         "total": QT_TRANSLATE_NOOP("ParametersPart", "total")}

COURSE = replace(PROJECT_BASELINE, n_heads=4)          # 4 heads of 64: the same count as Q, K, V, O each d × d
PRESETS = {
    "course": (QT_TRANSLATE_NOOP("ParametersPart", "The course's model"), COURSE),
    "no_ffn": (QT_TRANSLATE_NOOP("ParametersPart", "Without the FFN"), replace(COURSE, ffn="none")),
    "attention_only": (QT_TRANSLATE_NOOP("ParametersPart", "12 attention-only layers"),
                       replace(COURSE, ffn="none", n_layers=12)),
    "gpt2": (QT_TRANSLATE_NOOP("ParametersPart", "GPT-2 small"), replace(GPT2_SMALL, n_heads=12)),
}
# A width example sets the widths its source gives and attention that always fits them: Q, K, V, O
# each d × d (the count of full multi-head attention); the anchor's q_proj needs its heads and gate.
MODEL_NAMES = {"anchor (Qwen3.8)": QT_TRANSLATE_NOOP("ParametersPart", "the anchor model, Qwen3.8"),
               "project baseline": QT_TRANSLATE_NOOP("ParametersPart", "the course's model")}
SQUARE_ATTENTION = dict(n_heads=0, d_head=0, n_kv_heads=0, qk_norm=False, attn_gate=False)
WIDTH_FIELDS = {"anchor (Qwen3.8)": dict(n_heads=48, d_head=128, n_kv_heads=0, qk_norm=False, attn_gate=True),
                "project baseline": dict(n_heads=4, d_head=0, n_kv_heads=0, qk_norm=False, attn_gate=False)}


class ParametersPart(Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__("genParametersPart", parent)
        self.shape = COURSE
        self.report = core.parameter_report(self.shape)
        self.heading = self.label("genParametersHeading", HEADING_PT, bold=True)
        self.preset_buttons: dict[str, QPushButton] = {}
        presets = QGridLayout()
        for index, (key, (_title, shape)) in enumerate(PRESETS.items()):
            button = self.button(f"genParametersPreset_{key}")
            button.clicked.connect(lambda _checked=False, shape=shape: self.set_shape(shape))
            presets.addWidget(button, index // 2, index % 2)
            self.preset_buttons[key] = button

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.fields: dict[str, QLineEdit] = {}
        self.field_labels = {}
        for name in NUMBERS:
            field = QLineEdit()
            field.setObjectName(f"genParameters_{name}")
            self.sized(field)
            field.editingFinished.connect(lambda name=name: self._number_entered(name))
            label = self.label(f"genParametersLabel_{name}", wrap=False)      # one line each: the form fits a projector
            form.addRow(label, field)
            self.fields[name], self.field_labels[name] = field, label
        self.ffn_kind, self.norm_kind = QComboBox(), QComboBox()
        for name, combo, kinds in (("ffn", self.ffn_kind, FFN_KINDS), ("norm", self.norm_kind, NORM_KINDS)):
            combo.setObjectName(f"genParameters_{name}")
            self.sized(combo)
            for kind in kinds:
                combo.addItem("", kind)
            combo.currentIndexChanged.connect(lambda _index, name=name, combo=combo: self._apply(
                {name: combo.currentData()}))
            label = self.label(f"genParametersLabel_{name}")
            form.addRow(label, combo)
            self.field_labels[name] = label
        self.flags: dict[str, QCheckBox] = {}
        flags = QGridLayout()
        for index, name in enumerate(FLAGS):
            box = QCheckBox()
            box.setObjectName(f"genParameters_{name}")
            self.sized(box)
            box.toggled.connect(lambda checked, name=name: self._apply({name: checked}))
            flags.addWidget(box, index // 2, index % 2)
            self.flags[name] = box
        form.addRow(flags)
        self.message = self.label("genParametersMessage", bold=True)
        self.message.hide()

        self.counts = QTableWidget(len(PARTS), 2)
        self.counts.setObjectName("genParametersCounts")
        self.sized(self.counts)
        self.counts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.counts.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.counts.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.counts.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.counts.verticalHeader().hide()
        self.counts.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.counts.horizontalHeader().setStretchLastSection(True)
        self.total = self.label("genParametersTotal", HEADING_PT, bold=True)
        self.summary = self.label("genParametersSummary")
        self.widths_intro = self.label("genParametersWidthsIntro")
        self.widths = QTableWidget(len(core.WIDTH_EXAMPLES), 4)
        self.widths.setObjectName("genParametersWidths")
        self.sized(self.widths)
        self.widths.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.widths.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.widths.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.widths.verticalHeader().hide()
        self.widths.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.widths.horizontalHeader().setStretchLastSection(True)
        self.widths.cellClicked.connect(lambda row, _column: self.use_width(row))

        left, right = QVBoxLayout(), QVBoxLayout()
        right.setSpacing(4)                     # presenting, the widths of real models share this column
        left.addLayout(presets)
        left.addLayout(form)
        left.addStretch(1)
        right.addWidget(self.total)
        right.addWidget(self.counts)
        right.addWidget(self.summary)
        right.addStretch(1)
        columns = QHBoxLayout()
        columns.addLayout(left, 1)
        columns.addLayout(right, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.message)
        layout.addLayout(columns)
        layout.addWidget(self.widths_intro)
        layout.addWidget(self.widths)
        self.page_layout, self.right_column = layout, right
        self._widths_beside: bool | None = None
        self._place_widths()
        self.retranslate()
        self._show()

    def _place_widths(self) -> None:
        """In presentation mode the real models' widths (the caption's DeepSeek figures) move up
        into the room under the counts, without their sources, so a projector shows them without
        scrolling; at the desk they run below, sources and all."""
        beside = appearance().presenting
        if beside == self._widths_beside:
            return
        self._widths_beside = beside
        for widget in (self.widths_intro, self.widths):
            self.page_layout.removeWidget(widget)
            self.right_column.removeWidget(widget)
        if beside:
            stretch = self.right_column.count() - 1              # before the column's closing stretch
            self.right_column.insertWidget(stretch, self.widths)
            self.right_column.insertWidget(stretch, self.widths_intro)
        else:
            self.page_layout.addWidget(self.widths_intro)
            self.page_layout.addWidget(self.widths)
        self.widths.setColumnHidden(3, beside)

    # --- changing the model -------------------------------------------------------------------
    def set_shape(self, shape: ModelShape) -> None:
        self.shape = shape
        self.report = core.parameter_report(shape)
        self.message.hide()
        self._show()

    def use_width(self, row: int) -> None:
        example = core.WIDTH_EXAMPLES[row]
        self._apply(dict(d_model=example.d_model, d_ff=example.d_ff, ffn="gated",
                         **WIDTH_FIELDS.get(example.model, SQUARE_ATTENTION)))

    def _number_entered(self, name: str) -> None:
        field = self.fields[name]
        text = field.text().strip()
        if text == str(getattr(self.shape, name)) or text == f"{getattr(self.shape, name):,}":
            return
        label, most = NUMBERS[name]
        value = parse_number(text.replace(",", "") if _grouped(text) else text)
        if value is None or value != int(value):
            self._refuse(self.tr("%1: “%2” is not a whole number; nothing changed.")
                         .replace("%1", self.tr(label)).replace("%2", text[:40]))
        elif value > most:
            self._refuse(self.tr("%1: at most %2; nothing changed.").replace("%1", self.tr(label))
                         .replace("%2", f"{most:,}"))
        else:
            self._apply({name: int(value)})

    def _apply(self, changes: dict) -> bool:
        try:
            shape = replace(self.shape, **changes)
            report = core.parameter_report(shape)
        except ValueError as error:
            self._refuse(self.tr("Not possible: %1; nothing changed.").replace("%1", str(error)))
            return False
        self.shape, self.report = shape, report
        self.message.hide()
        self._show()
        return True

    def _refuse(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        self._show()                        # every field back to the model that is still counted

    # --- showing ----------------------------------------------------------------------------
    def _show(self) -> None:
        shape, report = self.shape, self.report
        for name, field in self.fields.items():
            field.setText(f"{getattr(shape, name):,}")
        for name, combo in (("ffn", self.ffn_kind), ("norm", self.norm_kind)):
            with QSignalBlocker(combo):
                combo.setCurrentIndex(combo.findData(getattr(shape, name)))
        for name, box in self.flags.items():
            with QSignalBlocker(box):
                box.setChecked(getattr(shape, name))
        parts = report.breakdown.parts
        for row, key in enumerate(PARTS):
            for column, text in enumerate((self.tr(PARTS[key]), f"{parts[key]:,}")):
                item = self.counts.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    if column == 1:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    self.counts.setItem(row, column, item)
                if key == "total":              # bold, at the table's size (which follows the zoom)
                    font = self.counts.font()
                    font.setBold(True)
                    if item.font() != font:
                        item.setFont(font)
                item.setText(text)
        self.total.setText(self.tr("%1 parameters").replace("%1", f"{parts['total']:,}"))
        lines = [self.tr("The FFN holds %1 of all parameters.").replace(
            "%1", f"{format_number(100 * report.breakdown.ffn_share, 1)} %")]
        if report.width_ratio is not None:
            lines.append(self.tr("d_ff = %1 = %2 d. Llama's rule for d = %3: 8d/3 rounded up to 256 = %4.")
                         .replace("%1", f"{shape.d_ff:,}").replace("%2", format_number(report.width_ratio, 4, trim=True))
                         .replace("%3", f"{shape.d_model:,}").replace("%4", f"{report.gated_width:,}"))
        lines.append(self.tr("q_proj: %1 → %2.").replace("%1", f"{shape.d_model:,}")
                     .replace("%2", f"{shape.q_proj_width:,}" + (f" = 2 × {shape.q_width:,}" if shape.attn_gate else "")))
        fewer = report.fewer_than_reference
        if fewer != 0:
            text = self.tr("%1 % fewer than the course's model (%2).") if fewer > 0 else \
                self.tr("%1 % more than the course's model (%2).")
            lines.append(text.replace("%1", format_number(100 * abs(fewer), 2))
                         .replace("%2", f"{report.reference_total:,}"))
        self.summary.setText("\n".join(lines))
        self._fit(self.counts)

    def _fill_widths(self) -> None:
        for row, example in enumerate(core.WIDTH_EXAMPLES):
            name = self.tr(MODEL_NAMES[example.model]) if example.model in MODEL_NAMES else example.model
            texts = (name, f"{example.d_model:,} → {example.d_ff:,}",
                     f"{format_number(width_ratio(example.d_model, example.d_ff), 4, trim=True)} d", short_source(example.source))
            for column, text in enumerate(texts):
                item = self.widths.item(row, column)
                if item is None:
                    item = QTableWidgetItem()
                    self.widths.setItem(row, column, item)
                item.setText(text)
        self._fit(self.widths)

    @staticmethod
    def _fit(table: QTableWidget) -> None:
        """Tall enough for every row: the tables never scroll, the page does."""
        table.resizeRowsToContents()
        header = table.horizontalHeader()
        table.setFixedHeight(max(header.height(), header.sizeHint().height())
                             + sum(table.rowHeight(r) for r in range(table.rowCount())) + 2 * table.frameWidth() + 2)

    # --- language ---------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.heading.setText(part_heading("parameters"))
        for key, button in self.preset_buttons.items():
            button.setText(self.tr(PRESETS[key][0]))
        for name, label in self.field_labels.items():
            if name in NUMBERS:
                label.setText(self.tr(NUMBERS[name][0]))
        self.field_labels["ffn"].setText(self.tr("FFN"))
        self.field_labels["norm"].setText(self.tr("norm"))
        for index, kind in enumerate(FFN_KINDS):
            self.ffn_kind.setItemText(index, self.tr(FFN_NAMES[kind]))
        for index, kind in enumerate(NORM_KINDS):
            self.norm_kind.setItemText(index, labels.norm_label(kind))
        for name, box in self.flags.items():
            box.setText(self.tr(FLAGS[name]))
        self.counts.setHorizontalHeaderLabels([self.tr("part"), self.tr("parameters")])
        self.widths.setHorizontalHeaderLabels([self.tr("model"), self.tr("d → d_ff"), self.tr("width"),
                                               self.tr("source")])
        self.widths_intro.setText(self.tr("Real FFN widths (click a row to count with it): 8d/3 keeps a gated FFN "
                                          "at the parameters of a 4d one; real models choose by budget."))
        self._fill_widths()
        if self.message.isVisible():
            self.message.hide()
        self._show()

    def restyle(self) -> None:
        set_text_colour(self.message, appearance().colours.bad)
        self._place_widths()
        self._fit(self.counts)
        self._fit(self.widths)


def _grouped(text: str) -> bool:
    """"3,688,704": digits in groups of three (the seed's way of writing counts)."""
    head, *groups = text.split(",")
    return bool(groups) and head.isdigit() and 1 <= len(head) <= 3 and all(len(g) == 3 and g.isdigit() for g in groups)
