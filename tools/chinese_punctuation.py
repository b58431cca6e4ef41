"""Full-width punctuation in Chinese text: the rule, a check and a fixer.

The rule (docs/lessons.md, "Chinese punctuation"): in Chinese text the punctuation of the
sentence is full-width — ， 。 ： ； （ ） ？ ！ — and the half-width , . : ; ( ) ? ! stay only
inside formulas, numbers, hook names and code. Precisely, in a Chinese string:

- ; : ? ! are wrong anywhere in a Chinese text (formulas here do not use them), except a
  ratio between digits (1:2), "://" and ";;" (the separator of a file dialog's filters:
  "PNG 图片 (*.png);;SVG 图片 (*.svg)").
- , and . are wrong when the nearest character before or after them (spaces and quotation
  marks skipped) is Chinese: a Han character or Chinese punctuation. "好吃, 不好吃" is wrong;
  "(1,0)", "p, n", "ln1.w", "0.5" are not, nor is a . followed at once by a Latin letter or a
  digit (a file suffix: "存成 .npy 文件").
- , is also wrong inside full-width parentheses or ones whose content contains a Han character
  (the innermost pair): "(种子 0,float16 存储)" is a Chinese aside, "f(x, y)" is a formula; and
  outside every parenthesis when a letter or a placeholder follows it at once: "a = %1,b = %2"
  and "λ = %3,%1 步之后" are lists in a Chinese sentence (the second reads as one number). A
  separator's translation is never ",": ", " → "，" (or "、").
- . ? ! are also wrong as the last character of a string that contains Chinese: a Chinese
  sentence ends with 。 ？ ！, also after a number or a placeholder ("仍为 %1.").
- A pair of parentheses whose content contains Chinese (a Han character or Chinese punctuation)
  is （ ）: "GELU(精确)" is wrong, "FFN(x)", "(1, 0)", "(*.json)" are not. So is a pair right
  after a Han character (an aside in a Chinese sentence: "亮起(h ≥ 0.5)"), unless it holds only
  numbers (a point, as the seeds write it: "好吃(1, 0)") or a menu mnemonic ("文件(&F)", the form
  Qt strips where menus have no mnemonics). An opened parenthesis closes with its own kind.
- No space goes before or after a full-width mark ("共 26 个字。 模型" → "共 26 个字。模型"), as
  sentences joined in code easily leave one.
- Quotation marks are 「」, inside them 『』, as the seeds write them: “ ” ‘ ’ and a straight "
  outside markup are wrong anywhere in a Chinese text (the interface font draws “” as narrow
  Latin marks that hug the Han characters beside them, and a mix of both read as two kinds of
  quotation). English texts keep their “”.

Every translation in resources/i18n/zh/ is Chinese text, even one without a Han character
(a separator such as "; " → "；", or a formula line: "<b>%1</b>：p = %2，n = %3"): what it holds
is shown in the Chinese window.

The files checked: the zh translations (resources/i18n/zh/*.json, the translations only) and
the "zh" texts of the lessons and scenario titles (resources/lessons/*.json,
resources/scenarios/*.json).

    python tools/chinese_punctuation.py          # list the problems (exit 1 if any)
    python tools/chinese_punctuation.py --fix    # rewrite the files with the fixes
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"

FULL_WIDTH = {",": "，", ".": "。", ":": "：", ";": "；", "?": "？", "!": "！", "(": "（", ")": "）"}
QUOTES = {"“": "「", "”": "」", "‘": "『", "’": "』", '"': None}   # None: which of 「」 it is depends on the pair
SENTENCE_END = ".?!"
NO_SPACE_AFTER = "。，：；？！、）"           # a full-width mark carries its own space …
NO_SPACE_BEFORE = "。，：；？！、（"          # … on the side where a space would go
TRANSPARENT = " \u00a0“”‘’\"'"            # skipped when looking for a neighbour
NUMBERS = re.compile(r"[\d\s.,−\-+#]*")      # "1, 0", "0.5, −1": a point, not an aside
MNEMONIC = re.compile(r"&\w")
PLACEHOLDER = re.compile(r"%\d|\{[^{}]*\}")
MARKUP = re.compile(r"&[A-Za-z]+;|&#\d+;|</?[A-Za-z][^<>\u3000-\u9fff\uff00-\uffef]*>")   # "&nbsp;", "<span style=…>"


def is_han(char: str) -> bool:
    if len(char) != 1:
        return False
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF


def is_chinese(char: str) -> bool:
    """A Han character, or Chinese (CJK or full-width) punctuation."""
    if len(char) != 1:
        return False
    code = ord(char)
    return is_han(char) or 0x3000 <= code <= 0x303F or 0xFF00 <= code <= 0xFF65


def is_separator(text: str) -> bool:
    """Punctuation only, no letter or digit: a separator's translation ("; " → "；")."""
    return bool(text.strip()) and not any(c.isalnum() or c == "%" for c in text)


