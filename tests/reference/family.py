"""Independent reference engine for the Truc / Put family: plain, slow Python.

Written from ``docs/RULES_family.md`` and the family section of
``docs/kernel_interface.md`` (ids and order of nodes), not from the numba
kernel, so that the differential test compares two readings of the rules.
Rule numbers (``C4.3``, ``G2.4``) refer to ``docs/RULES_family.md``.

Everything is kept as Python lists and checked by brute force: the G2.4
certainty test enumerates every completion of the current trick and every
result of the later tricks.

Public API (as ``tests/reference/engine.py``)::

    state = FamilyGame(profile="put", dealer=0, scores=(0, 0)).new_initial_state()
    state.current_player(); state.legal_actions(); state.chance_outcomes()
    state.apply_action(a); state.returns(); state.scores(); state.last_deal()
"""

from __future__ import annotations

import copy
import functools
import itertools

# ---- ids (docs/kernel_interface.md) -------------------------------------------------------
RAISE, ACCEPT, REFUSE, GO, PASS, DECLINE = 8, 9, 10, 11, 12, 13
AGREE, REJECT = 20, 21
CONCEDE, REST, REDEAL, KEEP = 27, 28, 29, 30
TAKE, GIVE, DISCARD = 31, 32, 33  # partnership Put P6.1, P6.3 (discard rank r: 33 + r)
DEALER_BASE = 10


def play_id(rank: int) -> int:
    return rank if rank < 8 else 22 + rank - 8


def deal_id(rank: int) -> int:
    return rank if rank < 8 else 14 + rank - 8


def rank_of_play(action: int) -> int | None:
    if 0 <= action < 8:
        return action
    if 22 <= action <= 26:
        return action - 22 + 8
    return None


def rank_of_deal(outcome: int) -> int:
    return outcome if outcome < 8 else outcome - 14 + 8


GAME = "game"  # a ladder step that stakes the game

# per profile: players, ranks, target, ladder values, labels, games, carry, answer style
PROFILES = {
    "truc_catalan": dict(players=4, ranks=10, target=12, ladder=(1, 2, 3),
                         labels=("1", "truc", "retruc"), games=1),
    "truc_catalan_2p": dict(players=2, ranks=10, target=12, ladder=(1, 2, 3),
                            labels=("1", "truc", "retruc"), games=1),
    "truc_1912": dict(players=4, ranks=8, target=12, ladder=None, labels=None, games=2),
    "trut": dict(players=4, ranks=8, target=3, ladder=(1, 3), labels=("1", "trut"), games=5),
    "put": dict(players=2, ranks=13, target=5, ladder=(1, GAME), labels=("1", "put"), games=1),
    "put_partnership": dict(players=4, ranks=13, target=5, ladder=(1, GAME), labels=("1", "put"),
                            games=1),
}

VOID = "void"


def trick_result(cards: list[tuple[int, int]]) -> str:
    """G1.2, G1.3 on ``(team, rank)`` in playing order: "0", "1" or void."""
    top = min(r for _, r in cards)
    teams = [t for t, r in cards if r == top]
    if len(set(teams)) > 1:
        return VOID  # opponents tied
    return str(teams[0])  # one player, or partners: the first card's team


def deal_winner(results: tuple[str, ...], put: bool, nondealers: int) -> int | None:
    """G2: team, or None for nobody (draw / all void)."""
    a, b = results.count("0"), results.count("1")
    if a != b:
        return 0 if a > b else 1
    if a > 0:
        if put:
            return None  # P2.2 trick and tie
        return int(next(r for r in results if r != VOID))  # G2.2 first
    return None if put else nondealers  # G2.3


