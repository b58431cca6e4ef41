"""Writing a plot's figure to PNG or SVG with pyqtgraph's exporters.

`export_figure(item, path)` writes what is on screen (titles, axes, colour bars, legends and
cell numbers included, in the current theme) to `path`; the suffix picks the format. PNG is
written at EXPORT_SCALE times the on-screen size, sharp enough for notes and slides.
"""
from __future__ import annotations

import importlib
from pathlib import Path

import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter, SVGExporter
from PySide6.QtCore import QCoreApplication

FORMATS = ("png", "svg")
EXPORT_SCALE = 2


def spell_out_closes(path_data: str) -> str:
    """SVG path data with each close ("Z") written as a line back to its subpath's start.

    pyqtgraph 0.14's SVGExporter reads path data as "x,y" pairs and stops at the "Z" that Qt 6
    writes to close a path (pyqtgraph issue #3495: every ViewBox's clip rectangle is one), so
    no figure would export. A line to the start is the same outline."""
    tokens, start = [], None
    for token in path_data.split():
        if token in ("Z", "z"):
            if start is not None:
                tokens.append(f"L{start}")
            continue
        if token[:1] in ("M", "m"):
            start = token[1:]
        tokens.append(token)
    return " ".join(tokens)


def _patch_svg_exporter() -> None:
    module = importlib.import_module("pyqtgraph.exporters.SVGExporter")
    original = module.correctCoordinates
    if getattr(original, "spells_out_closes", False):
        return

    def correct_coordinates(node, defs, item, options):
        for element in node.getElementsByTagName("path"):
            element.setAttribute("d", spell_out_closes(element.getAttribute("d")))
        return original(node, defs, item, options)

    correct_coordinates.spells_out_closes = True
    module.correctCoordinates = correct_coordinates


_patch_svg_exporter()


class ExportError(ValueError):
    """Why a figure could not be written: one sentence, in the interface language."""


translate = QCoreApplication.translate


def export_figure(item: pg.GraphicsLayout, path: str | Path) -> Path:
    """Write `item` (a figure on screen) to `path` (.png or .svg). Returns the path written;
    raises ExportError (nothing written) on an unknown suffix, an empty figure or a failed write."""
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        reason = translate("PlotExport", "A figure can be exported as PNG or SVG, not as “%1”.")
        raise ExportError(reason.replace("%1", path.suffix or path.name))
    rect = item.sceneBoundingRect()
    if rect.width() < 1 or rect.height() < 1 or item.scene() is None:
        raise ExportError(translate("PlotExport", "There is no figure on screen to export."))
    if suffix == "png":
        exporter = ImageExporter(item)
        exporter.parameters()["width"] = int(rect.width() * EXPORT_SCALE)   # height follows the aspect
        written = exporter.export(str(path))
        if not written:
            raise ExportError(translate("PlotExport", "Could not write %1.").replace("%1", str(path)))
        return path
    exporter = SVGExporter(item)
    try:
        exporter.export(str(path))
    except OSError as error:
        reason = translate("PlotExport", "Could not write %1: %2")
        raise ExportError(reason.replace("%1", str(path)).replace("%2", error.strerror or str(error))) from error
    return path
