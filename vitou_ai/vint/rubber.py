"""Games, rubbers and evenings of Vint (``docs/RULES_vint.md`` V6, V7).

A :class:`Rubber` takes finished deals (:class:`~vitou_ai.vint.game.VintState`)
one by one: trick by trick it adds the trick value below the line to the side
that took the trick, awards a game to the first side to reach 500 in the
current game (V6.1), writes the deal's above-the-line scores, and settles the
rubber when a side has two games (V6.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .game import VintState

GAME_TARGET = 500  # V6.1


@dataclass
class DealRecord:
    """What one deal wrote in the rubber.

    Attributes:
        written: points written per side, below + above, game bonus included.
        game_winner: side that won a game in this deal, or None.
        game_trick: 1..13, the trick at which it reached 500 (None without a game).
        game_bonus: 500, 1000 (the rubber's second game; V6.2), Foster's 1000/2000.
        rubber_winner: side that won the rubber in this deal, or None.
    """

    written: list[int]
    game_winner: int | None = None
    game_trick: int | None = None
    game_bonus: int = 0
    rubber_winner: int | None = None


@dataclass
class Rubber:
    """The score sheet of one rubber (V6).

    Attributes:
        below: points below the line in the current game, per side.
        games: games won, per side.
        total: everything written in the rubber so far (above and below), per side.
        scoring: ``"moscow"`` or ``"foster"`` (the game bonuses, V6.2 / V8.2e).
    """

    below: list[int] = field(default_factory=lambda: [0, 0])
    games: list[int] = field(default_factory=lambda: [0, 0])
    total: list[int] = field(default_factory=lambda: [0, 0])
    scoring: str = "moscow"

    @property
    def over(self) -> bool:
        return max(self.games) >= 2

    @property
    def winner(self) -> int | None:
        return None if not self.over else (0 if self.games[0] >= 2 else 1)

    def settlement(self) -> int:
        """V6.4: side 0's total minus side 1's (side 0 wins it when positive)."""
        return self.total[0] - self.total[1]

    def add_deal(self, state: VintState) -> DealRecord:
        """Write a finished deal (V6.1-V6.3). A thrown-in hand writes nothing (V5.7).

        Raises:
            ValueError: the deal is not over, or the rubber is already over.
        """
        if not state.is_terminal():
            raise ValueError("the deal is not over")
        if self.over:
            raise ValueError("the rubber is over (V6.3)")
        rec = DealRecord(written=[0, 0])
        if state.end() != "played":
            return rec
        sc = state.score_dict()
        tv = int(state.score()[12])
        for t, w in enumerate(state.trick_winners()):
            side = w % 2
            rec.written[side] += tv
            if rec.game_winner is None:  # V6.2: after the game, no carry-over
                self.below[side] += tv
                if self.below[side] >= GAME_TARGET:
                    rec.game_winner, rec.game_trick = side, t + 1
                    self.games[side] += 1
                    second = self.games[side] == 2
                    unit = 1000 if self.scoring == "foster" else 500
                    rec.game_bonus = 2 * unit if second else unit
                    rec.written[side] += rec.game_bonus
                    self.below = [0, 0]
                    if second:
                        rec.rubber_winner = side
        for side in (0, 1):
            rec.written[side] += sc["above"][side]
            self.total[side] += rec.written[side]
        return rec


# ---- evening (V7) -------------------------------------------------------------------------

EVENING_SEATS = ((0, 1, 2, 3), (0, 2, 1, 3), (0, 1, 3, 2))
"""V7.1: seat of each player (A, B, C, D = players 0..3) in rubbers 1, 2, 3, so that the
partners are A&C, then A&B, then A&D, always sitting opposite (V7.2)."""


def evening_totals(settlements: list[int]) -> list[int]:
    """Each player's evening result from the three rubbers' settlements (V6.4, side 0
    minus side 1 in seat terms). Raises ValueError unless there are three."""
    if len(settlements) != 3:
        raise ValueError(f"an evening is three rubbers, got {len(settlements)}")
    out = [0, 0, 0, 0]
    for seats, x in zip(EVENING_SEATS, settlements, strict=True):
        for player, seat in enumerate(seats):
            out[player] += x if seat % 2 == 0 else -x
    return out
