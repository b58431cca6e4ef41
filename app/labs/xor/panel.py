"""The two-neuron lab's panel: the data table above six parts, one tab each.

The naive linear model's a, b, c live in a small model object (they are not part of the
block); everything else reads and writes the Session. Every number shown comes from
core/labs/xor.py (or the session's trace); views are created once and updated in place,
and only the part on screen is redrawn on an edit.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, Qt
from PySide6.QtWidgets import QFrame, QPushButton, QScrollArea, QStackedWidget, QVBoxLayout, QWidget

from app import i18n
from app.labs.base import LabPanel
from app.widgets.fence import SizeFence
from app.labs.xor.bias import XorBiasPart
from app.labs.xor.common import TEXT_PT, SteadyLabel, esc, label, set_text
from app.labs.xor.compute import XorComputePart
from app.labs.xor.failure import XorFailurePart
from app.labs.xor.ffn import XorFfnPart
from app.labs.xor.naive import XorNaivePart
from app.labs.xor.neurons import XorNeuronsPart
from app.labs.xor.overview import XorOverview
from app.labs.xor.state import LinearModel, TableFacts
from app.session import Change
from app.widgets.appearance import appearance
from app.widgets.labels import norm_label
from app.widgets.style import font
from core.labs import xor as lab

LINEAR_PARTS = ("naive", "failure")                   # the table shows the line's ŷ in these


class XorLabPanel(LabPanel):
    """The C4 lab. `parts()` lists the part names in order; `set_focus(part)` brings one forward."""

    LAB_ID = "xor"

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, parent)
        self.setObjectName("xorLab")
        self.linear = LinearModel(parent=self)
        self.facts = TableFacts()
        self._dirty: set[str] = set(self.lab.parts)      # parts to redraw when they come forward
        self._ok = False                                 # the session holds the lab's block
        self._linear_key: tuple | None = None            # what the linear try's parts were drawn from

        root = self.root_layout = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        self.stack = QStackedWidget()
        root.addWidget(self.stack)
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        self.overview = XorOverview(session, self.linear, self.facts)
        column.addWidget(SizeFence(self.overview))     # its live numbers re-lay out the overview alone
        self.tabs.setObjectName("xorParts")
        self.tabs.setFont(font(TEXT_PT))
        self.tabs.setDocumentMode(True)
        failure = XorFailurePart(session, self.linear, self.facts)
        failure.showFix.connect(lambda: self.set_focus("ffn"))
        for name, part in (("naive", XorNaivePart(session, self.linear, self.facts)), ("failure", failure),
                           ("ffn", XorFfnPart(session)), ("bias", XorBiasPart(session)),
                           ("compute", XorComputePart(session)), ("neurons", XorNeuronsPart(session))):
            # a part taller than a projector's screen at presentation size scrolls, never squeezes
            page = QScrollArea()
            page.setObjectName(f"xorScroll_{name}")
            page.setWidgetResizable(True)
            page.setFrameShape(QFrame.Shape.NoFrame)
            page.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            page.setWidget(part)
            self.add_part(name, part, page)
        column.addWidget(self.tabs, 1)
        self.stack.addWidget(content)
        self.stack.addWidget(self._mismatch_page())
        self.retranslate()
        self.linear.changed.connect(self._linear_changed)
        appearance().changed.connect(self._follow_presenting)
        self._follow_presenting()

    def _follow_presenting(self) -> None:
        """Presenting, the lab's margins above and below are thin: a 1024×768 projector at 150 %
        zoom has little height for the parts below the table."""
        self.root_layout.setContentsMargins(*((6, 1, 6, 1) if appearance().presenting else (6, 6, 6, 6)))

    def _mismatch_page(self) -> QWidget:
        """Shown instead of the lab when the session holds some other block."""
        page = QWidget()
        layout = QVBoxLayout(page)
        self.mismatch_label = label("xorMismatch", 13)
        self.mismatch_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reset_button = QPushButton()
        self.reset_button.setObjectName("xorResetBlock")
        self.reset_button.setFont(font(TEXT_PT))
        self.reset_button.clicked.connect(self.session.reset_all)
        layout.addStretch(1)
        layout.addWidget(self.mismatch_label)
        layout.addWidget(self.reset_button, 0, Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(1)
        return page

    # --- language ------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            self.deliver(Change.TRACE)                 # every text is redrawn (now, or when shown)
        super().changeEvent(event)

    def retranslate(self) -> None:
        titles = [self.tr("① Linear try"), self.tr("② Why it fails"), self.tr("③ Two neurons"), self.tr("④ Bias"),
                  self.tr("⑤ Compute"), self.tr("⑥ Neurons")]
        for part, title in zip(self.lab.parts, titles):
            self.set_part_title(part, title)
        self.reset_button.setText(self.tr("Reset to the scenario as loaded"))

    # --- reacting ------------------------------------------------------------------------------
    def _lab_problem(self) -> str | None:
        s = self.session
        state = s.state                  # one snapshot per refresh (each one hands out views)
        mismatches = lab.lab_mismatches(s.config)
        if not mismatches and state.targets is not None and state.inputs.shape[1] == 2:
            return None
        parts = [self.tr("%1 = %2 (the lab needs %3)").replace("%1", self._field(field))
                 .replace("%2", self._option(now)).replace("%3", self._option(need)) for field, now, need in mismatches]
        if state.targets is None:
            parts.append(self.tr("no targets"))
        return self.tr("This lab needs the two-neuron FFN of lesson C4 (no attention, no residual, no norm, "
                       "2 inputs, 2 neurons, 1 output, with targets). Now: %1.").replace("%1", self.tr("; ").join(parts))

    def _field(self, field: str) -> str:
        names = {"attention": self.tr("attention"), "residual": self.tr("residual"), "norm": self.tr("norm"),
                 "gated": self.tr("gated")}
        return names.get(field, field)                   # d_model, d_ff, d_out: symbols

    def _option(self, value: object) -> str:
        if isinstance(value, bool):
            return self.tr("on") if value else self.tr("off")
        if isinstance(value, str):
            return norm_label(value)
        return str(value)

    def session_changed(self, change: Change) -> None:
        if change & Change.LOADED:
            # A lesson step (or its reset) loaded the scenario: the linear try starts over too.
            with QSignalBlocker(self.linear):
                self.linear.reset()
            self._dirty.update(LINEAR_PARTS)
            for text in self.findChildren(SteadyLabel):   # a new scenario: labels fit their text again
                text.release()
            self.overview.table.release()
            self.part("neurons").release()                  # the maps' colour scale fits again
        if change & Change.TRACE:
            self._trace_changed()
        if change & Change.SELECTION:
            self._selection_changed()

    def _trace_changed(self) -> None:
        s = self.session
        problem = self._lab_problem()
        was_ok, self._ok = self._ok, problem is None
        if not self._ok:
            set_text(self.mismatch_label, esc(problem))
            loaded_ok = not lab.lab_mismatches(s.loaded.config) and s.loaded.targets is not None
            self.reset_button.setVisible(loaded_ok)
            self.stack.setCurrentIndex(1)
            return
        self.stack.setCurrentIndex(0)
        if self.facts.update(s):
            self.overview.show_data()
        # The linear try's parts, and the overview above them, show the table and the line's
        # a, b, c only: a new weight of the block (most edits) changes nothing they show.
        linear_key = (self.facts.key, self.linear.model, self.linear.last, i18n.language())
        if linear_key != self._linear_key or not was_ok:
            self._linear_key = linear_key
            self._dirty = set(self.lab.parts)
        else:
            self._dirty.update(part for part in self.lab.parts if part not in LINEAR_PARTS)
        if self.current_part() not in LINEAR_PARTS or self.current_part() in self._dirty:
            self._refresh_top()
        self._refresh_part()

    def _linear_changed(self) -> None:
        if not self._ok or self.is_behind():
            return
        self.part("naive").sync_widgets()
        if self.current_part() in LINEAR_PARTS:
            self._refresh_top()
        self._dirty.update(LINEAR_PARTS)
        self._linear_key = (self.facts.key, self.linear.model, self.linear.last, i18n.language())
        self._refresh_part()

    def _selection_changed(self) -> None:
        if not self._ok:
            return
        self.part("compute").follow_selection()
        self.overview.select_row()
        self._dirty.update(("ffn", "compute"))
        self._refresh_part()

    def part_shown(self, part: str) -> None:
        if not self._ok:
            return
        if not self.isVisible():
            self.deliver(Change.TRACE)                 # draw it when the panel is shown
            return
        self._refresh_top()
        self._refresh_part()

    def _refresh_top(self) -> None:
        self.overview.refresh(linear=self.current_part() in LINEAR_PARTS)

    def _refresh_part(self) -> None:
        part = self.current_part()
        if part in self._dirty:
            self._dirty.discard(part)
            self.part(part).refresh()
