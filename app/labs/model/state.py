"""What the model lab's parts share: the model, the text on screen and its run, the chosen layer
and neuron, the rankings, the knock-outs, and the link to the layer open in the explorer.

One object per panel; parts read it and call its methods, and redraw on `changed(What)`.
Every number comes from core (core.model, core.labs.model_lab); long work runs on two
Workers (app/widgets/worker.py): the ranking and the knock-out measurement.
The Session stays the only writer of the explorer's block: opening a layer loads it as a
Scenario, a knock-out in that layer is one undo step there, and the lab hears the Session's
edits through the panel (`session_changed`).
"""
from __future__ import annotations

import enum
import weakref
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.i18n import POEM_LINE
from app.widgets.worker import Worker
from app.session import Change, State
from core.formats.scenario import Scenario
from core.labs import model_lab as lab
from core.model import (DEFAULT_MODEL, Ablation, Cancelled, Model, ModelError, ffn_ablation_losses, load_model,
                        neuron_stats)

VALIDATION = "validation"
TYPED = "typed"
SCALE_LAYER = "layer"
SCALE_NEURON = "neuron"
# A line the learner sees first in "Type your own text" (李白《靜夜思》, in the model's script; its
# last character, 鄉, left for the model to guess). English mode glosses it (app/i18n.py).
DEFAULT_TYPED = "靜夜思\n" + POEM_LINE

_MODELS: dict[Path, Model] = {}


def shared_model(path: str | Path | None = None) -> Model:
    """The model file at `path` (default: the shipped one), loaded once per process. A refused
    file raises ModelError and is not remembered (a repaired file can be tried again)."""
    path = Path(path or DEFAULT_MODEL).resolve()
    if path not in _MODELS:
        _MODELS[path] = load_model(path)
    return _MODELS[path]


def fraction_job(work):
    """A Worker job (`progress(fraction) -> bool`) from a core.model pass `work(progress, cancel)`,
    which reports `progress(done, total)`, asks `cancel() -> bool` and may raise Cancelled."""
    def job(progress):
        last = [0.0]

        def report(done: int, total: int) -> None:
            last[0] = done / max(total, 1)
            progress(last[0])
        try:
            return work(report, lambda: not progress(last[0]))
        except Cancelled:
            return None                    # told to stop: the Worker drops whatever comes back
    return job


class What(enum.Flag):
    """What a `ModelLabState.changed` notification covers."""
    RUN = enum.auto()          # the trace of the text on screen (text, edits, knock-outs)
    LAYER = enum.auto()
    NEURON = enum.auto()
    STATS = enum.auto()        # a layer's ranking arrived, or the control group was drawn again
    LINK = enum.auto()         # the layer in the explorer, the knock-outs
    SCALE = enum.auto()
    ABLATION = enum.auto()     # the knock-out losses were measured
    JOBS = enum.auto()         # a long computation started, ended or failed
    ALL = RUN | LAYER | NEURON | STATS | LINK | SCALE | ABLATION | JOBS


@dataclass(frozen=True)
class Link:
    """A layer of the model opened in the explorer: the Scenario object the Session loaded, held
    weakly (the layer's weights and inputs, 6 MB): once nothing else holds it (the Session loaded
    another block, no lesson step keeps it), it cannot come back, and `scenario` is None."""
    layer: int
    scenario_ref: weakref.ref
    chars: tuple[str, ...]
    offset: int

    @property
    def scenario(self) -> Scenario | None:
        return self.scenario_ref()


