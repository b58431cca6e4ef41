"""Shared look: the diverging colour map, value tints, the ink for text on a tint, font sizes,
and the theme and zoom applied to the application (palette, font, pyqtgraph's defaults).

Numbers are printed by core.numbers (imported here for the views: one formatter, one minus).
"""
from __future__ import annotations

import math
import weakref

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QColor, QFont, QFontInfo, QGuiApplication, QPalette

from core.numbers import DECIMALS, MINUS, format_number  # noqa: F401  (the views' one number formatter)

from app.widgets.appearance import Colours, appearance

pg.setConfigOptions(imageAxisOrder="row-major", antialias=True, useOpenGL=False,
                    background="w", foreground="#222222")


def _drop_spot_items(scatter) -> None:
    """pyqtgraph 0.14's ScatterPlotItem makes a SpotItem per point when it is clicked (pointsAt) and
    keeps them in its record array; each SpotItem holds a record of that array: a cycle through a
    numpy object array, which the garbage collector cannot follow (numpy issue 6581). Its clear()
    (every setData) then dropped the array and leaked them all; a scatter deleted with them leaked
    them too. Nothing here uses SpotItems after the click that made them: they are dropped then."""
    if scatter.data is not None and len(scatter.data):
        scatter.data["item"][...] = None


def _releasing_spots(method, before: bool):
    """`method` of ScatterPlotItem, dropping the SpotItems before it runs (clear) or after (the
    mouse handlers that make them)."""
    def releasing(self, *args):
        if before:
            _drop_spot_items(self)
        try:
            return method(self, *args)
        finally:
            if not before:
                _drop_spot_items(self)
    releasing.__doc__ = method.__doc__
    releasing.releases_spots = True
    return releasing


for _name, _before in (("clear", True), ("mouseClickEvent", False), ("hoverEvent", False)):
    if not getattr(getattr(pg.ScatterPlotItem, _name), "releases_spots", False):
        setattr(pg.ScatterPlotItem, _name, _releasing_spots(getattr(pg.ScatterPlotItem, _name), _before))

