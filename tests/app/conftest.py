import pytest

from tests.app.helpers import FakeClock, make_session


@pytest.fixture(scope="session", autouse=True)
def private_settings(tmp_path_factory):
    """QSettings (the start card's "don't show again", …) live in a temporary folder during the
    tests: never read from nor written to the user's own settings."""
    from PySide6.QtCore import QSettings
    folder = tmp_path_factory.mktemp("settings")
    for kind in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(kind, QSettings.Scope.UserScope, str(folder / "user"))
        QSettings.setPath(kind, QSettings.Scope.SystemScope, str(folder / "system"))
    return folder


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


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def session(qapp, clock):
    """The default block's Session, no widget; its undo merging runs on the fake `clock`."""
    return make_session("block-default.json", clock)
