"""The plots panel: five tabs following one Session, redrawn only when on screen.

Public API for the rest of the window:
- `show_tab(name)`: attention, hidden, residual, activation or mse (lesson steps use it).
- `export_current(path)`: write the figure of the tab on screen to a .png or .svg file (File →
  Export calls it); raises `ExportError` with a one-sentence reason, writing nothing.
- A right-click on any figure offers "Export as PNG…" and "Export as SVG…".
"""
from __future__ import annotations

import atexit
import weakref
from pathlib import Path

import shiboken6

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QStandardPaths, Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QMenu, QMessageBox, QTabWidget, QWidget

from app.explorer.plots.activation import ActivationTab
from app.explorer.plots.attention import AttentionTab
from app.explorer.plots.common import PlotTab
from app.explorer.plots.export import ExportError, export_figure
from app.explorer.plots.hidden import HiddenUnitsTab
from app.explorer.plots.mse import MseTab
from app.explorer.plots.residual import ResidualTab
from app.explorer.plots.tab_overflow import TabOverflow
from app.session import Change
from app.widgets.appearance import appearance
from app.widgets.menus import popup_once


_PANELS: "weakref.WeakSet[PlotsPanel]" = weakref.WeakSet()


@atexit.register
def _delete_panels() -> None:
    """Delete the panels' Qt objects while Python still runs, before PySide's own clean-up
    deletes whatever Python still holds in an arbitrary order: a plot's items, deleted after
    their parents, call back into Python mid-way and crash the interpreter at exit. (atexit
    runs this before PySide's clean-up, which was registered earlier.)"""
    for panel in list(_PANELS):
        if shiboken6.isValid(panel):
            for tab in panel._tabs():
                tab.close_down()
            shiboken6.delete(panel)


