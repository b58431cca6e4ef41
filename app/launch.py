"""Starting the GUI: the application, the translator, the exception hook, screenshots."""
from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path

LOG_PATH = Path.home() / ".blocklab" / "blocklab.log"


def _application(language: str | None):
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QApplication

    from . import i18n

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Block Lab")
    font = app.font()
    font.setPointSize(max(font.pointSize(), 10))
    app.setFont(font)
    return app, i18n.install(language)


def _exception_hook(kind, value, trace) -> None:
    """A bug must never silently kill a lecture: log it, show it, keep running."""
    text = "".join(traceback.format_exception(kind, value, trace))
    try:
        LOG_PATH.parent.mkdir(parents=True, exist_ok=True)
        logging.basicConfig(filename=LOG_PATH, level=logging.ERROR)
        logging.error(text)
    except OSError:
        pass
    print(text, file=sys.stderr)
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication, QMessageBox

    if QApplication.instance() is not None:
        box = QMessageBox(QMessageBox.Critical, QCoreApplication.translate("launch", "Block Lab hit a bug"),
                          QCoreApplication.translate("launch", "Something went wrong, but your work is still open. "
                                                     "Details were written to %1.").replace("%1", str(LOG_PATH)))
        box.setDetailedText(text)
        box.exec()


def build_window(file: Path, language: str | None):
    """The application and a main window on `file` (a scenario). Raises ScenarioError."""
    from core.scenario import load_scenario

    from .main_window import MainWindow
    from .session import Session

    app, language = _application(language)
    scenario = load_scenario(file)
    window = MainWindow(Session(scenario), file, language)
    return app, window


def run_gui(file: Path, language: str | None) -> int:
    from core.scenario import ScenarioError

    try:
        app, window = build_window(file, language)
    except ScenarioError as error:
        print(f"blocklab: {error}", file=sys.stderr)
        return 2
    sys.excepthook = _exception_hook
    window.resize(1280, 800)
    window.show()
    return app.exec()


def run_screenshot(out: Path, file: Path, size: tuple[int, int], language: str | None) -> int:
    """Render the window offscreen at `size` and save it as a PNG."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from core.scenario import ScenarioError

    try:
        app, window = build_window(file, language)
    except ScenarioError as error:
        print(f"blocklab screenshot: {error}", file=sys.stderr)
        return 2
    window.resize(*size)
    window.show()
    for _ in range(3):
        app.processEvents()
    window.dataflow.fit_to_window()
    app.processEvents()
    image = window.grab().toImage()
    if not image.save(str(out), "PNG"):
        print(f"blocklab screenshot: cannot write {out}", file=sys.stderr)
        return 2
    window.close()
    return 0
