"""Issue 13: a heatmap's cell numbers are painted by one item per map (NumbersItem), not one
pyqtgraph TextItem (a QGraphicsTextItem with its QTextDocument) per cell; the same pixels, the
same texts in the same cells and inks, and far less work per edit. Counts work, never time."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication, QGraphicsTextItem

from app.widgets.style import text_colours_on_map
from tests.app.helpers import make_session, show
from tests.app.plot_helpers import appearance_as, texts_of

BENCH_VALUES = [0.25 * ((step % 8) - 4) + 0.125 for step in range(16)]   # tools/bench.py's edit cycle


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine()).copy()


def text_items_as_before(heatmap) -> list[pg.TextItem]:
    """The numbers as the old CellNumbers drew them: a pg.TextItem per cell, anchored at its centre."""
    from app.explorer.plots import look
    numbers, item = heatmap.numbers, heatmap.numbers.item
    made = []
    for n, (text, ink) in enumerate(zip(item.texts, item.inks)):
        old = pg.TextItem(anchor=(0.5, 0.5))
        old.setFont(look.font())
        old.setZValue(10)
        old.setPos(n % item.columns + 0.5, n // item.columns + 0.5)
        old.setText(text)
        old.setColor(ink)
        numbers.plot.addItem(old, ignoreBounds=True)
        made.append(old)
    return made


@pytest.mark.parametrize("zoom, size, shape", [(1.0, (420, 260), (2, 3)), (1.0, (733, 311), (5, 7)),
                                               (1.0, (611, 283), (3, 5)), (1.5, (901, 437), (3, 6)),
                                               (1.25, (517, 389), (4, 4)), (2.0, (1211, 517), (2, 4))])
def test_the_numbers_paint_the_pixels_pyqtgraphs_text_items_painted(qtbot, qapp, zoom, size, shape):
    """Odd sizes put the cells' centres on fractions of a pixel; negative numbers, a masked cell's
    dash and non-finite marks; both inks. The figure with the new item equals, pixel for pixel,
    the figure with one pg.TextItem per cell in its place."""
    from app.explorer.plots import look
    from app.explorer.plots.heatmap import Heatmap
    with appearance_as(zoom=zoom):
        graphics = show(qtbot, pg.GraphicsLayoutWidget(), *size)
        heatmap = Heatmap(look.DIVERGING)
        graphics.addItem(heatmap.plot)
        values = np.random.default_rng(sum(shape)).uniform(-1.4, 1.4, shape)
        special = ["—", "nan", "inf", "−inf"]

        def texts(array):
            out = [f"{v:.2f}".replace("-", "−") for v in np.asarray(array).ravel()]
            for k, mark in enumerate(special[:len(out) // 3]):
                out[3 * k + 1] = mark
            return out

        heatmap.set_data(values, (-1.5, 1.5), texts)
        settle()
        shown = heatmap.numbers.shown()
        assert len(shown) == values.size and {number.ink for number in shown} == {"#111111", "#ffffff"}
        new = pixels(graphics.grab().toImage())
        heatmap.numbers.item.setVisible(False)
        old_items = text_items_as_before(heatmap)
        settle()
        old = pixels(graphics.grab().toImage())
        assert old.shape == new.shape
        assert np.array_equal(old, new), f"{int((old != new).sum())} bytes differ"
        heatmap.numbers.item.setVisible(True)                    # and without either: the numbers were drawn
        for item in old_items:
            heatmap.plot.removeItem(item)
        heatmap.numbers.wanted = False
        heatmap.numbers.fit()
        settle()
        assert (pixels(graphics.grab().toImage()) != new).any()
        graphics.close()


def hidden_panel(qtbot, size=(800, 450)):
    from app.explorer.plots import PlotsPanel
    session = make_session("r45-ffn.json")
    panel = show(qtbot, PlotsPanel(session), *size)
    panel.show_tab("hidden")
    settle()
    numbered = [heatmap for heatmap in panel.hidden_tab.maps.values() if heatmap.numbers.shown()]
    assert numbered
    return session, panel, numbered


def test_an_edit_paints_each_maps_numbers_once_with_no_text_document(qtbot, qapp, monkeypatch):
    """Each number was a pg.TextItem: a QGraphicsTextItem whose QTextDocument was laid out again at
    each new text, and painted item by item. Now a numbered map has one NumbersItem, painted once
    per repaint of the figure; an edit makes no graphics item, lays out no document, and prepares
    a text (QStaticText) only for a text not drawn before."""
    from app.explorer.plots import heatmap as heatmap_module
    from app.explorer.plots.heatmap import NumbersItem
    session, panel, numbered = hidden_panel(qtbot, (1000, 600))
    scene = panel.hidden_tab.graphics.scene()
    assert sum(isinstance(item, NumbersItem) for item in scene.items()) == len(numbered)
    assert not [item for item in scene.items() if isinstance(item, QGraphicsTextItem)
                and any(item.toPlainText() == number.text for h in numbered for number in h.numbers.shown())]
    assert not [item for item in scene.items() if isinstance(item, pg.TextItem)]
    items = len(scene.items())
    drawn, prepared = [], []
    plain_draw = QPainter.drawStaticText
    monkeypatch.setattr(QPainter, "drawStaticText", lambda painter, at, static: drawn.append(static.text()) or
                        plain_draw(painter, at, static))
    plain_static = heatmap_module.QStaticText
    monkeypatch.setattr(heatmap_module, "QStaticText", lambda *a: prepared.append(a) or plain_static(*a))
    for value in BENCH_VALUES[:8]:
        before = [set(heatmap.numbers.item.texts) for heatmap in numbered]
        prepared.clear()
        assert session.set_value("W_in", (0, 0), value)
        settle()
        drawn.clear()
        panel.hidden_tab.graphics.viewport().repaint()              # one paint of the figure: each number once
        assert sorted(drawn) == sorted(n.text for heatmap in numbered for n in heatmap.numbers.shown())
        new = sum(len(set(heatmap.numbers.item.texts) - old) for heatmap, old in zip(numbered, before))
        assert len(prepared) <= new                                 # (each map prepares its own texts)
        assert len(scene.items()) == items                          # no item made or dropped
    tokens = len(session.tokens)
    assert sum(len(heatmap.numbers.shown()) for heatmap in numbered) >= 2 * tokens * 6


def test_an_edit_shows_the_new_values_in_their_cells_and_inks(qtbot, qapp):
    """After each edit every shown number is its cell's value formatted as the map formats it,
    centred on its cell on screen, in the ink that reads on the cell's colour; the test helpers
    (and the readability walk) find the same numbers where they are drawn."""
    from tests.app.readability import _walk_scene
    session, panel, numbered = hidden_panel(qtbot)
    graphics = panel.hidden_tab.graphics
    for value in BENCH_VALUES[:5]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        for heatmap in numbered:
            numbers = heatmap.numbers
            rows, columns = numbers.values.shape
            texts = numbers.format(numbers.values)
            inks = text_colours_on_map(numbers.colour_map, numbers.colour_positions(numbers.values.ravel()))
            shown = numbers.shown()
            assert [(n.row, n.column) for n in shown] == [(r, c) for r in range(rows) for c in range(columns)]
            assert [n.text for n in shown] == texts and [n.ink for n in shown] == inks
            for number in shown:
                centre = heatmap.plot.vb.mapViewToScene(QPointF(number.column + 0.5, number.row + 0.5))
                assert abs(number.rect.center().x() - centre.x()) < 1e-6
                assert abs(number.rect.center().y() - centre.y()) < 1e-6
                assert number.rect.width() > 0 and number.rect.height() > 0
    cells = [t for t in texts_of(graphics) if t.kind == "cell"]
    assert sorted(t.text for t in cells) == sorted(n.text for h in numbered for n in h.numbers.shown())
    seen = Counter()
    assert _walk_scene(graphics, "plots", "test", seen) == []
    assert seen["plots"] >= len(cells)


def test_the_numbers_follow_the_zoom_a_resize_and_the_theme(qtbot, qapp):
    """The font follows the interface zoom (restyle); a cell too small hides the numbers and a
    bigger one shows them again; a theme change keeps them."""
    from app.explorer.plots import look
    session, panel, numbered = hidden_panel(qtbot, (1000, 600))
    heatmap = numbered[0]
    small = heatmap.numbers.item.text_font.pixelSize()
    with appearance_as(zoom=1.5, theme="dark"):
        settle()
        assert heatmap.numbers.item.text_font.pixelSize() == look.font().pixelSize() > small
        shown = heatmap.numbers.shown()
        assert [n.text for n in shown] in ([], heatmap.numbers.format(heatmap.numbers.values))
    settle()
    assert heatmap.numbers.item.text_font.pixelSize() == look.font().pixelSize()
    panel.resize(300, 200)
    settle()
    assert heatmap.numbers.shown() == [] or heatmap.numbers.fits([n.text for n in heatmap.numbers.shown()])
    panel.resize(1000, 600)
    settle()
    shown = heatmap.numbers.shown()
    assert [n.text for n in shown] == heatmap.numbers.format(heatmap.numbers.values)
