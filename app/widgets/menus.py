"""Menus built for one use (a right-click, a button's popup): shown, then deleted.

A `QMenu(parent)` made on each right-click stays a child of its parent for as long as the parent
lives, with its actions and their Python slots: the soak found hundreds of them after some
thousand clicks. `exec_once` runs the menu's own loop and deletes it afterwards; `popup_once`
shows it without blocking and deletes it when it closes.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QMenu


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
