"""The preset part: which generation's block the explorer shows, flipping between them, and the
same five tokens' output through each generation."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import (QAbstractItemView, QButtonGroup, QHBoxLayout, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.labs.base import show_only
from app.labs.generations.common import TEXT_PT, Part, generation_name, generation_of, preset_trace, text_of
from app.widgets import labels
from app.widgets.flow_layout import FlowLayout
from app.widgets.appearance import appearance
from app.widgets.style import limit_for, text_colour_on, tint
from core.labs import generations as core
from core.numbers import format_number, format_short

DECIMALS = 2                # two decimals: five generations side by side fit beside the text


class GenerationPresetPart(Part):
    """Five buttons, one per generation: each loads that generation's preset into the Session."""

    generationChosen = Signal(str)
    diagramRequested = Signal()
    compareRequested = Signal()

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__("genPresetPart", parent)
        self.session = session
        self._viewport: QWidget | None = None     # the scroll area's viewport, watched for its height
        self.current: str | None = None
        self.buttons: dict[str, QPushButton] = {}
        self.group = QButtonGroup(self)
        self.group.setExclusive(False)          # none is checked while the block is the learner's own
        row = QHBoxLayout()
        for generation in core.GENERATIONS:
            button = self.button(f"genPreset_{generation}")
            button.setCheckable(True)
            button.clicked.connect(lambda _checked=False, g=generation: self.generationChosen.emit(g))
            self.group.addButton(button)
            row.addWidget(button, 1)
            self.buttons[generation] = button
        self.title = self.label("genPresetTitle", TEXT_PT, bold=True)
        self.changes = self.label("genPresetChanges")
        self.built = self.label("genPresetBuilt", muted=True)
        self.outputs_intro = self.label("genPresetOutputsIntro")
        self.outputs = QTableWidget(len(core.GENERATIONS), 0)
        self._fitted: tuple | None = None     # what the table's size was fitted to (see _fill_outputs)
        self.outputs.setObjectName("genPresetOutputs")
        self.sized(self.outputs)
        self.outputs.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.outputs.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.outputs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.outputs.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.outputs.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.diagram = self.button("genPresetDiagram")
        self.diagram.clicked.connect(self.diagramRequested)
        self.compare = self.button("genPresetCompare")
        self.compare.clicked.connect(self.compareRequested)
        actions = FlowLayout()              # wraps: the two buttons never widen the page
        actions.addWidget(self.diagram)
        actions.addWidget(self.compare)

        self.about = about = QVBoxLayout()
        about.addWidget(self.title)
        about.addWidget(self.changes)
        about.addWidget(self.built)
        about.addLayout(actions)
        about.addStretch(1)
        self.outputs_column = outputs = QVBoxLayout()
        outputs.addWidget(self.outputs_intro)
        outputs.addWidget(self.outputs)
        outputs.addStretch(1)
        body = QHBoxLayout()
        body.addLayout(about, 3)
        body.addLayout(outputs, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(row)
        layout.addLayout(body)
        layout.addStretch(1)
        self.retranslate()

    # --- following the Session ------------------------------------------------------------
    def refresh(self) -> None:
        """Show the generation the explorer holds (by its config) and every generation's output."""
        self.current = generation_of(self.session.config)
        for generation, button in self.buttons.items():
            if button.isChecked() != (generation == self.current):
                button.setChecked(generation == self.current)
        self._describe()
        self._fill_outputs()
        self._step_aside()

    def _describe(self) -> None:
        if self.current is None:
            self.title.setText(self.tr("The explorer holds a block of your own (no generation's preset)."))
            self.changes.setText(self.tr("Click a generation above to load its block."))
        else:
            generation = next(g for g in core.generations() if g.id == self.current)
            self.title.setText(text_of(generation.title))
            self.changes.setText(text_of(generation.changes))
        self.built.setText(self.describe_config(self.session.config))

    def describe_config(self, config) -> str:
        """The block's switches in words (the label table's names)."""
        lines = []
        if config.attention:
            extras = [self.tr("QK-Norm")] if config.qk_norm else []
            if config.attn_gate:
                extras.append(self.tr("sigmoid output gate"))
            lines.append(self.tr("Attention: %1 heads × %2, %3").replace("%1", str(config.n_heads))
                         .replace("%2", str(config.d_head)).replace("%3", labels.mask_label(config.mask))
                         + "".join(self.tr(", ") + extra for extra in extras))
        if config.norm != "none":
            norm = labels.norm_label(config.norm)
            if config.zero_centered:
                norm = self.tr("%1, zero-centred (gain 1 + w)").replace("%1", norm)
            lines.append(self.tr("Norm: %1, %2, ε = %3").replace("%1", norm)
                         .replace("%2", labels.placement_label(config.norm_placement))
                         .replace("%3", format_short(config.eps)))
        ffn = labels.activation_label(config.activation, "short")
        if config.gated:
            ffn = self.tr("%1, gated (three matrices)").replace("%1", ffn)
        ffn = self.tr("FFN: %1, d_ff = %2").replace("%1", ffn).replace("%2", str(config.d_ff))
        if config.ffn_clamp is not None:
            ffn += self.tr(", clamped at %1").replace("%1", format_number(config.ffn_clamp, trim=True))
        lines.append(ffn)
        return "\n".join(lines)

    def _fill_outputs(self) -> None:
        rows = []
        for generation in core.GENERATIONS:
            trace = self.session.trace if generation == self.current else preset_trace(generation)
            rows.append(np.asarray(trace.output)[-1])
        width = max(len(row) for row in rows)
        if self.outputs.columnCount() != width:
            self.outputs.setColumnCount(width)
            self.outputs.setHorizontalHeaderLabels([f"z{_subscript(i + 1)}" for i in range(width)])
        limit = limit_for(np.concatenate(rows))
        widest = [0.0] * width
        for r, values in enumerate(rows):
            for c in range(width):
                item = self.outputs.item(r, c)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    self.outputs.setItem(r, c, item)
                if c >= len(values):
                    item.setText("")
                    continue
                value = float(values[c])
                colour = tint(value, limit)
                item.setText(format_number(value, DECIMALS))
                item.setBackground(colour)
                item.setForeground(text_colour_on(colour))
                font = item.font()
                font.setBold(core.GENERATIONS[r] == self.current)
                item.setFont(font)
                widest[c] = max(widest[c], QFontMetricsF(font).horizontalAdvance(item.text()))
        # Fitted again only when a column's widest text or the table's font changed: an edit
        # changes numbers, seldom their widths (measuring every cell and header again is costly).
        fitted = (tuple(widest), self.outputs.rowCount(), self.outputs.font().toString(), self.outputs.isVisible())
        if fitted != self._fitted:
            self._fit()
            self._fitted = fitted

    def _fit(self) -> None:
        """The table exactly as large as its cells: it never scrolls, the page does."""
        table = self.outputs
        table.resizeColumnsToContents()
        table.resizeRowsToContents()
        header, rows = table.horizontalHeader(), table.verticalHeader()
        table.setFixedHeight(max(header.height(), header.sizeHint().height())
                             + sum(table.rowHeight(r) for r in range(table.rowCount())) + 2 * table.frameWidth())
        table.setFixedWidth(max(rows.width(), rows.sizeHint().width())
                            + sum(table.columnWidth(c) for c in range(table.columnCount())) + 2 * table.frameWidth())

    # --- presentation mode: the secondary texts step aside when the room is short -----------------
    # First the block's switches in words (the diagram above shows the block), then the
    # generation's title (the lesson's title names it), then the table's intro (the caption gives
    # the output it shows): each only while the page would scroll with it.
    def _aside(self) -> tuple[QWidget, ...]:
        return (self.built, self.title, self.outputs_intro)

    def _step_aside(self) -> None:
        """Presenting, hide the fewest of `_aside()` (in their order) for the page to fit its scroll
        area's height; at the desk, and when the room is enough, all are shown. Worked out from the
        texts' heights at their columns' widths, shown or not, so hiding one never changes the answer."""
        viewport = self.parentWidget()
        aside = self._aside()
        if not appearance().presenting or viewport is None:
            show_only(aside, (), self)
            return
        if viewport is not self._viewport:
            self._viewport = viewport
            viewport.installEventFilter(self)
        # the columns' widths, whichever texts are shown: the table's column is as wide as the
        # table (its width fixed by its cells), the texts' column the rest
        margins = self.layout().contentsMargins()
        body = self.width() - margins.left() - margins.right() - max(0, self.layout().itemAt(1).layout().spacing())
        right_width = self.outputs.width() if self.outputs.width() > 0 else body * 2 // 5
        left_width = body - right_width
        top = margins.top() + margins.bottom() + self.buttons[core.GENERATIONS[0]].sizeHint().height() \
            + max(0, self.layout().spacing())

        def column(items, width, spacing, hidden):
            heights = [_height(item, width) for item in items if item not in hidden]
            return sum(heights) + max(0, spacing) * max(0, len(heights) - 1)

        about = (self.title, self.changes, self.built, self.about.itemAt(3).layout())
        outputs = (self.outputs_intro, self.outputs)
        hidden: list[QWidget] = []
        for widget in (None, *aside):
            if widget is not None:
                hidden.append(widget)
            need = top + max(column(about, left_width, self.about.spacing(), hidden),
                             column(outputs, right_width, self.outputs_column.spacing(), hidden))
            if need <= viewport.height():
                break
        show_only(aside, hidden, self)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._step_aside()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self._step_aside()
            return False
        return super().eventFilter(watched, event)

    # --- language ---------------------------------------------------------------------------
    def retranslate(self) -> None:
        for generation, button in self.buttons.items():
            button.setText(generation_name(generation, one_line=False))
        self.outputs.setVerticalHeaderLabels([generation_name(g, one_line=False).split("\n")[0]
                                              for g in core.GENERATIONS])
        token = self.session.tokens[-1] if self.session.tokens else ""
        self.outputs_intro.setText(self.tr("The same tokens, every generation: the output for “%1”. Bold: the "
                                           "block in the explorer, with your edits.").replace("%1", i18n.labelled(token)))
        self.diagram.setText(self.tr("Show the block diagram above"))
        self.compare.setText(self.tr("Side by side with the one before"))
        self._describe()
        self._fit()

    def restyle(self) -> None:
        self._fitted = None
        self._fill_outputs()
        self._step_aside()


def _height(item, width: int) -> int:
    """A column item's height at `width`: a wrapped text's or the buttons' flow at that width."""
    if isinstance(item, QWidget):
        return max(0, item.heightForWidth(width)) if item.hasHeightForWidth() else item.sizeHint().height()
    return max(0, item.heightForWidth(width))


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
