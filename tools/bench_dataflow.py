"""What an edit costs the block diagram alone, at lesson size and at real sizes.

For each size (the `core.formats.generate` presets: lesson, d64, d256, gpt2-small) it builds a
Session and a DataflowView (no main window), then makes single-weight edits of W_in and
reports, in milliseconds (median and 95th percentile):

- core:     the Session's recompute (core's incremental trace_after), measured apart;
- diagram:  the view's update after the Session's signal (numbers retexted, heatmaps recoloured);
- paint:    a synchronous repaint of the view's viewport at 1016×540.

Plus the time to build the view and paint it once. Edits alternate between two values of one
cell, as a slider drag does.

    QT_QPA_PLATFORM=offscreen python tools/bench_dataflow.py [--sizes lesson d64 d256 gpt2-small] [--edits 60]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))          # measure this checkout, not an installed copy
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def percentiles(samples: list[float]) -> str:
    ms = np.array(samples) * 1000.0
    return f"median {np.median(ms):7.2f}  p95 {np.percentile(ms, 95):7.2f}"


def bench(name: str, edits: int) -> None:
    from app.explorer.dataflow import DataflowView
    from app.session import Session
    from core.formats.generate import preset

    app = QApplication.instance()
    session = Session(preset(name))
    start = time.perf_counter()
    view = DataflowView(session)
    view.resize(1016, 540)
    view.show()
    app.processEvents()
    view.viewport().repaint()
    built = time.perf_counter() - start

    diagram: list[float] = []
    timed = view._on_changed

    def measured(change) -> None:
        begin = time.perf_counter()
        timed(change)
        diagram.append(time.perf_counter() - begin)

    session.changed.disconnect(view._on_changed)
    session.changed.connect(measured)
    whole, paint = [], []
    base = float(session.tensor("W_in")[0, 3])
    for i in range(edits):
        begin = time.perf_counter()
        session.set_value("W_in", (0, 3), base + (0.5 if i % 2 == 0 else -0.5), merge=True)
        middle = time.perf_counter()
        view.viewport().repaint()
        paint.append(time.perf_counter() - middle)
        whole.append(middle - begin)
    core = [w - d for w, d in zip(whole, diagram)]
    strips = sum(view.is_strip(h) for h in view.node_names())
    print(f"{name:11s} nodes {len(view.node_names()):2d} ({strips:2d} heatmaps)  build+first paint {built * 1000:7.1f} ms")
    print(f"  core     {percentiles(core)}")
    print(f"  diagram  {percentiles(diagram)}")
    print(f"  paint    {percentiles(paint)}")
    view.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["lesson", "d64", "d256", "gpt2-small"])
    parser.add_argument("--edits", type=int, default=60)
    args = parser.parse_args()
    QApplication([])
    for name in args.sizes:
        bench(name, args.edits)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
