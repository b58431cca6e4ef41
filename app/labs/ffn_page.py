"""Lesson C4's FFN page: the formula term by term, why 4× wide, the shape view, the shuffle
test of "position-wise", three misconceptions with live demonstrations, and the summary.

One tab per part; a lesson step brings one forward with `set_focus(part)`. Every number
shown comes from `core.labs.ffn_page` (or `core.block.forward` through it).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRectF, QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QCheckBox, QFrame, QGridLayout, QHBoxLayout,
                               QHeaderView, QLabel, QPushButton, QScrollArea, QSizePolicy, QSlider,
                               QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from app.session import Change
from app.widgets import style  # noqa: F401  (configures pyqtgraph before any plot exists)
from app.widgets.style import format_number, quiet_plot
from app.widgets.style import font as style_font
from core.labs.ffn_page import (EXPLORER_NAMES, FORMULA_TERMS, GPT2_D_FF, GPT2_D_MODEL, SCALE_GRID, SHAPE_BLOCKS,
                           SHAPE_SCALES, SHAPE_SYMBOLS, VASWANI_BASE_D_FF, VASWANI_D_MODEL, VASWANI_SOURCE,
                           VASWANI_WIDTH, ScalingResult, ShapeView, ShuffleResult, ffn_parameter_parts,
                           first_token_scaling, gpt2_ffn_parameters, shape_view, shuffle_demo,
                           shuffle_permutation, term_hooks, term_shapes, width_ratio)
from core.formats.scenario import Scenario, load_scenario
from core.resources import default_scenario

DEFAULT_SCENARIO = default_scenario()
PARTS = ("formula", "width", "shapes", "shuffle", "misconceptions", "summary")

TEXT_PT = 11
HEADING_PT = 13
FORMULA_PT = 17
EDGE_PT = 10
TICK_PT = 10
ROW_DECIMALS = 3            # vectors in the shuffle tables: short enough for two tables side by side
# Okabe–Ito: told apart with the common colour-vision deficiencies.
KIND_COLOURS = {"input": "#0072B2", "parameter": "#E69F00", "output": "#009E73", "intermediate": "#999999"}
LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")


# --- small helpers -------------------------------------------------------------------------
_font = style_font


def _label(object_name: str = "", points: float = TEXT_PT, bold: bool = False, rich: bool = False) -> QLabel:
    label = QLabel()
    if object_name:
        label.setObjectName(object_name)
    label.setWordWrap(True)
    label.setFont(_font(points, bold))
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _note_frame(*widgets: QWidget, object_name: str = "") -> QFrame:
    frame = QFrame()
    if object_name:
        frame.setObjectName(object_name)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    frame.setStyleSheet("QFrame { background: #f6f6f2; border-radius: 6px; }")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(10, 8, 10, 8)
    for widget in widgets:
        layout.addWidget(widget)
    return frame


def shape_text(shape: tuple[int, ...]) -> str:
    return "×".join(f"{n:,}" for n in shape)


def row_text(values: np.ndarray, decimals: int = ROW_DECIMALS) -> str:
    return "  ".join(format_number(float(v), decimals) for v in values)


def _vector_text(values: np.ndarray, decimals: int = ROW_DECIMALS) -> str:
    """Numbers padded to one width, for a fixed-width font: digits line up row under row."""
    return " ".join(format_number(float(v), decimals).rjust(decimals + 3) for v in values)


def _snapped_range(values: np.ndarray) -> tuple[float, float]:
    """A y range around the values, widened to whole steps so that small edits keep it (no re-layout)."""
    low, high = float(np.min(values)), float(np.max(values))
    span = max(high - low, 0.1)
    step = 10 ** np.floor(np.log10(span)) / 2
    return float(np.floor(low / step - 0.25) * step), float(np.ceil(high / step + 0.25) * step)


def _mono_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(EDGE_PT)
    return font


class _PlotWidget(pg.PlotWidget):
    """A plot whose preferred height is modest: a scroll area sizes its page by preferred heights."""

    def __init__(self, object_name: str, height: int):
        super().__init__()
        self.setObjectName(object_name)
        self._hint = QSize(400, height)
        self.setMinimumHeight(height - 40)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self._hint


def _new_plot(widget: pg.PlotWidget) -> pg.PlotItem:
    return quiet_plot(widget.getPlotItem(), TICK_PT)


class _Part(QWidget):
    """A tab page; retranslates itself when the language changes."""

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        raise NotImplementedError


# --- the scenario the demonstrations run on ---------------------------------------------------
class FfnDemoSource(QObject):
    """The block the shuffle and linearity demos use: the open scenario when it has
    attention, else block-default.json. Results are computed on demand and cached."""

    changed = Signal()          # the scenario used changed (results are stale)
    shuffled = Signal()         # the shuffle step changed

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.step = 0                     # shuffles done; 0: none yet
        self.version = 0
        self._default: Scenario | None = None
        self._using_session = session.config.attention
        self._shuffle_cache: tuple[tuple[int, int], ShuffleResult] | None = None
        self._scaling_cache: tuple[int, ScalingResult] | None = None
        session.changed.connect(lambda change: change & Change.TRACE and self._on_trace_changed())

    @property
    def from_session(self) -> bool:
        return self._using_session

    def scenario(self) -> Scenario:
        if self._using_session:
            return self.session.scenario
        if self._default is None:
            self._default = load_scenario(DEFAULT_SCENARIO)
        return self._default

    def _on_trace_changed(self) -> None:
        using = self.session.config.attention
        if using or self._using_session:
            self._using_session = using
            self.version += 1
            self.changed.emit()

    def shuffle_again(self) -> None:
        self.step += 1
        self.shuffled.emit()

    def shuffle_result(self) -> ShuffleResult:
        """The current shuffle (the first one if none was done yet)."""
        key = (self.version, max(self.step, 1))
        if self._shuffle_cache is None or self._shuffle_cache[0] != key:
            scenario = self.scenario()
            permutation = shuffle_permutation(len(scenario.tokens), key[1] - 1)
            self._shuffle_cache = (key, shuffle_demo(scenario, permutation))
        return self._shuffle_cache[1]

    def scaling_result(self) -> ScalingResult:
        if self._scaling_cache is None or self._scaling_cache[0] != self.version:
            self._scaling_cache = (self.version, first_token_scaling(self.scenario()))
        return self._scaling_cache[1]

    def tokens(self) -> tuple[str, ...]:
        return tuple(self.scenario().tokens)

    def describe(self) -> str:
        """Which block the demos run on, in one sentence."""
        if self._using_session:
            return self.tr("Computed on the open scenario.")
        return self.tr("The open scenario has no attention, so this runs on block-default.json (%1).") \
            .replace("%1", " ".join(self.tokens()))


class _DemoPart(_Part):
    """A part that follows the demo source, refreshing only while it is on screen."""

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(parent)
        self.source = source
        self._stale = True
        source.changed.connect(self._on_source_changed)

    def _on_source_changed(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802
        if self._stale:
            self.refresh()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh()
        QWidget.changeEvent(self, event)

    def refresh(self) -> None:
        raise NotImplementedError

    def source_text(self) -> str:
        return self.source.describe()


# --- 1. the formula ----------------------------------------------------------------------------
class FfnFormulaPart(_Part):
    termHighlighted = Signal(list)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnFormulaPart")
        self.session = session
        self.selected: str | None = None
        self.heading = _label("", HEADING_PT, bold=True)
        self.original = _label("ffnFormulaOriginal")
        self.term_buttons: dict[str, QPushButton] = {}
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)

        row = QHBoxLayout()
        row.setSpacing(2)
        row.addStretch(1)

        def symbol(text: str) -> None:
            piece = QLabel(text)
            piece.setFont(_font(FORMULA_PT))
            row.addWidget(piece)

        def term(name: str) -> None:
            button = QPushButton(name)
            button.setObjectName(f"ffnTerm_{name}")
            button.setCheckable(True)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setFont(_font(FORMULA_PT))
            button.setStyleSheet(
                "QPushButton { border: none; color: #0b5cad; text-decoration: underline; padding: 2px 4px;"
                " background: transparent; border-radius: 4px; }"
                "QPushButton:hover { background: #e6f0fb; }"
                "QPushButton:checked { background: #ffe2a8; color: #222222; }")
            button.clicked.connect(lambda _checked=False, n=name: self.select_term(n))
            self.group.addButton(button)
            self.term_buttons[name] = button
            row.addWidget(button)

        symbol("FFN(x) =")
        term("act")
        symbol("(")
        term("x")
        symbol("·")
        term("W_up")
        symbol("+")
        term("b_up")
        symbol(") ·")
        term("W_down")
        symbol("+")
        term("b_down")
        row.addStretch(1)

        self.hint = _label("")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.explanation = _label("ffnTermExplanation", rich=True)
        self.hooks = _label("ffnTermHooks")
        self.hooks.setStyleSheet("color: #555555;")
        self.shapes = _label("ffnFormulaShapes")
        self.position_note = _label("ffnFormulaPosition", rich=True)
        self.transpose_note = _label("ffnFormulaTranspose", rich=True)
        self.key_value = _label("ffnFormulaKeyValue", rich=True)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.original)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        layout.addWidget(_note_frame(self.explanation, self.hooks, object_name="ffnTermBox"))
        layout.addWidget(self.shapes)
        layout.addWidget(self.position_note)
        layout.addWidget(self.transpose_note)
        layout.addWidget(_note_frame(self.key_value))
        layout.addStretch(1)

        self._structure: object = None
        session.changed.connect(lambda change: change & Change.TRACE and self._on_trace_changed())
        self.retranslate()

    def retranslate(self) -> None:
        self.heading.setText(self.tr("The position-wise feed-forward network"))
        self.original.setText(self.tr("Vaswani et al. 2017, eq. (2), with row vectors: FFN(x) = max(0, x·W₁ + b₁)·W₂ + b₂. "
                                      "Here with our names (W_up is the explorer's W_in, W_down its W_out):"))
        self.hint.setText(self.tr("Click any underlined term."))
        self.position_note.setText(self.tr(
            "<b>Nothing here crosses positions.</b> d_ff is the width of the hidden layer. Every token's row x<sub>t</sub> "
            "goes through the same W_up and W_down on its own, so output t depends only on x<sub>t</sub>."))
        self.transpose_note.setText(self.tr(
            "Some texts write W·x with column vectors. There the reading directions are the <i>rows</i> of that W "
            "(our W_up transposed); the two forms differ only by a transpose."))
        self.key_value.setText(self.tr(
            "<b>A handy way in: a key–value table.</b> Each <i>column</i> of W_up is a key (the pattern a hidden unit "
            "looks for); the activation is how strongly the current token matches it; each <i>row</i> of W_down is the "
            "value (what that unit writes into the output when it matches)."))
        self._structure = None
        self._on_trace_changed()

    def _on_trace_changed(self) -> None:
        config = self.session.config
        structure = (config, len(self.session.tokens))
        if structure == self._structure:
            return
        self._structure = structure
        shapes = term_shapes(config, len(self.session.tokens))
        out_shape = (len(self.session.tokens), config.output_width)
        self.shapes.setText(self.tr("In the open scenario (T = %1): x %2 · W_up %3 + b_up %4 → act → %5 · W_down %6 "
                                    "+ b_down %7 → %8.")
                            .replace("%1", str(len(self.session.tokens))).replace("%2", shape_text(shapes["x"]))
                            .replace("%3", shape_text(shapes["W_up"])).replace("%4", shape_text(shapes["b_up"]))
                            .replace("%5", shape_text(shapes["act"])).replace("%6", shape_text(shapes["W_down"]))
                            .replace("%7", shape_text(shapes["b_down"])).replace("%8", shape_text(out_shape)))
        self._show_explanation()

    def explanations(self) -> dict[str, str]:
        """The explanation shown for each term, with the open scenario's shapes."""
        config = self.session.config
        shapes = {name: shape_text(shape) for name, shape in term_shapes(config, len(self.session.tokens)).items()}
        activation = {"relu": "ReLU", "gelu": "GELU (erf)", "gelu_tanh": self.tr("GELU (tanh approximation)"),
                      "silu": "SiLU", "identity": self.tr("none (identity)")}[config.activation]
        return {
            "x": self.tr("<b>x</b> — one token's row of the stream entering the FFN, d numbers (here the T rows "
                         "form %1). The FFN takes the rows one at a time.").replace("%1", shapes["x"]),
            "W_up": self.tr("<b>W_up</b> (the explorer's %1), d×d_ff = %2. Each of its d_ff columns is one reading "
                            "direction: x·W_up scores the token against every column at once, one score per hidden "
                            "unit.").replace("%1", EXPLORER_NAMES["W_up"]).replace("%2", shapes["W_up"]),
            "b_up": self.tr("<b>b_up</b> (%1), d_ff = %2 numbers: one threshold per hidden unit, shifting where it "
                            "switches on. In the two-neuron lab, neuron 2's −1 makes it fire only when p and n "
                            "both hold.").replace("%1", EXPLORER_NAMES["b_up"]).replace("%2", shapes["b_up"]),
            "act": self.tr("<b>act</b> — the nonlinearity, number by number: max(0, ·) (ReLU) in the 2017 paper, the "
                           "tanh approximation of GELU in GPT-2. Here: %1. Take it away and the two matrices "
                           "collapse into one linear map.").replace("%1", activation),
            "W_down": self.tr("<b>W_down</b> (the explorer's %1), d_ff×d_out = %2. Row i is what hidden unit i adds to "
                              "the output, in proportion to how strongly it fired.")
            .replace("%1", EXPLORER_NAMES["W_down"]).replace("%2", shapes["W_down"]),
            "b_down": self.tr("<b>b_down</b> (%1), d_out = %2 numbers: a constant added to every token's output.")
            .replace("%1", EXPLORER_NAMES["b_down"]).replace("%2", shapes["b_down"]),
        }

    def select_term(self, term: str) -> None:
        if term not in FORMULA_TERMS:
            raise ValueError(f"term: expected one of {', '.join(FORMULA_TERMS)}, got {term!r}")
        self.selected = term
        with QSignalBlocker(self.term_buttons[term]):
            self.term_buttons[term].setChecked(True)
        self._show_explanation()
        # The highlight lives in the Session's selection state: the diagram shows it.
        self.session.set_highlight(set(term_hooks(term, self.session.config)) & set(self.session.trace))
        self.termHighlighted.emit(term_hooks(term, self.session.config))

    def _show_explanation(self) -> None:
        self.hooks.setVisible(self.selected is not None)
        if self.selected is None:
            self.explanation.setText(self.tr("Pick a term to see what it is and where it lives in the dataflow."))
            self.hooks.setText("")
            return
        self.explanation.setText(self.explanations()[self.selected])
        self.hooks.setText(self.tr("In the dataflow: %1")
                           .replace("%1", ", ".join(term_hooks(self.selected, self.session.config))))


