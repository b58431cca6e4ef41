"""What every plot tab shares: following the session, the language and the appearance; hover
texts; a steady colour limit; skipping plots whose arrays did not change."""
from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QLabel, QToolTip, QWidget

from app.explorer.plots import look
from app.widgets.style import limit_for
from core.numbers import format_number

CELL_DECIMALS = 2            # numbers on heatmap cells: short enough to fit a cell


def cell_texts(values: np.ndarray) -> list[str]:
    return [format_number(float(v), CELL_DECIMALS) for v in np.ravel(values)]


class SteadyLimit:
    """A symmetric colour limit that does not follow every edit.

    Set from the trace when a view's structure is built or a scenario is loaded (reset(),
    then the next fit()); after that only widened, when a value goes past it, so colours
    keep their meaning from edit to edit and an extreme value still shows as extreme.
    """

    def __init__(self) -> None:
        self.value: float | None = None

    def reset(self) -> None:
        self.value = None

    def fit(self, arrays: Iterable[np.ndarray]) -> float:
        needed = max(limit_for(a) for a in arrays)
        if self.value is None or needed > self.value:
            self.value = needed
        return self.value


class KeptBounds:
    """A graphics item whose boundingRect is worked out once and kept (kept_bounds) until what it
    depends on changes (forget_bounds, or a new key). Qt's scene asks every item for its box on
    every paint, and pyqtgraph works it out afresh each time: its data's bounds, its pen's or
    symbol's overhang in item units through the device transform, its linked view."""

    _kept_rect: QRectF | None = None
    _kept_for: object = None                           # the key it was worked out for (by identity)

    def kept_bounds(self, measure: Callable[[], QRectF], key: object = None) -> QRectF:
        """measure()'s box, worked out again only when none is kept or `key` is not the one kept."""
        if self._kept_rect is None or self._kept_for is not key:
            self._kept_rect, self._kept_for = measure(), key
        return QRectF(self._kept_rect)                 # a copy: the caller may change it

    def forget_bounds(self) -> None:
        """A change the box follows: Qt is told before it asks again (prepareGeometryChange)."""
        if self._kept_rect is not None:
            self._kept_rect = None
            self.prepareGeometryChange()


class SteadyBars(KeptBounds, pg.BarGraphItem):
    """A BarGraphItem that works out its bounding box once per change of its bars or of its view.

    pyqtgraph's computes it afresh on every ask (the data's bounds, and the pen's half width in
    the item's units through `pixelVectors`), and Qt's scene asks several times per edit and per
    paint: about 30 µs each, 7 to 12 asks per edit of the residual stream's four bars."""

    def setOpts(self, **opts) -> None:  # noqa: N802 (pyqtgraph's name)
        self._kept_rect = None                         # new bars (or pen): a new box
        super().setOpts(**opts)

    def viewTransformChanged(self) -> None:  # noqa: N802 (pyqtgraph's name)
        self.forget_bounds()                           # a new range or size: a pixel is another length
        super().viewTransformChanged()

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return self.kept_bounds(super().boundingRect)


