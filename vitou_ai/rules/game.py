"""Checked Python view of the kernel: :class:`Game` and :class:`State`.

This is the convenient, safe entry point (hand histories, the command line,
tests, the OpenSpiel adapter). Every rule decision is the kernel's; this
module only checks legality before applying, converts action strings, and
names the rule an illegal action breaks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernel as K
from . import layout as L
from . import observe as O
from .params import RANK_LETTERS, VitouParams

_END_RULE = {"tricks": "R3.2", "all_void": "R3.2", "refused": "R4.3", "declined": "R6.1",
             "passed": "R6.2", "abandoned": "R9.2"}
#: Willughby's Put (docs/RULES_family.md P7): first to two tricks or a draw (P7.2), or
#: everybody folded after the put (P7.4)
_END_RULE_WILLUGHBY = {"tricks": "P7.2", "draw": "P7.2", "folded": "P7.4"}


def end_rule(params: VitouParams, end: str, default: str = "R8") -> str:
    """The rule that ended a deal the way ``end`` (``DealResult.end``) names: what an
    action after the end cites; ``default`` for an end without one."""
    table = _END_RULE_WILLUGHBY if params.willughby else _END_RULE
    return table.get(end, default)


class IllegalActionError(ValueError):
    """An action that the rules do not allow here. ``rule`` names the rule (``"R4.2b"``)."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule


#: Family verbs (docs/RULES_family.md H) and the names a raise may be written by.
FAMILY_VERBS = {"concede": L.A_CONCEDE, "rest": L.A_REST, "redeal": L.A_REDEAL, "keep": L.A_KEEP,
                "take": L.A_TAKE, "give": L.A_GIVE, "see": L.A_SEE, "fold": L.A_FOLD}
RAISE_NAMES = ("truc", "retruc", "trut", "put")


def action_to_string(action: int, chance: bool = False,
                     labels: tuple[str, ...] | None = None) -> str:
    """The contract's string for a player action or chance outcome id.

    Args:
        labels: the game's rank labels (``VitouParams.rank_labels``) for a family
            game (docs/RULES_family.md), whose ids go beyond Vitou's; ``None``: Vitou.

    Raises:
        ValueError: for an id outside the action (or chance outcome) range.
    """
    if labels is not None:
        return _family_action_to_string(action, chance, labels)
    if chance:
        if 0 <= action < L.C_SEEN:
            return f"deal {RANK_LETTERS[action]}"
        if action == L.C_SEEN:
            return "seen"
        if action == L.C_UNSEEN:
            return "unseen"
        if L.C_DEALER0 <= action < L.MAX_CHANCE_OUTCOMES:
            return f"dealer {action - L.C_DEALER0}"
        raise ValueError(f"chance outcome id {action} out of range 0..{L.MAX_CHANCE_OUTCOMES - 1}")
    if 0 <= action < L.A_RAISE:
        return f"play {RANK_LETTERS[action]}"
    if L.A_SIGNAL0 <= action < L.A_SIGNAL0 + len(L.GESTURES):
        return f"signal {L.GESTURES[action - L.A_SIGNAL0]}"
    names = {
        L.A_RAISE: "raise",
        L.A_ACCEPT: "accept",
        L.A_REFUSE: "refuse",
        L.A_GO: "go",
        L.A_PASS: "pass",
        L.A_DECLINE: "decline",
        L.A_ABANDON: "abandon",
        L.A_AGREE: "agree",
        L.A_REJECT: "reject",
    }
    if action in names:
        return names[action]
    raise ValueError(f"action id {action} out of range 0..{L.NUM_ACTIONS - 1}")


