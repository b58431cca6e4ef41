"""The Help menu: getting started (the start card), the keyboard shortcuts, About Block Lab.

The shortcut list is generated when it is opened, from the window's actions as they are then
(menu by menu, in the interface's language), plus the keys that are not actions (OTHER_KEYS:
the clicker keys of app/lessons/keys.py; a part that handles keys of its own adds a line there).
"""
from __future__ import annotations

import importlib.metadata

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView, QMenu, QMessageBox,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from app.widgets.menus import WindowMenu
from app.widgets.message_box import message_box

# Keys that work without being an action's shortcut: (key names as QKeySequence spells them,
# context, English description). Shown translated, in this order, after the menus' actions.
OTHER_KEYS: list[tuple[tuple[str, ...], str, str]] = [
    (("Right", "Space"), "HelpMenu", "Next lesson step (outside text fields, tables and sliders)"),
    (("Left",), "HelpMenu", "Previous lesson step (outside text fields, tables and sliders)"),
]
COURSE = "从0训练LLM · 现代大模型体系"        # the course the seed pages come from (its own name)


def version() -> str:
    try:
        return importlib.metadata.version("blocklab")
    except importlib.metadata.PackageNotFoundError:
        return ""


def license_name() -> str:
    """The license the package declares, or "" if it declares none."""
    try:
        metadata = importlib.metadata.metadata("blocklab")
    except importlib.metadata.PackageNotFoundError:
        return ""
    return metadata.get("License-Expression") or metadata.get("License") or ""


def key_text(sequences) -> str:
    """Key sequences as the platform writes them, in the interface's language: "Ctrl+Y, Ctrl+Shift+Z"."""
    names = [QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in sequences]
    return ", ".join(name for name in names if name)


def shortcut_rows(window: QWidget) -> list[tuple[str, str, str]]:
    """(menu, action, keys) for every action of the window's menus that has a shortcut, in menu
    order, then the window's other shortcut actions (menu ""), then OTHER_KEYS (menu "")."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()

    def walk(menu: QMenu, title: str) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu(), _plain(action.text()))
            elif not action.isSeparator() and _keys_of(action) and id(action) not in seen:
                seen.add(id(action))
                rows.append((title, _plain(action.text()), _keys_of(action)))

    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu(), _plain(top.text()))
    for action in window.findChildren(QAction):
        if action.shortcuts() and id(action) not in seen and action.text():
            seen.add(id(action))
            rows.append(("", _plain(action.text()), key_text(action.shortcuts())))
    for keys, context, description in OTHER_KEYS:
        rows.append(("", QCoreApplication.translate(context, description), key_text(keys)))
    return rows


def _keys_of(action: QAction) -> str:
    """An action's keys: its shortcuts, or the keys its text shows after a tab (keys that a
    filter handles, such as the Lessons menu's PgDown / PgUp)."""
    if action.shortcuts():
        return key_text(action.shortcuts())
    text = action.text()
    return text.split("\t", 1)[1].strip() if "\t" in text else ""


def _plain(text: str) -> str:
    """A menu text without its mnemonic: "&File" → "File", "文件(&F)" → "文件"."""
    text = text.split("\t", 1)[0]
    for marker in ("(&", "（&"):
        if marker in text and text.endswith((")", "）")):
            text = text[:text.index(marker)]
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").strip()


class ShortcutsDialog(QDialog):
    """A table of every keyboard shortcut, generated from the window's actions."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        rows = shortcut_rows(window)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels([self.tr("What"), self.tr("Keys")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setWordWrap(True)
        menu = None
        for title, what, keys in rows:
            if title != menu:
                menu = title
                heading = QTableWidgetItem(title or self.tr("Other keys"))
                font = heading.font()
                font.setBold(True)
                heading.setFont(font)
                self._add_row(heading, QTableWidgetItem(""))
            self._add_row(QTableWidgetItem("    " + what), QTableWidgetItem(keys))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.resizeRowsToContents()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(640, 520)

    def _add_row(self, what: QTableWidgetItem, keys: QTableWidgetItem) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, what)
        self.table.setItem(row, 1, keys)

    def rows(self) -> list[tuple[str, str]]:
        """(what, keys) as shown, headings included (their keys are "")."""
        return [(self.table.item(r, 0).text().strip(), self.table.item(r, 1).text()) for r in range(self.table.rowCount())]


class HelpMenu(WindowMenu):
    """Getting started, Keyboard shortcuts (F1), About Block Lab."""

    def __init__(self, window: QWidget, start_card=None):
        super().__init__(window, "menuHelp")
        self.start_card = start_card
        self.dialog: QDialog | None = None          # the one open (tests read it)
        self.start_action = self.add_window_action("actionGettingStarted", self.show_start_card)
        self.start_action.setVisible(start_card is not None)
        self.shortcuts_action = self.add_window_action("actionShortcuts", self.show_shortcuts)
        self.shortcuts_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.about_action = self.add_window_action("actionAbout", self.show_about)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("&Help"))
        self.start_action.setText(self.tr("Getting started"))
        self.shortcuts_action.setText(self.tr("Keyboard shortcuts…"))
        self.about_action.setText(self.tr("About Block Lab"))

    # --- the dialogs (window-modal, opened without blocking: tests can read and close them) -----
    def show_start_card(self) -> None:
        if self.start_card is not None:
            self.start_card.show_again()

    def show_shortcuts(self) -> ShortcutsDialog:
        self._close_dialog()
        self.dialog = ShortcutsDialog(self.window)
        self.dialog.open()
        return self.dialog

    def about_text(self) -> str:
        number = version()
        licence = license_name()
        lines = [
            "<h3>Block Lab" + (f" {number}" if number else "") + "</h3>",
            self.tr("A desktop explorer of one Transformer block — attention, the feed-forward network, the residual "
                    "sums and normalization — in which every number can be edited and every intermediate is "
                    "recomputed at once, exactly, offline. For learners on a laptop and teachers at a projector."),
            self.tr("Its lessons grow from two pages of the course %1 (R45 and C4): their numbers are carried over "
                    "and reproduced here; the texts are Block Lab's own, in Chinese and English.").replace("%1", COURSE),
            self.tr("Built with Python, NumPy, SciPy, PySide6 (Qt) and pyqtgraph."),
            (self.tr("License: %1").replace("%1", licence) if licence else
             self.tr("License: none declared yet (the package metadata names none).")),
        ]
        return "".join(f"<p>{line}</p>" if not line.startswith("<h3>") else line for line in lines)

    def show_about(self) -> QMessageBox:
        self._close_dialog()
        box = message_box(QMessageBox.Icon.Information, self.tr("About Block Lab"), self.about_text(),
                          QMessageBox.StandardButton.Ok, self.window)
        box.setObjectName("aboutBox")
        box.setTextFormat(Qt.TextFormat.RichText)
        self.dialog = box
        box.open()
        return box

    def _close_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.close()
            self.dialog.deleteLater()
            self.dialog = None
