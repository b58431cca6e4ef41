"""Text from files (lesson captions, scenario titles, tokens, file names) is data, never markup.

Qt renders a string that merely looks like HTML as rich text wherever the format is automatic
(QLabel's default, tooltips, QMessageBox, pyqtgraph's titles, labels and legends): an
`<img src="file:///…">` there would be loaded. Put such text inside rich text with `escaped`,
and give it to a tooltip with `plain_tooltip`, so it is shown as the characters it is."""
from __future__ import annotations

import html

from PySide6 import QtGui


def escaped(text: str) -> str:
    """`text` as rich text that shows exactly its characters."""
    return html.escape(text, quote=False)


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` literally: unchanged unless Qt would take it for HTML."""
    if not QtGui.Qt.mightBeRichText(text):
        return text
    return f"<p style='white-space:pre-wrap'>{escaped(text)}</p>"
