"""Issue 13, lesson R45's explorer steps: a Session edit does less per numbered heatmap (the
hidden-units maps) and per window, showing the same. Counts work, never time."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pyqtgraph.functions_qimage as pg_qimage
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from app.widgets.style import DIVERGING, text_colours_on_map
from tests.app.helpers import make_session, show

BENCH_VALUES = [0.25 * ((step % 8) - 4) + 0.125 for step in range(16)]   # tools/bench.py's edit cycle


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def hidden_panel(qtbot):
    from app.explorer.plots import PlotsPanel
    session = make_session("r45-ffn.json")
    panel = show(qtbot, PlotsPanel(session), 800, 450)
    panel.show_tab("hidden")
    settle()
    numbered = [heatmap for heatmap in panel.hidden_tab.maps.values() if heatmap.numbers.shown()]
    assert numbered
    return session, panel, numbered


def pixels(image: QImage) -> list[int]:
    return [image.pixel(x, y) for y in range(image.height()) for x in range(image.width())]


def test_a_map_renders_without_a_qt_colour_table_and_draws_pyqtgraphs_pixels(qapp, monkeypatch):
    """pyqtgraph rendered a colour-mapped matrix through an indexed image whose 256-entry colour
    table it made at every render (256 qRgb calls), then the map converted it to 32-bit colour.
    MapImage renders straight to 32-bit colour: the same pixels, no colour table."""
    from app.explorer.plots.heatmap import MapImage
    made = []
    plain = pg_qimage.try_make_qimage
    monkeypatch.setattr(pg_qimage, "try_make_qimage", lambda *a, **k: made.append(1) or plain(*a, **k))
    rng = np.random.default_rng(7)
    for shape in ((1, 6), (5, 7), (3, 3072), (20, 20)):
        values = (rng.standard_normal(shape) * 2).astype(np.float32)
        image = MapImage(axisOrder="row-major")
        image.setLookupTable(DIVERGING.getLookupTable(nPts=256, alpha=False, mode="byte"))
        image.setImage(values, levels=(-1.5, 1.5))
        image.render()
        assert made == [], shape                                     # no indexed image, no colour table
        assert image.qimage.format() == QImage.Format.Format_ARGB32_Premultiplied
        plain_item = pg.ImageItem(axisOrder="row-major")
        plain_item.setLookupTable(image.lut)
        plain_item.setImage(values, levels=image.levels)
        pg.ImageItem.render(plain_item)
        made.clear()
        reference = plain_item.qimage.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
        assert image.qimage.size() == reference.size()
        assert pixels(image.qimage) == pixels(reference), shape
    # a NaN goes pyqtgraph's way (transparent cells), as before
    values = np.array([[0.5, np.nan, -0.5]], dtype=np.float32)
    image = MapImage(axisOrder="row-major")
    image.setLookupTable(DIVERGING.getLookupTable(nPts=256, alpha=False, mode="byte"))
    image.setImage(values, levels=(-1.0, 1.0))
    image.render()
    assert made and image.qimage.pixelColor(1, 0).alpha() == 0


def test_an_edit_finds_the_ink_of_the_moved_cells_only(qtbot, qapp, monkeypatch):
    """Each cell's ink (dark or white on its colour) was found for every cell of a map at every
    edit, through the colour map; now only for the cells whose colour moved. The inks shown are
    those of every cell's colour. (The maps render without pyqtgraph's indexed image too.)"""
    from app.explorer.plots import heatmap as heatmap_module
    session, panel, numbered = hidden_panel(qtbot)
    asked, indexed = [], []
    plain = pg_qimage.try_make_qimage
    monkeypatch.setattr(pg_qimage, "try_make_qimage", lambda *a, **k: indexed.append(1) or plain(*a, **k))
    monkeypatch.setattr(heatmap_module, "text_colours_on_map",
                        lambda colour_map, positions: asked.append(len(positions)) or
                        text_colours_on_map(colour_map, positions))
    for value in BENCH_VALUES[:6]:
        asked.clear()
        assert session.set_value("W_in", (0, 0), value)           # moves unit h1 of every token
        settle()
        tokens = len(session.tokens)
        assert asked and all(count <= tokens for count in asked), asked
        for heatmap in numbered:
            numbers = heatmap.numbers
            inks = text_colours_on_map(numbers.colour_map, numbers.colour_positions(numbers.values.ravel()))
            assert [number.ink for number in numbers.shown()] == inks
            assert [number.text for number in numbers.shown()] == numbers.format(numbers.values)
    assert indexed == []                  # the maps (downsampled to their pixels) rendered as MapImage does


def test_an_edit_measures_no_number_again(qtbot, qapp, monkeypatch):
    """Whether the numbers fit their cells was measured with new font metrics, every text again,
    twice per edit; the advances are kept for the font size they were measured at."""
    from app.explorer.plots import heatmap as heatmap_module
    session, panel, numbered = hidden_panel(qtbot)
    made = []

    class Counted(heatmap_module.QFontMetricsF):
        def __init__(self, *args):
            made.append(1)
            super().__init__(*args)

    monkeypatch.setattr(heatmap_module, "QFontMetricsF", Counted)
    for value in BENCH_VALUES[:6]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
        for heatmap in numbered:
            assert heatmap.numbers.visible and heatmap.numbers.fits(heatmap.numbers.format(heatmap.numbers.values))
    assert made == []


def test_an_edit_renames_the_undo_action_once_and_the_redo_action_not_at_all(qtbot, qapp):
    """The stack says after each edit that its undo and its redo texts changed; both actions were
    named again twice (four texts set). Now each action is named when its own text changes, and
    only to a new text. The names stay right through undo and redo."""
    from PySide6.QtWidgets import QWidget

    from app.undo_actions import UndoRedoActions
    session = make_session()
    window = QWidget()
    qtbot.addWidget(window)
    actions = UndoRedoActions(session.undo_stack, window)
    named = []
    for action in (actions.undo, actions.redo):
        plain = action.setText
        action.setText = lambda text, plain=plain, action=action: named.append(action.objectName()) or plain(text)
    for value in BENCH_VALUES[:4]:
        named.clear()
        assert session.set_value("W_in", (0, 0), value)
        assert named == ["actionUndo"], named
        assert actions.undo.text() == "Undo " + session.undo_stack.undoText()
        assert actions.redo.text() == "Redo"
    session.undo_stack.undo()
    assert actions.undo.text() == "Undo " + session.undo_stack.undoText()
    assert actions.redo.text() == "Redo " + session.undo_stack.redoText() != "Redo "
    session.undo_stack.redo()
    assert actions.redo.text() == "Redo" and actions.undo.text() == "Undo " + session.undo_stack.undoText()
