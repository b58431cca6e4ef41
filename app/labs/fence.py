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
        """The child's size constraints. A child with height-for-width gets its height from that
        (see `_fit_height`), so its preferred size, which follows its texts number by number,
        is left out; its minimum size is not."""
        child = self.child
        preferred = None if child.hasHeightForWidth() else child.sizeHint()
        return (preferred, child.minimumSizeHint(), child.minimumSize(), child.maximumSize(), child.sizePolicy())

    def _fit_height(self) -> bool:
        """Keep the fence's minimum height at the child's height for the width it has: a layout
        squeezing a widget that has no layout of its own would go below it (the child's wrapped
        texts would overlap). True if it changed (the parent is then asked again)."""
        child = self.child
        if not child.hasHeightForWidth() or self.width() <= 0:
            return False
        needed = max(child.heightForWidth(self.width()), 0)
        if needed == self.minimumHeight():
            return False
        self.setMinimumHeight(needed)
        return True

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
        self._fit_height()                        # a new width: maybe another height

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self._pass_on()
            return True
        if event.type() == QEvent.Type.Show:      # hidden, it heard no request: look again
            self._pass_on()
        return super().event(event)

    def _pass_on(self) -> None:
        """Ask the parent for another size if the child wants one."""
        hints, changed = self._read(), False
        if hints != self._hints:
            self._hints, changed = hints, True
            if self.sizePolicy() != hints[-1]:
                self.setSizePolicy(hints[-1])
        if not self._fit_height() and changed:
            self.updateGeometry()
