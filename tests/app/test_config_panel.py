"""The block options and the checks, without the window: each pick, click or typed value
goes to the Session as one change, and the checks show what `core` finds."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QSpinBox, QVBoxLayout, QWidget

from app.explorer.config_panel import ConfigPanel, InvariantsPanel
from core.block import forward
from core.numbers import format_exact
from tests.app.helpers import settle, show


@pytest.fixture
def panel(qtbot, session):
    """The options above the checks, as the window's right column shows them."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.addWidget(ConfigPanel(session))
    layout.addWidget(InvariantsPanel(session))
    show(qtbot, column, 380, 420)
    yield column
    column.close()


def find(panel, kind, name):
    widget = panel.findChild(kind, name)
    assert widget is not None, f"no {kind.__name__} called {name}"
    return widget


def pick(panel, name: str, value: str) -> None:
    combo = find(panel, QComboBox, name)
    position = combo.findData(value)
    assert position >= 0, f"{name} has no option {value!r}"
    combo.setCurrentIndex(position)


def toggle(panel, name: str, on: bool) -> None:
    box = find(panel, QCheckBox, name)
    if box.isChecked() != on:
        box.click()


def type_into(qtbot, box, text: str) -> None:
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, text)
    qtbot.keyClick(box, Qt.Key_Return)


def expected_trace(session):
    s = session.state
    return forward(s.config, s.weights, s.inputs)


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "silu", "identity"])
def test_activation_selector_recomputes(panel, session, activation):
    pick(panel, "configActivation", activation)
    assert session.config.activation == activation
    assert np.array_equal(session.trace["mlp.hook_post"], expected_trace(session)["mlp.hook_post"])
    assert not np.array_equal(session.trace["mlp.hook_post"], np.maximum(session.trace["mlp.hook_pre"], 0))


def test_placement_selector_moves_the_norm(panel, session):
    pick(panel, "configPlacement", "pre")
    assert session.config.norm_placement == "pre"
    assert np.array_equal(session.trace["ln2.hook_in"], session.trace["hook_resid_mid"])


def test_attention_switch_removes_it_and_brings_it_back(panel, session):
    toggle(panel, "configAttention", False)
    assert "attn.hook_pattern" not in session.trace
    assert not find(panel, QComboBox, "configMask").isEnabled()        # no mask without attention
    toggle(panel, "configAttention", True)
    assert "attn.hook_pattern" in session.trace
    assert find(panel, QComboBox, "configMask").isEnabled()


def test_gated_switch_creates_weights_and_says_so(qtbot, panel, session):
    with qtbot.waitSignal(session.message) as told:
        toggle(panel, "configGated", True)
    assert "W_gate" in session.tensor_names()
    assert "W_gate" in told.args[0]
    session.undo_stack.undo()                          # the box follows the session back
    assert not find(panel, QCheckBox, "configGated").isChecked()


def test_causal_mask_selector(panel, session):
    pick(panel, "configMask", "causal")
    assert session.config.mask == "causal"
    assert np.all(np.triu(session.trace["attn.hook_pattern"][0], k=1) == 0)


def test_eps_zero_on_a_constant_row_turns_a_check_red(qtbot, panel, session):
    toggle(panel, "configAttention", False)
    for column in range(4):                       # token 0 becomes a constant row
        assert session.set_value("inputs", (0, column), 0.5)
    for index in ((0, 0), (1, 1), (2, 2), (3, 3), (4, 2), (5, 3)):
        assert session.set_value("W_out", index, 0.0)    # keep the FFN from changing the row
    type_into(qtbot, find(panel, QLineEdit, "configEps"), "0")
    assert session.config.eps == 0
    label = find(panel, QLabel, "invariant_ln2.var")
    assert label.property("violated") is True
    assert "✗" in label.text()
    assert find(panel, QLabel, "invariant_resid_post.sum").property("violated") is False


def test_an_eps_that_is_not_a_number_from_0_to_1_is_refused(qtbot, panel, session):
    eps = find(panel, QLineEdit, "configEps")
    before, steps = session.config.eps, session.undo_stack.count()
    for text in ("abc", "2", "-0.1"):
        with qtbot.waitSignal(session.message):
            type_into(qtbot, eps, text)
        assert session.config.eps == before and session.undo_stack.count() == steps
        assert eps.text() == format_exact(before)              # the box shows what is in force


def test_typing_a_size_is_one_change(qtbot, panel, session):
    box = find(panel, QSpinBox, "configDff")
    start = session.undo_stack.count()
    with qtbot.waitSignal(session.message) as told:
        type_into(qtbot, box, "12")
    assert session.config.d_ff == 12
    assert session.undo_stack.count() == start + 1
    assert "W_in" in told.args[0]                              # it says which weights it made


def test_tabbing_through_eps_changes_nothing(panel, session):
    assert session.set_config(eps=1.2345678e-05)
    count = session.undo_stack.count()
    eps = find(panel, QLineEdit, "configEps")
    eps.editingFinished.emit()                               # focus left the field, nothing typed
    assert session.config.eps == 1.2345678e-05
    assert session.undo_stack.count() == count


def test_the_checks_say_when_there_is_nothing_to_check(panel, session):
    empty = find(panel, QLabel, "invariantsEmpty")
    assert not empty.isVisible()
    assert session.set_config(attention=False, residual=False, norm="none")
    assert empty.isVisible()
    assert panel.findChild(QLabel, "invariant_ln2.var") is None


