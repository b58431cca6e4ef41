"""The neuron view: the text on screen tinted by one FFN neuron, the top neurons beside a random
control group, the chosen neuron's top snippets, and neurons × positions as a heatmap."""
from __future__ import annotations

from PySide6.QtCore import QRect, QSignalBlocker, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGridLayout, QHBoxLayout, QHeaderView, QPushButton,
                               QScrollArea, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from app import i18n
from app.labs.model.common import (TEXT_PT, UNKNOWN_MARK, NeuronPicker, Part, TintedText, esc, label, set_text, sized,
                                   tinted_html)
from app.labs.model.heatmap import NeuronHeatmap
from app.labs.model.snippets import SnippetLine, SnippetLines
from app.labs.model.state import SCALE_LAYER, SCALE_NEURON, TYPED, VALIDATION, What
from app.widgets.appearance import appearance
from app.widgets.work_bar import WorkBar
from app.widgets.flow_layout import FlowLayout
from core.labs import model_lab as lab
from core.numbers import format_number

ROWS_GROUPS = "groups"
ROWS_ALL = "all"


class NeuronTextView(QWidget):
    """The text on screen with each character tinted by the chosen neuron, and its colour legend.

    On a projector (presentation mode) nobody scrolls: the text shows the whole rows that fit,
    around the character where the neuron is largest, and `band_bar` (for the pager's line)
    counts the rows shown of the page's and moves through them."""

    def __init__(self, name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.text = TintedText(name)
        self.scroll = QScrollArea()
        self.scroll.setObjectName(name + "Scroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.text)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.legend = label(name + "Legend")
        self.legend_row = QHBoxLayout()
        self.legend_row.addWidget(self.legend, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll, 1)
        layout.addLayout(self.legend_row)

        self.band_bar = QWidget()
        band_row = QHBoxLayout(self.band_bar)
        band_row.setContentsMargins(0, 0, 0, 0)
        self.band_label = label(name + "Rows", wrap=False, rich=False)
        self.rows_up = QPushButton("▲")
        self.rows_up.setObjectName(name + "RowsUp")
        self.rows_down = QPushButton("▼")
        self.rows_down.setObjectName(name + "RowsDown")
        for button in (self.rows_up, self.rows_down):
            button.setMaximumWidth(button.fontMetrics().horizontalAdvance("▲") * 4)
        for widget in (self.band_label, self.rows_up, self.rows_down):
            band_row.addWidget(widget)
        self.rows_up.clicked.connect(lambda: self.text.move_band(-self.text.rows_fitting()))
        self.rows_down.clicked.connect(lambda: self.text.move_band(self.text.rows_fitting()))
        self.text.bandChanged.connect(self._show_band)
        self._focus_key = None
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    def _follow_presenting(self) -> None:
        self.text.set_banded(appearance().presenting)
        self._show_band()

    def _show_band(self) -> None:
        first, last, total = self.text.band()
        banded = self.text.banded
        self.band_bar.setVisible(banded and (first > 1 or last < total))    # not when the page fits
        self.rows_up.setEnabled(first > 1)
        self.rows_down.setEnabled(last < total)
        set_text(self.band_label, self.tr("Lines %1–%2 / %3").replace("%1", str(first)).replace("%2", str(last))
                 .replace("%3", str(total)))

    def retranslate(self) -> None:
        self.rows_up.setToolTip(self.tr("Earlier lines of this page"))
        self.rows_down.setToolTip(self.tr("Later lines of this page"))
        self._show_band()

    def show_state(self, state) -> None:
        """Draw the state's text, layer and neuron (with its knock-outs)."""
        units = state.units()
        if units is None:
            self.text.set_content((), (), 1.0)
            set_text(self.legend, "")
            return
        view, limit = state.view, state.limit()
        caption = self.tr("neuron #%1 of layer %2").replace("%1", str(state.neuron)).replace("%2", str(state.layer))
        self.text.set_content(view.chars, units[:, state.neuron], limit, view.unknown, view.position_offset, caption)
        key = (view.chars, view.position_offset, state.layer, state.neuron)
        if key != self._focus_key:              # a new text or neuron: its largest character on screen
            self._focus_key = key
            self.text.set_focus(lab.peak_index(units[:, state.neuron]))
        if state.scale == SCALE_LAYER:
            scale = self.tr("layer %1's largest").replace("%1", str(state.layer))
        else:
            scale = self.tr("this neuron's largest")
        where = (self.tr("on the validation text") if state.layer in state.stats
                 else self.tr("on screen"))
        ends = format_number(limit, 0)
        swatch = tinted_html(("−" + ends, "0", "+" + ends), (-limit, 0.0, limit), limit, pad=True)
        off = "" if (state.layer, state.neuron) not in state.ablation().neurons_off else \
            self.tr("<b>This neuron is knocked out</b>: it is 0 everywhere.")
        unknown = "" if not view.unknown else self.tr("%1 in a red frame: a character outside the "
                                                      "model's vocabulary, which it reads as “unknown”.") \
            .replace("%1", f'<span style="color:{UNKNOWN_MARK};">�</span>')
        set_text(self.legend, i18n.sentences([self.tr("Colour %1 (%2 %3).").replace("%1", swatch)
                                              .replace("%2", scale).replace("%3", where), off, unknown]))


class ModelNeuronsPart(Part):
    def __init__(self, state, parent: QWidget | None = None):
        super().__init__(state, parent)
        self.setObjectName("modelNeuronsPart")
        self.picker = NeuronPicker(state, "modelNeurons")
        self.source = QComboBox()
        self.source.setObjectName("modelSource")
        self.previous_page = QPushButton("◀")
        self.previous_page.setObjectName("modelPreviousPage")
        self.next_page = QPushButton("▶")
        self.next_page.setObjectName("modelNextPage")
        self.page_label = label("modelPage", wrap=False, rich=False)
        self.scale = QComboBox()
        self.scale.setObjectName("modelScale")
        paging = QWidget()               # the text and its pages stay together, on the picker's line if it fits
        paging_row = QHBoxLayout(paging)
        paging_row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.source, self.previous_page, self.page_label, self.next_page):
            paging_row.addWidget(widget)
        controls = QWidget()
        flow = FlowLayout(controls, spacing=6)
        flow.addWidget(self.picker)
        flow.addWidget(paging)
        flow.addWidget(self.scale)                     # the legend below gets the text's width
        for button in (self.previous_page, self.next_page):
            button.setMaximumWidth(button.fontMetrics().horizontalAdvance("◀") * 4)

        self.view = NeuronTextView("modelNeuronText")
        paging_row.addWidget(self.view.band_bar)        # which lines of the page a projector shows
        self.rows = QComboBox()
        self.rows.setObjectName("modelHeatRows")
        self.heat_title = label("modelHeatTitle", wrap=True)
        self.heatmap = NeuronHeatmap("modelHeatmap")
        self.groups = QTableWidget(0, 3)
        self.groups.setObjectName("modelGroups")
        self.groups.verticalHeader().hide()
        self.groups.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.groups.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.groups.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.groups.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.groups.horizontalHeader().setStretchLastSection(True)
        self.groups.verticalHeader().setDefaultSectionSize(self.groups.fontMetrics().height() + 8)
        self.groups_note = label("modelGroupsNote")
        self.draw_again = QPushButton()
        self.draw_again.setObjectName("modelDrawAgain")
        self.snippets_title = label("modelSnippetsTitle")
        self.snippets = sized(SnippetLines("modelSnippets"), TEXT_PT)
        self.work = WorkBar("modelRankWork", self.state.rank_worker)

        self.side = side = QVBoxLayout()
        side.addWidget(self.groups, 2)
        side.addWidget(self.groups_note)
        side.addWidget(self.draw_again, 0, Qt.AlignmentFlag.AlignLeft)
        # The snippets change with every neuron: in a scroll area of their own, so that their new
        # text re-lays out only them, not the whole part.
        snippets = QWidget()
        column = QVBoxLayout(snippets)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.snippets_title)
        column.addWidget(self.snippets)
        column.addStretch(1)
        self.snippets_column = column
        self.snippets_area = QScrollArea()
        self.snippets_area.setObjectName("modelSnippetsArea")
        self.snippets_area.setWidgetResizable(True)
        self.snippets_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.snippets_area.setWidget(snippets)
        side.addWidget(self.snippets_area, 1)
        heat_head = QHBoxLayout()
        heat_head.addWidget(self.rows)
        heat_head.addWidget(self.heat_title, 1)
        grid = QGridLayout()
        grid.addWidget(self.view, 0, 0)
        grid.addLayout(heat_head, 1, 0)
        grid.addWidget(self.heatmap, 2, 0)
        grid.addLayout(side, 0, 1, 3, 1)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setRowStretch(0, 3)
        grid.setRowStretch(2, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(controls)
        layout.addLayout(grid, 1)
        layout.addWidget(self.work)

        self.source.currentIndexChanged.connect(self._source_picked)
        self.previous_page.clicked.connect(lambda: state.set_page(state.page - 1))
        self.next_page.clicked.connect(lambda: state.set_page(state.page + 1))
        self.scale.currentIndexChanged.connect(lambda i: state.set_scale(self.scale.itemData(i)) if i >= 0 else None)
        self.rows.currentIndexChanged.connect(lambda _i: self.redraw(What.RUN))
        self.heatmap.neuronClicked.connect(state.set_neuron)
        self.groups.cellClicked.connect(self._group_clicked)
        self.draw_again.clicked.connect(state.draw_again)
        self.snippets.positionClicked.connect(state.show_position)
        self.snippets.shownChanged.connect(self._snippets_title)
        self.snippets.shownChanged.connect(self._fit_note)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()
        self.retranslate()

    def _follow_presenting(self) -> None:
        """On a projector the snippets list shows the snippets that fit whole (it does not
        scroll), and the groups table takes only its rows' room, leaving the rest to them."""
        presenting = appearance().presenting
        self.snippets.set_whole_rows(presenting)
        self.snippets_column.setStretchFactor(self.snippets, 1 if presenting else 0)
        self.snippets_column.setStretch(2, 0 if presenting else 1)
        self._fit_groups()

    def _fit_note(self) -> None:
        """Presenting, the groups' note (how the groups were drawn: the lesson's captions say it)
        steps aside when with it the snippets below would have no room for the strongest snippet
        whole (1024×768 with 150 %: none was shown, the note ran over the table); at the desk, and
        with the room, it is shown. Worked out as if it were shown: hiding it never changes the answer."""
        note, snippets = self.groups_note, self.snippets
        shown = note.isVisibleTo(self)
        if not appearance().presenting or not snippets.lines or self.snippets_area.height() <= 0:
            if not shown:
                note.setVisible(True)
            return
        room = self.snippets_area.height()
        if not shown:
            room -= note.heightForWidth(max(1, self.groups.width())) + max(0, self.side.spacing())
        rows = snippets._rows(max(1, snippets.width()))        # the strongest snippet's rows at its width
        row_height = snippets._measure()[2]
        needed = (self._longest_title_height() + max(0, self.snippets_column.spacing())
                  + (rows[0][3] - rows[0][0] + 1) * row_height)
        fits = room >= needed
        if fits != shown:
            note.setVisible(fits)

    def _longest_title_height(self) -> int:
        """The snippets' title's height at its width when it says how many are shown (its longest
        form, "… (the strongest 1 of 5)"): the answer does not change with what it says."""
        lines = self.snippets.lines
        title = self.tr("%1 (the strongest %2 of %3)").replace("%1", self.tr("Where neuron #%1 fires most").replace(
            "%1", str(self.state.neuron))).replace("%2", str(len(lines))).replace("%3", str(len(lines)))
        bold = QFont(self.snippets_title.font())
        bold.setBold(True)
        width = max(1, self.snippets_area.width())
        margin = 2 * self.snippets_title.margin()
        return QFontMetrics(bold).boundingRect(QRect(0, 0, width - margin, 100000), Qt.TextFlag.TextWordWrap,
                                               title).height() + margin

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_note()

    def _fit_groups(self) -> None:
        table = self.groups
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        whole = table.horizontalHeader().sizeHint().height() + rows + 2 * table.frameWidth()
        fixed = appearance().presenting and table.rowCount()
        # on a projector the table is exactly its rows' height: no taller, and never so short
        # that its last row (the random group's last neuron) slips below the view
        table.setMaximumHeight(whole if fixed else 16777215)
        table.setMinimumHeight(whole if fixed else 0)

    # --- language ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.picker.retranslate()
        self.view.retranslate()
        with QSignalBlocker(self.source):
            self.source.clear()
            self.source.addItem(self.tr("Validation text"), VALIDATION)
            self.source.addItem(self.tr("Your text"), TYPED)
        with QSignalBlocker(self.scale):
            self.scale.clear()
            self.scale.addItem(self.tr("Scale: the layer"), SCALE_LAYER)
            self.scale.addItem(self.tr("Scale: this neuron"), SCALE_NEURON)
        with QSignalBlocker(self.rows):
            current = self.rows.currentData() or ROWS_GROUPS
            self.rows.clear()
            self.rows.addItem(self.tr("Top and random"), ROWS_GROUPS)
            self.rows.addItem(self.tr("All %1").replace("%1", str(self.state.config.d_ff)), ROWS_ALL)
            self.rows.setCurrentIndex(self.rows.findData(current))
        self.groups.setHorizontalHeaderLabels([self.tr("Group"), self.tr("Neuron"), self.tr("Maximum")])
        self.draw_again.setText(self.tr("Draw other random neurons"))
        self.previous_page.setToolTip(self.tr("Previous page of the validation text"))
        self.next_page.setToolTip(self.tr("Next page of the validation text"))

    # --- input ---------------------------------------------------------------------------------
    def _source_picked(self, index: int) -> None:
        if index >= 0:
            self.state.set_source(self.source.itemData(index))

    def _group_clicked(self, row: int, _column: int) -> None:
        item = self.groups.item(row, 1)
        if item is not None and item.data(Qt.ItemDataRole.UserRole) is not None:
            self.state.set_neuron(int(item.data(Qt.ItemDataRole.UserRole)))

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.state.rank()                        # ranks the layer in the background if not done yet
        self._watch_job()

    def _watch_job(self) -> None:
        job = self.state.rank_job
        if job is not None and self.work.generation != job:
            layer = str(self.state.rank_layer)
            self.work.running(lambda: self.tr("Ranking the neurons of layer %1 over the validation text…")
                              .replace("%1", layer))

    # --- drawing -------------------------------------------------------------------------------
    def redraw(self, what: What) -> None:
        s = self.state
        if what & (What.LAYER | What.NEURON | What.RUN):
            self.picker.refresh()
        if what & What.LAYER and self.isVisible():
            s.rank()
        if what & What.JOBS:
            self._watch_job()
        if what & What.RUN:
            self._controls()
        if what & (What.RUN | What.LAYER | What.NEURON | What.SCALE | What.STATS | What.LINK):
            self.view.show_state(s)
        if what & (What.RUN | What.LAYER | What.SCALE | What.STATS | What.LINK):
            self._heatmap()
        if what & (What.LAYER | What.STATS | What.JOBS):
            self._groups()
        if what & (What.LAYER | What.NEURON | What.STATS | What.SCALE):
            self._snippets()
        if what & (What.LAYER | What.NEURON | What.STATS | What.RUN | What.LINK | What.SCALE):
            self.heatmap.show_neuron(s.neuron)
            self._select_group()

    def _controls(self) -> None:
        s = self.state
        with QSignalBlocker(self.source):
            self.source.setCurrentIndex(self.source.findData(s.source))
        with QSignalBlocker(self.scale):
            self.scale.setCurrentIndex(self.scale.findData(s.scale))
        on_page = s.source == VALIDATION
        for widget in (self.previous_page, self.next_page, self.page_label):
            widget.setVisible(on_page)
        self.previous_page.setEnabled(s.page > 0)
        self.next_page.setEnabled(s.page < s.pages() - 1)
        set_text(self.page_label, self.tr("Page %1 / %2").replace("%1", str(s.page + 1)).replace("%2", str(s.pages())))

    def _heat_rows(self):
        groups = self.state.groups()
        if self.rows.currentData() == ROWS_GROUPS and groups is not None:
            return groups.rows(), len(groups.top)
        return None, None

    def _heatmap(self) -> None:
        s = self.state
        units = s.units()
        if units is None:
            return
        rows, split = self._heat_rows()
        values = lab.heat_rows(units, rows)
        neurons = rows if rows is not None else range(units.shape[1])
        self.heatmap.set_data(values, neurons, s.view.chars, s.limit(), split)
        if rows is None and self.rows.currentData() == ROWS_GROUPS:
            title = self.tr("Layer %1: all neurons × characters (top and random once ranked); click a row")
        else:
            title = self.tr("Layer %1: neurons × characters on screen; click a row")
        set_text(self.heat_title, title.replace("%1", str(s.layer)))

    def _groups(self) -> None:
        s = self.state
        groups = s.groups()
        self.draw_again.setEnabled(groups is not None)
        if groups is None:
            self.groups.setRowCount(0)
            text = self.tr("Ranking layer %1…").replace("%1", str(s.layer)) if s.rank_job is not None \
                else self.tr("Layer %1 is not ranked yet.").replace("%1", str(s.layer))
            set_text(self.groups_note, esc(text))
            self._fit_groups()
            return
        stats = s.stats[s.layer]
        rows = [(self.tr("top"), n) for n in groups.top] + [(self.tr("random"), n) for n in groups.random]
        self.groups.setRowCount(len(rows))
        for r, (group, n) in enumerate(rows):
            cells = (group, f"#{n}", format_number(stats.max_activation[n], 2))
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, n)
                if c == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.groups.setItem(r, c, item)
        chars = stats.chars
        set_text(self.groups_note, esc(self.tr("Top %1 by their largest activation over %2 characters; %3 others "
                                               "drawn at random (seed %4).")
                 .replace("%1", str(len(groups.top))).replace("%2", f"{chars:,}")
                 .replace("%3", str(len(groups.random))).replace("%4", str(groups.seed))))
        self._fit_groups()
        self._fit_note()

    def _select_group(self) -> None:
        with QSignalBlocker(self.groups):
            self.groups.clearSelection()
            for r in range(self.groups.rowCount()):
                item = self.groups.item(r, 1)
                if item is not None and item.data(Qt.ItemDataRole.UserRole) == self.state.neuron:
                    self.groups.selectRow(r)

    def _snippets(self) -> None:
        s = self.state
        found = s.snippets()
        if not found:
            self.snippets.set_lines((), 1.0)
            self._snippets_title()
            return
        stats = s.stats[s.layer]
        limit = lab.colour_limit(stats.max_activation if s.scale == SCALE_LAYER else stats.max_activation[s.neuron])
        self.snippets.set_lines([SnippetLine(format_number(f.snippet.value, 1), f.chars, f.values, f.peak,
                                             f.snippet.position) for f in found], limit)
        self._snippets_title()
        self._fit_note()

    def _snippets_title(self) -> None:
        """Names the neuron; says how many snippets are shown when not all of them fit."""
        lines = self.snippets.lines
        title = self.tr("Where neuron #%1 fires most").replace("%1", str(self.state.neuron))
        if lines and self.snippets.shown() < len(lines):
            title = self.tr("%1 (the strongest %2 of %3)").replace("%1", title) \
                .replace("%2", str(self.snippets.shown())).replace("%3", str(len(lines)))
        title = "<b>" + esc(title) + "</b>"
        if not lines:
            title += "<br>" + esc(self.tr("Shown once the layer is ranked."))
        set_text(self.snippets_title, title)
