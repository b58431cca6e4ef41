"""“Copy as NumPy code”: the generated script runs with NumPy alone and prints what Block Lab
computes — the shipped blocks and the engine's newer options run as real scripts in a
subprocess, every combination of options runs in this process."""
from __future__ import annotations

import ast
import contextlib
import io
import itertools
import subprocess
import sys

import numpy as np
import pytest

from core.block import mse
from core.config import BlockConfig, weight_shapes
from core.formats.generate import random_scenario
from core.formats.numpy_code import (INLINE_LIMIT, arrays_file_name, needs_arrays_file, numpy_script, parse_output,
                                     script_arrays, write_numpy_script)
from core.formats.scenario import Scenario, load_scenario
from core.resources import scenarios_dir


def run_script(path, cwd) -> str:
    """Run a script as a learner would: a fresh Python, from another folder, nothing of Block Lab
    importable (the script's folder holds only the script and its .npz)."""
    result = subprocess.run([sys.executable, "-I", str(path)], cwd=cwd, capture_output=True, text=True,
                            encoding="utf-8", timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_here(text: str) -> str:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(text, "<script>", "exec"), {"__name__": "__main__"})
    return output.getvalue()


def weights_for(config: BlockConfig, seed: int, spread: float = 1.0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {name: rng.normal(0, spread, size=shape) for name, shape in weight_shapes(config).items()}


def pre_norm_rms_gated_causal() -> Scenario:
    config = BlockConfig(d_model=4, d_ff=6, n_heads=2, d_head=2, mask="causal", norm="rmsnorm",
                         norm_placement="pre", activation="silu", gated=True)
    rng = np.random.default_rng(11)
    return Scenario(config, ("我", "喜欢", "猫", "。"), rng.normal(0, 1, (4, 4)), weights_for(config, 12),
                    rng.normal(0, 1, (4, 4)), {"en": "pre-norm RMSNorm SwiGLU, causal"})


def newer_options() -> Scenario:
    config = BlockConfig(d_model=4, d_ff=5, n_heads=2, d_head=3, mask="causal", norm="rmsnorm",
                         norm_placement="pre", activation="silu", gated=True, zero_centered=True,
                         qk_norm=True, attn_gate=True, ffn_clamp=0.75)
    rng = np.random.default_rng(21)
    return Scenario(config, ("a", "b", "c", "d", "e"), rng.normal(0, 2, (5, 4)), weights_for(config, 22, 1.5),
                    None, {"en": "zero-centred, QK-Norm, gated attention, clamped SwiGLU"})


BLOCKS = {
    "default": lambda: load_scenario(scenarios_dir() / "block-default.json"),
    "c4-xor": lambda: load_scenario(scenarios_dir() / "c4-xor.json"),
    "pre-norm-rms-gated-causal": pre_norm_rms_gated_causal,
    "newer-options": newer_options,
}


@pytest.mark.parametrize("name", BLOCKS)
def test_the_script_prints_the_apps_output(tmp_path, name):
    scenario = BLOCKS[name]()
    folder = tmp_path / "notes"
    folder.mkdir()
    written = write_numpy_script(scenario, folder / "block.py")
    assert written == [folder / "block.py"]                       # small: every number is in the script
    out, error_value = parse_output(run_script(folder / "block.py", tmp_path))
    expected = scenario.run().output
    assert out.shape == expected.shape
    assert np.max(np.abs(out - expected)) <= 1e-12
    if scenario.targets is None:
        assert error_value is None
    else:
        assert error_value == pytest.approx(mse(expected, scenario.targets), abs=1e-12)


def test_the_newer_options_change_the_output():
    """The extensions test above would prove little if its options did nothing."""
    scenario = newer_options()
    plain = BlockConfig(**{**scenario.config.__dict__, "zero_centered": False, "qk_norm": False,
                           "attn_gate": False, "ffn_clamp": None})
    weights = {name: scenario.weights[name] for name in weight_shapes(plain)}
    from core.block import forward
    assert not np.allclose(forward(plain, weights, scenario.inputs).output, scenario.run().output)
    assert "hook_pattern" in numpy_script(scenario)


def test_the_script_imports_numpy_only_and_writes_every_digit():
    scenario = load_scenario(scenarios_dir() / "c4-xor.json")
    scenario = Scenario(scenario.config, scenario.tokens, scenario.inputs + 1 / 3,
                        {name: w - 0.1 for name, w in scenario.weights.items()}, scenario.targets,
                        {"en": 'a """ title \\d with\nodd characters', "zh": "题目"})
    text = numpy_script(scenario)
    imported = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= {"numpy", "math", "pathlib"}
    assert repr(float(scenario.inputs[0, 0])) in text              # 0.3333333333333333, not 0.333
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(text, "<script>", "exec"), namespace)
    assert np.array_equal(namespace["inputs"], scenario.inputs)
    for name, array in scenario.weights.items():
        assert np.array_equal(namespace["W"][name], array), name
    assert namespace["TOKENS"] == list(scenario.tokens)


