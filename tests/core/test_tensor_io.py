"""One tensor to and from CSV / .npy: every digit kept on the way out; on the way in, the shape
an editor needs and the rule of a typed cell, or one clear sentence and nothing half-read."""
from __future__ import annotations

import io

import numpy as np
import pytest

from core.formats.tensor_io import TensorFileError, parse_csv, read_tensor, tensor_to_csv, write_tensor

AWKWARD = np.array([[0.1, -1 / 3, 1e-17, 123456.789012345],
                    [-0.0, 2.0 ** -40, 999999.9999999999, -7.25]])


@pytest.mark.parametrize("suffix", [".csv", ".npy"])
@pytest.mark.parametrize("shape", [(5,), (4, 6), (2, 4, 2)])
def test_every_digit_survives_a_round_trip(tmp_path, suffix, shape):
    array = np.random.default_rng(7).normal(0, 3, size=shape) / 7
    path = tmp_path / f"t{suffix}"
    write_tensor(array, path)
    back = read_tensor(path, shape)
    assert back.dtype == np.float64 and back.shape == shape
    assert np.array_equal(back, array)


def test_csv_is_plain_rows_a_spreadsheet_reads():
    assert tensor_to_csv(np.array([1.0, -0.5])) == "1.0,-0.5\n"
    assert tensor_to_csv(AWKWARD).splitlines()[0] == "0.1,-0.3333333333333333,1e-17,123456.789012345"
    assert tensor_to_csv(np.array([-0.0])) == "0.0\n"
    # heads: one block of rows per head, a blank line between
    assert tensor_to_csv(np.arange(8.0).reshape(2, 2, 2)) == "0.0,1.0\n2.0,3.0\n\n4.0,5.0\n6.0,7.0\n"
    assert np.array_equal(parse_csv(tensor_to_csv(AWKWARD)), AWKWARD)


def test_npy_is_float64_without_pickle(tmp_path):
    path = tmp_path / "w.npy"
    write_tensor(np.array([[1, 2], [3, 4]]), path)
    loaded = np.load(path, allow_pickle=False)
    assert loaded.dtype == np.float64 and loaded.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_writing_is_atomic_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "w.csv"
    write_tensor(np.ones(3), path)
    import os

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_tensor(np.zeros(3), path)
    assert path.read_text() == "1.0,1.0,1.0\n"
    assert [p.name for p in tmp_path.iterdir()] == ["w.csv"]       # no temporary file left behind


def test_unknown_suffix_is_refused(tmp_path):
    with pytest.raises(ValueError, match="csv or .npy"):
        write_tensor(np.ones(2), tmp_path / "w.txt")
    (tmp_path / "w.txt").write_text("1,2")
    with pytest.raises(TensorFileError, match=r"^w\.txt: expected a \.csv or \.npy file"):
        read_tensor(tmp_path / "w.txt")


def test_lenient_where_it_is_harmless(tmp_path):
    path = tmp_path / "w.csv"
    # a byte-order mark, spaces, a comment, a trailing comma, the Unicode minus, CRLF line ends
    path.write_bytes("\ufeff# W_in from my notes\r\n 1, −2.5 ,3,\r\n4,5,6\r\n".encode("utf-8"))
    assert read_tensor(path, (2, 3)).tolist() == [[1.0, -2.5, 3.0], [4.0, 5.0, 6.0]]
    # without any comma, spaces or tabs separate the cells
    path.write_text("1 2\t3\n4 5 6\n")
    assert read_tensor(path, (2, 3)).tolist() == [[1, 2, 3], [4, 5, 6]]
    # a vector may be one row or one column
    path.write_text("1\n2\n3\n")
    assert read_tensor(path, (3,)).tolist() == [1, 2, 3]
    path.write_text("1,2,3\n")
    assert read_tensor(path, (3,)).tolist() == [1, 2, 3]
    assert read_tensor(path, (1, 3)).tolist() == [[1, 2, 3]]


@pytest.mark.parametrize("text, shape, message", [
    ("1,2,3\n4,5,6\n", (3, 2), r"expected 3×2 numbers \(rows × columns\), got 2×3"),
    ("1,2\n3\n", (2, 2), r"row 2: expected 2 numbers like the first row, got 1"),
    ("1,2\nabc,4\n", (2, 2), r'row 2, column 1: expected a number, got "abc"'),
    ("1,2\n3,nan\n", (2, 2), r"row 2, column 2: NaN and infinity are not allowed"),
    ("1,2\n3,-inf\n", (2, 2), r"row 2, column 2: NaN and infinity are not allowed"),
    ("1,2\n3,1e7\n", (2, 2), r"row 2, column 2: expected a number within ±1,000,000, got 1e\+07"),
    ("1;2\n3;4\n", (2, 2), r'row 1, column 1: expected a number, got "1;2"'),
    ("1,000\n", (1,), r"expected 1 number, got 2"),
    ("", (2, 2), r"expected numbers, got an empty file"),
    ("# only a comment\n\n", (2,), r"expected numbers, got an empty file"),
    ("1,2\n3,4\n\n5,6\n", (2, 2, 2), r"the block starting at row 4: expected 2 rows like the first block, got 1"),
    ("1,2,3,4,5,6,7,8\n", (2, 2, 2), r"expected 2×2×2 numbers \(heads × rows × columns\), got 8"),
])
def test_refusals_name_the_file_and_the_cell(tmp_path, text, shape, message):
    path = tmp_path / "import.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TensorFileError, match="^import.csv: " + message):
        read_tensor(path, shape)


def test_bad_npy_files_are_refused(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.array([[1.0, np.nan]]))
    with pytest.raises(TensorFileError, match=r"^w\.npy: cell \[0, 1\]: NaN and infinity are not allowed"):
        read_tensor(path)
    np.save(path, np.array([2e6]))
    with pytest.raises(TensorFileError, match=r"cell \[0\]: expected a number within ±1,000,000, got 2e\+06"):
        read_tensor(path)
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(TensorFileError, match="pickled data is never loaded"):
        read_tensor(path)
    np.save(path, np.array(["x"]))
    with pytest.raises(TensorFileError, match="expected an array of numbers, got <U1"):
        read_tensor(path)
    np.save(path, np.array([1 + 2j]))
    with pytest.raises(TensorFileError, match="expected an array of numbers, got complex128"):
        read_tensor(path)
    np.save(path, np.zeros((1, 1, 1, 1)))
    with pytest.raises(TensorFileError, match="at most 3 dimensions"):
        read_tensor(path)
    buffer = io.BytesIO()
    np.save(buffer, np.zeros((4, 4)))
    path.write_bytes(buffer.getvalue()[:-8])
    with pytest.raises(TensorFileError, match="a truncated file"):
        read_tensor(path)
    path.write_bytes(b"not an npy file at all")
    with pytest.raises(TensorFileError, match=r"^w\.npy: not a readable \.npy file"):
        read_tensor(path)
    with pytest.raises(TensorFileError, match=r"^missing\.npy: cannot be read"):
        read_tensor(tmp_path / "missing.npy")


def test_npy_of_other_number_types_and_orders_is_read_as_float64(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)))
    back = read_tensor(path, (2, 3))
    assert back.dtype == np.float64 and back.tolist() == [[0, 1, 2], [3, 4, 5]]
    np.save(path, np.array([0.5, -0.25], dtype=np.float32))
    assert read_tensor(path, (2,)).tolist() == [0.5, -0.25]
    with pytest.raises(TensorFileError, match=r"expected 3 numbers, got 2"):
        read_tensor(path, (3,))