# --- 2. why 4× wide ------------------------------------------------------------------------
class FfnWidthPart(_Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnWidthPart")
        self.heading = _label("", HEADING_PT, bold=True)
        self.intro = _label("ffnWidthIntro")
        self.plot_widget = _PlotWidget("ffnWidthPlot", 300)
        self.plot = _new_plot(self.plot_widget)
        d_ff = np.array([row.d_ff for row in VASWANI_WIDTH], dtype=float)
        perplexity = np.array([row.dev_perplexity for row in VASWANI_WIDTH])
        self.curve = self.plot.plot(d_ff, perplexity, pen=pg.mkPen("#0072B2", width=2), symbol="o", symbolSize=11,
                                    symbolBrush="#0072B2", symbolPen="w")
        self.point_labels: list[pg.TextItem] = []
        for row in VASWANI_WIDTH:
            text = pg.TextItem(anchor=(0.5, 1.25), color="#222222")
            text.setFont(_font(EDGE_PT))
            text.setPos(row.d_ff, row.dev_perplexity)
            self.plot.addItem(text)
            self.point_labels.append(text)
        self.plot.getAxis("bottom").setTicks([[(row.d_ff, f"{row.d_ff:,}") for row in VASWANI_WIDTH]])
        self.plot.setXRange(600, 4500, padding=0)
        low, high = float(perplexity.min()), float(perplexity.max())
        self.plot.setYRange(low - 0.08, high + 0.12, padding=0)
        self.source = _label("ffnWidthSource")
        self.source.setStyleSheet("color: #555555;")
        self.gpt2 = _label("ffnWidthGpt2", rich=True)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.source)
        layout.addWidget(_note_frame(self.gpt2))
        layout.addStretch(0)
        self.retranslate()

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


