"""The generations lab: each part alone on a Session (driven as a learner does, checked against
core), the slow demonstrations' worker, and one whole-window flow (a lesson step shows the
table, a cell click loads a preset, a step shows a demonstration)."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QTableWidget

from app.session import Session
from core.formats.scenario import load_scenario
from core.labs import generations as core
from core.numbers import format_number
from core.params import ModelShape
from tests.app.helpers import FakeClock, settle, show
from tests.conftest import ROOT, SCENARIOS

LESSON = ROOT / "resources" / "lessons" / "generations.json"


def plain(text: str) -> str:
    import html
    import re
    text = re.sub(r"<br\s*/?>", "\n", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\u200b", "")


@pytest.fixture
def session(qapp):
    return Session(load_scenario(SCENARIOS / "block-default.json"), clock=FakeClock())


@pytest.fixture
def panel(qtbot, session):
    from app.labs.generations import GenerationsPanel
    widget = show(qtbot, GenerationsPanel(session), 1000, 700)
    yield widget
    widget.close()


# --- the table ---------------------------------------------------------------------------------
def test_the_table_shows_every_cell_in_a_few_words_and_the_one_pointed_at_in_full(qtbot):
    from app.labs.generations.table import GenerationsTablePart
    part = show(qtbot, GenerationsTablePart(), 1000, 700)
    assert len(part.cards) == len(core.table()) == 20
    card = part.cards[("residual", "original")]
    assert plain(card.text.text()) == "x + F(x) after each sub-layer"
    assert plain(card.stuck.text()) == "⚠ σ grows to 11.36"
    assert not part.cards[("residual", "llama")].stuck.isVisible()          # a cell that got stuck on nothing
    for card in part.cards.values():
        assert card.text.wordWrap() and card.text.isVisible()
    assert "Point at a cell" in plain(part.details.text())
    # pointing at a card shows it whole below the map, the sources too at the desk
    qtbot.mouseMove(part.cards[("residual", "original")])
    settle(lambda: part.shown_cell() == ("residual", "original"))
    details = plain(part.details.text())
    assert "Every sub-layer writes back x + F(x)" in details and "Stuck at: The stream keeps growing" in details
    assert "√129 = 11.36" in details and "He et al. 2015" in details
    # the details keep the room the longest cell needs: pointing never moves what lies below
    height = part.details.height()
    for key in (("ffn", "llama"), ("gating", "gpt2")):
        part.cards[key].setFocus()                                        # the keyboard points too
        settle(lambda key=key: part.shown_cell() == key)
        assert part.details.height() == height
        assert part.details.heightForWidth(part.details.width()) <= height
    with qtbot.waitSignal(part.cellChosen) as chosen:
        qtbot.mouseClick(part.cards[("gating", "llama")], Qt.MouseButton.LeftButton)
    assert chosen.args == ["gating", "llama"]
    details = plain(part.details.text())
    assert "46.7 %: Qiu et al. 2025, Table 4 — reproduced in “The attention sink and the output gate”" in details
    assert part.demonstration.isVisible()
    with qtbot.waitSignal(part.demonstrationRequested) as requested:
        part.demonstration.click()
    assert requested.args == ["attention_sink"]
    part.set_loaded("llama")
    assert part.column_head("llama").endswith("● in the explorer") and "●" not in part.column_head("gpt2")
    assert part.column_head("original").startswith("2017\nThe original")
    card = part.cards[("ffn", "gpt2")]
    card.setFocus()
    with qtbot.waitSignal(part.cellChosen) as chosen:
        qtbot.keyClick(card, Qt.Key.Key_Space)                                # the keyboard too
    assert chosen.args == ["ffn", "gpt2"]


def test_a_cell_click_loads_that_generations_preset_into_the_session(panel, session, qtbot):
    assert panel.current_part() == "table"
    qtbot.mouseClick(panel.table.cards[("norm", "anchor")], Qt.MouseButton.LeftButton)
    assert session.config == core.preset_config("anchor")
    assert np.array_equal(session.trace.output, core.preset("anchor").run().output)
    assert panel.table.loaded_generation == "anchor"
    assert session.undo_stack.count() == 0                                     # a load, not an edit
    qtbot.mouseClick(panel.table.cards[("residual", "divergence")], Qt.MouseButton.LeftButton)
    assert session.config == core.preset_config("anchor")                      # nothing to load there
    assert "nothing to load" in plain(panel.table.details.text())


# --- one generation in the explorer --------------------------------------------------------------
def test_the_preset_part_flips_generations_and_shows_every_generations_output(panel, session, qtbot):
    panel.set_focus("preset")
    preset = panel.preset
    for generation in core.GENERATIONS:
        qtbot.mouseClick(preset.buttons[generation], Qt.MouseButton.LeftButton)
        assert session.config == core.preset_config(generation)
        assert [g for g, button in preset.buttons.items() if button.isChecked()] == [generation]
        title = next(g.title.en for g in core.generations() if g.id == generation)
        assert preset.title.text() == title
    last = core.preset("original").run().output[-1]
    assert [preset.outputs.item(0, c).text() for c in range(4)] == [f"{v:.2f}".replace("-", "−") for v in last]
    assert preset.outputs.item(4, 0).font().bold() and not preset.outputs.item(0, 0).font().bold()
    assert "clamped at 7" in preset.built.text() and "QK-Norm" in preset.built.text()
    session.set_config(activation="gelu")                                      # a block of the learner's own
    assert preset.title.text().startswith("The explorer holds a block of your own")
    assert not any(button.isChecked() for button in preset.buttons.values())


def test_the_preset_part_fits_the_lab_column_of_a_1024_window(qtbot, session):
    from app.labs.generations.preset import GenerationPresetPart
    part = show(qtbot, GenerationPresetPart(session), 660, 400)     # the lab's width at 1024×768
    part.refresh()
    assert part.minimumSizeHint().width() <= 660
    part.layout().activate()
    assert part.compare.geometry().right() < 660 and part.outputs.geometry().right() < 660


# --- side by side ---------------------------------------------------------------------------------
def test_side_by_side_lists_the_common_hooks_and_their_difference(qtbot, session):
    from app.labs.generations.compare import GenerationsComparePart
    part = show(qtbot, GenerationsComparePart(session), 900, 700)
    part.set_pair("original", "anchor")
    expected = core.compare_generations("original", "anchor")
    table = part.table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [d.hook for d in expected.common]
    out = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "hook_resid_post")
    assert table.item(out, 3).text() == f"{expected.get('hook_resid_post').largest:.4f}"
    pre = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "mlp.hook_pre")
    assert (table.item(pre, 1).text(), table.item(pre, 2).text(), table.item(pre, 3).text()) == (
        "5×16", "5×10", "shapes differ")
    assert "Only in B: " in part.summary.text() and "attn.hook_z_gated" in part.summary.text()
    table.selectRow(out)
    a, b, difference = (image.image for image in part.maps)
    assert np.array_equal(a, core.preset("original").run()["hook_resid_post"])
    assert np.allclose(difference, expected.get("hook_resid_post").difference)
    with qtbot.waitSignal(part.hookChosen) as chosen:
        table.selectRow(pre)
    assert chosen.args == ["mlp.hook_pre"] and "The shapes differ (5×16 and 5×10)" in part.map_note.text()
    session.load(core.preset("llama"))
    part.follow_session()
    assert part.pair() == ("gpt2", "llama")


def _map_picture_formats(qtbot, session) -> list:
    """The formats of the pictures the side-by-side maps draw from, painted (plain values only)."""
    from app.labs.generations.compare import GenerationsComparePart
    part = show(qtbot, GenerationsComparePart(session), 900, 700)
    part.set_pair("original", "anchor")
    part.grab()
    return [image.qimage.format() if image.qimage is not None else None for image in part.maps]


def test_the_side_by_side_maps_are_drawn_from_32_bit_colour(qtbot, session):
    """Not Qt's slow indexed path, every paint (the explorer's MapImage)."""
    from PySide6.QtGui import QImage
    assert _map_picture_formats(qtbot, session) == [QImage.Format.Format_ARGB32_Premultiplied] * 3


@pytest.mark.parametrize("language", ["en", "zh"])
def test_presenting_the_stacked_maps_token_labels_never_overlap(qtbot, session, language):
    """On a 1024×768 projector the three maps stand one above the other beside the table, each
    about 75 px for 5 token rows: the rows' labels (小明 把 苹果 给了 小王) were drawn one into
    the next. As many as the map's height holds are drawn, one line apart, the first among them."""
    from app import i18n
    from app.explorer.plots.ticks import drawn_tick_texts
    from app.labs.generations.compare import GenerationsComparePart
    from app.widgets.appearance import appearance
    i18n.install(language)
    try:
        appearance().set_presenting(True)
        part = show(qtbot, GenerationsComparePart(session), 1020, 595)   # the lab's room at 1024×768
        part.set_pair("original", "gpt2")
        settle(lambda: all(drawn_tick_texts(plot.getAxis("left")) for plot in part.map_plots))
        for plot in part.map_plots:
            drawn = sorted(drawn_tick_texts(plot.getAxis("left")), key=lambda item: item[0].top())
            assert len(drawn) >= 2 and drawn[0][1] == session.tokens[0], drawn
            for (upper, _text), (lower, _next) in zip(drawn, drawn[1:]):
                assert upper.bottom() <= lower.top() + 1, [(rect.getRect(), text) for rect, text in drawn]
        part.resize(1020, 1400)                              # room for every row: every token labelled
        settle(lambda: len(drawn_tick_texts(part.map_plots[0].getAxis("left"))) == len(session.tokens))
    finally:
        i18n.install("en")