def _family_action_to_string(action: int, chance: bool, labels: tuple[str, ...]) -> str:
    if chance:
        r = action if 0 <= action < 8 else action - L.C_DEAL_HI0 + 8
        if (0 <= action < 8 or L.C_DEAL_HI0 <= action < L.MAX_CHANCE_IDS_FAMILY) and r < len(labels):
            return f"deal {labels[r]}"
        if L.C_DEALER0 <= action < L.C_DEALER0 + 4:
            return f"dealer {action - L.C_DEALER0}"
        raise ValueError(f"chance outcome id {action} is not an outcome of this game")
    r = action if 0 <= action < 8 else action - L.A_PLAY_HI0 + 8
    if (0 <= action < 8 or L.A_PLAY_HI0 <= action < L.A_CONCEDE) and r < len(labels):
        return f"play {labels[r]}"
    if L.A_DISCARD0 <= action < L.NUM_ACTIONS_PARTNERSHIP and action - L.A_DISCARD0 < len(labels):
        return f"discard {labels[action - L.A_DISCARD0]}"  # P6.3
    for verb, a in FAMILY_VERBS.items():
        if a == action:
            return verb
    if L.A_RAISE <= action < L.NUM_ACTIONS and not L.A_SIGNAL0 <= action < L.A_ABANDON:
        return action_to_string(action)
    raise ValueError(f"action id {action} is not an action of this game "
                     f"(0..{L.NUM_ACTIONS_WILLUGHBY - 1})")


def _family_string_to_action(text: str, chance: bool, labels: tuple[str, ...]) -> int:
    words = text.split()
    if chance:
        if len(words) == 2 and words[0] == "deal" and words[1] in labels:
            r = labels.index(words[1])
            return r if r < 8 else L.C_DEAL_HI0 + r - 8
        if len(words) == 2 and words[0] == "dealer" and words[1] in "0123" and len(words[1]) == 1:
            return L.C_DEALER0 + int(words[1])
        raise ValueError(f"bad chance outcome {text!r}; expected 'deal R' or 'dealer S'")
    if len(words) == 2 and words[0] == "play" and words[1] in labels:
        r = labels.index(words[1])
        return r if r < 8 else L.A_PLAY_HI0 + r - 8
    if len(words) == 2 and words[0] == "discard" and words[1] in labels:  # P6.3
        return L.A_DISCARD0 + labels.index(words[1])
    if len(words) == 1 and words[0] in RAISE_NAMES:
        return L.A_RAISE
    if len(words) == 1 and words[0] in FAMILY_VERBS:
        return FAMILY_VERBS[words[0]]
    if len(words) == 1 and words[0] in _VERB_IDS and words[0] != "abandon":
        return _VERB_IDS[words[0]]
    raise ValueError(
        f"bad action {text!r}; expected 'play R' or 'discard R' (R in {' '.join(labels)}), raise (or "
        f"{', '.join(RAISE_NAMES)}), or one of accept, refuse, go, pass, decline, agree, reject, "
        f"{', '.join(FAMILY_VERBS)}"
    )


_VERB_IDS = {
    "raise": L.A_RAISE,
    "accept": L.A_ACCEPT,
    "refuse": L.A_REFUSE,
    "go": L.A_GO,
    "pass": L.A_PASS,
    "decline": L.A_DECLINE,
    "abandon": L.A_ABANDON,
    "agree": L.A_AGREE,
    "reject": L.A_REJECT,
}


def string_to_action(text: str, chance: bool = False,
                     labels: tuple[str, ...] | None = None) -> int:
    """Inverse of :func:`action_to_string` (exact strings only; ``labels`` as there).

    Raises:
        ValueError: naming the string and what is allowed.
    """
    if labels is not None:
        return _family_string_to_action(text, chance, labels)
    words = text.split()
    if chance:
        if len(words) == 2 and words[0] == "deal" and words[1] in RANK_LETTERS:
            return L.C_DEAL0 + RANK_LETTERS.index(words[1])
        if text == "seen":
            return L.C_SEEN
        if text == "unseen":
            return L.C_UNSEEN
        if len(words) == 2 and words[0] == "dealer" and words[1] in "0123":
            return L.C_DEALER0 + int(words[1])
        raise ValueError(f"bad chance outcome {text!r}; expected 'deal R', 'seen', 'unseen', 'dealer S'")
    if len(words) == 2 and words[0] == "play" and len(words[1]) == 1 and words[1] in RANK_LETTERS:
        return L.A_PLAY0 + RANK_LETTERS.index(words[1])
    if len(words) == 2 and words[0] == "signal" and words[1] in L.GESTURES:
        return L.A_SIGNAL0 + L.GESTURES.index(words[1])
    if len(words) == 1 and words[0] in _VERB_IDS:
        return _VERB_IDS[words[0]]
    raise ValueError(
        f"bad action {text!r}; expected 'play R' (R in {' '.join(RANK_LETTERS)}), "
        f"'signal G' (G in {', '.join(L.GESTURES)}), or one of {', '.join(_VERB_IDS)}"
    )


