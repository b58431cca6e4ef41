"""Autosave to a recovery folder, and restoring it after a crash.

Every running Block Lab has its own slot, a folder in `recovery_folder()` holding a lock file
(QLockFile: the slot belongs to a live process) and, while there is unsaved work, that work:
the block as it is now (a scenario file, with its .npz sidecar when big), a lesson's other
edited steps, and a small manifest that says what was open. Each autosave writes a new
generation of files and then the manifest (atomically), and only then deletes the previous
generation, so the manifest always names complete files, whenever the process dies.

The slot is written 2 s after the last edit (one single-shot timer), emptied when the work is
saved or undone back to the file, and removed on a clean exit. At the next start, a slot whose
lock is stale (its process is gone: a crash, a kill) is offered for restoring.
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, QTimer, Signal

from core.formats.files import write_atomically
from core.formats.scenario import Scenario, load_scenario, save_scenario

FORMAT = "blocklab-recovery"
VERSION = 1
MANIFEST = "manifest.json"
LOCK = "lock"
TEST_EDITS = "BLOCKLAB_TEST_EDITS"     # testing only: see apply_test_edits


def recovery_folder() -> Path:
    """Where the slots live: <the user's data folder>/blocklab/recovery (XDG_DATA_HOME on Linux)."""
    base = QStandardPaths.writableLocation(QStandardPaths.GenericDataLocation)
    return (Path(base) if base else Path.home() / ".local" / "share") / "blocklab" / "recovery"


@dataclass
class Snapshot:
    """The unsaved work to keep: the block now, and what it came from."""
    scenario: Scenario                       # the block as it is now
    path: Path | None = None                 # the document's file (None: a new block)
    loaded: Scenario | None = None           # what "reset" goes back to, when no file has it
    lesson: Path | None = None               # a lesson file open, at `step`
    step: int = 0
    edited: bool = True                      # the current step differs from the lesson's (lessons)
    kept: dict[int, Scenario] = field(default_factory=dict)   # a lesson's other edited steps


@dataclass
class Recovered:
    """A slot left behind by a process that is gone; `load()` reads its work back."""
    folder: Path
    manifest: dict
    lock: QLockFile

    @property
    def saved_at(self) -> float:
        return float(self.manifest.get("saved_at", 0.0))

    @property
    def path(self) -> Path | None:
        return _path(self.manifest.get("path"))

    @property
    def lesson(self) -> Path | None:
        return _path(self.manifest.get("lesson"))

    def load(self) -> Snapshot:
        """The work, read back; ScenarioError (or ValueError) if a file of the slot is damaged."""
        m = self.manifest
        scenario = load_scenario(self.folder / m["state"])
        loaded = load_scenario(self.folder / m["loaded"]) if m.get("loaded") else None
        kept = {int(step): load_scenario(self.folder / name) for step, name in m.get("kept", {}).items()}
        return Snapshot(scenario, self.path, loaded, self.lesson, int(m.get("step", 0)), bool(m.get("edited", True)), kept)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.lock.unlock()


def _path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str) and value else None


def find_recovered(folder: Path | None = None) -> list[Recovered]:
    """Slots whose process is gone and that hold work, newest first. Each one found is locked by
    this process (a second Block Lab starting now does not offer it too); an empty or unreadable
    slot of a dead process is removed."""
    folder = folder or recovery_folder()
    found = []
    try:
        slots = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    for slot in slots:
        lock = QLockFile(str(slot / LOCK))
        lock.setStaleLockTime(0)               # held for hours by a live process: never stale by age
        if not lock.tryLock(0):
            continue                           # a running Block Lab's slot
        try:
            manifest = json.loads((slot / MANIFEST).read_text(encoding="utf-8"))
            if manifest.get("format") != FORMAT or manifest.get("version") != VERSION or "state" not in manifest:
                raise ValueError("not a recovery manifest")
        except (OSError, ValueError):
            shutil.rmtree(slot, ignore_errors=True)
            lock.unlock()
            continue
        found.append(Recovered(slot, manifest, lock))
    found.sort(key=lambda item: item.saved_at, reverse=True)
    return found


