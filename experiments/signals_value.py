"""Experiment: what gestures (R7) are worth to a team in four-player ``vitou``.

Two policies trained by ``vitou-ai train --profile vitou --signals`` on the same
budget, in the same game (signals on, ``signal_seen`` 0.5, 0:0):

- ``on``: the default abstraction with signals (``gestures=partner``: each player's
  key holds its partner's gesture), ``results/train_4p_signals``;
- ``off``: the same with ``--abstraction gestures=off``: a team that gestures
  (its gesture decisions are trained like any other) but whose keys never read
  a gesture, ``results/train_4p_signals_blind``.

Both run with ``python experiments/train_4p.py --signals ...`` (``--abstraction
gestures=off --out results/train_4p_signals_blind`` for the second). The value
of gestures to a team is then measured on the same deals:

1. head to head, ``on`` against ``off``, in duplicate deal mode (the same deals
   with the teams' seats swapped; points per deal of ``on``'s team, pairs as
   units, 95% interval) and in 21-point duplicate matches (win rate, Wilson 95%);
2. against each named bot: ``on``'s points per deal minus ``off``'s, paired on
   the same duplicate deals (same seed), 95% interval of the paired difference.

Writes ``results/signals_value/value.json`` and prints the figures.

    python experiments/signals_value.py [--deals 20000] [--matches 2000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.bots.abstract import check_fits  # noqa: E402
from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.eval.stats import format_interval, ratio_interval, wilson_interval  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402

BOTS = ("random", "cautious", "bluffer", "counter")


def pair_points(params: VitouParams, a, b, deals: int, seed: int) -> np.ndarray:
    """``float[deals // 2]``: team ``a``'s points per deal of each duplicate pair
    (R8.1 returns; ``a`` in seats 0 and 2 in the first deal of a pair, 1 and 3 in
    the second, on the same cards)."""
    res = simulate(params, [a, b] * 2, deals + deals % 2, seed=seed, duplicate=True,
                   rotate_dealer=True, allow_fallback=True)  # abstract: counter at unseen states
    v = np.asarray(res["variant"])
    ret = np.where(v == 0, res["return0"], res["return1"]).astype(float)
    return ret.reshape(-1, 2).sum(1) / 2.0


def interval(x: np.ndarray) -> dict[str, float]:
    m, lo, hi = ratio_interval(x, np.ones(len(x)))
    return {"value": m, "lo": lo, "hi": hi, "pairs": len(x)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--on", default=str(ROOT / "results" / "train_4p_signals" / "policy.npz"))
    ap.add_argument("--off", default=str(ROOT / "results" / "train_4p_signals_blind" /
                                         "policy.npz"))
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--matches", type=int, default=2_000)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--out", default=str(ROOT / "results" / "signals_value"))
    args = ap.parse_args()
    params = VitouParams(profile="vitou", dealer=-1, signals=True)
    on, off = parse_bot(args.on), parse_bot(args.off)
    for pol in (on, off):
        check_fits(pol, params)
    t0 = time.time()
    rec: dict = {"command": " ".join(["python", "experiments/signals_value.py", *sys.argv[1:]]),
                 "on": args.on, "off": args.off, "deals": args.deals, "matches": args.matches,
                 "seed": args.seed, "params": {**params.knobs(), "profile": params.profile},
                 "abstraction_on": on.abstraction.gesture_mode(True),
                 "abstraction_off": off.abstraction.gesture_mode(True)}
    h2h = interval(pair_points(params.replace(mode="deal"), on, off, args.deals, args.seed))
    rec["head_to_head_ppd"] = h2h
    print(f"on vs off, duplicate deals: {h2h['value']:+.3f} "
          f"{format_interval(h2h['lo'], h2h['hi'], h2h['pairs'], 'pairs')} points per deal "
          f"({h2h['pairs']:,} pairs)", flush=True)
    if args.matches:
        res = simulate(params.replace(mode="match", scores=(0, 0)), [on, off] * 2,
                       args.matches + args.matches % 2, seed=args.seed + 1, duplicate=True,
                       rotate_dealer=True, allow_fallback=True)
        v = np.asarray(res["variant"])
        w = np.asarray(res["winner"])
        wins, decided = int(((w >= 0) & (w == v)).sum()), int((w >= 0).sum())
        lo, hi = wilson_interval(wins, decided)
        rec["head_to_head_match"] = {"win": wins / decided, "lo": lo, "hi": hi,
                                     "decided": decided}
        print(f"on vs off, 21-point matches: win {wins / decided:.3f} "
              f"{format_interval(lo, hi, decided, 'decided matches', '.3f')} "
              f"({decided:,} decided)", flush=True)
    rec["vs_bots"] = {}
    for name in BOTS:
        bot = parse_bot(name)
        a = pair_points(params.replace(mode="deal"), on, bot, args.deals, args.seed + 10)
        b = pair_points(params.replace(mode="deal"), off, bot, args.deals, args.seed + 10)
        rec["vs_bots"][name] = {"on": interval(a), "off": interval(b), "difference": interval(a - b)}
        d = rec["vs_bots"][name]["difference"]
        print(f"vs {name}: on {a.mean():+.3f}, off {b.mean():+.3f}, difference "
              f"{d['value']:+.3f} {format_interval(d['lo'], d['hi'], d['pairs'], 'pairs')} "
              "points per deal", flush=True)
    rec["wall_seconds"] = round(time.time() - t0, 1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "value.json", (json.dumps(rec, indent=2) + "\n").encode())
    print(f"wrote {out / 'value.json'} ({rec['wall_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
