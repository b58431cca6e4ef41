"""What is the FFN worth? Our measured answer beside the seed page's figures: the shipped model
with each layer's FFN knocked out at inference (measured live, in the background), and the
retrained variants of resources/models/ablation.json with their run-to-run spread."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QPushButton, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.labs.model.common import Part, label, set_text
from app.labs.model.state import What
from app.widgets.work_bar import WorkBar
from app.widgets import style
from app.labs.fonts import fit_table
from app.widgets.appearance import appearance
from core.labs import model_lab as lab
from core.numbers import format_number

OURS = "#0072B2"         # Okabe–Ito blue
SEED = "#D55E00"         # Okabe–Ito vermilion
NOISE = (120, 120, 120, 50)
TICK_PT = 10           # 16 px in presentation mode (12 pt)
TITLE_PT = 10


def count(n: int) -> str:
    return f"{n:,}"


def signed(value: float, decimals: int = 3) -> str:
    text = format_number(value, decimals)
    return text if text.startswith("−") else "+" + text


def two_lines(text: str) -> str:
    """A header or tick label broken at its first space (a narrow column, six ticks side by side)."""
    return text.replace(" ", "\n", 1)


class AblationPlots(pg.GraphicsLayoutWidget):
    """Left: the live knock-outs (validation loss per row). Right: the retrained variants as the
    increase over their own baseline, ours (mean bar, one dot per seed) beside the seed page's."""

    def __init__(self, name: str, n_layers: int, parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        self.ci.setContentsMargins(2, 2, 2, 2)
        points = appearance().points(TICK_PT)
        self.live = style.quiet_plot(self.addPlot(), points)
        self.retrained = style.quiet_plot(self.addPlot(), points)
        self.n_rows = n_layers + 2
        self.live_bars = pg.BarGraphItem(x=np.arange(self.n_rows), height=np.zeros(self.n_rows), width=0.6,
                                         brush=OURS)
        self.live.addItem(self.live_bars)
        self.pending = pg.TextItem(anchor=(0.5, 0.5), color="#444444")
        self.live.addItem(self.pending)
        self.noise = pg.LinearRegionItem(orientation="horizontal", movable=False, brush=pg.mkBrush(*NOISE),
                                         pen=pg.mkPen(None))
        self.retrained.addItem(self.noise)
        self.seed_noise = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(SEED, width=1, style=Qt.PenStyle.DashLine))
        self.retrained.addItem(self.seed_noise)
        self.ours_bars = pg.BarGraphItem(x=[-0.18, 0.82], height=[0, 0], width=0.34, brush=OURS)
        self.seed_bars = pg.BarGraphItem(x=[0.18, 1.18], height=[0, 0], width=0.34, brush=SEED)
        self.ours_dots = pg.ScatterPlotItem(size=8, brush=pg.mkBrush("#ffffff"), pen=pg.mkPen("#000000"))
        for item in (self.ours_bars, self.seed_bars, self.ours_dots):
            self.retrained.addItem(item)
        self._tick_texts: list[str] = []
        self.setMinimumHeight(appearance().pixels(150))
        appearance().changed.connect(self._restyle)

    def _restyle(self) -> None:
        for plot in (self.live, self.retrained):
            for side in ("left", "bottom"):
                plot.getAxis(side).setTickFont(style.font(appearance().points(TICK_PT)))
        if getattr(self, "_titles", None):
            self.set_titles(*self._titles[:4])
        self._fit_ticks()

    def _fit_ticks(self) -> None:
        """Room under both plots for the live plot's two-line tick labels (pyqtgraph sizes the axis
        for one line until it has painted)."""
        lines = max([1] + [text.count("\n") + 1 for text in self._tick_texts])
        height = lines * QFontMetrics(style.font(appearance().points(TICK_PT))).lineSpacing() + 12
        for plot in (self.live, self.retrained):
            plot.getAxis("bottom").setHeight(height)

    def set_live(self, rows: list[lab.KnockoutRow], labels: list[str], waiting: str) -> None:
        heights = np.array([row.loss if row.loss is not None else 0.0 for row in rows])
        self.live_bars.setOpts(height=heights)
        self._tick_texts = [two_lines(text) for text in labels]
        self.live.getAxis("bottom").setTicks([list(enumerate(self._tick_texts))])
        self._fit_ticks()
        measured = any(row.loss is not None for row in rows)
        self.pending.setText("" if measured else waiting)
        self.pending.setVisible(not measured)
        top = max(10.0, float(heights.max()) * 1.1) if measured else 10.0
        self.pending.setPos((self.n_rows - 1) / 2, top / 2)
        self.live.setRange(xRange=(-0.6, self.n_rows - 0.4), yRange=(0, top), padding=0)

    def set_retrained(self, comparisons: list[lab.Comparison], labels: list[str], ours_noise: float,
                      seed_noise: float) -> None:
        self.ours_bars.setOpts(height=[c.ours_delta for c in comparisons])
        self.seed_bars.setOpts(height=[c.seed_delta for c in comparisons])
        xs, ys = [], []
        for k, c in enumerate(comparisons):
            xs += [k - 0.18] * len(c.ours_seed_deltas)
            ys += list(c.ours_seed_deltas)
        self.ours_dots.setData(xs, ys)
        self.noise.setRegion((0.0, ours_noise))
        self.seed_noise.setValue(seed_noise)
        self.retrained.getAxis("bottom").setTicks([[(k, text) for k, text in enumerate(labels)]])
        top = max([c.seed_delta for c in comparisons] + ys + [ours_noise]) * 1.15
        self.retrained.setRange(xRange=(-0.6, len(comparisons) - 0.4), yRange=(0, top), padding=0)

    def set_titles(self, live: str, live_axis: str, retrained: str, retrained_axis: str) -> None:
        size = f"{appearance().points(TITLE_PT):.1f}pt"
        titles = (live, live_axis, retrained, retrained_axis, size)
        if titles == getattr(self, "_titles", None):
            return
        self._titles = titles
        for plot, title, axis in ((self.live, live, live_axis), (self.retrained, retrained, retrained_axis)):
            plot.setTitle(title, size=size)
            plot.setLabel("left", axis, **{"font-size": size})


