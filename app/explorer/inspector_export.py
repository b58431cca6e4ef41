"""The inspector's exports: its right-click menu, the selected hook to CSV or .npy, the worked
equation copied or saved as text. A mixin of Inspector (app/explorer/inspector.py), which has the
session, the `explanation` text field and catch_up(); its texts translate in Inspector's context."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMenu

from app.explorer import tensor_files
from app.widgets.menus import exec_once


class InspectorExport:
    # --- export ----------------------------------------------------------------------------------
    def context_menu(self) -> QMenu:
        """Export the hook (all its heads) as CSV or .npy; copy or save the equation."""
        hook = self.session.selected_hook
        menu = QMenu(self)
        menu.setObjectName("inspectorMenu")
        for name, text, suffix in (("inspectorExportCsv", self.tr("Export %1 as CSV…"), ".csv"),
                                   ("inspectorExportNpy", self.tr("Export %1 as NumPy .npy…"), ".npy")):
            action = menu.addAction(text.replace("%1", hook))
            action.setObjectName(name)
            action.triggered.connect(lambda _checked=False, s=suffix: self._export_dialog(s))
        menu.addSeparator()
        copy = menu.addAction(self.tr("Copy the equation"))
        copy.setObjectName("inspectorCopyEquation")
        copy.triggered.connect(self.copy_equation)
        save = menu.addAction(self.tr("Save the equation as text…"))
        save.setObjectName("inspectorSaveEquation")
        save.triggered.connect(self._save_equation_dialog)
        return menu

    def _explanation_menu(self, position) -> None:
        menu = self.explanation.createStandardContextMenu()
        menu.addSeparator()
        ours = self.context_menu()
        for action in ours.actions():
            menu.addAction(action)
        exec_once(menu, self.explanation.viewport().mapToGlobal(position))
        ours.deleteLater()

    def export_tensor(self, path: Path) -> bool:
        """Write the selected hook (every head) to `path`: CSV or .npy by its suffix. Says in the
        status bar what was written, or why nothing was."""
        hook = self.session.selected_hook
        array = self.session.trace[hook]
        shape = "×".join(map(str, array.shape))
        comments = (f"{hook} [{shape}]", "tokens: " + " ".join(self.session.tokens))
        return tensor_files.export_tensor(self.session, Path(path), array, f"{hook} [{shape}]", comments)

    def equation_text(self) -> str:
        """The selected cell's explanation as the inspector shows it (plain text)."""
        self.catch_up()
        return self.explanation.toPlainText()

    def copy_equation(self) -> None:
        QGuiApplication.clipboard().setText(self.equation_text())
        self.session.message.emit(self.tr("The equation is on the clipboard."))

    def save_equation(self, path: Path) -> bool:
        try:
            Path(path).write_text(self.equation_text() + "\n", encoding="utf-8")
        except OSError as error:
            self.session.message.emit(self.tr("Cannot write %1: %2").replace("%1", str(path))
                                      .replace("%2", error.strerror or str(error)))
            return False
        self.session.message.emit(self.tr("Saved the equation to %1").replace("%1", str(path)))
        return True

    def _export_dialog(self, suffix: str) -> None:
        path = tensor_files.ask_save_path(self, self.session.selected_hook.replace(".", "_") + suffix, suffix)
        if path:
            self.export_tensor(path)

    def _save_equation_dialog(self) -> None:
        path = tensor_files.ask_save_path(self, self.session.selected_hook.replace(".", "_") + ".txt", ".txt")
        if path:
            self.save_equation(path)
