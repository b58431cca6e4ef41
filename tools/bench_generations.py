"""How fast flipping between two generations' presets reaches the screen.

Opens the lesson `generations` at a step that shows the block diagram above the lab's preset
part, then loads two generations' presets in turn through the lab (what a learner's click on a
generation button does: `session.load(preset)`), and times each load until Qt has no more paints
to deliver: every view (the diagram, the inspector, the plots, the block options, the checks,
the weights, the lab) has repainted. Prints the median and 95th percentile, and the same with
the lab's side-by-side part in front; the last line is `flip_to_paint_p95_ms=<number>`.
Target: one frame (16 ms at 60 Hz).

    QT_QPA_PLATFORM=offscreen python tools/bench_generations.py [--flips 100] [--pair original anchor]
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
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QLabel, QWidget  # noqa: E402

from app.launch import build_window  # noqa: E402
from core.labs.generations import GENERATIONS  # noqa: E402
from core.numbers import format_number  # noqa: E402


class PaintProbe(QObject):
    def __init__(self):
        super().__init__()
        self.last_paint = None

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Paint:
            self.last_paint = time.perf_counter()
        return False


def settle(app, probes) -> None:
    """Deliver every paint the load caused; stop after a pass paints nothing."""
    for _ in range(8):
        before = [p.last_paint for p in probes]
        app.processEvents()
        if [p.last_paint for p in probes] == before:
            break


def flips(app, window, panel, pair: tuple[str, str], count: int) -> tuple[list[float], int, int]:
    views = [w for w in window.findChildren(QWidget)
             if w.isVisible() and (isinstance(w, QLabel) or w.objectName() == "qt_scrollarea_viewport"
                                   or w.objectName() in ("dataflowView",) or w.inherits("QGraphicsView"))]
    probes = []
    for view in views:
        probe = PaintProbe()
        view.installEventFilter(probe)
        probes.append(probe)
    times, painted = [], []
    for step in range(count):
        generation = pair[step % 2]
        start = time.perf_counter()
        panel.load_generation(generation)
        settle(app, probes)
        times.append(time.perf_counter() - start)
        painted.append(sum(1 for p in probes if p.last_paint is not None and p.last_paint >= start))
    for view, probe in zip(views, probes):
        view.removeEventFilter(probe)
    return times, int(np.median(painted)), len(probes)


def report(name: str, times: list[float]) -> None:
    ms = np.array(times) * 1000.0
    print(f"{name}_median_ms={format_number(float(np.percentile(ms, 50)), 2)}")
    print(f"{name}_p95_ms={format_number(float(np.percentile(ms, 95)), 2)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flips", type=int, default=100)
    parser.add_argument("--pair", nargs=2, default=("original", "anchor"), choices=GENERATIONS)
    args = parser.parse_args()

    app, window = build_window(ROOT / "resources" / "lessons" / "generations.json", "en", "original")
    window.resize(1280, 800)
    window.show()
    for _ in range(10):
        app.processEvents()
    panel = window.labs["generations"]
    for generation in GENERATIONS:          # warm up: every preset's trace and layout once
        panel.load_generation(generation)
        for _ in range(3):
            app.processEvents()

    pair = tuple(args.pair)
    print(f"flips: {args.flips} between {pair[0]} and {pair[1]} (T=5, d=4, lesson size), window 1280x800, "
          f"the diagram above the lab")
    times, painted, watched = flips(app, window, panel, pair, args.flips)
    print(f"preset part in front: surfaces repainted per flip (median) {painted} of {watched} watched")
    report("preset_flip_to_paint", times)
    panel.set_focus("compare")
    app.processEvents()
    compare_times, painted, watched = flips(app, window, panel, pair, args.flips)
    print(f"side by side in front: surfaces repainted per flip (median) {painted} of {watched} watched")
    report("compare_flip_to_paint", compare_times)
    window.show_panels(())                   # the whole explorer: diagram, inspector, plots
    app.processEvents()
    explorer_times, painted, watched = flips(app, window, panel, pair, args.flips)
    print(f"explorer in front (lab hidden): surfaces repainted per flip (median) {painted} of {watched} watched")
    report("explorer_flip_to_paint", explorer_times)
    print(f"flip_to_paint_p95_ms={format_number(float(np.percentile(np.array(times) * 1000.0, 95)), 2)}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