# --- 3. the shape view -----------------------------------------------------------------------
class FfnShapeCanvas(QWidget):
    """Y = GELU(X·W_up)·W_down as blocks: edge lengths on a log scale (one step per doubling),
    the real sizes on the edges. Drawing units are fixed by GPT-2's scale, so the small one
    really looks small."""

    ROWS = (("X", "·", "W_up", "=", "Z"), ("→GELU→", "H", "·", "W_down", "=", "Y"))
    CAPTION_SYMBOLS = {"X": "X", "W_up": "W_up", "Z": "X·W_up", "H": "GELU(X·W_up)", "W_down": "W_down", "Y": "Y"}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnShapesCanvas")
        self.view: ShapeView = shape_view("gpt2")
        self.reference: ShapeView = shape_view("gpt2")
        self.setMinimumSize(600, 360)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)      # grows with the window on a projector
        self.setSizePolicy(policy)
        self.edge_font = _font(EDGE_PT)
        self.caption_font = _font(EDGE_PT)
        self.operator_font = _font(18)
        self.blocks = {block.name: block for block in SHAPE_BLOCKS}

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(840, 380)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return int(max(380, min(600, 0.45 * width)))

    def set_view(self, view: ShapeView) -> None:
        self.view = view
        self.update()

    def _metrics(self) -> tuple[QFontMetrics, QFontMetrics]:
        return QFontMetrics(self.edge_font), QFontMetrics(self.operator_font)

    def layout_items(self) -> list[tuple[str, QRectF, str, str]]:
        """What is drawn: (what, rect, text, kind), what in block / edge_top / edge_left / operator / caption.

        Every block sits in a slot sized by GPT-2's scale, so switching scales keeps the places."""
        edge, operator = self._metrics()
        label_width = edge.horizontalAdvance("3,072") + 8
        margin = 8
        top_label = edge.height() + 4
        caption = 2 * edge.height() + 6
        row_gap = 12
        ref = self.reference

        def caption_lines(name: str) -> tuple[str, str]:
            block = self.blocks[name]
            return self.CAPTION_SYMBOLS[name], f"{block.rows}×{block.columns}"

        def caption_width(name: str) -> float:
            return max(edge.horizontalAdvance(line) for line in caption_lines(name)) + 6

        def operator_width(name: str) -> float:
            return operator.horizontalAdvance(name) + 12

        def fixed_width(row: tuple[str, ...]) -> float:
            return sum(label_width if n in self.blocks else operator_width(n) for n in row) + 2 * margin

        def width_units(row: tuple[str, ...]) -> float:
            return sum(ref.block_size(self.blocks[n])[1] for n in row if n in self.blocks)

        def height_units(row: tuple[str, ...]) -> float:
            return max(ref.block_size(self.blocks[n])[0] for n in row if n in self.blocks)

        unit_w = min((self.width() - fixed_width(row)) / width_units(row) for row in self.ROWS)
        fixed_height = len(self.ROWS) * (top_label + caption + row_gap) + 2 * margin
        unit_h = (self.height() - fixed_height) / sum(height_units(row) for row in self.ROWS)
        unit = max(2.0, min(unit_w, unit_h))

        def slot_width(name: str) -> float:
            return max(ref.block_size(self.blocks[name])[1] * unit, caption_width(name))

        items: list[tuple[str, QRectF, str, str]] = []
        y = margin
        for row in self.ROWS:
            row_height = height_units(row) * unit
            centre_y = y + top_label + row_height / 2
            row_width = sum(label_width + slot_width(n) if n in self.blocks else operator_width(n) for n in row)
            x = max(margin, (self.width() - row_width) / 2)
            for name in row:
                if name not in self.blocks:
                    w = operator_width(name)
                    items.append(("operator", QRectF(x, centre_y - 15, w, 30), name, ""))
                    x += w
                    continue
                block = self.blocks[name]
                height, width = (length * unit for length in self.view.block_size(block))
                slot = slot_width(name)
                x += label_width
                rect = QRectF(x + (slot - width) / 2, centre_y - height / 2, width, height)
                items.append(("block", rect, name, block.kind))
                items.append(("edge_top", QRectF(rect.center().x() - label_width / 2, rect.top() - top_label,
                                                 label_width, top_label - 2),
                              f"{self.view.sizes[block.columns]:,}", block.columns))
                items.append(("edge_left", QRectF(rect.left() - label_width, rect.top(), label_width - 4,
                                                  rect.height()),
                              f"{self.view.sizes[block.rows]:,}", block.rows))
                items.append(("caption", QRectF(x, y + top_label + row_height + 4, slot, caption),
                              "\n".join(caption_lines(name)), block.kind))
                x += slot
            y += top_label + row_height + caption + row_gap
        return items

    def edge_labels(self) -> list[tuple[str, str]]:
        """(dimension symbol, text written on the edge) for every labelled edge."""
        return [(kind, text) for what, _rect, text, kind in self.layout_items() if what.startswith("edge")]

    def block_rects(self) -> dict[str, QRectF]:
        return {text: rect for what, rect, text, _kind in self.layout_items() if what == "block"}

    def paintEvent(self, event) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("white"))
        for what, rect, text, kind in self.layout_items():
            if what == "block":
                colour = QColor(KIND_COLOURS[kind])
                fill = QColor(colour)
                fill.setAlpha(90)
                painter.setPen(QPen(colour, 2))
                painter.setBrush(fill)
                painter.drawRect(rect)
            elif what.startswith("edge"):
                painter.setPen(QColor("#222222"))
                painter.setFont(self.edge_font)
                align = (Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom) if what == "edge_top" else \
                    (Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                painter.drawText(rect, int(align), text)
            elif what == "operator":
                painter.setPen(QColor("#444444"))
                painter.setFont(self.operator_font)
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
            else:
                painter.setPen(QColor("#333333"))
                painter.setFont(self.caption_font)
                painter.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), text)
        painter.end()


