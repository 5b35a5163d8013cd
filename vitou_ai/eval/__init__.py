"""Evaluation of bots and strategies: statistics (:mod:`.stats`), tournaments
(:mod:`.tournament`), local best response (:mod:`.lbr`) and the bluff analysis of a
policy on a deal's game tree (:mod:`.analysis`)."""
