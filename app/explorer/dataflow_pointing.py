"""What a point of the block diagram means: what a click there picks (a node and its cell, a
token, a head) and the exact value under the pointer (the tooltip)."""
from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QGraphicsScene

from app.explorer.dataflow_items import HeadChip, NodeBase, NumberNode, TokenItem
from app.explorer.dataflow_strip import StripNode
from app.explorer.dataflow_style import tr
from core.numbers import format_exact


def hit(scene: QGraphicsScene, point: QPointF) -> tuple | None:
    """What a click at a scene point means: ("node", hook, token or None, channel or None),
    ("token", index), ("head", head) or None (empty space)."""
    for item in scene.items(point):
        while not isinstance(item, (NodeBase, TokenItem, HeadChip)) and item.parentItem() is not None:
            item = item.parentItem()
        if isinstance(item, StripNode):
            cell = item.cell_at(item.mapFromScene(point))
            return ("node", item.hook) + (cell if cell is not None else (None, None))
        if isinstance(item, NumberNode):
            return ("node", item.hook, None, item.channel_at(item.mapFromScene(point)))
        if isinstance(item, TokenItem):
            return ("token", item.index)
        if isinstance(item, HeadChip):
            return ("head", item.head)
    return None


def value_tooltip(session, found: tuple | None, token: int, head: int) -> str | None:
    """The value a hit() points at (token, channel, every digit; a number node's own token is the
    one shown, `token`), or None where it points at none."""
    if found is None or found[0] != "node" or found[3] is None:
        return None
    _, hook, at_token, channel = found
    array = session.trace[hook]
    token = token if at_token is None else at_token
    index = (head, token, channel) if array.ndim == 3 else (token, channel)
    text = (tr("%1 · token %2 “%3” · channel %4 = %5").replace("%1", hook).replace("%2", str(token + 1))
            .replace("%3", session.tokens[token]).replace("%4", str(channel + 1))
            .replace("%5", format_exact(array[index])))
    return text + tr(" · head %1").replace("%1", str(head + 1)) if array.ndim == 3 else text
