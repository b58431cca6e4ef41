"""Issue 13: Block Lab paints without Qt's raster thread pool (app.launch.serial_painting). Qt hands
every fill of 96 or more spans to a pool of threads and waits for them, which for the sizes the app
paints costs more than the fill: a whole-window repaint of an R45 step took about twice as long.
Checked in a fresh process by the threads painting leaves behind (Linux: /proc), never by time."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAINT = """
import sys
from pathlib import Path
from app.launch import build_window
from core.resources import default_scenario, lessons_dir
app, window = build_window(default_scenario(), "en")
window.resize(1280, 800)
window.show()
window.document.open_lesson(lessons_dir() / "r45-ffn-residual-norm.json", 2, ask=False)
for _ in range(5):
    app.processEvents()
for _ in range(3):
    window.repaint()
names = [Path(task, "comm").read_text().strip() for task in Path("/proc/self/task").iterdir()]
print(sum(name == "Thread (pooled)" for name in names))
window.close()
"""


def pooled_threads(environment: dict) -> int:
    run = subprocess.run([sys.executable, "-c", PAINT], cwd=ROOT, env=environment, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return int(run.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the threads from Linux's /proc")
def test_the_app_paints_without_qts_thread_pool():
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("QT_NO_GUI_THREADPOOL", "BLOCKLAB_GUI_THREADPOOL")}
    environment["QT_QPA_PLATFORM"] = "offscreen"
    environment["PYTHONPATH"] = str(ROOT)
    assert pooled_threads(environment) == 0
    # Qt's own way, kept for measuring it: the same repaint starts the pool's threads.
    assert pooled_threads({**environment, "BLOCKLAB_GUI_THREADPOOL": "1"}) >= 1
