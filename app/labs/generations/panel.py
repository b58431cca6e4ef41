"""The block across generations (registry id "generations"): the seed's table, each generation's
block in the explorer, two generations side by side, the "stuck at" demonstrations and the
parameter calculator, one tab per part. Every number shown comes from core.labs.generations,
core.params or the Session's trace."""
from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.labs.base import LabPanel
from app.labs.fonts import own_fonts
from app.labs.generations.common import TEXT_PT, generation_of, part_heading, part_tab, scroll_page, sized_font
from app.labs.generations.compare import GenerationsComparePart
from app.labs.generations.gain import GainDecayPart
from app.labs.generations.overflow import SwigluOverflowPart
from app.labs.generations.parameters import ParametersPart
from app.labs.generations.placement import PlacementPart
from app.labs.generations.preset import GenerationPresetPart
from app.labs.generations.residual import ResidualGrowthPart
from app.labs.generations.sink import SILENCING_BIAS, AttentionSinkPart
from app.labs.generations.table import GenerationsTablePart
from app.session import Change
from app.widgets.appearance import appearance
from core.labs import generations as core

FOLLOWS_SESSION = ("table", "preset", "compare")     # the parts that show the Session's block


class GenerationsPanel(LabPanel):
    """The parts as tabs, each in a scroll area. A table cell or a generation button loads that
    generation's preset into the Session (`load_generation`); `show_block` asks the main window
    to draw the block diagram above the lab, as a lesson step naming "dataflow" does."""

    LAB_ID = "generations"

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(session, parent)
        self.setObjectName("generationsLab")
        self.table = GenerationsTablePart()
        self.preset = GenerationPresetPart(session)
        self.compare = GenerationsComparePart(session)
        self.residual = ResidualGrowthPart()
        self.placement = PlacementPart()
        self.overflow = SwigluOverflowPart()
        self.sink = AttentionSinkPart()
        self.gain = GainDecayPart()
        self.parameters = ParametersPart()
        widgets = (self.table, self.preset, self.compare, self.residual, self.placement, self.overflow, self.sink,
                   self.gain, self.parameters)
        self.tabs.setObjectName("generationsTabs")
        # Nine short tab titles fit the lab's room on a 1024-pixel screen; narrower (a zoom, the block
        # options beside the lab) they scroll rather than widen the window: the work area is as
        # wide as its widest page's minimum, shown or not.
        self.tabs.setUsesScrollButtons(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        for part, widget in zip(self.lab.parts, widgets):
            self.add_part(part, widget, scroll_page(widget, f"genScroll_{part}"))
        self._dirty: set[str] = {"preset", "compare", "compare-pair"}     # drawn when first shown

        self.table.cellChosen.connect(self._cell_chosen)
        self.table.demonstrationRequested.connect(self.set_focus)
        self.table.diagramRequested.connect(lambda: self.show_block(True))
        self.preset.generationChosen.connect(self.load_generation)
        self.preset.diagramRequested.connect(lambda: self.show_block(True))
        self.preset.compareRequested.connect(lambda: self.set_focus("compare"))
        self.compare.hookChosen.connect(lambda hook: self.highlight([hook]))
        self.sink.silenceRequested.connect(self.silence_heads)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        appearance().changed.connect(self._restyle)
        self._restyle()
        self.retranslate()

    # --- loading generations ------------------------------------------------------------------
    def load_generation(self, generation: str) -> None:
        """That generation's block (a fresh preset) into the Session: every view follows."""
        self.session.load(core.preset(generation))

    def _cell_chosen(self, row: str, column: str) -> None:
        cell = core.cell(row, column)
        if cell.preset is not None:
            self.load_generation(cell.preset)
            self.show_block(True)

    def silence_heads(self) -> None:
        """The anchor block with every output-gate bias at SILENCING_BIAS: its heads write ≈ 0."""
        self.session.load(core.silenced_anchor(SILENCING_BIAS))
        self.highlight(["attn.hook_gate_sigmoid", "attn.hook_z_gated"])
        self.show_block(True)

    def show_block(self, show: bool = True) -> None:
        """Draw the block diagram above the lab (or only the lab): the main window's show_panels,
        as for a lesson step that names "dataflow" beside a lab part. Alone (tests), nothing."""
        window = self.window()
        if window is not self and hasattr(window, "show_panels"):
            panels = (("dataflow",) if show else ()) + (f"lab.{self.LAB_ID}.{self.current_part()}",)
            window.show_panels(panels)

    # --- following the Session ------------------------------------------------------------------
    def session_changed(self, change: Change) -> None:
        if not change & (Change.TRACE | Change.LOADED):
            return
        self.table.set_loaded(generation_of(self.session.config))
        current = self.current_part()
        self._dirty.update(part for part in ("preset", "compare") if part != current)
        if current in ("preset", "compare"):
            self._refresh(current, loaded=bool(change & Change.LOADED))
        if change & Change.LOADED:
            self._dirty.add("compare-pair")

    def _refresh(self, part: str, loaded: bool = False) -> None:
        if part == "preset":
            self.preset.refresh()
        elif part == "compare":
            if loaded or "compare-pair" in self._dirty or self.compare.comparison is None:
                self._dirty.discard("compare-pair")
                self.compare.follow_session()
            else:
                self.compare.refresh()
        self._dirty.discard(part)

    def part_shown(self, part: str) -> None:
        if part in self._dirty and self.isVisible():
            self._refresh(part)
        if part == "residual_growth":
            self.residual.ensure_run()
        elif part == "placement":
            self.placement.ensure_run()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.part_shown(self.current_part())

    # --- language and appearance ------------------------------------------------------------
    def retranslate(self) -> None:
        for part in self.lab.parts:
            self.set_part_title(part, part_tab(part))
            self.tabs.setTabToolTip(self.lab.parts.index(part), part_heading(part))

    def _restyle(self) -> None:
        self.tabs.tabBar().setFont(sized_font(TEXT_PT))
        own_fonts(self.tabs.tabBar())

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)
