"""Batch simulation over the rules kernel.

- :mod:`.rng`: counter-based random streams, one per batch row.
- :mod:`.random_play`: uniformly random play (the quickstart and kernel benchmark).
- :mod:`.batch`: deals or matches between policies (:mod:`vitou_ai.bots`), results as
  arrays and DataFrames, duplicate deals and seat rotation.
"""
