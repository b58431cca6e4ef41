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
