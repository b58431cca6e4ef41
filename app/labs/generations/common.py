"""What the generations lab's parts share: the language of core's bilingual texts, sizes that
follow appearance() (the interface zoom, presentation mode, the theme), labels, plots, the
progress bar of a slow demonstration, and the words for sources and parts."""
from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QSize, Qt, QTimer, QT_TRANSLATE_NOOP
from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSpinBox, QVBoxLayout,
                               QWidget)

from app.labs.base import show_only
from app.labs.fonts import own_fonts
from app.widgets.work_bar import WorkBar
from app.widgets.worker import Worker
from app.widgets.appearance import appearance
from app.widgets.style import minus_ticks
from core.labs import generations as core

TEXT_PT = 11            # body text at 100 %: 14.7 px; 17.6 px in presentation mode
HEADING_PT = 13
TICK_PT = 10            # plot ticks: 16 px in presentation mode
# Okabe–Ito: told apart with the common colour-vision deficiencies.
BLUE, ORANGE, GREEN, PINK, VERMILION, SKY, YELLOW = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00",
                                                     "#56B4E9", "#F0E442")


# --- language ------------------------------------------------------------------------------
def language() -> str:
    """"zh" or "en": the language of the installed translation (core's texts come in both)."""
    return "zh" if QCoreApplication.translate("GenerationsLanguage", "en") == "zh" else "en"


def text_of(text) -> str:
    """A core `Text` (zh, en) in the current language."""
    return text.get(language())


def tr(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


_BREAK_AFTER = re.compile(r"([:;,/·)])(?=[^\s\d,.;:)])")
_BREAK_BEFORE = re.compile(r"(?<=[^\s(])(\()")
ZERO_WIDTH_SPACE = "\u200b"


def breakable(text: str) -> str:
    """`text` with invisible break chances after ASCII punctuation that has no space after it
    ("F(x):ResNet(2015)", "x·W_gate"): narrow cards wrap there instead of growing. Numbers
    ("8,192", "0.02") keep together."""
    return _BREAK_BEFORE.sub(ZERO_WIDTH_SPACE + r"\1", _BREAK_AFTER.sub(r"\1" + ZERO_WIDTH_SPACE, text))


# Where a figure comes from, short enough for a cell of the table (full: `source_text`).
SHORT_SOURCES = {
    "vaswani2017": QT_TRANSLATE_NOOP("GenerationsSources", "Vaswani et al. 2017, Table 3"),
    "he2015": QT_TRANSLATE_NOOP("GenerationsSources", "He et al. 2015 (ResNet)"),
    "ba2016": QT_TRANSLATE_NOOP("GenerationsSources", "Ba et al. 2016 (LayerNorm)"),
    "dauphin2016": QT_TRANSLATE_NOOP("GenerationsSources", "Dauphin et al. 2016 (GLU)"),
    "radford2019": QT_TRANSLATE_NOOP("GenerationsSources", "Radford et al. 2019 (GPT-2)"),
    "zhang2019": QT_TRANSLATE_NOOP("GenerationsSources", "Zhang & Sennrich 2019 (RMSNorm)"),
    "shazeer2020": QT_TRANSLATE_NOOP("GenerationsSources", "Shazeer 2020, Table 1"),
    "deepseek2024": QT_TRANSLATE_NOOP("GenerationsSources", "DeepSeek LLM 2024, the 67B config"),
    "qiu2025": QT_TRANSLATE_NOOP("GenerationsSources", "Qiu et al. 2025, Table 4"),
    "anchor": QT_TRANSLATE_NOOP("GenerationsSources", "the anchor model's config"),
    "frontier": QT_TRANSLATE_NOOP("GenerationsSources", "frontier models' configs"),
    "project": QT_TRANSLATE_NOOP("GenerationsSources", "the course's own model"),
    "assumption": QT_TRANSLATE_NOOP("GenerationsSources", "assuming independent writes of variance 1"),
    "computed": QT_TRANSLATE_NOOP("GenerationsSources", "computed by Block Lab"),
}


def short_source(key: str) -> str:
    return tr("GenerationsSources", SHORT_SOURCES[key])


def source_text(key: str) -> str:
    """The full citation: core's own sentence, translated (resources/i18n/zh/generations.json)."""
    return tr("GenerationsSources", core.SOURCES[key])


# Each part: its tab title (short: nine tabs share one bar) and its heading.
PART_TITLES = {
    "table": (QT_TRANSLATE_NOOP("GenerationsPanel", "Table"),
              QT_TRANSLATE_NOOP("GenerationsPanel", "The block across generations")),
    "preset": (QT_TRANSLATE_NOOP("GenerationsPanel", "Block"),
               QT_TRANSLATE_NOOP("GenerationsPanel", "One generation's block in the explorer")),
    "compare": (QT_TRANSLATE_NOOP("GenerationsPanel", "A vs B"),
                QT_TRANSLATE_NOOP("GenerationsPanel", "Two generations side by side")),
    "residual_growth": (QT_TRANSLATE_NOOP("GenerationsPanel", "Growth"),
                        QT_TRANSLATE_NOOP("GenerationsPanel", "The residual stream keeps growing")),
    "placement": (QT_TRANSLATE_NOOP("GenerationsPanel", "Post/Pre"),
                  QT_TRANSLATE_NOOP("GenerationsPanel", "Post-LN against Pre-LN across depth")),
    "swiglu_overflow": (QT_TRANSLATE_NOOP("GenerationsPanel", "Overflow"),
                        QT_TRANSLATE_NOOP("GenerationsPanel", "SwiGLU has no upper bound")),
    "attention_sink": (QT_TRANSLATE_NOOP("GenerationsPanel", "Sink"),
                       QT_TRANSLATE_NOOP("GenerationsPanel", "The attention sink and the output gate")),
    "gain_decay": (QT_TRANSLATE_NOOP("GenerationsPanel", "Gain"),
                   QT_TRANSLATE_NOOP("GenerationsPanel", "What weight decay does to a norm's gain")),
    "parameters": (QT_TRANSLATE_NOOP("GenerationsPanel", "Params"),
                   QT_TRANSLATE_NOOP("GenerationsPanel", "Counting a whole model's parameters")),
}


def part_tab(part: str) -> str:
    return tr("GenerationsPanel", PART_TITLES[part][0])


def part_heading(part: str) -> str:
    return tr("GenerationsPanel", PART_TITLES[part][1])


# --- sizes and colours ---------------------------------------------------------------------
def sized_font(base: float, bold: bool = False) -> QFont:
    result = QFont()
    result.setPointSizeF(appearance().points(base))
    result.setBold(bold)
    return result


def css_size(base: float) -> str:
    return f"{appearance().points(base):.1f}pt"


def set_text_colour(widget: QWidget, colour: str) -> None:
    palette = widget.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(colour))
    palette.setColor(QPalette.ColorRole.Text, QColor(colour))
    widget.setPalette(palette)


