"""Vint hand histories (``docs/RULES_vint.md`` V9): read, replay, check, write.

A history is a TOML file describing one deal so that it replays exactly::

    game = "vint"
    dealer = 0
    hands = ["AS KS ...", "...", "...", "..."]      # seat 0 first, 13 cards each
    actions = ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D", "p3 pass", ..., "p3 play 7H", ...]
    rubber_below = [0, 0]      # optional: the rubber before this deal (V6)
    rubber_games = [0, 0]
    rubber_total = [0, 0]      # everything written in the rubber so far (for the settlement)
    [expect]
    below = [162, 72]

Replaying deals ``hands`` and applies the actions through the kernel. A history
that breaks a rule raises :class:`vitou_ai.rules.history.HistoryError` naming the
action's 0-based index, its text and the rule (V9.2).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from ..io import write_atomic
from ..rules.history import HistoryError, check_expect, check_top_keys, expect_table
from .game import (
    VintParams,
    VintRuleError,
    VintState,
    action_str,
    hand_str,
    parse_action,
    parse_hand,
)
from .rubber import Rubber

KNOBS = ("short_auction", "scoring", "slam_small", "slam_grand")
TOP_KEYS = ("game", "dealer", "hands", "actions", "rubber_below", "rubber_games",
            "rubber_total", "expect",
            "expect_error") + KNOBS
#: the ``[expect]`` keys and the kind of value of each
#: (:data:`vitou_ai.rules.history.EXPECT_KINDS`)
EXPECT_KEYS = {"end": "str", "contract": "str", "declarer": "num", "tricks": "nums",
               "below": "nums", "honours": "nums", "aces": "nums", "undertricks": "nums",
               "slam": "nums", "crowns": "nums", "above": "nums", "difference": "num",
               "game_winner": "num|str", "game_trick": "num", "game_bonus": "num",
               "rubber_winner": "num|str", "games": "nums", "written": "nums",
               "below_line": "nums", "settlement": "num|str"}

__all__ = ["VintHistory", "is_vint_file", "replay", "result_dict", "check_expect", "record"]


def is_vint_file(path: str | os.PathLike) -> bool:
    """True when the file is a TOML table with ``game = "vint"`` (False if unreadable:
    the Vitou reader then reports the problem)."""
    try:
        data = tomllib.loads(Path(path).read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return False
    return data.get("game") == "vint"


@dataclass
class VintHistory:
    """One deal: parameters, hands (masks, seat 0 first), actions, rubber position,
    expectations."""

    params: VintParams
    hands: list[int]
    actions: list[str]
    rubber_below: list[int] = field(default_factory=lambda: [0, 0])
    rubber_games: list[int] = field(default_factory=lambda: [0, 0])
    rubber_total: list[int] = field(default_factory=lambda: [0, 0])
    expect: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VintHistory:
        """Build from parsed TOML. Raises HistoryError on a bad key or value."""
        if data.get("game") != "vint":
            raise HistoryError("not a Vint history (game = \"vint\" missing)")
        check_top_keys(data, TOP_KEYS)
        if not isinstance(data["actions"], list) or not all(isinstance(a, str)
                                                             for a in data["actions"]):
            raise HistoryError("actions must be a list of strings like \"p0 bid 2D\"")
        try:
            params = VintParams(dealer=data["dealer"], **{k: data[k] for k in KNOBS if k in data})
        except (ValueError, TypeError) as e:
            raise HistoryError(f"bad parameters: {e}") from None
        hands = data["hands"]
        if not isinstance(hands, list) or len(hands) != 4 or not all(isinstance(h, str)
                                                                      for h in hands):
            raise HistoryError("hands must be four strings of 13 cards, seat 0 first", rule="V1.2")
        masks, seen = [], 0
        for s, h in enumerate(hands):
            try:
                m = parse_hand(h)
            except ValueError as e:
                raise HistoryError(f"hands[{s}]: {e}", rule="V1.1") from None
            if bin(m).count("1") != 13:
                raise HistoryError(f"hands[{s}] has {bin(m).count('1')} cards, not 13",
                                   rule="V1.2")
            if seen & m:
                raise HistoryError(f"hands[{s}] repeats a card of another hand", rule="V1.1")
            seen |= m
            masks.append(m)
        rub = {}
        for key in ("rubber_below", "rubber_games", "rubber_total"):
            v = data.get(key, [0, 0])
            if not isinstance(v, list) or len(v) != 2 or any(
                    isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in v):
                raise HistoryError(f"{key} must be two non-negative integers, got {v!r}")
            rub[key] = list(v)
        if any(x >= 500 for x in rub["rubber_below"]):
            raise HistoryError("rubber_below: a side at 500 has already won the game", rule="V6.1")
        if any(x > 1 for x in rub["rubber_games"]):
            raise HistoryError("rubber_games: a side with two games has won the rubber",
                               rule="V6.3")
        expect = expect_table(data, EXPECT_KEYS)
        return cls(params, masks, list(data["actions"]), rub["rubber_below"],
                   rub["rubber_games"], rub["rubber_total"], dict(expect))

    @classmethod
    def load(cls, path: str | os.PathLike) -> VintHistory:
        """Read a TOML history. Raises HistoryError (also for unreadable TOML)."""
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except OSError as e:
            raise HistoryError(f"cannot read: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise HistoryError(f"not UTF-8 text (byte {e.start})") from None
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError, RecursionError) as e:
            raise HistoryError(f"malformed TOML: {e}") from None
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"game": "vint", "dealer": self.params.dealer}
        d.update(self.params.knobs())
        d["hands"] = [hand_str(h) for h in self.hands]
        d["actions"] = list(self.actions)
        if (self.rubber_below, self.rubber_games, self.rubber_total) != ([0, 0],) * 3:
            d["rubber_below"] = list(self.rubber_below)
            d["rubber_games"] = list(self.rubber_games)
            d["rubber_total"] = list(self.rubber_total)
        if self.expect:
            d["expect"] = dict(self.expect)
        return d

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically."""
        write_atomic(Path(path), tomli_w.dumps(self.to_dict()).encode())


