"""How fast an edit reaches the screen: on the default block, and at every size up to a
GPT-2-small layer.

    QT_QPA_PLATFORM=offscreen python tools/bench.py [--edits 300]
    QT_QPA_PLATFORM=offscreen python tools/bench.py --size gpt2-small
    QT_QPA_PLATFORM=offscreen python tools/bench.py --size all

Without --size: the default block (resources/scenarios/block-default.json), as always: the
median and 95th percentile of a weight edit until every view has repainted, the same edit's
`core` recompute alone, and start-up to the first painted window. The last line is
`edit_to_paint_p95_ms=<number>`. Target: p95 ≤ 16 ms (one frame at 60 Hz).

--size lesson|d64|d256|gpt2-small (several: a comma list; `all` = every one, then the default
block last) builds each block in memory with core.formats.generate.preset (seeded random
weights; no file is read) and measures it in two fresh processes, so that each figure of
resident memory is its own:

  session part (no window): Session(scenario) (the first full forward), a single-weight edit
    → new trace (Session.set_value, p50/p95) against core's incremental recompute alone, undo,
    a coalesced drag burst, and the memory 100 edits of one cell keep in the undo stack;
  window part: open → first paint (Session + MainWindow + the first paint), a single-weight
    edit → every visible view repainted (p50/p95), a slider-drag burst through the weight
    editor's slider (the time to the last repaint and how many Session updates it caused),
    the same burst through Session.set_value_coalesced, and peak resident memory
    (resource.getrusage); at gpt2-small also the time to read the shipped
    resources/scenarios/gpt2-small-shape.json (JSON + .npz sidecar).

Every figure is a line `<size>.<name>=<number>`. A part that runs longer than --timeout
seconds is stopped and reported as `<size>.<part>=timeout`: at large sizes the views can
still be slow, and the bench must report that rather than hang. Issue 10's targets:
gpt2-small open ≤ 3 s plus the file read, edit → repaint p95 ≤ 33 ms, peak RSS ≤ 600 MB;
d256 edit → repaint p95 ≤ 16 ms.

One BLAS thread (OPENBLAS_NUM_THREADS=1, set before NumPy loads, as main.py does).
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
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # as main.py: before NumPy loads

import gc  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402

PRESETS = ("lesson", "d64", "d256", "gpt2-small")
WINDOW = (1280, 800)


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(np.array(samples) * 1000.0, q))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0     # Linux: kilobytes


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def figure(number: float, decimals: int = 2) -> str:
    from core.numbers import format_number
    return format_number(number, decimals).replace("−", "-")


class Out:
    """Prints `<prefix><name>=<value>` lines (flushed: a parent process relays them as they come)."""

    def __init__(self, prefix: str = ""):
        self.prefix = prefix

    def __call__(self, name: str, value: object, decimals: int = 2) -> None:
        text = figure(value, decimals) if isinstance(value, (float, np.floating)) else str(value)
        print(f"{self.prefix}{name}={text}", flush=True)

    @staticmethod
    def note(text: str) -> None:
        print(text, flush=True)


def describe(size: str, scenario) -> str:
    c = scenario.config
    heads = f"H={c.n_heads}×{c.d_head} " if c.attention else ""
    return (f"{size}: T={len(scenario.tokens)} d={c.d_model} {heads}F={c.d_ff} "
            f"({c.norm_placement}-norm {c.norm}, {c.activation}, {c.mask} mask)")


def edit_cell(scenario) -> tuple[str, tuple[int, ...]]:
    """The cell every size edits: one weight of a hidden unit in the middle of W_in."""
    rows, columns = scenario.weights["W_in"].shape
    return "W_in", (rows // 2, columns // 3)


def edit_values(count: int):
    return [0.25 * ((step % 8) - 4) + 0.125 for step in range(count)]


# --- the window: paints ----------------------------------------------------------------------

def make_probe():
    from PySide6.QtCore import QEvent, QObject

    class PaintProbe(QObject):
        """Notes when the watched widget was last painted."""

        def __init__(self):
            super().__init__()
            self.last_paint = None

        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Paint:
                self.last_paint = time.perf_counter()
            return False

    return PaintProbe()


def watch_views(window) -> list:
    """Every surface that paints: the viewports of the block, the tables and the visible plots,
    and the labels."""
    from PySide6.QtWidgets import QLabel, QWidget
    views = [w for w in window.findChildren(QWidget)
             if w.isVisible() and (isinstance(w, QLabel) or w.objectName() == "qt_scrollarea_viewport")]
    probes = []
    for view in views:
        probe = make_probe()
        view.installEventFilter(probe)
        probes.append(probe)
    return probes


def settle(app, probes, passes: int = 5) -> None:
    """Let Qt deliver every update request (and a coalesced Session update); stop after a pass
    paints nothing and nothing is pending."""
    for _ in range(passes):
        before = [p.last_paint for p in probes]
        app.processEvents()
        if [p.last_paint for p in probes] == before and not _pending(app):
            break


_SESSION = []


def _pending(app) -> bool:
    return bool(_SESSION) and bool(getattr(_SESSION[0], "pending", False))


def wait_settled(app, probes, start: float) -> int:
    """Process events until the edit made at `start` is on screen; how many surfaces repainted."""
    session = _SESSION[0] if _SESSION else None
    while session is not None and getattr(session, "pending", False):
        app.processEvents()
    settle(app, probes)
    return sum(1 for p in probes if p.last_paint is not None and p.last_paint >= start)


def edit_loop(app, session, probes, tensor, index, count: int, budget_s: float):
    """Edit one cell `count` times (or until `budget_s` is spent, at least 10 times)."""
    edit_ms, cpu_ms, painted = [], [], []
    begun = time.perf_counter()
    for step, value in enumerate(edit_values(count)):
        start, cpu = time.perf_counter(), time.process_time()
        session.set_value(tensor, index, value)
        painted.append(wait_settled(app, probes, start))
        edit_ms.append(time.perf_counter() - start)
        cpu_ms.append(time.process_time() - cpu)
        if step >= 9 and time.perf_counter() - begun > budget_s:
            break
    return edit_ms, cpu_ms, painted


def drag_burst(app, window, session, probes, moves: int) -> tuple[float, int]:
    """`moves` positions of the weight editor's slider in one burst (as a fast drag delivers
    them between two frames), then the release: ms to the last repaint, Session updates."""
    from PySide6.QtWidgets import QSlider
    slider = window.findChild(QSlider, "weightValueSlider")
    updates = []
    session.changed.connect(updates.append)
    start = time.perf_counter()
    slider.setSliderDown(True)
    for position in range(1, moves + 1):
        slider.setValue(position)
    slider.setSliderDown(False)
    wait_settled(app, probes, start)
    elapsed = time.perf_counter() - start
    session.changed.disconnect(updates.append)
    return elapsed * 1000.0, len(updates)


def coalesced_burst(app, session, probes, tensor, index, moves: int) -> tuple[float, int] | None:
    if not hasattr(session, "set_value_coalesced"):
        return None
    updates = []
    session.changed.connect(updates.append)
    start = time.perf_counter()
    for position in range(1, moves + 1):
        session.set_value_coalesced(tensor, index, 0.01 * position, merge=True)
    session.end_gesture()
    wait_settled(app, probes, start)
    elapsed = time.perf_counter() - start
    session.changed.disconnect(updates.append)
    return elapsed * 1000.0, len(updates)


def show_window(app, window):
    window.resize(*WINDOW)
    probe = make_probe()
    window.installEventFilter(probe)
    window.show()
    while probe.last_paint is None:
        app.processEvents()
    return probe.last_paint


# --- the default block (the figures kept since issue 6) --------------------------------------

def default_block(args) -> int:
    from app.launch import build_window
    from core.block import forward
    from core.resources import default_scenario

    app, window = build_window(default_scenario(), "en")
    first_paint = show_window(app, window)
    startup_ms = (first_paint - START) * 1000.0
    for _ in range(5):
        app.processEvents()
    session = window.session
    _SESSION[:] = [session]
    probes = watch_views(window)
    edit_ms, cpu_ms, core_ms, repainted = [], [], [], []
    config = session.config
    for value in edit_values(args.edits):
        start, cpu = time.perf_counter(), time.process_time()
        session.set_value("W_in", (0, 0), value)
        repainted.append(wait_settled(app, probes, start))
        edit_ms.append(time.perf_counter() - start)
        cpu_ms.append(time.process_time() - cpu)
        weights = {name: session.tensor(name) for name in session.tensor_names() if name not in ("inputs", "targets")}
        inputs = session.tensor("inputs")
        start = time.perf_counter()
        forward(config, weights, inputs)
        core_ms.append(time.perf_counter() - start)

    out = Out()
    out.note(f"edits: {args.edits} on block-default (T=5, d=4, 2 heads, d_ff=6), window {WINDOW[0]}x{WINDOW[1]}")
    out.note(f"surfaces repainted per edit (median): {int(np.median(repainted))} of {len(probes)} watched")
    out("startup_to_first_paint_ms", startup_ms, 1)
    out("core_recompute_median_ms", percentile_ms(core_ms, 50), 3)
    out("core_recompute_p95_ms", percentile_ms(core_ms, 95), 3)
    out("edit_to_paint_cpu_median_ms", percentile_ms(cpu_ms, 50))
    out("edit_to_paint_cpu_p95_ms", percentile_ms(cpu_ms, 95))
    out.note(f"load average {os.getloadavg()[0]:.1f}")
    out("edit_to_paint_median_ms", percentile_ms(edit_ms, 50))
    out("edit_to_paint_p95_ms", percentile_ms(edit_ms, 95))
    window.close()
    return 0


# --- a generated size: the session part --------------------------------------------------------

def session_part(size: str, args) -> int:
    from PySide6.QtWidgets import QApplication

    from app.session import Session
    from core.formats.generate import preset
    from core.incremental import recompute

    app = QApplication.instance() or QApplication([])
    out = Out(f"{size}.")
    start = time.perf_counter()
    scenario = preset(size)
    out("generate_ms", (time.perf_counter() - start) * 1000.0, 1)
    out.note(describe(size, scenario))
    samples = []
    for _ in range(3):
        gc.collect()
        start = time.perf_counter()
        session = Session(scenario)
        samples.append(time.perf_counter() - start)
        del session
    out("session_open_ms", min(samples) * 1000.0, 1)
    session = Session(scenario)
    tensor, index = edit_cell(scenario)
    edits = min(args.edits, 100)

    edit_ms, edit_cpu, core_ms = [], [], []
    for value in edit_values(edits):
        previous = session.trace
        start, cpu = time.perf_counter(), time.process_time()
        session.set_value(tensor, index, value)
        session.trace                                                   # noqa: B018  (up to date)
        edit_ms.append(time.perf_counter() - start)
        edit_cpu.append(time.process_time() - cpu)
        weights = {name: session.tensor(name) for name in scenario.weights}
        if session.trace is not previous:
            start = time.perf_counter()
            recompute(session.config, weights, session.tensor("inputs"), previous, {tensor: [index]})
            core_ms.append(time.perf_counter() - start)
    out("session_edit_median_ms", percentile_ms(edit_ms, 50))
    out("session_edit_p95_ms", percentile_ms(edit_ms, 95))
    out("session_edit_cpu_median_ms", percentile_ms(edit_cpu, 50))
    out("core_recompute_median_ms", percentile_ms(core_ms, 50), 3)
    out("core_recompute_p95_ms", percentile_ms(core_ms, 95), 3)
    undo_ms = []
    for _ in range(min(edits, 30)):
        start = time.perf_counter()
        session.undo_stack.undo()
        session.trace                                                   # noqa: B018
        undo_ms.append(time.perf_counter() - start)
    out("session_undo_p95_ms", percentile_ms(undo_ms, 95))

    # A drag: 60 values of one cell through set_value(merge=True), and through the coalescing API.
    start = time.perf_counter()
    for step in range(60):
        session.set_value(tensor, index, 0.01 * step, merge=True)
    session.end_gesture()
    out("drag_60_set_value_ms", (time.perf_counter() - start) * 1000.0, 1)
    if hasattr(session, "set_value_coalesced"):
        updates = []
        session.changed.connect(updates.append)
        start = time.perf_counter()
        for step in range(60):
            session.set_value_coalesced(tensor, index, 0.02 * step, merge=True)
        session.end_gesture()
        while session.pending:
            app.processEvents()
        out("drag_60_coalesced_ms", (time.perf_counter() - start) * 1000.0, 1)
        out("drag_60_coalesced_updates", len(updates))

    # Memory the undo stack keeps: 100 separate edits of one cell (each its own undo step),
    # after a first edit (the Session's one copy of a tensor it did not allocate).
    session = Session(scenario)
    gc.collect()
    start = time.perf_counter()
    session.set_value(tensor, index, 0.5)
    out("first_edit_ms", (time.perf_counter() - start) * 1000.0)
    gc.collect()
    before = rss_mb()
    for step in range(100):
        session.set_value(tensor, index, 0.001 * (step + 1))
    gc.collect()
    out("undo_100_edits_rss_growth_mb", rss_mb() - before, 1)
    if hasattr(session, "undo_nbytes"):
        out("undo_100_edits_kept_bytes", session.undo_nbytes())
    out("session_peak_rss_mb", peak_rss_mb(), 0)
    return 0


# --- a generated size: the window part ---------------------------------------------------------

def window_part(size: str, args) -> int:
    from app.launch import _application
    from app.main_window import MainWindow
    from app.session import Session
    from core.formats.generate import preset

    app, _language = _application("en")
    out = Out(f"{size}.")
    scenario = preset(size)
    gc.collect()
    out("rss_before_open_mb", rss_mb(), 0)
    start = time.perf_counter()
    session = Session(scenario)
    window = MainWindow(session, None, "en")
    built = time.perf_counter()
    first_paint = show_window(app, window)
    out("window_build_ms", (built - start) * 1000.0, 0)
    out("open_to_first_paint_ms", (first_paint - start) * 1000.0, 0)
    for _ in range(5):
        app.processEvents()
    _SESSION[:] = [session]
    probes = watch_views(window)
    tensor, index = edit_cell(scenario)
    session.select_edit_cell(tensor, index)
    settle(app, probes)
    edit_ms, cpu_ms, painted = edit_loop(app, session, probes, tensor, index, args.edits, args.budget)
    out("edits", len(edit_ms))
    out("surfaces_repainted_median", int(np.median(painted)))
    out("surfaces_watched", len(probes))
    out("edit_to_paint_median_ms", percentile_ms(edit_ms, 50))
    out("edit_to_paint_p95_ms", percentile_ms(edit_ms, 95))
    # CPU time of this process for the same edits: what load on a shared machine cannot inflate.
    out("edit_to_paint_cpu_median_ms", percentile_ms(cpu_ms, 50))
    out("edit_to_paint_cpu_p95_ms", percentile_ms(cpu_ms, 95))
    burst_ms, updates = drag_burst(app, window, session, probes, args.moves)
    out("drag_burst_moves", args.moves)
    out("drag_burst_slider_ms", burst_ms, 1)
    out("drag_burst_slider_updates", updates)
    coalesced = coalesced_burst(app, session, probes, tensor, index, args.moves)
    if coalesced is not None:
        out("drag_burst_coalesced_ms", coalesced[0], 1)
        out("drag_burst_coalesced_updates", coalesced[1])
    out("peak_rss_mb", peak_rss_mb(), 0)
    from app.document import Answer
    window.document.answer_unsaved = lambda *args: Answer.DISCARD   # the edits: no modal question on close
    window.close()
    if size == "gpt2-small":
        from core.formats.scenario import load_scenario
        path = ROOT / "resources" / "scenarios" / "gpt2-small-shape.json"
        if path.exists():
            start = time.perf_counter()
            load_scenario(path)
            out("file_read_ms", (time.perf_counter() - start) * 1000.0, 0)
    return 0


# --- several sizes: one process per part ---------------------------------------------------------

def run_child(size: str | None, part: str, args) -> None:
    """Run one part in a fresh process (its own peak RSS, its own start-up), relaying its lines;
    size None: the default block."""
    command = [sys.executable, str(Path(__file__).resolve()), "--edits", str(args.edits)]
    if size is not None:
        command += ["--size", size, "--part", part, "--moves", str(args.moves), "--budget", str(args.budget)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
        lines = [line for line in result.stdout.splitlines() if line.strip()]
        for line in lines:
            print(line, flush=True)
        if result.returncode != 0:
            tail = result.stderr.strip().splitlines()[-1:] or [f"exit status {result.returncode}"]
            print(f"{size}.{part}=failed ({tail[0]})", flush=True)
    except subprocess.TimeoutExpired as stopped:
        for line in (stopped.stdout or b"").decode(errors="replace").splitlines():
            if line.strip():
                print(line, flush=True)
        print(f"{size}.{part}=timeout (> {args.timeout:.0f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=300, help="single-weight edits per size (default 300)")
    parser.add_argument("--size", default=None,
                        help="lesson, d64, d256, gpt2-small, a comma list, or all (default: the default block only)")
    parser.add_argument("--part", choices=("session", "window"), default=None,
                        help="run one part of one size in this process (what --size runs in children)")
    parser.add_argument("--moves", type=int, default=30, help="slider positions in a drag burst (default 30)")
    parser.add_argument("--budget", type=float, default=30.0,
                        help="seconds of edits per size at most (at least 10 edits; default 30)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per part before it is stopped")
    args = parser.parse_args()

    if args.size is None:
        return default_block(args)
    sizes = list(PRESETS) if args.size == "all" else args.size.split(",")
    for size in sizes:
        if size not in PRESETS:
            parser.error(f"--size: expected one of {', '.join(PRESETS)} or all, got {size!r}")
    if args.part is not None:
        if len(sizes) != 1:
            parser.error("--part needs exactly one size")
        status = (session_part if args.part == "session" else window_part)(sizes[0], args)
        sys.stdout.flush()
        os._exit(status)        # every figure is out: skip tearing down thousands of items at large sizes
    print(f"window {WINDOW[0]}x{WINDOW[1]}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}", flush=True)
    for size in sizes:
        print(f"\n== {size}", flush=True)
        run_child(size, "session", args)
        run_child(size, "window", args)
    if args.size == "all":
        print("\n== default block (resources/scenarios/block-default.json)", flush=True)
        run_child(None, "default", args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
