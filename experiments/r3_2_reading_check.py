"""Where does R3.2's rules-1.1 reading (count copies) decide differently from 1.0's
(every rank with an unplayed copy possible for every remaining player)?

Plays seeded random deals on the reference engine (tests/reference/engine.py) with
``early_end = "trick"`` (so no deal stops mid-trick and every position is seen) and, after
every card that leaves two or more players to play in the trick, asks both readings
whether the deal is decided. Prints, per variant, the number of such points and of
disagreements: the four-player figures on the full deck stand only if it is 0 there.

    python experiments/r3_2_reading_check.py [--deals 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reference import engine as E  # noqa: E402

VARIANTS = {
    "vitou, full deck, 3-card hands": {},
    "vitou, full deck, 2-card hands": {"hand_size": 2},
    "vitou, 8 ranks x 2 copies": {"copies": 2},
    "vitou, 4 ranks x 2 copies, 2-card hands": {"ranks": 4, "copies": 2, "hand_size": 2},
    "vitou, 2 ranks x 2 copies, 1 card": {"ranks": 2, "copies": 2, "hand_size": 1},
}


def decided(st, unseen) -> bool:
    g = st._game
    first = len(st._trick_cards)
    seats = [(st._leader + i) % g.players for i in range(first, g.players)]
    outcomes = E._possible_trick_results(tuple((s % 2, r) for s, r in st._trick_cards),
                                         tuple(s % 2 for s in seats), unseen)
    later = g.hand_size - len(st._tricks) - 1
    finals = {E._final_result(tuple(st._tricks) + (res,), later) for res in outcomes}
    return len(finals) == 1 and E._OPEN not in finals


def check(knobs: dict, deals: int, seed: int) -> dict:
    rng = random.Random(seed)
    game = E.RefGame(profile="vitou", dealer=-1, early_end="trick", **knobs)
    points = differ = 0
    for _ in range(deals):
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():
                outs, probs = zip(*st.chance_outcomes(), strict=True)
                st.apply_action(rng.choices(outs, probs)[0])
                continue
            st.apply_action(rng.choice(st.legal_actions()))
            g = st._game
            if st.is_terminal() or not 1 <= len(st._trick_cards) <= g.players - 2:
                continue
            unseen = tuple(g.copies - st._played[r] for r in range(g.ranks))
            old = tuple(g.players if u > 0 else 0 for u in unseen)
            points += 1
            differ += decided(st, unseen) != decided(st, old)
    return {"deals": deals, "points": points, "disagreements": differ}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=5000, help="random deals per variant (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default %(default)s)")
    ap.add_argument("--out", default=str(ROOT / "results" / "r3_2_reading_check.json"),
                    help="JSON summary (default %(default)s)")
    args = ap.parse_args()
    summary = {name: check(k, args.deals, args.seed) for name, k in VARIANTS.items()}
    for name, r in summary.items():
        print(f"{name:45s} {r['points']:>9,} mid-trick points, {r['disagreements']:>7,} decided differently")
    Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), **summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
