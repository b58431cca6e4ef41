"""The table part: the seed's map of the block's generations, one card per cell.

Columns 2017 original → 2026 divergence, rows FFN, residual, normalization, gating. Each card
says in a few words what the generation did and where it got stuck (core's `label` and
`stuck_label`), so the whole map is readable at once on a projector; the cell pointed at (or
focused, or chosen) is shown whole in the details below the map: core's text, its "stuck at"
and, at the desk, every figure's source. Clicking a card (or Enter / Space on it) chooses it:
the panel loads that generation's preset into the Session and the details keep that cell,
with the demonstration that reproduces its numbers."""
from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPen, QTextDocumentFragment
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from app.labs.generations.common import (HEADING_PT, Part, breakable, part_heading, short_source, source_text,
                                         text_of)
from app.widgets.appearance import appearance
from core.labs import generations as core

MIN_COLUMN_PX = 118         # at 100 %: five columns and the row titles fit the lab's room on a 1024-pixel screen
CARD_PT = 10                # the cards' text: 13.3 px at 100 %, 16 px in presentation mode


def keep_units(text: str) -> str:
    """A number keeps its unit on its line ("61.6 %", "3.4 d")."""
    return text.replace(" %", "\u00a0%").replace(" d;", "\u00a0d;")


STUCK_MARK = "⚠"             # on a card: where the generation got stuck (the details say it in words)


def stuck_html(prefix: str, text: str) -> str:
    """"Stuck at: …" with the words in bold (no space after a full-width colon)."""
    space = "" if prefix.endswith("：") else " "
    return f"<b>{html.escape(prefix)}</b>{space}{html.escape(keep_units(text))}"


def marked_stuck_html(text: str) -> str:
    """A card's stuck-at line: the mark and a few words, in the colour of a failing check."""
    return f"<span style='color: {appearance().colours.bad};'>{STUCK_MARK} {html.escape(keep_units(text))}</span>"


