"""File → Export: the diagram and the current plot as images, the selected values and the
edited weight as tables, the inspector's explanation as text, the block as a NumPy script;
and Copy as NumPy code.

Each view writes its own file: the dataflow view's `export_image(path)` and the plots panel's
`export_current(path)` (PNG or SVG, by the suffix), the inspector's and the weight editor's
`export_tensor(path)` (through core: `core.formats.tensor_file`, CSV with every digit or .npy),
the inspector's `equation_text()`. The script is `core.formats.numpy_code`. Nothing here
computes: it asks for a file name and hands over.
"""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu

from core.formats.files import write_atomically
from core.formats.numpy_code import needs_arrays_file, numpy_script, write_numpy_script
from core.formats.scenario import stored_numbers

from app import document as files

EXPORT_FOLDER_KEY = "files/exportFolder"
IMAGE_SUFFIXES = (".png", ".svg")
TABLE_SUFFIXES = (".csv", ".npy")


def choose_export_path(parent, title: str, suggestion: Path, filters: str) -> Path | None:
    """A file name from the save dialog (tests replace this). Without a suffix, the chosen
    filter's is added."""
    path, chosen = QFileDialog.getSaveFileName(parent, title, str(suggestion), filters)
    if not path:
        return None
    path = Path(path)
    if not path.suffix:
        found = re.search(r"\*(\.\w+)", chosen or filters)
        if found:
            path = path.with_name(path.name + found.group(1))
    return path


