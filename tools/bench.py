"""How fast an edit reaches the screen: on the default block, at every step of every shipped
lesson, and at every size up to a GPT-2-small layer.

    QT_QPA_PLATFORM=offscreen python tools/bench.py [--edits 300] [--step-edits 40]
    QT_QPA_PLATFORM=offscreen python tools/bench.py --no-lessons          # the default block only
    QT_QPA_PLATFORM=offscreen python tools/bench.py --lesson c4 --paints  # one lesson, paints per widget
    QT_QPA_PLATFORM=offscreen python tools/bench.py --lesson c4-ffn --step 6 --profile 25   # where one step's time goes
    QT_QPA_PLATFORM=offscreen python tools/bench.py --size gpt2-small
    QT_QPA_PLATFORM=offscreen python tools/bench.py --size all

Without --size (the default path), in one window of 1280x800:
1. a baseline: a bare repaint of an empty QWidget window of the same size (update() → its paint
   event), p50 and p95; every figure after it is also printed as a ratio to it (p50 to p50,
   p95 to p95, "x12.3"), so figures from noisy machines compare;
2. the default block (resources/scenarios/block-default.json), as always: the median and 95th
   percentile of a weight edit until every visible widget has repainted (one event filter on
   QEvent.Paint on each; the paints per edit are counted per widget and printed), the same edit's
   `core` recompute alone, start-up to the first painted window, wall and process-CPU figures,
   ending with `edit_to_paint_p95_ms=<number>`;
3. every step of every shipped lesson (resources/lessons/*.json), opened through the lesson
   controller as a learner would: a Session cell edit (one weight, W_in if the block has it) and,
   where the step shows a lab, the shown lab part's own main control (its first visible slider,
   else spin box) — p50/p95 wall and CPU for each, until the last repaint (a background worker
   the edit starts is waited for: its result's paint is part of the edit). Then the worst step,
   each measurement that misses a target (`misses the target: …`), how many meet both
   (`measurements_meeting_targets=N/M`, the default block included), the sum of the step
   medians, and the last line `worst_edit_to_paint_p95_ms=<number>`. `--step K` (with --lesson) measures
   step K only; `--profile N` runs each step's edits under cProfile and prints its N most costly
   functions (own time, and cumulative) — the figures under the profiler are not the bench's.
Target (issue 13): worst p95 ≤ 16 ms and median ≤ 8 ms (one frame at 60 Hz). On a loaded machine
compare the CPU figures and the ratios.

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
from bench_common import ROOT, deliver_paints, make_probe, percentile_ms, watch  # noqa: E402  (first: the environment)

import cProfile  # noqa: E402
import gc  # noqa: E402
import pstats  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402

PRESETS = ("lesson", "d64", "d256", "gpt2-small")
WINDOW = (1280, 800)


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

def watch_views(window) -> list:
    """Every surface that paints: the viewports of the block, the tables and the visible plots,
    and the labels."""
    from PySide6.QtWidgets import QLabel, QWidget
    views = [w for w in window.findChildren(QWidget)
             if w.isVisible() and (isinstance(w, QLabel) or w.objectName() == "qt_scrollarea_viewport")]
    return watch(views)


def settle(app, probes, passes: int = 5) -> None:
    """Let Qt deliver every update request (and a coalesced Session update); stop after a pass
    paints nothing and nothing is pending."""
    deliver_paints(app, probes, passes, busy=lambda: _pending(app))


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


# --- the default block (the figures kept since issue 6), then every lesson step --------------

class PaintCounter:
    """One event filter on every visible widget: when each was last painted and how often."""

    def __init__(self):
        from PySide6.QtCore import QEvent, QObject

        counter = self

        class _Filter(QObject):
            def eventFilter(self, watched, event):  # noqa: N802
                if event.type() == QEvent.Paint:
                    counter.last_paint = time.perf_counter()
                    key = watched.objectName() or type(watched).__name__
                    counter.counts[key] = counter.counts.get(key, 0) + 1
                return False

        self.filter = _Filter()
        self.last_paint = None
        self.counts: dict[str, int] = {}
        self.watched: list = []

    def watch(self, window) -> int:
        from PySide6.QtWidgets import QWidget
        for widget in self.watched:
            try:
                widget.removeEventFilter(self.filter)
            except RuntimeError:                # deleted since
                pass
        self.watched = [w for w in window.findChildren(QWidget) if w.isVisible()] + [window]
        for widget in self.watched:
            widget.installEventFilter(self.filter)
        return len(self.watched)


def busy_workers(window) -> list:
    """The background workers a lab or plot may start on an edit (their result is part of it)."""
    found = []
    for module, name in (("app.widgets.worker", "Worker"), ("app.labs.generations.worker", "Worker"),
                         ("app.labs.model.worker", "Job")):
        try:
            cls = getattr(__import__(module, fromlist=[name]), name)
        except ImportError:
            continue
        found += window.findChildren(cls)
    return found


def _busy(worker) -> bool:
    try:
        if getattr(worker, "busy", False) is True:
            return True
        running = getattr(worker, "is_running", None)
        return bool(running()) if running is not None else False
    except RuntimeError:
        return False


def settle_all(app, counter, session, workers, limit_s: float = 10.0) -> None:
    """Process events until the Session has no coalesced update pending, no worker runs, and a
    pass paints nothing."""
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        while getattr(session, "pending", False):
            app.processEvents()
        before = counter.last_paint
        app.processEvents()
        if counter.last_paint == before and not getattr(session, "pending", False) \
                and not any(_busy(w) for w in workers):
            app.processEvents()
            if counter.last_paint == before:
                return
        elif any(_busy(w) for w in workers):
            time.sleep(0.0005)


def timed_edits(app, counter, session, workers, edit, count: int, profiler=None):
    """`edit(step)` `count` times: wall and CPU ms until the last repaint it caused (under
    `profiler`, a cProfile.Profile, if given)."""
    wall, cpu = [], []
    for step in range(count):
        start, clock = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        edit(step)
        settle_all(app, counter, session, workers)
        if profiler is not None:
            profiler.disable()
        end = counter.last_paint if counter.last_paint is not None and counter.last_paint >= start else start
        wall.append(max(end, start) - start)
        cpu.append(time.process_time() - clock)
    return wall, cpu


def paint_times(app, counter, session, workers, edit, count: int) -> list[tuple[str, float]]:
    """A diagnostic (not a figure of the bench): `count` more edits, and for each widget that paints,
    the GUI thread's CPU time from its paint event to the next paint event of the same event-loop
    pass, or to the pass's end (so a pass's last widget also carries what follows its paint).
    Widgets by objectName, a viewport by its view's; ms per edit, most first."""
    from PySide6.QtCore import QEvent, QObject

    marks: list[tuple[float, str | None]] = []

    class _Times(QObject):
        def eventFilter(self, watched, event):  # noqa: N802
            if event.type() == QEvent.Type.Paint:
                name = watched.objectName()
                if name == "qt_scrollarea_viewport" or not name:
                    parent = watched.parentWidget()
                    name = (parent.objectName() or type(parent).__name__) if parent is not None else type(watched).__name__
                marks.append((time.thread_time(), name))
            return False

    spent: dict[str, float] = {}
    probe = _Times()
    app.installEventFilter(probe)
    try:
        for step in range(count):
            edit(step)
            marks.clear()
            while True:
                before = len(marks)
                app.processEvents()
                if len(marks) == before and not getattr(session, "pending", False) \
                        and not any(_busy(w) for w in workers):
                    break
                marks.append((time.thread_time(), None))
            for (start, name), (end, _) in zip(marks, marks[1:]):
                if name is not None:
                    spent[name] = spent.get(name, 0.0) + (end - start)
    finally:
        app.removeEventFilter(probe)
        settle_all(app, counter, session, workers)
    return sorted(((name, total * 1000.0 / count) for name, total in spent.items()), key=lambda item: -item[1])


