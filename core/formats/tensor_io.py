"""One tensor to and from a file: CSV (text a spreadsheet opens) or NumPy's .npy.

Writing (`write_tensor`) keeps every digit: CSV cells are Python's shortest exact form of each
float (repr), .npy is float64 written with allow_pickle=False. Both are written atomically.

Reading (`read_tensor`) is for importing into an editor: it checks the shape the editor needs
and applies the rule of a typed cell to every number (a number — the Unicode minus "−" is
accepted, a comma inside a number is not —, finite, within ±1,000,000), and refuses anything
else with one sentence (`TensorFileError`) that names the file and, where there is one, the
cell: `w.csv: row 2, column 3: expected a number, got "abc"`. Nothing is half-read.

The CSV layout, by number of dimensions:
- 1 (a vector, n): one line of n numbers (n lines of one number are read as well);
- 2 (a matrix, rows × columns): one line per row;
- 3 (one matrix per head, H × rows × columns): H blocks of rows, separated by a blank line.
Cells are separated by commas (a file without any comma may separate them with spaces or
tabs); lines starting with "#" are comments. A UTF-8 byte-order mark is ignored.
"""
from __future__ import annotations

import io
import math
import os
from pathlib import Path

import numpy as np

from core.formats.files import FileReadError, read_capped, write_atomically
from core.numbers import parse_number

SUFFIXES = (".csv", ".npy")
MAX_ABS_VALUE = 1e6              # the bound of a typed cell and of a scenario (core.formats.scenario)
MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_NUMBERS = 50_000_000
NPY_KINDS = "fiu"                # float, signed and unsigned integer .npy arrays are numbers


class TensorFileError(ValueError):
    """A tensor file that cannot be imported; str() is one sentence naming the file."""


def describe(shape: tuple[int, ...]) -> str:
    return "×".join(str(n) for n in shape) if shape else "a single number"


# --- writing ----------------------------------------------------------------------------

def _cell(value: float) -> str:
    return repr(float(value) + 0.0)          # + 0.0: −0.0 is written 0.0


def tensor_to_csv(array: np.ndarray) -> str:
    """The CSV text of a 0-, 1-, 2- or 3-dimensional array, every digit kept."""
    array = np.asarray(array, dtype=np.float64)
    if array.ndim == 0:
        return _cell(array) + "\n"
    if array.ndim == 1:
        return ",".join(map(_cell, array)) + "\n"
    if array.ndim == 2:
        return "".join(",".join(map(_cell, row)) + "\n" for row in array)
    if array.ndim == 3:
        return "\n".join(tensor_to_csv(matrix) for matrix in array)
    raise ValueError(f"expected at most 3 dimensions, got {array.ndim}")


def write_tensor(array: np.ndarray, path: str | os.PathLike) -> None:
    """Write `array` to a .csv or .npy file (by its suffix), atomically."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        write_atomically(path, tensor_to_csv(array))
    elif suffix == ".npy":
        buffer = io.BytesIO()
        np.save(buffer, np.ascontiguousarray(array, dtype=np.float64), allow_pickle=False)
        write_atomically(path, buffer.getvalue())
    else:
        raise ValueError(f"{path.name}: expected a name ending in .csv or .npy")


# --- reading ----------------------------------------------------------------------------

def read_tensor(path: str | os.PathLike, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """The numbers of a .csv or .npy file as a float64 array of `shape` (any shape if None).

    A vector of n numbers may be written as one row or one column. Raises TensorFileError
    (one sentence starting with the file's name) if the file cannot be read, is not numbers,
    has another shape, or holds a number a cell may not hold."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix not in SUFFIXES:
            raise TensorFileError(f"expected a .csv or .npy file, got {suffix or 'a name without a suffix'}")
        try:
            data = read_capped(path, MAX_FILE_BYTES)
        except FileReadError as error:
            raise TensorFileError(str(error)) from None
        array = parse_npy(data) if suffix == ".npy" else parse_csv(data)
        return fit_shape(array, shape)
    except TensorFileError as error:
        raise TensorFileError(f"{path.name}: {error}") from None


def fit_shape(array: np.ndarray, shape: tuple[int, ...] | None) -> np.ndarray:
    """`array` as `shape`: equal shapes, or a vector given as one row or one column."""
    if shape is None or array.shape == tuple(shape):
        return array
    shape = tuple(shape)
    if len(shape) == 1 and array.ndim == 2 and 1 in array.shape and array.size == shape[0]:
        return array.reshape(shape)
    if len(shape) == 2 and array.ndim == 1 and 1 in shape and array.size == math.prod(shape):
        return array.reshape(shape)
    noun = "number" if math.prod(shape) == 1 else "numbers"
    what = {2: f"{noun} (rows × columns)", 3: f"{noun} (heads × rows × columns)"}.get(len(shape), noun)
    raise TensorFileError(f"expected {describe(shape)} {what}, got {describe(array.shape)}")


def _checked(array: np.ndarray, cell_name) -> np.ndarray:
    bad = ~np.isfinite(array) | (np.abs(array) > MAX_ABS_VALUE)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0]) if array.ndim else ()
        value = float(array[where]) if array.ndim else float(array)
        raise TensorFileError(f"{cell_name(where)}: {_value_problem(value)}")
    return array


