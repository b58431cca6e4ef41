"""Part ① of the two-neuron lab: a line ŷ = a·p + b·n + c, its MSE as one parameter moves, and
the MSE landscape over two of them."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QMargins, QRectF, QSignalBlocker, Qt
from PySide6.QtWidgets import (QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton, QScrollArea, QSlider,
                               QVBoxLayout, QWidget)

from app.explorer.plots.heatmap import MapImage  # drawn from 32-bit colour: see its docstring
from app.labs.xor.common import (FLOOR_COLOUR, POINT_COLOUR, SEQUENTIAL, SLIDER_SCALE, TEXT_PT, TICK_PT, axis_label,
                                 graphics, label, new_plot, plot_title, set_points, trimmed)
from app.labs.xor.state import LinearModel, TableFacts
from app.widgets.appearance import appearance
from app.widgets.spin import NumberSpin, session_spin, set_spin_value
from app.widgets.style import font, nice_limit
from core.labs import xor as lab

GRID_POINTS = 81                                      # the MSE landscape: 81×81 over −2…2
CURVE_POINTS = 161


class XorNaivePart(QWidget):
    """Sliders and spin boxes for a, b, c, a least-squares button, the MSE curve and landscape."""

    def __init__(self, session, linear: LinearModel, facts: TableFacts, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("xorNaivePage")
        self.session = session
        self.linear = linear
        self.facts = facts
        layout = self.page_layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 6, 4, 4)
        controls = QVBoxLayout()
        self.naive_hint = label("xorNaiveHint", 10)
        controls.addWidget(self.naive_hint)
        grid = self.controls_grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        self.sliders: dict[str, QSlider] = {}
        self.linear_spins: dict[str, NumberSpin] = {}
        low, high = lab.PARAMETER_RANGE
        for row, name in enumerate(lab.PARAMETERS):
            letter = QLabel(name)
            letter.setFont(font(13, bold=True))
            slider = QSlider(Qt.Orientation.Horizontal)
            slider.setObjectName(f"xorSlider{name.upper()}")
            slider.setRange(int(low * SLIDER_SCALE), int(high * SLIDER_SCALE))
            slider.setMinimumWidth(110)
            slider.valueChanged.connect(lambda position, n=name: self.linear.set(n, position / SLIDER_SCALE))
            spin = session_spin(f"xorSpin{name.upper()}", low, high, 0.05, session, points=TEXT_PT)
            spin.valueChanged.connect(lambda value, n=name: self.linear.set(n, float(value)))
            grid.addWidget(letter, row, 0)
            grid.addWidget(slider, row, 1)
            grid.addWidget(spin, row, 2)
            self.sliders[name], self.linear_spins[name] = slider, spin
        controls.addLayout(grid)
        self.least_squares_button = QPushButton()
        self.least_squares_button.setObjectName("xorLeastSquares")
        self.least_squares_button.setFont(font(TEXT_PT))
        self.least_squares_button.clicked.connect(lambda: self.linear.set_all(self.facts.best))
        controls.addWidget(self.least_squares_button)
        axes_row = QHBoxLayout()
        self.axes_title = label("xorLandscapeAxesTitle", 10, wrap=False)
        self.axes_combo = QComboBox()
        self.axes_combo.setObjectName("xorLandscapeAxes")
        self.axes_combo.setFont(font(TEXT_PT))
        for pair in ("ab", "ac", "bc"):                        # data: the x and y parameter
            self.axes_combo.addItem(f"{pair[0]}, {pair[1]}", pair)
        self.axes_combo.currentIndexChanged.connect(lambda _i: self.refresh_plots())
        axes_row.addWidget(self.axes_title)
        axes_row.addWidget(self.axes_combo, 1)
        controls.addLayout(axes_row)
        self.naive_note = label("xorNaiveNote", 10)
        controls.addWidget(self.naive_note)
        self.teaching_note = label("xorNaiveTeaching", 10)
        controls.addWidget(self.teaching_note)
        controls.addStretch(1)
        holder = QWidget()
        holder.setLayout(controls)
        self.controls = holder
        # the controls scroll on their own when a projector's screen is too short for them at
        # presentation size; the plots beside them keep the page's height
        self.controls_scroll = QScrollArea()
        self.controls_scroll.setObjectName("xorNaiveControls")
        self.controls_scroll.setWidget(holder)
        self.controls_scroll.setWidgetResizable(True)
        self.controls_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.controls_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._size_controls()
        appearance().changed.connect(self._size_controls)
        layout.addWidget(self.controls_scroll)

        self.curve_view = graphics("xorMseCurve")
        self.curve_plot = new_plot()
        self.curve_view.addItem(self.curve_plot)
        self.curve_item = self.curve_plot.plot([], [], pen=pg.mkPen("#0072B2", width=2.5))
        self.curve_point = pg.ScatterPlotItem(size=12, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#222222"))
        self.curve_plot.addItem(self.curve_point)
        self.floor_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(FLOOR_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
                                          label="", labelOpts={"position": 0.02, "color": FLOOR_COLOUR,
                                                               # from the left edge, where the curve is high:
                                                               # centred at 20 % it ran off a narrow plot
                                                               "anchors": [(0.0, 1.2), (0.0, 1.2)]})
        self.floor_line.label.setFont(font(10))
        self.curve_plot.addItem(self.floor_line)
        self.curve_plot.setXRange(low, high, padding=0.02)
        self.curve_limit = 0.0
        self._curve_key: tuple | None = None           # what the curve was computed from
        layout.addWidget(self.curve_view, 1)

        self.landscape_view = graphics("xorMseLandscape")
        self.landscape_view.ci.setContentsMargins(2, 8, 2, 8)      # room for the colour bar's end labels
        self.landscape_plot = new_plot()
        self.landscape_view.addItem(self.landscape_plot, 0, 0)
        self.landscape_image = MapImage()
        self.landscape_image.setLookupTable(SEQUENTIAL.getLookupTable(0.0, 1.0, 256))
        step = (high - low) / (GRID_POINTS - 1)
        self.landscape_rect = QRectF(low - step / 2, low - step / 2, high - low + step, high - low + step)
        self.landscape_plot.addItem(self.landscape_image)
        self.landscape_best = pg.ScatterPlotItem(size=16, symbol="star", brush=pg.mkBrush("#ffffff"),
                                                 pen=pg.mkPen("#222222", width=1.5))
        self.landscape_point = pg.ScatterPlotItem(size=12, brush=pg.mkBrush(POINT_COLOUR), pen=pg.mkPen("#ffffff", width=1.5))
        self.landscape_plot.addItem(self.landscape_best)
        self.landscape_plot.addItem(self.landscape_point)
        self.landscape_plot.setXRange(low, high, padding=0)
        self.landscape_plot.setYRange(low, high, padding=0)
        self.landscape_bar = pg.ColorBarItem(values=(0, 1), colorMap=SEQUENTIAL, interactive=False, width=12,
                                             colorMapMenu=False, pen="#888888")
        self.landscape_bar.axis.setTickFont(font(TICK_PT))
        self.landscape_bar.setImageItem(self.landscape_image)
        self.landscape_view.addItem(self.landscape_bar, 0, 1)
        self.landscape_levels = (0.0, 1.0)
        self._landscape_key: tuple | None = None       # what the image was computed from
        layout.addWidget(self.landscape_view, 1)
        self.retranslate()


    def _size_controls(self) -> None:
        """The controls' column and spin boxes at the zoom (their texts follow it: app/labs/fonts.py).
        In presentation mode the column drops what the lesson's caption says already (how to use
        the sliders, that p and n are teaching names): a projector's height holds the rest whole."""
        look = appearance()
        for note in (self.naive_hint, self.teaching_note):
            note.setVisible(not look.presenting)
        # and its rows stand closer (the page's margins too): at 1024×768 with 150 % zoom the
        # column still scrolled by 34–46 px
        tight = look.presenting
        self.controls.layout().setContentsMargins(QMargins(2, 0, 2, 0) if tight else QMargins(-1, -1, -1, -1))
        self.controls.layout().setSpacing(2 if tight else -1)
        self.controls_grid.setVerticalSpacing(1 if tight else -1)
        self.page_layout.setContentsMargins(*((4, 0, 4, 0) if tight else (4, 6, 4, 4)))
        for spin in self.linear_spins.values():
            spin.setFixedWidth(look.pixels(88))
        self.controls.setFixedWidth(look.pixels(250))
        self.controls_scroll.setFixedWidth(look.pixels(250) + self.controls_scroll.verticalScrollBar().sizeHint().width())
        self._fit_controls()

    def _fit_controls(self) -> None:
        """The controls' column at least as tall as its wrapped texts need: the page scrolls (it
        sits in a scroll area) rather than squeeze them."""
        layout = self.controls.layout()
        layout.invalidate()
        height = layout.totalHeightForWidth(self.controls.width())
        if height > 0:
            self.controls.setMinimumHeight(height)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._fit_controls()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.naive_hint.setText(self.tr("Drag a, b, c (or type exact values) and watch the MSE; "
                                        "or let least squares find the best line."))
        self.least_squares_button.setText(self.tr("Best fit (least squares)"))
        self.axes_title.setText(self.tr("Landscape over:"))
        self.naive_note.setText(self.tr("Landscape: ★ least squares, ● your a, b, c."))
        self.teaching_note.setText(self.tr("p and n are names given for teaching; in a real model no single dimension "
                                           "reads as “has 不” or “is positive”."))
        axis_label(self.curve_plot, "left", self.tr("MSE"))
        if hasattr(self, "controls"):
            self._fit_controls()

    def sync_widgets(self) -> None:
        """Sliders and spin boxes show the model's a, b, c (without echoing back)."""
        for name in lab.PARAMETERS:
            value = self.linear.value(name)
            slider = self.sliders[name]
            position = int(round(value * SLIDER_SCALE))
            if slider.value() != position and not slider.isSliderDown():
                with QSignalBlocker(slider):
                    slider.setValue(position)
            set_spin_value(self.linear_spins[name], value)

    def refresh(self) -> None:
        self.sync_widgets()
        self.refresh_plots()

    def refresh_plots(self) -> None:
        if self.facts.key is None:               # the table was never read: nothing to draw yet
            return
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        inputs, targets = state.inputs, state.targets
        model = self.linear.model
        best, best_mse = self.facts.best, self.facts.best_mse
        low, high = lab.PARAMETER_RANGE
        # the MSE along the last-touched parameter
        name = self.linear.last
        others = [n for n in lab.PARAMETERS if n != name]
        # The curve along a parameter, and the landscape over two, depend on the held ones only:
        # dragging the parameter itself moves the dots on them, and the curve, the image and the
        # colour bar are neither computed nor set again (a new image is rendered, and the whole
        # plot repainted, on every setImage).
        curve_key = (self.facts.key, name, tuple(model.value(n) for n in others))
        if curve_key != self._curve_key:
            self._curve_key = curve_key
            xs = np.linspace(low, high, CURVE_POINTS)
            curve = lab.linear_mse_curve(inputs, targets, model, name, xs)
            self.curve_item.setData(xs, curve)
            limit = nice_limit(float(np.max(curve)))
            if limit != self.curve_limit:
                self.curve_limit = limit
                self.curve_plot.setYRange(0, limit, padding=0.02)
        current = lab.linear_mse(inputs, targets, model)
        set_points(self.curve_point, [model.value(name)], [current])
        # what is held under the axis, not in the title: at 1024×768 the plot is narrower than
        # the whole sentence on one line (a wider title widened the plot past its view)
        plot_title(self.curve_plot, self.tr("MSE as %1 moves").replace("%1", name))
        axis_label(self.curve_plot, "bottom", self.tr("%1 (%2, %3 held)").replace("%1", name)
                   .replace("%2", others[0]).replace("%3", others[1]))
        if self.floor_line.value() != best_mse:
            self.floor_line.setValue(best_mse)
        floor_text = self.tr("floor %1").replace("%1", trimmed(best_mse))
        if self.floor_line.label.toPlainText() != floor_text:
            self.floor_line.label.setFormat(floor_text)
        # the landscape over two parameters
        x_name, y_name = self.axes_combo.currentData()           # e.g. "ab"
        held = next(n for n in lab.PARAMETERS if n not in (x_name, y_name))
        landscape_key = (self.facts.key, x_name, y_name, model.value(held))
        if landscape_key != self._landscape_key:
            self._landscape_key = landscape_key
            grid = np.linspace(low, high, GRID_POINTS)
            landscape = lab.linear_mse_landscape(inputs, targets, model, x_name, y_name, grid, grid)
            levels = (0.0, nice_limit(float(np.max(landscape))))
            new = self.landscape_image.image is None
            self.landscape_image.setImage(np.ascontiguousarray(landscape, dtype=np.float32), levels=levels)
            if new:
                self.landscape_image.setRect(self.landscape_rect)  # needs an image first; the grid's size never changes
            if levels != self.landscape_levels:
                self.landscape_levels = levels
                self.landscape_bar.setLevels(values=levels)
        set_points(self.landscape_best, [best.value(x_name)], [best.value(y_name)])
        set_points(self.landscape_point, [model.value(x_name)], [model.value(y_name)])
        plot_title(self.landscape_plot, self.tr("MSE (%1 = %2)").replace("%1", held)
                   .replace("%2", trimmed(model.value(held), 3)))
        axis_label(self.landscape_plot, "bottom", x_name)
        axis_label(self.landscape_plot, "left", y_name)
