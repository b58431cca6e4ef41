"""Edit → every visible view repainted, per edited tensor and per plot tab, at one generated size.

    QT_QPA_PLATFORM=offscreen python tools/bench_edits.py --size gpt2-small
    QT_QPA_PLATFORM=offscreen python tools/bench_edits.py --size d256 --tabs attention,hidden

tools/bench.py edits one W_in cell (a hidden unit: the cheapest path through the Session).
This edits the middle cell of W_in, W_Q, W_O, W_out and the inputs in turn, with each plot tab
in front, and prints `<size>.<tab>.<tensor>.edit_p95_ms=` (wall) and `…cpu_p95_ms=` (this
process's CPU time, which load on the shared machine cannot inflate). Same window size and one BLAS thread as tools/bench.py.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import bench  # noqa: E402

TENSORS = ("W_in", "W_Q", "W_O", "W_out", "inputs")
TABS = ("attention", "hidden", "residual", "activation", "mse")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="gpt2-small", choices=bench.PRESETS)
    parser.add_argument("--tabs", default=",".join(TABS))
    parser.add_argument("--edits", type=int, default=40)
    args = parser.parse_args()

    from PySide6.QtWidgets import QTabWidget

    from app.launch import _application
    from app.main_window import MainWindow
    from app.session import Session
    from core.formats.generate import preset

    app, _language = _application("en")
    scenario = preset(args.size)
    session = Session(scenario)
    window = MainWindow(session, None, "en")
    bench.show_window(app, window)
    for _ in range(5):
        app.processEvents()
    bench._SESSION[:] = [session]
    plots = next(w for w in window.findChildren(QTabWidget) if w.objectName() == "plotsPanel")
    cells = {name: tuple(n // 2 for n in session.tensor(name).shape)
             for name in TENSORS if name in session.tensor_names()}
    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for tab in args.tabs.split(","):
        plots.show_tab(tab)
        for tensor, index in cells.items():
            session.select_edit_cell(tensor, index)
            probes = bench.watch_views(window)
            bench.settle(app, probes)
            bench.edit_loop(app, session, probes, tensor, index, 3, 5)       # first edits: copies, caches
            wall, cpu, _painted = bench.edit_loop(app, session, probes, tensor, index, args.edits, 10)
            print(f"{args.size}.{tab}.{tensor}.edit_p95_ms={bench.percentile_ms(wall, 95):.1f} "
                  f"cpu_p95_ms={bench.percentile_ms(cpu, 95):.1f}", flush=True)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
