"""The inspector alone on a Session: the selected hook as a table, one head at a time, the
cells a lesson points at outlined, and a click choosing the cell it explains."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QPlainTextEdit, QTableView

from app.explorer.inspector import Inspector
from tests.app.helpers import settle, show


@pytest.fixture
def inspector(qtbot, session):
    widget = show(qtbot, Inspector(session), 520, 420)
    yield widget
    widget.close()


def shown_array(inspector) -> np.ndarray:
    return np.asarray(inspector.model.array)


def header(inspector, column: int) -> str:
    return inspector.model.headerData(column, Qt.Horizontal)


def test_a_per_head_hook_shows_one_head_at_a_time(inspector, session):
    heads = inspector.findChild(QComboBox, "inspectorHeadSelector")
    assert not heads.isVisible()                               # the output has no heads
    session.select(hook="attn.hook_pattern")
    pattern = session.trace["attn.hook_pattern"]
    assert heads.isVisible() and heads.count() == pattern.shape[0]
    np.testing.assert_array_equal(shown_array(inspector), pattern[0])
    assert header(inspector, 0) == "k1"                        # columns are keys
    heads.setCurrentIndex(1)                                   # the learner picks head 2
    assert session.selected_head == 1
    np.testing.assert_array_equal(shown_array(inspector), pattern[1])
    title = inspector.findChild(QLabel, "inspectorTitle").text()
    assert "attn.hook_pattern" in title and "×".join(map(str, pattern.shape)) in title
    session.select(hook="mlp.hook_post")
    assert not heads.isVisible()
    assert header(inspector, 0) == "h1"
    session.select(hook="ln2.hook_scale")
    assert header(inspector, 0) == "σ1"


def row_labels(inspector) -> list[str]:
    return [inspector.model.headerData(r, Qt.Vertical) for r in range(inspector.model.rowCount())]


def test_rows_are_named_by_token(inspector, session):
    """In English, glossed as the attention maps gloss their queries where the room is."""
    from app import i18n
    assert row_labels(inspector) == [i18n.glossed(token) for token in session.tokens]
    assert row_labels(inspector)[:2] == ["小明 Xiaoming", "把 (object marker)"]


def test_the_row_labels_carry_their_gloss_only_where_every_column_stays_whole(qtbot, inspector, session):
    """English: at 520 px the rows are glossed with every column whole, the attention weights'
    five six-digit columns too; in a narrow inspector the gloss would push a column out of sight:
    the tokens alone. Chinese never glosses."""
    from app import i18n
    table = inspector.findChild(QTableView, "inspectorTable")
    for hook in ("hook_resid_pre", "attn.hook_pattern"):
        session.select(hook=hook)
        assert row_labels(inspector)[0] == "小明 Xiaoming", hook
        assert table.content_width() <= inspector.width(), hook
    inspector.resize(300, 420)
    settle(lambda: row_labels(inspector)[0] == "小明")
    assert row_labels(inspector) == list(session.tokens)
    inspector.resize(520, 420)
    settle(lambda: row_labels(inspector)[0] == "小明 Xiaoming")
    try:
        i18n.install("zh")
        session.select(hook="mlp.hook_post")
        assert row_labels(inspector) == list(session.tokens)
    finally:
        i18n.install("en")


def test_outlined_cells_follow_the_head_shown(inspector, session):
    session.select(hook="attn.hook_pattern", head=0)
    session.set_highlight(cells=[("attn.hook_pattern", (1, 2, 0))])
    assert inspector.model.outlined == set()                   # the cell is on head 2
    session.select(head=1)
    assert inspector.model.outlined == {(2, 0)}
    session.set_highlight()
    assert inspector.model.outlined == set()
    inspector.set_outlined([("attn.hook_pattern", (1, 3, 1))])
    assert inspector.model.outlined == {(3, 1)}


def test_clicking_a_cell_explains_it(qtbot, inspector, session):
    session.select(hook="mlp.hook_post")
    table = inspector.findChild(QTableView, "inspectorTable")
    rect = table.visualRect(inspector.model.index(3, 2))
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=rect.center())
    assert (session.selected_token, session.selected_column) == (3, 2)
    text = inspector.findChild(QPlainTextEdit, "inspectorExplanation").toPlainText()
    assert text.splitlines()[0].startswith(f"mlp.hook_post[3, 2]  ({session.tokens[3]})")


def test_an_edit_updates_the_table_in_place(inspector, session):
    session.select(hook="mlp.hook_pre")
    resets = []
    inspector.model.modelReset.connect(lambda: resets.append(1))
    assert session.set_value("W_in", (0, 0), 3.0)
    np.testing.assert_array_equal(shown_array(inspector), session.trace["mlp.hook_pre"])
    assert resets == []                                        # same shape: no reset
    assert session.set_config(d_ff=8)
    assert resets and inspector.model.columnCount() == 8


def test_an_edit_rewrites_the_worked_formula_as_anew(inspector, session):
    """The explanation's changed lines are rewritten in place (its scroll bars are not reset per
    edit), and it reads as a fresh setPlainText would: the whole new text, from its top, nothing
    selected, no undo history kept."""
    from core.explain import explain
    session.select(hook="mlp.hook_pre", token=1, column=0)
    box = inspector.findChild(QPlainTextEdit, "inspectorExplanation")
    box.resize(box.width(), 60)                                # short: it scrolls
    before = box.toPlainText()
    for value in (3.0, -2.5, 0.125):
        if value < 0:
            cursor = box.textCursor()
            cursor.setPosition(3)
            cursor.setPosition(12, cursor.MoveMode.KeepAnchor)     # the learner selected some text
            box.setTextCursor(cursor)
        box.verticalScrollBar().setValue(box.verticalScrollBar().maximum())    # and scrolled down
        assert box.verticalScrollBar().value() > 0
        assert session.set_value("W_in", (0, 0), value)
        weights = {name: session.tensor(name) for name in session.tensor_names() if name not in ("inputs", "targets")}
        worded = inspector.worded(explain(session.config, weights, session.trace, "mlp.hook_pre", (1, 0)))
        assert box.toPlainText().split("\n", 1)[1] == worded
        assert box.textCursor().position() == 0 and not box.textCursor().hasSelection()
        assert box.verticalScrollBar().value() == 0
    assert box.toPlainText() != before
    assert box.document().availableUndoSteps() == 0


def test_rmsnorm_hooks_read_differently(inspector, session):
    session.select(hook="ln1.hook_scale")
    title = inspector.findChild(QLabel, "inspectorTitle")
    layer_norm = title.text()
    assert session.set_config(norm="rmsnorm")
    assert title.text() != layer_norm and "Σⱼ sⱼ²/d" in title.text()
    assert inspector.findChild(QLabel, "inspectorSentence").text()


# --- size: a lesson's tensor whole, at 1024×768 and zoomed -----------------------------------

@pytest.fixture
def zoom():
    """The interface zoom, put back after the test (appearance() is one per application)."""
    from app.widgets.appearance import appearance
    yield appearance()
    appearance().set_zoom(1.0)
    appearance().set_presenting(False)


def eight_token_session():
    from app.session import Session
    from core.formats.generate import random_scenario
    from tests.app.helpers import FakeClock
    return Session(random_scenario(8, 4, 2, 2, 6), clock=FakeClock())


def all_rows_shown(table) -> bool:
    rows = table.model().rowCount()
    return (not table.verticalScrollBar().isVisible()
            and table.rowViewportPosition(rows - 1) + table.rowHeight(rows - 1) <= table.viewport().height())


def test_eight_tokens_show_whole_in_the_space_of_a_1024x768_window(qtbot):
    """At 1024×768 the window gives the inspector about 290 × 330 px."""
    widget = show(qtbot, Inspector(eight_token_session()), 290, 330)
    assert widget.model.rowCount() == 8
    settle(lambda: all_rows_shown(widget.table))          # once the layout has settled
    assert widget.explanation.height() >= 2 * widget.explanation.fontMetrics().lineSpacing()


def test_zoom_scales_the_cells_to_projector_size(qtbot, zoom):
    widget = show(qtbot, Inspector(eight_token_session()), 600, 560)
    small = widget.table.fontInfo().pixelSize()
    zoom.set_zoom(1.5)
    assert widget.table.fontInfo().pixelSize() >= max(16, small + 4)       # at least 16 px text
    assert widget.table.rowHeight(0) > widget.table.fontMetrics().height()
    assert widget.explanation.fontInfo().pixelSize() >= 16
    settle(lambda: all_rows_shown(widget.table))
    zoom.set_zoom(1.0)
    assert widget.table.fontInfo().pixelSize() == small


@pytest.mark.parametrize("hook", ["hook_resid_post", "hook_mlp_out", "attn.hook_pattern"])
@pytest.mark.parametrize("width", [300, 420])
def test_given_its_wanted_height_the_explanation_shows_its_whole_text(qtbot, zoom, session, hook, width):
    """The worked formula (10 to 15 lines in presentation mode at 300 px) does not scroll in the
    height the inspector asks for at its width; three lines less and it would: the measure is
    close enough for a layout to give the inspector the room it needs rather than make it scroll
    (it counts the lines as wrapped beside a scroll bar, so a box that had one loses it)."""
    zoom.set_presenting(True)                      # 16 px text, as a projector shows it
    session.select(hook=hook)
    widget = show(qtbot, Inspector(session), width, 900)
    wanted = widget.wanted_height(width)
    widget.resize(width, wanted)
    explanation, table = widget.explanation, widget.table
    rows = widget.model.rowCount()
    settle(lambda: explanation.height() >= explanation.content_height() and all_rows_shown(table))
    assert explanation.verticalScrollBar().maximum() == 0 and not explanation.verticalScrollBar().isVisible()
    assert len(explanation.toPlainText().splitlines()) >= 4
    assert rows <= 8 and table.height() >= table.content_height(rows)
    widget.resize(width, wanted - 3 * explanation.fontMetrics().lineSpacing())
    settle(lambda: explanation.verticalScrollBar().maximum() > 0)


# --- large hooks: virtual, an overview, only changed cells repainted -------------------------

@pytest.fixture
def large(qtbot):
    from app.session import Session
    from core.formats.generate import preset
    from tests.app.helpers import FakeClock
    session = Session(preset("d64"), clock=FakeClock())
    widget = show(qtbot, Inspector(session), 520, 420)
    yield widget, session
    widget.close()


def test_a_large_hook_is_a_virtual_table_with_an_overview(large):
    widget, session = large
    session.select(hook="mlp.hook_pre")
    model, table = widget.model, widget.table
    assert (model.rowCount(), model.columnCount()) == (16, 256)
    assert table.horizontalHeader().sectionResizeMode(0) == table.horizontalHeader().ResizeMode.Fixed
    assert widget.overview.isVisible() and widget.overview.shape == (16, 256)
    asked = []
    original, look = model.data, model.cell_look
    model.data = lambda index, role=Qt.DisplayRole: (asked.append((index.row(), index.column())), original(index, role))[1]
    model.cell_look = lambda row, column: (asked.append((row, column)), look(row, column))[1]   # (what paints)
    table.viewport().repaint()
    first_row, last_row, first_column, last_column = table.visible_cells()
    assert asked and all(first_row <= r <= last_row and first_column <= c <= last_column for r, c in asked)
    assert len(set(asked)) < 16 * 256 // 10                                   # only what is on screen


def test_an_edit_repaints_only_the_cells_it_changed(large):
    widget, session = large
    session.select(hook="mlp.hook_pre")
    changed, resets = [], []
    widget.model.dataChanged.connect(lambda top, bottom, roles: changed.append(
        (top.row(), top.column(), bottom.row(), bottom.column())))
    widget.model.modelReset.connect(lambda: resets.append(1))
    assert session.set_value("W_in", (3, 40), 0.5)               # hidden unit 40: one column
    assert resets == [] and changed == [(0, 40, 15, 40)]
    np.testing.assert_array_equal(shown_array(widget), session.trace["mlp.hook_pre"])
    session.select(hook="attn.hook_pattern")
    changed.clear()
    assert session.set_value("W_in", (3, 41), 0.5)               # the FFN does not touch attention:
    assert changed == []                                          # nothing to repaint


def test_clicking_the_overview_goes_to_that_cell(qtbot, large):
    widget, session = large
    session.select(hook="mlp.hook_pre")
    overview = widget.overview
    qtbot.mouseClick(overview, Qt.LeftButton, pos=overview.point_of(12, 200))
    row, column = session.selected_token, session.selected_column
    per_pixel = 256 / (overview.width() - 2)                             # a pixel holds a few columns
    assert row == 12 and abs(column - 200) <= per_pixel + 1
    assert widget.table.currentIndex().row() == row and widget.table.currentIndex().column() == column
    first_row, last_row, first_column, last_column = widget.table.visible_cells()
    assert first_row <= row <= last_row and first_column <= column <= last_column
    assert f"mlp.hook_pre[{row}, {column}]" in widget.equation_text()


# --- export ----------------------------------------------------------------------------------

def test_export_the_hook_and_the_equation(inspector, session, tmp_path, qtbot):
    from PySide6.QtGui import QGuiApplication
    from core.formats.tensor_file import fit, read_tensor
    session.select(hook="attn.hook_pattern", token=2, column=1)
    for suffix in (".csv", ".npy"):
        with qtbot.waitSignal(session.message) as told:
            assert inspector.export_tensor(tmp_path / f"pattern{suffix}")
        assert "pattern" in told.args[0]
        back = fit(read_tensor(tmp_path / f"pattern{suffix}"), session.trace["attn.hook_pattern"].shape)
        np.testing.assert_array_equal(back, session.trace["attn.hook_pattern"])     # every head, every digit
    text = inspector.equation_text()
    assert text.startswith("attn.hook_pattern[0, 2, 1]") and "p = exp(s − max)" in text
    inspector.copy_equation()
    assert QGuiApplication.clipboard().text() == text
    assert inspector.save_equation(tmp_path / "eq.txt")
    assert (tmp_path / "eq.txt").read_text(encoding="utf-8") == text + "\n"
    names = [action.objectName() for action in inspector.context_menu().actions() if action.objectName()]
    assert names == ["inspectorExportCsv", "inspectorExportNpy", "inspectorCopyEquation", "inspectorSaveEquation"]


def test_an_export_that_cannot_be_written_says_so(inspector, session, tmp_path, qtbot):
    with qtbot.waitSignal(session.message) as told:
        assert not inspector.export_tensor(tmp_path / "no such folder" / "x.csv")
    assert "x.csv" in told.args[0]
    with qtbot.waitSignal(session.message):
        assert not inspector.export_tensor(tmp_path / "x.xlsx")


# --- the later generations, an unknown hook, the language ------------------------------------

def test_qk_norm_gate_and_clamp_hooks_are_worded(qtbot):
    from app.explorer.inspector import STEP_SENTENCES, ZERO_CENTRED_SENTENCE
    from app.session import Session
    from core.explain import Step
    from core.labs.generations import preset
    session = Session(preset("divergence"))
    widget = show(qtbot, Inspector(session), 520, 420)
    sentence = widget.findChild(QLabel, "inspectorSentence")
    for hook, step in (("attn.hook_q_normed", Step.QK_NORM), ("attn.hook_attn_scores", Step.NORMED_SCORE),
                       ("attn.hook_gate_sigmoid", Step.GATE_SIGMOID), ("attn.hook_z_gated", Step.GATED_Z),
                       ("mlp.hook_pre_clamped", Step.CLAMP_UP), ("mlp.hook_post", Step.CLAMPED_ACTIVATION)):
        session.select(hook=hook, token=4, column=0)
        assert sentence.text().startswith(STEP_SENTENCES[step]), hook
        assert widget.title.full_text().startswith(hook) and "—" in widget.title.full_text()
    session.select(hook="hook_resid_post")
    session.select(hook="ln2.hook_out")
    assert ZERO_CENTRED_SENTENCE in sentence.text()                           # the gain is 1 + w
    assert "(1 + w)" in widget.equation_text()
    widget.close()


def test_chinese_sentences_join_without_a_space_beside_the_full_width_stop(qtbot):
    """The step's sentence and the zero-centred norm's note, in Chinese: 。 then the next
    sentence, no half-width space between (tools/chinese_punctuation.py)."""
    from app import i18n
    from app.session import Session
    from core.labs.generations import preset
    from tools.chinese_punctuation import problems
    i18n.install("zh")
    session = Session(preset("divergence"))
    widget = show(qtbot, Inspector(session), 520, 420)
    session.select(hook="ln2.hook_out")
    text = widget.findChild(QLabel, "inspectorSentence").text()
    assert "零中心归一化" in text and "。零中心" in text
    assert not problems(text, chinese=True), text
    widget.close()


def test_a_hook_explain_cannot_explain_is_shown_not_a_crash(qtbot, session, monkeypatch):
    from app.explorer import inspector as module
    from app.explorer.inspector import STEP_SENTENCES
    from core.explain import Step

    def refuse(*args):
        raise KeyError("attn.hook_rot_q")
    monkeypatch.setattr(module, "explain", refuse)
    widget = show(qtbot, Inspector(session), 520, 420)
    assert widget.findChild(QLabel, "inspectorSentence").text() == STEP_SENTENCES[Step.UNEXPLAINED]
    widget.close()


def test_the_language_switches_live_and_keeps_the_selection(inspector, session):
    from app import i18n
    session.select(hook="mlp.hook_post", token=2, column=3)
    heads_before = inspector.head_combo.count()
    sentence = inspector.findChild(QLabel, "inspectorSentence")
    english = sentence.text()
    i18n.install("zh")
    try:
        settle(lambda: sentence.text() != english)
        assert "激活" in sentence.text() and "隐藏单元" in inspector.title.full_text()
        assert (session.selected_hook, session.selected_token, session.selected_column) == ("mlp.hook_post", 2, 3)
        assert inspector.table.currentIndex().row() == 2 and inspector.head_combo.count() == heads_before
    finally:
        i18n.install("en")
    settle(lambda: sentence.text() == english)


def test_a_hook_the_session_did_not_recompute_is_not_looked_at_again(qtbot):
    """Above core's small-block threshold an edit recomputes only what it can change
    (trace.recomputed); the inspector then leaves its table alone."""
    from app.session import Session
    from core.formats.generate import preset
    from tests.app.helpers import FakeClock
    session = Session(preset("d256"), clock=FakeClock())
    widget = show(qtbot, Inspector(session), 520, 420)
    session.select(hook="attn.hook_pattern", token=3, column=5)
    looked = []
    original = widget.model.set_slice
    widget.model.set_slice = lambda *args: (looked.append(1), original(*args))[1]
    assert session.set_value("W_in", (0, 7), 0.5)
    assert "attn.hook_pattern" not in session.trace.recomputed
    assert looked == []
    assert session.set_value("W_Q", (1, 0, 0), 0.5)                 # head 2's pattern changes
    assert looked == [1]
    np.testing.assert_array_equal(shown_array(widget), session.trace["attn.hook_pattern"][0])
    widget.close()


def test_a_row_too_wide_for_the_inspector_stands_up_labelled_and_exports_as_it_is(qtbot, tmp_path):
    """A one-row slice whose columns do not fit the inspector's width is shown standing: its units
    down (labelled h1 … h6 as its columns were), its token across, a note beside it saying so, and
    no scroll bar across; a click still picks that unit; the export is the hook as it is (1 × 6).
    Given the width, the row lies flat again."""
    from app.session import Session
    from core.formats.generate import random_scenario
    from core.formats.tensor_file import read_tensor
    from tests.app.fit_helpers import sideways_tables
    from tests.app.helpers import FakeClock
    session = Session(random_scenario(1, 4, 2, 2, 6), clock=FakeClock())
    widget = show(qtbot, Inspector(session), 220, 460)
    session.select(hook="mlp.hook_post", token=0, column=3)
    model, table = widget.model, widget.table
    post = session.trace["mlp.hook_post"]
    settle(lambda: model.transposed)
    assert (model.rowCount(), model.columnCount()) == (6, 1)
    assert [model.headerData(r, Qt.Vertical) for r in range(6)] == [f"h{k}" for k in range(1, 7)]
    assert model.headerData(0, Qt.Horizontal) == session.tokens[0]
    assert model.index(5, 0).data(Qt.ToolTipRole) == model.index_of(0, 5).data(Qt.ToolTipRole)
    assert table.currentIndex().row() == 3 and table.currentIndex().column() == 0
    note = widget.findChild(QLabel, "inspectorTurnedNote")
    assert note.isVisible() and f"{session.tokens[0]}" in note.text() and "h1…h6" in note.text().replace("\u2060", "")
    assert "[1×6]" in widget.findChild(QLabel, "inspectorTitle").text()
    widget.set_outlined([("mlp.hook_post", (0, 4)), ("hook_resid_post", (0, 1))])
    assert model.outlined == {(0, 4)} and model.outlined_view == {(4, 0)}   # h5, standing: the fifth row
    settle(lambda: table.horizontalScrollBar().maximum() == 0)
    assert sideways_tables(widget) == []
    qtbot.mouseClick(table.viewport(), Qt.LeftButton, pos=table.visualRect(model.index(1, 0)).center())
    assert session.selected_index("mlp.hook_post") == (0, 1)
    assert widget.explanation.toPlainText().startswith("mlp.hook_post[0, 1]")
    assert widget.export_tensor(tmp_path / "post.npy")
    np.testing.assert_array_equal(read_tensor(tmp_path / "post.npy"), post)       # 1 × 6, as it is
    session.select(hook="attn.hook_pattern")      # a 1 × 1 slice: flat, the table's width free again
    settle(lambda: not note.isVisible())
    assert not model.transposed and table.maximumWidth() > 10_000
    assert widget.sentence.geometry().top() > table.geometry().bottom()          # the sentence under the table
    session.select(hook="hook_resid_post")        # another row that stands: its own cell outlined
    settle(lambda: model.transposed and note.isVisible() and model.rowCount() == 4)
    assert model.outlined_view == {(1, 0)} and "d1…d4" in note.text().replace("\u2060", "")
    session.select(hook="mlp.hook_post")
    settle(lambda: model.transposed and note.isVisible() and model.rowCount() == 6)
    assert model.outlined_view == {(4, 0)}
    widget.resize(800, 460)
    settle(lambda: not model.transposed)
    assert (model.rowCount(), model.columnCount()) == (1, 6) and not note.isVisible()
    assert table.currentIndex().row() == 0 and table.currentIndex().column() == 1
    settle(lambda: table.horizontalScrollBar().maximum() == 0)
    assert sideways_tables(widget) == []


def test_an_edit_measures_no_row_label_again(inspector, session, monkeypatch):
    """Whether the glossed labels fit is decided after every edit; the labels' widths are those of
    the tokens, the font and the language, measured once (Issue 13: an edit's work)."""
    from app import i18n
    session.select(hook="hook_resid_post")
    settle(lambda: row_labels(inspector)[0] == "小明 Xiaoming")
    measured = []
    plain = i18n.glossed
    monkeypatch.setattr(i18n, "glossed", lambda token: measured.append(token) or plain(token))
    for value in (0.625, -1.375, 2.125):
        assert session.set_value("W_in", (0, 0), value)
        for _ in range(3):
            QApplication.processEvents()
    assert measured == []
    assert row_labels(inspector)[:2] == ["小明 Xiaoming", "把 (object marker)"]
    inspector.resize(300, 420)                              # (the room still decides: tokens alone)
    settle(lambda: row_labels(inspector)[0] == "小明")
