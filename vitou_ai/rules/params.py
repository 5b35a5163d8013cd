"""Game parameters: one frozen, validated dataclass, and its flat int array form.

The kernel reads parameters from an ``int64[N_PARAMS]`` array built by
:meth:`VitouParams.to_array`; the ``P_*`` constants index it. Profiles are
named sets of knobs (RULES.md section 9); the engine is one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Changes whenever the kernel's behaviour changes; written into every result
#: file and checked when loading checkpoints.
RULES_VERSION = "vitou-rules-1.3"

#: Earlier versions and what changed since, for files written under them.
#: ``vitou-rules-1.0`` -> 1.1: R3.2 counts copies. Only a trick with two or more
#: players still to play can be affected, so two-player files carry over unchanged.
#: ``vitou-rules-1.1`` -> 1.2: adds the profile ``put_partnership`` (docs/RULES_family.md
#: P6), its action ids 31..45 and its state fields; no other profile's transitions,
#: information-state keys (``KEY_SIZE`` unchanged) or action ids change, and no 1.1 file
#: can be for the new profile, so every 1.1 file carries over unchanged.
#: ``vitou-rules-1.2`` -> 1.3: adds the profile ``put_willughby`` (docs/RULES_family.md P7),
#: its action ids 46, 47 and its state fields; the state's hand slots grow to 5 (``MAX_HAND``)
#: but the information-state key keeps its size and layout (``KEY_SIZE`` unchanged:
#: ``KEY_HAND`` = 3 slots), no other profile's transitions or action ids change, so every
#: 1.1 and 1.2 file carries over unchanged.
_RULES_CHANGES = {
    "vitou-rules-1.0": "R3.2 now counts copies (vitou-rules-1.1), which changes some four-player deals",
}
#: Versions whose files every later version takes as they are (see above).
_CARRIES_OVER = ("vitou-rules-1.1", "vitou-rules-1.2")


def carried_over_versions(players: int | None) -> tuple[str, ...]:
    """The earlier rules versions whose files a game of ``players`` players takes as they
    are (:func:`check_rules_version` returns ``True`` for them)."""
    return _CARRIES_OVER + (("vitou-rules-1.0",) if players == 2 else ())


def check_rules_version(version: str | None, players: int | None, where: str) -> bool:
    """Check a file's ``rules_version`` against :data:`RULES_VERSION`.

    Args:
        version: the version the file records (``None`` if it records none).
        players: players of the game the file is for (``None`` if unknown).
        where: the file, for the message.

    Returns:
        ``False`` if the version is current; ``True`` if the file was written
        under an earlier version whose changes cannot affect it (any file from
        ``vitou-rules-1.1`` or ``1.2``; a two-player file from ``vitou-rules-1.0``) and is
        taken as it is (converted).

    Raises:
        ValueError: another version that the changes since may affect, or an
            unknown one; the message says what changed and what to do.
    """
    if version == RULES_VERSION:
        return False
    if version in _CARRIES_OVER:
        return True
    if version == "vitou-rules-1.0" and players == 2:
        return True
    if version in _RULES_CHANGES:
        raise ValueError(f"{where}: written under {version}; this is {RULES_VERSION}: "
                         f"{_RULES_CHANGES[version]}. Re-run it to use it.")
    raise ValueError(f"{where}: written under rules {version!r}, this is {RULES_VERSION!r}")

PROFILES = ("vitou", "vitou_cason", "vitou_2p")
RANK_LETTERS = "T9AKQJ87"
#: The Truc / Put family (docs/RULES_family.md), on the same kernel.
FAMILY_PROFILES = ("truc_catalan", "truc_catalan_2p", "truc_1912", "trut", "put",
                   "put_partnership", "put_willughby")
ALL_PROFILES = PROFILES + FAMILY_PROFILES
#: Why "vint" is not a profile: the reason every Vitou-kernel tool gives for Vint
#: (:mod:`vitou_ai.capabilities`).
VINT_REASON = ("Vint is a separate game (vitou_ai.vint: 52 cards, an auction, 13 tricks) on its "
               "own kernel; this tool runs on the Vitou kernel's games only")
#: Rank labels per profile, high to low (rank index 0 first).
RANK_LABELS = {
    "vitou": tuple(RANK_LETTERS), "vitou_cason": tuple(RANK_LETTERS), "vitou_2p": tuple(RANK_LETTERS),
    "truc_catalan": ("3", "2", "1", "12", "11", "10", "7", "6", "5", "4"),  # C1.3
    "truc_catalan_2p": ("3", "2", "1", "12", "11", "10", "7", "6", "5", "4"),
    "truc_1912": ("7", "8", "A", "R", "D", "V", "10", "9"),  # F1.1
    "trut": ("8", "7", "A", "R", "D", "V", "10", "9"),  # T1.1
    "put": ("3", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4"),  # P1.1
    "put_partnership": ("3", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4"),  # P6
    "put_willughby": ("3", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4"),  # P7.0
}
DIRECTIONS = ("clockwise", "counterclockwise")
MODES = ("deal", "match")
EARLY_END = ("card", "trick")

# Ladder of stakes (R4.1, R9 table). ``MATCH_STAKE`` marks the top step when it
# stakes the whole match (``B`` in vitou, 12 in vitou_cason / vitou_2p).
MATCH_STAKE = 0
_LADDERS = {
    "vitou": ((1, 3, 6, 12, MATCH_STAKE), ("1", "3", "6", "12", "B")),
    "vitou_cason": ((1, 3, 6, MATCH_STAKE), ("1", "3", "6", "12")),
    "vitou_2p": ((1, 3, 6, MATCH_STAKE), ("1", "3", "6", "12")),
}
_LADDERS.update({
    "truc_catalan": ((1, 2, 3), ("1", "truc", "retruc")),  # C4.1
    "truc_catalan_2p": ((1, 2, 3), ("1", "truc", "retruc")),
    "trut": ((1, 3), ("1", "trut")),  # T3.1: a whole trut, 3 points on top (T4.1)
    "put": ((1, MATCH_STAKE), ("1", "put")),  # P4.1
    "put_partnership": ((1, MATCH_STAKE), ("1", "put")),  # P6.4: as P4.1
    "put_willughby": ((1, 5), ("1", "put")),  # P7.3, P7.5: the put's value is put_stake
    # truc_1912: 1, 2, ..., target-1, then the game (F3.1); built from the target
})
_DEFAULT_TARGET = {"vitou": 21, "vitou_cason": 12, "vitou_2p": 12, "truc_catalan": 12,
                   "truc_catalan_2p": 12, "truc_1912": 12, "trut": 3, "put": 5,
                   "put_partnership": 5, "put_willughby": 5}
_PLAYERS = {"vitou": 4, "vitou_cason": 4, "vitou_2p": 2, "truc_catalan": 4, "truc_catalan_2p": 2,
            "truc_1912": 4, "trut": 4, "put": 2, "put_partnership": 4, "put_willughby": 3}
_DEFAULT_GAMES = {"truc_1912": 2, "trut": 5}  # F4.1, T2.1; 1 elsewhere
# Family knobs a profile has (the Vitou profiles have none of them).
_FAMILY_KNOBS = {
    "truc_catalan": ("direction",),
    "truc_catalan_2p": ("direction",),
    "truc_1912": ("direction", "games"),
    "trut": ("direction", "games"),
    "put": ("direction",),
    "put_partnership": ("direction", "chooser"),
    "put_willughby": ("direction", "players", "put_stake", "fold_pays"),
}
# A field that only some profiles have -> the _FAMILY_KNOBS entry that gives it.
_FAMILY_ONLY = {"direction": "direction", "games": "games", "games_won": "games",
                "chooser": "chooser", "players": "players", "put_stake": "put_stake",
                "fold_pays": "fold_pays"}
#: P6.1: who speaks for a side in partnership Put (``VitouParams.chooser``)
CHOOSERS = ("named", "order")
#: P7.5: what a player who folds after a put pays (``VitouParams.fold_pays``)
FOLD_PAYS = ("nothing", "stake")
#: the profiles that play Put (P1-P5; P6 partnership Put plays its deal as P5; P7 Willughby's
#: Put for three or four has the deck and the put, not P5's order)
PUT_PROFILES = ("put", "put_partnership", "put_willughby")

# Index of each field in the int64 parameter array.
P_PLAYERS = 0
P_RANKS = 1
P_COPIES = 2
P_HAND = 3
P_TARGET = 4
P_NLADDER = 5
P_LADDER = 6  # 5 slots: P_LADDER .. P_LADDER + 4 (value, or MATCH_STAKE)
P_TWO_PLAYER_RAISES = 11  # 1: R9.2 raises/answers (vitou_2p); 0: R4 (vitou)
P_EARLY_CARD = 12  # 1: early_end = card (R3.2); 0: trick
P_SIGNALS = 13
P_SEEN_PPB = 14  # signal_seen in parts per 10**9
P_DEALER = 15  # -1: drawn by chance (R1.4)
P_SCORE0 = 16
P_SCORE1 = 17
P_MATCH = 18  # 1: match mode (R8.2); 0: deal mode (R8.1)
P_MAX_DEALS = 19
# Truc / Put family (docs/RULES_family.md); all 0 for the Vitou profiles.
P_PARTNER_TIE = 20  # G1.3: 1 partner ties go to the first card; 0 any tie voids (Vitou R2.3)
P_DEAL_RULE = 21  # G2: 0 Vitou R3.1; 1 equal tricks -> first, all void -> nondealers; 2 Put
P_BLIND = 22  # 1: R9.2 blind window (vitou_2p)
P_ABANDON = 23  # 1: R9.2 abandon (vitou_2p)
P_PUT = 24  # 1: Put's order of decisions (P5)
P_LINEAR = 25  # 1: ladder 1, 2, ..., NLADDER-1, then the game (F3.1)
P_REST = 26  # 1: "our rest" (F3.3)
P_REDEAL = 27  # 1: the fresh deal (F2)
P_OFE = 28  # one from the end: 0 none (T5, P5.6), 1 Vitou R6 / R9.3, 2 Catalan C5
P_GAMES = 29  # games to win the match (G4.1)
P_CARRY = 30  # 1: the winner of a game keeps its surplus (T4.1)
P_GAMES0 = 31  # games won before, team 0 (and team 1 at P_GAMES0 + 1)
P_NO_CAP = 33  # 1: deal-mode returns not capped at target - score (T5, G4)
P_PARTNERS = 34  # 1: partnership Put (P6): a hand-over, then one active player per side
P_CHOOSER = 35  # P6.1: 0 the dealer speaks for his side ("named"), 1 the seat after the dealer's
#               # left ("order")
P_WILL = 36  # 1: Willughby's Put (P7): each for themselves, put at the lead, see / fold
P_PUT_STAKE = 37  # P7.5: what each player still in pays the winner after a put
P_FOLD_PAYS = 38  # P7.5: 1 each folder pays the putter 1 at once; 0 folders pay nothing
P_TRICK_ORDER = 39  # who plays a trick: 0 every seat from the leader; 1 partnership Put's two
#                    active players (P6.4); 2 the seats still in (Willughby's Put, P7.4)
N_PARAMS = 40
PPB = 1_000_000_000


@dataclass(frozen=True)
class VitouParams:
    """Parameters of one Vitou game (RULES.md sections 8 and 9).

    Attributes:
        profile: ``"vitou"`` (default; 4 players, target 21, ladder 1-3-6-12-B),
            ``"vitou_cason"`` (4 players, target 12, ladder 1-3-6-12 where 12 is
            the match) or ``"vitou_2p"`` (Cason's game for two, R9.2-R9.3).
        mode: ``"deal"`` (one deal, R8.1; returns in points) or ``"match"``
            (deals until a team reaches the target, R8.2; returns +1/-1/0).
        dealer: seat of the (first) dealer, ``0 .. players-1``, or ``-1`` for a
            dealer drawn uniformly by chance (R1.4).
        scores: team scores before the deal (deal mode) or at the start of the
            match; each in ``0 .. target-1``.
        target: points that win the match; ``None`` means the profile's
            (21, 12, 12). Range 2 .. 99.
        early_end: ``"card"`` (the deal stops after the card that makes its
            winner certain) or ``"trick"`` (only after a completed trick), R3.2.
        signals: conventional gestures (R7); four-player profiles only.
        signal_seen: probability in [0, 1] that an opponent catches a gesture
            (R7.2). Stored to 1e-9.
        ranks: research variant, the top ``ranks`` ranks of ``T 9 A K Q J 8 7``
            (2 .. 8), or of the family profile's deck (``None``: the whole deck,
            8 for Vitou).
        copies: copies of each rank, 1 .. 8 (4 in the real deck).
        hand_size: cards per hand, 1 .. 3 (``put_partnership``: 2 .. 3, P6.2;
            ``put_willughby``: 2 .. ``players + 1``, P7.0). ``None``: 3, or ``players + 1``
            in ``put_willughby``.
        max_deals: match mode, a match still open after this many deals is a
            draw (R8.2); 1 .. 10000.
        direction: family profiles only (docs/RULES_family.md G0.2):
            ``"clockwise"`` or ``"counterclockwise"``; names the physical side of
            seat ``s+1``, nothing else. ``None``: the profile's.
        games: family profiles with a match of several games (``truc_1912``: 2,
            ``trut``: 5 or 7 truts; G4.1). ``None``: the profile's (1 elsewhere).
        games_won: games already won by team 0 and team 1, each below ``games``
            (the Trut example of T4.2 starts at 2 : 3 truts).
        chooser: ``put_partnership`` only (docs/RULES_family.md P6.1): who says for a
            side which partner plays: ``"named"`` (the non-dealer for the non-dealers'
            side, the dealer for the dealer's) or ``"order"`` (each side's first seat in
            playing order from the dealer's left: the non-dealer, then the dealer's
            partner). ``None``: ``"named"``.
        players: ``put_willughby`` only (docs/RULES_family.md P7.0): 3 or 4 players, each
            for themselves. ``None``: the profile's (4, or 2 for ``vitou_2p``,
            ``truc_catalan_2p`` and ``put``; 3 for ``put_willughby``).
        put_stake: ``put_willughby`` only (P7.5): points each player still in pays the
            winner of a deal after a put, 2 .. 99. ``None``: 5 ("um die Partie", P3.1).
        fold_pays: ``put_willughby`` only (P7.5): ``"nothing"`` (default: a folder pays
            nothing) or ``"stake"`` (each folder pays the putter 1 at once).

    Raises:
        ValueError: on an unknown profile, mode or ``early_end``, a value out of
            range, or an impossible combination (too few cards for the hands,
            signals with two players, a dealer seat that does not exist).
    """

    profile: str = "vitou"
    mode: str = "deal"
    dealer: int = 0
    scores: tuple[int, int] = (0, 0)
    target: int | None = None
    early_end: str = "card"
    signals: bool = False
    signal_seen: float = 0.5
    ranks: int | None = None
    copies: int = 4
    hand_size: int | None = None  # type: ignore[assignment]
    max_deals: int = 100
    direction: str | None = None
    games: int | None = None
    games_won: tuple[int, int] = (0, 0)
    chooser: str | None = None
    players: int | None = None  # type: ignore[assignment]
    put_stake: int | None = None
    fold_pays: str | None = None

    def __post_init__(self) -> None:
        if self.profile == "vint":
            raise ValueError(f"vint is not a profile of the Vitou kernel: {VINT_REASON}")
        if self.profile not in ALL_PROFILES:
            raise ValueError(f"unknown profile {self.profile!r} (RULES.md R9, docs/RULES_family.md "
                             f"knobs by profile); expected one of {ALL_PROFILES}")
        self._check_willughby_knobs()
        self._check_family_knobs()
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; expected one of {MODES}")
        if self.early_end not in EARLY_END:
            raise ValueError(f"unknown early_end {self.early_end!r}; expected one of {EARLY_END}")
        if self.target is None:
            object.__setattr__(self, "target", _DEFAULT_TARGET[self.profile])
        if not isinstance(self.scores, tuple | list) or len(self.scores) != 2:
            raise ValueError(f"scores must be two team scores, got {self.scores!r}")
        for team, s in enumerate(self.scores):
            if isinstance(s, bool) or not isinstance(s, int | np.integer):
                raise ValueError(f"scores[{team}] must be an integer, got {s!r}")
        object.__setattr__(self, "scores", tuple(int(s) for s in self.scores))
        _check_int("target", self.target, 2, 99)
        if self.ranks is None:
            object.__setattr__(self, "ranks", len(RANK_LABELS[self.profile]))
        _check_int("ranks", self.ranks, 2, len(RANK_LABELS[self.profile]))
        _check_int("copies", self.copies, 1, 8)
        # P6.2: partnership Put keeps 2 or 3 cards (a best card handed, and a card laid away
        # that the player's information state must keep apart from the one handed)
        if self.hand_size is None:  # P7.0: players + 1 in Willughby's Put; 3 elsewhere
            object.__setattr__(self, "hand_size", self.players + 1 if self.willughby else 3)
        if self.willughby:  # P7.0: players + 1 cards; research variants down to 2
            try:
                _check_int("hand_size", self.hand_size, 2, self.players + 1)
            except ValueError as e:
                raise ValueError(f"{e} (docs/RULES_family.md P7.0: players + 1 cards, research "
                                 "variants down to 2)") from None
        else:
            _check_int("hand_size", self.hand_size, 2 if self.profile == "put_partnership" else 1, 3)
        _check_int("max_deals", self.max_deals, 1, 10_000)
        _check_int("dealer", self.dealer, -1, self.players - 1)
        for team, s in enumerate(self.scores):
            _check_int(f"scores[{team}]", s, 0, self.target - 1)
        if not isinstance(self.signals, bool | np.bool_):
            raise ValueError(f"signals must be a bool, got {self.signals!r}")
        if isinstance(self.signal_seen, bool) or not isinstance(
            self.signal_seen, int | float | np.integer | np.floating
        ):
            raise ValueError(f"signal_seen must be a number in [0, 1], got {self.signal_seen!r}")
        if not 0.0 <= float(self.signal_seen) <= 1.0:
            raise ValueError(f"signal_seen must be a probability in [0, 1], got {self.signal_seen}")
        if self.signals and self.players == 2:
            raise ValueError("signals are a four-player knob (R7, R9 table): vitou_2p has none")
        need = self.players * self.hand_size * (2 if self.profile == "truc_1912" else 1)  # F2.3
        if self.ranks * self.copies < need:
            raise ValueError(
                f"deck of {self.ranks} ranks x {self.copies} copies has {self.ranks * self.copies}"
                f" cards, fewer than the {need} needed for {self.players} hands of {self.hand_size}"
                + (" and the fresh deal's second set of hands (docs/RULES_family.md F2.3)"
                   if self.profile == "truc_1912" else "")
            )

    def _check_willughby_knobs(self) -> None:
        """P7.0, P7.5, P7.6: Willughby's knobs; refused (naming P7) elsewhere or out of range."""
        will = self.profile == "put_willughby"
        own = _PLAYERS[self.profile]
        default = {"players": own, "put_stake": 5 if will else None,
                   "fold_pays": "nothing" if will else None}
        for name, rule in (("players", "P7.0"), ("put_stake", "P7.5"), ("fold_pays", "P7.5")):
            value = getattr(self, name)
            # (the profile's own value passes: ``replace`` carries every field over)
            if not will and value is not None and value != default[name]:
                raise ValueError(f"{name} is not a knob of profile {self.profile} "
                                 f"(docs/RULES_family.md {rule}: put_willughby only); its knobs: "
                                 f"{', '.join(profile_knobs(self.profile))}")
            if value is None:
                object.__setattr__(self, name, default[name])
        if not will:
            return
        if isinstance(self.players, bool) or self.players not in (3, 4):
            raise ValueError(f"players must be 3 or 4 for put_willughby (docs/RULES_family.md "
                             f"P7.0), got {self.players!r}")
        if isinstance(self.put_stake, bool) or not isinstance(self.put_stake, int | np.integer) \
                or not 2 <= self.put_stake <= 99:
            raise ValueError(f"put_stake must be an integer in [2, 99] (docs/RULES_family.md "
                             f"P7.5), got {self.put_stake!r}")
        if self.fold_pays not in FOLD_PAYS:
            raise ValueError(f"fold_pays must be one of {FOLD_PAYS} (docs/RULES_family.md P7.5), "
                             f"got {self.fold_pays!r}")
        if self.mode != "deal":
            raise ValueError("put_willughby is played in deal mode only (docs/RULES_family.md "
                             "P7.6: the seed gives a payment per deal, no game or match)")
        if tuple(self.scores) != (0, 0):
            raise ValueError("scores are not a knob of put_willughby (docs/RULES_family.md P7.6: "
                             "deal mode only, no scores)")
        if self.target is not None and self.target != _DEFAULT_TARGET[self.profile]:
            raise ValueError("target is not a knob of put_willughby (docs/RULES_family.md P7.6: "
                             "deal mode only; the put's value is put_stake)")

    def _check_family_knobs(self) -> None:
        """G0.2, G4.1: family knobs; refused (naming the rule) for a profile without them."""
        have = _FAMILY_KNOBS.get(self.profile, ())
        given = {"direction": self.direction, "games": self.games, "chooser": self.chooser}
        if tuple(self.games_won) != (0, 0):
            given["games_won"] = self.games_won
        default = {"direction": None if self.profile in PROFILES else (
            "clockwise" if self.profile in PUT_PROFILES else "counterclockwise"),
            "games": None if self.profile in PROFILES else _DEFAULT_GAMES.get(self.profile, 1),
            "chooser": "named" if self.profile == "put_partnership" else None}
        for name, value in given.items():
            need = "games" if name == "games_won" else name
            # (the profile's own value passes: ``replace`` carries every field over)
            if value is not None and need not in have and value != default.get(name):
                rule = {"direction": "G0.2", "chooser": "P6.1"}.get(name, "G4.1")
                if self.profile == "put_willughby":
                    rule = "P7.6"
                raise ValueError(f"{name} is not a knob of profile {self.profile} "
                                 f"(docs/RULES_family.md {rule}); its knobs: "
                                 f"{', '.join(profile_knobs(self.profile))}")
        if self.profile in PROFILES:
            return
        if self.direction is None:
            object.__setattr__(self, "direction", "clockwise" if self.profile in PUT_PROFILES
                               else "counterclockwise")
        if self.profile == "put_partnership":
            if self.chooser is None:
                object.__setattr__(self, "chooser", "named")
            if self.chooser not in CHOOSERS:
                raise ValueError(f"chooser must be one of {CHOOSERS} (docs/RULES_family.md P6.1), "
                                 f"got {self.chooser!r}")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {DIRECTIONS} (G0.2), got {self.direction!r}")
        if self.games is None:
            object.__setattr__(self, "games", _DEFAULT_GAMES.get(self.profile, 1))
        _check_int("games", self.games, 1, 99)
        if self.profile == "trut" and self.games not in (5, 7):
            raise ValueError(f"games must be 5 or 7 truts (docs/RULES_family.md T2.1), got {self.games}")
        gw = self.games_won
        if not isinstance(gw, tuple | list) or len(gw) != 2:
            raise ValueError(f"games_won must be two team counts, got {gw!r}")
        for team, g in enumerate(gw):
            _check_int(f"games_won[{team}]", g, 0, self.games - 1)
        object.__setattr__(self, "games_won", tuple(int(g) for g in gw))
        if self.signals:
            raise ValueError(f"signals are a Vitou knob (R7); {self.profile} has none "
                             "(docs/RULES_family.md C6)")

    @property
    def family(self) -> bool:
        """True for the Truc / Put family profiles (docs/RULES_family.md)."""
        return self.profile in FAMILY_PROFILES

    @property
    def rank_labels(self) -> tuple[str, ...]:
        """Labels of the ranks in play, high to low (``ranks`` of them)."""
        return RANK_LABELS[self.profile][: self.ranks]

    @property
    def num_actions(self) -> int:
        """Distinct action ids of this game: 22 (Vitou), ``NUM_ACTIONS_FAMILY`` (31) or,
        for ``put_partnership``, ``NUM_ACTIONS_PARTNERSHIP`` (46: take, give, discard R)."""
        if self.profile == "put_partnership":
            return 46
        if self.profile == "put_willughby":
            return 48  # NUM_ACTIONS_WILLUGHBY: see, fold (P7.4)
        return 31 if self.family else 22

    @property
    def willughby(self) -> bool:
        """True for Willughby's Put (docs/RULES_family.md P7): three or four, each for
        themselves, per-seat returns."""
        return self.profile == "put_willughby"

    @property
    def partnership(self) -> bool:
        """True for partnership Put (docs/RULES_family.md P6): four seats, two play."""
        return self.profile == "put_partnership"

    @property
    def num_chance_ids(self) -> int:
        """Distinct chance outcome ids: 14 (Vitou) or ``MAX_CHANCE_IDS_FAMILY``."""
        return 19 if self.family else 14

    @property
    def ladder(self) -> tuple[int, ...]:
        """Stake values, low to high; ``MATCH_STAKE`` (0) marks a match stake (R4.1)."""
        if self.profile == "truc_1912":  # F3.1
            return tuple(range(1, self.target)) + (MATCH_STAKE,)
        if self.profile == "put_willughby":  # P7.5
            return (1, self.put_stake)
        return _LADDERS[self.profile][0]

    @property
    def ladder_labels(self) -> tuple[str, ...]:
        """Display names of the ladder steps (``"B"`` for baraque)."""
        if self.profile == "truc_1912":
            return tuple(str(v) for v in range(1, self.target)) + ("rest",)
        return _LADDERS[self.profile][1]

    def replace(self, **changes: Any) -> VitouParams:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_array(self) -> np.ndarray:
        """The kernel's view: ``int64[N_PARAMS]``, indexed by the ``P_*`` constants."""
        a = np.zeros(N_PARAMS, dtype=np.int64)
        a[P_PLAYERS] = self.players
        a[P_RANKS] = self.ranks
        a[P_COPIES] = self.copies
        a[P_HAND] = self.hand_size
        a[P_TARGET] = self.target
        ladder = self.ladder
        a[P_NLADDER] = len(ladder)
        if self.profile == "truc_1912":
            a[P_LINEAR] = 1
            a[P_REST] = 1
            a[P_REDEAL] = 1
        else:
            for i, v in enumerate(ladder):
                a[P_LADDER + i] = v
        a[P_TWO_PLAYER_RAISES] = 1 if self.players == 2 else 0
        if self.profile == "vitou_2p":
            a[P_BLIND] = 1
            a[P_ABANDON] = 1
        a[P_OFE] = 1
        a[P_GAMES] = 1
        if self.family:
            a[P_PARTNER_TIE] = 1
            put = self.profile in PUT_PROFILES
            a[P_DEAL_RULE] = 2 if put else 1
            a[P_PUT] = 1 if put else 0
            a[P_OFE] = 0 if put or self.profile == "trut" else 2
            if self.profile == "put_partnership":  # P6: the play is two-handed Put's (P6.4)
                a[P_PARTNERS] = 1
                a[P_TRICK_ORDER] = 1
                a[P_TWO_PLAYER_RAISES] = 1
                a[P_CHOOSER] = CHOOSERS.index(self.chooser)
            if self.profile == "put_willughby":  # P7: no P5 order, no deal-decided table
                a[P_PUT] = 0
                a[P_DEAL_RULE] = 0
                a[P_PARTNER_TIE] = 0
                a[P_WILL] = 1
                a[P_TRICK_ORDER] = 2
                a[P_PUT_STAKE] = self.put_stake
                a[P_FOLD_PAYS] = FOLD_PAYS.index(self.fold_pays)
            a[P_GAMES] = self.games
            a[P_GAMES0], a[P_GAMES0 + 1] = self.games_won
            a[P_CARRY] = 1 if self.profile == "trut" else 0
            a[P_NO_CAP] = a[P_CARRY]
        a[P_EARLY_CARD] = 1 if self.early_end == "card" else 0
        a[P_SIGNALS] = 1 if self.signals else 0
        a[P_SEEN_PPB] = int(round(float(self.signal_seen) * PPB))
        a[P_DEALER] = self.dealer
        a[P_SCORE0], a[P_SCORE1] = self.scores
        a[P_MATCH] = 1 if self.mode == "match" else 0
        a[P_MAX_DEALS] = self.max_deals
        return a

    def knobs(self) -> dict[str, Any]:
        """The fields that differ from the profile's defaults (for hand histories)."""
        base = VitouParams(profile=self.profile)
        out = {}
        for f in dataclasses.fields(self):
            if f.name in ("profile",):
                continue
            if f.name in ("direction", "games", "games_won") and not self.family:
                continue
            if f.name == "chooser" and not self.partnership:
                continue
            if f.name in ("players", "put_stake", "fold_pays") and not self.willughby:
                continue
            v, d = getattr(self, f.name), getattr(base, f.name)
            if v != d:
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def game_name(params: VitouParams) -> str:
    """The game in one phrase: the profile and its knobs (``vitou_2p {'ranks': 3}``), for
    messages that name two games."""
    knobs = params.knobs()
    return f"{params.profile} {knobs}" if knobs else params.profile


