"""Reading what a window shows, widget by widget, to compare two windows (tests only).

`screen_texts(window)` maps a stable path for every visible widget (object names and classes
from the window down, with a position among same-named siblings) to the texts it shows, menus
and the status bar included. Two windows built the same way have the same paths, so a window
switched to a language live can be compared with one built in that language.
"""
from __future__ import annotations

from PySide6.QtWidgets import QMenu, QWidget

from tests.app.test_no_english_in_chinese import _menu_texts, _widget_texts


def widget_path(widget: QWidget, top: QWidget) -> str:
    parts = []
    while widget is not None and widget is not top:
        parent = widget.parentWidget()
        name = widget.objectName() or type(widget).__name__
        if parent is not None:
            same = [w for w in parent.findChildren(type(widget)) if w.parentWidget() is parent
                    and (w.objectName() or type(w).__name__) == name]
            name += f"[{same.index(widget)}]" if len(same) > 1 else ""
        parts.append(name)
        widget = parent
    return "/".join(reversed(parts))


def screen_texts(window) -> dict[str, list[str]]:
    """Every visible widget's texts by path, the menus' action texts, the window title; the
    status bar's passing message is left out (it says what just happened)."""
    texts: dict[str, list[str]] = {"(title)": [window.windowTitle()]}
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() or isinstance(widget, QMenu):
            continue
        shown = _widget_texts(widget)
        if shown:
            texts[widget_path(widget, window)] = sorted(shown)
    for where, text in _menu_texts(window):
        texts.setdefault(f"menu:{where}", []).append(text)
    return texts


def differences(live: dict[str, list[str]], fresh: dict[str, list[str]]) -> list[str]:
    """Where the live-switched window shows something else than the freshly built one."""
    found = []
    for path in sorted(set(live) | set(fresh)):
        if live.get(path) != fresh.get(path):
            found.append(f"{path}:\n    live:  {live.get(path)}\n    fresh: {fresh.get(path)}")
    return found
