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
