"""The wheel over the right-hand column scrolls the column: a combo box, a spin box, the weight
slider or the weights table the pointer merely passes over keeps its value (scrolling down the
options switched the activation, or changed a weight, unnoticed). A control the learner has
clicked or tabbed into takes the wheel as before; where the column has nothing to scroll, an
unfocused control still does not take it (one rule)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from tests.app.helpers import settle

DOWN, UP = -1, 1          # notches: a turn towards the learner scrolls down


def wheel(widget: QWidget, notches: int = DOWN, at: QPoint | None = None) -> QWheelEvent:
    """One turn of the wheel over `widget` (at its centre), as the pointer would send it."""
    position = widget.rect().center() if at is None else at
    event = QWheelEvent(QPointF(position), QPointF(widget.mapToGlobal(position)), QPoint(), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    QCoreApplication.processEvents()
    return event


def wheel_as_qt_delivers(widget: QWidget, notches: int, at: QPoint) -> QWidget | None:
    """One turn of the wheel from the mouse: to `widget`, then up its parents until one handles and
    accepts it (Qt 6 propagates only a spontaneous wheel event; one sent from Python goes to its
    receiver alone). The widget that took it, or None."""
    spot = widget.mapToGlobal(at)
    target = widget
    while target is not None:
        position = target.mapFromGlobal(spot)
        event = QWheelEvent(QPointF(position), QPointF(spot), QPoint(), QPoint(0, 120 * notches),
                            Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
        if QApplication.sendEvent(target, event) and event.isAccepted():    # as QApplication::notify asks
            QCoreApplication.processEvents()
            return target
        target = None if target.isWindow() else target.parentWidget()
    return None


def _column(window) -> QScrollArea:
    return window.findChild(QScrollArea, "rightColumnScroll")


def _focus_elsewhere(window) -> None:
    """The keyboard focus on the block diagram, not in the column (as after a click on a node)."""
    window.dataflow.setFocus(Qt.FocusReason.MouseFocusReason)
    settle(lambda: window.focusWidget() is window.dataflow)


@pytest.fixture
def short_window(blocklab_window):
    """The default block in a window too short for the column: it scrolls, at its top."""
    window = blocklab_window.window
    window.resize(1280, 520)
    bar = _column(window).verticalScrollBar()
    settle(lambda: bar.maximum() > 0 and bar.isVisible())
    bar.setValue(bar.minimum())
    _focus_elsewhere(window)
    return blocklab_window


@pytest.mark.parametrize("name", ["configActivation", "configNorm", "configMask", "configDff", "configHeads",
                                  "weightTensorCombo", "weightValueSpin", "weightValueSlider", "weightSeedSpin"])
def test_an_unfocused_control_keeps_its_value_and_the_column_scrolls(short_window, name):
    window, session = short_window.window, short_window.session
    control = window.findChild(QWidget, name)
    column = _column(window)
    bar = column.verticalScrollBar()
    column.ensureWidgetVisible(control, 0, 0)         # the pointer over it: it is in view
    QCoreApplication.processEvents()
    _focus_elsewhere(window)
    if bar.value() == bar.maximum():                  # room to scroll down from where it is
        bar.setValue(bar.maximum() - 1)
    value = control.currentIndex() if hasattr(control, "currentIndex") else control.value()
    config, undo, where = session.config, session.undo_stack.count(), bar.value()

    event = wheel(control, DOWN)

    assert (control.currentIndex() if hasattr(control, "currentIndex") else control.value()) == value
    assert session.config == config and session.undo_stack.count() == undo
    assert bar.value() > where and event.isAccepted()          # the column scrolled down
    assert not control.hasFocus()                              # the wheel gave it no focus either


def test_a_focused_spin_box_takes_the_wheel_one_undo_step(short_window):
    window, session = short_window.window, short_window.session
    spin = window.findChild(QWidget, "configDff")
    bar = _column(window).verticalScrollBar()
    spin.setFocus(Qt.FocusReason.TabFocusReason)      # the learner tabbed into it
    settle(spin.hasFocus)
    d_ff, undo, where = session.config.d_ff, session.undo_stack.count(), bar.value()

    wheel(spin, UP)

    assert spin.value() == d_ff + 1
    settle(lambda: session.config.d_ff == d_ff + 1)
    assert session.undo_stack.count() == undo + 1
    assert bar.value() == where                       # the column stayed put


def test_the_controls_take_focus_by_click_and_tab_not_by_the_wheel(blocklab_window):
    window = blocklab_window.window
    for name in ("configActivation", "configDff", "weightTensorCombo", "weightValueSpin", "weightSeedSpin",
                 "weightHeadSelector"):
        assert window.findChild(QWidget, name).focusPolicy() == Qt.FocusPolicy.StrongFocus, name


def test_where_the_column_cannot_scroll_an_unfocused_control_still_keeps_its_value(blocklab_window):
    window, session = blocklab_window.window, blocklab_window.session
    bar = _column(window).verticalScrollBar()
    settle(lambda: not bar.isVisible())               # 1280×800: everything fits
    _focus_elsewhere(window)
    combo = window.findChild(QWidget, "configActivation")
    slider = window.findChild(QWidget, "weightValueSlider")
    index, position = combo.currentIndex(), slider.value()
    config, undo = session.config, session.undo_stack.count()

    wheel(combo, DOWN)
    wheel(slider, UP)

    assert combo.currentIndex() == index and slider.value() == position
    assert session.config == config and session.undo_stack.count() == undo
    assert bar.value() == 0


def test_the_weights_table_scrolls_its_rows_then_the_column_and_nudges_only_when_focused(short_window):
    window, session = short_window.window, short_window.session
    editor = window.weight_editor
    short_window.show_tensor("W_in")
    table, column = editor.table, _column(window)
    column.ensureWidgetVisible(table, 0, 0)
    QCoreApplication.processEvents()
    rows, bar = table.verticalScrollBar(), column.verticalScrollBar()
    current = editor.model.index(0, 0)
    table.setCurrentIndex(current)
    _focus_elsewhere(window)
    before, undo = short_window.tensor("W_in"), session.undo_stack.count()
    over_current = table.visualRect(current).center()
    assert rows.maximum() > 0, "the table's rows scroll here"
    rows.setValue(rows.minimum())
    if bar.value() == bar.maximum():
        bar.setValue(bar.maximum() - 1)
    for _ in range(4):                                # laid out at this scroll position
        QCoreApplication.processEvents()
    where = bar.value()

    # Not focused: over the selected cell, the wheel scrolls the table's own rows, nudges nothing.
    wheel(table.viewport(), DOWN, over_current)
    assert rows.value() > rows.minimum() and bar.value() == where
    assert (short_window.tensor("W_in") == before).all() and session.undo_stack.count() == undo
    # At the table's last row, the wheel goes on to the column.
    rows.setValue(rows.maximum())
    wheel(table.viewport(), DOWN, over_current)
    assert rows.value() == rows.maximum() and bar.value() > where
    assert (short_window.tensor("W_in") == before).all() and session.undo_stack.count() == undo

    # Focused (the learner clicked into the table): the wheel over the selected cell nudges it, one step.
    rows.setValue(rows.minimum())
    column.ensureWidgetVisible(table, 0, 0)
    QCoreApplication.processEvents()
    table.setFocus(Qt.FocusReason.MouseFocusReason)
    settle(table.hasFocus)
    where = bar.value()
    wheel(table.viewport(), UP, table.visualRect(current).center())
    settle(lambda: session.undo_stack.count() == undo + 1)
    assert short_window.tensor("W_in")[0, 0] == pytest.approx(before[0, 0] + 0.05)
    assert bar.value() == where
    # Focused, elsewhere than the selected cell: its rows scroll, and at the last one Qt passes
    # the wheel on to the column (a scroll area at its end ignores the wheel; its parents get it).
    rows.setValue(rows.maximum())
    beside = table.visualRect(editor.model.index(editor.model.rowCount() - 1, 0)).center()
    assert table.viewport().rect().contains(beside)
    changed = short_window.tensor("W_in")
    taker = wheel_as_qt_delivers(table.viewport(), DOWN, beside)
    assert taker is column.viewport() and bar.value() > where
    assert (short_window.tensor("W_in") == changed).all() and session.undo_stack.count() == undo + 1


def test_the_wheel_over_the_eps_field_scrolls_the_column_and_leaves_eps(short_window):
    """ε's field is a line edit: Qt's takes no wheel, so the wheel goes on to the column."""
    window, session = short_window.window, short_window.session
    eps, column = window.findChild(QWidget, "configEps"), _column(window)
    bar = column.verticalScrollBar()
    column.ensureWidgetVisible(eps, 0, 0)
    QCoreApplication.processEvents()
    text, config, where = eps.text(), session.config, bar.value()

    taker = wheel_as_qt_delivers(eps, DOWN, eps.rect().center())

    assert taker is column.viewport() and bar.value() > where
    assert eps.text() == text and session.config == config


def test_presenting_the_plain_column_still_keeps_the_wheel_from_an_unfocused_control(blocklab_open):
    """R45 presenting at 150 % on 1024×768: the inspector tops the right-hand column, which fills
    its room and does not scroll. At step 5 the block options are below it, at step 8 the
    inspector's head selector is in it (it came into the column): the wheel over them, unfocused,
    changes nothing (one rule, scrolling or not)."""
    from app.widgets.appearance import appearance
    from tests.conftest import ROOT
    lab = blocklab_open(ROOT / "resources" / "lessons" / "r45-ffn-residual-norm.json")
    window, session = lab.window, lab.session
    appearance().set_zoom(1.5)
    window.presentation.enter(full_screen=False)
    window.resize(1024, 768)
    column, panels = _column(window), window.presentation.panels
    for step, name in ((4, "configActivation"), (7, "inspectorHeadSelector")):
        window.lessons.go(step)
        control = window.findChild(QWidget, name)
        settle(lambda: panels.place_of("inspector") == "right" and control.isVisible())
        assert not column.scrolling() and column.isAncestorOf(control)
        _focus_elsewhere(window)
        index, config, undo = control.currentIndex(), session.config, session.undo_stack.count()

        wheel(control, DOWN)

        assert control.currentIndex() == index, name
        assert session.config == config and session.undo_stack.count() == undo
    # Back home under the diagram, out of every scroll area, the head selector has Qt's own wheel
    # (nothing there scrolls; a head is a view, not an edit).
    window.presentation.leave()
    settle(lambda: not column.isAncestorOf(control) and control.isVisible())
    _focus_elsewhere(window)
    index = control.currentIndex()
    wheel(control, DOWN if index + 1 < control.count() else UP)
    assert control.currentIndex() != index
