"""Shared by the four-player team experiments (``team_benchmark.py``,
``team_maxmin.py``): refusing bad input in one line, parsing a ``RANKS,COPIES,HAND``
variant, and the resumable CSV they keep (read back, rewritten atomically)."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402


def refuse(prog: str, msg: str) -> NoReturn:
    """Print ``prog: msg`` on stderr and exit with code 2 (bad input, no traceback)."""
    print(f"{prog}: {msg}", file=sys.stderr)
    raise SystemExit(2)


def variant(prog: str, spec: str, profile: str, dealer: int) -> VitouParams:
    """The game of ``spec`` = ``RANKS,COPIES,HAND`` (``profile``, dealer ``dealer``);
    refused (:func:`refuse`) when it is not three integers of a valid game."""
    try:
        r, c, h = (int(x) for x in spec.split(","))
        return VitouParams(profile=profile, ranks=r, copies=c, hand_size=h, dealer=dealer)
    except ValueError as e:
        refuse(prog, f"variant {spec!r}: expected RANKS,COPIES,HAND of a valid game ({e})")


def out_folder(prog: str, out: str | Path) -> Path:
    """The output folder ``out``, made if missing; refused (:func:`refuse`) when it is a
    file or cannot be made."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        refuse(prog, f"--out {out}: exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        refuse(prog, f"--out {out}: {e.strerror or e}")
    return out


def read_rows(path: Path, prog: str = "", keys: tuple[str, ...] = (),
              numbers: tuple[str, ...] = ()) -> list[dict]:
    """The rows of the CSV ``path`` (values as strings); ``[]`` when it does not exist.

    With ``prog``, a file that is not this script's CSV (not text, a column of ``keys``
    missing, a value of ``numbers`` that is not a number) is refused in one line
    (:func:`refuse`) instead of failing later: nothing in it is overwritten."""
    if not path.exists():
        return []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (UnicodeDecodeError, csv.Error) as e:
        if not prog:
            raise
        refuse(prog, f"{path}: not a CSV this script wrote ({type(e).__name__}); "
                     "choose another --out")
    for i, r in enumerate(rows):
        for k in keys:
            if r.get(k) in (None, ""):
                refuse(prog, f"{path}: row {i + 1} has no {k!r}: not a CSV this script "
                             "wrote; choose another --out")
        for k in numbers:
            try:
                if r.get(k) not in (None, ""):
                    float(r[k])
            except ValueError:
                refuse(prog, f"{path}: row {i + 1}, {k} = {r[k]!r} is not a number: not a "
                             "CSV this script wrote; choose another --out")
    return rows


def write_rows(path: Path, rows: list[dict], columns: list[str]) -> None:
    """``rows`` as a CSV of ``columns`` at ``path``, written atomically."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_atomic(path, buf.getvalue().encode())
