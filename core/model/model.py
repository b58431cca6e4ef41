"""The small trained model: a stack of Block Lab blocks with tied character embeddings.

Each layer is run by `core.block.forward` (pre-RMSNorm, causal attention with rotary
positions, SwiGLU FFN, zero biases): this module adds only the embedding lookup, the
final RMSNorm and the unembedding, so what the explorer shows for one block is exactly
what the model computes. The file format is written by tools/train_model.py; see
resources/models/README.md.

Hook names: `hook_embed`, then `blocks.{i}.<hook>` for every hook of layer i's trace
(DESIGN.md's names), then `ln_final.hook_in/hook_scale/hook_normalized/hook_out` and
`hook_logits` (T×vocab) — TransformerLens' names.
"""
from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..block import Trace, forward as block_forward
from ..config import MAX_DIM, BlockConfig, ConfigError, weight_shapes
from ..functions import rms_norm_parts

FORMAT = "blocklab-model"
FORMAT_VERSION = 1
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_UNPACKED_BYTES = 256 * 1024 * 1024
MAX_LAYERS = 64
MAX_VOCAB = 65_536
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "resources" / "models" / "baseline.npz"

Progress = Callable[[int, int], None]      # (done, total)
Cancel = Callable[[], bool]                # True: stop as soon as possible


class ModelError(ValueError):
    """A model file that cannot be used; str() is one sentence saying what is wrong."""


class Cancelled(Exception):
    """A long computation was stopped by its cancel callback."""


# ------------------------------------------------------------------------- config

@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int
    n_layers: int
    d_model: int
    n_heads: int
    d_head: int
    d_ff: int
    n_ctx: int                      # the context length the model was trained on
    eps: float = 1e-5
    rotary_base: float = 10000.0
    unk_id: int = 0

    def block_config(self) -> BlockConfig:
        """The configuration of every layer, in the block engine's terms."""
        return BlockConfig(d_model=self.d_model, d_ff=self.d_ff, n_heads=self.n_heads, d_head=self.d_head,
                           attention=True, mask="causal", residual=True, norm="rmsnorm",
                           norm_placement="pre", eps=self.eps, activation="silu", gated=True,
                           positional="rotary", rotary_base=self.rotary_base)

    @property
    def n_params(self) -> int:
        """Trainable parameters (no biases; the tied unembedding counted once)."""
        return count_parameters(self.vocab_size, self.n_layers, self.d_model, self.n_heads, self.d_head,
                                self.d_ff)


def count_parameters(vocab_size: int, n_layers: int, d_model: int, n_heads: int, d_head: int,
                     d_ff: int) -> int:
    """n_layers × (attention 4·d·H·dh + SwiGLU 3·d·F + norms) + final norm + tied embedding.
    d_ff = 0 is a layer without FFN and without its norm."""
    attention = 4 * d_model * n_heads * d_head + d_model
    ffn = 3 * d_model * d_ff + d_model if d_ff else 0
    return n_layers * (attention + ffn) + d_model + vocab_size * d_model


# ------------------------------------------------------------------------ ablation

@dataclass(frozen=True)
class Ablation:
    """What to knock out at inference. ffn_off: layers whose FFN output is removed
    (hook_mlp_out = 0; the hidden units still show what they would have done).
    neurons_off: (layer, neuron) pairs whose hidden unit is zeroed (pre, gate and post are
    0 there, so it contributes nothing)."""
    ffn_off: frozenset[int] = frozenset()
    neurons_off: frozenset[tuple[int, int]] = frozenset()

    def touches(self, layer: int) -> bool:
        return layer in self.ffn_off or any(l == layer for l, _ in self.neurons_off)

    @property
    def first_layer(self) -> int | None:
        layers = set(self.ffn_off) | {l for l, _ in self.neurons_off}
        return min(layers) if layers else None


NO_ABLATION = Ablation()


# --------------------------------------------------------------------------- tokens

@dataclass(frozen=True)
class Tokens:
    chars: tuple[str, ...]          # the text, one character per token
    ids: np.ndarray                 # (T,) int64
    unknown: tuple[int, ...]        # positions whose character is not in the vocabulary (id unk_id)

    def __len__(self) -> int:
        return len(self.chars)


