"""The scenario file, version 1: load, validate, save.

A scenario is everything needed to recompute a block. Loading validates everything and
refuses with one sentence naming the field and what was expected; a refused file never
touches what the caller already has.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np

from core.block import Trace, forward
from core.formats.files import FileReadError, read_capped
from core.config import MAX_DIM, MAX_NUMBERS, BlockConfig, ConfigError, numbers_needed, weight_shapes

FORMAT = "blocklab-scenario"
VERSION = 1
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_ABS_VALUE = 1e6          # the same bound the GUI's cells enforce
MAX_TOKEN_CHARS = 64
_TOP_FIELDS = {"format", "version", "title", "config", "tokens", "arrays", "inputs", "weights", "targets"}
# The sidecar: a scenario may keep its arrays in a .npz file beside it (the optional "arrays"
# field names it); save_scenario writes that form when the scenario holds more than
# SIDECAR_ABOVE numbers (inputs, weights and targets together).
SIDECAR_ABOVE = 200_000
MAX_SIDECAR_BYTES = 512 * 1024 * 1024
SIDECAR_DTYPES = ("float16", "float32", "float64")
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
    return _checked_values(array, where)


def _checked_values(array: np.ndarray, where: str, place: str = "") -> np.ndarray:
    """The array itself if every number is finite and within ±MAX_ABS_VALUE; else the first
    bad cell is named: `weights.W_in[3, 5] (in x.npz): expected a finite number …`."""
    bad = ~np.isfinite(array) | (np.abs(array) > MAX_ABS_VALUE)
    if bad.any():
        cell = tuple(int(i) for i in np.argwhere(bad)[0]) if array.ndim else ()
        raise ScenarioError(f"{where}{list(cell)}{place}: expected a finite number within ±{MAX_ABS_VALUE:g}, "
                            f"got {array[cell] if array.ndim else array}")
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


def parse_scenario(data: bytes | str, folder: str | os.PathLike | None = None) -> Scenario:
    """Parse and validate a scenario from its bytes; raise ScenarioError on anything wrong.

    `folder` is where the scenario lives: a sidecar it names (the "arrays" field) is read
    from there, and only from there."""
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
    return scenario_from_document(document, folder)


def scenario_from_document(document: object, folder: str | os.PathLike | None = None) -> Scenario:
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
    sidecar = _Sidecar.open(document["arrays"], folder) if "arrays" in document else None
    needed = ("config", "tokens") if sidecar else ("config", "tokens", "inputs", "weights")
    for required in needed:
        if required not in document:
            raise ScenarioError(f"{required}: missing; a scenario needs config, tokens, inputs and weights"
                                + (" (inputs and weights may be in the file that arrays names)" if sidecar else ""))

    config = _config(document["config"])
    tokens = _tokens(document["tokens"])
    T = len(tokens)
    shapes = weight_shapes(config)
    raw_weights = document.get("weights", {})
    if not isinstance(raw_weights, dict):
        raise ScenarioError(f"weights: expected an object of named arrays, got {type(raw_weights).__name__}")
    unexpected = [name for name in raw_weights if name not in shapes]
    if unexpected:
        raise ScenarioError(f"weights.{unexpected[0]}: unexpected for this config; expected only {', '.join(shapes)}")
    has_targets = "targets" in document or (sidecar is not None and "targets" in sidecar.keys)
    total = numbers_needed(config, T, has_targets)
    if total > MAX_NUMBERS:
        raise ScenarioError(f"config: expected at most {MAX_NUMBERS:,} numbers in the block and its trace, "
                            f"got {total:,}")

    arrays: dict[str, np.ndarray] = {}
    if sidecar is not None:
        wanted = {"inputs": (T, config.d_model), **{f"weights.{name}": shape for name, shape in shapes.items()},
                  "targets": (T, config.output_width)}
        in_json = {key for key in ("inputs", "targets") if key in document} | {f"weights.{n}" for n in raw_weights}
        arrays = sidecar.read(wanted, in_json)
    where_else = f" (in the JSON or in {sidecar.name})" if sidecar else ""

    if "inputs" in arrays:
        inputs = arrays["inputs"]
    elif "inputs" in document:
        inputs = _array(document["inputs"], (T, config.d_model), "inputs")
    else:
        raise ScenarioError(f"inputs: missing; expected {describe_shape((T, config.d_model))} numbers{where_else}")
    missing = [name for name in shapes if name not in raw_weights and f"weights.{name}" not in arrays]
    if missing:
        raise ScenarioError(f"weights.{missing[0]}: missing; this config needs a "
                            f"{describe_shape(shapes[missing[0]])} array{where_else}")
    weights = {name: arrays[f"weights.{name}"] if name not in raw_weights
               else _array(raw_weights[name], shape, f"weights.{name}") for name, shape in shapes.items()}
    targets = arrays.get("targets")
    if "targets" in document:
        targets = _array(document["targets"], (T, config.output_width), "targets")
    title = _title(document.get("title", {}))
    return Scenario(config, tokens, inputs, weights, targets, title)


class _Sidecar:
    """The .npz a scenario's "arrays" field names, checked before a byte of it is used."""

    def __init__(self, name: str, path: Path, keys: dict[str, zipfile.ZipInfo]):
        self.name, self.path, self.keys = name, path, keys
        self.place = f" (in {name})"

    @classmethod
    def open(cls, raw: object, folder: str | os.PathLike | None) -> "_Sidecar":
        path, name = _sidecar_path(raw, folder)
        try:
            size = path.stat().st_size
            if size > MAX_SIDECAR_BYTES:
                raise ScenarioError(f"arrays: {name}: expected at most {MAX_SIDECAR_BYTES // 2**20} MiB, "
                                    f"got {size / 2**20:.0f} MiB")
            with zipfile.ZipFile(path) as archive:
                infos = archive.infolist()
        except ScenarioError:
            raise
        except OSError as error:
            raise ScenarioError(f"arrays: {name} cannot be read ({error.strerror or error})") from None
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
            raise ScenarioError(f"arrays: {name} is not a readable .npz file ({error})") from None
        keys: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            if not info.filename.endswith(".npy") or info.is_dir():
                raise ScenarioError(f"arrays: {name} holds {info.filename!r}; expected only .npy arrays")
            key = info.filename[:-4]
            if key in keys:
                raise ScenarioError(f"{key}{' (in ' + name + ')'}: appears twice; expected each array once")
            keys[key] = info
        return cls(name, path, keys)

    def read(self, wanted: Mapping[str, tuple[int, ...]], in_json: set[str]) -> dict[str, np.ndarray]:
        """Every array of the sidecar, checked: a name in `wanted` and not in `in_json`, of
        its shape, of float16/32/64, finite and within ±MAX_ABS_VALUE; as float64."""
        for key in self.keys:
            if key not in wanted:
                raise ScenarioError(f"{key}{self.place}: unexpected array; expected only {', '.join(wanted)}")
            if key in in_json:
                raise ScenarioError(f"{key}{self.place}: also in the JSON; expected each array in one place only")
        arrays = {}
        try:
            with zipfile.ZipFile(self.path) as archive:
                for key, info in self.keys.items():
                    with archive.open(info) as stream:
                        arrays[key] = self._array(stream, key, wanted[key])
        except ScenarioError:
            raise
        except OSError as error:
            raise ScenarioError(f"arrays: {self.name} cannot be read ({error.strerror or error})") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as error:
            raise ScenarioError(f"arrays: {self.name} is not a readable .npz file ({error})") from None
        return arrays

    def _array(self, stream, key: str, shape: tuple[int, ...]) -> np.ndarray:
        place = self.place
        try:
            version = np.lib.format.read_magic(stream)
            if version == (1, 0):
                got, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
            elif version in ((2, 0), (3, 0)):
                got, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
            else:
                raise ValueError(f"version {version} of the .npy format")
        except (ValueError, EOFError) as error:
            raise ScenarioError(f"{key}{place}: not a readable .npy array ({error})") from None
        if dtype.hasobject:
            raise ScenarioError(f"{key}{place}: expected numbers, got Python objects (pickled data is never loaded)")
        if dtype.kind != "f" or dtype.name not in SIDECAR_DTYPES:
            raise ScenarioError(f"{key}{place}: expected {', '.join(SIDECAR_DTYPES[:-1])} or {SIDECAR_DTYPES[-1]} "
                                f"numbers, got {dtype}")
        if tuple(got) != tuple(shape):
            raise ScenarioError(f"{key}{place}: expected {describe_shape(shape)}, got {describe_shape(tuple(got))}")
        size = dtype.itemsize * math.prod(shape)
        data = stream.read(size)
        if len(data) != size:
            raise ScenarioError(f"{key}{place}: expected {size:,} bytes of numbers, got {len(data):,} (a truncated file?)")
        if stream.read(1):
            raise ScenarioError(f"{key}{place}: unexpected bytes after the array")
        array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
        return _checked_values(np.ascontiguousarray(array, dtype=np.float64), key, place)


