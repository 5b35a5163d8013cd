"""Experiment (d): what the knobs change, measured by solving small variants exactly.

- ``early_end`` ``card`` vs ``trick`` (R3.2 says "under sensible play both give
  the same values"): the equilibrium value of ``vitou_2p`` on the full deck with
  two-card hands, solved by DCFR to a small exploitability, under each setting.
- ``signals`` on vs off (R7): the equilibrium value for the team on the
  dealer's left in a four-player variant (2 ranks x 3 copies, one card each: the
  smallest that is not all void under rules 1.1;
  with signals the tree has ~30M nodes), solved by CFR+, with its NashConv.

Writes ``results/knob_effects/summary.json``.

    python experiments/knob_effects.py [--iterations 2000] [--iterations-4p 300]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.evaluate import (  # noqa: E402
    exploitability,
    nash_conv,
    value_by_position,
)
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402


def solve(params: VitouParams, variant: str, iterations: int) -> dict:
    t = time.perf_counter()
    tree = build_tree(params)
    s = TabularCFR(tree, variant)
    s.iterate(iterations)
    avg = s.average_policy()
    out = {"nodes": tree.num_nodes, "infosets": tree.num_infosets, "iterations": iterations,
           "value_dealer_left": float(value_by_position(tree, avg)[0]),
           "seconds": round(time.perf_counter() - t, 1)}
    if params.players == 2:
        out["exploitability"] = exploitability(tree, avg)
    else:
        out["nash_conv"] = nash_conv(tree, avg)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--iterations-4p", type=int, default=300)
    ap.add_argument("--out", default=str(ROOT / "results" / "knob_effects"))
    args = ap.parse_args()
    report: dict = {"rules_version": RULES_VERSION, "command": " ".join(sys.argv)}
    base = VitouParams(profile="vitou_2p", hand_size=2)
    for ee in ("card", "trick"):
        r = solve(base.replace(early_end=ee), "dcfr", args.iterations)
        report[f"early_end_{ee}"] = r
        print(f"vitou_2p 8x4, 2 cards, early_end={ee}: value(dealer's left) "
              f"{r['value_dealer_left']:+.5f}, exploitability {r['exploitability']:.2e}",
              flush=True)
    four = VitouParams(profile="vitou", ranks=2, copies=3, hand_size=1)
    for sig in (False, True):
        r = solve(four.replace(signals=sig), "cfr+", args.iterations_4p)
        report[f"signals_{'on' if sig else 'off'}"] = r
        print(f"vitou 2x3, 1 card, signals={sig}: value(dealer's left team) "
              f"{r['value_dealer_left']:+.5f}, NashConv {r['nash_conv']:.2e}", flush=True)
    d = report["early_end_card"]["value_dealer_left"] - report["early_end_trick"][
        "value_dealer_left"]
    report["early_end_value_difference"] = d
    report["signals_value_difference"] = (report["signals_on"]["value_dealer_left"]
                                          - report["signals_off"]["value_dealer_left"])
    write_atomic(Path(args.out) / "summary.json", (json.dumps(report, indent=2) + "\n").encode())
    print(json.dumps({k: v for k, v in report.items() if k.endswith("difference")}, indent=2))


if __name__ == "__main__":
    main()
