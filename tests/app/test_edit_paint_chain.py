"""Issue 13: a live number repaints its own widget, not every panel behind it.

A widget that draws no background lets its ancestors show through, so Qt paints each of them under
a region that changed: the weight editor's slider and spin box repainted the window, the splitter,
the group box and the panels between; the MSE in the status bar the window and the status bar;
the lesson caption the lesson bar and its fence. Counted paints, never time; and the pixels are
the ones drawn before."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel, QSlider, QSpinBox, QStatusBar, QVBoxLayout, QWidget

from tests.app.helpers import show
from tests.app.test_edit_repaints import Paints, settle
from tests.app.test_lessons import bar, go_to, r45  # noqa: F401 (the fixtures: the bar on the R45 lesson)

BENCH_VALUES = (0.625, -1.375, 2.125, 0.875)      # (of tools/bench.py's edit cycle)


def test_an_edit_repaints_the_weight_controls_and_the_mse_not_the_window_behind_them(blocklab_window):
    lab = blocklab_window
    window = lab.window
    lab.session.select_edit_cell("W_in", (0, 0))
    assert lab.session.set_value("W_in", (0, 0), 1.5)   # (the first edit of a new window also fills the plots
    settle()                                             # panel's tab once: not counted)
    behind = [window, window.findChild(QWidget, "mainSplitter"), window.findChild(QGroupBox, "weightsBox"),
              window.findChild(QWidget, "weightEditor"), window.findChild(QStatusBar)]
    assert all(widget is not None and widget.isVisible() for widget in behind)
    shown = [window.findChild(QSlider, "weightValueSlider"), window.findChild(QLabel, "statusMse")]
    paints_behind, paints_shown = Paints(behind), Paints(shown)
    mse = shown[1].text()
    for value in BENCH_VALUES:
        paints_behind.count = paints_shown.count = 0
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        assert paints_shown.count >= 2, value            # the slider and the MSE show the edit …
        assert paints_behind.count == 0, value           # … and nothing behind them is painted again
        assert shown[1].text() != mse
        mse = shown[1].text()


def test_an_edit_repaints_the_caption_not_the_lesson_bar_behind_it(bar):  # noqa: F811 (the fixture)
    lessons = bar.controller
    go_to(lessons, "relu-residual")
    settle()
    paints_behind, paints_caption = Paints([bar, bar.caption_fence]), Paints([bar.caption])
    text = bar.caption.text()
    for value in BENCH_VALUES:
        paints_behind.count = paints_caption.count = 0
        assert lessons.session.set_value("W_in", (0, 0), value)
        settle()
        assert bar.caption.text() != text and paints_caption.count >= 1, value   # its new numbers shown
        assert paints_behind.count == 0, value
        text = bar.caption.text()


def _boxed(qtbot, inner: QWidget) -> QGroupBox:
    box = QGroupBox("Weights and inputs")
    layout = QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 4)
    middle = QWidget()                                   # a plain panel between, as the weight editor
    QVBoxLayout(middle).addWidget(inner)
    layout.addWidget(middle)
    spin = QSpinBox()
    spin.setFocusPolicy(Qt.FocusPolicy.NoFocus)          # (no focus frame in one box only)
    QVBoxLayout(inner).addWidget(spin)
    return show(qtbot, box, 240, 120)


def test_a_group_box_backdrop_draws_what_was_behind_it(qtbot):
    """The backdrop paints the window's colour and the group box's frame and fill itself: the box
    looks as it did with a plain (transparent) widget there."""
    from app.widgets.opaque import GroupBoxBackdrop
    plain, backdrop = _boxed(qtbot, QWidget()), _boxed(qtbot, GroupBoxBackdrop())
    settle()
    expected, drawn = plain.grab().toImage(), backdrop.grab().toImage()
    assert expected.size() == drawn.size()
    assert expected == drawn
    # (and the fill it draws is not the window's plain colour: the group box's own is there)
    inner = backdrop.findChild(GroupBoxBackdrop)
    corner = inner.mapTo(backdrop, inner.rect().topLeft())
    assert drawn.pixelColor(corner) != backdrop.palette().window().color()


def test_an_edit_on_a_lab_page_repaints_the_lab_not_the_window_behind_it(blocklab_open):
    """The C4 lesson's lab page (the XOR lab, its numbers live): the page is opaque, so the work
    area, the splitter and the window are not painted again under the lab's new numbers."""
    from tests.app.test_c4_lesson import C4
    lab = blocklab_open(C4)
    window = lab.window
    window.lessons.go(window.lessons.lesson.step_index("collapse"))
    settle()
    page = window.findChild(QWidget, "labPage_xor")
    assert page is not None and page.isVisible()
    assert lab.session.set_value("W_in", (0, 0), 1.5)    # (the first edit: not counted)
    settle()
    behind = Paints([window, window.findChild(QWidget, "mainSplitter"), window.findChild(QWidget, "workArea")])
    # (the page, or the lab's own widgets on it: its live labels are opaque, so the page behind
    # them need not be painted either)
    lab_paints = Paints([page] + [widget for widget in page.findChildren(QWidget) if widget.isVisible()])
    for value in BENCH_VALUES:
        behind.count = lab_paints.count = 0
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        assert lab_paints.count >= 1, value               # the lab shows the edit …
        assert behind.count == 0, value                   # … and nothing behind it is painted again
