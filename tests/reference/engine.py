"""Independent reference engine for Vitou: plain, slow, readable Python.

Written only from ``RULES.md`` (sections 0-9) and ``docs/kernel_interface.md``
(action ids, chance ids, order of nodes), without reading the numba kernel, so
that the differential test can compare two independent readings of the rules.

Rule numbers (``R4.3``) refer to ``RULES.md``; "contract" refers to
``docs/kernel_interface.md``. Places where the two texts leave a choice open
are marked ``# AMBIGUITY:`` with the reading taken here.

Public API::

    game = RefGame(profile="vitou", mode="deal", dealer=0, scores=(0, 0), ...)
    state = game.new_initial_state()
    state.current_player()    # seat, -1 chance, -4 terminal
    state.legal_actions()     # ascending player action ids
    state.chance_outcomes()   # [(outcome id, probability)], ascending ids
    state.apply_action(a)     # ValueError on an illegal action / outcome
    state.returns()           # per seat, zeros until terminal
    state.scores()            # (team 0, team 1)
    state.last_deal()         # summary of the most recently finished deal
    state.clone()
"""

from __future__ import annotations

import copy
import functools
import itertools

PROFILES = ("vitou", "vitou_cason", "vitou_2p")

RANK_LETTERS = "T9AKQJ87"  # R0: rank index 0 is the highest

# ---- player action ids (contract, "Player actions") -------------------------
PLAY_BASE = 0  # 0..7: play rank index id
RAISE = 8
ACCEPT = 9
REFUSE = 10
GO = 11
PASS = 12
DECLINE = 13
SIGNAL_NONE = 14  # 14..18: none, ten, nine, ace, nohigh (R7.1)
SIGNAL_NAMES = ("none", "ten", "nine", "ace", "nohigh")
ABANDON = 19
AGREE = 20
REJECT = 21
NUM_ACTIONS = 22

# ---- chance outcome ids (contract, "Chance outcomes") -----------------------
DEAL_BASE = 0  # 0..7: next card dealt is rank id
SEEN = 8
UNSEEN = 9
DEALER_BASE = 10  # 10..13: first dealer is seat id - 10

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4

# ---- profiles (R9 table) -----------------------------------------------------
# In all three profiles the top of the ladder stakes the match: `B` in vitou
# (R4.1, R5.2), 12 in vitou_cason and vitou_2p ("12 is the match").
_PROFILE_KNOBS = {
    "vitou": {"players": 4, "target": 21, "ladder": (1, 3, 6, 12, "B")},
    "vitou_cason": {"players": 4, "target": 12, "ladder": (1, 3, 6, 12)},
    "vitou_2p": {"players": 2, "target": 12, "ladder": (1, 3, 6, 12)},
}

# Trick results as written in last_deal()["tricks"] (R3.1).
VOID = "void"
_TRICK_RESULT_OF_TEAM = ("0", "1")

# Phases of a state (which kind of node it is).
_DEALER_DRAW = "dealer_draw"  # chance: first dealer (R1.4)
_BLIND = "blind"  # 2p blind window: raise / pass (R9.2)
_EXCHANGE = "exchange"  # 2p answer to a raise: accept / raise / refuse (R9.2)
_DEALING = "dealing"  # chance: one card (R1.2)
_OFE_DECIDE = "ofe_decide"  # go / decline (R6.1, R9.3)
_OFE_ROUND = "ofe_round"  # go / pass round (R6.2)
_SIGNAL = "signal"  # choose a gesture (R7.1)
_SIGNAL_CATCH = "signal_catch"  # chance: an opponent catches it or not (R7.2)
_CARD = "card"  # a card turn (R2, R4, R9.2)
_ABANDON_ANSWER = "abandon_answer"  # 2p: agree / reject (R9.2)
_TERMINAL = "terminal"

_OPEN = "open"  # marker: the deal result is not yet decided


# =============================================================================
# Pure helpers for tricks and the deal result (R2, R3).  They work on teams,
# not seats, and are cached because R3.2 is checked by brute force after every
# card: the enumeration stays exhaustive, it is only not repeated.
# =============================================================================


