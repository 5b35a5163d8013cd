"""Benchmark: the OpenSpiel wrapper's cost per node.

C++ ``CFRSolver`` and ``ExternalSamplingMCCFRSolver`` on ``python_vitou`` (a
small variant), on OpenSpiel's own Python game ``python_kuhn_poker``, and on
``convert_to_cached_tree`` of the same ``python_vitou`` variant, in one run.
CFR visits every state once per player per iteration, so nodes/s = iterations/s
x states x players and microseconds per node = 1e6 / nodes/s. Medians of
interleaved repeats. Writes ``results/bench_openspiel.json``.

    python benchmarks/bench_openspiel.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import pyspiel
from open_spiel.python import games as _python_games  # noqa: F401  (registers python_kuhn_poker)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vitou_ai  # noqa: E402,F401
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION  # noqa: E402

VITOU = "python_vitou(profile=vitou_2p,ranks=4,copies=2,hand_size=1)"


def count_states(game) -> int:
    n, stack = 0, [game.new_initial_state()]
    while stack:
        s = stack.pop()
        n += 1
        if s.is_terminal():
            continue
        acts = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        stack.extend(s.child(a) for a in acts)
    return n


def main() -> None:
    games = {
        "python_vitou": pyspiel.load_game(VITOU),
        "python_kuhn_poker": pyspiel.load_game("python_kuhn_poker"),
    }
    games["python_vitou_cached_tree"] = pyspiel.convert_to_cached_tree(games["python_vitou"])
    states = {k: count_states(pyspiel.load_game(VITOU) if k.startswith("python_vitou") else g)
              for k, g in games.items()}
    cfr = {k: pyspiel.CFRSolver(g) for k, g in games.items()}
    es = {k: pyspiel.ExternalSamplingMCCFRSolver(g, 1) for k, g in games.items()}
    iters_cfr = {"python_vitou": 3, "python_kuhn_poker": 200, "python_vitou_cached_tree": 100}
    iters_es = {"python_vitou": 30, "python_kuhn_poker": 2000, "python_vitou_cached_tree": 2000}
    r_cfr: dict[str, list[float]] = {k: [] for k in games}
    r_es: dict[str, list[float]] = {k: [] for k in games}
    for _ in range(5):
        for k in games:
            t = time.perf_counter()
            for _ in range(iters_cfr[k]):
                cfr[k].evaluate_and_update_policy()
            r_cfr[k].append(iters_cfr[k] / (time.perf_counter() - t))
            t = time.perf_counter()
            for _ in range(iters_es[k]):
                es[k].run_iteration()
            r_es[k].append(iters_es[k] / (time.perf_counter() - t))
    report = {"rules_version": RULES_VERSION, "variant": VITOU, "states": states, "games": {}}
    for k, g in games.items():
        ips = statistics.median(r_cfr[k])
        nps = ips * states[k] * g.num_players()
        report["games"][k] = {"cfr_iterations_per_s": ips, "cfr_nodes_per_s": nps,
                              "cfr_us_per_node": 1e6 / nps,
                              "es_mccfr_iterations_per_s": statistics.median(r_es[k])}
        print(f"{k:<26} states {states[k]:>6}  CFR {ips:>9.1f} it/s  {nps:>11,.0f} nodes/s  "
              f"{1e6 / nps:6.2f} us/node   ES-MCCFR {statistics.median(r_es[k]):>9.1f} it/s")
    v, kp = report["games"]["python_vitou"], report["games"]["python_kuhn_poker"]
    report["vitou_us_per_node_over_kuhn"] = v["cfr_us_per_node"] / kp["cfr_us_per_node"]
    print(f"python_vitou / python_kuhn_poker time per node: x{report['vitou_us_per_node_over_kuhn']:.2f}")
    out = ROOT / "results" / "bench_openspiel.json"
    write_atomic(out, (json.dumps(report, indent=2) + "\n").encode())
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
