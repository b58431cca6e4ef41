"""How long the engine takes at each size: the full forward against the incremental recompute
of one edited cell of each kind of tensor, the Session's edit → new trace at GPT-2-small size
(and a drag, per value and coalesced), and opening the shipped GPT-2-small-shaped scenario. Prints medians and 95th percentiles.

    python tools/bench_core.py [--runs 30] [--threads N]

--threads sets OPENBLAS_NUM_THREADS / OMP_NUM_THREADS before NumPy loads (default 1, as
main.py and tools/bench.py set it). On a busy 2-core machine threaded BLAS can be many times
slower than one thread; run both to see.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sizes", default="lesson,d64,d256,gpt2-small")
    args = parser.parse_args()
    if args.threads is not None:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.threads)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    import numpy as np

    from core.block import forward
    from core.formats.generate import preset
    from core.incremental import recompute, trace_after

    def stats(samples: list[float]) -> str:
        ms = np.array(samples) * 1000.0
        return f"median {np.median(ms):8.2f} ms   p95 {np.percentile(ms, 95):8.2f} ms"

    def timed(work, runs: int) -> list[float]:
        work()
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            work()
            samples.append(time.perf_counter() - start)
        return samples

    print(f"threads: OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}, "
          f"cpus={os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")
    edits = [("W_in", "one cell of W_in (a hidden unit)"), ("b_in", "one bias of a hidden unit"),
             ("W_out", "one cell of W_out (an output column)"), ("W_Q", "one cell of W_Q (one head)"),
             ("W_O", "one cell of W_O (one head)"), ("b_O", "one cell of b_O"), ("ln2.w", "one LayerNorm-2 gain")]
    for size in args.sizes.split(","):
        scenario = preset(size)
        config, weights, inputs = scenario.config, scenario.weights, scenario.inputs
        runs = args.runs if size != "gpt2-small" else max(5, args.runs // 3)
        print(f"\n{size}: T={len(scenario.tokens)} d={config.d_model} H={config.n_heads}×{config.d_head} "
              f"F={config.d_ff} ({config.norm_placement}-norm, {config.activation})")
        print(f"  {'full forward':46s} {stats(timed(lambda: forward(config, weights, inputs), runs))}")
        trace = forward(config, weights, inputs)
        rng = np.random.default_rng(0)
        for name, label in edits:
            if name not in weights:
                continue
            index = tuple(int(rng.integers(n)) for n in weights[name].shape)
            changed = np.array(weights[name])
            changed[index] += 0.01
            new_weights = {**weights, name: changed}
            given = timed(lambda: recompute(config, new_weights, inputs, trace, {name: [index]}), runs)
            found = timed(lambda: trace_after(config, weights, inputs, trace, new_weights, inputs), runs)
            print(f"  {label:46s} {stats(given)}   (finding the cell too: {stats(found)})")

    if "gpt2-small" in args.sizes.split(","):
        from PySide6.QtGui import QGuiApplication

        from app.session import Session
        from core.formats.scenario import load_scenario

        app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841
        path = ROOT / "resources" / "scenarios" / "gpt2-small-shape.json"
        print()
        print(f"  {'open gpt2-small-shape.json (load + checks)':46s} "
              f"{stats(timed(lambda: load_scenario(path), 5))}")
        scenario = load_scenario(path)
        session = Session(scenario)
        print(f"  {'Session(scenario): first full trace':46s} {stats(timed(lambda: Session(scenario), 3))}")
        for name, index in (("W_in", (100, 2000)), ("W_out", (2000, 100)), ("W_Q", (3, 100, 10))):
            values = iter(np.linspace(-0.5, 0.5, 1000))
            samples = timed(lambda: session.set_value(name, index, float(next(values)), merge=True),
                            max(5, args.runs // 3))
            print(f"  Session.set_value({name}{list(index)}) → new trace      {stats(samples)}")
        # A drag of one cell, 60 values: one update per value (set_value) against one per
        # frame (set_value_coalesced; here all 60 arrive within one frame).
        start = time.perf_counter()
        for step in range(60):
            session.set_value("W_in", (100, 2000), 0.001 * step, merge=True)
        session.end_gesture()
        print(f"  {'drag of 60 values, set_value':46s} {(time.perf_counter() - start) * 1000:8.2f} ms")
        start = time.perf_counter()
        for step in range(60):
            session.set_value_coalesced("W_in", (100, 2000), 0.002 * step)
        session.end_gesture()
        session.flush()
        print(f"  {'drag of 60 values, set_value_coalesced':46s} {(time.perf_counter() - start) * 1000:8.2f} ms")
        print(f"  {'undo stack: bytes of numbers it keeps':46s} {session.undo_nbytes():8d} B "
              f"for {session.undo_stack.count()} steps")
        samples = []
        for _ in range(5):
            session.set_value("W_in", (5, 5), float(rng.normal()))
            session.end_gesture()
            start = time.perf_counter()
            session.undo_stack.undo()
            samples.append(time.perf_counter() - start)
        print(f"  {'Session undo of one W_in cell':46s} {stats(samples)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
