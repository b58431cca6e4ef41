"""How big and in which colours Block Lab draws: the interface zoom and the theme.

One `Appearance` object per application (`appearance()`); the main window's View menu and
presentation mode change it, QSettings remembers it, and every view that draws its own text
or colours (the diagram, the plots, the tinted tables, the labs) asks it for sizes and
colours and redraws on `changed`. Widgets that use the application font follow the zoom
through the application font, which the main window scales.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

ZOOM_MIN, ZOOM_MAX, ZOOM_STEP = 1.0, 2.5, 0.25
THEMES = ("system", "light", "contrast", "dark")


@dataclass(frozen=True)
class Colours:
    """The colours a view needs besides the diverging value map (which is colour-blind safe
    in every theme)."""
    background: str          # plot and diagram background
    foreground: str          # text, axes, outlines
    panel: str               # a node's or a card's fill
    muted: str               # secondary text (shape labels, hints)
    accent: str              # selection
    glow: str                # lesson highlight
    good: str                # a check that holds
    bad: str                 # a check that fails, an overflow mark
    caption_background: str  # the lesson bar


LIGHT = Colours("#ffffff", "#222222", "#f6f6f6", "#666666", "#1f77b4", "#ffc107", "#1b7f3b", "#c0392b", "#fbf7ec")
CONTRAST = Colours("#ffffff", "#000000", "#ffffff", "#333333", "#0050c8", "#ffb000", "#006b2d", "#b00020", "#fff8dc")
DARK = Colours("#1e1f22", "#e8e8e8", "#2b2d31", "#a0a0a0", "#5aa9ff", "#ffca28", "#5fd38d", "#ff6b6b", "#2a2720")


class Appearance(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.zoom = ZOOM_MIN
        self.theme = "system"
        self.system_dark = False          # set by the window from the platform's palette

    def set_zoom(self, zoom: float) -> None:
        zoom = max(ZOOM_MIN, min(ZOOM_MAX, round(float(zoom) / 0.05) * 0.05))
        if zoom != self.zoom:
            self.zoom = zoom
            self.changed.emit()

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"theme: expected one of {', '.join(THEMES)}, got {theme!r}")
        if theme != self.theme:
            self.theme = theme
            self.changed.emit()

    def points(self, base: float) -> float:
        """A font size in points at the current zoom."""
        return base * self.zoom

    def pixels(self, base: float) -> int:
        """A length in pixels at the current zoom."""
        return max(1, round(base * self.zoom))

    @property
    def effective_theme(self) -> str:
        if self.theme == "system":
            return "dark" if self.system_dark else "light"
        return self.theme

    @property
    def colours(self) -> Colours:
        return {"light": LIGHT, "contrast": CONTRAST, "dark": DARK}[self.effective_theme]


_appearance: Appearance | None = None


def appearance() -> Appearance:
    global _appearance
    if _appearance is None:
        _appearance = Appearance()
    return _appearance
