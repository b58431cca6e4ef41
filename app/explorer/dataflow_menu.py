"""The block diagram's right-click menu: fit, numbers or heatmaps, the spotlight, export.

Strings are translated under the view's context, "DataflowView"."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QStandardPaths
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog, QMenu

from app.explorer.dataflow_scene import MODES


def _tr(text: str) -> str:
    return QCoreApplication.translate("DataflowView", text)


def export_dialog(view, suffix: str) -> None:
    """Ask where to save the diagram (.png or .svg), save it, say how it went in the status bar."""
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation) or Path.home())
    kind = _tr("PNG image (*.png)") if suffix == ".png" else _tr("SVG drawing (*.svg)")
    path, _ = QFileDialog.getSaveFileName(view, _tr("Export the diagram"), str(folder / f"block-diagram{suffix}"), kind)
    if not path:
        return
    if not path.lower().endswith(suffix):
        path += suffix
    if view.export_image(path):
        view.session.message.emit(_tr("Saved the diagram to %1").replace("%1", path))
    else:
        view.session.message.emit(_tr("Could not write %1; nothing was saved.").replace("%1", path))


def context_menu(view) -> QMenu:
    """The menu, objectName "dataflowMenu"; its actions are named actionDataflow<What>."""
    menu = QMenu(view)
    menu.setObjectName("dataflowMenu")

    def add(name: str, text: str, slot, checked: bool | None = None, group: QActionGroup | None = None) -> QAction:
        action = QAction(text, menu)
        action.setObjectName(name)
        if checked is not None:
            action.setCheckable(True)
            action.setChecked(checked)
        if group is not None:
            group.addAction(action)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    add("actionDataflowFit", _tr("Fit the block to the window"), view.fit_to_window)
    add("actionDataflowWhole", _tr("Show the whole block"), view.show_whole_block).setEnabled(view.framed())
    menu.addSeparator()
    group = QActionGroup(menu)
    texts = {"auto": _tr("Numbers or heatmaps by size"), "numbers": _tr("Numbers"), "strips": _tr("Heatmaps")}
    for mode in MODES:
        add(f"actionDataflow{mode.capitalize()}", texts[mode], lambda _=False, m=mode: view.set_strip_mode(m),
            checked=view.strip_mode() == mode, group=group)
    menu.addSeparator()
    clear = add("actionDataflowClearSpotlight", _tr("Clear the spotlight"), lambda: view.spotlight(None))
    clear.setEnabled(view.spotlighted() is not None)
    menu.addSeparator()
    add("actionDataflowExportPng", _tr("Export as PNG…"), lambda: export_dialog(view, ".png"))
    add("actionDataflowExportSvg", _tr("Export as SVG…"), lambda: export_dialog(view, ".svg"))
    return menu
