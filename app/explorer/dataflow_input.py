"""The dataflow view's answers to the mouse and keys: a click selects a node's cell, a token or
a head; a double click or a number key spotlights a node; Ctrl+= / Ctrl+- / Ctrl+0 and the wheel
zoom; Esc clears a spotlight. A mixin of DataflowView (app/explorer/dataflow.py), which has the
session, the scene (`flow`), spotlight() and the zoom functions it calls."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt


class DiagramInput:
    # --- interaction -------------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.LeftButton:
            hit = self.flow.hit(self.mapToScene(event.position().toPoint()))
            if hit is not None:
                if hit[0] == "node":
                    _, hook, token, column = hit
                    self.session.select(hook=hook, token=token, column=column)
                    if self._click_spotlight:
                        self.spotlight(hook)
                elif hit[0] == "token":
                    self.session.select(token=hit[1])
                else:
                    self.session.select(head=hit[1])
                event.accept()
                return
            self.spotlight(None)              # a click on empty space clears the spotlight
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802
        hit = self.flow.hit(self.mapToScene(event.position().toPoint()))
        if event.button() == Qt.LeftButton and hit is not None and hit[0] == "node":
            self.spotlight(None if self.spotlighted() == hit[1] else hit[1])
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def event(self, event) -> bool:  # noqa: N802
        # Esc clears a spotlight before any window-wide Esc (leaving presentation mode) sees it.
        if (event.type() == QEvent.ShortcutOverride and event.key() == Qt.Key_Escape
                and self.spotlighted() is not None):
            event.accept()
            return True
        return super().event(event)

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        steps = event.angleDelta().y() / 120
        if steps:
            self._zoom(1.15 ** steps)
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802
        key = event.key()
        if event.modifiers() & Qt.ControlModifier:
            actions = {Qt.Key_Equal: self.zoom_in, Qt.Key_Plus: self.zoom_in, Qt.Key_Minus: self.zoom_out,
                       Qt.Key_0: self.fit_to_window}
            if key in actions:
                actions[key]()
                return
        elif key == Qt.Key_Escape and self.spotlighted() is not None:
            self.spotlight(None)
            return
        elif int(Qt.Key_0) <= int(key) <= int(Qt.Key_9) and event.modifiers() in (Qt.NoModifier, Qt.KeypadModifier):
            self.spotlight_number(int(key) - int(Qt.Key_0))
            return
        super().keyPressEvent(event)
