"""Issue 13: lesson C4's labs do on an edit only the work the edit needs. Dragging one of the
line's a, b, c moves the dots on the MSE curve and landscape, and computes and draws neither
again unless a held parameter moved; the FFN page's scale slider repaints its number without
re-laying out the page. What is shown stays what core computes. Counted, never timed."""
import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFont, QImage
from PySide6.QtWidgets import QApplication, QLabel, QSlider

from app.explorer.plots.heatmap import MapImage
from app.labs.xor.common import SLIDER_SCALE, trimmed
from app.labs.xor.naive import CURVE_POINTS, GRID_POINTS
from core.labs import xor as lab
from core.numbers import format_number
from tests.app.helpers import count_calls
from tests.app.test_ffn_page import lab as ffn_lab  # noqa: F401 (the fixture: the FFN page on the XOR block)
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)


def settle():
    for _ in range(3):
        QApplication.instance().processEvents()


def assert_naive_plots_show(session, part):
    """The curve, the landscape and both dots are core's for the line's a, b, c now."""
    state, model = session.state, part.linear.model
    low, high = lab.PARAMETER_RANGE
    name = part.linear.last
    xs = np.linspace(low, high, CURVE_POINTS)
    np.testing.assert_array_equal(part.curve_item.yData, lab.linear_mse_curve(state.inputs, state.targets, model,
                                                                              name, xs))
    dot_x, dot_y = part.curve_point.getData()
    assert list(dot_x) == [model.value(name)]
    assert list(dot_y) == [lab.linear_mse(state.inputs, state.targets, model)]
    x_name, y_name = part.axes_combo.currentData()
    grid = np.linspace(low, high, GRID_POINTS)
    landscape = lab.linear_mse_landscape(state.inputs, state.targets, model, x_name, y_name, grid, grid)
    np.testing.assert_array_equal(part.landscape_image.image, landscape.astype(np.float32))
    dot_x, dot_y = part.landscape_point.getData()
    assert (list(dot_x), list(dot_y)) == ([model.value(x_name)], [model.value(y_name)])


def test_dragging_a_parameter_moves_the_dots_and_draws_nothing_else_again(lab_panel, monkeypatch):
    session, panel = lab_panel
    panel.set_focus("naive")
    settle()
    part = panel.part("naive")
    assert part.axes_combo.currentData() == "ab"                  # the landscape over a and b, c held
    slider_a, slider_c = panel.findChild(QSlider, "xorSliderA"), panel.findChild(QSlider, "xorSliderC")
    slider_a.setValue(slider_a.value() + 7)                       # a is the parameter the curve follows
    settle()
    renders = count_calls(monkeypatch, MapImage, "render")       # (the lab's maps: MapImage renders itself)
    images = count_calls(monkeypatch, pg.ImageItem, "setImage")
    curves = count_calls(monkeypatch, pg.PlotDataItem, "setData")
    for step in (10, -25, 40, 3):
        slider_a.setValue(slider_a.value() + step)
        settle()
        assert part.linear.value("a") == slider_a.value() / SLIDER_SCALE
        assert_naive_plots_show(session, part)
    # a moved: the curve along a and the landscape over a, b (c held) are as they were
    assert images == [] and renders == [] and curves == []
    # c is held on both: moving it computes and draws both again, once an edit
    slider_c.setValue(slider_c.value() + 20)
    settle()
    assert len(images) == 1 and len(renders) == 1
    assert part.linear.last == "c"
    assert_naive_plots_show(session, part)


class Counter(QObject):
    def __init__(self, kind):
        super().__init__()
        self.kind, self.count = kind, 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == self.kind:
            self.count += 1
        return False


