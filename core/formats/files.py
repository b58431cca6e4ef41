"""Reading a user's file with a size cap (the same way for scenarios and lessons), and writing one atomically."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class FileReadError(ValueError):
    """The file cannot be used at all; str() says why, without the file name."""


def read_capped(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, refused before reading when it is larger than max_bytes."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise FileReadError(f"expected at most {max_bytes // 2**20} MiB, got {size / 2**20:.0f} MiB")
        return path.read_bytes()
    except OSError as error:
        raise FileReadError(f"cannot be read ({error.strerror or error})") from None


def write_atomically(path: str | os.PathLike, data: bytes | str) -> None:
    """Write `data` (str is written as UTF-8) to `path` through a temporary file in the same
    folder and a rename: the old file stays whole if anything fails midway."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    handle, temporary = tempfile.mkstemp(prefix=".blocklab-", suffix=path.suffix, dir=path.parent or Path("."))
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
