"""The explorer window: assembles the panels and the actions; owns no logic of its own."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QApplication, QGroupBox, QLabel, QMainWindow, QSizePolicy, QSplitter, QStackedWidget,
                               QToolBar, QVBoxLayout, QWidget)

from core.numbers import format_number

from app import i18n
from app.document import Document, is_lesson_file  # noqa: F401 (is_lesson_file: app.launch imports it from here)
from app.export import Exporter

from app.explorer.config_panel import ConfigPanel, InvariantsPanel
from app.help import HelpMenu
from app.language import LanguageMenu, WindowTexts
from app.labs import build_lab_panel
from app.explorer.dataflow import DataflowView
from app.explorer.inspector import Inspector
from app.lessons.bar import LessonBar
from app.lessons.controller import LessonController
from app.lessons.keys import StepKeys
from app.lessons.menu import LessonsMenu
from app.explorer.plots import PlotsPanel
from app.presentation import PresentationController
from app.session import Change, Session
from app.explorer.weights_editor import WeightEditor
from app.widgets.column_scroll import ColumnScroll
from app.widgets.steady_label import SteadyLabel
from app.undo_actions import UndoRedoActions


def _boxed(title: str, widget: QWidget, name: str) -> QGroupBox:
    box = QGroupBox(title)
    box.setObjectName(name)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(4, 4, 4, 4)
    layout.addWidget(widget)
    return box


class MainWindow(QMainWindow):
    def __init__(self, session: Session, path: Path | None = None, language: str = "en"):
        super().__init__()
        self.setObjectName("mainWindow")
        self.session = session
        self.path = path
        self.language = language

        self.dataflow = DataflowView(session)
        self.inspector = Inspector(session)
        self.plots = PlotsPanel(session)
        self.config_panel = ConfigPanel(session)
        self.invariants = InvariantsPanel(session)
        self.weight_editor = WeightEditor(session)

        # Explicit minimums let the splitters share space by proportion instead of by the
        # panels' (generous) size hints.
        self.plots.setMinimumWidth(320)
        self.inspector.setMinimumWidth(280)
        bottom = QSplitter(Qt.Horizontal)
        bottom.setObjectName("bottomSplitter")
        bottom.addWidget(_boxed(self.tr("Inspector"), self.inspector, "inspectorBox"))
        bottom.addWidget(self.plots)
        bottom.setSizes([460, 440])
        left = QSplitter(Qt.Vertical)
        left.setObjectName("leftSplitter")
        left.addWidget(self.dataflow)
        self._left = left
        left.addWidget(bottom)
        left.setSizes([380, 400])
        right = QWidget()
        right.setObjectName("rightColumn")
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(_boxed(self.tr("Block options"), self.config_panel, "configBox"))
        right_layout.addWidget(_boxed(self.tr("Checks"), self.invariants, "invariantsBox"))
        right_layout.addWidget(_boxed(self.tr("Weights and inputs"), self.weight_editor, "weightsBox"), 1)
        # The column scrolls up and down when the window is too short for its panels (150 % on
        # 800 px) rather than crushing them; it never scrolls sideways. At least 340 px at the desk,
        # or what its panels need (their own least width, the block options' names above their fields).
        right_column = ColumnScroll(right, "rightColumnScroll")
        right_column.set_least_width(340)
        # The work area: the explorer's block view, or a lesson's own lab panel in its place.
        self.work = QStackedWidget()
        self.work.setObjectName("workArea")
        self.work.addWidget(left)
        self.work.currentChanged.connect(self._only_the_shown_page_counts)
        self.labs: dict[str, QWidget] = {}
        main = QSplitter(Qt.Horizontal)
        main.setObjectName("mainSplitter")
        main.addWidget(self.work)
        main.addWidget(right_column)
        main.setStretchFactor(0, 3)
        main.setStretchFactor(1, 1)
        main.setSizes([900, 380])
        self.lessons = LessonController(session, self)
        self.lesson_bar = LessonBar(self.lessons, self, language)
        self.document = Document(self)         # the file: New, Open, Save, recent files, autosave
        self.exporter = Exporter(self)
        central = QWidget()
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.lesson_bar)
        column.addWidget(main, 1)
        self.setCentralWidget(central)
        self.lessons.stepChanged.connect(self._step_shown)
        self.lessons.lessonChanged.connect(self._lesson_shown)
        self._step_keys = StepKeys(self.lessons, self)     # an application-wide filter while a lesson is open
        self._splitters = (main, left, bottom)
        self._sized = False

        self.mse_label = SteadyLabel()          # its live number: no relayout of the window per edit
        self.mse_label.setObjectName("statusMse")
        # Opaque, in the window's colour (the status bar draws nothing under it): a new MSE repaints
        # the label alone, not the status bar and the window behind it as well.
        self.mse_label.setAutoFillBackground(True)
        self.statusBar().addPermanentWidget(self.mse_label)
        session.message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        session.changed.connect(self._on_changed)
        self.presentation = PresentationController(self)     # F5, Esc, B, 1–9, interface zoom, themes
        self._step_keys.attend(self.presentation)            # its keys through the same filter, first
        self.presentation.activeChanged.connect(lambda active: active and self.lesson_bar.start_card.hide())
        self._build_actions()
        self._refresh_status()
        self._refresh_title()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Share the space by proportion once the real window size is known."""
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            main, left, bottom = self._splitters
            width, height = self.width(), self.height()
            right = max(340, min(460, int(width * 0.29)))
            main.setSizes([width - right, right])
            left.setSizes([int(height * 0.47), int(height * 0.53)])
            bottom.setSizes([int((width - right) * 0.42), int((width - right) * 0.58)])

    # --- actions --------------------------------------------------------------------------
    def _action(self, name: str, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        action.setObjectName(name)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self._undo_redo = UndoRedoActions(self.session.undo_stack, self)   # the platform's keys, each once
        self.undo_action, self.redo_action = self._undo_redo.undo, self._undo_redo.redo
        quit_action = self._action("actionQuit", self.tr("Quit"), self.close, QKeySequence.Quit)
        reset_action = self._action("actionResetAll", self.tr("Reset to the scenario as loaded"), self.session.reset_all)
        target_action = self._action("actionUseOutputAsTarget", self.tr("Use the current output as target"),
                                     self.session.use_output_as_targets)
        # Ctrl+= / Ctrl+- / Ctrl+0 zoom the whole interface (self.presentation); the block has F and the wheel.
        fit_action = self._action("actionFit", self.tr("Fit the block to the window"), self.dataflow.fit_to_window, "F")
        zoom_in = self._action("actionZoomIn", self.tr("Zoom in"), self.dataflow.zoom_in)
        zoom_out = self._action("actionZoomOut", self.tr("Zoom out"), self.dataflow.zoom_out)

        menus = self.menuBar()
        file_menu = menus.addMenu(self.tr("&File"))
        self.document.actions.add_to(file_menu)
        file_menu.addSeparator()
        self.exporter.add_to(file_menu)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        edit_menu = menus.addMenu(self.tr("&Edit"))
        for action in (self.undo_action, self.redo_action, reset_action, target_action):
            edit_menu.addAction(action)
        view_menu = menus.addMenu(self.tr("&View"))
        for action in (fit_action, zoom_in, zoom_out):
            view_menu.addAction(action)
        self.presentation.add_to_view_menu(view_menu)
        # The toolbar sits at the end of the lesson bar's first row, not in a row of its own.
        toolbar = QToolBar(self.tr("Toolbar"), self)
        toolbar.setObjectName("mainToolBar")
        toolbar.setMovable(False)
        toolbar.addAction(self.presentation.present_action)
        self.lesson_bar.add_trailing(toolbar)
        menus.addMenu(LessonsMenu(self))
        menus.addMenu(LanguageMenu(self))
        menus.addMenu(HelpMenu(self, self.lesson_bar.start_card))
        self._texts = WindowTexts(self)            # menus and actions follow a language switch
        self.addAction(self.undo_action)
        self.addAction(self.redo_action)

    def open_file(self, path: Path) -> bool:
        """Open a scenario or a lesson (app.document decides; a refused file changes nothing)."""
        return self.document.open_file(path)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Unsaved work is asked about first (Save / Discard / Cancel)."""
        if not self.document.close_requested():
            event.ignore()
            return
        super().closeEvent(event)

    def _step_shown(self) -> None:
        """A lesson step is on: emphasise what its caption talks about, bring its panels forward."""
        step = self.lessons.step
        highlight = step.highlight
        self.session.set_highlight(highlight.hooks, [(cell.hook, cell.index) for cell in highlight.cells])
        self.show_panels(step.panels)

    def _only_the_shown_page_counts(self, _index: int = 0) -> None:
        """A page of the work area out of sight does not count in its least size (a lab seen before
        would keep the explorer's columns from narrowing: a stack is as large as its largest page)."""
        for index in range(self.work.count()):
            page = self.work.widget(index)
            if page.property("homePolicy") is None:
                page.setProperty("homePolicy", page.sizePolicy())
            shown = page is self.work.currentWidget()
            policy = page.property("homePolicy") if shown else QSizePolicy(QSizePolicy.Ignored, QSizePolicy.Ignored)
            if page.sizePolicy() != policy:
                page.setSizePolicy(policy)

    def _lesson_shown(self) -> None:
        if self.lessons.lesson is None:
            self.session.set_highlight()
            self.show_panels(())

    def show_panels(self, panels: tuple[str, ...]) -> None:
        """Bring forward what a lesson step names: a plot tab, or a lab panel at one of its parts."""
        lab = next((name for name in panels if name.startswith("lab.")), None)
        if lab is None:
            self._place_dataflow(self._left)
            self.work.setCurrentIndex(0)
        else:
            _, panel, part = lab.split(".", 2)
            widget = self._lab(panel)
            page = widget.parentWidget()
            # A step that names the dataflow too shows the block above the lab.
            self._place_dataflow(page if "dataflow" in panels else self._left)
            self.work.setCurrentWidget(page)
            widget.set_focus(part)
        for name in panels:
            if name.startswith("plots."):
                self.plots.show_tab(name.split(".", 1)[1])
                break

    def _lab(self, panel: str) -> QWidget:
        """Lab panels are built the first time a step asks for one, from the lab registry
        (an unknown id raises UnknownLab: the lesson loader refuses such a step first)."""
        if panel not in self.labs:
            widget = build_lab_panel(panel, self.session)
            self.labs[panel] = widget
            page = QSplitter(Qt.Vertical)
            page.setObjectName(f"labPage_{panel}")
            # Opaque, in the window's colour (nothing behind it draws more): a lab's live numbers
            # repaint the lab, not the work area, the splitter and the window behind it as well.
            page.setAutoFillBackground(True)
            page.addWidget(widget)
            self.work.addWidget(page)
            self._only_the_shown_page_counts()
        return self.labs[panel]

    def _place_dataflow(self, splitter: QSplitter) -> None:
        """The one dataflow view lives in the explorer, or above a lab that asks for it."""
        if self.dataflow.parentWidget() is not splitter:
            splitter.insertWidget(0, self.dataflow)
            if splitter is not self._left:
                splitter.setSizes([max(1, splitter.height() * 2 // 5), max(1, splitter.height() * 3 // 5)])
            else:
                splitter.setSizes([int(self.height() * 0.47), int(self.height() * 0.53)])

    def open_lesson(self, path: Path, step: int = 0) -> bool:
        return self.document.open_lesson(path, step)

    # --- status ---------------------------------------------------------------------------
    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.language = i18n.language()
            self._refresh_status()
            self.mse_label.release()           # the new words' room, no more
            self._refresh_title()
        super().changeEvent(event)

    def _on_changed(self, change: Change) -> None:
        if change & Change.TRACE:
            self.statusBar().clearMessage()    # an accepted change: an earlier refusal no longer applies
            self._refresh_status()
        if change & Change.LOADED:
            self.mse_label.release()           # another block: the room its MSE needs, no more
            self._refresh_title()

    def _refresh_status(self) -> None:
        mse = self.session.mse
        self.mse_label.setText(self.tr("Block output vs targets: MSE %1").replace("%1", format_number(mse))
                               if mse is not None else self.tr("no targets"))

    def _refresh_title(self) -> None:
        lesson = self.lessons.lesson if hasattr(self, "lessons") else None
        title = {"zh": lesson.title.zh, "en": lesson.title.en} if lesson is not None else self.session.loaded.title
        text = title.get(self.language) or title.get("en") or title.get("zh") or ""
        name = self.path.name if self.path else ""
        parts = [part for part in (text, name, "Block Lab") if part]
        parts[-2 if len(parts) > 1 else 0] += "[*]"        # "*" there while there are unsaved changes
        self.setWindowTitle(" — ".join(parts))

