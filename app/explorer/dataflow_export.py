"""The block diagram as a picture: PNG (at twice the scene's resolution) or SVG (vector text and
edges; heatmaps embedded as images). Written to a temporary file beside the target and renamed
into place, so a failed export never leaves half a file behind."""
from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

from PySide6.QtCore import QRect, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsScene

FORMATS = (".png", ".svg")
PNG_SCALE = 2.0          # a figure for notes and slides: sharp when printed or projected


def _render(scene: QGraphicsScene, painter: QPainter, size: QSize) -> None:
    painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
    scene.render(painter, QRectF(0, 0, size.width(), size.height()), scene.sceneRect())


def _atomic(path: Path, write) -> bool:
    handle, temporary = tempfile.mkstemp(suffix=path.suffix, dir=path.parent)
    os.close(handle)
    try:
        if not write(temporary) or os.path.getsize(temporary) == 0:
            return False
        os.replace(temporary, path)
        return True
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def export_scene(scene: QGraphicsScene, path: str | os.PathLike, background: QColor, title: str = "") -> bool:
    """Write the whole scene to `path` (.png or .svg, by its suffix); False if it cannot be written.
    Raises ValueError for another suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"export: expected a .png or .svg file name, got {path.name!r}")
    if not path.parent.is_dir():
        return False
    rect = scene.sceneRect()

    def png(target: str) -> bool:
        size = QSize(math.ceil(rect.width() * PNG_SCALE), math.ceil(rect.height() * PNG_SCALE))
        image = QImage(size, QImage.Format_ARGB32)
        image.fill(background)
        painter = QPainter(image)
        _render(scene, painter, size)
        painter.end()
        return image.save(target, "PNG")

    def svg(target: str) -> bool:
        size = QSize(math.ceil(rect.width()), math.ceil(rect.height()))
        generator = QSvgGenerator()
        generator.setFileName(target)
        generator.setSize(size)
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        generator.setTitle(title)
        generator.setDescription("Block Lab")
        painter = QPainter()
        if not painter.begin(generator):
            return False
        painter.fillRect(QRectF(0, 0, size.width(), size.height()), background)
        _render(scene, painter, size)
        return painter.end()

    try:
        return _atomic(path, png if suffix == ".png" else svg)
    except OSError:
        return False
