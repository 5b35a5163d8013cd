"""Hand histories (RULES.md section 10): read, write, replay, check.

A history is a TOML file describing one deal so that it replays exactly::

    profile = "vitou"
    dealer = 3
    scores = [0, 0]
    hands = ["T 9 A", "K Q J", "8 7 7", "T A K"]
    actions = ["p0 raise", "p0 play T", "p1 refuse"]
    [expect]
    points = [1, 0]

Replaying applies the deal (cards in R1.2 order from ``hands``) and the actions
through the rules kernel. A history that breaks a rule raises
:class:`HistoryError` naming the action's 0-based index, the action and the
rule. Optional ``[expect]`` keys: ``points``, ``end``, ``stake``, ``tricks``,
``winner``, ``returns``.

One module because reading, writing, replaying and checking are one round trip over
one format: the verbs parsed here are the verbs written by :func:`record` and named
by :func:`action_name`, and the checks of each profile's keys sit beside the parser.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from ..io import write_atomic
from . import layout as L
from .game import RAISE_NAMES, Game, IllegalActionError, State, end_rule
from .params import VitouParams

KNOBS = ("early_end", "signals", "signal_seen", "target", "ranks", "copies", "hand_size",
         "direction", "games", "games_won", "chooser", "players", "put_stake", "fold_pays")
TOP_KEYS = ("profile", "dealer", "scores", "hands", "hands2", "actions", "expect",
            "expect_error") + KNOBS
#: the ``[expect]`` keys and the kind of value of each (:data:`EXPECT_KINDS`)
#: ``[expect]`` keys of the two-team result that Willughby's Put (P7.5) does not have
WILLUGHBY_NO_EXPECT = ("points", "scores_after", "games_after")
EXPECT_KEYS = {"points": "nums", "end": "str", "stake": "num|str", "tricks": "strs",
               "winner": "num", "returns": "nums", "scores_after": "nums",
               "games_after": "nums"}


class HistoryError(ValueError):
    """A malformed history or one that breaks a rule.

    Attributes:
        index: 0-based index of the offending action, or ``None`` when the file
            itself is at fault (TOML, keys, hands).
        action: the offending action text, or ``None``.
        rule: the rule broken (``"R4.2b"``), or ``None``.
    """

    def __init__(self, message: str, index: int | None = None, action: str | None = None,
                 rule: str | None = None):
        super().__init__(message)
        self.index = index
        self.action = action
        self.rule = rule

    def as_dict(self) -> dict[str, Any]:
        return {"message": str(self), "index": self.index, "action": self.action, "rule": self.rule}


def check_top_keys(data: dict[str, Any], allowed: tuple[str, ...],
                   required: tuple[str, ...] = ("dealer", "hands", "actions")) -> None:
    """Refuse a history's TOML table with a key outside ``allowed`` or without one of
    ``required`` (shared with the Vint histories, :mod:`vitou_ai.vint.history`).

    Raises:
        HistoryError: naming the unknown keys (and the allowed ones) or the missing key.
    """
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise HistoryError(f"unknown key(s) {unknown}; allowed: {', '.join(allowed)}")
    for key in required:
        if key not in data:
            raise HistoryError(f"missing key {key!r}")


def expect_table(data: dict[str, Any], allowed: tuple[str, ...] | dict[str, str]
                 ) -> dict[str, Any]:
    """A history's ``[expect]`` table (``{}`` when absent), its keys checked against
    ``allowed`` (shared with the Vint histories) and, when ``allowed`` maps each key to
    a kind of :data:`EXPECT_KINDS`, its values' types: an ill-typed value is a malformed
    file (exit 2), not a mismatch.

    Raises:
        HistoryError: not a table, naming the unknown keys and the allowed ones, or
            a value of the wrong type.
    """
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise HistoryError("[expect] must be a table")
    bad = sorted(set(expect) - set(allowed))
    if bad:
        raise HistoryError(f"unknown [expect] key(s) {bad}; allowed: {', '.join(allowed)}")
    if isinstance(allowed, dict):
        for key, value in expect.items():
            what, ok = EXPECT_KINDS[allowed[key]]
            if not ok(value):
                raise HistoryError(f"[expect] {key} must be {what}, got {value!r}")
    return expect


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


#: the types an ``[expect]`` value may have: kind -> (description, check); numbers
#: compare by value (``1.0`` expects ``1``), so a number kind takes ints and floats
EXPECT_KINDS: dict[str, tuple[str, Any]] = {
    "num": ("a number", _is_num),
    "str": ("a string", lambda v: isinstance(v, str)),
    "num|str": ("a number or a string", lambda v: _is_num(v) or isinstance(v, str)),
    "nums": ("a list of numbers", lambda v: isinstance(v, list) and all(map(_is_num, v))),
    "strs": ("a list of strings",
             lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
}


@dataclass
class HandHistory:
    """One deal: the parameters, the hands, the actions, optional expectations.

    ``hands[s]`` is seat ``s``'s hand as rank letters separated by spaces;
    ``actions`` are ``"pS VERB [ARG]"`` or chance ``"c seen pS"`` strings.
    ``hands = []`` is allowed for a ``vitou_2p`` deal that ends in the blind
    window, before any card is dealt.
    """

    params: VitouParams
    hands: list[str]
    actions: list[str]
    expect: dict[str, Any] = field(default_factory=dict)
    expect_error: dict[str, Any] | None = None
    hands2: list[str] = field(default_factory=list)  # F2.3: the fresh deal's hands

    # ---- TOML ----------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HandHistory:
        """Build from parsed TOML. Raises :class:`HistoryError` on any bad key or value."""
        if "game" in data:  # Vint's histories say game = "vint"; Vitou's may say "vitou"
            if data["game"] != "vitou":
                raise HistoryError(f"unknown game {data['game']!r}: expected \"vitou\" (or no "
                                   "game key) or \"vint\"")
            data = {k: v for k, v in data.items() if k != "game"}
        check_top_keys(data, TOP_KEYS)
        if not isinstance(data["hands"], list) or not all(isinstance(h, str) for h in data["hands"]):
            raise HistoryError("hands must be a list of strings like \"T 9 A\"")
        if not isinstance(data["actions"], list) or not all(
            isinstance(a, str) for a in data["actions"]
        ):
            raise HistoryError("actions must be a list of strings like \"p0 play T\"")
        dealer = data["dealer"]
        if isinstance(dealer, bool) or not isinstance(dealer, int) or dealer < 0:
            raise HistoryError(f"dealer must be a seat (an integer, 0 or more), got {dealer!r}")
        knobs = {k: data[k] for k in KNOBS if k in data}
        if "games_won" in knobs and isinstance(knobs["games_won"], list):
            knobs["games_won"] = tuple(knobs["games_won"])
        if "scores" in data:
            sc = data["scores"]
            if not isinstance(sc, list) or len(sc) != 2 or any(
                isinstance(x, bool) or not isinstance(x, int) for x in sc
            ):
                raise HistoryError(f"scores must be a list of two integers, got {sc!r}")
            knobs["scores"] = tuple(sc)
        try:
            params = VitouParams(profile=data.get("profile", "vitou"), dealer=dealer, **knobs)
        except (ValueError, TypeError) as e:
            try:  # a seat past the last: name the seats, not VitouParams's -1 (a drawn dealer)
                seats = VitouParams(profile=data.get("profile", "vitou"), dealer=0,
                                    **knobs).players
            except (ValueError, TypeError):
                seats = None
            if seats is not None and dealer >= seats:
                raise HistoryError(f"dealer must be a seat, 0 to {seats - 1}, got {dealer}") \
                    from None
            cited = re.search(r"RULES_family\.md ([A-Z][0-9.]*)", str(e))
            raise HistoryError(f"bad parameters: {e}", rule=cited.group(1) if cited else None) \
                from None
        expect = expect_table(data, EXPECT_KEYS)
        if params.profile == "put_willughby":
            # P7.5, P7.6: each for themselves, one deal, no teams or scores: the team
            # fields of a result are always 0, so an [expect] of them checked nothing
            if "scores" in data:
                raise HistoryError("scores: Willughby's Put has no scores, it is paid deal by "
                                   "deal (docs/RULES_family.md P7.6)", rule="P7.6")
            team_keys = sorted(set(expect) & set(WILLUGHBY_NO_EXPECT))
            if team_keys:
                raise HistoryError(f"[expect] {', '.join(team_keys)}: Willughby's Put has no "
                                   "teams or scores (docs/RULES_family.md P7.5, P7.6); expect "
                                   "the per-seat returns", rule="P7.5")
        hands2 = data.get("hands2", [])
        if not isinstance(hands2, list) or not all(isinstance(h, str) for h in hands2):
            raise HistoryError("hands2 must be a list of strings (the fresh deal, F2.3)")
        if hands2 and params.profile != "truc_1912":
            raise HistoryError("hands2 is for a French Truc fresh deal (docs/RULES_family.md F2.3)",
                               rule="F2.3")
        hh = cls(params, list(data["hands"]), list(data["actions"]), dict(expect),
                 data.get("expect_error"), list(hands2))
        hh.check_hands()
        return hh

    @classmethod
    def load(cls, path: str | os.PathLike) -> HandHistory:
        """Read a TOML history. Raises :class:`HistoryError` (also for unreadable TOML)."""
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise HistoryError(f"cannot read: {e.strerror}") from None
        try:
            text = raw.decode("utf-8-sig")  # a UTF-8 byte-order mark is tolerated
        except UnicodeDecodeError as e:
            raise HistoryError(f"not UTF-8 text (byte {e.start})") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise HistoryError(f"malformed TOML: {e}") from None
        except RecursionError:
            raise HistoryError("malformed TOML: nesting too deep") from None
        except ValueError as e:  # e.g. an integer of more than 4300 digits
            raise HistoryError(f"malformed TOML: {e}") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "profile": self.params.profile,
            "dealer": self.params.dealer,
            "scores": list(self.params.scores),
            "hands": list(self.hands),
            "actions": list(self.actions),
        }
        if self.params.profile == "put_willughby":
            del d["scores"]  # P7.6: no scores
        if self.hands2:
            d["hands2"] = list(self.hands2)
        for k, v in self.params.knobs().items():
            if k in KNOBS and v is not None:
                d[k] = v
        if self.expect:
            d["expect"] = dict(self.expect)
        return d

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically (a temporary file renamed over ``path``)."""
        write_atomic(Path(path), tomli_w.dumps(self.to_dict()).encode())

    # ---- checks ----------------------------------------------------------------------------
    def parsed_hands(self) -> list[list[int]]:
        return [_parse_hand(h, s, self.params) for s, h in enumerate(self.hands)]

    def parsed_hands2(self) -> list[list[int]]:
        return [_parse_hand(h, s, self.params) for s, h in enumerate(self.hands2)]

    def check_hands(self) -> None:
        """R1.1, R1.2: one hand per seat, ``hand_size`` cards each, at most
        ``copies`` of each rank. Raises :class:`HistoryError`."""
        p = self.params
        if not self.hands:  # allowed: a 2p deal that ends in the blind window is never dealt
            return
        if len(self.hands) != p.players:
            raise HistoryError(f"hands: {len(self.hands)} given, {p.players} players", rule="R1.2")
        if self.hands2 and len(self.hands2) != p.players:
            raise HistoryError(f"hands2: {len(self.hands2)} given, {p.players} players", rule="F2.3")
        counts: Counter[int] = Counter()
        for hand in self.parsed_hands() + self.parsed_hands2():
            counts.update(hand)
        labels = p.rank_labels
        for r, c in sorted(counts.items()):
            if c > p.copies:
                raise HistoryError(
                    f"impossible deal: {c} cards of rank {labels[r]}, the deck has {p.copies}",
                    rule="G0.3" if p.family else "R1.1",
                )

    def deal_sequence(self) -> list[int]:
        """The chance outcomes of the deal, in R1.2 order (packets from the dealer's left).

        Raises:
            HistoryError: the dealer is drawn (``params.dealer == -1``): a hand
                history names the dealer's seat, which fixes the dealing order.
        """
        p = self.params
        if p.dealer < 0:
            raise HistoryError("dealer must be a seat: a hand history records who dealt, "
                               "not a dealer drawn by chance (dealer=-1)")
        hands = self.parsed_hands()
        seq: list[int] = []
        if not hands:
            return seq
        for hs in (hands, self.parsed_hands2()):
            for k in range(p.players if hs else 0):
                seq.extend(_deal_id(r) for r in hs[(p.dealer + 1 + k) % p.players])
        return seq


