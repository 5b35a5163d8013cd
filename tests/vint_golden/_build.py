"""Writes the Vint golden hand histories (tests/vint_golden/*.toml, tests/vint_golden_bad/).

Run from the worktree: ``python tests/vint_golden/_build.py``. Each spec below
gives the deal (explicit hands, or a filter on random deals), the calls, and the
number of tricks side 0 must take; the card play is found by seeded random legal
play through the *reference engine* (tests/reference/vint_engine.py), never the
kernel. Every ``expect`` number is written by hand from the seed's worked
examples or from docs/RULES_vint.md, with the arithmetic in the comment. The
kernel test (tests/test_vint_golden.py) then replays the files.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import tomli_w

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.reference.vint_engine import RefDeal  # noqa: E402

RANKS = "23456789TJQKA"
SUITS = "SCDH"


def cid(text: str) -> int:
    return SUITS.index(text[-1]) * 13 + RANKS.index(text[0])


def cstr(c: int) -> str:
    return RANKS[c % 13] + SUITS[c // 13]


def hand_text(cards) -> str:
    return " ".join(cstr(c) for c in sorted(cards, key=lambda c: (c // 13, -(c % 13))))


def parse_call(text: str) -> int:
    if text == "pass":
        return 52
    level, d = int(text[0]), text[1:]
    return 53 + 5 * (level - 1) + ["S", "C", "D", "H", "NT"].index(d)


def call_text(a: int) -> str:
    if a == 52:
        return "pass"
    b = a - 53
    return f"bid {b // 5 + 1}{['S', 'C', 'D', 'H', 'NT'][b % 5]}"


ONE_SUIT = [[s * 13 + r for r in range(13)] for s in range(4)]  # seat s holds suit s


def honours(hands, side, suit):
    return sum(1 for seat in (side, side + 2) for c in hands[seat]
               if c // 13 == suit and c % 13 >= 8)


def aces(hands, side):
    return sum(1 for seat in (side, side + 2) for c in hands[seat] if c % 13 == 12)


def random_hands(rng, want):
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [deck[13 * i:13 * i + 13] for i in range(4)]
        if want(hands):
            return hands


def find_play(dealer, hands, calls, side0_tricks, knobs, seed):
    """Card play (reference engine) after ``calls`` giving side 0 ``side0_tricks``."""
    for attempt in range(200000):
        rng = random.Random(seed * 1000003 + attempt)
        deal = RefDeal(dealer, hands, short_auction=knobs.get("short_auction", False),
                       foster=knobs.get("scoring") == "foster")
        actions = []
        for c in calls:
            seat = deal.turn
            deal.apply(parse_call(c))
            actions.append(f"p{seat} {call_text(parse_call(c))}")
        while not deal.over():
            seat = deal.turn
            a = rng.choice(deal.legal())
            deal.apply(a)
            actions.append(f"p{seat} play {cstr(a)}")
        if deal.thrown_in or side0_tricks is None or deal.side_tricks()[0] == side0_tricks:
            return actions, deal
    raise RuntimeError("no play found")


def passes(n):
    return ["pass"] * n


GOOD = []
BAD = []


def good(name, comment, dealer, calls, expect, hands=None, want=None, side0=None, seed=1,
         knobs=None, rubber=None):
    GOOD.append(dict(name=name, comment=comment, dealer=dealer, calls=calls, expect=expect,
                     hands=hands, want=want, side0=side0, seed=seed, knobs=knobs or {},
                     rubber=rubber))


# ---- the seed's worked examples --------------------------------------------------------------
SEED_2D = [
    "AD KD 9D 8D KS QS JS KC QC KH QH JH TH",   # Anna
    "AS 8S 7S 6S AC 8C 7C JD 3D 6H 5H 4H 3H",   # Ben
    "QD 7D 6D 5D 4D TS 9S JC TC 9C 9H 8H 7H",   # Carla
    "5S 4S 3S 2S 6C 5C 4C 3C 2C TD 2D AH 2H",   # Dan
]
good("seed_2d_9_to_4_honours_aces",
     "Seed, 'Das Reizen' and 'Abrechnung': Anna deals and bids 1D, Ben 1H, Carla 2D, then twelve\n"
     "passes (V3.1, V3.4): 2D by Carla (seat 2), trick value 18 (V5.1). Anna & Carla take 9\n"
     "tricks: 9 x 18 = 162 below; Ben & Dan 4 x 18 = 72 (V5.2). Anna & Carla hold AD KD QD, three\n"
     "honours: 20 x 18 = 360 (V5.3); Ben & Dan hold three aces: 3 x 10 x 18 = 540 (V5.4).\n"
     "2D made with 9 tricks: no undertricks.",
     0, ["1D", "1H", "2D"] + passes(12),
     dict(contract="2D", declarer=2, tricks=[9, 4], below=[162, 72], honours=[360, 0],
          aces=[0, 540], undertricks=[0, 0], slam=[0, 0], above=[360, 540],
          difference=162 + 360 - 72 - 540),
     hands=[[cid(c) for c in h.split()] for h in SEED_2D], side0=9)
good("seed_4s_down_3",
     "Seed, 'Unterstiche': Ben (seat 1) plays 4S (trick value 34) and his side takes 7 tricks, 3\n"
     "short of 10: Anna & Carla write 3 x 4 x 500 = 6000 above (V5.5); below, Ben & Dan\n"
     "7 x 34 = 238 and Anna & Carla 6 x 34 = 204 (V5.2). Deal chosen so that Ben & Dan hold\n"
     "three spade honours (20 x 34 = 680, V5.3) and Anna & Carla three aces (3 x 10 x 34 = 1020).",
     0, ["pass", "4S"] + passes(12),
     dict(contract="4S", declarer=1, tricks=[6, 7], below=[204, 238], undertricks=[6000, 0],
          honours=[0, 680], aces=[1020, 0], slam=[0, 0], above=[7020, 680]),
     want=lambda h: honours(h, 1, 0) == 3 and aces(h, 0) == 3, side0=6, seed=2)
good("seed_tip_level4_down_1_costs_2000",
     "Seed, 'Tipps': one trick short at level 4 costs 1 x 4 x 500 = 2000 (V5.5). 4H by Anna\n"
     "(seat 0), trick value 40; Anna & Carla take 9: below 9 x 40 = 360 and 4 x 40 = 160.\n"
     "Anna & Carla hold four heart honours: 30 x 40 = 1200; aces two each: the side with more\n"
     "tricks (Anna & Carla) writes for two aces, 20 x 40 = 800 (V5.4).",
     0, ["4H"] + passes(12),
     dict(contract="4H", declarer=0, tricks=[9, 4], below=[360, 160], undertricks=[0, 2000],
          honours=[1200, 0], aces=[800, 0], slam=[0, 0]),
     want=lambda h: honours(h, 0, 3) == 4 and aces(h, 0) == 2, side0=9, seed=3)
for level, tv in ((4, 38), (3, 28)):
    good(f"seed_{level}d_with_10_tricks",
         f"Seed, 'Hoch reizen lohnt sich': {level}D with 10 tricks gives 10 x {tv} = {10 * tv}\n"
         "(4D: 380, 3D: 280; V5.1, V5.2). Same deal and play in both files. Anna (seat 0)\n"
         f"declares; Anna & Carla hold three diamond honours (20 x {tv} = {20 * tv}) and two\n"
         f"aces each: Anna & Carla took more tricks and write 20 x {tv} = {20 * tv} (V5.4).",
         0, [f"{level}D"] + passes(12),
         dict(contract=f"{level}D", declarer=0, tricks=[10, 3], below=[10 * tv, 3 * tv],
              honours=[20 * tv, 0], aces=[20 * tv, 0], undertricks=[0, 0]),
         want=lambda h: honours(h, 0, 2) == 3 and aces(h, 0) == 2, side0=10, seed=4)
good("seed_3h_four_honours_900",
     "Seed, 'Tipps': four honours in a heart contract of level 3 are worth 900 = 30 x 30 (V5.1,\n"
     "V5.3). 3H by Carla (seat 2, dealer Dan), made with 9 tricks: below 9 x 30 = 270 and\n"
     "4 x 30 = 120. Ben & Dan hold three aces: 3 x 10 x 30 = 900 (V5.4).",
     3, ["pass", "pass", "pass", "3H"] + passes(12),
     dict(contract="3H", declarer=2, tricks=[9, 4], below=[270, 120], honours=[900, 0],
          aces=[0, 900], undertricks=[0, 0]),
     want=lambda h: honours(h, 0, 3) == 4 and aces(h, 1) == 3, side0=9, seed=5)

# ---- auction (V3) --------------------------------------------------------------------------
good("v3_3_bid_over_partner_and_own",
     "V3.1 dealer Ben (seat 1) speaks first. V3.3: Dan bids 1S, Ben 1NT over his partner; after\n"
     "three passes Ben bids 2NT over his own bid; twelve passes (V3.4). 2NT by Ben, trick\n"
     "value 22; Ben's side takes 8 tricks (made). Aces 2-2, so the side with more tricks\n"
     "(Ben & Dan) writes 20 x 22 = 440 (V5.4). No honours at no trump (V5.3).",
     1, ["pass", "pass", "1S", "pass", "1NT", "pass", "pass", "pass", "2NT"] + passes(12),
     dict(contract="2NT", declarer=1, tricks=[5, 8], below=[110, 176], honours=[0, 0],
          aces=[0, 440], undertricks=[0, 0]),
     want=lambda h: aces(h, 0) == 2, side0=5, seed=6)
good("v3_4_eleven_passes_do_not_end",
     "V3.4: Anna (dealer) bids 1C; eleven passes; Anna, who would make the twelfth pass, bids 2C\n"
     "over her own bid (V3.3); then twelve passes. 2C by Anna (trick value 16), 7 tricks: 1\n"
     "short of 8: 1 x 2 x 500 = 1000 to Ben & Dan (V5.5). Anna & Carla hold four clubs\n"
     "honours: 30 x 16 = 480; Ben & Dan three aces: 3 x 10 x 16 = 480.",
     0, ["1C"] + passes(11) + ["2C"] + passes(12),
     dict(contract="2C", declarer=0, tricks=[7, 6], below=[112, 96], undertricks=[0, 1000],
          honours=[480, 0], aces=[0, 480]),
     want=lambda h: honours(h, 0, 1) == 4 and aces(h, 1) == 3, side0=7, seed=7)
good("v3_5_thrown_in",
     "V3.5: all four pass twice round (eight passes): the hand is thrown in and scores nothing\n"
     "(V5.7).",
     2, passes(8),
     dict(end="thrown_in", below=[0, 0], above=[0, 0], game_winner="none", written=[0, 0]),
     want=lambda h: True, seed=8)
good("v3_5_seven_passes_then_a_bid",
     "V3.5 needs eight passes: after seven, Dan (seat 3) bids 1S and the auction goes on until\n"
     "twelve passes (V3.4). 1S by Dan, trick value 4; Ben & Dan take 7 (made): 28 and 24 below.\n"
     "Ben & Dan hold all five spade honours: 40 x 4 = 160 (V5.3 [convention]); aces 3-1 to\n"
     "Anna & Carla: 3 x 10 x 4 = 120.",
     0, passes(7) + ["1S"] + passes(12),
     dict(contract="1S", declarer=3, tricks=[6, 7], below=[24, 28], honours=[0, 160],
          aces=[120, 0]),
     want=lambda h: honours(h, 1, 0) == 5 and aces(h, 0) == 3, side0=6, seed=9)

# ---- play (V4), hand-checkable: every seat holds one whole suit ---------------------------
ONE_SUIT_CMT = ("Every seat holds one whole suit: Anna spades, Ben clubs, Carla diamonds, Dan\n"
                "hearts, so nobody can ever follow suit (V4.2).")
good("v4_3_trump_wins_void_trick",
     ONE_SUIT_CMT + " 1H by Dan (seat 3); Anna leads (V4.1); Dan ruffs\n"
     "(V4.3: the trump wins, the discards do not) and leads hearts to the end (V4.4): Ben & Dan\n"
     "take all 13 at 1H (trick value 10): 130 below. Five heart honours: 40 x 10 = 400 (V5.3).\n"
     "Aces 2-2: Ben & Dan took more tricks, 20 x 10 = 200 (V5.4). 13 tricks at level 1 is an\n"
     "unbid slam: no bonus (V5.6 [convention]).",
     0, ["pass", "pass", "pass", "1H"] + passes(12),
     dict(contract="1H", declarer=3, tricks=[0, 13], below=[0, 130], honours=[0, 400],
          aces=[0, 200], undertricks=[0, 0], slam=[0, 0], above=[0, 600]),
     hands=ONE_SUIT, side0=0)
good("v4_3_no_trump_discards_never_win",
     ONE_SUIT_CMT + " 1NT by Ben (seat 1); Carla leads diamonds (V4.1) and,\n"
     "as nobody can follow and there are no trumps, wins every trick (V4.3, V4.4): Anna & Carla\n"
     "13 x 12 = 156 below. Ben & Dan made 0 of 7: 7 x 1 x 500 = 3500 to Anna & Carla (V5.5).\n"
     "Aces 2-2: Anna & Carla took more tricks, 20 x 12 = 240. No honours at no trump.",
     0, ["pass", "1NT"] + passes(12),
     dict(contract="1NT", declarer=1, tricks=[13, 0], below=[156, 0], honours=[0, 0],
          aces=[240, 0], undertricks=[3500, 0], slam=[0, 0], above=[3740, 0]),
     hands=ONE_SUIT, side0=13)
good("v4_2_follow_suit_random_play",
     "V4.2-V4.4 with ordinary hands: 3NT by Anna (trick value 32), Anna & Carla take 9 (made):\n"
     "288 and 128 below. Anna & Carla hold all four aces: 4 x 10 x 32 = 1280 (V5.4).",
     0, ["3NT"] + passes(12),
     dict(contract="3NT", declarer=0, tricks=[9, 4], below=[288, 128], aces=[1280, 0],
          honours=[0, 0], undertricks=[0, 0]),
     want=lambda h: aces(h, 0) == 4, side0=9, seed=10)

# ---- slams (V5.5, V5.6) --------------------------------------------------------------------
good("v5_6_small_slam_made",
     ONE_SUIT_CMT + " 6H by Dan: Ben & Dan take all 13 (trick value 60): 780\n"
     "below; small slam bid and made: 1000 (V5.6 [convention]); five honours 40 x 60 = 2400;\n"
     "aces 2-2, more tricks: 20 x 60 = 1200.",
     0, ["pass", "pass", "pass", "6H"] + passes(12),
     dict(contract="6H", declarer=3, tricks=[0, 13], below=[0, 780], slam=[0, 1000],
          honours=[0, 2400], aces=[0, 1200], undertricks=[0, 0], above=[0, 4600]),
     hands=ONE_SUIT, side0=0)
good("v5_6_grand_slam_made",
     ONE_SUIT_CMT + " 7C by Ben: Carla leads, Ben ruffs and leads clubs: Ben &\n"
     "Dan take 13 at trick value 66: 858 below; grand slam bid and made: 2000 (V5.6\n"
     "[convention]); five club honours 40 x 66 = 2640; aces 2-2, more tricks: 20 x 66 = 1320.",
     0, ["pass", "7C"] + passes(12),
     dict(contract="7C", declarer=1, tricks=[0, 13], below=[0, 858], slam=[0, 2000],
          honours=[0, 2640], aces=[0, 1320], undertricks=[0, 0]),
     hands=ONE_SUIT, side0=0)
good("v5_5_grand_slam_failed",
     ONE_SUIT_CMT + " 7NT by Anna: Ben leads clubs and wins all 13 (V4.3):\n"
     "13 x 72 = 936 below for Ben & Dan; Anna & Carla 13 short of 13: 13 x 7 x 500 + 5000 =\n"
     "50500 to Ben & Dan (V5.5); aces 2-2, more tricks: 20 x 72 = 1440.",
     0, ["7NT"] + passes(12),
     dict(contract="7NT", declarer=0, tricks=[0, 13], below=[0, 936], undertricks=[0, 50500],
          aces=[0, 1440], honours=[0, 0], slam=[0, 0]),
     hands=ONE_SUIT, side0=0)
good("v5_5_small_slam_failed",
     "V5.5: 6S by Ben (trick value 54), Ben & Dan take 10, 2 short of 12: 2 x 6 x 500 + 3000 =\n"
     "9000 to Anna & Carla. Below 3 x 54 = 162 and 10 x 54 = 540. Ben & Dan hold three spade\n"
     "honours (20 x 54 = 1080) and three aces (3 x 10 x 54 = 1620).",
     0, ["pass", "6S"] + passes(12),
     dict(contract="6S", declarer=1, tricks=[3, 10], below=[162, 540], undertricks=[9000, 0],
          honours=[0, 1080], aces=[0, 1620], slam=[0, 0]),
     want=lambda h: honours(h, 1, 0) == 3 and aces(h, 1) == 3, side0=3, seed=11)

# ---- games and the rubber (V6) ---------------------------------------------------------------
good("v6_1_game_mid_deal_no_carry_over",
     ONE_SUIT_CMT + " 1H by Dan, Ben & Dan take every trick at 10 each. Ben &\n"
     "Dan start at 450 below: the 5th trick brings 500, a game (V6.1), 500 above (V6.2). Tricks\n"
     "6-13 are still written (130 below in all) but the next game starts at 0 for both\n"
     "(V6.2 [convention]). Written by Ben & Dan: 130 + 500 + 400 honours + 200 aces = 1230.",
     0, ["pass", "pass", "pass", "1H"] + passes(12),
     dict(game_winner=1, game_trick=5, game_bonus=500, games=[0, 1], below_line=[0, 0],
          written=[0, 1230], rubber_winner="none", settlement="none"),
     hands=ONE_SUIT, side0=0, rubber=dict(rubber_below=[0, 450], rubber_games=[0, 0],
                                         rubber_total=[0, 450]))
good("v6_1_first_to_500_trick_by_trick",
     ONE_SUIT_CMT + " 1NT by Ben: Anna & Carla take every trick at 12 each.\n"
     "Ben & Dan were ahead at 495 to 490, but Anna & Carla pass 500 at trick 1 and win the\n"
     "game (V6.1).",
     0, ["pass", "1NT"] + passes(12),
     dict(game_winner=0, game_trick=1, game_bonus=500, games=[1, 0], below_line=[0, 0]),
     hands=ONE_SUIT, side0=13, rubber=dict(rubber_below=[490, 495], rubber_games=[0, 0],
                                          rubber_total=[490, 495]))
good("v6_3_rubber_and_settlement",
     ONE_SUIT_CMT + " 1H by Dan, Ben & Dan take every trick at 10. With one game\n"
     "each side, Ben & Dan at 450 below win the third game at trick 5: their second game,\n"
     "1000 (V6.2), and the rubber (V6.3). Written this deal: 130 + 1000 + 400 + 200 = 1730.\n"
     "Settlement (V6.4): totals before 2400 and 1900, so Anna & Carla 2400 v. Ben & Dan\n"
     "1900 + 1730 = 3630: side 0 minus side 1 = -1230: Ben & Dan win 1230.",
     0, ["pass", "pass", "pass", "1H"] + passes(12),
     dict(game_winner=1, game_trick=5, game_bonus=1000, games=[1, 2], rubber_winner=1,
          written=[0, 1730], settlement=-1230),
     hands=ONE_SUIT, side0=0, rubber=dict(rubber_below=[120, 450], rubber_games=[1, 1],
                                         rubber_total=[2400, 1900]))
good("v6_2_first_game_of_each_side_is_500",
     ONE_SUIT_CMT + " 1H by Dan. Anna & Carla have a game; Ben & Dan win their\n"
     "first at trick 5 (450 + 50): 500, not 1000 (V6.2), and the rubber goes on.",
     0, ["pass", "pass", "pass", "1H"] + passes(12),
     dict(game_winner=1, game_trick=5, game_bonus=500, games=[1, 1], rubber_winner="none",
          settlement="none"),
     hands=ONE_SUIT, side0=0, rubber=dict(rubber_below=[100, 450], rubber_games=[1, 0],
                                         rubber_total=[1100, 450]))
good("v6_1_both_pass_500_in_one_deal",
     "V6.1: both sides start at 490 below and both take tricks at 2D (trick value 18) in this\n"
     "deal (the seed's deal and auction): whoever takes the first trick reaches 508 first and\n"
     "wins the game. Here Dan leads the 2C, then Anna's QC, Ben's 7C, Carla's TC: Anna's\n"
     "queen wins trick 1 (V4.3) and the game for Anna & Carla, though Ben & Dan pass 500 later\n"
     "in the deal.",
     0, ["1D", "1H", "2D"] + passes(12),
     dict(game_winner=0, game_trick=1, game_bonus=500, games=[1, 0], tricks=[9, 4]),
     hands=[[cid(c) for c in h.split()] for h in SEED_2D], side0=9, seed=12,
     rubber=dict(rubber_below=[490, 490], rubber_games=[0, 0], rubber_total=[490, 490]))

# ---- variants (V8) ---------------------------------------------------------------------------
good("v8_1_short_auction",
     ONE_SUIT_CMT + " Short auction (V8.1): Anna bids 1S and three passes end\n"
     "the auction. Ben leads, Anna ruffs and leads spades: Anna & Carla take 13 at 1S (trick\n"
     "value 4): 52 below; five spade honours 40 x 4 = 160; aces 2-2, more tricks 20 x 4 = 80.",
     0, ["1S", "pass", "pass", "pass"],
     dict(contract="1S", declarer=0, tricks=[13, 0], below=[52, 0], honours=[160, 0],
          aces=[80, 0]),
     hands=ONE_SUIT, side0=13, knobs=dict(short_auction=True))
good("v8_1_short_auction_thrown_in",
     "Short auction (V8.1): four passes throw the hand in.",
     1, passes(4), dict(end="thrown_in", above=[0, 0]),
     want=lambda h: True, knobs=dict(short_auction=True), seed=13)
good("v8_2_foster_honours_crowns",
     ONE_SUIT_CMT + " Foster's rules (V8.2): 1H by Dan, trick value 10 x 1 =\n"
     "10 (V8.2a), Ben & Dan take 13: 130 below. Honour counts (V8.2b): Ben & Dan five heart\n"
     "honours + AC + AH (the ace of trumps counts twice) = 7 of 9: 10 x 10 x 7 = 700. Crowns\n"
     "(V8.2c): each hand is a sequence of five honours, 500 + 2 x 500 = 1500; Dan's is in trumps,\n"
     "doubled to 3000: Anna & Carla 1500 + 1500 = 3000, Ben & Dan 1500 + 3000 = 4500.",
     0, ["pass", "pass", "pass", "1H"] + passes(12),
     dict(contract="1H", tricks=[0, 13], below=[0, 130], honours=[0, 700], aces=[0, 0],
          crowns=[3000, 4500], undertricks=[0, 0], slam=[0, 0], above=[3000, 5200]),
     hands=ONE_SUIT, side0=0, knobs=dict(scoring="foster"))
good("v8_2_foster_no_trump_undertricks_game",
     ONE_SUIT_CMT + " Foster's rules: 1NT by Ben, trick value 10; Carla wins\n"
     "all 13: 130 below. At no trump only aces are honours, two each: nobody (V8.2b). Every\n"
     "crown doubled at no trump: 3000 per hand, 6000 per side (V8.2c). Ben & Dan 7 short:\n"
     "7 x 100 x 10 = 7000 (V8.2d). Anna & Carla from 450 below win a game at trick 5: 1000\n"
     "(V8.2e).",
     0, ["pass", "1NT"] + passes(12),
     dict(contract="1NT", tricks=[13, 0], below=[130, 0], honours=[0, 0], crowns=[6000, 6000],
          undertricks=[7000, 0], game_winner=0, game_trick=5, game_bonus=1000),
     hands=ONE_SUIT, side0=13, knobs=dict(scoring="foster"),
     rubber=dict(rubber_below=[450, 0], rubber_games=[0, 0], rubber_total=[450, 0]))


# ---- bad histories: refused at a known action, naming the rule ------------------------------
def bad(name, comment, dealer, actions, index, rule, hands=SEED_2D):
    BAD.append(dict(name=name, comment=comment, dealer=dealer, actions=actions, index=index,
                    rule=rule, hands=hands))


bad("bad_v3_2_insufficient_bid", "V3.2: after Ben's 1H, Carla's 1D is not higher.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 1D"], 2, "V3.2")
bad("bad_v3_2_same_bid_again", "V3.2: the same bid is not higher (Dan repeats 2D).", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D", "p3 bid 2D"], 3, "V3.2")
bad("bad_v3_4_card_before_the_twelfth_pass",
    "V3.4: after 2D and eleven passes the auction is still open; Dan plays a card.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(11)]
    + ["p2 play QD"], 14, "V3.4")
bad("bad_v3_7_bid_after_the_auction_ended",
    "V3.7: twelve passes after 2D ended the auction; Dan (to lead) bids 3D.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(12)]
    + ["p3 bid 3D"], 15, "V3.7")
bad("bad_v3_7_pass_after_throw_in", "V3.5/V3.7: eight passes threw the hand in; a ninth.", 0,
    [f"p{i % 4} pass" for i in range(9)], 8, "V3.7")
bad("bad_v3_4_history_ends_in_the_auction",
    "V3.4: the history stops after five passes: the auction has not ended.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(5)],
    8, "V3.4")
bad("bad_v4_2_revoke",
    "V4.2: Dan leads the 2S; Anna holds KS QS JS but plays the KH: a revoke.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(12)]
    + ["p3 play 2S", "p0 play KH"], 16, "V4.2")
bad("bad_v4_2_card_not_held", "V4.2: Dan leads the AS, which Ben holds.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(12)]
    + ["p3 play AS"], 15, "V4.2")
bad("bad_v4_1_wrong_leader", "V4.1: Carla declares, so Dan leads, not Anna.", 0,
    ["p0 bid 1D", "p1 bid 1H", "p2 bid 2D"] + [f"p{(3 + i) % 4} pass" for i in range(12)]
    + ["p0 play KS"], 15, "V4.1")
bad("bad_v3_6_no_double", "V3.6: there is no double; Ben doubles Anna's 1D.", 0,
    ["p0 bid 1D", "p1 double"], 1, "V3.6")
bad("bad_v3_1_dealer_speaks_first", "V3.1: Anna deals, so Anna speaks first, not Ben.", 0,
    ["p1 bid 1S"], 0, "V3.1")


def main() -> None:
    gdir, bdir = HERE, HERE.parent / "vint_golden_bad"
    bdir.mkdir(exist_ok=True)
    for spec in GOOD:
        knobs = spec["knobs"]
        hands = spec["hands"] or random_hands(random.Random(spec["seed"]), spec["want"])
        actions, deal = find_play(spec["dealer"], hands, spec["calls"], spec["side0"], knobs,
                                  spec["seed"])
        doc = {"game": "vint", "dealer": spec["dealer"], **knobs,
               "hands": [hand_text(h) for h in hands], **(spec["rubber"] or {}),
               "actions": actions, "expect": spec["expect"]}
        text = "".join(f"# {line}\n" for line in spec["comment"].splitlines()) + tomli_w.dumps(doc)
        (gdir / f"{spec['name']}.toml").write_text(text)
        if deal.winners:
            first = [cstr(c[1][0] * 13 + c[1][1]) for c in deal.tricks[0]]
            print(spec["name"], "trick 1:", first, "won by seat", deal.winners[0])
    for spec in BAD:
        doc = {"game": "vint", "dealer": spec["dealer"], "hands": spec["hands"],
               "actions": spec["actions"],
               "expect_error": {"index": spec["index"], "rule": spec["rule"]}}
        text = f"# {spec['comment']}\n" + tomli_w.dumps(doc)
        (bdir / f"{spec['name']}.toml").write_text(text)
    print(f"wrote {len(GOOD)} golden and {len(BAD)} bad histories")


if __name__ == "__main__":
    main()