def baseline(app, count: int):
    """A bare repaint of an empty QWidget window of the bench's size: update() → its paint."""
    from PySide6.QtWidgets import QWidget
    counter = PaintCounter()
    empty = QWidget()
    empty.resize(*WINDOW)
    empty.show()
    counter.watch(empty)
    while counter.last_paint is None:
        app.processEvents()
    wall = []
    for _ in range(count):
        start = time.perf_counter()
        empty.update()
        while counter.last_paint < start:
            app.processEvents()
        wall.append(counter.last_paint - start)
    empty.close()
    return percentile_ms(wall, 50), percentile_ms(wall, 95)


def weight_edit(session):
    """A Session cell edit: one weight of the block (W_in if it has one)."""
    names = [n for n in session.tensor_names() if n not in ("inputs", "targets")]
    name = "W_in" if "W_in" in names else names[0]
    index = (0,) * session.tensor(name).ndim
    values = edit_values(64)
    return name, lambda step: session.set_value(name, index, values[step % len(values)])


def lab_control(window):
    """The shown lab part's own main control: its first visible slider, else spin box."""
    from PySide6.QtWidgets import QDoubleSpinBox, QSlider, QSpinBox
    page = window.work.currentWidget()
    if window.work.currentIndex() == 0 or page is None:
        return None
    lab = next((w for w in window.labs.values() if w.parentWidget() is page), None)
    if lab is None:
        return None
    part = lab.part(lab.current_part())
    for kind in (QSlider, QDoubleSpinBox, QSpinBox):
        for control in part.findChildren(kind):
            if control.isVisible() and control.isEnabled() and control.maximum() > control.minimum():
                low, high = control.minimum(), control.maximum()
                span = high - low
                values = [low + span * f for f in (0.3, 0.6, 0.45, 0.7, 0.35, 0.55)]
                if not isinstance(control, QDoubleSpinBox):
                    values = [int(round(v)) for v in values]
                name = control.objectName() or type(control).__name__
                return name, lambda step, c=control, v=values: c.setValue(v[step % len(v)])
    return None


