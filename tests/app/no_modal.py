"""No test can wait on a dialog nobody will close.

Offscreen, a modal dialog or a nested event loop that a test did not answer waits forever, and
the whole run stalls without a word. `forbid_modal_loops(monkeypatch)` (an autouse fixture of
tests/app/conftest.py) replaces, for one test, every way the app could block like that:

- `exec()` of QDialog (so of QMessageBox, QFileDialog, … when Python calls it) and QDrag;
- `exec()` of every QMenu made from Python: PySide resolves `menu.exec` on an instance to the C++
  method whatever the class attribute says (QMenu also has a static exec), so each new menu gets
  the refusal as its own attribute. A menu Qt makes itself (createStandardContextMenu) is not
  covered: that one, like any other stall, shows up in the stack dump of faulthandler_timeout;
- the static dialogs, which run their own loop inside Qt where no Python patch reaches:
  QFileDialog.get…, QMessageBox.about/critical/information/question/warning,
  QInputDialog.get…, QColorDialog.getColor, QFontDialog.getFont;
- the application's own event loop, QApplication.exec (nothing in a test would quit it).

Each replacement raises ModalLoopInTest at once, naming what was opened (and a message box's
title and text), so the test fails where the dialog came from instead of hanging. A test that
means to answer a dialog replaces it itself, after this (`monkeypatch.setattr(QMessageBox,
"exec", answer)`), or replaces the function of the app that asks (`app.document.warn`, …); a
test that opens a real one and closes it itself (a timer that closes the popup) is marked
`@pytest.mark.answers_its_dialogs`.
Non-blocking ways of showing a dialog (`open()`, `show()`) are left alone.
"""
from __future__ import annotations


ANSWERS_ITS_DIALOGS = "answers_its_dialogs"     # the mark of a test that closes a real one itself


class ModalLoopInTest(AssertionError):
    """A test opened a modal dialog or event loop that nothing would close."""


STATIC_DIALOGS = {
    "QFileDialog": ("getExistingDirectory", "getExistingDirectoryUrl", "getOpenFileName", "getOpenFileNames",
                    "getOpenFileUrl", "getOpenFileUrls", "getSaveFileName", "getSaveFileUrl"),
    "QMessageBox": ("about", "aboutQt", "critical", "information", "question", "warning"),
    "QInputDialog": ("getDouble", "getInt", "getItem", "getMultiLineText", "getText"),
    "QColorDialog": ("getColor",),
    "QFontDialog": ("getFont",),
}


def describe(what: str, owner=None, args=()) -> str:
    text = f"{what} was called in a test: offscreen nobody can close it and the run would wait forever."
    words = [arg for arg in args if isinstance(arg, str)]
    if words:
        text += f" Called with {words!r}."
    title = getattr(owner, "windowTitle", None)
    body = getattr(owner, "text", None)
    if callable(title) and callable(body):
        try:
            text += f" Its title: {title()!r}; its text: {body()!r}."
        except (RuntimeError, TypeError):     # a deleted object, or a `text` that is not the message's
            pass
    return text + " Answer it in the test (monkeypatch the dialog or the function of the app that asks)."


def _refusing(owner: type, what: str, static: bool = False):
    """A stand-in for `owner.<what>`: called on an instance (a message box) or on the class (the
    static getters, QApplication.exec()), it raises."""
    def refuse(*args, **kwargs):
        shown = args[0] if args and isinstance(args[0], owner) else None
        raise ModalLoopInTest(describe(what, shown, args))
    return staticmethod(refuse) if static else refuse


def forbid_modal_loops(monkeypatch) -> None:
    """For the current test: every modal dialog and nested application loop raises ModalLoopInTest."""
    from PySide6 import QtCore, QtGui, QtWidgets

    for owner, name in ((QtWidgets.QDialog, "exec"), (QtWidgets.QMenu, "exec"), (QtGui.QDrag, "exec"),
                        (QtCore.QCoreApplication, "exec"), (QtGui.QGuiApplication, "exec"),
                        (QtWidgets.QApplication, "exec")):
        for attribute in (name, name + "_"):
            if attribute in vars(owner):
                monkeypatch.setattr(owner, attribute, _refusing(owner, f"{owner.__name__}.{attribute}()"))
    menu_init = QtWidgets.QMenu.__init__

    def init_menu(menu, *args, **kwargs):
        menu_init(menu, *args, **kwargs)
        menu.exec = _refusing(QtWidgets.QMenu, "QMenu.exec()").__get__(menu)

    monkeypatch.setattr(QtWidgets.QMenu, "__init__", init_menu)
    for class_name, functions in STATIC_DIALOGS.items():
        owner = getattr(QtWidgets, class_name)
        for function in functions:
            monkeypatch.setattr(owner, function, _refusing(owner, f"{class_name}.{function}()", static=True))
