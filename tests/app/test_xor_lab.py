"""The C4 two-neuron lab panel: what the learner sees equals what core/labs/xor.py computes."""
import html
import re

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLabel, QPushButton, QSlider, QTableWidget, QTabWidget

from app.session import Session
from app.labs.xor import XorLabPanel
from core.labs import get_lab
from core.labs import xor as lab
from core.numbers import format_number
from core.formats.scenario import load_scenario
from tests.conftest import SCENARIOS

GOOD, NOT_GOOD, BAD, NOT_BAD = range(4)      # 好吃, 不好吃, 难吃, 不难吃
OUTPUT_COLUMN, VERDICT_COLUMN = 4, 5
PARTS = get_lab("xor").parts


@pytest.fixture
def lab_panel(qtbot):
    session = Session(load_scenario(SCENARIOS / "c4-xor.json"))
    panel = XorLabPanel(session)
    qtbot.addWidget(panel)
    panel.resize(880, 650)
    panel.show()
    qtbot.waitExposed(panel)
    yield session, panel
    panel.close()


def find(panel, kind, name):
    widget = panel.findChild(kind, name)
    assert widget is not None, f"no {kind.__name__} called {name}"
    return widget


def plain(label: QLabel) -> str:
    text = re.sub(r"<br\s*/?>", "\n", label.text())
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\xa0", " ")


def column(panel, index: int) -> list[str]:
    table = find(panel, QTableWidget, "xorTable")
    return [table.item(row, index).text() for row in range(table.rowCount())]


def pick(panel, name: str, value) -> None:
    combo = find(panel, QComboBox, name)
    position = combo.findData(value)
    assert position >= 0
    combo.setCurrentIndex(position)


def test_parts_and_focus(lab_panel):
    _, panel = lab_panel
    assert panel.parts() == ["naive", "failure", "ffn", "bias", "compute", "neurons"] == list(PARTS)
    tabs = find(panel, QTabWidget, "xorParts")
    for k, part in enumerate(panel.parts()):
        panel.set_focus(part)
        assert tabs.currentIndex() == k and panel.current_part() == part
    with pytest.raises(ValueError):
        panel.set_focus("attention")


def test_the_table_shows_the_seeds_data_and_the_blocks_output(lab_panel):
    session, panel = lab_panel
    panel.set_focus("ffn")
    # in English each sentence carries its gloss; the tokens themselves stay Chinese (they are the data)
    assert column(panel, 0) == ["好吃 “tasty”", "不好吃 “not tasty”", "难吃 “awful”", "不难吃 “not awful”"]
    assert column(panel, 1) == ["1", "1", "0", "0"]
    assert column(panel, 2) == ["0", "1", "0", "1"]
    assert column(panel, 3) == ["1", "0", "0", "1"]
    assert column(panel, OUTPUT_COLUMN) == ["1.000", "0.000", "0.000", "1.000"]
    assert all(text.startswith("✓") for text in column(panel, VERDICT_COLUMN))
    assert "MSE = 0" in plain(find(panel, QLabel, "xorMse"))
    assert "0.25" in plain(find(panel, QLabel, "xorReference"))