def test_the_checks_show_qk_norm_and_any_invariant_core_gives(qtbot, monkeypatch):
    from app.session import Session
    from core.analysis import Invariant
    from core.labs.generations import preset
    session = Session(preset("anchor"))
    checks = show(qtbot, InvariantsPanel(session), 380, 200)
    for key in ("q_norm.ms", "k_norm.ms", "ln1.ms", "pattern.rowsum"):
        label = checks.findChild(QLabel, f"invariant_{key}")
        assert label is not None and label.text().startswith("✓"), key
    assert "q_norm:" in checks.findChild(QLabel, "invariant_q_norm.ms").text()
    # A key this panel has no words for (a later engine's) reads as core labels it.
    novel = Invariant("rot.norm", "‖rot q‖/‖q‖", 1.0, np.array([1.0, 1.5]), False)
    monkeypatch.setattr(session, "invariants", lambda: [novel])
    checks.refresh()
    label = checks.findChild(QLabel, "invariant_rot.norm")
    assert label.text() == "✗ ‖rot q‖/‖q‖ = 1 (1.500000)"
    checks.close()


def test_checks_wrap_to_one_column_rather_than_cut_a_word(qtbot, session):
    checks = show(qtbot, InvariantsPanel(session), 420, 200)
    settle(lambda: checks._columns == 2)
    checks.resize(200, 300)
    settle(lambda: checks._columns == 1)
    for label in checks.labels.values():
        assert label.width() >= label.fontMetrics().horizontalAdvance(label.text())
    checks.close()


def test_options_and_checks_switch_language_live(qtbot, panel, session):
    from app import i18n
    steps = session.undo_stack.count()
    i18n.install("zh")
    try:
        attention = find(panel, QCheckBox, "configAttention")
        settle(lambda: attention.text() == "注意力")
        assert find(panel, QComboBox, "configPlacement").currentText().startswith("post-norm（")
        assert find(panel, QLabel, "invariant_ln2.var").text() == "✓ LN2：方差 = 1"     # a Chinese colon
        assert find(panel, QComboBox, "configNorm").currentData() == session.config.norm
    finally:
        i18n.install("en")
    settle(lambda: find(panel, QCheckBox, "configAttention").text() == "attention")
    assert session.undo_stack.count() == steps                 # retranslating changed nothing


def combo_field_width(combo) -> int:
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return combo.style().subControlRect(QStyle.CC_ComboBox, option, QStyle.SC_ComboBoxEditField, combo).width()


def longest_item(combo) -> float:
    from PySide6.QtGui import QFontMetricsF
    metrics = QFontMetricsF(combo.font())
    return max(metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))


@pytest.mark.parametrize("first, then", [("en", "zh"), ("zh", "en")])
def test_option_boxes_fit_their_longest_option_after_a_zoom_and_a_live_switch(qtbot, session, first, then):
    """In a panel squeezed to its minimum width, every option box still shows its longest option
    whole: at the larger text of presentation mode, and after a live switch of language (Qt
    measures a combo box's minimum once, with the first font and texts)."""
    from app import i18n
    from app.widgets.appearance import appearance
    from app.widgets.style import follow_appearance
    from PySide6.QtWidgets import QApplication
    follow_appearance(QApplication.instance())
    names = ("configActivation", "configNorm", "configPlacement", "configMask")
    i18n.install(first)
    options = show(qtbot, ConfigPanel(session), 100, 300)     # narrower than it can be: at its minimum
    try:
        for presenting, language in ((False, first), (True, first), (True, then)):
            appearance().set_presenting(presenting)
            i18n.install(language)
            options.resize(100, 300)
            for name in names:
                combo = find(options, QComboBox, name)
                for position in range(combo.count()):
                    combo.setCurrentIndex(position)
                    settle(lambda: combo_field_width(combo) + 1 >= longest_item(combo))
                assert combo.minimumSizeHint().width() >= longest_item(combo), (name, language, presenting)
    finally:
        appearance().set_presenting(False)
        i18n.install("en")
        options.close()


def test_the_checks_grow_and_shrink_with_the_zoom_like_every_other_text(qtbot, session, monkeypatch):
    """A check is styled by a style sheet of its own (green, or red and bold), which keeps the font
    it had when it was styled. In the window a zoom reaches the checks first (appearance().changed:
    styled again) and the application's font after (style.follow_appearance): the checks stayed at
    the old size, one zoom behind every other text."""
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication
    from core.analysis import Invariant
    found = session.invariants
    failing = Invariant("rot.norm", "‖rot q‖/‖q‖", 1.0, np.array([1.5]), False)    # a red, bold check too
    monkeypatch.setattr(session, "invariants", lambda: found() + [failing])
    checks = show(qtbot, InvariantsPanel(session), 420, 200)
    assert checks.findChild(QLabel, "invariant_rot.norm").text().startswith("✗")
    font = QApplication.font()
    try:
        for size in (15.0, 12.0, 20.0):
            checks._recolour()                       # what appearance().changed does to the panel,
            zoomed = QFont(font)
            zoomed.setPointSizeF(size)
            QApplication.setFont(zoomed)             # then what style.follow_appearance does
            settle(lambda: checks.font().pointSizeF() == size)       # (the change is posted)
            for _ in range(5):
                QApplication.processEvents()
            for key, label in checks.labels.items():
                assert label.font().pointSizeF() == size, key
            assert checks.labels["rot.norm"].font().bold()
    finally:
        QApplication.setFont(font)
        checks.close()
