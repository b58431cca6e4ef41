"""How fast an edit reaches the screen, on the default scenario.

Prints the median and 95th percentile of (a) a weight edit until every view has repainted
and (b) the same edit's `core` recompute alone, plus start-up to the first painted window.
The last line is `edit_to_paint_p95_ms=<number>`. Target: p95 ≤ 16 ms (one frame at 60 Hz).

    QT_QPA_PLATFORM=offscreen python tools/bench.py [--edits 300]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

START = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))          # measure this checkout, not an installed copy
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QLabel, QWidget  # noqa: E402

from app.launch import build_window  # noqa: E402
from core.block import forward  # noqa: E402
from core.numbers import format_number  # noqa: E402
from core.resources import default_scenario  # noqa: E402


class PaintProbe(QObject):
    """Notes when the watched widget was last painted."""

    def __init__(self):
        super().__init__()
        self.last_paint = None

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Paint:
            self.last_paint = time.perf_counter()
        return False


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000.0, q))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=300)
    args = parser.parse_args()

    app, window = build_window(default_scenario(), "en")
    window.resize(1280, 800)
    probe = PaintProbe()
    window.installEventFilter(probe)
    window.show()
    while probe.last_paint is None:
        app.processEvents()
    startup_ms = (probe.last_paint - START) * 1000.0
    for _ in range(5):
        app.processEvents()

    session = window.session
    # Every surface that paints: the viewports of the block, the tables and the visible plots,
    # and the labels. An edit counts as shown when Qt has no more paints to deliver for it.
    views = [w for w in window.findChildren(QWidget)
             if w.isVisible() and (isinstance(w, QLabel) or w.objectName() == "qt_scrollarea_viewport")]
    probes = []
    for view in views:
        p = PaintProbe()
        view.installEventFilter(p)
        probes.append(p)

    edit_ms, core_ms, repainted_views = [], [], []
    config, inputs = session.config, session.state.inputs
    for step in range(args.edits):
        value = 0.25 * ((step % 8) - 4) + 0.125
        start = time.perf_counter()
        session.set_value("W_in", (0, 0), value)
        # Let Qt deliver every update request the edit caused; stop after a pass paints nothing.
        for _ in range(5):
            before = [p.last_paint for p in probes]
            app.processEvents()
            if [p.last_paint for p in probes] == before:
                break
        painted = sum(1 for p in probes if p.last_paint is not None and p.last_paint >= start)
        repainted_views.append(painted)
        edit_ms.append(time.perf_counter() - start)
        weights = session.state.weights
        start = time.perf_counter()
        forward(config, weights, inputs)
        core_ms.append(time.perf_counter() - start)

    print(f"edits: {args.edits} on block-default (T=5, d=4, 2 heads, d_ff=6), window 1280x800")
    print(f"surfaces repainted per edit (median): {int(np.median(repainted_views))} of {len(probes)} watched")
    print(f"startup_to_first_paint_ms={format_number(startup_ms, 1)}")
    print(f"core_recompute_median_ms={format_number(percentile_ms(core_ms, 50), 3)}")
    print(f"core_recompute_p95_ms={format_number(percentile_ms(core_ms, 95), 3)}")
    print(f"edit_to_paint_median_ms={format_number(percentile_ms(edit_ms, 50), 2)}")
    print(f"edit_to_paint_p95_ms={format_number(percentile_ms(edit_ms, 95), 2)}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