@pytest.mark.parametrize("seed", range(4))
def test_the_identity_holds_for_whatever_the_learner_sets(lab_panel, seed):
    session, panel = lab_panel
    panel.set_focus("naive")
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-200, 201, 2) / 100                 # by the sliders
    c = round(float(rng.uniform(-2, 2)), 3)                 # typed exactly into the spin box
    find(panel, QSlider, "xorSliderA").setValue(int(round(a * 100)))
    find(panel, QSlider, "xorSliderB").setValue(int(round(b * 100)))
    find(panel, QDoubleSpinBox, "xorSpinC").setValue(c)
    model = lab.Linear(a, b, c)
    assert panel.linear.model == model
    assert find(panel, QDoubleSpinBox, "xorSpinA").value() == pytest.approx(a)     # slider → spin
    assert find(panel, QSlider, "xorSliderC").value() == int(round(c * 100))        # spin → slider
    sides = re.findall(r"ŷ\(\d,\d\) \+ ŷ\(\d,\d\) = \S+ \+ \S+ = (\S+)", plain(find(panel, QLabel, "xorIdentity")))
    left, right = lab.identity_sides(model)
    assert sides == [format_number(left, trim=True), format_number(right, trim=True)]
    assert sides[0] == sides[1]
    assert column(panel, OUTPUT_COLUMN) == [format_number(v, 3) for v in lab.linear_outputs(session.state.inputs, model)]
    mse = lab.linear_mse(session.state.inputs, session.state.targets, model)
    assert f"MSE = {format_number(mse, trim=True)}" in plain(find(panel, QLabel, "xorMse"))
    assert mse >= 0.25 - 1e-12
    # the proof part substitutes the same numbers
    panel.set_focus("failure")
    proof = plain(find(panel, QLabel, "xorProof"))
    assert lab.linear_proof(model).left_text() in proof and lab.linear_proof(model).right_text() in proof


def test_least_squares_button(lab_panel):
    session, panel = lab_panel
    panel.set_focus("naive")
    find(panel, QPushButton, "xorLeastSquares").click()
    spins = [find(panel, QDoubleSpinBox, f"xorSpin{name}").value() for name in "ABC"]
    assert spins == pytest.approx([0, 0, 0.5], abs=1e-9)
    assert column(panel, OUTPUT_COLUMN) == ["0.500"] * 4
    assert "MSE = 0.25" in plain(find(panel, QLabel, "xorMse"))
    panel.set_focus("failure")
    assert "a = 0, b = 0, c = 0.5, MSE 0.25" in plain(find(panel, QLabel, "xorProof"))


def test_naive_plots_are_cores_curves(lab_panel):
    session, panel = lab_panel
    panel.set_focus("naive")
    find(panel, QSlider, "xorSliderB").setValue(-70)
    model = panel.linear.model
    xs, ys = panel.part("naive").curve_item.getData()
    assert np.allclose(ys, lab.linear_mse_curve(session.state.inputs, session.state.targets, model, "b", xs))
    assert panel.part("naive").floor_line.value() == pytest.approx(0.25)
    pick(panel, "xorLandscapeAxes", "ac")
    grid = np.linspace(-2, 2, 81)
    expected = lab.linear_mse_landscape(session.state.inputs, session.state.targets, model, "a", "c", grid, grid)
    assert np.allclose(panel.part("naive").landscape_image.image, expected, atol=1e-5)
    best = panel.part("naive").landscape_best.getData()
    assert (best[0][0], best[1][0]) == pytest.approx((0, 0.5), abs=1e-9)
    point = panel.part("naive").landscape_point.getData()
    assert (point[0][0], point[1][0]) == pytest.approx((model.a, model.c))


def test_activation_selector_gives_the_seeds_outputs(lab_panel):
    session, panel = lab_panel
    panel.set_focus("ffn")
    pick(panel, "xorActivation", "gelu_tanh")
    assert session.config.activation == "gelu_tanh"
    assert column(panel, OUTPUT_COLUMN) == ["0.841", "0.272", "0.318", "0.841"]
    assert all(text.startswith("✓") for text in column(panel, VERDICT_COLUMN))
    assert "4 of 4" in plain(find(panel, QLabel, "xorThreshold"))
    assert "0.317" in plain(find(panel, QLabel, "xorActivationNote"))       # exact GELU, for comparison
    pick(panel, "xorActivation", "identity")
    assert session.config.activation == "identity"
    assert column(panel, OUTPUT_COLUMN) == ["1.000", "0.000", "2.000", "1.000"]
    assert column(panel, VERDICT_COLUMN)[BAD].startswith("✗")
    assert "ŷ = −p − n + 2" in plain(find(panel, QLabel, "xorCollapsed"))
    assert "MSE = 1" in plain(find(panel, QLabel, "xorMse"))
    pick(panel, "xorActivation", "relu")
    assert column(panel, OUTPUT_COLUMN) == ["1.000", "0.000", "0.000", "1.000"]
    assert find(panel, QLabel, "xorCollapsed").isHidden()
    session.undo_stack.undo()                                   # the combo follows the session back
    assert find(panel, QComboBox, "xorActivation").currentData() == "identity"