def _without_background_cache(init):
    """pyqtgraph's views cache their background, one plain colour, in a pixmap the size of the view
    (4 MB at 1280 × 800), kept while the view is hidden: ~20 views held 13–18 MB, more after a
    presentation or a larger window. Filling a colour on each paint costs next to nothing."""
    def init_without_cache(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.setCacheMode(self.CacheModeFlag.CacheNone)
    init_without_cache.__doc__ = init.__doc__
    init_without_cache.caches_background = False
    return init_without_cache


if getattr(pg.GraphicsView.__init__, "caches_background", True):
    pg.GraphicsView.__init__ = _without_background_cache(pg.GraphicsView.__init__)


def _with_steady_view_slots(update_view):
    """pyqtgraph connects an item's viewRangeChanged and viewTransformChanged to its view's signals
    each time the item moves to another view or scene (a plot taken out of a layout and put back,
    a scene shown again), and disconnects them from the view before. PySide 6.11 keeps a weakref
    for every connection of a bound method of a plain Python class and does not drop it on
    disconnect: 13,000 weakrefs (ButtonItem, TextItem) in a 10,000-action soak. So each item gets
    the two slots once, as functions holding it weakly (a function connected is kept by the
    connection, and nothing leaks on disconnect); pyqtgraph's calls reach its own methods."""
    def update_view_with_steady_slots(self):
        if "viewRangeChanged" not in vars(self):
            item = weakref.ref(self)

            def view_range_changed(*_args):
                alive = item()
                if alive is not None:
                    type(alive).viewRangeChanged(alive)

            def view_transform_changed(*_args):
                alive = item()
                if alive is not None:
                    type(alive).viewTransformChanged(alive)
            self.viewRangeChanged, self.viewTransformChanged = view_range_changed, view_transform_changed
        return update_view(self)
    update_view_with_steady_slots.__doc__ = update_view.__doc__
    update_view_with_steady_slots.steady_slots = True
    return update_view_with_steady_slots


if not getattr(pg.GraphicsItem._updateView, "steady_slots", False):
    pg.GraphicsItem._updateView = _with_steady_view_slots(pg.GraphicsItem._updateView)

# Blue–white–orange, from ColorBrewer's PuOr family: distinguishable with the common colour
# vision deficiencies, white at zero so "nothing" looks like nothing.
_STOPS = [(0.0, "#2d004b"), (0.15, "#542788"), (0.3, "#8073ac"), (0.42, "#b2abd2"), (0.5, "#f7f7f7"),
          (0.58, "#fdb863"), (0.7, "#e08214"), (0.85, "#b35806"), (1.0, "#7f3b08")]
DIVERGING = pg.ColorMap([p for p, _ in _STOPS], [QColor(c) for _, c in _STOPS], name="blocklab-diverging")
DIVERGING_LUT = DIVERGING.getLookupTable(0.0, 1.0, 256)
# tint() runs for every table cell on every edit: precomputed colours, not ColorMap.map().
_TINTS = [QColor(*(int(c) for c in DIVERGING_LUT[i][:3])) for i in range(256)]
_TINTS = [c.lighter(135) if abs(i - 127.5) > 0.3 * 255 else c for i, c in enumerate(_TINTS)]
_UNDEFINED = QColor("#dddddd")

# Text on a tinted cell: dark ink, light ink where the background is too dark for it.
DARK_INK = QColor("#111111")
LIGHT_INK = QColor("#ffffff")
DARK_ENOUGH = 0.45               # perceived luminance below which dark ink would vanish


def nice_limit(max_abs: float) -> float:
    """A round symmetric colour limit (1, 2, 5, 10, …) at or above max_abs, at least 1."""
    if not math.isfinite(max_abs) or max_abs <= 1:
        return 1.0
    power = 10.0 ** math.floor(math.log10(max_abs))     # a float: 10**308 as an int overflows on the way back
    for step in (1.0, 2.0, 5.0, 10.0):
        if step * power >= max_abs:
            return step * power if math.isfinite(step * power) else max_abs
    return max_abs


def limit_for(array: np.ndarray) -> float:
    finite = np.asarray(array)[np.isfinite(array)]
    return nice_limit(float(np.max(np.abs(finite))) if finite.size else 1.0)


def tint(value: float, limit: float) -> QColor:
    """The diverging colour of a value on the fixed scale ±limit (clipped), lightened for text on top."""
    if not math.isfinite(value):
        return _UNDEFINED
    position = 0.5 + 0.5 * max(-1.0, min(1.0, value / limit))
    return _TINTS[min(255, int(position * 256))]


def text_colour_on(background: QColor) -> QColor:
    """The ink for text on `background`: dark, except where the background's perceived
    luminance (ITU-R BT.601 weights) is below DARK_ENOUGH, where it would vanish: then white.
    The one rule for numbers on tinted cells (tables, the diagram, heatmap labels)."""
    luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF()
    return DARK_INK if luminance >= DARK_ENOUGH else LIGHT_INK


def text_colours_on_map(colour_map: pg.ColorMap, positions: np.ndarray) -> list[str]:
    """text_colour_on for heatmap cells: the ink name for each position (0…1) of a colour map."""
    if len(positions) == 0:
        return []
    rgb = colour_map.map(np.clip(np.asarray(positions, dtype=np.float64), 0.0, 1.0), mode="byte")
    return [text_colour_on(QColor(int(r), int(g), int(b))).name() for r, g, b, *_ in rgb]


# --- shared plot and text helpers --------------------------------------------------------
# Fonts for Han characters after the font's own families, Simplified Chinese first: without
# them Qt's fallback drew the app's Chinese in Noto Sans CJK JP, with Japanese glyph forms
# (直, 骨, 说 …). Missing families are skipped.
CHINESE_FAMILIES = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei")


def with_chinese_fallback(font: QFont) -> QFont:
    """`font` with CHINESE_FAMILIES after its own families (once). The family the font resolves
    to comes first: a generic name ("Sans Serif") first in a list let the Chinese face draw
    the Latin text too."""
    own = [QFontInfo(font).family(), *(font.families() or [font.family()])]
    families = [family for k, family in enumerate(own) if family not in CHINESE_FAMILIES and family not in own[:k]]
    font.setFamilies([*families, *CHINESE_FAMILIES])
    return font


# Qt 6.11 keeps one FreeType face per font file and face index, shared by the font engines of
# every size (QFreetypeFace). When a face's last engine goes (Qt's font cache drops engines no
# text has used for a while), its release empties that whole cache: faces still in use are set
# aside, and the next engine needing one of them (a new size: the zoom, presentation mode, a
# heading) opens the file again, as a new face with its own mapping of the file. In a long session
# each Noto Sans CJK collection (20 MB) was so mapped 3-5 times over, the SC face every time,
# its glyphs paged in again through each mapping (tools/soak.py, docs/testing.md "The GUI soak").
# Holding one engine of every face the interface's fonts use, for the application's life, keeps
# any of those faces from ever being released, so that purge never runs: one face and one mapping
# per file. Faces pinned: every style of the application font's family, of its "Condensed" sibling
# (the tables'), of the system fixed font's family and of the installed CHINESE_FAMILIES.
_pinned_faces: list = []


def pinned_families() -> list[str]:
    """The font families whose faces pin_font_faces holds (those installed)."""
    from PySide6.QtGui import QFontDatabase
    app_family = QFontInfo(QGuiApplication.font()).family()
    fixed = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)).family()
    wanted = [app_family, f"{app_family} Condensed", fixed, *CHINESE_FAMILIES]
    installed = set(QFontDatabase.families())
    return [family for k, family in enumerate(wanted) if family in installed and family not in wanted[:k]]


