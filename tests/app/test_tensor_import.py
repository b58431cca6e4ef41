"""Importing a weight matrix into the Session (no widget): the shape must fit, the values must be
what a typed cell accepts, the import is one undo step, a refusal is one clear message and
changes nothing. And: an accepted edit clears a refusal still standing in the status bar."""
from __future__ import annotations

import numpy as np
import pytest

from app.explorer.tensor_files import export_tensor, import_tensor
from core.block import forward

pytestmark = pytest.mark.session


def record(session) -> list[str]:
    seen: list[str] = []
    session.message.connect(seen.append)
    return seen


def unchanged(session, name: str, before: np.ndarray, steps: int) -> bool:
    return np.array_equal(session.tensor(name), before) and session.undo_stack.count() == steps


def test_a_csv_of_the_right_shape_is_one_undo_step(session, tmp_path):
    new = np.arange(24.0).reshape(4, 6) / 10 - 1
    path = tmp_path / "w_in.csv"
    path.write_text("\n".join(",".join(str(v) for v in row) for row in new), encoding="utf-8")
    before, steps = session.tensor("W_in").copy(), session.undo_stack.count()
    assert import_tensor(session, "W_in", path)
    np.testing.assert_array_equal(session.tensor("W_in"), new)
    assert session.undo_stack.count() == steps + 1 and "w_in.csv" in session.undo_stack.text(steps)
    expected = forward(session.config, session.state.weights, session.state.inputs)
    np.testing.assert_array_equal(session.trace["mlp.hook_pre"], expected["mlp.hook_pre"])
    session.undo_stack.undo()
    np.testing.assert_array_equal(session.tensor("W_in"), before)


def test_npy_the_whole_per_head_tensor_or_one_head(session, tmp_path):
    whole = np.full((2, 4, 2), 0.5)
    np.save(tmp_path / "wq.npy", whole)
    assert import_tensor(session, "W_Q", tmp_path / "wq.npy")
    np.testing.assert_array_equal(session.tensor("W_Q"), whole)
    np.save(tmp_path / "head.npy", np.full((4, 2), -0.25))
    assert import_tensor(session, "W_Q", tmp_path / "head.npy", head=1)
    np.testing.assert_array_equal(session.tensor("W_Q")[0], whole[0])        # head 1 untouched
    np.testing.assert_array_equal(session.tensor("W_Q")[1], np.full((4, 2), -0.25))


def test_a_vector_may_be_a_row_or_a_column(session, tmp_path):
    (tmp_path / "b.csv").write_text("1\n2\n3\n4\n5\n6\n", encoding="utf-8")
    assert import_tensor(session, "b_in", tmp_path / "b.csv")
    np.testing.assert_array_equal(session.tensor("b_in"), [1, 2, 3, 4, 5, 6])


def test_export_then_import_is_the_same_tensor(session, tmp_path):
    for suffix in (".csv", ".npy"):
        original = session.tensor("W_V").copy()
        assert export_tensor(session, tmp_path / f"wv{suffix}", original, "W_V")
        assert session.set_tensor("W_V", np.zeros_like(original), "zero")
        assert import_tensor(session, "W_V", tmp_path / f"wv{suffix}")
        np.testing.assert_array_equal(session.tensor("W_V"), original)


@pytest.mark.parametrize("content, words", [
    ("1,2,3\n4,5,6\n", ["2×3", "4×6"]),                       # a wrong shape names both
    ("1,2,3,4,5,6\n" * 3 + "1,2,3,4,5,nan\n", ["finite"]),    # NaN, as a typed cell
    ("1,2,3,4,5,6\n" * 3 + "1,2,3,4,5,2e6\n", ["1,000,000"]),  # too large, as a typed cell
    ("1,2,3,4,5,6\n" * 3 + "1,2,x,4,5,6\n", ["line 4", "“x”"]),
    ("1,2,3,4,5,6\n1,2\n", ["line 2"]),
])
def test_a_bad_csv_is_refused_in_one_message_and_nothing_changes(session, tmp_path, content, words):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    before, steps = session.tensor("W_in").copy(), session.undo_stack.count()
    messages = record(session)
    assert not import_tensor(session, "W_in", path)
    assert unchanged(session, "W_in", before, steps)
    assert len(messages) == 1 and "nothing changed" in messages[0] and "bad.csv" in messages[0]
    assert all(word in messages[0] for word in words), messages[0]


def test_a_pickle_is_never_loaded(session, tmp_path):
    path = tmp_path / "evil.npy"
    np.save(path, np.array([object()], dtype=object), allow_pickle=True)
    before, steps = session.tensor("W_in").copy(), session.undo_stack.count()
    messages = record(session)
    assert not import_tensor(session, "W_in", path)
    assert unchanged(session, "W_in", before, steps)
    assert "pickle" in messages[0]


def test_a_head_that_does_not_exist_or_a_transposed_matrix_is_refused(session, tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((6, 4)))               # W_in is 4×6: never transposed silently
    messages = record(session)
    assert not import_tensor(session, "W_in", tmp_path / "t.npy")
    assert "6×4" in messages[-1] and "4×6" in messages[-1]
    np.save(tmp_path / "h.npy", np.zeros((4, 2)))
    assert not import_tensor(session, "W_Q", tmp_path / "h.npy")            # no head given
    assert "one head: 4×2" in messages[-1]


def test_an_accepted_value_clears_a_refusal_still_shown(session):
    messages = record(session)
    assert not session.set_value("W_in", (0, 0), float("nan"), "nan")
    assert messages[-1]                                     # the refusal stands in the status bar
    assert session.set_value("W_in", (0, 0), 0.5)
    assert messages[-1] == ""                              # … until a value is accepted
    count = len(messages)
    assert session.set_value("W_in", (0, 0), 0.75)
    assert len(messages) == count                          # nothing standing: nothing to clear
    assert not session.set_tensor("W_in", np.zeros((2, 2)), "wrong")
    assert session.set_tensor("W_in", np.zeros((4, 6)), "zero")
    assert messages[-1] == ""
