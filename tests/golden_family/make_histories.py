"""Writes tests/golden_family/*.toml and tests/golden_family_bad/*.toml (run from the repository root).

Every [expect] below was worked out by hand from docs/RULES_family.md before the first
replay (comments give the reasoning). Seven expectations were wrong at the first replay
(partners taken for opponents, and G2.4's early end missed); each was re-worked by hand and
the comment says why the deal ends where it does."""
from pathlib import Path

import tomli_w

OUT = Path("tests/golden_family")
BAD = Path("tests/golden_family_bad")


def w(name, profile, dealer, hands, actions, expect=None, bad=None, **knobs):
    d = {"profile": profile, "dealer": dealer, "scores": knobs.pop("scores", [0, 0]),
         "hands": hands, "actions": actions}
    d.update(knobs)
    if expect is not None:
        d["expect"] = expect
    if bad is not None:
        d["expect_error"] = {"index": bad[0], "rule": bad[1]}
    (BAD if bad else OUT).joinpath(name + ".toml").write_text(tomli_w.dumps(d))


# ---------------- Catalan Truc (4p: dealer 3, seat 0 leads; teams {0,2} {1,3}) -------------
# C1.3 order: 3 beats 2 and 1; 12 beats 6 and 4. Trick 1 team 0 (p0's 3); trick 2 p2's 12
# beats p0 4, p1 6; p3 could still beat it with 3/2/1 until p3 plays 6 -> team 0 two tricks.
w("c1_3_rank_order", "truc_catalan", 3, ["3 4 5", "2 6 7", "12 4 5", "1 6 7"],
  ["p0 play 3", "p1 play 2", "p2 play 4", "p3 play 1",
   "p0 play 4", "p1 play 6", "p2 play 12", "p3 play 6"],
  {"winner": 0, "points": [1, 0], "tricks": ["0", "0"], "end": "tricks", "stake": 1})
# C2.1 / G1.3 partners tie: p0 3 and p2 3 -> p0's card wins (team 0) and p0 leads trick 2.
w("c2_1_partner_tie_first_card", "truc_catalan", 3, ["3 12 7", "4 6 7", "3 5 6", "5 4 7"],
  ["p0 play 3", "p1 play 4", "p2 play 3", "p3 play 5",
   "p0 play 12", "p1 play 6", "p2 play 5", "p3 play 4"],
  {"winner": 0, "points": [1, 0], "tricks": ["0", "0"], "end": "tricks"})
# C2.1 opponents tie: p0 3, p1 3 -> void; p0 leads again. Trick 2 p0's 2 can be beaten by
# the two unseen 3s until p3 plays 7: team 0 -> void, 0 -> team 0.
w("c2_1_opponent_tie_void_same_leader", "truc_catalan", 3, ["3 2 4", "3 5 6", "4 5 6", "4 7 5"],
  ["p0 play 3", "p1 play 3", "p2 play 4", "p3 play 4",
   "p0 play 2", "p1 play 5", "p2 play 5", "p3 play 7"],
  {"winner": 0, "points": [1, 0], "tricks": ["void", "0"], "end": "tricks"})
# C2.2 all void -> the non-dealers (dealer 3: team 0) win 1.
w("c2_2_all_void_nondealers", "truc_catalan", 3, ["3 2 1", "3 2 1", "4 4 4", "5 5 5"],
  ["p0 play 3", "p1 play 3", "p2 play 4", "p3 play 5",
   "p0 play 2", "p1 play 2", "p2 play 4", "p3 play 5",
   "p0 play 1", "p1 play 1", "p2 play 4", "p3 play 5"],
  {"winner": 0, "points": [1, 0], "tricks": ["void", "void", "void"], "end": "tricks"})
# C2.2 with dealer 0: the non-dealers are team 1 (seat 1 leads).
# (seats 1 and 2 are opponents and tie every trick; 1 and 3 would be partners.)
w("c2_2_all_void_nondealers_team1", "truc_catalan", 0, ["4 4 4", "3 2 1", "3 2 1", "5 5 5"],
  ["p1 play 3", "p2 play 3", "p3 play 5", "p0 play 4",
   "p1 play 2", "p2 play 2", "p3 play 5", "p0 play 4",
   "p1 play 1", "p2 play 1", "p3 play 5", "p0 play 4"],
  {"winner": 1, "points": [0, 1], "tricks": ["void", "void", "void"], "end": "tricks"})
