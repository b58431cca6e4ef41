"""The lesson file, version 1: an ordered list of steps over shipped scenarios.

Each step puts the explorer into one state (a base scenario plus the step's config,
weight and input changes), points at hooks and cells, and shows a caption in Chinese
and English. Captions may hold live placeholders such as ``{mlp.hook_post[0]}`` that
are filled from a trace, so the numbers follow the learner's edits.

Loading validates everything with the same care as a scenario: unknown or repeated
fields, NaN / Infinity, absurd sizes, non-UTF-8 and non-JSON bytes are refused, and
every refusal is one sentence naming the step and the field, e.g.
``steps[2] (id "b1").highlight.hooks[0]: "mlp.hook_foo" is not a hook of this step's trace``.
Pure NumPy: no Qt here. The format is documented in docs/lessons.md.
"""
from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import MappingProxyType

import numpy as np

from core.block import Trace
from core.formats.files import FileReadError, read_capped
from core.config import MAX_NUMBERS, BlockConfig, ConfigError, numbers_needed, weight_shapes
from core.numbers import format_number
from core.formats.scenario import Scenario, ScenarioError, _array, describe_shape, load_scenario
from core.labs import UnknownLab, check_part, labs
from core.weights import adapt_weights, filled

FORMAT = "blocklab-lesson"
VERSION = 1
LANGUAGES = ("zh", "en")

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_STEPS = 200
MAX_SCENARIOS = 16
MAX_TITLE_CHARS = 120
MAX_TEXT_CHARS = 1000           # caption, question, answer: a hard cap; aim for a projector line or three
MAX_LIST = 64                   # highlight hooks, cells, weights
MAX_PLACEHOLDERS = 64           # per text
MAX_PRECISION = 12
MAX_PATH_CHARS = 240

# What a step may bring forward in the GUI; docs/lessons.md says what each one is.
EXPLORER_PANELS = (
    "dataflow",          # the block diagram
    "inspector",         # the selected hook as a table, and how the selected cell was computed
    "weights",           # the weight and input editor
    "config",            # the block options
    "checks",            # the invariants panel
    "plots.attention",   # the attention pattern of the selected head (needs attention)
    "plots.hidden",      # the FFN's hidden units before and after the activation
    "plots.residual",    # the residual stream: sub-layer input, output, sum and norm
    "plots.activation",  # the activation function's curve with the hidden units on it
    "plots.mse",         # the output against the targets (needs targets)
)
# A lesson's own lab panels, shown instead of the explorer's block view, are "lab.LAB.PART"
# with LAB and PART from the lab registry (core/labs).


def panel_names() -> tuple[str, ...]:
    """Every name a step may list in "panels": the explorer's, then every registered lab's parts."""
    return EXPLORER_PANELS + tuple(name for lab in labs() for name in lab.panel_names())


WEIGHT_FILLS = ("zero", "identity")
UNAVAILABLE = "—"      # what a placeholder shows when the learner's edits removed its hook or cell

_TOP_FIELDS = ("format", "version", "id", "title", "scenarios", "steps")
_STEP_FIELDS = ("id", "title", "caption", "scenario", "config", "weights", "inputs", "select",
                "highlight", "panels", "question", "answer")
_SELECT_FIELDS = ("hook", "token", "head", "column")
_HIGHLIGHT_FIELDS = ("hooks", "cells", "weights")
_CONFIG_FIELDS = tuple(f.name for f in fields(BlockConfig))
_LESSON_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
_STEP_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
_SCENARIO_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}\Z")
_PATH_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\[([^\]{}]*)\](?::([0-9]+))?\}")


class LessonError(ValueError):
    """A lesson that cannot be used; str() is one sentence naming the step and field."""


# --- the lesson, as loaded ---------------------------------------------------------------

@dataclass(frozen=True)
class Text:
    """One text in both languages."""
    zh: str
    en: str

    def __getitem__(self, language: str) -> str:
        if language not in LANGUAGES:
            raise KeyError(language)
        return getattr(self, language)

    def get(self, language: str) -> str:
        """The text in `language`, English for a language the lesson is not written in."""
        return getattr(self, language) if language in LANGUAGES else self.en