def has_han(text: str) -> bool:
    return any(is_han(c) for c in text)


def _neighbour(text: str, index: int, step: int) -> str:
    index += step
    while 0 <= index < len(text) and text[index] in TRANSPARENT:
        index += step
    return text[index] if 0 <= index < len(text) else ""


def _is_last(text: str, index: int) -> bool:
    return text[index + 1:].strip(TRANSPARENT + ")）") == ""


def _pairs(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """Matched parenthesis pairs (open, close) of either width, and the positions of mismatches."""
    stack: list[int] = []
    pairs, wrong = [], []
    for index, char in enumerate(text):
        if char in "(（":
            stack.append(index)
        elif char in ")）" and stack:
            start = stack.pop()
            if (text[start] == "(") != (char == ")"):
                wrong.append(index)
            pairs.append((start, index))
    return pairs, wrong


def _wrong_marks(text: str, chinese: bool = False) -> list[int]:
    """Positions of half-width marks that should be full-width (`chinese`: the text is Chinese
    even without a Chinese character in it)."""
    if not chinese and not any(is_chinese(c) for c in text) and not is_separator(text):
        return []
    masked = PLACEHOLDER.sub(lambda m: "#" * len(m.group(0)), text)    # a placeholder is a value
    masked = MARKUP.sub(lambda m: " " * len(m.group(0)), masked)        # markup is not prose
    pairs, wrong = _pairs(masked)
    found = set()
    for index, char in enumerate(masked):
        if char in QUOTES:
            found.add(index)                                             # Chinese quotes are 「」 (inside them 『』)
        elif char in ";:?!":
            between_digits = 0 < index < len(masked) - 1 and masked[index - 1].isdigit() and masked[index + 1].isdigit()
            filters = char == ";" and ";;" in masked[max(0, index - 1):index + 2]
            if not (char == ":" and (between_digits or masked[index:index + 3] == "://")) and not filters:
                found.add(index)
        elif char in ",.":
            if char == "." and index > 0 and masked[index - 1] == "." or \
                    char == "." and index + 1 < len(masked) and masked[index + 1] == ".":
                continue                                                 # "..." is not a full stop
            if char == "." and index + 1 < len(masked) and masked[index + 1].isascii() and masked[index + 1].isalnum():
                continue                                                 # ".npy": a suffix, not a full stop
            if is_chinese(_neighbour(masked, index, -1)) or is_chinese(_neighbour(masked, index, 1)):
                found.add(index)
            elif char in SENTENCE_END and _is_last(masked, index):
                found.add(index)
            elif char == "," and is_separator(text):
                found.add(index)                                         # a list separator: "，" or "、"
            elif char == ",":
                inside = [(a, b) for a, b in pairs if a < index < b]
                if inside:
                    start, end = max(inside)
                    if masked[start] == "（" or has_han(masked[start + 1:end]):
                        found.add(index)
                elif index + 1 < len(masked) and (masked[index + 1].isalpha() or masked[index + 1] == "#"):
                    found.add(index)                                     # "λ = %3,%1 步": a list, not a number
    for start, end in pairs:
        if masked[start] != "(" or masked[end] != ")":
            continue
        content = masked[start + 1:end]
        if MNEMONIC.fullmatch(content):
            continue
        aside = start > 0 and is_han(masked[start - 1]) and not NUMBERS.fullmatch(content)
        if aside or any(is_chinese(c) for c in content):
            found.update((start, end))
    found.update(wrong)
    plain = MARKUP.sub(lambda m: "\x00" * len(m.group(0)), text)         # markup is no space
    for index, char in enumerate(plain):
        if char == " " and (index > 0 and plain[index - 1] in NO_SPACE_AFTER
                            or index + 1 < len(plain) and plain[index + 1] in NO_SPACE_BEFORE):
            found.add(index)                                             # "共 26 个字。 模型": no space
    return sorted(found)


def problems(text: str, chinese: bool = False) -> list[str]:
    """Each wrong mark with a little context: '好吃[,] 不好吃'."""
    return [f"{text[max(0, i - 8):i]}[{text[i]}]{text[i + 1:i + 9]}" for i in _wrong_marks(text, chinese)]


def fix(text: str, chinese: bool = False) -> str:
    """`text` with every wrong mark made full-width (and the spaces around it dropped), until
    nothing is left to fix (a mark beside a parenthesis just made full-width is next)."""
    for _ in range(8):
        fixed = _fix_once(text, chinese)
        if fixed == text:
            return text
        text = fixed
    return text


def _fix_once(text: str, chinese: bool) -> str:
    marks = set(_wrong_marks(text, chinese))
    if not marks:
        return text
    out: list[str] = []
    after_mark = False
    straight = 0
    for index, char in enumerate(text):
        if index in marks and char == " ":
            continue                               # a space beside a full-width mark goes
        if index in marks:
            if char == '"':
                straight += 1                       # the odd ones open, the even ones close
                char = "「" if straight % 2 else "」"
            else:
                char = "（" if char in "(（" else "）" if char in ")）" else QUOTES.get(char) or FULL_WIDTH[char]
            while out and out[-1] == " ":
                out.pop()                  # no space before a full-width mark …
            out.append(char)
            after_mark = True
        elif char == " " and after_mark:
            continue                       # … nor after it
        else:
            out.append(char)
            after_mark = False
    return "".join(out)


# --- the files -----------------------------------------------------------------------------------
def is_translation_file(path: Path) -> bool:
    """One of Block Lab's zh translation files (qt.json holds Qt's own texts, as Qt writes them)."""
    return path.parent.name == "zh" and path.parent.parent.name == "i18n" and path.name != "qt.json"


def chinese_texts(path: Path, document) -> list[tuple[list, str]]:
    """(where, text) of every Chinese text in a resource file: a translation, or a "zh" value."""
    found = []
    if path.parent.name == "zh" and path.parent.parent.name == "i18n":
        for context, entries in document.items():
            for source, translation in entries.items():
                found.append(([context, source], translation))
        return found

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "zh" and isinstance(value, str):
                    found.append((where + [key], value))
                else:
                    walk(value, where + [key])
        elif isinstance(node, list):
            for k, value in enumerate(node):
                walk(value, where + [k])

    walk(document, [])
    return found


def resource_files() -> list[Path]:
    return sorted([*(RESOURCES / "i18n" / "zh").glob("*.json"), *(RESOURCES / "lessons").glob("*.json"),
                   *(RESOURCES / "scenarios").glob("*.json")])


def _load(path: Path):
    if path.parent.name == "scenarios":          # big arrays: only the title matters here
        head = path.read_text(encoding="utf-8")
        return json.loads(head)
    return json.loads(path.read_text(encoding="utf-8"))


def check_files() -> list[str]:
    lines = []
    for path in resource_files():
        for where, text in chinese_texts(path, _load(path)):
            for problem in problems(text, is_translation_file(path)):
                lines.append(f"{path.relative_to(ROOT)}: {' / '.join(map(str, where))}: {problem}")
    return lines


def _set(document, where, value) -> None:
    node = document
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value


def fix_files() -> list[Path]:
    """Rewrite the translation and lesson files whose Chinese needs fixing (scenario titles are
    reported, not rewritten: those files are formatted by their generator)."""
    changed = []
    for path in resource_files():
        if path.parent.name == "scenarios":
            continue
        raw = path.read_text(encoding="utf-8")
        document = json.loads(raw)
        chinese = is_translation_file(path)
        edits = [(where, fix(text, chinese)) for where, text in chinese_texts(path, document)
                 if fix(text, chinese) != text]
        if not edits:
            continue
        for where, text in edits:
            key = json.dumps(where[-1], ensure_ascii=False)          # "source": "translation", "zh": "…"
            old = f"{key}: {json.dumps(_get(document, where), ensure_ascii=False)}"
            new = f"{key}: {json.dumps(text, ensure_ascii=False)}"
            raw = raw.replace(old, new, 1)
            _set(document, where, text)
        if json.loads(raw) != document:            # a text written differently: rewrite the whole file
            indent = re.search(r"\n( +)\S", raw)
            raw = json.dumps(document, ensure_ascii=False, indent=len(indent.group(1)) if indent else 1) + "\n"
        path.write_text(raw, encoding="utf-8")
        changed.append(path)
    return changed


def _get(document, where):
    node = document
    for key in where:
        node = node[key]
    return node


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fix", action="store_true", help="rewrite the files with full-width punctuation")
    args = parser.parse_args()
    if args.fix:
        for path in fix_files():
            print(f"fixed {path.relative_to(ROOT)}")
    lines = check_files()
    print("\n".join(lines) if lines else "Chinese punctuation: no problems")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