# C2.3 the deal ends once certain: team 0 won trick 1 and leads a 3 to trick 2: nothing
# beats it and a tie only voids trick 2 (0, void -> 0), so the deal ends at that card.
w("c2_3_ends_when_certain", "truc_catalan", 3, ["3 3 4", "4 5 6", "5 6 7", "6 7 10"],
  ["p0 play 3", "p1 play 4", "p2 play 5", "p3 play 6", "p0 play 3"],
  {"winner": 0, "points": [1, 0], "tricks": ["0"], "end": "tricks"})
# C4.2 truc accepted by the next player's card; team 1 wins the deal at 2.
w("c4_2_truc_accepted_by_card", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 truc", "p0 play 4", "p1 play 3", "p2 play 5", "p3 play 4",
   "p1 play 3"],
  {"winner": 1, "points": [0, 2], "stake": "truc", "tricks": ["1"], "end": "tricks"})
# C4.5 explicit accept marker before the card.
w("c4_5_truc_accept_marker", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 raise", "p0 play 4", "p1 accept", "p1 play 3", "p2 play 5", "p3 play 4",
   "p1 play 3"],
  {"winner": 1, "points": [0, 2], "stake": "truc", "end": "tricks"})
# C4.3 a refused truc gives the announcers 1.
w("c4_3_truc_refused", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 truc", "p0 play 4", "p1 refuse"],
  {"winner": 0, "points": [1, 0], "stake": 1, "end": "refused", "tricks": []})
# C4.3 / C4.4 retruc at once as the answer; refused -> the retruc side scores 2.
w("c4_3_retruc_refused", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 truc", "p0 play 4", "p1 retruc", "p1 play 3", "p2 refuse"],
  {"winner": 1, "points": [0, 2], "stake": "truc", "end": "refused"})
# C4.4 the accepting side retrucs later (p1 in trick 2), accepted by p2's card; team 1 wins
# tricks 2 and 3 at stake 3.
w("c4_4_retruc_later", "truc_catalan", 3, ["3 12 7", "4 2 3", "5 1 6", "6 5 4"],
  ["p0 truc", "p0 play 3", "p1 play 4", "p2 play 5", "p3 play 6",
   "p0 play 12", "p1 retruc", "p1 play 2", "p2 play 1", "p3 play 5",
   "p1 play 3", "p2 play 6", "p3 play 4", "p0 play 7"],
  {"winner": 1, "points": [0, 3], "stake": "retruc", "tricks": ["0", "1", "1"], "end": "tricks"})
# C5.1 one side (team 0) at 11 declines: the opponents score 1. Seat 0 decides.
w("c5_1_decline", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 decline"], {"winner": 1, "points": [0, 1], "end": "declined", "returns": [-1, 1, -1, 1]},
  scores=[11, 5])
# C5.2 go and win: 1 point, the game. Same cards as c1_3.
w("c5_2_go_win", "truc_catalan", 3, ["3 4 5", "2 6 7", "12 4 5", "1 6 7"],
  ["p0 go", "p0 play 3", "p1 play 2", "p2 play 4", "p3 play 1",
   "p0 play 4", "p1 play 6", "p2 play 12", "p3 play 6"],
  {"winner": 0, "points": [1, 0], "end": "tricks", "returns": [1, -1, 1, -1],
   "scores_after": [12, 5], "games_after": [1, 0]}, scores=[11, 5])
# C5.2 go and lose: the opponents score 3 (returns capped at 12-5 = 7: 3).
w("c5_2_go_lose", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 go", "p0 play 4", "p1 play 3", "p2 play 5", "p3 play 4", "p1 play 3"],
  {"winner": 1, "points": [0, 3], "end": "tricks", "returns": [-3, 3, -3, 3]}, scores=[11, 5])
