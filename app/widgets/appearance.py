"""How big and in which colours Block Lab draws: the interface zoom and the theme.

One `Appearance` object per application (`appearance()`); the main window's View menu and
presentation mode change it, QSettings remembers the user's zoom and theme, and every view
that draws its own text or colours (the diagram, the plots, the tinted tables, the labs) asks
it for sizes and colours and redraws on `changed`. Widgets that use the application font
follow through the application font, which `style.follow_appearance` sets from `points()`.

Sizes: `points(base)` / `pixels(base)` scale a size chosen for 100 % by `scale`: the user's
zoom (1.0–2.5), and in presentation mode at least PRESENTING_SCALE (so that a 10 pt text reads
as 16 px on a projector even at 100 %; a larger zoom is taken as it is).
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, QSettings, Signal

ZOOM_MIN, ZOOM_MAX, ZOOM_STEP = 1.0, 2.5, 0.25
PRESENTING_SCALE = 1.2          # 10 pt (13.3 px) → 12 pt (16 px): the least size in presentation mode
THEMES = ("system", "light", "contrast", "dark")

# Where QSettings keeps what the user chose (~/.config/BlockLab/Block Lab.conf on Linux).
ORGANISATION, APPLICATION = "BlockLab", "Block Lab"
ZOOM_KEY, THEME_KEY = "appearance/zoom", "appearance/theme"


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
        self.system_dark = False          # the platform's colour scheme (style.follow_appearance)
        self.presenting = False           # a window is in presentation mode

    # --- changing --------------------------------------------------------------------------
    def set_zoom(self, zoom: float) -> None:
        zoom = max(ZOOM_MIN, min(ZOOM_MAX, round(float(zoom) / 0.05) * 0.05))
        zoom = round(zoom, 2)
        if zoom != self.zoom:
            self.zoom = zoom
            self.changed.emit()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom + ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom - ZOOM_STEP)

    def set_theme(self, theme: str) -> None:
        if theme not in THEMES:
            raise ValueError(f"theme: expected one of {', '.join(THEMES)}, got {theme!r}")
        if theme != self.theme:
            self.theme = theme
            self.changed.emit()

    def set_system_dark(self, dark: bool) -> None:
        """What the platform says; it matters only while the theme follows the system."""
        if bool(dark) != self.system_dark:
            self.system_dark = bool(dark)
            if self.theme == "system":
                self.changed.emit()

    def set_presenting(self, presenting: bool) -> None:
        if bool(presenting) != self.presenting:
            self.presenting = bool(presenting)
            self.changed.emit()

    def reset(self) -> None:
        """Back to 100 %, the system's theme, not presenting (a new process; the tests)."""
        before = (self.zoom, self.theme, self.presenting)
        self.zoom, self.theme, self.presenting = ZOOM_MIN, "system", False
        if (self.zoom, self.theme, self.presenting) != before:
            self.changed.emit()

    # --- remembering -----------------------------------------------------------------------
    def restore(self, store: QSettings) -> None:
        """Take the zoom and theme the user chose last time; anything unreadable is ignored."""
        try:
            self.set_zoom(float(store.value(ZOOM_KEY, self.zoom)))
        except (TypeError, ValueError):
            pass
        theme = store.value(THEME_KEY, self.theme)
        if theme in THEMES:
            self.set_theme(theme)

    def remember(self, store: QSettings) -> None:
        store.setValue(ZOOM_KEY, self.zoom)
        store.setValue(THEME_KEY, self.theme)
        store.sync()

    # --- reading ---------------------------------------------------------------------------
    @property
    def scale(self) -> float:
        """The factor every size drawn at 100 % is multiplied by."""
        return max(self.zoom, PRESENTING_SCALE) if self.presenting else self.zoom

    def points(self, base: float) -> float:
        """A font size in points at the current zoom (and presentation mode)."""
        return base * self.scale

    def pixels(self, base: float) -> int:
        """A length in pixels at the current zoom (and presentation mode)."""
        return max(1, round(base * self.scale))

    @property
    def effective_theme(self) -> str:
        if self.theme == "system":
            return "dark" if self.system_dark else "light"
        return self.theme

    @property
    def dark(self) -> bool:
        return self.effective_theme == "dark"

    @property
    def colours(self) -> Colours:
        return {"light": LIGHT, "contrast": CONTRAST, "dark": DARK}[self.effective_theme]

    @property
    def blank_colour(self) -> str:
        """The colour of a blanked screen: black, or white in a light theme (as slide software)."""
        return "#000000" if self.dark else "#ffffff"


_appearance: Appearance | None = None


def appearance() -> Appearance:
    global _appearance
    if _appearance is None:
        _appearance = Appearance()
    return _appearance


def settings() -> QSettings:
    """Block Lab's settings (the tests point QSettings at a temporary folder)."""
    return QSettings(QSettings.NativeFormat, QSettings.UserScope, ORGANISATION, APPLICATION)