@pytest.mark.parametrize("language", ["en", "zh"])
def test_presenting_at_1024x768_the_compare_list_shows_all_22_hooks_and_still_answers_clicks(qtbot, session,
                                                                                           language):
    """On a 1024×768 projector the A-vs-B list of 2017 and 2019 showed 17 (Chinese 18) of its 22
    hooks and a scroll bar: nobody scrolls a projected table. Now every row stands whole in the
    lab's room (lower rows, never lower than a line of their text; the maps' note under the maps),
    the page keeps the room, and the list still shows core's numbers and answers a click."""
    from PySide6.QtGui import QFontMetricsF
    from app import i18n
    from app.labs.generations.compare import DECIMALS, GenerationsComparePart
    from app.widgets.appearance import appearance
    from tests.app.fit_helpers import cut_tables
    i18n.install(language)
    try:
        part = show(qtbot, GenerationsComparePart(session), 1020, 595)   # the lab's room at 1024×768
        part.set_pair("original", "gpt2")                                # the lesson's step 6
        appearance().set_presenting(True)                                # F5
        table = part.table
        expected = core.compare_traces(core.preset("original").run(), core.preset("gpt2").run())
        settle(lambda: part.maps_box.x() > part.table_box.x() and part.table_box.height() > 400)   # beside
        assert cut_tables(part) == []                                     # says how many rows are seen
        assert part.size().toTuple() == (1020, 595)                       # the part fits its room
        assert table.rowCount() == len(expected.common) == 22 and table.verticalScrollBar().maximum() == 0
        viewport, line = table.viewport().rect(), QFontMetricsF(table.font()).height()
        for r in range(table.rowCount()):
            cell = table.visualRect(table.model().index(r, 0))
            assert viewport.contains(cell) and cell.height() >= line, (r, cell.getRect(), viewport.getRect())
        assert part.map_note.isVisible() and part.maps_box.isAncestorOf(part.map_note)
        # core's hooks and numbers, exact
        assert [table.item(r, 0).text() for r in range(22)] == [row.hook for row in expected.common]
        assert [table.item(r, 3).text() for r in range(22)] == [format_number(row.largest, DECIMALS)
                                                               for row in expected.common]
        # the chosen hook is selected; a click on another row shows that hook's maps
        assert [index.row() for index in table.selectionModel().selectedRows()] == [21]
        pre = [row.hook for row in expected.common].index("mlp.hook_pre")
        with qtbot.waitSignal(part.hookChosen) as chosen:
            qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                             pos=table.visualRect(table.model().index(pre, 1)).center())
        assert chosen.args == ["mlp.hook_pre"]
        assert [index.row() for index in table.selectionModel().selectedRows()] == [pre]
        a, b, difference = (image.image for image in part.maps)
        assert np.array_equal(a, core.preset("original").run()["mlp.hook_pre"])
        assert np.array_equal(difference, expected.get("mlp.hook_pre").difference)
        # at the desk the rows are as tall as their texts ask again, the table whole, the note below
        appearance().set_presenting(False)
        settle(lambda: not part.maps_box.isAncestorOf(part.map_note))
        assert table.rowHeight(0) == max(table.sizeHintForRow(0), table.verticalHeader().sectionSizeHint(0)) > line
        assert table.height() == table.horizontalHeader().height() + 2 * table.frameWidth() + sum(
            table.rowHeight(r) for r in range(22))
    finally:
        i18n.install("en")



