"""Writes tests/golden_family/p7_*.toml and tests/golden_family_bad/bad_p7_*.toml: Willughby's
Put for three or four, each for themselves (docs/RULES_family.md P7). Run from the repository
root. Every [expect] was worked out by hand from P7 before the first replay (comments give
the reasoning). Seats play in order s, s+1, ...; dealer d: seat d+1 leads trick 1. Rank order
3 2 A K Q J 10 9 8 7 6 5 4 (P1.1)."""
from pathlib import Path

import tomli_w

OUT = Path("tests/golden_family")
BAD = Path("tests/golden_family_bad")


def w(name, dealer, hands, actions, expect=None, bad=None, **knobs):
    d = {"profile": "put_willughby", "dealer": dealer, "hands": hands, "actions": actions}
    d.update(knobs)
    if expect is not None:
        d["expect"] = expect
    if bad is not None:
        d["expect_error"] = {"index": bad[0], "rule": bad[1]}
    (BAD if bad else OUT).joinpath(name + ".toml").write_text(tomli_w.dumps(d))


# P7.1 / P7.2, three players, four cards: dealer 0, p1 leads. Trick 1 p1's 3 beats J and 4;
# trick 2 p1's 2 beats Q and 5: p1 has two tricks first and wins; stake 1 from each of the
# two others (P7.5): +2, -1, -1.
w("p7_1_highest_wins_first_to_two", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 play 3", "p2 play J", "p0 play 4", "p1 play 2", "p2 play Q", "p0 play 5"],
  {"winner": 1, "returns": [-1, 2, -1], "tricks": ["1", "1"], "end": "tricks", "stake": 1})
# P7.1 tie: p1 3, p2 4, p0 3 -> the highest rank twice: void, p1 leads again. Trick 2 p1's
# 2 wins (p1: 1). Trick 3 p1 9, p2 K, p0 6: K wins (p2: 1), p2 leads. Trick 4 p2 Q, p0 7,
# p1 8: Q wins, p2's second trick.
w("p7_1_tie_for_highest_void_leader_again", 0, ["3 5 6 7", "3 2 9 8", "A K Q 4"],
  ["p1 play 3", "p2 play 4", "p0 play 3", "p1 play 2", "p2 play A", "p0 play 5",
   "p1 play 9", "p2 play K", "p0 play 6", "p2 play Q", "p0 play 7", "p1 play 8"],
  {"winner": 2, "returns": [-1, -1, 2], "tricks": ["void", "1", "2", "2"], "end": "tricks"})
# P7.1: a tie below the highest card does not void: p1 5, p2 5, p0 K -> p0 wins the trick.
# p0 leads trick 2: p0 A, p1 3 (beats A), p2 6 -> p1. Trick 3 p1 2, p2 7, p0 4 -> p1 (two).
w("p7_1_lower_tie_does_not_void", 0, ["K A 4 8", "5 3 2 9", "5 6 7 10"],
  ["p1 play 5", "p2 play 5", "p0 play K", "p0 play A", "p1 play 3", "p2 play 6",
   "p1 play 2", "p2 play 7", "p0 play 4"],
  {"winner": 1, "returns": [-1, 2, -1], "tricks": ["0", "1", "1"], "end": "tricks"})
# P7.2 draw at the end: trick 1 p1 3 > 5, 6 (p1); trick 2 p1 4, p2 3, p0 7 -> p2; trick 3
# p2 4, p0 A, p1 5 -> p0; trick 4 p0 2, p1 2, p2 6 -> tie for the 2: void. Everybody one
# trick, no tricks left: a draw, nobody pays.
w("p7_2_draw_nobody_two_tricks", 0, ["6 7 A 2", "3 4 5 2", "5 3 4 6"],
  ["p1 play 3", "p2 play 5", "p0 play 6", "p1 play 4", "p2 play 3", "p0 play 7",
   "p2 play 4", "p0 play A", "p1 play 5", "p0 play 2", "p1 play 2", "p2 play 6"],
  {"returns": [0, 0, 0], "tricks": ["1", "2", "0", "void"], "end": "draw", "stake": 1})
