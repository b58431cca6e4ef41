"""Chinese and English: English source strings, translated from resources/i18n/<lang>/*.json.

Each JSON file maps a translation context (the class name that called `self.tr`, or the
context given to QCoreApplication.translate) to {English source: translation}. Files are
merged, so each part of the app keeps its strings in a file of its own.
"""
from __future__ import annotations

import json
import locale
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

I18N = Path(__file__).resolve().parent.parent / "resources" / "i18n"
LANGUAGES = ("zh", "en")


class JsonTranslator(QTranslator):
    def __init__(self, language: str, parent=None):
        super().__init__(parent)
        self.language = language
        self.table: dict[str, dict[str, str]] = {}
        for path in sorted((I18N / language).glob("*.json")):
            for context, entries in json.loads(path.read_text(encoding="utf-8")).items():
                self.table.setdefault(context, {}).update(entries)

    def translate(self, context, source, disambiguation=None, n=-1):  # noqa: N802 (Qt's name)
        # None (not "") for a missing string: Qt then falls back to the English source.
        return self.table.get(context, {}).get(source)

    def isEmpty(self) -> bool:  # noqa: N802
        return not self.table


def system_language() -> str:
    name = QLocale.system().name() or (locale.getlocale()[0] or "")
    return "zh" if name.lower().startswith("zh") else "en"


_installed: JsonTranslator | None = None


def install(language: str | None) -> str:
    """Install the translator for `language` (None: the system's). Returns the language used."""
    global _installed
    language = language or system_language()
    app = QCoreApplication.instance()
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    if language != "en":
        _installed = JsonTranslator(language, app)
        app.installTranslator(_installed)
    return language


def translate(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)