class Part(QWidget):
    """A tab page of the lab: retranslates on a language change and resizes its texts and plots
    when the zoom, presentation mode or theme changes (appearance().changed)."""

    def __init__(self, object_name: str, parent: QWidget | None = None):
        super().__init__(parent)
        own_fonts(self)                   # sizes its fonts by appearance() itself
        self.setObjectName(object_name)
        self._fonts: list[tuple[QWidget, float, bool]] = []
        self._muted: list[QWidget] = []
        self._plots: list[pg.PlotItem] = []
        self._views: list[pg.GraphicsView] = []
        self._headings: list[QLabel] = []     # hidden in presentation mode: the lesson's title says it
        appearance().changed.connect(self._appearance_changed)

    # building
    def label(self, object_name: str = "", base: float = TEXT_PT, bold: bool = False, rich: bool = False,
              muted: bool = False, wrap: bool = True) -> QLabel:
        label = QLabel()
        if object_name:
            label.setObjectName(object_name)
        label.setWordWrap(wrap)
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sized(label, base, bold)
        if muted:
            self._muted.append(label)
        if wrap:
            label.installEventFilter(self)      # its wrapped height becomes its minimum: see eventFilter
        if base == HEADING_PT and object_name.endswith("Heading"):        # the part's title, not a figure
            self._headings.append(label)
        return label

    def _follow_presenting(self) -> None:
        """In presentation mode the part's heading gives its room to the figure: the caption bar
        above shows the step's title."""
        for heading in self._headings:
            if heading.parentWidget() is not None:         # placed: hiding or showing it is safe
                heading.setVisible(not appearance().presenting)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        """A wrapped label asks for the height its text needs at its width: layouts do not pass
        height-for-width on to a scroll area's page, which would squeeze the label instead of
        growing and scrolling."""
        if event.type() == QEvent.Type.Resize and isinstance(watched, QLabel) and watched.wordWrap():
            before = watched.minimumHeight()
            watched.setMinimumHeight(0)         # QLabel's height-for-width never goes below its minimum
            needed = watched.heightForWidth(watched.width())
            watched.setMinimumHeight(max(needed, 0) if needed != -1 else before)
        return False

    def sized(self, widget: QWidget, base: float = TEXT_PT, bold: bool = False) -> QWidget:
        """Keep `widget`'s font at `base` points × the interface zoom."""
        self._fonts.append((widget, base, bold))
        widget.setFont(sized_font(base, bold))
        return widget

    def work_bar(self, worker: Worker, name: str) -> WorkBar:
        """The progress of a slow demonstration: what happened last, a bar and a Cancel button."""
        bar = WorkBar(name, worker, report=True)
        bar.bar.setTextVisible(False)
        self.sized(bar.label)
        self.sized(bar.cancel_button)
        self._muted.append(bar.label)
        return bar

    def button(self, object_name: str, base: float = TEXT_PT) -> QPushButton:
        button = QPushButton()
        button.setObjectName(object_name)
        self.sized(button, base)
        return button

    def plot(self, view: pg.GraphicsLayoutWidget | pg.PlotWidget, row: int = 0, column: int = 0) -> pg.PlotItem:
        """A quiet plot (no menu, no panning, Unicode minus ticks) that follows appearance()."""
        if isinstance(view, pg.PlotWidget):
            item = view.getPlotItem()
        else:
            item = view.addPlot(row=row, col=column)
        for side in ("left", "bottom"):
            minus_ticks(item.getAxis(side))
        for side in ("left", "bottom", "top", "right"):     # hidden ones too (see style.quiet_plot)
            item.getAxis(side).enableAutoSIPrefix(False)
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        if view not in self._views:
            self._views.append(view)
        self._plots.append(item)
        self._style_plot(item)
        return item

    def legend(self, plot: pg.PlotItem, offset=(10, 10)) -> pg.LegendItem:
        legend = plot.addLegend(offset=offset, labelTextSize=css_size(TEXT_PT - 1))
        legend.setBrush(pg.mkBrush(QColor(appearance().colours.background)))
        return legend

    def axis_label(self, plot: pg.PlotItem, side: str, text: str) -> None:
        axis = plot.getAxis(side)
        style = {"font-size": css_size(TEXT_PT - 1), "color": appearance().colours.foreground}
        if axis.labelText != text or axis.labelStyle != style or not axis.label.isVisible():
            plot.setLabel(side, text, **style)

    def plot_title(self, plot: pg.PlotItem, text: str) -> None:
        """Set a title only when its words, size or colour change (each setTitle lays the plot out)."""
        key = (text, css_size(TEXT_PT), appearance().colours.foreground)
        if getattr(plot, "_generations_title", None) != key:
            plot._generations_title = key
            plot.setTitle(text, size=key[1], color=key[2])

    @staticmethod
    def set_ticks(axis: pg.AxisItem, ticks: list[tuple[float, str]]) -> None:
        """Set an axis's ticks only when they change (each setTicks lays the axis out)."""
        if getattr(axis, "_generations_ticks", None) != ticks:
            axis._generations_ticks = ticks
            axis.setTicks([ticks])

    # following the appearance
    def _style_plot(self, plot: pg.PlotItem) -> None:
        colours = appearance().colours
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.setTickFont(sized_font(TICK_PT))
            axis.setPen(colours.foreground)
            axis.setTextPen(colours.foreground)
            if axis.labelText:
                axis.setLabel(axis.labelText, axis.labelUnits,
                              **{"font-size": css_size(TEXT_PT - 1), "color": colours.foreground})
        legend = plot.legend
        if legend is not None:
            legend.setBrush(pg.mkBrush(QColor(colours.background)))
            legend.setLabelTextSize(css_size(TEXT_PT - 1))
            legend.setLabelTextColor(colours.foreground)

    def _appearance_changed(self) -> None:
        for widget, base, bold in self._fonts:
            widget.setFont(sized_font(base, bold))
        muted = appearance().colours.muted
        for widget in self._muted:
            set_text_colour(widget, muted)
        for view in self._views:
            view.setBackground(appearance().colours.background)
        for plot in self._plots:
            self._style_plot(plot)
        self._follow_presenting()
        self.restyle()
        self.retranslate()              # titles and labels carry their sizes and colours

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._follow_presenting()
        if self._muted and not getattr(self, "_muted_once", False):
            self._muted_once = True
            muted = appearance().colours.muted
            for widget in self._muted:
                set_text_colour(widget, muted)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Every text of the part in the current language (subclasses)."""

    def restyle(self) -> None:
        """Colours and sizes beyond fonts and plots (subclasses)."""


class CachedRunPart(Part):
    """A part whose result, for the number of layers the learner sets, is computed off the GUI
    thread (a progress bar and Cancel) and kept: core's runs are seeded, so each number of layers
    runs once and coming back to it draws at once.

    The part reads, top to bottom: a heading, an introduction, `controls` (the label and spin box
    of the number of layers), the progress bar, the plots, and what the subclass puts below them.
    A subclass sets `compute(layers, progress)` (a static function of core's, run on the pool
    thread: it returns None when told to stop), builds its plots and texts, calls `lay_out` and
    writes `draw(layers, result)`."""

    DEBOUNCE_MS = 250                   # a spin box held down starts one run, once it stops

    compute = None                      # staticmethod: (layers, progress) -> result or None

    def __init__(self, object_name: str, prefix: str, layer_range: tuple[int, int], layers: int,
                 parent: QWidget | None = None):
        super().__init__(object_name, parent)
        self.results: dict[int, object] = {}          # layers → what compute() returned
        self.shown_layers: int | None = None
        self.layers = QSpinBox()
        self.layers.setObjectName(prefix + "Layers")
        self.sized(self.layers)
        self.layers.setRange(*layer_range)
        self.layers.setValue(layers)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(self.DEBOUNCE_MS)
        self._debounce.timeout.connect(self.run)
        self.layers.valueChanged.connect(lambda _value: self._debounce.start())
        self.worker = Worker(self)
        self.worker.finished.connect(self._finished)
        self.run_bar = self.work_bar(self.worker, prefix + "Work")
        self.heading = self.label(prefix + "Heading", HEADING_PT, bold=True)
        self.intro = self.label(prefix + "Intro")
        self.layers_label = self.label(prefix + "LayersLabel", wrap=False)
        self.controls = QHBoxLayout()
        self.controls.addWidget(self.layers_label)
        self.controls.addWidget(self.layers)

    def lay_out(self, plots: QWidget, *below: QWidget) -> None:
        """Place the part's widgets, `plots` taking the height to spare, and write its texts."""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.intro)
        layout.addLayout(self.controls)
        layout.addWidget(self.run_bar)
        layout.addWidget(plots, 1)
        for widget in below:
            layout.addWidget(widget)
        self._plot_view = plots
        self.retranslate()

    def _aside(self) -> tuple[QWidget, ...]:
        """Presenting, the texts that step aside (in this order) when the room is short: the
        introduction (the lesson's caption says it); subclasses add theirs."""
        return (self.intro,)

    def _fit_intro(self) -> None:
        """Presenting, the texts of `_aside()` step aside, the fewest in their order, while the page
        would scroll with them or its plot would be lower than the plot's y axis's name is long
        (1024×768 with 150 %: the growth page scrolled and "standard deviation of the stream" ran
        past the plot); at the desk all are shown."""
        layout = self.layout()
        if layout is None or not self._plots:
            return
        plot = self._plots[0]
        needed = plot.getAxis("left").label.boundingRect().width() + plot.getAxis("bottom").height() + 12
        step_aside(self, layout, self._aside(), self.width() - 12,
                   lambda left: left >= 0 and self._plot_view.sizeHint().height() + left >= needed)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_intro()

    def ensure_run(self) -> None:
        """Draw the current setting: from the cache, else start a run (the part came forward)."""
        if self.shown_layers != self.layers.value() and not self.worker.is_running():
            self.run()

    def run(self) -> None:
        """Draw the number of layers set now: at once if it ran before, else run it off the GUI thread."""
        layers = self.layers.value()
        if layers in self.results:
            self.worker.cancel()
            self._show(layers)
            return
        compute = type(self).compute

        def job(progress, layers=layers):
            result = compute(layers, progress)
            return None if result is None else (layers, result)
        self.worker.start(job)
        self.run_bar.running()

    def _finished(self, outcome) -> None:
        if outcome is None:                          # stopped on the way (the worker was closing)
            return
        layers, result = outcome
        self.results[layers] = result
        self._show(layers)

    def _show(self, layers: int) -> None:
        self.shown_layers = layers
        self.draw(layers, self.results[layers])

    def draw(self, layers: int, result) -> None:
        """Show `result`, what compute(layers) returned (subclasses)."""
        raise NotImplementedError


