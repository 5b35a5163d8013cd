"""File output shared by the library and the commands.

- :func:`write_atomic` writes a file whole or not at all (a temporary file in the same
  folder, then a rename), so a reader or a killed run never sees half a policy,
  checkpoint, table or hand history. A full disk, an exceeded quota, a read-only file
  system or a missing permission raise :class:`WriteError`, one line naming the file,
  and leave the file as it was.
- :class:`RunLock`: one writer per run folder (a lock file holding the owner's PID).
"""

from __future__ import annotations

import errno
import json
import math
import os
import socket
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

#: the errors of a write that the machine refuses, and how a message names them
DISK_ERRORS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EFBIG: "the file is too large for the file system",
}


class WriteError(OSError):
    """A result file that could not be written (:data:`DISK_ERRORS`); ``str()`` is one
    line naming the file, the reason and what was kept. ``errno`` and ``filename`` are
    those of the failed write."""

    def __init__(self, code: int, message: str, filename: str):
        super().__init__(code, message, filename)
        self.message = message

    def __str__(self) -> str:
        return self.message


def json_finite(obj: Any) -> Any:
    """``obj`` with every float that is not finite (NaN, inf) replaced by ``None``, in
    nested dicts, lists and tuples (tuples become lists): ``json.dumps`` would write them as
    ``NaN`` / ``Infinity``, which is not JSON (RFC 8259, section 6), where ``null`` is.
    Result files (``run.json``, ``tournament.json``) write a withheld interval bound so."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [json_finite(v) for v in obj]
    return obj


def write_error(path: Path, e: OSError) -> WriteError:
    """The :class:`WriteError` of a failed write of ``path``: ``cannot write PATH: the
    reason; the earlier PATH is kept`` (or ``nothing was written``)."""
    why = DISK_ERRORS.get(e.errno or 0, e.strerror or str(e))
    kept = ("the earlier version of the file is kept unchanged" if path.exists()
            else "nothing was written")
    return WriteError(e.errno or 0, f"cannot write {path}: {why}; {kept}", str(path))


def write_atomic(path: Path, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename.

    ``data`` is the bytes, or a function that writes them to the open temporary file
    (large files: nothing is held in memory twice).

    Raises:
        WriteError: the machine refused the write (:data:`DISK_ERRORS`: full disk,
            quota, read-only file system, permission); the temporary file is removed
            and ``path`` is as it was. Other errors (and those of ``data``) pass through.
    """
    path = Path(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
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
    except BaseException as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and not isinstance(e, WriteError) and e.errno in DISK_ERRORS:
            raise write_error(path, e) from None
        raise


# ---- one writer per run folder -----------------------------------------------------------

#: the lock file in a run folder, while a command writes it (:class:`RunLock`)
LOCK_FILE = "run.lock"


class RunLockedError(OSError):
    """The run folder is being written by another live process; ``str()`` is one line
    naming its PID, host, start and command."""


def _owner_text(owner: dict) -> str:
    parts = [f"PID {owner.get('pid', '?')}"]
    if owner.get("host") and owner.get("host") != socket.gethostname():
        parts.append(f"on {owner['host']}")
    if owner.get("started"):
        parts.append(f"since {owner['started']}")
    text = " ".join(parts)
    return text + (f": {owner['command']}" if owner.get("command") else "")


def _pid_alive(pid) -> bool | None:
    """Whether ``pid`` runs on this machine (``None``: cannot tell)."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    except OSError:
        return None
    return True


class RunLock:
    """One writer per run folder: the lock file ``folder/run.lock`` under an exclusive
    ``fcntl.flock``, holding the owner's PID, host, start time (UTC) and command (JSON).

    The kernel drops a ``flock`` when its process ends, however it ends (a kill, a
    crash): a lock file left behind by a dead owner is *stale*, taken over on the next
    :meth:`acquire`, which says so. A live owner's lock is refused
    (:class:`RunLockedError`, one line naming its PID). Taken again by the process
    that holds it (a command and the sweep it runs), it nests: only the outermost
    release lets go. On file systems without ``flock`` the owner's PID decides: a live
    PID on this host holds the folder.

    Use as a context manager, or :meth:`acquire` / :meth:`release`; the lock file is
    removed on release (also on an exception or Ctrl-C).

    Args:
        folder: the run folder; made (with its parents) if missing, and removed again on
            release if it was made here and holds nothing else.
        command: what the owner runs, for the message a second writer gets.
        made: the caller made ``folder`` for this run: it too is removed on release if
            nothing was written in it.
    """

    _held: dict[str, RunLock] = {}  # this process's locks, by folder

    def __init__(self, folder: str | Path, command: str = "", made: bool = False):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_FILE
        self.command = command
        self._fd: int | None = None
        self._depth = 0
        self._made_folder = made
        self._made_top = self.folder
        #: the note of :meth:`acquire` when used as a context manager
        self.note: str | None = None

    def _key(self) -> str:
        return str(self.folder.resolve())

    def acquire(self) -> str | None:
        """Take the lock. Returns a note when a stale lock was taken over (its PID and
        start), else ``None``.

        Raises:
            RunLockedError: another live process holds it (one line naming its PID).
            OSError: the folder or the lock file cannot be made.
        """
        outer = RunLock._held.get(self._key())
        if outer is not None and outer is not self:
            outer._depth += 1
            self._fd, self._depth = -1, 1  # nested: the outer lock holds the folder
            return None
        if self._fd is not None:
            self._depth += 1
            return None
        if not self.folder.is_dir():
            top = self.folder  # the outermost folder made here: removed again if unused
            while not top.parent.exists() and top.parent != top:
                top = top.parent
            self.folder.mkdir(parents=True)
            self._made_folder, self._made_top = True, top
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                previous = self._read(fd)
                if not self._flock(fd, previous):
                    raise RunLockedError(
                        f"{self.folder} is being written by another process "
                        f"({_owner_text(previous)}): one writer per run folder; wait for it "
                        f"to end, or stop it (kill {previous.get('pid', 'PID')})")
                try:  # its previous owner may have removed the file between open and flock
                    same = os.path.samestat(os.fstat(fd), os.stat(self.path))
                except FileNotFoundError:
                    same = False
                if same:
                    break
            except BaseException:
                os.close(fd)
                self._undo_folder()
                raise
            os.close(fd)
        previous = self._read(fd)  # as it is now, under the lock
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
                  "command": self.command}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        self._fd, self._depth = fd, 1
        RunLock._held[self._key()] = self
        if previous.get("pid") and previous.get("pid") != os.getpid():
            return (f"took over the stale lock of {self.folder} ({_owner_text(previous)}; "
                    "that process has ended)")
        return None

    @staticmethod
    def _read(fd: int) -> dict:
        try:
            text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
            owner = json.loads(text) if text.strip() else {}
        except (OSError, ValueError):
            owner = {}
        return owner if isinstance(owner, dict) else {}

    @staticmethod
    def _flock(fd: int, previous: dict) -> bool:
        """Whether the lock is ours now."""
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        except OSError as e:  # no flock on this file system: the owner's PID decides
            if e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                raise
            same_host = previous.get("host") in (None, socket.gethostname())
            return not (same_host and previous.get("pid") != os.getpid()
                        and _pid_alive(previous.get("pid")))

    def release(self) -> None:
        """Let go (the outermost release of a nested lock); removes the lock file."""
        if self._fd is None:
            return
        if self._fd == -1:  # nested in another RunLock of this process
            outer = RunLock._held.get(self._key())
            if outer is not None:
                outer.release()
            self._fd = None
            return
        self._depth -= 1
        if self._depth > 0:
            return
        RunLock._held.pop(self._key(), None)
        try:
            os.unlink(self.path)  # under the lock: a waiting opener sees another file
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None
        self._undo_folder()

    def _undo_folder(self) -> None:
        if self._made_folder:
            folder = self.folder
            try:  # only if empty (nothing was written), up to the first folder made here
                while True:
                    folder.rmdir()
                    if folder == self._made_top or folder.parent == folder:
                        break
                    folder = folder.parent
            except OSError:
                pass
            self._made_folder = False

    def __enter__(self) -> RunLock:
        self.note = self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def holds_files(folder: Path) -> bool:
    """Whether ``folder`` holds anything but its :data:`LOCK_FILE`."""
    return any(p.name != LOCK_FILE for p in Path(folder).iterdir())
