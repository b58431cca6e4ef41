"""The dataflow panel: the block drawn as it computes, one node per hook of the trace.

Two rows: the attention sub-layer above, the FFN sub-layer below (one row when attention is
off). A node shows the selected token's values (per-head hooks: the selected head's) as a
column of tinted numbers, or — for a node wider than NUMBERS_MAX channels, or for every node
once there are more than NUMBERS_MAX tokens — the whole tensor as a heatmap (dataflow_strip).
Edges carry the shape of the tensor that flows along them; residual bypasses run outside the
sub-layer bands. The pieces: dataflow_plan (what goes where), dataflow_layout (placing),
dataflow_scene (keeping the drawing up to date), dataflow_items / _strip / _route (the items),
dataflow_style (sizes from the zoom, colours from the theme), dataflow_export (PNG, SVG).

The view fills the space it is given: Fit enlarges as well as shrinks, a lesson step that
highlights nodes frames them, and text never goes below min_text_px(interface zoom) on screen
(10 px at 100 %, 16 px at 150 %: the view scrolls instead of shrinking further).

Presentation mode is for the back row: every text at least 16 px on screen, no shape labels on
the edges (the inspector has the shapes), a step's nodes framed whole — in the block's layout, or
side by side with a "…" for each run of nodes left out —, no scroll bars, and no text cut by the
view's edge. Where the view looks, and how large: dataflow_frame.

Public API for other panels (presentation mode, the File menu):
- `fit_to_window()` (the whole block, or the nodes a lesson step highlights), `show_whole_block()`,
  `frame(hooks)`, `zoom_in()`, `zoom_out()`.
- `spotlight(hook | None)`, `spotlight_number(n)` (n = 1, 2, … in `node_order()`, the reading
  order: row by row, column by column, top to bottom; 0 clears), `spotlighted()`,
  `set_click_spotlight(True)` (a single click spotlights; by default a double click does).
  A click on empty space or Esc clears the spotlight.
- `set_strip_mode("auto" | "numbers" | "strips")`, `strip_mode()`.
- `export_image(path)` → bool (.png or .svg by suffix).
- `readable_size(px)` → the viewport size at which the diagram's text is `px` on screen;
  `smallest_text_px()` → the smallest value, title, caption or token text now on screen.
"""
from __future__ import annotations

import math
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QPainter, QRegion
from PySide6.QtWidgets import QGraphicsView, QMenu, QWidget

from app.explorer.dataflow_export import export_scene
from app.explorer.dataflow_items import NodeBase
from app.explorer.dataflow_menu import context_menu
from app.explorer.dataflow_frame import Framer
from app.explorer.dataflow_input import DiagramInput
from app.explorer.dataflow_scene import DataflowScene
from app.explorer.dataflow_style import (READABLE_PX, STRIP_DECIMALS,  # noqa: F401  (tests import it here)
                                         min_text_px)
from app.session import Change, Session
from app.widgets.appearance import appearance

ANNOTATIONS = ("label",)     # shape labels on edges: smaller than the values they annotate


