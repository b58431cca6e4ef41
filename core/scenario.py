"""The scenario file, version 1: load, validate, save.

A scenario is everything needed to recompute a block. Loading validates everything and
refuses with one sentence naming the field and what was expected; a refused file never
touches what the caller already has.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field, fields
from pathlib import Path

import numpy as np

from .block import Trace, forward
from .files import FileReadError, read_capped
from .config import MAX_DIM, MAX_NUMBERS, BlockConfig, ConfigError, numbers_needed, weight_shapes

FORMAT = "blocklab-scenario"
VERSION = 1
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_ABS_VALUE = 1e6          # the same bound the GUI's cells enforce
MAX_TOKEN_CHARS = 64
_TOP_FIELDS = {"format", "version", "title", "config", "tokens", "inputs", "weights", "targets"}
_CONFIG_FIELDS = {f.name for f in fields(BlockConfig)}
_REQUIRED_CONFIG = {"d_model", "d_ff", "attention", "residual", "norm", "norm_placement", "eps",
                    "activation", "gated"}


class ScenarioError(ValueError):
    """A scenario that cannot be used; str() is one sentence naming the field."""


@dataclass(frozen=True)
class Scenario:
    config: BlockConfig
    tokens: tuple[str, ...]
    inputs: np.ndarray                         # (T, d_model): hook_resid_pre
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    targets: np.ndarray | None = None          # (T, d_out), optional
    title: dict[str, str] = field(default_factory=dict)

    def run(self) -> Trace:
        return forward(self.config, self.weights, self.inputs)


def describe_shape(shape: tuple[int, ...]) -> str:
    return "×".join(str(n) for n in shape) if shape else "a single number"


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shape_of(value: object, where: str) -> tuple[int, ...]:
    """The shape of a nested list, refusing ragged ones."""
    shape = []
    probe = value
    while isinstance(probe, list):
        shape.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    shape = tuple(shape)

    def check(node: object, depth: int) -> None:
        if depth == len(shape):
            if isinstance(node, list):
                raise ScenarioError(f"{where}: expected a rectangular array of numbers, got nested lists of uneven depth")
            return
        if not isinstance(node, list) or len(node) != shape[depth]:
            raise ScenarioError(f"{where}: expected a rectangular array of numbers, got rows of different lengths")
        for child in node:
            check(child, depth + 1)

    check(value, 0)
    return shape


def _array(value: object, shape: tuple[int, ...], where: str) -> np.ndarray:
    """A nested list of exactly `shape`, of finite numbers within ±MAX_ABS_VALUE."""
    if not shape and _is_number(value):
        got: tuple[int, ...] = ()
    elif isinstance(value, list):
        got = _shape_of(value, where)
    else:
        raise ScenarioError(f"{where}: expected a {describe_shape(shape)} array of numbers, got {type(value).__name__}")
    if got != shape:
        raise ScenarioError(f"{where}: expected {describe_shape(shape)}, got {describe_shape(got)}")
    flat = np.ravel(np.array(value, dtype=object)) if shape else [value]
    for position, item in enumerate(flat):
        if not _is_number(item):
            cell = np.unravel_index(position, shape) if shape else ()
            raise ScenarioError(f"{where}{list(map(int, cell))}: expected a number, got {json.dumps(item)}")
    try:
        array = np.array(value, dtype=np.float64).reshape(shape)
    except OverflowError:
        raise ScenarioError(f"{where}: expected finite numbers within ±{MAX_ABS_VALUE:g}, got an integer too large for a float") from None
    bad = ~np.isfinite(array) | (np.abs(array) > MAX_ABS_VALUE)
    if bad.any():
        cell = tuple(int(i) for i in np.argwhere(bad)[0]) if shape else ()
        raise ScenarioError(f"{where}{list(cell)}: expected a finite number within ±{MAX_ABS_VALUE:g}, "
                            f"got {array[cell] if shape else array}")
    return array


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are all different (json.loads would keep the last silently)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ScenarioError(f"\"{twice}\": written twice in one object; expected each field once")
    return result


def _non_finite(name: str) -> float:
    # NaN / Infinity / -Infinity are not JSON. Read them as floats so that the validation of
    # the field they sit in refuses them and names that field (every field is validated).
    return float(name)


def parse_scenario(data: bytes | str) -> Scenario:
    """Parse and validate a scenario from its bytes; raise ScenarioError on anything wrong."""
    if isinstance(data, bytes):
        if len(data) > MAX_FILE_BYTES:
            raise ScenarioError(f"expected at most {MAX_FILE_BYTES // 2**20} MiB, got {len(data) / 2**20:.0f} MiB")
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ScenarioError(f"expected UTF-8 text, got an invalid byte at position {error.start}") from None
    try:
        document = json.loads(data, parse_constant=_non_finite, object_pairs_hook=_unique_keys)
    except ScenarioError:
        raise
    except json.JSONDecodeError as error:
        raise ScenarioError(f"expected JSON, got a syntax error at line {error.lineno}, column {error.colno} ({error.msg})") from None
    except (RecursionError, ValueError) as error:
        raise ScenarioError(f"expected JSON of sane depth and numbers, got {type(error).__name__}") from None
    return scenario_from_document(document)


def scenario_from_document(document: object) -> Scenario:
    if not isinstance(document, dict):
        raise ScenarioError(f"expected a JSON object, got {type(document).__name__}")
    if document.get("format") != FORMAT:
        raise ScenarioError(f"format: expected \"{FORMAT}\", got {json.dumps(document.get('format'))}")
    version = document.get("version")
    if not (isinstance(version, int) and not isinstance(version, bool)) or version != VERSION:
        raise ScenarioError(f"version: expected {VERSION}, got {json.dumps(version)}")
    unknown = sorted(set(document) - _TOP_FIELDS)
    if unknown:
        raise ScenarioError(f"{unknown[0]}: unexpected field; a version {VERSION} scenario has only "
                            f"{', '.join(sorted(_TOP_FIELDS))}")
    for required in ("config", "tokens", "inputs", "weights"):
        if required not in document:
            raise ScenarioError(f"{required}: missing; a scenario needs config, tokens, inputs and weights")

    config = _config(document["config"])
    tokens = _tokens(document["tokens"])
    T = len(tokens)
    shapes = weight_shapes(config)
    total = numbers_needed(config, T, "targets" in document)
    if total > MAX_NUMBERS:
        raise ScenarioError(f"config: expected at most {MAX_NUMBERS:,} numbers in the block and its trace, "
                            f"got {total:,}")

    inputs = _array(document["inputs"], (T, config.d_model), "inputs")
    raw_weights = document["weights"]
    if not isinstance(raw_weights, dict):
        raise ScenarioError(f"weights: expected an object of named arrays, got {type(raw_weights).__name__}")
    unexpected = [name for name in raw_weights if name not in shapes]
    if unexpected:
        raise ScenarioError(f"weights.{unexpected[0]}: unexpected for this config; expected only {', '.join(shapes)}")
    missing = [name for name in shapes if name not in raw_weights]
    if missing:
        raise ScenarioError(f"weights.{missing[0]}: missing; this config needs a {describe_shape(shapes[missing[0]])} array")
    weights = {name: _array(raw_weights[name], shape, f"weights.{name}") for name, shape in shapes.items()}
    targets = None
    if "targets" in document:
        targets = _array(document["targets"], (T, config.output_width), "targets")
    title = _title(document.get("title", {}))
    return Scenario(config, tokens, inputs, weights, targets, title)


def _config(raw: object) -> BlockConfig:
    if not isinstance(raw, dict):
        raise ScenarioError(f"config: expected an object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - _CONFIG_FIELDS)
    if unknown:
        raise ScenarioError(f"config.{unknown[0]}: unknown option; expected only {', '.join(sorted(_CONFIG_FIELDS))}")
    missing = sorted(_REQUIRED_CONFIG - set(raw))
    if raw.get("attention") is True:
        missing += [name for name in ("n_heads", "d_head", "mask") if name not in raw]
    if missing:
        raise ScenarioError(f"config.{missing[0]}: missing")
    if raw.get("attention") is False:
        for name in ("n_heads", "d_head"):
            if name in raw:
                raise ScenarioError(f"config.{name}: expected to be absent when attention is false")
    try:
        return BlockConfig(**raw)
    except ConfigError as error:
        raise ScenarioError(str(error)) from None
    except TypeError as error:   # a value of a type the dataclass checks cannot compare
        raise ScenarioError(f"config: {error}") from None


def _tokens(raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("tokens: expected a non-empty list of strings")
    if len(raw) > MAX_DIM:
        raise ScenarioError(f"tokens: expected at most {MAX_DIM}, got {len(raw)}")
    for position, token in enumerate(raw):
        if not isinstance(token, str) or not 0 < len(token) <= MAX_TOKEN_CHARS:
            raise ScenarioError(f"tokens[{position}]: expected a string of 1 to {MAX_TOKEN_CHARS} characters, "
                                f"got {json.dumps(token, ensure_ascii=False)[:40]}")
    return tuple(raw)


def _title(raw: object) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ScenarioError(f"title: expected an object like {{\"zh\": \"…\", \"en\": \"…\"}}, got {type(raw).__name__}")
    for key, text in raw.items():
        if key not in ("zh", "en"):
            raise ScenarioError(f"title.{key}: unexpected; expected zh and en")
        if not isinstance(text, str) or len(text) > 200:
            raise ScenarioError(f"title.{key}: expected a string of at most 200 characters")
    return dict(raw)


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read and validate a scenario file; every failure is a ScenarioError."""
    path = Path(path)
    try:
        data = read_capped(path, MAX_FILE_BYTES)
    except FileReadError as error:
        raise ScenarioError(f"{path.name}: {error}") from None
    try:
        return parse_scenario(data)
    except ScenarioError as error:
        raise ScenarioError(f"{path.name}: {error}") from None