class FfnShapesPart(_Part):
    SYMBOL_NAMES = {"T": "T", "d": "d", "d_ff": "d_ff"}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnShapesPart")
        self.heading = _label("", HEADING_PT, bold=True)
        self.formula = _label("ffnShapesFormula", 12)
        self.small = QCheckBox()
        self.small.setObjectName("ffnShapesSmall")
        self.small.setFont(_font(TEXT_PT))
        self.small.toggled.connect(self._on_toggled)
        self.canvas = FfnShapeCanvas()
        self.legend_labels: dict[str, QLabel] = {}
        legend = QHBoxLayout()
        for kind in ("input", "parameter", "output", "intermediate"):
            swatch = QLabel()
            swatch.setFixedSize(16, 16)
            swatch.setStyleSheet(f"background: {KIND_COLOURS[kind]}; border-radius: 3px;")
            text = _label(f"ffnShapesLegend_{kind}")
            text.setWordWrap(False)
            legend.addWidget(swatch)
            legend.addWidget(text)
            legend.addSpacing(14)
            self.legend_labels[kind] = text
        legend.addStretch(1)
        self.scale_note = _label("ffnShapesScaleNote")
        self.scale_note.setStyleSheet("color: #555555;")
        self.parameters = _label("ffnShapesParams", 12, rich=True)
        self.table = QTableWidget(len(SHAPE_SYMBOLS), 4)
        self.table.setObjectName("ffnShapesTable")
        self.table.setFont(_font(TEXT_PT))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.rows_note = _label("ffnShapesRowsNote")

        top = QHBoxLayout()
        top.addWidget(self.formula, 1)
        top.addWidget(self.small)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(top)
        layout.addWidget(self.canvas)
        layout.addLayout(legend)
        layout.addWidget(self.scale_note)
        layout.addWidget(_note_frame(self.parameters))
        layout.addWidget(self.table)
        layout.addWidget(self.rows_note)
        layout.addStretch(1)
        self.retranslate()

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
        self.table.resizeRowsToContents()
        self.table.setFixedHeight(self.table.horizontalHeader().sizeHint().height()
                                  + sum(self.table.rowHeight(r) for r in range(self.table.rowCount())) + 4)
        self.rows_note.setText(self.tr(
            "The T rows never exchange information: each row is multiplied by the same W_up and W_down. T = 5 is "
            "only for drawing, in both scales; the lab feeds its 4 sentences through as 4 rows."))
        self._refresh()


