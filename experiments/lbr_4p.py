"""Experiment: the team local best response (LBR, ``vitou_ai/eval/lbr.py``) of
the trained four-player policy and of chosen bots, with more deals than the
training run's evaluation, to tighten the intervals.

Four-player ``vitou`` by default (``--profile`` for another four-player profile,
``--signals`` for R7 gestures), on the profile's whole deck, deal mode at 0:0, the
dealer rotated over the seats. ``--policy ''`` evaluates the bots only. Writes
``lbr.json`` into ``--out`` (default ``results/lbr_4p``). With ``--seed 7`` and the
training run's ``--deals`` / ``--samples`` it repeats the LBR step of ``vitou-ai train``
(seed + 7) on a trained policy.

    python experiments/lbr_4p.py [--policy results/train_4p/policy.npz]
        [--bots bluffer] [--deals 800] [--samples 12] [--profile vitou] [--signals]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.bots.abstract import check_fits  # noqa: E402
from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.eval.lbr import MIN_SAMPLES, local_best_response  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / "results" / "train_4p" / "policy.npz"))
    ap.add_argument("--bots", default="bluffer", help="comma-separated bot specs")
    ap.add_argument("--deals", type=int, default=800, help="deals per exploiting team")
    ap.add_argument("--samples", type=int, default=12, help="sampled worlds per decision")
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--profile", default="vitou")
    ap.add_argument("--signals", action="store_true", help="R7 gestures on")
    ap.add_argument("--out", default=str(ROOT / "results" / "lbr_4p"))
    args = ap.parse_args(argv)
    if args.deals < 2:
        ap.error(f"--deals must be at least 2, got {args.deals}")
    if args.samples < MIN_SAMPLES:  # fewer worlds: the deviation tests' noise passes for gain
        ap.error(f"--samples must be at least {MIN_SAMPLES}, got {args.samples}")
    try:  # every input is checked here, before any deal is played
        params = VitouParams(profile=args.profile, dealer=-1, mode="deal",
                             signals=args.signals)
        entrants = []
        if args.policy:
            policy = parse_bot(args.policy)
            check_fits(policy, params)
            entrants.append(("policy", policy))
        entrants += [(b, parse_bot(b)) for b in args.bots.split(",") if b]
    except (ValueError, TypeError, OSError) as e:
        ap.error(str(e))
    policy_file = Path(args.policy).resolve() if args.policy else None
    if policy_file is not None and policy_file.is_relative_to(ROOT):
        policy_file = policy_file.relative_to(ROOT)
    rec: dict = {"command": shlex.join(["python", "experiments/lbr_4p.py", *sys.argv[1:]]),
                 "profile": args.profile, "signals": args.signals,
                 "policy": str(policy_file) if policy_file else None,
                 "deals": args.deals, "samples": args.samples, "seed": args.seed, "lbr": {}}
    for name, pol in entrants:
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