@dataclass(frozen=True)
class DealResult:
    """The latest finished deal (RULES.md R3, R4.3, R5, R6; contract 'Ends of a deal')."""

    end: str
    winner: int | None
    points: tuple[int, int]
    stake: str
    tricks: tuple[str, ...]
    raises: int
    refusals: int
    scores_after: tuple[int, int] = (0, 0)
    games_after: tuple[int, int] = (0, 0)


class Game:
    """A Vitou game (deal or match) over the rules kernel.

    Args:
        params: a :class:`VitouParams`, or keyword knobs to build one.

    Raises:
        ValueError: on invalid parameters (see :class:`VitouParams`).
    """

    def __init__(self, params: VitouParams | None = None, **knobs):
        if params is None:
            params = VitouParams(**knobs)
        elif knobs:
            params = params.replace(**knobs)
        self.params = params
        self.array = params.to_array()
        self.num_players = params.players
        #: rank labels for action strings: ``None`` for Vitou (the contract's letters)
        self.labels = params.rank_labels if params.family else None

    def action_string(self, action: int, chance: bool = False) -> str:
        """:func:`action_to_string` for this game's actions and ranks."""
        return action_to_string(action, chance, self.labels)

    def string_action(self, text: str, chance: bool = False) -> int:
        """:func:`string_to_action` for this game's actions and ranks."""
        return string_to_action(text, chance, self.labels)

    def new_initial_state(self) -> State:
        return State(self, K.new_state(self.array))