# P7.2 early draw, research hand of 3: two void tricks leave one trick, so nobody can reach
# two: the deal ends after trick 2, all tied (nobody pays).
w("p7_2_nobody_can_reach_two_ends_early", 0, ["3 2 4", "3 2 5", "A K 6"],
  ["p1 play 3", "p2 play A", "p0 play 3", "p1 play 2", "p2 play K", "p0 play 2"],
  {"returns": [0, 0, 0], "tricks": ["void", "void"], "end": "all_void"}, hand_size=3)
# P7.3 / P7.4 put at the first lead, both see: play as p7_1_highest_wins; p1 wins with the
# put's stake 5 from each of the two still in: +10, -5, -5.
w("p7_3_put_at_first_lead_all_see", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 put", "p2 see", "p0 see", "p1 play 3", "p2 play J", "p0 play 4",
   "p1 play 2", "p2 play Q", "p0 play 5"],
  {"winner": 1, "returns": [-5, 10, -5], "tricks": ["1", "1"], "end": "tricks",
   "stake": "put"})
# P7.3 a put at a later lead: p1 wins trick 1 and, leading trick 2, puts; p2 sees, p0 folds
# (out: plays no more). Trick 2 p1 2, p2 Q: p1's second trick. p2 pays 5, p0 nothing.
w("p7_3_put_at_later_lead_one_folds", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 play 3", "p2 play J", "p0 play 4", "p1 put", "p2 see", "p0 fold",
   "p1 play 2", "p2 play Q"],
  {"winner": 1, "returns": [0, 5, -5], "tricks": ["1", "1"], "end": "tricks",
   "stake": "put"})
# P7.4 / P7.5 the putter loses: p1 puts, p2 folds, p0 sees. Trick 1 p1 A, p0 3: p0 wins and
# leads; trick 2 p0 2, p1 K: p0's second trick. p0 is paid 5 by p1; p2 folded, pays nothing.
w("p7_5_putter_loses_folder_pays_nothing", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p2 fold", "p0 see", "p1 play A", "p0 play 3", "p0 play 2", "p1 play K"],
  {"winner": 0, "returns": [5, -5, 0], "tricks": ["0", "0"], "end": "tricks",
   "stake": "put"})
# P7.4 nobody sees: the putter wins at once and nobody pays (fold_pays = nothing).
w("p7_4_all_fold_putter_wins_unpaid", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p2 fold", "p0 fold"],
  {"winner": 1, "returns": [0, 0, 0], "tricks": [], "end": "folded", "stake": "put"})
# P7.5 fold_pays = stake: each folder pays the putter 1 (the stake before the put).
w("p7_5_fold_pays_stake_all_fold", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p2 fold", "p0 fold"],
  {"winner": 1, "returns": [-1, 2, -1], "end": "folded", "stake": "put"},
  fold_pays="stake")
# P7.5 put_stake = 3, fold_pays = stake, the putter loses: p2 (dealer 1, p2 leads) puts,
# p0 folds (pays p2 1), p1 sees. Trick 1 p2 4, p1 3: p1; trick 2 p1 2, p2 A: p1's second.
# p1 is paid 3 by p2; p0's 1 to p2 stands: p0 -1, p1 +3, p2 -3 + 1 = -2.
w("p7_5_put_stake_knob_fold_payment_stands", 1, ["A K Q J", "3 2 5 6", "4 A 7 8"],
  ["p2 put", "p0 fold", "p1 see", "p2 play 4", "p1 play 3", "p1 play 2", "p2 play A"],
  {"winner": 1, "returns": [-1, 3, -2], "tricks": ["1", "1"], "end": "tricks"},
  put_stake=3, fold_pays="stake")