class Autosave(QObject):
    """This process's recovery slot, written DELAY_MS after the last edit."""

    DELAY_MS = 2000
    failed = Signal(str)                  # an autosave could not be written (said once, not per edit)

    def __init__(self, snapshot, folder: Path | None = None, parent: QObject | None = None):
        """`snapshot()` returns the Snapshot to keep, or None when there is no unsaved work."""
        super().__init__(parent)
        self._snapshot = snapshot
        self._folder = folder
        self.slot: Path | None = None
        self._lock: QLockFile | None = None
        self._generation = 0
        self._failed_before = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(self.DELAY_MS)
        self.timer.timeout.connect(self.write)

    def schedule(self) -> None:
        """An edit: write the slot DELAY_MS from now (a later edit moves it later)."""
        self.timer.start()

    def flush(self) -> None:
        """Write now what a pending timer would have written."""
        if self.timer.isActive():
            self.timer.stop()
            self.write()

    def write(self) -> bool:
        """Write the slot now (or empty it if there is nothing unsaved). False if it failed."""
        self.timer.stop()
        snapshot = self._snapshot()
        if snapshot is None:
            self.clear()
            return True
        try:
            self._write(snapshot)
        except (OSError, ValueError) as error:
            if not self._failed_before:
                self._failed_before = True
                self.failed.emit(str(error))
            return False
        self._failed_before = False
        return True

    def _open_slot(self) -> Path:
        if self.slot is None:
            folder = self._folder or recovery_folder()
            slot = folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
            slot.mkdir(parents=True, exist_ok=True)
            lock = QLockFile(str(slot / LOCK))
            lock.setStaleLockTime(0)
            if not lock.tryLock(0):
                raise OSError(f"cannot lock {slot}")
            self.slot, self._lock = slot, lock
        return self.slot

    def _write(self, snapshot: Snapshot) -> None:
        slot = self._open_slot()
        slot.mkdir(parents=True, exist_ok=True)
        self._generation += 1
        prefix = f"g{self._generation}-"
        manifest = {"format": FORMAT, "version": VERSION, "saved_at": time.time(), "pid": os.getpid(),
                    "path": str(snapshot.path) if snapshot.path else None,
                    "lesson": str(snapshot.lesson) if snapshot.lesson else None,
                    "step": snapshot.step, "edited": snapshot.edited,
                    "title": dict(snapshot.scenario.title),
                    "state": prefix + "state.json"}
        save_scenario(snapshot.scenario, slot / manifest["state"])
        if snapshot.loaded is not None:
            manifest["loaded"] = prefix + "loaded.json"
            save_scenario(snapshot.loaded, slot / manifest["loaded"])
        kept = {}
        for step, scenario in snapshot.kept.items():
            kept[str(step)] = f"{prefix}step{step}.json"
            save_scenario(scenario, slot / kept[str(step)])
        manifest["kept"] = kept
        write_atomically(slot / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        for old in slot.iterdir():             # the generations before this one
            if old.name.startswith("g") and not old.name.startswith(prefix):
                old.unlink(missing_ok=True)

    def clear(self) -> None:
        """No unsaved work: empty the slot (the lock stays while the process runs)."""
        self.timer.stop()
        if self.slot is None:
            return
        try:
            for old in list(self.slot.iterdir()):
                if old.name != LOCK:
                    old.unlink(missing_ok=True)
        except OSError:
            pass                               # nothing there to keep anyway

    def close(self) -> None:
        """A clean exit: remove the slot altogether."""
        self.timer.stop()
        if self.slot is not None:
            self.clear()
            self._lock.unlock()
            shutil.rmtree(self.slot, ignore_errors=True)
            self.slot, self._lock = None, None

    @property
    def has_work(self) -> bool:
        return self.slot is not None and (self.slot / MANIFEST).exists()


def apply_test_edits(session) -> int:
    """Testing only: apply the edits the environment variable BLOCKLAB_TEST_EDITS names, a JSON
    list of [tensor, index, value] (e.g. [["W_in", [0, 0], 2.5]]), as typed cell edits. The
    recovery test starts the real app with it, waits for the autosave and kills the process.
    Returns how many edits went in."""
    text = os.environ.get(TEST_EDITS)
    if not text:
        return 0
    done = 0
    for tensor, index, value in json.loads(text):
        done += bool(session.set_value(str(tensor), tuple(int(i) for i in index), float(value)))
    return done


__all__ = ["Autosave", "Recovered", "Snapshot", "find_recovered", "recovery_folder", "apply_test_edits"]
