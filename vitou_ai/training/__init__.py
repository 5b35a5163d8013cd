"""Training as a library: the training loops, periodic evaluation, checkpoint and resume,
and the run-folder format (``run.json``, ``policy.npz``, ``curve.csv``, ``curve.png``,
``checkpoint.npz`` and the run lock of :class:`vitou_ai.io.RunLock`).

- :mod:`.settings`: the typed settings (:class:`PointsSettings`,
  :class:`AbstractSettings`) and the one error, :class:`TrainingError`;
- :mod:`.dispatch`: :func:`choose_trainer` (which trainer, from explicit settings) and
  :func:`train` (runs it);
- :mod:`.points`: the trainer of the points objective, any solver of
  :data:`vitou_ai.solvers.registry.SOLVERS` on the real game, through the
  :class:`~vitou_ai.solvers.protocol.Solver` protocol; :mod:`.evaluation`: its periodic
  evaluation and the files it writes;
- :mod:`.abstract`: the four-player abstract-MCCFR trainer (a trainer of its own behind
  the same interface);
- :mod:`.match`: the two-player match objective (every score state solved with
  match-equity payoffs, one score-conditioned policy); :mod:`.match4p`: the four-player
  one (rounds of policy -> table -> policy);
- :mod:`.runfolder`: what every trainer writes and reads back in a run folder;
  :mod:`.session`: the run lock, Ctrl-C, notes and writability checks.

``vitou-ai train`` (:mod:`vitou_ai.commands.train`) only maps its arguments onto these
settings and prints what the trainers report or refuse.

Example:
    >>> from vitou_ai.training import PointsSettings, TrainingError, train
    >>> try:
    ...     train(PointsSettings(eval_deals=1))
    ... except TrainingError as e:
    ...     print(e)
    --iterations, --eval-every must be >= 1, --eval-deals >= 2
"""

from .dispatch import TRAINERS, choose_trainer, train
from .points import TrainingResult, train_points
from .settings import (
    AbstractSettings,
    PointsSettings,
    TrainingError,
    TrainingInterrupted,
)

__all__ = ["TRAINERS", "AbstractSettings", "PointsSettings", "TrainingError",
           "TrainingInterrupted", "TrainingResult", "choose_trainer", "train", "train_points"]
