"""Experiment (c): four-player ``vitou`` as people play it — full 32-card deck,
three-card hands, 0:0, signals off — trained by abstract ES-MCCFR
(``vitou-ai train --profile vitou``) on a wall-time budget, evaluated against
the named bots (duplicate deal-mode points per deal, 21-point match win rate)
and by the local best response (LBR) lower bound on exploitability, for the
trained policy and for every bot. Writes ``results/train_4p/`` (a
``vitou-ai train`` run folder: ``curve.csv``, ``curve.png``, ``run.json``,
``policy.npz``; the checkpoint is left out of git by size).

    python experiments/train_4p.py [--time 1500] [--signals] [--resume]

``--tabular`` re-runs the earlier experiment instead: tabular ES-MCCFR on
two-card hands, 200,000 iterations (``results/train_4p_tabular/``).
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.training import (  # noqa: E402
    PointsSettings,
    TrainingError,
    TrainingInterrupted,
    choose_trainer,
    train,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time", type=float, default=1500.0, help="solver seconds")
    ap.add_argument("--signals", action="store_true")
    ap.add_argument("--evals", type=int, default=4)
    ap.add_argument("--eval-deals", type=int, default=20_000)
    ap.add_argument("--eval-matches", type=int, default=2_000)
    ap.add_argument("--lbr-deals", type=int, default=200)
    ap.add_argument("--lbr-samples", type=int, default=12)
    ap.add_argument("--max-infosets", type=int, default=8_000_000)
    ap.add_argument("--abstraction", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--tabular", action="store_true", help="the earlier two-card tabular run")
    args = ap.parse_args()
    command = "python experiments/train_4p.py " + shlex.join(sys.argv[1:])
    options = {}
    if args.tabular:
        out = args.out or str(ROOT / "results" / "train_4p_tabular")
        points = PointsSettings(profile="vitou", hand_size=2, solver="es-mccfr", exact="no",
                                iterations=200_000, eval_every=40_000, eval_deals=20_000,
                                max_infosets=1 << 23)
    else:
        out = args.out or str(ROOT / "results" / ("train_4p_signals" if args.signals else "train_4p"))
        # pruning on: the schedule results/train_4p was trained with (the default until
        # 2026-12-03, docs/results/sweep-4p.md)
        points = PointsSettings(profile="vitou", time=args.time, eval_deals=args.eval_deals,
                                max_infosets=args.max_infosets,
                                signals=True if args.signals else None)
        options = {"pruning": "on", "evals": args.evals, "eval_matches": args.eval_matches,
                   "lbr_deals": args.lbr_deals, "lbr_samples": args.lbr_samples,
                   "abstraction": args.abstraction}
    points = replace(points, out=Path(out), resume=args.resume, no_progress=True,
                     command=command)
    t0 = time.time()
    try:
        train(choose_trainer(points, options))
        code = 0
    except TrainingError as e:
        print(f"train_4p: {e}", file=sys.stderr)
        code = 2
    except TrainingInterrupted as e:
        print(f"train_4p: interrupted: {e.kept}", file=sys.stderr)
        code = 130
    # peak resident memory of this process (training, evaluation, LBR), into run.json
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    run_json = Path(out) / "run.json"
    if run_json.exists():
        rec = json.loads(run_json.read_text())
        rec["peak_rss_gb"] = round(peak_gb, 2)
        rec["wall_seconds_this_call"] = round(time.time() - t0, 1)
        run_json.write_text(json.dumps(rec, indent=2, default=str) + "\n")
    print(f"peak RSS {peak_gb:.2f} GB, wall {time.time() - t0:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