class DataflowView(DiagramInput, QGraphicsView):
    """The block's dataflow diagram: shows a DataflowScene, fits, frames and zooms it, and
    turns clicks into selections and spotlights; reads the session, writes only selections."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("dataflowView")
        self.session = session
        self.flow = DataflowScene(session, self)
        self.setScene(self.flow)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setFocusPolicy(Qt.StrongFocus)
        self.setMinimumSize(320, 200)
        self.setViewportUpdateMode(QGraphicsView.MinimalViewportUpdate)
        self._user_zoomed = False
        self._busy = False                              # framing now (see _framing_now)
        self._framing: frozenset[str] | None = None     # None: the whole block
        self._click_spotlight = False
        self._behind = False                            # edits made out of sight, not drawn yet
        session.changed.connect(self._on_changed)
        appearance().changed.connect(self._on_appearance)
        self.framer = Framer(self)
        self.framer.sync_scroll_bars()
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.rangeChanged.connect(self._repaint_frame)
        if session.highlight.hooks:
            self._framing = frozenset(session.highlight.hooks)
        self._on_trace_changed()
        self._on_highlight(frame=False)

    # --- what is drawn (the scene's: see DataflowScene) ------------------------------------
    def node_names(self) -> list[str]:
        return self.flow.node_names()

    def node_order(self) -> list[str]:
        return self.flow.node_order()

    def node_rect(self, hook: str) -> QRectF:
        return self.flow.node_rect(hook)

    def node_item(self, hook: str) -> NodeBase:
        self.catch_up()
        return self.flow.node_item(hook)

    def node_title(self, hook: str) -> str:
        return self.flow.node_title(hook)

    def node_texts(self, hook: str) -> list[str]:
        self.catch_up()
        return self.flow.node_texts(hook)

    def node_limit(self, hook: str) -> float:
        self.catch_up()
        return self.flow.node_limit(hook)

    def is_strip(self, hook: str) -> bool:
        return self.flow.is_strip(hook)

    def token_rect(self, index: int) -> QRectF:
        return self.flow.token_rect(index)

    def edges(self) -> list[tuple[str, str, str, str | None]]:
        return self.flow.edges()

    def highlighted(self) -> set[str] | None:
        return self.flow.highlighted()

    @property
    def framing(self) -> frozenset[str] | None:
        """The nodes the view frames (None: the whole block)."""
        return self._framing

    def set_highlight(self, hooks: set[str] | None) -> None:
        self.flow.set_highlight(hooks)

    # --- spotlight -------------------------------------------------------------------------
    def spotlight(self, hook: str | None) -> None:
        """One node at full strength and the rest dimmed; None clears."""
        self.flow.spotlight(hook)

    def spotlight_number(self, number: int) -> None:
        """Spotlight the number-th node of node_order() (1-based, the reading order); 0 or a
        number past the last node clears. For number keys in presentation mode."""
        order = self.node_order()
        self.spotlight(order[number - 1] if 0 < number <= len(order) else None)

    def spotlighted(self) -> str | None:
        return self.flow.spotlighted()

    def set_click_spotlight(self, on: bool) -> None:
        """True: a single click on a node spotlights it (presentation); False: a double click does."""
        self._click_spotlight = bool(on)

    # --- numbers or heatmaps -----------------------------------------------------------------
    def strip_mode(self) -> str:
        return self.flow.mode

    def set_strip_mode(self, mode: str) -> None:
        """"auto": numbers up to NUMBERS_MAX channels and tokens, heatmaps beyond; "numbers":
        numbers wherever they fit (up to FORCED_NUMBERS_MAX channels); "strips": heatmaps everywhere."""
        self.flow.set_mode(mode)
        if self.flow.sync_trace():
            self._apply_framing()

    # --- zoom and framing --------------------------------------------------------------------
    def zoom_in(self) -> None:
        self._zoom(1.25)

    def zoom_out(self) -> None:
        self._zoom(1 / 1.25)

    def fit_to_window(self) -> None:
        """Back to the default view, as large as the viewport allows (enlarging too): the whole
        block, or — in a lesson step that points at nodes — those nodes (see frame())."""
        self.frame(self.session.highlight.hooks)

    def show_whole_block(self) -> None:
        """The whole block, even in a step that points at some of its nodes."""
        self.frame(())

    def frame(self, hooks) -> None:
        """Show these nodes as large as the viewport allows (at most MAX_FRAME_GAIN × the whole
        block's fit); none: the whole block. In presentation mode, nodes spread wider than the view
        can show them readable are drawn side by side (the compact layout; dataflow_frame)."""
        self._user_zoomed = False
        hooks = frozenset(h for h in hooks if h in self.session.trace)
        self._framing = hooks or None
        self._apply_framing()

    def min_scale(self) -> float:
        """The smallest scale Fit uses: numbers at min_text_px(the interface zoom) on screen, and
        in presentation mode at READABLE_PX (16 px: every text of the diagram is at least that)."""
        floor = READABLE_PX if appearance().presenting else min_text_px(appearance().zoom)
        return floor / self.flow.geometry.number.pixelSize()

    def readable_size(self, px: float = 16.0) -> QSize:
        """The viewport size at which the whole block fits with its numbers `px` tall on screen."""
        scale = px / self.flow.geometry.number.pixelSize()
        rect = self.flow.sceneRect()
        return QSize(math.ceil(rect.width() * scale) + 4, math.ceil(rect.height() * scale) + 4)

    def smallest_text_px(self, annotations: bool = False) -> float:
        """The smallest text now drawn, in screen pixels (font size × item scale × view scale):
        values, titles, heatmap captions, tokens, head numbers and captions; with `annotations`
        the edges' shape labels too."""
        sizes = [item.font().pixelSize() * item.scale() * self.transform().m11()
                 for kind, item, _ in self.flow.text_boxes()
                 if item.isVisible() and item.text() and (annotations or kind not in ANNOTATIONS)]
        return min(sizes) if sizes else 0.0

    @contextmanager
    def _framing_now(self):
        """While framing: a resize that framing causes (the scene rect, the scroll bars) must not
        frame again from inside (a new layout would delete the items being placed)."""
        before, self._busy = self._busy, True
        try:
            yield
        finally:
            self._busy = before

    def _apply_framing(self) -> None:
        if self._busy:
            return
        with self._framing_now():
            self.framer.frame(self._framing)
        self._hide_cut()

    def _hide_cut(self) -> None:
        if not self._busy:                    # (framing ends with it)
            self.framer.hide_cut()

    def _zoom(self, factor: float) -> None:
        current = self.transform().m11()
        fit = self._fit_scale()
        least = self.min_scale() if appearance().presenting else fit * 0.5     # (the back row reads 16 px)
        target = max(least, min(current * factor, max(fit, 0.01) * 8))
        if current > 0:
            self.scale(target / current, target / current)
        self._user_zoomed = True
        self._hide_cut()

    def _fit_scale(self) -> float:
        rect, viewport = self.flow.sceneRect(), self.viewport().rect()
        if rect.isEmpty() or viewport.isEmpty():
            return 1.0
        return min(viewport.width() / rect.width(), viewport.height() / rect.height())

    # --- export ------------------------------------------------------------------------------
    def export_image(self, path) -> bool:
        """Write the whole diagram, as shown, to a .png (2× resolution) or .svg file; False if the
        file cannot be written. Raises ValueError for another suffix."""
        self.catch_up()
        with self.framer.every_text():       # the whole drawing, whatever the view's edge cuts
            return export_scene(self.flow, path, self.flow.palette.background, self.tr("Block diagram"))

    # --- the context menu (dataflow_menu) -----------------------------------------------------
    def context_menu(self) -> QMenu:
        """The right-click menu, built afresh in the current language (stable objectNames)."""
        return context_menu(self)

    def framed(self) -> bool:
        """Whether the view shows less than the whole block (framed nodes or a user zoom)."""
        return self._framing is not None or self._user_zoomed

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        menu = self.context_menu()
        menu.exec(event.globalPos())
        menu.deleteLater()

    # --- updates -----------------------------------------------------------------------------
    def _out_of_sight(self) -> bool:
        """Hidden in a shown window (a lab page fills it): an edit is drawn when the view is shown."""
        return not self.isVisible() and self.window().isVisible()

    def catch_up(self) -> None:
        """Draw the edits made while the view was out of sight (see _on_changed)."""
        if self._behind:
            self._behind = False
            self._on_trace_changed()

    def _on_changed(self, change: Change) -> None:
        if change is Change.TRACE and self._out_of_sight() and self.flow.widen_limits():
            # An edit while a lab page fills the window: only the colour limits follow it now (they
            # widen with every value, drawn or not); the nodes are drawn when the view is shown.
            self._behind = True
            return
        if self._behind:
            self._behind = False
            change |= Change.TRACE
        if change & Change.LOADED:
            self.flow.forget_limits()         # a new scenario: limits from its trace
        if change & Change.HIGHLIGHT and change & Change.TRACE:
            # a new layout is framed (and compacted) for the new step's nodes, not the last step's
            self._framing = frozenset(h for h in self.session.highlight.hooks if h in self.session.trace) or None
        if change & Change.TRACE:
            self._on_trace_changed()
        elif change & Change.SELECTION:
            self.flow.sync_selection()
        if change & Change.HIGHLIGHT:
            self._on_highlight(frame=True)
        elif appearance().presenting:
            self._hide_cut()            # values, tokens and titles change their width

    def _on_trace_changed(self) -> None:
        if self.flow.sync_trace():            # laid out anew: shown whole (or the highlighted nodes)
            self._user_zoomed = False
            self._apply_framing()

    def _on_highlight(self, frame: bool) -> None:
        highlight = self.session.highlight
        self.flow.set_highlight(set(highlight.hooks) if highlight.hooks else None, highlight.cells)
        if frame:
            self.frame(highlight.hooks)       # none: the whole block

    def _on_appearance(self) -> None:
        rebuilt = self.flow.sync_trace()      # (entering or leaving presentation mode: always)
        with self._framing_now():
            self.framer.sync_scroll_bars()   # (may resize the viewport: framed once, below)
        if rebuilt:
            self._refit()

    def _refit(self) -> None:
        if not self._user_zoomed:
            self._apply_framing()
        else:
            self._hide_cut()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._refit()

    def _repaint_frame(self) -> None:
        """The frame around the viewport and the scroll bars, again when a bar may come or go:
        the corner it uncovers kept the bar's old pixels (its frame's last pixel drawn twice)."""
        QTimer.singleShot(0, self, lambda: self.update(QRegion(self.rect()) - QRegion(self.viewport().geometry())))

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802
        super().scrollContentsBy(dx, dy)
        self._hide_cut()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self.catch_up()
        self._refit()

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.LanguageChange:
            self.retranslate()

    def retranslate(self) -> None:
        """Titles and captions in the new language, keeping the zoom, the place and the selection."""
        transform = self.transform()
        centre = self.mapToScene(self.viewport().rect().center())
        if self.flow.retranslate():
            self._on_highlight(frame=False)
            if self._user_zoomed:
                self.setTransform(transform)
                self.centerOn(centre)
            else:
                self._apply_framing()
        self._hide_cut()