def _sidecar_path(raw: object, folder: str | os.PathLike | None) -> tuple[Path, str]:
    """The sidecar's path: a relative path to a .npz inside the scenario's folder."""
    if not isinstance(raw, str) or not raw or len(raw) > 255:
        raise ScenarioError(f"arrays: expected the name of a .npz file beside the scenario, got {json.dumps(raw)[:60]}")
    if not raw.endswith(".npz"):
        raise ScenarioError(f"arrays: expected a name ending in .npz, got {json.dumps(raw)}")
    if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).is_absolute() or PureWindowsPath(raw).drive:
        raise ScenarioError(f"arrays: expected a file in the scenario's folder, got the absolute path {json.dumps(raw)}")
    if "\\" in raw:
        raise ScenarioError(f"arrays: expected a path with / between folders, got {json.dumps(raw)}")
    if ".." in PurePosixPath(raw).parts:
        raise ScenarioError(f"arrays: expected a file in the scenario's folder, got {json.dumps(raw)}, which leaves it")
    if folder is None:
        raise ScenarioError("arrays: the scenario names a sidecar file but was not read from a file; "
                            "expected it opened from its folder")
    base = Path(folder).resolve()
    path = (base / raw).resolve()
    if not path.is_relative_to(base):
        raise ScenarioError(f"arrays: {raw} leads outside the scenario's folder (a symbolic link?); "
                            f"expected a file in that folder")
    if not path.is_file():
        raise ScenarioError(f"arrays: {raw} is missing; expected it beside the scenario")
    return path, raw


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
        return parse_scenario(data, path.parent)
    except ScenarioError as error:
        raise ScenarioError(f"{path.name}: {error}") from None