class FamilyGame:
    def __init__(self, profile: str, mode: str = "deal", dealer: int = 0,
                 scores: tuple[int, int] = (0, 0), early_end: str = "card",
                 target: int | None = None, ranks: int | None = None, copies: int = 4,
                 hand_size: int = 3, max_deals: int = 100, games: int | None = None,
                 games_won: tuple[int, int] = (0, 0), direction: str | None = None,
                 chooser: str | None = None) -> None:
        k = PROFILES[profile]
        self.profile = profile
        self.players = k["players"]
        self.mode = mode
        self.dealer = dealer
        self.scores = tuple(scores)
        self.early_card = early_end == "card"
        self.target = target if target is not None else k["target"]
        self.ranks = ranks if ranks is not None else k["ranks"]
        self.copies = copies
        self.hand = hand_size
        self.max_deals = max_deals
        self.games = games if games is not None else k["games"]
        self.games_won = tuple(games_won)
        self.put = profile in ("put", "put_partnership")
        # P6: four seats, a hand-over, then the two active players play two-handed Put
        self.partners = profile == "put_partnership"
        self.chooser = chooser or "named"
        self.two_handed = self.players == 2 or self.partners
        self.catalan_ofe = profile in ("truc_catalan", "truc_catalan_2p", "truc_1912")  # C5, F4.2
        self.redeal = profile == "truc_1912"
        self.carry = profile == "trut"
        if profile == "truc_1912":  # F3.1
            self.ladder = tuple(range(1, self.target)) + (GAME,)
            self.labels = tuple(str(v) for v in range(1, self.target)) + ("rest",)
        else:
            self.ladder = k["ladder"]
            self.labels = k["labels"]

    def new_initial_state(self) -> FamilyState:
        return FamilyState(self)


