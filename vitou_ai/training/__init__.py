"""Training as a library: the training loops, periodic evaluation, checkpoint and resume,
and the run-folder format (``run.json``, ``policy.npz``, ``curve.csv``, ``curve.png``,
``checkpoint.npz`` and the run lock of :class:`vitou_ai.io.RunLock`).

``vitou-ai train`` (:mod:`vitou_ai.commands.train`) only parses its arguments into the
settings of this package and prints what the trainers report.
"""