def _deal_id(rank: int) -> int:
    """Chance id of a dealt rank (docs/kernel_interface.md; family ranks 8.. at 14..)."""
    return rank if rank < 8 else L.C_DEAL_HI0 + rank - 8


def _parse_hand(text: str, seat: int, p: VitouParams) -> list[int]:
    cards = text.split()
    if len(cards) != p.hand_size:
        raise HistoryError(
            f"hands[{seat}] = {text!r}: {len(cards)} cards, hand_size is {p.hand_size}", rule="R1.2"
        )
    out = []
    labels = p.rank_labels
    for c in cards:
        if c not in labels:
            raise HistoryError(
                f"hands[{seat}] = {text!r}: {c!r} is not a rank of this deck "
                f"({' '.join(labels)})",
                rule=_FAMILY_DECK_RULE.get(p.profile, "R1.1"),
            )
        out.append(labels.index(c))
    return out


_FAMILY_DECK_RULE = {"truc_catalan": "C1.3", "truc_catalan_2p": "C1.3", "truc_1912": "F1.1",
                     "trut": "T1.1", "put": "P1.1", "put_partnership": "P1.1",
                     "put_willughby": "P7.0"}


# ---- replay ------------------------------------------------------------------------------------

#: the rule a history's action breaks when it comes in the wrong phase, by phase
PHASE_RULE = {
    L.PH_PLAY: "R2.1",
    L.PH_ANSWER: "R9.2",
    L.PH_BLIND: "R9.2",
    L.PH_ONE_FROM_END: "R6",
    L.PH_SIGNAL: "R7.1",
    L.PH_ABANDON: "R9.2",
}