def print_profile(profiler, rows: int, edits: int) -> None:
    """The `rows` functions with the most own time, then the most cumulative time, per edit."""
    stats = pstats.Stats(profiler)
    for key, title in (("tottime", "own"), ("cumtime", "cumulative")):
        entries = sorted(stats.stats.items(), key=lambda item: -item[1][2 if key == "tottime" else 3])[:rows]
        print(f"      profile, {title} time per edit (ms):", flush=True)
        for (filename, line, name), (_calls, count, own, cumulative, _callers) in entries:
            where = filename.replace(str(ROOT) + "/", "")
            print(f"        {(own if key == 'tottime' else cumulative) * 1000.0 / edits:7.3f}  "
                  f"{count / edits:7.1f} calls  {name}  {where}:{line}", flush=True)


MEDIAN_TARGET_MS = 16.0 / 2.0       # issue 13: median <= 8 ms ...
P95_TARGET_MS = 16.0                 # ... and p95 <= 16 ms (one frame)


def target_summary(results) -> tuple[int, int, list[str]]:
    """How many measurements meet both targets, of how many, and those that miss (label: why).

    `results`: (label, wall p50, wall p95, ...) tuples, in ms."""
    misses = []
    for label, p50, p95, *_ in results:
        why = []
        if p50 > MEDIAN_TARGET_MS:
            why.append(f"p50 {p50:.2f}")
        if p95 > P95_TARGET_MS:
            why.append(f"p95 {p95:.2f}")
        if why:
            misses.append(f"{label}: {', '.join(why)} ms")
    return len(results) - len(misses), len(results), misses


