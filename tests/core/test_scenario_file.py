"""The scenario file, version 1: every shipped file round-trips; every kind of bad file is
refused with one line that names the field; saving is atomic."""
from __future__ import annotations

import json
import os
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.config import BlockConfig, weight_shapes
from core.formats.scenario import (Scenario, ScenarioError, load_scenario, parse_scenario, save_scenario,
                           scenario_to_json, sidecar_name)
from tests.conftest import SCENARIOS

SCENARIO_FILES = sorted(SCENARIOS.glob("*.json"))
DEFAULT = SCENARIOS / "block-default.json"


def test_the_shipped_scenarios_are_there():
    names = {path.name for path in SCENARIO_FILES}
    assert {"block-default.json", "c4-xor.json", "r45-ffn.json"} <= names


# --- round trip --------------------------------------------------------------------------

def assert_same_scenario(a: Scenario, b: Scenario) -> None:
    assert a.config == b.config
    assert a.tokens == b.tokens
    assert a.title == b.title
    assert a.inputs.dtype == b.inputs.dtype == np.float64
    assert np.array_equal(a.inputs, b.inputs)
    assert list(a.weights) == list(b.weights)
    for name in a.weights:
        assert a.weights[name].shape == b.weights[name].shape, name
        assert np.array_equal(a.weights[name], b.weights[name]), name
    if a.targets is None:
        assert b.targets is None
    else:
        assert np.array_equal(a.targets, b.targets)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_shipped_scenario_round_trips(path, tmp_path):
    original = load_scenario(path)
    assert list(original.weights) == list(weight_shapes(original.config))
    copy_path = tmp_path / "copy.json"
    save_scenario(original, copy_path)
    again = load_scenario(copy_path)
    assert_same_scenario(original, again)
    arrays = sidecar_name(original, copy_path)      # a large scenario keeps its arrays in copy.npz
    text = scenario_to_json(original, arrays)
    assert copy_path.read_text(encoding="utf-8") == text
    assert scenario_to_json(again, arrays) == text
    # What is saved recomputes the same block, to the bit.
    first, second = original.run(), again.run()
    assert list(first) == list(second)
    for name in first:
        assert np.array_equal(first[name], second[name]), name


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: p.name)
def test_saved_json_is_valid_strict_utf8_json(path):
    scenario = load_scenario(path)
    text = scenario_to_json(scenario, sidecar_name(scenario, path))     # the form save_scenario writes
    document = json.loads(text, parse_constant=lambda name: pytest.fail(f"saved {name}"))
    assert document["format"] == "blocklab-scenario" and document["version"] == 1
    assert "\\u" not in text  # Chinese tokens and titles stay readable
    text.encode("utf-8")


