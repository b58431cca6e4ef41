"""The catalog translator: one language switch is one LanguageChange; it knows where a text came from."""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject

from app import i18n


class LanguageChanges(QObject):
    def __init__(self):
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event):  # noqa: N802 (Qt's name)
        if watched is QCoreApplication.instance() and event.type() == QEvent.Type.LanguageChange:
            self.count += 1
        return False


def test_a_switch_is_one_language_change_and_the_same_language_none(qapp):
    counter = LanguageChanges()
    qapp.installEventFilter(counter)
    try:
        assert i18n.install("zh") == "zh" and i18n.language() == "zh"
        assert counter.count == 1
        i18n.install("zh")
        assert counter.count == 1
        assert QCoreApplication.translate("LessonsMenu", "Next step") == "下一步"
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"       # Qt's own strings too
        i18n.install("en")
        assert counter.count == 2 and QCoreApplication.translate("LessonsMenu", "Next step") == "Next step"
    finally:
        qapp.removeEventFilter(counter)
        i18n.install("en")


def test_the_catalog_knows_which_source_a_text_came_from_in_either_language(qapp):
    catalog = i18n.catalog()
    i18n.install("zh")
    try:
        assert i18n.translate("MainWindow", "&File") == "文件(&F)"
    finally:
        i18n.install("en")
    assert i18n.translate("MainWindow", "&File") == "&File"
    assert catalog.source_of("文件(&F)") == ("MainWindow", "&File")
    assert catalog.source_of("&File") == ("MainWindow", "&File")
    assert catalog.source_of("never handed out") is None


def test_unknown_language_is_refused(qapp):
    import pytest
    with pytest.raises(ValueError):
        i18n.install("fr")


def test_glosses_only_in_english(qapp):
    assert i18n.with_gloss("不难吃") == "不难吃 “not awful”"
    assert i18n.with_gloss("小明 把 苹果 给了 小王", html=True) == \
        "小明 把 苹果 给了 小王 <i>“Xiaoming gave the apple to Xiao Wang”</i>"
    assert i18n.with_gloss("W_in") == "W_in"
    i18n.install("zh")
    try:
        assert i18n.with_gloss("不难吃") == "不难吃"
    finally:
        i18n.install("en")


def test_english_lab_texts_gloss_the_sample_words_they_quote(qtbot, tmp_path):
    """Issue 9, the labs' texts by the lessons' rule (tests/core/test_lesson.py): the generations
    lab named the last token “小王” bare (the preset page, steps 2, 5, 7, 10 and 13; the sink,
    step 9) and its side-by-side maps labelled their rows with the bare tokens (step 6, now glossed
    in the note under them); the model lab's note named the course page's novel 《三國志演義》
    bare (step 7)."""
    import numpy as np

    from app.labs.generations import GenerationsPanel
    from app.labs.model import ModelLabPanel
    from core.formats.scenario import load_scenario
    from app.session import Session
    from tests.app.helpers import FakeClock, settle, show
    from tests.conftest import SCENARIOS
    from tests.core.test_lesson import bare_chinese
    from tests.core.test_model import synthetic_arrays

    session = Session(load_scenario(SCENARIOS / "block-default.json"), clock=FakeClock())
    generations = show(qtbot, GenerationsPanel(session), 1000, 700)
    generations.set_focus("preset")
    generations.set_focus("attention_sink")
    generations.set_focus("compare")
    settle(lambda: generations.compare.map_note.text() != "")
    assert "小明 Xiaoming · 把 (object marker)" in generations.compare.map_note.text()   # the maps' rows
    intros = {"preset": generations.preset.outputs_intro.text(), "sink": generations.sink.intro.text()}
    assert "“小王 (Xiao Wang)”" in intros["preset"] and "“小王 (Xiao Wang)”" in intros["sink"]
    path = tmp_path / "tiny.npz"
    np.savez(path, **synthetic_arrays())
    model = show(qtbot, ModelLabPanel(session, model_path=path), 1000, 700)
    model.set_focus("ablation")
    intros["ablation"] = model.findChild(QObject, "modelAblationNote").text()
    assert "《三國志演義》 “Romance of the Three Kingdoms”" in intros["ablation"]
    assert {name: bare_chinese(text) for name, text in intros.items()} == {name: [] for name in intros}
    i18n.install("zh")                         # Chinese: the texts as they were, no gloss
    try:
        settle(lambda: "「小王」" in generations.preset.outputs_intro.text())
        settle(lambda: "（《三國志演義》）" in model.findChild(QObject, "modelAblationNote").text())
        assert "Xiaoming" not in generations.compare.map_note.text()
    finally:
        i18n.install("en")
    generations.close()
    model.close()
