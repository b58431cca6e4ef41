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
import sys
import time

from bench_common import ROOT, deliver_paints, percentile_ms, unwatch, watch  # first: sets the environment
import numpy as np
from PySide6.QtWidgets import QLabel, QWidget

from app.launch import build_window
from core.labs.generations import GENERATIONS
from core.numbers import format_number

PASSES = 8             # event-loop passes to deliver what one flip posted


def flips(app, window, panel, pair: tuple[str, str], count: int) -> tuple[list[float], int, int]:
    views = [w for w in window.findChildren(QWidget)
             if w.isVisible() and (isinstance(w, QLabel) or w.objectName() == "qt_scrollarea_viewport"
                                   or w.objectName() in ("dataflowView",) or w.inherits("QGraphicsView"))]
    probes = watch(views)
    times, painted = [], []
    for step in range(count):
        generation = pair[step % 2]
        start = time.perf_counter()
        panel.load_generation(generation)
        deliver_paints(app, probes, PASSES)
        times.append(time.perf_counter() - start)
        painted.append(sum(1 for p in probes if p.last_paint is not None and p.last_paint >= start))
    unwatch(views, probes)
    return times, int(np.median(painted)), len(probes)


def report(name: str, times: list[float]) -> None:
    print(f"{name}_median_ms={format_number(percentile_ms(times, 50), 2)}")
    print(f"{name}_p95_ms={format_number(percentile_ms(times, 95), 2)}")


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
    print(f"flip_to_paint_p95_ms={format_number(percentile_ms(times, 95), 2)}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