def test_presenting_a_longer_list_keeps_rows_a_line_of_text_high_and_shows_the_chosen_hook(qtbot, session):
    """A pair with more hooks than 1024×768 holds even at a line of text per row (2024 and 2026
    share 32): rows are never made lower than their text, no row is cut in half, and the chosen
    hook's row is in view (the list scrolls; no lesson step shows such a pair)."""
    from PySide6.QtGui import QFontMetricsF
    from app.labs.generations.compare import GenerationsComparePart
    from app.widgets.appearance import appearance
    part = show(qtbot, GenerationsComparePart(session), 1020, 595)
    appearance().set_presenting(True)
    part.set_pair("anchor", "divergence")
    table = part.table
    settle(lambda: part.maps_box.x() > part.table_box.x() and part.table_box.height() > 400)
    assert table.rowCount() == 32 and table.verticalScrollBar().maximum() > 0
    line = QFontMetricsF(table.font()).height()
    assert all(table.rowHeight(r) >= line for r in range(32))
    viewport = table.viewport().rect()
    rows = [table.visualRect(table.model().index(r, 0)) for r in range(32)]
    assert not [r for r, rect in enumerate(rows) if viewport.intersects(rect) and not viewport.contains(rect)]
    assert viewport.contains(rows[table.currentRow()]) and table.item(table.currentRow(), 0).text() == part.hook

