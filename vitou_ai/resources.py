"""What a run takes from the machine, checked before it starts: the memory a count
allocates (an estimate of its arrays, against the memory this machine has available)
and time budgets (finite, positive, at most :data:`MAX_SECONDS`).

A count of ``10**11`` deals used to end in NumPy's ``MemoryError`` traceback after the
run folder was made, and a budget of ``1e308`` seconds in an ``OverflowError``; the
checks here refuse them in one line before any work, as
:func:`vitou_ai.solvers.flat.tree.build_tree` refuses a tree over its node limit. Plumbing:
imports nothing of the package, so every layer may use it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

#: the longest time budget any option takes (seconds; 10**7 s is 116 days): a larger one
#: is a typo, or a way of saying "no limit", which leaving the option out says
MAX_SECONDS = 1e7
#: /proc/meminfo and the cgroup v2 files read by :func:`available_memory`
MEMINFO = Path("/proc/meminfo")
CGROUP = Path("/sys/fs/cgroup")


class ResourceError(ValueError):
    """A count or a budget this machine cannot run; the message is one line naming the
    option (a ``ValueError``, so every command's refusal path prints it)."""


def _meminfo_available() -> int | None:
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    try:  # not Linux: the free physical pages
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _cgroup_room() -> int | None:
    """What the process's cgroup (v2) still allows, ``None`` without a limit."""
    try:
        limit = (CGROUP / "memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(0, int(limit) - int((CGROUP / "memory.current").read_text().strip()))
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """Bytes of memory a new allocation can take without swapping: ``MemAvailable`` of
    ``/proc/meminfo`` (the kernel's estimate, page cache included), or the free physical
    pages (``os.sysconf``) elsewhere, lowered to what a cgroup limit (a container)
    still allows; ``None`` when the machine does not say."""
    found = [m for m in (_meminfo_available(), _cgroup_room()) if m is not None]
    return min(found) if found else None


def process_rss() -> int:
    """Bytes of memory this process holds now (``VmRSS`` of ``/proc/self/status``); 0
    where the machine does not say."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return 0


def format_bytes(n: float) -> str:
    """``8.37 TiB``, ``512 MiB``: binary units, as NumPy's memory errors."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_memory(nbytes: float, what: str, hint: str = "") -> None:
    """Refuse an allocation of about ``nbytes`` bytes (a float: estimates of huge counts
    do not overflow) that is larger than :func:`available_memory`.

    Args:
        nbytes: the estimate, bytes (the arrays the count allocates).
        what: the option or count that asks for it, e.g. ``"--eval-deals 100,000,000,000"``.
        hint: what to do instead (appended after a semicolon).

    Raises:
        ResourceError: one line: ``what`` needs about N GiB, more than the M GiB available.
    """
    if not math.isfinite(nbytes):
        raise ResourceError(f"{what} would need more memory than any machine has"
                            + (f"; {hint}" if hint else ""))
    room = available_memory()
    if room is None or nbytes <= room:
        return
    raise ResourceError(f"{what} would need about {format_bytes(nbytes)} of memory, more than "
                        f"the {format_bytes(room)} available on this machine"
                        + (f"; {hint}" if hint else ""))


def check_seconds(value, name: str, top: float = MAX_SECONDS) -> float:
    """A time budget as a ``float`` of seconds: a real number, finite, above 0 and at most
    ``top``.

    Raises:
        TypeError: not a number (``bool`` included). ResourceError: ``nan``, ``inf``,
            ``<= 0`` or above ``top``; one line naming ``name``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number of seconds, got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and 0 < v <= top):
        raise ResourceError(f"{name} must be a positive number of seconds, at most "
                            f"{top:,.0f}, got {value!r}")
    return v