class State:
    """A game state: the kernel's ``int32[STATE_SIZE]`` array plus its game."""

    __slots__ = ("game", "array", "_buf", "_pbuf")

    def __init__(self, game: Game, array: np.ndarray):
        self.game = game
        self.array = array
        self._buf = np.empty(L.NUM_ACTIONS, dtype=np.int64)
        self._pbuf = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.float64)

    def clone(self) -> State:
        return State(self.game, self.array.copy())

    def current_player(self) -> int:
        return int(K.current_player(self.game.array, self.array))

    def is_terminal(self) -> bool:
        return bool(K.is_terminal(self.array))

    def is_chance_node(self) -> bool:
        return bool(K.is_chance(self.array))

    def legal_actions(self) -> list[int]:
        n = K.legal_actions(self.game.array, self.array, self._buf)
        return [int(a) for a in self._buf[:n]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = K.chance_outcomes(self.game.array, self.array, self._buf, self._pbuf)
        return [(int(self._buf[i]), float(self._pbuf[i])) for i in range(n)]

    def returns(self) -> list[float]:
        out = np.zeros(self.game.num_players)
        K.returns(self.game.array, self.array, out)
        return [float(x) for x in out]

    def scores(self) -> tuple[int, int]:
        return int(self.array[L.S_SCORE0]), int(self.array[L.S_SCORE0 + 1])

    def _check_seat(self, seat: int) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not (
            0 <= seat < self.game.num_players
        ):
            raise ValueError(f"seat must be in 0..{self.game.num_players - 1}, got {seat!r}")
        return int(seat)

    def infostate_key(self, player: int) -> np.ndarray:
        """``int8[KEY_SIZE]`` perfect-recall information state (observe.infostate_key).

        Raises:
            ValueError: for a seat that does not exist.
        """
        player = self._check_seat(player)
        out = np.empty(L.KEY_SIZE, dtype=np.int8)
        O.infostate_key(self.game.array, self.array, player, out)
        return out

    def public_observation(self) -> np.ndarray:
        out = np.empty(O.OBS_SIZE, dtype=np.int16)
        O.public_observation(self.game.array, self.array, out)
        return out

    def hand(self, seat: int) -> list[int]:
        """Ranks still held by ``seat`` (ascending rank index).

        Raises:
            ValueError: for a seat that does not exist.
        """
        seat = self._check_seat(seat)
        base = L.S_HELD + seat * L.MAX_RANKS
        return [r for r in range(L.MAX_RANKS) for _ in range(int(self.array[base + r]))]

    def apply_action(self, action: int) -> None:
        """Apply a player action or chance outcome after checking it is legal.

        Raises:
            IllegalActionError: naming the action and the rule it breaks.
        """
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise TypeError(f"an action is an integer id, got {action!r}")
        action = int(action)
        if self.is_terminal():
            end = self.last_deal()
            rule = end_rule(self.game.params, end.end if end else "")
            raise IllegalActionError(f"{self._name(action)!r}: the game is over", rule)
        if self.is_chance_node():
            allowed = [a for a, _ in self.chance_outcomes()]
            if action not in allowed:
                names = ", ".join(self.game.action_string(a, True) for a in allowed)
                raise IllegalActionError(
                    f"chance outcome {self._name(action, True)!r} impossible here; possible: {names}",
                    "R1.2" if self.array[L.S_PHASE] == L.PH_DEAL else "R7.2",
                )
        else:
            legal = self.legal_actions()
            if action not in legal:
                rule, why = self.explain_illegal(action)
                names = ", ".join(self.game.action_string(a) for a in legal)
                raise IllegalActionError(
                    f"{self._name(action)!r} by seat {self.current_player()} is illegal ({rule}: "
                    f"{why}); legal: {names}",
                    rule,
                )
        K.apply_action(self.game.array, self.array, action)

    def _name(self, action: int, chance: bool = False) -> str:
        try:
            return self.game.action_string(action, chance)
        except ValueError:
            return f"id {action}"

    def explain_illegal(self, action: int) -> tuple[str, str]:
        """The rule an illegal player action breaks, and why (diagnostics only:
        legality itself is decided by the kernel)."""
        a, p = self.array, self.game.params
        if p.family:
            return self._explain_family(action)
        ph = int(a[L.S_PHASE])
        seat = self.current_player()
        two = p.players == 2
        if not 0 <= action < L.NUM_ACTIONS:
            return "R10", f"action id {action} is not an action (0..{L.NUM_ACTIONS - 1})"
        if L.A_SIGNAL0 <= action < L.A_SIGNAL0 + len(L.GESTURES) and ph != L.PH_SIGNAL:
            if not p.signals:
                return "R7", "signals are off in this game"
            return "R7.1", "gestures are made after the deal, before the first card"
        if action in (L.A_GO, L.A_DECLINE) and ph != L.PH_ONE_FROM_END:
            return ("R9.3" if two else "R6.1"), "go / decline only when a team is one from the end"
        if action == L.A_PASS and ph not in (L.PH_ONE_FROM_END, L.PH_BLIND):
            return "R6.2", "pass only in the round at target-1 : target-1 (or the 2p blind window)"
        if action in (L.A_ABANDON, L.A_AGREE, L.A_REJECT) and not two:
            return "R9.2", "abandon is a vitou_2p action"
        if ph == L.PH_PLAY:
            if a[L.S_LOCKED] or a[L.S_RAISED_NOW]:
                if action < L.A_RAISE:
                    return "R2.1", f"seat {seat} holds no {RANK_LETTERS[action]}"
                return ("R9.2" if two else "R4.3"), "after a raise the player must play a card"
            if action < L.A_RAISE:
                if action >= p.ranks:
                    return "R1.1", f"rank {RANK_LETTERS[action]} is not in this {p.ranks}-rank deck"
                return "R2.1", f"seat {seat} holds no {RANK_LETTERS[action]}"
            if action == L.A_RAISE:
                if a[L.S_STAKE] >= len(p.ladder) - 1:
                    return "R4.2c", "the stake is at the top of the ladder"
                if K.one_from_end(self.game.array, a):
                    return "R4.2d", "a team is one point from the end"
                if a[L.S_LASTRAISE] == seat % 2:
                    return "R4.2b", "the latest raise was this player's team's"
                return "R4.2a", "the last player of a trick may not raise"
            if action == L.A_REFUSE:
                return "R4.4", "only the next player, right after the raise and its card, may refuse"
            if action == L.A_ABANDON:
                return "R9.2", "abandon only at the leader's first card turn, once, before any card"
            if action == L.A_ACCEPT:
                return "R4.3", "no raise is waiting for an answer (4p: accept by playing a card)"
            return "R4.2", "not an action of a card turn"
        if ph == L.PH_ANSWER:
            if action == L.A_RAISE:
                return "R4.2c", "the stake is at the top of the ladder"
            return "R9.2", "a raise must first be answered: accept, raise or refuse"
        if ph == L.PH_BLIND:
            return "R9.2", "blind window: raise or pass"
        if ph == L.PH_ONE_FROM_END:
            rule = "R6.2" if a[L.S_R6MODE] == 2 else ("R9.3" if two else "R6.1")
            if action == L.A_RAISE:
                rule = "R4.2d"
            return rule, "one from the end: go or " + ("pass" if a[L.S_R6MODE] == 2 else "decline")
        if ph == L.PH_SIGNAL:
            return "R7.1", "each player now chooses a gesture"
        if ph == L.PH_ABANDON:
            return "R9.2", "abandon must be answered: agree or reject"
        return "R8", "no player action here"

    def _explain_family(self, action: int) -> tuple[str, str]:
        """:meth:`explain_illegal` for the family, citing docs/RULES_family.md."""
        a, p = self.array, self.game.params
        ph = int(a[L.S_PHASE])
        seat = self.current_player()
        game = {"truc_catalan": "C", "truc_catalan_2p": "C", "truc_1912": "F", "trut": "T",
                "put": "P", "put_partnership": "P", "put_willughby": "P"}[p.profile]
        if not 0 <= action < p.num_actions:
            return "H", f"action id {action} is not an action (0..{p.num_actions - 1})"
        if p.willughby:
            return self._explain_willughby(action)
        if action in (L.A_SEE, L.A_FOLD):
            return "P7.4", "see and fold answer a put in Willughby's Put (put_willughby)"
        if ph == L.PH_CHOOSE:
            return "P6.1", "the side's speaker says take (I play) or give (my partner plays)"
        if ph == L.PH_DISCARD:
            if L.A_DISCARD0 <= action < L.NUM_ACTIONS_PARTNERSHIP:
                return "P6.3", f"seat {seat} holds no such card to lay away"
            return "P6.3", "the active player lays away one card before play"
        if action in (L.A_TAKE, L.A_GIVE) or L.A_DISCARD0 <= action < L.NUM_ACTIONS_PARTNERSHIP:
            return "P6.1", "take, give and discard are partnership Put's hand-over, before play"
        is_play = action < L.A_RAISE or L.A_PLAY_HI0 <= action < L.A_CONCEDE
        if L.A_SIGNAL0 <= action < L.A_SIGNAL0 + len(L.GESTURES):
            return "C6", "no signals in the family games"
        if action in (L.A_ABANDON,):
            return "H", "abandon is a vitou_2p action"
        if action == L.A_CONCEDE and p.profile not in ("put", "put_partnership"):
            return "P5", "concede is a Put action"
        if action in (L.A_REDEAL, L.A_KEEP) and ph != L.PH_REDEAL:
            return "F2.1", "only the first leader, right after the deal, proposes a fresh deal"
        if action == L.A_REST and not p.profile == "truc_1912":
            return "F3.3", "our rest is a French Truc (1912) raise"
        if ph == L.PH_REDEAL:
            return "F2.1", "the first leader says redeal or keep"
        if ph == L.PH_REDEAL_ANSWER:
            return "F2.2", "a fresh deal is answered: agree or reject"
        if ph == L.PH_DECIDE:
            return "P5.3", "before trick 2 the non-dealer concedes or puts"
        if action in (L.A_GO, L.A_DECLINE) and ph != L.PH_ONE_FROM_END:
            return ("C5.1" if game in "CF" else f"{game}5"), "go / decline only when a side is at 11"
        if ph == L.PH_ONE_FROM_END:
            if action == L.A_RAISE:
                return "C5.2", "no raises one point from the end"
            return "C5.1", "one from the end: go or decline"
        if ph == L.PH_ANSWER:
            if action in (L.A_RAISE, L.A_REST):
                return "G3.1", "the stake is at the top of the ladder"
            return "G3.7", "a raise must first be answered: accept, raise or refuse"
        if ph == L.PH_PLAY:
            if a[L.S_LOCKED] or a[L.S_RAISED_NOW]:
                if is_play:
                    return "G1.1", f"seat {seat} holds no such card"
                return "G3.6" if p.players == 4 else "G3.7", "after a raise the player plays a card"
            if is_play:
                r = action if action < 8 else action - L.A_PLAY_HI0 + 8
                if r >= p.ranks:
                    return f"{game}1", f"rank id {r} is not in this {p.ranks}-rank deck"
                return "G1.1", f"seat {seat} holds no {p.rank_labels[r]}"
            if action in (L.A_RAISE, L.A_REST):
                if a[L.S_STAKE] >= len(p.ladder) - 1:
                    return "G3.1", "the stake is at the top of the ladder"
                if a[L.S_R6MODE] != 0:
                    return "C5.2", "no raises one point from the end"
                if a[L.S_LASTRAISE] == seat % 2:
                    return "G3.5", "raises alternate between the sides"
                if p.profile in ("put", "put_partnership"):
                    return "P5", "a put only at trick 1 or the decision before trick 2"
                if action == L.A_REST:
                    return "F3.3", "rest only where it is more than the next raise"
                return "G3.6", "the last player of a trick may not raise"
            if action == L.A_REFUSE:
                return "G3.6", "only the next player, right after the raise and its card, may refuse"
            if action == L.A_CONCEDE:
                return "P5", "concede only before a put is accepted, in trick 1 or before trick 2"
            if action == L.A_ACCEPT:
                return "G3.6", "no raise is waiting for an answer (4p: accept by playing a card)"
            return "G1.1", "not an action of a card turn"
        return "G4", "no player action here"

    def _explain_willughby(self, action: int) -> tuple[str, str]:
        """:meth:`explain_illegal` for Willughby's Put (docs/RULES_family.md P7)."""
        a, p = self.array, self.game.params
        ph = int(a[L.S_PHASE])
        seat = self.current_player()
        is_play = action < L.A_RAISE or L.A_PLAY_HI0 <= action < L.A_CONCEDE
        if ph == L.PH_SEE:
            return "P7.4", "after a put each other player says see or fold"
        if action in (L.A_SEE, L.A_FOLD):
            return "P7.4", "see and fold only answer a put"
        if ph == L.PH_PLAY:
            if is_play:
                r = action if action < 8 else action - L.A_PLAY_HI0 + 8
                if r >= p.ranks:
                    return "P7.0", f"rank id {r} is not in this {p.ranks}-rank deck"
                return "P7.1", f"seat {seat} holds no {p.rank_labels[r]}"
            if action == L.A_RAISE:
                if a[L.S_STAKE] > 0:
                    return "P7.3", "one put a deal"
                return "P7.3", "put only by the player about to lead a trick"
            if action == L.A_CONCEDE:
                return "P7.3", "no concession in Willughby's Put"
            return "P7.3", "a card turn: play a card (or put, at the lead)"
        return "P7", "no player action here"

    def last_deal(self) -> DealResult | None:
        """Summary of the latest finished deal, ``None`` before any."""
        a = self.array
        end = int(a[L.S_END])
        if end == L.END_NONE:
            return None
        winner = int(a[L.S_WINNER])
        nt = int(a[L.S_RES_NTRICKS])
        res_names = ("0", "1", "void")
        if self.game.params.willughby:  # P7.1: the winning seat, or a tied trick
            res_names = ("0", "1", "2", "3", "void")
        return DealResult(
            end=L.END_NAMES[end],
            winner=None if winner < 0 else winner,
            points=(int(a[L.S_POINTS]), int(a[L.S_POINTS + 1])),
            stake=self.game.params.ladder_labels[int(a[L.S_RES_STAKE])],
            tricks=tuple(res_names[int(a[L.S_RES_TRES + t])] for t in range(nt)),
            raises=int(a[L.S_RES_RAISES]),
            refusals=int(a[L.S_RES_REFUSALS]),
            scores_after=(int(a[L.S_AFTER_SCORE]), int(a[L.S_AFTER_SCORE + 1])),
            games_after=(int(a[L.S_AFTER_GAMES]), int(a[L.S_AFTER_GAMES + 1])),
        )


def max_deal_decisions(params: VitouParams) -> int:
    """Upper bound on the player decisions in one deal (for ``max_game_length``).

    Four players: one-from-end round + gestures + cards + raises + a refusal.
    Two players: blind window + raises + their answers + abandon/reject +
    one-from-end round + cards + a final refuse/agree.
    """
    n, cards, raises = params.players, params.players * params.hand_size, len(params.ladder) - 1
    if params.partnership:  # P6: take / give and a discard per side, then two hands of play
        return 2 + 2 + 2 * params.hand_size + 2 * raises + 2 + 1
    if params.willughby:  # P7: the cards, a put and the others' see / fold
        return cards + 1 + (n - 1)
    if params.family:  # fresh deal round (F2) + one-from-end + cards + raises and answers
        return n + 1 + cards + 2 * raises + 2 + 1
    if n == 4:
        return n + (n if params.signals else 0) + cards + raises + 1
    return 2 + 2 * raises + 2 + 2 + cards + 1


def max_legal_actions(params: VitouParams) -> int:
    """Upper bound on the legal actions at one decision node (solvers size their tables by
    it): the distinct cards of a hand plus the verbs of a card turn, or 5 gestures (R7.1)."""
    plays = min(params.hand_size, params.ranks)
    if params.partnership:  # P6.3: a discard of h + 1 cards; a card turn: plays, put, concede
        return max(3, min(params.hand_size + 1, params.ranks), plays + 2)
    if params.willughby:  # P7.3, P7.4: plays and put; see / fold
        return max(2, plays + 1)
    if params.family:  # raise; refuse (4p, G3.6); concede (Put P5); rest (F3.3)
        extra = 1 + (params.players == 4) + (params.profile == "put") + (
            params.profile == "truc_1912")
        return max(3, plays + extra)
    return max(5 if params.signals else 3, plays + 2)


def max_game_decisions(params: VitouParams) -> int:
    """Upper bound on the player decisions in one game: a deal (R8.1), or a match
    (R8.2) of at most ``max_deals`` deals. Deals that score nothing (``all_void``,
    ``passed``, ``abandoned``) can make a match last all ``max_deals`` deals, so
    the bound is ``max_deal_decisions * max_deals`` in match mode.

    This is ``max_game_length`` of ``python_vitou``, and the depth the sampling
    solvers size their per-episode buffers by (:class:`vitou_ai.solvers.sampling.mccfr.MCCFR`).
    """
    return max_deal_decisions(params) * (params.max_deals if params.mode == "match" else 1)
