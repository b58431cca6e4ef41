"""Issue 13: the diagram's rounded frames (nodes, their glow and selection outline, the sub-layer
bands, the tokens) and its edges paint from a device-coordinate cache. An edit repaints the
numbers it changed; every path under them was rasterised again before (about 15 % of an edit's
instructions at R45 index 3, counted with callgrind). What the window shows must stay what the
diagram draws without any cache, through edits, a new selection, a lesson step that dims other
nodes, a scroll and a zoom."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QGraphicsItem

from app.explorer.dataflow_items import EdgeItem, Rounded
from core.resources import lessons_dir
from tests.app.test_edit_paint_chain import BENCH_VALUES
from tests.app.test_edit_repaints import settle

CACHED = QGraphicsItem.CacheMode.DeviceCoordinateCache
NONE = QGraphicsItem.CacheMode.NoCache


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())[:, :4 * image.width()].copy()


def assert_shows_what_an_uncached_paint_draws(view) -> None:
    """The window's pixels over the diagram against a paint of the diagram with every cache off:
    the same within the cache's rounding of antialiased edges (4 of 255 per channel)."""
    window = view.window()
    area = QRect(view.mapTo(window, view.rect().topLeft()), view.size())
    shown = pixels(window.screen().grabWindow(window.winId()).toImage().copy(area))
    items = [item for item in view.scene().items() if item.cacheMode() == CACHED]
    for item in items:
        item.setCacheMode(NONE)
    try:
        fresh = pixels(window.grab().toImage().copy(area))
    finally:
        for item in items:
            item.setCacheMode(CACHED)
    assert shown.shape == fresh.shape
    diff = np.abs(shown.astype(int) - fresh.astype(int)).reshape(shown.shape[0], -1, 4).max(axis=2)
    ys, xs = np.nonzero(diff > 4)
    assert not len(ys), f"{len(ys)} px differ, e.g. at {list(zip(xs[:8], ys[:8]))} of {view.width()}x{view.height()}"


def test_the_diagrams_frames_and_edges_are_cached_and_stay_true_on_screen(blocklab_window):
    lab = blocklab_window
    window = lab.window
    window.document.open_lesson(lessons_dir() / "r45-ffn-residual-norm.json", 3, ask=False)
    settle()
    view = window.dataflow
    paths = [item for item in view.scene().items() if isinstance(item, (Rounded, EdgeItem))]
    assert len(paths) > 20 and all(item.cacheMode() == CACHED for item in paths)
    for value in BENCH_VALUES:
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
    assert_shows_what_an_uncached_paint_draws(view)
    lab.session.select(hook="mlp.hook_post", token=0, column=1)          # another node selected
    settle()
    assert_shows_what_an_uncached_paint_draws(view)
    window.lessons.go(5)                                                  # other nodes stressed, others dimmed
    settle()
    assert lab.session.set_value("W_in", (0, 0), 1.25)
    settle()
    assert_shows_what_an_uncached_paint_draws(view)
    bar = view.horizontalScrollBar()
    if bar.maximum() > 0:
        bar.setValue(bar.maximum() // 2)
        settle()
        assert_shows_what_an_uncached_paint_draws(view)
    from app.widgets.appearance import appearance
    try:
        appearance().set_zoom(1.5)
        settle()
        assert lab.session.set_value("W_in", (0, 0), -0.5)
        settle()
        assert_shows_what_an_uncached_paint_draws(view)
    finally:
        appearance().reset()


def test_when_the_scroll_bars_come_the_frames_corner_is_painted_anew(blocklab_window):
    """From a step whose diagram needs no vertical scroll bar to one that needs both, the corner
    between the bars kept the old bar's pixels where the frame ends (one px a shade too light)."""
    window = blocklab_window.window
    window.document.open_lesson(lessons_dir() / "r45-ffn-residual-norm.json", 3, ask=False)
    settle()
    view = window.dataflow
    assert not view.verticalScrollBar().isVisible()
    window.lessons.go(5)
    settle()
    assert view.verticalScrollBar().isVisible() and view.horizontalScrollBar().isVisible()
    assert_shows_what_an_uncached_paint_draws(view)
