"""In a column that scrolls, the wheel scrolls the column: a control takes it only once it has focus.

A learner scrolling the right-hand column down through its panels passes the pointer over combo
boxes, spin boxes, a slider and a table. Qt lets each of them take the wheel (and a combo box or a
spin box the focus with it), so scrolling silently switched the activation or changed a weight.
As in most desktop tools, a control here takes the wheel only when the learner has clicked or
tabbed into it (it has keyboard focus); otherwise the wheel goes to the scroll area around it,
which scrolls (or, where everything fits, does nothing: one rule wherever the column is). A table
(the weights) without focus scrolls its own rows and columns while it can in that direction, and
passes the wheel on at its end, as Qt does for a scroll area in a scroll area; with focus, it keeps
its own wheel (the weight editor nudges the selected cell).

`WheelGuard(owner).guard(widget)` installs one event filter on the controls under `widget` and
makes those that took focus by the wheel (Qt::WheelFocus) take it by click and Tab only
(Qt::StrongFocus). `guard_scroll_area(area)` guards a scroll area's content and each panel that
comes into it later: the right-hand column (ColumnScroll; presentation mode brings the inspector
in) and the labs' pages. The rule holds where the control is: a panel moved out of every scroll
area (presentation mode puts the options beside the plots, the inspector goes home) has Qt's own
wheel again, as the inspector always had there.

`guard_scroll_area(area)` brings the same rule to any other scroll area: every lab page that
scrolls (LabPanel.add_part), so scrolling a lab page never moves a slider. A wheel a scroll area
cannot take (at its end) goes on to the scroll area around it, as Qt passes it on (the C4 lab's
controls column scrolls on its own inside its page).
"""
from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QChildEvent, QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (QAbstractItemView, QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication,
                               QComboBox, QScrollArea, QScrollBar, QWidget)

# Controls whose value the wheel changes. (A line edit, ε's field, takes no wheel: Qt passes it on.)
VALUE_CONTROLS = (QComboBox, QAbstractSpinBox, QAbstractSlider)


def _controls(widget: QWidget) -> Iterator[QWidget]:
    """The value controls and item views at or under `widget`, not inside them nor in other windows
    (a combo box's popup list)."""
    if isinstance(widget, QScrollBar):
        return
    if isinstance(widget, VALUE_CONTROLS + (QAbstractItemView,)):
        yield widget
        return
    for child in widget.children():
        if isinstance(child, QWidget) and not child.isWindow():
            yield from _controls(child)


def has_focus(control: QWidget) -> bool:
    """The control (or its line edit, or a table's cell editor) has the keyboard focus of its
    window: the one it has, or will have again when the window is active."""
    focus = control.window().focusWidget()
    return focus is not None and (focus is control or control.isAncestorOf(focus))


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area whose viewport holds `widget` (not `widget` itself)."""
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow():
        if isinstance(parent, QAbstractScrollArea) and parent.viewport() is not None \
                and parent.viewport().isAncestorOf(widget):
            return parent
        parent = parent.parentWidget()
    return None


class WheelGuard(QObject):
    """The event filter on the guarded controls (a value control itself, an item view's viewport)."""

    def guard(self, widget: QWidget) -> None:
        for control in _controls(widget):
            if control.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                control.setFocusPolicy(Qt.FocusPolicy.StrongFocus)       # focus by click or Tab, not the wheel
            target = control.viewport() if isinstance(control, QAbstractItemView) else control
            # (again on a guarded one: it moves to the front, before a filter installed since,
            # e.g. the weight editor's nudge on its table's viewport)
            target.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        # Every event of a guarded control passes here (an edit repaints the value spin box, the
        # slider and the table): the class test makes no enum (PySide gives a wheel event its class).
        if event.__class__ is not QWheelEvent:
            return False
        control = watched
        if not isinstance(control, VALUE_CONTROLS):
            control = watched.parentWidget()                             # an item view's viewport
            if not isinstance(control, QAbstractItemView):
                return False
        if has_focus(control):
            return False                                                 # the learner is in it: its wheel
        area = _scroll_area_around(control)
        if area is None:
            return False             # moved out of the column (presentation mode): Qt's own wheel there
        if isinstance(control, QAbstractItemView) and _scroll_own(control, event):
            return True
        _scroll_out(area, watched, event)
        event.accept()                                                   # the column had it, at its end too
        return True


def _scroll_out(area: QAbstractScrollArea, watched: QWidget, event: QWheelEvent) -> None:
    """Scroll `area` by the turn; where it cannot go that way (at its end, or nothing to scroll),
    the scroll area around it, and so on out, as Qt passes on a wheel a scroll area ignores (a lab
    page's controls column that scrolls on its own inside the page that scrolls)."""
    while area is not None:
        viewport = area.viewport()
        turn = _copy(event, watched.mapTo(viewport, event.position().toPoint()))
        turn.ignore()
        QApplication.sendEvent(viewport, turn)           # its scroll bar accepts it only if it moved
        if turn.isAccepted():
            return
        area = _scroll_area_around(area)


def _scroll_own(view: QAbstractItemView, event: QWheelEvent) -> bool:
    """Scroll the view's own content as its viewport would, without its other wheel handling (the
    weight editor's nudge); False, the event unaccepted, where it cannot scroll that way."""
    delta = event.angleDelta()
    bar = view.horizontalScrollBar() if abs(delta.x()) > abs(delta.y()) else view.verticalScrollBar()
    turn = _copy(event, bar.mapFromGlobal(view.viewport().mapToGlobal(event.position().toPoint())))
    turn.ignore()
    QApplication.sendEvent(bar, turn)        # the bar accepts it only if it moved
    return turn.isAccepted()


def _copy(event: QWheelEvent, position) -> QWheelEvent:
    """The same turn of the wheel, at `position` in another widget."""
    return QWheelEvent(QPointF(position), event.globalPosition(), event.pixelDelta(), event.angleDelta(),
                       event.buttons(), event.modifiers(), event.phase(), event.inverted(), event.source())


def guard_scroll_area(area: QScrollArea) -> WheelGuard:
    """The column's rule in any other scroll area (a lab's page): the controls in `area`'s widget,
    and those that come into it later, take the wheel only with focus; the wheel over them scrolls
    the area (or, at its end, the area around it). The guard is the area's."""
    guard = WheelGuard(area)
    content = area.widget()
    if content is not None:
        guard.guard(content)
        content.installEventFilter(_NewChildren(guard, area))
    return guard


class _NewChildren(QObject):
    """Guards what comes into the area's widget later (a panel presentation mode moves into the column)."""

    def __init__(self, guard: WheelGuard, parent: QObject):
        super().__init__(parent)
        self._guard = guard

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        # one class test per event of the page (PySide gives a child event its class)
        if event.__class__ is QChildEvent and event.type() == QEvent.Type.ChildPolished \
                and isinstance(event.child(), QWidget):
            self._guard.guard(event.child())
        return False
