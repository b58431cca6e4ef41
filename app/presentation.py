"""Presentation mode, the interface zoom and the theme: what a teacher at a projector needs.

F5 (the View menu, the toolbar button, `--present`) enters presentation mode: full screen on
the window's screen, the menu bar and toolbar hidden, the editing panels (block options,
checks, weights) and the inspector shown only at lesson steps whose `panels` name them, placed
where their larger text fits whole (app/presentation_panels.py: the inspector's worked formula
may take the right-hand column), the caption bar in its presentation form, every text 1.2×
larger (appearance().presenting). Esc (or F5 again) leaves and puts the window back exactly as
it was.

In presentation mode: PageDown / PageUp / Space / arrows step through the lesson
(app/lessons/keys.py); B blanks the screen and back, as slide software does (B again, a step
key or a click brings it back); 1–9 spotlight the k-th node of the diagram, 0 clears.

Anywhere: Ctrl+= / Ctrl+- / Ctrl+0 zoom the whole interface (100–250 %), and View → Theme
picks the system's colours, light, high contrast or dark; both are remembered with QSettings.
The window only creates a PresentationController and puts its actions in its menu and toolbar.
"""
from __future__ import annotations

from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QKeySequence, QPainter
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QSplitter, QToolBar, QWidget

from app.lessons.keys import STEP_KEYS, typing_in
from app.presentation_panels import StepPanels, settle_layouts
from app.widgets import style
from app.widgets.appearance import THEMES, appearance, settings


# The keys of presentation mode, for a Help page: (key, what it does), in English (tr() at the reader).
KEYS = (
    ("F5", "Enter or leave presentation mode"),
    ("Esc", "Leave presentation mode"),
    ("PageDown, →, Space", "Next step"),
    ("PageUp, ←", "Previous step"),
    ("B", "Blank the screen, and back"),
    ("1 … 9", "Spotlight the diagram's node with that number"),
    ("0", "Clear the spotlight"),
    ("Ctrl+=, Ctrl+-, Ctrl+0", "Zoom the interface in, out, back to 100 %"),
)


def numbered_nodes(view) -> list[str]:
    """The diagram's nodes in the order of the numbers it shows: the view's `numbered_nodes()`
    when it has one, else the order of its nodes."""
    numbering = getattr(view, "node_order", None)
    if callable(numbering):
        return list(numbering())
    names = getattr(view, "node_names", None)
    return list(names()) if callable(names) else []


class BlankScreen(QWidget):
    """The whole window in one colour: what the audience sees while the screen is blanked."""

    clicked = Signal()

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setObjectName("blankScreen")
        self.setFocusPolicy(Qt.NoFocus)
        self.hide()

    def colour(self) -> QColor:
        return QColor(appearance().blank_colour)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        QPainter(self).fillRect(self.rect(), self.colour())

    def mousePressEvent(self, event) -> None:  # noqa: N802
        event.accept()
        self.clicked.emit()


@dataclass
class _Layout:
    """What presentation mode changes, as it was before: put back exactly on leaving."""
    state: Qt.WindowStates
    geometry: QRect
    hidden: dict[QWidget, bool]
    splitters: list[tuple[QSplitter, tuple[QWidget, ...], QByteArray]]
    focus: QWidget | None


