"""Chinese and English: English source strings, translated by Qt, switchable while the app runs.

Translators edit resources/i18n/<lang>/*.json ({context: {English source: translation}},
where the context is the class that called `self.tr`, one file per part of the app);
`python tools/build_translations.py` compiles them into resources/i18n/blocklab_<lang>.qm,
which is what the app loads (a test checks that the .qm is up to date).

One translator, the `Catalog`, is installed for the life of the application. `install(language)`
switches what it answers with and sends Qt's LanguageChange once: every widget then retranslates
itself (changeEvent → retranslate), and nothing else about the window changes. The catalog also
answers for Qt's own dialogs (file dialogs, message box buttons) from Qt's shipped translations
(qtbase_zh_CN.qm, in the PySide6-Essentials wheel). resources/i18n/zh/qt.json fills what that
file lacks (Qt 6.11's has no "&Look in:" nor "Files of &type:" for the file dialog) and repeats
the standard buttons (OK, Cancel, Save, Discard, Open …), should a Qt build come without its
translations; ours are asked first, Qt's second.

The catalog remembers, for every text it handed out, which (context, source) it came from
(`source_of`): a text set once from a plain `tr("…")` (a menu title, an action) can be put
back into the new language without its owner repeating the call. It also collects the
sources it had no translation for (`misses`), which the tests turn into "every visible string
has a translation".
"""
from __future__ import annotations

import locale

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QLocale, QTranslator

from core.resources import i18n_dir

I18N = i18n_dir()
LANGUAGES = ("zh", "en")
QT_NAMES = {"zh": "zh_CN"}                 # Qt's name of our languages, for its own .qm files
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}   # each in its own language: the Language menu

POEM_LINE = "床前明月光，疑是地上霜。舉頭望明月，低頭思故"      # 靜夜思 without its last character

# The Chinese sample sentences of the course and their English glosses. In English mode they
# stay Chinese where they are data (tokens, table rows) with the gloss beside them.
GLOSSES = {
    "好吃": "tasty",
    "不好吃": "not tasty",
    "难吃": "awful",
    "不难吃": "not awful",
    "小明": "Xiaoming",
    "把": "(object marker)",
    "苹果": "the apple",
    "给了": "gave",
    "小王": "Xiao Wang",
    "小明 把 苹果 给了 小王": "Xiaoming gave the apple to Xiao Wang",
    # the model lab's first typed text (app/labs/model/state.py): Li Bai's poem, its last character
    # left for the model to guess, and the whole line should a learner complete it
    "靜夜思": "Thoughts on a Quiet Night",
    POEM_LINE: "Bright moonlight at my bedside; I took it for frost on the ground. Head up, I gaze at the bright "
               "moon; head down, I think of my old … (the line ends 故鄉 “home”: 鄉 is left for the model)",
    POEM_LINE + "鄉": "Bright moonlight at my bedside; I took it for frost on the ground. Head up, I gaze at the "
                     "bright moon; head down, I think of home",
    "《三國志演義》": "Romance of the Three Kingdoms",         # the novel the course page's model read
}


def system_language() -> str:
    name = QLocale.system().name() or (locale.getlocale()[0] or "")
    return "zh" if name.lower().startswith("zh") else "en"


