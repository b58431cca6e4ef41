"""A GUI soak: the real main window through N random user actions, reproducible from a seed.

    python tools/soak.py --actions 10000 --seed 1 [--all-files] [--offscreen] [--object-diff [--tracemalloc N]]

Every action goes through the widgets themselves, found generically in the current window (by
type, visible and enabled), so a lab or panel added later is covered without a change here:
typing into editable table cells (numbers and refused text such as `abc`, `nan`, `1e400`),
dragging sliders, combo boxes and spin boxes by keys, tab clicks, clicks and wheel turns on
every graphics view (the block's nodes and tokens, the plots, the labs), buttons, menu actions,
lesson step keys (PageDown / PageUp), the interface zoom (Ctrl+= / Ctrl+-), undo / redo and
File → Open on every shipped scenario and lesson. Modal dialogs never hang it: the file
dialogs' static methods are replaced (they return shipped files, or files the soak exported
into its own temporary folder, or "cancelled"), and a timer answers any message box or closes
any dialog or popup menu that opens.

Offscreen unless DISPLAY is set (then a real window, e.g. under Xvfb); `--offscreen` forces it.
Settings, recovery slots, the log and saved files live in a temporary folder.

It prints every exception's traceback (through sys.excepthook, which PySide6 calls for errors
in slots and virtual methods), then figures, ending with machine-readable lines:

    action_p50_ms=X  object_growth=N  private_growth_mb=X  file_growth_mb=X  exceptions=N  rss_growth_mb=X
    action_p95_ms=X

(rss_growth_mb is resident memory, all of it; private_growth_mb and file_growth_mb are its two parts:
private memory, and the pages of mapped files such as the CJK fonts' glyphs.)

Before the actions a tour builds what is built once (every file and lesson step, the largest sizes,
every zoom level, theme and language) and, from 1,000 actions on, draws every character the soak
can show in every font the window holds (warm_glyphs: Qt's glyph caches and the fonts' pages).
Memory is compared at two checkpoints in the same state (the default block, no lesson, 100 %
zoom, no background job: running ones are cancelled, the labs' cached results of long work
emptied through their forget_results(), the window left idle 12 s (--idle-seconds; 0 under 1,000 actions: Qt's
font cache frees unused font engines on a 10 s timer), garbage collected, the C heap's free pages
given back with malloc_trim; the RSS before that is printed too, and how much of it is private
memory and how much pages of mapped files such as fonts): after the warm-up (the first 10 % of the
actions) and at the end.
With --object-diff the two checkpoints also count Python objects by type and the window's Qt objects
(by class, and by class, objectName and parent; every widget; every graphics scene's items) and the
bytes of every NumPy array by holder (arrays live in the C heap and are not gc objects), and
print what grew, with the chain of referrers that keeps the newest object of each growing type
(--tracemalloc N adds tracemalloc's growing lines, N frames deep; slow).
An action's latency runs from the action until the window has delivered every paint it caused.
The exit status is 1 if any exception was caught.
"""
from __future__ import annotations

import argparse
import faulthandler
import gc
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))          # soak this checkout, not an installed copy

LARGE_SIDECAR = 1_000_000              # bytes: scenarios with a bigger .npz need --all-files

REFUSED = ("abc", "nan", "NaN", "1e400", "-1e400", "inf", "-inf", "", "  ", "1,5", "0x10", "__import__('os')",
           "{{1}}", "1e6 2", "--1", "1e", ".", "e5", "1e309")
EXTREME = ("1e6", "-1e6", "1e-300", "-0", "0", "1e5", "−2.5", " 3 ", "999999", "1e-7")


def rss_mb(field: str = "VmRSS") -> float:
    """Resident memory in MB: all of it (VmRSS), or its private part (RssAnon: the heaps, NumPy's
    arrays, Qt's objects) or the pages of mapped files (RssFile: libraries and fonts, shared with
    the page cache and given back under pressure; the CJK fonts' glyphs add tens of MB the first time
    they are drawn)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def trim_malloc() -> None:
    """Give the C heap's free pages back (glibc's malloc_trim), so that RSS at a checkpoint counts live
    memory, not what the allocator keeps free in its arenas (the background workers' threads each get
    one); a no-op elsewhere."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def rss_by_mapping() -> dict[str, float]:
    """Resident KB by what is mapped (/proc/self/smaps): a file's path (its mappings summed: Qt maps
    a font once per face it opens), "[heap]", or "[anon]" (NumPy's large arrays, malloc's arenas)."""
    found: dict[str, float] = {}
    name = "[anon]"
    try:
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as smaps:
            for line in smaps:
                parts = line.split()
                if not parts[0].endswith(":"):
                    name = parts[5] if len(parts) > 5 else "[anon]"
                elif parts[0] == "Rss:":
                    found[name] = found.get(name, 0.0) + float(parts[1])
    except OSError:
        pass
    return found


def anonymous_mappings() -> dict[int, tuple[int, float]]:
    """Every anonymous read-write mapping (/proc/self/smaps) by start address: (its size in bytes, its
    resident KB). The report compares two of these, to say which mappings the private growth is in: a
    thread's malloc heap (64 MB-aligned), a thread's stack (8 MB), Python's arenas (1 MB each, the kernel
    merges neighbours), NumPy's or OpenBLAS's buffers (mmapped directly)."""
    found: dict[int, tuple[int, float]] = {}
    start = None
    try:
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as smaps:
            for line in smaps:
                parts = line.split()
                if not parts[0].endswith(":"):
                    begin, end = (int(x, 16) for x in parts[0].split("-"))
                    start = begin if len(parts) <= 5 and parts[1].startswith("rw") else None
                    size = end - begin
                elif parts[0] == "Rss:" and start is not None:
                    found[start] = (size, float(parts[1]))
    except OSError:
        pass
    return found


THREAD_HEAP, STACK = "a thread's malloc heap", "a thread's stack"


def mapping_kind(start: int, size: int) -> str:
    """A guess at what an anonymous mapping is, from its size and alignment."""
    if start % (64 << 20) == 0 and size <= 64 << 20:
        return THREAD_HEAP
    if size in (8 << 20, (8 << 20) - 4096):
        return STACK
    return "other (Python's arenas, NumPy's or a library's mmapped blocks)"


def anonymous_growth(first: dict[int, tuple[int, float]], last: dict[int, tuple[int, float]],
                     top: int = 8) -> list[str]:
    """The anonymous mappings whose resident memory changed most between two checkpoints."""
    moved = []
    for start in set(first) | set(last):
        size0, kb0 = first.get(start, (0, 0.0))
        size1, kb1 = last.get(start, (0, 0.0))
        if abs(kb1 - kb0) >= 512:
            moved.append((kb1 - kb0, start, size0, size1, kb0, kb1))
    moved.sort(key=lambda change: -abs(change[0]))
    return [f"{start:#x} {size0 / 2**20:.1f} -> {size1 / 2**20:.1f} MB mapped, resident {kb0 / 1024:.1f} -> "
            f"{kb1 / 1024:.1f} ({kb / 1024:+.1f}): {mapping_kind(start, size1 or size0)}"
            for kb, start, size0, size1, kb0, kb1 in moved[:top]]


