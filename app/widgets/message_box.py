"""Message boxes whose icon is drawn once per kind for the application's life.

`QMessageBox(QMessageBox.Icon.Warning, …)` asks the style for a new standard icon each time and
scales it to the box's icon size; Qt keeps each such pixmap in `QPixmapCache` under the new icon's
own key, so every box adds an entry (about 10 KB) until the cache's 10 MB limit: a long session's
unsaved-changes and warning boxes filled the C heap with copies of the same picture (the GUI soak,
docs/testing.md). Here the picture is made once per kind, size and pixel ratio and shown through
`setIconPixmap`.
"""
from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QMessageBox, QStyle, QWidget

_STANDARD = {
    QMessageBox.Icon.Information: QStyle.StandardPixmap.SP_MessageBoxInformation,
    QMessageBox.Icon.Warning: QStyle.StandardPixmap.SP_MessageBoxWarning,
    QMessageBox.Icon.Critical: QStyle.StandardPixmap.SP_MessageBoxCritical,
    QMessageBox.Icon.Question: QStyle.StandardPixmap.SP_MessageBoxQuestion,
}
_pixmaps: dict[tuple, QPixmap] = {}


def icon_pixmap(icon: QMessageBox.Icon, box: QWidget) -> QPixmap:
    """The picture QMessageBox shows for `icon` in `box` (its style's size and pixel ratio), made once."""
    style = box.style()
    size = style.pixelMetric(QStyle.PixelMetric.PM_MessageBoxIconSize, None, box)
    ratio = box.devicePixelRatioF()
    key = (icon, style.name(), size, ratio)
    if key not in _pixmaps:
        _pixmaps[key] = style.standardIcon(_STANDARD[icon], None, box).pixmap(QSize(size, size), ratio)
    return _pixmaps[key]


def message_box(icon: QMessageBox.Icon, title: str, text: str, *args, **kwargs) -> QMessageBox:
    """QMessageBox(icon, title, text, …) showing the kind's picture made once (`icon_pixmap`)."""
    box = QMessageBox(QMessageBox.Icon.NoIcon, title, text, *args, **kwargs)
    if icon in _STANDARD:
        box.setIconPixmap(icon_pixmap(icon, box))
    return box