class PlotsPanel(QTabWidget):
    """The explorer's plot tabs, following one Session."""

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("plotsPanel")
        _PANELS.add(self)
        self.session = session
        self.attention_tab = AttentionTab(session)
        self.hidden_tab = HiddenUnitsTab(session)
        self.residual_tab = ResidualTab(session)
        self.activation_tab = ActivationTab(session)
        self.mse_tab = MseTab(session)
        for tab in self._tabs():
            self.addTab(tab, "")
            if tab.graphics is not None:
                tab.graphics.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
                tab.graphics.customContextMenuRequested.connect(
                    lambda pos, tab=tab: self._context_menu(tab, pos))
        self.context_menu: QMenu | None = None
        self.overflow = TabOverflow(self)     # a narrow panel: the tabs that fit and a menu of all
        self.retranslate()
        self._stale: set[PlotTab] = set()
        self.currentChanged.connect(lambda _index: self._refresh_visible())
        session.changed.connect(self._on_changed)
        appearance().changed.connect(self._appearance_changed)

    def _tabs(self) -> list[PlotTab]:
        return [self.attention_tab, self.hidden_tab, self.residual_tab, self.activation_tab, self.mse_tab]

    # --- following the session, the language and the appearance ----------------------------
    def _on_changed(self, change: Change) -> None:
        if change & Change.TRACE:
            self.refresh()
        elif change & Change.SELECTION:
            self._selection_changed()
        if change & Change.EDIT_TARGET:
            self.mse_tab.schedule_sweep()

    def retranslate(self) -> None:
        titles = [self.tr("Attention"), self.tr("Hidden units"), self.tr("Residual stream"),
                  self.tr("Activation"), self.tr("MSE")]
        for index, title in enumerate(titles):
            self.setTabText(index, title)
        self.overflow.retranslate()
        self.overflow.update()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.overflow.later()             # the tab bar takes the new font after this event
        super().changeEvent(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.overflow.update()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.overflow.update()
        if self._stale:                       # edits made while a lab filled the window
            self._bring_up_to_date()

    def _appearance_changed(self) -> None:
        """Zoom or theme changed: every tab takes the new sizes and colours; the one on screen
        redraws now, the others when shown."""
        for tab in self._tabs():
            tab.restyle()
            tab.forget()
        self._stale = set(self._tabs())
        self._refresh_visible()
        self.overflow.later()

    def refresh(self) -> None:
        """Only the tab on screen is redrawn now; the others when shown or read (see _fresh).
        While the panel is hidden (a lab step fills the window) nothing is redrawn until it is shown."""
        self._stale = set(self._tabs())
        if self.isVisible():
            self._bring_up_to_date()

    def _bring_up_to_date(self) -> None:
        if not self.session.config.attention:
            self._fresh(self.attention_tab)           # cheap: it only shows "switched off"
            if self.currentWidget() is self.attention_tab:
                self.setCurrentWidget(self.hidden_tab)
        self._refresh_visible()

    def show_tab(self, name: str) -> None:
        """Bring a tab to the front by name: attention, hidden, residual, activation or mse."""
        tabs = {"attention": self.attention_tab, "hidden": self.hidden_tab, "residual": self.residual_tab,
                "activation": self.activation_tab, "mse": self.mse_tab}
        if name in tabs:
            self.setCurrentWidget(tabs[name])

    def _selection_changed(self) -> None:
        self._stale |= {self.residual_tab, self.activation_tab, self.attention_tab}
        self._refresh_visible()

    def _refresh_visible(self) -> None:
        self._fresh(self.currentWidget())

    def _fresh(self, tab):
        if tab in self._stale:
            self._stale.discard(tab)
            tab.refresh()
            tab.settle_geometry()
            if tab.graphics is not None and tab.isVisible():
                # A new view range moves the plot's items when pyqtgraph prepares the paint; done
                # now, they are part of this repaint rather than a second one that paint posts.
                tab.graphics.scene().prepareForPaint()
        return tab

    # --- export ------------------------------------------------------------------------------
    def current_figure(self) -> pg.GraphicsLayout | None:
        """The figure on screen (None when the tab shows a message instead)."""
        return self._fresh(self.currentWidget()).figure()

    def suggested_file_name(self, suffix: str = "png") -> str:
        return f"blocklab-{self.currentWidget().figure_name()}.{suffix}"

    def export_current(self, path: str | Path) -> Path:
        """Write the figure of the tab on screen to `path` (.png or .svg) and return the path.
        Raises ExportError (a one-sentence reason; nothing written) when there is no figure, the
        suffix is neither, or the file cannot be written."""
        figure = self.current_figure()
        if figure is None:
            raise ExportError(self.tr("This tab shows no figure to export."))
        return export_figure(figure, path)

    def _context_menu(self, tab: PlotTab, pos: QPoint) -> None:
        menu = QMenu(self)
        menu.setObjectName("plotsContextMenu")
        for suffix, text in (("png", self.tr("Export as PNG…")), ("svg", self.tr("Export as SVG…"))):
            action = menu.addAction(text)
            action.setObjectName(f"plotsExport{suffix.upper()}")
            action.triggered.connect(lambda _checked=False, suffix=suffix: self.export_with_dialog(suffix))
        self.context_menu = popup_once(menu, tab.graphics.mapToGlobal(pos))

    def export_with_dialog(self, suffix: str) -> Path | None:
        """Ask where to write the figure on screen (starting in the user's documents folder),
        write it, and say so; a refusal is one message box, nothing written."""
        folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or str(Path.home())
        filters = {"png": self.tr("PNG image (*.png)"), "svg": self.tr("SVG drawing (*.svg)")}
        path, _chosen = QFileDialog.getSaveFileName(self, self.tr("Export figure"),
                                                    str(Path(folder) / self.suggested_file_name(suffix)),
                                                    filters[suffix])
        if not path:
            return None
        if Path(path).suffix.lower() != f".{suffix}":
            path += f".{suffix}"
        try:
            return self.export_current(path)
        except ExportError as error:
            QMessageBox.warning(self, self.tr("Export figure"), str(error))
            return None

    # --- for tests and the main window ---------------------------------------------------
    def pattern_image(self, slot: int) -> pg.ImageItem:
        """The image of grid slot `slot` of the attention tab (slot i shows head first + i)."""
        return self._fresh(self.attention_tab).images[slot]

    @property
    def pre_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).pre_image

    @property
    def gate_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).gate_image

    @property
    def post_image(self) -> pg.ImageItem:
        return self._fresh(self.hidden_tab).post_image

    @property
    def activation_points(self) -> pg.ScatterPlotItem:
        return self._fresh(self.activation_tab).points

    @property
    def activation_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.activation_tab).curve

    @property
    def residual_bars(self) -> list[pg.BarGraphItem]:
        return self._fresh(self.residual_tab).bars

    @property
    def sweep_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.mse_tab).sweep_curve

    @property
    def sweep_marker(self) -> pg.ScatterPlotItem:
        return self._fresh(self.mse_tab).sweep_marker

    @property
    def history_curve(self) -> pg.PlotDataItem:
        return self._fresh(self.mse_tab).history_curve

    @property
    def mse_label(self) -> QLabel:
        return self._fresh(self.mse_tab).mse_label
