"""Experiment: learning baselines against the project's solvers on a small
``vitou_2p`` variant — exact exploitability (points per deal) against wall time.

Methods, each with the same wall-time budget, one after the other in one run:
native CFR+, DCFR and ES-MCCFR (``vitou_ai.solvers``); OpenSpiel's PyTorch
NFSP and Deep CFR on ``python_vitou``; PPO self-play (sb3-contrib
``MaskablePPO``) on the PettingZoo environment ``vitou_v0``. A network is read
on every information state of the game tree (``bots.neural.neural_policy_on_tree``)
and its exploitability computed exactly (``solvers.evaluate.exploitability``).
Then a duplicate-deal tournament (``eval.tournament``) between the trained
policies, the DCFR policy and the named bots.

Writes ``results/baselines_2p/``: ``curves.csv``, ``curves.png``,
``tournament.csv``, ``run.json`` and the policies ``nfsp.npz``, ``deep_cfr.npz``,
``ppo.npz`` (bots: ``--bots nfsp:results/baselines_2p/nfsp.npz``) and ``dcfr.npz``.

    python experiments/baselines_2p.py [--budget 100] [--deals 20000]
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

from baselines_common import ROOT, train_deep_cfr, train_nfsp, train_ppo, write_run  # noqa: E402

from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.bots.neural import neural_policy_on_tree, tree_inputs  # noqa: E402
from vitou_ai.bots.tabular import TabularPolicy  # noqa: E402
from vitou_ai.eval.tournament import run_tournament  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.evaluate import exploitability, uniform_policy  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.sampling.mccfr import MCCFR  # noqa: E402

# The dealer is drawn by chance so that every policy is a bot for either seat
# (tournaments rotate the dealer).
VARIANT = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)


def run_native(name, params, tree, budget, rows):
    if name in ("cfr+", "dcfr"):
        TabularCFR(tree, name).iterate(1)  # compile outside the timing
        s = TabularCFR(tree, name)
        step, evaluate = 5, lambda: exploitability(tree, s.average_policy())
    else:
        MCCFR(params, "external", seed=1).iterate(10)  # compile outside the timing
        s = MCCFR(params, "external", seed=0)
        step = 1000
        evaluate = lambda: exploitability(tree, s.policy_on_tree(tree))  # noqa: E731
    cpu = 0.0
    while s.seconds < budget:
        c = time.process_time()
        s.iterate(step)
        cpu += time.process_time() - c
        rows.append({"method": name, "iteration": s.iteration, "seconds": s.seconds,
                     "cpu_seconds": cpu, "exploitability": evaluate()})
        step = int(step * 1.5)
    return s


def tabular_from_tree(tree, policy: np.ndarray, params: VitouParams, name: str) -> TabularPolicy:
    keys, nact, actions = tree.is_keys, tree.is_nact, tree.is_actions
    probs = np.zeros((keys.shape[0], L.NUM_ACTIONS), np.float32)
    for a in range(actions.shape[1]):
        rows = np.flatnonzero(a < nact)
        probs[rows, actions[rows, a].astype(np.int64)] = policy[rows, a]
    return TabularPolicy(keys, probs, name=name, params=params)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=100.0, help="training seconds per method")
    ap.add_argument("--deals", type=int, default=20000, help="tournament deals per pairing")
    ap.add_argument("--methods", default="cfr+,dcfr,es-mccfr,nfsp,deep_cfr,ppo")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "results" / "baselines_2p"))
    args = ap.parse_args()
    out = Path(args.out)
    params = VitouParams(**VARIANT)
    tree = build_tree(params)
    inputs = tree_inputs(tree)
    uniform = exploitability(tree, uniform_policy(tree))
    print(f"uniform random play: exploitability {uniform:.5f}", flush=True)
    rows: list[dict] = []
    bots = {}

    def evaluate_net(method):
        def ev(policy, seconds, iterations, cpu):
            e = exploitability(tree, neural_policy_on_tree(policy, tree, inputs))
            rows.append({"method": method, "iteration": iterations, "seconds": seconds,
                         "cpu_seconds": cpu, "exploitability": e})
            print(f"  {method:<10} {seconds:7.1f} s  {iterations:>9} it  exploitability {e:.5f}",
                  flush=True)
        return ev

    trainers = {"nfsp": train_nfsp, "deep_cfr": train_deep_cfr, "ppo": train_ppo}
    for method in args.methods.split(","):
        t = time.perf_counter()
        if method in trainers:
            pol = trainers[method](params, args.budget, evaluate_net(method), seed=args.seed)
            pol.save(out / f"{method}.npz")
            bots[method] = pol
        else:
            s = run_native(method, params, tree, args.budget, rows)
            if method == "dcfr":
                bots["dcfr"] = tabular_from_tree(tree, s.average_policy(), params, "dcfr")
                bots["dcfr"].save(out / "dcfr.npz")
        last = [r for r in rows if r["method"] == method][-1]
        print(f"{method:<10} {last['iteration']:>9} it  {last['seconds']:6.1f} s  "
              f"exploitability {last['exploitability']:.5f}  ({time.perf_counter() - t:.0f} s "
              "with evaluation)", flush=True)

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    write_atomic(out / "curves.csv", buf.getvalue().encode())

    tour = None
    if args.deals > 0 and bots:
        lineup = list(bots.values()) + [parse_bot(b) for b in ("random", "counter")]
        res = run_tournament(lineup, params.replace(mode="deal"), args.deals, seed=args.seed)
        tour = res.ratings_frame()
        write_atomic(out / "tournament.csv", tour.to_csv(index=False).encode())
        write_atomic(out / "tournament_pairs.csv", res.pairs_frame().to_csv(index=False).encode())
        print(tour.to_string(index=False))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, col, label in ((axes[0], "seconds", "wall"), (axes[1], "cpu_seconds", "CPU")):
        for name in dict.fromkeys(r["method"] for r in rows):
            rs = [r for r in rows if r["method"] == name]
            ax.plot([max(r[col], 1e-2) for r in rs],
                    [max(r["exploitability"], 1e-6) for r in rs], marker=".", label=name,
                    ls="-" if name in ("cfr+", "dcfr", "es-mccfr") else "--")
        ax.axhline(uniform, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"training {label} time (s), evaluation excluded")
    axes[0].set_ylabel("exact exploitability (points per deal); dotted: uniform play")
    fig.suptitle(f"vitou_2p, {VARIANT['ranks']} ranks x {VARIANT['copies']}, "
                 f"{VARIANT['hand_size']} card, dealer drawn: solvers (solid) vs learning "
                 "(dashed)", fontsize=9)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    img = io.BytesIO()
    fig.savefig(img, format="png", dpi=100)
    write_atomic(out / "curves.png", img.getvalue())
    write_run(out, {"command": "python experiments/baselines_2p.py " + " ".join(sys.argv[1:]),
                    "variant": VARIANT, "budget_s": args.budget, "seed": args.seed,
                    "infosets": tree.num_infosets, "uniform_exploitability": uniform,
                    "final": {m: [r for r in rows if r["method"] == m][-1]
                              for m in dict.fromkeys(r["method"] for r in rows)}})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