# --- saving -----------------------------------------------------------------------------

def scenario_to_document(scenario: Scenario, arrays: str | None = None) -> dict:
    """The JSON document; with `arrays` (a sidecar's name) inputs, weights and targets are
    left to that sidecar and the document names it."""
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
    # The optional fields of later generations are written only when they are on, so a block
    # without them saves exactly as before they existed.
    if config.qk_norm:
        raw_config["qk_norm"] = True
    if config.attn_gate:
        raw_config["attn_gate"] = True
    raw_config.update(residual=config.residual, norm=config.norm, norm_placement=config.norm_placement,
                      eps=config.eps)
    if config.zero_centered:
        raw_config["zero_centered"] = True
    raw_config.update(activation=config.activation, gated=config.gated)
    if config.ffn_clamp is not None:
        raw_config["ffn_clamp"] = config.ffn_clamp
    if config.positional != "none":              # optional fields: written only when used
        raw_config.update(positional=config.positional, rotary_base=config.rotary_base)
    document: dict[str, object] = {"format": FORMAT, "version": VERSION}
    if scenario.title:
        document["title"] = dict(scenario.title)
    document.update(config=raw_config, tokens=list(scenario.tokens))
    if arrays is not None:
        document["arrays"] = arrays
        return document
    document.update(inputs=scenario.inputs.tolist(),
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


def scenario_to_json(scenario: Scenario, arrays: str | None = None) -> str:
    """The scenario file's text; with `arrays`, the form whose arrays are in that sidecar."""
    return _dump(scenario_to_document(scenario, arrays), 0) + "\n"


def stored_numbers(scenario: Scenario) -> int:
    """How many numbers the file stores: inputs, weights and targets."""
    return (int(np.size(scenario.inputs)) + sum(int(np.size(a)) for a in scenario.weights.values())
            + (0 if scenario.targets is None else int(np.size(scenario.targets))))


def sidecar_name(scenario: Scenario, path: str | os.PathLike, sidecar: bool | None = None) -> str | None:
    """The sidecar save_scenario writes beside `path` (None: none). `sidecar` None means
    automatic: one when the scenario stores more than SIDECAR_ABOVE numbers."""
    if sidecar is None:
        sidecar = stored_numbers(scenario) > SIDECAR_ABOVE
    if not sidecar:
        return None
    path = Path(path)
    name = f"{path.stem}.npz"
    return name if name != path.name else f"{path.name}.npz"


def sidecar_arrays(scenario: Scenario, dtype: str = "float64") -> dict[str, np.ndarray]:
    """The arrays of the sidecar form, by their names in the .npz, in `dtype`. Refuses
    (ValueError) numbers a scenario may not hold, or that `dtype` would not keep exactly."""
    if dtype not in SIDECAR_DTYPES:
        raise ValueError(f"dtype: expected one of {', '.join(SIDECAR_DTYPES)}, got {dtype!r}")
    arrays = {"inputs": scenario.inputs, **{f"weights.{name}": a for name, a in scenario.weights.items()}}
    if scenario.targets is not None:
        arrays["targets"] = scenario.targets
    stored = {}
    for key, array in arrays.items():
        array = np.asarray(array, dtype=np.float64)
        try:
            _checked_values(array, key)
        except ScenarioError as error:
            raise ValueError(str(error)) from None
        converted = np.ascontiguousarray(array, dtype=dtype)
        if not np.array_equal(converted.astype(np.float64), array):
            raise ValueError(f"{key}: holds numbers {dtype} cannot keep exactly; round them first or keep float64")
        stored[key] = converted
    return stored


def _write_npz(stream, arrays: Mapping[str, np.ndarray]) -> None:
    """A standard .npz (np.load reads it), uncompressed, with fixed timestamps so that the
    same arrays always give the same bytes."""
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for key, array in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)