class ModelLabState(QObject):
    changed = Signal(object)          # What
    message = Signal(str)             # one sentence for the learner (a refusal, a failure)

    RANK_CHARS: int | None = None         # rank over the first N characters only (tests); None: all
    ABLATION_WINDOWS: int | None = None   # measure over the first N windows only (tests); None: all

    def __init__(self, session, model_path: str | Path | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.model: Model | None = None
        self.error: str | None = None
        # The running job of each worker (its generation), None when idle. A worker stops its job
        # when it is destroyed with this state, and at exit (app/widgets/worker.py).
        self.rank_job: int | None = None
        self.ablation_job: int | None = None
        self.rank_worker = Worker(self)
        self.ablation_worker = Worker(self)
        self.rank_worker.finished.connect(self._ranked)
        self.ablation_worker.finished.connect(self._measured)
        for worker in (self.rank_worker, self.ablation_worker):
            worker.failed.connect(partial(self._failed, worker))
            worker.cancelled.connect(partial(self._job_ended, worker))
        try:
            self.model = shared_model(model_path)
        except ModelError as error:
            self.error = str(error)
            return
        self.val_text = self.model.val_text
        self.layer, self.neuron, self.page = lab.default_view(self.model)
        self.source = VALIDATION
        self.typed = DEFAULT_TYPED
        self.scale = SCALE_LAYER
        self.lab_off: set[tuple[int, int]] = set()       # knock-outs kept by the lab (layers not in the explorer)
        self.link: Link | None = None
        self.stats: dict[int, lab.RankedLayer] = {}
        self.seed = lab.RANDOM_SEED
        self.losses: dict[str, float] | None = None
        self.rank_layer: int | None = None
        self.job_error: str | None = None
        self._applied: object = None                       # the explorer weights the current run used
        self._facts_for: object = None                     # the weights _facts describe
        self._facts: tuple = ((), frozenset())
        self._run_text()

    @property
    def ok(self) -> bool:
        return self.model is not None

    @property
    def config(self):
        return self.model.config

    # --- the text ---------------------------------------------------------------------------
    def pages(self) -> int:
        return lab.page_count(len(self.val_text), self.config.n_ctx)

    def page_bounds(self) -> tuple[int, int]:
        return lab.page_bounds(len(self.val_text), self.page, self.config.n_ctx)

    def _text(self) -> tuple[str, int | None]:
        if self.source == VALIDATION:
            start, end = self.page_bounds()
            return self.val_text[start:end], start
        return self.typed, None

    def _run_text(self) -> None:
        text, offset = self._text()
        if not text:                                    # an empty box: nothing to run, keep showing the last run
            self.base = self.view = None
            return
        self.base = lab.run_text(self.model, text, position_offset=offset)
        self._rerun()

    def _rerun(self) -> None:
        if self.base is None:
            return
        weights = self.explorer_weights()
        self._applied = self.session.state.weights if weights else None
        ablation = self.ablation()
        if weights is not None and self._explorer_trace_fits(ablation):
            # The Session has just computed the edited layer (incrementally): go on from there.
            self.view = lab.continue_run(self.model, self.base, self.link.layer, self.session.trace,
                                         ablation=ablation)
        else:
            self.view = lab.rerun(self.model, self.base, ablation=ablation,
                                  layer_weights={self.link.layer: weights} if weights else None)

    def _explorer_trace_fits(self, ablation: Ablation) -> bool:
        """Whether the explorer's trace of its layer is that layer in the run on screen: same
        characters and inputs, and no knock-out below it."""
        first = ablation.first_layer
        return (not self.link_is_stale() and not self.inputs_edited()
                and (first is None or first >= self.link.layer))

    def set_source(self, source: str) -> None:
        if source != self.source:
            self.source = source
            self._run_text()
            self.changed.emit(What.RUN)

    def set_page(self, page: int) -> None:
        page = max(0, min(int(page), self.pages() - 1))
        if page != self.page or self.source != VALIDATION:
            self.page, self.source = page, VALIDATION
            self._run_text()
            self.changed.emit(What.RUN)

    def show_position(self, position: int) -> None:
        """Show the validation page holding this absolute position (a snippet clicked)."""
        self.set_page(lab.page_of(position, self.config.n_ctx))

    def set_typed(self, text: str) -> None:
        """The learner's text (any length, any characters); it becomes the text on screen."""
        if text == self.typed and self.source == TYPED:
            return
        self.typed, self.source = text, TYPED
        self._run_text()
        self.changed.emit(What.RUN)

    # --- layer, neuron, scale -----------------------------------------------------------------
    def set_layer(self, layer: int) -> None:
        layer = max(0, min(int(layer), self.config.n_layers - 1))
        if layer != self.layer:
            self.layer = layer
            self.changed.emit(What.LAYER | What.NEURON)

    def set_neuron(self, neuron: int) -> None:
        neuron = max(0, min(int(neuron), self.config.d_ff - 1))
        if neuron != self.neuron:
            self.neuron = neuron
            self.changed.emit(What.NEURON)

    def set_scale(self, scale: str) -> None:
        if scale != self.scale:
            self.scale = scale
            self.changed.emit(What.SCALE)

    def units(self) -> np.ndarray | None:
        """(T, d_ff): the chosen layer's hidden units over the text on screen (with knock-outs)."""
        return None if self.view is None else lab.hidden_units(self.view, self.layer)

    def limit(self) -> float:
        """The colour scale ±limit: the layer's (or the neuron's) largest activation over the
        validation text once ranked, else over the text on screen."""
        stats = self.stats.get(self.layer)
        if stats is not None:
            values = stats.max_activation if self.scale == SCALE_LAYER else stats.max_activation[self.neuron]
            return lab.colour_limit(values)
        units = self.units()
        if units is None:
            return 1.0
        return lab.colour_limit(units if self.scale == SCALE_LAYER else units[:, self.neuron])

    def groups(self) -> lab.Groups | None:
        stats = self.stats.get(self.layer)
        return None if stats is None else lab.groups(stats, seed=self.seed)

    def draw_again(self) -> None:
        """A new control group (the next seed)."""
        self.seed += 1
        self.changed.emit(What.STATS)

    def snippets(self) -> list[lab.SnippetView]:
        stats = self.stats.get(self.layer)
        if stats is None:
            return []
        return lab.snippets(self.model, stats, self.neuron)

    def predictions(self, trained: bool = False) -> list[tuple[str, float]]:
        view = self.base if trained else self.view
        return [] if view is None else lab.predictions(self.model, view)

    def trained_probabilities(self, chars) -> list[float]:
        """What the model as trained gives these next characters (to compare with the changed run)."""
        return [] if self.base is None else lab.probabilities(self.model, self.base, chars)

    # --- long work ----------------------------------------------------------------------------
    def rank(self, layer: int | None = None) -> int | None:
        """Rank the layer's neurons over the validation text in the background (if not done);
        the running job (a newer layer cancels the ranking of another)."""
        layer = self.layer if layer is None else layer
        if layer in self.stats:
            return None
        if self.rank_job is not None and self.rank_layer == layer:
            return self.rank_job
        model, chars = self.model, self.RANK_CHARS
        ids = model.val_ids if chars is None else model.val_ids[:chars]

        def work(progress, cancel):
            return lab.ranked_layer(model, neuron_stats(model, ids, layer, progress=progress, cancel=cancel), ids)

        self.rank_layer, self.job_error = layer, None
        self.rank_job = self.rank_worker.start(fraction_job(work))
        self.changed.emit(What.JOBS)
        return self.rank_job

    def _ranked(self, stats: lab.RankedLayer) -> None:
        self.stats[stats.layer] = stats
        self._job_ended(self.rank_worker)
        if stats.layer == self.layer:
            self.changed.emit(What.STATS | What.SCALE)

    def forget_results(self) -> None:
        """Drop what the long work found (each layer's ranking, the knock-out losses) and cancel any
        running job: a part that needs one starts it again when next shown. Bounded caches (one
        ranking per layer), emptied so that two moments can be compared in the same state
        (tools/soak.py's checkpoints)."""
        for worker in (self.rank_worker, self.ablation_worker):
            worker.cancel()
        if self.stats or self.losses is not None:
            self.stats, self.losses = {}, None
            self.changed.emit(What.STATS | What.SCALE | What.ABLATION)

    def measure_ablation(self) -> int | None:
        """The validation loss as trained and with each layer's FFN knocked out, in the background."""
        if self.ablation_job is not None:
            return self.ablation_job
        model, windows = self.model, self.ABLATION_WINDOWS

        def work(progress, cancel):
            return ffn_ablation_losses(model, progress=progress, cancel=cancel, max_windows=windows)

        self.job_error = None
        self.ablation_job = self.ablation_worker.start(fraction_job(work))
        self.changed.emit(What.JOBS)
        return self.ablation_job

    def _measured(self, losses: dict) -> None:
        self.losses = dict(losses)
        self._job_ended(self.ablation_worker)
        self.changed.emit(What.ABLATION)

    def _failed(self, worker: Worker, text: str) -> None:
        self.job_error = text
        self.message.emit(text)
        self._job_ended(worker)

    def _job_ended(self, worker: Worker) -> None:
        if worker is self.rank_worker:
            self.rank_job = None
        else:
            self.ablation_job = None
        self.changed.emit(What.JOBS)

    def stop(self) -> None:
        """Cancel the background work (the panel is going away) and wait briefly for it."""
        for worker in (self.rank_worker, self.ablation_worker):
            worker.cancel()
        for worker in (self.rank_worker, self.ablation_worker):
            worker.wait(5000)

    # --- the explorer -------------------------------------------------------------------------
    def is_linked(self) -> bool:
        """Whether the Session still holds the layer this lab opened (maybe edited), with that
        layer's block options: with others (attention off, another d_ff or activation) its block
        is not a layer of this model, which then runs as trained (options_changed)."""
        return self.holds_link() and self.session.config == self.link.scenario.config

    def holds_link(self) -> bool:
        """Whether the Session still holds the block this lab opened, whatever its options now."""
        return self.link is not None and self.session.loaded is self.link.scenario     # None once let go

    def options_changed(self) -> bool:
        """The Session holds the layer this lab opened, but the learner changed its block options
        there: the model runs as trained until they are set back (Undo)."""
        return self.holds_link() and self.session.config != self.link.scenario.config

    def _weights_facts(self) -> tuple[tuple[str, ...], frozenset[int]]:
        """(changed weight names, knocked-out neurons) of the explorer's layer, computed once per
        state of the Session (each edit makes a new weights dict)."""
        weights = self.session.state.weights
        if self._facts_for is not weights:
            original = self.model.layers[self.link.layer]
            self._facts = (lab.changed_weights(weights, original), lab.zeroed_neurons(weights))
            self._facts_for = weights
        return self._facts

    def explorer_weights(self) -> dict | None:
        """The weights of the layer open in the explorer, if the learner changed them."""
        if not self.is_linked():
            return None
        return self.session.state.weights if self._weights_facts()[0] else None

    def explorer_changes(self) -> tuple[str, ...]:
        """The weights the learner edited (or knocked out) in the explorer."""
        return self._weights_facts()[0] if self.is_linked() else ()

    def inputs_edited(self) -> bool:
        return self.is_linked() and not np.array_equal(self.session.state.inputs, self.link.scenario.inputs)

    def link_is_stale(self) -> bool:
        """The explorer shows the layer for another text than the one on screen."""
        return (self.is_linked() and self.base is not None
                and (self.link.chars != self.base.chars or self.link.offset != self.base.position_offset))

    def open_in_explorer(self, layer: int) -> bool:
        """Load layer `layer` as the explorer's block, for the text on screen. Knock-outs the lab
        holds in that layer move into the block (the explorer then shows them); if this layer is
        open already, the learner's edits to its weights are kept."""
        if self.base is None:
            self.message.emit(self.tr("Type some text first: the explorer needs at least one character."))
            return False
        kept = self.session.state.weights if self.is_linked() and self.link.layer == layer else None
        scenario = lab.layer_scenario(self.model, self.base, layer)
        moving = sorted(n for l, n in self.lab_off if l == layer)
        weights = dict(kept) if kept is not None else dict(scenario.weights)
        if moving:
            weights = lab.knock_out(weights, moving)
        state = None
        if kept is not None or moving:
            state = State(scenario.config, scenario.inputs, weights, None)
        previous = self.link
        self.link = Link(layer, weakref.ref(scenario), tuple(self.base.chars), self.base.position_offset)
        try:
            self.session.load(scenario, state)
        except (MemoryError, ValueError) as error:
            self.link = previous
            self.message.emit(self.tr("Cannot open this layer in the explorer: %1").replace("%1", str(error)))
            return False
        self.lab_off -= {(layer, n) for n in moving}
        self._rerun()
        self.changed.emit(What.LINK | What.RUN)
        return True

    def session_changed(self, change: Change) -> None:
        """The Session changed (heard by the panel): follow the layer open in the explorer."""
        if self.link is None or not change & (Change.TRACE | Change.LOADED):
            return
        if not self.is_linked():
            # Another block was loaded (a lesson step, a file), or the block's options changed: the
            # model runs as trained again.
            # The link is kept: if that very block comes back (a step's kept edits), so does it.
            # The facts of its weights are computed again then (not kept: they would hold them).
            self._facts_for, self._facts = None, ((), frozenset())
            self._rerun()
            self.changed.emit(What.LINK | What.RUN)
            return
        if self.session.state.weights is not self._applied or change & Change.LOADED:
            self._rerun()
            self.changed.emit(What.LINK | What.RUN)

    # --- knock-outs -------------------------------------------------------------------------
    def ablation(self) -> Ablation:
        """Every knock-out in effect: the lab's, and those in the layer open in the explorer."""
        off = set(self.lab_off)
        if self.is_linked():
            off |= {(self.link.layer, n) for n in self._weights_facts()[1]}
        return Ablation(neurons_off=frozenset(off))

    def knocked_out(self) -> list[tuple[int, int, bool]]:
        """(layer, neuron, in_explorer) for every knocked-out neuron, in order."""
        explorer = set()
        if self.is_linked():
            explorer = {(self.link.layer, n) for n in self._weights_facts()[1]}
        return sorted([(l, n, False) for l, n in self.lab_off - explorer] + [(l, n, True) for l, n in explorer])

    def knock_out(self, layer: int, neuron: int) -> None:
        """Knock a neuron out: in the explorer's block (one undo step there) if its layer is open
        there, else in the lab."""
        if not (0 <= layer < self.config.n_layers and 0 <= neuron < self.config.d_ff):
            return
        if self.is_linked() and layer == self.link.layer:
            s = self.session.state
            weights = lab.knock_out(s.weights, [neuron])
            self.session.push_state(State(s.config, s.inputs, weights, s.targets),
                                    self.tr("Knock out hidden unit %1").replace("%1", str(neuron)))
            return                                   # the Session's notification reruns the model
        if (layer, neuron) not in self.lab_off:
            self.lab_off.add((layer, neuron))
            self._rerun()
            self.changed.emit(What.LINK | What.RUN)

    def restore(self, layer: int, neuron: int) -> None:
        if (layer, neuron) in self.lab_off:
            self.lab_off.discard((layer, neuron))
            self._rerun()
            self.changed.emit(What.LINK | What.RUN)
        elif self.is_linked() and layer == self.link.layer:
            s = self.session.state
            weights = lab.restore(s.weights, self.model.layers[layer], [neuron])
            self.session.push_state(State(s.config, s.inputs, weights, s.targets),
                                    self.tr("Restore hidden unit %1").replace("%1", str(neuron)))

    def restore_all(self) -> None:
        explorer = [n for l, n, inside in self.knocked_out() if inside]
        if explorer:
            s = self.session.state
            weights = lab.restore(s.weights, self.model.layers[self.link.layer], explorer)
            self.session.push_state(State(s.config, s.inputs, weights, s.targets), self.tr("Restore every hidden unit"))
        if self.lab_off:
            self.lab_off.clear()
            self._rerun()
            self.changed.emit(What.LINK | What.RUN)
