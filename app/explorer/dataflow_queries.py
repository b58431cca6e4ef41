"""What the dataflow scene has drawn, for the view, the exports and the tests: the nodes, their
boxes, titles, numbers and colour limits, the tokens, the edges, the highlight and the spotlight.
A mixin of DataflowScene (app/explorer/dataflow_scene.py), which keeps `layout`, `_limits`,
`_highlight`, `_spot` and `_token()`; nothing here changes the scene."""
from __future__ import annotations

from PySide6.QtCore import QRectF

from app.explorer.dataflow_items import NodeBase, NumberNode
from app.explorer.dataflow_strip import StripNode


class SceneQueries:
    # --- what is drawn --------------------------------------------------------------------
    def node_names(self) -> list[str]:
        """The hooks drawn, in trace order."""
        return list(self.layout.nodes)

    def node_order(self) -> list[str]:
        """The hooks in reading order (row by row, column by column, top to bottom): the
        numbering of spotlight_number()."""
        return list(self.layout.order)

    def node_item(self, hook: str) -> NodeBase:
        return self.layout.nodes[hook]

    def node_rect(self, hook: str) -> QRectF:
        node = self.layout.nodes[hook]
        return node.mapRectToScene(node.rect())

    def node_title(self, hook: str) -> str:
        return self.layout.nodes[hook].title

    def node_texts(self, hook: str) -> list[str]:
        """The numbers a number node shows, top to bottom ([] for a heatmap)."""
        node = self.layout.nodes[hook]
        return [text.text() for text in node.texts] if isinstance(node, NumberNode) else []

    def node_limit(self, hook: str) -> float:
        return self._limits[hook]

    def is_strip(self, hook: str) -> bool:
        return isinstance(self.layout.nodes[hook], StripNode)

    def selected_token(self) -> int:
        """The token whose row the nodes show."""
        return self._token()

    def token_rect(self, index: int) -> QRectF:
        """A listed token's box (a long list shows a window around the selected token)."""
        item = next(t for t in self.layout.tokens if t.index == index)
        return item.mapRectToScene(item.rect())

    def edges(self) -> list[tuple[str, str, str, str | None]]:
        return [(e.spec.source, e.spec.target, e.spec.kind, e.label.text() if e.label else None)
                for e in self.layout.edges]

    def highlighted(self) -> set[str] | None:
        return None if self._highlight is None else set(self._highlight)

    def marked_cells(self, hook: str) -> list:
        """The highlighted cells a node outlines: channels (numbers) or (token, channel) (heatmap)."""
        return self.layout.nodes[hook].marked()

    def spotlighted(self) -> str | None:
        return self._spot