def test_editing_a_weight_on_the_drawing(lab_panel):
    session, panel = lab_panel
    panel.set_focus("ffn")
    find(panel, QDoubleSpinBox, "xorW_out_1").setValue(-1)
    assert session.tensor("W_out")[1, 0] == -1
    expected = session.trace["hook_resid_post"][:, 0]
    assert expected.tolist() == [1, 1, 0, 1]                    # 不好吃: 2 − 1 = 1
    assert column(panel, OUTPUT_COLUMN) == [format_number(v, 3) for v in expected]
    find(panel, QDoubleSpinBox, "xorW_in_1_0").setValue(0.5)
    find(panel, QDoubleSpinBox, "xorB_in_0").setValue(0.25)
    find(panel, QDoubleSpinBox, "xorB_out").setValue(-0.125)
    assert session.tensor("W_in")[1, 0] == 0.5 and session.tensor("b_in")[0] == 0.25
    assert session.tensor("b_out")[0] == -0.125
    assert column(panel, OUTPUT_COLUMN) == [format_number(v, 3) for v in session.trace["hook_resid_post"][:, 0]]
    while session.undo_stack.canUndo():
        session.undo_stack.undo()
    assert find(panel, QDoubleSpinBox, "xorW_out_1").value() == -2
    assert find(panel, QDoubleSpinBox, "xorW_out_1").text() == "× −2"


def test_typing_a_unicode_minus_into_a_spin(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("ffn")
    spin = find(panel, QDoubleSpinBox, "xorB_in_1")
    spin.setFocus()
    spin.lineEdit().setText("+ −0.5")            # QTest cannot type non-ASCII keys
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert session.tensor("b_in")[1] == -0.5
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "-0.25")
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert session.tensor("b_in")[1] == -0.25
    assert spin.text() == "+ −0.25"


def test_bias_slider_and_first_to_flip(lab_panel):
    session, panel = lab_panel
    panel.set_focus("bias")
    slider = find(panel, QSlider, "xorBiasSlider")
    assert slider.value() == -100
    flip_label = find(panel, QLabel, "xorFirstFlip")
    flip = lab.first_to_flip(session.config, session.state.weights, session.state.inputs, session.state.targets)
    assert flip.rows == (GOOD, NOT_BAD)
    # the lesson asks which one first: the answer shows once the learner drags that far
    assert "好吃" not in plain(flip_label) and "4 of 4" in plain(flip_label)
    slider.setValue(-76)
    assert "好吃" not in plain(flip_label) and "b = −0.76" in plain(flip_label)
    assert len(panel.part("bias").bias_flip_point.getData()[0]) == 0
    slider.setValue(-75)
    assert "好吃 “tasty”, 不难吃 “not awful”" in plain(flip_label) and "b = −0.75" in plain(flip_label)
    assert "Right all the way to 0: 不好吃 “not tasty”, 难吃 “awful”" in plain(flip_label)
    assert list(panel.part("bias").bias_flip_point.getData()[0]) == pytest.approx([-0.75, -0.75])
    slider.setValue(-50)
    assert session.tensor("b_in")[1] == -0.5
    assert all(marker.value() == -0.5 for marker in panel.part("bias").bias_markers)
    assert column(panel, OUTPUT_COLUMN) == ["0.000", "−1.000", "0.000", "0.000"]
    sweep = lab.bias_sweep(session.config, session.state.weights, session.state.inputs, session.state.targets)
    for k, curve in enumerate(panel.part("bias").bias_curves):
        assert np.allclose(curve.getData()[1], sweep.outputs[:, k])
    assert np.allclose(panel.part("bias").bias_mse_curve.getData()[1], sweep.mse)
    pick(panel, "xorActivation", "gelu_tanh")
    gelu = lab.first_to_flip(session.config, session.state.weights, session.state.inputs, session.state.targets)
    assert f"b = {format_number(gelu.value, 4, trim=True)}" in plain(flip_label)
    pick(panel, "xorActivation", "identity")
    assert "Already wrong at b = −1: 难吃" in plain(flip_label)