def font_mappings() -> dict[str, int]:
    """How many times each font file is mapped (/proc/self/maps): FreeType maps a file once per face
    it opens, and Qt opened a face in use again after emptying its face cache (app/widgets/style.py,
    pin_font_faces)."""
    counts: dict[str, int] = {}
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.split()[-1]
                if path.lower().endswith((".ttf", ".ttc", ".otf", ".otc", ".pfb", ".pcf", ".pcf.gz")):
                    counts[path] = counts.get(path, 0) + 1
    except OSError:
        pass
    return counts


def python_arenas_mb() -> float:
    """What Python's small-object allocator holds in its arenas (anonymous mappings outside the C
    heap's figure): sys._debugmallocstats()' "arenas allocated current" × the arena size. An arena is
    given back only when every object in it is gone, so a peak of small objects can leave arenas
    partly used. NaN where unavailable."""
    import re
    try:
        with tempfile.TemporaryFile(mode="w+b") as out:
            sys.stderr.flush()
            saved = os.dup(2)
            os.dup2(out.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            out.seek(0)
            text = out.read().decode("ascii", errors="replace")
        current = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", text)
        size = re.search(r"arenas \* ([\d,]+) bytes/arena", text)
        if current and size:
            return int(current.group(1).replace(",", "")) * int(size.group(1).replace(",", "")) / 2**20
    except (AttributeError, OSError, ValueError):
        pass
    return float("nan")


def thread_stacks(mappings: dict[int, tuple[int, float]] | None = None) -> tuple[int, float, int, float]:
    """Of the anonymous mappings (anonymous_mappings(), read again if not given): those the size of a
    thread's stack (8 MB: glibc keeps up to 40 MB of finished threads' stacks for reuse) and their
    resident MB; and the heaps glibc's malloc makes for other threads than the main one (at a 64 MB
    boundary: a worker thread's allocations, freed or not, stay in its own heap) and their resident MB."""
    stacks, stack_mb, heaps, heap_mb = 0, 0.0, 0, 0.0
    for start, (size, kb) in (anonymous_mappings() if mappings is None else mappings).items():
        kind = mapping_kind(start, size)
        if kind == STACK:
            stacks, stack_mb = stacks + 1, stack_mb + kb / 1024
        elif kind == THREAD_HEAP:
            heaps, heap_mb = heaps + 1, heap_mb + kb / 1024
    return stacks, stack_mb, heaps, heap_mb


def settle_jobs(window, milliseconds: int) -> bool:
    """Cancel the window's background jobs and wait until each has stopped (False: still running)."""
    from PySide6.QtWidgets import QApplication

    from app.widgets.worker import Worker, settle
    for worker in window.findChildren(Worker):
        worker.cancel()
    return settle(QApplication.instance(), milliseconds)


def malloc_in_use_mb() -> float:
    """What the C heap has handed out and not had back (glibc's mallinfo2: every arena and the
    mmapped chunks): Qt's objects, NumPy's arrays, Python's large objects. NaN elsewhere."""
    try:
        import ctypes

        class MallInfo2(ctypes.Structure):
            _fields_ = [(name, ctypes.c_size_t) for name in
                        ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                         "fordblks", "keepcost")]
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
        mallinfo2.restype = MallInfo2
        info = mallinfo2()
        return (info.uordblks + info.hblkhd) / 2**20
    except (OSError, AttributeError):
        return float("nan")


def _key(key) -> str:
    """A dict key as the census names it: a string's or number's repr, else its type (the repr of a
    Qt wrapper whose object is gone raises)."""
    return repr(key) if isinstance(key, (str, int, float)) else type(key).__name__


def numpy_bytes_by_holder() -> "Counter[str]":
    """The bytes of every NumPy array Python can reach (each array's data counted once, at the array
    that owns it), by what holds it: `Class.attribute` for an object's attribute, `dict['key']`, or the
    holder's type. NumPy's data lives in the C heap, and an array is not one of gc's objects: a cache
    that keeps the same number of arrays but larger ones shows here and nowhere in the object counts.
    Dicts and tuples that hold only arrays and strings are not gc's objects either; they are looked
    into from their holder."""
    from collections import Counter

    import numpy as np
    counted: set[int] = set()
    held: Counter[str] = Counter()

    def count(where: str, value, depth: int = 0) -> None:
        if isinstance(value, np.ndarray):
            while isinstance(value.base, np.ndarray):
                value = value.base
            if id(value) not in counted and value.flags.owndata:
                counted.add(id(value))
                held[where] += value.nbytes
        elif depth < 3 and not gc.is_tracked(value):     # gc does not list it: look inside here
            if isinstance(value, dict):
                for key, item in value.items():
                    count(f"{where}[{_key(key)}]", item, depth + 1)
            elif isinstance(value, (tuple, list)):
                for item in value:
                    count(f"{where}[]", item, depth + 1)

    for holder in gc.get_objects():
        name = getattr(holder, "__name__", "") if isinstance(holder, type(gc)) else type(holder).__name__
        try:
            attributes = None if isinstance(holder, type) else getattr(holder, "__dict__", None)
        except Exception:                                   # a wrapper whose C++ object is gone
            attributes = None
        if isinstance(holder, dict):
            pairs = [(f"dict[{_key(key)}]", value) for key, value in holder.items()]
        elif isinstance(attributes, dict):
            pairs = [(f"{name}.{key}", value) for key, value in attributes.items()]
            pairs += [(name, value) for value in gc.get_referents(holder) if value is not attributes]
        else:
            pairs = [(name, value) for value in gc.get_referents(holder)]
        for where, value in pairs:
            count(where, value)
    held["<all arrays>"] = sum(held.values())
    return held


def numpy_moves(first: "Counter[str]", last: "Counter[str]", at_least: int = 10_000) -> list[tuple[str, int]]:
    """(holder, change in bytes) between two NumPy censuses, largest change first, by `at_least`."""
    moves = last.copy()
    moves.subtract(first)
    return sorted(((name, change) for name, change in moves.items()
                   if name != "<all arrays>" and abs(change) >= at_least), key=lambda move: -abs(move[1]))


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def private_folders() -> Path:
    """A temporary HOME / XDG folders: the soak never touches the user's settings or recovery slots."""
    home = Path(tempfile.mkdtemp(prefix="blocklab-soak-"))
    for name in ("config", "data", "cache", "Documents", "out"):
        (home / name).mkdir()
    (home / "config" / "user-dirs.dirs").write_text(f'XDG_DOCUMENTS_DIR="{home / "Documents"}"\n', encoding="utf-8")
    os.environ["HOME"] = str(home)
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")
    os.environ["XDG_CACHE_HOME"] = str(home / "cache")
    return home


def shipped_files(all_files: bool) -> tuple[list[Path], list[Path]]:
    """Every shipped scenario and lesson; large scenarios (a big .npz sidecar) only with all_files."""
    from core.resources import lessons_dir, scenarios_dir
    chosen, skipped = [], []
    for path in sorted(scenarios_dir().glob("*.json")) + sorted(lessons_dir().glob("*.json")):
        sidecar = path.with_suffix(".npz")
        large = sidecar.exists() and sidecar.stat().st_size > LARGE_SIDECAR
        (skipped if large and not all_files else chosen).append(path)
    return chosen, skipped



def _rows(model) -> int:
    return model.rowCount()


def _columns(model) -> int:
    """A list model (QListWidget's) has one column; PySide6 makes its columnCount private."""
    try:
        return model.columnCount()
    except TypeError:
        return 1

