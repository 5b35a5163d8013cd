"""Reinforcement-learning environments on the rules kernel (extra: ``pip install 'vitou_ai[envs]'``).

- :mod:`.vitou_v0`: the PettingZoo AEC environment, every profile and knob
  (``from vitou_ai.envs import vitou_v0; env = vitou_v0.env(profile="vitou")``).
- :mod:`.gym_env`: one seat against bots as a Gymnasium environment, registered
  as ``"vitou_ai/Vitou-v0"`` when this package is imported
  (``gymnasium.make("vitou_ai/Vitou-v0", opponents=["counter"])``); the bots may
  be ``search`` bots (``opponents=["search:counter,budget=0.1"]``).
- :mod:`.vint_v0` / :mod:`.vint`: Vint (``docs/RULES_vint.md``), one deal per
  episode: the PettingZoo AEC environment for the four seats
  (``from vitou_ai.envs import vint_v0; env = vint_v0.env()``) and one seat
  against Vint bots as Gymnasium's ``"vitou_ai/Vint-v0"``
  (``gymnasium.make("vitou_ai/Vint-v0", partner="heuristic", opponents="search")``).
- :mod:`.selfplay`: the AEC environment seen by one learner against a frozen
  snapshot at the other seats (PPO self-play with single-agent libraries).
- :mod:`.core`: the kernel driver they share (chance sampling, masks, tensors).
"""

from __future__ import annotations

ENV_ID = "vitou_ai/Vitou-v0"
VINT_ENV_ID = "vitou_ai/Vint-v0"


def register_envs() -> None:
    """Register ``vitou_ai/Vitou-v0`` and ``vitou_ai/Vint-v0`` with Gymnasium (idempotent;
    nothing without Gymnasium)."""
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - the envs extra is not installed
        return
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="vitou_ai.envs.gym_env:VitouEnv")
    if VINT_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=VINT_ENV_ID, entry_point="vitou_ai.envs.vint:VintEnv")


register_envs()