def test_clicking_a_row_and_a_neuron_shows_the_column_expansion(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("compute")
    table = find(panel, QTableWidget, "xorTable")
    rect = table.visualRect(table.model().index(NOT_GOOD, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert session.selected_token == NOT_GOOD
    qtbot.mouseClick(find(panel, QPushButton, "xorNeuron2"), Qt.MouseButton.LeftButton)
    text = plain(find(panel, QLabel, "xorExpansion"))
    assert "不好吃" in text
    assert "z = 1×1 + 1×1 + (−1) = 1" in text
    assert "ReLU(1) = 1" in text
    assert "1 × (−2) = −2" in text
    assert "2 + (−2) + 0 = 0" in text
    qtbot.mouseClick(find(panel, QPushButton, "xorNeuron1"), Qt.MouseButton.LeftButton)
    text = plain(find(panel, QLabel, "xorExpansion"))
    assert "z = 1×1 + 1×1 + 0 = 2" in text and "ReLU(2) = 2" in text and "2 × 1 = 2" in text
    assert (session.selected_hook, session.selected_column) == ("mlp.hook_post", 0)   # the explorer follows
    pick(panel, "xorActivation", "gelu_tanh")
    text = plain(find(panel, QLabel, "xorExpansion"))
    assert "GELU(2) = 1.954598" in text and "= 0.272214" in text
    session.select(hook="mlp.hook_pre", column=1)            # a lesson step (or the explorer) picks neuron 2
    assert find(panel, QPushButton, "xorNeuron2").isChecked()
    assert "GELU(1) = 0.841192" in plain(find(panel, QLabel, "xorExpansion")).split("Neuron 1")[0]


def test_neuron_heatmaps_are_cores_grids(lab_panel):
    session, panel = lab_panel
    panel.set_focus("neurons")
    _, maps = lab.neuron_maps(session.config, session.state.weights, 41)
    for j, image in enumerate(panel.part("neurons").neuron_images):
        assert image.image.shape == (41, 41)
        assert np.allclose(image.image, maps[j], atol=1e-6)
    assert "at least one" in plain(find(panel, QLabel, "xorNeuronCaption1"))
    assert "both" in plain(find(panel, QLabel, "xorNeuronCaption2"))
    assert "ŷ = h₁ − 2·h₂" in plain(find(panel, QLabel, "xorNeuronSummary"))
    # each map's corner labels name the sentence, its h and, in English, its gloss (C4 step 9)
    corners = [item.toPlainText() for item in panel.part("neurons").map_labels[1]]
    assert corners[:4] == ["好吃 0\n“tasty”", "不好吃 1\n“not tasty”", "难吃 0\n“awful”", "不难吃 0\n“not awful”"]
    session.set_value("b_in", (1,), 0.0)                       # the maps follow the weights
    _, maps = lab.neuron_maps(session.config, session.state.weights, 41)
    assert np.allclose(panel.part("neurons").neuron_images[1].image, maps[1], atol=1e-6)


def test_another_block_shows_why_the_lab_cannot_run(lab_panel):
    session, panel = lab_panel
    session.set_config(d_ff=3)
    message = find(panel, QLabel, "xorMismatch")
    assert message.isVisible() and "d_ff = 3" in plain(message)
    find(panel, QPushButton, "xorResetBlock").click()
    assert not message.isVisible()
    assert session.config.d_ff == 2


def test_chinese(lab_panel, qtbot):
    from app import i18n
    session, panel = lab_panel
    panel.set_focus("ffn")
    tabs = find(panel, QTabWidget, "xorParts")
    i18n.install("zh")                  # switching language while the panel is open retranslates it
    try:
        qtbot.waitUntil(lambda: tabs.tabText(0) == "① 朴素方案", timeout=2000)
        assert "均方误差" in plain(find(panel, QLabel, "xorMse"))
        assert find(panel, QTableWidget, "xorTable").horizontalHeaderItem(0).text() == "评价"
        assert column(panel, VERDICT_COLUMN)[0] == "✓ 对"
        assert find(panel, QComboBox, "xorActivation").itemText(2) == "无（去掉）"
        panel.set_focus("failure")              # two equations in a Chinese sentence: "；" between them
        assert "目标却不相等：y(1,0) + y(0,1) = 1 + 1 = 2；y(1,1) + y(0,0) = 0 + 0 = 0" in \
            plain(find(panel, QLabel, "xorProof"))
        panel.set_focus("ffn")
        pick(panel, "xorActivation", "gelu_tanh")           # a list of numbers in Chinese: "、"
        assert "精确的 GELU（x·Φ(x)）会给出 0.841、0.272、0.317、0.841。" in plain(find(panel, QLabel, "xorActivationNote"))
        panel.set_focus("bias")
        find(panel, QSlider, "xorBiasSlider").setValue(-60)
        assert "最先出错的是 好吃、不难吃" in plain(find(panel, QLabel, "xorFirstFlip"))
    finally:
        i18n.install("en")
    qtbot.waitUntil(lambda: tabs.tabText(0) == "① Linear try", timeout=2000)
    assert "goes wrong first" in plain(find(panel, QLabel, "xorFirstFlip")) or \
        "go wrong first" in plain(find(panel, QLabel, "xorFirstFlip"))


def test_a_hidden_panel_catches_up_when_shown(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("ffn")
    panel.hide()
    session.set_config(activation="identity")
    assert column(panel, OUTPUT_COLUMN) == ["1.000", "0.000", "0.000", "1.000"]   # not redrawn while hidden
    panel.show()
    qtbot.waitExposed(panel)
    assert column(panel, OUTPUT_COLUMN) == ["1.000", "0.000", "2.000", "1.000"]
    assert find(panel, QComboBox, "xorActivation").currentData() == "identity"


# --- typed numbers: only finite, in-range values go in; anything else is refused aloud ----------------
def enter(qtbot, spin, text: str) -> None:
    spin.setFocus()
    spin.lineEdit().setText(text)                # as pasted: setText bypasses the line edit's validator
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e9", "−2e6", "1e999", "abc", "", "1e", "−", "1,000", "0,5"])
def test_a_bias_that_is_not_a_finite_number_in_range_is_refused_with_a_message(lab_panel, qtbot, text):
    session, panel = lab_panel
    panel.set_focus("bias")
    spin = find(panel, QDoubleSpinBox, "xorBiasSpin")
    before = session.tensor("b_in").copy()
    depth = session.undo_stack.count()
    with qtbot.waitSignal(session.message, timeout=1000) as blocker:
        enter(qtbot, spin, text)
    assert np.array_equal(session.tensor("b_in"), before)
    assert session.undo_stack.count() == depth
    assert blocker.args[0].strip()
    assert spin.value() == -1 and spin.text() == "−1"        # the old value is shown again


def test_a_finite_bias_goes_in(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("bias")
    spin = find(panel, QDoubleSpinBox, "xorBiasSpin")
    with qtbot.assertNotEmitted(session.message):
        enter(qtbot, spin, "0.25")
    assert session.tensor("b_in")[1] == 0.25
    with qtbot.assertNotEmitted(session.message):
        enter(qtbot, spin, "−5e-1")                           # Unicode minus and an exponent
    assert session.tensor("b_in")[1] == -0.5
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "-25e-2")                # typed: "e" is no longer dropped
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert session.tensor("b_in")[1] == -0.25


def test_typing_an_out_of_range_number_is_told_not_clamped(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("bias")
    spin = find(panel, QDoubleSpinBox, "xorBiasSpin")
    spin.setFocus()
    spin.lineEdit().selectAll()
    with qtbot.waitSignal(session.message, timeout=1000) as blocker:
        qtbot.keyClicks(spin.lineEdit(), "1e9")
        assert spin.lineEdit().text().endswith("1e9")          # not "19": every key stays
        qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    assert "1,000,000" in blocker.args[0]
    assert session.tensor("b_in")[1] == -1
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), "nan")                    # letters cannot be typed at all
    assert "n" not in spin.lineEdit().text()


def test_leaving_a_spin_with_an_unacceptable_text_keeps_the_value(lab_panel, qtbot):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QFocusEvent
    from PySide6.QtWidgets import QApplication
    session, panel = lab_panel
    panel.set_focus("ffn")
    spin = find(panel, QDoubleSpinBox, "xorW_out_1")          # the drawn FFN's spins behave the same
    with qtbot.waitSignal(session.message, timeout=1000):
        spin.lineEdit().setText("× inf")
        QApplication.sendEvent(spin, QFocusEvent(QEvent.Type.FocusOut, Qt.FocusReason.TabFocusReason))
    assert session.tensor("W_out")[1, 0] == -2 and spin.text() == "× −2"
    with qtbot.waitSignal(session.message, timeout=1000):
        enter(qtbot, spin, "nan")
    assert session.tensor("W_out")[1, 0] == -2
    enter(qtbot, spin, "× −1.5")
    assert session.tensor("W_out")[1, 0] == -1.5


def test_spin_validation_states(lab_panel):
    from PySide6.QtGui import QValidator
    _, panel = lab_panel
    spin = find(panel, QDoubleSpinBox, "xorSpinA")            # range −2 … 2, no prefix
    state = lambda text: spin.validate(text, len(text))[0]    # noqa: E731
    for text in ("0.25", "−1.5", "-2", "2", "1.", "2e-1", "−.5"):
        assert state(text) == QValidator.State.Acceptable, text
    for text in ("", "-", "−", "+", ".", "1e", "1e-", "1e−", "1E+", "3", "−2.5", "1e9"):
        assert state(text) == QValidator.State.Intermediate, text
    for text in ("nan", "inf", "-inf", "abc", "e", "1e1e", "1..2", "0x10", "1 2", "1,5", "1_0"):
        assert state(text) == QValidator.State.Invalid, text


def test_a_linear_parameter_outside_its_range_is_refused(lab_panel, qtbot):
    session, panel = lab_panel
    panel.set_focus("naive")
    spin = find(panel, QDoubleSpinBox, "xorSpinA")
    with qtbot.waitSignal(session.message, timeout=1000) as blocker:
        enter(qtbot, spin, "5")
    assert panel.linear.model.a == 1 and spin.value() == 1
    assert "−2" in blocker.args[0] and "2" in blocker.args[0]


# --- a lesson step (or its reset) starts the linear try over -------------------------------------------
@pytest.mark.parametrize("with_state", [False, True])
def test_loading_the_step_again_resets_the_linear_model(lab_panel, qtbot, with_state):
    session, panel = lab_panel
    panel.set_focus("naive")
    initial = panel.linear.model
    assert initial == lab.Linear(1, 1, 0)
    enter(qtbot, find(panel, QDoubleSpinBox, "xorSpinA"), "−1.5")
    find(panel, QSlider, "xorSliderC").setValue(30)
    assert panel.linear.model == lab.Linear(-1.5, 1, 0.3)
    session.load(session.loaded, session.state if with_state else None)    # what the lesson does
    assert panel.linear.model == initial
    assert find(panel, QDoubleSpinBox, "xorSpinA").value() == 1
    assert find(panel, QSlider, "xorSliderA").value() == 100
    assert find(panel, QSlider, "xorSliderC").value() == 0
    assert column(panel, OUTPUT_COLUMN) == [format_number(v, 3) for v in lab.linear_outputs(session.state.inputs, initial)]
    panel.set_focus("failure")
    assert "a = 1, b = 1, c = 0:" in plain(find(panel, QLabel, "xorProof"))


def test_the_counts_shown_are_cores(lab_panel):
    session, panel = lab_panel
    panel.set_focus("ffn")
    pick(panel, "xorActivation", "identity")
    right = lab.count_right(session.trace["hook_resid_post"], session.state.targets)
    assert right == 3
    assert f"{right} of 4" in plain(find(panel, QLabel, "xorThreshold"))


@pytest.mark.parametrize("part, view", [("neurons", "maps_view"), ("bias", "bias_view")])
def test_an_edit_does_not_re_lay_out_the_plots(lab_panel, qtbot, part, view):
    """A caption one line shorter, a formula losing its minus sign, a y axis rescaling: none of
    them moves or resizes the plots (that repaints them whole, several times per edit)."""
    session, panel = lab_panel
    panel.set_focus(part)
    widget = getattr(panel.part(part), view)
    values = [0.25 * (k - 4) + 0.125 for k in range(8)]

    def cycle():
        shapes = set()
        for value in values:
            session.set_value("W_in", (0, 0), value)
            qtbot.wait(1)
            plots = [item.geometry().getRect() for item in widget.ci.items]
            shapes.add((widget.size().toTuple(), tuple(plots)))
        return shapes

    cycle()                                                    # the widest texts once seen
    shapes = cycle()
    assert len(shapes) == 1


def counting(widget, kind):
    """An event filter on `widget` that counts its events of `kind` (in .count)."""
    from PySide6.QtCore import QObject

    class Counter(QObject):
        count = 0

        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == kind:
                self.count += 1
            return False

    counter = Counter(widget)
    widget.installEventFilter(counter)
    return counter


def test_an_edit_paints_the_bias_plots_once_with_every_curve_in_view(lab_panel, qtbot):
    """The y axes follow the curves without pyqtgraph's auto-range, which sets the range while the
    plots paint and so paints them a second time, whole, on every edit."""
    from PySide6.QtCore import QEvent

    session, panel = lab_panel
    panel.set_focus("bias")
    part = panel.part("bias")
    paints = counting(part.bias_view.viewport(), QEvent.Type.Paint)
    counts = []
    for value in (2.0, -1.5, 0.25, 3.0, -2.0):
        qtbot.wait(1)
        paints.count = 0
        session.set_value("W_in", (0, 0), value)
        qtbot.wait(5)
        counts.append(paints.count)
        for plot, curves in ((part.bias_outputs_plot, part.bias_curves), (part.bias_mse_plot, [part.bias_mse_curve])):
            low, high = plot.vb.viewRange()[1]
            ys = np.concatenate([curve.getData()[1] for curve in curves if curve.isVisible()])
            assert low <= ys.min() and ys.max() <= high
            if plot is part.bias_outputs_plot:
                assert low <= lab.THRESHOLD <= high                  # the dashed 0.5 line stays in view
    assert max(counts) == 1


def test_live_numbers_re_lay_out_the_overview_alone(lab_panel, qtbot):
    """An edit's new MSE and ŷ re-lay out the overview only: the layout request does not climb
    through the lab to the window (one relayout per parent, each a pass of the event loop). A
    table that really changes size still makes room."""
    import dataclasses

    from PySide6.QtCore import QEvent

    session, panel = lab_panel
    panel.set_focus("ffn")
    content = panel.overview.parentWidget().parentWidget()      # the column above the fence
    requests = counting(content, QEvent.Type.LayoutRequest)
    values = [0.25 * (k - 4) + 0.125 for k in range(8)]
    for value in values:                                     # the widest texts once seen
        session.set_value("W_in", (0, 0), value)
        qtbot.wait(1)
    requests.count = 0
    for value in values:
        session.set_value("W_in", (0, 0), value)
        qtbot.wait(1)
    assert requests.count == 0
    before = panel.overview.height()
    s = session.scenario
    longer = dataclasses.replace(s, tokens=s.tokens + ("好不好吃",), inputs=np.vstack([s.inputs, [[0.5, 0.5]]]),
                                 targets=np.vstack([s.targets, [[0.0]]]))
    session.load(longer)
    qtbot.waitUntil(lambda: panel.overview.height() > before)
    table = find(panel, QTableWidget, "xorTable")
    assert table.rowCount() == 5 and panel.overview.geometry().contains(table.geometry())


def test_the_drawing_grows_with_presentation_mode_and_keeps_its_parts_apart(lab_panel, qtbot):
    """On a projector the drawing's own texts and boxes grow like every other text (they were
    painted at 100 %: 13 px column headers in presentation mode), and at its least height no
    spin box covers another or a node. Presenting, its vertical lengths are its tighter ones
    (diagram.Lengths): the neurons' boxes are lower, for two lines of text, and the spins narrower."""
    from PySide6.QtCore import QRectF

    from app.labs.xor.diagram import PRESENTING_SPIN_WIDTH, Lengths
    from app.widgets.appearance import PRESENTING_SCALE, appearance
    _, panel = lab_panel
    panel.set_focus("ffn")
    diagram = panel.part("ffn").diagram
    before = {name: rect.height() for name, rect in diagram._geometry.items()}
    appearance().set_presenting(True)
    spins = list(diagram.spins.values())
    qtbot.waitUntil(lambda: all(spin.width() == appearance().pixels(PRESENTING_SPIN_WIDTH) for spin in spins))
    diagram.resize(diagram.width(), diagram.minimumHeight())
    for name, height in before.items():
        if name.startswith("neuron"):
            assert diagram._geometry[name].height() == pytest.approx(2 * Lengths(True).half * PRESENTING_SCALE), name
        else:
            assert diagram._geometry[name].height() == pytest.approx(height * PRESENTING_SCALE), name
    for spin in spins:
        assert diagram.rect().contains(spin.geometry()), spin.objectName()
        assert not [name for name, rect in diagram._geometry.items() if QRectF(spin.geometry()).intersects(rect)]
        assert not [other for other in spins if other is not spin and other.geometry().intersects(spin.geometry())]


def test_the_bias_legend_glosses_the_sentences_in_english_and_lies_off_the_plot(lab_panel, qtbot):
    """C4 step 7 in English: the legend names each curve by its sentence with the gloss, as the
    table does, under the plots (glossed, it is too wide for any empty corner of the plot)."""
    from app import i18n
    _, panel = lab_panel
    panel.set_focus("bias")
    part = panel.part("bias")
    legend = part.bias_legend

    def names():
        return [html.unescape(re.sub(r"<[^>]+>", "", label.text)) for _sample, label in legend.items]

    assert names() == ["好吃 “tasty”", "不好吃 “not tasty”", "难吃 “awful”", "不难吃 “not awful”"]
    qtbot.waitUntil(lambda: legend.sceneBoundingRect().top() >= part.bias_outputs_plot.sceneBoundingRect().bottom()
                    > 0, timeout=2000)
    i18n.install("zh")
    try:
        qtbot.waitUntil(lambda: names() == ["好吃", "不好吃", "难吃", "不难吃"], timeout=2000)
    finally:
        i18n.install("en")
    qtbot.waitUntil(lambda: names()[0] == "好吃 “tasty”", timeout=2000)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_mse_curve_shows_whole_at_the_width_a_1024_window_gives(lab_panel, qtbot, language):
    """The lab is 680 px wide in a 1024×768 window: the curve's title wraps rather than widen the
    plot past its view (which cut the title and the plot's right-hand side)."""
    from app import i18n
    from tests.app.fit_helpers import hidden_axes
    session, panel = lab_panel
    part = panel.part("naive")
    i18n.install(language)
    try:
        panel.set_focus("naive")
        panel.resize(680, 600)
        qtbot.waitUntil(lambda: part.curve_view.width() < 250, timeout=2000)
        qtbot.wait(0)                                  # the plots' own layouts, posted
        assert hidden_axes(part.curve_view, part.curve_plot, panel, "MSE curve") == []
    finally:
        i18n.install("en")