class ModelAblationPart(Part):
    def __init__(self, state, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.setObjectName("modelAblationPart")
        self.report: lab.AblationReport | None = None
        self.report_error: str | None = None
        try:
            self.report = lab.read_ablation()
        except lab.AblationFileError as error:
            self.report_error = str(error)
        self.note = label("modelAblationNote")
        self.table = QTableWidget(0, 5)
        self.table.setObjectName("modelAblationTable")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(True)        # the figures whole; the names take what is left, wrapped
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.measure = QPushButton()
        self.measure.setObjectName("modelMeasure")
        self.work = WorkBar("modelAblationWork", self.state.ablation_worker)
        self.plots = AblationPlots("modelAblationPlot", state.config.n_layers)
        self.legend = label("modelAblationLegend")
        buttons = QHBoxLayout()
        buttons.addWidget(self.measure)
        buttons.addWidget(self.work, 1)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.table, 1)
        top_layout.addLayout(buttons)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.plots, 1)
        bottom_layout.addWidget(self.legend)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("modelAblationSplitter")
        self.splitter.addWidget(top)
        self.splitter.addWidget(bottom)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.plots_box = bottom
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(self.splitter, 1)
        self.measure.clicked.connect(self._measure)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()
        self.retranslate()

    def _follow_presenting(self) -> None:
        """On a projector the table and its Measure button hold the figures the caption talks
        about; the plots of the same numbers below them would push the button off a 1024×768
        screen, so they wait for the desk."""
        self.plots_box.setVisible(not appearance().presenting)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not getattr(self, "_sized", False):        # the whole table if it fits, the plots below
            self._sized = True
            total = sum(self.splitter.sizes())
            header = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
            rows = sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
            wanted = header + rows + self.measure.sizeHint().height() + 24
            plots = max(self.plots.minimumHeight(), total - wanted)
            self.splitter.setSizes([total - plots, plots])

    def _measure(self) -> None:
        job = self.state.measure_ablation()
        if job is not None and self.work.generation != job:
            passes = str(self.state.config.n_layers + 2)
            self.work.running(lambda: self.tr("Measuring the validation loss %1 times…").replace("%1", passes))

    def retranslate(self) -> None:
        self.measure.setText(self.tr("Measure the knock-outs (runs the validation text %1 times; about a minute)")
                             .replace("%1", str(self.state.config.n_layers + 2)))
        self.table.setHorizontalHeaderLabels([two_lines(text) for text in (
            self.tr("Model"), self.tr("Parameters"), self.tr("Validation loss"), self.tr("Range (seeds)"),
            self.tr("Course page"))])
        set_text(self.note, self.tr(
            "Validation loss in nats: lower is better. <b>Ours is per character on Tang poems; the course page's is "
            "per token on a novel (%6)</b>: compare the direction and size of the changes, not the absolute "
            "values. At the course page's size our architecture has exactly "
            "its parameter counts: %1, %2 without the FFN, %3 with 12 attention-only layers.")
            .replace("%1", count(self.report.params_d256["baseline"]) if self.report else "—")
            .replace("%2", count(self.report.params_d256["no_ffn"]) if self.report else "—")
            .replace("%3", count(self.report.params_d256["attn_only_12"]) if self.report else "—")
            .replace("%6", i18n.with_gloss("《三國志演義》")))
        set_text(self.legend, self.tr(
            '<span style="color:%1">■</span> ours &nbsp; <span style="color:%2">■</span> course page &nbsp; '
            '○ one of our %5 seeds &nbsp; grey band: our run-to-run range &nbsp; dashed: the course page\'s '
            '(%3 over %4 reruns)')
            .replace("%1", OURS).replace("%2", SEED)
            .replace("%5", str(len(self.report.variants[0].seeds)) if self.report else "—")
            .replace("%3", format_number(self.report.seed_rerun_range, 3) if self.report else "—")
            .replace("%4", str(self.report.seed_rerun_runs) if self.report else "—"))

    def redraw(self, what: What) -> None:
        if what & (What.ABLATION | What.JOBS):
            self._table()
            self._plots()
        self.measure.setEnabled(self.state.ablation_job is None)

    # --- the table ----------------------------------------------------------------------------
    def _knockout_name(self, row: lab.KnockoutRow) -> str:
        if row.key == "baseline":
            return self.tr("As trained (d = %1, %2 layers)").replace("%1", str(self.state.config.d_model)) \
                .replace("%2", str(self.state.config.n_layers))
        if row.layer is not None:
            return self.tr("− the FFN of layer %1").replace("%1", str(row.layer))
        return self.tr("− every FFN")

    def _variant_name(self, variant: lab.Variant) -> str:
        names = {"baseline_L4": self.tr("Baseline, %1 layers"),
                 "no_ffn_L4": self.tr("No FFN, %1 layers"),
                 "attn_only_L12": self.tr("Attention only, %1 layers")}
        return names[variant.key].replace("%1", str(variant.n_layers))

    def _rows(self) -> list[tuple]:
        """(cells, kind, tooltips by column): kind "section" spans the table."""
        s, report = self.state, self.report
        rows: list[tuple] = [((self.tr("Knocked out at inference: the shipped model, no retraining "
                                       "(measured here)"),), "section", {})]
        for row in lab.knockout_rows(s.config.n_layers, s.losses):
            loss = "—" if row.loss is None else format_number(row.loss, 3)
            if row.delta is not None and row.key != "baseline":
                loss += f"\n({signed(row.delta)})"        # a change on a line of its own: narrow columns
            params = count(s.config.n_params) if row.key == "baseline" else ""
            seed = ""
            if row.key == "baseline" and report is not None:
                figure = report.seed_figures["baseline"]
                seed = f"{format_number(figure.val_loss, 3)} · {count(figure.params)}"
            recorded = "" if report is None or row.key not in report.recorded_knockouts else \
                self.tr("Recorded when the model file was written: %1").replace(
                    "%1", format_number(report.recorded_knockouts[row.key], 3))
            rows.append(((self._knockout_name(row), params, loss, "", seed), "row", {2: recorded} if recorded else {}))
        if report is None:
            rows.append(((self.tr("The retrained variants are unavailable: %1").replace("%1", self.report_error),),
                         "section", {}))
            return rows
        family = report.variants[0]
        rows.append(((self.tr("Retrained at d = %1, %2 seeds each (from the training runs)")
                      .replace("%1", str(family.d_model)).replace("%2", str(len(family.seeds))),), "section", {}))
        base = report.variants[0]
        for variant in report.variants:
            params = count(variant.params)
            if variant is not base:
                params += f"\n({signed(variant.param_difference_pct, 2)} %)"
            loss = format_number(variant.mean, 3)
            if variant is not base:
                loss += f"\n({signed(variant.mean - base.mean)})"
            figure = report.seed_figures[variant.seed_key]
            seed = f"{format_number(figure.val_loss, 3)} · {count(figure.params)}"
            if figure.param_difference_pct is not None:
                seed += f"\n(−{format_number(figure.param_difference_pct, 2)} %)"
            per_seed = self.tr("Seeds %1: %2").replace("%1", " / ".join(str(k) for k in variant.seeds)) \
                .replace("%2", " / ".join(format_number(v, 3) for v in variant.losses))
            rows.append(((self._variant_name(variant), params, loss, format_number(variant.range, 3), seed), "row",
                         {2: per_seed, 3: per_seed}))
        low, high = report.noise_floor
        rows.append(((self.tr("Noise floor: run-to-run range"), "", "",
                      self.tr("%1 … %2\nover %3 seeds").replace("%1", format_number(low, 3))
                      .replace("%2", format_number(high, 3)).replace("%3", str(len(base.seeds))),
                      self.tr("%1\nover %2 reruns").replace("%1", format_number(report.seed_rerun_range, 3))
                      .replace("%2", str(report.seed_rerun_runs))), "row", {}))
        return rows

    def _table(self) -> None:
        rows = self._rows()
        self.table.clearSpans()
        self.table.setRowCount(len(rows))
        bold = QFont(self.table.font())
        bold.setBold(True)
        shade = QBrush(QColor(appearance().colours.panel))
        for r, (cells, kind, tooltips) in enumerate(rows):
            for c in range(self.table.columnCount()):
                text = cells[c] if c < len(cells) else ""
                item = QTableWidgetItem(text)
                if kind == "section":
                    item.setFont(bold)
                    item.setBackground(shade)
                elif c > 0:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c in tooltips:
                    item.setToolTip(tooltips[c])
                self.table.setItem(r, c, item)
            if kind == "section":
                self.table.setSpan(r, 0, 1, self.table.columnCount())
        fit_table(self.table)              # every row whole, columns at the current font

    # --- the plots ----------------------------------------------------------------------------
    def _plots(self) -> None:
        s = self.state
        rows = lab.knockout_rows(s.config.n_layers, s.losses)
        labels = [self.tr("as trained")] + [self.tr("−FFN %1").replace("%1", str(i)) for i in range(s.config.n_layers)] \
            + [self.tr("−all")]
        self.plots.set_live(rows, labels, self.tr("not measured yet"))
        if self.report is not None:
            low, high = self.report.noise_floor
            self.plots.set_retrained(lab.comparisons(self.report), [self.tr("no FFN"), self.tr("attention only")],
                                     high, self.report.seed_rerun_range)
        self.plots.set_titles(self.tr("FFN knocked out at inference"), self.tr("validation loss"),
                              self.tr("Retrained: increase over the baseline"), self.tr("increase in loss"))
