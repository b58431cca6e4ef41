"""How Block Lab prints a number: one function, one minus sign, everywhere.

Fixed decimals (the inspector, tables, the diagram: enough to recompute any cell by hand)
or trimmed (the seed's style in formulas: 2, −0.25, 0.841); `format_short` for small
constants (ε = 1e−05), `format_exact` for a tooltip's every digit. Always the Unicode minus
"−", never "-0"; masked attention scores print as −∞. Text a learner types or edits may use
either minus: `parse_number` reads both.

A value that is not finite prints as a symbol here ("NaN", "∞", "−∞": never Python's "nan" /
"inf"); `number_kind` says which kind it is, so that the app can put a translated word in its
place (`format_number(value, words={NumberKind.NAN: …})`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from enum import Enum

MINUS = "−"
DECIMALS = 6                 # enough to recompute any cell by hand


class NumberKind(str, Enum):
    FINITE = "finite"
    NAN = "nan"                  # not a number: inf − inf, 0·inf, 0/0
    POSITIVE_INFINITY = "+inf"   # an overflow upwards (or a true +∞)
    NEGATIVE_INFINITY = "-inf"   # an overflow downwards, or a masked score


_SYMBOLS = {NumberKind.NAN: "NaN", NumberKind.POSITIVE_INFINITY: "∞", NumberKind.NEGATIVE_INFINITY: f"{MINUS}∞"}


def number_kind(value: float) -> NumberKind:
    value = float(value)
    if math.isnan(value):
        return NumberKind.NAN
    if math.isinf(value):
        return NumberKind.POSITIVE_INFINITY if value > 0 else NumberKind.NEGATIVE_INFINITY
    return NumberKind.FINITE


def format_number(value: float, decimals: int = DECIMALS, *, trim: bool = False,
                  words: Mapping[NumberKind, str] | None = None) -> str:
    """`value` with `decimals` decimals; `trim` drops trailing zeros (and the point). A value that
    is not finite prints as `words[kind]` when given (the app's translated word), else a symbol."""
    value = float(value)
    if not math.isfinite(value):
        kind = number_kind(value)
        return words[kind] if words and kind in words else _SYMBOLS[kind]
    text = f"{value:.{decimals}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.startswith("-"):
        text = text[1:] if float(text) == 0 else MINUS + text[1:]
    return text


def format_short(value: float) -> str:
    """Six significant digits, the shortest way ("g"): small constants such as ε = 1e−05."""
    value = float(value)
    if not math.isfinite(value):
        return format_number(value)
    return f"{value + 0.0:g}".replace("-", MINUS)


def format_exact(value: float) -> str:
    """Every digit Python needs to give the same float back (repr), with the Unicode minus:
    tooltips that show a cell's exact value."""
    value = float(value)
    if not math.isfinite(value):
        return format_number(value)
    return repr(value + 0.0).replace("-", MINUS)      # + 0.0: −0.0 prints as 0.0


def parenthesized(value: float, decimals: int = DECIMALS, *, trim: bool = False) -> str:
    """A number as a term inside a sum or product: negative ones in parentheses, (−1)."""
    text = format_number(value, decimals, trim=trim)
    return f"({text})" if text.startswith(MINUS) else text


def parse_number(text: str) -> float | None:
    """A typed number, or None. Accepts the Unicode minus; refuses commas (a thousands
    separator or a decimal comma? "1,000" must not quietly become 1) and "_"."""
    cleaned = text.strip().replace(MINUS, "-")
    if "," in cleaned or "_" in cleaned:
        return None
    try:
        return float(cleaned)
    except ValueError:
        return None
