"""core.model: the small trained model in NumPy, built from core.block.forward, plus the
engine's rotary positions. No torch here (CI does not install it)."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from core.block import forward, rotate
from core.config import BlockConfig, ConfigError
from core.explain import explain
from core.model import (DEFAULT_MODEL, Ablation, Cancelled, ModelError, count_parameters, ffn_ablation_losses,
                        load_model, model_from_arrays, neuron_stats, random_neurons, top_snippets,
                        validation_loss)
from core.model.model import FORMAT
from core.formats.scenario import Scenario, parse_scenario, scenario_to_json
from tests.conftest import ROOT

VOCAB = ["\ufffd", "\n", "，", "。", *"春眠不覺曉處聞啼鳥夜來風雨聲花落知多少床前明月光疑是地上霜舉頭望低思故鄉"]


def synthetic_arrays(seed: int = 0, n_layers: int = 2, d: int = 16, H: int = 2, dh: int = 8, F: int = 24,
                     n_ctx: int = 16) -> dict[str, np.ndarray]:
    """A small random model in the file format (reference logits filled in by NumPy)."""
    rng = np.random.default_rng(seed)
    V = len(VOCAB)

    def w(*shape, std=0.3):
        return (rng.standard_normal(shape) * std).astype(np.float16)

    arrays = {"embed.W_E": w(V, d, std=1.0), "ln_final.w": (1 + w(d, std=0.1)).astype(np.float16)}
    for i in range(n_layers):
        p = f"blocks.{i}."
        arrays.update({p + "ln1.w": (1 + w(d, std=0.1)).astype(np.float16), p + "W_Q": w(H, d, dh),
                       p + "W_K": w(H, d, dh), p + "W_V": w(H, d, dh), p + "W_O": w(H, dh, d),
                       p + "ln2.w": (1 + w(d, std=0.1)).astype(np.float16), p + "W_in": w(d, F),
                       p + "W_gate": w(d, F), p + "W_out": w(F, d)})
    text = "春眠不覺曉，處處聞啼鳥。\n床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。\n" * 3
    ids = np.array([VOCAB.index(ch) for ch in text], dtype=np.uint16)
    arrays.update({
        "format": np.array(FORMAT), "format_version": np.array(1),
        "vocab": np.array(VOCAB, dtype="<U1"),
        "config.n_layers": np.array(n_layers), "config.d_model": np.array(d), "config.n_heads": np.array(H),
        "config.d_head": np.array(dh), "config.d_ff": np.array(F), "config.n_ctx": np.array(n_ctx),
        "config.vocab_size": np.array(V), "config.unk_id": np.array(0),
        "config.eps": np.array(1e-5), "config.rotary_base": np.array(10000.0),
        "val_ids": ids, "reference.text": np.array(text[:10]), "reference.ids": ids[:10],
        "reference.logits": np.zeros((10, V), dtype=np.float32), "meta": np.array(json.dumps({"name": "tiny"})),
    })
    model = model_from_arrays(arrays)
    arrays["reference.logits"] = model.forward(ids[:10]).logits.astype(np.float32)
    return arrays


@pytest.fixture(scope="module")
def tiny():
    return model_from_arrays(synthetic_arrays())


@pytest.fixture(scope="module")
def shipped():
    return load_model(DEFAULT_MODEL)


# ------------------------------------------------------------------ the shipped model

def test_numpy_logits_equal_the_saved_pytorch_reference(shipped):
    trace = shipped.forward(shipped.reference_ids)
    assert shipped.reference_ids.size >= 24
    np.testing.assert_allclose(trace.logits, shipped.reference_logits, atol=1e-4, rtol=0)


def test_the_seeds_parameter_counts_exactly(shipped):
    assert count_parameters(2048, 4, 256, 4, 64, 688) == 3_688_704
    assert count_parameters(2048, 4, 256, 4, 64, 0) == 1_574_144       # no FFN and no ln2
    assert count_parameters(2048, 12, 256, 4, 64, 0) == 3_673_344      # 12 attention-only layers
    assert shipped.config.n_params == 3_688_704
    with np.load(DEFAULT_MODEL, allow_pickle=False) as f:
        stored = sum(f[k].size for k in f.files if k.startswith(("blocks.", "embed.", "ln_final.")))
    assert stored == 3_688_704


def test_shipped_file_is_small_and_plain():
    assert DEFAULT_MODEL.stat().st_size <= 10 * 1024 * 1024
    with np.load(DEFAULT_MODEL, allow_pickle=False) as f:
        assert all(not f[k].dtype.hasobject for k in f.files)
        assert f["embed.W_E"].dtype == np.float16 and f["val_ids"].dtype == np.uint16
        assert f["vocab"].shape == (2048,) and f["vocab"][0] == "\ufffd"


def test_ffn_knockout_raises_the_shipped_models_loss(shipped):
    base = validation_loss(shipped, max_windows=2)
    off = validation_loss(shipped, ablation=Ablation(ffn_off=frozenset({1})), max_windows=2)
    assert off > base


# -------------------------------------------------------------------------- rotary

def test_rotary_hooks_match_a_hand_computation():
    rng = np.random.default_rng(1)
    config = BlockConfig(d_model=6, d_ff=5, n_heads=2, d_head=4, mask="causal", norm="rmsnorm",
                         norm_placement="pre", activation="silu", gated=True, positional="rotary")
    from core.weights import adapt_weights
    weights, _ = adapt_weights({}, config)
    weights = {k: rng.standard_normal(v.shape) for k, v in weights.items()}
    x = rng.standard_normal((3, 6))
    trace = forward(config, weights, x, position_offset=5)
    names = list(trace)
    # after q, k, v (and QK-Norm, when on), right before the scores
    assert names.index("attn.hook_rot_q") == names.index("attn.hook_v") + 1
    assert names.index("attn.hook_rot_k") == names.index("attn.hook_attn_scores") - 1
    q = trace["attn.hook_q"]
    for h in range(2):
        for t in range(3):
            p = 5 + t
            for i in range(2):                       # pairs (0, 2) and (1, 3)
                angle = p * 10000.0 ** (-2 * i / 4)
                a, b = q[h, t, i], q[h, t, i + 2]
                assert trace["attn.hook_rot_q"][h, t, i] == pytest.approx(a * np.cos(angle) - b * np.sin(angle))
                assert trace["attn.hook_rot_q"][h, t, i + 2] == pytest.approx(b * np.cos(angle) + a * np.sin(angle))
    rq, rk = trace["attn.hook_rot_q"], trace["attn.hook_rot_k"]
    assert trace["attn.hook_attn_scores"][1, 2, 1] == pytest.approx(rq[1, 2] @ rk[1, 1] / 2)
    # Every cell of the new hooks is explained with its own value.
    for hook in ("attn.hook_rot_q", "attn.hook_rot_k", "attn.hook_attn_scores"):
        for index in np.ndindex(trace[hook].shape):
            ex = explain(config, weights, trace, hook, index)
            assert ex.value == trace[hook][index] or np.isneginf(ex.value)
            if hook != "attn.hook_attn_scores":
                assert ex.kind == "rotary"


def test_rotary_scores_depend_only_on_relative_position():
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((1, 1, 8)), rng.standard_normal((1, 1, 8))
    for m, n, shift in ((3, 1, 10), (7, 7, 100), (0, 5, 33)):
        before = rotate(q, [m]) @ np.swapaxes(rotate(k, [n]), -1, -2)
        after = rotate(q, [m + shift]) @ np.swapaxes(rotate(k, [n + shift]), -1, -2)
        assert after.item() == pytest.approx(before.item(), abs=1e-12)
    assert (rotate(q, [2]) @ np.swapaxes(rotate(k, [0]), -1, -2)).item() != pytest.approx(
        (rotate(q, [0]) @ np.swapaxes(rotate(k, [2]), -1, -2)).item())


def test_position_offset_changes_rotated_vectors_not_outputs(tiny):
    ids = tiny.val_ids[:12]
    a, b = tiny.forward(ids), tiny.forward(ids, position_offset=40)
    assert not np.allclose(a["blocks.0.attn.hook_rot_q"], b["blocks.0.attn.hook_rot_q"])
    np.testing.assert_allclose(a["blocks.0.attn.hook_attn_scores"], b["blocks.0.attn.hook_attn_scores"], atol=1e-9)
    np.testing.assert_allclose(a.logits, b.logits, atol=1e-9)


def test_rotary_config_validation_and_scenario_round_trip():
    with pytest.raises(ConfigError, match="config.positional"):
        BlockConfig(d_model=4, d_ff=2, n_heads=1, d_head=4, positional="alibi")
    with pytest.raises(ConfigError, match="config.d_head"):
        BlockConfig(d_model=4, d_ff=2, n_heads=1, d_head=3, positional="rotary")
    with pytest.raises(ConfigError, match="config.rotary_base"):
        BlockConfig(d_model=4, d_ff=2, n_heads=1, d_head=4, positional="rotary", rotary_base=1.0)
    with pytest.raises(ConfigError, match="config.positional"):
        BlockConfig(d_model=4, d_ff=2, attention=False, positional="rotary")
    config = BlockConfig(d_model=4, d_ff=2, n_heads=1, d_head=4, mask="causal", positional="rotary",
                         rotary_base=500.0)
    assert config.with_changes(attention=False).positional == "none"
    from core.weights import adapt_weights
    weights, _ = adapt_weights({}, config)
    scenario = Scenario(config, ("a", "b"), np.ones((2, 4)), weights)
    document = json.loads(scenario_to_json(scenario))
    assert document["config"]["positional"] == "rotary" and document["config"]["rotary_base"] == 500.0
    again = parse_scenario(json.dumps(document))
    assert again.config == config
    np.testing.assert_allclose(again.run()["attn.hook_rot_k"], scenario.run()["attn.hook_rot_k"])
    plain = Scenario(config.with_changes(positional="none"), ("a", "b"), np.ones((2, 4)), weights)
    assert "positional" not in json.loads(scenario_to_json(plain))["config"]


# ------------------------------------------------------------------- the model API

def test_layers_run_through_the_block_engine(tiny):
    ids = tiny.val_ids[:10]
    trace = tiny.forward(ids)
    x = tiny.W_E[ids]
    for i in range(tiny.config.n_layers):
        block = forward(tiny.block_config, tiny.layers[i], x)
        np.testing.assert_array_equal(block["hook_resid_post"], trace[f"blocks.{i}.hook_resid_post"])
        x = block.output
    assert list(trace)[0] == "hook_embed" and list(trace)[-1] == "hook_logits"
    assert "blocks.1.mlp.hook_gate" in trace and "ln_final.hook_scale" in trace
    assert trace["hook_logits"].shape == (10, len(VOCAB))
    np.testing.assert_allclose(trace.logits, tiny.reference_logits, atol=1e-4)


def test_unknown_characters_and_long_text(tiny):
    tokens = tiny.tokenize("春🙂眠x")
    assert tokens.ids.tolist()[1] == 0 and tokens.ids.tolist()[3] == 0 and tokens.unknown == (1, 3)
    run = tiny.run_text("春眠不覺曉🙂" * 10)             # 60 characters, context 16
    assert run.truncated and run.offset == 44 and run.trace.logits.shape[0] == 16
    assert run.trace.position_offset == 44
    top = tiny.predictions(run.trace, k=5)
    assert len(top) == 5 and sum(p for _, p in top) <= 1 + 1e-12 and top[0][1] >= top[-1][1]
    with pytest.raises(ValueError):
        tiny.forward(np.zeros(17, dtype=np.int64))        # beyond the context


def test_knockouts_and_recomputing_from_a_layer(tiny):
    ids = tiny.val_ids[:12]
    full = tiny.forward(ids)
    off = Ablation(neurons_off=frozenset({(1, 3)}))
    knocked = tiny.forward(ids, ablation=off)
    assert np.all(knocked["blocks.1.mlp.hook_post"][:, 3] == 0)
    assert not np.allclose(knocked.logits, full.logits)
    np.testing.assert_array_equal(knocked["blocks.0.hook_resid_post"], full["blocks.0.hook_resid_post"])
    again = tiny.forward(ids, ablation=off, start_layer=1, cache=full)
    np.testing.assert_array_equal(again.logits, knocked.logits)
    assert again.blocks[0] is full.blocks[0]                       # layer 0 reused, not recomputed
    ffn_off = tiny.forward(ids, ablation=Ablation(ffn_off=frozenset({0})))
    assert np.all(ffn_off["blocks.0.hook_mlp_out"] == 0)
    # An edit in layer 1: recompute from 1 with the cache equals a full run.
    weights = tiny.layer_weights(1)
    weights["W_out"][2, 5] += 0.5
    edited = tiny.with_layer_weights(1, weights)
    np.testing.assert_array_equal(edited.forward(ids, start_layer=1, cache=full).logits, edited.forward(ids).logits)
    with pytest.raises(ValueError, match="cached"):
        tiny.forward(ids[:5], start_layer=1, cache=full)


def test_validation_loss_progress_cancel_and_ablation(tiny):
    seen = []
    loss = validation_loss(tiny, progress=lambda done, total: seen.append((done, total)))
    n_windows = len(range(0, len(tiny.val_ids) - 1, 16))
    assert seen[-1] == (n_windows, n_windows) and np.isfinite(loss)
    with pytest.raises(Cancelled):
        validation_loss(tiny, cancel=lambda: True)
    table = ffn_ablation_losses(tiny)
    assert set(table) == {"baseline", "ffn_off.0", "ffn_off.1", "ffn_off.all"}
    assert table["baseline"] == pytest.approx(loss) and table["ffn_off.0"] != pytest.approx(loss)


def test_neuron_statistics(tiny):
    stats = neuron_stats(tiny, layer=1)
    assert stats.activations.shape == (len(tiny.val_ids), tiny.config.d_ff)
    top = stats.ranked(3)
    assert stats.max_activation[top[0]] == stats.max_activation.max()
    # Windows keep absolute positions: the first window equals a plain forward.
    np.testing.assert_allclose(stats.activations[:16], tiny.forward(tiny.val_ids[:16])["blocks.1.mlp.hook_post"])
    snippets = top_snippets(tiny, stats, int(top[0]), k=3, radius=4)
    assert snippets[0].value == pytest.approx(stats.max_activation[top[0]])
    assert snippets[0].text == tiny.decode(tiny.val_ids[snippets[0].start:snippets[0].end])
    assert all(abs(a.position - b.position) > 4 for a in snippets for b in snippets if a is not b)
    control = random_neurons(tiny.config.d_ff, 5, seed=0, exclude=top)
    assert len(control) == 5 and not set(control) & set(top.tolist())
    np.testing.assert_array_equal(control, random_neurons(tiny.config.d_ff, 5, seed=0, exclude=top))


# ----------------------------------------------------------------------- bad files

def _write(path, arrays, **kwargs):
    np.savez(path, **arrays, **kwargs)
    return path


def test_a_valid_synthetic_file_loads(tmp_path):
    model = load_model(_write(tmp_path / "ok.npz", synthetic_arrays()))
    assert model.name == "ok" and model.config.n_layers == 2


@pytest.mark.parametrize("tamper, message", [
    (lambda a: a.update({"blocks.1.W_in": a["blocks.1.W_in"][:, :-1]}), r"blocks\.1\.W_in: expected 16×24, got 16×23"),
    (lambda a: a["blocks.0.W_Q"].__setitem__((0, 0, 0), np.nan), r"blocks\.0\.W_Q: holds NaN"),
    (lambda a: a["embed.W_E"].__setitem__((3, 3), np.inf), r"embed\.W_E: holds NaN"),
    (lambda a: a.pop("blocks.0.ln2.w"), r"blocks\.0\.ln2\.w: missing"),
    (lambda a: a.update({"blocks.2.W_Q": a["blocks.0.W_Q"]}), r"blocks\.2\.W_Q: unexpected"),
    (lambda a: a.update({"config.d_model": np.array(17)}), r"embed\.W_E: expected 40×17, got 40×16"),
    (lambda a: a.update({"val_ids": np.array([1, 2, 999], dtype=np.uint16)}), r"val_ids: holds token ids"),
    (lambda a: a.update({"vocab": np.array(VOCAB[:-1] + ["春"], dtype="<U1")}), r"vocab: expected distinct"),
    (lambda a: a.update({"format": np.array("something-else")}), r"format: expected"),
    (lambda a: a.update({"blocks.0.W_K": a["blocks.0.W_K"].astype(np.int32)}), r"blocks\.0\.W_K: expected floating"),
])
def test_tampered_files_are_refused(tmp_path, tamper, message):
    arrays = {k: v.copy() for k, v in synthetic_arrays().items()}
    tamper(arrays)
    with pytest.raises(ModelError, match=message):
        load_model(_write(tmp_path / "bad.npz", arrays))


def test_pickled_object_array_is_refused_without_unpickling(tmp_path):
    arrays = synthetic_arrays()
    arrays["embed.W_E"] = np.array([{"evil": 1}], dtype=object)
    path = tmp_path / "pickle.npz"
    np.savez(path, **arrays)                         # savez pickles object arrays
    with pytest.raises(ModelError, match="pickled object array"):
        load_model(path)


def test_truncated_missing_and_foreign_files_are_refused(tmp_path):
    good = _write(tmp_path / "good.npz", synthetic_arrays())
    data = good.read_bytes()
    (tmp_path / "half.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="truncated or damaged"):
        load_model(tmp_path / "half.npz")
    (tmp_path / "text.npz").write_text("not a model")
    with pytest.raises(ModelError, match="not a readable model file"):
        load_model(tmp_path / "text.npz")
    np.save(tmp_path / "plain.npy", np.zeros(3))
    (tmp_path / "plain.npz").write_bytes((tmp_path / "plain.npy").read_bytes())      # an .npy, renamed
    with pytest.raises(ModelError, match="not a readable model file"):
        load_model(tmp_path / "plain.npz")
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "absent.npz")
    assert isinstance(ModelError("x"), ValueError)


def test_core_model_never_imports_torch():
    script = "import sys, core.model; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_a_file_that_would_unpack_too_large_is_refused_before_unpacking(tmp_path, monkeypatch):
    import core.model.model as model_module
    path = _write(tmp_path / "big.npz", synthetic_arrays())
    monkeypatch.setattr(model_module, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(ModelError, match="unpacks to"):
        load_model(path)