class PlotView(pg.GraphicsLayoutWidget):
    """Plots whose preferred height is modest (a scroll area sizes its page by preferred heights).
    In presentation mode they prefer their least height: a projector's page then scrolls only when
    even that does not fit, and the plots' stretch gives them the room left."""

    def __init__(self, object_name: str, height: int = 300):
        super().__init__()
        self.setObjectName(object_name)
        self._height = height
        self.setMinimumHeight(max(160, height - 80))
        self.setBackground(appearance().colours.background)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        if appearance().presenting:
            return QSize(480, self.minimumHeight())
        return QSize(480, appearance().pixels(self._height))


def step_aside(page: QWidget, layout, aside, text_width: int, room_needed) -> None:
    """Presenting, hide the fewest of `aside` (texts in `layout`, the layout of `page`, in their order)
    for `room_needed(left)` to hold for the height `left` over in the page's scroll area; at the desk
    show them all. Worked out as if all were shown (a hidden one's height at `text_width` and the
    layout's spacing added back), so hiding one never changes the answer."""
    viewport = page.parentWidget()
    if not appearance().presenting or viewport is None:
        show_only(aside, (), page)
        return
    layout.activate()
    spacing = max(0, layout.spacing())

    def height(widget: QWidget) -> int:
        return max(0, widget.heightForWidth(max(1, text_width)) if widget.hasHeightForWidth()
                   else widget.sizeHint().height()) + spacing

    total = layout.totalHeightForWidth(viewport.width())
    total += sum(height(widget) for widget in aside if not widget.isVisibleTo(page))
    hidden = []
    for widget in aside:
        if room_needed(viewport.height() - total):
            break
        hidden.append(widget)
        total -= height(widget)
    show_only(aside, hidden, page)