def pin_font_faces() -> int:
    """Hold an engine (a QRawFont) of each style of each of pinned_families() for the application's
    life (once): see above. The number of faces held."""
    if _pinned_faces:
        return len(_pinned_faces)
    from PySide6.QtGui import QFontDatabase, QRawFont
    for family in pinned_families():
        system = (QFontDatabase.WritingSystem.SimplifiedChinese if family in CHINESE_FAMILIES
                  else QFontDatabase.WritingSystem.Latin)
        for style in QFontDatabase.styles(family):
            raw = QRawFont.fromFont(QFontDatabase.font(family, style, 12), system)
            if raw.isValid():
                _pinned_faces.append(raw)
    return len(_pinned_faces)


def font(points: float, bold: bool = False) -> QFont:
    result = QFont()
    result.setPointSizeF(points)
    result.setBold(bold)
    return result


def minus_ticks(axis: pg.AxisItem) -> pg.AxisItem:
    """pyqtgraph's automatic tick numbers with the Unicode minus, like every number we print
    (ticks set by setTicks are our own text and stay as given)."""
    automatic = axis.tickStrings

    def tick_strings(values, scale, spacing):
        return [text.replace("-", MINUS) for text in automatic(values, scale, spacing)]

    axis.tickStrings = tick_strings
    return axis