def _value_problem(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return f"NaN and infinity are not allowed, got {value}"
    return f"expected a number within ±1,000,000, got {value:g}"


def parse_csv(data: bytes | str) -> np.ndarray:
    """The array a CSV text holds (1, 2 or 3 dimensions, see the module's notes), checked."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise TensorFileError(f"expected UTF-8 text, got an invalid byte at position {error.start}") from None
    data = data.lstrip("\ufeff")
    comma = "," in data
    blocks: list[list[list[float]]] = [[]]
    row_lines: list[list[int]] = [[]]
    count = 0
    for number, line in enumerate(data.splitlines(), start=1):
        text = line.strip()
        if text.startswith("#"):
            continue
        if not text:
            if blocks[-1]:
                blocks.append([])
                row_lines.append([])
            continue
        cells = [cell.strip() for cell in (text.split(",") if comma else text.split())]
        if comma and cells and cells[-1] == "":
            cells.pop()                        # a trailing comma, as some spreadsheets write
        row = []
        for column, cell in enumerate(cells, start=1):
            value = parse_number(cell)
            if value is None:
                shown = cell if len(cell) <= 20 else cell[:20] + "…"
                raise TensorFileError(f"row {number}, column {column}: expected a number, got \"{shown}\"")
            if not math.isfinite(value) or abs(value) > MAX_ABS_VALUE:
                raise TensorFileError(f"row {number}, column {column}: {_value_problem(value)}")
            row.append(value)
        blocks[-1].append(row)
        row_lines[-1].append(number)
        count += len(row)
        if count > MAX_NUMBERS:
            raise TensorFileError(f"expected at most {MAX_NUMBERS:,} numbers")
    if not blocks[-1]:
        blocks.pop()
        row_lines.pop()
    if not blocks:
        raise TensorFileError("expected numbers, got an empty file")
    width = len(blocks[0][0])
    for block, lines in zip(blocks, row_lines):
        for row, line in zip(block, lines):
            if len(row) != width:
                raise TensorFileError(f"row {line}: expected {width} numbers like the first row, got {len(row)}")
    if len(blocks) == 1:
        rows = blocks[0]
        if len(rows) == 1:
            return np.array(rows[0], dtype=np.float64)          # one line: a vector
        return np.array(rows, dtype=np.float64)
    height = len(blocks[0])
    for block, lines in zip(blocks, row_lines):
        if len(block) != height:
            raise TensorFileError(f"the block starting at row {lines[0]}: expected {height} rows like the first "
                                  f"block, got {len(block)}")
    return np.array(blocks, dtype=np.float64)


def parse_npy(data: bytes) -> np.ndarray:
    """The array of a .npy file's bytes: numbers only (pickled objects are never loaded), at
    most 3 dimensions, checked; as float64."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"version {version} of the format")
    except (ValueError, EOFError) as error:
        raise TensorFileError(f"not a readable .npy file ({error})") from None
    if dtype.hasobject:
        raise TensorFileError("expected numbers, got Python objects (pickled data is never loaded)")
    if dtype.kind not in NPY_KINDS or dtype.fields is not None:
        raise TensorFileError(f"expected an array of numbers, got {dtype}")
    if len(shape) > 3:
        raise TensorFileError(f"expected at most 3 dimensions, got {describe(tuple(shape))}")
    count = math.prod(shape)
    if count > MAX_NUMBERS:
        raise TensorFileError(f"expected at most {MAX_NUMBERS:,} numbers, got {count:,}")
    size = dtype.itemsize * count
    payload = stream.read(size)
    if len(payload) != size:
        raise TensorFileError(f"expected {size:,} bytes of numbers, got {len(payload):,} (a truncated file?)")
    if stream.read(1):
        raise TensorFileError("unexpected bytes after the array")
    raw = np.frombuffer(payload, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    with np.errstate(over="ignore", invalid="ignore"):
        array = np.ascontiguousarray(raw, dtype=np.float64)

    def cell(where: tuple[int, ...]) -> str:
        return f"cell {list(where)}" if where else "the number"

    return _checked(array, cell)
