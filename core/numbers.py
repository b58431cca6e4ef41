"""How Block Lab prints a number: one function, one minus sign, everywhere.

Fixed decimals (the inspector, tables, the diagram: enough to recompute any cell by hand)
or trimmed (the seed's style in formulas: 2, −0.25, 0.841); `format_short` for small
constants (ε = 1e−05), `format_exact` for a tooltip's every digit. Always the Unicode minus
"−", never "-0"; masked attention scores print as −∞. Text a learner types or edits may use
either minus: `parse_number` reads both.
"""
from __future__ import annotations

import math

MINUS = "−"
DECIMALS = 6                 # enough to recompute any cell by hand


def format_number(value: float, decimals: int = DECIMALS, *, trim: bool = False) -> str:
    """`value` with `decimals` decimals; `trim` drops trailing zeros (and the point)."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else f"{MINUS}∞"
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
