"""The lab registry: lessons are checked against it, the main window builds panels from it, and
a new lab is a core module, an app module and one registry line (the "hello" lab of
docs/lessons.md, in tests/example_lab)."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from PySide6.QtWidgets import QLabel

from core.formats.lesson import LessonError, load_lesson, panel_names
from core.labs import Lab, UnknownLab, get_lab, labs, register, unregister
from tests.conftest import ROOT, SCENARIOS

EXAMPLE = ROOT / "tests" / "example_lab"
HELLO = Lab("hello", core="tests.example_lab.hello", parts=("value",), title="Hello",
            panel="tests.example_lab.hello_panel.HelloLabPanel")


@pytest.fixture
def hello_lab():
    register(HELLO)
    yield HELLO
    unregister("hello")


def write_lesson(folder, panels) -> object:
    """A one-step lesson on the default block that shows `panels`."""
    (folder / "scenarios").mkdir()
    (folder / "lessons").mkdir()
    shutil.copy(SCENARIOS / "block-default.json", folder / "scenarios" / "block-default.json")
    lesson = {
        "format": "blocklab-lesson", "version": 1, "id": "hello", "title": {"zh": "你好", "en": "Hello"},
        "scenarios": {"block": "../scenarios/block-default.json"},
        "steps": [{"id": "value", "title": {"zh": "值", "en": "The value"},
                   "caption": {"zh": "选中的值。", "en": "The selected value."}, "scenario": "block",
                   "select": {"hook": "mlp.hook_post", "token": 1, "column": 2}, "panels": panels}],
    }
    path = folder / "lessons" / "hello.json"
    path.write_text(json.dumps(lesson, ensure_ascii=False), encoding="utf-8")
    return path


# --- the registry, without Qt -------------------------------------------------------------------
def test_the_shipped_labs_and_their_parts():
    assert [lab.id for lab in labs()][:2] == ["xor", "ffn-page"]
    assert get_lab("xor").parts == ("naive", "failure", "ffn", "bias", "compute", "neurons")
    assert "lab.ffn-page.summary" in panel_names() and "lab.xor.naive" in panel_names()
    with pytest.raises(UnknownLab, match='there is no lab "gates"; the labs are xor, ffn-page'):
        get_lab("gates")


def test_a_lab_is_registered_once_and_checked():
    with pytest.raises(ValueError, match="already registered"):
        register(Lab("xor", core="core.labs.xor", parts=("naive",), title="Again", panel="app.labs.xor.XorLabPanel"))
    for bad in (dict(id="Bad Id"), dict(parts=()), dict(parts=("a", "a")), dict(panel="NoDots"), dict(title="")):
        fields = dict(id="ok", core="core.labs.ok", parts=("one",), title="OK", panel="app.labs.ok.OkPanel") | bad
        with pytest.raises(ValueError):
            Lab(**fields)


def test_a_lesson_naming_an_unknown_lab_or_part_is_refused_at_load(tmp_path):
    path = write_lesson(tmp_path, ["lab.hello.value"])
    with pytest.raises(LessonError) as refused:
        load_lesson(path)
    assert str(refused.value) == ('hello.json: steps[0] (id "value").panels[0]: "lab.hello.value": there is no lab "hello"; '
                                  'the labs are xor, ffn-page, generations')
    register(HELLO)
    try:
        assert load_lesson(path).steps[0].panels == ("lab.hello.value",)
        path.write_text(path.read_text(encoding="utf-8").replace("lab.hello.value", "lab.hello.colour"),
                        encoding="utf-8")
        with pytest.raises(LessonError, match='"lab.hello.colour": the lab "hello" has no part "colour"; '
                                              'its parts are value'):
            load_lesson(path)
    finally:
        unregister("hello")


# --- panels ---------------------------------------------------------------------------------------
def test_the_registry_names_each_shipped_panel_class():
    from app.labs import lab_panel_class
    from app.labs.ffn_page import FfnPagePanel
    from app.labs.xor import XorLabPanel
    assert lab_panel_class("xor") is XorLabPanel and lab_panel_class("ffn-page") is FfnPagePanel
    with pytest.raises(UnknownLab):
        lab_panel_class("gates")


def test_one_part_alone(qtbot, hello_lab):
    from app.session import Session
    from core.formats.scenario import load_scenario
    from tests.example_lab.hello_panel import HelloValuePart
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    part = HelloValuePart(session)
    qtbot.addWidget(part)
    session.select(hook="hook_resid_post", token=0, column=0)
    part.refresh()
    assert part.text().startswith("hook_resid_post at [0, 0] is ")


def test_a_lesson_step_naming_the_new_lab_shows_its_panel(blocklab_open, tmp_path, hello_lab):
    lab = blocklab_open(write_lesson(tmp_path, ["lab.hello.value"]))
    window = lab.window
    panel = window.labs["hello"]
    assert window.work.currentWidget() is panel.parentWidget() and panel.isVisible()
    assert panel.current_part() == "value" and panel.accessibleName() == "Hello"
    text = panel.findChild(QLabel, "helloValue").text()
    value = lab.session.trace["mlp.hook_post"][1, 2]
    from core.numbers import format_number
    assert text == f"mlp.hook_post at [1, 2] is {format_number(value)}"
    lab.session.select(token=0)                                  # the panel follows the Session
    assert panel.findChild(QLabel, "helloValue").text().startswith("mlp.hook_post at [0, 2] is ")
    with pytest.raises(UnknownLab, match='no lab "gates"'):     # never a fallback panel
        window._lab("gates")
    window.lessons.close()
    assert window.work.currentIndex() == 0


def test_a_hidden_lab_catches_up_when_shown(qtbot, hello_lab):
    from app.labs import build_lab_panel
    from app.session import Session
    from core.formats.scenario import load_scenario
    session = Session(load_scenario(SCENARIOS / "block-default.json"))
    panel = build_lab_panel("hello", session)
    qtbot.addWidget(panel)
    label = panel.findChild(QLabel, "helloValue")
    session.select(hook="hook_resid_post", token=1, column=1)
    assert label.text() == "" and panel.is_behind()              # hidden: no work done
    panel.show()
    qtbot.waitExposed(panel)
    assert label.text().startswith("hook_resid_post at [1, 1] is ") and not panel.is_behind()
    with pytest.raises(ValueError, match="has no part"):
        panel.set_focus("colour")
    panel.close()


# --- the documentation shows the code that runs -----------------------------------------------------
def test_docs_show_the_example_lab_verbatim():
    docs = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", docs, flags=re.S)
    for name in ("hello.py", "hello_panel.py"):
        code = (EXAMPLE / name).read_text(encoding="utf-8")
        assert code in blocks, f"docs/lessons.md does not show tests/example_lab/{name} as it is"
    line = ('register(Lab("hello", core="tests.example_lab.hello", parts=("value",), title="Hello",\n'
            '             panel="tests.example_lab.hello_panel.HelloLabPanel"))')
    assert line in docs
