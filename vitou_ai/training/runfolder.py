"""The run-folder format the trainers share (:mod:`vitou_ai.training.points`,
:mod:`vitou_ai.training.abstract`): package versions and git commit for ``run.json``,
``curve.csv`` and ``run.json`` written atomically (:func:`vitou_ai.io.write_atomic`), the
order of an evaluation's writes that lets a resume tell a complete evaluation from one cut
short by a kill, and the reading of ``curve.csv`` cells back into numbers on resume."""

from __future__ import annotations

import csv
import io
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

from ..io import json_finite, write_atomic


def package_versions() -> dict[str, str]:
    """The Python version and the versions of the packages a result depends on
    (``"not installed"`` for a missing one), for ``run.json``."""
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("vitou_ai", "numpy", "numba", "open_spiel", "pandas", "matplotlib", "scipy"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def git_commit() -> str | None:
    """The package's git commit (``None`` outside a git checkout), for ``run.json``."""
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


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as a CSV file at ``path``, atomically: every column any row has, in order
    of appearance (a row without a column leaves it empty)."""
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
    write_atomic(Path(path), buf.getvalue().encode())


def write_curve(folder: Path, rows: list[dict[str, Any]]) -> None:
    """``curve.csv``: every column any row has, in order of appearance, atomically."""
    write_csv(Path(folder) / "curve.csv", rows)


# ---- the run folder's consistency after a kill -----------------------------------------------
#
# At each evaluation a trainer writes, in this order: ``run.json`` with ``writing`` = the
# iteration about to be written (the previous record otherwise), ``policy.npz``,
# ``curve.csv``, ``curve.png``, ``checkpoint.npz``, and ``run.json`` again, complete and
# without ``writing``. Each file is written whole (:func:`vitou_ai.io.write_atomic`), so a
# kill at any moment leaves either a consistent folder or a ``run.json`` that says
# ``writing``: a resume then trusts the checkpoint (the newest complete state; the
# others are regenerated from it, see :func:`outputs_agree`).


def write_record(folder: Path, record: dict[str, Any]) -> None:
    """``run.json``: ``record`` as indented JSON, atomically; NaN (a withheld interval
    bound) is written as null, as bare NaN is not JSON."""
    write_atomic(folder / "run.json",
                 (json.dumps(json_finite(record), indent=2, default=str) + "\n").encode())


def mark_writing(folder: Path, record: dict[str, Any], iteration: int) -> None:
    """The first write of an evaluation: ``record`` with ``writing = iteration``."""
    write_record(folder, dict(record, writing=iteration))


def checkpoint_head(path: Path) -> dict[str, Any]:
    """The record (``meta``) of a checkpoint, after checking that every array in it is
    whole (CRC), without loading the tables: what ``--resume`` checks before building
    the tree or allocating the tables.

    Raises:
        ValueError: one line naming the file: missing, not an ``.npz``, damaged, or
            without an iteration count.
    """
    import zipfile
    import zlib

    import numpy as np

    what = f"{path}: not a readable checkpoint"
    try:
        with zipfile.ZipFile(path) as zf:
            bad = zf.testzip()  # reads every member: a damaged array fails its CRC here
            if bad is not None:
                raise ValueError(f"{what} (damaged: {bad} fails its CRC check)")
            with zf.open("meta.npy") as f:
                meta = json.loads(bytes(np.lib.format.read_array(f, allow_pickle=False))
                                  .decode())
    except FileNotFoundError:
        raise ValueError(f"{what} (no such file)") from None
    except KeyError:
        raise ValueError(f"{what} (no meta record)") from None
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, UnicodeDecodeError) as e:
        raise ValueError(f"{what} ({e.strerror if isinstance(e, OSError) and e.strerror else e})"
                         ) from None
    except ValueError as e:
        if str(e).startswith(what):
            raise
        raise ValueError(f"{what} ({e})") from None
    if not isinstance(meta, dict) or isinstance(meta.get("iteration"), bool) or not isinstance(
            meta.get("iteration"), int) or meta["iteration"] < 0:
        raise ValueError(f"{what} (its record has no iteration count)")
    return meta


def curve_rows(folder: Path) -> list[dict[str, Any]]:
    """The rows of ``curve.csv`` (numbers read back), ``[]`` without one."""
    path = folder / "curve.csv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [{k: _num(v) for k, v in r.items()} for r in csv.DictReader(f)
                if str(r.get("iteration") or "").isdigit()]


def outputs_agree(folder: Path, saved: dict[str, Any], iteration: int) -> bool:
    """Whether ``policy.npz``, ``curve.csv`` and ``run.json`` (``saved``) all belong to
    the checkpoint at ``iteration``: no evaluation was cut short (``writing``), the
    record and the curve's last row are at that iteration and the policy exists."""
    rows = curve_rows(folder)
    return ("writing" not in saved and saved.get("iterations_done") == iteration
            and bool(rows) and rows[-1]["iteration"] == iteration
            and (folder / "policy.npz").exists())


def reconcile_note(saved: dict[str, Any], rows: list[dict[str, Any]], iteration: int) -> str:
    """What ``--resume`` says when the outputs did not belong to the checkpoint."""
    was = saved.get("writing", saved.get("iterations_done"))
    last = rows[-1]["iteration"] if rows else None
    parts = []
    if "writing" in saved:
        parts.append(f"the evaluation at iteration {saved['writing']} was cut short")
    elif was != iteration:
        parts.append(f"run.json was at iteration {was}")
    if last != iteration:
        parts.append(f"curve.csv at {last}")
    return ("; ".join(parts) or "the outputs did not match it") + (
        f": policy.npz, curve.csv, curve.png and run.json are rewritten for iteration "
        f"{iteration}")