# C5.2 the dealer's side (team 1) at 11 goes; all three tricks void -> non-dealers (team 0)
# win, so team 1 lost: team 0 scores 3. Seat 1 decides (team 1's first from seat 0).
w("c5_2_go_all_void_dealer_side", "truc_catalan", 3, ["3 2 1", "3 2 1", "4 4 4", "5 5 5"],
  ["p1 go", "p0 play 3", "p1 play 3", "p2 play 4", "p3 play 5",
   "p0 play 2", "p1 play 2", "p2 play 4", "p3 play 5",
   "p0 play 1", "p1 play 1", "p2 play 4", "p3 play 5"],
  {"winner": 0, "points": [3, 0], "tricks": ["void", "void", "void"], "end": "tricks"},
  scores=[4, 11])
# C5.3 both at 11: no decision, played for 1.
w("c5_3_both_at_11", "truc_catalan", 3, ["3 4 5", "2 6 7", "12 4 5", "1 6 7"],
  ["p0 play 3", "p1 play 2", "p2 play 4", "p3 play 1",
   "p0 play 4", "p1 play 6", "p2 play 12", "p3 play 6"],
  {"winner": 0, "points": [1, 0], "end": "tricks", "games_after": [1, 0]}, scores=[11, 11])
# C7 one card each: the single trick void -> non-dealers (team 0) win.
# Dealer 0: seat 1 leads, the non-dealers are team 1. After p3 ties p2's 3 nothing can beat
# the 3s and a further tie keeps the trick void: certain at once (G2.4), team 1 wins.
w("c7_one_card_void", "truc_catalan", 0, ["5", "4", "3", "3"],
  ["p1 play 4", "p2 play 3", "p3 play 3"],
  {"winner": 1, "points": [0, 1], "tricks": [], "end": "tricks"}, hand_size=1)
# One card, dealer 3: a 3 led by the non-dealers' p0 wins or is tied (void -> non-dealers):
# team 0 wins whatever follows, so the deal ends at the lead.
w("c7_one_card_certain_at_lead", "truc_catalan", 3, ["3", "3", "4", "4"],
  ["p0 play 3"], {"winner": 0, "points": [1, 0], "tricks": [], "end": "tricks"}, hand_size=1)
# two players (dealer 1, seat 0 leads). G3.7: truc answered at once, then the card. p0 wins
# trick 1 and leads a 3, which nothing beats: certain at once (C2.3).
w("c4_2_2p_truc_accept", "truc_catalan_2p", 1, ["3 3 4", "1 12 5"],
  ["p0 truc", "p1 accept", "p0 play 3", "p1 play 5", "p0 play 3"],
  {"winner": 0, "points": [2, 0], "stake": "truc", "tricks": ["0"], "end": "tricks"})
# 2p retruc as the answer, refused: p1 scores 2.
w("c4_3_2p_retruc_refused", "truc_catalan_2p", 1, ["3 2 4", "1 12 5"],
  ["p0 truc", "p1 retruc", "p0 refuse"],
  {"winner": 1, "points": [0, 2], "stake": "truc", "end": "refused"})
# 2p follower trucs (C4.2 any player at their card turn), refused.
w("c4_2_2p_follower_truc_refused", "truc_catalan_2p", 1, ["3 2 4", "1 12 5"],
  ["p0 play 4", "p1 truc", "p0 refuse"],
  {"winner": 1, "points": [0, 1], "stake": 1, "end": "refused"})
# 2p all void: non-dealer p0 wins.
w("c2_2_2p_all_void", "truc_catalan_2p", 1, ["3 2 1", "3 2 1"],
  ["p0 play 3", "p1 play 3", "p0 play 2", "p1 play 2", "p0 play 1", "p1 play 1"],
  {"winner": 0, "points": [1, 0], "tricks": ["void", "void", "void"], "end": "tricks"})
# 2p one from the end: p1 (the dealer) at 11 decides after seeing the cards; declines.
w("c5_1_2p_decline", "truc_catalan_2p", 1, ["3 2 1", "4 5 6"], ["p1 decline"],
  {"winner": 0, "points": [1, 0], "end": "declined"}, scores=[3, 11])