# --- the slow demonstrations -----------------------------------------------------------------------
def test_the_worker_reports_progress_results_cancels_and_failures(qtbot, qapp):
    from app.widgets.worker import Worker
    worker = Worker()
    fractions = []
    worker.progressed.connect(fractions.append)
    with qtbot.waitSignal(worker.finished, timeout=30_000) as done:
        worker.start(lambda progress: core.residual_growth(32, progress=progress))
    assert done.args[0].writes[-1] == 32 and not worker.is_running()
    settle(lambda: fractions and fractions[-1] == 1.0)
    assert fractions == sorted(fractions)
    with qtbot.waitSignal(worker.cancelled, timeout=30_000):
        worker.start(lambda progress: core.residual_growth(4096, progress=progress))
        worker.cancel()
    with qtbot.waitSignal(worker.failed, timeout=30_000) as failed:
        worker.start(lambda progress: 1 / 0)
    assert "ZeroDivisionError" in failed.args[0]
    results = []
    worker.finished.connect(results.append)
    worker.start(lambda progress: core.residual_growth(4096, progress=progress))
    with qtbot.waitSignal(worker.finished, timeout=30_000):
        worker.start(lambda progress: "the newer run")                           # replaces the older
    settle(lambda: not worker.is_running())
    assert results == ["the newer run"]


