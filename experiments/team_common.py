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


def read_rows(path: Path) -> list[dict]:
    """The rows of the CSV ``path`` (values as strings); ``[]`` when it does not exist."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path: Path, rows: list[dict], columns: list[str]) -> None:
    """``rows`` as a CSV of ``columns`` at ``path``, written atomically."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    write_atomic(path, buf.getvalue().encode())
