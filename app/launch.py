"""Starting the GUI: the application, the translator, the exception hook, screenshots."""
from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

LOG_PATH = Path.home() / ".blocklab" / "blocklab.log"
LOG_LIMIT = 1_000_000          # bytes: a longer log moves to blocklab.log.1 (one old log is kept)


def one_malloc_heap() -> bool:
    """Every thread allocates from the one C heap (glibc's M_ARENA_MAX = 1); True if set.

    glibc gives each thread that allocates its own heap ("arena") and keeps the free memory at the top
    of each: after large NumPy arrays are freed its threshold grows to 64 MB, and only the main heap's
    top is ever given back (malloc_trim does not shrink the others). The labs' long work runs on pool
    threads and allocates such arrays, so each pool thread's heap kept up to ~10 MB of freed pages
    between jobs (tools/soak.py: the other threads' malloc heaps moved by ±10 MB from checkpoint to
    checkpoint). In one heap that memory is reused by every thread and given back. Called before
    the application starts any thread; Linux with glibc only, and not when MALLOC_ARENA_MAX is set."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    import ctypes
    try:
        return ctypes.CDLL("libc.so.6").mallopt(-8, 1) == 1          # M_ARENA_MAX is -8 in malloc.h
    except (OSError, AttributeError):                              # not glibc
        return False


def serial_painting() -> bool:
    """Qt paints on the GUI thread alone, without its raster thread pool (QT_NO_GUI_THREADPOOL); True
    if set here. Qt's raster engine hands every fill of 96 or more spans (a glyph drawn under an
    opacity, an antialiased box taller than 96 pixels, a panel's background) to a thread pool in
    batches and waits for them: for the sizes Block Lab paints, the hand-off and the wake-ups cost
    more than the fill. A whole-window repaint of an R45 step took 5.8–13.9 ms with the pool and
    3.3–4.1 ms without it (interleaved, this 2-core machine; docs/testing.md). Qt reads the
    variable once, at its pool's first use: set before anything is painted. Not when the variable
    is set already, nor with BLOCKLAB_GUI_THREADPOOL=1 (to measure Qt's pool)."""
    if "QT_NO_GUI_THREADPOOL" in os.environ or os.environ.get("BLOCKLAB_GUI_THREADPOOL") == "1":
        return False
    os.environ["QT_NO_GUI_THREADPOOL"] = "1"
    return True


def _application(language: str | None):
    from PySide6.QtWidgets import QApplication

    from app import i18n

    if QApplication.instance() is None:
        one_malloc_heap()
        serial_painting()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Block Lab")
    app.setOrganizationName("BlockLab")
    app.setStyle("Fusion")       # one look everywhere, and one that honours the dark and high-contrast palettes
    from app.widgets.style import with_chinese_fallback

    font = app.font()
    font.setPointSize(max(font.pointSize(), 10))
    app.setFont(with_chinese_fallback(font))
    return app, i18n.install(language)


class ExceptionHook:
    """`sys.excepthook` for the GUI: a bug must never silently kill a lecture, nor bury it in dialogs.

    Every error is written with its traceback to the log (and to stderr). A dialog says so, but at
    most one is open at a time: errors that come while it is open are logged and counted in it.
    An error already reported (same type, raised at the same place) opens no dialog again, so an error raised on
    every paint or timer tick cannot stack dialogs or lock the window. After the dialog is closed
    the application carries on."""

    def __init__(self, log_path: Path | None = None):
        self._log_path = log_path
        self.errors = 0                  # every error seen
        self.unshown = 0                 # of those, the ones only logged (a dialog was open, or a repeat)
        self.dialog = None               # the QMessageBox now open, if any
        self._since_open = 0
        self._shown: set[tuple] = set()

    @property
    def log_path(self) -> Path:
        """Where errors are written: the path given, else LOG_PATH (~/.blocklab/blocklab.log)."""
        return self._log_path if self._log_path is not None else LOG_PATH

    def __call__(self, kind, value, trace) -> None:
        self.errors += 1
        text = "".join(traceback.format_exception(kind, value, trace))
        self._log(text)
        print(text, file=sys.stderr)
        signature = _signature(kind, trace)
        reported = signature in self._shown
        self._shown.add(signature)      # reported now: in this dialog, or counted in the open one
        if self.dialog is not None or reported or not _gui_running():
            self.unshown += 1
            self._count_in_dialog()
            return
        self._show(text)

    def _log(self, text: str) -> None:
        path = self.log_path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() and path.stat().st_size > LOG_LIMIT:
                path.replace(path.with_name(path.name + ".1"))
            with open(path, "a", encoding="utf-8") as log:
                log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')}\n{text}\n")
        except OSError:
            pass

    def _show(self, text: str) -> None:
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Critical, QCoreApplication.translate("launch", "Block Lab hit a bug"),
                          QCoreApplication.translate("launch", "Something went wrong, but your work is still open. "
                                                     "Details were written to %1.").replace("%1", str(self.log_path)))
        box.setObjectName("errorDialog")
        box.setDetailedText(text)
        self.dialog, self._since_open = box, 0
        try:
            box.exec()                   # a nested event loop: errors raised in it come back here, counted
        finally:
            self.dialog = None
            box.deleteLater()

    def _count_in_dialog(self) -> None:
        if self.dialog is None:
            return
        from PySide6.QtCore import QCoreApplication

        self._since_open += 1
        self.dialog.setInformativeText(
            QCoreApplication.translate("launch", "Errors since this message opened: %1 (each written to the log).")
            .replace("%1", str(self._since_open)))