def test_settle_waits_for_the_slow_demonstration_before_a_screenshot(qtbot, qapp):
    from app.widgets import worker as workers
    from app.labs.generations.residual import ResidualGrowthPart
    part = show(qtbot, ResidualGrowthPart(), 900, 700)
    part.ensure_run()
    assert workers.settle(qapp)
    assert not part.worker.is_running() and 64 in part.results and "After 128 writes" in part.result.text()


def test_residual_growth_runs_off_the_gui_thread_and_draws_the_seeds_numbers(qtbot):
    from app.labs.generations.residual import ResidualGrowthPart
    part = show(qtbot, ResidualGrowthPart(), 900, 700)
    with qtbot.waitSignal(part.worker.finished, timeout=60_000):
        part.ensure_run()
        assert part.run_bar.bar.isVisible() and part.run_bar.cancel_button.isVisible()
    plain_run, remedy = part.results[64]
    reference = core.residual_growth(128)
    assert np.array_equal(part.measured_curve.getData()[1], reference.measured)
    assert np.array_equal(part.expected_curve.getData()[1], reference.expected)
    assert remedy.scale == core.gpt2_write_scale(64)
    assert "After 128 writes" in part.result.text() and "√(1 + 128) = 11.36" in part.result.text()
    assert "0.02 ÷ √8 = 0.00707" in part.remedy.text()
    assert not part.run_bar.bar.isVisible()
    part.layers.setValue(4)                                       # cancelled by the learner: nothing drawn
    with qtbot.waitSignal(part.worker.cancelled, timeout=60_000):
        part.run()
        part.run_bar.cancel_button.click()
    assert "Cancelled" in part.run_bar.label.text() and part.shown_layers == 64
    assert "With 4 layers: 0.02 ÷ √8 = 0.00707" in part.remedy.text()


def test_post_ln_against_pre_ln_across_depth(qtbot):
    from app.labs.generations.placement import PlacementPart
    part = show(qtbot, PlacementPart(), 900, 700)
    part.layers.setValue(6)
    with qtbot.waitSignal(part.worker.finished, timeout=60_000):
        part.run()
    post, pre = core.compare_placements(6)
    assert np.array_equal(part.curves[("stream", "pre")].getData()[1], pre.stream_rms)
    assert np.array_equal(part.curves[("update", "post")].getData()[1], post.relative_update)
    assert f"grows from {pre.stream_rms[0]:.2f} to {pre.stream_rms[-1]:.2f} over 6 layers" in part.result.text()


def test_swiglu_overflow_with_the_learners_input(qtbot):
    from app.labs.generations.overflow import SwigluOverflowPart
    part = show(qtbot, SwigluOverflowPart(), 900, 700)
    facts = part.facts.text()
    assert "SiLU(10) × 10 = 99.995" in facts and "65,504" in facts and "from x ≈ 256." in facts
    assert "x ≈ 1.84 × 10¹⁹" in facts and "stores 99.995 as 100 (steps of 0.5" in facts
    assert "never passes 48.96" in facts
    field = part.findChild(QLineEdit, "genOverflowInput")
    field.setText("300")
    field.editingFinished.emit()
    assert "float16 stores ∞" in part.tried.text() and not part.message.isVisible()
    for bad in ("abc", "−5", "1e40"):
        field.setText(bad)
        field.editingFinished.emit()
        assert part.message.isVisible() and f"“{bad}” is not an input" in part.message.text()
        assert field.text() == "300" and "x = 300:" in part.tried.text()      # the last good one stays
    part.limit.setCurrentIndex(part.limit.findData(10.0))
    assert part.clamped_curve.yData.max() == pytest.approx(core.swiglu_unit(10.0, 10.0))        # (log axes)


