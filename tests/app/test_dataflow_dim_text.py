"""Issue 13: a dimmed node's numbers are drawn on Qt's fast text path. Under a painter opacity below
1 Qt draws every glyph through spans (with Qt's raster thread pool, about 60 µs a number against
5; a lesson step that dims half the diagram spent a fifth of its edit there). A text in a dimmed node
(or edge) now ignores the node's opacity and is drawn in its colour made as transparent, to the
same pixels. Checked by structure and by pixels, never by time."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem

from app.explorer.dataflow_style import DIMMED, _FADE, _INK
from tests.app.test_dataflow_edit_work import diagram, settle


def texts(view) -> list[QGraphicsSimpleTextItem]:
    return [item for item in view.scene().items() if isinstance(item, QGraphicsSimpleTextItem) and item.isVisible()]


def pixels(view) -> np.ndarray:
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine()).copy()


def as_before(view) -> None:
    """Draw the dimmed texts as they were drawn: through their node's opacity, in their own colour."""
    for item in texts(view):
        if item.data(_FADE) is not None:
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, False)
            item.setBrush(item.data(_INK))
    settle()


def test_dimmed_texts_are_drawn_at_full_painter_opacity_in_a_transparent_colour(qtbot):
    session, view = diagram(qtbot)
    view.set_highlight({"mlp.hook_post", "hook_mlp_out"})
    settle()
    dimmed = [item for item in texts(view) if item.parentItem() is not None
              and any(parent.opacity() < 1.0 for parent in _ancestors(item))]
    assert len(dimmed) >= 10                                   # most of the diagram is dimmed
    for item in dimmed:
        assert item.effectiveOpacity() == 1.0                  # drawn without a painter opacity …
        assert item.brush().color().alphaF() < 0.25            # … in its colour made transparent
    assert session.set_value("W_in", (0, 0), -1.75)            # new numbers, new inks, still dimmed
    settle()
    assert all(item.effectiveOpacity() == 1.0 and item.brush().color().alphaF() < 0.25 for item in dimmed)
    view.set_highlight(None)                                   # nothing dimmed: their own colours
    settle()
    for item in dimmed:
        assert item.effectiveOpacity() == 1.0 and item.brush().color() == item.data(_INK)
        assert item.brush().color().alphaF() > 0.5


def test_the_dimmed_diagram_looks_as_it_did(qtbot):
    session, view = diagram(qtbot)
    for hooks, value in (({"mlp.hook_post"}, None), ({"hook_resid_mid", "hook_mlp_out"}, -1.25), (None, 0.5)):
        view.set_highlight(hooks)
        if value is not None:
            assert session.set_value("W_in", (0, 0), value)
        settle()
        drawn = pixels(view)
        as_before(view)
        assert np.array_equal(drawn, pixels(view)), hooks
        view.set_highlight(hooks)                              # (fades them again)
        settle()
    view.spotlight("hook_mlp_out")
    settle()
    drawn = pixels(view)
    as_before(view)
    assert np.array_equal(drawn, pixels(view))


def test_dimming_follows_the_text_colour_a_node_sets_later(qtbot):
    session, view = diagram(qtbot)
    view.spotlight("hook_mlp_out")
    settle()
    node = view.flow.layout.nodes["mlp.hook_pre"]
    assert node.opacity() == DIMMED
    before = [QColor(text.data(_INK)) for text in node.texts]
    for value in (-3.0, 3.0):                                  # tints (and inks) change with the values
        assert session.set_value("W_in", (0, 0), value)
        settle()
    assert [QColor(text.data(_INK)) for text in node.texts] != before
    for text in node.texts:
        ink = text.data(_INK)
        assert abs(text.brush().color().alphaF() - ink.alphaF() * DIMMED) < 1 / 255
        assert text.brush().color().rgb() == ink.rgb()


def _ancestors(item):
    parent = item.parentItem()
    while parent is not None:
        yield parent
        parent = parent.parentItem()