class Catalog(QTranslator):
    """Block Lab's strings and Qt's own, in one language; remembers where each text came from."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.code = "en"
        self._ours: QTranslator | None = None
        self._qt: QTranslator | None = None
        self._sources: dict[str, dict[str, str]] = {}    # text handed out → {context: source}
        self.misses: set[tuple[str, str]] = set()         # (context, source) looked up without a translation
        self.hits: set[tuple[str, str]] = set()           # (context, source) found (zh)

    def load_language(self, code: str) -> None:
        # The translators belong to this catalog's Python side only (no Qt parent): the ones of the
        # language left are freed here, not kept as children for the application's life (each
        # holds its loaded catalogs; a language switch kept two more).
        self.code = code
        self._ours = self._qt = None
        if code == "en":
            return
        ours = QTranslator()
        if ours.load(str(I18N / f"blocklab_{code}.qm")):
            self._ours = ours
        qt = QTranslator()
        if qt.load(f"qtbase_{QT_NAMES.get(code, code)}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            self._qt = qt

    def isEmpty(self) -> bool:  # noqa: N802 (Qt's name)
        return False

    def translate(self, context: str, source: str, disambiguation: str | None = None, n: int = -1):  # noqa: D401
        """The translation, or None: PySide's tr() then tries the base classes' contexts, and
        QCoreApplication falls back to the English source."""
        if self.code == "en":
            text = source                     # the sources are English: nothing to look up
        else:
            text = ""
            for translator in (self._ours, self._qt):
                if translator is not None:
                    text = translator.translate(context, source, disambiguation, n)
                    if text:
                        break
            if not text:
                self.misses.add((context, source))
                return None
            self.hits.add((context, source))
        self._sources.setdefault(text, {})[context] = source
        return text

    def source_of(self, text: str, context: str | None = None) -> tuple[str, str] | None:
        """(context, source) of a text this catalog handed out, in any language; with several
        candidates, the one under `context` (if given), else only an unambiguous one."""
        found = self._sources.get(text)
        if not found:
            return None
        if context is not None and context in found:
            return context, found[context]
        if len(set(found.values())) == 1:
            name, source = next(iter(found.items()))
            return name, source
        return None


_catalog: Catalog | None = None


def catalog(language: str = "en") -> Catalog:
    """The one catalog, installed on the application the first time it is asked for (in
    `language`; installing it is itself the one LanguageChange)."""
    global _catalog
    app = QCoreApplication.instance()
    if _catalog is None or _catalog.parent() is not app:
        _catalog = Catalog(app)
        _catalog.load_language(language)
        app.installTranslator(_catalog)
    return _catalog


def install(language: str | None) -> str:
    """Switch the interface to `language` (None: the system's) and tell every widget, once.
    Returns the language used."""
    language = language or system_language()
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {', '.join(LANGUAGES)}, got {language!r}")
    current = catalog(language)
    if current.code != language:
        current.load_language(language)
        QCoreApplication.sendEvent(QCoreApplication.instance(), QEvent(QEvent.Type.LanguageChange))
    return language


def language() -> str:
    """The language the interface is in now: "zh" or "en"."""
    return _catalog.code if _catalog is not None else "en"


def translate(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def sentences(parts) -> str:
    """Sentences side by side as the language writes them: a space between English sentences,
    none after a Chinese 。 (a full-width mark carries its own space)."""
    return ("" if language() == "zh" else " ").join(part for part in parts if part)


def gloss(token: str) -> str:
    """The English gloss of a Chinese sample word or sentence in English mode, else ""."""
    return GLOSSES.get(token.strip(), "") if language() == "en" else ""


def with_gloss(token: str, html: bool = False) -> str:
    """`token` with its gloss beside it in English mode: 不难吃 (“not awful”); else `token`."""
    meaning = gloss(token)
    if not meaning:
        return token
    return f"{token} <i>“{meaning}”</i>" if html else f"{token} “{meaning}”"


def labelled(token: str) -> str:
    """`token` with its gloss in parentheses in English mode, for a tight place that already
    quotes it (a plot title, a tooltip): 小明 (Xiaoming), 把 (object marker); else `token`."""
    meaning = gloss(token)
    if not meaning:
        return token
    return f"{token} {meaning}" if meaning.startswith("(") else f"{token} ({meaning})"


def glossed(token: str) -> str:
    """`token` followed by its gloss in English mode, the most compact form, for a label that
    names it (a map's tick, a glossary): 小明 Xiaoming, 把 (object marker); else `token`."""
    meaning = gloss(token)
    return f"{token.strip()} {meaning}" if meaning else token


def glossary(tokens) -> str:
    """One line glossing the Chinese tokens in English mode, in their order, each once:
    "小明 Xiaoming · 把 (object marker) · 苹果 the apple · …"; "" in Chinese or with nothing to gloss."""
    seen: list[str] = []
    for token in tokens:
        if gloss(token) and token.strip() not in seen:
            seen.append(token.strip())
    return " · ".join(glossed(token) for token in seen)


def gloss_lines(text: str) -> str:
    """The glosses of a text's lines that the table knows, in English mode, one per line: a short
    line (a title) with its gloss, 靜夜思 “Thoughts on a Quiet Night”; a long one by its gloss
    alone (the line itself is on screen beside it). "" in Chinese or with nothing to gloss."""
    shown = []
    for line in text.splitlines():
        meaning = gloss(line)
        if meaning:
            shown.append(f"{line.strip()} “{meaning}”" if len(line.strip()) <= 8 else f"“{meaning}”")
    return "\n".join(shown)
