"""A one-line label whose live text changes on every edit without relaying out the window.

QLabel.setText always calls updateGeometry, and a label whose minimum and maximum sizes differ
then invalidates its parent's layout: on the status bar that is a layout pass of the main window
and a second paint of the whole status bar per edit. A SteadyLabel holds its size fixed at the
size a plain QLabel would ask for, so a new text of the same size repaints the label only; a text
(or font) that needs another size re-fixes it, and that relayout happens as before.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel


class SteadyLabel(QLabel):
    """A plain-text, unwrapped QLabel fixed at its natural size (see the module's docstring)."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(text, parent)
        # A QLabel's own size hint never goes below its minimum size, so a fixed label could not
        # shrink: an unparented, never shown twin measures the text instead.
        self._twin = QLabel()
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text == self.text():
            return
        super().setText(text)
        self._fit()

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()

    def _fit(self) -> None:
        twin = self._twin
        twin.setFont(self.font())
        twin.setContentsMargins(self.contentsMargins())
        twin.setText(self.text())
        hint = twin.sizeHint()
        if self.minimumSize() != hint or self.maximumSize() != hint:
            self.setFixedSize(hint)