def test_the_attention_sink_and_silencing_the_heads(panel, session, qtbot):
    panel.set_focus("attention_sink")
    sink = panel.sink
    reference = core.attention_sink()
    assert np.allclose(sink.plotted()["share"][1], 100 * reference.first_share)
    assert np.allclose(sink.plotted()["gate"][1], reference.gated_output_norm)
    text = sink.reported_text.text()
    assert "46.7 %" in text and "4.8 %" in text and "Qiu et al. 2025, Table 4" in text
    assert "20 % each" in sink.intro.text() and "“小王 (Xiao Wang)”" in sink.intro.text()      # glossed (issue 9)
    sink.silence.click()
    assert session.config == core.preset_config("anchor")
    assert np.all(session.tensor("b_G") == -8.0)
    assert session.trace["attn.hook_gate_sigmoid"].max() < 0.01
    assert session.highlight.hooks == {"attn.hook_gate_sigmoid", "attn.hook_z_gated"}


def test_gain_decay(qtbot):
    from app.labs.generations.gain import GainDecayPart
    part = show(qtbot, GainDecayPart(), 900, 600)
    assert "= 0.368; 1 + w = 1.000" in part.result.text()
    part.weight_decay.setValue(0.2)
    reference = core.gain_decay(10_000, 1e-3, 0.2)
    assert np.allclose(part.plain_curve.getData()[1], reference.plain_gain)
    assert f"= {reference.plain_gain[-1]:.3f}" in part.result.text()



def test_a_new_learning_rate_redraws_the_numbers_not_the_words(qtbot):
    """A spin box edit sets the curves and the result sentence; the legend is not rebuilt (that
    re-lays out the plot on every step of the spin box)."""
    from app.labs.generations.gain import GainDecayPart
    part = show(qtbot, GainDecayPart(), 900, 600)
    legend = [label for _sample, label in part.plot_item.legend.items]
    part.lr.setValue(2e-3)
    assert all(a is b for a, b in zip(legend, [label for _sample, label in part.plot_item.legend.items]))
    assert [label.text for label in legend] == ["plain gain g", "zero-centred gain 1 + w"]
    reference = core.gain_decay(10_000, 2e-3, 0.1)
    assert np.allclose(part.centred_curve.getData()[1], reference.zero_centered_gain)
    assert f"lr = 0.002 and λ = 0.1: g = (1 − 0.0002)^10,000 = {reference.plain_gain[-1]:.3f}" in part.result.text()

# --- the parameter calculator ------------------------------------------------------------------------
def counts(part) -> dict[str, str]:
    table = part.counts
    return {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}


def test_the_calculator_reproduces_the_seeds_figures(qtbot):
    from app.labs.generations.parameters import ParametersPart
    part = show(qtbot, ParametersPart(), 1000, 800)
    assert counts(part)["total"] == "3,688,704" and part.total.text() == "3,688,704 parameters"
    assert "The FFN holds 57.3 % of all parameters." in part.summary.text()
    part.findChild(QPushButton, "genParametersPreset_no_ffn").click()
    assert counts(part)["total"] == "1,574,144"
    part.findChild(QPushButton, "genParametersPreset_attention_only").click()
    assert counts(part)["total"] == "3,673,344" and "0.42 % fewer than the course's model (3,688,704)" in \
        part.summary.text()
    part.findChild(QPushButton, "genParametersPreset_gpt2").click()
    assert counts(part)["total"] == "124,439,808"
    widths = part.findChild(QTableWidget, "genParametersWidths")
    assert [widths.item(r, 1).text() for r in range(2)] == ["8,192 → 22,016", "5,120 → 17,408"]
    assert widths.item(1, 2).text() == "3.4 d"
    widths.cellClicked.emit(0, 0)
    assert part.fields["d_ff"].text() == "22,016" and "8d/3 rounded up to 256 = 22,016" in part.summary.text()
    widths.cellClicked.emit(1, 0)
    assert "d_ff = 17,408 = 3.4 d" in part.summary.text() and "q_proj: 5,120 → 12,288 = 2 × 6,144." in \
        part.summary.text()


