"""Labels whose live numbers change on every edit without relaying out the window.

QLabel.setText always calls updateGeometry, and a label whose minimum and maximum sizes differ
then invalidates its parent's layout: on the status bar that is a layout pass of the main window
and a second paint of the whole status bar per edit. A SteadyLabel holds its size fixed at the
size a plain QLabel would ask for, and keeps it while a new text needs no more room: a new text
that fits repaints the label only (drawn where a label of its own width would draw it); a
text that needs more room re-fixes it (that relayout happens as before), and `release()` (a new
scenario, a new language) lets it give the room back.

`ShapeHints` remembers the sizes a label worked out for a text, so that a text of the same shape
— the same text with other digits, the next value of a live number — does not lay out rich
text again (a wrapped label's minimum size alone is three to five layouts of its text). Only
where the font's digits are interchangeable: every digit as wide, and none kerned against its
neighbours (checked for each font, regular, bold and italic), so the sizes are the ones QLabel gives.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QLabel, QStyle, QStyleOption

_SHAPE = bytes.maketrans(b"123456789", b"000000000")
_PROBE = "##.#,#−# #)(#=#+#·#/#%#:#|#"          # a digit beside what numbers stand next to
_INTERCHANGEABLE: dict[str, bool] = {}


def text_shape(text: str) -> bytes:
    """The text with every digit a 0 (its UTF-8 bytes: no other character has a byte of an ASCII
    digit, and bytes translate 30 times faster): texts of one shape have one size in a font whose
    digits are interchangeable."""
    return text.encode().translate(_SHAPE)


def digits_interchangeable(font: QFont) -> bool:
    """Whether every digit takes the same room in `font` (and its bold and italic), beside anything
    a number stands next to (no digit is wider, none is kerned)."""
    key = font.key()
    known = _INTERCHANGEABLE.get(key)
    if known is None:
        known = True
        variants = []
        for bold, italic in ((False, False), (True, False), (False, True), (True, True)):
            variant = QFont(font)
            variant.setBold(bold)
            variant.setItalic(italic)
            variants.append(variant)
        for variant in variants:
            metrics = QFontMetricsF(variant)
            width = metrics.horizontalAdvance(_PROBE.replace("#", "0"))
            if any(metrics.horizontalAdvance(_PROBE.replace("#", digit)) != width for digit in "123456789"):
                known = False
                break
        _INTERCHANGEABLE[key] = known
    return known


class ShapeHints:
    """A label's sizes by its text's shape (see the module's docstring), for its font, settings and
    screen resolution; `follow(event)` forgets them on a style or language change."""

    LIMIT = 256                                     # sizes remembered, at most

    def __init__(self):
        self._sizes: dict[tuple, object] = {}
        self._text: str | None = None               # the last text asked about, and its shape
        self._shape = b""
        self._font: tuple[str, bool] | None = None  # the font's key, and whether its digits interchange

    def get(self, label: QLabel, what: str, compute, *args):
        """`compute(*args)` for `label`'s text, or what it gave for a text of the same shape."""
        # A layout asks a label for its height dozens of times per edit: this stays cheap.
        font = self._font
        if font is None:                              # forgotten by follow() on a font change
            font = self._font = (label.font().key(), digits_interchangeable(label.font()))
        if not font[1]:
            return compute(*args)
        text = label.text()
        if text != self._text:
            self._text, self._shape = text, text_shape(text)
        margins = label.contentsMargins()
        key = (what, args, self._shape, font[0], label.textFormat(), label.wordWrap(),
               margins.left(), margins.top(), margins.right(), margins.bottom(), label.margin(), label.indent(),
               label.alignment(), label.maximumWidth(), label.minimumWidth(), label.minimumHeight(),
               label.logicalDpiY())                   # (QLabel's sizes are at least its minimum size)
        found = self._sizes.get(key)
        if found is None:
            if len(self._sizes) >= self.LIMIT:
                self._sizes.clear()
            found = self._sizes[key] = compute(*args)
        return QSize(found) if isinstance(found, QSize) else found      # a copy: the caller may change it

    def clear(self) -> None:
        self._sizes.clear()
        self._font = None

    def follow(self, event: QEvent) -> None:
        """Forget every size on an event that may change them (call from changeEvent: a font
        change, inherited too, arrives there)."""
        if event.type() in _RESIZING:
            self.clear()


_RESIZING = {QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.LanguageChange}


class SteadyLabel(QLabel):
    """A plain-text, unwrapped QLabel fixed at its natural size, or wider (see the module's docstring)."""

    def __init__(self, text: str = "", parent=None) -> None:
        super().__init__(text, parent)
        # A QLabel's own size hint never goes below its minimum size, so a fixed label could not
        # shrink: an unparented, never shown twin measures the text instead.
        self._twin = QLabel()
        self._natural = 0                            # the width the text itself needs
        self._shape: bytes | None = None             # its shape (None: the font's digits differ)
        self._fit(grow_only=False)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text == self.text():
            return
        super().setText(text)
        if self._shape is not None and text_shape(text) == self._shape:
            return                                   # other digits, in a font where they take the same room
        self._fit()

    def release(self) -> None:
        """Fit the text again, narrower if it needs less room (a new scenario, a new language)."""
        self._fit(grow_only=False)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit(grow_only=False)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        extra = self.width() - self._natural
        if extra <= 0 or not self.text():
            super().paintEvent(event)
            return
        # Wider than its text: the text where a label of its natural width, at the right end,
        # draws it (as QLabel draws a plain text: the style's item text in the contents rect).
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        area = self.contentsRect().adjusted(extra, 0, 0, 0)
        flags = QStyle.visualAlignment(self.layoutDirection(), self.alignment())
        self.style().drawItemText(painter, area, int(flags.value if hasattr(flags, "value") else flags), option.palette,
                                  self.isEnabled(), self.text(), self.foregroundRole())
        painter.end()

    def _fit(self, grow_only: bool = True) -> None:
        twin = self._twin
        if twin.font() != self.font():
            twin.setFont(self.font())
        if twin.contentsMargins() != self.contentsMargins():
            twin.setContentsMargins(self.contentsMargins())
        twin.setText(self.text())
        hint = twin.sizeHint()
        self._natural = hint.width()
        self._shape = text_shape(self.text()) if digits_interchangeable(self.font()) else None
        if grow_only and hint.width() <= self.minimumWidth() and hint.height() == self.minimumHeight():
            hint.setWidth(self.minimumWidth())      # room enough: drawn at the right end (paintEvent)
        if self.minimumSize() != hint or self.maximumSize() != hint:
            self.setFixedSize(hint)
