"""Issue 13: the inspector's worked formula repaints the lines an edit changed, not the whole box
(QPlainTextEdit asks for the whole box at any change that spans lines), and what the window shows
stays what a fresh paint draws: lines that keep their height, a line that wraps to another
height (everything beneath it moves), and a box scrolled back to its top. Counts pixels, never time."""
from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit

from core.resources import lessons_dir
from tests.app.test_edit_paint_chain import BENCH_VALUES
from tests.app.test_edit_repaints import settle
from tests.app.test_weight_editor_work import PaintedArea, on_screen


def explanation_of(lab):
    lab.window.document.open_lesson(lessons_dir() / "r45-ffn-residual-norm.json", 3, ask=False)
    settle()
    box = lab.window.findChild(QPlainTextEdit, "inspectorExplanation")
    assert box is not None and box.isVisible() and len(box.toPlainText().splitlines()) >= 8
    return box


def test_an_edit_repaints_the_changed_lines_of_the_worked_formula(blocklab_window):
    lab = blocklab_window
    box = explanation_of(lab)
    assert lab.session.set_value("W_in", (0, 0), 1.5)          # (the first edit: not counted)
    settle()
    viewport = box.viewport()
    painted = PaintedArea(viewport)
    for value in BENCH_VALUES:
        lines = box.toPlainText().splitlines()
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        changed = sum(a != b for a, b in zip(lines, box.toPlainText().splitlines()))
        assert 0 < changed < len(lines)
    whole = viewport.width() * viewport.height()
    assert painted.count == len(BENCH_VALUES)
    assert painted.area <= 0.7 * whole * len(BENCH_VALUES)    # it was the whole box at every edit
    for value in BENCH_VALUES[::-1]:                          # (a grab paints the whole box itself)
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        shown, fresh = on_screen(viewport)
        assert shown == fresh, value


def test_a_line_that_wraps_anew_and_a_scrolled_box_still_show_what_a_fresh_paint_draws(blocklab_window):
    lab = blocklab_window
    box = explanation_of(lab)
    viewport = box.viewport()
    # numbers of other lengths: the long last line wraps to three lines and back to two
    for value in (1e6, 0.5, 123456.5, 1e6, -0.25, 1.0):
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        shown, fresh = on_screen(viewport)
        assert shown == fresh, value
    # scrolled down, the next edit brings the box back to its top
    box.setMaximumHeight(4 * box.fontMetrics().lineSpacing())
    settle()
    for value in (0.5, -3.75):
        bar = box.verticalScrollBar()
        assert bar.maximum() > 0
        bar.setValue(bar.maximum())
        settle()
        assert lab.session.set_value("W_in", (0, 0), value)
        settle()
        assert bar.value() == 0
        shown, fresh = on_screen(viewport)
        assert shown == fresh, value


def test_a_middle_line_that_wraps_anew_moves_the_lines_beneath_it_on_screen_too(qtbot):
    from app.explorer.inspector import ExplanationText
    from tests.app.helpers import show
    box = show(qtbot, ExplanationText(), 260, 320)
    lines = [f"line {n}: a = 0.{n}00000" for n in range(10)]
    box.set_text("\n".join(lines))
    settle()
    painted = PaintedArea(box.viewport())
    for middle in ("x = 1.000000 " * 6, "x = 2.5", "x = 12345678.000000 " * 3, "x = 0.5"):
        lines[4] = middle                                     # one, two or three lines high
        lines[7] = f"line 7: b = {len(middle)}"
        before = painted.area
        box.set_text("\n".join(lines))
        settle()
        assert painted.area > before
        assert box.toPlainText() == "\n".join(lines)
        shown, fresh = on_screen(box.viewport())
        assert shown == fresh, middle
    box.close()
