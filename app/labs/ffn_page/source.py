"""The block the FFN page's demonstrations run on, and the base of the parts that follow it."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QWidget

from app import i18n
from app.labs.ffn_page.common import Part
from app.session import Change
from core.formats.scenario import Scenario, load_scenario
from core.labs.ffn_page import ScalingResult, ShuffleResult, first_token_scaling, shuffle_demo, shuffle_permutation
from core.resources import default_scenario


DEFAULT_SCENARIO = default_scenario()
# What the scaling demo reads (hook_attn_out under a causal mask, read before any norm): the
# inputs and the attention weights. The FFN's weights and the norms' do not reach it.
SCALING_TENSORS = ("inputs", "W_Q", "b_Q", "W_K", "b_K", "W_V", "b_V", "W_O", "b_O")

class FfnDemoSource(QObject):
    """The block the shuffle and linearity demos use: the open scenario when it has
    attention, else block-default.json. Results are computed on demand and cached."""

    changed = Signal()          # the scenario used changed (results are stale)
    shuffled = Signal()         # the shuffle step changed

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.step = 0                     # shuffles done; 0: none yet
        self.version = 0
        self._default: Scenario | None = None
        self._using_session = session.config.attention
        self._shuffle_cache: tuple[tuple[int, int], ShuffleResult] | None = None
        self._scaling_cache: tuple[int, ScalingResult] | None = None
        self._scaling_key: tuple | None = None
        self._scaling_mark = 0

    @property
    def from_session(self) -> bool:
        return self._using_session

    def scenario(self) -> Scenario:
        if self._using_session and self.session.config.attention:   # a hidden page has not caught up yet
            return self.session.scenario
        if self._default is None:
            self._default = load_scenario(DEFAULT_SCENARIO)
        return self._default

    def session_changed(self, change: Change) -> None:
        """The page hands on every Session notification; only a new trace matters here."""
        if change & Change.TRACE:
            self._on_trace_changed()

    def _on_trace_changed(self) -> None:
        using = self.session.config.attention
        if using or self._using_session:
            self._using_session = using
            self.version += 1
            self.changed.emit()

    def shuffle_again(self) -> None:
        self.step += 1
        self.shuffled.emit()

    def shuffle_result(self) -> ShuffleResult:
        """The current shuffle (the first one if none was done yet)."""
        key = (self.version, max(self.step, 1))
        if self._shuffle_cache is None or self._shuffle_cache[0] != key:
            scenario = self.scenario()
            permutation = shuffle_permutation(len(scenario.tokens), key[1] - 1)
            self._shuffle_cache = (key, shuffle_demo(scenario, permutation))
        return self._shuffle_cache[1]

    def scaling_result(self) -> ScalingResult:
        """The first-token scaling demo; the same object as long as nothing it reads changed (an
        FFN weight edit leaves the attention output as it was: views need not redraw it)."""
        if self._scaling_cache is None or self._scaling_cache[0] != self.version:
            stale = self._scaling_stale()               # (and note what it reads now)
            result = self._scaling_cache[1] if self._scaling_cache is not None and not stale \
                else first_token_scaling(self.scenario())
            self._scaling_cache = (self.version, result)
        return self._scaling_cache[1]

    def _scaling_stale(self) -> bool:
        """Whether what the scaling demo reads changed since it last ran: the block (config and
        tokens) or, in the open scenario, a cell of the inputs or of an attention weight."""
        s = self.session
        key = (self._using_session, s.config, tuple(s.tokens)) if self._using_session else (False,)
        mark, stale = self._scaling_mark, key != self._scaling_key
        for name in SCALING_TENSORS if self._using_session else ():
            mark, writes = s.writes_since(name, self._scaling_mark)
            stale = stale or writes is None or bool(writes)
        self._scaling_key, self._scaling_mark = key, mark
        return stale

    def tokens(self) -> tuple[str, ...]:
        return tuple(self.scenario().tokens)

    def describe(self) -> str:
        """Which block the demos run on, in one sentence."""
        if self._using_session:
            return self.tr("Computed on the open scenario.")
        return self.tr("The open scenario has no attention, so this runs on block-default.json (%1).") \
            .replace("%1", i18n.with_gloss(" ".join(self.tokens())))


class DemoPart(Part):
    """A part that follows the demo source, refreshing only while it is on screen."""

    def __init__(self, source: FfnDemoSource, parent: QWidget | None = None):
        super().__init__(parent)
        self.source = source
        self._stale = True
        source.changed.connect(self._on_source_changed)

    def _on_source_changed(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802
        if self._stale:
            self.refresh()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
            if self.isVisible():
                self.refresh()
            else:                      # hidden: the page may not have heard the Session yet; catch up when shown
                self._stale = True
        QWidget.changeEvent(self, event)

    def refresh(self) -> None:
        raise NotImplementedError

    def source_text(self) -> str:
        return self.source.describe()
