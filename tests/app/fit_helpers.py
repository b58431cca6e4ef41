"""Whether a lab page's figure is on screen whole: inside every parent, scroll area and the window.

A widget in a scroll area that is partly scrolled away is not "cut off" for the readability
walk (tests/app/readability.py): the learner could scroll. On a projector the teacher does not
scroll, so these helpers ask the stricter question: is all of it visible now, without scrolling?
`hidden_part(widget, window)` says what of a widget is out of sight, `hidden_item(view, item,
window)` the same for a graphics item (a plot's axis with its tick labels and title), and
`scrolling_pages(window)` which shown pages would need scrolling (MAY_SCROLL: the exceptions)
and `sideways_tables(window)` / `cut_tables(window)` which shown tables of numbers would need
scrolling across / down.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF
from PySide6.QtWidgets import QGraphicsTextItem, QGraphicsView, QScrollArea, QTableView, QWidget

SLACK = 1                  # pixels a graphics item may pass its view's edge by (rounding)


def window_rect(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def visible_rect(widget: QWidget, window: QWidget) -> QRect:
    """The part of `widget` (window coordinates) that its parents and the window leave visible:
    what a scroll area's viewport hides is hidden."""
    shown = window_rect(widget, window)
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        shown = shown.intersected(window_rect(parent, window))
        parent = parent.parentWidget()
    return shown.intersected(window.rect())


def hidden_part(widget: QWidget, window: QWidget) -> str | None:
    """None when the whole widget is visible, else what is hidden."""
    if not widget.isVisible():
        return f"{widget.objectName() or type(widget).__name__} is not shown"
    whole, shown = window_rect(widget, window), visible_rect(widget, window)
    if shown == whole:
        return None
    return (f"{widget.objectName() or type(widget).__name__}: only {shown.width()}×{shown.height()} px "
            f"of its {whole.width()}×{whole.height()} px are visible")


def _drawn(item) -> QRectF:
    """What an item draws, in scene coordinates: a laid-out item (an axis, a title) is its place in
    the layout (pyqtgraph's axes report a bounding rectangle 15 px longer at each end, for labels
    that might overflow), a text item its glyphs (not the document's margin), and every visible
    child the same way."""
    if isinstance(item, QGraphicsTextItem):
        margin = item.document().documentMargin()
        own = item.boundingRect().adjusted(margin, margin, -margin, -margin)
    elif hasattr(item, "size"):
        own = QRectF(QPointF(0, 0), item.size())
    else:
        own = item.boundingRect()
    rect = item.mapRectToScene(own)
    for child in item.childItems():
        if child.isVisible() and not isinstance(child, QGraphicsTextItem) or \
                child.isVisible() and child.toPlainText().strip():
            rect = rect.united(_drawn(child))
    return rect


def item_rect(view: QGraphicsView, item, window: QWidget) -> QRect:
    """A graphics item with its children (an axis with its tick labels and title), in window
    coordinates."""
    in_view = view.mapFromScene(_drawn(item)).boundingRect()
    return QRect(view.viewport().mapTo(window, in_view.topLeft()), in_view.size())


def hidden_item(view: QGraphicsView, item, window: QWidget, what: str) -> str | None:
    """None when the item is wholly inside the visible part of the view, else what is hidden."""
    rect = item_rect(view, item, window)
    shown = visible_rect(view.viewport(), window)
    if shown.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(rect):     # a fractional layout rounds
        return None
    return f"{what}: {rect.getRect()} is not inside the visible {shown.getRect()}"


def hidden_axes(view: QGraphicsView, plot, window: QWidget, what: str) -> list[str]:
    """What of a plot's shown axes (ticks, tick labels, axis title) and title is out of sight."""
    problems = []
    for side in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(side)
        if axis.isVisible() and axis.width() > 0 and axis.height() > 0:
            problem = hidden_item(view, axis, window, f"{what}, {side} axis")
            if problem:
                problems.append(problem)
    title = getattr(plot, "titleLabel", None)
    if title is not None and title.isVisible() and title.text:
        problem = hidden_item(view, title, window, f"{what}, title")
        if problem:
            problems.append(problem)
    return problems


