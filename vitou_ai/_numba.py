"""Numba options, decided in one place (compare stumpy's ``config.py``).

``cache=True`` keeps compiled kernels on disk next to the sources, so only the
first import on a machine pays the compile. ``fastmath`` is never used: the
kernel sums returns and the solvers sum regrets.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import numba

# A module holds jitted code (or numba extensions) when it imports numba or this module.
_USES_NUMBA = re.compile(rb"^[ \t]*(import numba|from numba[ .]|from \.+_numba import"
                         rb"|from \.+ import _numba)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]+)", re.M)


def _modules(pkg: Path) -> dict[str, tuple[Path, bytes]]:
    """Every module of the package below ``pkg``: dotted name -> (file, source bytes)."""
    out = {}
    for f in sorted(pkg.rglob("*.py")):
        parts = list(f.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = (f, f.read_bytes())
    return out


def _imports(name: str, mods: dict[str, tuple[Path, bytes]]) -> set[str]:
    """The package's modules that module ``name`` imports, read from its source text
    (every ``import`` / ``from ... import`` line, inside functions too: over-counting only
    widens the key). A ``from pkg import name`` counts ``pkg.name`` when it is a module."""
    f, src = mods[name]
    text = src.decode("utf-8", errors="replace")
    here = name.split(".") if f.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for dots, module, names in _FROM.findall(text):
        base = here[:len(here) - len(dots) + 1] if dots else []
        full = ".".join(base + ([module] if module else []))
        if full in mods:
            out.add(full)
        for word in re.findall(r"\w+", names):
            if f"{full}.{word}" in mods:
                out.add(f"{full}.{word}")
    for line in _IMPORT.findall(text):
        out.update(word for word in re.findall(r"[\w.]+", line) if word in mods)
    return out


def kernel_sources(pkg: Path) -> list[str]:
    """The modules whose source can change a compiled kernel: every module that uses numba
    (imports it, or this module) and, transitively, every module of the package those import
    (a jitted function freezes the globals it reads, such as ``rules.layout``'s constants,
    and calls jitted functions of other modules). Sorted dotted names.

    An edit anywhere else (the command line, the evaluation's Python code, the docs
    strings of modules without jitted code) leaves the cache key, and so every compiled
    kernel, as it was."""
    mods = _modules(pkg)
    todo = [m for m, (_, src) in mods.items() if _USES_NUMBA.search(src)]
    seen: set[str] = set()
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(_imports(m, mods) - seen)
    return sorted(seen)


def cache_key(pkg: Path | None = None) -> str:
    """A hash of what compiled code depends on: numba's version, ``NUMBA_BOUNDSCHECK``
    and the sources of :func:`kernel_sources` (names and bytes). 16 hex digits."""
    pkg = Path(__file__).resolve().parent if pkg is None else Path(pkg)
    mods = _modules(pkg)
    h = hashlib.sha256(numba.__version__.encode())
    h.update(f"boundscheck={numba.config.BOUNDSCHECK}".encode())
    for m in kernel_sources(pkg):
        h.update(m.encode() + b"\0")
        h.update(mods[m][1])
    return h.hexdigest()[:16]


def _cache_dir() -> str:
    """A numba cache folder keyed by :func:`cache_key`.

    Numba's on-disk cache checks the timestamp of a function's own file only,
    not of the functions it calls in other modules, so an edit to the kernel
    could leave stale compiled callers in use. Keying the folder on the sources of
    every module that jitted code depends on (:func:`kernel_sources`) makes any such
    edit start a fresh cache, while an edit to a module outside them reuses it. The
    cache does not record ``NUMBA_BOUNDSCHECK`` either (a run with it set would load
    unchecked code, and leave checked code for later runs), so the setting is part of
    the key. ``NUMBA_CACHE_DIR`` set by the user wins; ``VITOU_AI_CACHE`` moves the base
    folder.
    """
    base = os.environ.get("VITOU_AI_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "vitou_ai")
    return os.path.join(base, f"numba-{cache_key()}")


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _cache_dir()

jit = numba.njit(cache=True, nogil=True)
"""Decorator for single-state kernels (no parallel loop)."""

jit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
"""Decorator for batch loops over rows with ``numba.prange``."""
