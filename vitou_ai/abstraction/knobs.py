"""The knob values of the information abstraction and their indices in the jitted
``int64[N_CFG]`` config array: plain constants that both the dataclass
(:mod:`vitou_ai.abstraction.config`) and the key's encoder (:mod:`vitou_ai.abstraction.key`)
read, so that neither imports the other for them.
"""

from __future__ import annotations

# index of each knob in the int64 config array
C_SCORES = 0  # 1: the team scores (own, other) are in the key
C_PARTNER = 1  # 1: the partner's hand when R6.1 shares it
C_TRICK = 2  # 0: summary (best card, who holds it, cards played); 1: exact cards in order
C_COUNT = 3  # number of top ranks whose unseen copies are counted (0 .. 8)
C_GESTURES = 4  # gestures seen (R7.2): index in GESTURES (0 off, 1 all, 2 team, 3 partner)
C_HISTORY = 5  # 0: results of completed tricks; 1: results and the cards of each
C_SCORE_BUCKETS = 6  # with scores: 0 exact scores; 1 each team's need bucketed (SCORE_BUCKETS)
N_CFG = 7

#: bits of the abstract key; the stored form sets bit 63 to mark a used slot
KEY_BITS = 63

TRICKS = ("summary", "exact")
#: values of the ``gestures`` knob; the index is the jitted config value
GESTURES = ("off", "all", "team", "partner")
#: what ``gestures=None`` means in a game with signals
DEFAULT_GESTURES = "partner"
HISTORIES = ("results", "cards")
#: values of the ``score_buckets`` knob; the index is the jitted config value
SCORE_BUCKETS = ("exact", "stakes")
#: ``score_buckets="stakes"``: the lower bound of each bucket of a team's *need*
#: (target - score), i.e. the smallest stake of the ladder 1, 3, 6, 12 that ends the match
#: for it: need 1 (R6 applies), 2-3 (a 3 wins), 4-6 (a 6), 7-12 (a 12), 13+ (only B)
NEED_BUCKET_LOWS = (1, 2, 4, 7, 13)