class CellCard(QFrame):
    """One cell of the map in a few words: what the generation did, where it got stuck."""

    activated = Signal(str, str)            # row id, column id
    pointed = Signal(str, str, bool)        # row id, column id, whether the pointer (or focus) is on it

    def __init__(self, part: Part, cell: core.Cell):
        super().__init__()
        self.cell = cell
        self.setObjectName(f"genCell_{cell.row}_{cell.column}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAttribute(Qt.WidgetAttribute.WA_Hover)
        if cell.preset or cell.demonstration:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.text = part.label(f"genCellText_{cell.row}_{cell.column}", CARD_PT)
        self.stuck = part.label(f"genCellStuck_{cell.row}_{cell.column}", CARD_PT, rich=True)
        for label in (self.text, self.stuck):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)   # clicks reach the card
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addWidget(self.text)
        layout.addWidget(self.stuck)
        layout.addStretch(1)
        self.selected = self.loaded = False
        self.set_state(False, False)

    def retranslate(self) -> None:
        cell = self.cell
        self.text.setText(keep_units(breakable(text_of(cell.label))))
        self.stuck.setVisible(cell.stuck_label is not None)
        if cell.stuck_label is not None:
            self.stuck.setText(marked_stuck_html(breakable(text_of(cell.stuck_label))))

    def set_state(self, selected: bool, loaded: bool) -> None:
        """Chosen: a thick accent border; its generation in the explorer: a tinted card. Painted
        here, not by a style sheet (restyling twenty cards on every flip costs a frame)."""
        self.selected, self.loaded = selected, loaded
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        colours = appearance().colours
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        width = 3 if self.selected else 2 if self.underMouse() else 1
        painter.setPen(QPen(QColor(colours.accent if self.selected or self.underMouse() else colours.muted), width))
        painter.setBrush(QColor(colours.panel if self.loaded else colours.background))
        inset = width / 2 + 0.5
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(inset, inset, -inset, -inset), 6, 6)
        if self.hasFocus() and not self.selected:
            painter.setPen(QPen(QColor(colours.accent), 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(QRectF(self.rect()).adjusted(3, 3, -3, -3), 5, 5)
        painter.end()

    def enterEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().enterEvent(event)
        self.update()
        self.pointed.emit(self.cell.row, self.cell.column, True)

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().leaveEvent(event)
        self.update()
        self.pointed.emit(self.cell.row, self.cell.column, False)

    def focusInEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().focusInEvent(event)
        self.update()
        self.pointed.emit(self.cell.row, self.cell.column, True)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().focusOutEvent(event)
        self.update()
        self.pointed.emit(self.cell.row, self.cell.column, False)

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


class GenerationsTablePart(Part):
    """The map of generations, and the cell pointed at (or chosen) in full: its text, where it got
    stuck, its figures' sources and the demonstration that reproduces them."""

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
        self.pointed_at: tuple[str, str] | None = None

        self.grid_widget = QWidget()
        self.grid_widget.setObjectName("genTableGrid")
        grid = QGridLayout(self.grid_widget)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        # The column titles above the cards, each row's title at its left (a column as narrow as
        # the longest title: the cards get the width).
        positions = {column.id: c + 1 for c, column in enumerate(core.columns())}
        rows = {row.id: r + 1 for r, row in enumerate(core.rows())}
        for column in core.columns():
            c = positions[column.id]
            grid.setColumnStretch(c, 1)
            grid.addWidget(self.column_heads[column.id], 0, c, Qt.AlignmentFlag.AlignBottom)
        for row in core.rows():
            head = self.label(f"genRow_{row.id}", CARD_PT, bold=True)
            head.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Preferred)
            grid.addWidget(head, rows[row.id], 0, Qt.AlignmentFlag.AlignTop)
            self.row_heads[row.id] = head
        for cell in core.table():
            card = CellCard(self, cell)
            card.activated.connect(self.choose)
            card.pointed.connect(self._point)
            grid.addWidget(card, rows[cell.row], positions[cell.column])
            self.cards[(cell.row, cell.column)] = card
        self.grid = grid
        self._column_widths()

        # The cell pointed at, in full. Its height is the most any cell needs at this width, so
        # pointing from card to card never moves what lies below (and never makes the page scroll).
        self.details = QLabel()
        self.details.setObjectName("genTableDetails")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.sized(self.details, CARD_PT)
        self._measure = QLabel(self)            # a twin never shown: the height each cell's details need
        self._measure.setObjectName("genTableDetailsMeasure")
        self._measure.hide()
        self._measure.setWordWrap(True)
        self._measure.setTextFormat(Qt.TextFormat.RichText)
        self._reserved: tuple | None = None
        self.details.installEventFilter(self)
        self.details_frame = QFrame()
        self.details_frame.setObjectName("genTableDetailsFrame")
        self.details_frame.setFrameShape(QFrame.Shape.StyledPanel)
        frame_layout = QVBoxLayout(self.details_frame)
        frame_layout.setContentsMargins(8, 4, 8, 4)
        frame_layout.addWidget(self.details)

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
        layout.setSpacing(6)
        layout.addWidget(self.heading)
        layout.addWidget(self.grid_widget)
        layout.addWidget(self.details_frame)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.retranslate()

    def _column_widths(self) -> None:
        for c in range(1, len(core.columns()) + 1):
            self.grid.setColumnMinimumWidth(c, appearance().pixels(MIN_COLUMN_PX))

    # --- the details keep the room the longest cell needs ---------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is getattr(self, "details", None):
            if event.type() == QEvent.Type.Resize:
                self._reserve()
            return False                # not Part's: that would set the least height of the text shown now
        return super().eventFilter(watched, event)

    def _reserve(self) -> None:
        """The details' least height: the most any cell's text and stuck-at need at this width (and
        the text shown now, should it need more: at the desk, with its sources)."""
        width = self.details.width()
        key = (width, self.details.font().toString(), text_of(core.cell("ffn", "original").text),
               appearance().presenting)
        if key != self._reserved:
            self._reserved = key
            self._measure.setFont(self.details.font())
            heights = []
            for cell in core.table():
                self._measure.setText(self._cell_html(cell, sources=False))
                heights.append(self._measure.heightForWidth(width))
            self._most = max(heights)
        self._measure.setText(self.details.text())     # not details.heightForWidth: never below its minimum
        needed = max(self._most, self._measure.heightForWidth(width))
        if self.details.minimumHeight() != needed:
            self.details.setMinimumHeight(needed)

    # --- pointing and choosing -----------------------------------------------------------------
    def _point(self, row: str, column: str, on: bool) -> None:
        if on:
            self.pointed_at = (row, column)
        elif self.pointed_at == (row, column):
            self.pointed_at = None
        self._describe()

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

    def _cell_html(self, cell: core.Cell, sources: bool | None = None) -> str:
        """A cell in full: where it sits, what the generation did, where it got stuck; with
        `sources` (default: at the desk) also every figure's source and what a click opens."""
        column = next(c for c in core.columns() if c.id == cell.column)
        row = next(r for r in core.rows() if r.id == cell.row)
        title = f"{text_of(row.title)} · {column.years} {text_of(column.title)}"
        lines = ["<b>" + html.escape(title) + "</b> " + html.escape(text_of(cell.text))]
        if cell.stuck_at is not None:
            lines.append(f"<span style='color: {appearance().colours.bad};'>{STUCK_MARK}</span> "
                         + stuck_html(self.tr("Stuck at:"), text_of(cell.stuck_at)))
        if not (not appearance().presenting if sources is None else sources):
            return "<br>".join(lines)
        for figure in cell.figures:
            line = self.tr("%1: %2").replace("%1", figure.shown).replace("%2", short_source(figure.source))
            if figure.computed_by:
                line += self.tr(" — reproduced in “%1”").replace("%1", part_heading(figure.computed_by))
            lines.append(html.escape(line))
        sources = [source_text(key) for key in cell.sources if key not in {f.source for f in cell.figures}]
        lines += [html.escape(self.tr("Source: %1").replace("%1", text)) for text in sources]
        if cell.preset and cell.demonstration:
            opens = self.tr("▸ Click: this block in the explorer, and a demonstration")
        elif cell.preset:
            opens = self.tr("▸ Click: this block in the explorer")
        elif cell.demonstration:
            opens = self.tr("▸ Click: a demonstration")
        else:
            opens = self.tr("Our block has no switch for this one: nothing to load.")
        muted = appearance().colours.muted
        lines.append(f"<span style='color: {muted};'>{html.escape(opens)}</span>")
        return "<br>".join(lines)

    def shown_cell(self) -> tuple[str, str] | None:
        """The cell the details show: the one pointed at, else the one chosen."""
        return self.pointed_at or self.chosen

    def _describe(self) -> None:
        shown = self.shown_cell()
        if shown is None:
            self.details.setText(html.escape(self.tr(
                "%1 marks where a generation got stuck. Point at a cell to read it in full here; click it to open "
                "its generation's block in the explorer.").replace("%1", STUCK_MARK)))
        else:
            self.details.setText(self._cell_html(core.cell(*shown)))
        self._reserve()
        chosen = core.cell(*self.chosen) if self.chosen is not None else None
        self.demonstration.setVisible(chosen is not None and chosen.demonstration is not None)
        if chosen is not None and chosen.demonstration:
            self.demonstration.setText(self.tr("Show: %1").replace("%1", part_heading(chosen.demonstration)))
        if self.diagram.parentWidget() is not None:      # placed: hiding or showing it is safe
            # presenting, the map gets the height: the diagram button waits until a cell is chosen
            self.diagram.setVisible(chosen is not None or not appearance().presenting)

    # --- language and appearance ------------------------------------------------------------
    def retranslate(self) -> None:
        self.heading.setText(part_heading("table"))
        for row in core.rows():
            self.row_heads[row.id].setText(text_of(row.title))
        for card in self.cards.values():
            card.retranslate()
        self.diagram.setText(self.tr("Show the block diagram above"))
        self._mark_columns()
        self._reserved = None
        self._describe()

    def restyle(self) -> None:
        self._column_widths()
        for card in self.cards.values():
            card.set_state(card.selected, card.loaded)
        self._reserved = None
        self._describe()
