"""Chinese and English: English source strings, translated by Qt from compiled .qm files.

Translators edit resources/i18n/<lang>/*.json ({context: {English source: translation}},
where the context is the class that called `self.tr`, one file per part of the app);
`python tools/build_translations.py` compiles them into resources/i18n/blocklab_<lang>.qm,
which is what the app loads (a test checks that the .qm is up to date).
"""
from __future__ import annotations

import locale
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from core.resources import i18n_dir

I18N = i18n_dir()
LANGUAGES = ("zh", "en")


def system_language() -> str:
    name = QLocale.system().name() or (locale.getlocale()[0] or "")
    return "zh" if name.lower().startswith("zh") else "en"


_installed: QTranslator | None = None


def install(language: str | None) -> str:
    """Install the translator for `language` (None: the system's). Returns the language used."""
    global _installed
    language = language or system_language()
    app = QCoreApplication.instance()
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    if language != "en":
        translator = QTranslator(app)
        if translator.load(str(I18N / f"blocklab_{language}.qm")):
            app.installTranslator(translator)
            _installed = translator
    return language


def translate(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)
