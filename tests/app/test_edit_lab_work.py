"""Issue 13: a lab control's change measures and places only what it must.

Counts work (text measures, layouts, calls), never time."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from app.labs.model import snippets
from app.labs.model.snippets import SnippetLine, SnippetLines
from tests.app.helpers import show


def settle():
    app = QApplication.instance()
    for _ in range(4):
        app.processEvents()


def lines_of(texts, seed):
    rng = np.random.default_rng(seed)
    return [SnippetLine(f"{rng.normal():.1f}", tuple(text), rng.normal(size=len(text)), len(text) // 2, n)
            for n, text in enumerate(texts)]


def test_the_snippets_measure_each_character_once_per_font(qtbot, qapp, monkeypatch):
    """A neuron change re-set the snippets, and each size the layout asked for (a height at
    several widths, the natural width) measured every character of every line again: some 160
    text measures per change. A character is now measured once per font, and a height at
    another width is a sum of numbers."""
    measured = []

    class Metrics(QFontMetrics):
        def horizontalAdvance(self, *args):  # noqa: N802 (Qt's name)
            measured.append(args[0])
            return super().horizontalAdvance(*args)
    monkeypatch.setattr(snippets, "QFontMetrics", Metrics)
    widget = show(qtbot, SnippetLines("probe"), 420, 200)
    texts = ["the cat sat on the mat", "a dog ran in the park and back again", "cats and dogs"]
    widget.set_lines(lines_of(texts, 1), 2.0)
    for width in (120, 250, 419, 600, 1000):
        widget.heightForWidth(width)
    widget.sizeHint()
    widget.repaint()
    characters = {ch for text in texts for ch in text}
    assert len(measured) <= len(characters) + len(texts) + 2     # each character once, the values, "−00.0", the arrow
    measured.clear()
    texts = ["the mat sat on the cat", "cats and dogs", "a dog ran back"]   # the next neuron: the same characters
    widget.set_lines(lines_of(texts, 2), 2.0)
    for width in (120, 250, 419, 600, 1000):
        widget.heightForWidth(width)
    widget.sizeHint()
    widget.repaint()
    assert [m for m in measured if len(m) == 1 and m.isalpha()] == []
    assert len(measured) <= len(texts) + 2
    assert len(widget._placed) <= 1                                  # rectangles only where it is drawn
    assert widget.text().splitlines()[1].split(" ", 1)[1] == "cats and dogs ⟶"
