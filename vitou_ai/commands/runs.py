"""What the trainers write into a run folder beside their own files, shared by
:mod:`vitou_ai.commands.train` and :mod:`vitou_ai.commands.train_abstract`: package
versions and git commit for ``run.json``, ``curve.csv`` and ``run.json`` written
atomically, and the reading of ``curve.csv`` cells back into numbers on ``--resume``."""

from __future__ import annotations

import csv
import io
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

from ..io import write_atomic


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("vitou_ai", "numpy", "numba", "open_spiel", "pandas", "matplotlib", "scipy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _git_commit() -> str | None:
    try:
        r = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                           cwd=Path(__file__).parent, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _num(v: str) -> Any:
    try:
        f = float(v)
    except ValueError:
        return v
    return int(f) if f.is_integer() and "." not in v and "e" not in v else f


def _write_curve_and_record(folder: Path, rows: list[dict[str, Any]],
                            record: dict[str, Any]) -> None:
    """``curve.csv`` (every column any row has, in order of appearance) and ``run.json``
    (``record``), atomically; shared with :mod:`vitou_ai.commands.train_abstract`."""
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
    write_atomic(folder / "curve.csv", buf.getvalue().encode())
    write_atomic(folder / "run.json", (json.dumps(record, indent=2, default=str) + "\n").encode())