# --- 4. position-wise, shown ------------------------------------------------------------------
class FfnShufflePart(_DemoPart):
    """Shuffle the tokens; the FFN's rows move with them unchanged, causal attention's do not.

    Each table row is one token; its cell holds the row before the shuffle above the row
    after it (where the token went), in a fixed-width font so the digits line up."""

    COLUMNS = 3      # token (old → new position) | before / after | verdict

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(source, parent)
        self.setObjectName("ffnShufflePart")
        self.heading = _label("", HEADING_PT, bold=True)
        self.intro = _label("ffnShuffleIntro")
        self.button = QPushButton()
        self.button.setObjectName("ffnShuffle")
        self.button.setFont(_font(TEXT_PT, bold=True))
        self.button.clicked.connect(source.shuffle_again)
        self.order = _label("ffnShuffleOrder", 12)
        self.origin = _label("ffnShuffleSource")
        self.origin.setStyleSheet("color: #555555;")
        self.ffn_title = _label("", TEXT_PT, bold=True)
        self.attention_title = _label("", TEXT_PT, bold=True)
        self.ffn_table = self._table("ffnShuffleFfnTable")
        self.attention_table = self._table("ffnShuffleAttnTable")
        self.verdict = _label("ffnShuffleVerdict", rich=True)
        self.full_note = _label("ffnShuffleFullNote")
        self.full_note.setStyleSheet("color: #555555;")

        buttons = QHBoxLayout()
        buttons.addWidget(self.button)
        buttons.addWidget(self.order, 1)
        grid = QGridLayout()
        grid.addWidget(self.ffn_title, 0, 0)
        grid.addWidget(self.attention_title, 0, 1)
        grid.addWidget(self.ffn_table, 1, 0)
        grid.addWidget(self.attention_table, 1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addLayout(buttons)
        layout.addWidget(self.origin)
        layout.addLayout(grid)
        layout.addWidget(_note_frame(self.verdict))
        layout.addWidget(self.full_note)
        layout.addStretch(1)
        source.shuffled.connect(self.refresh)
        self.retranslate()

    def _table(self, object_name: str) -> QTableWidget:
        table = QTableWidget(0, self.COLUMNS)
        table.setObjectName(object_name)
        table.setFont(_font(TEXT_PT))
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setWordWrap(False)
        table.verticalHeader().setVisible(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return table

    def retranslate(self) -> None:
        self.heading.setText(self.tr("Position-wise, shown: shuffle the tokens"))
        self.intro.setText(self.tr(
            "The FFN computes token t from row t alone. Shuffle the tokens and run both again: the FFN's rows "
            "only move with their tokens, while causal attention gives a token a new output when the tokens before "
            "it change. Each cell shows a token's row before (top) and after (bottom) the shuffle."))
        self.button.setText(self.tr("Shuffle tokens"))
        self.ffn_title.setText(self.tr("FFN alone (attention off): hook_mlp_out"))
        self.attention_title.setText(self.tr("Causal attention: hook_attn_out"))
        for table in (self.ffn_table, self.attention_table):
            table.setHorizontalHeaderLabels([self.tr("token"), self.tr("before / after"), ""])

    def refresh(self) -> None:
        self._stale = False
        self.origin.setText(self.source_text())
        result = self.source.shuffle_result()
        done = self.source.step > 0
        tokens = result.tokens
        if done:
            self.order.setText(self.tr("Shuffle #%1: %2  →  %3").replace("%1", str(self.source.step))
                               .replace("%2", " ".join(tokens)).replace("%3", " ".join(result.shuffled_tokens)))
        else:
            self.order.setText(self.tr("Order now: %1").replace("%1", " ".join(tokens)))
        positions = result.new_positions
        for table in (self.ffn_table, self.attention_table):
            table.setRowCount(len(tokens))
        for t, token in enumerate(tokens):
            moved = f"{token} {t + 1}→{positions[t] + 1}" if done else f"{token} {t + 1}"
            if done:
                ffn_after = result.ffn_shuffled[positions[t]]
                attention_after = result.attention_shuffled[positions[t]]
                ffn_mark = "✓" if result.ffn_kept[t] else "✗"
                attention_mark = (self.tr("Δ %1").replace("%1", format_number(float(result.attention_change[t]),
                                                                            ROW_DECIMALS))
                                  if result.attention_changed[t] else self.tr("same"))
            else:
                ffn_after = attention_after = None
                ffn_mark = attention_mark = ""
            self._fill(self.ffn_table, t, moved, result.ffn_original[t], ffn_after, ffn_mark,
                       "#1a7f37" if result.ffn_kept[t] else "#b3261e")
            self._fill(self.attention_table, t, moved, result.attention_original[t], attention_after,
                       attention_mark, "#b35806" if result.attention_changed[t] else "#1a7f37")
        for table in (self.ffn_table, self.attention_table):
            table.resizeRowsToContents()
            table.setFixedHeight(table.horizontalHeader().sizeHint().height()
                                 + sum(table.rowHeight(r) for r in range(table.rowCount())) + 4)
        if done:
            self.verdict.setText(self.tr(
                "<b>FFN:</b> %1 of %2 rows moved with their token and kept every digit. "
                "<b>Causal attention:</b> %3 of %2 tokens got a different output — what a token sees depends on "
                "who comes before it.")
                .replace("%1", str(result.ffn_kept_count)).replace("%2", str(len(tokens)))
                .replace("%3", str(result.attention_changed_count)))
        else:
            self.verdict.setText(self.tr("Press <b>Shuffle tokens</b> to reorder the sentence and compare."))
        self.full_note.setText(self.tr(
            "An honest footnote: this toy block has no position information, so with the full mask its attention "
            "would only reorder its rows too (largest change %1). It still moves information between tokens — "
            "every row mixes all of them; the causal mask is what makes order visible here.")
            .replace("%1", format_number(result.largest_full_attention_change, 6)))

    @staticmethod
    def _fill(table: QTableWidget, row: int, token: str, before: np.ndarray, after: np.ndarray | None,
              mark: str, mark_colour: str) -> None:
        values = f"{_vector_text(before)}\n{_vector_text(after) if after is not None else '—'}"
        tip = f"{row_text(before, 6)}\n{row_text(after, 6) if after is not None else ''}"
        for column, text in enumerate((token, values, mark)):
            item = table.item(row, column)
            if item is None:
                item = QTableWidgetItem()
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if column == 1:
                    item.setFont(_mono_font())
                    item.setToolTip(tip)
                if column == 2:
                    item.setFont(_font(TEXT_PT, bold=True))
                table.setItem(row, column, item)
            item.setText(text)
            if column == 1:
                item.setToolTip(tip)
            if column == 2:
                item.setForeground(QColor(mark_colour))

    @staticmethod
    def cell_lines(table: QTableWidget, row: int, column: int) -> list[str]:
        return table.item(row, column).text().split("\n")


# --- 5. misconceptions --------------------------------------------------------------------------
class FfnMisconceptionsPart(_DemoPart):
    goToShuffle = Signal()

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(source, parent)
        self.setObjectName("ffnMisconceptionsPart")
        self.heading = _label("", HEADING_PT, bold=True)
        # (1) the FFN moves nothing between tokens
        self.claim1 = _label("", 12, bold=True)
        self.text1 = _label("ffnMis1Text")
        self.summary1 = _label("ffnMisShuffleSummary", rich=True)
        self.go_shuffle = QPushButton()
        self.go_shuffle.setObjectName("ffnMisGoShuffle")
        self.go_shuffle.clicked.connect(self.goToShuffle)
        # (2) softmax's nonlinearity is about how much is taken
        self.claim2 = _label("", 12, bold=True)
        self.text2 = _label("ffnMis2Text")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("ffnScaleFirst")
        self.slider.setRange(0, len(SCALE_GRID) - 1)
        self.slider.setValue(int(np.argmin(np.abs(SCALE_GRID - 1.0))))
        self.slider.setPageStep(5)
        self.slider.valueChanged.connect(self._move_point)
        self.scale_label = _label("ffnScaleValue", 12)
        self.scale_label.setWordWrap(False)
        self.scale_label.setMinimumWidth(QFontMetrics(_font(12)).horizontalAdvance("s·x₁, s = −2.0") + 10)
        self.first_widget, self.first_plot, self.first_curves, self.first_point = self._plot("ffnScalePlotFirst")
        self.late_widget, self.late_plot, self.late_curves, self.late_point = self._plot("ffnScalePlotLate")
        self.check = _label("ffnScaleCheck", rich=True)
        # (3) one neuron, one concept
        self.claim3 = _label("", 12, bold=True)
        self.text3 = _label("ffnMis3Text")

        slider_row = QHBoxLayout()
        self.slider_caption = _label("", TEXT_PT)
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

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(_note_frame(self.claim1, self.text1, object_name="ffnMis1"))
        layout.addLayout(go_row)
        box2 = _note_frame(self.claim2, self.text2, object_name="ffnMis2")
        layout.addWidget(box2)
        layout.addLayout(slider_row)
        layout.addLayout(plots)
        layout.addWidget(self.check)
        layout.addWidget(_note_frame(self.claim3, self.text3, object_name="ffnMis3"))
        layout.addStretch(1)
        source.shuffled.connect(self._refresh_summary)
        self.result: ScalingResult | None = None
        self._ranges: dict[int, tuple] = {}
        self._brushes = [pg.mkBrush(colour) for colour in LINE_COLOURS]
        self.retranslate()

    @staticmethod
    def _plot(object_name: str):
        widget = _PlotWidget(object_name, 260)
        plot = _new_plot(widget)
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
            "and one picked at random often shows no pattern at all. Block Lab has no trained model yet, so this "
            "cannot be shown here; a real-model view is planned for a later version."))
        for plot in (self.first_plot, self.late_plot):
            plot.setLabel("bottom", self.tr("s"), **{"font-size": "11pt"})
        self.first_plot.setLabel("left", self.tr("attention output"), **{"font-size": "11pt"})

    def refresh(self) -> None:
        self._stale = False
        self._refresh_summary()
        self.result = result = self.source.scaling_result()
        tokens = self.source.tokens()
        width = min(result.first.shape[1], len(LINE_COLOURS))      # a wide block: its first components
        for curves, rows in ((self.first_curves, result.first), (self.late_curves, result.late)):
            for k, curve in enumerate(curves):
                if k < width:
                    curve.setData(result.scales, rows[:, k])
                if curve.isVisible() != (k < width):
                    curve.setVisible(k < width)
        for plot, rows in ((self.first_plot, result.first), (self.late_plot, result.late)):
            wanted = ((float(result.scales[0]), float(result.scales[-1])), _snapped_range(rows))
            if self._ranges.get(id(plot)) != wanted:     # re-ranging re-lays out the axes: only on change
                self._ranges[id(plot)] = wanted
                plot.setXRange(*wanted[0], padding=0.02)
                plot.setYRange(*wanted[1], padding=0)

        def verdict(linear: bool) -> str:
            return self.tr("straight") if linear else self.tr("curved")

        titles = ((self.first_plot, self.tr("token 1 (%1): %2").replace("%1", tokens[0])
                   .replace("%2", verdict(result.first_is_linear))),
                  (self.late_plot, self.tr("token %1 (%2): %3").replace("%1", str(result.late_token + 1))
                   .replace("%2", tokens[result.late_token]).replace("%3", verdict(result.late_is_linear))))
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
        self._move_point()

    def _move_point(self) -> None:
        index = self.slider.value()
        self.scale_label.setText(self.tr("s = %1").replace("%1", format_number(float(SCALE_GRID[index]), 1)))
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


