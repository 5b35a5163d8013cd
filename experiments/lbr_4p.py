"""Experiment: the team local best response (LBR, ``vitou_ai/eval/lbr.py``) of
the trained four-player policy and of chosen bots, with more deals than the
training run's evaluation, to tighten the intervals.

Four-player ``vitou``, 32 cards, three-card hands, deal mode at 0:0, signals
off, the dealer rotated over the seats. Writes ``results/lbr_4p/lbr.json``.

    python experiments/lbr_4p.py [--policy results/train_4p/policy.npz]
        [--bots bluffer] [--deals 800] [--samples 12]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.bots.abstract import check_fits  # noqa: E402
from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.eval.lbr import local_best_response  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / "results" / "train_4p" / "policy.npz"))
    ap.add_argument("--bots", default="bluffer", help="comma-separated bot specs")
    ap.add_argument("--deals", type=int, default=800, help="deals per exploiting team")
    ap.add_argument("--samples", type=int, default=12, help="sampled worlds per decision")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--out", default=str(ROOT / "results" / "lbr_4p"))
    args = ap.parse_args()
    params = VitouParams(profile="vitou", dealer=-1, mode="deal")
    policy = parse_bot(args.policy)
    check_fits(policy, params)
    rec: dict = {"command": " ".join(["python", "experiments/lbr_4p.py", *sys.argv[1:]]),
                 "deals": args.deals, "samples": args.samples, "seed": args.seed, "lbr": {}}
    for name, pol in [("policy", policy)] + [(b, parse_bot(b)) for b in args.bots.split(",")]:
        t = time.time()
        r = local_best_response(pol, params, deals=args.deals, samples=args.samples,
                                seed=args.seed)
        rec["lbr"][name] = {"value": r.value, "lo": r.lo, "hi": r.hi,
                            "seconds": round(time.time() - t, 1)}
        print(f"LBR of {name}: {r.value:+.3f} {r.interval()} points per deal "
              f"({args.deals} deal pairs, {args.samples} worlds, {time.time() - t:.0f} s)",
              flush=True)
    out = Path(args.out)
    write_atomic(out / "lbr.json", (json.dumps(rec, indent=2) + "\n").encode())
    print(f"wrote {out / 'lbr.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
