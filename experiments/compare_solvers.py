"""Experiment (a): solver comparison on small variants — exploitability against
wall time and iterations for native CFR, CFR+, DCFR, ES-MCCFR and OS-MCCFR,
and for OpenSpiel's C++ CFR+ and ES-MCCFR on ``python_vitou`` (same variant).

Writes ``results/compare_solvers/curves.csv`` and ``curves.png``.

    python experiments/compare_solvers.py [--budget 20]
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pyspiel  # noqa: E402

import vitou_ai  # noqa: E402,F401
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.openspiel.game import game_string  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.evaluate import exploitability  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.sampling.mccfr import MCCFR  # noqa: E402

VARIANT = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1)


def run_native(name, params, tree, budget, rows):
    if name in ("cfr", "cfr+", "dcfr"):
        s = TabularCFR(tree, name)
        step, evaluate = 10, lambda: exploitability(tree, s.average_policy())
    else:
        s = MCCFR(params, "external" if name == "es-mccfr" else "outcome", seed=0)
        step = 2000 if name == "es-mccfr" else 20000
        evaluate = lambda: exploitability(tree, s.policy_on_tree(tree))  # noqa: E731
    while s.seconds < budget:
        s.iterate(step)
        rows.append({"solver": name, "iteration": s.iteration, "seconds": s.seconds,
                     "exploitability": evaluate()})
        step = int(step * 1.5)


def run_openspiel(name, game, budget, rows):
    if name == "openspiel-cfr+":
        s = pyspiel.CFRPlusSolver(game)
        step_fn, step = s.evaluate_and_update_policy, 2
    else:
        s = pyspiel.ExternalSamplingMCCFRSolver(game, 0)
        step_fn, step = s.run_iteration, 100
    it, spent = 0, 0.0
    while spent < budget:
        t = time.perf_counter()
        for _ in range(step):
            step_fn()
        spent += time.perf_counter() - t
        it += step
        pol = s.average_policy()
        rows.append({"solver": name, "iteration": it, "seconds": spent,
                     "exploitability": pyspiel.exploitability(game, pol)})
        step = int(step * 1.5) + 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=20.0, help="solver seconds per solver")
    ap.add_argument("--out", default=str(ROOT / "results" / "compare_solvers"))
    args = ap.parse_args()
    params = VitouParams(**VARIANT)
    tree = build_tree(params)
    game = pyspiel.load_game(game_string(params))
    rows: list[dict] = []
    for name in ("cfr", "cfr+", "dcfr", "es-mccfr", "os-mccfr"):
        run_native(name, params, tree, args.budget, rows)
        print(f"{name:<20} {rows[-1]['iteration']:>9} it  {rows[-1]['seconds']:6.1f} s  "
              f"exploitability {rows[-1]['exploitability']:.6f}", flush=True)
    for name in ("openspiel-cfr+", "openspiel-es-mccfr"):
        run_openspiel(name, game, args.budget, rows)
        print(f"{name:<20} {rows[-1]['iteration']:>9} it  {rows[-1]['seconds']:6.1f} s  "
              f"exploitability {rows[-1]['exploitability']:.6f}", flush=True)
    out = Path(args.out)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    write_atomic(out / "curves.csv", buf.getvalue().encode())

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name in dict.fromkeys(r["solver"] for r in rows):
        rs = [r for r in rows if r["solver"] == name]
        ax.plot([r["seconds"] for r in rs], [max(r["exploitability"], 1e-9) for r in rs],
                marker=".", label=name, ls="--" if name.startswith("openspiel") else "-")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("solver wall time (s)")
    ax.set_ylabel("exploitability (points per deal)")
    ax.set_title(f"{VARIANT['profile']}, {VARIANT['ranks']} ranks x {VARIANT['copies']}, "
                 f"{VARIANT['hand_size']} card(s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    img = io.BytesIO()
    fig.savefig(img, format="png", dpi=100)
    write_atomic(out / "curves.png", img.getvalue())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
