"""A stand-in for the main window with just what app.document and app.export use (a Session, the
lesson controller, the path, the title), so that their tests stay in the widget tier."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from PySide6.QtWidgets import QWidget

from app.document import Document
from app.export import Exporter
from app.lessons.controller import LessonController
from tests.app.helpers import make_session
from tests.conftest import SCENARIOS


class FakeWindow(QWidget):
    def __init__(self, session, path: Path | None):
        super().__init__()
        self.session, self.path = session, path
        self.lessons = LessonController(session, self)
        self.lesson_bar = SimpleNamespace(show_open_lesson=lambda: None)
        # The views File → Export hands each export to, with the methods the real ones have. Each
        # records the path it was asked to write in `exported` and succeeds (a test may replace
        # one with a method that fails); what the real views write is tested with the views.
        self.exported: list[tuple[str, Path]] = []
        self.dataflow = SimpleNamespace(export_image=self._recorder("diagram"))
        self.plots = SimpleNamespace(export_current=self._recorder("plot"))
        self.inspector = SimpleNamespace(export_tensor=self._recorder("values"),
                                         equation_text=lambda: "mlp.hook_post = ReLU(pre) = 0.5")
        self.weight_editor = SimpleNamespace(current_tensor=lambda: session.edit_tensor,
                                             export_tensor=self._recorder("weights"))
        self.document = Document(self)
        self.exporter = Exporter(self)

    def _recorder(self, what: str):
        def export(path) -> bool:
            self.exported.append((what, Path(path)))
            return True
        return export

    def _refresh_title(self) -> None:
        self.setWindowTitle(f"{self.path.name if self.path else 'new'}[*] — Block Lab")

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.document.close_requested():
            event.ignore()
            return
        super().closeEvent(event)


def fake_window(qtbot, name: str = "block-default.json", path: Path | None = None, clock=None) -> FakeWindow:
    """A FakeWindow on a shipped scenario (or on the copy at `path`), registered with qtbot."""
    session = make_session(name, clock)
    window = FakeWindow(session, path or SCENARIOS / name)
    qtbot.addWidget(window)
    return window
