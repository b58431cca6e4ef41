"""One tensor as CSV or .npy: exact round trips, strict reading, clear reasons for a refusal."""
import pickle

import numpy as np
import pytest

from core.formats.tensor_file import (MAX_FILE_BYTES, TensorFileError, csv_text, fit, read_tensor, write_tensor)


@pytest.mark.parametrize("suffix", [".csv", ".npy"])
@pytest.mark.parametrize("shape", [(6,), (4, 6), (2, 4, 3)])
def test_round_trip_is_exact(tmp_path, suffix, shape):
    array = np.random.default_rng(1).normal(0, 1, shape) / 3
    path = tmp_path / f"t{suffix}"
    write_tensor(path, array, comments=("W_in 4×6",))
    back = read_tensor(path)
    got = fit(back, shape)
    assert got is not None and got.shape == shape
    np.testing.assert_array_equal(got, array)             # every digit survives, CSV too
    assert not list(tmp_path.glob("*.part"))               # the temporary file was renamed


def test_csv_is_what_a_spreadsheet_reads():
    text = csv_text(np.array([[1.0, -0.5], [0.25, 1e-7]]), comments=("mlp.hook_pre",))
    assert text == "# mlp.hook_pre\n1.0,-0.5\n0.25,1e-07\n"
    heads = csv_text(np.zeros((2, 1, 2)))
    assert heads == "# head 1\n0.0,0.0\n# head 2\n0.0,0.0\n"


@pytest.mark.parametrize("text", ["1\t2\n3\t4", "1;2\n3;4", "1 2\n3 4", "1, 2\n3, 4\n\n", "\ufeff# c\n1,2\r\n3,−4"])
def test_csv_separators_and_the_unicode_minus(tmp_path, text):
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    assert read_tensor(path).shape == (2, 2)


@pytest.mark.parametrize("text, reason, details", [
    ("1,2\n3,foo", "not_a_number", {"line": 2, "column": 2, "text": "foo"}),
    ("1\t2\n0,5\t3", "not_a_number", {"line": 2, "column": 1, "text": "0,5"}),
    ("1,2\n3", "ragged", {"line": 2, "count": 1, "expected": 2}),
    ("# nothing\n\n", "empty", {}),
    ("1,nan", "bad_value", None),                             # NaN is a float, but not a usable one
    ("1,inf", "bad_value", {"index": (0, 1), "value": float("inf")}),
    ("1,2e6", "bad_value", {"index": (0, 1), "value": 2e6}),
])
def test_bad_csv_is_refused_with_its_reason(tmp_path, text, reason, details):
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TensorFileError) as caught:
        read_tensor(path)
    assert caught.value.reason == reason
    if details is not None:
        assert caught.value.details == details


def test_npy_never_unpickles(tmp_path):
    path = tmp_path / "evil.npy"
    np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(TensorFileError) as caught:
        read_tensor(path)
    assert caught.value.reason == "not_npy"
    pickled = tmp_path / "pickle.npy"
    pickled.write_bytes(pickle.dumps([1.0, 2.0]))
    with pytest.raises(TensorFileError) as caught:
        read_tensor(pickled)
    assert caught.value.reason == "not_npy"


@pytest.mark.parametrize("array, reason", [
    (np.array(["a", "b"]), "not_real"),
    (np.array([1 + 2j]), "not_real"),
    (np.float64(3.0), "dimensions"),
    (np.zeros((2, 2, 2, 2)), "dimensions"),
    (np.array([1.0, np.nan]), "bad_value"),
    (np.array([[1.0], [-2e6]]), "bad_value"),
])
def test_bad_npy_is_refused(tmp_path, array, reason):
    path = tmp_path / "bad.npy"
    np.save(path, array)
    with pytest.raises(TensorFileError) as caught:
        read_tensor(path)
    assert caught.value.reason == reason


def test_integers_and_float32_are_read_as_float64(tmp_path):
    path = tmp_path / "ints.npy"
    np.save(path, np.arange(6, dtype=np.int32).reshape(2, 3))
    assert read_tensor(path).dtype == np.float64


def test_other_suffixes_and_missing_or_huge_files(tmp_path):
    with pytest.raises(TensorFileError) as caught:
        read_tensor(tmp_path / "w.xlsx")
    assert caught.value.reason == "suffix"
    with pytest.raises(TensorFileError) as caught:
        read_tensor(tmp_path / "missing.csv")
    assert caught.value.reason == "unreadable"
    huge = tmp_path / "huge.csv"
    with open(huge, "wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)              # sparse: no real disk use
    with pytest.raises(TensorFileError) as caught:
        read_tensor(huge)
    assert caught.value.reason == "too_big"


def test_fit_takes_rows_columns_and_stacked_heads_never_a_reordering():
    vector = np.arange(4.0)
    np.testing.assert_array_equal(fit(vector[np.newaxis, :], (4,)), vector)
    np.testing.assert_array_equal(fit(vector[:, np.newaxis], (4,)), vector)
    heads = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(fit(heads.reshape(6, 2), (2, 3, 2)), heads)
    assert fit(np.zeros((3, 4)), (4, 3)) is None            # a transposed matrix is not the same matrix
    assert fit(np.zeros((2, 6)), (4, 3)) is None
    assert fit(np.zeros((6, 2)), (2, 2, 3)) is None
