"""The Language menu (中文 / English, switched live) and the window's own texts in the new language.

Switching keeps everything: the Session (edits, undo history, selection), the lesson and its
step, the views' zoom. Widgets retranslate themselves on Qt's LanguageChange; what is not a
widget — the window's actions and menu titles, set once from a plain `tr("…")` — is put back
into the new language here, through the catalog's memory of which source each text came from.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QGroupBox, QMenu, QWidget

from app import i18n


class LanguageMenu(QMenu):
    """中文 / English, one checked; choosing one switches the whole interface at once."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setObjectName("menuLanguage")
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.choices: dict[str, QAction] = {}
        for code in i18n.LANGUAGES:
            action = QAction(i18n.LANGUAGE_NAMES[code], self)    # each name in its own language
            action.setObjectName(f"actionLanguage_{code}")
            action.setCheckable(True)
            action.setData(code)
            action.triggered.connect(lambda _checked=False, c=code: self.choose(c))
            self.group.addAction(action)
            self.addAction(action)
            self.choices[code] = action
        self.retranslate()

    def choose(self, code: str) -> None:
        i18n.install(code)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        self.setTitle(self.tr("Lan&guage"))
        self.choices[i18n.language()].setChecked(True)


class WindowTexts(QObject):
    """Puts a window's actions, menu titles and group box titles into the new language when it
    changes: texts that came from a plain `tr("…")` once, at construction (watches the window's
    LanguageChange with an event filter, so the window's code needs no list of them)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.window = window
        window.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window and event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self) -> None:
        catalog = i18n.catalog()
        for action in self.window.findChildren(QAction):
            context = _context_of(action)
            derived_tip = action.toolTip() == _stripped(action.text())   # Qt's default: follows the text
            _retranslated(catalog, action.text(), action.setText, context)
            _retranslated(catalog, action.statusTip(), action.setStatusTip, context)
            if not derived_tip:
                _retranslated(catalog, action.toolTip(), action.setToolTip, context)
        for box in self.window.findChildren(QGroupBox):
            _retranslated(catalog, box.title(), box.setTitle, _context_of(box))


def _context_of(thing: QObject) -> str | None:
    """The class whose tr() most likely made this object's text: the nearest owner that is
    not a plain Qt class (a QAction's parent, a group box's enclosing window)."""
    owner = thing.parent()
    while owner is not None:
        name = type(owner).__name__
        if not name.startswith("Q"):
            return name
        owner = owner.parent()
    return None


def _stripped(text: str) -> str:
    """An action's text as Qt derives its default tooltip from it: no mnemonic, no trailing dots."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("...", "").replace("…", "").strip()


def _retranslated(catalog: i18n.Catalog, text: str, setter, context: str | None) -> None:
    if not text:
        return
    found = catalog.source_of(text, context)
    if found is None:
        return
    now = i18n.translate(*found)
    if now != text:
        setter(now)
