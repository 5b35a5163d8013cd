"""`vitou-ai play` (vitou_ai.commands.play): a scripted person, garbage included, plays whole
matches; bad input is re-asked, never a crash; end of input and Ctrl-C leave cleanly;
the screen shows the person's own cards and never another player's."""

from __future__ import annotations

import io
import re

import pytest

from vitou_ai.commands.cli import main
from vitou_ai.commands.play import TerminalMatch, play_match
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.rules.params import RANK_LETTERS

GARBAGE = ["", "   ", "foo", "99", "0", "-3", "play Z", "play", "raise raise", "signal wink",
           "accepted", "\x00\x01", "éé", "1.5", "help"]


def script(lines: list[str], then: str, repeat: int = 5000) -> io.StringIO:
    return io.StringIO("\n".join(lines + [then] * repeat) + "\n")


class Interrupting(io.StringIO):
    """A stream that hits Ctrl-C after some lines."""

    def __init__(self, text: str, after: int):
        super().__init__(text)
        self.left = after

    def readline(self, *args):
        if self.left == 0:
            raise KeyboardInterrupt
        self.left -= 1
        return super().readline(*args)


@pytest.mark.parametrize("profile,extra", [("vitou", {"signals": True}), ("vitou_2p", {}),
                                           ("vitou_cason", {})])
def test_scripted_match_with_garbage_runs_to_the_end(profile, extra):
    out = io.StringIO()
    code = play_match(profile=profile, seed=4, target=5, inp=script(GARBAGE, "1"), out=out,
                      **extra)
    text = out.getvalue()
    assert code == 0
    assert re.search(r"Your team (wins|loses) the match", text)
    assert "'foo' is not an action" in text
    assert "choose a number from 1 to" in text
    assert "Answer with the number of an action" in text  # help
    assert "Traceback" not in text
    # every decision showed the menu, and every chosen action was echoed
    chosen = len(re.findall(r"\bYou: ", text))
    assert 0 < chosen < text.count("Your options:")  # re-asked after each bad answer


def test_action_strings_and_rank_letters():
    """Answers as action strings ('play T', 'T', 'raise', 'pass', ...) are taken when
    legal and refused with a reason when not."""
    words = ["raise", "t", "T", "play 9", "pass", "go", "accept", "refuse", "abandon", "reject",
             "agree", "decline", "play a", "K", "q", "J", "8", "7"]
    out = io.StringIO()
    code = play_match(profile="vitou_2p", seed=7, target=4, inp=script(words, "1"), out=out)
    text = out.getvalue()
    assert code == 0 and re.search(r"Your team (wins|loses) the match", text)
    assert "is not allowed now" in text
    echoed = set(re.findall(r"\bYou: (.+)", text))
    assert {"raise", "pass"} & echoed  # some string answers were taken as such


def test_parse_answers():
    from vitou_ai.bots import named_bot

    bot = named_bot("random")
    four = TerminalMatch(VitouParams(mode="match", dealer=-1), 0, {1: bot, 2: bot, 3: bot}, 1,
                         io.StringIO(), io.StringIO())
    legal = [L.A_PLAY0 + 0, L.A_PLAY0 + 4, L.A_RAISE, L.A_REFUSE]
    assert four.parse("2", legal) == (L.A_PLAY0 + 4, "")
    assert four.parse("t", legal)[0] == L.A_PLAY0
    assert four.parse("play q", legal)[0] == L.A_PLAY0 + 4
    assert four.parse("Q", legal)[0] == L.A_PLAY0 + 4
    assert four.parse("REFUSE", legal)[0] == L.A_REFUSE
    for bad, why in (("5", "from 1 to 4"), ("play 9", "not allowed now"),
                     ("accept", "playing a card"), ("go home", "not an action"),
                     ("+0", "from 1 to 4")):
        action, msg = four.parse(bad, legal)
        assert action is None and why in msg, (bad, msg)


