"""Reading a user's file with a size cap, the same way for scenarios and lessons."""
from __future__ import annotations

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
