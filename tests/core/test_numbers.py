"""One way to print a number."""
import math

import pytest

from core.numbers import format_exact, format_number, format_short, parenthesized, parse_number


@pytest.mark.parametrize("value, decimals, trim, expected", [
    (1.170705, 6, False, "1.170705"),
    (-0.25514, 6, False, "−0.255140"),
    (-1e-9, 6, False, "0.000000"),          # never "−0.000000"
    (2.0, 6, True, "2"),
    (-0.25, 6, True, "−0.25"),
    (0.8411919906, 3, True, "0.841"),
    (-0.0001, 3, True, "0"),
    (-math.inf, 6, False, "−∞"),
    (math.inf, 6, False, "∞"),
    (math.nan, 6, False, "NaN"),
])
def test_format_number(value, decimals, trim, expected):
    assert format_number(value, decimals, trim=trim) == expected


def test_parenthesized_wraps_negatives_only():
    assert parenthesized(-1.0, trim=True) == "(−1)"
    assert parenthesized(2.5, trim=True) == "2.5"


def test_parse_number_round_trips_what_is_printed():
    for value in (-0.25514, 3.0, 1e-6):
        assert parse_number(format_number(value)) == pytest.approx(value, abs=1e-6)
    assert parse_number("1,000") is None and parse_number("1_0") is None and parse_number("abc") is None


def test_short_and_exact_forms_use_the_same_minus():
    assert [format_short(v) for v in (1e-5, 0.5, 2.0, -2.5, -0.0)] == ["1e−05", "0.5", "2", "−2.5", "0"]
    assert [format_exact(v) for v in (-0.1, 1e-7, -0.0, -math.inf)] == ["−0.1", "1e−07", "0.0", "−∞"]
    for value in (-0.1, 1 / 3, -1e-7):
        assert parse_number(format_exact(value)) == value      # every digit: the same float back
