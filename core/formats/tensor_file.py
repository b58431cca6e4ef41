"""One tensor on disk: CSV (for a spreadsheet) and NumPy's .npy (exact), written and read back.

Written atomically (a temporary file beside the target, then a rename). Read strictly: a
.npy is loaded with `allow_pickle=False` and must hold real numbers; a CSV holds rows of
numbers separated by commas, semicolons, tabs or spaces ("#" starts a comment line); every
number must be finite and within ±MAX_ABS_VALUE, the rule a typed cell follows. A refusal
is a `TensorFileError` whose `reason` and `details` the GUI words in the user's language.

A per-head tensor (H×r×c) is written to CSV as its heads one below the other (H·r rows,
each head after a "# head h" comment line) and `fit` reads such a block back.
"""
from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from core.formats.scenario import MAX_ABS_VALUE
from core.numbers import parse_number

MAX_FILE_BYTES = 256 * 2**20       # a GPT-2-small W_in as CSV is about 50 MiB
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
NPY_SUFFIXES = (".npy",)

# Why a file was refused (TensorFileError.reason), with the details each reason carries.
REASONS = {
    "suffix": ("suffix",),                           # neither .csv/.tsv/.txt nor .npy
    "unreadable": ("error",),                        # the OS refused, or the bytes are not text
    "too_big": ("size_mib", "limit_mib"),
    "empty": (),                                     # no numbers at all
    "not_a_number": ("line", "column", "text"),      # the file's line and the item in it, from 1
    "ragged": ("line", "count", "expected"),         # a row with another number of items
    "not_npy": ("error",),                           # not a NumPy array file (or a pickled object)
    "not_real": ("dtype",),                          # strings, complex numbers, records …
    "dimensions": ("ndim",),                         # 0-D, or more than 3 axes
    "bad_value": ("index", "value"),                 # NaN, ±inf, or beyond ±MAX_ABS_VALUE
}


class TensorFileError(ValueError):
    def __init__(self, reason: str, **details: object):
        self.reason = reason
        self.details = details
        super().__init__(f"{reason}: " + ", ".join(f"{key} = {value}" for key, value in details.items()))


def kind_of(path: Path) -> str:
    """"csv" or "npy", from the file name; TensorFileError("suffix") otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in NPY_SUFFIXES:
        return "npy"
    raise TensorFileError("suffix", suffix=suffix or "—")


# --- writing ------------------------------------------------------------------------------

def _atomic_write(path: Path, write) -> None:
    """`write(stream)` into a temporary file beside `path`, then rename it over `path`: a crash
    or a full disk leaves the old file (or none), never half of one."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def csv_text(array: np.ndarray, comments: tuple[str, ...] = ()) -> str:
    """The CSV text of a 1-, 2- or 3-D array: every digit (repr), "-" for minus as spreadsheets
    read it; comment lines first; a 3-D array's heads one below the other."""
    array = np.asarray(array, dtype=np.float64)
    lines = [f"# {comment}" for comment in comments]

    def rows(matrix: np.ndarray) -> None:
        lines.extend(",".join(repr(float(v)) for v in row) for row in matrix)

    if array.ndim == 1:
        rows(array[np.newaxis, :])
    elif array.ndim == 2:
        rows(array)
    else:
        for head, matrix in enumerate(array.reshape(-1, *array.shape[-2:])):
            lines.append(f"# head {head + 1}")
            rows(matrix)
    return "\n".join(lines) + "\n"


def write_csv(path: Path, array: np.ndarray, comments: tuple[str, ...] = ()) -> None:
    text = csv_text(array, comments)
    _atomic_write(Path(path), lambda stream: stream.write(text.encode("utf-8")))


def write_npy(path: Path, array: np.ndarray) -> None:
    array = np.ascontiguousarray(array, dtype=np.float64)
    _atomic_write(Path(path), lambda stream: np.save(stream, array, allow_pickle=False))


