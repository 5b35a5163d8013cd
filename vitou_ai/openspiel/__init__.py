"""The OpenSpiel adapter of the rules kernel: the game ``python_vitou``.

- :mod:`.game`: the game and its states (importing :mod:`vitou_ai` registers it);
- :mod:`.observer`: its observers, for every ``pyspiel.IIGObservationType``;
- :mod:`.util`: what ``python_vitou`` and ``python_vint`` (:mod:`vitou_ai.vint.openspiel_game`)
  share: ``GameType``, parameter checking, the observers' tensor pieces.

OpenSpiel itself is the third-party package ``open_spiel`` (module ``pyspiel``), always
imported absolutely, so this package's name does not shadow it.
"""
