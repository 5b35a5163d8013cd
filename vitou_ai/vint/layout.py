"""Layout of the Vint kernel's state array, action ids and parameters.

A state is one ``int64[STATE_SIZE]`` array (hands are 52-bit masks, so int64);
copying a state is ``state.copy()``. Sentinels are ``-1`` (no bid, no seat).
Rule numbers refer to ``docs/RULES_vint.md``.

Cards: ``card = suit * 13 + rank``, suit 0..3 = S C D H (the V2.2 bidding order),
rank 0..12 = ``2 .. A`` (12 = ace). Action ids (players): ``0..51`` play that
card, ``PASS = 52``, ``BID0 + (level - 1) * 5 + denom`` = ``53..87`` for a bid
(denom 0..4 = S C D H NT). Chance outcomes: ``0..51``, the next card dealt.
"""

from __future__ import annotations

NUM_CARDS = 52
PASS = 52
BID0 = 53
NUM_BIDS = 35
NUM_ACTIONS = BID0 + NUM_BIDS  # 88
NT = 4

# ---- state array ----------------------------------------------------------------------
S_DEALER = 0
S_PHASE = 1
S_TOMOVE = 2
S_NDEALT = 3
S_BID = 4  # highest bid id 0..34, -1 none
S_BIDDER = 5  # seat of the highest bid, -1 none
S_PASSES = 6  # passes in a row since the last bid (or since the start)
S_NCALLS = 7
S_LEADER = 8  # leader of the current trick
S_NTRICK = 9  # completed tricks
S_NIN = 10  # cards in the current trick
S_BEST = 11  # seat winning the current trick so far
S_BESTCARD = 12
S_TRICKS = 13  # 13, 14: tricks taken by side 0, side 1
S_END = 15
S_SHORT = 16  # short auction knob (V8.1), copied from the parameters
S_TRICK = 17  # 17..20: cards of the current trick in playing order, -1 empty
S_HAND = 21  # 21..24: cards still held by seat s (52-bit mask)
S_ORIG = 25  # 25..28: cards dealt to seat s (mask)
S_WIN = 29  # 29..41: seat that won trick t, -1 not yet played
S_TRUMP = 42  # contract denomination 0..4, -1 before the auction ends
S_LEVEL = 43  # contract level 1..7, 0 before
STATE_SIZE = 44

# phases
PH_DEAL = 0
PH_AUCTION = 1
PH_PLAY = 2
PH_OVER = 3

# ends of a deal
END_NONE = 0
END_PLAYED = 1
END_THROWN_IN = 2
END_NAMES = ("", "played", "thrown_in")

# ---- parameters array ------------------------------------------------------------------
P_DEALER = 0
P_SHORT = 1
P_FOSTER = 2
P_SLAM_SMALL = 3
P_SLAM_GRAND = 4
PARAMS_SIZE = 5

# ---- deal score (kernel.deal_score) ---------------------------------------------------
# out[2k + side] for each component k; all non-negative.
SC_BELOW = 0
SC_HONOURS = 2
SC_ACES = 4
SC_UNDER = 6
SC_SLAM = 8
SC_CROWNS = 10
SC_TRICK_VALUE = 12  # out[12]: the contract's trick value
SCORE_SIZE = 13
SCORE_PARTS = ("below", "honours", "aces", "undertricks", "slam", "crowns")

# ---- error codes of kernel.apply_action -------------------------------------------------
OK = 0
ERR_OVER = 1  # V3.7: nothing to do (deal over / chance node)
ERR_ACTION = 2  # not an action id
ERR_INSUFFICIENT = 3  # V3.2
ERR_CARD_IN_AUCTION = 4  # V3.4: the auction has not ended
ERR_CALL_IN_PLAY = 5  # V3.7: the auction has ended
ERR_NOT_HELD = 6  # V4.2
ERR_REVOKE = 7  # V4.2
ERROR_RULES = {
    ERR_OVER: "V3.7", ERR_ACTION: "V9.1", ERR_INSUFFICIENT: "V3.2",
    ERR_CARD_IN_AUCTION: "V3.4", ERR_CALL_IN_PLAY: "V3.7", ERR_NOT_HELD: "V4.2",
    ERR_REVOKE: "V4.2",
}

RANKS = "23456789TJQKA"
SUITS = "SCDH"
DENOMS = ("S", "C", "D", "H", "NT")