def write_tensor(path: Path, array: np.ndarray, comments: tuple[str, ...] = ()) -> None:
    """CSV or .npy by the file's suffix (TensorFileError("suffix") for any other); OSError as raised."""
    if kind_of(path) == "npy":
        write_npy(path, array)
    else:
        write_csv(path, array, comments)


# --- reading ------------------------------------------------------------------------------

def _read_bytes(path: Path) -> bytes:
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise TensorFileError("too_big", size_mib=round(size / 2**20), limit_mib=MAX_FILE_BYTES // 2**20)
        return Path(path).read_bytes()
    except OSError as error:
        raise TensorFileError("unreadable", error=error.strerror or str(error)) from None


def parse_csv(text: str) -> np.ndarray:
    """Rows of numbers (a 2-D float64 array) from CSV text; all or nothing."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    rows: list[list[float]] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip().lstrip("\ufeff")
        if not stripped or stripped.startswith("#"):
            continue
        # Tabs or semicolons (a spreadsheet's export): "0,5" is then one refused item, not two numbers.
        if re.search(r"[\t;]", stripped):
            items = [item.strip() for item in re.split(r"[\t;]", stripped)]
        else:
            items = [item.strip() for item in next(csv.reader(io.StringIO(stripped)))] if "," in stripped \
                else stripped.split()
        row = []
        for column, item in enumerate(items, start=1):
            value = parse_number(item.strip('"'))
            if value is None:
                raise TensorFileError("not_a_number", line=number, column=column, text=item[:40])
            row.append(value)
        if rows and len(row) != len(rows[0]):
            raise TensorFileError("ragged", line=number, count=len(row), expected=len(rows[0]))
        rows.append(row)
    if not rows:
        raise TensorFileError("empty")
    return np.array(rows, dtype=np.float64)


def read_csv(path: Path) -> np.ndarray:
    try:
        text = _read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TensorFileError("unreadable", error="not UTF-8 text") from None
    return check_values(parse_csv(text))


def read_npy(path: Path) -> np.ndarray:
    data = _read_bytes(path)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:       # pickled objects are a ValueError here
        raise TensorFileError("not_npy", error=str(error)[:120]) from None
    if not isinstance(array, np.ndarray):
        raise TensorFileError("not_npy", error="an .npz archive, not one array")
    if array.dtype.kind not in "biuf":
        raise TensorFileError("not_real", dtype=str(array.dtype))
    if not 1 <= array.ndim <= 3:
        raise TensorFileError("dimensions", ndim=array.ndim)
    if array.size == 0:
        raise TensorFileError("empty")
    return check_values(np.array(array, dtype=np.float64))


def read_tensor(path: Path) -> np.ndarray:
    """The array in a CSV (2-D) or .npy (1- to 3-D) file, float64, every value checked."""
    return read_npy(path) if kind_of(path) == "npy" else read_csv(path)


def check_values(array: np.ndarray) -> np.ndarray:
    """`array` if every value is finite and within ±MAX_ABS_VALUE; else the first bad one is named."""
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(array) | (np.abs(array) > MAX_ABS_VALUE)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise TensorFileError("bad_value", index=index, value=float(array[index]))
    return array


def fit(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """`array` as `shape` when it holds exactly that tensor: the same shape; a vector written as
    one row or one column; a per-head tensor written as its heads one below the other (H·r×c),
    as `csv_text` writes it. None otherwise (a reshape that would reorder numbers is refused)."""
    array = np.asarray(array, dtype=np.float64)
    shape = tuple(shape)
    if array.shape == shape:
        return array
    if len(shape) == 1 and array.ndim == 2 and 1 in array.shape and array.size == shape[0]:
        return array.reshape(shape)
    if len(shape) == 3 and array.ndim == 2 and array.shape == (shape[0] * shape[1], shape[2]):
        return array.reshape(shape)
    return None
