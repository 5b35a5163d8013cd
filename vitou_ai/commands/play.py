"""Play a match of Vitou in the terminal against bots (or, with ``--deal``, one deal).

The person sits at one seat; in four-player profiles the partner opposite
and both opponents are bots (``--partner``, ``--opponents``), in ``vitou_2p``
the opponent is one bot. Before each of the person's decisions the screen
shows the table as that player knows it: their cards (and the partner's when
R6.1 shares them), the cards of the current trick, the tricks so far, the
stake and who raised, the gestures they saw (R7.2), the score; then the
legal actions, numbered. An answer is a number, an action string as in the
hand histories (``play T``, ``raise``, ``refuse``, ``go``, ``signal ten``...)
or a rank letter alone (``T``, ``9``, ``A``... for ``play``). Bad input is
explained and asked again; ``quit``, end of input and Ctrl-C leave cleanly.

Every rule is the kernel's, through the checked :class:`vitou_ai.rules.Game`;
bots play through :func:`vitou_ai.bots.policy.choose_action`. Input and
output streams are parameters, so the whole loop is testable.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

import numpy as np

from ..bots.named import parse_bot
from ..bots.policy import Policy, choose_action, pack_policies, scratch
from ..rng import row_seed
from ..rules import Game, VitouParams
from ..rules import layout as L
from ..sim.random_play import sample_chance

EXIT_OK, EXIT_INTERRUPTED = 0, 130
RESULT_NAMES = {0: "team 0", 1: "team 1", 2: "void"}
HELP = """Answer with the number of an action, or the action itself:
  play T | T      play a card (rank letters T 9 A K Q J 8 7, T is the ten)
  raise           raise the stake one step (or re-raise an opponent's raise)
  refuse          refuse a raise: the raisers score the stake before it
  accept          (two players) accept a raise; with four players, accept by playing a card
  go | decline | pass          one-from-the-end decisions (R6)
  signal none|ten|nine|ace|nohigh   a gesture to your partner (R7)
  abandon | agree | reject     two players: abandon the deal before the first card
  help            this text
  quit            leave the match"""


#: The games' names, for the match header (docs/RULES_family.md's section titles).
GAME_NAMES = {"truc_catalan": "Catalan Truc", "truc_catalan_2p": "Catalan Truc",
              "truc_1912": "French Truc of 1912", "trut": "Trut", "put": "Put",
              "put_partnership": "Partnership Put"}


def help_text(params: VitouParams) -> str:
    """:data:`HELP` for Vitou; for a family profile (docs/RULES_family.md), the help with
    the game's own rank labels and verbs (its raise names, concede, rest, ...)."""
    if not params.family:
        return HELP
    from ..rules.game import FAMILY_VERBS, RAISE_NAMES

    labels = params.rank_labels
    named = [w for w in params.ladder_labels if w in RAISE_NAMES]
    return "\n".join([
        "Answer with the number of an action, or the action itself:",
        f"  play R | R      play a card (R in {' '.join(labels)})",
        "  raise" + "".join(f" | {w}" for w in named)
        + "   raise the stake one step (or re-raise an opponent's raise)",
        "  accept | refuse  answer a raise",
        *(["  discard R       lay a card away, face down (P6.3)"] if params.partnership else []),
        f"  {' | '.join(FAMILY_VERBS)}   the game's other decisions, where offered "
        "(docs/RULES_family.md)",
        "  help            this text",
        "  quit            leave the match"])


class _Quit(Exception):
    """The person left (quit, end of input)."""


class TerminalMatch:
    """A match between a person at ``human_seat`` and bots (see :func:`play_match`)."""

    def __init__(self, params: VitouParams, human_seat: int, bots: dict[int, Policy], seed: int,
                 inp: TextIO, out: TextIO):
        self.game = Game(params)
        self.params = params
        self.n = params.players
        self.labels = params.rank_labels
        self.human = human_seat
        self.bots = bots
        self.inp = inp
        self.out = out
        unique: list[Policy] = []
        for p in bots.values():
            if all(p is not q for q in unique) and getattr(p, "kind", None) != "search":
                unique.append(p)
        self.pack = pack_policies(unique or [bots[next(iter(bots))].blueprint], params.signals)
        self.pidx = {s: next((k for k, q in enumerate(unique) if q is p), -1)
                     for s, p in bots.items()}
        # search bots (vitou_ai.search) re-solve the deal: its start and actions so far
        self.deal_start: np.ndarray | None = None
        self.deal_actions: list[int] = []
        self.search_rng = np.random.default_rng(seed)
        self.legal, self.keybuf, self.iwork, self.rng_bots = scratch()
        self.rng_chance = np.zeros(1, np.uint64)
        self.rng_bots[0] = row_seed(np.uint64(seed), np.uint64(1))
        self.rng_chance[0] = row_seed(np.uint64(seed), np.uint64(2))
        self.probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
        self.state = self.game.new_initial_state()

    # ---- names --------------------------------------------------------------------------
    def team_of(self, seat: int) -> int:
        return seat % 2

    def who(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        role = "partner" if self.team_of(seat) == self.team_of(self.human) else "opponent"
        return f"seat {seat} ({role}, {self.bots[seat].name})"

    def team_name(self, team: int) -> str:
        return "your team" if team == self.team_of(self.human) else "the other team"

    def action_name(self, action: int) -> str:
        """An action as the hand histories write it: a raise by the game's name for the
        step it raises to (``truc``, ``retruc``, ``trut``, ``put``; else ``raise``)."""
        from ..rules.history import action_name

        return action_name(self.state, action)

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    # ---- the view -----------------------------------------------------------------------
    def render(self) -> str:
        """The table as the person knows it (nothing hidden from them is shown)."""
        a = self.state.array
        p = self.params
        me = self.team_of(self.human)
        s0, s1 = self.state.scores()
        ours, theirs = (s0, s1) if me == 0 else (s1, s0)
        lines = []
        stake = p.ladder_labels[int(a[L.S_STAKE])]
        raised = int(a[L.S_LASTRAISE])
        raise_txt = "" if raised < 0 else f", last raised by {self.team_name(raised)}"
        lines.append(f"Score: you {ours} - them {theirs} (target {p.target}).  "
                     f"Dealer: {self.who(int(a[L.S_DEALER]))}.  Stake {stake}{raise_txt}.")
        if a[L.S_R6MODE] == 1:
            lines.append(f"One from the end (R6): {self.team_name(int(a[L.S_R6TEAM]))} is at "
                         f"{p.target - 1}; no raises this deal.")
        elif a[L.S_R6MODE] == 2:
            lines.append("Both teams one from the end (R6.2): no raises, no signals.")
        nt = int(a[L.S_NTRICKS])
        if nt:
            res = []
            for t in range(nt):
                r = int(a[L.S_TRES + t])
                res.append(f"{t + 1}: {'void' if r == L.RES_VOID else self.team_name(r)}")
            lines.append("Tricks: " + ", ".join(res))
        npl = int(a[L.S_NPLAYED])
        if npl:
            leader = int(a[L.S_LEADER])
            cards = [f"{self.who((leader + k) % self.n)} {self.labels[int(a[L.S_TRICK + k])]}"
                     for k in range(npl)]
            lines.append("This trick: " + ", ".join(cards))
        elif a[L.S_PHASE] == L.PH_PLAY:
            lines.append(f"Trick {nt + 1}: {self.who(int(a[L.S_LEADER]))} to lead.")
        if self.params.signals:
            seen = []
            for s in range(self.n):
                g = int(a[L.S_GEST + s])
                if s == self.human or g < 0:
                    continue
                if self.team_of(s) == me or a[L.S_SEEN + self.human * L.MAX_PLAYERS + s]:
                    seen.append(f"{self.who(s)}: {L.GESTURES[g]}")
            if seen:
                lines.append("Gestures seen: " + "; ".join(seen))
        hand = self.state.hand(self.human)
        if a[L.S_NDEALT] < self.n * p.hand_size:
            lines.append("Your cards: not dealt yet.")
        else:
            lines.append("Your cards: " + (" ".join(self.labels[r] for r in hand) or "none left"))
        partner = (self.human + 2) % self.n
        if self.n == 4 and a[L.S_SHARED] and int(a[L.S_R6TEAM]) == me:
            ph = self.state.hand(partner)
            lines.append("Partner's cards (shown, R6.1): "
                         + (" ".join(self.labels[r] for r in ph) or "none left"))
        if self.n == 4 and a[L.S_ANSWER_SEAT] == self.human:
            lines.append("A raise waits for your answer: play a card to accept, "
                         + ("raise to re-raise, " if self.state.legal_actions().count(L.A_RAISE)
                            else "") + "or refuse.")
        if a[L.S_PHASE] == L.PH_ANSWER:  # the answers offered (a top raise has no re-raise)
            names = [self.action_name(x) for x in self.state.legal_actions()]
            lines.append("A raise waits for your answer: "
                         + (", ".join(names[:-1]) + " or " if len(names) > 1 else "")
                         + names[-1] + ".")
        if a[L.S_PHASE] == L.PH_ABANDON:
            lines.append("Your opponent wants to abandon the deal: agree or reject.")
        return "\n".join(lines)

    # ---- input ------------------------------------------------------------------------------
    def ask(self, legal: list[int]) -> int:
        """Read the person's action; re-ask until it is legal."""
        names = [self.game.action_string(x) for x in legal]
        menu = "  ".join(f"{i + 1}) {s}" for i, s in enumerate(names))
        while True:
            self.say("Your options: " + menu)
            print("Your choice (number or action; help, quit): ", end="", file=self.out)
            self.out.flush()
            line = self.inp.readline()
            if line == "":
                raise _Quit("end of input")
            text = line.strip()
            if not text:
                continue
            low = text.lower()
            if low in ("quit", "exit"):  # not "q": that is the queen
                raise _Quit("quit")
            if low in ("h", "help", "?"):
                self.say(help_text(self.params))
                continue
            action, why = self.parse(text, legal)
            if action is not None:
                return action
            self.say(why)

    def parse(self, text: str, legal: list[int]) -> tuple[int | None, str]:
        """An action from a number, an action string or a rank letter; or why not."""
        if text.isascii() and (text.isdigit() or (text[0] in "+-" and text[1:].isdigit())):
            k = int(text)
            if 1 <= k <= len(legal):
                return legal[k - 1], ""
            return None, f"{text!r}: choose a number from 1 to {len(legal)}."
        words = text.split()
        if len(words) == 1 and words[0].upper() in self.labels:
            words = ["play", words[0]]
        if len(words) == 2 and words[0].lower() == "play":
            words = ["play", words[1].upper()]
        else:
            words = [w.lower() for w in words]
        if words and words[0] == "accept" and self.n == 4:
            return None, "With four players you accept a raise by playing a card."
        try:
            action = self.game.string_action(" ".join(words))
        except ValueError:
            return None, f"{text!r} is not an action; type 'help' for the list."
        if action not in legal:
            return None, f"{text!r} is not allowed now."
        return action, ""

    # ---- the loop -----------------------------------------------------------------------
    def step(self) -> None:
        st = self.state
        a = st.array
        deals_before = int(a[L.S_DEALS])
        tricks_before = int(a[L.S_NTRICKS])
        if st.is_chance_node():
            phase = int(a[L.S_PHASE])
            seen_before = a[L.S_SEEN + self.human * L.MAX_PLAYERS:
                            (self.human + 1) * L.MAX_PLAYERS + L.S_SEEN].copy()
            x = int(sample_chance(self.game.array, a, self.rng_chance, self.legal, self.probs))
            st.apply_action(x)
            if phase == L.PH_DEAL and a[L.S_PHASE] != L.PH_DEAL:
                self.deal_start, self.deal_actions = a.copy(), []
            if phase == L.PH_DRAW_DEALER:
                self.say(f"First dealer drawn: {self.who(x - L.C_DEALER0)}.")
            if phase == L.PH_DEAL and a[L.S_PHASE] != L.PH_DEAL:
                self.say(f"\n=== Deal {int(a[L.S_DEALS]) + 1}: {self.who(int(a[L.S_DEALER]))} "
                         f"dealt. Your cards: "
                         + " ".join(self.labels[r] for r in st.hand(self.human)))
            seen_after = a[L.S_SEEN + self.human * L.MAX_PLAYERS:
                           (self.human + 1) * L.MAX_PLAYERS + L.S_SEEN]
            for s in np.flatnonzero(seen_after != seen_before):
                self.say(f"You caught a gesture of {self.who(int(s))}: "
                         f"{L.GESTURES[int(a[L.S_GEST + s])]}.")
        else:
            seat = st.current_player()
            legal = st.legal_actions()
            if seat == self.human:
                self.say("")
                self.say(self.render())
                x = self.ask(legal)
                self.say(f"You: {self.action_name(x)}")
            elif getattr(self.bots[seat], "kind", None) == "search":
                x = self.search_action(seat)
            else:
                for i, v in enumerate(legal):
                    self.legal[i] = v
                x = int(choose_action(self.pack, self.pidx[seat], self.game.array, a, seat,
                                      self.rng_bots, self.legal, len(legal), self.keybuf,
                                      self.iwork))
                if L.A_SIGNAL0 <= x < L.A_SIGNAL0 + len(L.GESTURES):
                    if self.team_of(seat) == self.team_of(self.human):
                        self.say(f"Your partner gestures: {L.GESTURES[x - L.A_SIGNAL0]}.")
                elif L.A_DISCARD0 <= x < L.NUM_ACTIONS_PARTNERSHIP:
                    # partnership Put P6.3: laid away face down, not shown
                    self.say(f"{self.who(seat)}: lays a card away")
                else:
                    self.say(f"{self.who(seat)}: {self.action_name(x)}")
            st.apply_action(x)
            if self.deal_start is not None:
                self.deal_actions.append(x)
        if int(a[L.S_DEALS]) != deals_before or st.is_terminal():
            self.deal_start, self.deal_actions = None, []
            self.report_deal()
        elif int(a[L.S_NTRICKS]) > tricks_before:
            r = int(a[L.S_TRES + tricks_before])
            won = "void (tied top cards)" if r == L.RES_VOID else f"won by {self.team_name(r)}"
            self.say(f"Trick {tricks_before + 1} {won}.")

    def search_action(self, seat: int) -> int:
        """A search bot's action: it re-solves this deal as one deal (deal mode at the
        current scores, R8.1: it plays for points, not for the match) from its start."""
        a = self.state.array
        deal = self.params.replace(mode="deal", dealer=int(a[L.S_DEALER]),
                                   scores=(int(a[L.S_SCORE0]), int(a[L.S_SCORE1])))
        start = self.deal_start if self.deal_start is not None else a.copy()
        return int(self.bots[seat].act(deal, start, self.deal_actions, a.copy(),
                                       self.search_rng))

    def report_deal(self) -> None:
        d = self.state.last_deal()
        if d is None:
            return
        s0, s1 = self.state.scores()
        me = self.team_of(self.human)
        ours, theirs = (s0, s1) if me == 0 else (s1, s0)
        if d.winner is None:
            what = "nobody scores"
        else:
            what = f"{self.team_name(d.winner)} scores {d.points[d.winner]}"
        if self.params.mode == "deal":  # one deal (R8.1): no match score moves, only points
            ours, theirs = (d.points[0], d.points[1]) if me == 0 else (d.points[1], d.points[0])
            tally = f"Points this deal: you {ours} - them {theirs}."
        else:
            tally = f"Score: you {ours} - them {theirs}."
        self.say(f"--- Deal over ({d.end.replace('_', ' ')}, stake {d.stake}): {what}. {tally}")

    def run(self) -> int:
        """Play to the end of the match; return the exit code (0; 130 on Ctrl-C)."""
        p = self.params
        others = ", ".join(f"{self.who(s)}" for s in sorted(self.bots))
        what = f"a match to {p.target}" if p.mode == "match" else "one deal (R8.1)"
        self.say(f"{GAME_NAMES.get(p.profile, 'Vitou')} ({p.profile}), {what}. You are seat {self.human}, "
                 f"team {self.team_of(self.human)}; with {others}. Type 'help' for help.")
        try:
            while not self.state.is_terminal():
                self.step()
        except _Quit as e:
            self.say(f"\nLeaving the match ({e}).")
            return EXIT_OK
        except KeyboardInterrupt:
            self.say("\nInterrupted: leaving the match.")
            return EXIT_INTERRUPTED
        except BrokenPipeError:  # the output was closed (e.g. piped into head)
            return EXIT_OK
        ret = self.state.returns()[self.human]
        s0, s1 = self.state.scores()
        if p.mode == "deal":
            word = "wins" if ret > 0 else ("loses" if ret < 0 else "neither wins nor loses")
            self.say(f"\nYour team {word} the deal ({ret:+g} points).")
            return EXIT_OK
        if ret > 0:
            self.say(f"\nYour team wins the match, {s0} - {s1} (team 0 - team 1).")
        elif ret < 0:
            self.say(f"\nYour team loses the match, {s0} - {s1} (team 0 - team 1).")
        else:
            self.say(f"\nThe match is a draw (deal limit reached), {s0} - {s1}.")
        return EXIT_OK


#: why terminal play refuses Willughby's Put (docs/RULES_family.md P7.6)
WHY_NO_TERMINAL_WILLUGHBY = ("terminal play plays a match; put_willughby is played in deal mode "
                             "only (docs/RULES_family.md P7.6): use vitou-ai simulate or "
                             "vitou-ai tournament")


def play_match(profile: str = "vitou", human_seat: int = 0, partner: str | None = None,
               opponents: str = "counter", seed: int | None = None, signals: bool = False,
               target: int | None = None, inp: TextIO | None = None,
               out: TextIO | None = None, ranks: int | None = None, copies: int = 4,
               hand_size: int = 3, deal: bool = False) -> int:
    """Play a match in the terminal; return the exit code (0 done or left, 130 Ctrl-C).

    Every bot read from a file must have a strategy at every score and dealer the match
    reaches (:func:`vitou_ai.bots.named.check_bot_fits`): a policy trained on single deals
    at one score is refused, naming the command that trains a match policy, or ``deal``.

    Args:
        profile: any kernel profile (:data:`vitou_ai.rules.params.ALL_PROFILES`).
        human_seat: the person's seat.
        partner, opponents: bot specs (:func:`vitou_ai.bots.named.parse_bot`);
            ``partner`` defaults to ``counter`` in four-player profiles and must be
            ``None`` with two players (there is no partner).
        seed: random seed (cards, bots); ``None`` draws one.
        inp, out: text streams (default stdin / stdout).
        deal: play one deal at 0:0 (R8.1, dealer drawn) instead of a match.

    Raises:
        ValueError: bad profile, seat, bot spec or knobs; a partner in a two-player game.
    """
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout
    if profile == "put_willughby":
        raise ValueError(WHY_NO_TERMINAL_WILLUGHBY)
    params = VitouParams(profile=profile, mode="deal" if deal else "match", dealer=-1,
                         signals=signals, target=target, ranks=ranks, copies=copies,
                         hand_size=hand_size)
    if partner is not None and params.players == 2:
        raise ValueError(f"--partner {partner}: {profile} is a two-player game, there is no "
                         "partner (choose the opponent with --opponents)")
    partner = partner or "counter"
    if not 0 <= human_seat < params.players:
        raise ValueError(f"seat must be in 0..{params.players - 1}, got {human_seat}")
    from .console import SEED_MAX, seed_error

    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little") % (SEED_MAX + 1)
    if seed_error(seed):
        raise ValueError(seed_error(seed))
    opp = parse_bot(opponents)
    bots: dict[int, Policy] = {}
    for s in range(params.players):
        if s == human_seat:
            continue
        bots[s] = parse_bot(partner) if s % 2 == human_seat % 2 else opp
    from ..bots.named import check_bot_fits

    for b in bots.values():
        check_bot_fits(b, params, search_ok=True)
    return TerminalMatch(params, human_seat, bots, seed, inp, out).run()


def add_arguments(p) -> None:
    """The options of ``vitou-ai play``."""
    from ..rules.params import ALL_PROFILES

    p.add_argument("--profile", default="vitou", choices=ALL_PROFILES,
                   help="game profile: RULES.md section 9 or docs/RULES_family.md")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 .. players-1")
    p.add_argument("--partner", default=None,
                   help="your partner's bot spec (four-player profiles only; default: counter; "
                   "search:BLUEPRINT[,budget=SECONDS][,safe=auto|maxmargin|resolve|none] searches)")
    p.add_argument("--opponents", default="counter", help="the opponents' bot spec")
    from .console import SEED_RANGE

    p.add_argument("--seed", type=int, default=None,
                   help=f"random seed, {SEED_RANGE} (default: a fresh one)")
    p.add_argument("--signals", action="store_true", help="gestures on (R7; four players)")
    p.add_argument("--target", type=int, default=None,
                   help="match target (default: the profile's, RULES.md section 9)")
    p.add_argument("--ranks", type=int, default=None,
                   help="research variant: top N ranks (default: the whole deck)")
    p.add_argument("--copies", type=int, default=4, help="research variant: copies per rank")
    p.add_argument("--hand-size", type=int, default=3, help="research variant: cards per hand")
    p.add_argument("--deal", action="store_true",
                   help="play one deal at 0:0 (R8.1) instead of a match: for a policy trained "
                   "on single deals (vitou-ai train without --objective match), which has no "
                   "strategy at the other scores of a match")


def play_command(args, inp: TextIO | None = None, out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """``vitou-ai play``: exit code 0 (match over or left), 130 (Ctrl-C), 2 (bad options)."""
    err = err or sys.stderr
    try:
        return play_match(profile=args.profile, human_seat=args.seat, partner=args.partner,
                          opponents=args.opponents, seed=args.seed, signals=args.signals,
                          target=args.target, inp=inp, out=out, ranks=args.ranks,
                          copies=args.copies, hand_size=args.hand_size,
                          deal=getattr(args, "deal", False))
    except (ValueError, OSError) as e:
        print(f"vitou-ai play: error: {e}", file=err)
        return 2
