"""The lab plots' items work out their bounding boxes once per change, not on every paint.

Qt's scene asks every item's boundingRect on every paint; pyqtgraph's axis, scatter and text
items work it out afresh on each ask (the scatter through the device transform). The lab's
subclasses (TickStripAxis, SteadyScatter, BoxedText in app/labs/xor/common.py; SteadyBars in
app/explorer/plots/common.py) keep it until what it depends on changes. Counted here: pyqtgraph's
own computation, which the subclasses call when they work it out. A repaint where nothing moved
calls it no more; after each change (data, text, font, view range, resize, style, grid, spot size)
the kept box is the one pyqtgraph works out afresh, and the plot's pixels are those of a paint
that kept nothing.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QFont

from app.explorer.plots.common import SteadyBars
from app.labs.xor.common import BoxedText, SteadyScatter, TickStripAxis, graphics, new_plot

pytestmark = pytest.mark.widget

PG_RECT = {"axis": pg.AxisItem.boundingRect, "scatter": pg.ScatterPlotItem.boundingRect,
           "text": pg.TextItem.boundingRect, "bars": pg.BarGraphItem.boundingRect}


@pytest.fixture
def counted(monkeypatch):
    """How often pyqtgraph's own boundingRect ran, per kind, and how often the scatter found its
    points in view (its paint's costly part)."""
    counts = Counter()
    for kind, (cls, name) in {"axis": (pg.AxisItem, "boundingRect"), "scatter": (pg.ScatterPlotItem, "boundingRect"),
                              "text": (pg.TextItem, "boundingRect"), "bars": (pg.BarGraphItem, "boundingRect"),
                              "mask": (pg.ScatterPlotItem, "_maskAt")}.items():
        original = getattr(cls, name)

        def counting(self, *args, _original=original, _kind=kind):
            counts[_kind] += 1
            return _original(self, *args)
        monkeypatch.setattr(cls, name, counting)
    return counts


@pytest.fixture
def painted(monkeypatch):
    """How often each lab item's paint ran (patched before any item exists: PySide may keep the
    Python method it found for an item's first call)."""
    counts = Counter()
    for cls in (SteadyScatter, BoxedText, TickStripAxis):
        original = cls.paint

        def counting(self, *args, _original=original, _name=cls.__name__):
            counts[_name] += 1
            return _original(self, *args)
        monkeypatch.setattr(cls, "paint", counting)
    return counts


@pytest.fixture
def figure(qtbot, counted, painted):
    """One lab plot as the neuron maps have it: axes, four corner points, four boxed labels
    (made after the counting is in place)."""
    view = graphics("boundsFigure")
    plot = new_plot("a map")
    points = SteadyScatter(size=11, brush=pg.mkBrush("#ffffff"), pen=pg.mkPen("#111111", width=2))
    plot.addItem(points)
    points.setData([0, 1, 0, 1], [0, 0, 1, 1])
    labels = []
    for k, (x, y) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
        label = BoxedText(anchor=(0.5, 1.3), color="#111111", fill=pg.mkBrush(255, 255, 255, 200))
        label.setText(f"s{k} 0.{k}")
        label.setPos(x, y)
        plot.addItem(label)
        labels.append(label)
    plot.setXRange(-0.1, 1.1, padding=0.02)
    plot.setYRange(-0.1, 1.1, padding=0.02)
    view.addItem(plot)
    view.resize(420, 360)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    repaint(view)
    return view, plot, points, labels


def repaint(view) -> None:
    """Deliver what is pending, then paint the whole view now."""
    from PySide6.QtWidgets import QApplication
    for _ in range(3):
        QApplication.processEvents()
    view.viewport().repaint()


def painted_counts(view, counts) -> Counter:
    counts.clear()
    repaint(view)
    return Counter(counts)


def assert_fresh(plot, points, labels) -> None:
    """Every kept box is the one pyqtgraph works out now."""
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        assert axis.boundingRect() == PG_RECT["axis"](axis), side
    assert points.boundingRect() == PG_RECT["scatter"](points)
    for label in labels:
        assert label.boundingRect() == PG_RECT["text"](label)


def assert_same_pixels_as_uncached(view, plot, points, labels) -> None:
    """The view's pixels are those of a paint with nothing kept."""
    repaint(view)
    kept = view.grab().toImage()
    for axis in (plot.getAxis("left"), plot.getAxis("bottom")):
        axis._kept_rect = None
    points._kept_rect = points._replay = None
    for label in labels:
        label._kept_rect = None
    view.viewport().repaint()
    assert view.grab().toImage() == kept


def test_a_repaint_where_nothing_moved_works_out_no_bounding_box(figure, counted):
    view, plot, points, labels = figure
    painted_counts(view, counted)                       # what the first paints left to do
    counts = painted_counts(view, counted)
    assert counts["axis"] == counts["scatter"] == counts["text"] == 0, counts
    assert counts["mask"] == 0, counts                  # the scatter's symbols drawn as last time
    assert_fresh(plot, points, labels)


def test_a_repaint_paints_the_items(figure, painted):
    """The repaint above does reach the items (their paint runs): the counts are of a real paint."""
    view, _plot, _points, _labels = figure
    repaint(view)
    painted.clear()
    repaint(view)
    assert painted["SteadyScatter"] == 1 and painted["BoxedText"] == 4 and painted["TickStripAxis"] == 2, painted


@pytest.mark.parametrize("change", ["data", "text", "font", "anchor", "range", "resize", "tick length", "grid",
                                    "spot size", "pen"])
def test_the_boxes_follow_each_change(figure, counted, change):
    view, plot, points, labels = figure
    painted_counts(view, counted)
    before = {"axis": plot.getAxis("left").boundingRect(), "scatter": points.boundingRect(),
              "text": labels[0].boundingRect()}
    if change == "data":
        points.setData([0.2, 0.9, 0.1, 0.8], [0.1, 0.3, 0.7, 0.95])
    elif change == "text":
        labels[0].setText("a much longer sentence 0.123")
    elif change == "font":
        font = QFont(labels[0].textItem.font())
        font.setPointSizeF(font.pointSizeF() * 1.6)
        labels[0].setFont(font)
    elif change == "anchor":
        labels[0].setAnchor((0.0, -0.3))
    elif change == "range":
        plot.setXRange(-0.5, 1.5, padding=0)
        plot.setYRange(-0.3, 2.0, padding=0)
    elif change == "resize":
        view.resize(300, 500)
    elif change == "tick length":
        plot.getAxis("left").setStyle(tickLength=-12)
    elif change == "grid":
        plot.getAxis("left").setGrid(128)
    elif change == "spot size":
        points.setSize(24)
    elif change == "pen":
        points.setPen(pg.mkPen("#111111", width=6))
    counts = painted_counts(view, counted)
    after = {"axis": plot.getAxis("left").boundingRect(), "scatter": points.boundingRect(),
             "text": labels[0].boundingRect()}
    moved = {kind for kind in before if after[kind] != before[kind]}
    expected = {"data": {"scatter"}, "text": {"text"}, "font": {"text"}, "anchor": {"text"},
                "range": {"scatter"}, "resize": {"axis", "scatter"}, "tick length": {"axis"},
                "grid": {"axis"}, "spot size": {"scatter"}, "pen": {"scatter"}}[change]
    assert expected <= moved, (change, moved)           # the change does move these boxes …
    for kind in expected:
        assert counts[kind] >= 1, (change, counts)      # … so they were worked out again
    assert_fresh(plot, points, labels)
    assert_same_pixels_as_uncached(view, plot, points, labels)
    counts = painted_counts(view, counted)              # and then kept again (an axis with a grid
    if change == "grid":                                # reaches over the linked view: not kept)
        del counts["axis"]
    assert counts["axis"] == counts["scatter"] == counts["text"] == counts["mask"] == 0, (change, counts)


def test_steady_bars_work_out_their_box_once_per_change(qtbot, counted):
    """The residual stream's bars (made after the counting is in place)."""
    view = graphics("boundsBars")
    plot = new_plot()
    bars = SteadyBars(x=np.arange(4), height=np.array([1.0, -2.0, 0.5, 3.0]), width=0.6,
                      brush="#0072B2", pen=pg.mkPen("#222222", width=3))
    plot.addItem(bars)
    view.addItem(plot)
    view.resize(360, 300)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    painted_counts(view, counted)
    assert painted_counts(view, counted)["bars"] == 0
    for change in (lambda: bars.setOpts(height=np.array([4.0, -1.0, 0.5, 2.0])),
                   lambda: plot.setYRange(-6, 6, padding=0), lambda: view.resize(500, 420)):
        before = bars.boundingRect()
        change()
        counts = painted_counts(view, counted)
        assert counts["bars"] >= 1
        assert bars.boundingRect() == PG_RECT["bars"](bars) != before
        assert painted_counts(view, counted)["bars"] == 0