def replay(hh: HandHistory) -> State:
    """Replay a history through the kernel and return the terminal state.

    Raises:
        HistoryError: at the first action that is malformed, out of turn, or
            breaks a rule (with its index, text and rule), or when the deal is
            not over after the last action.
    """
    game = Game(hh.params)
    state = game.new_initial_state()
    deal = iter(hh.deal_sequence())
    pending_accept = -1  # 4p: seat that wrote an explicit `accept` and must now play
    i = 0
    actions = hh.actions
    while True:
        # chance nodes: the deal comes from `hands`; gestures' catches from `c` actions
        while state.is_chance_node():
            phase = int(state.array[L.S_PHASE])
            if phase == L.PH_DEAL:
                card = next(deal, None)
                if card is None:
                    raise HistoryError(
                        "hands = [] but the deal reaches its cards: give every seat's hand "
                        "(an empty list is only for a vitou_2p deal refused in the blind "
                        "window)", None, None, "R1.2",
                    )
                state.apply_action(card)
                continue
            outcomes = state.chance_outcomes()
            if i < len(actions) and actions[i].split()[:1] == ["c"]:
                _apply_chance(state, actions[i], i)
                i += 1
            elif len(outcomes) == 1:
                state.apply_action(outcomes[0][0])
            else:
                observer = _seen_observer(state)
                raise HistoryError(
                    f"action {i}: expected the chance event 'c seen p{observer}' or "
                    f"'c unseen p{observer}' after a gesture",
                    i, actions[i] if i < len(actions) else None, "R7.2",
                )
        if state.is_terminal():
            if i < len(actions):
                raise HistoryError(
                    f"action {i} {actions[i]!r}: the deal is already over "
                    f"({state.last_deal().end})",
                    i, actions[i], end_rule(state.game.params, state.last_deal().end)
                    if state.game.params.willughby else "R3.2",
                )
            return state
        if i >= len(actions):
            raise HistoryError(
                f"the history ends after {len(actions)} actions but the deal is not over "
                f"(seat {state.current_player()} to act)",
                len(actions), None, None,
            )
        text = actions[i]
        seat, verb_text = parse_actor(text, i, hh.params)
        player = state.current_player()
        if seat != player:
            rule = PHASE_RULE.get(int(state.array[L.S_PHASE]), "R2.1")
            if hh.params.family:  # G3.4: a raise out of turn does not count; G1.1 order of play
                rule = "G3.4" if verb_text.split()[0] in ("raise", "rest", *RAISE_NAMES) else "G1.1"
            if hh.params.partnership:  # P6: who speaks, who lays away, who plays
                ph = int(state.array[L.S_PHASE])
                active = [int(x) for x in state.array[L.S_ACTIVE:L.S_ACTIVE + 2]]
                if ph == L.PH_CHOOSE:
                    rule = "P6.1"
                elif ph == L.PH_DISCARD:
                    rule = "P6.3"
                elif seat not in active:
                    rule = "P6.4"
            if hh.params.willughby:  # P7: put at the lead, the see round, folded players
                ph = int(state.array[L.S_PHASE])
                if ph == L.PH_SEE or state.array[L.S_OUT + seat] == 1:
                    rule = "P7.4"
                elif verb_text.split()[0] in ("raise", *RAISE_NAMES):
                    rule = "P7.3"
                else:
                    rule = "P7.1"
            raise HistoryError(
                f"action {i} {text!r}: it is seat {player}'s turn, not seat {seat}'s", i, text, rule
            )
        check_raise_step(state, verb_text, text, i)
        try:
            action = game.string_action(verb_only(verb_text))
        except ValueError as e:
            raise HistoryError(f"action {i} {text!r}: {e}", i, text,
                               "H" if game.params.family else "R10") from None
        if pending_accept >= 0 and not _is_play(action):
            raise HistoryError(
                f"action {i} {text!r}: after accepting, the player plays a card", i, text, "R4.3"
            )
        if action == L.A_ACCEPT and hh.params.players == 4 and not hh.params.partnership \
                and not hh.params.willughby:
            # R4.3: in four players accepting is playing a card; `accept` is allowed as a
            # marker right before that card.
            if int(state.array[L.S_ANSWER_SEAT]) != seat or state.array[L.S_PHASE] != L.PH_PLAY:
                raise HistoryError(
                    f"action {i} {text!r}: no raise is waiting for seat {seat}'s answer",
                    i, text, "R4.4",
                )
            pending_accept = seat
            i += 1
            continue
        pending_accept = -1
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise HistoryError(f"action {i} {text!r}: {e}", i, text, e.rule) from None
        i += 1


