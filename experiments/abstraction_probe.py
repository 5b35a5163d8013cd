"""Probe: the card-count knob at a small budget. For count 0, 1, 2: 200,000
abstract ES-MCCFR iterations on the full ``vitou`` (3-card hands, 0:0), then
points per deal against ``cautious`` and ``counter`` (20,000 duplicate deals;
mean and two standard errors). Prints one line per knob value.

    python experiments/abstraction_probe.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vitou_ai.abstraction import AbstractionConfig  # noqa: E402
from vitou_ai.bots.named import NAMED_BOTS, named_bot  # noqa: E402
from vitou_ai.rules.params import VitouParams  # noqa: E402
from vitou_ai.sim.batch import simulate  # noqa: E402
from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR  # noqa: E402


def main() -> int:
    p = VitouParams(profile="vitou", dealer=-1)
    for count in (0, 1, 2):
        s = AbstractMCCFR(p, AbstractionConfig(count=count), seed=1, max_infosets=1 << 22)
        t = time.time()
        while s.iteration < 200_000:
            s.iterate(20_000)
        pol = s.policy("abs")
        pol.fallback = NAMED_BOTS["counter"]
        out = [count, s.num_infosets, round(time.time() - t)]
        for b in ("cautious", "counter"):
            res = simulate(p, [pol, named_bot(b), pol, named_bot(b)], 20_000, seed=3,
                           duplicate=True, rotate_dealer=True, allow_fallback=True)
            v = np.asarray(res["variant"])
            r = np.where(v == 0, res["return0"], res["return1"]).astype(float)
            out += [b, round(r.mean(), 3), round(2 * r.std() / np.sqrt(len(r)), 3)]
        print(*out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
