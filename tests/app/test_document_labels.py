"""Issue 13: the lesson caption and the C4 lab's live formulas paint their numbers from a document
of their own (DocumentPaint), laid out once per new text, on the very pixels QLabel draws; QLabel's
own text control is left alone on an edit (it laid each new text out three times and parsed it
twice). Counted and compared, never timed."""
import numpy as np
import pytest
from PySide6.QtGui import QTextDocument

from app.labs.xor.common import SteadyLabel
from app.widgets.appearance import appearance
from tests.app.test_edit_repaints import settle
from tests.app.test_lessons import bar, go_to, r45  # noqa: F401 (the fixtures: the bar on the R45 lesson)
from tests.app.test_xor_lab import lab_panel  # noqa: F401 (the fixture: the C4 lab at its desk size)


def pixels(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(widget.grab().toImage().Format.Format_ARGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
    return rows[:, :image.width() * 4].copy()


def native_pixels(caption) -> np.ndarray:
    caption.native = True
    try:
        return pixels(caption)
    finally:
        caption.native = False


def the_labels_document(caption) -> QTextDocument:
    """QLabel's text control's document (the caption's own document has no parent)."""
    documents = caption.findChildren(QTextDocument)
    assert len(documents) == 1 and documents[0] is not getattr(caption, "_document", None)
    return documents[0]


@pytest.mark.parametrize("step_id", ["b0", "b1", "b2", "relu-residual"])
def test_the_caption_paints_what_qlabel_paints(bar, step_id):
    lessons = bar.controller
    go_to(lessons, step_id)
    caption = bar.caption
    assert np.array_equal(pixels(caption), native_pixels(caption))
    assert lessons.session.set_value("W_in", (0, 0), -1.25)          # new numbers, "(your edits)"
    assert "your edits" in caption.text()
    assert np.array_equal(pixels(caption), native_pixels(caption))
    caption.setMinimumHeight(caption.height() + 40)                   # taller: centred vertically
    bar.resize(bar.width() - 180, bar.height() + 60)                  # narrower: wrapped again
    assert np.array_equal(pixels(caption), native_pixels(caption))


def test_the_caption_paints_what_qlabel_paints_in_the_dark_at_presentation_size(bar):
    go_to(bar.controller, "b1")
    appearance().set_zoom(1.5)
    appearance().set_theme("dark")
    appearance().set_presenting(True)
    try:
        assert np.array_equal(pixels(bar.caption), native_pixels(bar.caption))
    finally:
        appearance().reset()


def test_an_edit_lays_the_new_caption_out_once_and_leaves_the_labels_control_alone(bar):
    lessons = bar.controller
    go_to(lessons, "b1")                         # its caption prints h, which every W_in edit moves
    caption = bar.caption
    for value in (0.25, 0.375):      # the first edits add "(your edits)" and hold the caption's height
        assert lessons.session.set_value("W_in", (0, 0), value)
        pixels(caption)
    populated = []
    the_labels_document(caption).contentsChanged.connect(lambda: populated.append(1))
    before, texts = getattr(caption, "layouts", 0), set()
    for value in (0.5, 0.625, 0.75, 0.875):     # numbers of one shape: the caption's sizes are known
        assert lessons.session.set_value("W_in", (0, 0), value)
        texts.add(caption.text())
        pixels(caption)                          # painted (twice: grab and the native check below)
    assert len(texts) == 4
    assert populated == []                       # QLabel parsed none of the four texts (it did each one)
    assert caption.layouts - before == 4         # one layout per new text, none for its paints


def test_a_selection_is_painted_by_qlabel(bar):
    go_to(bar.controller, "b1")
    caption = bar.caption
    plain = pixels(caption)
    caption.setSelection(0, 12)
    assert caption.hasSelectedText()
    selected = pixels(caption)
    assert not np.array_equal(selected, plain)                        # the selection is shown
    assert np.array_equal(selected, native_pixels(caption))
    assert bar.controller.session.set_value("W_in", (0, 0), 0.75)    # a new text drops the selection
    assert not caption.hasSelectedText()
    assert np.array_equal(pixels(caption), native_pixels(caption))


def test_the_c4_labs_formulas_paint_what_qlabel_paints_and_lay_each_text_out_once(lab_panel):  # noqa: F811
    session, panel = lab_panel
    session.set_config(activation="identity")            # the collapsed line's formula shows too
    for part in panel.parts():
        panel.set_focus(part)
        settle()
        labels = [label for label in panel.findChildren(SteadyLabel) if label.isVisible() and label.text()]
        assert labels
        for label in labels:
            assert label._own_paint()
            assert np.array_equal(pixels(label), native_pixels(label)), (part, label.objectName())
    panel.set_focus("ffn")
    for value in (0.625, 0.75):                          # the labels settle at their heights
        assert session.set_value("W_in", (0, 0), value)
        settle()
    collapsed = panel.findChild(SteadyLabel, "xorCollapsed")
    assert collapsed is not None and collapsed.isVisible()
    populated = []
    the_labels_document(collapsed).contentsChanged.connect(lambda: populated.append(1))
    before, texts = collapsed.layouts, set()
    for value in (0.5625, 0.6875, 0.8125):               # α moves with W_in[0, 0]; one shape of number
        assert session.set_value("W_in", (0, 0), value)
        settle()
        texts.add(collapsed.text())
        pixels(collapsed)
        assert populated == []                           # laid out and painted without QLabel's control
        assert np.array_equal(pixels(collapsed), native_pixels(collapsed))
        populated.clear()                                # (QLabel's own paint, for the comparison, parsed it)
    assert len(texts) == 3
    assert collapsed.layouts - before == 3
