"""The trained-model lab's logic: which text is on screen, which neurons to show, the ablation
table, and the link between the model and one of its layers opened in the explorer.

Pure NumPy on top of `core.model` (the forward pass and the long computations live there);
no Qt. The app package `app/labs/model/` draws what these functions return.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.block import Trace
from core.formats.scenario import Scenario
from core.model import (Ablation, Model, ModelTrace, NeuronStats, NO_ABLATION, Snippet, TextRun, random_neurons,
                        softmax_row, top_snippets)

ABLATION_FILE = Path(__file__).resolve().parents[2] / "resources" / "models" / "ablation.json"

# What the lab shows first: layer 2 (the seed's `blocks.2`), neuron #303 (lights on surnames in
# poem titles, e.g. 裴 in "送裴圖南") and the validation page where it peaks.
DEFAULT_LAYER = 2
DEFAULT_NEURON = 303
DEFAULT_PAGE = 42
TOP_K = 5                 # neurons ranked by maximum activation
RANDOM_K = 3              # the control group, drawn by a fixed seed from the rest
RANDOM_SEED = 0
SNIPPETS = 5
SNIPPET_RADIUS = 6


# ------------------------------------------------------------------------------- text windows

@dataclass(frozen=True)
class Window:
    """Which characters of a text the model reads: text[start:end] (at most n_ctx of them)."""
    length: int               # characters in the whole text
    start: int
    end: int
    n_ctx: int

    @property
    def truncated(self) -> bool:
        return self.start > 0

    def __len__(self) -> int:
        return self.end - self.start


def window_of(length: int, n_ctx: int) -> Window:
    """The model reads the last n_ctx characters of a longer text (as `Model.run_text` does)."""
    if length < 0 or n_ctx < 1:
        raise ValueError("expected a length ≥ 0 and a context of at least 1")
    start = max(0, length - n_ctx)
    return Window(length, start, length, n_ctx)


def page_count(length: int, size: int) -> int:
    """Pages of `size` characters in a text of `length` (the last one may be shorter)."""
    return max(1, math.ceil(length / size))


def page_bounds(length: int, page: int, size: int) -> tuple[int, int]:
    """text[start:end] of page `page` (clamped to the pages that exist). Page k is the model's
    k-th window of the validation text, so positions match `neuron_stats`."""
    page = max(0, min(int(page), page_count(length, size) - 1))
    return page * size, min(length, (page + 1) * size)


def page_of(position: int, size: int) -> int:
    return max(0, int(position)) // size


def default_view(model: Model) -> tuple[int, int, int]:
    """(layer, neuron, page) to show first, clamped to the model at hand."""
    c = model.config
    layer = min(DEFAULT_LAYER, c.n_layers - 1)
    neuron = DEFAULT_NEURON if DEFAULT_NEURON < c.d_ff else 0
    page = min(DEFAULT_PAGE, page_count(len(model.val_ids), c.n_ctx) - 1)
    return layer, neuron, page


# --------------------------------------------------------------------------- running text

@dataclass(frozen=True)
class TextView:
    """One text through the model: which part is read, which characters are unknown, the trace
    (KEPT_HOOKS of each layer and the last position's logits)."""
    text: str
    window: Window
    run: TextRun

    @property
    def trace(self) -> ModelTrace:
        return self.run.trace

    @property
    def chars(self) -> tuple[str, ...]:
        """The characters the model reads (the window)."""
        return self.run.tokens.chars[self.window.start:self.window.end]

    @property
    def unknown(self) -> tuple[int, ...]:
        """Positions inside the window whose character is outside the vocabulary."""
        start, end = self.window.start, self.window.end
        return tuple(p - start for p in self.run.tokens.unknown if start <= p < end)

    @property
    def position_offset(self) -> int:
        """The absolute position of the window's first character (its rotary positions)."""
        return self.trace.position_offset


# What the lab keeps of a run: the stream into each layer (a layer opened in the explorer), its
# hidden units (the maps, the tables), the stream out of it (the next layer's input when a run goes
# on from a layer) and the last position's logits (the next character: all the lab predicts). The other
# ~20 hooks of every layer, and the other positions' logits, are dropped when the run is
# made: a page of 128 characters is 31 MB with every hook and 5 MB with these, and the lab holds a
# run as long as it shows it (two when a knock-out or an edit changes it).
KEPT_HOOKS = ("hook_resid_pre", "mlp.hook_post", "hook_resid_post")


def _kept(trace: ModelTrace, given: Trace | None = None) -> ModelTrace:
    """`trace` with KEPT_HOOKS of each layer (`given`, a layer computed elsewhere, is kept whole:
    its owner holds it anyway) and the last position's logits, (1, vocab). Layers already kept are the
    same objects."""
    blocks = [block if block is given or tuple(block) == KEPT_HOOKS
              else Trace({name: block[name] for name in KEPT_HOOKS}, block.position_offset)
              for block in trace.blocks]
    return ModelTrace(trace.ids, trace.position_offset, trace.embed, blocks,
                      {"hook_logits": trace.logits[-1:].copy()}, trace.ablation)


def run_text(model: Model, text: str, *, ablation: Ablation = NO_ABLATION, position_offset: int | None = None,
             layer_weights: Mapping[int, Mapping[str, np.ndarray]] | None = None) -> TextView:
    """Any text (at least one character) through the model, with knock-outs and replaced layer
    weights. Longer than the context: the last n_ctx characters are read. `position_offset`
    places a short text at absolute positions (a page of the validation text)."""
    if not text:
        raise ValueError("expected at least one character")
    model = with_layers(model, layer_weights)
    tokens = model.tokenize(text)
    window = window_of(len(tokens), model.config.n_ctx)
    offset = window.start if position_offset is None else int(position_offset)
    trace = _kept(model.forward(tokens.ids[window.start:], ablation=ablation, position_offset=offset))
    return TextView(text, window, TextRun(tokens, window.start, trace))


def with_layers(model: Model, layer_weights: Mapping[int, Mapping[str, np.ndarray]] | None) -> Model:
    for layer, weights in (layer_weights or {}).items():
        model = model.with_layer_weights(layer, weights)
    return model


def rerun(model: Model, base: TextView, *, ablation: Ablation = NO_ABLATION,
          layer_weights: Mapping[int, Mapping[str, np.ndarray]] | None = None) -> TextView:
    """The same text with other knock-outs or layer weights, recomputing only from the first
    layer they touch: `base` must be the run of the model as trained (no knock-outs, no edits),
    whose layers below that one are reused."""
    touched = set(layer_weights or {})
    if ablation.first_layer is not None:
        touched.add(ablation.first_layer)
    if not touched:
        return base
    start = min(touched)
    edited = with_layers(model, layer_weights)
    trace = _kept(edited.forward(base.trace.ids, ablation=ablation, position_offset=base.trace.position_offset,
                                 start_layer=start, cache=base.trace))
    return TextView(base.text, base.window, TextRun(base.run.tokens, base.run.offset, trace))


def continue_run(model: Model, base: TextView, layer: int, layer_trace, *,
                 ablation: Ablation = NO_ABLATION) -> TextView:
    """The model with layer `layer` replaced by a block already computed elsewhere (`layer_trace`:
    the explorer's trace of that layer, on the same tokens and inputs): layers below are reused
    from `base`, layer `layer` is taken as given, and only the layers above it (with `ablation`,
    which must not touch the layers below) are recomputed. Same result as `rerun` with that
    layer's weights, without computing the layer a second time."""
    if ablation.first_layer is not None and ablation.first_layer < layer:
        raise ValueError("continue_run: a knock-out below the given layer changes that layer's input")
    if np.asarray(layer_trace["hook_resid_pre"]).shape != base.trace.blocks[layer]["hook_resid_pre"].shape:
        raise ValueError("continue_run: the given layer ran on other tokens")
    t = base.trace
    cache = ModelTrace(t.ids, t.position_offset, t.embed, [*t.blocks[:layer], layer_trace], {}, NO_ABLATION)
    trace = _kept(model.forward(t.ids, ablation=ablation, position_offset=t.position_offset, start_layer=layer + 1,
                                cache=cache), given=layer_trace)
    return TextView(base.text, base.window, TextRun(base.run.tokens, base.run.offset, trace))


def hidden_units(view: TextView, layer: int) -> np.ndarray:
    """(T, d_ff): layer's FFN hidden units (`mlp.hook_post`) at every character of the window."""
    return np.asarray(view.trace.blocks[layer]["mlp.hook_post"])


def colour_limit(values: np.ndarray) -> float:
    """A symmetric colour scale ±limit for activations: their largest magnitude, rounded up to
    a whole number (at least 1)."""
    values = np.asarray(values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    biggest = float(np.max(np.abs(finite))) if finite.size else 0.0
    return float(max(1.0, math.ceil(biggest)))


def peak_index(values: np.ndarray) -> int | None:
    """Where a neuron is largest on the text (the character a step talks about), None if no
    value is finite. Ties go to the first."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if not finite.any():
        return None
    return int(np.argmax(np.where(finite, values, -np.inf)))


def predictions(model: Model, view: TextView, k: int = 5) -> list[tuple[str, float]]:
    """The k most likely next characters after the window's last character."""
    return model.predictions(view.trace, position=-1, k=k)


def probabilities(model: Model, view: TextView, chars: Sequence[str]) -> list[float]:
    """The probability of each of these vocabulary characters coming next (after the window)."""
    probs = softmax_row(view.trace.logits[-1])
    index = {ch: i for i, ch in enumerate(model.vocab)}
    return [float(probs[index[ch]]) for ch in chars]


# --------------------------------------------------------------------------- neuron groups

@dataclass(frozen=True)
class Groups:
    """The neurons the lab puts side by side: the top of the ranking and a random control group."""
    top: tuple[int, ...]
    random: tuple[int, ...]
    seed: int

    def rows(self) -> tuple[int, ...]:
        return self.top + self.random


def groups(stats: NeuronStats, top_k: int = TOP_K, random_k: int = RANDOM_K, seed: int = RANDOM_SEED) -> Groups:
    """The top_k neurons by maximum activation, and random_k others drawn by `seed` (seed 0
    draws the control group resources/models/README.md describes)."""
    top = tuple(int(n) for n in stats.ranked(top_k))
    drawn = random_neurons(len(stats.max_activation), random_k, seed=seed, exclude=top)
    return Groups(top, tuple(int(n) for n in drawn), int(seed))


@dataclass(frozen=True)
class SnippetView:
    """One top-activating snippet: its characters and the neuron's value at each."""
    snippet: Snippet
    chars: tuple[str, ...]
    values: np.ndarray
    peak: int                  # index of the peak character inside chars


@dataclass(frozen=True)
class RankedLayer:
    """What the lab keeps of a layer's ranking: each neuron's maximum, where it is, and its
    SNIPPETS snippets (SNIPPET_RADIUS) with the neuron's value at each of their characters — not
    the characters × neurons activations they come from, which take 50 MB a layer even as float16
    (200 MB for the shipped model's four layers). About 1 MB a layer."""
    layer: int
    chars: int                                      # characters ranked
    max_activation: np.ndarray                      # (F,)
    argmax: np.ndarray                              # (F,)
    snippets: tuple[tuple[Snippet, ...], ...]       # per neuron, best first
    values: np.ndarray                              # (F, SNIPPETS, 2·SNIPPET_RADIUS + 1): snippet i of a neuron
                                                    # is values[neuron, i, :end - start]

    def ranked(self, k: int | None = None) -> np.ndarray:
        """Neuron indices by maximum activation, highest first (ties: lower index first)."""
        order = np.argsort(-self.max_activation, kind="stable")
        return order if k is None else order[:k]


def ranked_layer(model: Model, stats: NeuronStats, ids: np.ndarray | None = None) -> RankedLayer:
    """The ranking of a layer over `ids` (default: the validation text) as the lab keeps it: every
    neuron's snippets found now (about a second for 688 neurons), then the activations dropped."""
    ids = np.asarray(model.val_ids if ids is None else ids)[:len(stats.activations)]
    neurons = stats.activations.shape[1]
    values = np.full((neurons, SNIPPETS, 2 * SNIPPET_RADIUS + 1), np.nan)
    found = []
    for neuron in range(neurons):
        views = snippets(model, stats, neuron, ids=ids)
        for i, view in enumerate(views):
            values[neuron, i, :len(view.values)] = view.values
        found.append(tuple(view.snippet for view in views))
    return RankedLayer(stats.layer, len(stats.activations), np.asarray(stats.max_activation),
                       np.asarray(stats.argmax), tuple(found), values)


def snippets(model: Model, stats: NeuronStats | RankedLayer, neuron: int, k: int = SNIPPETS,
             radius: int = SNIPPET_RADIUS, ids: np.ndarray | None = None) -> list[SnippetView]:
    """The places where `neuron` fires most over the ranked text, with the value at every character
    (a RankedLayer has them for the lab's k and radius only)."""
    if isinstance(stats, RankedLayer):
        if (k, radius) != (SNIPPETS, SNIPPET_RADIUS):
            raise ValueError(f"a ranked layer keeps {SNIPPETS} snippets of radius {SNIPPET_RADIUS}")
        return [SnippetView(snippet, tuple(snippet.text), stats.values[neuron, i, :snippet.end - snippet.start].copy(),
                            snippet.position - snippet.start)
                for i, snippet in enumerate(stats.snippets[neuron])]
    ids = np.asarray(model.val_ids if ids is None else ids)
    column = stats.activations[:, neuron]
    found = []
    for snippet in top_snippets(model, stats, neuron, ids, k=k, radius=radius):
        values = np.array(column[snippet.start:snippet.end], dtype=np.float64)     # a copy: no view of the activations
        found.append(SnippetView(snippet, tuple(snippet.text), values, snippet.position - snippet.start))
    return found


def heat_rows(units: np.ndarray, neurons: Sequence[int] | None = None) -> np.ndarray:
    """(rows, T): the hidden units as neurons × positions (all neurons, or the given ones)."""
    units = np.asarray(units, dtype=np.float64)
    chosen = units if neurons is None else units[:, list(neurons)]
    return np.ascontiguousarray(chosen.T)


# ----------------------------------------------------------------- a layer in the explorer

def layer_title(layer: int) -> dict[str, str]:
    return {"zh": f"训练好的小模型 · 第 {layer} 层（blocks.{layer}）的真实权重",
            "en": f"The trained model · layer {layer} (blocks.{layer}) with its real weights"}


def layer_scenario(model: Model, view: TextView, layer: int, weights: Mapping[str, np.ndarray] | None = None) -> Scenario:
    """Layer `layer` as a block for the explorer: the model's block config, the layer's weights
    (or `weights`), its input (the stream entering it, `hook_resid_pre`) and the window's
    characters as tokens."""
    if not 0 <= layer < model.config.n_layers:
        raise ValueError(f"layer: expected 0 … {model.config.n_layers - 1}, got {layer}")
    inputs = np.array(view.trace.blocks[layer]["hook_resid_pre"], dtype=np.float64)
    chosen = model.layer_weights(layer) if weights is None else {k: np.array(v) for k, v in weights.items()}
    return Scenario(model.block_config, tuple(view.chars), inputs, chosen, None, layer_title(layer))


def zeroed_neurons(weights: Mapping[str, np.ndarray]) -> frozenset[int]:
    """Hidden units knocked out by their weights: W_in, W_gate columns and W_out row all zero."""
    dead = np.all(weights["W_in"] == 0, axis=0) & np.all(weights["W_out"] == 0, axis=1)
    if "W_gate" in weights:
        dead &= np.all(weights["W_gate"] == 0, axis=0)
    return frozenset(int(n) for n in np.flatnonzero(dead))


def knock_out(weights: Mapping[str, np.ndarray], neurons: Sequence[int]) -> dict[str, np.ndarray]:
    """Weights with these hidden units knocked out (what `Ablation(neurons_off=…)` does to a
    layer): their W_in and W_gate columns and W_out rows set to 0. Other arrays are shared."""
    out = dict(weights)
    neurons = list(neurons)
    for name in ("W_in", "W_gate"):
        if name in out:
            out[name] = np.array(out[name], dtype=np.float64)
            out[name][:, neurons] = 0.0
    out["W_out"] = np.array(out["W_out"], dtype=np.float64)
    out["W_out"][neurons, :] = 0.0
    return out


def restore(weights: Mapping[str, np.ndarray], original: Mapping[str, np.ndarray],
            neurons: Sequence[int]) -> dict[str, np.ndarray]:
    """Weights with these hidden units' columns and rows put back from `original`."""
    out = dict(weights)
    neurons = list(neurons)
    for name in ("W_in", "W_gate"):
        if name in out:
            out[name] = np.array(out[name], dtype=np.float64)
            out[name][:, neurons] = original[name][:, neurons]
    out["W_out"] = np.array(out["W_out"], dtype=np.float64)
    out["W_out"][neurons, :] = original["W_out"][neurons, :]
    return out


def changed_weights(weights: Mapping[str, np.ndarray], original: Mapping[str, np.ndarray]) -> tuple[str, ...]:
    """Names of the weights that differ from the original (the learner's edits)."""
    return tuple(name for name in original if name in weights and not np.array_equal(weights[name], original[name]))


# ------------------------------------------------------------------------------- ablation

class AblationFileError(ValueError):
    """resources/models/ablation.json cannot be used; str() is one sentence."""


@dataclass(frozen=True)
class SeedFigure:
    """One of the seed page's published figures (per token, on a novel, d = 256)."""
    params: int
    val_loss: float
    param_difference_pct: float | None = None


@dataclass(frozen=True)
class Variant:
    """A retrained variant of our d = 128 family: 3 seeds, mean and range."""
    key: str                   # baseline_L4, no_ffn_L4, attn_only_L12
    n_layers: int
    d_model: int
    d_ff: int
    params: int
    seeds: tuple[int, ...]
    losses: tuple[float, ...]
    mean: float
    range: float
    param_difference_pct: float
    seed_key: str              # its counterpart on the seed page


@dataclass(frozen=True)
class AblationReport:
    seed_figures: dict[str, SeedFigure]     # baseline, no_ffn, attn_only_12
    seed_rerun_runs: int
    seed_rerun_range: float
    params_d256: dict[str, int]             # our architecture at the seed's size
    shipped_params: int
    shipped_val_loss: float                 # as recorded by the training run (NumPy, float16 weights)
    recorded_knockouts: dict[str, float]    # the knock-outs as recorded when the file was written
    variants: tuple[Variant, ...]

    @property
    def noise_floor(self) -> tuple[float, float]:
        """Our run-to-run spread: the smallest and largest range over 3 seeds."""
        ranges = [v.range for v in self.variants]
        return min(ranges), max(ranges)


VARIANT_KEYS = (("baseline_L4", "baseline"), ("no_ffn_L4", "no_ffn"), ("attn_only_L12", "attn_only_12"))


def read_ablation(path: str | Path = ABLATION_FILE) -> AblationReport:
    """The ablation figures written by tools/ablation_report.py; AblationFileError if the file is
    missing or does not hold what the lab shows."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AblationFileError(f"{path.name}: cannot be read ({error})") from None
    if not isinstance(document, dict) or document.get("format") != "blocklab-ablation":
        raise AblationFileError(f"{path.name}: not a blocklab-ablation file")

    def get(where: str):
        node = document
        for key in where.split("."):
            if not isinstance(node, dict) or key not in node:
                raise AblationFileError(f"{path.name}: {where} is missing")
            node = node[key]
        return node

    def number(where: str, whole: bool = False) -> float:
        value = get(where)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise AblationFileError(f"{path.name}: {where}: expected a number")
        if whole and value != int(value):
            raise AblationFileError(f"{path.name}: {where}: expected a whole number")
        return int(value) if whole else float(value)

    seed = {key: SeedFigure(number(f"seed_page.{key}.params", True), number(f"seed_page.{key}.val_loss"),
                            number(f"seed_page.{key}.param_difference_pct")
                            if "param_difference_pct" in get(f"seed_page.{key}") else None)
            for key in ("baseline", "no_ffn", "attn_only_12")}
    variants = []
    for key, seed_key in VARIANT_KEYS:
        where = f"ablation_family.{key}"
        losses = get(f"{where}.val_losses")
        seeds = get(f"{where}.seeds")
        if (not isinstance(losses, list) or not isinstance(seeds, list) or len(losses) != len(seeds) or not losses
                or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in losses)):
            raise AblationFileError(f"{path.name}: {where}.val_losses: expected one loss per seed")
        variants.append(Variant(key, number(f"{where}.n_layers", True), number(f"{where}.d_model", True),
                                number(f"{where}.d_ff", True), number(f"{where}.params", True),
                                tuple(int(s) for s in seeds), tuple(float(v) for v in losses),
                                float(np.mean(losses)), float(np.ptp(losses)),
                                number(f"{where}.param_difference_vs_baseline_pct"), seed_key))
    knockouts = get("shipped_model.inference_ffn_knockouts_numpy")
    if not isinstance(knockouts, dict):
        raise AblationFileError(f"{path.name}: shipped_model.inference_ffn_knockouts_numpy: expected a table")
    return AblationReport(
        seed_figures=seed, seed_rerun_runs=number("seed_page.rerun_spread.runs", True),
        seed_rerun_range=number("seed_page.rerun_spread.range"),
        params_d256={key: number(f"parameter_counts_d256.{key}", True) for key in ("baseline", "no_ffn", "attn_only_12")},
        shipped_params=number("shipped_model.params", True),
        shipped_val_loss=number("shipped_model.val_loss_float16_weights"),
        recorded_knockouts={str(k): float(v) for k, v in knockouts.items()},
        variants=tuple(variants))


@dataclass(frozen=True)
class KnockoutRow:
    key: str                   # "baseline", "ffn_off.0", …, "ffn_off.all"
    layer: int | None          # the layer whose FFN is removed (None: baseline or every layer)
    loss: float | None         # measured by the app (None until measured)
    delta: float | None        # loss − baseline


def knockout_keys(n_layers: int) -> tuple[str, ...]:
    return ("baseline", *(f"ffn_off.{i}" for i in range(n_layers)), "ffn_off.all")


def knockout_rows(n_layers: int, losses: Mapping[str, float] | None = None) -> list[KnockoutRow]:
    """The live rows of the ablation table: the shipped model as trained and with each layer's
    FFN (then every FFN) removed at inference, with the increase over the baseline."""
    losses = losses or {}
    base = losses.get("baseline")
    rows = []
    for key in knockout_keys(n_layers):
        loss = losses.get(key)
        layer = int(key.rsplit(".", 1)[1]) if key.startswith("ffn_off.") and key[-1].isdigit() else None
        delta = None if loss is None or base is None else loss - base
        rows.append(KnockoutRow(key, layer, loss, delta))
    return rows


def percent(part: float, whole: float) -> float:
    """(part − whole) / whole in percent."""
    return (part - whole) / whole * 100.0


@dataclass(frozen=True)
class Comparison:
    """One retrained variant beside the seed's: the increase in loss over each one's baseline."""
    key: str
    ours_delta: float                       # our mean minus our baseline's mean
    ours_seed_deltas: tuple[float, ...]     # per seed: variant seed s minus baseline seed s
    seed_delta: float                       # the seed page's variant minus its baseline


def comparisons(report: AblationReport) -> list[Comparison]:
    """The no-FFN and attention-only variants as increases over their own baseline, ours and the
    seed's (absolute losses are not comparable: per character on poems vs per token on a novel)."""
    base = report.variants[0]
    seed_base = report.seed_figures["baseline"].val_loss
    out = []
    for variant in report.variants[1:]:
        per_seed = tuple(v - b for v, b in zip(variant.losses, base.losses))
        out.append(Comparison(variant.key, variant.mean - base.mean, per_seed,
                              report.seed_figures[variant.seed_key].val_loss - seed_base))
    return out

