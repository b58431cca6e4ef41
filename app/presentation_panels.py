"""Where a lesson step's panels go in presentation mode, so that each shows its text whole.

Outside presentation mode the inspector sits under the diagram, beside the plots, and the
editing panels (block options, checks, weights) in the right-hand column. Presentation mode
shows only the panels a step names, in larger text, and the inspector's worked formula may then
be taller than the room under the diagram. So, at each step:

1. every panel starts at home; if the inspector shows every column of its table and its whole
   formula there, it stays (the layout the learner knows);
2. else it moves to the top of the right-hand column, which is as tall as the window's body;
   the step's editing panels stay below it when both fit the column's height (their number
   tables may scroll, by whole rows),
3. else they go where the inspector was, beside the plots, if the window is wide enough for the
   three (it never grows); a few px of height they lack there the diagram lends, the width a
   table there lacks the right-hand column gives up (which itself widens up to TABLE_SHARE for
   the inspector's whole table), and at a step that names no plot the plots step aside while
   the inspector lacks the width for its table (150 % on a 1024 px projector);
4. where nothing has the room, the arrangement that hides the least.

`go_home()` puts every panel back exactly where the window put it.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QAbstractItemView, QBoxLayout, QSplitter, QVBoxLayout, QWidget

# The panels a lesson step can bring forward in presentation mode, and the boxes that hold them.
STEP_BOXES = {"config": "configBox", "checks": "invariantsBox", "weights": "weightsBox", "inspector": "inspectorBox"}
EDITING = ("config", "checks", "weights")       # hidden in presentation mode unless a step names them
RIGHT_SHARE = 0.52                               # the right-hand column takes at most this share of the width,
TABLE_SHARE = 0.56                               # or up to this share where the inspector's table needs it whole


class StepPanels:
    """The boxes a step can show, their homes in the window, and where presentation mode puts them."""

    def __init__(self, window: QWidget):
        self.window = window
        self.boxes: dict[str, QWidget] = {panel: window.findChild(QWidget, name) for panel, name in STEP_BOXES.items()
                                          if window.findChild(QWidget, name) is not None}
        config = self.boxes.get("config")
        # The right-hand column: the widget that holds its boxes (`_right_content`), and the column
        # in the window's splitter (`right`): the scroll area around it, or that widget itself.
        self._right_content: QWidget | None = config.parentWidget() if config is not None else None
        self.right: QWidget | None = _in_splitter(self._right_content)
        layout = self._right_content.layout() if self._right_content is not None else None
        self._right_minimum = self.right.minimumWidth() if self.right is not None else 0
        self._right_layout: QBoxLayout | None = layout if isinstance(layout, QBoxLayout) else None
        # Each editing box's place in the right-hand column: (index, stretch).
        self._editing_home: dict[QWidget, tuple[int, int]] = {}
        if self._right_layout is not None:
            for panel in EDITING:
                box = self.boxes.get(panel)
                index = self._right_layout.indexOf(box) if box is not None else -1
                if index >= 0:
                    self._editing_home[box] = (index, self._right_layout.stretch(index))
        inspector = self.boxes.get("inspector")
        splitter = inspector.parentWidget() if inspector is not None else None
        self._inspector_home = (splitter, splitter.indexOf(inspector)) if isinstance(splitter, QSplitter) else None
        self._inspector_minimum = inspector.minimumHeight() if inspector is not None else 0
        self._inspector_maximum = inspector.maximumHeight() if inspector is not None else 0
        self.shelf: QWidget | None = None           # beside the plots: editing boxes the right column cannot hold
        self.plots: QWidget | None = window.findChild(QWidget, "plotsPanel")
        self._plots_aside = False                   # the plots hidden for a step that does not name them
        self._lent: tuple[QSplitter, list[int]] | None = None   # the diagram's height lent to the shelf

    # --- where the boxes are -----------------------------------------------------------------
    def place_of(self, panel: str) -> str:
        """"home", "right" (the inspector above the editing panels) or "shelf" (beside the plots)."""
        box = self.boxes[panel]
        if self.shelf is not None and box.parentWidget() is self.shelf:
            return "shelf"
        if panel == "inspector" and box.parentWidget() is self._right_content:
            return "right"
        return "home"

    def go_home(self) -> None:
        """Every box back where the window put it; the shelf goes; the right-hand column scrolls
        again when short of height."""
        self._boxes_home()
        self._column_scrolls(True)

    def _column_scrolls(self, scrolling: bool) -> None:
        """The right-hand column scrolls when short of height (at the desk), or is a plain column
        (presenting: the step's panels are arranged to fit its height)."""
        if hasattr(self.right, "set_scrolling"):
            self.right.set_scrolling(scrolling)

    def _boxes_home(self) -> None:
        inspector = self.boxes.get("inspector")
        if inspector is not None and self._inspector_home is not None:
            splitter, index = self._inspector_home
            if inspector.parentWidget() is not splitter:
                if self._right_layout is not None:
                    self._right_layout.removeWidget(inspector)
                splitter.insertWidget(index, inspector)
            inspector.setMinimumHeight(self._inspector_minimum)
            inspector.setMaximumHeight(self._inspector_maximum)
        if self.right is not None:
            self.right.setMinimumWidth(self._right_minimum)
        if self._right_layout is not None:
            for box, (index, stretch) in sorted(self._editing_home.items(), key=lambda item: item[1][0]):
                if box.parentWidget() is not self._right_content:
                    if self.shelf is not None:
                        self.shelf.layout().removeWidget(box)
                    self._right_layout.insertWidget(index, box, stretch)
        if self._lent is not None:
            column, sizes = self._lent
            column.setSizes(sizes)
            self._lent = None
        if self._plots_aside:
            self._plots_aside = False
            self.plots.show()
        _hold_width(self._editing_home, False)
        if self.shelf is not None:
            self.shelf.hide()
            self.shelf.setParent(None)            # the splitter lets go of it
            self.shelf.deleteLater()
            self.shelf = None

    # --- a step ------------------------------------------------------------------------------
    def arrange_home(self, shown: set[str]) -> list[QWidget]:
        """Every box at home, those of the panels in `shown` visible; the editing ones shown."""
        self._boxes_home()
        self._column_scrolls(False)
        if self.right is not None:
            self.right.setMinimumWidth(0)           # its panels' own minimum: no more, in this mode
        for panel, box in self.boxes.items():
            box.setVisible(panel in shown)
        editing = [self.boxes[panel] for panel in EDITING if panel in shown and panel in self.boxes]
        if self.right is not None:
            self.right.setVisible(bool(editing))
            if editing:
                self.give_room()
        return editing

    def arrange(self, shown: set[str], plots_named: bool = True) -> None:
        """Show the boxes of the panels in `shown` (and hide the others), placed so that the
        inspector's formula needs no scroll bar wherever the window has the room for it.
        `plots_named`: whether the step names a plot (else the plots may step aside for the room)."""
        editing = self.arrange_home(shown)
        inspector = self.boxes.get("inspector")
        if "inspector" not in shown or inspector is None or self._right_layout is None \
                or self._inspector_home is None:
            return
        settle_layouts()
        if self._inspector_short(columns=True) <= 0:
            return                                # its formula and every column of its table fit at home
        short_at_home = self._inspector_short()
        # The right-hand column: the window's whole height, the inspector at its top, the step's
        # editing panels below it if they fit (their number tables may scroll, by whole rows).
        self._right_layout.insertWidget(0, inspector, 0 if editing else 1)
        inspector.show()                          # a layout shows a widget it adopts only later
        self.right.setVisible(True)
        wanted = None
        if self._taller_than_the_column(inspector, editing):
            # The editing boxes hidden until placed: under the inspector they would make the window
            # taller than it is (150 % on 1024×768), and a window does not shrink back by itself.
            wanted = self.right.sizeHint().width()     # with them, as they are
            for box in editing:
                box.hide()
        self.give_room(hint=wanted)
        settle_layouts()
        if not editing:
            return
        short_stacked = self._short_on_the_right(inspector, editing)
        if short_stacked <= 0:
            self._stack(inspector, editing)
            return
        # Else the editing panels beside the plots, where the inspector was (if the window is
        # wide enough for them, the plots and the inspector side by side).
        if not self._shelf_fits_across(editing):
            if short_at_home < short_stacked:
                self.arrange_home(shown)
            else:
                self._stack(inspector, editing)
            return
        self._to_shelf(editing)
        if not plots_named:
            self._plots_step_aside(editing)
        short_apart = max(self._inspector_short(), self._short_on_the_shelf(editing))
        if short_apart > 0 and min(short_stacked, short_at_home) < short_apart:
            # Nowhere has the room (a very long formula): the arrangement that hides the least.
            self.arrange_home(shown)
            if short_stacked < short_at_home:
                self._right_layout.insertWidget(0, inspector, 0)
                inspector.show()
                self.right.setVisible(True)
                self.give_room()
                settle_layouts()
                self._stack(inspector, editing)

    def _taller_than_the_column(self, inspector: QWidget, editing: list[QWidget]) -> bool:
        """Whether the inspector above the editing boxes needs more than the right-hand column's height."""
        spacing = max(self._right_layout.spacing(), 0)
        margins = self._right_layout.contentsMargins()
        least = inspector.minimumSizeHint().height() + margins.top() + margins.bottom() \
            + sum(spacing + box.minimumSizeHint().height() for box in editing)
        return least > self.right.height()

    def _stack(self, inspector: QWidget, editing: list[QWidget]) -> None:
        """The inspector above the editing panels in the right-hand column: it keeps the height it
        needs (as far as the panels' least heights leave it), they share the rest."""
        for box in editing:
            box.show()
        spacing = max(self._right_layout.spacing(), 0)
        below = sum(spacing + least_height(box, self.right.width()) for box in editing)
        margins = self._right_layout.contentsMargins()
        room = self.right.height() - below - margins.top() - margins.bottom()
        inspector.setFixedHeight(max(min(self._inspector_wanted(inspector), room), inspector.minimumSizeHint().height()))

    def _to_shelf(self, editing: list[QWidget]) -> None:
        home_splitter, home_index = self._inspector_home
        self.shelf = _shelf()
        _hold_width(editing, True)                # its share is made from its least width: all of it
        for box in editing:
            self._right_layout.removeWidget(box)
            self.shelf.layout().addWidget(box, self._editing_home.get(box, (0, 0))[1])
            box.show()
        self.shelf.layout().addStretch(0)
        home_splitter.insertWidget(home_index, self.shelf)
        self._right_layout.setStretchFactor(self.boxes["inspector"], 1)
        self.shelf.show()
        settle_layouts()
        self.give_room()
        home_splitter.setSizes(_shares(home_splitter, self.shelf))
        settle_layouts()
        narrow = _narrow_tables(self.shelf)
        if narrow > 0:
            # A table on the shelf narrower than its columns (it would scroll sideways: 150 % on
            # 1024 px): the right-hand column gives up those px, as far as the inspector keeps its
            # whole formula and every column of its table.
            width = max(self.right.width() - narrow, self._narrowest_right())
            if width < self.right.width():
                self.give_room(width)
                settle_layouts()
                home_splitter.setSizes(_shares(home_splitter, self.shelf))
                settle_layouts()
        short = self._short_on_the_shelf(editing)
        if short > 0:
            # The shelf is short of height: the inspector on the right no wider than it needs,
            # so the shelf gets more width (its buttons wrap less)...
            self.give_room(self._narrowest_right())
            settle_layouts()
            home_splitter.setSizes(_shares(home_splitter, self.shelf, half=True))   # its buttons and table wrap less
            settle_layouts()
            short = self._short_on_the_shelf(editing)
        # ... and if still short of a few px (a tall caption at 768 px), the diagram lends them.
        if short > 0:
            self._lend_height(home_splitter, short)

    def _plots_step_aside(self, editing: list[QWidget]) -> None:
        """The plots, which the step does not name, step aside while the inspector beside the shelf
        lacks the width for every column of its table (150 % on 1024 px: the shelf, the plots and
        the whole table are wider than the window); the shelf takes their place."""
        view = self._inspector_view()
        if self.plots is None or view is None or _table_width(view) <= view.width():
            return
        self._plots_aside = True
        self.plots.hide()
        settle_layouts()
        self.give_room(hint=self.right.sizeHint().width())
        settle_layouts()
        short = self._short_on_the_shelf(editing)
        if short > 0:
            self._lend_height(self._inspector_home[0], short)

    def _lend_height(self, row: QSplitter, short: int) -> None:
        """The diagram above `row` lends it up to `short` px of height, keeping its own minimum;
        given back by go_home."""
        column = row.parentWidget()
        if not (isinstance(column, QSplitter) and column.count() == 2 and column.widget(1) is row):
            return
        above, below = column.sizes()
        lend = min(short, above - column.widget(0).minimumSizeHint().height(), above - column.widget(0).minimumHeight())
        if lend > 0:
            self._lent = self._lent or (column, [above, below])
            column.setSizes([above - lend, below + lend])
            settle_layouts()

    def give_room(self, width: int | None = None, hint: int | None = None) -> None:
        """The right-hand column gets `width`, or the width its panels' larger text needs (`hint`:
        the width it wants, if not its present size hint; up to RIGHT_SHARE of the window)."""
        right = self.right
        splitter = right.parentWidget() if right is not None else None
        if not isinstance(splitter, QSplitter) or splitter.count() != 2:
            return
        settle_layouts()                          # a column just shown: its handle takes its px first
        total = sum(splitter.sizes())
        if width is None:
            width = max(right.sizeHint().width() if hint is None else hint, splitter.sizes()[1])
        wanted = min(max(width, right.minimumSizeHint().width()), self._most_right(total))
        splitter.setSizes([total - wanted, wanted])

    def _most_right(self, total: int) -> int:
        """The most the right-hand column takes of the `total` width: RIGHT_SHARE, or as much as
        the inspector in it needs for every column of its table, up to TABLE_SHARE (150 % on 1024 px)."""
        most = int(total * RIGHT_SHARE)
        view, box = self._inspector_view(), self.boxes.get("inspector")
        if view is None or box is None or box.parentWidget() is not self._right_content or not view.isVisibleTo(box):
            return most
        whole_table = self.right.width() - view.width() + _table_width(view)     # with the box's frame and margins
        return whole_table if most < whole_table <= int(total * TABLE_SHARE) else most

    def _narrowest_right(self) -> int:
        """The least width of the right-hand column at which the inspector alone in it shows its
        whole formula (its present width if none does)."""
        view, box = self._inspector_view(), self.boxes["inspector"]
        if view is None or not hasattr(view, "wanted_height"):
            return self.right.width()
        chrome_w = self.right.width() - view.width()           # the box's frame and margins
        room = self.right.height() - (box.height() - view.height())
        least = self.right.minimumSizeHint().width()
        # every column of its table too, where the window has the width for it (a table that
        # scrolls sideways hides numbers: RIGHT_SHARE of the width is the most the column takes)
        whole_table = chrome_w + _table_width(view)
        splitter = self.right.parentWidget()
        most = self._most_right(sum(splitter.sizes())) if isinstance(splitter, QSplitter) else self.right.width()
        least = whole_table if least < whole_table <= most else least
        for width in range(least, self.right.width(), 8):
            if view.wanted_height(width - chrome_w) <= room:
                return width
        return max(self.right.width(), least)

    # --- measuring ---------------------------------------------------------------------------
    def _inspector_view(self) -> QWidget | None:
        return getattr(self.window, "inspector", None)

    def _inspector_short(self, columns: bool = False) -> int:
        """How many px of height the inspector, where it is, lacks to show its table and its whole
        formula (0 or less: none); with `columns`, plus the px of width it lacks for every column
        of its table."""
        view = self._inspector_view()
        wanted = getattr(view, "wanted_height", None)
        if wanted is None:
            return 0
        short, narrow = wanted(view.width()) - view.height(), _table_width(view) - view.width()
        return max(short, 0) + narrow if columns and narrow > 0 else short

    def _inspector_wanted(self, box: QWidget) -> int:
        """The inspector box's height that shows everything at its present width."""
        view = self._inspector_view()
        if view is None or not hasattr(view, "wanted_height"):
            return box.sizeHint().height()
        return box.height() - view.height() + view.wanted_height(view.width())

    def _short_on_the_right(self, inspector: QWidget, editing: list[QWidget]) -> int:
        """The px of height the right-hand column lacks for the inspector (all of it) and the
        editing panels below it (at their least)."""
        width = self.right.width()
        spacing = max(self._right_layout.spacing(), 0)
        needed = self._inspector_wanted(inspector) + sum(spacing + least_height(box, width) for box in editing)
        margins = self._right_layout.contentsMargins()
        return needed + margins.top() + margins.bottom() - self.right.height()

    def _shelf_fits_across(self, editing: list[QWidget]) -> bool:
        """Whether the window is wide enough for the editing panels beside the plots and the
        inspector alone on the right, each at its least width (else the window would grow)."""
        home_splitter, _index = self._inspector_home
        main = self.right.parentWidget()
        if not isinstance(main, QSplitter):
            return False
        others = [home_splitter.widget(i) for i in range(home_splitter.count())
                  if home_splitter.widget(i).isVisibleTo(home_splitter)]
        _hold_width(editing, True)                # as wide as they would be on the shelf
        shelf = max(_least_width(box) for box in editing)
        _hold_width(editing, False)
        across = shelf + sum(_least_width(widget) + home_splitter.handleWidth() for widget in others)
        return across + main.handleWidth() + _least_width(self.boxes["inspector"]) <= sum(main.sizes()) + main.handleWidth()

    def _short_on_the_shelf(self, editing: list[QWidget]) -> int:
        spacing = max(self.shelf.layout().spacing(), 0)
        needed = sum(least_height(box, self.shelf.width()) for box in editing) + spacing * (len(editing) - 1)
        return needed - self.shelf.height()


def _hold_width(boxes, held: bool) -> None:
    """The parts in `boxes` whose texts may step aside while short of width (the block options'
    rows' names) keep them (`held`: on the shelf) or may again."""
    for box in boxes:
        for part in box.findChildren(QWidget):
            if hasattr(part, "hold_width"):
                part.hold_width(held)


def _table_width(inspector: QWidget) -> int:
    """The inspector's width that shows every column of its table (and the overview beside it)."""
    table = getattr(inspector, "table", None)
    if table is None:
        return 0
    margins = inspector.layout().contentsMargins()
    overview = getattr(inspector, "overview", None)
    beside = overview.sizeHint().width() + 4 if overview is not None and overview.isVisibleTo(inspector) else 0
    return table.content_width() + margins.left() + margins.right() + beside


def _narrow_tables(widget: QWidget) -> int:
    """The most px of width a shown number table inside `widget` lacks for all its columns."""
    return max([table.content_width() - table.width() for table in widget.findChildren(QAbstractItemView)
                if table.isVisibleTo(widget) and hasattr(table, "content_width")] + [0])


def least_height(box: QWidget, width: int) -> int:
    """The least height at `width` that shows a box's text whole: its height for that width (a
    number table inside counts at its least, two rows: it scrolls the others, by whole rows). What
    steps aside in it only while the room is short counts too (a part's `aside_height`)."""
    least = box.heightForWidth(width) if box.hasHeightForWidth() else box.minimumSizeHint().height()
    return least + sum(part.aside_height() for part in box.findChildren(QWidget)
                       if hasattr(part, "aside_height") and part.isVisibleTo(box))


def _in_splitter(widget: QWidget | None) -> QWidget | None:
    """`widget`, or the ancestor of it (its scroll area) that a splitter holds (else `widget`)."""
    column = widget
    while column is not None and column.parentWidget() is not None:
        if isinstance(column.parentWidget(), QSplitter):
            return column
        column = column.parentWidget()
    return widget


def _least_width(widget: QWidget) -> int:
    return max(widget.minimumWidth(), widget.minimumSizeHint().width(), 0)


def settle_layouts() -> None:
    """Lay the window out now (the step's caption, the boxes shown and moved), so its sizes can
    be measured: the posted layout requests, delivered until none is left."""
    for _ in range(4):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)


def _shelf() -> QWidget:
    shelf = QWidget()
    shelf.setObjectName("stepPanelsShelf")
    layout = QVBoxLayout(shelf)
    layout.setContentsMargins(0, 0, 0, 0)
    return shelf


def _shares(splitter: QSplitter, first: QWidget, half: bool = False) -> list[int]:
    """`first` as wide as it needs (its minimum at least; with `half`, half the width), the rest to
    the splitter's other widgets."""
    total = sum(splitter.sizes())
    own = max(first.sizeHint().width(), first.minimumSizeHint().width(), total // 2 if half else 0)
    others = splitter.count() - 1
    own = min(own, total // 2) if others else total
    sizes = []
    for index in range(splitter.count()):
        widget = splitter.widget(index)
        sizes.append(own if widget is first else (total - own) // max(others, 1))
    return sizes
