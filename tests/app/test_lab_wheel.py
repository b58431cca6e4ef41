"""The wheel over a lab's page that scrolls scrolls the page: a slider, spin box or combo box the
pointer merely passes over keeps its value (scrolling down the C4 lab's linear try moved its sliders
a and b, the bias page's slider changed the block, the misconception page's slider moved its point,
all unnoticed). A control the learner has clicked or tabbed into takes the wheel as before; a
control outside every scroll area keeps Qt's own wheel. One rule with the right-hand column
(app/widgets/wheel_guard.py, tests/app/test_column_wheel.py)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QScrollArea, QWidget

from tests.app.helpers import make_session, settle, show
from tests.app.test_column_wheel import DOWN, UP, wheel, wheel_as_qt_delivers
from tests.conftest import ROOT

C4 = ROOT / "resources" / "lessons" / "c4-ffn.json"

# (lesson step, 1-based; the lab page's scroll area; the controls on it)
C4_PAGES = ((2, "xorScroll_naive", ("xorSliderA", "xorSpinB", "xorLandscapeAxes")),
            (7, "xorScroll_bias", ("xorBiasSlider", "xorBiasSpin")),
            (14, "ffnScroll_misconceptions", ("ffnScaleFirst",)))


def value(control: QWidget):
    return control.currentIndex() if hasattr(control, "currentIndex") else control.value()


def area_around(control: QWidget) -> QScrollArea:
    """The nearest scroll area the control is in (the naive controls' own column, else the page)."""
    parent = control.parentWidget()
    while not isinstance(parent, QScrollArea):
        parent = parent.parentWidget()
    return parent


def focus_elsewhere(lab) -> None:
    """The keyboard focus on the lab's tabs, in no scroll area (as after a click on a tab)."""
    bar = lab.tabs.tabBar()
    bar.setFocus(Qt.FocusReason.MouseFocusReason)
    settle(lambda: bar.window().focusWidget() is bar)


def in_view_with_room_below(control: QWidget) -> QScrollArea:
    """Scroll the control into view in every scroll area around it, each with room to go down."""
    areas, parent = [], control.parentWidget()
    while parent is not None:
        if isinstance(parent, QScrollArea):
            areas.append(parent)
        parent = parent.parentWidget()
    for area in areas:
        area.ensureWidgetVisible(control, 0, 0)
        QCoreApplication.processEvents()
        bar = area.verticalScrollBar()
        if bar.value() == bar.maximum():
            bar.setValue(bar.maximum() - 1)
    for _ in range(4):
        QCoreApplication.processEvents()
    return areas[0]


@pytest.fixture
def c4_short(blocklab_open):
    """Lesson C4 in a window too short for its lab pages: they scroll."""
    lab = blocklab_open(C4)
    lab.window.resize(1280, 480)
    return lab


def c4_step(lab, step: int, page_name: str):
    """Go to a step (1-based); the XOR lab or the FFN page, and the page's scroll area, which scrolls."""
    window = lab.window
    window.lessons.go(step - 1)
    page = window.findChild(QScrollArea, page_name)
    settle(lambda: page.isVisible() and page.verticalScrollBar().maximum() > 0)
    panel = page.parentWidget()
    while not hasattr(panel, "tabs"):
        panel = panel.parentWidget()
    return panel, page


def test_c4_an_unfocused_control_keeps_its_value_and_its_page_scrolls(c4_short):
    window, session = c4_short.window, c4_short.session
    linear = window.labs["xor"].linear
    for step, page_name, names in C4_PAGES:
        panel, page = c4_step(c4_short, step, page_name)
        for name in names:
            control = window.findChild(QWidget, name)
            assert control.isVisible(), name
            area = in_view_with_room_below(control)
            focus_elsewhere(panel)
            bars = {id(a): a.verticalScrollBar().value() for a in (area, page)}
            before, model, config, undo = value(control), linear.model, session.config, session.undo_stack.count()
            block = c4_short.tensor("b_in")

            event = wheel(control, DOWN)

            assert value(control) == before, name
            assert linear.model == model and session.config == config, name
            assert session.undo_stack.count() == undo and (c4_short.tensor("b_in") == block).all(), name
            assert area.verticalScrollBar().value() > bars[id(area)] and event.isAccepted(), name  # it scrolled
            assert not control.hasFocus(), name                   # the wheel gave it no focus either


def test_c4_at_the_end_of_the_controls_column_the_page_scrolls(c4_short):
    """The linear try's controls scroll in a column of their own inside the page: at its end the
    wheel goes on to the page, as Qt passes on a wheel a scroll area cannot take."""
    window = c4_short.window
    panel, page = c4_step(c4_short, 2, "xorScroll_naive")
    slider = window.findChild(QWidget, "xorSliderB")
    column = area_around(slider)
    assert column.objectName() == "xorNaiveControls" and column.verticalScrollBar().maximum() > 0
    in_view_with_room_below(slider)
    column.verticalScrollBar().setValue(column.verticalScrollBar().maximum())
    page.verticalScrollBar().setValue(0)
    focus_elsewhere(panel)
    before = slider.value()

    wheel(slider, DOWN)

    assert slider.value() == before
    assert column.verticalScrollBar().value() == column.verticalScrollBar().maximum()
    assert page.verticalScrollBar().value() > 0


def test_c4_a_focused_control_takes_the_wheel_and_a_control_outside_the_pages_keeps_qts(c4_short):
    window, session = c4_short.window, c4_short.session
    linear = window.labs["xor"].linear
    # The linear try's slider a, clicked into: the wheel moves it (and a with it); the page stays.
    panel, page = c4_step(c4_short, 2, "xorScroll_naive")
    slider = window.findChild(QWidget, "xorSliderA")
    in_view_with_room_below(slider)
    slider.setFocus(Qt.FocusReason.MouseFocusReason)
    settle(slider.hasFocus)
    before, a, where = slider.value(), linear.value("a"), area_around(slider).verticalScrollBar().value()
    wheel(slider, DOWN)
    assert slider.value() != before and linear.value("a") != a
    assert area_around(slider).verticalScrollBar().value() == where
    # The bias spin box, tabbed into: one step up, one undo step.
    panel, page = c4_step(c4_short, 7, "xorScroll_bias")
    spin = window.findChild(QWidget, "xorBiasSpin")
    in_view_with_room_below(spin)
    spin.setFocus(Qt.FocusReason.TabFocusReason)
    settle(spin.hasFocus)
    bias, undo, where = spin.value(), session.undo_stack.count(), page.verticalScrollBar().value()
    wheel(spin, UP)
    assert spin.value() == pytest.approx(bias + 0.05)
    settle(lambda: session.undo_stack.count() == undo + 1)
    assert page.verticalScrollBar().value() == where
    # The misconception page's slider, clicked into: the wheel moves it.
    panel, page = c4_step(c4_short, 14, "ffnScroll_misconceptions")
    slider = window.findChild(QWidget, "ffnScaleFirst")
    in_view_with_room_below(slider)
    slider.setFocus(Qt.FocusReason.MouseFocusReason)
    settle(slider.hasFocus)
    before = slider.value()
    wheel(slider, DOWN)
    assert slider.value() != before
    # The activation above the C4 lab's tabs is in no scroll area: Qt's own wheel, focused or not.
    panel, page = c4_step(c4_short, 4, "xorScroll_ffn")
    combo = window.findChild(QWidget, "xorActivation")
    assert combo.isVisible()
    focus_elsewhere(panel)
    index = combo.currentIndex()
    wheel(combo, DOWN if index + 1 < combo.count() else UP)
    assert combo.currentIndex() != index


def test_the_lab_controls_in_pages_take_focus_by_click_and_tab_not_by_the_wheel(c4_short):
    window = c4_short.window
    for name in ("xorSpinA", "xorLandscapeAxes", "xorBiasSpin", "xorW_in_0_0"):
        assert window.findChild(QWidget, name).focusPolicy() == Qt.FocusPolicy.StrongFocus, name
    assert window.findChild(QWidget, "xorActivation").focusPolicy() == Qt.FocusPolicy.WheelFocus   # outside


# --- the generations lab (alone on a Session, as tests/app/test_generations_lab.py builds it) -----
@pytest.fixture
def generations(qtbot):
    from app.labs.generations import GenerationsPanel
    session = make_session()
    panel = show(qtbot, GenerationsPanel(session), 1000, 400)
    yield session, panel
    from app.widgets import worker as workers
    assert workers.settle(QCoreApplication.instance())     # a demonstration's run ends before the panel goes
    panel.close()


@pytest.mark.parametrize("part, name", [("residual_growth", "genResidualLayers"), ("compare", "genCompareA"),
                                        ("gain_decay", "genGainLearningRate"), ("gain_decay", "genGainSteps"),
                                        ("swiglu_overflow", "genOverflowLimit"), ("parameters", "genParameters_ffn")])
def test_generations_an_unfocused_control_keeps_its_value_and_its_page_scrolls(generations, part, name):
    session, panel = generations
    panel.set_focus(part)
    page = panel.findChild(QScrollArea, f"genScroll_{part}")
    control = panel.findChild(QWidget, name)
    settle(lambda: control.isVisible() and page.verticalScrollBar().maximum() > 0)
    assert area_around(control) is page
    in_view_with_room_below(control)
    focus_elsewhere(panel)
    before, where = value(control), page.verticalScrollBar().value()
    config, undo = session.config, session.undo_stack.count()

    event = wheel(control, DOWN)

    assert value(control) == before
    assert session.config == config and session.undo_stack.count() == undo
    assert page.verticalScrollBar().value() > where and event.isAccepted()
    assert not control.hasFocus()


def test_generations_a_focused_control_takes_the_wheel(generations):
    _, panel = generations
    panel.set_focus("compare")
    page = panel.findChild(QScrollArea, "genScroll_compare")
    combo = panel.findChild(QWidget, "genCompareA")
    settle(combo.isVisible)
    in_view_with_room_below(combo)
    combo.setFocus(Qt.FocusReason.TabFocusReason)
    settle(combo.hasFocus)
    index, where = combo.currentIndex(), page.verticalScrollBar().value()

    wheel(combo, DOWN if index + 1 < combo.count() else UP)

    assert combo.currentIndex() != index
    assert page.verticalScrollBar().value() == where


# --- the trained-model lab (the tiny random model of tests/app/test_model_lab.py) ----------------
def test_model_lab_neuron_pickers_keep_qts_wheel_and_its_scrolling_page_scrolls(qtbot, tmp_path, monkeypatch):
    """The model lab's one page that scrolls (the ablation: a table and two plots) holds no value
    control; the neuron pickers sit in parts that do not scroll, in no scroll area, so they keep
    Qt's own wheel. The wheel over the ablation table, whole on its page, scrolls the page."""
    import numpy as np
    from app.labs.model import ModelLabPanel
    from app.labs.model.state import ModelLabState
    from tests.core.test_model import synthetic_arrays
    monkeypatch.setattr(ModelLabState, "RANK_CHARS", 64)
    monkeypatch.setattr(ModelLabState, "ABLATION_WINDOWS", 1)
    path = tmp_path / "tiny.npz"
    np.savez(path, **synthetic_arrays())
    panel = ModelLabPanel(make_session(), model_path=path)
    panel.set_focus("neurons")
    show(qtbot, panel, 1000, 360)
    try:
        spin = panel.findChild(QWidget, "modelNeuronsNeuron")
        settle(spin.isVisible)
        focus_elsewhere(panel)
        before = spin.value()
        wheel(spin, UP if before < spin.maximum() else DOWN)
        assert spin.value() != before                             # Qt's own wheel: no scroll area here

        panel.set_focus("ablation")
        page = panel.findChild(QScrollArea, "modelScroll_ablation")
        table = panel.findChild(QWidget, "modelAblationTable")
        settle(lambda: table.isVisible() and page.verticalScrollBar().maximum() > 0)
        page.verticalScrollBar().setValue(0)
        focus_elsewhere(panel)
        if table.verticalScrollBar().maximum() > 0:               # its rows at their end: the page is next
            table.verticalScrollBar().setValue(table.verticalScrollBar().maximum())
        taker = wheel_as_qt_delivers(table.viewport(), DOWN, table.viewport().rect().center())
        assert taker is not None and page.verticalScrollBar().value() > 0
    finally:
        panel.close()
        settle(lambda: panel.state.rank_job is None and panel.state.ablation_job is None, turns=100_000)
