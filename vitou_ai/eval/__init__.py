"""Evaluation of bots and strategies: statistics (:mod:`.stats`), tournaments
(:mod:`.tournament`), local best response (:mod:`.lbr`), the bluff analysis of a
policy on a deal's game tree (:mod:`.analysis`) and its sampled counterpart for games
without an exact tree, the four-player game among them (:mod:`.sampled_analysis`)."""
