"""What the plots cost after an edit, tab by tab, at a lesson block and at generated large ones.

For each size and each tab (the tab on screen; the others are redrawn only when shown) it
makes `--edits` single-weight edits and measures, per edit, (a) the plots' update (the
panel's handler of the session's signal: setImage / setData on the items) and (b) the
event-loop pass that follows until the figure has painted (layout and paint). The session's
own recompute is not counted (tools/bench.py measures the whole edit); the MSE sweep runs on
the worker thread and is not counted either. Prints median and 95th percentile in milliseconds, and the time to
build the panel and paint it once.

    QT_QPA_PLATFORM=offscreen python tools/bench_plots.py [--sizes lesson gpt2-small] [--edits 60]
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
from PySide6.QtWidgets import QApplication  # noqa: E402

TABS = ("attention", "hidden", "residual", "activation", "mse")


class PaintProbe(QObject):
    def __init__(self):
        super().__init__()
        self.last = None

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.last = time.perf_counter()
        return False


def scenario(size: str):
    from core.formats.generate import preset
    from core.formats.scenario import load_scenario
    from core.resources import default_scenario
    return load_scenario(default_scenario()) if size == "lesson" else preset(size, targets=True)


def percentiles(samples: list[float]) -> str:
    a = np.array(samples) * 1000.0
    return f"median {np.percentile(a, 50):6.2f} ms  p95 {np.percentile(a, 95):6.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["lesson", "d64", "d256", "gpt2-small"])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--panel", default="520x340", help="the plots panel's size (presentation mode at 1024×768)")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    from app.explorer.plots import PlotsPanel
    from app.session import Session
    width, height = map(int, args.panel.split("x"))

    for size in args.sizes:
        session = Session(scenario(size))
        start = time.perf_counter()
        panel = PlotsPanel(session)
        panel.resize(width, height)
        probe = PaintProbe()
        panel.installEventFilter(probe)
        panel.show()
        while probe.last is None:
            app.processEvents()
        print(f"{size}: panel built and painted in {(probe.last - start) * 1000:.0f} ms ({width}x{height})")
        handler_ms: list[float] = []
        original = panel._on_changed

        def timed(change, original=original):
            t0 = time.perf_counter()
            original(change)
            handler_ms.append(time.perf_counter() - t0)

        session.changed.disconnect(panel._on_changed)
        session.changed.connect(timed)
        rows, columns = session.tensor("W_in").shape
        edit = 0
        for tab in TABS:
            panel.show_tab(tab)
            for _ in range(10):
                app.processEvents()
            panel.mse_tab.worker.wait()
            graphics = panel.currentWidget().graphics
            view = graphics.viewport() if graphics is not None else panel.currentWidget()
            paint = PaintProbe()
            view.installEventFilter(paint)
            handler_ms.clear()
            paint_ms = []
            for step in range(args.edits):
                edit += 1
                index = (step % rows, (7 * step) % columns)
                session.set_value("W_in", index, 0.25 * ((step % 8) - 4) + 0.125 + 0.001 * edit)
                t0 = time.perf_counter()
                paint.last = None
                for _ in range(5):
                    before = paint.last
                    app.processEvents()
                    if paint.last == before and paint.last is not None:
                        break
                paint_ms.append(time.perf_counter() - t0)
                if tab == "mse":
                    panel.mse_tab.worker.cancel()      # the sweep is the worker's, not the frame's
                    panel.mse_tab.worker.wait()
            view.removeEventFilter(paint)
            print(f"  {tab:<10} update {percentiles(handler_ms)}   paint {percentiles(paint_ms)}")
        panel.close()
        panel.deleteLater()
        app.processEvents()
    return 0


if __name__ == "__main__":
    sys.exit(main())
