"""Issue 13: labels with a live number remember their sizes by the text's shape (the same text
with other digits), so an edit's new number lays out no rich text to find them — and the sizes
are exactly the ones a plain QLabel gives for the new text."""
import random

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.labs.xor.common import label as xor_label
from app.lessons.bar import CaptionLabel
from app.widgets import steady_label
from app.widgets.steady_label import ShapeHints, digits_interchangeable, text_shape
from app.widgets.style import font

TEMPLATES = ("Without a nonlinearity the two layers are one line: <b>ŷ = %a·p + %b·n − %c</b><br>"
             "(α, β) = W_in·W_out = (%a, %b), γ = b_in·W_out + b_out = %c",
             "<b>Step 3. ReLU</b>  <span style='color:#b35806'>(your edits)</span><br>With W_in[0, 0] = %a the "
             "first neuron reads %b·p and the output is %c; MSE %a.")


def texts(count: int, seed: int = 3):
    draw = random.Random(seed)
    for _ in range(count):
        numbers = {name: f"{draw.choice(['', '−'])}{draw.randint(0, 99)}.{draw.randint(0, 999999):06d}"
                   for name in "abc"}
        text = draw.choice(TEMPLATES)
        for name, number in numbers.items():
            text = text.replace("%" + name, number)
        yield text


def plain_twin(points: float) -> QLabel:
    twin = QLabel()
    twin.setFont(font(points))
    twin.setWordWrap(True)
    twin.setTextFormat(Qt.TextFormat.RichText)
    return twin


@pytest.mark.parametrize("points", [10, 12, 13])
def test_sizes_by_shape_are_the_sizes_qlabel_gives(qapp, points):
    assert digits_interchangeable(font(points))          # the fonts the tests run with
    caption = CaptionLabel()
    caption.setFont(font(points))
    caption.setWordWrap(True)
    caption.setTextFormat(Qt.TextFormat.RichText)
    lab = xor_label("xorTest", points)
    for text in texts(40):
        twin = plain_twin(points)
        twin.setText(text)
        for widget in (caption, lab):
            widget.setText(text)
            assert widget.sizeHint() == twin.sizeHint()
            assert widget.minimumSizeHint() == twin.minimumSizeHint()
        for width in (180, 320, 641):
            assert caption.heightForWidth(width) == twin.heightForWidth(width)
            lab.release()                                  # the xor label never shrinks within a scenario
            assert lab.heightForWidth(width) == twin.heightForWidth(width)


def test_a_text_of_the_same_shape_is_not_measured_again(qapp, monkeypatch):
    label = QLabel()
    label.setFont(font(12))
    hints, measured = ShapeHints(), []

    def measure(width):
        measured.append(label.text())
        return width // 10

    for text, new in (("MSE 0.25", True), ("MSE 0.75", False), ("MSE 1.50", False), ("MSE −1.50", True),
                      ("MSE 10.25", True), ("MSE 99.99", False)):
        label.setText(text)
        before = len(measured)
        assert hints.get(label, "height", measure, 300) == 30
        assert len(measured) - before == (1 if new else 0), text
    assert text_shape("x = 7.25 − 19") == text_shape("x = 1.00 − 00") != text_shape("x = 1.0 − 00")
    label.setFont(font(13))                                # another font: measured again
    hints.clear()
    hints.get(label, "height", measure, 300)
    assert measured[-1] == "MSE 99.99"
    # a font whose digits are not interchangeable: always measured
    monkeypatch.setitem(steady_label._INTERCHANGEABLE, font(13).key(), False)
    hints.clear()
    for _ in range(2):
        hints.get(label, "height", measure, 300)
    assert measured[-2:] == ["MSE 99.99", "MSE 99.99"]


def test_a_font_change_forgets_the_sizes(qapp):
    caption = CaptionLabel()
    caption.setWordWrap(True)
    caption.setTextFormat(Qt.TextFormat.RichText)
    caption.setText("The output is <b>0.25</b> and the loss is 0.125, " * 4)
    small = caption.heightForWidth(200)
    caption.setFont(font(20))
    assert caption.heightForWidth(200) > small
    twin = plain_twin(20)
    twin.setText(caption.text())
    assert caption.heightForWidth(200) == twin.heightForWidth(200)


def test_a_minimum_height_counts_as_qlabel_counts_it(qapp):
    """QLabel's sizes are at least its minimum size: the lesson caption keeps a floor within a
    step and drops it at the next; a size remembered under the floor must not outlive it."""
    caption = CaptionLabel()
    caption.setWordWrap(True)
    caption.setTextFormat(Qt.TextFormat.RichText)
    caption.setText("<b>Step 2</b><br>The MSE is 0.25.")
    low = QLabel.heightForWidth(caption, 600)
    caption.setMinimumHeight(low + 10)
    caption.setText("<b>Step 2</b><br>The MSE is 0.75.")
    assert caption.heightForWidth(600) == QLabel.heightForWidth(caption, 600) == low + 10
    caption.setMinimumHeight(0)
    assert caption.heightForWidth(600) == QLabel.heightForWidth(caption, 600) == low
