"""The ``vitou-ai`` command line and what only it uses; library code never imports from here.

- :mod:`.cli`: the entry point (``vitou-ai``, ``python -m vitou_ai``), its subcommands
  ``demo``, ``replay``, ``simulate`` and the dispatch to the others;
- :mod:`.train`: ``vitou-ai train``, its arguments mapped onto the settings of the
  library's trainers (:mod:`vitou_ai.training`), and :mod:`.train_match` /
  :mod:`.train_match_4p`, ``--objective match``;
- :mod:`.tournament`: ``vitou-ai tournament`` (front of :mod:`vitou_ai.eval.tournament`);
- :mod:`.play`: ``vitou-ai play``, a match in the terminal against bots;
- :mod:`.match_equity`: ``vitou-ai match-equity`` (front of :mod:`vitou_ai.match_equity`);
- :mod:`.vint`: ``vitou-ai play|tournament --game vint`` (Vint's own parser);
- :mod:`.console`: the plumbing they share (help format; output folders, progress, Ctrl-C
  from :mod:`vitou_ai.training.session`).
"""
