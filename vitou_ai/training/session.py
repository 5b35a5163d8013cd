"""What a training session (and every other long command) does around its work: fresh
run folders, checks that an output can be written before any work, the one-writer lock
of a run folder (:class:`vitou_ai.io.RunLock`), one-line notes on stderr, progress bars
only on a terminal, and Ctrl-C handled so that a checkpoint is never cut short and numba's
compiled code is never interrupted.

These are library functions (the trainers of :mod:`vitou_ai.training` and the
experiments use them); :mod:`vitou_ai.commands.console` re-exports them for the command
line.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from ..rng import SEED_MAX, SEED_RANGE, seed_error  # noqa: F401  (the commands' names)

#: exit code of a command stopped by Ctrl-C (128 + SIGINT, as shells report it)
EXIT_INTERRUPTED = 130


def interrupted_line(command: str, kept: str | None = None) -> str:
    """The one line every command prints on Ctrl-C: ``vitou-ai train: interrupted: ...``."""
    return f"{command}: interrupted" + (f": {kept}" if kept else "")


def new_folder(base: str | Path, stem: str, stamp: str | None = None) -> Path:
    """Create and return a new folder ``base/stem-YYYYmmdd-HHMMSS`` (UTC; ``stamp``, the
    time the command records as its start, when given), with ``-2``, ``-3``... appended
    when that name is taken: never a folder that existed before.

    Raises:
        OSError: the folder cannot be created (``base`` not writable, a file in the way).
    """
    stamp = stamp or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        path = Path(base) / (f"{stem}-{stamp}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            continue
        return path
    raise OSError(f"no free folder name {Path(base) / stem}-{stamp}-N")


def check_writable(path: str | Path, kind: str = "folder", flag: str = "--out") -> None:
    """Refuse, before any work, an output ``path`` that could not be written at the end.

    ``kind`` is ``"folder"`` (``path`` is, or will be made, a folder) or ``"file"``
    (``path`` is a file to write); ``flag`` is the option named in the message. The nearest existing folder on the way is probed
    by creating and deleting a temporary file in it, so a read-only file system, a
    missing permission or a file in the way is found now; nothing is left behind
    and no folder is created.

    Raises:
        OSError: one line naming ``path`` and what is in the way.
    """
    import tempfile

    path = Path(path)
    if kind == "folder" and path.exists() and not path.is_dir():
        raise OSError(f"{flag} {path}: exists and is not a folder")
    if kind == "file" and path.is_dir():
        raise OSError(f"{flag} {path}: is a folder; give a file name, e.g. "
                      f"{path / 'out.json'}")
    probe = path if kind == "folder" else path.parent
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OSError(f"{flag} {path}: {probe} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as e:
        raise OSError(f"{flag} {path}: cannot write in {probe} ({e.strerror or e})") from None


#: bytes of memory per simulated deal or match beyond the simulator's own table (a row of
#: ``int32[N_FIELDS]``): the float64 columns the commands derive from it (returns, teams,
#: winners, points)
DERIVED_ROW_BYTES = 6 * 8


def check_simulation_memory(rows: float, what: str, hint: str = "give fewer") -> None:
    """Refuse, before any work, a simulation of ``rows`` deals or matches whose results
    would not fit in the memory available (:func:`vitou_ai.resources.check_memory`).

    Raises:
        vitou_ai.resources.ResourceError: one line naming ``what`` (the option) and the
            memory it needs.
    """
    from ..resources import check_memory
    from ..sim.batch import N_FIELDS

    check_memory(float(rows) * (4 * N_FIELDS + DERIVED_ROW_BYTES), what, hint)


def show_progress(stream: TextIO, no_progress: bool = False) -> bool:
    """Whether to draw a progress bar on ``stream``: only on a terminal, and not with
    ``--no-progress`` (a bar in a log file or a pipe is noise)."""
    if no_progress:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or a file-less stream
        return False


def note(command: str, text: str, err: TextIO | None = None) -> None:
    """One line on stderr about a phase that prints nothing for a while."""
    print(f"vitou-ai {command}: {text}", file=err or sys.stderr, flush=True)


#: modules where a KeyboardInterrupt must not be raised: numba's compiled code calls back
#: into them (``numba.core.serialize._numba_unpickle``...) and does not expect an exception
#: there; a Ctrl-C landing in such a callback ended the process with a segmentation fault
UNSAFE_MODULES = ("numba", "llvmlite")
#: seconds between checks while a Ctrl-C waits for compiled code to return
RETRY_SECONDS = 0.05


def _in_unsafe_code(frame) -> bool:
    while frame is not None:
        if frame.f_globals.get("__name__", "").partition(".")[0] in UNSAFE_MODULES:
            return True
        frame = frame.f_back
    return False


def _on_sigint(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    if _in_unsafe_code(frame):
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)  # ask again in a moment
        return
    raise KeyboardInterrupt


def _on_alarm(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    signal.raise_signal(signal.SIGINT)  # to whichever SIGINT handler is in place then


@contextlib.contextmanager
def interrupts_outside_numba() -> Iterator[None]:
    """Ctrl-C raises :class:`KeyboardInterrupt` only in Python code outside numba and
    llvmlite (:data:`UNSAFE_MODULES`): one that lands in their callbacks waits until
    control is back, checked every :data:`RETRY_SECONDS`. Outside the main thread the
    block runs with Python's default handling."""
    try:
        previous = signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread
        yield
        return
    previous_alarm = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_alarm)
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C until the block is done (writing a checkpoint and its outputs), then
    raise :class:`KeyboardInterrupt` if it came. Outside the main thread signals cannot
    be handled; the block then runs unprotected."""
    caught: list[int] = []

    def hold(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
        caught.append(signum)

    try:
        previous = signal.signal(signal.SIGINT, hold)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Ignore Ctrl-C (and cancel a retry timer of :func:`interrupts_outside_numba`) for
    the block: the clean-up after a first Ctrl-C, which a second one must not cut short
    (an empty run folder would be left behind). Outside the main thread: unprotected."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)



# ---- one writer per run folder (vitou_ai.io.RunLock) ---------------------------------------

_claims: list[list] = []  # the locks of the open run_locks blocks, innermost last


@contextlib.contextmanager
def run_locks() -> Iterator[None]:
    """Release, when the block ends (normally, on an error or on Ctrl-C), every run
    folder :func:`claim_run_folder` took in it: :func:`vitou_ai.commands.cli.main` runs
    each command in one."""
    _claims.append([])
    try:
        yield
    finally:
        for lock in reversed(_claims.pop()):
            lock.release()


def claim_run_folder(folder: str | Path, command: str, line: str = "", made: bool = False
                     ) -> None:
    """Take the one-writer lock of the run ``folder`` (:class:`vitou_ai.io.RunLock`; the
    folder is made if missing) until the enclosing :func:`run_locks` block ends, or the
    process exits outside one; a stale lock taken over is said in one line on stderr.

    Args:
        command: the subcommand, for the note (``"train"``).
        line: the command line, recorded in the lock for a second writer's message.
        made: the command made ``folder`` for this run (removed again if left empty).

    Raises:
        vitou_ai.io.RunLockedError: another live process writes the folder (one line
            naming its PID). OSError: the folder or its lock file cannot be made.
    """
    import atexit

    from ..io import RunLock

    lock = RunLock(folder, line or f"vitou-ai {command}", made=made)
    said = lock.acquire()
    if _claims:
        _claims[-1].append(lock)
    else:
        atexit.register(lock.release)
    if said:
        note(command, said)