def test_the_scale_slider_repaints_its_number_without_re_laying_out_the_page(qtbot, ffn_lab):
    _, panel = ffn_lab
    panel.set_focus("misconceptions")
    settle()
    part = panel.misconceptions
    slider = panel.findChild(QSlider, "ffnScaleFirst")
    value = panel.findChild(QLabel, "ffnScaleValue")
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Left)
    settle()
    layouts = Counter(QEvent.Type.LayoutRequest)
    part.installEventFilter(layouts)
    place = value.geometry()
    for key in (Qt.Key.Key_Left,) * 3 + (Qt.Key.Key_Right,) * 9:
        qtbot.keyClick(slider, key)
        settle()
        assert value.text() == "s = " + format_number(float(part.result.scales[slider.value()]), 1)
        assert value.geometry() == place
        # the whole number is shown: the label is as large as a plain label would ask for
        twin = QLabel(value.text())
        twin.setFont(value.font())
        assert twin.sizeHint().width() <= value.width() and twin.sizeHint().height() == value.height()
    part.removeEventFilter(layouts)
    assert layouts.count == 0
    # a larger font (the zoom): the label grows with its text, and shrinks back
    size = value.size()
    bigger = QFont(value.font())
    bigger.setPointSizeF(value.font().pointSizeF() * 2.5)
    value.setFont(bigger)
    twin = QLabel(value.text())
    twin.setFont(bigger)
    assert value.width() >= twin.sizeHint().width() > size.width() and value.height() == twin.sizeHint().height()
    smaller = QFont(bigger)
    smaller.setPointSizeF(bigger.pointSizeF() / 2.5)
    value.setFont(smaller)
    assert value.size() == size


def test_the_heatmaps_are_drawn_from_32_bit_pictures_of_the_same_colours(lab_panel):
    """Qt draws an 8-bit indexed picture scaled and flipped through its slow path, looking every
    pixel up in the colour table on every paint: the maps' pictures are 32-bit, pixel for pixel
    the colours pyqtgraph's indexed picture has."""
    session, panel = lab_panel
    images = []
    for part, name in (("naive", "landscape_image"), ("neurons", "neuron_images")):
        panel.set_focus(part)
        settle()
        found = getattr(panel.part(part), name)
        images += found if isinstance(found, list) else [found]
    assert session.set_value("W_in", (0, 0), 0.625)
    settle()
    assert len(images) == 3
    for image in images:
        assert image.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
        plain = pg.ImageItem()
        plain.setLookupTable(image.lut)
        plain.setImage(image.image, levels=image.levels)
        plain.render()
        assert plain.qimage.format() == QImage.Format.Format_Indexed8          # what pyqtgraph makes
        assert plain.qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied) == image.qimage


def test_the_neuron_maps_boxes_are_filled_as_whole_pixel_rectangles(lab_panel, monkeypatch):
    """pyqtgraph fills a label's translucent box as an antialiased polygon, which Qt draws through
    its slow path in a clipped repaint (about 0.2 ms a box, four on every edit). The boxes are
    filled as rectangles of whole pixels, in the same colour, and the labels' texts still show."""
    from PySide6.QtGui import QPainter
    session, panel = lab_panel
    panel.set_focus("neurons")
    settle()
    part = panel.part("neurons")
    polygons = count_calls(monkeypatch, QPainter, "drawPolygon")
    rectangles = count_calls(monkeypatch, QPainter, "fillRect")
    assert session.set_value("W_in", (0, 0), 0.625)
    settle()
    view = part.findChild(pg.GraphicsLayoutWidget, "xorNeuronMaps")
    picture = view.grab().toImage()
    labels = [item for row in part.map_labels for item in row if item.isVisible()]
    assert len(labels) == 8 and polygons == []                   # two maps, four sentences each
    assert len(rectangles) >= len(labels)
    hidden = session.trace["mlp.hook_post"]
    for j, row in enumerate(part.map_labels):
        for k, item in enumerate(row[:len(session.tokens)]):
            assert item.toPlainText().startswith(f"{session.tokens[k]} {trimmed(hidden[k, j], 3)}")
    for item in labels:                                          # just inside each box's corners: the box's white
        box = view.mapFromScene(item.mapToScene(item.textItem.mapRectToParent(item.textItem.boundingRect())))
        rect = box.boundingRect()
        for x, y in ((rect.left() + 2, rect.top() + 2), (rect.right() - 2, rect.bottom() - 2)):
            assert picture.pixelColor(x, y).lightness() > 200, (item.toPlainText(), x, y)