def knob_differences(theirs: VitouParams, ours: VitouParams, label: str = "run",
                     given=None) -> str:
    """What sets two games apart, for a one-line refusal: ``"dealer 1 (run: 0), ranks 4
    (run: 5)"`` (the profile first, at most three, then ``...``). A knob not in ``given``
    (the keys ``theirs`` was written with, when known) is marked as left out."""
    a, b = theirs.knobs(), ours.knobs()
    diff = [f"{k} {getattr(theirs, k)!r}"
            f"{' (left out: the default)' if given is not None and k not in given else ''}"
            f" ({label}: {getattr(ours, k)!r})"
            for k in sorted(set(a) | set(b)) if getattr(theirs, k) != getattr(ours, k)]
    if theirs.profile != ours.profile:
        diff.insert(0, f"profile {theirs.profile!r} ({label}: {ours.profile!r})")
    return ", ".join(diff[:3]) + (" ..." if len(diff) > 3 else "")


def profile_knobs(profile: str) -> tuple[str, ...]:
    """The :class:`VitouParams` fields a profile takes, in field order (the list a refused
    knob's message gives): every field but ``profile``, less the family knobs it has not
    (``_FAMILY_KNOBS``: ``direction``, ``games`` with ``games_won``, ``chooser``; and
    Willughby's ``players``, ``put_stake``, ``fold_pays``), the signals of a game without
    them (R7: four-player Vitou only; C6) and, in ``put_willughby``, ``mode``, ``scores``,
    ``target`` and ``max_deals`` (P7.6: deal mode only) and ``early_end`` (P7.2: a deal
    ends at the end of a trick whatever its value).

    Raises:
        KeyError: for an unknown profile.
    """
    own = _FAMILY_KNOBS.get(profile, ())
    signals = profile in PROFILES and _PLAYERS[profile] == 4
    out = []
    for f in dataclasses.fields(VitouParams):
        name = f.name
        if name == "profile" or name in _FAMILY_ONLY and _FAMILY_ONLY[name] not in own:
            continue
        if name in ("signals", "signal_seen") and not signals:
            continue
        if profile == "put_willughby" and name in ("mode", "scores", "target", "max_deals",
                                                   "early_end"):
            continue
        out.append(name)
    return tuple(out)


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value}")
