"""`python main.py trace`: the headless command.

The tests call `main.main(["trace", …])` in-process (what the command line runs, without
starting a Python per test) and read what it prints; one test runs main.py end to end in a
subprocess from another directory, exactly as a user would.
"""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import main
from tests.conftest import ROOT, SCENARIOS


def trace(*args: str) -> subprocess.CompletedProcess:
    """Run `blocklab trace ARGS` in this process; its exit status and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main.main(["trace", *map(str, args)])
        except SystemExit as exit_:             # argparse: --help, a bad option
            code = exit_.code
    return subprocess.CompletedProcess(["blocklab", "trace", *map(str, args)], code, out.getvalue(), err.getvalue())


def strict_json(text: str) -> dict:
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"trace output contains {name}"))


@pytest.fixture(scope="module")
def r45_output() -> subprocess.CompletedProcess:
    return trace(SCENARIOS / "r45-ffn.json")


def test_r45_prints_the_trace_document(r45_output):
    assert r45_output.returncode == 0, r45_output.stderr
    assert r45_output.stderr == ""
    document = strict_json(r45_output.stdout)
    assert set(document) == {"format", "version", "hooks", "mse"}
    assert document["format"] == "blocklab-trace"
    assert document["version"] == 1
    assert document["mse"] is None
    np.testing.assert_allclose(document["hooks"]["hook_resid_post"],
                               [[1.233154, 0.588798, -0.424732, -1.397220]], atol=5e-7)
    np.testing.assert_allclose(document["hooks"]["hook_resid_pre"],
                               [[1.1707051, 0.6495891, -0.385419, -1.434875]], atol=1e-12)


def test_r45_hooks_are_the_attention_free_post_norm_set_in_order(r45_output):
    hooks = strict_json(r45_output.stdout)["hooks"]
    assert list(hooks) == ["hook_resid_pre", "hook_resid_mid",
                           "ln2.hook_in", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out",
                           "mlp.hook_pre", "mlp.hook_post", "hook_mlp_out", "hook_resid_post"]
    assert np.shape(hooks["ln2.hook_scale"]) == (1, 1)
    assert np.shape(hooks["mlp.hook_post"]) == (1, 6)


def test_xor_has_zero_mse():
    result = trace(SCENARIOS / "c4-xor.json")
    assert result.returncode == 0, result.stderr
    document = strict_json(result.stdout)
    assert document["mse"] == 0.0
    assert document["hooks"]["hook_resid_post"] == [[1.0], [0.0], [0.0], [1.0]]
    assert document["hooks"]["mlp.hook_post"] == [[1.0, 0.0], [2.0, 1.0], [0.0, 0.0], [1.0, 0.0]]


@pytest.fixture
def causal_file(tmp_path):
    document = json.loads((SCENARIOS / "block-default.json").read_text(encoding="utf-8"))
    assert document["config"]["attention"] is True
    document["config"]["mask"] = "causal"
    path = tmp_path / "causal.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path, len(document["tokens"]), document["config"]["n_heads"]


def test_masked_scores_are_null_in_json(causal_file):
    path, T, H = causal_file
    result = trace(path)
    assert result.returncode == 0, result.stderr
    hooks = strict_json(result.stdout)["hooks"]
    scores, pattern = hooks["attn.hook_attn_scores"], hooks["attn.hook_pattern"]
    assert np.shape(scores) == (H, T, T)
    for h in range(H):
        for i in range(T):
            for j in range(T):
                if j > i:
                    assert scores[h][i][j] is None
                    assert pattern[h][i][j] == 0.0
                else:
                    assert isinstance(scores[h][i][j], float)
        assert pattern[h][0][0] == 1.0


def test_out_npz_keeps_minus_infinity(causal_file, tmp_path):
    path, T, H = causal_file
    out = tmp_path / "trace.npz"
    result = trace(path, "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    with np.load(out) as archive:
        scores = archive["attn.hook_attn_scores"]
        assert scores.shape == (H, T, T)
        future = np.triu(np.ones((T, T), dtype=bool), k=1)
        assert np.all(np.isneginf(scores[:, future]))
        assert np.all(np.isfinite(scores[:, ~future]))
        assert archive["hook_resid_post"].shape == (T, 4)
        mse = float(archive["mse"])
    document = json.loads((SCENARIOS / "block-default.json").read_text(encoding="utf-8"))
    assert ("targets" in document) != np.isnan(mse)


def test_out_npz_matches_the_printed_json(tmp_path):
    out = tmp_path / "r45.npz"
    assert trace(SCENARIOS / "r45-ffn.json", "--out", out).returncode == 0
    printed = strict_json(trace(SCENARIOS / "r45-ffn.json").stdout)
    with np.load(out) as archive:
        assert set(archive.files) == set(printed["hooks"]) | {"mse"}
        for name, values in printed["hooks"].items():
            assert np.array_equal(archive[name], np.array(values)), name
        assert np.isnan(archive["mse"])


def test_out_json_writes_the_same_document(tmp_path):
    out = tmp_path / "xor.json"
    result = trace(SCENARIOS / "c4-xor.json", "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    written = strict_json(out.read_text(encoding="utf-8"))
    printed = strict_json(trace(SCENARIOS / "c4-xor.json").stdout)
    assert written == printed
    assert written["format"] == "blocklab-trace" and written["mse"] == 0.0


def assert_refused(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_bad_file_exits_2_with_one_line(tmp_path):
    document = json.loads((SCENARIOS / "block-default.json").read_text(encoding="utf-8"))
    document["weights"]["W_in"] = [row[:-1] for row in document["weights"]["W_in"]]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    line = assert_refused(trace(path))
    assert "weights.W_in: expected 4×6, got 4×5" in line


def test_nan_file_exits_2_with_one_line(tmp_path):
    path = tmp_path / "nan.json"
    text = (SCENARIOS / "c4-xor.json").read_text(encoding="utf-8").replace('"b_in": [0.0, -1.0]', '"b_in": [NaN, -1.0]')
    assert "NaN" in text
    path.write_text(text, encoding="utf-8")
    assert "weights.b_in" in assert_refused(trace(path))


def test_non_json_file_exits_2_with_one_line(tmp_path):
    path = tmp_path / "notes.json"
    path.write_bytes(b"\xff\xfe not json at all\n")
    assert "UTF-8" in assert_refused(trace(path))


def test_missing_file_exits_2(tmp_path):
    line = assert_refused(trace(tmp_path / "nowhere.json"))
    assert "nowhere.json" in line


def test_unwritable_out_exits_2(tmp_path):
    assert_refused(trace(SCENARIOS / "c4-xor.json", "--out", tmp_path / "no-such-dir" / "t.json"))


def test_out_with_an_unknown_suffix_exits_2(tmp_path):
    line = assert_refused(trace(SCENARIOS / "c4-xor.json", "--out", tmp_path / "trace.csv"))
    assert ".json" in line and ".npz" in line
    assert not (tmp_path / "trace.csv").exists()


def test_trace_help_mentions_the_format():
    result = trace("--help")
    assert result.returncode == 0
    assert "blocklab-trace" in result.stdout
    assert "--out" in result.stdout


def test_trace_runs_from_another_directory(tmp_path):
    """The one end-to-end run: a fresh interpreter on main.py, from another directory."""
    result = subprocess.run([sys.executable, str(ROOT / "main.py"), "trace", str(SCENARIOS / "c4-xor.json")],
                            cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert strict_json(result.stdout) == strict_json(trace(SCENARIOS / "c4-xor.json").stdout)
    assert strict_json(result.stdout)["mse"] == 0.0
    bad = subprocess.run([sys.executable, str(ROOT / "main.py"), "trace", str(tmp_path / "nowhere.json")],
                         cwd=tmp_path, capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert_refused(bad)