# --- saving -----------------------------------------------------------------------------

def scenario_to_document(scenario: Scenario) -> dict:
    config = scenario.config
    raw_config: dict[str, object] = {"d_model": config.d_model}
    if config.attention:
        raw_config.update(n_heads=config.n_heads, d_head=config.d_head)
    raw_config.update(d_ff=config.d_ff)
    if config.d_out is not None:
        raw_config["d_out"] = config.d_out
    raw_config.update(attention=config.attention)
    if config.attention or config.mask != "full":   # a file may keep a mask with attention off
        raw_config["mask"] = config.mask
    raw_config.update(residual=config.residual, norm=config.norm, norm_placement=config.norm_placement,
                      eps=config.eps, activation=config.activation, gated=config.gated)
    if config.positional != "none":              # optional fields: written only when used
        raw_config.update(positional=config.positional, rotary_base=config.rotary_base)
    document: dict[str, object] = {"format": FORMAT, "version": VERSION}
    if scenario.title:
        document["title"] = dict(scenario.title)
    document.update(config=raw_config, tokens=list(scenario.tokens), inputs=scenario.inputs.tolist(),
                    weights={name: np.asarray(a).tolist() for name, a in scenario.weights.items()})
    if scenario.targets is not None:
        document["targets"] = scenario.targets.tolist()
    return document


def _dump(value: object, indent: int) -> str:
    """JSON with the innermost lists of numbers kept on one line, so matrices read as rows."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad}  {json.dumps(k, ensure_ascii=False)}: {_dump(v, indent + 2)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and any(isinstance(v, (list, dict)) for v in value):
        items = [f"{pad}  {_dump(v, indent + 2)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def scenario_to_json(scenario: Scenario) -> str:
    return _dump(scenario_to_document(scenario), 0) + "\n"


def save_scenario(scenario: Scenario, path: str | os.PathLike) -> None:
    """Write atomically: the old file stays whole if anything fails midway."""
    path = Path(path)
    text = scenario_to_json(scenario)
    handle, temporary = tempfile.mkstemp(prefix=".blocklab-", suffix=".json", dir=path.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def check_finite(value: float) -> bool:
    return math.isfinite(value) and abs(value) <= MAX_ABS_VALUE