def test_end_of_input_and_ctrl_c_leave_cleanly():
    out = io.StringIO()
    assert play_match(seed=1, inp=io.StringIO("1\n2\nfoo\n"), out=out) == 0
    assert "Leaving the match (end of input)" in out.getvalue()
    out = io.StringIO()
    assert play_match(seed=1, inp=io.StringIO("quit\n"), out=out) == 0
    assert "Leaving the match (quit)" in out.getvalue()
    out = io.StringIO()
    assert play_match(seed=1, inp=Interrupting("1\n" * 100, after=7), out=out) == 130
    assert "Interrupted" in out.getvalue()


def test_screen_shows_own_cards_only():
    """At every decision, 'Your cards' is exactly the person's held cards, and no line
    shows another seat's hand (partners' cards only under R6.1, not at these scores)."""
    params = VitouParams(profile="vitou", mode="match", dealer=-1)
    from vitou_ai.bots import named_bot

    bot = named_bot("counter")
    checked = shared_seen = 0
    for seed in range(8):
        m = TerminalMatch(params, 1, {0: bot, 2: bot, 3: bot}, seed, io.StringIO(), io.StringIO())
        while not m.state.is_terminal():
            st = m.state
            if not st.is_chance_node() and st.current_player() == 1:
                screen = m.render()
                line = next(x for x in screen.splitlines() if x.startswith("Your cards"))
                own = " ".join(RANK_LETTERS[r] for r in st.hand(1))
                if st.array[L.S_NDEALT] == 12:
                    assert line == f"Your cards: {own or 'none left'}"
                shared = bool(st.array[L.S_SHARED] and st.array[L.S_R6TEAM] == 1)
                assert ("Partner's cards" in screen) == shared
                shared_seen += shared
                checked += 1
                m.inp = io.StringIO("1\n")
            m.step()
    assert checked > 40


def test_cli_play(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--profile", "vitou_2p", "--seed", "1", "--opponents", "bluffer"]) == 0
    assert "Leaving the match" in capsys.readouterr().out
    assert main(["play", "--seat", "7"]) == 2
    assert main(["play", "--opponents", "nobody"]) == 2
    assert "error" in capsys.readouterr().err


def test_put_games_speak_their_own_words():
    """Found by a new user: partnership Put's header said "Vitou (put_partnership)", the
    answer to a put offered "accept, raise or refuse" (only accept / refuse are legal), a
    bot's put was shown as "raise", and help did not list the offered `discard R`."""
    out = io.StringIO()
    inp = io.StringIO("take\nhelp\n" + "1\n" * 40)
    assert play_match(profile="put_partnership", seed=1, inp=inp, out=out, ranks=3, copies=3,
                      hand_size=2) == 0
    text = out.getvalue()
    assert text.startswith("Partnership Put (put_partnership), a match to 5.")
    assert "A raise waits for your answer: accept or refuse." in text
    assert "accept, raise or refuse" not in text
    assert "seat 3 (opponent, counter): put" in text and ": raise" not in text
    assert "1) discard 3  2) discard A" in text and "discard R" in text  # help, when offered
    out = io.StringIO()
    assert play_match(profile="truc_1912", seed=1, inp=io.StringIO("quit\n"), out=out,
                      ranks=4, copies=4, hand_size=2) == 0
    assert out.getvalue().startswith("French Truc of 1912 (truc_1912), a match to")


def test_deal_mode_reports_the_deals_points_not_a_match_score():
    """``play --deal``: one deal (R8.1) moves no match score, so the deal's end shows its
    points; it used to print "your team scores 3. Score: you 0 - them 0"."""
    out = io.StringIO()
    code = play_match(profile="vitou_2p", seed=1, ranks=4, copies=2, hand_size=1, deal=True,
                      inp=script([], "1"), out=out)
    text = out.getvalue()
    assert code == 0
    m = re.search(r"--- Deal over .*: (.*)\. Points this deal: you (\d+) - them (\d+)\.", text)
    assert m, text
    ours, theirs = int(m[2]), int(m[3])
    assert (ours > 0) != (theirs > 0) or m[1] == "nobody scores"
    assert f"({ours - theirs:+d} points)" in text
