"""What an edit costs the tables (the inspector and the weight editor), at each size.

The two widgets alone on a Session, as the window shows them (1280×800 proportions), one weight
cell edited again and again (a drag), split three ways:

- session: the Session's own work (copying the tensor for undo, core's incremental recompute),
- views:   the inspector's and the weight editor's reaction to the one `changed` notification,
- paint:   Qt painting what they asked to repaint (visible cells, the overview picture).

    QT_QPA_PLATFORM=offscreen python tools/bench_tables.py [--sizes lesson d64 d256 gpt2-small] [--edits 60]

Median and 95th percentile in milliseconds. The tables' share is views + paint.
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
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget  # noqa: E402

from app.explorer.inspector import Inspector  # noqa: E402
from app.explorer.weights_editor import WeightEditor  # noqa: E402
from app.session import Session  # noqa: E402
from core.formats.generate import preset  # noqa: E402
from core.resources import default_scenario  # noqa: E402
from core.formats.scenario import load_scenario  # noqa: E402


def timed(function, spent: list[float]):
    def wrapper(*args):
        start = time.perf_counter()
        function(*args)
        spent.append(time.perf_counter() - start)
    return wrapper


def measure(name: str, edits: int, app: QApplication) -> dict[str, tuple[float, float]]:
    scenario = load_scenario(default_scenario()) if name == "lesson" else preset(name)
    session = Session(scenario)
    box = QWidget()
    layout = QHBoxLayout(box)
    inspector, editor = Inspector(session), WeightEditor(session)
    layout.addWidget(inspector, 3)
    layout.addWidget(editor, 2)
    box.resize(900, 420)
    box.show()
    session.select(hook="mlp.hook_pre", token=1, column=2)      # a hook the edit changes (one column)
    session.select_edit_cell("W_in", (1, 2))
    for _ in range(10):
        app.processEvents()
    views: list[float] = []
    # The views' reaction, timed: each widget's slot on the Session's one notification.
    session.changed.disconnect(inspector._on_changed)
    session.changed.disconnect(editor._on_changed)
    session.changed.connect(timed(inspector._on_changed, views))
    session.changed.connect(timed(editor._on_changed, views))
    edit_ms, view_ms, paint_ms = [], [], []
    for step in range(edits):
        del views[:]
        start = time.perf_counter()
        session.set_value("W_in", (1, 2), round(0.01 * ((step % 9) - 4), 2), merge=True)
        middle = time.perf_counter()
        app.processEvents()
        end = time.perf_counter()
        view = sum(views)
        edit_ms.append((middle - start - view) * 1000)
        view_ms.append(view * 1000)
        paint_ms.append((end - middle) * 1000)
    box.close()
    box.deleteLater()
    app.processEvents()
    return {part: (float(np.median(values)), float(np.percentile(values, 95)))
            for part, values in (("session", edit_ms), ("views", view_ms), ("paint", paint_ms))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["lesson", "d64", "d256", "gpt2-small"])
    parser.add_argument("--edits", type=int, default=60)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    print("size         session median/p95   views median/p95   paint median/p95   (ms)")
    for name in args.sizes:
        result = measure(name, args.edits, app)
        print(f"{name:<12} " + "   ".join(f"{median:8.2f} / {p95:6.2f}" for median, p95 in result.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