def _trick_result(cards: tuple[tuple[int, int], ...]) -> str:
    """Result of a complete trick given ``(team, rank)`` pairs (R2.2, R2.3).

    The highest rank (lowest index) wins for the team that played it; if two or
    more players played it, partners included, the trick is void (R2.3).
    """
    top = min(rank for _, rank in cards)
    holders = [team for team, rank in cards if rank == top]
    if len(holders) >= 2:
        return VOID
    return _TRICK_RESULT_OF_TEAM[holders[0]]


def _deal_result(tricks: tuple[str, ...]) -> int | None:
    """Winner of a deal from its trick results: R3.1, general form.

    More tricks wins; equal (non-zero) tricks: the team that won a trick
    first; no trick won: nobody (None).
    """
    won0 = tricks.count("0")
    won1 = tricks.count("1")
    if won0 > won1:
        return 0
    if won1 > won0:
        return 1
    for result in tricks:
        if result != VOID:
            return int(result)
    return None


@functools.cache
def _final_result(tricks: tuple[str, ...], later_tricks: int) -> int | None | str:
    """The R3.1 result if no later trick can change it, else ``_OPEN``.

    Brute force over every result (team 0, team 1, void) of each later trick.
    """
    # AMBIGUITY: R3.2 restricts ranks ("possible while a copy is unseen") only
    # for completing the *current* trick; "final" is read as "no combination of
    # later trick results (each team 0, team 1 or void) changes it". Later
    # tricks are therefore never treated as certain to be void, so an all-void
    # deal ends (as "all_void") only once its last trick is certain to be void.
    results = {
        _deal_result(tricks + later)
        for later in itertools.product(("0", "1", VOID), repeat=later_tricks)
    }
    if len(results) == 1:
        return results.pop()
    return _OPEN


@functools.cache
def _possible_trick_results(
    played: tuple[tuple[int, int], ...],
    remaining_teams: tuple[int, ...],
    unseen: tuple[int, ...],
) -> frozenset[str]:
    """Every result the current trick can still have (R3.2 ``card``, rules 1.1).

    ``played``: ``(team, rank)`` of the cards already in the trick;
    ``remaining_teams``: teams of the players still to play, in order;
    ``unseen``: per rank, the copies not yet played in this deal. The
    remaining players may complete the trick in any way that uses, of each
    rank, no more cards than are unseen (the deck's composition is public).
    """
    results = set()
    ranks = range(len(unseen))
    for choice in itertools.product(ranks, repeat=len(remaining_teams)):
        if any(choice.count(r) > unseen[r] for r in set(choice)):
            continue
        cards = played + tuple(zip(remaining_teams, choice, strict=True))
        results.add(_trick_result(cards))
    return frozenset(results)


# =============================================================================
# Game
# =============================================================================


