"""Where the block diagram's view looks, and how large: the whole block or a lesson step's nodes,
framed as large as the view allows (Fit enlarges as well as shrinks, up to MAX_SCALE; a step's
nodes at most MAX_FRAME_GAIN past the whole block's fit), never below the view's min_scale()
(the view scrolls instead; what does not fit starts at its top left, where the reader starts).

Presentation mode (appearance().presenting) is for the back row: every text is at least
READABLE_PX (16 px) on screen. A lesson step's nodes are shown whole: framed in the block's own
layout (with the caption of their sub-layer where it costs them little), or — where that layout
cannot show them at READABLE_PX, or where side by side they are COMPACT_GAIN times larger — in
the compact layout: only they, side by side in reading order, a "…" for each run of nodes left
out (dataflow_plan.compact). The choice is made from the sizes of the nodes in the block's
layout (the scene keeps them), without building the compact layout to try it. The view has no
scroll bars (a drag still moves it), and nothing is shown half: a node (token, "…") the view's
edge would cut is hidden whole, its edges running on off screen say there is more that way.
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import QTransform

from app.explorer.dataflow_items import GapMarker
from app.explorer.dataflow_layout import layout_text_rooms
from app.explorer.dataflow_plan import X, compact, plan
from app.explorer.dataflow_style import READABLE_PX
from app.widgets.appearance import appearance

MAX_SCALE = 4.0              # Fit enlarges up to this (numbers 64 px at zoom 1)
MAX_FRAME_GAIN = 2.0         # framing a few nodes zooms at most this much past the whole block
COMPACT_GAIN = 1.5           # the compact layout where it shows a step's nodes this much larger
STACKED_BIAS = 1.25          # … keeping a column's nodes stacked unless side by side they are this much larger
BOX_MARGIN = 1.5            # px: a box whose border is nearer the view's edge than this is cut (presentation)
HEADER_COST = 0.85           # a sub-layer's caption joins the frame if the nodes keep this share of their size


def presenting() -> bool:
    return appearance().presenting


def margined(rect: QRectF, geometry) -> QRectF:
    """A framed rect with room around it for the edges into and out of it; in presentation mode,
    where the height is precious, the glow's width above and below."""
    g = geometry
    if presenting():
        return rect.adjusted(-g.col_gap / 2, -10 * g.zoom, g.col_gap / 2, 10 * g.zoom)
    return rect.adjusted(-g.col_gap, -g.col_gap, g.col_gap, g.col_gap)


