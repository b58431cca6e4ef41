"""Issue 13: an edit repaints only the views whose numbers it changed.

At lesson sizes the Session reruns the full forward, and an array the edit left as it was is
still the very array drawn before (app/live_block.py): the views that skip unchanged arrays then
skip it, and paint nothing."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from tests.app.helpers import make_session, show


class Paints(QObject):
    def __init__(self, widgets):
        super().__init__()
        self.count = 0
        for widget in widgets:
            widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def test_an_ffn_edit_does_not_repaint_the_attention_maps(qtbot, qapp):
    from app.explorer.plots import PlotsPanel
    session = make_session()
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("attention")
    settle()
    view = panel.attention_tab.graphics
    paints = Paints([view.viewport()])
    image = panel.pattern_image(0)
    shown = np.asarray(image.image).copy()
    for value in (0.5, -1.25, 2.0):
        paints.count = 0
        assert session.set_value("W_in", (0, 0), value)
        settle()
        assert paints.count == 0                     # the patterns did not change: nothing painted
        np.testing.assert_array_equal(np.asarray(image.image), shown)
    assert session.set_value("W_Q", (0, 0, 0), 1.5)   # the attention's own weight: drawn anew
    settle()
    assert paints.count >= 1
    np.testing.assert_array_equal(np.asarray(panel.pattern_image(0).image),
                                  session.trace["attn.hook_pattern"][0].astype(np.float32))


def test_a_residual_edit_sets_only_the_bars_of_the_stages_it_changed(qtbot, qapp):
    from app.explorer.plots import PlotsPanel
    session = make_session()
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("residual")
    settle()
    bars = panel.residual_bars
    stages = panel.residual_tab._stages()
    token = session.selected_token
    heights = [bar.opts["height"] for bar in bars[:len(stages)]]
    assert session.set_value("W_in", (0, 0), 1.75)       # the FFN: the stages from ln2's input on
    settle()
    for n, hook in enumerate(stages):
        kept = bars[n].opts["height"] is heights[n]
        changed = not np.array_equal(session.trace[hook][token], heights[n])
        assert kept != changed, hook                       # set again exactly when its numbers changed
        np.testing.assert_array_equal(bars[n].opts["height"], session.trace[hook][token])
    assert bars[0].opts["height"] is heights[0]            # the input x: untouched


def test_picking_another_neuron_in_the_model_explorer_part_paints_once(qtbot, tmp_path):
    """The knock-out button's text follows the neuron: its relayout stays in the part's button
    row (a SizeFence), where it used to climb to the window one level per event-loop pass and
    repaint the part's top half each time (4 paint passes per pick)."""
    from PySide6.QtWidgets import QPushButton, QSpinBox

    from app.labs.model import ModelLabPanel
    from tests.core.test_model import synthetic_arrays
    path = tmp_path / "tiny.npz"
    np.savez(path, **synthetic_arrays())
    session = make_session()
    panel = ModelLabPanel(session, model_path=path)
    panel.set_focus("explorer")
    show(qtbot, panel, 1000, 700)
    settle()
    spin = panel.findChild(QSpinBox, "modelExplorerNeuron")
    knock = panel.findChild(QPushButton, "modelKnockOut")
    passes = Paints([panel])
    for neuron in (3, 17, 9, 21):
        passes.count = 0
        spin.setValue(neuron)
        settle()
        assert knock.text() == f"Knock out neuron #{neuron} of layer {panel.state.layer}"
        assert passes.count == 1                           # one paint pass, not one per layout level
        assert knock.geometry().right() <= knock.parentWidget().width()     # whole, laid out
    panel.close()


def test_an_edit_in_the_same_room_arranges_no_plot_again(qtbot, qapp, monkeypatch):
    """The hidden-units and attention tabs choose their grid and wrap their titles for the room
    they have: an edit keeps the room, so nothing is measured again; a resize is."""
    from app.explorer.plots import PlotsPanel
    session = make_session()
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    for name, tab, size in (("hidden", panel.hidden_tab, (700, 420)), ("attention", panel.attention_tab, (820, 470))):
        panel.show_tab(name)
        settle()
        calls = []
        arrange = tab._arrange
        monkeypatch.setattr(tab, "_arrange", lambda *args, arrange=arrange: calls.append(args) or arrange(*args))
        assert session.set_value("W_in", (0, 1), 1.5)
        assert session.set_value("W_Q", (0, 0, 1), -0.75)
        settle()
        assert calls == [], name
        panel.resize(*size)
        settle()
        assert calls, name                                   # another room: arranged again
    np.testing.assert_array_equal(np.asarray(panel.pre_image.image),
                                  session.trace["mlp.hook_pre"].astype(np.float32))


def test_a_map_is_painted_from_a_premultiplied_image_with_the_same_pixels(qtbot, qapp):
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from app.explorer.plots import look
    from app.explorer.plots.heatmap import MapImage
    values = np.array([[-1.0, 0.0, 0.5], [np.nan, 2.0, -0.25]], dtype=np.float32)

    def painted(item):
        item.setImage(values, levels=(-1.0, 1.0))
        item.setLookupTable(look.SEQUENTIAL.getLookupTable(nPts=256))
        canvas = QImage(120, 80, QImage.Format.Format_ARGB32_Premultiplied)
        canvas.fill(0xFF808080)
        painter = QPainter(canvas)
        painter.scale(40, 40)
        item.paint(painter)
        painter.end()
        return item, canvas

    ours, shown = painted(MapImage(axisOrder="row-major"))
    _plain, expected = painted(pg.ImageItem(axisOrder="row-major"))
    assert ours.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
    assert shown == expected
    assert QRectF(0, 0, 3, 2) == ours.boundingRect()
