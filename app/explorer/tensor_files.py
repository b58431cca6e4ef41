"""Tensors to and from files, worded for the user: export a hook or a weight (CSV, .npy), import
a weight matrix into the Session (one undo step, or one clear refusal and nothing changed).

The reading and writing themselves are core's (core.formats.tensor_file); this module picks the
files (dialogs starting in the user's documents folder), puts an import through the Session and
says what happened in the status bar (Session.message), in the user's language.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from core.formats.tensor_file import TensorFileError, fit, read_tensor, write_tensor
from core.numbers import format_exact

from app.session import Session

CONTEXT = "TensorFiles"
FILTERS = {".csv": "CSV (*.csv)", ".npy": "NumPy (*.npy)", ".txt": "Text (*.txt)"}


def tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def _shape(shape) -> str:
    return "×".join(map(str, shape))


def refusal_text(error: TensorFileError, path: Path) -> str:
    """One sentence: which file, what is wrong with it, that nothing changed."""
    d = error.details
    reasons = {
        "suffix": lambda: tr("only .csv, .tsv, .txt and .npy files hold a tensor (not “%1”)").replace("%1", d["suffix"]),
        "unreadable": lambda: tr("it cannot be read (%1)").replace("%1", str(d["error"])),
        "too_big": lambda: tr("it is %1 MiB; at most %2 MiB are read").replace("%1", str(d["size_mib"]))
        .replace("%2", str(d["limit_mib"])),
        "empty": lambda: tr("it holds no numbers"),
        "not_a_number": lambda: tr("line %1, item %2: “%3” is not a number").replace("%1", str(d["line"]))
        .replace("%2", str(d["column"])).replace("%3", str(d["text"])),
        "ragged": lambda: tr("line %1 has %2 numbers, the lines before it %3").replace("%1", str(d["line"]))
        .replace("%2", str(d["count"])).replace("%3", str(d["expected"])),
        "not_npy": lambda: tr("it is not a NumPy array file (pickled objects are never loaded)"),
        "not_real": lambda: tr("it holds %1 values, not real numbers").replace("%1", str(d["dtype"])),
        "dimensions": lambda: tr("it has %1 axes; a tensor here has 1 to 3").replace("%1", str(d["ndim"])),
        "bad_value": lambda: tr("the number at %1 is %2: values must be finite and within ±1,000,000")
        .replace("%1", str(list(d["index"]))).replace("%2", format_exact(d["value"])),
    }
    why = reasons.get(error.reason, lambda: str(error))()
    return tr("%1: %2; nothing changed.").replace("%1", Path(path).name).replace("%2", why)


def ask_save_path(parent: QWidget, name: str, suffix: str) -> Path | None:
    """A save dialog starting in the user's documents folder with `name`; None when cancelled."""
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation) or Path.home())
    path, _ = QFileDialog.getSaveFileName(parent, tr("Export"), str(folder / name), FILTERS[suffix])
    if not path:
        return None
    path = Path(path)
    return path if path.suffix else path.with_suffix(suffix)


def ask_open_path(parent: QWidget) -> Path | None:
    folder = QStandardPaths.writableLocation(QStandardPaths.DocumentsLocation) or str(Path.home())
    path, _ = QFileDialog.getOpenFileName(parent, tr("Import a weight matrix"), folder,
                                          tr("Tensors (*.csv *.tsv *.txt *.npy)"))
    return Path(path) if path else None


def export_tensor(session: Session, path: Path, array: np.ndarray, what: str, comments: tuple[str, ...] = ()) -> bool:
    """Write `array` to `path` (CSV or .npy by its suffix) and say so, or why not, in the status bar."""
    path = Path(path)
    try:
        write_tensor(path, array, comments)
    except TensorFileError as error:
        session.message.emit(tr("Cannot export to %1").replace("%1", str(path)) + ": " + refusal_text(error, path))
        return False
    except OSError as error:
        session.message.emit(tr("Cannot write %1: %2").replace("%1", str(path))
                             .replace("%2", error.strerror or str(error)))
        return False
    session.message.emit(tr("Exported %1 to %2").replace("%1", what).replace("%2", str(path)))
    return True


def import_tensor(session: Session, tensor: str, path: Path, head: int | None = None) -> bool:
    """Put the matrix in `path` into `tensor` as one undo step. It must have the tensor's shape,
    or, for a per-head tensor, one head's shape (it then goes into head `head`); a vector may be
    one row or one column. Anything else (or a value a cell would refuse) changes nothing and
    says why."""
    path = Path(path)
    try:
        array = read_tensor(path)
    except TensorFileError as error:
        session.message.emit(refusal_text(error, path))
        return False
    current = session.tensor(tensor)
    whole = fit(array, current.shape)
    if whole is None and current.ndim == 3 and head is not None and 0 <= head < current.shape[0]:
        one_head = fit(array, current.shape[1:])
        if one_head is not None:
            whole = np.array(current, dtype=np.float64)
            whole[head] = one_head
    if whole is None:
        needs = _shape(current.shape)
        if current.ndim == 3:
            needs = tr("%1 (or one head: %2)").replace("%1", needs).replace("%2", _shape(current.shape[1:]))
        session.message.emit(tr("%1 holds a %2 matrix; %3 needs %4; nothing changed.")
                             .replace("%1", path.name).replace("%2", _shape(array.shape))
                             .replace("%3", tensor).replace("%4", needs))
        return False
    return session.set_tensor(tensor, whole, tr("Import %1 from %2").replace("%1", tensor).replace("%2", path.name))