def _is_play(action: int) -> bool:
    return L.A_PLAY0 <= action < L.A_RAISE or L.A_PLAY_HI0 <= action < L.A_CONCEDE


def _apply_chance(state: State, text: str, i: int) -> None:
    words = text.split()
    observer = _seen_observer(state)
    if len(words) != 3 or words[1] not in ("seen", "unseen") or words[2] != f"p{observer}":
        raise HistoryError(
            f"action {i} {text!r}: expected 'c seen p{observer}' or 'c unseen p{observer}'",
            i, text, "R7.2",
        )
    action = L.C_SEEN if words[1] == "seen" else L.C_UNSEEN
    try:
        state.apply_action(action)
    except IllegalActionError as e:
        raise HistoryError(f"action {i} {text!r}: {e}", i, text, e.rule) from None


def _seen_observer(state: State) -> int:
    a = state.array
    n = state.game.num_players
    gesturer = (int(a[L.S_DEALER]) + 1 + int(a[L.S_SIGPOS])) % n
    return (gesturer + 1 + 2 * int(a[L.S_SIGCH])) % n


def parse_actor(text: str, i: int, p: VitouParams) -> tuple[int, str]:
    """``(seat, rest)`` of a history action ``"pS VERB [ARG]"`` (the ``i``-th, for the
    message). Raises :class:`HistoryError` (R10) on another form or a seat the game
    ``p`` does not have, and (R7.2) on a chance line ``"c ..."`` where none is due."""
    words = text.split(maxsplit=1)
    if len(words) != 2 or not re.fullmatch(r"p(0|[1-9][0-9]?)", words[0]):
        if words and words[0] == "c":
            raise HistoryError(f"action {i} {text!r}: no chance event is due here", i, text, "R7.2")
        raise HistoryError(
            f"action {i} {text!r}: expected 'pS VERB [ARG]' with S a seat", i, text, "R10"
        )
    seat = int(words[0][1:])
    if seat >= p.players:
        raise HistoryError(f"action {i} {text!r}: no seat {seat} in a {p.players}-player game",
                           i, text, "R10")
    return seat, words[1]