def test_only_the_path_the_block_takes_is_written():
    text = numpy_script(load_scenario(scenarios_dir() / "c4-xor.json"))     # a bare FFN: no attention, no norm
    assert "def attention" not in text and "def norm" not in text and "softmax" not in text
    default = numpy_script(load_scenario(scenarios_dir() / "block-default.json"))
    assert "def attention" in default and "def norm" in default and "rms_parts" not in default


def valid_configs() -> list[BlockConfig]:
    """Every valid combination of the engine's options (1,620 blocks)."""
    configs = []
    for attention, mask, residual, norm, placement, activation, gated, zero, qk, gate, clamp in itertools.product(
            (True, False), ("full", "causal"), (True, False), ("layernorm", "rmsnorm", "none"), ("post", "pre"),
            ("relu", "gelu", "gelu_tanh", "silu", "identity"), (False, True), (False, True), (False, True),
            (False, True), (None, 0.5)):
        if (not attention and (qk or gate or mask == "causal")) or (clamp is not None and not gated):
            continue
        if zero and norm == "none" and not qk:
            continue                             # zero-centred without any norm: the same block again
        configs.append(BlockConfig(d_model=4, d_ff=5, n_heads=2 if attention else 0, d_head=3 if attention else 0,
                                   d_out=None if residual else 3, attention=attention, mask=mask, residual=residual,
                                   norm=norm, norm_placement=placement, activation=activation, gated=gated,
                                   zero_centered=zero, qk_norm=qk, attn_gate=gate, ffn_clamp=clamp))
    return configs


def test_combinations_of_options_match_the_engine():
    """A fixed sample of 150 of the valid combinations of options (every value of every option
    among them), run in this process; the subprocess tests above show the scripts run on their own."""
    configs = valid_configs()
    rng = np.random.default_rng(5)
    sample = [configs[i] for i in sorted(rng.choice(len(configs), size=150, replace=False))]
    for field in ("attention", "mask", "residual", "norm", "norm_placement", "activation", "gated",
                  "zero_centered", "qk_norm", "attn_gate", "ffn_clamp"):
        assert {getattr(c, field) for c in sample} == {getattr(c, field) for c in configs}, field
    worst = 0.0
    for number, config in enumerate(sample):
        scenario = Scenario(config, ("a", "b", "c"), rng.normal(0, 2, (3, 4)), weights_for(config, number, 1.5))
        out, _ = parse_output(run_here(numpy_script(scenario)))
        worst = max(worst, float(np.max(np.abs(out - scenario.run().output))))
    assert worst <= 1e-12


def test_a_big_block_keeps_its_numbers_in_a_sibling_npz(tmp_path):
    scenario = random_scenario(8, 64, 4, 16, 256, seed=3, targets=True, norm_placement="pre",
                               activation="gelu", mask="causal")
    assert needs_arrays_file(scenario)
    folder = tmp_path / "notes"
    folder.mkdir()
    written = write_numpy_script(scenario, folder / "big block.py")
    assert written == [folder / "big block.py", folder / arrays_file_name(folder / "big block.py")]
    assert written[1].name == "big block-arrays.npz"      # never the name a scenario's own sidecar takes
    assert written[0].stat().st_size < 20_000            # the script stays short
    with np.load(written[1], allow_pickle=False) as arrays:
        assert set(arrays.files) == set(script_arrays(scenario))
    out, error_value = parse_output(run_script(written[0], tmp_path))
    assert np.max(np.abs(out - scenario.run().output)) <= 1e-12
    assert error_value == pytest.approx(mse(scenario.run().output, scenario.targets), abs=1e-12)


def test_the_inline_limit_is_about_a_readable_script():
    assert not needs_arrays_file(load_scenario(scenarios_dir() / "block-default.json"))
    assert INLINE_LIMIT >= 10_000