def _signature(kind, trace) -> tuple:
    """An error's type and where it was raised (every frame's file and line): the same bug raised
    again, by the same paint or the same timer, has the same signature."""
    frames = traceback.extract_tb(trace) if trace is not None else []
    return (kind.__module__, kind.__qualname__, *((frame.filename, frame.lineno) for frame in frames))


def _gui_running() -> bool:
    widgets = sys.modules.get("PySide6.QtWidgets")
    return widgets is not None and widgets.QApplication.instance() is not None


_exception_hook = ExceptionHook()      # the one run_gui installs (its log path: LOG_PATH)


class OpenError(Exception):
    """A file the GUI cannot start on; str() is one line."""


def build_window(file: Path, language: str | None, step: int | str = 0, remember: bool = False,
                 zoom: float | None = None):
    """The application and a main window on `file`: a scenario, or a lesson opened at `step`
    (a 0-based position or a step id). Raises OpenError with one line if it cannot.

    `remember`: take the interface zoom and theme the user chose last time (QSettings), as the
    GUI does; screenshots and tests start from 100 % and the system's theme. `zoom` (1.0–2.5)
    overrides the zoom for this run without remembering it."""
    from core.formats.lesson import LessonError, load_lesson
    from core.formats.scenario import ScenarioError, load_scenario

    from app.main_window import MainWindow, is_lesson_file
    from app.session import Session
    from app.widgets.appearance import appearance, settings

    app, language = _application(language)
    if remember:
        appearance().restore(settings())
    if zoom is not None:
        appearance().set_zoom(zoom)
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


def run_gui(file: Path, language: str | None, present: bool = False, zoom: int | None = None) -> int:
    """The GUI on `file`; `present`: start in presentation mode; `zoom`: the interface zoom in
    percent for this run (else the one remembered)."""
    try:
        app, window = build_window(file, language, remember=True, zoom=None if zoom is None else zoom / 100)
    except OpenError as error:
        print(f"blocklab: {error}", file=sys.stderr)
        return 2
    sys.excepthook = _exception_hook
    available = app.primaryScreen().availableGeometry()
    window.resize(min(1280, available.width()), min(800, available.height()))
    if window.lessons.lesson is None and not present:
        window.lesson_bar.start_card.offer()     # free exploration: what to try first (until dismissed)
    window.show()
    if present:
        window.presentation.enter()
    from PySide6.QtCore import QTimer
    QTimer.singleShot(0, window.document.start)     # once the window is up: offer work a crash left behind
    code = app.exec()
    delete_now(window)
    return code


def delete_now(window) -> None:
    """Delete a closed window and everything in it now, while Python is whole. Left to PySide's
    clean-up at exit, a lab's plot items are deleted after their scene's parents and call back
    into a half-finalised interpreter, which crashes it (exit code 139 after a screenshot of a
    lesson step with a lab page, about half the runs)."""
    import shiboken6

    if shiboken6.isValid(window):
        shiboken6.delete(window)


def run_screenshot(out: Path, file: Path | None, size: tuple[int, int], language: str | None,
                   lesson: str | None = None, step: str | None = None, present: bool = False,
                   zoom: int | None = None) -> int:
    """Render the window offscreen at `size` and save it as a PNG. With `lesson` (an id), the
    lesson at `step`: a 1-based number or a step id. `present`: in presentation mode, as a
    projector of that size would show it; `zoom`: the interface zoom in percent (default 100)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        position: int | str = 0
        if step is not None:
            position = int(step) - 1 if step.isdigit() else step
            if isinstance(position, int) and position < 0:
                raise OpenError(f"--step: expected 1 or more, got {step}")
        if lesson is not None:
            file = find_lesson(lesson)
        app, window = build_window(file, language, position, zoom=(zoom or 100) / 100)
    except OpenError as error:
        print(f"blocklab screenshot: {error}", file=sys.stderr)
        return 2
    try:
        return _grab(app, window, out, size, present)
    finally:
        window.close()
        delete_now(window)
        if present or zoom:
            from app.widgets.appearance import appearance
            appearance().reset()       # the next window in this process starts at 100 % again


def _grab(app, window, out: Path, size: tuple[int, int], present: bool) -> int:
    window.resize(*size)
    window.show()
    if present:
        window.presentation.enter(full_screen=False)    # the window is the projector's screen
        for _ in range(3):
            app.processEvents()        # the layout's new minimum: what presentation mode hides no
        window.resize(*size)           # longer holds the window open
    for _ in range(3):
        app.processEvents()
    from app.widgets.worker import settle
    settle(app)                        # background work (a lab's demonstration, a sweep) finishes first
    window.dataflow.fit_to_window()
    app.processEvents()
    if (window.width(), window.height()) != tuple(size):
        print(f"blocklab screenshot: the window needs {window.width()}×{window.height()} at this zoom; "
              f"the picture has that size", file=sys.stderr)
    image = window.grab().toImage()
    if not image.save(str(out), "PNG"):
        print(f"blocklab screenshot: cannot write {out}", file=sys.stderr)
        return 2
    return 0
