"""The one table of what Block Lab calls its options on screen, in both languages.

Every view that names an activation, a norm, a placement or a mask asks here; the words
are translated under the context "Labels" (resources/i18n/zh/labels.json).
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

from core.explain import ACTIVATION_SYMBOLS

# form → option → English source text. "long": option lists; "short": diagram titles and
# plot legends; "symbol": inside a formula (no words, same in every language); "choice": a
# lab's activation switch.
_ACTIVATIONS = {
    "long": {
        "relu": QT_TRANSLATE_NOOP("Labels", "ReLU"),
        "gelu": QT_TRANSLATE_NOOP("Labels", "GELU (exact, erf)"),
        "gelu_tanh": QT_TRANSLATE_NOOP("Labels", "GELU (tanh, as in GPT-2)"),
        "silu": QT_TRANSLATE_NOOP("Labels", "SiLU"),
        "identity": QT_TRANSLATE_NOOP("Labels", "none (identity)"),
    },
    "short": {"relu": "ReLU", "gelu": "GELU", "gelu_tanh": "GELU", "silu": "SiLU",
              "identity": QT_TRANSLATE_NOOP("Labels", "none")},
    "symbol": ACTIVATION_SYMBOLS,      # core's formulas (core/explain.py) write the same
    # "choice": a lab's on/off switch, where "identity" means the activation was taken out
    "choice": {
        "relu": "ReLU",
        "gelu": QT_TRANSLATE_NOOP("Labels", "GELU (exact, erf)"),
        "gelu_tanh": QT_TRANSLATE_NOOP("Labels", "GELU (tanh form, as in GPT-2)"),
        "silu": "SiLU",
        "identity": QT_TRANSLATE_NOOP("Labels", "none (removed)"),
    },
}
_NORMS = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm", "none": QT_TRANSLATE_NOOP("Labels", "none")}
_PLACEMENTS = {"post": QT_TRANSLATE_NOOP("Labels", "post-norm (after the sum)"),
               "pre": QT_TRANSLATE_NOOP("Labels", "pre-norm (at the entry)")}
_MASKS = {"full": QT_TRANSLATE_NOOP("Labels", "full (every token sees all)"),
          "causal": QT_TRANSLATE_NOOP("Labels", "causal (only earlier tokens)")}


def _tr(text: str) -> str:
    return QCoreApplication.translate("Labels", text)


def activation_label(name: str, form: str = "long") -> str:
    """How an activation is named: form "long" (option lists), "short", "symbol" or "choice"."""
    return _tr(_ACTIVATIONS[form][name])


def norm_label(name: str) -> str:
    return _tr(_NORMS[name])


def placement_label(name: str) -> str:
    return _tr(_PLACEMENTS[name])


def mask_label(name: str) -> str:
    return _tr(_MASKS[name])
