"""Layout of the kernel's state array, action ids and chance ids.

A state is one ``int32[STATE_SIZE]`` array; copying a state is ``state.copy()``.
The ``S_*`` constants index it; sentinels are ``-1`` (no card, no seat, not
yet). Action and chance ids are the contract of ``docs/kernel_interface.md``.
"""

from __future__ import annotations

# ---- player actions (docs/kernel_interface.md) --------------------------------
A_PLAY0 = 0  # play rank r is A_PLAY0 + r, r in 0..7 (0 = T, highest)
A_RAISE = 8
A_ACCEPT = 9
A_REFUSE = 10
A_GO = 11
A_PASS = 12
A_DECLINE = 13
A_SIGNAL0 = 14  # signal g is A_SIGNAL0 + g, g in 0..4 (none, ten, nine, ace, nohigh)
A_ABANDON = 19
A_AGREE = 20
A_REJECT = 21
NUM_ACTIONS = 22  # the Vitou profiles' action ids: 0 .. 21

# Truc / Put family (docs/RULES_family.md); Vitou never uses these ids.
A_PLAY_HI0 = 22  # play rank r >= 8 is A_PLAY_HI0 + r - 8, r in 8..12 (Put's 6 5 4 ...)
A_CONCEDE = 27  # Put P5
A_REST = 28  # French Truc F3.3: "our rest", stakes the game
A_REDEAL = 29  # French Truc F2.1: propose a fresh deal
A_KEEP = 30  # French Truc F2.1: play these cards
NUM_ACTIONS_FAMILY = 31  # the ids of the family's two-sided profiles: 0 .. 30
# Partnership Put (docs/RULES_family.md P6); no other profile uses these ids.
A_TAKE = 31  # P6.1: "I play the hand" (the side's speaker becomes its active player)
A_GIVE = 32  # P6.1: "my partner plays it" (the speaker hands over, P6.2)
A_DISCARD0 = 33  # P6.3: the active player lays away rank r: A_DISCARD0 + r, r in 0..12
NUM_ACTIONS_PARTNERSHIP = 46
# Put for three or more, each for themselves (docs/RULES_family.md P7); only put_willughby.
A_SEE = 46  # P7.4: "See!", plays on after a put
A_FOLD = 47  # P7.4: lays the cards down face down ("verdeckt ablegen"): out of the deal
NUM_ACTIONS_WILLUGHBY = 48

# ---- chance outcomes ---------------------------------------------------------------
C_DEAL0 = 0  # next card is rank r: C_DEAL0 + r
C_SEEN = 8
C_UNSEEN = 9
C_DEALER0 = 10  # first dealer is seat s: C_DEALER0 + s
MAX_CHANCE_OUTCOMES = 14  # outcomes at one node (buffer size) and the Vitou chance ids
C_DEAL_HI0 = 14  # family decks: next card is rank r >= 8: C_DEAL_HI0 + r - 8
MAX_CHANCE_IDS_FAMILY = 19

CHANCE_PLAYER = -1  # OpenSpiel's kChancePlayerId
TERMINAL_PLAYER = -4  # OpenSpiel's kTerminalPlayerId

GESTURES = ("none", "ten", "nine", "ace", "nohigh")

# ---- phases ---------------------------------------------------------------------------
PH_DRAW_DEALER = 0  # chance: first dealer (R1.4)
PH_BLIND = 1  # 2p blind window (R9.2)
PH_DEAL = 2  # chance: one card
PH_ONE_FROM_END = 3  # R6.1 / R6.2 / R9.3 decisions
PH_SIGNAL = 4  # R7.1 gesture
PH_SEEN = 5  # chance: R7.2 caught or missed
PH_PLAY = 6  # card turn (R2, R4.2, R9.2)
PH_ANSWER = 7  # 2p exchange: answer to a raise (R9.2)
PH_ABANDON = 8  # 2p: answer to abandon (R9.2)
PH_TERMINAL = 9
PH_DECIDE = 10  # Put P5.3: the non-dealer concedes or puts before trick 2
PH_REDEAL = 11  # French Truc F2.1: the first leader proposes a fresh deal or keeps
PH_REDEAL_ANSWER = 12  # French Truc F2.2: the others agree or reject
PH_CHOOSE = 13  # Partnership Put P6.1: a side's speaker says take or give
PH_DISCARD = 14  # Partnership Put P6.3: the active player lays away one of h + 1 cards
PH_SEE = 15  # Willughby's Put P7.4: after a put, the others in turn say see or fold

