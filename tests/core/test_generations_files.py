"""The generations lab's shipped files: the preset scenarios are exactly what
tools/make_generation_presets.py writes, the lesson walks the table and opens each preset, and
a lesson step that switches zero-centred norms on keeps every gain (w ↦ w − 1)."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from core.formats.lesson import load_lesson
from core.formats.scenario import load_scenario
from core.labs import generations as g
from core.params import ModelShape, PROJECT_BASELINE
from core.resources import lessons_dir, scenarios_dir
from tests.conftest import ROOT


def _tool():
    spec = importlib.util.spec_from_file_location("make_generation_presets",
                                                  ROOT / "tools" / "make_generation_presets.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_shipped_presets_are_what_the_tool_writes(capsys):
    tool = _tool()
    assert tool.differing() == []
    assert tool.main(["--check"]) == 0, capsys.readouterr().err


def test_the_check_finds_a_changed_or_missing_file(tmp_path):
    tool = _tool()
    tool.write(tmp_path)
    assert tool.differing(tmp_path) == []
    (tmp_path / "gen-gpt2.json").write_text((tmp_path / "gen-gpt2.json").read_text().replace("0.5", "0.25", 1))
    (tmp_path / "gen-anchor.json").unlink()
    assert sorted(tool.differing(tmp_path)) == ["gen-anchor.json", "gen-gpt2.json"]


@pytest.mark.parametrize("generation", g.GENERATIONS)
def test_each_preset_file_loads_as_its_preset(generation):
    scenario = load_scenario(scenarios_dir() / f"gen-{generation}.json")
    fresh = g.preset(generation)
    assert scenario.config == fresh.config == g.preset_config(generation)
    assert scenario.tokens == fresh.tokens and np.array_equal(scenario.inputs, fresh.inputs)
    assert scenario.weights.keys() == fresh.weights.keys()
    assert all(np.array_equal(scenario.weights[name], fresh.weights[name]) for name in fresh.weights)
    assert np.array_equal(scenario.run().output, fresh.run().output)


def test_the_lesson_walks_the_table_left_to_right_and_opens_each_preset():
    lesson = load_lesson(lessons_dir() / "generations.json")
    assert lesson.id == "generations" and lesson.title.zh and lesson.title.en
    assert lesson.steps[0].panels == ("lab.generations.table",)
    opened = [step.scenario for step in lesson.steps if "dataflow" in step.panels
              and "lab.generations.preset" in step.panels]
    assert opened == list(g.GENERATIONS)                        # 2017 → 2026, in the table's order
    order = [g.GENERATIONS.index(step.scenario) for step in lesson.steps]
    assert order == sorted(order)                               # never back to an earlier generation
    shown = {panel.split(".")[2] for step in lesson.steps for panel in step.panels if panel.startswith("lab.")}
    assert shown == set(g.PARTS)                                # every part of the lab has its step
    for k, step in enumerate(lesson.steps):
        scenario = lesson.step_scenario(k)
        assert scenario.config == g.preset_config(step.scenario)
        for language in ("zh", "en"):
            assert "—" not in lesson.caption(k, language, scenario.run())


def test_a_lesson_step_that_turns_zero_centred_norms_on_keeps_every_gain(tmp_path):
    """core.formats.lesson converts kept gains (w ↦ w − 1) as the presets do: the block computes
    the same numbers with the gains written as 1 + w."""
    (tmp_path / "lessons").mkdir()
    (tmp_path / "scenarios").mkdir()
    source = scenarios_dir() / "gen-llama.json"
    (tmp_path / "scenarios" / "llama.json").write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    text = {"zh": "零中心", "en": "Zero-centred"}
    document = {"format": "blocklab-lesson", "version": 1, "id": "zero", "title": text,
                "scenarios": {"llama": "../scenarios/llama.json"},
                "steps": [{"id": "plain", "title": text, "caption": text, "scenario": "llama"},
                          {"id": "zero", "title": text, "caption": text, "scenario": "llama",
                           "config": {"zero_centered": True}}]}
    path = tmp_path / "lessons" / "zero.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    lesson = load_lesson(path)
    plain, zero = lesson.step_scenario(0), lesson.step_scenario(1)
    assert zero.config.zero_centered and not plain.config.zero_centered
    assert np.array_equal(plain.weights["ln1.w"], np.ones(4)) and np.array_equal(zero.weights["ln1.w"], np.zeros(4))
    assert np.allclose(zero.run().output, plain.run().output, atol=1e-12)


def test_the_calculator_report_reproduces_the_seed_figures():
    twelve = g.parameter_report(ModelShape(**{**PROJECT_BASELINE.__dict__, "ffn": "none", "n_layers": 12}))
    assert twelve.breakdown.parts["total"] == 3_673_344 and twelve.reference_total == 3_688_704
    assert f"{100 * twelve.fewer_than_reference:.2f}" == "0.42" and twelve.width_ratio is None
    anchor = g.parameter_report(ModelShape(n_layers=64, d_model=5120, d_ff=17408, vocab=1, ffn="gated"))
    assert anchor.width_ratio == 3.4 and anchor.gated_width == 13_824
    assert g.parameter_report(ModelShape(n_layers=1, d_model=8192, d_ff=1, vocab=1)).gated_width == 22_016