@pytest.mark.parametrize("field, text, message", [
    ("n_layers", "four", "layers: “four” is not a whole number; nothing changed."),
    ("n_layers", "-3", "Not possible: n_layers: expected a whole number of at least 1, got -3; nothing changed."),
    ("d_model", "1e9", "d_model: at most 100,000; nothing changed."),
    ("d_ff", "2.5", "d_ff: “2.5” is not a whole number; nothing changed."),
    ("n_heads", "3", "Not possible: d_head: expected a width when d_model 256 is not a multiple of n_heads 3"),
])
def test_the_calculator_refuses_bad_input_and_changes_nothing(qtbot, field, text, message):
    from app.labs.generations.parameters import ParametersPart
    part = show(qtbot, ParametersPart(), 1000, 800)
    before = counts(part)
    part.fields[field].setText(text)
    part.fields[field].editingFinished.emit()
    assert part.message.isVisible() and message in part.message.text()
    assert counts(part) == before and part.fields[field].text() == f"{getattr(part.shape, field):,}"
    part.fields["vocab"].setText("4,096")                          # the seed's way of writing counts
    part.fields["vocab"].editingFinished.emit()
    assert not part.message.isVisible() and part.shape.vocab == 4096
    assert part.shape == ModelShape(**{**part.shape.__dict__})


# --- the panel ----------------------------------------------------------------------------------------
def test_every_part_comes_forward_and_the_tabs_fit(panel, qtbot):
    from PySide6.QtWidgets import QToolButton
    for part in core.PARTS:
        panel.set_focus(part)
        assert panel.current_part() == part and panel.part(part).isVisible()
    assert not any(button.isVisible() for button in panel.tabs.tabBar().findChildren(QToolButton))
    assert panel.minimumSizeHint().width() < 400          # never what makes the window wider than the screen
    with qtbot.waitSignal(panel.residual.worker.finished, timeout=60_000):
        panel.set_focus("residual_growth")
    panel.set_focus("placement")                   # leaving a running part's tab is fine
    qtbot.waitUntil(lambda: not panel.placement.worker.is_running(), timeout=60_000)


def test_the_panel_follows_the_language(panel, qtbot):
    from app import i18n
    i18n.install("zh")
    try:
        settle(lambda: panel.tabs.tabText(0) == "演进表")
        assert panel.title() == "一个块的五代"
        card = panel.table.cards[("residual", "original")]
        assert plain(card.stuck.text()) == "⚠ σ 增到 11.36"
        panel.table.cards[("ffn", "original")].setFocus()
        details = plain(panel.table.details.text())
        assert "卡在：想更好只能花参数加宽" in details and "Vaswani 等 2017，表 3" in details
        panel.compare.set_pair("original", "anchor")       # a Chinese list of hooks: 、 between them
        only_b = panel.compare.summary.text().split("只在 B 里：")[1]
        assert "、" in only_b and ", " not in only_b
        panel.session.load(core.preset("divergence"))         # the lesson's own word for the up value
        panel.set_focus("preset")
        settle(lambda: panel.preset.current == "divergence")
        assert "升维值在 ±7 之内" in panel.preset.changes.text() and "up" not in panel.preset.changes.text()
    finally:
        i18n.install("en")
    settle(lambda: panel.tabs.tabText(0) == "Table")


