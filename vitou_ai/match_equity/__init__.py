"""Match equity: the probability of winning the match from a score, and the score sweeps.

- :mod:`.two_player`: the match-equity table of ``vitou_2p``, solved exactly deal by
  deal with match-equity payoffs (and the score-conditioned policies it yields);
- :mod:`.four_player`: the table of four-player ``vitou``, estimated by simulating a
  given policy at every score;
- :mod:`.score_rates`: raise and refusal rates by score of the two-player policies
  (match objective against points objective), from :mod:`vitou_ai.eval.analysis`;
- :mod:`.sweep`: many independent solves (one per score state) as Ray tasks or
  serially, resumable, one result file per key.

The commands over them are ``vitou-ai match-equity`` (:mod:`vitou_ai.commands.match_equity`)
and ``vitou-ai train --objective match`` (:mod:`vitou_ai.training.match`).
"""
