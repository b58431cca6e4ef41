"""A number spin box that writes numbers as Block Lab prints them and refuses bad input aloud."""
from __future__ import annotations

import math
import re

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QWidget

from app.session import parse_number
from app.widgets.style import font
from core.numbers import format_number

_PARTIAL_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d*)?")               # "", "-", "1.", ".5"
_PARTIAL_EXPONENT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)[eE][+-]?\d*")   # "1e", "1e-", "2.5E+1"


class NumberSpin(QDoubleSpinBox):
    """A spin box that shows numbers as the seed writes them (1, −2, 0.841192) and reads them as
    app.session.parse_number does (the Unicode minus too; no commas).

    Only a finite number within [minimum(), maximum()] is acceptable; the beginnings of one
    ("", "−", "1.", "1e", "1e−") and out-of-range numbers may stand while typing, anything else
    is refused. A text that is not acceptable when editing ends (Enter, focus out) leaves the value
    as it was, and `refused` says why (never clamped, never silently)."""

    refused = Signal(str)

    def __init__(self, check=None, parent: QWidget | None = None):
        super().__init__(parent)
        self._check = check            # (value, text) → reason or None, e.g. Session.check_value

    def textFromValue(self, value: float) -> str:  # noqa: N802 (Qt's name)
        return format_number(value, self.decimals(), trim=True)

    def valueFromText(self, text: str) -> float:  # noqa: N802 (Qt's name)
        number = parse_number(self._strip(text))
        return self.value() if number is None else number

    def validate(self, text: str, position: int):
        body = self._strip(text)
        number = parse_number(body)
        if number is not None and math.isfinite(number) and self.minimum() <= number <= self.maximum():
            return QValidator.State.Acceptable, text, position
        ascii_body = body.replace("−", "-")
        if _PARTIAL_NUMBER.fullmatch(ascii_body) or _PARTIAL_EXPONENT.fullmatch(ascii_body):
            return QValidator.State.Intermediate, text, position      # typing on; 1e9 is told on Enter
        return QValidator.State.Invalid, text, position

    def fixup(self, text: str) -> str:
        return text                    # QDoubleSpinBox would drop ",": "1,000" must not become 1000

    def problem(self, text: str) -> str | None:
        """Why `text` cannot be this box's value, or None if it can."""
        body = self._strip(text)
        number = parse_number(body)
        reason = self._check(number, body) if self._check is not None else None
        if reason is None and number is not None and math.isfinite(number) \
                and self.minimum() <= number <= self.maximum():
            return None
        if reason is None:
            if number is None or not math.isfinite(number):
                reason = self.tr("“%1” is not a finite number; the field keeps its value.").replace("%1", body[:40])
            else:
                reason = self.tr("Values here must lie between %1 and %2; the field keeps its value.") \
                    .replace("%1", self.textFromValue(self.minimum())).replace("%2", self.textFromValue(self.maximum()))
        return reason

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._finishing(lambda: super(NumberSpin, self).keyPressEvent(event))
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self._finishing(lambda: super(NumberSpin, self).focusOutEvent(event))

    def _finishing(self, handle) -> None:
        """Let Qt end the edit (an unacceptable text goes back to the old value), then say why."""
        text = self.lineEdit().displayText()
        reason = None
        if self.validate(text, 0)[0] != QValidator.State.Acceptable:
            reason = self.problem(text)
        handle()
        if reason:
            self.refused.emit(reason)

    def _strip(self, text: str) -> str:
        prefix = self.prefix()
        return (text[len(prefix):] if prefix and text.startswith(prefix) else text).strip()


def session_spin(name: str, low: float, high: float, step: float, session, decimals: int = 6,
                 points: float = 11) -> NumberSpin:
    """A NumberSpin checked by the Session (its refusals go to the status bar), committing once
    per typed number."""
    spin = NumberSpin(session.check_value)
    spin.setObjectName(name)
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setDecimals(decimals)
    spin.setKeyboardTracking(False)     # typing "−2" commits once, not "−" then "−2"
    spin.setFont(font(points))
    spin.setAlignment(Qt.AlignmentFlag.AlignRight)
    spin.refused.connect(session.message.emit)
    return spin


def set_spin_value(spin: QDoubleSpinBox, value: float) -> None:
    """Show `value` without emitting valueChanged (the Session pushes values back this way)."""
    if abs(spin.value() - value) > 10 ** -(spin.decimals() + 1):
        with QSignalBlocker(spin):
            spin.setValue(value)
