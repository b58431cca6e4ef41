"""The lesson file: shipped lessons load and reproduce the seed's numbers live; broken ones are refused."""
import copy
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.block import forward
from core.functions import norm_parts
from core.formats.lesson import (UNAVAILABLE, Lesson, LessonError, Text, list_lessons, load_lesson, panel_names,
                         parse_placeholders, render_caption)
from tests.conftest import ROOT, SCENARIOS

LESSONS = ROOT / "resources" / "lessons"
SHIPPED = sorted(LESSONS.glob("*.json"))
R45 = LESSONS / "r45-ffn-residual-norm.json"

HIDDEN = "1.170705, 0.649589, 0.000000, 0.000000, 0.521116, 0.000000"
FFN_OUT = "0.585353, 0.324795, 0.130279, 0.000000"
RESID_SUM = "1.756058, 0.974384, −0.255140, −1.434875"
Z = "1.233154, 0.588798, −0.424732, −1.397220"


@pytest.fixture(scope="module")
def r45() -> Lesson:
    return load_lesson(R45)


def rendered(lesson: Lesson, step_id: str, language: str, part: str = "caption") -> str:
    k = lesson.step_index(step_id)
    return lesson.steps[k].render(part, language, lesson.step_scenario(k).run())


# --- every shipped lesson ----------------------------------------------------------------

def test_there_are_shipped_lessons():
    assert R45 in SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_lesson_loads_and_every_step_runs(path):
    lesson = load_lesson(path)
    assert lesson.steps and lesson.title.zh and lesson.title.en
    for k, step in enumerate(lesson.steps):
        scenario = lesson.step_scenario(k)
        trace = scenario.run()
        assert all(np.isfinite(trace[h]).all() for h in trace if h != "attn.hook_attn_scores")
        for part in ("caption", "question", "answer"):
            for language in ("zh", "en"):
                text = step.render(part, language, trace)
                if text is not None:
                    assert UNAVAILABLE not in text, (step.id, part, language)
                    assert "{" not in text and "}" not in text
        if step.select is not None:
            assert step.select.hook in trace
        for hook in step.highlight.hooks:
            assert hook in trace
        assert set(step.panels) <= set(panel_names())


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_captions_fit_a_projector(path):
    """≤ 60 Chinese characters and ≤ 45 English words per caption, placeholders not counted."""
    lesson = load_lesson(path)
    for step in lesson.steps:
        zh = re.sub(r"\{[^{}]*\}", "", step.caption.zh)
        en = re.sub(r"\{[^{}]*\}", "#", step.caption.en)
        assert len(re.findall(r"[\u4e00-\u9fff]", zh)) <= 60, step.id
        assert len(en.split()) <= 45, step.id


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_a_step_that_names_a_token_shows_that_token_in_the_diagram(path):
    """A caption that talks about one token (「小王」的输出) over the dataflow diagram selects that
    token, so the diagram's numbers are the ones the caption gives (generations steps 2, 5, 7 and
    13 showed the first token's while the caption spoke of the last)."""
    lesson = load_lesson(path)
    disagree = []
    for step in lesson.steps:
        tokens = lesson.scenarios[step.scenario].tokens
        named = {t for t in re.findall(r"「([^」]+)」", step.caption.zh) if t in tokens}
        if named and "dataflow" in step.panels:
            shown = tokens[step.select.token] if step.select is not None else tokens[0]
            if shown not in named:
                disagree.append(f"{step.id}: caption names {sorted(named)}, diagram shows {shown}")
    assert disagree == []



HAN_RUN = re.compile(r"[\u4e00-\u9fff]+(?: [\u4e00-\u9fff]+)*")


