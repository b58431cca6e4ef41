"""The GUI soak (tools/soak.py) as part of the suite: 500 random user actions through the real
window's widgets, in a subprocess (its own QApplication, settings and temporary folders)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_500_random_actions_raise_nothing():
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    environment.pop("DISPLAY", None)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "soak.py"), "--actions", "500", "--seed", "7"],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    figures = dict(re.findall(r"^(\w+)=(\S+)$", done.stdout, re.MULTILINE))
    assert figures.get("exceptions") == "0", done.stdout[-4000:] + done.stderr[-4000:]
    assert done.returncode == 0, done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    assert [line.split("=")[0] for line in lines[-3:]] == ["exceptions", "rss_growth_mb", "action_p95_ms"]
    float(figures["rss_growth_mb"]), float(figures["action_p95_ms"]), int(figures["object_growth"])
    assert "block-default.json" in done.stdout and "r45-ffn-residual-norm.json" in done.stdout   # files were opened


def test_the_report_names_the_anonymous_mappings_that_grew():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import soak
    finally:
        sys.path.remove(str(ROOT / "tools"))
    heap, stack, other = 0x7F0004000000, 0x7F0010001000, 0x7F0020003000
    first = {heap: (64 << 20, 2048.0), stack: (8 << 20, 100.0), other: (3 << 20, 1024.0)}
    last = {heap: (64 << 20, 12288.0), stack: (8 << 20, 100.0), 0x7F0030000000: (1 << 20, 1024.0)}
    lines = soak.anonymous_growth(first, last)
    assert lines[0] == "0x7f0004000000 64.0 -> 64.0 MB mapped, resident 2.0 -> 12.0 (+10.0): a thread's malloc heap"
    assert len(lines) == 3 and not any(line.startswith(hex(stack)) for line in lines)     # unchanged: left out
    assert any(line.startswith(hex(other)) and "(-1.0)" in line for line in lines)        # gone
    assert soak.mapping_kind(stack, 8 << 20) == "a thread's stack"
    assert soak.anonymous_mappings()                                                      # this process has some


class _Lab:                   # a holder with an attribute, as a lab's state holds its runs
    pass


def test_the_census_counts_arrays_by_holder_each_owner_once():
    """--object-diff's NumPy census: arrays are not gc objects, so a cache of as many but larger
    arrays shows only here (the model lab's traces, the soak's seed 2). Views count at their owner."""
    import numpy as np
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import soak
    finally:
        sys.path.remove(str(ROOT / "tools"))
    before = soak.numpy_bytes_by_holder()
    lab = _Lab()
    lab.run = np.zeros((1000, 100))                  # 800,000 bytes
    lab.rows = lab.run[10:20]                        # a view: not counted again
    lab.hooks = {"mlp.hook_post": np.ones(5000)}     # a dict gc does not track (it holds no gc object)
    after = soak.numpy_bytes_by_holder()
    assert after["_Lab.run"] == 800_000 and "_Lab.rows" not in after
    assert after["_Lab.hooks['mlp.hook_post']"] == 40_000
    assert after["<all arrays>"] - before["<all arrays>"] == 840_000
