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
RULES_VERSION = "vitou-rules-1.1"

#: Earlier versions and what changed since, for files written under them.
#: ``vitou-rules-1.0`` -> 1.1: R3.2 counts copies. Only a trick with two or more
#: players still to play can be affected, so two-player files carry over unchanged.
_RULES_CHANGES = {
    "vitou-rules-1.0": "R3.2 now counts copies (vitou-rules-1.1), which changes some four-player deals",
}


def check_rules_version(version: str | None, players: int | None, where: str) -> bool:
    """Check a file's ``rules_version`` against :data:`RULES_VERSION`.

    Args:
        version: the version the file records (``None`` if it records none).
        players: players of the game the file is for (``None`` if unknown).
        where: the file, for the message.

    Returns:
        ``False`` if the version is current; ``True`` if the file was written
        under an earlier version whose changes cannot affect it (a two-player
        file from ``vitou-rules-1.0``) and is taken as it is (converted).

    Raises:
        ValueError: another version that the changes since may affect, or an
            unknown one; the message says what changed and what to do.
    """
    if version == RULES_VERSION:
        return False
    if version == "vitou-rules-1.0" and players == 2:
        return True
    if version in _RULES_CHANGES:
        raise ValueError(f"{where}: written under {version}; this is {RULES_VERSION}: "
                         f"{_RULES_CHANGES[version]}. Re-run it to use it.")
    raise ValueError(f"{where}: written under rules {version!r}, this is {RULES_VERSION!r}")

PROFILES = ("vitou", "vitou_cason", "vitou_2p")
RANK_LETTERS = "T9AKQJ87"
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
_DEFAULT_TARGET = {"vitou": 21, "vitou_cason": 12, "vitou_2p": 12}
_PLAYERS = {"vitou": 4, "vitou_cason": 4, "vitou_2p": 2}

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
N_PARAMS = 20
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
            (2 .. 8).
        copies: copies of each rank, 1 .. 8 (4 in the real deck).
        hand_size: cards per hand, 1 .. 3.
        max_deals: match mode, a match still open after this many deals is a
            draw (R8.2); 1 .. 10000.

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
    ranks: int = 8
    copies: int = 4
    hand_size: int = 3
    max_deals: int = 100

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; expected one of {PROFILES}")
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
        _check_int("ranks", self.ranks, 2, 8)
        _check_int("copies", self.copies, 1, 8)
        _check_int("hand_size", self.hand_size, 1, 3)
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
        need = self.players * self.hand_size
        if self.ranks * self.copies < need:
            raise ValueError(
                f"deck of {self.ranks} ranks x {self.copies} copies has {self.ranks * self.copies}"
                f" cards, fewer than the {need} needed for {self.players} hands of {self.hand_size}"
            )

    @property
    def players(self) -> int:
        """Number of players: 4 (two teams of two) or 2 (``vitou_2p``)."""
        return _PLAYERS[self.profile]

    @property
    def ladder(self) -> tuple[int, ...]:
        """Stake values, low to high; ``MATCH_STAKE`` (0) marks a match stake (R4.1)."""
        return _LADDERS[self.profile][0]

    @property
    def ladder_labels(self) -> tuple[str, ...]:
        """Display names of the ladder steps (``"B"`` for baraque)."""
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
        for i, v in enumerate(ladder):
            a[P_LADDER + i] = v
        a[P_TWO_PLAYER_RAISES] = 1 if self.profile == "vitou_2p" else 0
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
            v, d = getattr(self, f.name), getattr(base, f.name)
            if v != d:
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value}")