def message_label(object_name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(object_name)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setFont(look.font())
    label.setMargin(24)
    return label


class HoverTip:
    """The value under the mouse as a tooltip: `describe(scene_pos)` says what to show (None:
    nothing). `text` is the last text shown (tests read it)."""

    def __init__(self, graphics: pg.GraphicsLayoutWidget, describe: Callable[[QPointF], str | None]):
        self.graphics = graphics
        self.describe = describe
        self.text = ""
        graphics.scene().sigMouseMoved.connect(self.moved)

    def moved(self, scene_pos: QPointF) -> None:
        text = self.describe(scene_pos) or ""
        if text == self.text:
            return
        self.text = text
        if text:
            QToolTip.showText(QCursor.pos(), text, self.graphics)
        else:
            QToolTip.hideText()


class FigureView(pg.GraphicsLayoutWidget):
    """A GraphicsLayoutWidget that says when it is resized, before it lays its figure out at
    the new size (titles wrapped to the new width then set the figure's minimum size).

    A signal from resizeEvent rather than an event filter: a filter is called for every event,
    also while Qt tears the window down at exit, when calling into Python can crash."""

    resizing = Signal()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.resizing.emit()
        super().resizeEvent(event)


class PlotTab(QWidget):
    """A tab page that follows the session.

    refresh(force) redraws from the trace; restyle() re-applies sizes and colours after a zoom
    or theme change; retranslate() sets static texts (the panel calls them). `graphics` is the
    figure that export writes (None when the tab shows no figure)."""

    def __init__(self, session, object_name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.setObjectName(object_name)
        self.graphics: pg.GraphicsLayoutWidget | None = None
        self._drawn: dict[str, np.ndarray] = {}
        self.structure: object = None

    def follow_resizes(self) -> None:
        """Re-arrange when the figure (a FigureView) changes size: for a tab whose layout depends
        on its room. Qt re-reads a figure's minimum size only after the resize that changed it:
        the figure is laid out again once that is done (see settle_geometry)."""
        self._settle_timer = QTimer(self)
        self._settle_timer.setSingleShot(True)
        self._settle_timer.setInterval(0)
        self._settle_timer.timeout.connect(self.settle_geometry)
        self.graphics.resizing.connect(self._resizing)

    def _resizing(self) -> None:
        # also a hidden tab's pending resize, delivered as it is shown
        if self.structure is not None:
            self.resized()
            self._settle_timer.start()

    def close_down(self) -> None:
        """Stop background work before the tab is deleted at exit (the MSE tab's sweep)."""

    # --- items in and out of the figure's grid ---------------------------------------------
    def take_out(self, *items) -> None:
        """Take items out of the figure's grid, keeping them in its scene, hidden.

        An item in no scene belongs to Python alone, and PySide deletes such items at exit in
        an order that crashes (a plot's children call back into Python while it goes away):
        items a layout does not show now (another tab form, a head not on screen) are parked."""
        layout = self.graphics.ci
        scene = self.graphics.scene()
        for item in items:
            if item in layout.items:
                layout.removeItem(item)
            if item.scene() is None:
                scene.addItem(item)
            item.setVisible(False)

    def put(self, item, row: int, column: int, rowspan: int = 1, colspan: int = 1) -> None:
        """Place an item in the figure's grid (taken out first if it is there) and show it."""
        if item in self.graphics.ci.items:
            self.graphics.ci.removeItem(item)
        if item.scene() is not None and item.parentItem() is None:
            item.scene().removeItem(item)
        self.graphics.ci.addItem(item, row=row, col=column, rowspan=rowspan, colspan=colspan)
        item.setVisible(True)

    def heatmaps(self) -> list:
        """The tab's heatmaps (their cell numbers are fitted when the tab is shown)."""
        return []

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self.structure is not None and self.graphics is not None:
            self.resized()
            self.settle_geometry()
        for heatmap in self.heatmaps():
            heatmap.numbers.fit()

    def text_width(self, plot: pg.PlotItem, columns: int = 1, reserved: float = 0.0) -> float:
        """The width a plot's title and bottom label may take: its share of the figure (less
        `reserved`, a colour bar beside it) less its left axis. Wrapped to it, a long title
        never widens the plot past the view."""
        if self.graphics is None or not self.graphics.isVisible() or self.graphics.width() <= 0:
            return 0.0          # not laid out yet: no wrapping until shown (see showEvent)
        # a number axis learns its width only when first painted: assume room for "−0.000" and a title
        left = max(plot.getAxis("left").minimumWidth(), plot.getAxis("left").width(), look.px(72))
        return (self.graphics.width() - reserved) / columns - left - 24

    def fit_title(self, plot: pg.PlotItem, text: str, columns: int = 1, colour: str | None = None,
                  reserved: float = 0.0, short: str = "") -> None:
        """The title wrapped to the plot's width, or `short` (a shorter wording) where `text` would
        need more than one line: a narrow plot's second line of title is taken from its data."""
        width = self.text_width(plot, columns, reserved)
        text_font = look.font(look.TITLE_PX)
        look.set_title(plot, look.wrapped(_one_line(text, short, text_font, width), text_font, width), colour)

    def fit_label(self, plot: pg.PlotItem, text: str, columns: int = 1, reserved: float = 0.0,
                  short: str = "") -> None:
        """The bottom axis's label wrapped to the plot's width; `short` as for fit_title."""
        width = self.text_width(plot, columns, reserved)
        look.set_axis_label(plot, "bottom", look.wrapped(_one_line(text, short, look.font(), width), look.font(), width))

    def settle_geometry(self) -> None:
        """Lay the figure out at the view's size again. A figure whose minimum size was larger
        than the view when the view last resized it (a long title, since wrapped) keeps the
        larger geometry until told: then it would reach past the view's edge."""
        graphics = self.graphics
        if graphics is not None and graphics.width() > 0 and graphics.height() > 0:
            rect = QRectF(0, 0, graphics.width(), graphics.height())
            if graphics.ci.geometry() != rect:
                graphics.ci.setGeometry(rect)

    def resized(self) -> None:
        """The figure changed size: re-arrange for the new room (by default, a refresh)."""
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.refresh(force=True)
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Static texts; texts that depend on the trace are set in refresh."""

    def restyle(self) -> None:
        if self.graphics is not None:
            look.style_view(self.graphics)

    def refresh(self, force: bool = False) -> None:
        raise NotImplementedError

    def figure(self) -> pg.GraphicsLayout | None:
        """What File → Export writes from this tab: its whole figure, or None when there is none."""
        return self.graphics.ci if self.graphics is not None and self.graphics.isVisible() else None

    def figure_name(self) -> str:
        """A file name stem for an exported figure."""
        return self.objectName().removeprefix("plots").removesuffix("Tab").lower() or "plot"

    # --- skipping what did not change -----------------------------------------------------
    def unchanged(self, hooks: Iterable[str]) -> bool:
        """True when every hook's array is the very one this tab drew last.

        An edit's trace (core.incremental.EditedTrace) shares every array outside its
        `recomputed` set with the trace before, so an untouched plot is skipped; a full
        forward makes new arrays and everything is drawn. Comparing with what this tab drew
        (not only with the trace before) stays right across edits made while it was hidden."""
        trace = self.session.trace
        return all(name in self._drawn and trace.get(name) is self._drawn[name] for name in hooks)

    def remember(self, hooks: Iterable[str]) -> None:
        trace = self.session.trace
        self._drawn = {name: trace[name] for name in hooks if name in trace}

    def forget(self) -> None:
        self._drawn = {}


def _one_line(text: str, short: str, text_font, width: float) -> str:
    """`text`, or `short` where `text` needs more than `width` pixels (and `width` is known)."""
    return short if short and width > 0 and look.advance(text_font, text) > width else text