@st.composite
def random_scenarios(draw) -> Scenario:
    attention = draw(st.booleans())
    residual = draw(st.booleans())
    d_model = draw(st.integers(1, 4))
    config = BlockConfig(
        d_model=d_model, d_ff=draw(st.integers(1, 4)),
        n_heads=draw(st.integers(1, 2)) if attention else 0,
        d_head=draw(st.integers(1, 3)) if attention else 0,
        d_out=None if residual else draw(st.one_of(st.none(), st.integers(1, 4))),
        attention=attention, mask=draw(st.sampled_from(["full", "causal"])), residual=residual,
        norm=draw(st.sampled_from(["layernorm", "rmsnorm", "none"])),
        norm_placement=draw(st.sampled_from(["post", "pre"])),
        eps=draw(st.sampled_from([0.0, 1e-5, 1e-6, 0.001])),
        activation=draw(st.sampled_from(["relu", "gelu", "gelu_tanh", "silu", "identity"])),
        gated=draw(st.booleans()))
    values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    T = draw(st.integers(1, 4))

    def array(shape):
        return np.array(draw(st.lists(values, min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                        dtype=np.float64).reshape(shape)

    tokens = tuple(draw(st.lists(st.text(min_size=1, max_size=8), min_size=T, max_size=T)))
    weights = {name: array(shape) for name, shape in weight_shapes(config).items()}
    targets = array((T, config.output_width)) if draw(st.booleans()) else None
    title = draw(st.dictionaries(st.sampled_from(["zh", "en"]), st.text(max_size=20)))
    return Scenario(config, tokens, array((T, d_model)), weights, targets, title)


@settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_scenarios())
def test_any_valid_scenario_round_trips_through_json(scenario):
    text = scenario_to_json(scenario)
    again = parse_scenario(text.encode("utf-8"))
    assert_same_scenario(scenario, again)
    assert scenario_to_json(again) == text


# --- refusals ----------------------------------------------------------------------------

PLACEHOLDER = 424242.5   # a number that appears nowhere else, replaced in the JSON text


def valid_document() -> dict:
    return json.loads(DEFAULT.read_text(encoding="utf-8"))


def with_text(mutate, literal: str):
    """A broken file whose text has `literal` where `mutate` put the placeholder number."""
    def build() -> bytes:
        document = valid_document()
        mutate(document)
        text = json.dumps(document, ensure_ascii=False)
        assert text.count(repr(PLACEHOLDER)) == 1
        return text.replace(repr(PLACEHOLDER), literal).encode("utf-8")
    return build


def edited(mutate):
    def build() -> bytes:
        document = valid_document()
        mutate(document)
        return json.dumps(document, ensure_ascii=False).encode("utf-8")
    return build


def raw(data: bytes):
    return lambda: data


def put(path: str, value):
    """Set document[a][b][...] = value, path written 'weights.W_in.0.0'."""
    def mutate(document):
        *parents, last = path.split(".")
        node = document
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


def delete(path: str):
    def mutate(document):
        *parents, last = path.split(".")
        node = document
        for key in parents:
            node = node[key]
        del node[last]
    return mutate


def both(*mutations):
    def mutate(document):
        for mutation in mutations:
            mutation(document)
    return mutate


def drop_last_column(document):
    document["weights"]["W_in"] = [row[:-1] for row in document["weights"]["W_in"]]


def ragged(document):
    document["weights"]["W_in"][2] = document["weights"]["W_in"][2][:-1]


def remove_first_token(document):
    document["tokens"] = document["tokens"][1:]


def make_ffn_only(document):
    """The valid doc turned into an attention-free one (drop attention weights and ln1)."""
    config = document["config"]
    config["attention"] = False
    for name in ("n_heads", "d_head", "mask"):
        config.pop(name)
    for name in ("W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O", "ln1.w", "ln1.b"):
        document["weights"].pop(name)


def absurd_total(document):
    # 4096·4096 (W_in) + 4096·4096 (W_gate) + 4096·4096 (W_out) > 50 M, each dimension allowed.
    make_ffn_only(document)
    document["config"].update(d_model=4096, d_ff=4096, gated=True)


def absurd_heads(document):
    document["config"].update(d_model=4096, n_heads=8, d_head=4096)


BAD_FILES = [
    # id, build the bytes, a fragment the one-line message must contain
    ("nan", with_text(put("weights.W_in.0.0", PLACEHOLDER), "NaN"), "weights.W_in"),
    ("infinity", with_text(put("weights.W_O.1.0.1", PLACEHOLDER), "Infinity"), "weights.W_O"),
    ("minus-infinity", with_text(put("inputs.2.3", PLACEHOLDER), "-Infinity"), "inputs"),
    ("nan-in-eps", with_text(put("config.eps", PLACEHOLDER), "NaN"), "config.eps"),
    ("1e999", with_text(put("weights.b_in.3", PLACEHOLDER), "1e999"), "weights.b_in"),
    ("huge-integer", with_text(put("weights.W_out.0.0", PLACEHOLDER), "1" + "0" * 400), "weights.W_out"),
    ("string-cell", edited(put("weights.W_Q.0.1.0", "0.5")), "weights.W_Q[0, 1, 0]"),
    ("bool-cell", edited(put("weights.b_O.2", True)), "weights.b_O[2]"),
    ("null-cell", edited(put("weights.W_V.0.0.0", None)), "weights.W_V[0, 0, 0]"),
    ("wrong-shape", edited(drop_last_column), "weights.W_in: expected 4×6, got 4×5"),
    ("ragged-rows", edited(ragged), "weights.W_in"),
    ("scalar-for-matrix", edited(put("weights.W_in", 1.0)), "weights.W_in"),
    ("missing-weight", edited(delete("weights.W_out")), "weights.W_out"),
    ("unexpected-weight", edited(put("weights.W_gate", [[0.0] * 6] * 4)), "weights.W_gate"),
    ("weights-not-object", edited(put("weights", [])), "weights"),
    ("unknown-top-field", edited(put("comment", "hi")), "comment"),
    ("missing-inputs", edited(delete("inputs")), "inputs"),
    ("missing-config", edited(delete("config")), "config"),
    ("unknown-config-option", edited(put("config.dropout", 0.1)), "config.dropout"),
    ("missing-config-option", edited(delete("config.eps")), "config.eps"),
    ("bad-activation", edited(put("config.activation", "tanh")), "config.activation"),
    ("bad-norm", edited(put("config.norm", "batchnorm")), "config.norm"),
    ("bad-mask", edited(put("config.mask", "sliding")), "config.mask"),
    ("bad-placement", edited(put("config.norm_placement", "middle")), "config.norm_placement"),
    ("heads-as-string", edited(put("config.n_heads", "2")), "config.n_heads"),
    ("d-ff-zero", edited(put("config.d_ff", 0)), "config.d_ff"),
    ("eps-negative", edited(put("config.eps", -1e-5)), "config.eps"),
    ("attention-not-bool", edited(put("config.attention", 1)), "config.attention"),
    ("residual-with-other-d-out", edited(put("config.d_out", 3)), "config.d_out"),
    ("attention-off-with-heads", edited(both(make_ffn_only, put("config.n_heads", 2))), "config.n_heads"),
    ("attention-off-with-d-head", edited(both(make_ffn_only, put("config.d_head", 2))), "config.d_head"),
    ("wrong-format", edited(put("format", "blocklab-lesson")), "format"),
    ("missing-format", edited(delete("format")), "format"),
    ("wrong-version", edited(put("version", 2)), "version"),
    ("version-true", edited(put("version", True)), "version"),
    ("version-string", edited(put("version", "1")), "version"),
    ("version-float", edited(put("version", 1.5)), "version"),
    ("non-utf8", raw(DEFAULT.read_bytes().replace("小明".encode(), b"\xff\xfe")), "UTF-8"),
    ("non-json", raw(b"format = blocklab-scenario\n"), "JSON"),
    ("truncated", raw(DEFAULT.read_text(encoding="utf-8")[:200].encode("utf-8")), "JSON"),
    ("empty-file", raw(b""), "JSON"),
    ("deeply-nested", raw(b"[" * 100000), "JSON"),
    ("deeply-nested-object", raw(b'{"a":' * 100000), "JSON"),
    ("top-level-array", raw(b"[]"), "JSON object"),
    ("top-level-number", raw(b"1"), "JSON object"),
    ("tokens-not-matching-inputs", edited(remove_first_token), "inputs: expected 4×4, got 5×4"),
    ("empty-tokens", edited(put("tokens", [])), "tokens"),
    ("token-not-string", edited(put("tokens.1", 7)), "tokens[1]"),
    ("token-empty-string", edited(put("tokens.2", "")), "tokens[2]"),
    ("d-model-5000", edited(put("config.d_model", 5000)), "config.d_model"),
    ("huge-d-model-integer", edited(put("config.d_model", 10 ** 40)), "config.d_model"),
    ("total-over-50M-ffn", edited(absurd_total), "50,000,000"),
    ("total-over-50M-heads", edited(absurd_heads), "50,000,000"),
    ("value-beyond-a-million", edited(put("weights.W_V.1.2.0", 1000000.5)), "weights.W_V[1, 2, 0]"),
    ("negative-beyond-a-million", edited(put("inputs.0.0", -2e6)), "inputs[0, 0]"),
    ("targets-wrong-shape", edited(put("targets", [[0.0] * 3] * 5)), "targets: expected 5×4, got 5×3"),
    ("targets-wrong-rows", edited(put("targets", [[0.0] * 4] * 2)), "targets"),
    ("title-unknown-language", edited(put("title.fr", "bloc")), "title.fr"),
    ("title-not-string", edited(put("title.en", 3)), "title.en"),
]


def refusal_and_peak_memory(data) -> tuple[ScenarioError, int]:
    """The refusal of `data`, and the most memory parsing it held at once, in bytes: a bound
    on memory says "refused before building what the file asks for" without a stopwatch."""
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as caught:
            parse_scenario(data)
        return caught.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("build, fragment", [case[1:] for case in BAD_FILES], ids=[case[0] for case in BAD_FILES])
def test_bad_file_is_refused_with_one_line_naming_the_field(build, fragment):
    error, peak = refusal_and_peak_memory(build())
    assert peak < 5_000_000                   # refused before building what the file asks for
    message = str(error)
    assert message.strip() == message and message
    assert "\n" not in message and "\r" not in message
    assert fragment in message, message
    assert "Traceback" not in message


def test_the_valid_document_the_refusals_start_from_is_valid():
    scenario = parse_scenario(json.dumps(valid_document()).encode("utf-8"))
    assert scenario.config.d_model == 4 and scenario.config.d_ff == 6 and len(scenario.tokens) == 5
    ffn_only = valid_document()
    make_ffn_only(ffn_only)
    assert parse_scenario(json.dumps(ffn_only)).config.attention is False


def test_non_finite_numbers_are_named_where_they_sit():
    message = str(_refusal(with_text(put("weights.W_in.1.2", PLACEHOLDER), "NaN")()))
    assert message.startswith("weights.W_in[1, 2]:"), message


def _refusal(data: bytes) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    return caught.value


@pytest.mark.parametrize("mutate", [absurd_total, absurd_heads], ids=["ffn", "heads"])
def test_absurd_sizes_are_refused_before_allocating(mutate):
    data = edited(mutate)()
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError, match="50,000,000"):
            parse_scenario(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000   # far below the 400 MB the arrays would take


def test_load_prefixes_the_file_name_and_stays_one_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_bytes(edited(drop_last_column)())
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert message == "broken.json: weights.W_in: expected 4×6, got 4×5"


def test_load_of_a_missing_file_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError) as caught:
        load_scenario(tmp_path / "nowhere.json")
    assert "nowhere.json" in str(caught.value) and "\n" not in str(caught.value)