# --- pages that scroll ---------------------------------------------------------------------------
# A page that may scroll on a projector: {scroll area's objectName: why}. Every other lab page
# shows all of itself at once.
MAY_SCROLL: dict[str, str] = {}


def scrolling_pages(window: QWidget, may_scroll: dict[str, str] = MAY_SCROLL) -> list[str]:
    """Every shown page (a QScrollArea: a lab part, a column of controls, a list of snippets)
    whose content does not fit its viewport, i.e. whose scroll bar has a range: on a projector
    nobody scrolls, so what lies past the edge is not seen. Tables and text fields are not pages
    (tests/app/readability.py measures their cells and text)."""
    problems = []
    for area in window.findChildren(QScrollArea):
        if not area.isVisible() or area.objectName() in may_scroll or area.widget() is None:
            continue
        if visible_rect(area.viewport(), window).isEmpty():
            continue                                    # inside another page, scrolled away
        for direction, bar in (("down", area.verticalScrollBar()), ("across", area.horizontalScrollBar())):
            if bar.maximum() > 0:
                problems.append(f"{area.objectName() or type(area).__name__} scrolls: {bar.maximum()} px {direction} "
                                f"are out of sight ({area.viewport().width()}×{area.viewport().height()} px "
                                f"shown of {area.widget().width()}×{area.widget().height()})")
    return problems


# --- tables that scroll sideways -----------------------------------------------------------------
def _shown_tables(window: QWidget) -> list[QTableView]:
    """The tables of numbers shown with cells in them, except those inside a page scrolled away."""
    return [table for table in window.findChildren(QTableView)
            if table.isVisible() and table.model() is not None and table.model().rowCount()
            and table.model().columnCount() and not visible_rect(table.viewport(), window).isEmpty()]


def sideways_tables(window: QWidget) -> list[str]:
    """Every shown table of numbers (a QTableView: the inspector's, the weight editor's, a lab's)
    whose columns are wider than its viewport, i.e. that needs its horizontal scroll bar: on a
    projector nobody scrolls, so the columns past the edge are not seen. Says by how many px."""
    problems = []
    for table in _shown_tables(window):
        model = table.model()
        room = table.viewport().width()
        bar = table.horizontalScrollBar()
        if table.horizontalHeader().length() > room or bar.maximum() > 0:
            # a NumberTable widens the columns it shows to fill its width: its content_width is
            # what its columns need
            needed = table.content_width() if hasattr(table, "content_width") else \
                table.horizontalHeader().length() + table.width() - room
            problems.append(f"{table.objectName() or type(table).__name__} scrolls sideways: its "
                            f"{model.rowCount()}×{model.columnCount()} cells need {needed} px of width, "
                            f"it is {table.width()} px wide ({needed - table.width()} px short)")
    return problems


def cut_tables(window: QWidget) -> list[str]:
    """Every shown table of numbers (a QTableView) whose rows do not all fit its viewport, i.e.
    that needs its vertical scroll bar: on a projector nobody scrolls, so the rows below the edge
    are not seen (sideways_tables' vertical twin). Says how many rows are seen and by how many px
    the table is short."""
    problems = []
    for table in _shown_tables(window):
        model = table.model()
        room = table.viewport().height()
        needed_rows = table.verticalHeader().length()
        if needed_rows > room or table.verticalScrollBar().maximum() > 0:
            rows = model.rowCount()
            seen = sum(1 for r in range(rows) if table.rowViewportPosition(r) >= 0
                       and table.rowViewportPosition(r) + table.rowHeight(r) <= room)
            short = needed_rows - room
            problems.append(f"{table.objectName() or type(table).__name__} scrolls down: {seen} of its "
                            f"{rows}×{model.columnCount()} rows are whole, it is {table.height()} px high "
                            f"({short} px short)")
    return problems
