"""Reinforcement-learning environments on the rules kernel (extra: ``pip install 'vitou_ai[envs]'``).

- :mod:`.vitou_v0`: the PettingZoo AEC environment, every profile and knob
  (``from vitou_ai.envs import vitou_v0; env = vitou_v0.env(profile="vitou")``).
- :mod:`.gym_env`: one seat against bots as a Gymnasium environment, registered
  as ``"vitou_ai/Vitou-v0"`` when this package is imported
  (``gymnasium.make("vitou_ai/Vitou-v0", opponents=["counter"])``).
- :mod:`.selfplay`: the AEC environment seen by one learner against a frozen
  snapshot at the other seats (PPO self-play with single-agent libraries).
- :mod:`.core`: the kernel driver they share (chance sampling, masks, tensors).
"""

from __future__ import annotations

ENV_ID = "vitou_ai/Vitou-v0"


def register_envs() -> None:
    """Register ``vitou_ai/Vitou-v0`` with Gymnasium (idempotent; nothing without Gymnasium)."""
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - the envs extra is not installed
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="vitou_ai.envs.gym_env:VitouEnv")


register_envs()