# ---- ends of a deal -----------------------------------------------------------------
END_NONE = 0
END_TRICKS = 1
END_REFUSED = 2
END_DECLINED = 3
END_PASSED = 4
END_ALL_VOID = 5
END_ABANDONED = 6
END_CONCEDED = 7  # Put P5
END_DRAW = 8  # Put P2.2: trick and tie; P7.2: nobody can reach two tricks
END_FOLDED = 9  # Willughby's Put P7.4: everybody else folded after the put
END_NAMES = ("", "tricks", "refused", "declined", "passed", "all_void", "abandoned", "conceded",
             "draw", "folded")

# trick results
RES_TEAM0 = 0
RES_TEAM1 = 1
RES_VOID = 2
#: Willughby's Put (P7.1): a trick result is the winning seat 0..3, or this for a tied trick
RES_VOID_SEAT = 4

MAX_PLAYERS = 4
MAX_RANKS = 13  # Put's 52-card deck; the Vitou deck uses 8
MAX_HAND = 5  # Willughby's Put (P7.0): players + 1 cards; every other profile holds at most 3
#: hand slots of the two-sided profiles (hands of 1 .. 3): the deal-decided tables and the
#: information-state key's ``K_HAND`` / ``K_PARTNER`` are sized by it, so files that
#: record ``KEY_SIZE`` (tabular policies) are unchanged by Willughby's longer hands; its hands
#: of 4 or 5 run on from ``K_HAND`` into ``K_PARTNER``, which that profile does not use
KEY_HAND = 3
MAX_TOKENS = 32

# ---- state array ------------------------------------------------------------------------
_i = 0


def _field(size: int = 1) -> int:
    global _i
    start = _i
    _i += size
    return start