@dataclass(frozen=True)
class Selection:
    """The cell the inspector selects: hook, token (row), head (3-axis hooks only), column."""
    hook: str
    token: int = 0
    head: int = 0
    column: int = 0


@dataclass(frozen=True)
class Cell:
    hook: str
    index: tuple[int, ...]


@dataclass(frozen=True)
class Highlight:
    hooks: tuple[str, ...] = ()
    cells: tuple[Cell, ...] = ()
    weights: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.hooks or self.cells or self.weights)


@dataclass(frozen=True, eq=False)
class LessonStep:
    id: str
    title: Text
    caption: Text
    scenario: str                                   # a key of Lesson.scenarios
    config: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    weights: Mapping[str, np.ndarray | str] = field(default_factory=lambda: MappingProxyType({}))
    inputs: np.ndarray | None = None                # read-only; T×d_model
    select: Selection | None = None
    highlight: Highlight = Highlight()
    panels: tuple[str, ...] = ()
    question: Text | None = None
    answer: Text | None = None

    def render(self, part: str, language: str, trace: Trace) -> str | None:
        """"caption", "question" or "answer" in `language`, placeholders filled from `trace`."""
        text = {"caption": self.caption, "question": self.question, "answer": self.answer}[part]
        return None if text is None else render_caption(text.get(language), trace)


@dataclass(frozen=True, eq=False)
class Lesson:
    id: str
    title: Text
    path: Path
    scenarios: Mapping[str, Scenario]               # the base scenarios, by key; never handed out
    scenario_paths: Mapping[str, Path]
    steps: tuple[LessonStep, ...]

    def __len__(self) -> int:
        return len(self.steps)

    def step_index(self, step: int | str) -> int:
        """The position of a step given its position or its id; IndexError / KeyError if none."""
        if isinstance(step, str):
            for position, candidate in enumerate(self.steps):
                if candidate.id == step:
                    return position
            raise KeyError(f"no step with id {step!r} in lesson {self.id!r}")
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 0 <= step < len(self.steps):
            raise IndexError(f"step {step!r}: expected 0 to {len(self.steps) - 1}")
        return int(step)

    def step(self, step: int | str) -> LessonStep:
        return self.steps[self.step_index(step)]

    def step_scenario(self, step: int | str) -> Scenario:
        """The exact state of a step: a fresh Scenario with its own arrays, built from the base
        scenario alone, so steps never depend on one another or on the order they are visited."""
        chosen = self.steps[self.step_index(step)]
        return _build(self.scenarios[chosen.scenario], chosen)

    def caption(self, step: int | str, language: str, trace: Trace | None = None) -> str:
        """The step's caption with its placeholders filled from `trace` (default: the step's own state)."""
        chosen = self.step(step)
        if trace is None:
            trace = self.step_scenario(step).run()
        return render_caption(chosen.caption.get(language), trace)


# --- placeholders --------------------------------------------------------------------------

@dataclass(frozen=True)
class Placeholder:
    source: str                 # as written, e.g. "{hook_mlp_out[0]:3}"
    hook: str
    index: tuple[int, ...]
    precision: int = 6


