"""Issue 13: a live number of the C4 lab repaints its own label, not the lab's containers behind it.

A label that draws no background lets its ancestors show through, so Qt painted every one of them
under a label whose text changed: the lab, its stack, the column, the overview's fence, the
overview and the box beside the table (six to eight paint events per edit for two small texts).
The lab's labels fill their background in the window's colour, which is what those containers
show there. Counted paints, never time; and the pixels are the ones drawn before."""
from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QWidget

from app.labs.xor.common import SteadyLabel
from app.widgets.fence import SizeFence
from tests.app.test_edit_repaints import Paints, settle
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)

VALUES = (0.625, -1.375, 2.125, 0.875)             # (of tools/bench.py's edit cycle)


def _behind(panel) -> list[QWidget]:
    """The plain containers between the lab's window and the overview's labels."""
    fence = panel.findChild(SizeFence)
    overview = panel.overview
    widgets = [panel, panel.stack, panel.stack.widget(0), fence, overview, overview.side,
               overview.side.widget(0), overview.side.widget(1)]
    assert all(widget is not None for widget in widgets)
    return widgets


@pytest.mark.parametrize("part", ["ffn", "bias", "neurons"])
def test_an_edit_repaints_the_overviews_numbers_not_the_lab_behind_them(lab_panel, part):  # noqa: F811
    session, panel = lab_panel
    panel.set_focus(part)
    for value in VALUES:                                # once first: the table's columns widen to the
        assert session.set_value("W_in", (0, 0), value)  # widest ŷ they show (a relayout, as before)
        settle()
    mse = panel.findChild(QLabel, "xorMse")
    behind, shown = Paints(_behind(panel)), Paints([mse])
    text = mse.text()
    for value in VALUES[1:] + VALUES[:1]:
        behind.count = shown.count = 0
        assert session.set_value("W_in", (0, 0), value)
        settle()
        assert mse.text() != text and shown.count >= 1, value     # the new MSE is painted …
        assert behind.count == 0, value                           # … and nothing behind it
        text = mse.text()


def test_the_opaque_labels_look_as_the_plain_ones_did(lab_panel):  # noqa: F811
    session, panel = lab_panel
    session.set_config(activation="identity")                     # the collapsed line's formula shows too
    labels = panel.findChildren(SteadyLabel)
    assert labels and all(label.autoFillBackground() for label in labels)
    for part in panel.parts():                                    # (the compute part's labels sit in a frame)
        panel.set_focus(part)
        settle()
        drawn = panel.grab().toImage()
        for label in labels:
            label.setAutoFillBackground(False)
        try:
            assert panel.grab().toImage() == drawn, part
        finally:
            for label in labels:
                label.setAutoFillBackground(True)
