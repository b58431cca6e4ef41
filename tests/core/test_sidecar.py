"""Scenarios whose arrays live in a sibling .npz (the optional "arrays" field): they round-trip,
save writes them above a size and atomically, and tampered sidecars are refused with one line
naming the array, like the JSON arrays."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest

import core.formats.scenario as scenario_module
from core.block import forward
from core.formats.generate import as_float16, preset, random_scenario
from core.formats.scenario import (SIDECAR_ABOVE, Scenario, ScenarioError, load_scenario, parse_scenario,
                                   save_scenario, scenario_to_json, sidecar_name, stored_numbers)
from tests.conftest import ROOT, SCENARIOS

GPT2 = SCENARIOS / "gpt2-small-shape.json"


def small() -> Scenario:
    return random_scenario(3, 4, 2, 2, 6, seed=1, targets=True)


def assert_same(a: Scenario, b: Scenario) -> None:
    assert (a.config, a.tokens, a.title) == (b.config, b.tokens, b.title)
    assert np.array_equal(a.inputs, b.inputs) and b.inputs.dtype == np.float64
    assert list(a.weights) == list(b.weights)
    for name in a.weights:
        assert np.array_equal(a.weights[name], b.weights[name]) and b.weights[name].dtype == np.float64, name
    assert (a.targets is None) == (b.targets is None)
    if a.targets is not None:
        assert np.array_equal(a.targets, b.targets)


def npz(path, **arrays) -> None:
    """A sidecar written by plain numpy, as a tester (or an attacker) would write one."""
    with open(path, "wb") as stream:
        np.savez(stream, **arrays)


def sidecar_arrays(scenario: Scenario) -> dict[str, np.ndarray]:
    arrays = {"inputs": scenario.inputs, **{f"weights.{k}": v for k, v in scenario.weights.items()}}
    if scenario.targets is not None:
        arrays["targets"] = scenario.targets
    return arrays


def write_pair(folder, scenario: Scenario, name="s", **overrides) -> "os.PathLike":
    """s.json (sidecar form) and s.npz from plain numpy, with some arrays replaced or removed (None)."""
    arrays = {**sidecar_arrays(scenario), **overrides}
    npz(folder / f"{name}.npz", **{k: v for k, v in arrays.items() if v is not None})
    path = folder / f"{name}.json"
    path.write_text(scenario_to_json(scenario, f"{name}.npz"), encoding="utf-8")
    return path


def refusal(path) -> str:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- round trip ------------------------------------------------------------------------------

def test_a_large_scenario_is_saved_with_a_sidecar_and_round_trips(tmp_path):
    scenario = preset("d64", targets=True)
    big = preset("d256")
    assert stored_numbers(scenario) <= SIDECAR_ABOVE < stored_numbers(big)
    save_scenario(scenario, tmp_path / "small.json")
    save_scenario(big, tmp_path / "big.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.json", "big.npz", "small.json"]
    document = json.loads((tmp_path / "big.json").read_text(encoding="utf-8"))
    assert document["arrays"] == "big.npz" and not {"inputs", "weights", "targets"} & set(document)
    assert_same(load_scenario(tmp_path / "small.json"), scenario)
    again = load_scenario(tmp_path / "big.json")
    assert_same(again, big)
    with np.load(tmp_path / "big.npz", allow_pickle=False) as stored:   # a standard .npz
        assert stored["weights.W_in"].dtype == np.float64 and stored["inputs"].shape == (32, 256)


def test_saving_twice_gives_the_same_bytes(tmp_path):
    save_scenario(small(), tmp_path / "a.json", sidecar=True)
    first = (tmp_path / "a.npz").read_bytes()
    save_scenario(small(), tmp_path / "a.json", sidecar=True)
    assert (tmp_path / "a.npz").read_bytes() == first


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_narrow_floats_are_read_as_float64_and_saved_only_when_exact(tmp_path, dtype):
    scenario = small()
    with pytest.raises(ValueError, match=f"{dtype} cannot keep exactly"):
        save_scenario(scenario, tmp_path / "s.json", sidecar=True, dtype=dtype)
    assert list(tmp_path.iterdir()) == []
    rounded = as_float16(scenario)
    save_scenario(rounded, tmp_path / "s.json", sidecar=True, dtype=dtype)
    with np.load(tmp_path / "s.npz") as stored:
        assert stored["weights.W_Q"].dtype == np.dtype(dtype)
    assert_same(load_scenario(tmp_path / "s.json"), rounded)


def test_arrays_may_be_split_between_the_json_and_the_sidecar(tmp_path):
    scenario = small()
    document = json.loads(scenario_to_json(scenario))
    document["arrays"] = "part.npz"
    moved = {"W_in", "W_out", "b_O"}
    for name in moved:
        del document["weights"][name]
    del document["targets"]
    npz(tmp_path / "part.npz", targets=scenario.targets, **{f"weights.{n}": scenario.weights[n] for n in moved})
    (tmp_path / "part.json").write_text(json.dumps(document), encoding="utf-8")
    assert_same(load_scenario(tmp_path / "part.json"), scenario)


def test_fortran_ordered_arrays_are_read_right(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario, **{"weights.W_in": np.asfortranarray(scenario.weights["W_in"])})
    assert_same(load_scenario(path), scenario)


def test_a_lesson_style_relative_subfolder_is_allowed(tmp_path):
    scenario = small()
    (tmp_path / "data").mkdir()
    npz(tmp_path / "data" / "s.npz", **sidecar_arrays(scenario))
    (tmp_path / "s.json").write_text(scenario_to_json(scenario, "data/s.npz"), encoding="utf-8")
    assert_same(load_scenario(tmp_path / "s.json"), scenario)


# --- atomic saving ------------------------------------------------------------------------------

def test_a_failed_json_rename_keeps_the_old_pair(tmp_path, monkeypatch):
    old = small()
    save_scenario(old, tmp_path / "s.json", sidecar=True)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real_replace = os.replace

    def refuse_json(source, target):
        if str(target).endswith(".json"):
            raise OSError("disk full")
        return real_replace(source, target)

    monkeypatch.setattr(os, "replace", refuse_json)
    new = random_scenario(3, 4, 2, 2, 6, seed=9)
    with pytest.raises(OSError, match="disk full"):
        save_scenario(new, tmp_path / "s.json", sidecar=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before     # no temporaries either
    monkeypatch.setattr(os, "replace", real_replace)
    assert_same(load_scenario(tmp_path / "s.json"), old)


def test_a_failed_sidecar_write_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(stream, arrays):
        stream.write(b"PK half a file")
        raise OSError("no space left")

    monkeypatch.setattr(scenario_module, "_write_npz", broken)
    with pytest.raises(OSError, match="no space left"):
        save_scenario(small(), tmp_path / "s.json", sidecar=True)
    assert list(tmp_path.iterdir()) == []


def test_a_first_save_whose_json_rename_fails_leaves_no_sidecar(tmp_path, monkeypatch):
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda s, t: (_ for _ in ()).throw(OSError("nope"))
                        if str(t).endswith(".json") else real_replace(s, t))
    with pytest.raises(OSError, match="nope"):
        save_scenario(small(), tmp_path / "s.json", sidecar=True)
    assert list(tmp_path.iterdir()) == []


def test_an_unsavable_scenario_writes_nothing(tmp_path):
    scenario = small()
    bad = Scenario(scenario.config, scenario.tokens, scenario.inputs,
                   {**scenario.weights, "W_in": np.full((4, 6), np.nan)}, None, {})
    with pytest.raises(ValueError, match=r"weights\.W_in\[0, 0\]"):
        save_scenario(bad, tmp_path / "s.json", sidecar=True)
    assert list(tmp_path.iterdir()) == []


# --- refusals ---------------------------------------------------------------------------------

def test_a_shape_mismatch_names_the_array_and_the_sidecar(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario, **{"weights.W_in": np.zeros((4, 5))})
    assert refusal(path) == "s.json: weights.W_in (in s.npz): expected 4×6, got 4×5"


@pytest.mark.parametrize("value, shown", [(np.nan, "nan"), (np.inf, "inf"), (-2e6, "-2000000.0")])
def test_bad_numbers_are_refused_where_they_sit(tmp_path, value, shown):
    scenario = small()
    array = np.array(scenario.weights["W_out"])
    array[4, 1] = value
    path = write_pair(tmp_path, scenario, **{"weights.W_out": array})
    assert refusal(path) == f"s.json: weights.W_out[4, 1] (in s.npz): expected a finite number within ±1e+06, got {shown}"


def test_nan_in_float16_is_refused(tmp_path):
    scenario = small()
    inputs = np.array(scenario.inputs, dtype=np.float16)
    inputs[2, 3] = np.nan
    assert refusal(write_pair(tmp_path, scenario, inputs=inputs)).startswith("s.json: inputs[2, 3] (in s.npz): expected a finite")


DETONATED: list = []


def _detonate(word: str) -> None:
    DETONATED.append(word)


class Detonator:
    """Unpickling this would run code: it records that it did."""

    def __reduce__(self):
        return (_detonate, ("unpickled",))


def test_a_pickled_object_array_is_refused_without_unpickling(tmp_path):
    scenario = small()
    objects = np.empty((3, 4), dtype=object)
    objects[:] = Detonator()
    buffer = io.BytesIO()
    np.save(buffer, objects, allow_pickle=True)
    arrays = {k: v for k, v in sidecar_arrays(scenario).items() if k != "inputs"}
    with zipfile.ZipFile(tmp_path / "s.npz", "w") as archive:
        archive.writestr("inputs.npy", buffer.getvalue())
        for key, array in arrays.items():
            member = io.BytesIO()
            np.save(member, array)
            archive.writestr(f"{key}.npy", member.getvalue())
    (tmp_path / "s.json").write_text(scenario_to_json(scenario, "s.npz"), encoding="utf-8")
    assert refusal(tmp_path / "s.json") == ("s.json: inputs (in s.npz): expected numbers, got Python objects "
                                           "(pickled data is never loaded)")
    assert DETONATED == []
    with np.load(tmp_path / "s.npz", allow_pickle=True) as unsafe:   # the file really is armed
        unsafe["inputs"]
    assert DETONATED


def test_integers_and_complex_numbers_are_refused(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario, **{"weights.b_in": np.arange(6)})
    assert refusal(path) == "s.json: weights.b_in (in s.npz): expected float16, float32 or float64 numbers, got int64"
    path = write_pair(tmp_path, scenario, **{"weights.b_in": np.zeros(6, dtype=complex)})
    assert "got complex128" in refusal(path)


def test_a_missing_array_is_refused(tmp_path):
    path = write_pair(tmp_path, small(), **{"weights.W_out": None})
    assert refusal(path) == "s.json: weights.W_out: missing; this config needs a 6×4 array (in the JSON or in s.npz)"
    path = write_pair(tmp_path, small(), inputs=None)
    assert refusal(path) == "s.json: inputs: missing; expected 3×4 numbers (in the JSON or in s.npz)"


def test_an_unexpected_array_is_refused(tmp_path):
    path = write_pair(tmp_path, small(), **{"weights.W_gate": np.zeros((4, 6))})
    assert refusal(path).startswith("s.json: weights.W_gate (in s.npz): unexpected array; expected only inputs, weights.W_Q")


def test_an_array_in_both_places_is_refused(tmp_path):
    scenario = small()
    document = json.loads(scenario_to_json(scenario))
    document["arrays"] = "s.npz"
    npz(tmp_path / "s.npz", **{"weights.W_in": scenario.weights["W_in"]})
    (tmp_path / "s.json").write_text(json.dumps(document), encoding="utf-8")
    assert refusal(tmp_path / "s.json") == ("s.json: weights.W_in (in s.npz): also in the JSON; "
                                           "expected each array in one place only")


def test_a_member_written_twice_is_refused(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario)
    with pytest.warns(UserWarning), zipfile.ZipFile(tmp_path / "s.npz", "a") as archive:
        member = io.BytesIO()
        np.save(member, scenario.inputs)
        archive.writestr("inputs.npy", member.getvalue())
    assert refusal(path) == "s.json: inputs (in s.npz): appears twice; expected each array once"


@pytest.mark.parametrize("name, says", [
    ("/tmp/s.npz", "got the absolute path"),
    ("C:\\data\\s.npz", "got the absolute path"),
    ("../s.npz", "which leaves it"),
    ("sub/../../s.npz", "which leaves it"),
    ("..\\s.npz", "expected a path with / between folders"),
    ("s.zip", "expected a name ending in .npz"),
    ("", "expected the name of a .npz file"),
    (["s.npz"], "expected the name of a .npz file"),
    ("nothere.npz", "nothere.npz is missing"),
])
def test_a_path_that_leaves_the_folder_is_refused(tmp_path, name, says):
    scenario = small()
    inner = tmp_path / "inner"
    inner.mkdir()
    npz(tmp_path / "s.npz", **sidecar_arrays(scenario))        # a real file one level up
    document = json.loads(scenario_to_json(scenario, "x.npz"))
    document["arrays"] = name
    (inner / "s.json").write_text(json.dumps(document), encoding="utf-8")
    message = refusal(inner / "s.json")
    assert message.startswith("s.json: arrays: ") and says in message


def test_a_symlink_pointing_outside_the_folder_is_refused(tmp_path):
    scenario = small()
    inner = tmp_path / "inner"
    inner.mkdir()
    npz(tmp_path / "secret.npz", **sidecar_arrays(scenario))
    (inner / "s.npz").symlink_to(tmp_path / "secret.npz")
    (inner / "s.json").write_text(scenario_to_json(scenario, "s.npz"), encoding="utf-8")
    assert refusal(inner / "s.json") == ("s.json: arrays: s.npz leads outside the scenario's folder "
                                         "(a symbolic link?); expected a file in that folder")
    (inner / "t.npz").symlink_to(inner / "s.npz")              # inside → inside → outside: still refused
    (inner / "t.json").write_text(scenario_to_json(scenario, "t.npz"), encoding="utf-8")
    assert "leads outside" in refusal(inner / "t.json")


def test_a_truncated_sidecar_is_refused(tmp_path):
    path = write_pair(tmp_path, small())
    data = (tmp_path / "s.npz").read_bytes()
    (tmp_path / "s.npz").write_bytes(data[: len(data) // 2])
    assert refusal(path).startswith("s.json: arrays: s.npz is not a readable .npz file (")


def test_a_corrupt_sidecar_is_refused(tmp_path):
    path = write_pair(tmp_path, preset("lesson"))
    data = bytearray((tmp_path / "s.npz").read_bytes())
    header = data.index(b"weights.W_in.npy")
    data[header + 200] ^= 0xFF                                 # a byte inside W_in's numbers
    (tmp_path / "s.npz").write_bytes(bytes(data))
    assert refusal(path) == "s.json: arrays: s.npz is not a readable .npz file (Bad CRC-32 for file 'weights.W_in.npy')"


def test_a_file_that_is_not_a_zip_is_refused(tmp_path):
    path = write_pair(tmp_path, small())
    (tmp_path / "s.npz").write_bytes(b"\x93NUMPY not a zip at all")
    assert refusal(path) == "s.json: arrays: s.npz is not a readable .npz file (File is not a zip file)"


def test_a_member_that_is_not_an_array_is_refused(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario, inputs=None)
    with zipfile.ZipFile(tmp_path / "s.npz", "a") as archive:
        archive.writestr("inputs.npy", b"hello, not an array")
    assert refusal(path).startswith("s.json: inputs (in s.npz): not a readable .npy array (")
    with zipfile.ZipFile(tmp_path / "s.npz", "a") as archive:
        archive.writestr("notes.txt", b"hi")
    assert refusal(path) == "s.json: arrays: s.npz holds 'notes.txt'; expected only .npy arrays"


def test_a_tiny_sidecar_declaring_a_huge_array_allocates_nothing(tmp_path):
    scenario = small()
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (10**9, 4)})
    path = write_pair(tmp_path, scenario, inputs=None)
    with zipfile.ZipFile(tmp_path / "s.npz", "a") as archive:
        archive.writestr("inputs.npy", header.getvalue() + b"\0" * 64)
    tracemalloc.start()
    message = refusal(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert message == "s.json: inputs (in s.npz): expected 3×4, got 1000000000×4"
    assert peak < 10 * 2**20


def test_a_sidecar_larger_than_the_cap_is_refused_unread(tmp_path, monkeypatch):
    path = write_pair(tmp_path, small())
    monkeypatch.setattr(scenario_module, "MAX_SIDECAR_BYTES", 1024)
    assert refusal(path).startswith("s.json: arrays: s.npz: expected at most 0 MiB, got")


def test_a_sidecar_needs_a_folder():
    with pytest.raises(ScenarioError, match="^arrays: the scenario names a sidecar file but was not read from a file"):
        parse_scenario(scenario_to_json(small(), "s.npz"))


def test_the_json_keeps_its_own_rules_with_a_sidecar(tmp_path):
    scenario = small()
    path = write_pair(tmp_path, scenario)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["weights"] = {"W_bogus": [1.0]}
    path.write_text(json.dumps(document), encoding="utf-8")
    assert refusal(path).startswith("s.json: weights.W_bogus: unexpected for this config")


# --- the shipped GPT-2-small-shaped example ---------------------------------------------------

def test_the_shipped_gpt2_shape_example():
    scenario = load_scenario(GPT2)
    config = scenario.config
    assert (len(scenario.tokens), config.d_model, config.n_heads, config.d_head, config.d_ff) == (64, 768, 12, 64, 3072)
    assert (config.norm, config.norm_placement, config.activation, config.mask) == ("layernorm", "pre", "gelu_tanh", "causal")
    assert "random" in scenario.title["en"] and "随机" in scenario.title["zh"]
    assert "float16" in scenario.title["en"] and "float16" in scenario.title["zh"]
    document = json.loads(GPT2.read_text(encoding="utf-8"))
    assert document["arrays"] == "gpt2-small-shape.npz"
    assert GPT2.stat().st_size < 4096 and GPT2.with_suffix(".npz").stat().st_size < 15 * 2**20
    with np.load(GPT2.with_suffix(".npz"), allow_pickle=False) as stored:
        assert {stored[key].dtype for key in stored.files} == {np.dtype("float16")}
    # What the committed command writes, number for number.
    expected = as_float16(preset("gpt2-small", seed=0))
    for name, array in expected.weights.items():
        assert np.array_equal(scenario.weights[name], array), name
    assert np.array_equal(scenario.inputs, expected.inputs)
    assert sidecar_name(scenario, GPT2) == "gpt2-small-shape.npz"


def test_the_trace_command_runs_the_gpt2_shape_example(tmp_path):
    out = tmp_path / "t.npz"
    done = subprocess.run([sys.executable, "main.py", "trace", str(GPT2), "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    with np.load(out) as trace:
        assert trace["hook_resid_post"].shape == (64, 768) and trace["attn.hook_pattern"].shape == (12, 64, 64)
        scenario = load_scenario(GPT2)
        want = forward(scenario.config, scenario.weights, scenario.inputs)
        assert np.allclose(trace["hook_resid_post"], want.output, rtol=0, atol=1e-12)
