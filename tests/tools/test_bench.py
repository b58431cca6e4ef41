"""tools/bench.py's summary of the speed targets (issue 13: median <= 8 ms, p95 <= 16 ms)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import bench
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return bench


def test_the_summary_counts_the_measurements_that_meet_both_targets_and_names_the_misses():
    bench = _bench()
    results = [("default block: W_in edit", 5.0, 9.0, 5.2, 9.5),
               ("c4-ffn.4.collapse lab xorW_in_0_0", 8.01, 11.0, 8.3, 12.0),    # the median misses
               ("r45.0.b4 session W_in", 7.9, 16.5, 8.0, 17.0),                  # the p95 misses
               ("model.0 session W_in", 8.0, 16.0, 8.0, 16.0),                   # on the line: met
               ("generations.1 session W_in", 9.0, 20.0, 9.0, 20.0)]             # both miss
    met, total, misses = bench.target_summary(results)
    assert (met, total) == (2, 5)
    assert misses == ["c4-ffn.4.collapse lab xorW_in_0_0: p50 8.01 ms",
                      "r45.0.b4 session W_in: p95 16.50 ms",
                      "generations.1 session W_in: p50 9.00, p95 20.00 ms"]