def bare_chinese(text: str) -> list[str]:
    """The Chinese words or sentences an English text quotes without a gloss right after them
    (好吃 “tasty”, 小王 (Xiao Wang), 《三國志演義》 “Romance of the Three Kingdoms”); a run glossed
    once may come back bare in the same text, and a lone character (不, 裴 in 送裴圖南) is discussed
    as a character and may stand alone."""
    glossed: set[str] = set()
    bare = []
    for match in HAN_RUN.finditer(text):
        words = match.group(0).split()
        if re.match(r"[ ,》”]*[“(]", text[match.end():]):
            glossed.update(words)
        elif len(match.group(0)) > 1 and not set(words) <= glossed:
            bare.append(match.group(0))
    return bare


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_english_texts_gloss_the_chinese_they_quote(path):
    """In English, a Chinese word or sentence of the course's samples carries its gloss the first
    time a text shows it: 好吃 “tasty”, 送裴圖南 “Farewell to Pei Tunan” (model lesson step 1 had
    none). A lone character is discussed as a character (不, 裴 in 送裴圖南) and may stand alone.
    (The labs' own texts: tests/app/test_i18n.py.)"""
    lesson = load_lesson(path)
    bare = []
    for step in lesson.steps:
        texts = [step.caption.en] + [t.en for t in (step.question, step.answer) if t is not None]
        for text in texts:
            bare += [f"{step.id}: {run}" for run in bare_chinese(text)]
    assert bare == []


def test_the_gloss_rule_itself():
    assert bare_chinese("the output for “小王”.") == ["小王"]
    assert bare_chinese("the output for “小王 (Xiao Wang)”.") == []
    assert bare_chinese("a novel (《三國志演義》)") == ["三國志演義"]
    assert bare_chinese("a novel (《三國志演義》 “Romance of the Three Kingdoms”)") == []
    assert bare_chinese("in 小明 把 苹果, “Xiaoming …”, the weights for 小明") == []
    assert bare_chinese("the 不 of 不难吃 “not awful”") == []

def test_list_lessons_finds_the_shipped_ones():
    found = list_lessons(LESSONS)
    assert any(i == "r45-ffn-residual-norm" and p.resolve() == R45.resolve() and t == load_lesson(R45).title
               for i, t, p in found)
    assert [i for i, _, _ in found] == sorted(i for i, _, _ in found)
    assert all(isinstance(t, Text) for _, t, _ in found)


# --- the R45 lesson: the seed's numbers, live --------------------------------------------

def test_r45_steps_in_teaching_order(r45):
    assert [s.id for s in r45.steps] == ["b4", "b0", "b1", "b2", "relu-residual", "b5", "b3", "softmax",
                                         "wo-zero"]
    assert r45.step("b4").scenario == "block" and r45.step("b0").scenario == "ffn"


@pytest.mark.parametrize("language", ["zh", "en"])
def test_r45_numbers_appear_at_their_steps(r45, language):
    assert HIDDEN in rendered(r45, "b0", language)
    assert "(1.171, 0.650, −0.385, −1.435)" in rendered(r45, "b0", language)      # u, as the seed rounds it
    assert FFN_OUT in rendered(r45, "b1", language)
    assert RESID_SUM in rendered(r45, "b2", language)
    assert Z in rendered(r45, "b2", language)
    relu = rendered(r45, "relu-residual", language)
    for number in ("−0.385419", "−1.434875", "−0.424732", "−1.397220"):   # the Unicode minus
        assert number in relu
    assert "0.130279" in rendered(r45, "relu-residual", language, "answer")


def test_r45_numbers_are_placeholders_not_typed(r45):
    raw = json.loads(R45.read_text(encoding="utf-8"))
    typed = json.dumps([s.get(part) for s in raw["steps"] for part in ("caption", "question", "answer")],
                       ensure_ascii=False)
    for number in ["1.170705", "0.649589", "0.521116", "0.585353", "0.324795", "0.130279", "1.756058",
                   "0.974384", "0.255140", "1.434875", "1.233154", "0.588798", "0.424732", "1.397220",
                   "1.171", "0.650", "0.385", "1.435"]:
        assert number not in typed


def test_captions_follow_the_learners_edits(r45):
    k = r45.step_index("b0")
    scenario = r45.step_scenario(k)
    weights = dict(scenario.weights)
    w_in = np.array(weights["W_in"])
    w_in[0, 0] = 2.0
    weights["W_in"] = w_in
    edited = forward(scenario.config, weights, scenario.inputs)
    before = r45.caption(k, "en")
    after = r45.caption(k, "en", edited)
    assert HIDDEN in before and HIDDEN not in after
    assert "(2.341410, 0.649589, 0.000000, 0.000000, 0.521116, 0.000000)" in after
    # a hook the edit removed shows a dash rather than failing
    off = scenario.config.with_changes(residual=False, norm="none")
    weights_off = {n: a for n, a in scenario.weights.items() if not n.startswith("ln2.")}
    assert UNAVAILABLE in render_caption("{ln2.hook_in[0]}", forward(off, weights_off, scenario.inputs))