def check_raise_step(state: State, verb_text: str, text: str, i: int) -> None:
    """``raise 3|6|12|B`` must name the next step of the ladder (R4.1)."""
    words = verb_text.split()
    if words and words[0] in RAISE_NAMES and len(words) == 1:  # "truc", "put": named steps
        params = state.game.params
        labels = params.ladder_labels
        nxt = int(state.array[L.S_STAKE]) + 1
        if words[0] not in labels:  # e.g. Truc's "truc" in a Vitou history
            named = [w for w in labels if w in RAISE_NAMES]
            verbs = (", ".join(repr(w) for w in named) if named
                     else "'raise S' (S the next step: " + " ".join(labels[1:]) + ")")
            raise HistoryError(f"action {i} {text!r}: {words[0]!r} is not a verb of "
                               f"{params.profile}; its raises are {verbs}", i, text, "R10")
        if nxt < len(labels) and labels[nxt] != words[0]:
            raise HistoryError(f"action {i} {text!r}: the next step is {labels[nxt]}", i, text, "G3.1")
        return
    if not words or words[0] != "raise" or len(words) == 1:
        return
    labels = state.game.params.ladder_labels
    nxt = int(state.array[L.S_STAKE]) + 1
    if nxt >= len(labels):
        raise HistoryError(
            f"action {i} {text!r}: the stake is at the top of the ladder", i, text, "R4.2c"
        )
    if len(words) != 2 or words[1] != labels[nxt]:
        want = labels[nxt] if nxt < len(labels) else "none (top of the ladder)"
        raise HistoryError(
            f"action {i} {text!r}: a raise moves one step; the next step is {want}", i, text, "R4.1"
        )


