"""Issue 13, the block diagram's share of an edit: a number node does Qt work only for the cells
whose text or colour changed, reads nothing back from its items, places a number again only when
its size changed, and measures a cell's candidate texts once per font. The drawing is the one a
fresh diagram of the same trace draws. Counts work and compares pixels, never time."""
from __future__ import annotations

from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QGraphicsSimpleTextItem

from tests.app.helpers import count_calls, make_session, show

BENCH_VALUES = [0.25 * ((step % 8) - 4) + 0.125 for step in range(16)]   # tools/bench.py's edit cycle


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def diagram(qtbot, scenario: str = "r45-ffn.json"):
    from app.explorer.dataflow import DataflowView
    session = make_session(scenario)
    view = show(qtbot, DataflowView(session), 900, 500)
    settle()
    return session, view


def number_nodes(view):
    from app.explorer.dataflow_items import NumberNode
    nodes = [node for node in view.flow.layout.nodes.values() if isinstance(node, NumberNode)]
    assert nodes
    return nodes


def rendered(scene) -> QImage:
    rect = scene.sceneRect()
    image = QImage(int(rect.width()), int(rect.height()), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
    scene.render(painter, image.rect().toRectF(), rect)
    painter.end()
    return image


def test_an_edit_reads_no_cell_back_and_places_only_numbers_whose_size_changed(qtbot, qapp, monkeypatch):
    """Each changed cell read its text and its brush back from Qt, and placed its text again after
    every new text (digits are as wide as each other: the place rarely moves). Now a node keeps
    what it shows; the texts are the values' and each sits in its cell's centre."""
    from app.explorer.dataflow_style import compact_number
    session, view = diagram(qtbot)
    nodes = number_nodes(view)
    texts_read = count_calls(monkeypatch, QGraphicsSimpleTextItem, "text")
    brushes_read = count_calls(monkeypatch, QGraphicsRectItem, "brush")
    placed = count_calls(monkeypatch, QGraphicsSimpleTextItem, "setPos")
    set_texts = count_calls(monkeypatch, QGraphicsSimpleTextItem, "setText")
    for value in BENCH_VALUES[:8]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    assert len(set_texts) >= 8                                  # (the edits changed numbers)
    assert texts_read == [] and brushes_read == []
    assert len(placed) < len(set_texts) / 2, (len(placed), len(set_texts))
    monkeypatch.undo()
    token = view.flow._token()
    for node in nodes:
        array = session.trace[node.hook]
        row = array[view.flow._head(), token] if array.ndim == 3 else array[token]
        for value, text, cell in zip(row, node.texts, node.cells):
            assert text.text() == compact_number(float(value), node._room, QFontMetricsF(view.flow.geometry.number))
            centre, box = cell.rect().center(), text.boundingRect()
            assert text.pos().x() == centre.x() - box.width() / 2 and text.pos().y() == centre.y() - box.height() / 2


def test_an_edit_sets_nothing_on_cells_whose_number_and_colour_stayed(qtbot, qapp, monkeypatch):
    """A recomputed node whose numbers moved only in digits it does not show: no text, brush or
    place is set on its cells (only the cells whose text or tint changed get Qt calls)."""
    session, view = diagram(qtbot)
    assert session.set_value("W_in", (0, 0), 0.5)
    settle()
    set_texts = count_calls(monkeypatch, QGraphicsSimpleTextItem, "setText")
    brushes = count_calls(monkeypatch, QGraphicsRectItem, "setBrush")
    assert session.set_value("W_in", (0, 0), 0.5 + 1e-9)        # every recomputed number moves a little
    settle()
    assert set_texts == [] and brushes == []


def test_a_large_numbers_candidate_texts_are_measured_once_per_font(qtbot, qapp, monkeypatch):
    """A value of 10 or more is fitted to its cell by measuring its candidate texts (compact_number);
    each text's width is measured once per font, not at every edit that shows it again."""
    session, view = diagram(qtbot)
    measured = count_calls(monkeypatch, QFontMetricsF, "horizontalAdvance")
    for step in range(6):
        assert session.set_value("W_in", (0, 0), 40.0 if step % 2 else 30.0)
        settle()
        if step == 1:
            first = len(measured)
    assert first > 0                                            # (the big values were measured once …)
    assert len(measured) == first                               # … and never again
    shown = [text.text() for node in number_nodes(view) for text in node.texts]
    assert any(abs(float(text.replace("−", "-"))) >= 10 for text in shown)      # (big numbers were shown)


def test_a_diagram_after_edits_draws_what_a_fresh_one_draws(qtbot, qapp):
    """The numbers an edit sets (without reading back or placing again what stayed) give the same
    pixels as a diagram drawn anew from the same trace, through widths that change (signs, big
    numbers) and back."""
    from app.explorer.dataflow import DataflowView
    session, view = diagram(qtbot)
    for value in BENCH_VALUES[:5] + [35.0, -0.75, 1e6, 0.125]:
        assert session.set_value("W_in", (0, 0), value)
        settle()
    fresh = show(qtbot, DataflowView(session), 900, 500)
    settle()
    fresh.flow._limits.update(view.flow._limits)           # (limits only widen: the fresh one's, as wide)
    fresh.flow._drawn.clear()
    fresh.flow.sync_selection()
    assert rendered(view.flow) == rendered(fresh.flow)