def test_r45_wo_zero_step_carries_layernorm_of_the_input(r45):
    scenario = r45.step_scenario("wo-zero")
    assert np.array_equal(scenario.weights["W_O"], np.zeros((2, 2, 4)))
    trace = scenario.run()
    assert np.array_equal(trace["hook_attn_out"], np.zeros((5, 4)))     # only b_O = 0 is left
    _, normalized = norm_parts("layernorm", trace["hook_resid_pre"], scenario.config.eps)
    np.testing.assert_allclose(normalized, trace["hook_resid_mid"], rtol=0, atol=1e-12)
    # the base scenario is untouched: the other block steps still have the real W_O
    assert not np.array_equal(r45.step_scenario("b3").weights["W_O"], np.zeros((2, 2, 4)))


def test_r45_relu_answer_is_true(r45):
    """Without the residual, z no longer depends on a negative u₃; with it, it does."""
    scenario = r45.step_scenario("relu-residual")
    nudged = np.array(scenario.inputs)
    nudged[0, 2] -= 0.3
    with_residual = [forward(scenario.config, scenario.weights, x).output for x in (scenario.inputs, nudged)]
    assert not np.allclose(*with_residual)
    off = scenario.config.with_changes(residual=False)
    without = [forward(off, scenario.weights, x).output for x in (scenario.inputs, nudged)]
    np.testing.assert_array_equal(*without)


def test_r45_softmax_answer_is_true(r45):
    """Doubling one input row does not double its attention weights; rows always sum to 1."""
    scenario = r45.step_scenario("softmax")
    doubled = np.array(scenario.inputs)
    doubled[0] *= 2
    before = scenario.run()["attn.hook_pattern"]
    after = forward(scenario.config, scenario.weights, doubled)["attn.hook_pattern"]
    assert not np.allclose(after[:, 0], 2 * before[:, 0])
    np.testing.assert_allclose(after.sum(axis=-1), 1.0)


def test_step_states_are_independent(r45):
    first = r45.step_scenario(3)
    r45.step_scenario(8)          # the W_O lab
    r45.step_scenario(7)
    again = r45.step_scenario(3)
    assert first.config == again.config
    for name in first.weights:
        np.testing.assert_array_equal(first.weights[name], again.weights[name])
    np.testing.assert_array_equal(first.inputs, again.inputs)
    # a caller editing a step's arrays does not change the lesson
    first.weights["W_in"][...] = 7.0
    first.inputs[...] = 7.0
    np.testing.assert_array_equal(r45.step_scenario(3).weights["W_in"], again.weights["W_in"])
    np.testing.assert_array_equal(r45.step_scenario(3).inputs, again.inputs)
    # every pair, in both orders
    runs = {k: r45.step_scenario(k).run() for k in range(len(r45))}
    for k in reversed(range(len(r45))):
        trace = r45.step_scenario(k).run()
        for hook in trace:
            np.testing.assert_array_equal(trace[hook], runs[k][hook])


def test_step_lookup(r45):
    assert r45.step_index("b2") == 3 and r45.step(3).id == "b2"
    with pytest.raises(KeyError):
        r45.step_index("nope")
    with pytest.raises(IndexError):
        r45.step_scenario(len(r45))


# --- placeholders --------------------------------------------------------------------------

def test_render_caption_formats(r45):
    trace = r45.step_scenario("b0").run()
    assert render_caption("{hook_mlp_out[0,3]}", trace) == "0.000000"
    assert render_caption("{hook_resid_post[0,1]}", trace) == "0.588798"
    assert render_caption("{hook_mlp_out[0]:3}", trace) == "(0.585, 0.325, 0.130, 0.000)"
    assert render_caption("{hook_mlp_out[0,0]:0}", trace) == "1"
    assert render_caption("{{literal}} {hook_resid_pre[0,0]:2}", trace) == "{literal} 1.17"
    assert render_caption("{ln2.hook_scale[0]}", trace).startswith("(") and render_caption("{ln2.hook_scale[0]}", trace).endswith(")")
    assert render_caption("{mlp.hook_post[ 0 , 4 ]}", trace) == "0.521116"
    assert render_caption("{hook_resid_pre[5]}", trace) == UNAVAILABLE
    assert render_caption("{attn.hook_pattern[0,0]}", trace) == UNAVAILABLE
    block = r45.step_scenario("b3").run()
    assert render_caption("{attn.hook_pattern[0]}", block).startswith("((")


