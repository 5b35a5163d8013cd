"""``vitou-ai play --game vint`` and ``vitou-ai tournament --game vint``.

The main command line (:mod:`vitou_ai.commands.cli`) hands any ``play`` or ``tournament``
command with ``--game vint`` to :func:`main` here.

- ``play``: a rubber in the terminal against bots (you are seat 0, partner seat 2).
  Type ``pass``, a bid (``2D``, ``3NT``) or a card (``QH``, ``10S``); ``hand``,
  ``help``, ``quit``. An illegal call or card is refused with the rule it breaks.
- ``tournament``: duplicate rubbers between bots (:mod:`vitou_ai.vint.tournament`),
  a table with intervals, and ``--out`` a JSON file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import TextIO

from ..vint import layout as L
from ..vint.bots import BOT_NAMES, View, make_bot
from ..vint.game import (
    VintParams,
    VintRuleError,
    action_str,
    bid_str,
    card_str,
    hand_str,
    parse_bid,
    parse_card,
)
from ..vint.rubber import Rubber
from ..vint.table import deal_hands


def names_vint(argv: list[str]) -> bool:
    """True when ``argv`` has ``--game vint`` or ``--game=vint``."""
    return any(a == "--game=vint" or (a == "--game" and i + 1 < len(argv) and argv[i + 1] == "vint")
               for i, a in enumerate(argv))


def wants_vint(argv: list[str]) -> bool:
    """True for ``play ... --game vint`` / ``tournament ... --game=vint``."""
    return bool(argv) and argv[0] in ("play", "tournament") and names_vint(argv)


#: the commands that do not take Vint, and the tool of the games x tools matrix each is
VINT_REFUSED = {"train": "flat_tree", "simulate": "play", "match-equity": "match_equity",
                "demo": "play", "replay": None, "explore": "explore"}


def refuse_game(argv: list[str]) -> str | None:
    """The one-line refusal of ``play|tournament --game X`` with X not ``vint`` (argparse
    said "unrecognized arguments: --game vitou"), or ``None``."""
    if not argv or argv[0] not in ("play", "tournament"):
        return None
    for k, a in enumerate(argv):
        if a == "--game" or a.startswith("--game="):
            value = a.partition("=")[2] if "=" in a else (
                argv[k + 1] if k + 1 < len(argv) else None)
            if value != "vint":
                return (f"vitou-ai {argv[0]}: --game takes only 'vint'"
                        + (f", not {value!r}" if value is not None else "")
                        + " (Vitou and its family are the default: leave --game out and "
                        "choose the game with --profile)")
    return None


def refuse_vint(argv: list[str]) -> str | None:
    """The one-line refusal of ``vitou-ai COMMAND --game vint`` for a command without
    Vint (:mod:`vitou_ai.capabilities`), or ``None``."""
    if not argv or argv[0] not in VINT_REFUSED or not names_vint(argv):
        return None
    if argv[0] == "replay":
        return "vitou-ai replay: no --game option: a Vint history says game = \"vint\" itself"
    if argv[0] == "explore":
        from ..explore.model import VINT_NOT_COVERED

        return f"vitou-ai explore: {VINT_NOT_COVERED}"
    if argv[0] in ("simulate", "demo"):
        return (f"vitou-ai {argv[0]}: Vint is not simulated by this command (Vint's kernel is "
                "vitou_ai.vint): use vitou-ai tournament --game vint")
    from ..capabilities import VINT_REASON

    return f"vitou-ai {argv[0]}: {VINT_REASON}"


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The Vint commands' parser; ``command`` names the top parser (its errors, e.g.
    unrecognized arguments, say ``vitou-ai tournament --game vint``, a real command)."""
    from .console import SEED_RANGE, ArgumentParser, HelpFormatter

    ap = ArgumentParser(prog=f"vitou-ai {command} --game vint" if command else "vitou-ai",
                        description="Vint (docs/RULES_vint.md)", formatter_class=HelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("play", "tournament"):
        p = sub.add_parser(name, prog=f"vitou-ai {name} --game vint",
                           formatter_class=HelpFormatter, description=(
            "play a rubber of Vint in the terminal against bots" if name == "play" else
            "duplicate rubbers between Vint bots") + " (docs/RULES_vint.md).")
        p.add_argument("--game", choices=["vint"], required=True,
                       help="the game: Vint (without it, Vitou; no default)")
        p.add_argument("--seed", type=int, default=0, help=f"random seed, {SEED_RANGE}")
        p.add_argument("--scoring", choices=["moscow", "foster"], default="moscow",
                       help="scoring table")
        p.add_argument("--short-auction", action="store_true", help="V8.1")
        p.add_argument("--worlds", type=int, default=8, help="search bot: sampled deals")
        if name == "play":
            p.add_argument("--partner", choices=BOT_NAMES, default="heuristic",
                           help="your partner's bot")
            p.add_argument("--opponents", choices=BOT_NAMES, default="heuristic",
                           help="the opponents' bot")
            p.add_argument("--rubbers", type=int, default=1, help="rubbers to play")
            p.add_argument("--save", metavar="DIR",
                           help="write each deal as a hand history (replay with vitou-ai "
                           "replay; default: not saved)")
        else:
            p.add_argument("--bots", nargs="+", default=list(BOT_NAMES), metavar="BOT",
                           help="bots, space-separated (or the comma form a,b): "
                           + ", ".join(BOT_NAMES))
            p.add_argument("--pairs", type=int, default=20,
                           help="duplicate rubber pairs (at least 2: the interval needs them)")
            p.add_argument("--out", help="write the results as JSON here, a new file (default: "
                           "not written)")
            p.add_argument("--force", action="store_true",
                           help="replace an existing --out file")
    return ap


def _bad_option(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, or ``None`` (argparse checks types, not ranges)."""
    from .console import seed_error

    if seed_error(args.seed):
        return seed_error(args.seed)
    if args.worlds < 1:
        return f"--worlds must be at least 1, got {args.worlds}"
    if args.command == "play" and args.rubbers < 1:
        return f"--rubbers must be at least 1, got {args.rubbers}"
    if args.command == "play" and args.save:  # before the game: not at the end of a deal
        from .console import check_writable

        try:
            check_writable(args.save, "folder", "--save")
        except OSError as e:
            return str(e)
        earlier = sorted(Path(args.save).glob("rubber*_deal*.toml"))
        if earlier:
            return (f"--save {args.save}: holds saved deals already ({earlier[0].name}...), "
                    "which this game would overwrite: choose another folder")
    if args.command == "tournament":
        args.bots = [b for arg in args.bots for b in arg.split(",") if b]
        unknown = [b for b in args.bots if b not in BOT_NAMES]
        if unknown:
            return f"--bots: unknown bot {unknown[0]!r} (choose from {', '.join(BOT_NAMES)})"
        if len(set(args.bots)) < 2:
            return "--bots needs at least two different bots"
        if args.pairs < 2:
            return (f"--pairs must be at least 2 (a 95% interval needs two duplicate pairs), "
                    f"got {args.pairs}")
        if args.out:
            from .console import check_writable

            try:
                check_writable(args.out, "file")
            except OSError as e:
                return str(e)
            if Path(args.out).exists() and not args.force:
                return (f"--out {args.out}: exists (an earlier tournament would be "
                        "overwritten): choose a new file, or pass --force")
    return None


def main(argv: list[str], inp: TextIO | None = None, out: TextIO | None = None) -> int:
    # parse_args (not parse_known_args): its errors are one line, naming the real command
    try:
        args = _parser(argv[0] if argv and argv[0] in ("play", "tournament") else None
                       ).parse_args(argv)
    except SystemExit as e:  # a refusal, already printed in one line: the return code
        if e.code == 0:  # --help, as every other command's
            raise
        return e.code if isinstance(e.code, int) else 2
    bad = _bad_option(args)
    if bad:
        print(f"vitou-ai {args.command} --game vint: error: {bad}", file=sys.stderr)
        return 2
    params = VintParams(scoring=args.scoring, short_auction=args.short_auction)
    if args.command == "tournament":
        return tournament(args, params, out or sys.stdout)
    return Session(args, params, inp or sys.stdin, out or sys.stdout).run()


def tournament(args, params: VintParams, out: TextIO) -> int:
    from ..io import write_atomic
    from ..vint.game import RULES_VERSION
    from ..vint.tournament import round_robin, table_markdown

    t = time.perf_counter()
    res = round_robin(list(dict.fromkeys(args.bots)), args.pairs, args.seed, params,
                      args.worlds, progress=lambda r: print(
                          f"{r.a} v {r.b}: {r.as_dict()['points_per_rubber']:+,.0f} per rubber",
                          file=out, flush=True))
    print(table_markdown(res), file=out)
    if args.out:
        doc = {"rules_version": RULES_VERSION, "command": "vitou-ai " + " ".join(sys.argv[1:]),
               "params": params.knobs(), "seed": args.seed, "pairs": args.pairs,
               "seconds": time.perf_counter() - t, "results": [r.as_dict() for r in res]}
        try:
            write_atomic(Path(args.out), (json.dumps(doc, indent=2) + "\n").encode())
        except OSError as e:  # the folder changed during the run
            print(f"vitou-ai tournament --game vint: error: cannot write {args.out}: {e}",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.out}", file=out)
    return 0


NAMES = ("You", "Left", "Partner", "Right")


class Session:
    """A rubber in the terminal: the human is seat 0."""

    def __init__(self, args, params: VintParams, inp: TextIO, out: TextIO):
        self.params, self.inp, self.out = params, inp, out
        self.rubbers = args.rubbers
        self.save = Path(args.save) if args.save else None
        self.rng = random.Random(args.seed)
        partner, opp = make_bot(args.partner, args.worlds), make_bot(args.opponents, args.worlds)
        self.bots = [None, opp, partner, opp]

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, view: View) -> int | None:
        while True:
            self.out.write("> ")
            self.out.flush()
            line = self.inp.readline()
            if not line:
                return None
            text = line.strip()
            if text in ("quit", "q"):
                return None
            if text in ("hand", "h"):
                self.say("your hand: " + hand_str(view.hand))
                continue
            if text in ("help", "?"):
                self.say("type pass, a bid like 2D or 3NT, or a card like QH; hand; quit")
                continue
            try:
                a = self.parse(text, view)
                probe = view.state.clone()
                probe.apply(a)
                return a
            except VintRuleError as e:
                self.say(f"refused ({e.rule}): {e}")
            except ValueError as e:
                self.say(f"not understood: {e}")

    @staticmethod
    def parse(text: str, view: View) -> int:
        words = text.split()
        if words and words[0] in ("bid", "play"):
            words = words[1:]
        if len(words) != 1:
            raise ValueError(f"{text!r}: one call or card")
        w = words[0]
        if w.lower() in ("double", "redouble", "x", "xx"):
            raise VintRuleError("Vint has no double or redouble", "V3.6")
        if w.lower() in ("pass", "p"):
            return L.PASS
        bid = card = None
        try:
            bid = L.BID0 + parse_bid(w)
        except ValueError:
            pass
        try:
            card = parse_card(w)
        except ValueError:
            pass
        if bid is None and card is None:
            raise ValueError(f"{w!r} is neither a card nor a bid: expected pass, bid LEVEL+DENOM "
                             "(level 1-7, denomination S C D H NT: 2D, 3NT) or play CARD "
                             "(rank A K Q J T 9 .. 2, suit S C D H: QH, 10S)")
        if view.state.contract() is None:
            if bid is None:
                raise VintRuleError("the auction has not ended: pass or bid", "V3.4")
            return bid
        if card is None:
            raise VintRuleError("the auction has ended: play a card", "V3.7")
        return card

    def save_deal(self, p: VintParams, state, calls, plays, r: int, k: int) -> None:
        from ..vint.history import record

        # every call precedes every card (V3.7), so calls + plays is the order of play
        hh = record(p, [state.dealt(s) for s in range(4)], [a for _, a in calls + plays])
        path = self.save / f"rubber{r + 1}_deal{k + 1}.toml"
        hh.save(path)
        self.say(f"saved {path}")

    def run(self) -> int:
        from ..vint.game import VintState

        self.say("Vint (docs/RULES_vint.md): you are seat 0 with your partner opposite (seat 2).")
        for r in range(self.rubbers):
            rub = Rubber(scoring=self.params.scoring)
            k = 0
            while not rub.over:
                dealer = k % 4
                p = VintParams(dealer=dealer, short_auction=self.params.short_auction,
                               scoring=self.params.scoring)
                state = VintState(p)
                state.deal(deal_hands(self.rng, dealer))
                calls, plays = [], []
                self.say(f"\n-- rubber {r + 1}, deal {k + 1}: {NAMES[dealer]} deals; games "
                         f"{rub.games[0]}-{rub.games[1]}, below {rub.below[0]}-{rub.below[1]}")
                self.say("your hand: " + hand_str(state.hand(0)))
                while not state.is_terminal():
                    seat = state.current_player()
                    view = View(seat, state, calls, plays)
                    if seat == 0:
                        a = self.ask(view)
                        if a is None:
                            self.say("bye")
                            return 0
                    else:
                        a = self.bots[seat].act(view, self.rng)
                    before = state.contract()
                    state.apply(a)
                    (calls if a >= 52 else plays).append((seat, a))
                    self.say(f"{NAMES[seat]}: {action_str(a)}")
                    if before is None and state.contract() is not None:
                        lv, d, decl = state.contract()
                        self.say(f"contract {bid_str((lv - 1) * 5 + d)} by {NAMES[decl]}; "
                                 f"{NAMES[(decl + 1) % 4]} leads. Your hand: "
                                 f"{hand_str(state.hand(0))}")
                    if a < 52 and not state.current_trick():
                        w = state.trick_winners()[-1]
                        self.say(f"   trick to {NAMES[w]} ({card_str(a)} last); tricks "
                                 f"{state.tricks()[0]}-{state.tricks()[1]}")
                if self.save is not None:
                    self.save_deal(p, state, calls, plays, r, k)
                rec = rub.add_deal(state)
                if state.end() == "thrown_in":
                    self.say("all passed: thrown in")
                else:
                    sc = state.score_dict()
                    self.say(f"below {sc['below']}, above {sc['above']} (honours "
                             f"{sc['honours']}, aces {sc['aces']}, undertricks "
                             f"{sc['undertricks']}, slam {sc['slam']})")
                    if rec.game_winner is not None:
                        self.say(f"game to {'you' if rec.game_winner == 0 else 'them'} at "
                                 f"trick {rec.game_trick} (+{rec.game_bonus})")
                k += 1
            x = rub.settlement()
            self.say(f"\nrubber to {'you' if rub.winner == 0 else 'them'}; totals "
                     f"{rub.total[0]} v {rub.total[1]}: you {'win' if x >= 0 else 'lose'} "
                     f"{abs(x)} (V6.4)")
        return 0