_ACTOR = re.compile(r"^p([0-3]) (.+)$")


def replay(hh: VintHistory) -> VintState:
    """Replay through the kernel; return the final state.

    Raises:
        HistoryError: at the first malformed, out-of-turn or illegal action (index,
            text, rule), or when the deal is not over after the last action.
    """
    state = VintState(hh.params)
    state.deal(hh.hands)
    for i, text in enumerate(hh.actions):
        if state.is_terminal():
            raise HistoryError(f"action {i} {text!r}: the deal is already over "
                               f"({state.end().replace('_', ' ')})", i, text, "V3.7"
                               if state.end() == "thrown_in" else "V4.4")
        m = _ACTOR.match(text.strip())
        if not m:
            raise HistoryError(f"action {i} {text!r}: expected 'pS pass|bid 2D|play QH' with "
                               "S a seat 0-3", i, text, "V9.1")
        seat = int(m.group(1))
        if m.group(2).split()[0].lower() in ("double", "redouble", "kontra", "rekontra"):
            raise HistoryError(f"action {i} {text!r}: Vint has no double or redouble", i, text,
                               "V3.6")
        try:
            action = parse_action(m.group(2))
        except ValueError as e:
            raise HistoryError(f"action {i} {text!r}: {e}", i, text, "V9.1") from None
        if seat != state.current_player():
            if state.contract() is None:
                rule = "V3.1"
            elif sum(state.tricks()) == 0 and not state.current_trick():
                rule = "V4.1"
            else:
                rule = "V4.4"
            raise HistoryError(f"action {i} {text!r}: it is seat {state.current_player()}'s "
                               f"turn, not seat {seat}'s", i, text, rule)
        try:
            state.apply(action)
        except VintRuleError as e:
            raise HistoryError(f"action {i} {text!r}: {e}", i, text, e.rule) from None
    if not state.is_terminal():
        if state.contract() is None:
            why, rule = "the auction has not ended (twelve passes after the last bid)", "V3.4"
        else:
            why, rule = f"{state.tricks()[0] + state.tricks()[1]} of 13 tricks played", "V4.4"
        raise HistoryError(f"the history ends after {len(hh.actions)} actions but the deal is "
                           f"not over: {why}", len(hh.actions), None, rule)
    return state


