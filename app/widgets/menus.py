"""Menus: the main window's menus, and menus built for one use (a right-click, a button's popup).

`WindowMenu` is a menu of the main window's menu bar: its actions belong to the window (their
shortcuts work wherever the window has focus) and it retranslates itself on a language change.

A `QMenu(parent)` made on each right-click stays a child of its parent for as long as the parent
lives, with its actions and their Python slots: the soak found hundreds of them after some
thousand clicks. `exec_once` runs the menu's own loop and deletes it afterwards; `popup_once`
shows it without blocking and deletes it when it closes.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget


class WindowMenu(QMenu):
    """A menu of the main window: `add_window_action` makes an action of the window's, listed
    here; `retranslate()` (the subclass's) sets every text, again on each language change."""

    def __init__(self, window: QWidget, object_name: str):
        super().__init__(window)
        self.setObjectName(object_name)
        self.window = window

    def add_window_action(self, object_name: str, slot) -> QAction:
        action = QAction(self.window)          # the window's: its shortcut works wherever the window has focus
        action.setObjectName(object_name)
        action.triggered.connect(slot)
        self.window.addAction(action)
        self.addAction(action)
        return action

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Every text of the menu in the current language (subclasses)."""


def exec_once(menu: QMenu, position: QPoint):
    """Show `menu` at the global `position` until it closes, then delete it; the chosen action (or None)."""
    try:
        return menu.exec(position)
    finally:
        menu.deleteLater()


def popup_once(menu: QMenu, position: QPoint) -> QMenu:
    """Show `menu` at the global `position` without blocking; it is deleted once it is hidden (later, so
    the action chosen, which is triggered after the menu hides, still runs)."""
    menu.aboutToHide.connect(menu.deleteLater)
    menu.popup(position)
    return menu