def test_negative_zero_is_written_as_zero():
    from core.block import Trace
    trace = Trace({"hook_resid_post": np.array([[-0.0, -1e-9, 1e-9]])})
    assert render_caption("{hook_resid_post[0]}", trace) == "(0.000000, 0.000000, 0.000000)"


@pytest.mark.parametrize("text", ["{hook_resid_post}", "{hook_resid_post[0}", "{hook_resid_post[-1]}",
                                  "{hook_resid_post[a]}", "{hook_resid_post[0]:99}", "a } b", "{ x }",
                                  "{hook_resid_post[0,]}"])
def test_malformed_placeholders_are_refused(text):
    with pytest.raises(LessonError):
        parse_placeholders(text)


def test_parse_placeholders():
    found = parse_placeholders("a {mlp.hook_post[0]} b {hook_resid_post[0,1]:3} {{c}}")
    assert [(p.hook, p.index, p.precision) for p in found] == [("mlp.hook_post", (0,), 6),
                                                              ("hook_resid_post", (0, 1), 3)]


# --- broken lessons ------------------------------------------------------------------------

@pytest.fixture
def sandbox(tmp_path):
    """tmp/resources/{lessons,scenarios}: a copy of the shipped layout to break things in."""
    resources = tmp_path / "resources"
    (resources / "lessons").mkdir(parents=True)
    shutil.copytree(SCENARIOS, resources / "scenarios")
    return resources


def write(sandbox: Path, document, name: str = "broken.json") -> Path:
    path = sandbox / "lessons" / name
    if isinstance(document, bytes):
        path.write_bytes(document)
    elif isinstance(document, str):
        path.write_text(document, encoding="utf-8")
    else:
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def base_document() -> dict:
    return json.loads(R45.read_text(encoding="utf-8"))


def refused(sandbox: Path, document) -> str:
    with pytest.raises(LessonError) as caught:
        load_lesson(write(sandbox, document))
    message = str(caught.value)
    assert message.startswith("broken.json: ")
    assert "\n" not in message
    return message


def test_a_copy_of_the_shipped_lesson_loads_in_the_sandbox(sandbox):
    lesson = load_lesson(write(sandbox, base_document()))
    assert len(lesson) == len(load_lesson(R45))


def broken(change):
    document = base_document()
    change(document)
    return document


def step(document, k):
    return document["steps"][k]