def _pieces(text: str) -> list[str | Placeholder]:
    """Split text into literal strings and placeholders; `{{` and `}}` are literal braces."""
    pieces: list[str | Placeholder] = []
    literal: list[str] = []
    position, end = 0, len(text)
    while position < end:
        char = text[position]
        if char in "{}" and text.startswith(char * 2, position):
            literal.append(char)
            position += 2
            continue
        if char == "}":
            raise LessonError(f"a lone \"}}\" at character {position + 1}; write }}}} for a literal brace")
        if char != "{":
            literal.append(char)
            position += 1
            continue
        match = _PLACEHOLDER.match(text, position)
        if match is None:
            closing = text.find("}", position)
            snippet = text[position:closing + 1 if closing >= 0 else position + 30][:40]
            raise LessonError(f"{json.dumps(snippet, ensure_ascii=False)} is not a placeholder; write "
                              f"{{HOOK[i]}}, {{HOOK[i,j]}} or {{HOOK[i,j]:DIGITS}}, and {{{{ for a literal brace")
        source = match.group(0)
        parts = [part.strip() for part in match.group(2).split(",")]
        if not all(part.isascii() and part.isdigit() for part in parts):
            raise LessonError(f"{source}: expected the index as whole numbers from 0 separated by commas, "
                              f"got [{match.group(2)}]")
        precision = 6
        if match.group(3) is not None:
            precision = int(match.group(3))
            if precision > MAX_PRECISION:
                raise LessonError(f"{source}: expected 0 to {MAX_PRECISION} decimals, got {precision}")
        if literal:
            pieces.append("".join(literal))
            literal = []
        pieces.append(Placeholder(source, match.group(1), tuple(int(part) for part in parts), precision))
        position = match.end()
    if literal:
        pieces.append("".join(literal))
    return pieces


@functools.lru_cache(maxsize=512)
def _parsed(text: str) -> tuple[str | Placeholder, ...]:
    """_pieces, kept per text: a live caption is rendered again on every edit."""
    return tuple(_pieces(text))


def parse_placeholders(text: str) -> list[Placeholder]:
    """Every placeholder of a text, in order; LessonError if the text is malformed."""
    return [piece for piece in _pieces(text) if isinstance(piece, Placeholder)]


def _check_placeholder(placeholder: Placeholder, trace: Trace) -> None:
    """LessonError unless the placeholder names a hook of `trace` and a valid index into it."""
    if placeholder.hook not in trace:
        raise LessonError(f"{placeholder.source}: \"{placeholder.hook}\" is not a hook of this step's trace")
    _check_index(placeholder.source, placeholder.hook, trace[placeholder.hook].shape, placeholder.index, full=False)


def _check_index(source: str, hook: str, shape: tuple[int, ...], index: tuple[int, ...], full: bool) -> None:
    if len(index) > len(shape) or (full and len(index) != len(shape)):
        expected = f"{len(shape)}" if full else f"at most {len(shape)}"
        raise LessonError(f"{source}: {hook} is {describe_shape(shape)}, so expected {expected} indices, got {len(index)}")
    for axis, (i, size) in enumerate(zip(index, shape)):
        if not 0 <= i < size:
            raise LessonError(f"{source}: index {i} is out of range for axis {axis} of {hook}, which has size {size}")


def _format(value: np.ndarray, precision: int) -> str:
    if value.ndim == 0:
        return format_number(float(value), precision)
    return "(" + ", ".join(_format(row, precision) for row in value) + ")"


def render_caption(text: str, trace: Trace) -> str:
    """Fill every placeholder of `text` from `trace`.

    ``{hook[i]}`` is a row, written "(a, b, …)"; ``{hook[i,j]}`` one number; a shorter index
    than the hook has axes gives the sub-array, nested. Six decimals unless ``:DIGITS`` says
    otherwise, printed by core.numbers (the Unicode minus; −0.000000 is written 0.000000). A
    placeholder whose hook or cell the learner's edits removed (attention switched off, a
    narrower block) shows "—". LessonError only for a malformed text, which a loaded lesson
    never holds.
    """
    out: list[str] = []
    for piece in _parsed(text):
        if isinstance(piece, str):
            out.append(piece)
            continue
        try:
            _check_placeholder(piece, trace)
        except LessonError:
            out.append(UNAVAILABLE)
            continue
        out.append(_format(np.asarray(trace[piece.hook])[piece.index], piece.precision))
    return "".join(out)


# --- building a step's state ---------------------------------------------------------------

def _build(base: Scenario, step: LessonStep) -> Scenario:
    config = base.config
    weights = {name: np.array(array, dtype=np.float64) for name, array in base.weights.items()}
    if step.config:
        config = base.config.with_changes(**step.config)
        if config != base.config:
            # seed 0: the same numbers every time; gains converted when zero_centered flips
            weights, _ = adapt_weights(weights, config, previous=base.config)
    shapes = weight_shapes(config)
    for name, change in step.weights.items():
        weights[name] = filled(shapes[name], change) if isinstance(change, str) else np.array(change, dtype=np.float64)
    inputs = np.array(base.inputs if step.inputs is None else step.inputs, dtype=np.float64)
    targets = None
    if base.targets is not None and base.targets.shape[1] == config.output_width:
        targets = np.array(base.targets, dtype=np.float64)
    return Scenario(config, base.tokens, inputs, weights, targets, dict(base.title))