# P7.0 four players, five cards: dealer 3, p0 leads. Trick 1 p0 3, p1 8, p2 4, p3 3: tie
# for the 3 -> void, p0 again. Trick 2 p0 4, p1 2, p2 A, p3 6: p1. Trick 3 p1 9, p2 Q, p3 7,
# p0 5: p2. Trick 4 p2 K, p3 8, p0 6, p1 10: p2's second trick; three pay 1 each.
w("p7_0_four_players_five_cards", 3,
  ["3 4 5 6 7", "2 8 9 10 J", "A Q K 4 5", "3 6 7 8 9"],
  ["p0 play 3", "p1 play 8", "p2 play 4", "p3 play 3",
   "p0 play 4", "p1 play 2", "p2 play A", "p3 play 6",
   "p1 play 9", "p2 play Q", "p3 play 7", "p0 play 5",
   "p2 play K", "p3 play 8", "p0 play 6", "p1 play 10"],
  {"winner": 2, "returns": [-1, -1, 3, -1], "tricks": ["void", "1", "2", "2"],
   "end": "tricks", "stake": 1}, players=4)
# P7.4 four players: the see round runs from the putter's left, all three others in turn.
# dealer 3, p0 puts; p1 folds, p2 sees, p3 folds. p0 and p2 play: p0 3 beats p2 A, p0 2
# beats p2 K: p0 paid 5 by p2 only.
w("p7_4_four_players_see_round_in_order", 3,
  ["3 2 4 5 6", "Q J 10 9 8", "A K 7 6 5", "Q J 10 9 8"],
  ["p0 put", "p1 fold", "p2 see", "p3 fold", "p0 play 3", "p2 play A",
   "p0 play 2", "p2 play K"],
  {"winner": 0, "returns": [5, 0, -5, 0], "tricks": ["0", "0"], "end": "tricks"},
  players=4)

# ---------------- refused histories ----------------------------------------------------------
# P7.3: a put only at the lead: p2 follows and may not put.
w("bad_p7_3_put_not_at_the_lead", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 play 3", "p2 put"], bad=(1, "P7.3"))
# P7.3: one put a deal: after the see round and a trick, the next leader may not put again.
w("bad_p7_3_second_put", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 put", "p2 see", "p0 see", "p1 play 3", "p2 play J", "p0 play 4", "p1 put"],
  bad=(6, "P7.3"))
# P7.4: a folded player plays no more cards.
w("bad_p7_4_folded_player_plays", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p2 fold", "p0 see", "p1 play A", "p2 play Q"], bad=(4, "P7.4"))
# P7.4: see answers a put; without one it is not an action.
w("bad_p7_4_see_without_put", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 see"], bad=(0, "P7.4"))
# P7.4: the see round runs from the putter's left: p0 may not answer before p2.
w("bad_p7_4_answer_out_of_order", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p0 see"], bad=(1, "P7.4"))
# P7.3: no concession in Willughby's Put.
w("bad_p7_3_no_concede", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 concede"], bad=(0, "P7.3"))
# P7.4: after a put, the putter waits for the answers before leading.
w("bad_p7_4_putter_plays_before_answers", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p1 play A"], bad=(1, "P7.4"))
# P7.2: the deal is over once a player has two tricks (p1 here): no card after it.
w("bad_p7_2_card_after_the_end", 0, ["4 5 6 7", "3 2 9 8", "A K Q J"],
  ["p1 play 3", "p2 play J", "p0 play 4", "p1 play 2", "p2 play Q", "p0 play 5",
   "p1 play 9"], bad=(6, "P7.2"))
# P7.4: everybody folded, the putter has won: nothing after it.
w("bad_p7_4_card_after_all_fold", 0, ["3 2 4 5", "A K 6 7", "Q J 10 9"],
  ["p1 put", "p2 fold", "p0 fold", "p1 play A"], bad=(3, "P7.4"))
