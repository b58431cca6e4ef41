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