class Soak:
    """The window, the random user, the dialog answerer and the measurements."""

    def __init__(self, args, home: Path):
        from PySide6.QtCore import QEvent, QObject, QTimer
        from PySide6.QtWidgets import QFileDialog

        from app.launch import build_window
        from core.resources import default_scenario

        self.args, self.home = args, home
        self.rng = random.Random(args.seed)
        self.dialog_rng = random.Random(args.seed + 1)
        self.files, self.skipped = shipped_files(args.all_files)
        self.written: list[Path] = []          # files the soak exported or saved (re-imported later)
        self.opened: dict[str, int] = {}
        self.exceptions: list[str] = []
        self.warnings = 0
        self.dialogs = 0
        self.latency: dict[str, list[float]] = {}
        self.counts: dict[str, int] = {}
        self.answer = None                     # a forced answer for message boxes (checkpoints)
        self.default = default_scenario()
        self.censuses: list[dict] = []         # --object-diff: what was alive at each checkpoint
        self.untrimmed: list[float] = []       # RSS at each checkpoint before malloc_trim
        self.parts: list[tuple[float, float, float]] = []   # (RssAnon, RssFile, malloc in use) at checkpoints
        self.mappings: list[dict[str, float]] = []  # resident KB by mapping name at checkpoints
        self.font_maps: list[dict[str, int]] = []   # mappings of each font file at checkpoints
        self.anon_parts: list[tuple] = []      # (Python arenas MB, stacks, their MB, thread heaps, their MB)
        self.anon_maps: list[dict] = []        # anonymous mappings at checkpoints (anonymous_mappings)
        self.glyph_fonts = 0                   # fonts the tour drew every character in (warm_glyphs)
        self.unsettled = 0                     # checkpoints at which background jobs were still running

        sys.excepthook = self._exception
        sys.unraisablehook = lambda hook: self._exception(hook.exc_type, hook.exc_value, hook.exc_traceback)
        warnings.simplefilter("always")
        warnings.showwarning = self._warning

        from PySide6.QtCore import QtMsgType, qInstallMessageHandler
        self.qt_messages = 0

        def qt_message(kind, _context, text):
            if "propagateSizeHints" in text:       # the offscreen platform's, on every window resize
                return
            self.qt_messages += 1
            if self.qt_messages <= 5 or kind in (QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
                print(f"--- Qt message during action {self.done}: {text}", file=sys.stderr, flush=True)

        self._qt_handler = qt_message
        qInstallMessageHandler(qt_message)
        self.app, self.window = build_window(self.default, args.lang)
        self._patch_file_dialogs(QFileDialog)

        paint = QEvent.Type.Paint

        class PaintCounter(QObject):
            count = 0

            def eventFilter(self, _watched, event):  # noqa: N802 (Qt's name)
                if event.type() == paint:
                    PaintCounter.count += 1
                return False

        self.paints = PaintCounter(self.app)
        self.paint_counter = PaintCounter
        self.app.installEventFilter(self.paints)
        self.closer = QTimer()
        self.closer.setInterval(15)
        self.closer.timeout.connect(self._close_dialogs)
        self.closer.start()
        self.window.resize(*args.size)
        self.window.show()
        self.window.activateWindow()
        self.settle()

    # --- what must never happen -----------------------------------------------------------------
    def _exception(self, kind, value, trace) -> None:
        text = "".join(traceback.format_exception(kind, value, trace))
        self.exceptions.append(f"[action {self.done}] {text}")
        print(f"--- exception during action {self.done} ({self.last_action})\n{text}", file=sys.stderr, flush=True)

    def _warning(self, message, category, filename, lineno, file=None, line=None) -> None:
        self.warnings += 1
        if self.warnings <= 5:
            print(f"--- warning during action {self.done}: {category.__name__}: {message} ({filename}:{lineno})",
                  file=sys.stderr, flush=True)

    done = 0
    last_action = "start"
    detail = ""

    # --- dialogs --------------------------------------------------------------------------------
    def _patch_file_dialogs(self, dialog) -> None:
        soak = self

        def open_name(*_args, **_kwargs):
            soak.dialogs += 1
            pool = soak.files + soak.written
            if soak.dialog_rng.random() < 0.1:
                return "", ""
            return str(soak.dialog_rng.choice(pool)), ""

        def save_name(_parent=None, _caption="", directory="", _filter="", *_args, **_kwargs):
            soak.dialogs += 1
            if soak.dialog_rng.random() < 0.1:
                return "", ""
            suffix = Path(str(directory)).suffix or ".json"
            path = soak.home / "out" / f"soak-{len(soak.written) % 20}{suffix}"
            if path not in soak.written:
                soak.written.append(path)
            return str(path), ""

        dialog.getOpenFileName = staticmethod(open_name)
        dialog.getSaveFileName = staticmethod(save_name)
        dialog.getExistingDirectory = staticmethod(lambda *a, **k: str(soak.home / "out"))

    def _close_dialogs(self) -> None:
        """Answer what a modal loop is waiting for: a message box gets a random button (or the
        forced answer), any other dialog is rejected, a popup menu is closed."""
        from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()
            return
        for widget in QApplication.topLevelWidgets():
            if not widget.isVisible() or widget is self.window:
                continue
            if isinstance(widget, QMessageBox):
                self.dialogs += 1
                buttons = widget.buttons()
                wanted = [b for b in buttons if widget.buttonRole(b) == self.answer] if self.answer else []
                button = wanted[0] if wanted else (self.dialog_rng.choice(buttons) if buttons else None)
                if button is not None:
                    button.click()
                else:
                    widget.reject()
            elif isinstance(widget, QDialog):
                self.dialogs += 1
                widget.reject()

    # --- waiting for the screen -----------------------------------------------------------------
    def settle(self) -> float:
        """Deliver events until a pass paints nothing; the time of the last pass that painted."""
        start = time.perf_counter()
        last = None
        quiet = 0
        for _ in range(50):
            before = self.paint_counter.count
            self.app.processEvents()
            if self.paint_counter.count != before:
                last, quiet = time.perf_counter(), 0
            else:
                quiet += 1
                if quiet >= 2:
                    break
        return (last if last is not None else time.perf_counter()) - start

    # --- finding widgets ------------------------------------------------------------------------
    def widgets(self, kind) -> list:
        window = self.window
        return [w for w in window.findChildren(kind)
                if w.isVisible() and w.isEnabled() and w.window() is window and w.width() > 2 and w.height() > 2]

    def focus_target(self):
        from PySide6.QtWidgets import QApplication
        focus = QApplication.focusWidget()
        return focus if focus is not None and focus.window() is self.window else self.window

    # --- low-level input ------------------------------------------------------------------------
    @staticmethod
    def mouse(widget, kind, pos, button, buttons, modifiers=None) -> None:
        from PySide6.QtCore import QPointF, Qt
        from PySide6.QtGui import QMouseEvent
        local = QPointF(pos)
        event = QMouseEvent(kind, local, QPointF(widget.mapToGlobal(pos)), button, buttons,
                            modifiers if modifiers is not None else Qt.KeyboardModifier.NoModifier)
        from PySide6.QtWidgets import QApplication
        QApplication.sendEvent(widget, event)

    def click(self, widget, pos, double: bool = False) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        if double:
            QTest.mouseDClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos)
        else:
            QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos)

    def wheel_at(self, widget, pos, steps: int, ctrl: bool) -> None:
        from PySide6.QtCore import QPoint, QPointF, Qt
        from PySide6.QtGui import QWheelEvent
        from PySide6.QtWidgets import QApplication
        modifiers = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
        event = QWheelEvent(QPointF(pos), QPointF(widget.mapToGlobal(pos)), QPoint(), QPoint(0, 120 * steps),
                            Qt.MouseButton.NoButton, modifiers, Qt.ScrollPhase.NoScrollPhase, False)
        QApplication.sendEvent(widget, event)

    def key(self, widget, key, modifiers=None) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        QTest.keyClick(widget, key, modifiers if modifiers is not None else Qt.KeyboardModifier.NoModifier)

    @staticmethod
    def type_text(widget, text: str) -> None:
        """Type `text` key by key; characters QTest cannot name (the Unicode minus) as key events with text."""
        from PySide6.QtCore import QEvent, Qt
        from PySide6.QtGui import QKeyEvent
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication
        for char in text:
            if char.isascii():
                QTest.keyClicks(widget, char)
            else:                 # QTest.keyClicks asserts (and aborts) on a character outside ASCII
                for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                    QApplication.sendEvent(widget, QKeyEvent(kind, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier,
                                                             char))

    def cell_text(self) -> str:
        roll = self.rng.random()
        if roll < 0.3:
            return self.rng.choice(REFUSED)
        if roll < 0.45:
            return self.rng.choice(EXTREME)
        return f"{self.rng.uniform(-3, 3):.{self.rng.randint(0, 4)}f}"

    def announce(self) -> None:
        """With --trace: say what is about to be typed (an abort inside Qt leaves no other trace)."""
        if self.args.trace:
            print(f"{self.done} {self.last_action} {self.detail} ...", file=sys.stderr, flush=True)

    # --- the actions ----------------------------------------------------------------------------
    def act_type_cell(self) -> bool:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit
        views = [v for v in self.widgets(QAbstractItemView)
                 if v.editTriggers() != QAbstractItemView.EditTrigger.NoEditTriggers and v.model() is not None
                 and _rows(v.model()) > 0 and _columns(v.model()) > 0]
        if not views:
            return False
        view = self.rng.choice(views)
        model = view.model()
        index = model.index(self.rng.randrange(_rows(model)), self.rng.randrange(_columns(model)))
        if not model.flags(index) & Qt.ItemFlag.ItemIsEditable:
            return False
        view.scrollTo(index, QAbstractItemView.ScrollHint.EnsureVisible)
        rect = view.visualRect(index)
        if rect.isEmpty():
            return False
        self.click(view.viewport(), rect.center(), double=True)
        editor = QApplication.focusWidget()
        if not isinstance(editor, QLineEdit) or not view.isAncestorOf(editor):
            editors = [e for e in view.findChildren(QLineEdit) if e.isVisible()]
            if not editors:
                return True                       # the double click itself was the action
            editor = editors[0]
        editor.selectAll()
        text = self.cell_text()
        self.detail = f"typing {text!r} into {view.objectName() or type(view).__name__}"
        self.announce()
        self.type_text(editor, text)
        self.key(editor, self.rng.choice((Qt.Key.Key_Return, Qt.Key.Key_Return, Qt.Key.Key_Tab, Qt.Key.Key_Escape)))
        return True

    def act_slider(self) -> bool:
        from PySide6.QtCore import QEvent, QPoint, Qt
        from PySide6.QtWidgets import QAbstractSlider, QSlider, QStyle, QStyleOptionSlider
        sliders = self.widgets(QSlider) if self.rng.random() < 0.85 else self.widgets(QAbstractSlider)
        if not sliders:
            return False
        slider = self.rng.choice(sliders)
        if self.rng.random() < 0.3:               # keys: arrows, PageUp/Down, Home/End
            for _ in range(self.rng.randint(1, 4)):
                self.key(slider, self.rng.choice((Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Left, Qt.Key.Key_Right,
                                                  Qt.Key.Key_Home, Qt.Key.Key_End)))
            return True
        option = QStyleOptionSlider()
        slider.initStyleOption(option)
        handle = slider.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                               QStyle.SubControl.SC_SliderHandle, slider)
        start = handle.center() if handle.isValid() else slider.rect().center()
        left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
        self.mouse(slider, QEvent.Type.MouseButtonPress, start, left, left)
        position = QPoint(start)
        for _ in range(self.rng.randint(2, 8)):
            if slider.orientation() == Qt.Orientation.Horizontal:
                position = QPoint(self.rng.randint(-10, slider.width() + 10), start.y())
            else:
                position = QPoint(start.x(), self.rng.randint(-10, slider.height() + 10))
            self.mouse(slider, QEvent.Type.MouseMove, position, none, left)
            self.app.processEvents()
        self.mouse(slider, QEvent.Type.MouseButtonRelease, position, left, none)
        return True

    def act_combo(self) -> bool:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QComboBox
        combos = [c for c in self.widgets(QComboBox) if c.count() > 1]
        if not combos:
            return False
        combo = self.rng.choice(combos)
        keys = (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_Home, Qt.Key.Key_End)
        for _ in range(self.rng.randint(1, 3)):
            self.key(combo, self.rng.choice(keys))
        return True

    def act_spin(self) -> bool:
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QAbstractSpinBox
        spins = [s for s in self.widgets(QAbstractSpinBox) if not s.isReadOnly()]
        if not spins:
            return False
        spin = self.rng.choice(spins)
        if self.rng.random() < 0.6:
            for _ in range(self.rng.randint(1, 5)):
                self.key(spin, self.rng.choice((Qt.Key.Key_Up, Qt.Key.Key_Down)))
            return True
        self.key(spin, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        text = self.cell_text() if self.rng.random() < 0.5 else str(self.rng.randint(-5, 300))
        self.detail = f"typing {text!r} into {spin.objectName() or type(spin).__name__}"
        self.announce()
        self.type_text(spin, text)
        self.key(spin, Qt.Key.Key_Return)
        return True

    def act_step_key(self) -> bool:
        from PySide6.QtCore import Qt
        key = Qt.Key.Key_PageDown if self.rng.random() < 0.6 else Qt.Key.Key_PageUp
        self.key(self.focus_target(), key)
        return True

    def act_tab(self) -> bool:
        from PySide6.QtWidgets import QTabBar
        bars = [b for b in self.widgets(QTabBar) if b.count() > 1]
        if not bars:
            return False
        bar = self.rng.choice(bars)
        tab = self.rng.randrange(bar.count())
        rect = bar.tabRect(tab)
        if rect.isEmpty():
            return False
        self.click(bar, rect.center())
        return True

    def _graphics_item_point(self, view):
        """A point of the viewport on a random visible item of the view's scene (nodes, tokens, plot items)."""
        viewport = view.viewport()
        items = [item for item in view.items(viewport.rect()) if item.isVisible()]
        if not items:
            return None
        item = self.rng.choice(items)
        rect = item.sceneBoundingRect()
        point = view.mapFromScene(rect.center())
        if not viewport.rect().contains(point):
            return None
        return point

    def act_graphics_click(self) -> bool:
        from PySide6.QtWidgets import QGraphicsView
        views = self.widgets(QGraphicsView)
        if not views:
            return False
        view = self.rng.choice(views)
        point = None
        names = getattr(view, "node_names", None)
        if callable(names) and self.rng.random() < 0.7:     # the block diagram: a node or a token
            point = self._dataflow_point(view)
        if point is None:
            point = self._graphics_item_point(view)
        if point is None:
            return False
        self.click(view.viewport(), point, double=self.rng.random() < 0.1)
        return True

    def _dataflow_point(self, view):
        try:
            if self.rng.random() < 0.3 and hasattr(view, "token_rect"):
                tokens = len(getattr(getattr(view, "session", None), "tokens", ()))
                if not tokens:
                    return None
                rect = view.token_rect(self.rng.randrange(tokens))
            else:
                names = view.node_names()
                if not names:
                    return None
                rect = view.node_rect(self.rng.choice(names))
        except (IndexError, KeyError, ValueError, StopIteration):    # a token scrolled out of the diagram
            return None
        if rect is None or rect.isEmpty():
            return None
        point = view.mapFromScene(rect.center())
        return point if view.viewport().rect().contains(point) else None

    def act_wheel(self) -> bool:
        from PySide6.QtWidgets import QAbstractScrollArea
        areas = self.widgets(QAbstractScrollArea)
        if not areas:
            return False
        area = self.rng.choice(areas)
        viewport = area.viewport()
        point = viewport.rect().center()
        self.wheel_at(viewport, point, self.rng.choice((-2, -1, 1, 2)), ctrl=self.rng.random() < 0.3)
        return True

    def act_button(self) -> bool:
        from PySide6.QtWidgets import QAbstractButton
        buttons = self.widgets(QAbstractButton)
        if not buttons:
            return False
        button = self.rng.choice(buttons)
        self.click(button, button.rect().center())
        return True

    def act_menu(self) -> bool:
        """A menu item, as chosen from the menu bar (not Quit: the soak keeps the window)."""
        from PySide6.QtGui import QAction
        actions = []
        for menu_action in self.window.menuBar().actions():
            menu = menu_action.menu()
            if menu is None:
                continue
            stack = [menu]
            while stack:
                current = stack.pop()
                for action in current.actions():
                    if action.menu() is not None:
                        stack.append(action.menu())
                    elif isinstance(action, QAction) and action.isEnabled() and not action.isSeparator() \
                            and action.objectName() not in ("actionQuit",):
                        actions.append(action)
        if not actions:
            return False
        action = self.rng.choice(actions)
        self.detail = action.objectName() or action.text()
        self.announce()
        action.trigger()
        return True

    def act_zoom(self) -> bool:
        from PySide6.QtCore import Qt
        ctrl = Qt.KeyboardModifier.ControlModifier
        key = self.rng.choice((Qt.Key.Key_Equal, Qt.Key.Key_Equal, Qt.Key.Key_Minus, Qt.Key.Key_Minus, Qt.Key.Key_0))
        self.key(self.window, key, ctrl)
        return True

    def act_undo_redo(self) -> bool:
        from PySide6.QtCore import Qt
        ctrl = Qt.KeyboardModifier.ControlModifier
        if self.rng.random() < 0.6:
            self.key(self.window, Qt.Key.Key_Z, ctrl)
        else:
            self.key(self.window, Qt.Key.Key_Z, ctrl | Qt.KeyboardModifier.ShiftModifier)
        return True

    def act_open(self) -> bool:
        """File → Open on the next shipped file (in turn, so every one is opened)."""
        from PySide6.QtGui import QAction
        from PySide6.QtWidgets import QFileDialog
        path = self.files[self.counts.get("open", 0) % len(self.files)]
        original = QFileDialog.getOpenFileName
        QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (str(path), ""))
        try:
            self.window.findChild(QAction, "actionOpen").trigger()
        finally:
            QFileDialog.getOpenFileName = original
        self.opened[path.name] = self.opened.get(path.name, 0) + 1
        return True

    ACTIONS = (("type_cell", 16), ("slider", 8), ("combo", 8), ("spin", 7), ("step_key", 8), ("tab", 6),
               ("graphics_click", 12), ("wheel", 4), ("button", 9), ("menu", 4), ("zoom", 4),
               ("undo_redo", 8), ("open", 3))

    def one_action(self) -> None:
        names = [name for name, _ in self.ACTIONS]
        weights = [weight for _, weight in self.ACTIONS]
        for _ in range(10):
            name = self.rng.choices(names, weights)[0]
            self.last_action = name
            self.detail = ""
            start = time.perf_counter()
            if getattr(self, f"act_{name}")():
                elapsed = (time.perf_counter() - start) + self.settle()
                self.latency.setdefault(name, []).append(elapsed * 1000.0)
                self.counts[name] = self.counts.get(name, 0) + 1
                return
        self.settle()

    # --- checkpoints ----------------------------------------------------------------------------
    def tour(self) -> None:
        """Before the warm-up: build what is built once, on first use (every file, every lesson step
        and its lab panel, every zoom level, theme and presentation mode, the other language), so
        that memory measured later is growth, not first use."""
        from PySide6.QtGui import QAction
        from PySide6.QtWidgets import QMessageBox
        window = self.window
        self.answer = QMessageBox.ButtonRole.DestructiveRole
        try:
            for path in self.files:
                window.open_file(path)
                self.settle()
                if window.lessons.lesson is not None:
                    for _ in range(len(window.lessons.lesson) - 1):
                        window.lessons.next()
                        self.settle()
            # The block's sizes as large as the soak types them (300 into each spin box, one at a time):
            # what grows with a size up to a cap is then built here (the attention view makes a grid
            # slot, a whole pyqtgraph PlotItem, for each head shown up to six, and keeps it).
            from PySide6.QtWidgets import QSpinBox, QTabWidget
            # ... in a window twice as large: the attention grid shows as many heads as fit (two at
            # 1280×800, six at 2560×1600), and other panes take room the soak's actions give them
            window.resize(2 * self.args.size[0], 2 * self.args.size[1])
            self.settle()
            for name in ("configHeads", "configDff", "configDhead"):
                window.open_file(self.default)
                self.settle()
                box = window.findChild(QSpinBox, name)
                if box is not None and box.isEnabled():
                    box.setValue(min(300, box.maximum()))
                    self.settle()
                    for tabs in window.findChildren(QTabWidget, "plotsPanel"):   # each plot drawn at that size
                        for index in range(tabs.count()):
                            tabs.setCurrentIndex(index)
                            self.settle()
                        tabs.setCurrentIndex(0)
            window.open_file(self.default)
            window.resize(*self.args.size)
            self.settle()
            for name in ("actionInterfaceZoomIn",) * 7 + ("actionInterfaceZoomReset", "actionPresent",
                                                          "actionLeavePresentation"):
                window.findChild(QAction, name).trigger()
                self.settle()
            for action in window.presentation.theme_actions.values():
                action.trigger()
                self.settle()
            window.presentation.theme_actions["system"].trigger()
            for code in ("zh", "en", self.args.lang):      # the other language's fonts, once
                window.findChild(QAction, f"actionLanguage_{code}").trigger()
                self.settle()
            if self.args.idle_seconds > 0:           # memory is measured (not the suite's short run: 5 s)
                self.warm_glyphs()
        finally:
            self.answer = None

    def warm_glyphs(self) -> None:
        """Draw every character the soak can show (the shipped model's vocabulary and the shipped
        files' text) in every font the window holds, regular and bold.

        Qt keeps each glyph it has drawn, rasterised, in its font engine (a face at one size and
        weight) for as long as the engine lives: the engines of the fonts the widgets and graphics
        items hold live at both checkpoints, so their caches grow with the characters shown, up to
        the characters that exist × those fonts — a bounded cache, but one the actions fill slowly
        (each model-lab neuron's snippets show new characters of the 2,047). And the font files'
        pages holding those glyphs' outlines are read in once. Drawing all of them here, in the
        state the checkpoints return to (100 %, no presentation), makes the figures after the
        warm-up growth rather than first use. Engines of other zoom levels are not warmed: no font
        held at a checkpoint uses them, and Qt drops them (with their glyphs) when idle."""
        from PySide6.QtCore import QPointF
        from PySide6.QtGui import QFont, QImage, QPainter
        from PySide6.QtWidgets import QApplication, QGraphicsView

        window = self.window
        self.to_checkpoint_state(resize=False)
        chars = set()
        try:
            from app.labs.model.state import shared_model
            chars.update(shared_model().vocab)
        except Exception:                       # noqa: BLE001 (no model: the shipped text alone)
            pass
        for path in self.files:
            chars.update(path.read_text(encoding="utf-8", errors="replace"))
        text = "".join(sorted(c for c in chars if c.isprintable() and not c.isspace()))
        fonts: dict[str, QFont] = {}
        for widget in QApplication.allWidgets():
            fonts.setdefault(widget.font().key(), QFont(widget.font()))
        for view in window.findChildren(QGraphicsView):
            scene = view.scene()
            for item in scene.items() if scene is not None else ():
                font = getattr(item, "font", None)
                try:
                    value = font() if callable(font) else None
                except TypeError:
                    value = None
                if isinstance(value, QFont):
                    fonts.setdefault(value.key(), QFont(value))
        for font in list(fonts.values()):
            bold = QFont(font)
            bold.setBold(not font.bold())
            fonts.setdefault(bold.key(), bold)
        began = time.perf_counter()
        image = QImage(2400, 200, QImage.Format.Format_ARGB32_Premultiplied)
        painter = QPainter(image)
        for font in fonts.values():
            painter.setFont(font)
            for start in range(0, len(text), 40):   # lines that fit in the image: every glyph is drawn
                painter.drawText(QPointF(4, 150), text[start:start + 40])
        painter.end()
        self.glyph_fonts = len(fonts)
        self.glyph_seconds = time.perf_counter() - began

    def to_checkpoint_state(self, resize: bool = True) -> None:
        """The checkpoints' state: the default block, no lesson, no presentation, 100 % (and, with
        `resize`, the soak's window size); unsaved work is discarded when asked."""
        from PySide6.QtWidgets import QMessageBox

        from app.widgets.appearance import appearance
        window = self.window
        self.answer = QMessageBox.ButtonRole.DestructiveRole       # "Discard" when asked about unsaved work
        try:
            if window.presentation.active:
                window.presentation.leave()
            window.lessons.close()
            window.open_file(self.default)
            appearance().reset()
            if resize:
                window.resize(*self.args.size)
            self.settle()
        finally:
            self.answer = None

    def checkpoint(self) -> tuple[float, int]:
        """The same state each time (the default block, no lesson, 100 %), then memory."""
        from PySide6.QtCore import QCoreApplication, QEvent
        from PySide6.QtWidgets import QMessageBox

        self.to_checkpoint_state()
        self.answer = QMessageBox.ButtonRole.DestructiveRole
        try:
            # No background work at a checkpoint: memory is read in a steady state, not somewhere in
            # a job's progress (the model lab's ranking fills a 200 MB array for a minute or more).
            # Running jobs are cancelled (their panels start them again when next shown).
            if not settle_jobs(self.window, 120_000):
                self.unsettled += 1
            # The labs' bounded caches of long work's results (the model lab's ranking of each layer,
            # 10,000 snippets and their arrays, and its knock-out losses) emptied at every checkpoint:
            # otherwise the last checkpoint holds whatever rankings the actions happened to leave and
            # the first none. A lab panel says how through `forget_results()`; the parts compute again
            # what they need when next shown.
            for panel in getattr(self.window, "labs", {}).values():
                forget = getattr(panel, "forget_results", None)
                if callable(forget):
                    forget()
            self.settle()
        finally:
            self.answer = None
        # An idle window for a while, as a user's pause: Qt's font cache lets go of the font engines no
        # text uses any more (with their glyph caches and their font file mappings) on a 10 s timer.
        # The same wait at both checkpoints: a cache that only grows still shows.
        if self.args.idle_seconds > 0:
            from PySide6.QtCore import QEventLoop, QTimer
            loop = QEventLoop()
            QTimer.singleShot(int(self.args.idle_seconds * 1000), loop.quit)
            loop.exec()
        for _ in range(3):
            QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            self.app.processEvents()
            gc.collect()
        if self.args.object_diff:
            self.censuses.append(self.census())
            gc.collect()
        untrimmed = rss_mb()
        trim_malloc()
        self.untrimmed.append(untrimmed)
        self.parts.append((rss_mb("RssAnon"), rss_mb("RssFile"), malloc_in_use_mb()))
        self.mappings.append(rss_by_mapping())
        self.font_maps.append(font_mappings())
        mappings = anonymous_mappings()
        self.anon_parts.append((python_arenas_mb(), *thread_stacks(mappings)))
        self.anon_maps.append(mappings)
        return rss_mb(), len(gc.get_objects())

    def attach_heaptrack(self) -> None:
        """With --heaptrack FILE: heaptrack records from here on (after the warm-up's checkpoint); the soak
        ends with os._exit after its report, so heaptrack's "leaked" bytes are those allocated after the
        warm-up and still held at the last checkpoint."""
        import ctypes
        import subprocess
        try:
            ctypes.CDLL("libc.so.6").prctl(0x59616d61, ctypes.c_ulong(-1), 0, 0, 0)   # PR_SET_PTRACER_ANY
        except (OSError, AttributeError):
            pass
        self.heaptrack = subprocess.Popen(["heaptrack", "-o", self.args.heaptrack, "-p", str(os.getpid())],
                                          stdout=sys.stderr, stderr=sys.stderr)
        for _ in range(600):              # until the injected library is mapped
            time.sleep(0.1)
            if any("heaptrack" in name for name in rss_by_mapping()):
                break
        print(f"heaptrack attached: {self.args.heaptrack}", file=sys.stderr, flush=True)

    def print_checkpoint(self, number: int) -> None:
        """One line for the latest checkpoint, against the first (with --checkpoint-every)."""
        from PySide6.QtWidgets import QApplication
        anon0, file0, heap0 = self.parts[0]
        anon, file, heap = self.parts[-1]
        fonts = sum(kb for name, kb in self.mappings[-1].items() if "/fonts/" in name) / 1024
        fonts0 = sum(kb for name, kb in self.mappings[0].items() if "/fonts/" in name) / 1024
        arenas0, _, _, _, thread_heaps0 = self.anon_parts[0]
        arenas, _, _, _, thread_heaps = self.anon_parts[-1]
        print(f"checkpoint at {number}: rss {anon + file:.1f} MB; private {anon:.1f} ({anon - anon0:+.1f}), "
              f"C heap in use {heap:.1f} ({heap - heap0:+.1f}), Python's arenas {arenas:.1f} ({arenas - arenas0:+.1f}), "
              f"other threads' malloc heaps {thread_heaps:.1f} ({thread_heaps - thread_heaps0:+.1f}), files {file:.1f} ({file - file0:+.1f}; fonts "
              f"{fonts:.1f}, {fonts - fonts0:+.1f}); widgets {len(QApplication.allWidgets())}, top-level "
              f"{len(QApplication.topLevelWidgets())}, python objects {len(gc.get_objects())}", flush=True)
        if len(self.censuses) >= 2:            # with --object-diff: the NumPy arrays' bytes too
            first, last = self.censuses[0]["numpy"], self.censuses[-1]["numpy"]
            moved = "; ".join(f"{name} {change / 2**20:+.2f}" for name, change in numpy_moves(first, last)[:4])
            print(f"  NumPy arrays {last['<all arrays>'] / 2**20:.1f} MB "
                  f"({(last['<all arrays>'] - first['<all arrays>']) / 2**20:+.1f}); moved most: {moved}", flush=True)

    def census(self) -> dict:
        """With --object-diff: Python objects by type, and what Python does not see: the window's QObject
        descendants by class, every live widget, every graphics scene's items, tracemalloc's snapshot."""
        from collections import Counter

        from PySide6.QtCore import QObject
        from PySide6.QtWidgets import QApplication, QGraphicsView, QWidget
        children = self.window.findChildren(QObject)     # first: the wrappers it makes count at both checkpoints
        qt = Counter(type(o).__name__ for o in children)
        named = Counter(f"{type(o).__name__} {o.objectName()!r} in {type(o.parent()).__name__}" for o in children)
        del children
        gc.collect()
        python = Counter(type(o).__name__ for o in gc.get_objects())
        qt["<all widgets>"] = len(QApplication.allWidgets())
        qt["<top-level widgets>"] = len(QApplication.topLevelWidgets())
        window = self.window
        for widget in QApplication.allWidgets():          # what lives outside the window (Qt does not show it)
            top = QWidget.window(widget)                   # (a panel's `window` attribute may hide the method)
            if top is not window:
                qt[f"<outside the window: {type(widget).__name__} under {type(top).__name__} "
                   f"{top.objectName()!r}>"] += 1
        for view in self.window.findChildren(QGraphicsView):
            scene = view.scene()
            if scene is not None:
                qt[f"<scene items: {view.objectName() or type(view).__name__}>"] += len(scene.items())
        import tracemalloc
        snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
        return {"python": python, "qt": qt, "qt by name and parent": named, "snapshot": snapshot,
                "numpy": numpy_bytes_by_holder()}

    @staticmethod
    def print_keepers(name: str, depth: int = 4) -> None:
        """The chain of referrers of the newest object of type `name` (a cheap gc.get_referrers walk)."""
        import inspect
        objects = gc.get_objects()
        found = [o for o in objects if type(o).__name__ == name]
        del objects
        if not found:
            return
        target, seen = found[-1], set()
        del found
        for level in range(depth):
            holders = []
            for referrer in gc.get_referrers(target):
                if not inspect.isframe(referrer) and id(referrer) not in seen \
                        and not (isinstance(referrer, list) and len(referrer) > 1000):
                    holders.append(referrer)
            if not holders:
                break
            described = []
            for holder in holders[:4]:
                text = type(holder).__name__
                if isinstance(holder, dict):
                    owners = [type(o).__name__ for o in gc.get_referrers(holder) if not inspect.isframe(o)][:2]
                    keys = []                 # a loop, not a comprehension: `target` must not become a cell
                    for key, value in holder.items():
                        if value is target and len(keys) < 2:
                            keys.append(key)
                    text += f" {keys} of {owners}"
                elif isinstance(holder, (list, tuple)):
                    text += f"[{len(holder)}]"
                described.append(text)
            print(f"    {'  ' * level}<- {'; '.join(described)}")
            seen.add(id(target))
            target = holders[0]

    def print_object_diff(self, top: int = 25) -> None:
        if len(self.censuses) < 2:
            return
        first, last = self.censuses[0], self.censuses[-1]
        for kind in ("python", "qt", "qt by name and parent"):
            growth = last[kind].copy()
            growth.subtract(first[kind])
            rows = [(name, change) for name, change in growth.most_common() if change > 0][:top]
            shrunk = sorted(((n, c) for n, c in growth.items() if c < 0), key=lambda nc: nc[1])[:5]
            print(f"growing {kind} types (first checkpoint -> last):")
            for name, change in rows + shrunk:
                print(f"  {change:+8d}  {name} ({first[kind].get(name, 0)} -> {last[kind].get(name, 0)})")
        print(f"NumPy arrays' bytes (first checkpoint -> last): {first['numpy']['<all arrays>'] / 2**20:.1f} -> "
              f"{last['numpy']['<all arrays>'] / 2**20:.1f} MB; the holders that changed most:")
        for name, change in numpy_moves(first["numpy"], last["numpy"])[:12]:
            print(f"  {change / 2**20:+9.2f} MB  {name} ({first['numpy'].get(name, 0) / 2**20:.2f} -> "
                  f"{last['numpy'].get(name, 0) / 2**20:.2f})")
        print("  the largest holders at the last checkpoint: " + "; ".join(
            f"{name} {size / 2**20:.1f} MB" for name, size in last["numpy"].most_common(7)[1:]))
        growth = last["python"].copy()
        growth.subtract(first["python"])
        plain = {"ReferenceType", "dict", "list", "tuple", "function", "cell", "set", "method", "frame"}
        for name, change in [(n, c) for n, c in growth.most_common(40) if c > 0 and n not in plain][:6]:
            print(f"what keeps one {name} (referrers, up to 4 levels):")
            self.print_keepers(name)
        if first["snapshot"] is not None and last["snapshot"] is not None:
            print("growing allocations (tracemalloc, by line):")
            for stat in last["snapshot"].compare_to(first["snapshot"], "lineno")[:top]:
                print(f"  {stat}")

    def run(self) -> int:
        actions = self.args.actions
        warm = max(1, actions // 10)
        faulthandler.enable()
        baseline = None
        began = time.perf_counter()
        self.tour()
        self.tour_seconds = time.perf_counter() - began
        for number in range(actions):
            self.done = number
            faulthandler.dump_traceback_later(self.args.hang_seconds, exit=True)
            if number == warm:
                baseline = self.checkpoint()
                if self.args.heaptrack:
                    self.attach_heaptrack()
            self.one_action()
            every = self.args.checkpoint_every
            if every and number > warm and (number - warm) % every == 0:
                self.checkpoint()
                self.print_checkpoint(number)
            if self.args.trace:
                print(f"{number} {self.last_action} {self.detail}", file=sys.stderr, flush=True)
            if self.args.progress and number and number % self.args.progress == 0:
                print(f"... {number} actions, {time.perf_counter() - began:.0f} s, rss {rss_mb():.1f} MB "
                      f"(private {rss_mb('RssAnon'):.1f}, C heap in use {malloc_in_use_mb():.1f}), "
                      f"exceptions {len(self.exceptions)}", flush=True)
        self.done = actions
        if baseline is None:
            baseline = self.checkpoint()
        final = self.checkpoint()
        faulthandler.cancel_dump_traceback_later()
        seconds = time.perf_counter() - began
        self.report(baseline, final, seconds, warm)
        self.window.close()
        self.settle()
        return 1 if self.exceptions else 0

    def report(self, baseline, final, seconds: float, warm: int) -> None:
        every = [ms for samples in self.latency.values() for ms in samples]
        print(f"soak: {self.args.actions} actions, seed {self.args.seed}, window {self.args.size[0]}x{self.args.size[1]}, "
              f"platform {self.app.platformName()}, {seconds:.1f} s (the tour before the actions: "
              f"{getattr(self, 'tour_seconds', 0.0):.1f} s)")
        print(f"files opened: {', '.join(f'{name} x{count}' for name, count in sorted(self.opened.items())) or 'none'}")
        if self.skipped:
            print(f"files left out (large; --all-files opens them): {', '.join(p.name for p in self.skipped)}")
        print(f"dialogs answered: {self.dialogs}; python warnings: {self.warnings}; Qt messages: {self.qt_messages}")
        print("action          count   p50 ms   p95 ms   max ms")
        for name, _ in self.ACTIONS:
            samples = self.latency.get(name, [])
            if samples:
                print(f"{name:<14} {len(samples):>6} {percentile(samples, 50):>8.1f} {percentile(samples, 95):>8.1f} "
                      f"{max(samples):>8.1f}")
        print(f"memory after warm-up ({warm} actions): rss {baseline[0]:.1f} MB, {baseline[1]} objects; "
              f"at the end: rss {final[0]:.1f} MB, {final[1]} objects")
        if len(self.untrimmed) >= 2:
            print(f"rss before giving free heap pages back (malloc_trim): {self.untrimmed[0]:.1f} -> "
                  f"{self.untrimmed[-1]:.1f} MB ({self.untrimmed[-1] - self.untrimmed[0]:+.1f})")
            (anon0, file0, heap0), (anon1, file1, heap1) = self.parts[0], self.parts[-1]
            print(f"rss of which private (RssAnon): {anon0:.1f} -> {anon1:.1f} MB ({anon1 - anon0:+.1f}); "
                  f"mapped files (RssFile: libraries, fonts): {file0:.1f} -> {file1:.1f} MB ({file1 - file0:+.1f})")
            print(f"C heap in use (mallinfo2): {heap0:.1f} -> {heap1:.1f} MB ({heap1 - heap0:+.1f}); Python's "
                  f"own small-object arenas are outside it")
        if len(self.mappings) >= 2:
            first, last = self.mappings[0], self.mappings[-1]
            moved = sorted(((last.get(n, 0.0) - first.get(n, 0.0), n) for n in set(first) | set(last)),
                           key=lambda change: -abs(change[0]))
            print("rss by mapping (MB, first checkpoint -> last; the largest changes): " + "; ".join(
                f"{n} {first.get(n, 0.0) / 1024:.1f} -> {last.get(n, 0.0) / 1024:.1f} ({kb / 1024:+.1f})"
                for kb, n in moved[:6] if abs(kb) >= 512))
        if len(self.anon_parts) >= 2:
            (arenas0, stacks0, stack_mb0, heaps0, heap_mb0) = self.anon_parts[0]
            (arenas1, stacks1, stack_mb1, heaps1, heap_mb1) = self.anon_parts[-1]
            print(f"anonymous mappings: Python's arenas {arenas0:.1f} -> {arenas1:.1f} MB "
                  f"({arenas1 - arenas0:+.1f}); thread stacks (8 MB mappings) {stacks0} -> {stacks1}, resident "
                  f"{stack_mb0:.1f} -> {stack_mb1:.1f} MB ({stack_mb1 - stack_mb0:+.1f}); other threads' malloc "
                  f"heaps {heaps0} -> {heaps1}, resident {heap_mb0:.1f} -> {heap_mb1:.1f} MB ({heap_mb1 - heap_mb0:+.1f})")
        if len(self.anon_maps) >= 2:
            print("anonymous mappings whose resident memory moved most (first checkpoint -> last): "
                  + ("; ".join(anonymous_growth(self.anon_maps[0], self.anon_maps[-1])) or "none by 0.5 MB or more"))
        if len(self.font_maps) >= 2:
            first, last = self.font_maps[0], self.font_maps[-1]
            many = sorted(name for name in set(first) | set(last) if max(first.get(name, 0), last.get(name, 0)) > 1)
            print(f"font files mapped: {len(first)} -> {len(last)} files, {sum(first.values())} -> "
                  f"{sum(last.values())} mappings; more than once: "
                  + ("; ".join(f"{Path(n).name} {first.get(n, 0)} -> {last.get(n, 0)}" for n in many) or "none"))
        if self.glyph_fonts:
            print(f"the tour drew every character of the shipped texts and the model's vocabulary in "
                  f"{self.glyph_fonts} fonts ({getattr(self, 'glyph_seconds', 0.0):.1f} s)")
        if self.unsettled:
            print(f"background jobs still running at {self.unsettled} checkpoint(s) 120 s after being cancelled")
        for text in self.exceptions:
            print(text)
        self.print_object_diff()
        print(f"action_p50_ms={percentile(every, 50):.2f}")
        print(f"object_growth={final[1] - baseline[1]}")
        if len(self.parts) >= 2:          # rss_growth_mb's two parts: private memory, pages of mapped files
            print(f"private_growth_mb={self.parts[-1][0] - self.parts[0][0]:.1f}")
            print(f"file_growth_mb={self.parts[-1][1] - self.parts[0][1]:.1f}")
        print(f"exceptions={len(self.exceptions)}")
        print(f"rss_growth_mb={final[0] - baseline[0]:.1f}")
        print(f"action_p95_ms={percentile(every, 95):.2f}")


def parse_size(text: str) -> tuple[int, int]:
    width, height = text.lower().split("x")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=parse_size, default=(1280, 800), help="window size, e.g. 1024x768")
    parser.add_argument("--lang", default="en", choices=("en", "zh"))
    parser.add_argument("--all-files", action="store_true",
                        help="also open the large shipped scenarios (gpt2-small-shape: ~30 s and ~800 MB each time)")
    parser.add_argument("--offscreen", action="store_true", help="offscreen even when DISPLAY is set")
    parser.add_argument("--trace", action="store_true", help="print each action (and what was typed) to stderr")
    parser.add_argument("--progress", type=int, default=0, help="print a line every N actions")
    parser.add_argument("--hang-seconds", type=int, default=300,
                        help="an action taking longer than this dumps every thread's stack and exits")
    parser.add_argument("--object-diff", action="store_true",
                        help="print the Python types, Qt objects and scene items that grew between the checkpoints")
    parser.add_argument("--checkpoint-every", type=int, default=0, metavar="N",
                        help="after the warm-up, also take a checkpoint every N actions and print its memory "
                             "(is growth steady or a plateau?); it changes the actions that follow")
    parser.add_argument("--idle-seconds", type=float, default=None,
                        help="at each checkpoint, leave the window idle this long first (Qt's font cache frees "
                             "unused font engines on a 10 s timer); 12 from 1,000 actions, 0 below (the test "
                             "suite's short run checks exceptions, not memory)")
    parser.add_argument("--heaptrack", metavar="FILE",
                        help="attach heaptrack after the warm-up's checkpoint and end with os._exit after the report: "
                             "its leaked bytes are what was allocated after the warm-up and is still held")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES",
                        help="with --object-diff: trace allocations (FRAMES deep; slow) and print the growing lines")
    args = parser.parse_args(argv)
    if args.idle_seconds is None:
        args.idle_seconds = 12.0 if args.actions >= 1000 else 0.0
    if args.tracemalloc:
        import tracemalloc
        tracemalloc.start(args.tracemalloc)
    if args.offscreen or not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    home = private_folders()
    try:
        code = Soak(args, home).run()
        if args.heaptrack:
            sys.stdout.flush()
            sys.stderr.flush()
            shutil.rmtree(home, ignore_errors=True)
            os._exit(code)
        return code
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