# ---------------------------------------------------------------------------- trace

class ModelTrace(Mapping[str, np.ndarray]):
    """Every intermediate of one forward pass over one window of at most n_ctx tokens.

    `blocks[i]` is layer i's block Trace (the explorer's own object); the mapping view
    names its hooks `blocks.{i}.<hook>`. Read-only arrays."""

    def __init__(self, ids: np.ndarray, position_offset: int, embed: np.ndarray, blocks: Sequence[Trace],
                 final: dict[str, np.ndarray], ablation: Ablation):
        embed.setflags(write=False)
        for array in final.values():
            array.setflags(write=False)
        self.ids = ids
        self.position_offset = position_offset
        self.embed = embed
        self.blocks = tuple(blocks)
        self.final = final
        self.ablation = ablation

    @property
    def logits(self) -> np.ndarray:
        return self.final["hook_logits"]

    def _names(self) -> Iterator[str]:
        yield "hook_embed"
        for i, block in enumerate(self.blocks):
            for name in block:
                yield f"blocks.{i}.{name}"
        yield from self.final

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "hook_embed":
            return self.embed
        if name.startswith("blocks."):
            _, layer, hook = name.split(".", 2)
            if layer.isdigit() and int(layer) < len(self.blocks) and hook in self.blocks[int(layer)]:
                return self.blocks[int(layer)][hook]
            raise KeyError(name)
        return self.final[name]

    def __iter__(self) -> Iterator[str]:
        return self._names()

    def __len__(self) -> int:
        return 1 + sum(len(b) for b in self.blocks) + len(self.final)


# ---------------------------------------------------------------------------- model