# --- the whole window, once ----------------------------------------------------------------------------
def test_the_lesson_in_the_window(blocklab_open, qtbot):
    lab = blocklab_open(LESSON)
    window = lab.window
    panel = window.labs["generations"]
    assert window.work.currentWidget() is panel.parentWidget() and panel.current_part() == "table"
    assert lab.session.config == core.preset_config("original")
    qtbot.mouseClick(panel.table.cards[("ffn", "llama")], Qt.MouseButton.LeftButton)
    assert lab.session.config == core.preset_config("llama")
    assert window.dataflow.parentWidget() is panel.parentWidget()             # the block drawn above
    assert panel.current_part() == "table"
    window.lessons.go(window.lessons.lesson.step_index("gpt2"))
    assert panel.current_part() == "preset" and lab.session.config == core.preset_config("gpt2")
    assert panel.preset.buttons["gpt2"].isChecked()
    window.lessons.go(window.lessons.lesson.step_index("parameters"))
    assert panel.current_part() == "parameters" and panel.parameters.isVisible()
    assert window.dataflow.parentWidget() is window._left                   # no diagram asked for
    assert "3,688,704" in window.lesson_bar.caption.text()
    assert isinstance(lab.find(QLabel, "genParametersTotal"), QLabel)
    # The anchor step's caption gives head 1's gate for the last token; the diagram above shows
    # the selected token's gate: it must be that token's (it showed the first token's 0.54, 0.59).
    window.lessons.go(window.lessons.lesson.step_index("anchor"))
    last = len(lab.session.tokens) - 1
    gate = lab.session.trace["attn.hook_gate_sigmoid"][0, last]
    assert lab.session.selected_index("attn.hook_gate_sigmoid")[:2] == (0, last)      # head 1, the last token
    assert all(format_number(float(value), 3) in window.lesson_bar.caption.text() for value in gate)


# --- every word has its Chinese ---------------------------------------------------------------------
def lab_sources() -> dict[str, set[str]]:
    """Every string the lab's package hands to tr(): self.tr("…") under its class's name,
    QT_TRANSLATE_NOOP(context, "…") and tr(context, "…") under theirs."""
    import ast
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "app" / "labs" / "generations").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
            for node in ast.walk(scope):
                if not isinstance(node, ast.Call) or not node.args:
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                if name == "tr" and isinstance(node.func, ast.Attribute) and isinstance(scope, ast.ClassDef) \
                        and len(texts) == 1 and len(node.args) == 1:
                    found.setdefault(scope.name, set()).add(texts[0])
                elif name in ("QT_TRANSLATE_NOOP", "tr") and len(node.args) == 2 and len(texts) == 2:
                    found.setdefault(texts[0], set()).add(texts[1])
    return found


def test_every_string_of_the_lab_and_every_source_has_chinese():
    import json
    zh = json.loads((ROOT / "resources" / "i18n" / "zh" / "generations.json").read_text(encoding="utf-8"))
    missing = [(context, text) for context, texts in lab_sources().items() for text in texts
               if context != "GenerationsLanguage" and not zh.get(context, {}).get(text)]
    missing += [("GenerationsSources", text) for text in core.SOURCES.values()
                if not zh["GenerationsSources"].get(text)]
    assert missing == []
    assert zh["GenerationsLanguage"] == {"en": "zh"} and zh["Labs"]["The block across generations"]
    assert len(lab_sources()["GenerationsPanel"]) >= 20


def test_redrawing_a_curve_keeps_one_picture_of_its_symbol(panel, qtbot):
    """pyqtgraph keeps the symbols a curve draws in a picture keyed by the pen's and brush's objects,
    and passes the curve's style again on every data update: symbols given as a colour (or no
    outline as None) became new objects, and a new copy, on each redraw (the soak: ~2 MB over
    9,000 actions, up to pyqtgraph's bound of 1,000 copies per curve)."""
    with qtbot.waitSignal(panel.placement.worker.finished, timeout=60_000):
        panel.set_focus("placement")
    part = panel.placement
    layers = part.shown_layers
    scatters = [curve.scatter for curve in part.curves.values()]
    part.grab()
    before = [len(scatter.fragmentAtlas) for scatter in scatters]
    for _ in range(3):
        part.draw(layers, part.results[layers])
        part.grab()
    assert [len(scatter.fragmentAtlas) for scatter in scatters] == before
