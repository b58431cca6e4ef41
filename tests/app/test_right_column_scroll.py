"""The right-hand column (block options, checks, weights and inputs) at the desk with the interface
at 150 % on a 1024×768 screen: the window is too short for its boxes, so the column scrolls up and
down instead of crushing them (it crushed the weight editor's value spin box under its label and
cut the Seed row off, at R45 step 6, and made the window 842 px tall). In a window that short, the
inspector under the diagram keeps its sentence under its table. Presenting, the column is a plain
column again: the inspector goes to its top as before."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint, QRect
from PySide6.QtWidgets import QScrollArea, QWidget

from app.widgets.appearance import appearance
from tests.app.helpers import settle
from tests.conftest import ROOT

R45 = ROOT / "resources" / "lessons" / "r45-ffn-residual-norm.json"
RIGHT_BOXES = ("configBox", "invariantsBox", "weightsBox")


def _rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def _at_the_desk(blocklab_open, size, zoom, language="en", step=5):
    lab = blocklab_open(R45, language=language)
    window = lab.window
    appearance().set_zoom(zoom)
    window.lessons.go(step)
    window.resize(*size)
    for _ in range(4):                             # laid out; the bar shown or not, the content's width follows
        QCoreApplication.processEvents()
    return window, window.findChild(QScrollArea, "rightColumnScroll")


def test_at_150_percent_on_1024x768_the_column_scrolls_and_crushes_nothing(blocklab_open):
    window, scroll = _at_the_desk(blocklab_open, (1024, 768), 1.5)
    # The window keeps the screen's height (it needed 842 px when the column could not scroll).
    assert window.height() == 768
    content = window.findChild(QWidget, "configBox").parentWidget()
    for name in RIGHT_BOXES:
        box = window.findChild(QWidget, name)
        assert box.isVisible() and box.parentWidget() is content
        assert box.height() >= box.minimumSizeHint().height(), name          # nothing crushed
        if box.hasHeightForWidth():
            assert box.height() >= box.heightForWidth(box.width()), name     # its wrapped text whole
    # The weight editor's value spin box at its height, under (or beside) its label, not overlapped.
    editor = window.weight_editor
    spin, label, slider = editor.findChild(QWidget, "weightValueSpin"), editor.findChild(QWidget, "weightCellLabel"), \
        editor.findChild(QWidget, "weightValueSlider")
    assert spin.isVisible() and spin.height() >= spin.minimumSizeHint().height()
    shown = [widget for widget in (label, spin, slider) if widget.isVisible()]
    rects = [_rect_in(widget, content) for widget in shown]
    for i, first in enumerate(rects):
        for second in rects[i + 1:]:
            assert not first.intersects(second), (first.getRect(), second.getRect())
    assert scroll is not None and scroll.widget() is content
    # Too tall for the column: a vertical scroll bar; never a horizontal one, the content as wide
    # as the room beside the bar (nothing cut off at the side).
    assert scroll.verticalScrollBar().isVisible() and scroll.verticalScrollBar().maximum() > 0
    assert not scroll.horizontalScrollBar().isVisible()
    assert content.width() == scroll.viewport().width()
    # The learner scrolls down to the Seed row: it comes whole into view.
    seed = window.findChild(QWidget, "weightSeedSpin")
    assert seed.isVisible() and seed.height() >= seed.minimumSizeHint().height()
    scroll.verticalScrollBar().setValue(scroll.verticalScrollBar().maximum())
    QCoreApplication.processEvents()
    assert scroll.viewport().rect().contains(_rect_in(seed, scroll.viewport()))
    # The window's body is now as short as the screen: the inspector under the diagram still shows
    # its sentence under its table, not over it (its height for its width counts in its least).
    inspector = window.inspector
    table, sentence = _rect_in(inspector.table, inspector), _rect_in(inspector.sentence, inspector)
    assert inspector.sentence.isVisible()
    assert sentence.top() > table.bottom() and sentence.height() >= inspector.sentence.heightForWidth(sentence.width())


def test_at_100_percent_on_1280x800_the_column_needs_no_scroll_bar(blocklab_open):
    window, scroll = _at_the_desk(blocklab_open, (1280, 800), 1.0)
    assert scroll is not None
    assert not scroll.verticalScrollBar().isVisible() and not scroll.horizontalScrollBar().isVisible()
    assert scroll.widget().size() == scroll.viewport().size() == scroll.size()      # it fills the column


def test_presenting_the_inspector_still_tops_the_plain_column(blocklab_open):
    """R45 step 3 presenting at 150 % on 1024×768: the inspector at the top of the right-hand
    column, the weights below it, the column fills its room and does not scroll; leaving, the
    column scrolls again and its boxes are back in their order."""
    window, scroll = _at_the_desk(blocklab_open, (1024, 768), 1.5, step=2)
    assert scroll is not None
    window.presentation.enter(full_screen=False)
    window.resize(1024, 768)
    panels, content = window.presentation.panels, scroll.widget()
    settle(lambda: panels.place_of("inspector") == "right")
    assert panels.right is scroll and not scroll.scrolling()
    assert content.layout().itemAt(0).widget() is window.findChild(QWidget, "inspectorBox")
    assert not scroll.verticalScrollBar().isVisible() and content.size() == scroll.size()
    window.presentation.leave()
    assert scroll.scrolling() and scroll.isVisible()
    assert [content.layout().itemAt(i).widget().objectName() for i in range(3)] == list(RIGHT_BOXES)