def quiet_plot(plot: pg.PlotItem, tick_points: float) -> pg.PlotItem:
    """Projector-size ticks with the Unicode minus, no "(x0.001)" prefixes, no menu, no mouse
    panning: a learner cannot lose the view."""
    for side in ("left", "bottom"):
        plot.getAxis(side).setTickFont(font(tick_points))
        minus_ticks(plot.getAxis(side))
    for side in ("left", "bottom", "top", "right"):
        # hidden axes too: with the prefix on, every range change re-sets the axis label's HTML
        # and its size limits, and the plot is laid out (and repainted) again
        plot.getAxis(side).enableAutoSIPrefix(False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    return plot


def set_title(plot: pg.PlotItem, text: str, size: str) -> None:
    """Set a plot title only when it changes (re-laying out text costs on every edit)."""
    if plot.titleLabel.text != text or not plot.titleLabel.isVisible():
        plot.setTitle(text, size=size)


def set_axis_label(plot: pg.PlotItem, side: str, text: str, size: str) -> None:
    axis = plot.getAxis(side)
    if axis.labelText != text or not axis.label.isVisible():
        plot.setLabel(side, text, **{"font-size": size})


# --- the theme and the zoom, applied to the application ----------------------------------
BASE_POINTS = 10.0               # the application font at 100 % (Qt's default is 9 pt on some platforms)


class _Follower:
    """What follow_appearance needs to remember: the application, its font and palette as the
    platform gave them (the "system" theme goes back to that palette)."""

    def __init__(self, app):
        self.app = app
        self.font = QFont(app.font())
        self.points = max(BASE_POINTS, self.font.pointSizeF())
        self.palette = QPalette(app.palette())


_follower: _Follower | None = None


def follow_appearance(app) -> None:
    """Make the application follow appearance(): its font (the interface zoom), its palette and
    pyqtgraph's default colours (the theme). Idempotent: every main window calls it."""
    global _follower
    if _follower is not None and _follower.app is app:
        return
    _follower = _Follower(app)
    pin_font_faces()
    look = appearance()
    look.set_system_dark(system_is_dark(app, _follower.palette))
    look.changed.connect(_apply)
    hints = app.styleHints()
    if hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(lambda _scheme: look.set_system_dark(system_is_dark(app, _follower.palette)))
    _apply()


def system_is_dark(app, platform_palette: QPalette | None = None) -> bool:
    """Whether the platform runs a dark colour scheme: QStyleHints.colorScheme() where the
    platform says, else the lightness of the platform palette's window colour."""
    hints = app.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else Qt.ColorScheme.Unknown
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    palette = platform_palette or app.palette()
    return palette.color(QPalette.Window).lightnessF() < 0.5


def _apply() -> None:
    if _follower is None:
        return
    look, app = appearance(), _follower.app
    colours = look.colours
    pg.setConfigOptions(background=colours.background, foreground=colours.foreground)
    app.setPalette(theme_palette(look.effective_theme, colours))
    font = QFont(_follower.font)
    font.setPointSizeF(look.points(_follower.points))
    if app.font() != font:
        app.setFont(font)
        # Qt hands the new font to the widgets in a posted event: now, so that sizes read
        # right after a zoom (splitter shares, fits) are the new ones.
        QCoreApplication.sendPostedEvents(None, QEvent.ApplicationFontChange)


def theme_palette(theme: str, colours: Colours) -> QPalette:
    """The Qt palette of a theme. Light: the platform's own (or the style's standard light
    palette when the platform is dark); high contrast: black on white with strong borders;
    dark: light text on the theme's dark greys. Disabled text stays readable in all three."""
    if theme == "light":
        if _follower is not None and not system_is_dark(_follower.app, _follower.palette):
            return QPalette(_follower.palette)
        app = QGuiApplication.instance()
        return app.style().standardPalette() if hasattr(app, "style") else QPalette()
    if theme == "contrast":
        roles = {
            QPalette.Window: "#ffffff", QPalette.WindowText: "#000000", QPalette.Base: "#ffffff",
            QPalette.AlternateBase: "#eeeeee", QPalette.Text: "#000000", QPalette.Button: "#f2f2f2",
            QPalette.ButtonText: "#000000", QPalette.BrightText: "#b00020", QPalette.Highlight: colours.accent,
            QPalette.HighlightedText: "#ffffff", QPalette.ToolTipBase: "#ffffff", QPalette.ToolTipText: "#000000",
            QPalette.PlaceholderText: "#333333", QPalette.Link: colours.accent, QPalette.LinkVisited: "#5b2a86",
            QPalette.Light: "#ffffff", QPalette.Midlight: "#dddddd", QPalette.Mid: "#555555",
            QPalette.Dark: "#333333", QPalette.Shadow: "#000000",
        }
        disabled = "#555555"
    else:
        roles = {
            QPalette.Window: colours.background, QPalette.WindowText: colours.foreground,
            QPalette.Base: colours.panel, QPalette.AlternateBase: "#26282c", QPalette.Text: colours.foreground,
            QPalette.Button: colours.panel, QPalette.ButtonText: colours.foreground, QPalette.BrightText: colours.bad,
            QPalette.Highlight: colours.accent, QPalette.HighlightedText: "#000000",
            QPalette.ToolTipBase: colours.panel, QPalette.ToolTipText: colours.foreground,
            QPalette.PlaceholderText: colours.muted, QPalette.Link: colours.accent, QPalette.LinkVisited: "#c39bff",
            QPalette.Light: "#3a3d42", QPalette.Midlight: "#33363b", QPalette.Mid: "#4a4d52",
            QPalette.Dark: "#151618", QPalette.Shadow: "#000000",
        }
        disabled = "#8a8a8a"
    palette = QPalette()
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, QColor(disabled))
    return palette