class RefGame:
    """Knobs of one game (R9 profiles plus research variants), validated.

    Raises ValueError for any argument outside its documented range.
    """

    def __init__(
        self,
        profile: str = "vitou",
        mode: str = "deal",
        dealer: int = 0,
        scores: tuple[int, int] = (0, 0),
        early_end: str = "card",
        signals: bool = False,
        signal_seen: float = 0.5,
        target: int | None = None,
        ranks: int = 8,
        copies: int = 4,
        hand_size: int = 3,
        max_deals: int = 100,
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; expected one of {PROFILES}")
        knobs = _PROFILE_KNOBS[profile]
        self.profile = profile
        self.players: int = knobs["players"]
        self.ladder: tuple = knobs["ladder"]
        self.top_index: int = len(self.ladder) - 1  # the step that stakes the match

        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', got {mode!r}")
        self.mode = mode

        if target is None:
            target = knobs["target"]
        # AMBIGUITY: the smallest target is not fixed anywhere; 1 is accepted
        # (both teams then start at target-1, an R6.2 deal).
        if not _is_int(target) or target < 1:
            raise ValueError(f"target must be an integer >= 1, got {target!r}")
        self.target: int = int(target)

        if not _is_int(dealer) or not -1 <= dealer < self.players:
            raise ValueError(
                f"dealer must be -1 (drawn) or a seat 0..{self.players - 1}, got {dealer!r}"
            )
        self.dealer: int = int(dealer)

        scores = tuple(scores)
        if len(scores) != 2 or not all(_is_int(s) for s in scores):
            raise ValueError(f"scores must be two integers, got {scores!r}")
        if not all(0 <= s <= self.target - 1 for s in scores):
            raise ValueError(
                f"scores must lie in [0, target-1] = [0, {self.target - 1}], got {scores!r}"
            )
        self.scores: tuple[int, int] = (int(scores[0]), int(scores[1]))

        if early_end not in ("card", "trick"):
            raise ValueError(f"early_end must be 'card' or 'trick', got {early_end!r}")
        self.early_end = early_end

        if not isinstance(signals, bool):
            raise ValueError(f"signals must be a bool, got {signals!r}")
        if signals and self.players == 2:
            raise ValueError("signals are not available with two players (R9 table: none)")
        self.signals = signals

        if (
            isinstance(signal_seen, bool)
            or not isinstance(signal_seen, (int, float))
            or not 0.0 <= signal_seen <= 1.0
        ):
            raise ValueError(f"signal_seen must be a probability in [0, 1], got {signal_seen!r}")
        self.signal_seen = float(signal_seen)

        if not _is_int(ranks) or not 2 <= ranks <= 8:
            raise ValueError(f"ranks must be an integer in 2..8, got {ranks!r}")
        if not _is_int(copies) or not 1 <= copies <= 8:
            raise ValueError(f"copies must be an integer in 1..8, got {copies!r}")
        if not _is_int(hand_size) or not 1 <= hand_size <= 3:
            raise ValueError(f"hand_size must be an integer in 1..3, got {hand_size!r}")
        if ranks * copies < self.players * hand_size:
            raise ValueError(
                f"deck too small: ranks*copies = {ranks * copies} < players*hand_size = {self.players * hand_size}"
            )
        self.ranks, self.copies, self.hand_size = int(ranks), int(copies), int(hand_size)

        if not _is_int(max_deals) or max_deals < 1:
            raise ValueError(f"max_deals must be an integer >= 1, got {max_deals!r}")
        self.max_deals = int(max_deals)

    def new_initial_state(self) -> RefState:
        return RefState(self)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# =============================================================================
# State
# =============================================================================


class RefState:
    """One node of the game tree: a match (or a single deal) in progress."""

    # ---------------------------------------------------------------- setup --
    def __init__(self, game: RefGame) -> None:
        self._game = game
        self._scores = list(game.scores)
        self._deals_played = 0
        self._last_deal: dict | None = None
        self._returns = [0.0] * game.players
        self._dealer = game.dealer
        if self._dealer == -1:
            # Contract step 1 / R1.4: the first dealer is drawn uniformly.
            # AMBIGUITY: in match mode a given dealer (>= 0) deals the first
            # deal without a draw; the draw happens only for dealer = -1.
            self._phase = _DEALER_DRAW
        else:
            self._start_deal()

    def _start_deal(self) -> None:
        """Reset everything that belongs to one deal (contract, order of nodes)."""
        g = self._game
        n = g.players
        target = g.target
        # R6: which teams are one point from the end, fixed for the whole deal.
        at_end = [s == target - 1 for s in self._scores]
        if at_end[0] and at_end[1]:
            self._ofe = "both"  # R6.2
            self._ofe_team = None
        elif at_end[0] or at_end[1]:
            self._ofe = "one"  # R6.1 / R9.3
            self._ofe_team = 0 if at_end[0] else 1
        else:
            self._ofe = None
            self._ofe_team = None

        self._deck = [g.copies] * g.ranks  # undealt copies per rank
        # R1.2: hand_size cards to dealer+1, then dealer+2, ... round.
        self._deal_order = [
            (self._dealer + i) % n for i in range(1, n + 1) for _ in range(g.hand_size)
        ]
        self._deal_pos = 0
        self._hands = [[0] * g.ranks for _ in range(n)]
        self._played = [0] * g.ranks  # copies of each rank played in this deal
        self._tricks: list[str] = []  # results of completed tricks
        self._trick_cards: list[tuple[int, int]] = []  # (seat, rank) in the current trick
        self._leader = (self._dealer + 1) % n  # R1.3

        self._stake_index = 0  # accepted stake (R4.1: a deal starts at 1)
        self._last_raiser_team: int | None = None  # R4.2b
        self._raises = 0
        self._refusals = 0
        self._must_play = False  # after a raise (4p) or an accepted exchange (2p)
        # 4p: (raiser seat, proposed stake index) of a raise awaiting its answer
        self._pending: tuple[int, int] | None = None
        # 2p: (raiser, answerer, proposed stake index, "blind" | "card")
        self._exchange: tuple[int, int, int, str] | None = None
        self._abandon_used = False
        self._blind_seat = -1
        self._ofe_seat = -1
        self._ofe_round: list[int] = []
        self._signal_queue: list[int] = []
        self._catch_queue: list[int] = []
        self._signals: list[tuple[int, int]] = []  # (seat, gesture index)
        self._catches: list[tuple[int, int, bool]] = []  # (gesturer, opponent, seen)

        if n == 2 and self._ofe is None:
            # Contract step 2 / R9.2: the non-dealer speaks first in the blind window.
            self._phase = _BLIND
            self._blind_seat = (self._dealer + 1) % 2
        else:
            self._phase = _DEALING

    # ------------------------------------------------------------- queries --
    def current_player(self) -> int:
        phase = self._phase
        if phase == _TERMINAL:
            return TERMINAL_PLAYER
        if phase in (_DEALER_DRAW, _DEALING, _SIGNAL_CATCH):
            return CHANCE_PLAYER
        if phase == _BLIND:
            return self._blind_seat
        if phase == _EXCHANGE:
            return self._exchange[1]
        if phase == _OFE_DECIDE:
            return self._ofe_seat
        if phase == _OFE_ROUND:
            return self._ofe_round[0]
        if phase == _SIGNAL:
            return self._signal_queue[0]
        if phase == _CARD:
            return self._seat_to_play()
        if phase == _ABANDON_ANSWER:
            return 1 - self._leader  # 2p: the other player
        raise AssertionError(f"unknown phase {phase}")

    def is_terminal(self) -> bool:
        return self._phase == _TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE_PLAYER

    def scores(self) -> tuple[int, int]:
        return (self._scores[0], self._scores[1])

    def returns(self) -> list[float]:
        return list(self._returns)

    def last_deal(self) -> dict | None:
        return copy.deepcopy(self._last_deal)

    def clone(self) -> RefState:
        new = RefState.__new__(RefState)
        new.__dict__ = copy.deepcopy({k: v for k, v in self.__dict__.items() if k != "_game"})
        new._game = self._game
        return new

    def __str__(self) -> str:
        g = self._game
        hands = (
            [
                "".join(RANK_LETTERS[r] * self._hands[s][r] for r in range(g.ranks))
                for s in range(g.players)
            ]
            if hasattr(self, "_hands")
            else []
        )
        return (
            f"phase={self._phase} dealer={self._dealer} scores={self._scores} "
            f"hands={hands} tricks={getattr(self, '_tricks', None)} "
            f"trick={getattr(self, '_trick_cards', None)} stake={g.ladder[getattr(self, '_stake_index', 0)]}"
        )

    # ------------------------------------------------------ chance outcomes --
    def chance_outcomes(self) -> list[tuple[int, float]]:
        g = self._game
        if self._phase == _DEALER_DRAW:
            return [(DEALER_BASE + s, 1.0 / g.players) for s in range(g.players)]
        if self._phase == _DEALING:
            undealt = sum(self._deck)
            return [(DEAL_BASE + r, c / undealt) for r, c in enumerate(self._deck) if c > 0]
        if self._phase == _SIGNAL_CATCH:
            # AMBIGUITY: with signal_seen 0 or 1 the catch node is still a
            # chance node (contract: "one chance node per opponent"), listing
            # only its single outcome of probability 1.
            outcomes = [(SEEN, g.signal_seen), (UNSEEN, 1.0 - g.signal_seen)]
            return [(o, p) for o, p in outcomes if p > 0]
        return []

    # ------------------------------------------------------- legal actions --
    def legal_actions(self) -> list[int]:
        phase = self._phase
        if phase in (_TERMINAL, _DEALER_DRAW, _DEALING, _SIGNAL_CATCH):
            return []
        if phase == _BLIND:
            return [RAISE, PASS]  # R9.2 blind window
        if phase == _EXCHANGE:
            _, _, proposed, _ = self._exchange
            actions = [ACCEPT, REFUSE]
            if proposed < self._game.top_index:  # re-raise only below the top (R9.2)
                actions.append(RAISE)
            return sorted(actions)
        if phase == _OFE_DECIDE:
            return [GO, DECLINE]
        if phase == _OFE_ROUND:
            return [GO, PASS]
        if phase == _SIGNAL:
            return [SIGNAL_NONE + i for i in range(len(SIGNAL_NAMES))]  # R7.1: any gesture
        if phase == _ABANDON_ANSWER:
            return [AGREE, REJECT]
        if phase == _CARD:
            return self._card_turn_actions()
        raise AssertionError(f"unknown phase {phase}")

    def _card_turn_actions(self) -> list[int]:
        seat = self._seat_to_play()
        actions = [PLAY_BASE + r for r, c in enumerate(self._hands[seat]) if c > 0]
        if self._must_play:
            return actions  # R4.3 "having raised, the raiser plays a card"; R9.2 after accept
        if self._game.players == 4:
            if self._may_raise_4p(seat):
                actions.append(RAISE)
            if self._pending is not None and self._pending[0] != seat:
                actions.append(REFUSE)  # R4.3/R4.4: only the next player, right after the raise
        else:
            if self._may_raise_2p(seat):
                actions.append(RAISE)
            if self._may_abandon(seat):
                actions.append(ABANDON)
        return sorted(actions)

    def _may_raise_4p(self, seat: int) -> bool:
        """R4.2 a-d (and R4.3/R4.4 for a re-raise)."""
        g = self._game
        # a. not the last to play to the current trick
        if len(self._trick_cards) >= g.players - 1:
            return False
        # b. no raise yet, or the latest raise was by the other team
        if self._last_raiser_team == seat % 2:
            return False
        # c. the stake (after accepting a waiting raise, R4.3) is below the top
        stake = self._pending[1] if self._pending is not None else self._stake_index
        if stake >= g.top_index:
            return False
        # d. no team at target-1
        return self._ofe is None

    def _may_raise_2p(self, seat: int) -> bool:
        """R9.2 card turns: alternation (R4.2b), below the top, not one from the end."""
        return (
            self._ofe is None
            and self._last_raiser_team != seat
            and self._stake_index < self._game.top_index
        )

    def _may_abandon(self, seat: int) -> bool:
        """R9.2: the leader's first card turn, before any card, once, not one from the end."""
        return (
            self._ofe is None
            and not self._abandon_used
            and not self._tricks
            and not self._trick_cards
            and seat == self._leader
        )

    def _seat_to_play(self) -> int:
        return (self._leader + len(self._trick_cards)) % self._game.players

    # --------------------------------------------------------- apply_action --
    def apply_action(self, action: int) -> None:
        if self._phase == _TERMINAL:
            raise ValueError("the game is over")
        if self.current_player() == CHANCE_PLAYER:
            if action not in [o for o, _ in self.chance_outcomes()]:
                raise ValueError(f"chance outcome {action} is not possible in phase {self._phase}")
            self._apply_chance(action)
            return
        if action not in self.legal_actions():
            raise ValueError(
                f"action {action} is not legal for seat {self.current_player()} in phase {self._phase}; "
                f"legal: {self.legal_actions()}"
            )
        handler = {
            _BLIND: self._apply_blind,
            _EXCHANGE: self._apply_exchange,
            _OFE_DECIDE: self._apply_ofe_decide,
            _OFE_ROUND: self._apply_ofe_round,
            _SIGNAL: self._apply_signal,
            _CARD: self._apply_card_turn,
            _ABANDON_ANSWER: self._apply_abandon_answer,
        }[self._phase]
        handler(action)

    # chance ---------------------------------------------------------------
    def _apply_chance(self, outcome: int) -> None:
        g = self._game
        if self._phase == _DEALER_DRAW:
            self._dealer = outcome - DEALER_BASE
            self._start_deal()
        elif self._phase == _DEALING:
            rank = outcome - DEAL_BASE
            seat = self._deal_order[self._deal_pos]
            self._deck[rank] -= 1
            self._hands[seat][rank] += 1
            self._deal_pos += 1
            if self._deal_pos == g.players * g.hand_size:
                self._after_dealing()
        elif self._phase == _SIGNAL_CATCH:
            opponent = self._catch_queue.pop(0)
            gesturer = self._signals[-1][0]
            self._catches.append((gesturer, opponent, outcome == SEEN))
            if not self._catch_queue:
                self._next_signal_or_play()
        else:
            raise AssertionError(self._phase)

    def _after_dealing(self) -> None:
        """Contract step 4: one from the end (R6, R9.3), else signals / play."""
        g = self._game
        n = g.players
        from_left = [(self._dealer + i) % n for i in range(1, n + 1)]
        if self._ofe == "one":
            # R6.1: the team's first player in order from the dealer's left decides.
            self._ofe_seat = next(s for s in from_left if s % 2 == self._ofe_team)
            self._phase = _OFE_DECIDE
        elif self._ofe == "both":
            # R6.2: once round from the dealer's left.
            self._ofe_round = from_left
            self._phase = _OFE_ROUND
        else:
            self._start_signals()

    # 2p blind window and exchanges (R9.2) -----------------------------------
    def _apply_blind(self, action: int) -> None:
        seat = self._blind_seat
        if action == RAISE:
            self._raise_2p(seat, context="blind")
        elif seat != self._dealer:  # the non-dealer passed: the dealer speaks
            self._blind_seat = self._dealer
        else:  # both passed: deal the cards
            self._phase = _DEALING

    def _raise_2p(self, seat: int, context: str) -> None:
        self._raises += 1
        self._last_raiser_team = seat  # 2p: seat = team
        self._exchange = (seat, 1 - seat, self._stake_index + 1, context)
        self._phase = _EXCHANGE

    def _apply_exchange(self, action: int) -> None:
        raiser, answerer, proposed, context = self._exchange
        if action == REFUSE:
            # R9.2 / R4.3: the raiser scores the stake before the refused raise.
            self._refusals += 1
            self._exchange = None
            self._finish_refused(raiser % 2)
            return
        # accept, or re-raise (which accepts the raise it answers)
        self._stake_index = proposed
        if action == RAISE:
            self._raises += 1
            self._last_raiser_team = answerer
            self._exchange = (answerer, raiser, proposed + 1, context)
            return
        self._exchange = None
        if context == "blind":
            self._phase = _DEALING  # contract step 2: after accept go to the deal
        else:
            self._phase = _CARD
            self._must_play = True  # R9.2: the turn's player now plays a card

    def _apply_abandon_answer(self, action: int) -> None:
        if action == AGREE:
            # AMBIGUITY: nothing is scored; "stake" reports the accepted stake
            # (a blind exchange may have raised it before the abandon).
            self._finish_deal(
                end="abandoned", winner=None, points=(0, 0), stake=self._stake_value()
            )
        else:  # reject: the leader continues the turn, without abandon
            self._phase = _CARD

    # one from the end (R6, R9.3) ----------------------------------------------
    def _apply_ofe_decide(self, action: int) -> None:
        if action == DECLINE:
            other = 1 - self._ofe_team
            points = [0, 0]
            points[other] = 1
            self._finish_deal(end="declined", winner=other, points=tuple(points), stake=1)
        else:
            self._start_signals()

    def _apply_ofe_round(self, action: int) -> None:
        if action == GO:
            self._start_play()  # R6.2: no signals at T-1 : T-1 (R7.3)
            return
        self._ofe_round.pop(0)
        if not self._ofe_round:
            self._finish_deal(end="passed", winner=None, points=(0, 0), stake=1)

    # signals (R7) ---------------------------------------------------------
    def _start_signals(self) -> None:
        g = self._game
        if g.signals and self._ofe != "both":
            n = g.players
            from_left = [(self._dealer + i) % n for i in range(1, n + 1)]
            # R7.3: a team that shares its cards (R6.1) makes no gesture.
            self._signal_queue = [s for s in from_left if s % 2 != self._ofe_team]
        else:
            self._signal_queue = []
        self._next_signal_or_play()

    def _next_signal_or_play(self) -> None:
        if self._signal_queue:
            self._phase = _SIGNAL
        else:
            self._start_play()

    def _apply_signal(self, action: int) -> None:
        seat = self._signal_queue.pop(0)
        gesture = action - SIGNAL_NONE
        self._signals.append((seat, gesture))
        if gesture != 0:
            # R7.2: each opponent catches it independently; order g+1, g+3.
            self._catch_queue = [(seat + 1) % 4, (seat + 3) % 4]
            self._phase = _SIGNAL_CATCH
        else:
            self._next_signal_or_play()

    # play ---------------------------------------------------------------
    def _start_play(self) -> None:
        self._phase = _CARD
        self._leader = (self._dealer + 1) % self._game.players  # R1.3

    def _apply_card_turn(self, action: int) -> None:
        g = self._game
        seat = self._seat_to_play()
        if g.players == 2:
            if action == RAISE:
                self._raise_2p(seat, context="card")
            elif action == ABANDON:
                self._abandon_used = True
                self._phase = _ABANDON_ANSWER
            else:
                self._must_play = False
                self._play_card(seat, action - PLAY_BASE)
            return

        # four players (R4)
        if action == REFUSE:
            raiser, _ = self._pending
            self._refusals += 1
            self._pending = None
            self._finish_refused(raiser % 2)
            return
        if action == RAISE:
            if self._pending is not None:  # re-raise accepts the raise it answers (R4.3)
                self._stake_index = self._pending[1]
            self._raises += 1
            self._last_raiser_team = seat % 2
            self._pending = (seat, self._stake_index + 1)
            self._must_play = True
            return
        # a card
        if self._pending is not None and self._pending[0] != seat:
            # R4.3: the answering player accepts by playing a card.
            self._stake_index = self._pending[1]
            self._pending = None
        self._must_play = False
        # If the raiser's own card ends the deal, _pending is still set and the
        # stake index was never raised: the raise lapses (R4.6).
        self._play_card(seat, action - PLAY_BASE)

    def _play_card(self, seat: int, rank: int) -> None:
        """Put a card on the trick, then apply R2 and R3.2."""
        g = self._game
        self._hands[seat][rank] -= 1
        self._played[rank] += 1
        self._trick_cards.append((seat, rank))

        if len(self._trick_cards) == g.players:
            # The trick is complete (R2.2-R2.4).
            result = _trick_result(tuple((s % 2, r) for s, r in self._trick_cards))
            self._tricks.append(result)
            if result != VOID:
                top = min(r for _, r in self._trick_cards)
                self._leader = next(s for s, r in self._trick_cards if r == top)
            # R2.4: after a void trick its leader leads again (leader unchanged).
            self._trick_cards = []
            final = _final_result(tuple(self._tricks), g.hand_size - len(self._tricks))
            if final != _OPEN:
                self._finish_by_tricks(final)
            return

        if g.early_end != "card":
            return
        # R3.2 card: the deal ends if every completion of this trick leads to
        # the same final result.
        first = len(self._trick_cards)
        remaining_seats = [(self._leader + i) % g.players for i in range(first, g.players)]
        unseen = tuple(g.copies - self._played[r] for r in range(g.ranks))
        outcomes = _possible_trick_results(
            tuple((s % 2, r) for s, r in self._trick_cards),
            tuple(s % 2 for s in remaining_seats),
            unseen,
        )
        later = g.hand_size - len(self._tricks) - 1
        finals = {_final_result(tuple(self._tricks) + (result,), later) for result in outcomes}
        if len(finals) == 1:
            final = finals.pop()
            if final != _OPEN:
                self._finish_by_tricks(final)

    # ------------------------------------------------------------ scoring --
    def _stake_value(self) -> int | str:
        return self._game.ladder[self._stake_index]

    def _finish_by_tricks(self, winner: int | None) -> None:
        """End "tricks" / "all_void" (contract, Ends of a deal; R5, R6)."""
        g = self._game
        if winner is None:
            # AMBIGUITY: nothing is scored; "stake" reports the stake the deal
            # stood at (1 in one-from-end deals, R6).
            stake = 1 if self._ofe is not None else self._stake_value()
            self._finish_deal(end="all_void", winner=None, points=(0, 0), stake=stake)
            return
        if self._ofe == "one":
            # R6.1 go: the T-1 team wins 1 (and the match); else the others score 3.
            value = 1 if winner == self._ofe_team else 3
            stake = 1
        elif self._ofe == "both":
            value, stake = 1, 1  # R6.2
        elif self._stake_index == g.top_index:
            # R5.2 / R9 table: the top of the ladder stakes the match, worth
            # what the winners needed to reach the target.
            value, stake = g.target - self._scores[winner], self._stake_value()
        else:
            value, stake = self._stake_value(), self._stake_value()
        points = [0, 0]
        points[winner] = value
        self._finish_deal(end="tricks", winner=winner, points=tuple(points), stake=stake)

    def _finish_refused(self, raising_team: int) -> None:
        """R4.3: the raising team scores the stake that stood before the raise."""
        # _stake_index is still the accepted stake before the refused raise
        # (refusing 3 gives 1, 6 gives 3, 12 gives 6, B gives 12).
        value = self._stake_value()
        points = [0, 0]
        points[raising_team] = value
        self._finish_deal(end="refused", winner=raising_team, points=tuple(points), stake=value)

    def _finish_deal(
        self, end: str, winner: int | None, points: tuple[int, int], stake: int | str
    ) -> None:
        g = self._game
        self._last_deal = {
            "end": end,
            "winner": winner,
            "points": [points[0], points[1]],
            "stake": stake,
            "tricks": list(self._tricks),
            "raises": self._raises,
            "refusals": self._refusals,
        }
        self._pending = None
        self._exchange = None
        self._must_play = False
        self._deals_played += 1

        if g.mode == "deal":
            # R8.1: v = min(points, target - scorer's score); each seat its team's.
            if winner is not None and points[winner] > 0:
                v = min(points[winner], g.target - self._scores[winner])
                team_value = [0.0, 0.0]
                team_value[winner] = float(v)
                team_value[1 - winner] = -float(v)
                self._returns = [team_value[s % 2] for s in range(g.players)]
            self._phase = _TERMINAL
            return

        # R8.2 match mode.
        # AMBIGUITY: running scores are not clamped at the target (a deal may
        # take a team past it, e.g. 19 + 3 = 22 at target 21).
        self._scores[0] += points[0]
        self._scores[1] += points[1]
        for team in (0, 1):
            if self._scores[team] >= g.target:  # R5.3 (and R5.2 through the points)
                self._returns = [1.0 if s % 2 == team else -1.0 for s in range(g.players)]
                self._phase = _TERMINAL
                return
        # AMBIGUITY: the target is checked before max_deals, so a match decided
        # in its max_deals-th deal is a win, not a draw.
        if self._deals_played >= g.max_deals:
            self._returns = [0.0] * g.players  # R8.2: draw
            self._phase = _TERMINAL
            return
        self._dealer = (self._dealer + 1) % g.players  # R1.3
        self._start_deal()