def result_dict(hh: VintHistory, state: VintState) -> dict[str, Any]:
    """The replay summary of a finished deal (the ``vitou-ai replay --json`` record)."""
    from .game import bid_str

    rub = Rubber(below=list(hh.rubber_below), games=list(hh.rubber_games),
                 total=list(hh.rubber_total), scoring=hh.params.scoring)
    rec = rub.add_deal(state)
    c = state.contract()
    sc = state.score_dict()
    out: dict[str, Any] = {"game": "vint", "end": state.end()}
    if c is not None:
        level, denom, decl = c
        out.update(contract=bid_str((level - 1) * 5 + denom), declarer=decl,
                   tricks=list(state.tricks()))
    out.update(sc)
    out["difference"] = state.difference()
    out["game_winner"] = "none" if rec.game_winner is None else rec.game_winner
    out["game_trick"] = 0 if rec.game_trick is None else rec.game_trick
    out["game_bonus"] = rec.game_bonus
    out["rubber_winner"] = "none" if rec.rubber_winner is None else rec.rubber_winner
    out["games"] = list(rub.games)
    out["written"] = list(rec.written)
    out["below_line"] = list(rub.below)
    out["settlement"] = rub.settlement() if rub.over else "none"
    return out


def record(params: VintParams, hands: list[int], actions: list[int]) -> VintHistory:
    """A history from kernel action ids applied after dealing ``hands``."""
    state = VintState(params)
    state.deal(hands)
    texts = []
    for a in actions:
        texts.append(f"p{state.current_player()} {action_str(a)}")
        state.apply(a)
    return VintHistory(params, list(hands), texts)


def summary_line(result: dict[str, Any]) -> str:
    """One line for ``vitou-ai replay`` without ``--json``."""
    if result["end"] != "played":
        return "thrown in (no bid)"
    return (f"contract {result['contract']} by seat {result['declarer']}, tricks "
            f"{result['tricks'][0]}-{result['tricks'][1]}, below {result['below']}, above "
            f"{result['above']}, difference {result['difference']:+d}")


def replay_file(path: str | os.PathLike) -> dict[str, Any]:
    """Load, replay and check one file: the record for ``vitou-ai replay``.
    Raises HistoryError."""
    hh = VintHistory.load(path)
    res = result_dict(hh, replay(hh))
    diffs = check_expect(hh, res)  # type: ignore[arg-type]
    if diffs:
        res["mismatch"] = diffs
    return res


def replay_for_cli(path: str | os.PathLike, as_json: bool, out, err) -> int:
    """Replay one Vint file for ``vitou-ai replay``: print one line (or a JSON object)
    and return the exit code (0 ok, 1 ``[expect]`` mismatch, 2 error)."""
    import json

    rec: dict[str, Any] = {"file": str(path)}
    try:
        rec.update(replay_file(path))
    except HistoryError as e:
        rec["error"] = e.as_dict()
    if as_json:
        print(json.dumps(rec), file=out, flush=True)
    elif "error" in rec:
        e = rec["error"]
        where = f" [action {e['index']}, {e['rule']}]" if e["index"] is not None else (
            f" [{e['rule']}]" if e["rule"] else "")
        out.flush()
        print(f"{path}: error{where}: {e['message']}", file=err, flush=True)
    else:
        status = "MISMATCH " + "; ".join(rec["mismatch"]) if "mismatch" in rec else "ok"
        print(f"{path}: vint {summary_line(rec)}: {status}", file=out, flush=True)
    return 2 if "error" in rec else 1 if "mismatch" in rec else 0