# match-level
S_PHASE = _field()
S_DEALER = _field()
S_SCORE0 = _field()
S_SCORE1 = _field()
S_DEALS = _field()  # deals finished (match mode)
S_GAMES = _field(2)  # games won per team (family G4.1; Trut's truts)
# dealing
S_NDEALT = _field()
S_DECK = _field(MAX_RANKS)  # undealt copies of each rank (chance probabilities)
S_HAND = _field(MAX_PLAYERS * MAX_HAND)  # dealt hand per seat, in dealing order, -1 = not dealt
S_HELD = _field(MAX_PLAYERS * MAX_RANKS)  # copies of each rank still held per seat
S_PLAYED = _field(MAX_RANKS)  # copies of each rank played this deal (public)
# one from the end (R6, R9.3)
S_R6MODE = _field()  # 0 none, 1 one team at target-1, 2 both
S_R6TEAM = _field()  # the team at target-1 when S_R6MODE == 1
S_R6POS = _field()  # R6.2 round: players who have spoken
S_SHARED = _field()  # 1 when the R6.1 team's partners see each other's cards
# signals (R7)
S_SIGPOS = _field()  # position from the dealer's left of the next gesturer
S_SIGCH = _field()  # which opponent's catch is being drawn (0 or 1)
S_GEST = _field(MAX_PLAYERS)  # gesture per seat, -1 = not yet made
S_SEEN = _field(MAX_PLAYERS * MAX_PLAYERS)  # [observer * 4 + gesturer] = 1 if caught
# tricks
S_LEADER = _field()
S_NPLAYED = _field()  # cards in the current trick
S_BEST = _field()  # highest rank in the current trick (lowest index), -1 = none
S_NBEST = _field()
S_BESTSEAT = _field()
S_TRICK = _field(MAX_PLAYERS)  # ranks played to the current trick, in order
S_NTRICKS = _field()  # completed tricks
S_TRES = _field(MAX_HAND)  # completed trick results (RES_*)
S_TCODE = _field()  # base-3 code of the completed results, first trick most significant
# stake and raises (R4, R9.2)
S_STAKE = _field()  # ladder index standing (including a raise awaiting its answer)
S_LASTRAISE = _field()  # team of the latest raise, -1 = none
S_PREV_STAKE = _field()  # ladder index before the latest raise (R4.3, G3.2; F3.3 jumps)
S_RAISED_NOW = _field()  # 4p: the player to play has just raised and must play a card
S_ANSWER_SEAT = _field()  # 4p: seat whose answer the latest raise awaits, -1 = none
S_NRAISES = _field()
S_NREFUSALS = _field()
S_EXCH_ANSWER = _field()  # 2p: seat to answer the exchange
S_EXCH_CARD = _field()  # 2p: 1 if the exchange began at a card turn, 0 in the blind window
S_LOCKED = _field()  # 2p: after accept, the card-turn player must play a card
S_ABANDON_USED = _field()
S_BLINDPOS = _field()
# family: Put's decisions (P5), the fresh deal (F2)
S_PUTSTEP = _field()  # Put P5: 0 trick 1 open, 1 no more P5 decisions
S_REDEAL = _field()  # F2: 0 not yet, 1 proposed (answers running), 2 taken, 3 kept / done
S_REDEALPOS = _field()  # F2.2: answers given
S_FIRSTHAND = _field(MAX_PLAYERS * MAX_HAND)  # F2.3: the hands thrown in (valid when S_REDEAL == 2)
# family: partnership Put's hand-over (P6); all 0 in the other profiles
S_PSIDE = _field()  # P6: 0 the non-dealers' side chooses, 1 the dealer's side, 2 play
S_ACTIVE = _field(2)  # P6.1: active seat per team, -1 = not chosen yet
S_GOT = _field(2)  # P6.2: rank handed to each team's active player, -1 = none yet
S_DISC = _field(2)  # P6.3: rank each team's active player laid away, -1 = not yet
# family: Willughby's Put (P7), each for themselves; all 0 in the other profiles
S_WTRICKS = _field(MAX_PLAYERS)  # P7.2: tricks won per seat
S_OUT = _field(MAX_PLAYERS)  # P7.4: 1 once the seat has folded (laid its cards down)
S_NIN = _field()  # P7.4: players still in
S_PUTTER = _field()  # P7.3: seat that said put, -1 = none
S_SEEPOS = _field()  # P7.4: answers given in the see round
# result of the latest finished deal
S_END = _field()
S_WINNER = _field()  # team that scored, -1 = nobody
S_POINTS = _field(2)
S_RES_STAKE = _field()  # ladder index the deal was scored at
S_RES_NTRICKS = _field()
S_RES_TRES = _field(MAX_HAND)
S_RES_RAISES = _field()
S_RES_REFUSALS = _field()
S_RETURNS = _field(2)  # per team: points (deal mode) or +1/-1/0 (match mode)
S_AFTER_SCORE = _field(2)  # team scores once the deal is scored (G4.2, T4 carry-over)
S_AFTER_GAMES = _field(2)  # games won once the deal is scored
S_WRETURNS = _field(MAX_PLAYERS)  # P7.5: per-seat returns of Willughby's Put (deal mode)
# public action tokens of the current deal (player actions except gestures)
S_NTOK = _field()
S_TOK = _field(MAX_TOKENS)
STATE_SIZE = _i

# first field reset by a new deal, and the fields kept across deals
DEAL_START = S_NDEALT
DEAL_STOP = S_END  # [DEAL_START, DEAL_STOP) is reset; the last result is kept until replaced

# information-state key (observe.infostate_key), int8[KEY_SIZE]
K_PLAYER = 0
K_DEALER = 1
K_SCORE0 = 2
K_SCORE1 = 3
K_HAND = 4  # own hand, sorted, -1 = not dealt
K_PARTNER = K_HAND + KEY_HAND  # partner's hand when shared (R6.1), own thrown hand (F2.3),
#                                partnership Put's card received and card laid away (P6.2,
#                                P6.3: K_PARTNER, K_PARTNER + 1), Willughby's hand's
#                                cards 4 and 5 (P7.0: K_HAND .. K_HAND + 4), else -1
K_GEST = K_PARTNER + KEY_HAND  # gesture per seat as this player saw it, -1 = not yet
K_NTOK = K_GEST + MAX_PLAYERS
K_TOK = K_NTOK + 1
KEY_SIZE = K_TOK + MAX_TOKENS
