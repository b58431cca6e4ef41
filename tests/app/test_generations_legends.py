"""The generations lab's legends sit in an empty part of their plot: the attention sink's
(lesson step 9) covered the end of the dashed 46.7 % line, the gain's (step 11) the end of the
dashed 1 + w line. Checked in the window as a projector shows it (1024×768, presenting) and at
1280×800, in both languages."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from core.resources import resource
from tests.app.helpers import settle


def covered(plot, curves) -> list[tuple[float, float]]:
    """The points of `curves` (dense along each segment) that the plot's legend hides."""
    box = plot.legend.sceneBoundingRect()
    hidden = []
    for curve in curves:
        xs, ys = (np.asarray(a, dtype=float) for a in curve.getData())
        dense_x = np.concatenate([np.linspace(a, b, 40) for a, b in zip(xs[:-1], xs[1:])])
        dense_y = np.interp(dense_x, xs, ys)
        hidden += [(float(x), float(y)) for x, y in zip(dense_x, dense_y)
                   if box.contains(plot.vb.mapViewToScene(QPointF(x, y)))]
    return hidden


@pytest.mark.parametrize("size, present", [((1024, 768), True), ((1280, 800), False)])
@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_legends_hide_no_curve(blocklab_open, language, size, present):
    window = blocklab_open(resource("lessons", "generations.json"), language).window
    if present:
        window.presentation.enter(full_screen=False)
    window.resize(*size)
    try:
        lab = window.labs["generations"]
        lesson = window.lessons
        lesson.go(lesson.lesson.step_index("sink"))
        sink = lab.sink
        settle(lambda: sink.isVisible() and sink.share_plot.legend.isVisible())
        settle(lambda: not covered(sink.share_plot, [sink.share_curve, sink.reported, sink.reported_gated]))
        lesson.go(lesson.lesson.step_index("gain"))
        gain = lab.gain
        settle(lambda: gain.isVisible() and gain.plot_item.legend.isVisible())
        settle(lambda: not covered(gain.plot_item, [gain.plain_curve, gain.centred_curve]))
    finally:
        if present:
            window.presentation.leave()
