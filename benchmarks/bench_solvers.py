"""Benchmark: native CFR+ and ES-MCCFR against OpenSpiel's C++ solvers, same variant, same run.

OpenSpiel runs ``CFRPlusSolver`` and ``ExternalSamplingMCCFRSolver`` on the
Python game ``python_vitou`` and on ``pyspiel.convert_to_cached_tree`` of it;
the native solvers run on the flat tree / the kernel. Reported: iterations per
second (medians of repeats), OpenSpiel-equivalent nodes per second (iterations
x game states x players, the work OpenSpiel's traversal does), the speed-up
ratios, and the exploitability after the same numbers of iterations (the CFR+
iterates are the same algorithm; ES-MCCFR curves agree statistically).
Writes ``results/bench_solvers.json``.

    python benchmarks/bench_solvers.py [--ranks 4 --copies 2 --hand-size 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import pyspiel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vitou_ai  # noqa: E402,F401
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.evaluate import exploitability  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402
from vitou_ai.solvers.sampling.mccfr import MCCFR  # noqa: E402


def rates(contenders: dict, repeats: int) -> dict[str, float]:
    """Median iterations/s of each ``name: (fn, iterations)``, measured in
    interleaved rounds so that the shared machine's load drifts over all alike."""
    got: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(repeats):
        for name, (fn, iterations) in contenders.items():
            t = time.perf_counter()
            fn(iterations)
            got[name].append(iterations / (time.perf_counter() - t))
    return {k: statistics.median(v) for k, v in got.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--hand-size", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "results" / "bench_solvers.json"))
    args = ap.parse_args()
    kw = dict(profile="vitou_2p", ranks=args.ranks, copies=args.copies, hand_size=args.hand_size)
    params = VitouParams(**kw)
    game = pyspiel.load_game("python_vitou(" + ",".join(f"{k}={v}" for k, v in kw.items()) + ")")
    cached = pyspiel.convert_to_cached_tree(game)
    n_states = sum(1 for _ in _states(game))
    tree = build_tree(params)
    players = 2
    report: dict = {"rules_version": RULES_VERSION, "variant": kw, "openspiel_states": n_states,
                    "native_tree_nodes": tree.num_nodes, "infosets": tree.num_infosets}

    # ---- CFR+ -------------------------------------------------------------------------------
    os_py = pyspiel.CFRPlusSolver(game)
    os_cached = pyspiel.CFRPlusSolver(cached)
    native = TabularCFR(tree, "cfr+")
    r = rates({"py": (lambda n: [os_py.evaluate_and_update_policy() for _ in range(n)], 3),
               "cached": (lambda n: [os_cached.evaluate_and_update_policy() for _ in range(n)],
                          200),
               "native": (native.iterate, 2000)}, args.repeats)
    r_py, r_cached, r_native = r["py"], r["cached"], r["native"]
    curve = []
    a = TabularCFR(tree, "cfr+")
    b = pyspiel.CFRPlusSolver(cached)
    done = 0
    for it in (10, 50, 200):
        a.iterate(it - done)
        for _ in range(it - done):
            b.evaluate_and_update_policy()
        done = it
        pol = b.average_policy()
        curve.append({"iteration": it, "native": exploitability(tree, a.average_policy()),
                      "openspiel_cached": pyspiel.exploitability(game, pol)})
    report["cfr+"] = {
        "iterations_per_s": {"openspiel_python_game": r_py, "openspiel_cached_tree": r_cached,
                             "native": r_native},
        "openspiel_equivalent_nodes_per_s": {k: v * n_states * players for k, v in
                                             {"openspiel_python_game": r_py,
                                              "openspiel_cached_tree": r_cached,
                                              "native": r_native}.items()},
        "speedup_vs_python_game": r_native / r_py,
        "speedup_vs_cached_tree": r_native / r_cached,
        "exploitability_curve": curve,
    }

    # ---- ES-MCCFR ----------------------------------------------------------------------------
    es_py = pyspiel.ExternalSamplingMCCFRSolver(game, 1)
    es_cached = pyspiel.ExternalSamplingMCCFRSolver(cached, 1)
    es_native = MCCFR(params, "external", seed=1)
    r = rates({"py": (lambda n: [es_py.run_iteration() for _ in range(n)], 20),
               "cached": (lambda n: [es_cached.run_iteration() for _ in range(n)], 2000),
               "native": (es_native.iterate, 20000)}, args.repeats)
    r_py, r_cached, r_native = r["py"], r["cached"], r["native"]
    curve = []
    a = MCCFR(params, "external", seed=2)
    b = pyspiel.ExternalSamplingMCCFRSolver(cached, 2)
    done = 0
    for it in (1000, 5000, 20000):
        a.iterate(it - done)
        for _ in range(it - done):
            b.run_iteration()
        done = it
        pol = b.average_policy()
        curve.append({"iteration": it, "native": exploitability(tree, a.policy_on_tree(tree)),
                      "openspiel_cached": pyspiel.exploitability(game, pol)})
    report["es-mccfr"] = {
        "iterations_per_s": {"openspiel_python_game": r_py, "openspiel_cached_tree": r_cached,
                             "native": r_native},
        "speedup_vs_python_game": r_native / r_py,
        "speedup_vs_cached_tree": r_native / r_cached,
        "exploitability_curve": curve,
    }
    for name in ("cfr+", "es-mccfr"):
        r = report[name]
        ips = r["iterations_per_s"]
        print(f"{name:<9} it/s: python game {ips['openspiel_python_game']:>10,.1f}  cached tree "
              f"{ips['openspiel_cached_tree']:>10,.1f}  native {ips['native']:>10,.1f}   "
              f"x{r['speedup_vs_python_game']:,.0f} vs python game, "
              f"x{r['speedup_vs_cached_tree']:,.1f} vs cached tree")
        for c in r["exploitability_curve"]:
            print(f"    it {c['iteration']:>6}: exploitability native {c['native']:.5f}  "
                  f"openspiel {c['openspiel_cached']:.5f}")
    write_atomic(Path(args.out), (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {args.out}")


def _states(game):
    stack = [game.new_initial_state()]
    while stack:
        s = stack.pop()
        yield s
        if s.is_terminal():
            continue
        actions = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        for a in actions:
            stack.append(s.child(a))


if __name__ == "__main__":
    main()
