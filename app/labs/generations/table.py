"""The table part: the seed's map of the block's generations, one card per cell.

Columns 2017 original → 2026 divergence, rows FFN, residual, normalization, gating. Each card
holds our text, the number the generation was stuck at and its sources (core.labs.generations
.table()). Clicking a card (or Enter / Space on it) chooses it: the panel loads that
generation's preset into the Session and the details below name every figure's source and the
demonstration that reproduces it."""
from __future__ import annotations

import html

import shiboken6

from PySide6.QtCore import QEvent, QPoint, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPen, QTextDocumentFragment
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.labs.generations.common import (HEADING_PT, Part, breakable, part_heading, scroll_page, short_source,
                                         source_text, text_of)
from app.widgets.appearance import appearance
from core.labs import generations as core

MIN_COLUMN_PX = 118         # at 100 %: five columns fit the lab's room on a 1024-pixel screen
CARD_PT = 10                # the cards' text: 13.3 px at 100 %, 16 px in presentation mode


class CellCard(QFrame):
    """One cell of the table: what the generation did, where it got stuck, its sources."""

    activated = Signal(str, str)            # row id, column id

    def __init__(self, part: Part, cell: core.Cell):
        super().__init__()
        self.cell = cell
        self.setObjectName(f"genCell_{cell.row}_{cell.column}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        if cell.preset or cell.demonstration:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.text = part.label(f"genCellText_{cell.row}_{cell.column}", CARD_PT)
        self.stuck = part.label(f"genCellStuck_{cell.row}_{cell.column}", CARD_PT, rich=True)
        self.sources = part.label(f"genCellSources_{cell.row}_{cell.column}", CARD_PT, muted=True)
        self.opens = part.label(f"genCellOpens_{cell.row}_{cell.column}", CARD_PT, muted=True)
        for label in (self.text, self.stuck, self.sources, self.opens):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)   # clicks reach the card
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 5, 6, 5)
        layout.setSpacing(4)
        for label in (self.text, self.stuck, self.sources, self.opens):
            layout.addWidget(label)
        layout.addStretch(1)
        self.selected = self.loaded = False
        self.set_state(False, False)

    def retranslate(self) -> None:
        cell = self.cell
        self.text.setText(breakable(text_of(cell.text)))
        self.stuck.setVisible(cell.stuck_at is not None)
        if cell.stuck_at is not None:
            self.stuck.setText("<b>" + html.escape(self.tr("Stuck at:")) + "</b> "
                               + html.escape(breakable(text_of(cell.stuck_at))))
        self.sources.setVisible(bool(cell.sources))
        self.sources.setText(breakable(self.tr("Source: %1").replace(
            "%1", "; ".join(short_source(k) for k in cell.sources))))
        if cell.preset and cell.demonstration:
            opens = self.tr("▸ Click: this block in the explorer, and a demonstration")
        elif cell.preset:
            opens = self.tr("▸ Click: this block in the explorer")
        elif cell.demonstration:
            opens = self.tr("▸ Click: a demonstration")
        else:
            opens = ""
        self.opens.setText(opens)
        self.follow_presenting()

    def follow_presenting(self) -> None:
        """On a projector a card keeps what the generation did and where it got stuck: its sources
        and what a click opens wait for the desk (the lesson's caption says "click a cell")."""
        desk = not appearance().presenting
        self.sources.setVisible(desk and bool(self.cell.sources))
        self.opens.setVisible(desk and bool(self.opens.text()))

    def set_state(self, selected: bool, loaded: bool) -> None:
        """Chosen: a thick accent border; its generation in the explorer: a tinted card. Painted
        here, not by a style sheet (restyling twenty cards on every flip costs a frame)."""
        self.selected, self.loaded = selected, loaded
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        colours = appearance().colours
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = 3 if self.selected else 1
        painter.setPen(QPen(QColor(colours.accent if self.selected else colours.muted), width))
        painter.setBrush(QColor(colours.panel if self.loaded else colours.background))
        inset = width / 2 + 0.5
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(inset, inset, -inset, -inset), 6, 6)
        if self.hasFocus() and not self.selected:
            painter.setPen(QPen(QColor(colours.accent), 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(3, 3, -3, -3), 5, 5)
        painter.end()

    def focusInEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().focusOutEvent(event)
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt's name)
        if event.button() == Qt.MouseButton.LeftButton:
            self.setFocus(Qt.FocusReason.MouseFocusReason)
            self.activated.emit(self.cell.row, self.cell.column)
            event.accept()
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.activated.emit(self.cell.row, self.cell.column)
            event.accept()
            return
        super().keyPressEvent(event)


class ColumnHeads(QWidget):
    """The column titles, kept above the scrolling cards and lined up with their columns: each
    title is placed over its column's cells whenever the cards are laid out or scrolled."""

    def __init__(self, labels: list[QLabel]):
        super().__init__()
        self.setObjectName("genTableColumnHeads")
        self.labels = labels
        for label in labels:
            label.setParent(self)

    def place(self, spans: list[tuple[int, int]]) -> None:
        """spans: each column's (x, width) in this widget's coordinates."""
        height = 0
        for label, (x, width) in zip(self.labels, spans):
            needed = label.heightForWidth(width) if label.wordWrap() else label.sizeHint().height()
            label.setGeometry(x, 0, width, needed)
            height = max(height, needed)
        if self.minimumHeight() != height:
            self.setFixedHeight(height)


class GenerationsTablePart(Part):
    """The table of generations, and the chosen cell's figures, sources and demonstration."""

    cellChosen = Signal(str, str)           # row id, column id: the panel loads the preset
    demonstrationRequested = Signal(str)    # a part name
    diagramRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__("genTablePart", parent)
        self.heading = self.label("genTableHeading", HEADING_PT, bold=True)
        self.cards: dict[tuple[str, str], CellCard] = {}
        self.column_heads: dict[str, QLabel] = {c.id: self.label(f"genColumn_{c.id}", CARD_PT, rich=True)
                                                for c in core.columns()}
        self.row_heads: dict[str, QLabel] = {}
        self.loaded_generation: str | None = None
        self.chosen: tuple[str, str] | None = None

        self.grid_widget = QWidget()
        self.grid_widget.setObjectName("genTableGrid")
        grid = QGridLayout(self.grid_widget)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        # Each row's title spans the five columns above its cards: no column of row titles to pay for.
        positions = {column.id: c for c, column in enumerate(core.columns())}
        rows = {row.id: 2 * r for r, row in enumerate(core.rows())}
        for c in positions.values():
            grid.setColumnStretch(c, 1)
            grid.setColumnMinimumWidth(c, appearance().pixels(MIN_COLUMN_PX))
        for row in core.rows():
            head = self.label(f"genRow_{row.id}", bold=True)
            grid.addWidget(head, rows[row.id], 0, 1, len(positions))
            self.row_heads[row.id] = head
        for cell in core.table():
            card = CellCard(self, cell)
            card.activated.connect(self.choose)
            grid.addWidget(card, rows[cell.row] + 1, positions[cell.column])
            self.cards[(cell.row, cell.column)] = card
        self.grid = grid
        self.scroll = scroll_page(self.grid_widget, "genTableScroll")
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.heads = ColumnHeads(list(self.column_heads.values()))
        self._heads_timer = QTimer(self)           # a child: it dies with the part, never fires after
        self._heads_timer.setSingleShot(True)
        self._heads_timer.setInterval(0)
        self._heads_timer.timeout.connect(self.place_heads)
        self.grid_widget.installEventFilter(self)
        self.scroll.horizontalScrollBar().valueChanged.connect(lambda _value: self._schedule_heads())

        self.details = self.label("genTableDetails", rich=True)
        self.demonstration = self.button("genTableDemonstration")
        self.demonstration.clicked.connect(self._demonstration_clicked)
        self.diagram = self.button("genTableDiagram")
        self.diagram.clicked.connect(self.diagramRequested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.demonstration)
        buttons.addWidget(self.diagram)
        buttons.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.heads)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.details)
        layout.addLayout(buttons)
        self.retranslate()

    # --- the column titles follow the cards ---------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.grid_widget and event.type() in (QEvent.Type.Resize, QEvent.Type.Move,
                                                             QEvent.Type.LayoutRequest):
            self._schedule_heads()
        return super().eventFilter(watched, event)

    def _schedule_heads(self) -> None:
        if shiboken6.isValid(self._heads_timer):        # not while the part is being taken down
            self._heads_timer.start()

    def place_heads(self) -> None:
        """Each column title over its column of cards (after a layout, a resize or a scroll)."""
        origin = self.heads.mapTo(self, QPoint(0, 0)).x()
        spans = []
        for c in range(len(self.column_heads)):
            cell = self.grid.cellRect(1, c)
            spans.append((self.grid_widget.mapTo(self, QPoint(cell.x(), 0)).x() - origin, cell.width()))
        self.heads.place(spans)

    # --- choosing -------------------------------------------------------------------------
    def choose(self, row: str, column: str) -> None:
        """A cell was clicked: mark it, describe it, and let the panel load its preset."""
        self.chosen = (row, column)
        self._mark()
        self._describe()
        self.cellChosen.emit(row, column)

    def set_loaded(self, generation: str | None) -> None:
        """Which generation's block the explorer shows (None: a block of the learner's own)."""
        if generation != self.loaded_generation:
            self.loaded_generation = generation
            self._mark()
            self._mark_columns()

    def _mark(self) -> None:
        for (row, column), card in self.cards.items():
            selected, loaded = (row, column) == self.chosen, column == self.loaded_generation
            if (card.selected, card.loaded) != (selected, loaded):
                card.set_state(selected, loaded)

    def _mark_columns(self) -> None:
        accent = appearance().colours.accent
        for column in core.columns():
            text = f"<b>{column.years}<br>{html.escape(breakable(text_of(column.title)))}</b>"
            # The mark's line is always there (empty when not loaded): flipping keeps every height.
            mark = html.escape(self.tr("● in the explorer")) if column.id == self.loaded_generation else "&nbsp;"
            text += f"<br><span style='color: {accent};'>{mark}</span>"
            if self.column_heads[column.id].text() != text:
                self.column_heads[column.id].setText(text)

    def column_head(self, column: str) -> str:
        """A column's title as shown (plain text)."""
        return QTextDocumentFragment.fromHtml(self.column_heads[column].text()).toPlainText()

    def _demonstration_clicked(self) -> None:
        if self.chosen is not None:
            demonstration = core.cell(*self.chosen).demonstration
            if demonstration:
                self.demonstrationRequested.emit(demonstration)

    def _describe(self) -> None:
        desk = not appearance().presenting
        if self.chosen is None:
            self.details.setText(self.tr("Click a cell: its generation's block opens in the explorer, "
                                         "and here you see where each of its numbers comes from."))
            self.demonstration.hide()
            if self.details.parentWidget() is not None:     # placed: hiding or showing it is safe
                self.details.setVisible(desk)
                self.diagram.setVisible(desk)
            return
        if self.details.parentWidget() is not None:
            self.details.setVisible(True)
            self.diagram.setVisible(True)
        cell = core.cell(*self.chosen)
        column = next(c for c in core.columns() if c.id == cell.column)
        row = next(r for r in core.rows() if r.id == cell.row)
        lines = [f"<b>{text_of(row.title)} · {column.years} {text_of(column.title)}</b>"]
        for figure in cell.figures:
            line = self.tr("%1: %2").replace("%1", figure.shown).replace("%2", short_source(figure.source))
            if figure.computed_by:
                line += self.tr(" — reproduced in “%1”").replace("%1", part_heading(figure.computed_by))
            lines.append(line)
        sources = [source_text(key) for key in cell.sources if key not in {f.source for f in cell.figures}]
        lines += [self.tr("Source: %1").replace("%1", text) for text in sources]
        if cell.preset is None:
            lines.append(self.tr("Our block has no switch for this one: nothing to load."))
        self.details.setText("<br>".join(lines))
        self.demonstration.setVisible(cell.demonstration is not None)
        if cell.demonstration:
            self.demonstration.setText(self.tr("Show: %1").replace("%1", part_heading(cell.demonstration)))

    # --- language and appearance ------------------------------------------------------------
    def retranslate(self) -> None:
        self.heading.setText(part_heading("table"))
        for row in core.rows():
            self.row_heads[row.id].setText(text_of(row.title))
        for card in self.cards.values():
            card.retranslate()
        self.diagram.setText(self.tr("Show the block diagram above"))
        self._mark_columns()
        self._schedule_heads()
        self._describe()

    def restyle(self) -> None:
        for c in range(len(core.columns())):
            self.grid.setColumnMinimumWidth(c, appearance().pixels(MIN_COLUMN_PX))
        for card in self.cards.values():
            card.set_state(card.selected, card.loaded)
            card.follow_presenting()
        # presenting, the map gets the height: the hint below it (the caption says it) and the
        # diagram button wait for the desk until a cell is chosen
        self._describe()
