"""A container that keeps a widget's layout requests from climbing to the window.

Qt passes every layout request up one parent per event-loop pass: a label whose text changes
(a live number) re-lays out its part, then the part's parent, and so on up to the main window,
each pass a relayout and often a repaint — even when nothing changed size. QLabel.setText asks
again on every call. A fence lays out its one child itself and passes a request on only when
the child's size constraints, or its height for the width it has, really changed."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QWidget


class SizeFence(QWidget):
    """Holds `child` at its own size; its size hints are the child's (read when the parent lays
    out, so they are never stale then).

    `hold_height` (the default): the fence keeps its minimum height at the child's height for its
    width, so a layout squeezing a widget without a layout of its own (a part of a lab) never
    goes below it. Without it the fence sets no minimum height of its own and the layout may
    squeeze the child as it would without the fence (the lesson caption); a request is then
    passed on when the child's height for the fence's width is not the height it has."""

    def __init__(self, child: QWidget, parent: QWidget | None = None, *, hold_height: bool = True):
        super().__init__(parent)
        self.child = child
        self.hold_height = hold_height
        child.setParent(self)
        self.setSizePolicy(child.sizePolicy())
        self._hints = self._read()

    def _read(self) -> tuple:
        """The child's size constraints. A child with height-for-width gets its height from that,
        so its preferred size, which follows its texts number by number (and costs a text layout
        to read), is left out; its minimum size is not."""
        child = self.child
        wraps = child.hasHeightForWidth()
        preferred = None if wraps else child.sizeHint()
        return (preferred, child.minimumSizeHint(), child.minimumSize(), child.maximumSize(), child.sizePolicy(),
                wraps)

    def _needed_height(self) -> int | None:
        """The child's height for the fence's width (None: it has no height-for-width, or no width yet)."""
        if not self.child.hasHeightForWidth() or self.width() <= 0:
            return None
        return max(self.child.heightForWidth(self.width()), 0)

    def _fit_height(self) -> bool:
        """Keep the fence's minimum height at the child's height for the width it has: a layout
        squeezing a widget that has no layout of its own would go below it (the child's wrapped
        texts would overlap). True if it changed (the parent is then asked again)."""
        needed = self._needed_height()
        if needed is None or needed == self.minimumHeight():
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
        if self.hold_height:
            self._fit_height()                    # a new width: maybe another height

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
            if self.sizePolicy() != hints[4]:
                self.setSizePolicy(hints[4])
        if self.hold_height:
            if not self._fit_height() and changed:
                self.updateGeometry()
        elif changed or self._needed_height() not in (None, self.height()):
            self.updateGeometry()