# --- 6. summary ----------------------------------------------------------------------------
class FfnSummaryPart(_Part):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnSummaryPart")
        self.heading = _label("", HEADING_PT, bold=True)
        self.sentence = _label("ffnSummarySentence", 17, bold=True)
        self.sentence.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.sentence.setMargin(16)
        self.division = _label("ffnSummaryDivision")
        self.division.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.gap_heading = _label("", HEADING_PT, bold=True)
        self.gap = _label("ffnSummaryNextGap")
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(_note_frame(self.sentence, self.division))
        layout.addSpacing(12)
        layout.addWidget(self.gap_heading)
        layout.addWidget(self.gap)
        layout.addStretch(1)
        self.retranslate()

    def retranslate(self) -> None:
        self.heading.setText(self.tr("In one sentence"))
        self.sentence.setText(self.tr("Attention moves information between tokens; the FFN combines it, "
                                      "nonlinearly, inside each token."))
        self.division.setText(self.tr("Attention decides what to take from whom; the FFN decides what to make of it "
                                      "at home. A block does both in turn: first exchange, then work alone."))
        self.gap_heading.setText(self.tr("The next gap"))
        self.gap.setText(self.tr(
            "One block is attention followed by an FFN, and real models stack many of them. The most direct way is to "
            "feed each block's output straight into the next. What happens when that stack gets deep? The next "
            "lesson: why residual connections."))


