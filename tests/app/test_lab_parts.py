"""Each lab part is a widget of its own: built on a Session without its panel or the window."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QPushButton, QSlider

from app.session import Change, Session
from core.formats.scenario import load_scenario
from core.labs import xor as lab
from core.labs.ffn_page import FORMULA_TERMS, term_hooks
from tests.conftest import SCENARIOS


@pytest.fixture
def xor_session():
    return Session(load_scenario(SCENARIOS / "c4-xor.json"))


def shown(qtbot, widget):
    qtbot.addWidget(widget)
    widget.resize(800, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def plain(text: str) -> str:
    import html
    import re
    return html.unescape(re.sub(r"<[^>]+>", "", text.replace("<br>", "\n"))).replace("\xa0", " ")


# --- the two-neuron lab ------------------------------------------------------------------------------
def test_the_naive_part_alone_draws_the_mse_of_its_line(qtbot, xor_session):
    from app.labs.xor.naive import XorNaivePart
    from app.labs.xor.state import LinearModel, TableFacts
    linear, facts = LinearModel(), TableFacts()
    facts.update(xor_session)
    part = shown(qtbot, XorNaivePart(xor_session, linear, facts))
    linear.changed.connect(part.refresh)
    part.findChild(QSlider, "xorSliderB").setValue(-70)
    assert linear.model == lab.Linear(1, -0.7, 0)
    assert part.findChild(QDoubleSpinBox, "xorSpinB").value() == pytest.approx(-0.7)
    xs, ys = part.curve_item.getData()
    s = xor_session
    assert np.allclose(ys, lab.linear_mse_curve(s.state.inputs, s.state.targets, linear.model, "b", xs))
    part.findChild(QPushButton, "xorLeastSquares").click()
    assert linear.model == facts.best
    assert (linear.model.a, linear.model.b, linear.model.c) == pytest.approx((0, 0, 0.5), abs=1e-9)


def test_the_failure_part_alone_writes_the_proof_with_the_learners_numbers(qtbot, xor_session):
    from app.labs.xor.failure import XorFailurePart
    from app.labs.xor.state import LinearModel, TableFacts
    linear, facts = LinearModel(2, -1, 0.5), TableFacts()
    facts.update(xor_session)
    part = shown(qtbot, XorFailurePart(xor_session, linear, facts))
    part.refresh()
    text = plain(part.proof_label.text())
    assert "a = 2, b = −1, c = 0.5:" in text and lab.linear_proof(linear.model).left_text() in text
    assert "a = 0, b = 0, c = 0.5, MSE 0.25" in text
    with qtbot.waitSignal(part.showFix, timeout=1000):
        part.to_ffn_button.click()


def test_the_ffn_part_alone_edits_a_weight_on_the_drawing(qtbot, xor_session):
    from app.labs.xor.ffn import XorFfnPart
    part = shown(qtbot, XorFfnPart(xor_session))
    part.refresh()
    assert "好吃" in plain(part.ffn_caption.text())
    part.findChild(QDoubleSpinBox, "xorW_out_1").setValue(-1)
    assert xor_session.tensor("W_out")[1, 0] == -1
    part.refresh()
    assert part.diagram.texts["out"][0] == "ŷ = 1"


def test_the_bias_part_alone_finds_the_first_flip(qtbot, xor_session):
    from app.labs.xor.bias import XorBiasPart
    part = shown(qtbot, XorBiasPart(xor_session))
    xor_session.changed.connect(lambda _change: part.refresh())
    part.refresh()
    part.findChild(QSlider, "xorBiasSlider").setValue(-75)
    assert xor_session.tensor("b_in")[1] == -0.75
    assert "好吃 “tasty”, 不难吃 “not awful”" in plain(part.flip_label.text()) and "b = −0.75" in plain(part.flip_label.text())
    assert list(part.bias_flip_point.getData()[0]) == pytest.approx([-0.75, -0.75])


def test_the_bias_parts_0_5_label_is_never_cut_off_at_the_plots_top(qtbot, xor_session):
    """Above the dashed line's end while there is room; on the line's end, on the plot's
    background, where the plot is as short as on a 1024×768 projector at 150 % (it was cut off
    at the top, and under the line it would have sat on the curve at 0)."""
    from PySide6.QtCore import QPointF

    from app.labs.xor.bias import XorBiasPart
    part = shown(qtbot, XorBiasPart(xor_session))
    part.refresh()
    view, line, label = part.bias_outputs_plot.vb, part.bias_threshold, part.bias_threshold.label

    def placed():
        qtbot.wait(1)                                      # (the resize reaches the plots)
        frame = view.mapRectToScene(view.boundingRect())
        box = label.mapRectToScene(label.boundingRect())
        at = view.mapViewToScene(QPointF(0, lab.THRESHOLD)).y()
        return frame, box, at

    frame, box, at = placed()
    assert frame.contains(box) and box.bottom() <= at + 0.5            # room: above the line, whole
    assert label.fill.style() == label.fill.style().NoBrush
    for height in (220, 180):                                          # the plot 111 and 71 px tall
        part.bias_view.setFixedHeight(height)
        frame, box, at = placed()
        assert frame.top() <= box.top() and box.bottom() <= frame.bottom(), (height, frame, box)
        assert box.top() < at < box.bottom()                          # on the line, ...
        assert label.fill.color().name() == "#ffffff"                   # ... on the plot's background
    part.bias_view.setMinimumHeight(500)
    part.bias_view.setMaximumHeight(500)
    frame, box, at = placed()
    assert frame.contains(box) and box.bottom() <= at + 0.5            # room again: above it


def test_the_compute_part_alone_expands_one_neuron(qtbot, xor_session):
    from app.labs.xor.compute import XorComputePart
    part = shown(qtbot, XorComputePart(xor_session))
    xor_session.select(token=1)
    part.refresh()
    text = plain(part.expansion_label.text())
    assert "z = 1×1 + 1×1 + (−1) = 1" in text and "2 + (−2) + 0 = 0" in text
    xor_session.select(hook="mlp.hook_post", column=0)
    part.follow_selection()
    assert part.findChild(QPushButton, "xorNeuron1").isChecked()


def test_the_neurons_part_alone_shows_cores_maps(qtbot, xor_session):
    from app.labs.xor.neurons import XorNeuronsPart
    part = shown(qtbot, XorNeuronsPart(xor_session))
    part.refresh()
    _, maps = lab.neuron_maps(xor_session.config, xor_session.state.weights, 41)
    assert np.allclose(part.neuron_images[0].image, maps[0], atol=1e-6)
    assert "ŷ = h₁ − 2·h₂" in plain(part.maps_summary.text())


def test_the_overview_alone_switches_the_activation(qtbot, xor_session):
    from app.labs.xor.overview import XorOverview
    from app.labs.xor.state import LinearModel, TableFacts
    facts = TableFacts()
    facts.update(xor_session)
    overview = shown(qtbot, XorOverview(xor_session, LinearModel(), facts))
    overview.show_data()
    overview.refresh(linear=False)
    combo = overview.findChild(QComboBox, "xorActivation")
    combo.setCurrentIndex(combo.findData("gelu_tanh"))
    assert xor_session.config.activation == "gelu_tanh"
    overview.refresh(linear=False)
    column = [overview.table.item(row, overview.table.OUTPUT).text() for row in range(4)]
    assert column == ["0.841", "0.272", "0.318", "0.841"]


# --- the FFN page ----------------------------------------------------------------------------------
def test_the_formula_part_alone_names_each_terms_hooks(qtbot):
    from app.labs.ffn_page.formula import FfnFormulaPart
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    part = shown(qtbot, FfnFormulaPart(session))
    for term in FORMULA_TERMS:
        with qtbot.waitSignal(part.termHighlighted, timeout=1000) as blocker:
            part.findChild(QPushButton, f"ffnTerm_{term}").click()
        assert blocker.args == [term_hooks(term, session.config)]
    assert session.set_config(d_ff=3)
    part.session_changed(Change.TRACE)             # what the page hands on
    assert "W_up 4×3" in part.shapes.text()


def test_the_shuffle_part_alone_runs_on_its_source(qtbot):
    from app.labs.ffn_page.shuffle import FfnShufflePart
    from app.labs.ffn_page.source import FfnDemoSource
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    source = FfnDemoSource(session)
    part = shown(qtbot, FfnShufflePart(source))
    part.findChild(QPushButton, "ffnShuffle").click()
    assert part.ffn_table.rowCount() == 5 and part.ffn_table.item(0, 2).text() == "✓"
    assert "open scenario" in part.origin.text()