@dataclass(frozen=True, eq=False)
class Model:
    config: ModelConfig
    vocab: tuple[str, ...]
    W_E: np.ndarray                                   # (vocab, d) float64
    layers: tuple[dict[str, np.ndarray], ...]         # block-engine weights per layer (zero biases)
    ln_final_w: np.ndarray                            # (d,)
    val_ids: np.ndarray                               # (N,) int64: the shipped validation text
    reference_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    reference_logits: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    meta: dict = field(default_factory=dict)
    name: str = "model"

    # -------------------------------------------------------------- tokens
    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {ch: i for i, ch in enumerate(self.vocab) if i != self.config.unk_id})

    def tokenize(self, text: str) -> Tokens:
        """One token per character; characters outside the vocabulary become unk_id."""
        index, unk = self._index, self.config.unk_id
        ids = np.fromiter((index.get(ch, unk) for ch in text), dtype=np.int64, count=len(text))
        unknown = tuple(i for i, ch in enumerate(text) if ch not in index)
        return Tokens(tuple(text), ids, unknown)

    def decode(self, ids: Sequence[int] | np.ndarray) -> str:
        return "".join(self.vocab[int(i)] for i in ids)

    @property
    def val_text(self) -> str:
        return self.decode(self.val_ids)

    # -------------------------------------------------------------- weights
    @property
    def block_config(self) -> BlockConfig:
        return self.config.block_config()

    def layer_weights(self, layer: int) -> dict[str, np.ndarray]:
        """Copies of layer i's weights under the block engine's names (biases are zeros)."""
        return {name: value.copy() for name, value in self.layers[layer].items()}

    def with_layer_weights(self, layer: int, weights: Mapping[str, np.ndarray]) -> "Model":
        """A model whose layer i has these weights (e.g. after an edit in the explorer); the
        other layers are shared. Shapes are checked against the block config."""
        shapes = weight_shapes(self.block_config)
        if set(weights) != set(shapes):
            extra = sorted(set(weights) ^ set(shapes))
            raise ModelError(f"blocks.{layer}.{extra[0]}: expected exactly the weights {', '.join(shapes)}")
        new = {}
        for name, shape in shapes.items():
            value = np.array(weights[name], dtype=np.float64)
            if value.shape != shape or not np.all(np.isfinite(value)):
                raise ModelError(f"blocks.{layer}.{name}: expected {_shape(shape)} finite numbers, "
                                 f"got {_shape(value.shape)}")
            new[name] = value
        layers = list(self.layers)
        layers[layer] = new
        return Model(self.config, self.vocab, self.W_E, tuple(layers), self.ln_final_w, self.val_ids,
                     self.reference_ids, self.reference_logits, self.meta, self.name)

    def _effective_weights(self, layer: int, ablation: Ablation) -> Mapping[str, np.ndarray]:
        weights = self.layers[layer]
        if not ablation.touches(layer):
            return weights
        weights = dict(weights)
        if layer in ablation.ffn_off:
            weights["W_out"] = np.zeros_like(weights["W_out"])
        neurons = [n for l, n in ablation.neurons_off if l == layer]
        if neurons:
            for name in ("W_in", "W_gate"):
                weights[name] = weights[name].copy()
                weights[name][:, neurons] = 0.0
            weights["W_out"] = weights["W_out"].copy()
            weights["W_out"][neurons, :] = 0.0
        return weights

    # -------------------------------------------------------------- forward
    def forward(self, ids: Sequence[int] | np.ndarray, *, ablation: Ablation = NO_ABLATION,
                position_offset: int = 0, start_layer: int = 0, cache: ModelTrace | None = None) -> ModelTrace:
        """Run at most n_ctx token ids through the model.

        start_layer > 0 reuses `cache` (a trace of the same ids and offset) for layers
        0 … start_layer−1 and recomputes layers start_layer … end: after an edit (or a
        knock-out) in layer i, pass start_layer=i."""
        ids = np.asarray(ids, dtype=np.int64)
        T = len(ids)
        if ids.ndim != 1 or not 1 <= T <= self.config.n_ctx:
            raise ValueError(f"expected 1 to {self.config.n_ctx} token ids (the context length), got {ids.shape}")
        if ids.min() < 0 or ids.max() >= self.config.vocab_size:
            raise ValueError(f"token ids must be 0 … {self.config.vocab_size - 1}")
        if not 0 <= start_layer <= self.config.n_layers:
            raise ValueError(f"start_layer: expected 0 … {self.config.n_layers}, got {start_layer}")
        if start_layer:
            if (cache is None or not np.array_equal(cache.ids, ids) or cache.position_offset != position_offset):
                raise ValueError("start_layer > 0 needs a cached trace of the same ids and position offset")
            embed, blocks = cache.embed, list(cache.blocks[:start_layer])
        else:
            embed, blocks = self.W_E[ids], []
        x = blocks[-1].output if blocks else embed
        config = self.block_config
        for layer in range(start_layer, self.config.n_layers):
            trace = block_forward(config, self._effective_weights(layer, ablation), x, position_offset)
            blocks.append(trace)
            x = trace.output
        scale, normalized = rms_norm_parts(x, self.config.eps)
        out = normalized * self.ln_final_w
        final = {"ln_final.hook_in": x, "ln_final.hook_scale": scale, "ln_final.hook_normalized": normalized,
                 "ln_final.hook_out": out, "hook_logits": out @ self.W_E.T}
        return ModelTrace(ids, position_offset, embed, blocks, final, ablation)

    def run_text(self, text: str, *, ablation: Ablation = NO_ABLATION) -> "TextRun":
        """Tokenize any text and run its last n_ctx characters (a sliding window keeps their
        absolute positions: position_offset = len(text) − n_ctx)."""
        tokens = self.tokenize(text)
        if not len(tokens):
            raise ValueError("expected at least one character")
        offset = max(0, len(tokens) - self.config.n_ctx)
        trace = self.forward(tokens.ids[offset:], ablation=ablation, position_offset=offset)
        return TextRun(tokens, offset, trace)

    def predictions(self, trace: ModelTrace, position: int = -1, k: int = 5) -> list[tuple[str, float]]:
        """The k most likely next characters after `position`, with their probabilities."""
        probs = softmax_row(trace.logits[position])
        top = np.argsort(-probs, kind="stable")[:k]
        return [(self.vocab[i], float(probs[i])) for i in top]


