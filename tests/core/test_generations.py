"""The generations lab's core: the table, the presets, the side-by-side comparison, every
"stuck at" number as a computation, and the whole-model parameter calculator."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.analysis import invariants, qk_norm_invariants
from core.formats.scenario import parse_scenario, scenario_to_json
from core.labs import generations as g
from core.params import (GPT2_SMALL, PROJECT_BASELINE, ModelShape, attention_parameters, count_parameters,
                         ffn_parameters, ffn_share, swiglu_width)


# --- the table -------------------------------------------------------------------------------

def test_the_table_has_every_row_and_column_with_text_in_both_languages():
    cells = g.table()
    assert [c.id for c in g.columns()] == list(g.COLUMN_IDS)
    assert [r.id for r in g.rows()] == list(g.ROW_IDS)
    assert [(c.row, c.column) for c in cells] == [(r, c) for r in g.ROW_IDS for c in g.COLUMN_IDS]
    for found in cells:
        assert found.text.zh and found.text.en and found.text.zh != found.text.en
        assert found.preset in (None, *g.GENERATIONS)
        assert found.demonstration in (None, *g.DEMONSTRATIONS)
        assert set(found.sources) <= set(g.SOURCES)
        for figure in found.figures:
            assert figure.source in g.SOURCES and figure.computed_by in (None, *g.DEMONSTRATIONS)
            assert figure.shown.split(" ")[0] in found.text.en + (found.stuck_at.en if found.stuck_at else "")
    # Every cell that names a mechanism our engine builds opens a preset; the first four columns all do.
    assert all(c.preset == c.column for c in cells if c.column != "divergence")
    assert g.cell("ffn", "divergence").preset == "divergence"


def test_each_cell_has_a_short_label_that_restates_its_text():
    """The map's cards show a few words per cell (the whole text when pointed at): short, in both
    languages, a stuck-at label exactly where the cell got stuck, and no number the text lacks."""
    import re
    number = re.compile(r"\d+(?:[.,]\d+)*")
    for found in g.table():
        for language in ("zh", "en"):
            label, text = found.label.get(language), found.text.get(language)
            assert label and len(label) <= 40 and len(label) < len(text), (found.row, found.column, language)
            whole = text + (found.stuck_at.get(language) if found.stuck_at else "")
            short = label
            if found.stuck_label is not None:
                stuck = found.stuck_label.get(language)
                assert stuck and len(stuck) <= 30 and len(stuck) < len(found.stuck_at.get(language))
                short += " " + stuck
            assert set(number.findall(short)) <= set(number.findall(whole)), (found.row, found.column, language)
        assert (found.stuck_label is None) == (found.stuck_at is None), (found.row, found.column)
        assert found.label.zh != found.label.en
    assert "11.36" in g.cell("residual", "original").stuck_label.en


def test_the_seed_figures_are_in_the_cells_with_their_sources():
    assert g.cell("ffn", "original").stuck_at.en.count("5.12 / 4.92 / 4.75") == 1
    assert "53M / 65M / 90M" in g.cell("ffn", "original").stuck_at.zh
    assert "1.983" in g.cell("ffn", "gpt2").stuck_at.en and "1.944" in g.cell("ffn", "gpt2").stuck_at.zh
    assert "46.7" in g.cell("gating", "llama").stuck_at.en and "4.8" in g.cell("gating", "anchor").text.zh
    assert "√129 = 11.36" in g.cell("residual", "original").stuck_at.zh
    assert "0.02 ÷ √8 = 0.00707" in g.cell("residual", "gpt2").text.en
    assert "99.995" in g.cell("ffn", "anchor").stuck_at.en
    assert "8,192 → 22,016" in g.cell("ffn", "llama").text.zh and "5,120 → 17,408" in g.cell("ffn", "anchor").text.en
    assert "12,288 = 2 × 6,144" in g.cell("gating", "anchor").text.en
    assert "Table 3" in g.SOURCES["vaswani2017"] and "Table 1" in g.SOURCES["shazeer2020"]
    assert "Table 4" in g.SOURCES["qiu2025"]
    assert g.cell("ffn", "gpt2").sources == ("radford2019", "shazeer2020")
    with pytest.raises(KeyError):
        g.cell("ffn", "1999")


def test_every_computed_figure_is_reproduced():
    overflow = g.swiglu_overflow()
    computed = {
        "11.36": math.sqrt(129), "0.00707": g.gpt2_init_std(4), "99.995": overflow.silu10_times_10,
        "22,016": swiglu_width(8192), "17,408": 17408, "3.4": 17408 / 5120, "12,288": ModelShape(
            n_layers=1, d_model=5120, d_ff=1, vocab=1, n_heads=48, d_head=128, attn_gate=True).q_proj_width,
        "128": 64 * 2, "46.7 %": g.REPORTED_FIRST_TOKEN_SHARE, "4.8 %": g.REPORTED_GATED_FIRST_TOKEN_SHARE,
        "7": g.DIVERGENCE_CLAMP, "10": 10,
    }
    for found in g.table():
        for figure in found.figures:
            if figure.computed_by is not None:
                decimals = len(figure.shown.split(".")[1].split(" ")[0]) if "." in figure.shown else 0
                assert round(computed[figure.shown], decimals) == pytest.approx(figure.value, abs=10 ** -decimals)


# --- presets ---------------------------------------------------------------------------------

EXPECTED = {
    "original": dict(norm="layernorm", norm_placement="post", activation="relu", gated=False, d_ff=16),
    "gpt2": dict(norm="layernorm", norm_placement="pre", activation="gelu_tanh", gated=False, d_ff=16),
    "llama": dict(norm="rmsnorm", norm_placement="pre", activation="silu", gated=True, d_ff=10),
    "anchor": dict(norm="rmsnorm", norm_placement="pre", activation="silu", gated=True, d_ff=10, eps=1e-6,
                   zero_centered=True, qk_norm=True, attn_gate=True, ffn_clamp=None),
    "divergence": dict(norm="rmsnorm", activation="silu", gated=True, zero_centered=True, qk_norm=True,
                       attn_gate=True, ffn_clamp=7.0),
}


@pytest.mark.parametrize("generation", g.GENERATIONS)
def test_every_preset_loads_and_computes(generation):
    scenario = g.preset(generation)
    for name, value in EXPECTED[generation].items():
        assert getattr(scenario.config, name) == value, name
    assert scenario.tokens == ("小明", "把", "苹果", "给了", "小王")
    assert scenario.title["zh"] and scenario.title["en"]
    trace = scenario.run()
    assert trace.output.shape == (5, 4) and np.all(np.isfinite(trace.output))
    assert all(inv.ok for inv in invariants(scenario.config, trace) + qk_norm_invariants(scenario.config, trace))
    again = parse_scenario(scenario_to_json(scenario))            # a preset saves and loads as a file
    assert again.config == scenario.config
    assert np.array_equal(again.run().output, trace.output)


def test_presets_share_inputs_and_weights_where_shapes_agree_and_are_fresh_copies():
    default = g._default_block()
    scenarios = g.presets()
    for scenario in scenarios.values():
        assert np.array_equal(scenario.inputs, default.inputs)
        for name in ("W_Q", "W_K", "W_V", "W_O", "b_O"):
            assert np.array_equal(scenario.weights[name], default.weights[name])
    assert np.array_equal(scenarios["original"].weights["W_in"], scenarios["gpt2"].weights["W_in"])
    assert np.array_equal(scenarios["llama"].weights["W_gate"], scenarios["anchor"].weights["W_gate"])
    assert np.array_equal(scenarios["anchor"].weights["ln1.w"], np.zeros(4))    # zero-centred: gain 1 + 0
    assert np.array_equal(scenarios["anchor"].weights["q_norm.w"], np.zeros(2))
    first = g.preset("anchor")
    first.weights["W_G"][0, 0, 0] = 99.0
    assert g.preset("anchor").weights["W_G"][0, 0, 0] != 99.0
    assert g.GATED_D_FF == 10 and 3 * 4 * g.GATED_D_FF <= 2 * 4 * g.STANDARD_D_FF   # int(8·4/3), within budget


def test_side_by_side_comparison():
    a, b = g.preset("original").run(), g.preset("anchor").run()
    comparison = g.compare_traces(a, b)
    hooks = [found.hook for found in comparison.common]
    assert hooks == [hook for hook in a if hook in b]
    assert "attn.hook_z_gated" in comparison.only_b and "ln1.hook_out" in hooks
    assert comparison.only_a == ()
    same = comparison.get("hook_resid_pre")
    assert same.same_shape and same.largest == 0.0 and not same.difference.any()
    pre = comparison.get("mlp.hook_pre")
    assert not pre.same_shape and pre.difference is None and pre.shape_a == (5, 16) and pre.shape_b == (5, 10)
    scores = comparison.get("attn.hook_attn_scores")             # full mask against causal: −∞ against numbers
    assert np.isinf(scores.difference).any() and math.isfinite(scores.largest)
    both_masked = g.compare_traces(b, b).get("attn.hook_attn_scores")
    assert not both_masked.difference.any() and both_masked.largest == 0.0
    out = comparison.get("hook_resid_post")
    assert np.array_equal(out.difference, a["hook_resid_post"] - b["hook_resid_post"])
    assert g.compare_generations("llama", "llama").get("hook_resid_post").largest == 0.0


# --- (a) residual growth ---------------------------------------------------------------------

def test_residual_growth_reaches_sqrt_129_within_sampling_error():
    calls = []
    run = g.residual_growth(progress=lambda fraction: calls.append(fraction) or True)
    assert run.writes[-1] == 128 and run.expected[128] == pytest.approx(11.357816691600547)
    assert f"{run.expected[128]:.2f}" == "11.36"
    # one standard error of a std measured on 65,536 numbers: 11.36 / √131,072 ≈ 0.031
    assert run.sampling_error[128] == pytest.approx(11.3578 / math.sqrt(2 * 256 * 256), rel=1e-4)
    assert abs(run.measured[128] - math.sqrt(129)) < 2 * run.sampling_error[128]
    assert np.all(np.abs(run.measured - run.expected) < 4 * run.sampling_error)
    assert calls[-1] == 1.0 and calls == sorted(calls)
    assert g.residual_growth(progress=lambda fraction: False) is None          # cancelled


def test_gpt2_remedy_initialises_at_0_02_over_sqrt_n_and_flattens_the_curve():
    assert f"{g.gpt2_init_std(4):.5f}" == "0.00707"
    assert g.gpt2_write_scale(64) == pytest.approx(1 / math.sqrt(128))
    remedy = g.residual_growth(scale=g.gpt2_write_scale(64), samples=64)
    assert remedy.expected[128] == pytest.approx(math.sqrt(2))
    assert abs(remedy.measured[128] - math.sqrt(2)) < 4 * remedy.sampling_error[128]


# --- (b) post-LN against pre-LN --------------------------------------------------------------

def test_post_ln_keeps_the_stream_at_one_while_pre_ln_lets_it_grow():
    result = g.compare_placements(n_layers=12)
    post, pre = result
    assert post.placement == "post" and pre.placement == "pre"
    assert post.stream_rms[0] == pre.stream_rms[0]                        # the same input
    assert post.stream_rms[1:] == pytest.approx(np.ones(12), abs=1e-3)    # LayerNorm after every sum
    assert pre.stream_rms[-1] > 2.5 * pre.stream_rms[1]                    # the stream grows with depth
    assert pre.relative_update[-1] < 0.5 * post.relative_update[-1]       # a deep pre-LN layer changes little
    assert post.attn_out_rms.shape == post.mlp_out_rms.shape == (12,)
    calls = []
    assert g.compare_placements(n_layers=4, progress=lambda f: calls.append(f) or len(calls) < 3) is None
    assert calls == [0.125, 0.25, 0.375]


# --- (c) SwiGLU without an upper bound -------------------------------------------------------

def test_silu_10_times_10_and_where_low_precision_overflows():
    result = g.swiglu_overflow()
    assert f"{result.silu10_times_10:.3f}" == "99.995"
    assert g.FLOAT16_MAX == 65504.0 and f"{g.BFLOAT16_MAX:.3e}" == "3.390e+38"
    assert 255 < result.float16_overflow_at < 256.5                       # SiLU(x)·x ≈ x² passes 65,504
    assert 1.8e19 < result.bfloat16_overflow_at < 1.9e19                  # ≈ √3.39e38
    above = result.inputs > result.float16_overflow_at
    assert np.all(np.isinf(result.float16[above])) and np.all(np.isfinite(result.float16[~above]))
    assert np.all(np.isfinite(result.bfloat16[result.inputs < 1.8e19]))
    # bfloat16 is coarse: 8 significant bits; 99.995 is stored as 100, a step of 0.5 between 64 and 128.
    assert g.to_bfloat16(np.array([99.995]))[0] == 100.0 and g.bfloat16_spacing(99.995) == 0.5
    assert np.all(result.bfloat16_relative_error[np.isfinite(result.bfloat16)] <= 2.0 ** -8)
    assert g.to_float16(np.array([65519.0, 65520.0])).tolist() == [65504.0, math.inf]
    assert g.to_bfloat16(np.array([-3.4e38, 1.0 + 2 ** -9, 1.0 + 3 * 2 ** -9])).tolist() == [
        -math.inf, 1.0, 1.0 + 2 ** -7]                                     # round half to even
    # The clamp at 7 caps the unit at SiLU(7)·7 = 48.96 whatever the input.
    assert result.clamped_ceiling == pytest.approx(7 * 7 / (1 + math.exp(-7)))
    assert np.all(result.clamped <= result.clamped_ceiling + 1e-12)
    assert np.all(np.isfinite(g.to_float16(result.clamped)))


# --- (d) the attention sink ------------------------------------------------------------------

def test_attention_sink_and_the_gate_that_lets_a_head_say_nothing():
    sink = g.attention_sink()
    assert sink.tokens[0] == "小明" and sink.values.shape == (5, 2)
    assert np.array_equal(sink.uniform_pattern, np.full(5, 0.2))         # softmax must hand out 100 %
    assert sink.uniform_output == pytest.approx(sink.values.mean(axis=0))
    assert sink.uniform_output_norm > 0.1                                  # … so the head writes something
    assert sink.first_share[0] == pytest.approx(0.2)
    share = math.e ** 4 / (math.e ** 4 + 4)                                # sink logit 4
    assert sink.first_share[16] == pytest.approx(share)
    assert np.all(np.diff(sink.first_share) > 0) and np.all(np.diff(sink.sink_output_norm) < 0)
    assert sink.sink_output_norm[16] == pytest.approx((1 - share) * np.linalg.norm(sink.values[1:].mean(axis=0)))
    assert sink.gate[0] == pytest.approx(1 / (1 + math.e ** 8)) and sink.gated_output_norm[0] < 1e-3
    assert sink.gated_output_norm[16] == pytest.approx(sink.uniform_output_norm / 2)
    assert (sink.reported_share, sink.reported_gated_share) == (0.467, 0.048)
    assert g.sink_logit_for_share(0.467, 5) == pytest.approx(math.log(0.467 * 4 / 0.533))
    silent = g.silenced_anchor(-8.0).run()
    assert silent["attn.hook_gate_sigmoid"].max() < 0.01                  # σ(−8 + x·W_G), x·W_G small
    assert np.abs(silent["attn.hook_z_gated"]).max() < 0.01 * np.abs(silent["attn.hook_z"]).max()
    assert np.array_equal(silent["attn.hook_pattern"], g.preset("anchor").run()["attn.hook_pattern"])


def test_weight_decay_pulls_a_plain_gain_to_zero_and_a_zero_centred_one_to_one():
    decay = g.gain_decay()
    assert decay.plain_gain[0] == 1.0 and f"{decay.plain_gain[-1]:.3f}" == "0.368"
    assert np.all(decay.zero_centered_gain == 1.0)


# --- parameters ------------------------------------------------------------------------------

def test_the_seed_parameter_counts_exactly():
    baseline = count_parameters(PROJECT_BASELINE)
    assert baseline["total"] == 3_688_704
    assert baseline == {"embeddings": 524_288, "attention": 1_048_576, "ffn": 2_113_536, "norms": 2_304,
                        "unembedding": 0, "total": 3_688_704}
    no_ffn = ModelShape(**{**PROJECT_BASELINE.__dict__, "ffn": "none"})
    assert count_parameters(no_ffn)["total"] == 1_574_144
    twelve = ModelShape(**{**PROJECT_BASELINE.__dict__, "ffn": "none", "n_layers": 12})
    assert count_parameters(twelve)["total"] == 3_673_344
    assert f"{(3_688_704 - 3_673_344) / 3_688_704:.2%}" == "0.42%"
    assert ffn_share(PROJECT_BASELINE) == pytest.approx(2_113_536 / 3_688_704)
    assert count_parameters(GPT2_SMALL)["total"] == 124_439_808
    breakdown = g.parameter_breakdown()
    assert breakdown.parts["total"] == 3_688_704 and breakdown.ffn_share == pytest.approx(0.573, abs=5e-4)


def test_the_8d_over_3_width_rule():
    assert swiglu_width(8192) == 22_016                 # DeepSeek-LLM-67B: 21,845.3 → multiple of 256
    assert swiglu_width(4, multiple_of=1) == 10         # lesson size: int(10.67)
    assert swiglu_width(256, multiple_of=16) == 688     # the project baseline
    assert 17_408 / 5_120 == 3.4 and swiglu_width(5120) == 13_824 != 17_408   # the anchor chose by budget
    # 8d/3 keeps a gated FFN's weights at a 4d standard FFN's: 3·d·(8d/3) = 2·d·4d
    assert ffn_parameters(768, 2048, "gated", bias=False) == ffn_parameters(768, 3072, "standard", bias=False)
    examples = {e.model: e for e in g.WIDTH_EXAMPLES}
    assert examples["DeepSeek-LLM-67B"].d_ff == swiglu_width(8192)


def test_heads_grouped_kv_gate_and_qk_norm_in_the_count():
    square = ModelShape(n_layers=1, d_model=64, d_ff=1, vocab=1, ffn="none", bias=True)
    headed = ModelShape(n_layers=1, d_model=64, d_ff=1, vocab=1, ffn="none", bias=True, n_heads=8)
    assert attention_parameters(square) == attention_parameters(headed) == 4 * 64 * 64 + 4 * 64
    gqa = ModelShape(n_layers=1, d_model=64, d_ff=1, vocab=1, ffn="none", bias=False, n_heads=8, n_kv_heads=2)
    assert attention_parameters(gqa) == 64 * 64 + 2 * 64 * 16 + 64 * 64      # k, v: 2 heads of 8
    gated = ModelShape(n_layers=1, d_model=5120, d_ff=1, vocab=1, ffn="none", bias=False, n_heads=48, d_head=128,
                       n_kv_heads=8, attn_gate=True, qk_norm=True, norm="rmsnorm", final_norm=False)
    assert gated.q_proj_width == 12_288 == 2 * 6_144
    parts = count_parameters(gated)
    assert parts["attention"] == 5120 * 12_288 + 2 * 5120 * 1024 + 6144 * 5120
    assert parts["norms"] == 5120 + 2 * 128
    for bad, message in [(dict(n_layers=0), "n_layers"), (dict(ffn="moe"), "ffn"), (dict(n_heads=3), "d_head"),
                         (dict(n_heads=8, n_kv_heads=3), "n_kv_heads"), (dict(qk_norm=True), "n_heads"),
                         (dict(norm="batchnorm"), "norm"), (dict(bias=1), "bias")]:
        with pytest.raises(ValueError, match=f"^{message}:"):
            ModelShape(**{**square.__dict__, **bad})
