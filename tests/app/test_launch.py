"""Starting Block Lab: the screenshot command (run in-process through `main.main`, as the
command line would call it) and the exception hook. The one end-to-end run of main.py in a
subprocess is in tests/core/test_trace_cli.py."""
from __future__ import annotations

import pytest
from PySide6.QtGui import QImage

import main


@pytest.mark.window
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_screenshot_command_writes_a_png_of_that_size(qapp, tmp_path, capsys, size):
    out = tmp_path / "shot.png"
    assert main.main(["screenshot", str(out), "--size", f"{size[0]}x{size[1]}"]) == 0
    assert capsys.readouterr().err == ""
    image = QImage(str(out))
    assert (image.width(), image.height()) == size
    colours = {image.pixel(x, y) for x in range(0, size[0], 37) for y in range(0, size[1], 29)}
    assert len(colours) > 20                       # not blank


def test_screenshot_of_a_bad_file_exits_2(qapp, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main.main(["screenshot", str(tmp_path / "x.png"), str(bad)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


@pytest.mark.window
def test_screenshot_of_a_lesson_step(qapp, tmp_path, capsys):
    out = tmp_path / "step.png"
    assert main.main(["screenshot", str(out), "--lesson", "r45-ffn-residual-norm", "--step", "3",
                      "--size", "1280x800", "--lang", "zh"]) == 0, capsys.readouterr().err
    assert QImage(str(out)).size().width() == 1280
    assert main.main(["screenshot", str(out), "--lesson", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


@pytest.mark.parametrize("arguments, fragment", [
    (["--size", "12x12"], "200 to 8192"),
    (["--size", "big"], "WIDTHxHEIGHT"),
])
def test_screenshot_size_is_checked_by_the_parser(tmp_path, capsys, arguments, fragment):
    with pytest.raises(SystemExit) as exit_:
        main.main(["screenshot", str(tmp_path / "x.png"), *arguments])
    assert exit_.value.code == 2
    assert fragment in capsys.readouterr().err


def test_a_step_below_one_is_refused(qapp, tmp_path, capsys):
    assert main.main(["screenshot", str(tmp_path / "x.png"), "--lesson", "r45-ffn-residual-norm",
                      "--step", "0"]) == 2
    assert "--step" in capsys.readouterr().err


def test_exception_hook_logs_and_keeps_running(qtbot, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QMessageBox, QWidget

    import app.launch as launch
    widget = QWidget()                          # something the user is working in
    qtbot.addWidget(widget)
    widget.show()
    shown = []
    monkeypatch.setattr(launch, "LOG_PATH", tmp_path / "blocklab.log")
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append(self.detailedText()) or 0)
    try:
        raise RuntimeError("a bug in a slot")
    except RuntimeError as error:
        launch._exception_hook(type(error), error, error.__traceback__)
    assert shown and "a bug in a slot" in shown[0]
    assert "a bug in a slot" in (tmp_path / "blocklab.log").read_text()
    assert widget.isVisible()


def test_chinese_text_is_drawn_in_a_simplified_chinese_face(qapp):
    """The app's font, and the fixed-width one of the FFN page, draw Han characters in a
    Simplified Chinese face (Qt's own fallback picked Noto Sans CJK JP: Japanese glyph forms)."""
    from PySide6.QtGui import QFontDatabase, QTextLayout

    from app.labs.ffn_page.common import mono_font
    from app.launch import _application
    from app.widgets.style import CHINESE_FAMILIES

    installed = [family for family in CHINESE_FAMILIES if family in QFontDatabase.families()]
    if not installed:
        pytest.skip("no Simplified Chinese font installed (tools/install-deps.sh installs one)")

    def faces(font, text: str) -> set[str]:
        layout = QTextLayout(text, font)
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        return {run.rawFont().familyName() for run in layout.glyphRuns()}

    before = qapp.font()
    latin, fixed = faces(before, "MSE"), faces(mono_font(), "0.5")
    try:
        _application(None)
        assert faces(qapp.font(), "直骨说这") == {installed[0]}
        assert faces(mono_font(), "直骨说这") == {installed[0]}
        assert faces(qapp.font(), "MSE") == latin            # the Latin text keeps its face
        assert faces(mono_font(), "0.5") == fixed
    finally:
        qapp.setFont(before)


# A pool thread's job as the labs' long work does it (large arrays, many smaller ones, a result),
# eight times, then what is left of private memory after malloc_trim (run in a fresh process each).
_POOL_JOBS = """
import ctypes, queue, sys, threading
import numpy as np
from app.launch import one_malloc_heap
if sys.argv[1] == "one" and not one_malloc_heap():
    sys.exit("one_malloc_heap() did not take")

def private_mb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssAnon")) / 1024

jobs, results = queue.Queue(), queue.Queue()
def pool_thread():
    while True:
        n = jobs.get()
        parts = [np.ones((1500 + n, 688)) for _ in range(6)]      # 8 MB each: glibc's thresholds rise
        pieces = [np.ones((100, 100)) for _ in range(300)]          # 80 KB each, in the thread's heap
        results.put(float(sum(part.sum() for part in parts + pieces)))
        del parts, pieces
threading.Thread(target=pool_thread, daemon=True).start()
before = private_mb()
for n in range(8):
    jobs.put(n)
    results.get()
ctypes.CDLL("libc.so.6").malloc_trim(0)
print(private_mb() - before)
"""


@pytest.mark.skipif(__import__("platform").libc_ver()[0] != "glibc", reason="glibc's malloc only")
def test_pool_threads_leave_no_freed_heap_behind_in_one_malloc_heap(monkeypatch):
    """The soak's ±10 MB in "other threads' malloc heaps": a pool thread's own heap keeps its freed
    top (malloc_trim gives back only the main heap's). With one heap for all threads it is given back."""
    import subprocess
    import sys
    from pathlib import Path
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    root = Path(__file__).resolve().parents[2]
    left = {how: float(subprocess.run([sys.executable, "-c", _POOL_JOBS, how], cwd=root, check=True,
                                      capture_output=True, text=True, timeout=60).stdout)
            for how in ("one", "default")}
    assert left["one"] < 4.0, left
    assert left["default"] > left["one"] + 4.0, left          # the thread's own heap kept its freed pages
