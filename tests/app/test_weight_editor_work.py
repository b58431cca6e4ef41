"""Issue 13: the weight editor's own share of an edit. Its cell controls repaint the strip of the
slider the handle moved along and copy the group box's backdrop from a pixmap; the pixels on
screen stay those a fresh paint draws. Counts work (calls, paint events, repainted area), never time."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGroupBox, QSlider, QStyle

from tests.app.helpers import count_calls
from tests.app.test_edit_paint_chain import BENCH_VALUES, _boxed
from tests.app.test_edit_repaints import settle


class PaintedArea(QObject):
    """Paint events of one widget, and the px they covered (the sum of their regions' rects)."""

    def __init__(self, widget):
        super().__init__()
        self.count = self.area = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.count += 1
            self.area += sum(rect.width() * rect.height() for rect in event.region())
        return False


def on_screen(widget, area: QRect | None = None):
    """What the window shows now (its backing store, as painted bit by bit), and what a fresh
    paint of the whole window draws there: both as QImages of `area` (window coordinates)."""
    window = widget.window()
    area = area or QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
    shown = window.screen().grabWindow(window.winId()).toImage().copy(area)
    fresh = window.grab().toImage().copy(area)
    return shown.convertToFormat(fresh.format()), fresh


def editor_window(blocklab_window):
    lab = blocklab_window
    lab.session.select_edit_cell("W_in", (0, 0))
    assert lab.session.set_value("W_in", (0, 0), 1.5)    # (the first edit of a new window: not counted)
    settle()
    window = lab.window
    return lab, window.findChild(QGroupBox, "weightsBox"), window.findChild(QSlider, "weightValueSlider")


def test_an_edit_does_not_draw_the_group_box_behind_the_cell_controls_again(blocklab_window, monkeypatch):
    """The cell controls' backdrop drew the group box (frame, fill, and its title's text laid out
    again) under the slider and the spin box at every edit; it copies them from a pixmap now."""
    lab, box, slider = editor_window(blocklab_window)
    assert box is not None and box.isVisible()
    drawn = count_calls(monkeypatch, type(box.style()), "drawComplexControl")
    shown = PaintedArea(slider)
    controls = PaintedArea(slider.parentWidget())
    for value in BENCH_VALUES:
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
    assert shown.count >= len(BENCH_VALUES) and controls.count >= len(BENCH_VALUES)   # the edits are shown …
    assert drawn == []                                   # … and the group box is not drawn for them
    shown_now, fresh = on_screen(slider.parentWidget())
    assert shown_now == fresh


def test_a_value_repaints_the_strip_the_handle_moved_along_not_the_whole_slider(blocklab_window):
    """The whole slider (its ticks, both ends of its groove) was painted again for every value;
    now only the strip between the handle's old and new places, and what is on screen is what
    a fresh paint of the window draws, wherever the handle goes."""
    lab, box, slider = editor_window(blocklab_window)
    whole = slider.width() * slider.height()
    painted = PaintedArea(slider)
    positions = []
    for value in (0.625, -1.375, 0.875, -0.5, 1.625, 1.6):   # far moves (the scale ±2 kept), one position
        painted.count = painted.area = 0
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        assert painted.count == 1, value
        assert painted.area < 0.7 * whole, value      # (a move across half the scale: half the slider)
        positions.append(slider.value())
        area = painted.area
        shown, fresh = on_screen(slider)
        assert shown == fresh, value
    assert len(set(positions)) == len(positions)
    assert area < 0.2 * whole                          # two positions: the handle's width and a little
    # Keys, with the focus on it: each step shows where a fresh paint puts it.
    slider.setFocus()
    for key in (Qt.Key.Key_Right, Qt.Key.Key_PageDown, Qt.Key.Key_Left, Qt.Key.Key_End):
        QTest.keyClick(slider, key)
        settle()
        shown, fresh = on_screen(slider)
        assert shown == fresh, key
    # A new range still repaints all of it (the ticks move).
    painted.area = 0
    slider.setRange(-100, 100)
    settle()
    assert painted.area == whole


def test_the_backdrop_shows_the_group_box_as_it_is_now(qtbot):
    """The pixmap is drawn again when the group box looks otherwise (a new title, size, frame,
    palette) and when the backdrop moves in it, is resized or has another palette: what is on
    screen is what a fresh paint draws."""
    from app.widgets.opaque import GroupBoxBackdrop
    box = _boxed(qtbot, GroupBoxBackdrop())
    backdrop = box.findChild(GroupBoxBackdrop)
    settle()
    for change in (lambda: box.setTitle("A much longer title for the weights and the inputs"),
                   lambda: box.resize(300, 160),
                   lambda: box.setFlat(True),
                   lambda: box.setFlat(False),
                   lambda: box.layout().setContentsMargins(12, 20, 6, 9),        # it moves in the box
                   lambda: box.setPalette(_tinted(box.palette())),
                   lambda: backdrop.setPalette(_tinted(backdrop.palette(), 60))):
        change()
        settle()
        shown, fresh = on_screen(box, QRect(0, 0, box.width(), box.height()))
        assert shown == fresh


def test_a_backdrop_over_the_whole_group_box_draws_each_change_of_it(qtbot):
    """A backdrop may cover the group box wholly, title and frame: then the box is never painted,
    and its changes reach the pixmap through its events and the title, flatness, check and
    alignment read at each paint. (Qt repaints no opaque child for its parent's change, the
    backdrop without a pixmap neither: here a repaint of the backdrop, as a control on it would
    cause, shows the box as it is now.)"""
    from PySide6.QtWidgets import QWidget
    from app.widgets.opaque import GroupBoxBackdrop
    from tests.app.helpers import show
    box = QGroupBox("Weights and inputs")
    middle = QWidget(box)
    backdrop = GroupBoxBackdrop(middle)
    show(qtbot, box, 240, 120)

    def cover() -> None:
        middle.setGeometry(box.rect())
        backdrop.setGeometry(middle.rect())
    cover()
    settle()
    painted = PaintedArea(box)
    looks = [on_screen(box)[0]]
    for number, change in enumerate((lambda: box.setTitle("Another title"),
                   lambda: box.setAlignment(Qt.AlignmentFlag.AlignRight),
                   lambda: box.setCheckable(True),
                   lambda: box.setChecked(False),
                   lambda: (box.resize(300, 160), cover()),
                   lambda: box.setEnabled(False),
                   lambda: box.setFont(_bold(box.font())))):
        change()
        backdrop.update()
        settle()
        shown, fresh = on_screen(box)
        assert shown == fresh, number
        assert shown != looks[-1], number             # (each change shows on the backdrop)
        looks.append(shown)
    assert painted.count == 0                         # (the box itself is never painted)


def _bold(font):
    bold = type(font)(font)
    bold.setBold(True)
    return bold


def _tinted(palette: QPalette, hue: int = 200) -> QPalette:
    tinted = QPalette(palette)
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Button):
        colour = tinted.color(role)
        colour.setHsv(hue, 40, colour.value())
        tinted.setColor(role, colour)
    return tinted


def test_an_edit_of_one_cell_measures_its_one_new_text(blocklab_window, monkeypatch):
    """The table widens its columns for an edit's new number if it needs it: for one cell the
    number's text is measured once (it was measured twice, as the least and the greatest of one)."""
    from app.explorer.tables import NumberTable
    lab, box, slider = editor_window(blocklab_window)
    table = lab.window.findChild(NumberTable, "weightTable")
    measured = []
    plain = NumberTable.widen_for
    monkeypatch.setattr(NumberTable, "widen_for",
                        lambda self, texts: (measured.append(tuple(texts)) if self is table else None, plain(self, texts))[1])
    for value in BENCH_VALUES:
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
    assert measured == [(table.model().text(value),) for value in BENCH_VALUES]