def _temporary(folder: Path, suffix: str) -> tuple[int, str]:
    return tempfile.mkstemp(prefix=".blocklab-", suffix=suffix, dir=folder)


def save_scenario(scenario: Scenario, path: str | os.PathLike, sidecar: bool | None = None,
                  dtype: str = "float64") -> None:
    """Write atomically: the old file stays whole if anything fails midway.

    Above SIDECAR_ABOVE stored numbers (or with sidecar=True) the arrays go to a .npz beside
    the JSON (`<stem>.npz`, in `dtype`, float64 by default; float16 or float32 only for numbers
    they hold exactly), and the JSON names it. Both files are written to temporary files and
    renamed; if the JSON's rename fails the old sidecar is put back."""
    path = Path(path)
    folder = path.parent or Path(".")
    arrays_name = sidecar_name(scenario, path, sidecar)
    text = scenario_to_json(scenario, arrays_name)
    arrays = sidecar_arrays(scenario, dtype) if arrays_name else None
    temporaries: list[str] = []
    try:
        handle, json_temporary = _temporary(folder, ".json")
        temporaries.append(json_temporary)
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if arrays is None:
            os.replace(json_temporary, path)
            return
        handle, npz_temporary = _temporary(folder, ".npz")
        temporaries.append(npz_temporary)
        with os.fdopen(handle, "wb") as stream:
            _write_npz(stream, arrays)
        npz_path = folder / arrays_name
        backup = None
        if npz_path.exists():
            handle, backup = _temporary(folder, ".npz")
            os.close(handle)
            temporaries.append(backup)
            _keep_copy(npz_path, backup)
        os.replace(npz_temporary, npz_path)
        try:
            os.replace(json_temporary, path)
        except BaseException:
            if backup is not None:
                os.replace(backup, npz_path)       # the old JSON keeps its old arrays
            else:
                os.unlink(npz_path)
            raise
    finally:
        for temporary in temporaries:
            if os.path.exists(temporary):
                os.unlink(temporary)


def _keep_copy(source: Path, target: str) -> None:
    """Keep the old sidecar's bytes at `target` (a hard link when possible, else a copy)."""
    os.unlink(target)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def check_finite(value: float) -> bool:
    return math.isfinite(value) and abs(value) <= MAX_ABS_VALUE
