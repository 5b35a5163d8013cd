"""Evaluation of bots: statistics (:mod:`.stats`) and tournaments (:mod:`.tournament`)."""