# --- the panel -------------------------------------------------------------------------------
class FfnPagePanel(QWidget):
    """The rest of lesson C4's page, one tab per part.

    `termHighlighted(list[str])` carries the dataflow hooks of a formula term the learner
    clicked, for the main window to highlight."""

    termHighlighted = Signal(list)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ffnPage")
        self.session = session
        self.source = FfnDemoSource(session, self)
        self.formula = FfnFormulaPart(session)
        self.width_part = FfnWidthPart()
        self.shapes = FfnShapesPart()
        self.shuffle = FfnShufflePart(self.source)
        self.misconceptions = FfnMisconceptionsPart(self.source)
        self.summary = FfnSummaryPart()
        self.formula.termHighlighted.connect(self.termHighlighted)
        self.misconceptions.goToShuffle.connect(lambda: self.set_focus("shuffle"))

        self.tabs = QTabWidget()
        self.tabs.setObjectName("ffnTabs")
        self.tabs.setFont(_font(TEXT_PT))
        self.pages: dict[str, QWidget] = {}
        for part, widget in zip(PARTS, (self.formula, self.width_part, self.shapes, self.shuffle,
                                        self.misconceptions, self.summary)):
            scroll = QScrollArea()
            scroll.setObjectName(f"ffnScroll_{part}")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            scroll.setWidget(widget)
            self.tabs.addTab(scroll, "")
            self.pages[part] = widget
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.retranslate()

    def parts(self) -> list[str]:
        return list(PARTS)

    def set_focus(self, part: str) -> None:
        """Bring one part forward (a lesson step calls this after loading its scenario)."""
        if part not in PARTS:
            raise ValueError(f"part: expected one of {', '.join(PARTS)}, got {part!r}")
        self.tabs.setCurrentIndex(PARTS.index(part))

    def current_part(self) -> str:
        return PARTS[self.tabs.currentIndex()]

    def retranslate(self) -> None:
        titles = (self.tr("Formula"), self.tr("Why 4× wide"), self.tr("Shapes"), self.tr("Shuffle"),
                  self.tr("Misconceptions"), self.tr("Summary"))
        for index, title in enumerate(titles):
            self.tabs.setTabText(index, title)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
