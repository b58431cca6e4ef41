"""The MSE tab: the block's output against the scenario's targets — the number, how it changes as
the chosen cell varies (the sweep), and its history over this session's edits.

Every label says what is compared (the block's output, hook_resid_post, against the targets),
so that this MSE is never confused with a lab's own error. The sweep runs the block once per
value (core.analysis.mse_sweep, incrementally from the current trace); a small block sweeps at
once, a large one on the worker thread with a progress bar, and the next edit cancels it.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QStackedWidget, QVBoxLayout, QWidget

from app.explorer.plots import look
from app.explorer.plots.common import FigureView, PlotTab, message_label
from app.widgets.symbols import point_brush, point_pen, set_symbol_style
from app.widgets.worker import Worker
from core.analysis import mse_sweep, sweep_range
from core.numbers import format_number

MAX_HISTORY_SHOWN = 500      # the history plot shows the last this many steps
MAX_HISTORY_DOTS = 60        # more steps than this: the history is a line without dots
PROGRESS_AFTER_MS = 250      # a sweep still running after this long shows its progress bar
SWEEP_DELAY_MS = 40          # the sweep starts once edits pause this long (a drag: after it, not per frame)
SIDE_BY_SIDE_PX = 440        # narrower than this: the sweep above the history …
STACKED_PX = 420             # … if the figure is this tall, else the sweep alone


class MseTab(PlotTab):
    """The MSE, its curve as the chosen edit cell varies, and its history over this session's edits."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, "plotsMseTab", parent)
        self.stack = QStackedWidget(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

        # no targets: say so, and offer to make some
        self.empty_page = QWidget()
        self.empty_label = message_label("plotsNoTargets")
        self.use_output = QPushButton()
        self.use_output.setObjectName("plotsUseOutputAsTarget")
        self.use_output.clicked.connect(session.use_output_as_targets)
        empty_layout = QVBoxLayout(self.empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_label)
        empty_layout.addWidget(self.use_output, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(1)

        # targets: what is compared, the number, the sweep and the history
        self.mse_page = QWidget()
        self.mse_label = QLabel()
        self.mse_label.setObjectName("plotsMseValue")
        self.mse_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setObjectName("plotsSweepProgress")
        self.progress.setRange(0, 100)
        self.progress.setVisible(False)
        self.graphics = FigureView()
        self.graphics.setObjectName("plotsMsePlots")
        self.graphics.ci.setContentsMargins(4, 4, 4, 4)
        page_layout = QVBoxLayout(self.mse_page)
        page_layout.setContentsMargins(8, 4, 8, 0)
        page_layout.setSpacing(2)
        head = QHBoxLayout()
        head.addWidget(self.mse_label)
        head.addStretch(1)
        head.addWidget(self.progress)
        page_layout.addLayout(head)
        page_layout.addWidget(self.graphics, 1)
        self.stack.addWidget(self.empty_page)
        self.stack.addWidget(self.mse_page)

        # What is compared, in the figure itself: an exported figure says it too.
        self.caption = pg.LabelItem(justify="left")
        self._caption_shown: tuple | None = None
        self.sweep_plot = look.new_plot()
        self.history_plot = look.new_plot()
        self.sweep_curve = pg.PlotDataItem()
        self.sweep_marker = pg.ScatterPlotItem(size=15)
        self.sweep_marker.setZValue(5)
        self.sweep_plot.addItem(self.sweep_curve)
        self.sweep_plot.addItem(self.sweep_marker)
        self.sweep_plot.vb.setDefaultPadding(0.05)
        self.sweep_plot.enableAutoRange()
        self.history_curve = pg.PlotDataItem(symbol="o", symbolSize=10)
        self.history_plot.addItem(self.history_curve)
        self.history_plot.vb.setDefaultPadding(0.05)
        self.take_out(self.caption, self.sweep_plot, self.history_plot)
        self.side_by_side: bool | None = None
        self.form: str | None = None             # "side", "stacked" or "sweep"

        # The sweep runs the block ~61 times: coalesce the edits that come in quick succession (a
        # drag), skip it while the tab is not on screen, run it on the worker (the next edit cancels it).
        self.sweep_timer = QTimer(self)
        self.sweep_timer.setSingleShot(True)
        self.sweep_timer.setInterval(SWEEP_DELAY_MS)
        self.sweep_timer.timeout.connect(self._sweep_if_shown)
        self.sweep_stale = True
        self.sweeps_applied = 0
        self.last_sweep: tuple | None = None      # (cell, current value) of the curve shown
        self.worker = Worker(self)
        self.worker.finished.connect(self._apply_sweep)
        self.worker.progressed.connect(lambda fraction: self.progress.setValue(round(100 * fraction)))
        # the bar shows only for a sweep that takes a while: no flicker on every edit of a small block
        self.progress_delay = QTimer(self)
        self.progress_delay.setSingleShot(True)
        self.progress_delay.setInterval(PROGRESS_AFTER_MS)
        self.progress_delay.timeout.connect(lambda: self.progress.setVisible(self.worker.busy))
        self.worker.busy_changed.connect(self._busy)
        self.follow_resizes()
        self.restyle()
        self.retranslate()
        self.refresh()

    # --- texts and looks ----------------------------------------------------------------
    def retranslate(self) -> None:
        self.empty_label.setText(self.tr("This scenario has no targets, so there is no error to measure. "
                                         "Make the block's current output the target, then edit a weight "
                                         "and watch the MSE grow."))
        self.use_output.setText(self.tr("Use the current output as target"))
        self._caption()
        self.progress.setFormat(self.tr("Computing the MSE curve… %p%"))
        look.set_title(self.history_plot, self.tr("MSE after each step"))
        look.set_axis_label(self.history_plot, "bottom", self.tr("step"))
        look.set_axis_label(self.history_plot, "left", self.tr("MSE"))
        look.set_axis_label(self.sweep_plot, "left", self.tr("MSE"))

    def _caption(self) -> None:
        text = self.tr("MSE between the block's output (hook_resid_post) and the scenario's targets")
        shown = (look.wrapped(text, look.font(), self.graphics.width() - 24), look.css(), look.foreground())
        if shown != self._caption_shown:      # re-laying out text costs: only when it changes
            self.caption.setText(shown[0], size=shown[1], color=shown[2])
            self._caption_shown = shown

    def restyle(self) -> None:
        super().restyle()
        for widget in (self.empty_label, self.use_output, self.progress):
            widget.setFont(look.font())
        self.mse_label.setFont(look.font(look.VALUE_PX, bold=True))
        look.style_plot(self.sweep_plot)
        look.style_plot(self.history_plot)
        self.sweep_curve.setPen(pg.mkPen(look.curve_colour(), width=3))
        self.sweep_marker.setBrush(point_brush(look.point_colour()))
        self.sweep_marker.setPen(point_pen(look.background(), 2))
        self.history_curve.setPen(pg.mkPen(look.muted(), width=2))
        set_symbol_style(self.history_curve, point_pen(look.background()), point_brush(look.curve_colour()))
        self.form = None

    def _arrange(self) -> None:
        """Side by side when wide; one above the other when tall enough; else the sweep alone
        (two squeezed plots read worse than one)."""
        width, height = self.graphics.width(), self.graphics.height()
        if width >= look.px(SIDE_BY_SIDE_PX) or width <= 0:
            form = "side"
        elif height >= look.px(STACKED_PX):
            form = "stacked"
        else:
            form = "sweep"
        if form == self.form:
            return
        self.take_out(self.caption, self.sweep_plot, self.history_plot)
        self.put(self.caption, 0, 0, colspan=2 if form == "side" else 1)
        self.put(self.sweep_plot, 1, 0)
        if form != "sweep":
            self.put(self.history_plot, 1 if form == "side" else 2, 1 if form == "side" else 0)
        self.form = form
        self.side_by_side = form == "side"

    def _title(self, plot: pg.PlotItem, text: str) -> None:
        self.fit_title(plot, text, 2 if self.side_by_side else 1)

    def _bottom_label(self, plot: pg.PlotItem, text: str) -> None:
        self.fit_label(plot, text, 2 if self.side_by_side else 1)

    # --- drawing ---------------------------------------------------------------------------
    def refresh(self, force: bool = False) -> None:
        session = self.session
        if session.mse is None:
            self.stack.setCurrentWidget(self.empty_page)
            self.worker.cancel()
            self.sweep_stale = True
            return
        self.stack.setCurrentWidget(self.mse_page)
        self.structure = True
        self._arrange()
        self._caption()
        self.mse_label.setText(format_number(session.mse))
        self._title(self.history_plot, self.tr("MSE after each step"))
        self._bottom_label(self.history_plot, self.tr("step"))
        # the last MAX_HISTORY_SHOWN steps only: an edit must not re-plot an ever longer list
        total = len(session.mse_history)
        first = max(0, total - MAX_HISTORY_SHOWN)
        history = np.asarray(session.mse_history[first:], dtype=np.float64)
        # a dot per step while they can be told apart (and are cheap to draw); a line beyond
        symbol = "o" if len(history) <= MAX_HISTORY_DOTS else None
        if self.history_curve.opts["symbol"] != symbol:
            self.history_curve.setSymbol(symbol)
        self.history_curve.setData(np.arange(first, total), history)
        # MSE is never negative: keep 0 in view, and a few steps of room to grow
        self.history_plot.setRange(xRange=(first - 0.5, max(total - 1, first + 5) + 0.5),
                                   yRange=(0.0, max(float(history.max(initial=0.0)), 1e-3)), padding=0.05)
        self._label_sweep()
        # any edit may move the curve (a weight elsewhere changes what the swept cell does)
        self.schedule_sweep()

    def close_down(self) -> None:
        self.sweep_timer.stop()
        self.worker.close()
        self.worker.wait()

    def resized(self) -> None:
        if self.session.mse is None:
            return
        self._arrange()
        self._caption()
        self._title(self.history_plot, self.tr("MSE after each step"))
        self._bottom_label(self.history_plot, self.tr("step"))
        self._label_sweep()

    def schedule_sweep(self) -> None:
        self.sweep_stale = True
        self.sweep_timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self.sweep_stale:
            self.sweep_timer.start()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().hideEvent(event)
        if self.worker.busy:            # nobody watches it: stop, and sweep again when shown
            self.worker.cancel()
            self.sweep_stale = True

    def _sweep_if_shown(self) -> None:
        if self.sweep_stale and self.isVisible():
            self.update_sweep()

    def _busy(self, busy: bool) -> None:
        if busy:
            if not self.progress.isVisible():
                self.progress.setValue(0)
                self.progress_delay.start()
        else:
            self.progress_delay.stop()
            self.progress.setVisible(False)

    def _cell(self) -> str:
        session = self.session
        # non-breaking spaces: a wrapped title never splits the index
        index = ",\u00a0".join(map(str, session.edit_index))
        return f"{session.edit_tensor}[{index}]"

    def update_sweep(self) -> None:
        """Recompute the MSE curve over the edit cell's values (core.analysis.mse_sweep) on the
        worker: 61 forwards take 10–20 ms even at lesson size on a busy laptop, seconds at
        GPT-2 size; the frame never waits for them."""
        session = self.session
        if session.mse is None:
            self.sweep_stale = False
            return
        tensor, index, cell = session.edit_tensor, session.edit_index, self._cell()
        if tensor == "targets":   # mse_sweep varies inputs or weights only
            self.worker.cancel()
            self.sweep_curve.setData([], [])
            self.sweep_marker.setData([], [])
            self.last_sweep = (None, cell)
            self._label_sweep()
            self.sweep_stale = False
            return
        state, trace, mse = session.state, session.trace, session.mse
        current = float(session.tensor(tensor)[index])
        values = sweep_range(current)

        def job(progress=None):
            errors = mse_sweep(state.config, state.weights, state.inputs, state.targets, tensor, index, values,
                               progress=progress, trace=trace)
            return None if errors is None else (cell, current, mse, values, errors)

        self.worker.start(job)

    def _apply_sweep(self, result) -> None:
        if result is None:          # a cancelled sweep
            return
        cell, current, mse, values, errors = result
        self.sweep_stale = False
        self.sweeps_applied += 1
        self.sweep_curve.setData(values, errors)
        self.sweep_marker.setData([current], [mse])
        self.last_sweep = (cell, current)
        self._label_sweep()

    def _label_sweep(self) -> None:
        if self.last_sweep is None:
            return
        cell, current = self.last_sweep
        if cell is None:
            self._title(self.sweep_plot, self.tr("Pick a weight or input cell to see its MSE curve"))
            self._bottom_label(self.sweep_plot, self.tr("value of %1").replace("%1", current))
            return
        self._title(self.sweep_plot, self.tr("MSE as %1 varies").replace("%1", cell))
        self._bottom_label(self.sweep_plot, self.tr("value of %1").replace("%1", cell))
