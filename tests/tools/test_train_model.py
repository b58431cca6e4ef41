"""tools/train_model.py on a tiny slice: a few steps, a checkpoint and --resume, the export
that core.model loads, and NumPy logits equal to PyTorch's. Needs the optional [train]
extra (PyTorch); skipped without it — CI does not install torch."""
from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest

from tests.conftest import ROOT

try:
    import torch  # noqa: F401
except ImportError:
    pytest.skip("PyTorch is not installed (optional [train] extra)", allow_module_level=True)


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


train_model = _tool("train_model")
prepare_corpus = _tool("prepare_corpus")

POEMS = ("春眠不覺曉，處處聞啼鳥。夜來風雨聲，花落知多少。\n"
         "床前明月光，疑是地上霜。舉頭望明月，低頭思故鄉。\n"
         "白日依山盡，黃河入海流。欲窮千里目，更上一層樓。\n")


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    train = POEMS * 6
    (folder / "train.txt").write_text(train, encoding="utf-8")
    (folder / "val.txt").write_text(POEMS[:40] + "🙂", encoding="utf-8")      # one unknown character
    vocab = prepare_corpus.build_vocab(train, size=40)
    (folder / "vocab.txt").write_text("".join(("\\n" if ch == "\n" else ch) + "\n" for ch in vocab),
                                      encoding="utf-8")
    return folder


def _args(corpus, run, *extra):
    return ["--corpus", str(corpus), "--run", str(run), "--layers", "2", "--d-model", "16", "--heads", "2",
            "--d-ff", "24", "--ctx", "16", "--batch", "4", "--eval-every", "2", "--eval-windows", "2",
            "--threads", "1", "--seed", "3", *extra]


def test_vocabulary_is_most_frequent_first_with_unknown_at_zero():
    vocab = prepare_corpus.build_vocab("bbbaac\u3000", size=4)
    assert vocab == ["\ufffd", "b", "a", "c"]      # ties (c, U+3000) broken by code point


def test_a_few_steps_resume_and_export_match_numpy(corpus, tmp_path):
    from core.model import load_model, validation_loss

    run, out = tmp_path / "run", tmp_path / "tiny.npz"
    assert train_model.main(_args(corpus, run, "--steps", "3")) == 0
    lines = [json.loads(line) for line in (run / "loss.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2, 3] and "val_loss_estimate" in lines[1]
    assert (run / "checkpoint.pt").exists()

    assert train_model.main(_args(corpus, run, "--steps", "5", "--resume", "--export", str(out))) == 0
    lines = [json.loads(line) for line in (run / "loss.jsonl").read_text().splitlines()]
    assert [r["step"] for r in lines] == [1, 2, 3, 4, 5]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == 5 and summary["tokens_seen"] == 5 * 4 * 16
    assert summary["params"] == train_model.count_params(
        train_model.build("baseline", 40, 2, 16, 24, 16, n_heads=2))

    model = load_model(out)
    assert model.config.n_layers == 2 and model.config.d_ff == 24 and len(model.vocab) == 40
    with np.load(out, allow_pickle=False) as f:
        assert f["embed.W_E"].dtype == np.float16 and f["val_ids"].dtype == np.uint16
        assert f["vocab"].dtype.kind == "U"
    trace = model.forward(model.reference_ids)
    np.testing.assert_allclose(trace.logits, model.reference_logits, atol=1e-4, rtol=0)
    # The float16 weights' validation loss, as the training script measured it.
    assert validation_loss(model) == pytest.approx(summary["val_loss_float16_weights"], abs=1e-4)


def test_same_seed_same_losses(corpus, tmp_path):
    train_model.main(_args(corpus, tmp_path / "a", "--steps", "2"))
    train_model.main(_args(corpus, tmp_path / "b", "--steps", "2"))
    a = (tmp_path / "a" / "loss.jsonl").read_text().splitlines()
    b = (tmp_path / "b" / "loss.jsonl").read_text().splitlines()
    assert [json.loads(x)["loss"] for x in a] == [json.loads(x)["loss"] for x in b]


def test_variants_have_the_seeds_parameter_counts():
    counts = {v: train_model.count_params(train_model.build(v, 2048, layers, 256, 688, 128))
              for v, layers in (("baseline", 4), ("no_ffn", 4), ("attn_only", 12))}
    assert counts == {"baseline": 3_688_704, "no_ffn": 1_574_144, "attn_only": 3_673_344}
