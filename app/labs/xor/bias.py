"""Part ④ of the two-neuron lab: drag neuron 2's bias from −1 to 0 and see which sentence goes
wrong first."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSignalBlocker, Qt
from PySide6.QtWidgets import QHBoxLayout, QSlider, QVBoxLayout, QWidget

from app import i18n
from app.labs.xor.common import (BIAS_NEURON, POINT_COLOUR, ROW_COLOURS, SLIDER_SCALE, TEXT_PT, WRONG_COLOUR,
                                 axis_label, esc, graphics, label, new_plot, plot_title, set_curve, set_points,
                                 set_text, steady_y_range, trimmed)
from app.widgets.appearance import appearance
from app.widgets.spin import session_spin, set_spin_value
from app.widgets.style import font
from core.formats.scenario import MAX_ABS_VALUE
from core.labs import xor as lab


class SweepCurve(pg.PlotCurveItem):
    """A curve over the bias range that is handed its bounds with its points: the part finds every
    curve's at once (a few NumPy calls), where pyqtgraph finds each curve's x and y bounds again
    from its points when the view asks for its new extent (~30 µs a curve). The same numbers as
    pyqtgraph's: its min and max ignoring NaN, the finite ones if one is infinite; the pens are
    cosmetic (no widening in data units)."""

    _given: tuple | None = None

    def show_points(self, x: np.ndarray, y: np.ndarray, bounds: tuple) -> bool:
        """Points and their ((x min, x max), (y min, y max)); True if they differ from the shown."""
        if not set_curve(self, x, y):
            return False
        if self.opts["pen"].isCosmetic() and self.opts["shadowPen"] is None and self.opts["fillLevel"] is None:
            self._given = bounds
        return True

    def updateData(self, *args, **kwargs) -> None:  # noqa: N802 (pyqtgraph's name)
        self._given = None
        super().updateData(*args, **kwargs)

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):  # noqa: N802, N803 (pyqtgraph's names)
        if self._given is not None and frac >= 1.0 and orthoRange is None:
            return self._given[ax]
        return super().dataBounds(ax, frac, orthoRange)


def _bounds(values: np.ndarray) -> list[tuple]:
    """Each column's (min, max) as PlotCurveItem.dataBounds finds them: NaN ignored (np.nanmin's
    own reduction, without its warning for an all-NaN column: NaN bounds, as pyqtgraph's), only
    the finite values if a bound is infinite, (None, None) if none is finite."""
    values = values.reshape(len(values), -1)
    lows, highs = np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)
    found = []
    for k, (low, high) in enumerate(zip(lows.tolist(), highs.tolist())):
        if math.isinf(low) or math.isinf(high):
            column = values[:, k][np.isfinite(values[:, k])]
            found.append((float(column.min()), float(column.max())) if column.size else (None, None))
        else:
            found.append((low, high))
    return found


class XorBiasPart(QWidget):
    """A slider and a spin box on b_in[1], every sentence's ŷ and the MSE over the bias range."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorBiasPage")
        self.session = session
        # The sweep over b_in[1] (everything but b_in[1] itself): recomputed only when its key changes.
        self._sweep_key: tuple | None = None
        self._flip: lab.Flip | None = None
        self._never = np.zeros(0, dtype=bool)
        layout = self.page_layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
        row = QHBoxLayout()
        self.bias_title = label("xorBiasTitle", TEXT_PT, wrap=False)
        self.bias_slider = QSlider(Qt.Orientation.Horizontal)
        self.bias_slider.setObjectName("xorBiasSlider")
        low, high = lab.BIAS_RANGE
        self.bias_slider.setRange(int(low * SLIDER_SCALE), int(high * SLIDER_SCALE))
        self.bias_slider.valueChanged.connect(
            lambda position: self.session.set_value("b_in", (BIAS_NEURON,), position / SLIDER_SCALE, merge=True))
        self.bias_slider.sliderReleased.connect(self.session.end_gesture)   # one drag, one undo step
        self.bias_spin = session_spin("xorBiasSpin", -MAX_ABS_VALUE, MAX_ABS_VALUE, 0.05, session, points=TEXT_PT)
        self.bias_spin.setFixedWidth(96)
        self.bias_spin.valueChanged.connect(
            lambda value: self.session.set_value("b_in", (BIAS_NEURON,), float(value), merge=True))
        row.addWidget(self.bias_title)
        row.addWidget(self.bias_slider, 1)
        row.addWidget(self.bias_spin)
        layout.addLayout(row)
        self.flip_label = label("xorFirstFlip", TEXT_PT)
        layout.addWidget(self.flip_label)

        self.bias_view = graphics("xorBiasPlots")
        self.bias_outputs_plot = new_plot()
        self.bias_mse_plot = new_plot()
        self.bias_view.addItem(self.bias_outputs_plot, 0, 0)
        self.bias_view.addItem(self.bias_mse_plot, 0, 1)
        self.bias_view.ci.layout.setColumnStretchFactor(0, 3)
        self.bias_view.ci.layout.setColumnStretchFactor(1, 2)
        # the legend under the plot, four across: inside it, the sentences' English glosses made
        # it wide enough to cover the curves wherever it stood
        self.bias_legend = pg.LegendItem(labelTextSize="10pt", colCount=4)
        self.bias_view.addItem(self.bias_legend, 1, 0, 1, 2)
        self.bias_legend.layout.setContentsMargins(2, 0, 2, 0)
        self.bias_legend.layout.setVerticalSpacing(0)
        # The curves are bare PlotCurveItems (no symbols: a PlotDataItem around each would only
        # copy its data and find its bounds once more on every edit)
        self.bias_curves: list[SweepCurve] = []
        self._named: tuple | None = None                      # the tokens the legend names
        self.bias_threshold = pg.InfiniteLine(pos=lab.THRESHOLD, angle=0,
                                              pen=pg.mkPen("#555555", width=1.5, style=Qt.PenStyle.DashLine),
                                              label="0.5", labelOpts={"position": 0.98, "color": "#555555",
                                                                       "anchors": [(1, 1), (1, 1)]})
        self.bias_threshold.label.setFont(font(10))
        self.bias_outputs_plot.addItem(self.bias_threshold)     # labelled above its right end: the curves end below
        self._threshold_on_line: bool | None = None            # the label on the line's end (a short view)
        self.bias_outputs_plot.vb.sigResized.connect(self._place_threshold_label)
        self.bias_outputs_plot.vb.sigYRangeChanged.connect(self._place_threshold_label)
        self.bias_flip_point = pg.ScatterPlotItem(size=14, symbol="x", pen=pg.mkPen(WRONG_COLOUR, width=3),
                                                  brush=pg.mkBrush(WRONG_COLOUR))
        self.bias_outputs_plot.addItem(self.bias_flip_point)
        self.bias_mse_curve = SweepCurve(pen=pg.mkPen("#222222", width=2.5))
        self.bias_mse_plot.addItem(self.bias_mse_curve)
        self.bias_markers = []
        for plot in (self.bias_outputs_plot, self.bias_mse_plot):
            marker = pg.InfiniteLine(angle=90, pen=pg.mkPen(POINT_COLOUR, width=2))
            plot.addItem(marker)
            plot.setXRange(low, high, padding=0.02)
            self.bias_markers.append(marker)
        layout.addWidget(self.bias_view, 1)
        self.retranslate()
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    def _follow_presenting(self) -> None:
        """Presenting, the page's rows stand closer: the plots need a projector's height (at
        1024×768 with 150 % zoom the page scrolled 63 px, zh 14, the plots' axes below the edge)."""
        presenting = appearance().presenting
        self.page_layout.setContentsMargins(*((4, 0, 4, 0) if presenting else (4, 6, 4, 4)))
        self.page_layout.setSpacing(2 if presenting else -1)         # -1: the style's

    def _place_threshold_label(self, *_args) -> None:
        """The 0.5 line's label stands above the line's right end. Where the plot is too short for
        that (a projector's 1024×768 at 150 %: the line 18 px under the plot's top, the label 21 px
        tall) it would be cut off at the top, and under the line it would sit on the curve at 0:
        it then stands on the line's end itself, on the plot's background, which hides that end."""
        view, label = self.bias_outputs_plot.vb, self.bias_threshold.label
        room = view.mapFromView(QPointF(0.0, lab.THRESHOLD)).y()         # px from the plot's top
        on_line = room < label.boundingRect().height()
        if on_line != self._threshold_on_line:
            self._threshold_on_line = on_line
            label.anchors = [(1, 0.5), (1, 0.5)] if on_line else [(1, 1), (1, 1)]
            label.fill = pg.mkBrush(pg.getConfigOption("background") if on_line else None)
            label.updatePosition()
            label.update()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self._name_curves()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.bias_title.setText(self.tr("Neuron 2's bias b_in[1]:"))
        axis_label(self.bias_outputs_plot, "bottom", self.tr("bias b_in[1]"))
        axis_label(self.bias_mse_plot, "bottom", self.tr("bias b_in[1]"))
        plot_title(self.bias_outputs_plot, self.tr("each sentence's ŷ"))
        plot_title(self.bias_mse_plot, self.tr("MSE"))

    def _names(self, rows) -> str:
        return self.tr(", ").join(i18n.with_gloss(self.session.tokens[int(r)]) for r in rows)

    def refresh(self) -> None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        config, weights, inputs, targets = s.config, state.weights, state.inputs, state.targets
        bias = float(s.tensor("b_in")[BIAS_NEURON])
        position = int(round(max(lab.BIAS_RANGE[0], min(lab.BIAS_RANGE[1], bias)) * SLIDER_SCALE))
        if self.bias_slider.value() != position and not self.bias_slider.isSliderDown():
            with QSignalBlocker(self.bias_slider):
                self.bias_slider.setValue(position)
        set_spin_value(self.bias_spin, bias)
        for marker in self.bias_markers:
            marker.setValue(bias)
        # The sweep over b_in[1] does not depend on b_in[1] itself: dragging the bias only moves
        # the markers; the curves and the verdict are recomputed when anything else changes.
        others = np.array(weights["b_in"], dtype=np.float64)
        others[BIAS_NEURON] = 0.0
        key = (config, inputs.tobytes(), targets.tobytes(), s.tokens, others.tobytes(),
               *(weights[name].tobytes() for name in sorted(weights) if name != "b_in"))
        if key != self._sweep_key:
            self._sweep_key = key
            self._sweep_bias(config, weights, inputs, targets)
        set_text(self.flip_label, self._flip_text(bias))

    def _name_curves(self) -> None:
        """Each curve's legend entry: its sentence, glossed in English as in the table."""
        self._named = self.session.tokens
        for k, curve in enumerate(self.bias_curves[:len(self.session.tokens)]):
            name = i18n.with_gloss(self.session.tokens[k])
            if curve.name() != name:
                curve.opts["name"] = name
                self.bias_legend.removeItem(curve)
                self.bias_legend.addItem(curve, esc(name))       # legends are HTML: a token is text

    def _sweep_bias(self, config, weights, inputs, targets) -> None:
        """The curves over the bias range and the first sentence to flip: everything but b_in[1]."""
        s = self.session
        sweep = lab.bias_sweep(config, weights, inputs, targets, BIAS_NEURON)
        while len(self.bias_curves) < sweep.outputs.shape[1]:
            k = len(self.bias_curves)
            # later rows dashed: 好吃 and 不难吃 run on the same line and must both stay visible
            curve = SweepCurve(pen=pg.mkPen(ROW_COLOURS[k % len(ROW_COLOURS)], width=2.5,
                                            style=Qt.PenStyle.SolidLine if k < 2 else Qt.PenStyle.DashLine))
            self.bias_outputs_plot.addItem(curve)
            self.bias_curves.append(curve)
            self._named = None
        # every curve's bounds at once: the bias values', each sentence's ŷ and the MSE
        x_bounds, *y_bounds = _bounds(np.column_stack((sweep.values, sweep.outputs, sweep.mse)))
        for k, curve in enumerate(self.bias_curves):
            if k < sweep.outputs.shape[1]:
                # a curve the edit did not move: kept
                curve.show_points(sweep.values, sweep.outputs[:, k], (x_bounds, y_bounds[k]))
                if not curve.isVisible():
                    curve.show()
            elif curve.isVisible():
                curve.hide()
        if self._named != s.tokens:              # the legend's names: only for new sentences
            self._name_curves()
        self.bias_mse_curve.show_points(sweep.values, sweep.mse, (x_bounds, y_bounds[-1]))
        finite = sweep.outputs[np.isfinite(sweep.outputs)]
        if finite.size:                             # the dashed 0.5 line stays in view
            steady_y_range(self.bias_outputs_plot, min(finite.min(), lab.THRESHOLD), max(finite.max(), lab.THRESHOLD))
        finite = sweep.mse[np.isfinite(sweep.mse)]
        if finite.size:
            steady_y_range(self.bias_mse_plot, 0.0, finite.max())
        self._flip = lab.first_to_flip(config, weights, inputs, targets, BIAS_NEURON, sweep=sweep)
        self._never = lab.always_right(sweep, targets)

    def _flip_text(self, bias: float) -> str:
        """Which sentence goes wrong first; told once the learner has dragged the bias that far (the
        lesson asks it as a question first), and at once when there is nothing to find out."""
        s, flip = self.session, self._flip
        if flip is None:
            set_points(self.bias_flip_point, [], [])
            return self.tr("No sentence goes wrong for any bias from −1 to 0.")
        if flip.already_wrong:
            set_points(self.bias_flip_point, [], [])
            return self.tr("Already wrong at b = −1: <b>%1</b>.").replace("%1", esc(self._names(flip.rows)))
        if not lab.has_flipped(bias, flip):
            set_points(self.bias_flip_point, [], [])
            right = lab.count_right(s.trace["hook_resid_post"], s.state.targets)
            return self.tr("Drag the bias up from −1 and watch the curves cross the dashed 0.5 line. "
                           "At b = %1: %2 of %3 sentences right.").replace("%1", trimmed(bias, 4)) \
                .replace("%2", str(right)).replace("%3", str(len(s.tokens)))
        names = esc(self._names(flip.rows))
        text = (self.tr("As the bias rises from −1, <b>%1</b> goes wrong first, at <b>b = %2</b>: neuron 2 now fires "
                        "for it too, and its ŷ crosses 0.5.") if len(flip.rows) == 1 else
                self.tr("As the bias rises from −1, <b>%1</b> go wrong first, together at <b>b = %2</b>: neuron 2 now "
                        "fires for them too, and their ŷ crosses 0.5."))
        text = text.replace("%1", names).replace("%2", trimmed(flip.value, 4))
        set_points(self.bias_flip_point, [flip.value] * len(flip.rows), [lab.THRESHOLD] * len(flip.rows))
        if self._never.any():
            text += self.tr(" Right all the way to 0: %1.").replace("%1", esc(self._names(np.flatnonzero(self._never))))
        return text
