"""The trace file: what `python main.py trace` prints or writes."""
from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from core.block import Trace

FORMAT = "blocklab-trace"
VERSION = 1


def _json_safe(array: np.ndarray) -> list:
    """Nested lists; a masked score (−∞) becomes null, since JSON has no infinity."""
    as_object = np.where(np.isneginf(array), None, array.astype(object))
    return as_object.tolist()


def trace_document(trace: Trace, mse: float | None) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "hooks": {name: _json_safe(array) for name, array in trace.items()},
        "mse": mse,
    }


def trace_json(trace: Trace, mse: float | None) -> str:
    return json.dumps(trace_document(trace, mse), ensure_ascii=False, allow_nan=False)


def write_trace(trace: Trace, mse: float | None, path: str | os.PathLike) -> None:
    """Write .json (as printed) or .npz (one array per hook, −∞ kept; mse as a 0-d array, NaN if none)."""
    path = Path(path)
    if path.suffix == ".npz":
        buffer = io.BytesIO()
        np.savez(buffer, **dict(trace.items()), mse=np.float64(np.nan if mse is None else mse))
        path.write_bytes(buffer.getvalue())
    elif path.suffix == ".json":
        path.write_text(trace_json(trace, mse) + "\n", encoding="utf-8")
    else:
        raise ValueError(f"--out: expected a file ending in .json or .npz, got {path.name}")