def test_load_of_a_directory_is_a_scenario_error(tmp_path):
    with pytest.raises(ScenarioError):
        load_scenario(tmp_path)


def test_optional_fields_may_be_left_out():
    document = valid_document()
    del document["title"]
    del document["targets"]
    scenario = parse_scenario(json.dumps(document))
    assert scenario.title == {} and scenario.targets is None
    assert scenario.config.d_out is None and scenario.config.output_width == 4


def test_a_byte_order_mark_is_accepted():
    scenario = parse_scenario(b"\xef\xbb\xbf" + DEFAULT.read_bytes())
    assert scenario.tokens[0] == "小明"


# --- atomic save -------------------------------------------------------------------------

def test_save_is_atomic_when_the_final_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "lesson.json"
    target.write_bytes(DEFAULT.read_bytes())
    before = target.read_bytes()
    scenario = load_scenario(SCENARIOS / "c4-xor.json")

    def refuse(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        save_scenario(scenario, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.json"]   # no temporary left behind


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "lesson.json"
    target.write_bytes(DEFAULT.read_bytes())
    before = target.read_bytes()
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    real_fdopen = os.fdopen

    class Failing:
        def __init__(self, stream):
            self.stream = stream

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.stream.close()

        def write(self, text):
            self.stream.write(text[: len(text) // 2])
            raise OSError("no space left")

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: Failing(real_fdopen(*a, **k)))
    with pytest.raises(OSError, match="no space left"):
        save_scenario(scenario, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.json"]


def test_save_of_an_unsavable_scenario_leaves_the_old_file(tmp_path):
    target = tmp_path / "lesson.json"
    target.write_bytes(DEFAULT.read_bytes())
    good = load_scenario(SCENARIOS / "c4-xor.json")
    weights = dict(good.weights, W_in=np.array([[np.nan, 1.0], [1.0, 1.0]]))
    bad = Scenario(good.config, good.tokens, good.inputs, weights, good.targets, good.title)
    with pytest.raises(ValueError):
        save_scenario(bad, target)
    assert target.read_bytes() == DEFAULT.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lesson.json"]


def test_save_overwrites_an_existing_file(tmp_path):
    target = tmp_path / "lesson.json"
    target.write_bytes(DEFAULT.read_bytes())
    xor = load_scenario(SCENARIOS / "c4-xor.json")
    save_scenario(xor, target)
    assert_same_scenario(load_scenario(target), xor)


def test_a_small_file_asking_for_a_huge_trace_is_refused_before_allocating():
    """64 heads on 4096 tokens is a 66 KB file but 2 × 10⁹ attention scores (16 GB)."""
    document = {
        "format": "blocklab-scenario", "version": 1,
        "config": {"d_model": 1, "n_heads": 64, "d_head": 1, "d_ff": 1, "attention": True, "mask": "full",
                   "residual": True, "norm": "none", "norm_placement": "post", "eps": 1e-5,
                   "activation": "relu", "gated": False},
        "tokens": ["t"] * 4096, "inputs": [[0.0]] * 4096, "weights": {},
    }
    error, peak = refusal_and_peak_memory(json.dumps(document))
    assert str(error).startswith("config: expected at most 50,000,000 numbers in the block and its trace")
    assert peak < 5_000_000                   # far below the 16 GB the scores would take


def test_the_size_estimate_covers_every_shipped_trace():
    from core.config import numbers_needed
    for path in sorted(SCENARIOS.glob("*.json")):
        scenario = load_scenario(path)
        trace = scenario.run()
        actual = (sum(a.size for a in trace.values()) + scenario.inputs.size
                  + sum(w.size for w in scenario.weights.values())
                  + (0 if scenario.targets is None else scenario.targets.size))
        assert numbers_needed(scenario.config, len(scenario.tokens), scenario.targets is not None) >= actual


def test_a_key_written_twice_is_refused():
    text = (SCENARIOS / "c4-xor.json").read_text(encoding="utf-8").replace('"d_ff": 2,', '"d_ff": 999, "d_ff": 2,')
    with pytest.raises(ScenarioError, match='^"d_ff": written twice in one object'):
        parse_scenario(text)


def test_forward_leaves_the_callers_inputs_writable():
    from core.block import forward
    scenario = load_scenario(SCENARIOS / "r45-ffn.json")
    inputs = np.array(scenario.inputs)
    forward(scenario.config, scenario.weights, inputs)
    inputs[0, 0] = 2.0
