import os

import pytest

from tests.app.helpers import FakeClock, make_session
from tests.app.no_modal import ANSWERS_ITS_DIALOGS, forbid_modal_loops


@pytest.fixture(autouse=True, scope="session")
def private_user_folders(tmp_path_factory):
    """The tests' settings (recent files, remembered folders), documents folder and recovery
    slots live in a temporary folder, never in the user's own."""
    home = tmp_path_factory.mktemp("user")
    (home / "config").mkdir()
    (home / "Documents").mkdir()
    (home / "config" / "user-dirs.dirs").write_text(f'XDG_DOCUMENTS_DIR="{home / "Documents"}"\n', encoding="utf-8")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    from PySide6.QtCore import QSettings
    for kind in (QSettings.NativeFormat, QSettings.IniFormat):
        QSettings.setPath(kind, QSettings.UserScope, str(home / "config"))
    return home


def pytest_configure(config):
    config.addinivalue_line("markers", f"{ANSWERS_ITS_DIALOGS}: the test closes the modal dialogs and menus it opens "
                                       "itself (a timer that closes the popup): tests/app/no_modal.py stays off")


@pytest.fixture(autouse=True)
def no_modal_dialogs(request, monkeypatch):
    """A modal dialog or event loop a test did not answer raises ModalLoopInTest instead of
    waiting forever offscreen (tests/app/no_modal.py); a test that answers one patches it after,
    or is marked `answers_its_dialogs` when it closes a real one itself."""
    if request.node.get_closest_marker(ANSWERS_ITS_DIALOGS) is None:
        forbid_modal_loops(monkeypatch)


@pytest.fixture(autouse=True)
def unsaved_work_is_discarded_on_close(monkeypatch):
    """A window a test leaves with unsaved edits closes without the Save / Discard / Cancel
    question (a modal dialog would wait forever offscreen); tests of the question answer it."""
    from app import document
    monkeypatch.setattr(document, "ask_unsaved", lambda *args, **kwargs: document.Answer.DISCARD)


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A test that switches to Chinese must not leave the translator installed for the next."""
    yield
    from PySide6.QtCore import QCoreApplication
    if QCoreApplication.instance() is not None:
        from app import i18n
        i18n.install("en")


@pytest.fixture(autouse=True)
def delete_closed_widgets():
    """Really delete what a test closed. pytest-qt closes the widgets of `qtbot.addWidget` and
    calls deleteLater(), but nothing runs an event loop between tests, so without this every
    window of every earlier test stayed alive: each kept its application-wide event filter
    (the clicker keys) and retranslated itself on every language switch, and the suite slowed
    down test by test (a Chinese-interface test took 45 s, a window 3–9 s to build).
    A main window closed without qtbot (the screenshot command) is deleted too."""
    yield
    from PySide6.QtCore import QCoreApplication, QEvent
    from PySide6.QtWidgets import QApplication
    if QCoreApplication.instance() is None:
        return
    from app.main_window import MainWindow
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow) and not widget.isVisible():
            widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


@pytest.fixture(autouse=True, scope="module")
def delete_what_a_test_file_left_hidden():
    """At the end of each test file, delete the hidden top-level widgets it left that have no parent.

    A window deleted between tests takes its children with it, but not the widgets Python made
    without a parent: pyqtgraph gives every PlotItem a parentless "Plot Options" QMenu (with eight
    submenus), and some panels keep a label of their own out of their layout. Their Python objects
    outlive the deleted window, so each stayed alive for the rest of the run: about 6,000 hidden
    top-level widgets in a worker by the end of tests/app, each sent every language change, font
    and palette change the later tests make (a live language switch took 12 s in the suite, 2 s
    alone; a gc pass over the 500,000 objects they held several seconds). Done once per file, after
    the file's own module fixtures are gone, so no fixture shared by a file's tests loses a widget."""
    from PySide6.QtWidgets import QApplication
    from shiboken6 import getCppPointer

    def address(widget) -> int:             # the C++ object (a widget made by Qt gets a new wrapper each time)
        return getCppPointer(widget)[0]

    before = {address(widget) for widget in QApplication.topLevelWidgets()} if QApplication.instance() else set()
    yield
    if QApplication.instance() is None:
        return
    from PySide6.QtCore import QCoreApplication, QEvent
    for widget in QApplication.topLevelWidgets():
        if address(widget) not in before and widget.parent() is None and not widget.isVisible():
            widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


@pytest.fixture(scope="session", autouse=True)
def private_settings(tmp_path_factory):
    """QSettings (the remembered zoom and theme) in a temporary folder: no test reads or writes
    the user's own settings."""
    from PySide6.QtCore import QSettings
    folder = str(tmp_path_factory.mktemp("settings"))
    for kind in (QSettings.NativeFormat, QSettings.IniFormat):
        for scope in (QSettings.UserScope, QSettings.SystemScope):
            QSettings.setPath(kind, scope, folder)


@pytest.fixture(autouse=True)
def default_appearance():
    """A test that zooms, presents or changes the theme leaves 100 %, the system's theme and
    empty settings behind for the next."""
    yield
    import sys
    if "app.widgets.appearance" in sys.modules:
        from app.widgets.appearance import appearance, settings
        appearance().reset()
        settings().clear()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def session(qapp, clock):
    """The default block's Session, no widget; its undo merging runs on the fake `clock`."""
    return make_session("block-default.json", clock)


@pytest.fixture
def projector(qtbot):
    """Presenting at 150 % in the language asked for; English again afterwards."""
    from app import i18n
    from app.widgets.appearance import appearance

    def present(language: str) -> None:
        i18n.install(language)
        appearance().set_zoom(1.5)
        appearance().set_presenting(True)

    yield present
    i18n.install("en")
