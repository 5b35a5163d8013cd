"""File output shared by the library and the commands: :func:`write_atomic` writes a file
whole or not at all (a temporary file in the same folder, then a rename), so a reader
or a killed run never sees half a policy, checkpoint, table or hand history."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    ``data`` is the bytes, or a function that writes them to the open temporary file
    (large files: nothing is held in memory twice)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes 0600; give the usual file mode
        with os.fdopen(fd, "wb") as f:
            if callable(data):
                data(f)
            else:
                f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
