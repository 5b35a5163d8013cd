"""Independent reference engine for Willughby's Put (put_willughby): plain, slow Python.

Written from ``docs/RULES_family.md`` P7 and the ids of ``docs/kernel_interface.md``, not
from the numba kernel, so that the differential test compares two readings of the rules.
Each player is their own side; the state is Python lists; the end of a deal (P7.2) is
checked by brute force over the results the tricks left could have.

Public API (as ``tests/reference/family.py``)::

    state = WillughbyGame(players=3, dealer=0).new_initial_state()
    state.current_player(); state.legal_actions(); state.chance_outcomes()
    state.apply_action(a); state.returns(); state.scores(); state.last_deal()
"""

from __future__ import annotations

import copy
import itertools

from tests.reference.family import deal_id, play_id, rank_of_deal, rank_of_play

RAISE = 8  # "put" (P7.3)
SEE, FOLD = 46, 47  # P7.4
DEALER_BASE = 10
VOID = "void"


class WillughbyGame:
    def __init__(self, players: int = 3, dealer: int = 0, ranks: int | None = None,
                 copies: int = 4, hand_size: int | None = None, put_stake: int = 5,
                 fold_pays: str = "nothing", early_end: str = "card", **_ignored) -> None:
        assert players in (3, 4)
        self.players = players
        self.dealer = dealer
        self.ranks = 13 if ranks is None else ranks
        self.copies = copies
        self.hand = players + 1 if hand_size is None else hand_size  # P7.0
        self.put_stake = put_stake
        self.fold_pays = fold_pays == "stake"

    def new_initial_state(self) -> WillughbyState:
        return WillughbyState(self)


class WillughbyState:
    def __init__(self, game: WillughbyGame) -> None:
        self.g = game
        self.result: dict | None = None
        self.returns_ = [0.0] * game.players
        self.over = False
        if game.dealer < 0:
            self.phase = "draw"
            self.dealer = None
        else:
            self.dealer = game.dealer
            self.new_deal()

    def clone(self) -> WillughbyState:
        return copy.deepcopy(self)

    def new_deal(self) -> None:
        g = self.g
        n = g.players
        self.deck = [g.copies] * g.ranks
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.to_deal = [(self.dealer + 1 + i // g.hand) % n for i in range(n * g.hand)]
        self.leader = (self.dealer + 1) % n
        self.trick: list[tuple[int, int]] = []  # (seat, rank)
        self.results: list[str] = []
        self.won = [0] * n
        self.out = [False] * n
        self.putter: int | None = None
        self.answers = 0
        self.folds = 0
        self.phase = "deal"

    # ---- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over

    def in_order(self) -> list[int]:
        """P7.1: the players still in, in playing order from the leader."""
        n = self.g.players
        return [s for s in ((self.leader + i) % n for i in range(n)) if not self.out[s]]

    def current_player(self) -> int:
        if self.over:
            return -4
        if self.phase in ("draw", "deal"):
            return -1
        if self.phase == "see":  # P7.4: from the putter's left, each other player in turn
            return (self.putter + 1 + self.answers) % self.g.players
        return self.in_order()[len(self.trick)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == "draw":
            n = self.g.players
            return [(DEALER_BASE + s, 1.0 / n) for s in range(n)]
        total = sum(self.deck)
        return [(deal_id(r), c / total) for r, c in enumerate(self.deck) if c > 0]

    def legal_actions(self) -> list[int]:
        if self.over or self.phase in ("draw", "deal"):
            return []
        if self.phase == "see":
            return [SEE, FOLD]
        seat = self.current_player()
        acts = [play_id(r) for r in sorted(set(self.hands[seat]))]
        if not self.trick and self.putter is None:  # P7.3: put at the lead, once a deal
            acts.append(RAISE)
        return sorted(acts)

    def returns(self) -> list[float]:
        return list(self.returns_) if self.over else [0.0] * self.g.players

    def scores(self) -> tuple[int, int]:
        return (0, 0)

    def last_deal(self) -> dict | None:
        return self.result

    # ---- transitions -----------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        g = self.g
        if self.phase == "draw":
            self.dealer = action - DEALER_BASE
            self.new_deal()
            return
        if self.phase == "deal":
            r = rank_of_deal(action)
            self.deck[r] -= 1
            self.hands[self.to_deal.pop(0)].append(r)
            if not self.to_deal:
                self.phase = "card"
            return
        seat = self.current_player()
        assert action in self.legal_actions()
        if self.phase == "see":
            if action == FOLD:
                self.out[seat] = True
                self.folds += 1
            self.answers += 1
            if self.answers == g.players - 1:
                if sum(not o for o in self.out) == 1:  # nobody sees: the putter wins
                    self.finish("folded", self.putter)
                else:
                    self.phase = "card"
            return
        if action == RAISE:
            self.putter = seat
            self.answers = 0
            self.phase = "see"
            return
        rank = rank_of_play(action)
        self.hands[seat].remove(rank)
        self.trick.append((seat, rank))
        if len(self.trick) < len(self.in_order()):
            return
        top = min(r for _, r in self.trick)
        winners = [s for s, r in self.trick if r == top]
        self.trick = []
        if len(winners) > 1:
            self.results.append(VOID)  # P7.1: tied, the leader leads again
        else:
            w = winners[0]
            self.results.append(str(w))
            self.won[w] += 1
            self.leader = w
            if self.won[w] == 2:  # P7.2: the first to two tricks
                self.finish("tricks", w)
                return
        left = g.hand - len(self.results)
        # P7.2: a draw once no one still in can reach two tricks, whatever the tricks left
        # give (brute force over who wins each of them)
        ins = [s for s in range(g.players) if not self.out[s]]
        reach = False
        for rest in itertools.product(ins + [None], repeat=left):
            counts = list(self.won)
            for s in rest:
                if s is not None:
                    counts[s] += 1
            if any(counts[s] >= 2 for s in ins):
                reach = True
                break
        if not reach:
            self.finish("draw" if any(r != VOID for r in self.results) else "all_void", None)

    def finish(self, end: str, winner: int | None) -> None:
        g = self.g
        n = g.players
        ret = [0.0] * n
        stake = 1 if self.putter is None else g.put_stake  # P7.5
        if winner is not None:
            for s in range(n):
                if s != winner and not self.out[s]:
                    ret[s] -= stake
                    ret[winner] += stake
        if g.fold_pays:
            for s in range(n):
                if self.out[s]:
                    ret[s] -= 1
                    ret[self.putter] += 1
        self.returns_ = ret
        self.over = True
        self.result = {"end": end, "winner": winner, "points": [0, 0],
                       "stake": "1" if self.putter is None else "put",
                       "tricks": list(self.results), "raises": int(self.putter is not None),
                       "refusals": self.folds, "scores_after": [0, 0], "games_after": [0, 0]}