class PresentationController(QObject):
    """Presentation mode, blanking, spotlight keys, the interface zoom and the theme, for one window."""

    activeChanged = Signal(bool)

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.setObjectName("presentation")
        self.window = window
        self.active = False
        self.blanked = False
        self._saved: _Layout | None = None
        app = QApplication.instance()
        style.follow_appearance(app)

        self.present_action = self._action("actionPresent", self.toggle, [QKeySequence(Qt.Key_F5)], checkable=True)
        self.leave_action = self._action("actionLeavePresentation", self.leave, [QKeySequence(Qt.Key_Escape)])
        self.leave_action.setEnabled(False)       # Esc means nothing else to the window outside presentation
        self.zoom_in_action = self._action("actionInterfaceZoomIn", self.zoom_in,
                                           [QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out_action = self._action("actionInterfaceZoomOut", self.zoom_out, [QKeySequence("Ctrl+-")])
        self.zoom_reset_action = self._action("actionInterfaceZoomReset", self.reset_zoom, [QKeySequence("Ctrl+0")])
        self.theme_group = QActionGroup(self)
        self.theme_group.setExclusive(True)
        self.theme_actions: dict[str, QAction] = {}
        for theme in THEMES:
            action = self._action(f"actionTheme_{theme}", lambda _checked=False, t=theme: self.set_theme(t),
                                  checkable=True)
            self.theme_group.addAction(action)
            self.theme_actions[theme] = action
        self.theme_menu: QMenu | None = None

        self.panels = StepPanels(window)          # where a step's panels go, and back home
        self._arrange_pending = False
        self.blank_screen = BlankScreen(window)
        self.blank_screen.clicked.connect(lambda: self.set_blank(False))
        window.installEventFilter(self)            # resizes (the blank screen), language changes
        # B and the number keys: the lesson keys' application-wide filter hands them to key()
        # first while presentation mode is on (MainWindow: StepKeys.attend); no filter of its own.
        window.lessons.stepChanged.connect(self._show_step_panels)
        window.lessons.lessonChanged.connect(self._show_step_panels)
        window.lesson_bar.leave.clicked.connect(self.leave)
        appearance().changed.connect(self._appearance_changed)
        self.retranslate()
        self._appearance_changed()

    def _action(self, name: str, slot, shortcuts=(), checkable: bool = False) -> QAction:
        action = QAction(self.window)
        action.setObjectName(name)
        action.setCheckable(checkable)
        if shortcuts:
            action.setShortcuts(list(shortcuts))
        action.triggered.connect(slot)
        self.window.addAction(action)              # shortcuts work with the menu bar hidden
        return action

    def add_to_view_menu(self, menu: QMenu) -> None:
        """The View menu's section: presentation mode, the interface zoom, the theme."""
        menu.addSeparator()
        menu.addAction(self.present_action)
        menu.addSeparator()
        for action in (self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action):
            menu.addAction(action)
        self.theme_menu = menu.addMenu("")
        self.theme_menu.setObjectName("menuTheme")
        for action in self.theme_actions.values():
            self.theme_menu.addAction(action)
        self.retranslate()

    def retranslate(self) -> None:
        tr = self.tr
        self.present_action.setText(tr("Presentation mode"))
        self.present_action.setIconText(tr("Present"))
        self.present_action.setToolTip(tr("Full screen for a projector: the diagram, the plots and the caption, "
                                          "large (F5; Esc leaves)"))
        self.leave_action.setText(tr("Leave presentation mode"))
        self.zoom_in_action.setText(tr("Larger interface"))
        self.zoom_out_action.setText(tr("Smaller interface"))
        self.zoom_reset_action.setText(tr("Interface at 100 %"))
        names = {"system": tr("Follow the system"), "light": tr("Light"),
                 "contrast": tr("High contrast (for projectors)"), "dark": tr("Dark")}
        for theme, action in self.theme_actions.items():
            action.setText(names[theme])
        if self.theme_menu is not None:
            self.theme_menu.setTitle(tr("Theme"))

    # --- presentation mode ---------------------------------------------------------------------
    def toggle(self) -> None:
        if self.active:
            self.leave()
        else:
            self.enter()

    def enter(self, full_screen: bool = True) -> None:
        """Presentation mode; `full_screen=False` keeps the window's size (screenshots, tests)."""
        if self.active:
            return
        window = self.window
        watched = [window.menuBar(), *window.findChildren(QToolBar), *self.panels.boxes.values(), self.panels.right]
        self._saved = _Layout(
            state=window.windowState(), geometry=window.geometry(),
            hidden={widget: widget.isHidden() for widget in watched if widget is not None},
            splitters=[(splitter, _children(splitter), splitter.saveState())
                       for splitter in window.findChildren(QSplitter)],
            focus=QApplication.focusWidget())
        self.active = True
        window.menuBar().hide()
        for bar in window.findChildren(QToolBar):
            bar.hide()
        window.lesson_bar.set_presenting(True)
        appearance().set_presenting(True)
        window.dataflow.set_click_spotlight(True)         # a click on a node spotlights it
        self._show_step_panels()
        if full_screen:
            window.showFullScreen()                # on the screen the window is on
        self._sync_actions()
        self._focus_the_work()
        self.activeChanged.emit(True)

    def leave(self) -> None:
        """Back to the window exactly as it was before presentation mode."""
        if not self.active:
            return
        saved, window = self._saved, self.window
        self.set_blank(False)
        self.active = False
        window.lesson_bar.set_presenting(False)
        appearance().set_presenting(False)
        window.dataflow.set_click_spotlight(False)
        self.panels.go_home()                      # before the splitters: their widgets as they were
        # A widget saved on entering may be gone since (a dialog closed, a lab page rebuilt):
        # what is left is put back, and the rest is skipped.
        for widget, hidden in saved.hidden.items():
            if shiboken6.isValid(widget):
                widget.setHidden(hidden)
        settle_layouts()                           # the normal text and panels laid out: then the sizes
        for splitter, children, state in saved.splitters:
            # A lesson step may have moved the diagram meanwhile: a splitter whose widgets
            # changed keeps the layout the window gave it for that step.
            if shiboken6.isValid(splitter) and _children(splitter) == children:
                splitter.restoreState(state)
        if window.isFullScreen() and not saved.state & Qt.WindowFullScreen:
            window.showNormal()
        window.setWindowState(saved.state)
        if not saved.state & (Qt.WindowFullScreen | Qt.WindowMaximized):
            window.setGeometry(saved.geometry)     # as it was (restoreGeometry would fit it to the screen)
        if saved.focus is not None and shiboken6.isValid(saved.focus) and saved.focus.isVisible():
            saved.focus.setFocus()
        self._saved = None
        self._sync_actions()
        self.activeChanged.emit(False)

    def _sync_actions(self) -> None:
        self.present_action.setChecked(self.active)
        self.leave_action.setEnabled(self.active)

    def _show_step_panels(self) -> None:
        """In presentation mode, show the boxes the step names (the editing ones only then), each
        where its text fits whole (StepPanels.arrange)."""
        if not self.active:
            return
        step = self.window.lessons.step
        named = set(step.panels) if step is not None else set()
        free = step is None or not step.panels     # no lesson, or a step that names nothing
        shown = {panel for panel in self.panels.boxes if panel in named or (panel == "inspector" and free)}
        self.panels.arrange(shown, plots_named=free or any(panel.split(".")[0] == "plots" for panel in named))

    def _arrange_soon(self) -> None:
        """Place the step's panels again once the window has its new size or zoom (once for many)."""
        if self.active and not self._arrange_pending:
            self._arrange_pending = True
            QTimer.singleShot(0, self._arrange_now)

    def _arrange_now(self) -> None:
        self._arrange_pending = False
        self._show_step_panels()

    def _focus_the_work(self) -> None:
        """Keys go to the window, not to a panel that is now hidden or to an input."""
        dataflow = getattr(self.window, "dataflow", None)
        if dataflow is not None and dataflow.isVisible():
            dataflow.setFocus(Qt.OtherFocusReason)
        else:
            self.window.setFocus(Qt.OtherFocusReason)

    # --- blanking and the spotlight ---------------------------------------------------------
    def set_blank(self, blank: bool | None = None) -> None:
        """Blank the screen (None: toggle). Only in presentation mode."""
        blank = (not self.blanked) if blank is None else bool(blank)
        blank = blank and self.active
        if blank == self.blanked:
            return
        self.blanked = blank
        if blank:
            self.blank_screen.setGeometry(self.window.rect())
            self.blank_screen.raise_()
            self.blank_screen.show()
        else:
            self.blank_screen.hide()

    def spotlight(self, number: int) -> None:
        """Spotlight the diagram's node number `number` (1-based); 0 clears the spotlight."""
        view = getattr(self.window, "dataflow", None)
        spotlight = getattr(view, "spotlight", None)
        if not callable(spotlight):
            return
        if number == 0:
            spotlight(None)
            return
        hooks = numbered_nodes(view)
        if 1 <= number <= len(hooks):
            spotlight(hooks[number - 1])
        else:
            spotlight(None)

    # --- zoom and theme ------------------------------------------------------------------------
    def zoom_in(self) -> None:
        appearance().zoom_in()
        self._remember_zoom()

    def zoom_out(self) -> None:
        appearance().zoom_out()
        self._remember_zoom()

    def reset_zoom(self) -> None:
        appearance().set_zoom(1.0)
        self._remember_zoom()

    def _remember_zoom(self) -> None:
        appearance().remember(settings())
        percent = round(appearance().zoom * 100)
        self.window.statusBar().showMessage(self.tr("Interface zoom: %1 %").replace("%1", str(percent)), 4000)

    def set_theme(self, theme: str) -> None:
        appearance().set_theme(theme)
        appearance().remember(settings())

    def _appearance_changed(self) -> None:
        look = appearance()
        self._arrange_soon()                       # another zoom: other sizes
        self.theme_actions[look.theme].setChecked(True)
        self.zoom_in_action.setEnabled(look.zoom < 2.5)
        self.zoom_out_action.setEnabled(look.zoom > 1.0)
        self.blank_screen.update()

    # --- events ----------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.window:
            kind = event.type()
            if kind == QEvent.Resize:
                if self.blanked:
                    self.blank_screen.setGeometry(self.window.rect())
                self._arrange_soon()               # the panels' places depend on the room
            elif kind == QEvent.LanguageChange:
                self.retranslate()
                self._arrange_soon()               # the other language's texts: other heights
            elif kind == QEvent.Close and self.active:
                self.leave()                       # the next window starts at the normal size
        return False

    def key(self, event) -> bool:
        """A key press in the window while presenting (from StepKeys): whether it was presentation mode's."""
        key = event.key()
        plain = not (event.modifiers() & ~Qt.KeypadModifier)
        if self.blanked:
            # B again, a step key or any plain key brings the screen back (without stepping);
            # keys with modifiers (the zoom) still work.
            if plain or key in STEP_KEYS:
                self.set_blank(False)
                return True
            return False
        if not plain or typing_in(QApplication.focusWidget(), presenting=True):
            return False
        if key == Qt.Key_B:
            self.set_blank(True)
            return True
        if Qt.Key_0 <= key <= Qt.Key_9:
            self.spotlight(key - Qt.Key_0)
            return True
        return False


def _children(splitter: QSplitter) -> tuple[QWidget, ...]:
    return tuple(splitter.widget(i) for i in range(splitter.count()))
