"""The knobs of the information abstraction: one frozen, validated dataclass.

Every lossy feature of :func:`vitou_ai.abstraction.key.abstract_key` is a knob
here, so the cost of each can be measured alone (``docs/abstraction.md``). The
jitted code reads the ``int64[N_CFG]`` form (:meth:`AbstractionConfig.to_array`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from .knobs import (  # noqa: F401 (the knob constants, also importable from here)
    C_COUNT,
    C_GESTURES,
    C_HISTORY,
    C_PARTNER,
    C_SCORE_BUCKETS,
    C_SCORES,
    C_TRICK,
    DEFAULT_GESTURES,
    GESTURES,
    HISTORIES,
    KEY_BITS,
    N_CFG,
    NEED_BUCKET_LOWS,
    SCORE_BUCKETS,
    TRICKS,
)


@dataclass(frozen=True)
class AbstractionConfig:
    """Which features the abstract key keeps (``docs/abstraction.md``).

    Always kept, losslessly: the seat relative to the dealer, the player's own
    held cards (a multiset of ranks), the legal actions, the stake, which team
    raised last, whether the player has just raised, the results of completed
    tricks in order (won / lost / void, from the player's team's view) and
    the number of cards on the table.

    Attributes:
        scores: keep the two team scores (own, other). Off, a policy trained at
            one score is used at every score (lossy at other scores; exact at
            the training score). Costs 14 bits.
        partner: keep the partner's hand when R6.1 shows it (8 bits; Vitou only: the
            family never shows it, C5.1, and has no such field).
        trick: ``"summary"``: the best rank on the table, whether the partner
            or an opponent played it or it is tied (void so far); ``"exact"``:
            every card on the table in playing order.
        count: the unseen copies (not played, not held) of the top ``count``
            ranks, 0 .. 8 (3 bits each): a card count.
        gestures: which gestures seen (R7.2) the key keeps: ``"off"``; ``"all"``:
            every seat's gesture as this player saw it (6**4 codes, 11 bits);
            ``"team"``: the player's own and the partner's (36 codes, 6 bits);
            ``"partner"``: the partner's only (6 codes, 3 bits; the partner
            always sees and is always seen, R7.2). ``None``: ``"partner"``
            (:data:`DEFAULT_GESTURES`) in a game with signals, ``"off"`` without.
            ``True`` / ``False`` (records of earlier versions) read as
            ``"all"`` / ``"off"``.
        history: ``"results"``: completed tricks as results only; ``"cards"``:
            also every card of each completed trick, in order (small games:
            4 bits a card).
        score_buckets: with ``scores``: ``"exact"`` keeps both scores (7 bits each);
            ``"stakes"`` keeps, for each team, only the bucket of its need ``T - score``
            (:data:`NEED_BUCKET_LOWS`: 1, 2-3, 4-6, 7-12, 13+; the smallest stake of the
            ladder that wins the match, R5.1-R5.3, with need 1 alone since R6 changes the
            deal there). In the same bits; 25 score classes in ``vitou`` instead of 441.
            Ignored without ``scores``.

    Raises:
        ValueError: a value out of range (:meth:`check_game` checks the key fits).
    """

    scores: bool = False
    partner: bool = True
    trick: str = "summary"
    count: int = 0
    gestures: str | None = None
    history: str = "results"
    score_buckets: str = "exact"

    def __post_init__(self) -> None:
        for name in ("scores", "partner"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise ValueError(f"abstraction knob {name} must be a bool, got {getattr(self, name)!r}")
        if isinstance(self.gestures, bool | np.bool_):  # records before the gesture modes
            object.__setattr__(self, "gestures", "all" if self.gestures else "off")
        if self.gestures is not None and self.gestures not in GESTURES:
            raise ValueError(f"abstraction knob gestures must be one of {GESTURES} or None, "
                             f"got {self.gestures!r}")
        if self.trick not in TRICKS:
            raise ValueError(f"abstraction knob trick must be one of {TRICKS}, got {self.trick!r}")
        if self.history not in HISTORIES:
            raise ValueError(f"abstraction knob history must be one of {HISTORIES}, "
                             f"got {self.history!r}")
        if self.score_buckets not in SCORE_BUCKETS:
            raise ValueError(f"abstraction knob score_buckets must be one of {SCORE_BUCKETS}, "
                             f"got {self.score_buckets!r}")
        if isinstance(self.count, bool) or not isinstance(self.count, int | np.integer) \
                or not 0 <= self.count <= 8:
            raise ValueError(f"abstraction knob count must be an integer in 0 .. 8, got {self.count!r}")

    def bits(self, params) -> int:
        """Bits of the abstract key with these knobs for the game ``params``."""
        from .key import feature_bits

        return int(feature_bits(self.to_array(params.signals), params.to_array()))

    def check_game(self, params) -> None:
        """Refuse a game whose abstract key would not fit 63 bits, or ``score_buckets=
        "stakes"`` (Vitou's ladder) in a family game.

        Raises:
            ValueError: naming the bits needed and the knobs to turn off; the stakes
                buckets in a family game.
        """
        if self.scores and self.score_buckets == "stakes" and params.family:
            raise ValueError("abstraction knob score_buckets='stakes' buckets a team's need by "
                             "Vitou's stake ladder 1, 3, 6, 12 (R4.1); the family's ladders "
                             "differ: use score_buckets='exact'")
        bits = self.bits(params)
        if bits > KEY_BITS:
            raise ValueError(f"abstraction {self.describe()} needs a {bits}-bit key for this game, "
                             f"more than {KEY_BITS}: turn off scores, gestures or history='cards', "
                             "or lower count")

    def gesture_mode(self, signals: bool) -> str:
        """The gesture feature used in a game with or without signals (one of
        :data:`GESTURES`; always ``"off"`` without signals: there are none)."""
        if not signals:
            return "off"
        return DEFAULT_GESTURES if self.gestures is None else self.gestures

    def to_array(self, signals: bool) -> np.ndarray:
        """``int64[N_CFG]`` for jitted code, for a game with or without signals."""
        a = np.zeros(N_CFG, np.int64)
        a[C_SCORES] = int(self.scores)
        a[C_PARTNER] = int(self.partner)
        a[C_TRICK] = TRICKS.index(self.trick)
        a[C_COUNT] = int(self.count)
        a[C_GESTURES] = GESTURES.index(self.gesture_mode(signals))
        a[C_HISTORY] = HISTORIES.index(self.history)
        a[C_SCORE_BUCKETS] = SCORE_BUCKETS.index(self.score_buckets)
        return a

    def describe(self) -> dict[str, Any]:
        """JSON-ready knobs (what checkpoints and policy files record). ``score_buckets``
        is left out at its default, so records written before it existed still match."""
        d = dataclasses.asdict(self)
        if d["score_buckets"] == "exact":
            del d["score_buckets"]
        return d

    def to_json(self) -> str:
        return json.dumps(self.describe(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> AbstractionConfig:
        """Inverse of :meth:`to_json`.

        Raises:
            ValueError: not a JSON object of known knobs.
        """
        try:
            d = json.loads(text)
            return cls(**d)
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"not an abstraction record: {e}") from None

    def replace(self, **changes: Any) -> AbstractionConfig:
        return dataclasses.replace(self, **changes)
