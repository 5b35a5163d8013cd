"""What gestures (R7) are worth to a team: the policy trained with signals
(``python experiments/train_4p.py --signals``) against the same policy with
its gestures muted (always ``signal none``; it still reads the opponents'),
on duplicate deals of ``vitou`` with signals, 0:0, deal mode. By symmetry the
policy against itself scores 0, so the gesturing team's points per deal is
the value of gesturing with everything else held fixed. Prints it with a 95%
interval (duplicate pairs as units) and writes ``results/gesture_value.json``.

    python experiments/gesture_value.py [--deals 40000]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.abstraction.key import LEGAL_BITS  # noqa: E402
from vitou_ai.bots.abstract import AbstractPolicy  # noqa: E402
from vitou_ai.bots.named import NAMED_BOTS  # noqa: E402
from vitou_ai.eval.stats import ratio_interval  # noqa: E402
from vitou_ai.history import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402

SIGNAL_BIT = 2 + 6  # the key's legal field starts at bit 2; "signal" is its bit 6
assert LEGAL_BITS == 11


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", default=str(ROOT / "results" / "train_4p_signals" / "policy.npz"))
    ap.add_argument("--deals", type=int, default=40_000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    pol = AbstractPolicy.load(args.policy, fallback=NAMED_BOTS["counter"])
    gesture_rows = ((pol.keys >> np.uint64(SIGNAL_BIT)) & np.uint64(1)) == 1
    probs = pol.probs.copy()
    probs[gesture_rows] = 0.0
    probs[gesture_rows, 0] = 1.0  # the first legal gesture is "none" (action 14)
    muted = AbstractPolicy(pol.keys, pol.nact, probs, pol.abstraction, pol.params,
                           name="muted", fallback=NAMED_BOTS["counter"])
    params = VitouParams(profile="vitou", dealer=-1, signals=True)
    res = simulate(params, [pol, muted, pol, muted], args.deals, seed=args.seed, duplicate=True,
                   rotate_dealer=True)
    v = np.asarray(res["variant"])
    ret = np.where(v == 0, res["return0"], res["return1"]).astype(float)
    pair = ret.reshape(-1, 2).sum(1)
    m, lo, hi = ratio_interval(pair, np.full(len(pair), 2.0))
    rec = {"rules_version": RULES_VERSION, "policy": args.policy, "deals": args.deals,
           "seed": args.seed, "gesture_rows": int(gesture_rows.sum()),
           "value_of_gestures_points_per_deal": m, "lo": lo, "hi": hi,
           "command": "python experiments/gesture_value.py " + " ".join(sys.argv[1:])}
    write_atomic(ROOT / "results" / "gesture_value.json", (json.dumps(rec, indent=2) + "\n").encode())
    print(f"gestures are worth {m:+.4f} [{lo:+.4f}, {hi:+.4f}] points per deal to the team "
          f"({int(gesture_rows.sum())} gesture states, {args.deals} deals)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
