"""Experiment (c): four-player ``vitou`` (full 32-card deck, two-card hands) trained by
native ES-MCCFR, with win rates and points per deal against the heuristic bots at
each checkpoint.

The four-player game has no tree that fits in memory, so there is no exact
exploitability here: the curve is the trained policy's results against the bots
(duplicate deals, teams swapped). With three-card hands the tabular information
states outgrow memory (about 9 million after 50,000 iterations) long before the
policy is useful: that needs abstraction, not done here. Writes
``results/train_4p/`` (a ``vitou-ai train`` run folder).

    python experiments/train_4p.py [--iterations 200000] [--eval-every 40000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.cli import main as cli_main  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=200_000)
    ap.add_argument("--eval-every", type=int, default=40_000)
    ap.add_argument("--eval-deals", type=int, default=20_000)
    ap.add_argument("--out", default=str(ROOT / "results" / "train_4p"))
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    argv = ["train", "--profile", "vitou", "--hand-size", "2", "--solver", "es-mccfr",
            "--exact", "no", "--iterations", str(args.iterations), "--eval-every",
            str(args.eval_every), "--eval-deals", str(args.eval_deals),
            "--max-infosets", str(1 << 23), "--out", args.out, "--no-progress"]
    if args.resume:
        argv.append("--resume")
    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