# bad: the truc side may not retruc (C4.4 / G3.5): p2 raises over its side's truc.
w("bad_c4_4_truc_side_retrucs", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 truc", "p0 play 4", "p1 play 3", "p2 raise", "p2 play 5"], bad=(3, "G3.5"))
# bad: the last player of a trick may not truc (G3.6).
w("bad_g3_6_last_player_trucs", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 play 4", "p1 play 3", "p2 play 5", "p3 truc", "p3 play 4"], bad=(3, "G3.6"))
# bad: a truc out of turn does not count (G3.4).
w("bad_g3_4_truc_out_of_turn", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 play 4", "p2 truc"], bad=(1, "G3.4"))
# bad: no raise one from the end (C5.2).
w("bad_c5_2_raise_at_11", "truc_catalan", 3, ["4 5 6", "3 3 7", "5 6 7", "4 10 10"],
  ["p0 go", "p0 raise"], bad=(1, "C5.2"), scores=[11, 5])
# bad: not a card of the Spanish deck (C1.3): an 8.
w("bad_c1_3_no_eights", "truc_catalan_2p", 1, ["3 2 4", "1 12 5"],
  ["p0 play 8"], bad=(0, "H"))

# ---------------- French Truc 1912 (ranks 7 8 A R D V 10 9) -----------------------------
# F1.1 order 7 > 8 > A > R; dealer 3, p0 redeal? keep. Team 0: p0 7, p2 A; team 1: p1 8, p3 R.
# Trick 1 p0's 7 wins; trick 2 p0 leads 7 again: nothing beats it -> deal certain at once.
w("f1_1_rank_order_keep", "truc_1912", 3, ["7 7 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 keep", "p0 play 7", "p1 play 8", "p2 play A", "p3 play R", "p0 play 7"],
  {"winner": 0, "points": [1, 0], "tricks": ["0"], "end": "tricks"})
# F2.2 the proposal is rejected by p2: the first cards are played.
w("f2_2_redeal_rejected", "truc_1912", 3, ["7 7 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 redeal", "p1 agree", "p2 reject", "p0 play 7", "p1 play 8", "p2 play A", "p3 play R",
   "p0 play 7"],
  {"winner": 0, "points": [1, 0], "tricks": ["0"], "end": "tricks"})
# F2.3 all agree: the second hands are dealt from the rest (four 7s: two in the first hands,
# two in the second) and must be played (F2.4). Team 1's p1 7 wins trick 1, then leads 7.
w("f2_3_redeal_taken", "truc_1912", 3, ["7 7 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 redeal", "p1 agree", "p2 agree", "p3 agree",
   "p0 play D", "p1 play 7", "p2 play D", "p3 play V", "p1 play 7"],
  {"winner": 1, "points": [0, 1], "tricks": ["1"], "end": "tricks"},
  hands2=["D D 8", "7 7 A", "D 8 R", "V A R"])
# bad F2.4: no second proposal after the fresh deal (the first card turn follows).
w("bad_f2_4_second_redeal", "truc_1912", 3, ["7 7 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 redeal", "p1 agree", "p2 agree", "p3 agree", "p0 redeal"], bad=(4, "F2.1"),
  hands2=["D D 8", "7 7 A", "D 8 R", "V A R"])
# F3.1 raises alternate without limit, +1 each: 2 (p0), 3 (p1), 4 (p2); p3 refuses -> team 0
# scores the value before the refused raise: 3.
w("f3_1_raises_alternate_refused", "truc_1912", 3, ["7 D 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 keep", "p0 raise", "p0 play 9", "p1 raise", "p1 play 8", "p2 raise", "p2 play A",
   "p3 refuse"],
  {"winner": 0, "points": [3, 0], "stake": 3, "end": "refused", "tricks": []})
# F3.3 rest accepted by the next card and won by team 1 at 3 : 7 -> team 1 scores 12 - 7 = 5,
# wins the game: games [0, 1], both sides restart at 0 (no carry in 1912).
w("f3_3_rest_won", "truc_1912", 3, ["9 D 9", "7 7 10", "A 9 10", "R V 10"],
  ["p0 keep", "p0 play 9", "p1 rest", "p1 play 7", "p2 play A", "p3 play R", "p1 play 7"],
  {"winner": 1, "points": [0, 5], "stake": "rest", "end": "tricks", "returns": [-5, 5, -5, 5],
   "scores_after": [0, 0], "games_after": [0, 1]}, scores=[3, 7])
# F3.3 rest refused: the value before (1).
w("f3_3_rest_refused", "truc_1912", 3, ["9 D 9", "7 7 10", "A 9 10", "R V 10"],
  ["p0 keep", "p0 play 9", "p1 rest", "p1 play 7", "p2 refuse"],
  {"winner": 1, "points": [0, 1], "stake": 1, "end": "refused"}, scores=[3, 7])
# F4.1 the second game won ends the match: games_won [1, 0], team 0 at 11 goes and wins.
w("f4_1_second_game_wins_match", "truc_1912", 3, ["7 7 9", "8 9 10", "A 9 10", "R V 10"],
  ["p0 keep", "p0 go", "p0 play 7", "p1 play 8", "p2 play A", "p3 play R", "p0 play 7"],
  {"winner": 0, "points": [1, 0], "games_after": [2, 0], "scores_after": [12, 4]},
  scores=[11, 4], games_won=[1, 0])

# ---------------- Trut (ranks 8 7 A R D V 10 9; a trut is 3 points) --------------------
# T4.2 the seed's example: A (team 0) 2 truts 1 point, B (team 1) 3 truts 2 points. B calls
# trut (p1, after p0's card), p2 accepts by playing, B wins: A 2 truts 0 points, B 4 truts
# and keeps its 2 points.
w("t4_2_seed_example_trut_won", "trut", 3, ["9 10 V", "8 8 7", "10 V D", "9 D R"],
  ["p0 play 9", "p1 trut", "p1 play 8", "p2 play 10", "p3 play 9", "p1 play 8"],
  {"winner": 1, "points": [0, 3], "stake": "trut", "end": "tricks",
   "scores_after": [0, 2], "games_after": [2, 4], "returns": [-3, 3, -3, 3]},
  scores=[1, 2], games_won=[2, 3])
# T4.2 had A given up (refused the trut): B scores its point, 2 + 1 = 3 -> a trut: 2 : 4,
# no surplus on either side.
w("t4_2_seed_example_trut_refused", "trut", 3, ["9 10 V", "8 8 7", "10 V D", "9 D R"],
  ["p0 play 9", "p1 trut", "p1 play 8", "p2 refuse"],
  {"winner": 1, "points": [0, 1], "stake": 1, "end": "refused",
   "scores_after": [0, 0], "games_after": [2, 4]},
  scores=[1, 2], games_won=[2, 3])
# T1.1 ranks 8 > 7 > A; T3.1 a deal is worth 1; T4.1 team 0 at 2 wins a point -> a trut,
# surplus 0, team 1's 2 points go to 0.
w("t1_1_rank_order_trut_by_points", "trut", 3, ["8 8 9", "7 9 10", "A 9 10", "7 V 10"],
  ["p0 play 8", "p1 play 7", "p2 play A", "p3 play 7", "p0 play 8"],
  {"winner": 0, "points": [1, 0], "stake": 1, "scores_after": [0, 0], "games_after": [1, 0]},
  scores=[2, 2])
# T5 no one-from-end rule: at 2 : 2 a trut may be called; here a re-raise is impossible
# (the ladder's top is trut), so p1 can only accept (play) or refuse.
w("t5_no_one_from_end_trut_at_2", "trut", 3, ["8 8 9", "7 9 10", "A 9 10", "7 V 10"],
  ["p0 trut", "p0 play 8", "p1 play 7", "p2 play A", "p3 play 7", "p0 play 8"],
  {"winner": 0, "points": [3, 0], "stake": "trut", "scores_after": [2, 0],
   "games_after": [1, 0], "returns": [3, -3, 3, -3]}, scores=[2, 2])
# T2.1 the fifth trut wins the match (deal-mode result; games_after 5).
w("t2_1_fifth_trut", "trut", 3, ["8 8 9", "7 9 10", "A 9 10", "7 V 10"],
  ["p0 play 8", "p1 play 7", "p2 play A", "p3 play 7", "p0 play 8"],
  {"winner": 0, "points": [1, 0], "games_after": [5, 3], "scores_after": [3, 1]},
  scores=[2, 1], games_won=[4, 3])
# bad: a second raise over trut (G3.1 top of the ladder).
w("bad_t3_1_only_trut", "trut", 3, ["8 8 9", "7 9 10", "A 9 10", "7 V 10"],
  ["p0 trut", "p0 play 8", "p1 raise"], bad=(2, "G3.1"))

# ---------------- Put (ranks 3 2 A K Q J 10 9 8 7 6 5 4; dealer 1, p0 non-dealer) -------
# P5.1 the non-dealer concedes: the dealer scores 1.
w("p5_1_nondealer_concedes", "put", 1, ["4 5 6", "3 3 2"], ["p0 concede"],
  {"winner": 1, "points": [0, 1], "end": "conceded", "stake": 1})
# P5.1 put refused: the putter scores 1.
w("p5_1_put_refused", "put", 1, ["3 3 2", "4 5 6"], ["p0 put", "p1 refuse"],
  {"winner": 0, "points": [1, 0], "end": "refused", "stake": 1})
# P5.1 put accepted; p0 wins two tricks: the game, 5 - 1 = 4 points. (After trick 1, p0's
# 3 led to trick 2 could still be tied by p1: one trick and a tie, then trick 3 to p1 would
# be trick and tie, so the deal goes on until p1's card.)
w("p5_1_put_accepted_won", "put", 1, ["3 3 2", "4 5 6"],
  ["p0 put", "p1 accept", "p0 play 3", "p1 play 4", "p0 play 3", "p1 play 5"],
  {"winner": 0, "points": [4, 0], "end": "tricks", "stake": "put", "tricks": ["0", "0"],
   "games_after": [1, 0]}, scores=[1, 0])
# P5.2 the dealer concedes after the non-dealer's card: the non-dealer scores 1.
w("p5_2_dealer_concedes", "put", 1, ["3 3 2", "4 5 6"], ["p0 play 2", "p1 concede"],
  {"winner": 0, "points": [1, 0], "end": "conceded", "tricks": []})
# P5.2 the dealer puts, the non-dealer accepts, then the dealer plays; dealer wins 2 tricks.
w("p5_2_dealer_puts", "put", 1, ["4 5 6", "3 3 2"],
  ["p0 play 4", "p1 put", "p0 accept", "p1 play 3", "p1 play 3", "p0 play 5"],
  {"winner": 1, "points": [0, 5], "end": "tricks", "stake": "put", "tricks": ["1", "1"]})
# P5.3 both played trick 1 (the dealer won it): the non-dealer concedes before trick 2.
w("p5_3_nondealer_concedes_after_trick1", "put", 1, ["4 5 6", "3 3 2"],
  ["p0 play 4", "p1 play 3", "p0 concede"],
  {"winner": 1, "points": [0, 1], "end": "conceded", "tricks": ["1"]})
# P5.3 the non-dealer puts (after winning trick 1), accepted; trick 2 to p1, trick 3 tied:
# trick and tie -> a draw (P2.2), nothing scored.
w("p2_2_trick_and_tie_draw", "put", 1, ["3 4 K", "2 2 K"],
  ["p0 play 3", "p1 play 2", "p0 put", "p1 accept", "p0 play 4", "p1 play 2",
   "p1 play K", "p0 play K"],
  {"points": [0, 0], "end": "draw", "tricks": ["0", "1", "void"],
   "returns": [0, 0]})
# P2.2 one trick and two ties wins: void, void, then p0's A beats K.
w("p2_2_one_trick_two_ties", "put", 1, ["3 2 A", "3 2 K"],
  ["p0 put", "p1 accept", "p0 play 3", "p1 play 3", "p0 play 2", "p1 play 2",
   "p0 play A", "p1 play K"],
  {"winner": 0, "points": [5, 0], "end": "tricks", "tricks": ["void", "void", "0"]})
# P2.2 all tied: a draw, nothing scored (end all_void).
w("p2_2_all_tied", "put", 1, ["3 2 A", "3 2 A"],
  ["p0 put", "p1 accept", "p0 play 3", "p1 play 3", "p0 play 2", "p1 play 2",
   "p0 play A", "p1 play A"],
  {"points": [0, 0], "end": "all_void", "tricks": ["void", "void", "void"]})
# Cotton's "high game" (the seed): victim p0 3-2-2 puts, the dealer's 3-3-2 makes two tricks.
w("p_seed_cotton_high_game", "put", 1, ["3 2 2", "3 3 2"],
  ["p0 put", "p1 accept", "p0 play 2", "p1 play 3", "p1 play 3", "p0 play 2"],
  {"winner": 1, "points": [0, 5], "end": "tricks", "tricks": ["1", "1"]})
# P3.1 target 7: a won put is worth 7 - 2 = 5.
w("p3_1_target_7", "put", 1, ["3 3 2", "4 5 6"],
  ["p0 put", "p1 accept", "p0 play 3", "p1 play 4", "p0 play 3", "p1 play 5"],
  {"winner": 0, "points": [5, 0], "stake": "put"}, scores=[2, 3], target=7)
# bad: P5.3 the non-dealer may not simply play on before trick 2.
w("bad_p5_3_play_on", "put", 1, ["4 5 6", "3 3 2"],
  ["p0 play 4", "p1 play 3", "p1 play 3"], bad=(2, "G1.1"))
# bad: P5.3 in the decision the non-dealer concedes or puts: playing a card is refused.
w("bad_p5_3_card_in_decision", "put", 1, ["3 5 6", "4 3 2"],
  ["p0 play 3", "p1 play 4", "p0 play 5"], bad=(2, "P5.3"))
# bad: a put over a put (G3.1).
w("bad_p4_1_put_over_put", "put", 1, ["3 5 6", "4 3 2"],
  ["p0 put", "p1 put"], bad=(1, "G3.1"))

# ---------------- partnership Put (P6; 4p, teams {0,2} {1,3}; hands of 3) --------------------
# P6.1 / P6.2 / P6.3, dealer 3: the non-dealers are team 0; p0 speaks and gives: p2 plays,
# p0 hands over his best card (3) and lays 4 5 away; p2 holds 2 9 8 3 and lays 8 away. Then
# the dealer's side: the dealer p3 speaks (chooser "named") and takes: p1 hands over K, p3
# holds A 6 7 K and lays 7 away. P6.4: p2 (the non-dealers' active) leads: 3 beats A, team 0;
# P5.3: p2 puts, p3 refuses -> team 0 scores 1.
w("p6_1_give_best_card_then_put_refused", "put_partnership", 3,
  ["3 4 5", "K Q 4", "2 9 8", "A 6 7"],
  ["p0 give", "p2 discard 8", "p3 take", "p3 discard 7", "p2 play 3", "p3 play A", "p2 put",
   "p3 refuse"],
  {"winner": 0, "points": [1, 0], "end": "refused", "stake": 1, "tricks": ["0"],
   "returns": [1, -1, 1, -1]})
# P6.2 the card handed over is the partner's best: dealer 0, the non-dealers are team 1; p1
# gives: his best of 6 6 7 is the 7 (3 2 A K Q J 10 9 8 7 6 5 4), p3 lays it away (holds
# 3 3 2). The dealer p0 gives: his best of 4 4 5 is the 5, p2 (5 6 7 5) lays a 5 away. p3
# leads and puts at once (P5.1), p2 accepts; 3 beats 7, then 3 beats 6: two tricks, the game
# (5 - 0 = 5 points). After the second 3 two 3s are unseen (undealt) so a tie was possible
# and the deal ran to p2's card.
w("p6_2_best_card_handed_put_won", "put_partnership", 0,
  ["4 4 5", "6 6 7", "5 6 7", "3 3 2"],
  ["p1 give", "p3 discard 7", "p0 give", "p2 discard 5", "p3 put", "p2 accept", "p3 play 3",
   "p2 play 7", "p3 play 3", "p2 play 6"],
  {"winner": 1, "points": [0, 5], "end": "tricks", "stake": "put", "tricks": ["1", "1"],
   "games_after": [0, 1]})
# P6.3 / P6.5 the card laid away is face down, so still unseen (G2.4): dealer 3; p0 takes
# (p2's best 6 handed, laid away again); p3 takes (p1's best, a 3) and lays that 3 away.
# Trick 1 3 / 3 void (P5.3: p0 puts, p3 accepts); p0 leads again; trick 2: p0's 3 could
# still be tied by the 3 that is unseen (laid away), so p3 plays J; team 0. Trick 3: p0's 2
# could be beaten by that 3 (team 0 one trick and a tie, team 1 one trick: a draw), so the
# deal is not certain at p0's lead; p3's 10 ends it: team 0, the game.
w("p6_3_laid_away_card_stays_unseen", "put_partnership", 3,
  ["3 3 2", "3 K Q", "4 5 6", "3 J 10"],
  ["p0 take", "p0 discard 6", "p3 take", "p3 discard 3", "p0 play 3", "p3 play 3", "p0 put",
   "p3 accept", "p0 play 3", "p3 play J", "p0 play 2", "p3 play 10"],
  {"winner": 0, "points": [5, 0], "end": "tricks", "stake": "put",
   "tricks": ["void", "0", "0"]})
# P6.1 knob chooser = "order": the dealer's side speaks through its first seat in playing
# order, the dealer's partner. Dealer 1: p2 speaks for team 0 and takes (p0's 6 handed, laid
# away); p3 speaks for team 1 and gives: p1 plays (p3's best, the 2, handed; p1 lays 7 away).
# P5.1: p2, the non-dealers' active player, concedes at the first lead: team 1 scores 1.
w("p6_1_chooser_order_nondealer_concedes", "put_partnership", 1,
  ["4 5 6", "7 8 9", "10 J Q", "K A 2"],
  ["p2 take", "p2 discard 6", "p3 give", "p1 discard 7", "p2 concede"],
  {"winner": 1, "points": [0, 1], "end": "conceded", "tricks": []}, chooser="order")
# P6.4 the dealer's side's active player has the dealer's part (P5.2): dealer 2, p3 (team 1)
# takes (p1's 3 handed, p3 lays J away: K Q 3); the dealer p2 gives: p0 plays (p2's 8
# handed; p0 lays a 4 away). p3 leads K; p0 concedes at his follow: team 1 scores 1.
w("p6_4_dealer_side_concedes", "put_partnership", 2,
  ["4 4 5", "3 2 A", "6 7 8", "K Q J"],
  ["p3 take", "p3 discard J", "p2 give", "p0 discard 4", "p3 play K", "p0 concede"],
  {"winner": 1, "points": [0, 1], "end": "conceded", "tricks": []})
# P6.4 / P2.2 trick and tie between the active players: dealer 3, p0 takes (p2's 8, laid
# away); p3 gives (p3's J to p1, laid away). A / A void; p0 puts, p1 accepts; K beats 5
# (team 0); p0's 4 could be beaten (draw) or not (team 0) until p1's Q beats it: one trick
# each and a tie, a draw, nothing scored.
w("p6_4_trick_and_tie_draw", "put_partnership", 3,
  ["A K 4", "A Q 5", "6 7 8", "9 10 J"],
  ["p0 take", "p0 discard 8", "p3 give", "p1 discard J", "p0 play A", "p1 play A", "p0 put",
   "p1 accept", "p0 play K", "p1 play 5", "p0 play 4", "p1 play Q"],
  {"points": [0, 0], "end": "draw", "stake": "put", "tricks": ["void", "0", "1"]})
# bad: the non-dealer p0 speaks for team 0 (P6.1), not his partner.
w("bad_p6_1_partner_speaks", "put_partnership", 3, ["3 4 5", "K Q 4", "2 9 8", "A 6 7"],
  ["p2 take"], bad=(0, "P6.1"))
# bad: p2 holds 2 9 8 and the handed 3; no K to lay away (P6.3).
w("bad_p6_3_discard_not_held", "put_partnership", 3, ["3 4 5", "K Q 4", "2 9 8", "A 6 7"],
  ["p0 give", "p2 discard K"], bad=(1, "P6.3"))
# bad: p0 gave the hand to p2 and plays no card (P6.4: only the active players play).
w("bad_p6_4_inactive_partner_plays", "put_partnership", 3, ["3 4 5", "K Q 4", "2 9 8", "A 6 7"],
  ["p0 give", "p2 discard 8", "p3 take", "p3 discard 7", "p0 play 4"], bad=(4, "P6.4"))
# bad: p0 laid the handed 6 away, so he cannot play it (P6.3, G1.1).
w("bad_p6_3_laid_away_card_played", "put_partnership", 3, ["3 3 2", "3 K Q", "4 5 6", "3 J 10"],
  ["p0 take", "p0 discard 6", "p3 take", "p3 discard 3", "p0 play 6"], bad=(4, "G1.1"))
