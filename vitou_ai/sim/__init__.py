"""Batch simulation over the rules kernel (random streams: :mod:`vitou_ai.rng`, below
both the bots and the simulator).

- :mod:`.random_play`: uniformly random play (the quickstart and kernel benchmark).
- :mod:`.batch`: deals or matches between policies (:mod:`vitou_ai.bots`), results as
  arrays and DataFrames, duplicate deals and seat rotation.
"""