def scroll_page(widget: QWidget, object_name: str) -> QScrollArea:
    """A part in a scroll area that scrolls only vertically (projector sizes need the room)."""
    scroll = QScrollArea()
    scroll.setObjectName(object_name)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(widget)
    return scroll


def note(*widgets: QWidget, object_name: str = "") -> QFrame:
    """A framed note (a figure from the seed and where it comes from)."""
    frame = QFrame()
    if object_name:
        frame.setObjectName(object_name)
    frame.setFrameShape(QFrame.Shape.StyledPanel)
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(10, 8, 10, 8)
    for widget in widgets:
        layout.addWidget(widget)
    return frame


# --- which generation the explorer shows ---------------------------------------------------
GENERATION_BUTTONS = {
    "original": QT_TRANSLATE_NOOP("GenerationsPanel", "2017\noriginal"),
    "gpt2": QT_TRANSLATE_NOOP("GenerationsPanel", "2019\nGPT-2"),
    "llama": QT_TRANSLATE_NOOP("GenerationsPanel", "2020–23\nLlama-style"),
    "anchor": QT_TRANSLATE_NOOP("GenerationsPanel", "2025–26\nanchor"),
    "divergence": QT_TRANSLATE_NOOP("GenerationsPanel", "2026\ndivergence"),
}


def generation_name(generation: str, one_line: bool = True) -> str:
    """A generation's short name: "2019 GPT-2" (or on two lines, for a button)."""
    text = tr("GenerationsPanel", GENERATION_BUTTONS[generation])
    return text.replace("\n", " ") if one_line else text


_CONFIGS: dict = {}


def generation_of(config) -> str | None:
    """The generation whose preset has exactly this config, or None (a block of the learner's own)."""
    if not _CONFIGS:
        _CONFIGS.update({core.preset_config(g): g for g in core.GENERATIONS})
    return _CONFIGS.get(config)


_TRACES: dict = {}


def preset_trace(generation: str):
    """The trace of a generation's preset as shipped (computed once: presets never change)."""
    if generation not in _TRACES:
        _TRACES[generation] = core.preset(generation).run()
    return _TRACES[generation]