@dataclass(frozen=True)
class TextRun:
    tokens: Tokens            # the whole text
    offset: int               # index of the first character in the window (0 unless the text is longer)
    trace: ModelTrace         # the window tokens[offset:]

    @property
    def truncated(self) -> bool:
        return self.offset > 0


def softmax_row(logits: np.ndarray) -> np.ndarray:
    z = np.asarray(logits, dtype=np.float64)
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    z = np.asarray(logits, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


# -------------------------------------------------------------- long computations

def _windows(n: int, size: int, step: int) -> list[int]:
    return list(range(0, max(n - 1, 0), step))


def validation_loss(model: Model, ids: np.ndarray | None = None, *, ablation: Ablation = NO_ABLATION,
                    progress: Progress | None = None, cancel: Cancel | None = None,
                    max_windows: int | None = None) -> float:
    """Mean next-character cross-entropy in nats over the validation text (or `ids`):
    non-overlapping windows of n_ctx+1 characters, each run from position 0, the first
    character context only — the definition tools/train_model.py reports.
    Raises Cancelled if cancel() turns true."""
    ids = np.asarray(model.val_ids if ids is None else ids, dtype=np.int64)
    n_ctx = model.config.n_ctx
    starts = _windows(len(ids), n_ctx + 1, n_ctx)
    if max_windows is not None:
        starts = starts[:max_windows]
    if not starts:
        raise ValueError("expected at least two characters of text")
    total, count = 0.0, 0
    for done, s in enumerate(starts):
        if cancel is not None and cancel():
            raise Cancelled()
        window = ids[s:s + n_ctx + 1]
        trace = model.forward(window[:-1], ablation=ablation)
        logp = log_softmax(trace.logits)
        total -= float(logp[np.arange(len(window) - 1), window[1:]].sum())
        count += len(window) - 1
        if progress is not None:
            progress(done + 1, len(starts))
    return total / count


def ffn_ablation_losses(model: Model, ids: np.ndarray | None = None, *, progress: Progress | None = None,
                        cancel: Cancel | None = None, max_windows: int | None = None) -> dict[str, float]:
    """Validation loss of the model as is ("baseline"), with each layer's FFN knocked out
    ("ffn_off.{i}") and with every FFN knocked out ("ffn_off.all")."""
    runs = [("baseline", NO_ABLATION)]
    runs += [(f"ffn_off.{i}", Ablation(ffn_off=frozenset({i}))) for i in range(model.config.n_layers)]
    runs.append(("ffn_off.all", Ablation(ffn_off=frozenset(range(model.config.n_layers)))))
    n_ctx = model.config.n_ctx
    n_ids = len(model.val_ids if ids is None else ids)
    per_run = len(_windows(n_ids, n_ctx + 1, n_ctx))
    if max_windows is not None:
        per_run = min(per_run, max_windows)
    results: dict[str, float] = {}
    for k, (name, ablation) in enumerate(runs):
        def sub_progress(done: int, total: int, k: int = k) -> None:
            if progress is not None:
                progress(k * per_run + done, len(runs) * per_run)
        results[name] = validation_loss(model, ids, ablation=ablation, progress=sub_progress, cancel=cancel,
                                        max_windows=max_windows)
    return results


def neuron_activations(model: Model, ids: np.ndarray, layer: int, *, ablation: Ablation = NO_ABLATION,
                       progress: Progress | None = None, cancel: Cancel | None = None) -> np.ndarray:
    """(N, F): layer's FFN hidden units (`mlp.hook_post`) at every character of ids, run in
    non-overlapping windows of n_ctx (each window keeps its absolute positions)."""
    ids = np.asarray(ids, dtype=np.int64)
    n_ctx = model.config.n_ctx
    out = np.empty((len(ids), model.config.d_ff))
    starts = list(range(0, len(ids), n_ctx))
    for done, s in enumerate(starts):
        if cancel is not None and cancel():
            raise Cancelled()
        trace = model.forward(ids[s:s + n_ctx], ablation=ablation, position_offset=s)
        out[s:s + n_ctx] = trace.blocks[layer]["mlp.hook_post"]
        if progress is not None:
            progress(done + 1, len(starts))
    return out


@dataclass(frozen=True)
class Snippet:
    position: int        # index of the character where the neuron peaks
    value: float         # its activation there
    start: int           # the snippet is text[start:end]
    end: int
    text: str


@dataclass(frozen=True)
class NeuronStats:
    layer: int
    activations: np.ndarray       # (N, F) hook_post over the text
    max_activation: np.ndarray    # (F,)
    argmax: np.ndarray            # (F,) position of each neuron's maximum

    def ranked(self, k: int | None = None) -> np.ndarray:
        """Neuron indices by maximum activation, highest first (ties: lower index first)."""
        order = np.argsort(-self.max_activation, kind="stable")
        return order if k is None else order[:k]


def neuron_stats(model: Model, ids: np.ndarray | None = None, layer: int = 2, *, ablation: Ablation = NO_ABLATION,
                 progress: Progress | None = None, cancel: Cancel | None = None) -> NeuronStats:
    """Every neuron of a layer over a text (default: the validation text)."""
    ids = np.asarray(model.val_ids if ids is None else ids, dtype=np.int64)
    acts = neuron_activations(model, ids, layer, ablation=ablation, progress=progress, cancel=cancel)
    acts.setflags(write=False)
    return NeuronStats(layer, acts, acts.max(axis=0), acts.argmax(axis=0))


def random_neurons(d_ff: int, k: int, seed: int = 0, exclude: Sequence[int] = ()) -> np.ndarray:
    """The control group: k neurons drawn without replacement by a fixed seed."""
    pool = np.setdiff1d(np.arange(d_ff), np.asarray(exclude, dtype=np.int64))
    return np.sort(np.random.default_rng(seed).choice(pool, size=min(k, len(pool)), replace=False))


def top_snippets(model: Model, stats: NeuronStats, neuron: int, ids: np.ndarray | None = None, k: int = 5,
                 radius: int = 8) -> list[Snippet]:
    """The k places where a neuron fires most, each with `radius` characters either side;
    peaks closer than radius to an already chosen one are skipped. Greedy picking needs at most
    k·(2·radius + 1) positions in order, so only the largest few are sorted (by value, then
    position, as a stable full sort orders them); the whole column is sorted when it is short or
    a tie straddles the cut."""
    ids = np.asarray(model.val_ids if ids is None else ids, dtype=np.int64)
    column = np.asarray(stats.activations[:, neuron], dtype=np.float64)
    return _pick_snippets(model, column, ids, _peaks(column, k * (2 * radius + 1)), k, radius)


def _peaks(column: np.ndarray, need: int) -> np.ndarray:
    """Positions of `column`, largest first (ties by position), at least the first `need` exact."""
    if len(column) > 4 * need:
        cut = 2 * need
        candidates = np.argpartition(-column, cut)[:cut + 1]
        order = candidates[np.lexsort((candidates, -column[candidates]))]
        if column[order[need - 1]] > column[order[-1]]:      # no tie reaches the cut
            return order[:need]
    return np.argsort(-column, kind="stable")


def _pick_snippets(model: Model, column: np.ndarray, ids: np.ndarray, order: np.ndarray, k: int,
                   radius: int) -> list[Snippet]:
    chosen: list[Snippet] = []
    for position in order:
        if len(chosen) == k:
            break
        if any(abs(int(position) - s.position) <= radius for s in chosen):
            continue
        start, end = max(0, int(position) - radius), min(len(ids), int(position) + radius + 1)
        chosen.append(Snippet(int(position), float(column[position]), start, end, model.decode(ids[start:end])))
    return chosen


# -------------------------------------------------------------------------- loading

def _shape(shape: Sequence[int]) -> str:
    return "×".join(str(n) for n in shape) if len(shape) else "a single number"


_CONFIG_KEYS = ("n_layers", "d_model", "n_heads", "d_head", "d_ff", "n_ctx", "vocab_size", "unk_id")
_OTHER_KEYS = {"format", "format_version", "vocab", "config.eps", "config.rotary_base", "val_ids",
               "reference.text", "reference.ids", "reference.logits", "meta"}


def expected_weight_shapes(config: ModelConfig) -> dict[str, tuple[int, ...]]:
    d, H, dh, F = config.d_model, config.n_heads, config.d_head, config.d_ff
    shapes: dict[str, tuple[int, ...]] = {"embed.W_E": (config.vocab_size, d)}
    for i in range(config.n_layers):
        p = f"blocks.{i}."
        shapes.update({p + "ln1.w": (d,), p + "W_Q": (H, d, dh), p + "W_K": (H, d, dh), p + "W_V": (H, d, dh),
                       p + "W_O": (H, dh, d), p + "ln2.w": (d,), p + "W_in": (d, F), p + "W_gate": (d, F),
                       p + "W_out": (F, d)})
    shapes["ln_final.w"] = (d,)
    return shapes


def load_model(path: str | Path = DEFAULT_MODEL) -> Model:
    """Read a model file written by tools/train_model.py, refusing anything unexpected
    with a ModelError (one sentence). Never unpickles."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path.name}: no such model file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ModelError(f"{path.name}: {size:,} bytes is too large for a model file (at most {MAX_FILE_BYTES:,})")
    try:
        with zipfile.ZipFile(path) as listing:          # before unpacking: refuse a zip bomb
            unpacked = sum(info.file_size for info in listing.infolist())
        if unpacked > MAX_UNPACKED_BYTES:
            raise ModelError(f"{path.name}: unpacks to {unpacked:,} bytes, more than a model file may "
                             f"({MAX_UNPACKED_BYTES:,})")
        with np.load(path, allow_pickle=False) as archive:
            names = list(archive.files)
            arrays = {}
            for name in names:
                try:
                    arrays[name] = archive[name]
                except ValueError as error:
                    if "allow_pickle" in str(error) or "pickle" in str(error).lower():
                        raise ModelError(f"{path.name}: {name} is a pickled object array; "
                                         "model files hold plain numbers and text only") from None
                    raise ModelError(f"{path.name}: {name} cannot be read ({error})") from None
    except ModelError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, AttributeError) as error:
        raise ModelError(f"{path.name}: not a readable model file (truncated or damaged: {error})") from None
    return model_from_arrays(arrays, name=path.stem)


def model_from_arrays(arrays: Mapping[str, np.ndarray], name: str = "model") -> Model:
    """Validate the arrays of a model file and build the Model (float64 weights)."""
    def need(key: str) -> np.ndarray:
        if key not in arrays:
            raise ModelError(f"{key}: missing from the model file")
        value = arrays[key]
        if value.dtype.hasobject:
            raise ModelError(f"{key}: an object array; model files hold plain numbers and text only")
        return value

    def text(key: str) -> str:
        value = need(key)
        if value.dtype.kind != "U" or value.shape != ():
            raise ModelError(f"{key}: expected a text value, got a {value.dtype} array of shape {value.shape}")
        return str(value)

    def integer(key: str, low: int, high: int) -> int:
        value = need(key)
        if value.dtype.kind not in "iu" or value.shape != ():
            raise ModelError(f"{key}: expected a whole number, got a {value.dtype} array of shape {value.shape}")
        number = int(value)
        if not low <= number <= high:
            raise ModelError(f"{key}: expected {low} … {high}, got {number}")
        return number

    def real(key: str, low: float, high: float) -> float:
        value = need(key)
        if value.dtype.kind != "f" or value.shape != ():
            raise ModelError(f"{key}: expected a number, got a {value.dtype} array of shape {value.shape}")
        number = float(value)
        if not low <= number <= high:
            raise ModelError(f"{key}: expected {low} … {high}, got {number}")
        return number

    if text("format") != FORMAT:
        raise ModelError(f"format: expected {FORMAT!r}, got {str(arrays['format'])!r}")
    integer("format_version", FORMAT_VERSION, FORMAT_VERSION)
    limits = {"n_layers": (1, MAX_LAYERS), "d_model": (1, MAX_DIM), "n_heads": (1, MAX_DIM),
              "d_head": (2, MAX_DIM), "d_ff": (1, MAX_DIM), "n_ctx": (1, MAX_DIM), "vocab_size": (2, MAX_VOCAB),
              "unk_id": (0, MAX_VOCAB - 1)}
    values = {key: integer(f"config.{key}", *limits[key]) for key in _CONFIG_KEYS}
    config = ModelConfig(**values, eps=real("config.eps", 0.0, 1.0),
                         rotary_base=real("config.rotary_base", 1.0 + 1e-9, 1e9))
    try:
        config.block_config()
    except ConfigError as error:
        raise ModelError(str(error)) from None
    if config.unk_id >= config.vocab_size:
        raise ModelError(f"config.unk_id: expected below vocab_size {config.vocab_size}, got {config.unk_id}")

    shapes = expected_weight_shapes(config)
    expected = set(shapes) | _OTHER_KEYS | {f"config.{k}" for k in _CONFIG_KEYS}
    unexpected = sorted(set(arrays) - expected)
    if unexpected:
        raise ModelError(f"{unexpected[0]}: unexpected in a model with {config.n_layers} layers")
    weights: dict[str, np.ndarray] = {}
    for key, shape in shapes.items():
        value = need(key)
        if value.dtype.kind != "f":
            raise ModelError(f"{key}: expected floating-point numbers, got {value.dtype}")
        if value.shape != shape:
            raise ModelError(f"{key}: expected {_shape(shape)}, got {_shape(value.shape)}")
        value = value.astype(np.float64)
        if not np.all(np.isfinite(value)):
            raise ModelError(f"{key}: holds NaN or infinite values")
        weights[key] = value

    vocab_array = need("vocab")
    if vocab_array.dtype.kind != "U" or vocab_array.shape != (config.vocab_size,):
        raise ModelError(f"vocab: expected {config.vocab_size} characters as text, "
                         f"got a {vocab_array.dtype} array of shape {vocab_array.shape}")
    vocab = tuple(str(ch) for ch in vocab_array)
    if any(len(ch) != 1 for ch in vocab) or len(set(vocab)) != len(vocab):
        raise ModelError("vocab: expected distinct single characters")

    def id_array(key: str) -> np.ndarray:
        value = need(key)
        if value.dtype.kind not in "iu" or value.ndim != 1:
            raise ModelError(f"{key}: expected a list of token ids, got a {value.dtype} array of shape {value.shape}")
        if len(value) and (value.min() < 0 or value.max() >= config.vocab_size):
            raise ModelError(f"{key}: holds token ids outside 0 … {config.vocab_size - 1}")
        return value.astype(np.int64)

    val_ids = id_array("val_ids")
    ref_ids = id_array("reference.ids")
    if not 1 <= len(ref_ids) <= config.n_ctx:
        raise ModelError(f"reference.ids: expected 1 … {config.n_ctx} ids, got {len(ref_ids)}")
    ref_logits = need("reference.logits")
    if ref_logits.dtype.kind != "f" or ref_logits.shape != (len(ref_ids), config.vocab_size):
        raise ModelError(f"reference.logits: expected {len(ref_ids)}×{config.vocab_size} numbers, "
                         f"got {_shape(ref_logits.shape)}")
    if not np.all(np.isfinite(ref_logits)):
        raise ModelError("reference.logits: holds NaN or infinite values")
    text("reference.text")
    try:
        meta = json.loads(text("meta"))
    except json.JSONDecodeError:
        raise ModelError("meta: expected JSON text") from None
    if not isinstance(meta, dict):
        raise ModelError("meta: expected a JSON object")

    block_shapes = weight_shapes(config.block_config())
    layers = []
    for i in range(config.n_layers):
        layer = {}
        for weight, shape in block_shapes.items():
            layer[weight] = weights.get(f"blocks.{i}.{weight}", np.zeros(shape))   # biases: zeros
        layers.append(layer)
    return Model(config, vocab, weights["embed.W_E"], tuple(layers), weights["ln_final.w"], val_ids,
                 ref_ids, ref_logits.astype(np.float64), meta, name)