CASES = {
    "unknown step field": (lambda d: step(d, 2).update(colour="red"),
                           'steps[2] (id "b1").colour: unexpected field'),
    "unknown top field": (lambda d: d.update(author="me"), "author: unexpected field"),
    "missing caption language": (lambda d: step(d, 1)["caption"].pop("en"),
                                 'steps[1] (id "b0").caption.en: missing'),
    "extra caption language": (lambda d: step(d, 1)["caption"].update(fr="bonjour"),
                               'steps[1] (id "b0").caption.fr: unexpected field'),
    "empty caption": (lambda d: step(d, 1)["caption"].update(zh="  "),
                      'steps[1] (id "b0").caption.zh: expected a non-empty string'),
    "bad placeholder hook": (lambda d: step(d, 1)["caption"].update(en="h = {mlp.hook_foo[0]}"),
                             'steps[1] (id "b0").caption.en: {mlp.hook_foo[0]}: "mlp.hook_foo" is not a hook of this step\'s trace'),
    "attention hook on the FFN scenario": (lambda d: step(d, 1)["caption"].update(zh="{attn.hook_pattern[0,0]}"),
                                           'steps[1] (id "b0").caption.zh: {attn.hook_pattern[0,0]}: "attn.hook_pattern" is not a hook'),
    "bad placeholder index": (lambda d: step(d, 3)["caption"].update(en="{hook_resid_post[0,9]}"),
                              'steps[3] (id "b2").caption.en: {hook_resid_post[0,9]}: index 9 is out of range for axis 1'),
    "bad placeholder row": (lambda d: step(d, 3)["caption"].update(en="{hook_resid_post[1]}"),
                            'steps[3] (id "b2").caption.en: {hook_resid_post[1]}: index 1 is out of range for axis 0'),
    "too many indices": (lambda d: step(d, 3)["caption"].update(en="{hook_resid_post[0,1,2]}"),
                         'steps[3] (id "b2").caption.en: {hook_resid_post[0,1,2]}: hook_resid_post is 1×4'),
    "malformed placeholder": (lambda d: step(d, 3)["caption"].update(en="z = {hook_resid_post}"),
                              'steps[3] (id "b2").caption.en: "{hook_resid_post}" is not a placeholder'),
    "bad placeholder in answer": (lambda d: step(d, 4)["answer"].update(zh="{hook_foo[0]}"),
                                  'steps[4] (id "relu-residual").answer.zh: {hook_foo[0]}: "hook_foo" is not a hook'),
    "bad highlight hook": (lambda d: step(d, 2)["highlight"].update(hooks=["mlp.hook_foo"]),
                           'steps[2] (id "b1").highlight.hooks[0]: "mlp.hook_foo" is not a hook of this step\'s trace'),
    "bad highlight cell": (lambda d: step(d, 1)["highlight"]["cells"].append({"hook": "mlp.hook_post", "index": [0, 6]}),
                           'steps[1] (id "b0").highlight.cells[3].index: index 6 is out of range for axis 1 of mlp.hook_post'),
    "short highlight cell": (lambda d: step(d, 1)["highlight"]["cells"].append({"hook": "mlp.hook_post", "index": [0]}),
                             'steps[1] (id "b0").highlight.cells[3].index: mlp.hook_post is 1×6, so expected 2 indices'),
    "bad highlight weight": (lambda d: step(d, 1)["highlight"].update(weights=["W_Q"]),
                             'steps[1] (id "b0").highlight.weights[0]: "W_Q" is not a weight of this step\'s block'),
    "bad select hook": (lambda d: step(d, 1)["select"].update(hook="hook_foo"),
                        'steps[1] (id "b0").select.hook: "hook_foo" is not a hook'),
    "select token out of range": (lambda d: step(d, 1)["select"].update(token=1),
                                  'steps[1] (id "b0").select.token: mlp.hook_post is 1×6, so expected 0 to 0, got 1'),
    "select head on a hook without heads": (lambda d: step(d, 1)["select"].update(head=0),
                                            'steps[1] (id "b0").select.head: mlp.hook_post has no head axis'),
    "select head out of range": (lambda d: step(d, 6)["select"].update(head=2),
                                 'steps[6] (id "b3").select.head: attn.hook_pattern is 2×5×5, so expected 0 to 1, got 2'),
    "negative token": (lambda d: step(d, 1)["select"].update(token=-1),
                       'steps[1] (id "b0").select.token: expected a whole number from 0, got -1'),
    "bad panel name": (lambda d: step(d, 0).update(panels=["dataflow", "plots.loss"]),
                       'steps[0] (id "b4").panels[1]: expected one of dataflow,'),
    "unknown lab": (lambda d: step(d, 0).update(panels=["lab.gates.naive"]),
                    'steps[0] (id "b4").panels[0]: "lab.gates.naive": there is no lab "gates"; the labs are xor, ffn-page'),
    "unknown lab part": (lambda d: step(d, 0).update(panels=["lab.xor.gates"]),
                         'steps[0] (id "b4").panels[0]: "lab.xor.gates": the lab "xor" has no part "gates"; '
                         'its parts are naive, failure, ffn, bias, compute, neurons'),
    "lab without a part": (lambda d: step(d, 0).update(panels=["lab.xor"]),
                           'steps[0] (id "b4").panels[0]: "lab.xor": the lab "xor" has no part ""'),
    "repeated panel": (lambda d: step(d, 0).update(panels=["dataflow", "dataflow"]),
                       'steps[0] (id "b4").panels[1]: "dataflow" is listed twice'),
    "attention plot without attention": (lambda d: step(d, 1).update(panels=["plots.attention"]),
                                         'steps[1] (id "b0").panels[0]: "plots.attention" needs attention'),
    "mse plot without targets": (lambda d: step(d, 1).update(panels=["plots.mse"]),
                                 'steps[1] (id "b0").panels[0]: "plots.mse" needs targets'),
    "path escaping the folder": (lambda d: d["scenarios"].update(ffn="../../scenarios/r45-ffn.json"),
                                 'scenarios.ffn: "../../scenarios/r45-ffn.json" climbs out'),
    "path escaping midway": (lambda d: d["scenarios"].update(ffn="../scenarios/../../r45-ffn.json"),
                             'scenarios.ffn: "../scenarios/../../r45-ffn.json" climbs out'),
    "dot path": (lambda d: d["scenarios"].update(ffn="./r45-ffn.json"), 'scenarios.ffn: "./r45-ffn.json" has the part "."'),
    "backslash path": (lambda d: d["scenarios"].update(ffn="..\\scenarios\\r45-ffn.json"), "scenarios.ffn:"),
    "absolute path": (lambda d: d["scenarios"].update(ffn=str((SCENARIOS / "r45-ffn.json").resolve())),
                      "is absolute; expected a path relative to the lesson file"),
    "drive path": (lambda d: d["scenarios"].update(ffn="C:/scenarios/r45-ffn.json"), "is absolute"),
    "home path": (lambda d: d["scenarios"].update(ffn="~/r45-ffn.json"), "is absolute"),
    "not json path": (lambda d: d["scenarios"].update(ffn="../scenarios/r45-ffn.txt"), "is not a .json file"),
    "missing scenario file": (lambda d: d["scenarios"].update(ffn="../scenarios/nope.json"),
                              'scenarios.ffn: "../scenarios/nope.json" does not exist'),
    "unknown scenario key": (lambda d: step(d, 1).update(scenario="mlp"),
                             'steps[1] (id "b0").scenario: expected one of ffn, block'),
    "missing scenario": (lambda d: step(d, 1).pop("scenario"), 'steps[1] (id "b0").scenario: missing'),
    "bad config change": (lambda d: step(d, 1).update(config={"d_out": 3}),
                          'steps[1] (id "b0").config.d_out: expected 4 (= d_model) while residual is true, got 3'),
    "bad config option": (lambda d: step(d, 1).update(config={"norm": "batchnorm"}),
                          'steps[1] (id "b0").config.norm: expected one of layernorm, rmsnorm, none'),
    "unknown config field": (lambda d: step(d, 1).update(config={"dropout": 0.1}),
                             'steps[1] (id "b0").config.dropout: unexpected field'),
    "attention on without heads": (lambda d: step(d, 1).update(config={"attention": True}),
                                   'steps[1] (id "b0").config.n_heads: missing; switching attention on needs n_heads and d_head'),
    "new width without inputs": (lambda d: step(d, 1).update(config={"d_model": 5, "d_ff": 6}),
                                 'steps[1] (id "b0").inputs: missing; config.d_model changes to 5'),
    "wrong inputs shape": (lambda d: step(d, 1).update(inputs=[[1.0, 2.0]]),
                           'steps[1] (id "b0").inputs: expected 1×4, got 1×2'),
    "string in inputs": (lambda d: step(d, 1).update(inputs=[[1.0, 2.0, "x", 0.0]]),
                         'steps[1] (id "b0").inputs[0, 2]: expected a number'),
    "huge number in inputs": (lambda d: step(d, 1).update(inputs=[[1.0, 2.0, 1e9, 0.0]]),
                              'steps[1] (id "b0").inputs[0, 2]: expected a finite number within'),
    "bad weight fill": (lambda d: step(d, 8)["weights"].update(W_O={"fill": "ones"}),
                        'steps[8] (id "wo-zero").weights.W_O.fill: expected one of zero, identity, got "ones"'),
    "weight of another block": (lambda d: step(d, 1).update(weights={"W_O": {"fill": "zero"}}),
                                'steps[1] (id "b0").weights.W_O: not a weight of this step\'s block'),
    "wrong weight shape": (lambda d: step(d, 1).update(weights={"W_in": [[1.0]]}),
                           'steps[1] (id "b0").weights.W_in: expected 4×6, got 1×1'),
    "weight neither array nor fill": (lambda d: step(d, 1).update(weights={"W_in": 0}),
                                      'steps[1] (id "b0").weights.W_in: expected a 4×6 array'),
    "question without answer": (lambda d: step(d, 4).pop("answer"),
                                'steps[4] (id "relu-residual").answer: missing; a step with a question needs both'),
    "answer without question": (lambda d: step(d, 4).pop("question"),
                                'steps[4] (id "relu-residual").question: missing'),
    "duplicate step id": (lambda d: step(d, 2).update(id="b0"), 'steps[2].id: "b0" is already the id'),
    "bad step id": (lambda d: step(d, 2).update(id="b 1"), "steps[2].id: expected 1 to 32 letters"),
    "missing step id": (lambda d: step(d, 2).pop("id"), "steps[2].id: missing"),
    "missing title": (lambda d: step(d, 2).pop("title"), 'steps[2] (id "b1").title: missing'),
    "bad lesson id": (lambda d: d.update(id="R45 lesson"), "id: expected 1 to 64 lowercase letters"),
    "no steps": (lambda d: d.update(steps=[]), "steps: expected 1 to 200 entries, got 0"),
    "too many steps": (lambda d: d.update(steps=[dict(d["steps"][0], id=f"s{i}") for i in range(201)]),
                       "steps: expected 1 to 200 entries, got 201"),
    "caption too long": (lambda d: step(d, 0)["caption"].update(en="x" * 1001),
                         'steps[0] (id "b4").caption.en: expected at most 1000 characters'),
    "wrong format": (lambda d: d.update(format="blocklab-scenario"), 'format: expected "blocklab-lesson"'),
    "wrong version": (lambda d: d.update(version=2), "version: expected 1, got 2"),
    "no scenarios": (lambda d: d.update(scenarios={}), "scenarios: expected 1 to 16"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_broken_lessons_are_refused_naming_the_step_and_field(sandbox, name):
    change, expected = CASES[name]
    message = refused(sandbox, broken(change))
    assert expected in message, message


def test_the_brief_example_message(sandbox):
    message = refused(sandbox, broken(lambda d: step(d, 2)["highlight"].update(hooks=["mlp.hook_foo"])))
    assert message == 'broken.json: steps[2] (id "b1").highlight.hooks[0]: "mlp.hook_foo" is not a hook of this step\'s trace'


def test_nan_is_refused_naming_the_step_and_field(sandbox):
    text = json.dumps(broken(lambda d: step(d, 1).update(inputs=[[1.0, 2.0, 0.5, 0.25]])), ensure_ascii=False)
    text = text.replace("0.25]]", "NaN]]", 1)
    message = refused(sandbox, text)
    assert 'steps[1] (id "b0").inputs[0, 3]: expected a finite number' in message
    text = json.dumps(base_document(), ensure_ascii=False).replace('"fill": "zero"', '"fill": Infinity', 1)
    assert 'steps[8] (id "wo-zero").weights.W_O.fill' in refused(sandbox, text)
    text = json.dumps(broken(lambda d: step(d, 1).update(config={"eps": 0.5})), ensure_ascii=False)
    assert 'steps[1] (id "b0").config.eps' in refused(sandbox, text.replace('"eps": 0.5', '"eps": NaN'))


def test_non_json_and_non_utf8_are_refused(sandbox):
    assert "expected JSON, got a syntax error at line 1" in refused(sandbox, "{not json")
    assert "expected UTF-8 text" in refused(sandbox, b'{"format": "blocklab-lesson", "id": "\xff"}')
    assert "expected a JSON object, got an array" in refused(sandbox, "[]")
    assert "expected JSON of sane depth" in refused(sandbox, "[" * 100_000 + "]" * 100_000)


def test_repeated_fields_are_refused(sandbox):
    text = json.dumps(base_document(), ensure_ascii=False)
    text = text.replace('"scenario": "ffn"', '"scenario": "ffn", "scenario": "block"', 1)
    assert 'steps[1] (id "b0").scenario: appears twice' in refused(sandbox, text)


def test_path_through_a_symlink_out_of_the_folder_is_refused(sandbox, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(SCENARIOS / "r45-ffn.json", outside / "r45-ffn.json")
    try:
        os.symlink(outside, sandbox / "scenarios" / "linked", target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    message = refused(sandbox, broken(lambda d: d["scenarios"].update(ffn="../scenarios/linked/r45-ffn.json")))
    assert "scenarios.ffn" in message and "outside" in message


def test_scenarios_beside_and_below_the_lesson_are_allowed(sandbox):
    (sandbox / "lessons" / "own").mkdir()
    shutil.copy(SCENARIOS / "r45-ffn.json", sandbox / "lessons" / "own" / "r45-ffn.json")
    shutil.copy(SCENARIOS / "block-default.json", sandbox / "lessons" / "block.json")
    document = base_document()
    document["scenarios"] = {"ffn": "own/r45-ffn.json", "block": "block.json"}
    lesson = load_lesson(write(sandbox, document))
    assert HIDDEN in lesson.caption("b0", "en")


def test_a_broken_scenario_file_is_refused_naming_it(sandbox):
    path = sandbox / "scenarios" / "r45-ffn.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["weights"]["W_in"] = [[1.0]]
    path.write_text(json.dumps(data), encoding="utf-8")
    message = refused(sandbox, base_document())
    assert "scenarios.ffn: r45-ffn.json: weights.W_in: expected 4×6, got 1×1" in message


def test_oversized_file_is_refused(sandbox, monkeypatch):
    import core.formats.lesson as lesson_module
    monkeypatch.setattr(lesson_module, "MAX_FILE_BYTES", 1000)
    assert "expected at most" in refused(sandbox, base_document())


def test_config_changes_build_new_weights_deterministically(sandbox):
    document = base_document()
    document["steps"].append({
        "id": "gelu-wide", "title": {"zh": "更宽", "en": "Wider"}, "caption": {"zh": "{mlp.hook_post[0,7]}", "en": "x"},
        "scenario": "ffn", "config": {"d_ff": 8, "activation": "gelu"},
        "inputs": [[1.0, 0.0, -1.0, 0.5]]})
    lesson = load_lesson(write(sandbox, document))
    a, b = lesson.step_scenario("gelu-wide"), lesson.step_scenario("gelu-wide")
    assert a.config.d_ff == 8 and a.config.activation == "gelu"
    assert a.weights["W_in"].shape == (4, 8)
    np.testing.assert_array_equal(a.weights["W_in"], b.weights["W_in"])
    np.testing.assert_array_equal(a.inputs, [[1.0, 0.0, -1.0, 0.5]])
    assert re.fullmatch(r"−?\d+\.\d{6}", lesson.caption("gelu-wide", "zh"))


def test_list_lessons_skips_non_lessons_but_keeps_broken_ones(sandbox):
    write(sandbox, base_document(), "good.json")
    write(sandbox, broken(lambda d: step(d, 2).update(colour="red")) | {"id": "another"}, "broken.json")
    write(sandbox, "{not json", "junk.json")
    shutil.copy(SCENARIOS / "r45-ffn.json", sandbox / "lessons" / "scenario.json")
    found = list_lessons(sandbox / "lessons")
    assert [(i, p.name) for i, _, p in found] == [("another", "broken.json"), ("r45-ffn-residual-norm", "good.json")]
    assert found[1][1].zh.startswith("R45")
    assert list_lessons(sandbox / "nowhere") == []


def test_lesson_is_immutable(r45):
    with pytest.raises(Exception):
        r45.steps[0].id = "x"          # frozen
    with pytest.raises(TypeError):
        r45.scenarios["ffn"] = None    # read-only mapping
    with pytest.raises(ValueError):
        r45.scenarios["ffn"].inputs[0, 0] = 1.0
    assert copy.copy(r45.step("b0").caption).en == r45.step("b0").caption.en


def test_the_documented_example_loads(sandbox):
    text = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    example = re.search(r"```json\n(.*?)```", text, re.S).group(1)
    lesson = load_lesson(write(sandbox, example, "my-first-lesson.json"))
    assert lesson.id == "my-first-lesson" and [s.id for s in lesson.steps] == ["hidden", "no-residual"]
    assert HIDDEN in lesson.caption("hidden", "zh")
    assert not lesson.step_scenario("no-residual").config.residual
    assert UNAVAILABLE not in lesson.caption("no-residual", "en")