class Framer:
    """Frames one DataflowView (which keeps what to frame: `frame(hooks)`, and the user's zoom)."""

    def __init__(self, view):
        self.view = view

    @property
    def flow(self):
        return self.view.flow

    def readable_scale(self) -> float:
        return READABLE_PX / self.flow.geometry.number.pixelSize()

    def fit_scale(self, rect: QRectF) -> float:
        """The scale at which a scene rect fills the viewport (without scroll bars: Fit needs none)."""
        viewport = self.view.contentsRect()
        return min((viewport.width() - 2) / rect.width(), (viewport.height() - 2) / rect.height())

    def frame(self, hooks: frozenset | None) -> None:
        """Show these nodes (None: the whole block) as the module's doc says: the layout, the scale
        and the place."""
        view, viewport = self.view, self.view.contentsRect()
        if self.flow.sceneRect().isEmpty() or viewport.width() < 10 or viewport.height() < 10:
            return
        width, height = viewport.width() - 2, viewport.height() - 2
        self.choose_layout(hooks or frozenset(), width, height)
        fit_all = self.fit_scale(self.flow.sceneRect())
        target = self.frame_rect(hooks)
        scale = self.fit_scale(target)
        if hooks:
            scale = min(scale, max(fit_all, view.min_scale()) * MAX_FRAME_GAIN)
        scale = max(min(scale, MAX_SCALE), view.min_scale())
        view.setTransform(QTransform.fromScale(scale, scale))
        # what does not fit starts where the reader starts: at its top left along an axis that does not fit
        shown_w, shown_h = width / scale, height / scale
        x = target.center().x() if target.width() <= shown_w else target.left() + shown_w / 2
        y = target.center().y() if target.height() <= shown_h else target.top() + shown_h / 2
        view.centerOn(x, y)

    def frame_rect(self, hooks: frozenset | None) -> QRectF:
        """The scene rect to show: the framed nodes with room around them (and their sub-layer's
        caption, see with_caption), or the whole scene."""
        scene = self.flow.sceneRect()
        if not hooks or self.flow.layout.compact is not None:
            return scene                      # the compact layout is all about the framed nodes
        hooks = hooks & set(self.flow.node_names())
        rect = QRectF()
        for hook in hooks:
            rect = rect.united(self.flow.node_rect(hook))
        if rect.isEmpty():
            return scene
        return self.with_caption(margined(rect, self.flow.geometry).intersected(scene), hooks)

    # --- presentation mode: which layout ---------------------------------------------------
    def choose_layout(self, hooks: frozenset, width: float, height: float) -> None:
        """The block's layout, or the compact one of `hooks` (stacked or not), for a view of
        width × height: see the module's doc. Outside presentation mode: the block's."""
        wanted, stacked = None, True
        hooks = hooks & set(self.view.session.trace)         # (an edit may have removed some)
        if presenting() and hooks:
            readable = self.readable_scale()

            def scale_for(size) -> float:
                return min(width / size.width(), height / size.height(), MAX_SCALE)

            # the scale the block's layout would frame them at (as the view does, without the caption)
            whole = min(scale_for(margined(self.full_rect(hooks), self.flow.geometry).size()),
                        max(scale_for(self.flow.full_bounds.size()), readable) * MAX_FRAME_GAIN)
            on_top, side_by_side = (scale_for(self.compact_size(hooks, stacked)) for stacked in (True, False))
            stacked = on_top >= readable and on_top * STACKED_BIAS >= side_by_side
            if whole < readable or max(on_top, side_by_side) >= COMPACT_GAIN * whole:
                wanted = hooks
        if (None if wanted is None else (wanted, stacked)) != self.flow.layout.compact:
            self.flow.set_compact(wanted, stacked)

    def full_rect(self, hooks) -> QRectF:
        """Where these nodes are in the block's layout (also while the compact one is shown)."""
        rect = QRectF()
        for hook in hooks:
            rect = rect.united(self.flow.full_rects.get(hook, QRectF()))
        return rect

    def compact_size(self, hooks, stacked: bool) -> QSizeF:
        """About how large the compact layout of these hooks would be (scene pixels), from their
        nodes' sizes in the block's layout."""
        g, full = self.flow.geometry, self.flow.full_rects
        rows, edges = plan(self.view.session.config, self.view.session.trace)
        grouped = compact(rows, edges, hooks)[0][0].columns
        columns = grouped if stacked else compact(rows, edges, hooks, False)[0][0].columns
        width = height = 0.0
        for column in columns:
            sizes = [full[hook].size() if hook in full else GapMarker.size(g) for hook in column]
            width += max(size.width() for size in sizes) + g.col_gap
            height = max(height, sum(size.height() for size in sizes) + (len(sizes) - 1) * g.stack_gap_edge)
        if not stacked and any(len(column) > 1 for column in grouped):
            height += 2 * g.lane + 6 * g.zoom  # edges past a node run under the row
        glow = 20 * g.zoom                    # the glow around each node, both sides
        return QSizeF(width - g.col_gap + 6 * g.zoom + glow, height + glow)

    # --- the frame -------------------------------------------------------------------------
    def with_caption(self, target: QRectF, hooks) -> QRectF:
        """`target` and the caption (and head numbers) of the sub-layer its nodes are in, where
        the nodes keep HEADER_COST of their size with it and stay readable."""
        header = self.band_header_rect(hooks)
        if not presenting() or header.isEmpty():
            return target
        wider = target.united(header.adjusted(-6, -6, 6, 6)).intersected(self.flow.sceneRect())
        fit = self.fit_scale
        return wider if fit(wider) >= max(HEADER_COST * fit(target), self.readable_scale()) else target

    def band_header_rect(self, hooks) -> QRectF:
        """The captions (and head numbers) of the sub-layer bands that hold any of these nodes."""
        layout, rect = self.flow.layout, QRectF()
        for band, caption, row in layout.bands:
            area = band.mapRectToScene(band.rect())
            if any(area.contains(self.flow.node_rect(hook)) for hook in hooks if hook in layout.nodes):
                rect = rect.united(caption.mapRectToScene(caption.boundingRect()))
                for chip in layout.heads if row == "attention" else ():
                    rect = rect.united(chip.mapRectToScene(chip.rect()))
        return rect

    # --- what the view's edge cuts ---------------------------------------------------------
    def hide_cut(self) -> None:
        """Presentation mode shows nothing half: a node, token, head number or "…" that the view's
        edge would cut is hidden whole (the edges into it run on off screen: there is more that
        way), except the framed nodes (the step's), which keep their box and hide only the texts
        the edge cuts; any other text the edge would cut is hidden too. Leaving presentation
        mode lays the diagram out anew, everything shown."""
        if not presenting():
            return
        view, layout = self.view, self.flow.layout
        screen = QRectF(view.viewport().rect()).adjusted(-0.5, -0.5, 0.5, 0.5)

        def on_screen(room: QRectF) -> bool:
            return screen.contains(QRectF(view.mapFromScene(room).boundingRect()))

        inside = screen.adjusted(BOX_MARGIN, BOX_MARGIN, -BOX_MARGIN, -BOX_MARGIN)   # a border on the edge looks cut
        kept = view.framing or frozenset()
        boxes = list(layout.nodes.values()) + layout.tokens + layout.heads + list(layout.gaps.values())
        for box in boxes:
            whole = getattr(box, "hook", None) in kept \
                or inside.contains(QRectF(view.mapFromScene(box.mapRectToScene(box.rect())).boundingRect()))
            if box.isVisible() != whole:
                box.setVisible(whole)
        for item, room in layout_text_rooms(layout):
            owner = item.parentItem()
            shown = on_screen(room) and (owner is None or owner.isVisible())
            if item.isVisible() != shown:
                item.setVisible(shown)
        if layout.token_header is not None and not any(token.isVisible() for token in layout.tokens):
            layout.token_header.setVisible(False)
        if layout.token_link is not None:         # from the selected token to the input: both shown
            chip = next((t for t in layout.tokens if t.index == view.flow.selected_token()), None)
            x_node = layout.nodes.get(X)
            linked = chip is not None and chip.isVisible() and x_node is not None and x_node.isVisible()
            if layout.token_link.isVisible() != linked:
                layout.token_link.setVisible(linked)

    @contextmanager
    def every_text(self):
        """Every text shown for a while (an export draws the whole diagram)."""
        layout = self.flow.layout
        boxes = list(layout.nodes.values()) + layout.tokens + layout.heads + list(layout.gaps.values())
        texts = [item for item, _ in layout_text_rooms(layout)]
        hidden = [item for item in boxes + texts + [layout.token_header] if item is not None and not item.isVisible()]
        for item in hidden:
            item.setVisible(True)
        try:
            yield
        finally:
            for item in hidden:
                item.setVisible(False)

    def sync_scroll_bars(self) -> None:
        """No scroll bars in presentation mode: the view is framed, and a drag still moves it."""
        policy = Qt.ScrollBarAlwaysOff if presenting() else Qt.ScrollBarAsNeeded
        self.view.setHorizontalScrollBarPolicy(policy)
        self.view.setVerticalScrollBarPolicy(policy)