class Exporter(QObject):
    """The Export submenu and Copy as NumPy code, for one window."""

    def __init__(self, window):
        super().__init__(window)
        self.window, self.session = window, window.session
        self.menu = QMenu(window)
        self.menu.setObjectName("menuExport")
        self.menu.setToolTipsVisible(True)
        self.menu.aboutToShow.connect(self.update_actions)
        self.diagram = self._action("actionExportDiagram", self.export_diagram)
        self.plot = self._action("actionExportPlot", self.export_plot)
        self.menu.addSeparator()
        self.values = self._action("actionExportValues", self.export_values)
        self.weights = self._action("actionExportWeights", self.export_weights)
        self.equation = self._action("actionExportEquation", self.export_equation)
        self.menu.addSeparator()
        self.script = self._action("actionExportScript", self.export_script)
        self.copy = QAction(window)
        self.copy.setObjectName("actionCopyNumpy")
        self.copy.triggered.connect(lambda _checked=False: self.copy_numpy_code())
        window.addAction(self.copy)
        window.installEventFilter(self)
        self.retranslate()

    def _action(self, name: str, slot) -> QAction:
        action = self.menu.addAction("")
        action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def add_to(self, menu: QMenu) -> None:
        menu.addMenu(self.menu)
        menu.addAction(self.copy)

    # --- words ----------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window and event.type() == QEvent.LanguageChange:
            self.retranslate()
        return False

    def retranslate(self) -> None:
        self.menu.setTitle(self.tr("&Export"))
        self.diagram.setText(self.tr("The block diagram as an image (PNG, SVG)…"))
        self.plot.setText(self.tr("The plot on show as an image (PNG, SVG)…"))
        self.equation.setText(self.tr("The inspector's explanation as text…"))
        self.script.setText(self.tr("The block as a NumPy script…"))
        self.copy.setText(self.tr("Copy as NumPy code"))
        self.copy.setStatusTip(self.tr("A short script, NumPy only, that rebuilds this block and prints its output"))
        self.update_actions()

    def update_actions(self) -> None:
        """Names in the entries follow the selection."""
        self.values.setText(self.tr("The values of %1 as a table (CSV, .npy)…").replace("%1", self.session.selected_hook))
        self.weights.setText(self.tr("The weight %1 as a table (CSV, .npy)…").replace("%1", self._weight_name()))

    def _weight_name(self) -> str:
        return self.window.weight_editor.current_tensor()

    # --- where ------------------------------------------------------------------------------
    def _stem(self) -> str:
        path = self.window.document.path or self.window.document.origin
        return path.stem if path is not None else "block"

    def _folder(self) -> Path:
        remembered = files.settings().value(EXPORT_FOLDER_KEY, "")
        if isinstance(remembered, str) and remembered and Path(remembered).is_dir():
            return Path(remembered)
        return files.documents_folder()

    def _ask(self, title: str, name: str, filters: str, suffixes: tuple[str, ...]) -> Path | None:
        path = choose_export_path(self.window, title, self._folder() / name, filters)
        if path is None:
            return None
        if path.suffix.lower() not in suffixes:
            self._failed(self.tr("Choose a name ending in %1.").replace("%1", self.tr(" or ").join(suffixes)))
            return None
        return path

    def _done(self, path: Path) -> None:
        if not files.is_shipped(path.parent):
            files.settings().setValue(EXPORT_FOLDER_KEY, str(path.parent))
        self.session.message.emit(self.tr("Exported %1").replace("%1", str(path)))

    def _failed(self, text: str) -> bool:
        self.session.message.emit(text)
        files.warn(self.window, self.tr("Cannot export"), text)
        return False

    def _run(self, path: Path, write) -> bool:
        """Call write(path); a refusal or an I/O error is one message, nothing else changes."""
        try:
            result = write(path)
        except (OSError, ValueError) as error:
            return self._failed(f"{getattr(error, 'strerror', None) or error} ({path})")
        if result is False:
            return self._failed(self.tr("%1 could not be written.").replace("%1", str(path)))
        self._done(path)
        return True

    # --- the exports --------------------------------------------------------------------------
    def _image_filters(self) -> str:
        return self.tr("PNG image (*.png);;SVG image (*.svg)")

    def _table_filters(self) -> str:
        return self.tr("CSV table (*.csv);;NumPy array (*.npy)")

    def export_diagram(self) -> bool:
        path = self._ask(self.tr("Export the block diagram"), f"{self._stem()} diagram.png", self._image_filters(),
                         IMAGE_SUFFIXES)
        return path is not None and self._run(path, self.window.dataflow.export_image)

    def export_plot(self) -> bool:
        path = self._ask(self.tr("Export the plot"), f"{self._stem()} plot.png", self._image_filters(), IMAGE_SUFFIXES)
        return path is not None and self._run(path, self.window.plots.export_current)

    def export_values(self) -> bool:
        hook = self.session.selected_hook
        path = self._ask(self.tr("Export the values of %1").replace("%1", hook), f"{self._stem()} {hook}.csv",
                         self._table_filters(), TABLE_SUFFIXES)
        return path is not None and self._run(path, self.window.inspector.export_tensor)

    def export_weights(self) -> bool:
        name = self._weight_name()
        path = self._ask(self.tr("Export the weight %1").replace("%1", name), f"{self._stem()} {name}.csv",
                         self._table_filters(), TABLE_SUFFIXES)
        return path is not None and self._run(path, self.window.weight_editor.export_tensor)

    def export_equation(self) -> bool:
        text = self.window.inspector.equation_text()
        hook = self.session.selected_hook
        path = self._ask(self.tr("Export the explanation"), f"{self._stem()} {hook}.txt",
                         self.tr("Text (*.txt)"), (".txt",))
        return path is not None and self._run(path, lambda target: write_atomically(target, text.rstrip("\n") + "\n"))

    def export_script(self) -> bool:
        scenario = self.session.scenario
        path = self._ask(self.tr("Export the block as a NumPy script"), f"{self._stem()}.py",
                         self.tr("Python script (*.py)"), (".py",))
        if path is None:
            return False
        return self._run(path, lambda target: write_numpy_script(scenario, target))

    def copy_numpy_code(self) -> bool:
        """Put the script on the clipboard; a block too big for that is pointed to Export."""
        scenario = self.session.scenario
        if needs_arrays_file(scenario):
            self.session.message.emit(
                self.tr("This block holds %1 numbers, too many for the clipboard: use File → Export → "
                        "The block as a NumPy script, which keeps them in a .npz file beside the script.")
                .replace("%1", f"{stored_numbers(scenario):,}"))
            return False
        text = numpy_script(scenario)
        QGuiApplication.clipboard().setText(text)
        self.session.message.emit(self.tr("Copied a NumPy script of %1 lines that rebuilds this block "
                                          "and prints its output.").replace("%1", str(text.count("\n"))))
        return True
