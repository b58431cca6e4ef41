"""A number and its measure word stay on one line in Chinese: 「4 句」 is joined by a no-break
space, so a label never breaks as 「4 句对了 4 / 句」 (the XOR lab's cut-at-0.5 line at 1024×768,
C4 lesson step 7). Held over the C4 labs' translations (XOR lab, FFN page) and every lesson's
Chinese texts."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNITS = "句个次层行列步条种维位头字项组张倍"
BROKEN = re.compile(r"(?:%\d|\d) [" + UNITS + "]")         # a breaking space between them
TRANSLATIONS = [ROOT / "resources" / "i18n" / "zh" / name for name in ("xor_lab.json", "ffn_page.json")]
LESSONS = sorted((ROOT / "resources" / "lessons").glob("*.json"))


def test_the_rule_itself():
    assert BROKEN.findall("按 0.5 一刀切：%2 句对了 %1 句。") == ["%2 句", "%1 句"]
    assert BROKEN.findall("按 0.5 一刀切：%2\u00a0句对了 %1\u00a0句。") == []
    assert BROKEN.findall("ε = 0.5 时") == []


@pytest.mark.parametrize("path", TRANSLATIONS, ids=lambda p: p.name)
def test_the_labs_keep_a_number_with_its_measure_word(path):
    texts = [text for entries in json.loads(path.read_text(encoding="utf-8")).values() for text in entries.values()]
    assert [m for text in texts for m in BROKEN.findall(text)] == []


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_the_lessons_keep_a_number_with_its_measure_word(path):
    steps = json.loads(path.read_text(encoding="utf-8"))["steps"]
    texts = [step[part]["zh"] for step in steps for part in ("title", "caption", "question", "answer")
             if isinstance(step.get(part), dict)]
    assert [m for text in texts for m in BROKEN.findall(text)] == []
