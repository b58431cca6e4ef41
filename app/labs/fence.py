"""A container that keeps a part's layout requests from climbing to the window.

Qt passes every layout request up one parent per event-loop pass: a label whose text changes
(a live number) re-lays out its part, then the part's parent, and so on up to the main window,
each pass a relayout and often a repaint — even when nothing changed size. A fence lays out its
one child itself and passes a request on only when the child's size hints really changed."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QWidget


class SizeFence(QWidget):
    """Holds `child` at its own size; its size hints are the child's (read when the parent lays
    out, so they are never stale then)."""

    def __init__(self, child: QWidget, parent: QWidget | None = None):
        super().__init__(parent)
        self.child = child
        child.setParent(self)
        self.setSizePolicy(child.sizePolicy())
        self._hints = self._read()

    def _read(self) -> tuple:
        """What the parent's layout allots the child by. A child with height-for-width gets its
        height from that at the width it has, so its preferred size (which follows its texts,
        number by number) is left out; its minimum size is not."""
        child = self.child
        if child.hasHeightForWidth():
            preferred = child.heightForWidth(self.width())
        else:
            preferred = child.sizeHint()
        return (preferred, child.minimumSizeHint(), child.minimumSize(), child.maximumSize(), child.sizePolicy())

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self.child.sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self.child.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return self.child.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self.child.heightForWidth(width)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.child.setGeometry(self.rect())
        self._hints = self._read()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            hints = self._read()
            if hints != self._hints:               # the child wants another size: ask the parent
                self._hints = hints
                if self.sizePolicy() != hints[-1]:
                    self.setSizePolicy(hints[-1])
                self.updateGeometry()
            return True
        return super().event(event)