# --- reading the file ----------------------------------------------------------------------

class _Object(dict):
    """A JSON object that remembers keys it saw twice (json keeps only the last silently)."""
    duplicates: tuple[str, ...] = ()


def _object_pairs(pairs: list[tuple[str, object]]) -> _Object:
    result = _Object(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        result.duplicates = tuple(key for key, _ in pairs if key in seen or seen.add(key))
    return result


class _Constants(list):
    """Collects NaN / Infinity while parsing. They are let through as floats so that the field
    holding one is named by the validation (`inputs[0, 1]: expected a finite number …`), and the
    file is refused afterwards in any case."""

    def __call__(self, name: str) -> float:
        self.append(name)
        return float(name.replace("Infinity", "inf"))

    def check(self) -> None:
        if self:
            raise LessonError(f"the file contains {self[0]}: expected finite numbers only (JSON has no NaN or Infinity)")


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _at(where: str, key: object) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


def _quote(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "…"


def _object(raw: object, where: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: expected an object, got {_kind(raw)}")
    duplicates = getattr(raw, "duplicates", ())
    if duplicates:
        raise LessonError(f"{_at(where, duplicates[0])}: appears twice; expected each field once")
    for key in raw:
        if key not in allowed:
            raise LessonError(f"{_at(where, key)}: unexpected field; expected only {', '.join(allowed)}")
    for key in required:
        if key not in raw:
            raise LessonError(f"{_at(where, key)}: missing")
    return raw


def _list(raw: object, where: str, most: int, least: int = 0) -> list:
    if not isinstance(raw, list):
        raise LessonError(f"{where}: expected an array, got {_kind(raw)}")
    if not least <= len(raw) <= most:
        raise LessonError(f"{where}: expected {least} to {most} entries, got {len(raw)}")
    return raw


def _whole(raw: object, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise LessonError(f"{where}: expected a whole number from 0, got {_quote(raw)}")
    return raw


def _text(raw: object, where: str, most: int, placeholders: bool) -> Text:
    raw = _object(raw, where, LANGUAGES)
    for language in LANGUAGES:
        here = _at(where, language)
        if language not in raw:
            raise LessonError(f"{here}: missing; write it in both zh and en")
        text = raw[language]
        if not isinstance(text, str) or not text.strip():
            raise LessonError(f"{here}: expected a non-empty string, got {_quote(text)}")
        if len(text) > most:
            raise LessonError(f"{here}: expected at most {most} characters, got {len(text)}")
        if placeholders:
            try:
                found = parse_placeholders(text)
            except LessonError as error:
                raise LessonError(f"{here}: {error}") from None
            if len(found) > MAX_PLACEHOLDERS:
                raise LessonError(f"{here}: expected at most {MAX_PLACEHOLDERS} placeholders, got {len(found)}")
    return Text(raw["zh"], raw["en"])


def _identifier(raw: object, where: str, pattern: re.Pattern, rule: str) -> str:
    if not isinstance(raw, str) or not pattern.match(raw):
        raise LessonError(f"{where}: expected {rule}, got {_quote(raw)}")
    return raw


def _scenario_file(raw: object, where: str, lesson_path: Path) -> Path:
    """The scenario a lesson names: NAME.json or FOLDER/…/NAME.json below the lesson's folder, or
    ../FOLDER/…/NAME.json beside it; never absolute, never further up than the lesson folder's parent."""
    forms = "NAME.json, FOLDER/NAME.json or ../FOLDER/NAME.json"
    if not isinstance(raw, str) or not raw:
        raise LessonError(f"{where}: expected a path such as \"../scenarios/NAME.json\", got {_quote(raw)}")
    if len(raw) > MAX_PATH_CHARS:
        raise LessonError(f"{where}: expected a path of at most {MAX_PATH_CHARS} characters, got {len(raw)}")
    if raw.startswith(("/", "\\", "~")) or PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).drive:
        raise LessonError(f"{where}: {_quote(raw)} is absolute; expected a path relative to the lesson file ({forms})")
    if "\\" in raw:
        raise LessonError(f"{where}: {_quote(raw)} uses \\; expected / between folders ({forms})")
    parts = raw.split("/")
    if parts[0] == "..":
        parts = parts[1:]
    if ".." in parts:
        raise LessonError(f"{where}: {_quote(raw)} climbs out of the lesson's folder more than once; expected {forms}")
    for part in parts:
        if not _PATH_PART.match(part):
            raise LessonError(f"{where}: {_quote(raw)} has the part {_quote(part)}; expected {forms}, "
                              f"each part letters, digits, _ . - and not starting with a dot")
    if not raw.endswith(".json"):
        raise LessonError(f"{where}: {_quote(raw)} is not a .json file; expected {forms}")
    folder = lesson_path.resolve().parent
    root = folder.parent
    target = (folder / raw).resolve()
    if not target.is_relative_to(root):
        raise LessonError(f"{where}: {_quote(raw)} resolves to {target}, outside {root}; "
                          f"expected a scenario inside the lesson's folder or beside it")
    if not target.is_file():
        raise LessonError(f"{where}: {_quote(raw)} does not exist (looked for {target})")
    return target


def _check_size(config: BlockConfig, T: int, where: str) -> None:
    total = numbers_needed(config, T)
    if total > MAX_NUMBERS:
        raise LessonError(f"{where}: expected at most {MAX_NUMBERS:,} numbers in the step's block and its trace, "
                          f"got {total:,}")



def _check_panel(name: object, where: str) -> None:
    """A panel name a step may list: an explorer panel, or "lab.LAB.PART" of a registered lab."""
    if isinstance(name, str) and name.startswith("lab."):
        lab_id, _, part = name[len("lab."):].partition(".")
        try:
            check_part(lab_id, part)
        except UnknownLab as error:
            raise LessonError(f"{where}: {_quote(name)}: {error}") from None
    elif name not in EXPLORER_PANELS:
        raise LessonError(f"{where}: expected one of {', '.join(EXPLORER_PANELS)} or lab.LAB.PART, "
                          f"got {_quote(name)}")

def _step(raw: object, k: int, lesson_path: Path, bases: Mapping[str, Scenario], seen: set[str]) -> LessonStep:
    where = f"steps[{k}]"
    if not isinstance(raw, dict):
        raise LessonError(f"{where}: expected an object, got {_kind(raw)}")
    if "id" not in raw:
        raise LessonError(f"{where}.id: missing")
    step_id = _identifier(raw["id"], f"{where}.id", _STEP_ID,
                          "1 to 32 letters, digits, _ or -, starting with a letter or digit")
    if step_id in seen:
        raise LessonError(f"{where}.id: \"{step_id}\" is already the id of an earlier step; expected ids to be unique")
    seen.add(step_id)
    where = f"steps[{k}] (id \"{step_id}\")"
    _object(raw, where, _STEP_FIELDS)
    for required in ("title", "caption", "scenario"):
        if required not in raw:
            raise LessonError(f"{_at(where, required)}: missing; a step needs title, caption and scenario")
    title = _text(raw["title"], _at(where, "title"), MAX_TITLE_CHARS, placeholders=False)
    caption = _text(raw["caption"], _at(where, "caption"), MAX_TEXT_CHARS, placeholders=True)
    question = answer = None
    if ("question" in raw) != ("answer" in raw):
        have, lack = ("a question", "answer") if "question" in raw else ("an answer", "question")
        raise LessonError(f"{_at(where, lack)}: missing; a step with {have} needs both question and answer")
    if "question" in raw:
        question = _text(raw["question"], _at(where, "question"), MAX_TEXT_CHARS, placeholders=True)
        answer = _text(raw["answer"], _at(where, "answer"), MAX_TEXT_CHARS, placeholders=True)

    key = raw["scenario"]
    if not isinstance(key, str) or key not in bases:
        raise LessonError(f"{_at(where, 'scenario')}: expected one of {', '.join(bases)} (the lesson's scenarios), "
                          f"got {_quote(key)}")
    base = bases[key]
    T = len(base.tokens)

    # config: changes to the base scenario's config, checked by BlockConfig itself
    changes = _object(raw.get("config", {}), _at(where, "config"), _CONFIG_FIELDS)
    config = base.config
    if changes.get("attention") is True and not base.config.attention:
        for name in ("n_heads", "d_head"):
            if name not in changes:
                raise LessonError(f"{where}.config.{name}: missing; switching attention on needs n_heads and d_head")
    if changes:
        try:
            config = base.config.with_changes(**changes)
        except ConfigError as error:
            raise LessonError(f"{where}.{error}") from None      # ConfigError names "config.<field>"
        except TypeError as error:
            raise LessonError(f"{_at(where, 'config')}: {error}") from None
        _check_size(config, T, _at(where, "config"))
    shapes = weight_shapes(config)

    weights: dict[str, np.ndarray | str] = {}
    raw_weights = raw.get("weights", {})
    if not isinstance(raw_weights, dict):
        raise LessonError(f"{_at(where, 'weights')}: expected an object of named arrays, got {_kind(raw_weights)}")
    if getattr(raw_weights, "duplicates", ()):
        raise LessonError(f"{where}.weights.{raw_weights.duplicates[0]}: appears twice; expected each weight once")
    for name, value in raw_weights.items():
        here = f"{where}.weights.{name}"
        if name not in shapes:
            raise LessonError(f"{here}: not a weight of this step's block; expected one of {', '.join(shapes)}")
        if isinstance(value, dict):
            value = _object(value, here, ("fill",), ("fill",))
            if value["fill"] not in WEIGHT_FILLS:
                raise LessonError(f"{here}.fill: expected one of {', '.join(WEIGHT_FILLS)}, got {_quote(value['fill'])}")
            weights[name] = value["fill"]
        elif isinstance(value, list):
            weights[name] = _numbers(value, shapes[name], here)
        else:
            raise LessonError(f"{here}: expected a {describe_shape(shapes[name])} array or "
                              f"{{\"fill\": \"zero\"}} / {{\"fill\": \"identity\"}}, got {_kind(value)}")

    inputs = None
    if "inputs" in raw:
        inputs = _numbers(raw["inputs"], (T, config.d_model), _at(where, "inputs"))
    elif config.d_model != base.config.d_model:
        raise LessonError(f"{_at(where, 'inputs')}: missing; config.d_model changes to {config.d_model}, so the step "
                          f"needs its own {T}×{config.d_model} inputs")

    known = panel_names()
    panels = tuple(_list(raw.get("panels", []), _at(where, "panels"), len(known)))
    for position, name in enumerate(panels):
        _check_panel(name, f"{where}.panels[{position}]")
        if name in panels[:position]:
            raise LessonError(f"{where}.panels[{position}]: \"{name}\" is listed twice")

    step = LessonStep(
        id=step_id, title=title, caption=caption, scenario=key,
        config=MappingProxyType(dict(changes)), weights=MappingProxyType(weights), inputs=inputs,
        panels=panels, question=question, answer=answer)

    # Everything below is checked against the step's actual state and trace.
    state = _build(base, step)
    trace = state.run()
    for position, name in enumerate(panels):
        if name == "plots.attention" and not state.config.attention:
            raise LessonError(f"{where}.panels[{position}]: \"plots.attention\" needs attention, "
                              f"which this step's block does not have")
        if name == "plots.mse" and state.targets is None:
            raise LessonError(f"{where}.panels[{position}]: \"plots.mse\" needs targets, "
                              f"which this step's scenario does not have")
    select = _select(raw["select"], _at(where, "select"), trace) if "select" in raw else None
    highlight = _highlight(raw["highlight"], _at(where, "highlight"), trace, shapes) if "highlight" in raw else Highlight()
    for part, text in (("caption", caption), ("question", question), ("answer", answer)):
        if text is None:
            continue
        for language in LANGUAGES:
            for placeholder in parse_placeholders(text[language]):
                try:
                    _check_placeholder(placeholder, trace)
                except LessonError as error:
                    raise LessonError(f"{where}.{part}.{language}: {error}") from None
    return LessonStep(
        id=step_id, title=title, caption=caption, scenario=key,
        config=step.config, weights=step.weights, inputs=inputs, select=select, highlight=highlight,
        panels=panels, question=question, answer=answer)


def _numbers(raw: object, shape: tuple[int, ...], where: str) -> np.ndarray:
    try:
        array = _array(raw, shape, where)
    except ScenarioError as error:
        raise LessonError(str(error)) from None
    array.setflags(write=False)
    return array


def _hook(raw: object, where: str, trace: Trace) -> str:
    if not isinstance(raw, str):
        raise LessonError(f"{where}: expected a hook name such as \"hook_resid_post\", got {_quote(raw)}")
    if raw not in trace:
        raise LessonError(f"{where}: {_quote(raw)} is not a hook of this step's trace")
    return raw


def _select(raw: object, where: str, trace: Trace) -> Selection:
    raw = _object(raw, where, _SELECT_FIELDS, ("hook",))
    hook = _hook(raw["hook"], _at(where, "hook"), trace)
    shape = trace[hook].shape
    values = {}
    for name in ("token", "head", "column"):
        if name in raw:
            values[name] = _whole(raw[name], _at(where, name))
    if "head" in values and len(shape) != 3:
        raise LessonError(f"{_at(where, 'head')}: {hook} has no head axis; expected head only with an attention hook "
                          f"such as attn.hook_pattern")
    for name, axis in (("head", 0), ("token", -2), ("column", -1)):
        if name in values and values[name] >= shape[axis]:
            raise LessonError(f"{_at(where, name)}: {hook} is {describe_shape(shape)}, so expected 0 to "
                              f"{shape[axis] - 1}, got {values[name]}")
    return Selection(hook, **values)


def _highlight(raw: object, where: str, trace: Trace, shapes: Mapping[str, tuple[int, ...]]) -> Highlight:
    raw = _object(raw, where, _HIGHLIGHT_FIELDS)
    hooks = tuple(_hook(hook, f"{where}.hooks[{i}]", trace)
                  for i, hook in enumerate(_list(raw.get("hooks", []), _at(where, "hooks"), MAX_LIST)))
    cells = []
    for i, cell in enumerate(_list(raw.get("cells", []), _at(where, "cells"), MAX_LIST)):
        here = f"{where}.cells[{i}]"
        cell = _object(cell, here, ("hook", "index"), ("hook", "index"))
        hook = _hook(cell["hook"], _at(here, "hook"), trace)
        index = tuple(_whole(v, f"{here}.index[{j}]")
                      for j, v in enumerate(_list(cell["index"], _at(here, "index"), 3, 1)))
        try:
            _check_index(f"{here}.index", hook, trace[hook].shape, index, full=True)
        except LessonError as error:
            raise LessonError(str(error)) from None
        cells.append(Cell(hook, index))
    weights = []
    for i, name in enumerate(_list(raw.get("weights", []), _at(where, "weights"), MAX_LIST)):
        if name not in shapes:
            raise LessonError(f"{where}.weights[{i}]: {_quote(name)} is not a weight of this step's block; "
                              f"expected one of {', '.join(shapes)}")
        weights.append(name)
    return Highlight(hooks, tuple(cells), tuple(weights))


def _read(path: Path, constants: _Constants | None = None) -> object:
    """The JSON document of a file, or LessonError (size, UTF-8, JSON). NaN and Infinity are
    collected in `constants` (refused at once when it is not given)."""
    try:
        data = read_capped(path, MAX_FILE_BYTES)
    except FileReadError as error:
        raise LessonError(str(error)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise LessonError(f"expected UTF-8 text, got an invalid byte at position {error.start}") from None
    collect = _Constants() if constants is None else constants
    try:
        document = json.loads(text, parse_constant=collect, object_pairs_hook=_object_pairs)
    except json.JSONDecodeError as error:
        raise LessonError(f"expected JSON, got a syntax error at line {error.lineno}, column {error.colno} "
                          f"({error.msg})") from None
    except (RecursionError, ValueError) as error:
        raise LessonError(f"expected JSON of sane depth and numbers, got {type(error).__name__}") from None
    if constants is None:
        collect.check()
    return document


def _header(document: object) -> tuple[str, Text]:
    if not isinstance(document, dict):
        raise LessonError(f"expected a JSON object, got {_kind(document)}")
    if document.get("format") != FORMAT:
        raise LessonError(f"format: expected \"{FORMAT}\", got {_quote(document.get('format'))}")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version != VERSION:
        raise LessonError(f"version: expected {VERSION}, got {_quote(version)}")
    _object(document, "", _TOP_FIELDS, _TOP_FIELDS)
    lesson_id = _identifier(document["id"], "id", _LESSON_ID,
                            "1 to 64 lowercase letters, digits or -, starting with a letter or digit")
    return lesson_id, _text(document["title"], "title", MAX_TITLE_CHARS, placeholders=False)


def lesson_from_document(document: object, path: str | os.PathLike) -> Lesson:
    """Validate a parsed lesson; `path` is where it lives (its scenarios are relative to it)."""
    path = Path(path)
    lesson_id, title = _header(document)
    raw_scenarios = document["scenarios"]
    if not isinstance(raw_scenarios, dict):
        raise LessonError(f"scenarios: expected an object of named scenario files, got {_kind(raw_scenarios)}")
    if getattr(raw_scenarios, "duplicates", ()):
        raise LessonError(f"scenarios.{raw_scenarios.duplicates[0]}: appears twice; expected each name once")
    if not 1 <= len(raw_scenarios) <= MAX_SCENARIOS:
        raise LessonError(f"scenarios: expected 1 to {MAX_SCENARIOS} named scenario files, got {len(raw_scenarios)}")
    bases: dict[str, Scenario] = {}
    paths: dict[str, Path] = {}
    for key, value in raw_scenarios.items():
        where = f"scenarios.{key}"
        _identifier(key, where, _SCENARIO_KEY, "a name of 1 to 32 letters, digits, _ or -, starting with a letter")
        target = _scenario_file(value, where, path)
        try:
            bases[key] = load_scenario(target)
        except ScenarioError as error:
            raise LessonError(f"{where}: {error}") from None
        for array in (bases[key].inputs, bases[key].targets, *bases[key].weights.values()):
            if array is not None:
                array.setflags(write=False)
        paths[key] = target
    raw_steps = _list(document["steps"], "steps", MAX_STEPS, 1)
    seen: set[str] = set()
    steps = tuple(_step(raw, k, path, bases, seen) for k, raw in enumerate(raw_steps))
    return Lesson(lesson_id, title, path, MappingProxyType(bases), MappingProxyType(paths), steps)


def load_lesson(path: str | os.PathLike) -> Lesson:
    """Read and validate a lesson file and every scenario it names; every failure is a LessonError
    of one sentence starting with the file's name."""
    path = Path(path)
    constants = _Constants()
    try:
        lesson = lesson_from_document(_read(path, constants), path)
        constants.check()        # a NaN no field caught (there should be none) still refuses the file
        return lesson
    except LessonError as error:
        raise LessonError(f"{path.name}: {error}") from None


def list_lessons(folder: str | os.PathLike) -> list[tuple[str, Text, Path]]:
    """(id, title, path) of every lesson file in `folder`, sorted by id then path, for a picker.

    Only the header (format, version, id, title) is checked here, so that a broken lesson still
    appears and explains itself when opened with load_lesson; files that are not lessons at
    all (other JSON, unreadable, another format) are left out.
    """
    found = []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            lesson_id, title = _header(_read(path))
        except LessonError:
            continue
        found.append((lesson_id, title, path))
    return sorted(found, key=lambda item: (item[0], str(item[2])))
