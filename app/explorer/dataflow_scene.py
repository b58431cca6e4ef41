"""The drawing of the block: one node per hook of the session's trace (see dataflow.py).

Laid out (dataflow_layout.build) only when the layout changes — which hooks exist and their
shapes, residual, norm placement, the tokens, which nodes are heatmaps, the zoom and the
theme; every other update recolours and retexts the existing items, and an edit touches only
the nodes whose arrays it recomputed (core's EditedTrace.recomputed; every other hook is the
very array drawn before).

Each node's colours use a steady symmetric limit: set from the trace when the layout is built
or a scenario is loaded, afterwards only widened when a value goes past it.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, QPointF, QRectF
from PySide6.QtWidgets import QGraphicsScene, QGraphicsSimpleTextItem, QToolTip

from app.explorer import finite_marks
from app.explorer.dataflow_items import EdgeItem, NodeBase
from app.explorer.dataflow_layout import (Layout, LayoutSpec, band_caption, build, gap_tooltip, layout_text_boxes,
                                          shape_text, token_caption, token_link_path, token_window)
from app.explorer.dataflow_plan import Q
from app.explorer.dataflow_pointing import hit, value_tooltip
from app.explorer.dataflow_queries import SceneQueries
from app.explorer.dataflow_strip import StripNode
from app.explorer.dataflow_style import (DIMMED, FORCED_NUMBERS_MAX, NUMBERS_MAX, Geometry, Palette, fade, place_text,
                                         tr)
from app.explorer.dataflow_titles import titles
from app.session import Session
from app.widgets import style
from app.widgets.appearance import appearance
from app.widgets.inert import plain_tooltip

MODES = ("auto", "numbers", "strips")


def _limit_for(array: np.ndarray) -> float:
    """style.limit_for, without its masking pass when every value is finite (the usual case)."""
    peak = max(float(array.max()), -float(array.min())) if array.size else 0.0     # no |array| copy
    return style.nice_limit(peak) if np.isfinite(peak) else style.limit_for(array)


class DataflowScene(SceneQueries, QGraphicsScene):
    """The drawing of the block: nodes, edges, tokens and head chips, built from the session's
    trace when the layout changes and otherwise updated in place. Zoom, fit, clicks and menus
    are the view's (DataflowView)."""

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("dataflowScene")
        self.session = session
        self.mode = "auto"
        self.layout = Layout()
        self._structure: object = None          # what the trace's layout depends on
        self._look: object = None               # heatmap nodes, zoom, theme, presentation mode
        self._compact: tuple[frozenset, bool] | None = None     # the compact layout wanted (set_compact)
        self.full_rects: dict[str, QRectF] = {}     # each node's place in the block's layout, and that
        self.full_bounds = QRectF()                 # layout's scene rect (kept while the compact one is shown)
        self._texts_for: object = None          # the config the titles were written for
        self._limits: dict[str, float] = {}     # hook → colour limit (steady: see the module doc)
        self._drawn: dict[str, tuple] = {}      # hook → (array, token, head, limit) last drawn
        self._seen: dict[str, object] = {}       # hook → the array its limit was last widened for
        self._highlight: set[str] | None = None
        self._cells: dict[str, set[tuple[int, ...]]] = {}
        self._spot: str | None = None
        self._selected: tuple = ()                # (hook, token, head) the selection marks show
        self.geometry = Geometry.at(1.0)
        self.palette = Palette.of(appearance())


    # --- changes from outside ----------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"strip mode: expected one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode

    def set_highlight(self, hooks: set[str] | None, cells=()) -> None:
        """Emphasise these nodes and the edges between them, dim the rest; outline `cells`
        ((hook, index) pairs). None clears."""
        self._highlight = None if hooks is None else set(hooks)
        self._cells = {}
        for hook, index in cells:
            self._cells.setdefault(hook, set()).add(tuple(index))
        self._refresh_marks()
        self._apply_emphasis()

    def spotlight(self, hook: str | None) -> None:
        """One node at full strength, the rest dimmed; None (or a hook not drawn) clears."""
        self._spot = hook if hook in self.layout.nodes else None
        self._apply_emphasis()

    def forget_limits(self) -> None:
        self._limits.clear()

    def set_compact(self, hooks, stacked: bool = True) -> bool:
        """Presentation mode's compact layout of these hooks (dataflow_plan.compact; its state is
        layout.compact), or the block's (None); True if laid out anew. See _relayout."""
        self._compact = (frozenset(hooks), bool(stacked)) if hooks else None
        return self.sync_trace()

    # --- bringing the drawing up to date -----------------------------------------------------
    def _strips(self) -> frozenset[str]:
        """The hooks drawn as heatmaps: automatically those wider than NUMBERS_MAX channels, and
        every node once there are more than NUMBERS_MAX tokens (see DataflowView.set_strip_mode)."""
        tokens = len(self.session.tokens)
        strips = set()
        for hook, array in self.session.trace.items():
            channels = array.shape[-1]
            if (self.mode == "strips" or (self.mode == "numbers" and channels > FORCED_NUMBERS_MAX)
                    or (self.mode == "auto" and (channels > NUMBERS_MAX or tokens > NUMBERS_MAX))):
                strips.add(hook)
        return frozenset(strips)

    def _keys(self) -> tuple[tuple, tuple]:
        session, config = self.session, self.session.config
        structure = (tuple((hook, array.shape) for hook, array in session.trace.items()), config.residual,
                     config.has_norm and config.norm_placement, session.tokens)
        look = appearance()
        return structure, (self._strips(), look.zoom, look.effective_theme, look.presenting)

    def sync_trace(self) -> bool:
        """Bring the drawing to the session's trace; True if it was laid out anew."""
        structure, look = self._keys()
        rebuilt = False
        if structure != self._structure or look != self._look:
            if self._structure is not None and structure != self._structure:
                self._limits.clear()          # a new block: limits from this trace
            self._structure, self._look = structure, look
            self._relayout()
            rebuilt = True
        elif self._compact != self.layout.compact:
            self.rebuild()
            rebuilt = True
        elif self._texts_for != self.session.config and not self._update_texts():
            self._relayout()                  # a title no longer fits its node
            rebuilt = True
        self._refresh_values(check_limits=True)
        if rebuilt or self._selection_key() != self._selected:
            self._refresh_selection()
        return rebuilt

    def widen_limits(self) -> bool:
        """After an edit of a view out of sight: widen the colour limits as drawing the new trace
        would (check_limits in _refresh_values), drawing nothing. False, doing nothing, when the
        edit needs more (a new layout or new titles): then the caller draws it now."""
        structure, look = self._keys()
        config = self.session.config
        if structure != self._structure or look != self._look or self._compact != self.layout.compact \
                or (self._texts_for is not config and self._texts_for != config):
            return False
        trace, limits, seen, drawn = self.session.trace, self._limits, self._seen, self._drawn
        for hook in self.layout.nodes:
            array = trace[hook]
            if hook in limits and (seen.get(hook) is array or drawn.get(hook, (None,))[0] is array):
                continue
            seen[hook] = array
            needed = _limit_for(array)
            if needed > limits.get(hook, 0.0):
                limits[hook] = needed
        return True

    def sync_selection(self) -> None:
        self._refresh_values()
        self._refresh_selection()

    def retranslate(self) -> bool:
        """Titles and captions in the current language, in place; True if it needed a new layout."""
        if not self._update_texts():
            self._relayout()
            self._refresh_values()
            self._refresh_selection()
            return True
        for band, caption, row in self.layout.bands:
            caption.setText(band_caption(row))
            if row == "attention":             # the head chips follow their caption
                x = caption.pos().x() + caption.boundingRect().width() + 8 * self.geometry.zoom
                for chip in self.layout.heads:
                    chip.setX(x)
                    x += chip.rect().width() + 4 * self.geometry.zoom
        self._refresh_token_list()
        return False

    def _relayout(self) -> None:
        """The block laid out anew; the view decides again whether to compact it (its sizes changed)."""
        self._compact = None
        self.rebuild()

    def rebuild(self) -> None:
        self.layout = Layout()                # nothing to reach while the items go and come
        self.clear()
        self._drawn = {}
        look = appearance()
        self.geometry, self.palette = Geometry.at(look.zoom), Palette.of(look)
        self.setBackgroundBrush(self.palette.background)
        session = self.session
        hooks, stacked = self._compact or (None, True)
        spec = LayoutSpec(session.config, session.trace, session.tokens, titles(session.config, session.trace),
                          self._tooltip, set(self._look[0]) if self._look else set(self._strips()),
                          self.geometry, self.palette, labels=not look.presenting, compact=hooks, stacked=stacked)
        self.layout = build(self, spec, self._token())
        if self._compact is None:
            self.full_rects = {hook: self.node_rect(hook) for hook in self.layout.nodes}
            self.full_bounds = self.sceneRect()
        self._texts_for = session.config
        if self._spot not in self.layout.nodes:
            self._spot = None
        self._refresh_marks()
        self._apply_emphasis()

    def _update_texts(self) -> bool:
        """Titles, tooltips and shape labels for the current config and language, on the existing
        items; False if a title needs a new layout."""
        names = titles(self.session.config, self.session.trace)
        for hook, node in self.layout.nodes.items():
            if not node.set_title(names[hook]):
                return False
            node.set_plain_tooltip(self._tooltip(hook))
            self._mark_problem(hook, node)          # its reason in this language
        trace = self.session.trace
        for edge in self.layout.edges:
            if edge.label is not None:
                edge.set_label(shape_text(trace[edge.spec.source].shape))
        for gap in self.layout.gaps.values():
            gap.setToolTip(plain_tooltip(gap_tooltip([names[hook] for hook in gap.hooks])))
        self._texts_for = self.session.config
        return True

    def _tooltip(self, hook: str) -> str:
        return tr("%1 — shape %2").replace("%1", hook).replace("%2", shape_text(self.session.trace[hook].shape))

    def _head(self) -> int:
        trace = self.session.trace
        return max(0, min(self.session.selected_head, trace[Q].shape[0] - 1)) if Q in trace else 0

    def _token(self) -> int:
        return max(0, min(self.session.selected_token, len(self.session.tokens) - 1))

    def _refresh_values(self, check_limits: bool = False) -> None:
        """Redraw the nodes whose array, shown token or head, or limit changed. With check_limits
        (after an edit) a limit is widened — never narrowed — when a value goes past it."""
        trace, token, head, limits = self.session.trace, self._token(), self._head(), self._limits
        severe = finite_marks.watch_for(self.session).any_severe()     # asked once, not twice per node
        for hook, node in self.layout.nodes.items():
            array = trace[hook]
            drawn = self._drawn.get(hook)
            # After an edit, a hook outside the EditedTrace's `recomputed` is the very array drawn
            # before: its node is skipped unless the token, head or limit it shows changed.
            fresh = drawn is None or drawn[0] is not array
            if (check_limits and fresh) or hook not in limits:
                needed = _limit_for(array)
                if needed > limits.get(hook, 0.0):
                    limits[hook] = needed
            limit = limits[hook]
            shown_head = head if array.ndim == 3 else 0
            if isinstance(node, StripNode):
                if fresh or drawn[2] != shown_head or drawn[3] != limit:
                    node.set_image(array[shown_head] if array.ndim == 3 else array, limit)
                if drawn is None or drawn[1] != token:
                    node.set_token(token)
            elif fresh or drawn[1:] != (token, shown_head, limit):
                row = array[shown_head, token] if array.ndim == 3 else array[token]
                marks = self._severe_marks(hook) if severe else None
                words = alarm = None
                if marks is not None:
                    marks = marks[shown_head, token] if array.ndim == 3 else marks[token]
                    words, alarm = finite_marks.number_words(), finite_marks.problem_colour(True)
                node.set_values(row, limit, marks, words, alarm)   # (it leaves the cells whose numbers stayed)
            if fresh:
                if severe:
                    self._mark_problem(hook, node)
                elif node.problem is not None:
                    node.set_problem(None)
            self._drawn[hook] = (array, token, shown_head, limit)

    def _severe_marks(self, hook: str):
        """The hook's cell codes when some value is not finite, else None."""
        watch = finite_marks.watch_for(self.session)
        if not watch.any_severe():            # the usual case: one look for the whole trace
            return None
        return watch.marks(hook) if any(issue.problem.severe for issue in watch.issues(hook)) else None

    def _mark_problem(self, hook: str, node: NodeBase) -> None:
        """A red border and the reason in the tooltip where a value of the hook is not finite."""
        watch = finite_marks.watch_for(self.session)
        if not watch.any_severe() or not any(issue.problem.severe for issue in watch.issues(hook)):
            node.set_problem(None)            # (nothing to word: the usual case after an edit)
            return
        severe = [issue for issue in watch.all_issues() if issue.hook == hook and issue.problem.severe]
        reason = "; ".join(finite_marks.issue_text(issue) for issue in severe) or None
        node.set_problem(reason, finite_marks.problem_colour(True))

    def _selection_key(self) -> tuple:
        return self.session.selected_hook, self._token(), self._head()

    def _refresh_selection(self) -> None:
        self._selected = self._selection_key()
        selected, head = self.session.selected_hook, self._head()
        for hook, node in self.layout.nodes.items():
            node.set_selected(hook == selected)
        self._refresh_token_list()
        for chip in self.layout.heads:
            chip.set_selected(chip.head == head)
        self._refresh_marks()

    def _refresh_token_list(self) -> None:
        layout, tokens, token = self.layout, self.session.tokens, self._token()
        start = token_window(len(tokens), token)
        for i, item in enumerate(layout.tokens):
            item.set_token(start + i, tokens[start + i])
            item.set_selected(item.index == token)
        if layout.token_header is not None:
            caption = token_caption(len(tokens), start)
            if layout.token_header.text() != caption:
                centre = layout.token_header.pos().x() + layout.token_header.boundingRect().width() / 2
                layout.token_header.setText(caption)
                layout.token_header.setX(centre - layout.token_header.boundingRect().width() / 2)
        if layout.token_link is not None:
            path = token_link_path(layout, token)
            layout.token_link.setVisible(path is not None)
            if path is not None:
                layout.token_link.setPath(path)

    def _refresh_marks(self) -> None:
        """Outline the highlighted cells: in a number node those of the token (and head) shown,
        in a heatmap every one of the head shown."""
        token, head = self._token(), self._head()
        for hook, node in self.layout.nodes.items():
            wanted = self._cells.get(hook, ())
            three = self.session.trace[hook].ndim == 3
            if isinstance(node, StripNode):
                node.set_marked({(i[-2], i[-1]) for i in wanted if not three or i[0] == head})
            else:
                node.set_marked({i[-1] for i in wanted if i[-2] == token and (not three or i[0] == head)})

    def _apply_emphasis(self) -> None:
        """The spotlight (one node) wins over a highlight (a set of nodes); else nothing is dimmed."""
        chosen = {self._spot} if self._spot is not None else self._highlight
        for hook, node in self.layout.nodes.items():
            on = chosen is None or hook in chosen
            fade(node, 1.0 if on else DIMMED)
            node.glow.setVisible(chosen is not None and on)
        for edge in self.layout.edges:
            if chosen is None:
                edge.set_emphasis(None)
            elif self._spot is not None:
                edge.set_emphasis(None if self._spot in (edge.spec.source, edge.spec.target) else False)
            else:
                edge.set_emphasis(edge.spec.source in chosen and edge.spec.target in chosen)

    # --- pointing ------------------------------------------------------------------------------
    def hit(self, point: QPointF) -> tuple | None:
        """What a click at a scene point means (dataflow_pointing.hit)."""
        return hit(self, point)

    def tooltip_at(self, point: QPointF) -> str | None:
        """The value under a point (token, channel, every digit), or None where there is none."""
        return value_tooltip(self.session, self.hit(point), self._token(), self._head())

    def helpEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        text = self.tooltip_at(event.scenePos())
        if text is None:
            super().helpEvent(event)
            return
        QToolTip.showText(event.screenPos(), text, event.widget())
        event.accept()

    # --- for checks ----------------------------------------------------------------------------
    def text_boxes(self) -> list[tuple[str, QGraphicsSimpleTextItem, QRectF]]:
        """Every text drawn, its kind and the box it must stay inside (see layout_text_boxes)."""
        return layout_text_boxes(self.layout, self.sceneRect())

    def edge_items(self) -> list[EdgeItem]:
        return list(self.layout.edges)


def text_rect(item: QGraphicsSimpleTextItem) -> QRectF:
    """Where a text item's glyphs are, in scene coordinates."""
    return item.mapRectToScene(item.boundingRect())


__all__ = ["DataflowScene", "MODES", "place_text", "text_rect"]