def action_name(state: State, action: int) -> str:
    """An action of the player to act at ``state`` as the hand histories write it: a
    raise by the game's name for the step it raises to (``truc``, ``retruc``, ``trut``,
    ``put``; else ``raise``), the inverse of :func:`check_raise_step`'s named steps;
    other actions by :meth:`Game.action_string` (the game's rank labels)."""
    if action == L.A_RAISE:
        ladder = state.game.params.ladder_labels
        nxt = int(state.array[L.S_STAKE]) + 1
        if nxt < len(ladder) and ladder[nxt] in RAISE_NAMES:
            return ladder[nxt]
    return state.game.action_string(action)


def verb_only(text: str) -> str:
    """The verb part of an action's text, a raise's stake dropped (``"raise 3"`` ->
    ``"raise"``): how the legal actions of a history are compared."""
    words = text.split()
    return "raise" if words and words[0] == "raise" else text


def result_dict(hh: HandHistory, state: State) -> dict[str, Any]:
    """The replay summary of a terminal state (the ``vitou-ai replay --json`` record)."""
    d = state.last_deal()
    assert d is not None
    stake: int | str = int(d.stake) if d.stake.isdigit() else d.stake
    out = {
        "profile": hh.params.profile,
        "winner": d.winner,
        "points": list(d.points),
        "stake": stake,
        "tricks": list(d.tricks),
        "end": d.end,
        "returns": [int(r) if float(r).is_integer() else r for r in state.returns()],
        "scores_after": list(d.scores_after),
        "games_after": list(d.games_after),
    }
    if hh.params.profile == "put_willughby":  # P7.5: a seat wins; no teams, no scores
        for key in WILLUGHBY_NO_EXPECT:
            del out[key]
    return out


def check_expect(hh: HandHistory, result: dict[str, Any]) -> list[str]:
    """Differences between ``[expect]`` and the replay result (empty when they agree)."""
    out = []
    for key, want in hh.expect.items():
        got = result.get(key)
        if not _same(want, got):
            out.append(f"{key}: expected {want!r}, got {got!r}")
    return out


def _same(want: Any, got: Any) -> bool:
    """Typed equality: 1 == 1.0, but "1" != 1 and True != 1."""
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_same(w, g) for w, g in zip(want, got, strict=True))
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    return type(want) is type(got) and want == got or (
        isinstance(want, int | float) and isinstance(got, int | float) and want == got)


def record(game: Game, chance_and_actions: list[int]) -> HandHistory:
    """A history from a sequence of kernel action ids applied from the initial state.

    The deal's chance outcomes become ``hands``; gesture catches become
    ``c seen pS`` / ``c unseen pS``; player actions ``pS VERB``. With a drawn
    dealer (``dealer=-1``, R1.4) the draw is the first chance outcome and the
    history records the seat drawn as its ``dealer``.
    """
    state = game.new_initial_state()
    p = game.params
    hands: list[list[str]] = [[] for _ in range(p.players)]
    hands2: list[list[str]] = [[] for _ in range(p.players)]
    actions: list[str] = []
    for a in chance_and_actions:
        if state.is_chance_node():
            phase = int(state.array[L.S_PHASE])
            if phase == L.PH_DRAW_DEALER:
                p = p.replace(dealer=a - L.C_DEALER0)
            elif phase == L.PH_DEAL:
                nd = int(state.array[L.S_NDEALT])
                seat = (int(state.array[L.S_DEALER]) + 1 + nd // p.hand_size) % p.players
                into = hands2 if int(state.array[L.S_REDEAL]) == 2 else hands
                into[seat].append(game.action_string(a, True).split()[1])
            elif phase == L.PH_SEEN:
                actions.append(f"c {game.action_string(a, True)} p{_seen_observer(state)}")
        else:
            actions.append(f"p{state.current_player()} {game.action_string(a)}")
        state.apply_action(a)
    dealt = any(hands)
    return HandHistory(p, [" ".join(h) for h in hands] if dealt else [], actions,
                       hands2=[" ".join(h) for h in hands2] if any(hands2) else [])
