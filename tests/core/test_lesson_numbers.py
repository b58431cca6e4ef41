"""A number a lesson writes reads as the screen prints it (core.numbers): the caption's ε and the
config panel's ε field are one string (R45 step 3 wrote 1e-5 beside a field showing 1e−05),
and a negative number has the Unicode minus the tables show."""
from __future__ import annotations

import re

import pytest

from core.formats.lesson import load_lesson
from core.numbers import MINUS, format_short
from tests.core.test_lesson import SHIPPED

E_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-−+]?\d+")
HYPHEN_MINUS = re.compile(r"(?<![\w)\]}])-\s?\d")          # "-0.5", not "GPT-2" or "x-1"


def lesson_texts(path):
    lesson = load_lesson(path)
    for step in lesson.steps:
        for part in (step.title, step.caption, step.question, step.answer):
            if part is not None:
                for language in ("zh", "en"):
                    yield step.id, language, getattr(part, language)


def test_the_rules_themselves():
    assert E_NUMBER.findall("LayerNorm with ε = 1e-5, γ = 1") == ["1e-5"]
    assert format_short(1e-5) == "1e−05"
    assert HYPHEN_MINUS.findall("x = -0.5 in GPT-2, x-1") == ["-0"]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_lesson_numbers_are_written_as_the_screen_prints_them(path):
    wrong = []
    for step, language, text in lesson_texts(path):
        for number in E_NUMBER.findall(text):
            shown = format_short(float(number.replace(MINUS, "-")))
            if number != shown:
                wrong.append(f"{step} ({language}): {number}, the screen shows {shown}")
        wrong += [f"{step} ({language}): {text[m.start():m.end() + 4]!r} has a hyphen for a minus"
                  for m in HYPHEN_MINUS.finditer(text)]
    assert wrong == []
