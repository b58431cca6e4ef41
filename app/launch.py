"""Starting the GUI: the application, the translator, the exception hook, screenshots."""
from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

LOG_PATH = Path.home() / ".blocklab" / "blocklab.log"


def _application(language: str | None):
    from PySide6.QtWidgets import QApplication

    from app import i18n

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
        with open(LOG_PATH, "a", encoding="utf-8") as log:
            log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n{text}\n")
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


class OpenError(Exception):
    """A file the GUI cannot start on; str() is one line."""


def build_window(file: Path, language: str | None, step: int | str = 0):
    """The application and a main window on `file`: a scenario, or a lesson opened at `step`
    (a 0-based position or a step id). Raises OpenError with one line if it cannot."""
    from core.formats.lesson import LessonError, load_lesson
    from core.formats.scenario import ScenarioError, load_scenario

    from app.main_window import MainWindow, is_lesson_file
    from app.session import Session

    app, language = _application(language)
    try:
        if is_lesson_file(file):
            lesson = load_lesson(file)
            position = lesson.step_index(step)
            window = MainWindow(Session(lesson.step_scenario(position)), file, language)
            window.lessons.open(lesson, position)
            window._refresh_title()
        else:
            window = MainWindow(Session(load_scenario(file)), file, language)
    except (ScenarioError, LessonError) as error:
        raise OpenError(str(error)) from None
    except (IndexError, KeyError) as error:
        raise OpenError(f"{file.name}: {error.args[0] if error.args else error}") from None
    return app, window


def find_lesson(lesson_id: str) -> Path:
    """The shipped lesson file with this id, or OpenError."""
    from core.formats.lesson import list_lessons

    from app.lessons.controller import LESSONS

    for found_id, _title, path in list_lessons(LESSONS):
        if found_id == lesson_id:
            return path
    known = ", ".join(found_id for found_id, _t, _p in list_lessons(LESSONS))
    raise OpenError(f"no lesson with id {lesson_id!r}; the lessons are: {known}")


def run_gui(file: Path, language: str | None) -> int:
    try:
        app, window = build_window(file, language)
    except OpenError as error:
        print(f"blocklab: {error}", file=sys.stderr)
        return 2
    sys.excepthook = _exception_hook
    available = app.primaryScreen().availableGeometry()
    window.resize(min(1280, available.width()), min(800, available.height()))
    window.show()
    return app.exec()


def run_screenshot(out: Path, file: Path | None, size: tuple[int, int], language: str | None,
                   lesson: str | None = None, step: str | None = None) -> int:
    """Render the window offscreen at `size` and save it as a PNG. With `lesson` (an id), the
    lesson at `step`: a 1-based number or a step id."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        position: int | str = 0
        if step is not None:
            position = int(step) - 1 if step.isdigit() else step
            if isinstance(position, int) and position < 0:
                raise OpenError(f"--step: expected 1 or more, got {step}")
        if lesson is not None:
            file = find_lesson(lesson)
        app, window = build_window(file, language, position)
    except OpenError as error:
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