def report_line(out, label: str, wall, cpu, base) -> float:
    p50, p95 = percentile_ms(wall, 50), percentile_ms(wall, 95)
    c50, c95 = percentile_ms(cpu, 50), percentile_ms(cpu, 95)
    out.note(f"  {label:<52} wall p50 {p50:6.2f} ms (x{p50 / base[0]:5.1f})  p95 {p95:6.2f} ms "
             f"(x{p95 / base[1]:5.1f})   cpu p50 {c50:6.2f}  p95 {c95:6.2f}")
    return p95


def default_block(args) -> int:
    from app.document import Answer
    from app.launch import build_window
    from core.block import forward
    from core.resources import default_scenario, lessons_dir

    app, window = build_window(default_scenario(), "en")
    window.document.answer_unsaved = lambda *args: Answer.DISCARD   # the edits: no modal question
    first_paint = show_window(app, window)
    startup_ms = (first_paint - START) * 1000.0
    for _ in range(5):
        app.processEvents()
    session = window.session
    _SESSION[:] = [session]
    counter = PaintCounter()
    watched = counter.watch(window)
    workers = busy_workers(window)
    out = Out()
    base = baseline(app, max(50, args.edits // 2))
    window.activateWindow()
    settle_all(app, counter, session, workers)
    edit_ms, cpu_ms, core_ms = [], [], []
    config = session.config
    counter.counts.clear()
    for value in edit_values(args.edits):
        start, cpu = time.perf_counter(), time.process_time()
        session.set_value("W_in", (0, 0), value)
        settle_all(app, counter, session, workers)
        edit_ms.append(max(counter.last_paint, start) - start)
        cpu_ms.append(time.process_time() - cpu)
        weights = {name: session.tensor(name) for name in session.tensor_names() if name not in ("inputs", "targets")}
        inputs = session.tensor("inputs")
        start = time.perf_counter()
        forward(config, weights, inputs)
        core_ms.append(time.perf_counter() - start)
    painted = sorted(counter.counts.items(), key=lambda item: -item[1])

    out.note(f"edits: {args.edits} on block-default (T=5, d=4, 2 heads, d_ff=6), window {WINDOW[0]}x{WINDOW[1]}")
    out.note(f"paints per edit by widget ({watched} visible widgets watched): "
             + ", ".join(f"{name} {count / args.edits:.1f}" for name, count in painted[:12]))
    out("baseline_repaint_median_ms", base[0], 3)
    out("baseline_repaint_p95_ms", base[1], 3)
    out("startup_to_first_paint_ms", startup_ms, 1)
    out("core_recompute_median_ms", percentile_ms(core_ms, 50), 3)
    out("core_recompute_p95_ms", percentile_ms(core_ms, 95), 3)
    out("edit_to_paint_cpu_median_ms", percentile_ms(cpu_ms, 50))
    out("edit_to_paint_cpu_p95_ms", percentile_ms(cpu_ms, 95))
    out.note(f"load average {os.getloadavg()[0]:.1f}")
    out("edit_to_paint_median_ms", percentile_ms(edit_ms, 50))
    out("edit_to_paint_median_ratio", percentile_ms(edit_ms, 50) / base[0], 1)
    out("edit_to_paint_p95_ratio", percentile_ms(edit_ms, 95) / base[1], 1)
    out("edit_to_paint_p95_ms", percentile_ms(edit_ms, 95))
    if args.no_lessons:
        window.close()
        return 0

    # Every step of every shipped lesson: a Session cell edit, and on a lab the lab's own control.
    results = [("default block: W_in edit", percentile_ms(edit_ms, 50), percentile_ms(edit_ms, 95),
                percentile_ms(cpu_ms, 50), percentile_ms(cpu_ms, 95))]
    out.note(f"\nlessons: {args.step_edits} edits per step (figures: ms, and x = ratio to the bare repaint)")
    for path in sorted(lessons_dir().glob("*.json")):
        if args.lesson and not any(part in path.stem for part in args.lesson.split(",")):
            continue
        window.document.open_lesson(path, 0, ask=False)
        lesson = window.lessons.lesson
        out.note(f"{path.stem} ({len(lesson.steps)} steps)")
        for index, step in enumerate(lesson.steps):
            if args.step is not None and index != args.step:
                continue
            window.lessons.go(index)
            for _ in range(3):
                app.processEvents()
            counter.watch(window)
            workers = busy_workers(window)
            settle_all(app, counter, session, workers, 30.0)
            edits = [("session " + weight_edit(session)[0], weight_edit(session)[1])]
            control = lab_control(window)
            if control is not None:
                edits.append(("lab " + control[0], control[1]))
            for kind, edit in edits:
                counter.counts.clear()
                profiler = cProfile.Profile() if args.profile else None
                wall, cpu = timed_edits(app, counter, session, workers, edit, args.step_edits, profiler)
                label = f"{path.stem}.{index}.{step.id} {kind}"
                report_line(out, label, wall, cpu, base)
                if profiler is not None:
                    print_profile(profiler, args.profile, len(wall))
                results.append((label, percentile_ms(wall, 50), percentile_ms(wall, 95),
                                percentile_ms(cpu, 50), percentile_ms(cpu, 95)))
                if args.paints:
                    top = sorted(counter.counts.items(), key=lambda item: -item[1])[:8]
                    out.note("      paints/edit: " + ", ".join(f"{n} {c / len(wall):.1f}" for n, c in top))
                if args.paint_times:
                    times = paint_times(app, counter, session, workers, edit, 20)
                    out.note("      paint CPU ms/edit: " + ", ".join(f"{n} {t:.2f}" for n, t in times[:10]))
    worst = max(results, key=lambda item: item[2])
    medians = [item[1] for item in results]
    out.note(f"\nworst: {worst[0]}  p50 {worst[1]:.2f} ms  p95 {worst[2]:.2f} ms "
             f"(x{worst[2] / base[1]:.1f} the bare repaint)")
    worst_cpu = max(results, key=lambda item: item[4])
    out.note(f"worst by process CPU: {worst_cpu[0]}  cpu p50 {worst_cpu[3]:.2f} ms  p95 {worst_cpu[4]:.2f} ms")
    out.note(f"load average {os.getloadavg()[0]:.1f}")
    met, total, misses = target_summary(results)
    for miss in misses:
        out.note(f"misses the target: {miss}")
    out("measurements_meeting_targets", f"{met}/{total}")
    out("sum_of_step_medians_ms", float(np.sum(medians)))
    out("median_of_step_medians_ms", float(np.median(medians)))
    out("median_of_step_cpu_medians_ms", float(np.median([item[3] for item in results])))
    out("worst_edit_to_paint_cpu_p95_ms", worst_cpu[4])
    out("worst_edit_to_paint_median_ms", max(medians))
    out("worst_edit_to_paint_p95_ratio", worst[2] / base[1], 1)
    out("worst_edit_to_paint_p95_ms", worst[2])
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
    else:
        command.append("--no-lessons")
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
    parser.add_argument("--step-edits", type=int, default=40, help="edits per lesson step (default 40)")
    parser.add_argument("--lesson", default=None, help="only lessons whose file name contains this (comma list)")
    parser.add_argument("--step", type=int, default=None, help="with --lesson: only step K (0-based)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile each step's edits (cProfile) and print its N most costly functions")
    parser.add_argument("--no-lessons", action="store_true", help="the default block only (as before issue 13)")
    parser.add_argument("--paints", action="store_true", help="print paints per edit by widget for each step")
    parser.add_argument("--paint-times", action="store_true",
                        help="after each step's edits, 20 more: GUI-thread CPU per edit by painting widget")
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