class FamilyState:
    def __init__(self, game: FamilyGame) -> None:
        self.g = game
        self.scores_ = list(game.scores)
        self.games_ = list(game.games_won)
        self.deals_done = 0
        self.result: dict | None = None
        self.returns_ = [0.0] * game.players
        self.over = False
        if game.dealer < 0:
            self.phase = "draw"
            self.dealer = None
        else:
            self.dealer = game.dealer
            self.new_deal()

    def clone(self) -> FamilyState:
        return copy.deepcopy(self)

    # ---- set-up ----------------------------------------------------------------------------
    def team(self, seat: int) -> int:
        return seat % 2

    def new_deal(self) -> None:
        g = self.g
        self.unseen_deck = [g.copies] * g.ranks  # not dealt
        self.played = [0] * g.ranks
        self.hands = [[] for _ in range(g.players)]
        self.to_deal = [(self.dealer + 1 + i // g.hand) % g.players for i in range(g.players * g.hand)]
        self.redeal_state = "none"
        self.trick: list[tuple[int, int]] = []  # (seat, rank)
        self.leader = (self.dealer + 1) % g.players
        self.results: list[str] = []
        self.stake = 0
        self.prev_stake = 0
        self.last_raise_team: int | None = None
        self.raises = 0
        self.refusals = 0
        self.must_play = False  # 4p: just raised; 2p: accepted, now plays
        self.answer_seat: int | None = None  # 4p: the raise waits on this seat
        self.raised_card_pending = False
        self.exchange: dict | None = None
        self.ofe = 0  # 0 none, 1 one side at target-1, 2 both
        self.ofe_team: int | None = None
        self.active: list[int | None] = [None, None]  # P6.1: per team
        self.side = 0  # P6: 0 the non-dealers' side is choosing, 1 the dealer's
        self.phase = "deal"

    def after_deal(self) -> None:
        g = self.g
        if g.redeal and self.redeal_state == "none":
            self.phase = "redeal"
            return
        if g.partners:
            self.phase = "choose"
            return
        t1 = g.target - 1
        if g.catalan_ofe:
            at = [self.scores_[0] == t1, self.scores_[1] == t1]
            if at[0] and at[1]:
                self.ofe = 2  # C5.3
            elif at[0] or at[1]:
                self.ofe = 1
                self.ofe_team = 0 if at[0] else 1
                self.phase = "ofe"
                return
        self.phase = "card"

    # ---- queries ---------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.over

    def trick_order(self) -> list[int]:
        """The seats of the current trick in playing order, from its leader."""
        if self.g.partners:  # P6.4: only the two active players
            return [self.leader, self.active[1 - self.team(self.leader)]]
        return [(self.leader + k) % self.g.players for k in range(self.g.players)]

    def turn_seat(self) -> int:
        return self.trick_order()[len(self.trick)]

    def speaker(self) -> int:
        """P6.1: who says take or give for the side choosing now."""
        if self.side == 0:
            return (self.dealer + 1) % 4
        return self.dealer if self.g.chooser == "named" else (self.dealer + 2) % 4

    def choosing_team(self) -> int:
        return self.team((self.dealer + 1) % 4) if self.side == 0 else self.team(self.dealer)

    def nondealer(self) -> int:
        """P5's non-dealer: seat dealer+1, or (P6.4) the non-dealers' active player."""
        nd = (self.dealer + 1) % self.g.players
        return self.active[self.team(nd)] if self.g.partners else nd

    def current_player(self) -> int:
        if self.over:
            return -4
        ph = self.phase
        n = self.g.players
        if ph in ("draw", "deal"):
            return -1
        if ph == "card":
            return self.turn_seat()
        if ph == "answer":
            return self.exchange["answerer"]
        if ph == "decide":
            return self.nondealer()
        if ph == "redeal":
            return (self.dealer + 1) % n
        if ph == "choose":
            return self.speaker()
        if ph == "discard":
            return self.active[self.choosing_team()]
        if ph == "redeal_answer":
            return (self.dealer + 2 + self.redeal_pos) % n
        if ph == "ofe":  # C5.1: that side's first player from the dealer's next seat
            for k in range(1, n + 1):
                s = (self.dealer + k) % n
                if self.team(s) == self.ofe_team:
                    return s
        raise AssertionError(ph)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == "draw":
            return [(DEALER_BASE + s, 1.0 / self.g.players) for s in range(self.g.players)]
        total = sum(self.unseen_deck)
        return [(deal_id(r), c / total) for r, c in enumerate(self.unseen_deck) if c > 0]

    def may_raise(self, seat: int) -> bool:
        g = self.g
        if self.stake >= len(g.ladder) - 1 or self.ofe != 0:  # G3.1 top, C5.2
            return False
        if self.last_raise_team == self.team(seat):  # G3.5
            return False
        if not g.two_handed and len(self.trick) == g.players - 1:  # G3.6 last player
            return False
        return True

    def legal_actions(self) -> list[int]:
        if self.over or self.phase in ("draw", "deal"):
            return []
        g = self.g
        ph = self.phase
        out: list[int] = []
        if ph == "card":
            seat = self.turn_seat()
            out += [play_id(r) for r in sorted(set(self.hands[seat]))]
            if not self.must_play:
                if self.may_raise(seat):
                    out.append(RAISE)
                    if g.profile == "truc_1912" and self.stake + 1 < len(g.ladder) - 1:
                        out.append(REST)  # F3.3
                if g.players == 4 and self.answer_seat == seat:
                    out.append(REFUSE)
                if g.put and self.stake == 0:  # P5.1, P5.2
                    out.append(CONCEDE)
        elif ph == "answer":
            if self.stake < len(g.ladder) - 1:
                out.append(RAISE)
            out += [ACCEPT, REFUSE]
        elif ph == "decide":
            out = [RAISE, CONCEDE]
        elif ph == "choose":
            out = [TAKE, GIVE]
        elif ph == "discard":
            out = [DISCARD + r for r in set(self.hands[self.active[self.choosing_team()]])]
        elif ph == "redeal":
            out = [REDEAL, KEEP]
        elif ph == "redeal_answer":
            out = [AGREE, REJECT]
        elif ph == "ofe":
            out = [GO, DECLINE]
        return sorted(out)

    def returns(self) -> list[float]:
        return list(self.returns_) if self.over else [0.0] * self.g.players

    def scores(self) -> tuple[int, int]:
        return tuple(self.scores_)

    def last_deal(self) -> dict | None:
        return self.result

    # ---- transitions -----------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        if self.over:
            raise ValueError("game over")
        ph = self.phase
        if ph == "draw":
            self.dealer = action - DEALER_BASE
            self.new_deal()
            return
        if ph == "deal":
            if action not in [a for a, _ in self.chance_outcomes()]:
                raise ValueError(f"impossible card {action}")
            r = rank_of_deal(action)
            seat = self.to_deal.pop(0)
            self.hands[seat].append(r)
            self.unseen_deck[r] -= 1
            if not self.to_deal:
                self.after_deal()
            return
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action} in {ph}")
        n = self.g.players
        if ph == "redeal":
            if action == KEEP:
                self.redeal_state = "done"
                self.after_deal()
            else:
                self.phase = "redeal_answer"
                self.redeal_pos = 0
            return
        if ph == "redeal_answer":
            if action == REJECT:
                self.redeal_state = "done"
                self.after_deal()
                return
            self.redeal_pos += 1
            if self.redeal_pos == n - 1:  # F2.3: everybody agreed
                self.redeal_state = "taken"
                self.hands = [[] for _ in range(n)]
                self.to_deal = [(self.dealer + 1 + i // self.g.hand) % n
                                for i in range(n * self.g.hand)]
                self.phase = "deal"
            return
        if ph == "ofe":
            if action == DECLINE:
                self.finish("declined", 1 - self.ofe_team, 1)
            else:
                self.phase = "card"
            return
        if ph == "choose":  # P6.1, P6.2
            s = self.speaker()
            act = s if action == TAKE else (s + 2) % 4
            self.active[self.team(act)] = act
            mate = (act + 2) % 4
            self.hands[act].append(min(self.hands[mate]))  # the best card: lowest index
            self.hands[mate] = []  # the rest laid away face down
            self.phase = "discard"
            return
        if ph == "discard":  # P6.3
            self.hands[self.active[self.choosing_team()]].remove(action - DISCARD)
            if self.side == 0:
                self.side = 1
                self.phase = "choose"
            else:
                self.side = 2
                self.leader = self.nondealer()  # P6.4: the non-dealers' active leads
                self.phase = "card"
            return
        if ph == "decide":  # P5.3
            nd = self.nondealer()
            if action == CONCEDE:
                self.finish("conceded", 1 - self.team(nd), 1)
            else:
                self.open_exchange(nd, after="play")
            return
        if ph == "answer":
            ex = self.exchange
            if action == ACCEPT:
                self.phase = "card"
                if ex["after"] == "card":
                    self.must_play = True
            elif action == RAISE:
                self.open_exchange(ex["answerer"], after=ex["after"])
            else:
                self.refuse()
            return
        # a card turn
        seat = self.turn_seat()
        if action in (RAISE, REST):
            if self.g.two_handed:
                self.open_exchange(seat, after="card")
                if action == REST:
                    self.stake = len(self.g.ladder) - 1
                return
            self.answer_seat = None
            self.prev_stake = self.stake
            self.stake = len(self.g.ladder) - 1 if action == REST else self.stake + 1
            self.last_raise_team = self.team(seat)
            self.raises += 1
            self.must_play = True
            self.raised_card_pending = True
            return
        if action == REFUSE:
            self.refuse()
            return
        if action == CONCEDE:
            self.finish("conceded", 1 - self.team(seat), 1)
            return
        self.play(seat, rank_of_play(action))

    def open_exchange(self, raiser: int, after: str) -> None:
        self.prev_stake = self.stake
        self.stake += 1
        self.last_raise_team = self.team(raiser)
        self.raises += 1
        other = self.active[1 - self.team(raiser)] if self.g.partners else 1 - raiser
        self.exchange = {"answerer": other, "after": after}
        self.phase = "answer"

    def refuse(self) -> None:
        """G3.2: the raisers score the stake before the refused raise."""
        self.refusals += 1
        self.stake = self.prev_stake
        team = self.last_raise_team
        self.finish("refused", team, self.points_of(self.stake, team))

    def points_of(self, index: int, team: int) -> int:
        v = self.g.ladder[index]
        return self.g.target - self.scores_[team] if v == GAME else v

    def play(self, seat: int, rank: int) -> None:
        g = self.g
        raised = self.raised_card_pending
        self.raised_card_pending = False
        self.must_play = False
        self.answer_seat = None
        self.hands[seat].remove(rank)
        self.played[rank] += 1
        self.trick.append((seat, rank))
        if len(self.trick) == len(self.trick_order()):
            res = trick_result([(self.team(s), r) for s, r in self.trick])
            if res != VOID:
                top = min(r for _, r in self.trick)
                self.leader = next(s for s, r in self.trick if r == top)  # G1.3: first
            self.results.append(res)
            self.trick = []
        verdict = self.certain()
        if verdict != "open":
            if raised:
                self.stake = self.prev_stake  # G3.6 lapse
            if verdict is None:
                end = "draw" if any(r != VOID for r in self.results) else "all_void"
                self.finish(end, None, 0)
            else:
                self.finish("tricks", verdict, self.trick_points(verdict))
            return
        if raised:
            self.answer_seat = (seat + 1) % g.players
        if g.put and not self.trick and len(self.results) == 1 and self.stake == 0:
            self.phase = "decide"

    def trick_points(self, winner: int) -> int:
        if self.ofe == 1:  # C5.2
            return 1 if winner == self.ofe_team else 3
        if self.ofe == 2:  # C5.3
            return 1
        return self.points_of(self.stake, winner)

    def certain(self):
        """G2.4: the deal's result if certain now (team or None), else "open"."""
        g = self.g
        nondealers = self.team((self.dealer + 1) % g.players)
        if self.trick and not self.early_card_ok():
            return "open"
        if self.trick:
            played = tuple((self.team(s), r) for s, r in self.trick)
            rem = tuple(self.team(s) for s in self.trick_order()[len(self.trick):])
            unseen = [g.copies - p for p in self.played]
            # Cards ranked below the trick's best card cannot change its result: they are
            # pooled as one rank (``low``, the lowest index after the best) to keep the
            # enumeration short; the enumeration itself stays exhaustive.
            best = min(r for _, r in played)
            low = sum(unseen[best + 1:])
            unseen_t = tuple(unseen[: best + 1]) + ((min(low, len(rem)),) if low else ())
            played = tuple((t, min(r, best + 1)) for t, r in played)
            current = completions(played, rem, unseen_t)
            later = g.hand - len(self.results) - 1
        else:
            current = frozenset([None])
            later = g.hand - len(self.results)
        outcomes = set()
        for c in current:
            head = tuple(self.results) + ((c,) if c is not None else ())
            for rest in itertools.product(("0", "1", VOID), repeat=later):
                outcomes.add(deal_winner(head + rest, g.put, nondealers))
                if len(outcomes) > 1:
                    return "open"
        return outcomes.pop()

    def early_card_ok(self) -> bool:
        return self.g.early_card

    def finish(self, end: str, winner: int | None, points: int) -> None:
        g = self.g
        pts = [0, 0]
        if winner is not None:
            pts[winner] = points
        after_s = list(self.scores_)
        after_g = list(self.games_)
        match_won = False
        if winner is not None:
            new = self.scores_[winner] + points
            after_s[winner] = new
            if new >= g.target:
                after_g[winner] += 1
                if after_g[winner] >= g.games:
                    match_won = True
                else:  # G4.2, T4.1
                    after_s[1 - winner] = 0
                    after_s[winner] = new - g.target if g.carry else 0
        self.result = {
            "end": end, "winner": winner, "points": pts, "stake": g.labels[self.stake],
            "tricks": list(self.results), "raises": self.raises, "refusals": self.refusals,
            "scores_after": after_s, "games_after": after_g,
        }
        if g.mode == "deal":
            if winner is not None:
                v = points if g.carry else min(points, g.target - self.scores_[winner])
                for s in range(g.players):
                    self.returns_[s] = v if self.team(s) == winner else -v
            self.over = True
            return
        self.scores_, self.games_ = after_s, after_g
        if match_won:
            for s in range(g.players):
                self.returns_[s] = 1.0 if self.team(s) == winner else -1.0
            self.over = True
            return
        self.deals_done += 1
        if self.deals_done >= g.max_deals:
            self.over = True
            return
        self.dealer = (self.dealer + 1) % g.players
        self.new_deal()


@functools.cache
def completions(played: tuple, remaining: tuple, unseen: tuple) -> frozenset:
    """Every result of the current trick over completions that use, of each rank, no more
    cards than are unseen (G2.4)."""
    out = set()
    for choice in itertools.product(range(len(unseen)), repeat=len(remaining)):
        if any(choice.count(r) > unseen[r] for r in set(choice)):
            continue
        out.add(trick_result(list(played) + list(zip(remaining, choice, strict=True))))
    return frozenset(out)
