"""Experiment: learning baselines in the four-player game, against the named bots
and the project's ES-MCCFR, with duplicate deals.

``vitou`` with two-card hands, the dealer drawn by chance (as ``train_4p.py``
but with a rotating dealer, so every policy plays any seat). Each method
trains for the same wall-time budget in one run: native ES-MCCFR; OpenSpiel's
PyTorch NFSP (one agent per seat) and Deep CFR on ``python_vitou``; PPO
self-play (sb3-contrib ``MaskablePPO``) on the PettingZoo environment. At
points during training a method's current policy plays ``counter`` on
duplicate deals (points per deal, the curve); at the end all trained policies
and the named bots meet in a duplicate-deal round robin (``eval.tournament``).

Writes ``results/baselines_4p/``: ``curves.csv``, ``curves.png``, ``ratings.csv``,
``pairs.csv``, ``run.json`` and the policies (``nfsp.npz``, ``deep_cfr.npz``,
``ppo.npz``, ``es-mccfr.npz``).

    python experiments/baselines_4p.py [--budget 120] [--deals 3000]
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from baselines_common import (  # noqa: E402
    ROOT,
    TrainClock,
    train_deep_cfr,
    train_nfsp,
    train_ppo,
    write_run,
)

from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.bots.tabular import TabularPolicy  # noqa: E402
from vitou_ai.eval.stats import ratio_interval  # noqa: E402
from vitou_ai.eval.tournament import run_tournament  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402
from vitou_ai.solvers.sampling.mccfr import MCCFR  # noqa: E402

VARIANT = dict(profile="vitou", hand_size=2, dealer=-1)


def points_vs(policy, bot, params: VitouParams, deals: int, seed: int) -> tuple[float, float]:
    """Mean points per deal of ``policy``'s team against ``bot``'s, duplicate deals,
    and the half-width of its 95% interval (pairs as units; NaN below 30 pairs)."""
    half = max(1, deals // 2)
    res = simulate(params, [policy, bot, policy, bot], 2 * half, seed=seed, duplicate=True)
    variant = np.asarray(res["variant"])
    ret = np.where(variant == 0, res["return0"], res["return1"]).astype(float)
    pairs = ret.reshape(-1, 2).mean(axis=1) if ret.size % 2 == 0 else ret
    _, lo, hi = ratio_interval(pairs, np.ones(len(pairs)))  # NaN below 30 pairs
    return float(ret.mean()), (hi - lo) / 2


def mccfr_policy(s: MCCFR, params: VitouParams) -> TabularPolicy:
    n = s.num_infosets
    keys, nact, actions, pol = s.keys[:n], s.nact[:n], s.actions[:n], s.average_policy()
    probs = np.zeros((n, L.NUM_ACTIONS), np.float32)
    for a in range(actions.shape[1]):
        rows = np.flatnonzero(a < nact)
        probs[rows, actions[rows, a].astype(np.int64)] = pol[rows, a]
    return TabularPolicy(keys, probs, name="es-mccfr", params=params)


def train_mccfr(params, budget, evaluate, seed=0):
    MCCFR(params, "external", seed=seed + 1).iterate(10)  # compile outside the timing
    s = MCCFR(params, "external", seed=seed, max_infosets=1 << 23)  # as train_4p.py
    clock = TrainClock(budget, first=5.0)
    step = 2000
    done = -1
    while not clock.over:
        s.iterate(step)
        if clock.due():
            evaluate(mccfr_policy(s, params), clock.spent, s.iteration, clock.cpu)
            done = s.iteration
            clock.resume()
    pol = mccfr_policy(s, params)
    clock.tick()
    if done != s.iteration:
        evaluate(pol, clock.spent, s.iteration, clock.cpu)
    return pol


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=120.0, help="training seconds per method")
    ap.add_argument("--deals", type=int, default=3000, help="round-robin deals per pairing")
    ap.add_argument("--curve-deals", type=int, default=2000, help="deals per curve point")
    ap.add_argument("--methods", default="es-mccfr,nfsp,deep_cfr,ppo")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "baselines_4p"))
    args = ap.parse_args()
    out = Path(args.out)
    params = VitouParams(**VARIANT)
    counter = parse_bot("counter")
    rows: list[dict] = []
    trained = {}

    def evaluate(method):
        def ev(policy, seconds, iterations, cpu):
            m, ci = points_vs(policy, counter, params, args.curve_deals, args.seed + 1)
            rows.append({"method": method, "iteration": iterations, "seconds": seconds,
                         "cpu_seconds": cpu, "points_vs_counter": m, "ci95": ci})
            print(f"  {method:<9} {seconds:7.1f} s {iterations:>9} it  vs counter {m:+.3f} "
                  f"± {ci:.3f}", flush=True)
        return ev

    trainers = {"es-mccfr": train_mccfr, "nfsp": train_nfsp, "deep_cfr": train_deep_cfr,
                "ppo": train_ppo}
    for method in args.methods.split(","):
        t = time.perf_counter()
        pol = trainers[method](params, args.budget, evaluate(method), seed=args.seed)
        pol.save(out / f"{method}.npz")
        trained[method] = pol
        print(f"{method}: {time.perf_counter() - t:.0f} s with evaluation", flush=True)

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    write_atomic(out / "curves.csv", buf.getvalue().encode())

    lineup = list(trained.values()) + [parse_bot(b) for b in
                                       ("random", "cautious", "bluffer", "counter")]
    res = run_tournament(lineup, params, args.deals, seed=args.seed)
    write_atomic(out / "ratings.csv", res.ratings_frame().to_csv(index=False).encode())
    write_atomic(out / "pairs.csv", res.pairs_frame().to_csv(index=False).encode())
    print(res.ratings_frame().to_string(index=False))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in dict.fromkeys(r["method"] for r in rows):
        rs = [r for r in rows if r["method"] == name]
        ax.errorbar([r["seconds"] for r in rs], [r["points_vs_counter"] for r in rs],
                    yerr=[r["ci95"] for r in rs], marker=".", capsize=2, label=name,
                    ls="-" if name == "es-mccfr" else "--")
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("training wall time (s), evaluation excluded")
    ax.set_ylabel("points per deal vs counter (duplicate deals, 95%)")
    ax.set_title("vitou, 4 players, 2-card hands, dealer drawn", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    img = io.BytesIO()
    fig.savefig(img, format="png", dpi=100)
    write_atomic(out / "curves.png", img.getvalue())
    write_run(out, {"command": "python experiments/baselines_4p.py " + " ".join(sys.argv[1:]),
                    "variant": VARIANT, "budget_s": args.budget, "seed": args.seed,
                    "curve_deals": args.curve_deals, "deals_per_pairing": args.deals,
                    "ratings": res.ratings_frame().to_dict(orient="records")})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
