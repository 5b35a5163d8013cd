"""Self-play on the PettingZoo environment, seen by a single-agent learner.

:class:`SelfPlayEnv` is a Gymnasium view of ``vitou_v0`` for libraries that
train one agent (sb3-contrib's ``MaskablePPO``): each episode the learner takes
a seat drawn at random and every other seat is played by a frozen opponent
policy (a :class:`~vitou_ai.bots.neural.NeuralPolicy`, typically a recent
snapshot of the learner; uniformly random before the first), all through the
AEC API (``agent_iter`` / ``last`` / ``step``).

- Observation: the learner's information-state tensor (``float32[N]``);
  ``action_masks()`` gives its legal actions.
- Reward at the end: the learner's reward in ``vitou_v0`` (points per deal, or
  the match result in match mode).
- A deal that ends before the learner's first decision is skipped (as in
  ``Vitou-v0``).
"""

from __future__ import annotations

import gymnasium
import numpy as np

from ..bots.neural import NeuralPolicy
from ..bots.neural import check_fits as neural_fits
from .aec import raw_env


class SelfPlayEnv(gymnasium.Env):
    """One learner seat against a frozen policy at the other seats (module docstring).

    Args:
        profile: the profile; ``**knobs``: fields of :class:`VitouParams`.
        opponent: a :class:`NeuralPolicy` for the game, or ``None`` (uniform random).

    Raises:
        ValueError: a bad knob, or an opponent trained for another game.
    """

    metadata = {"render_modes": []}

    def __init__(self, profile: str = "vitou", opponent: NeuralPolicy | None = None, **knobs):
        self.aec = raw_env(profile=profile, **knobs)
        self.params = self.aec.params
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self.opponent = None
        self.set_opponent(opponent)
        self.seat = 0

    def set_opponent(self, policy: NeuralPolicy | None) -> None:
        """Play the other seats with ``policy`` from the next decision on."""
        if policy is not None:
            neural_fits(policy, self.params)
        self.opponent = policy

    def _opponent_action(self, agent: str, obs: dict) -> int:
        mask = obs["action_mask"].astype(bool)
        if self.opponent is None:
            p = mask / mask.sum()
        else:
            seat = self.aec.possible_agents.index(agent)
            p = self.opponent.action_probs(obs["observation"][None], mask[None], seat)[0]
        return int(self.np_random.choice(len(p), p=p))

    def _advance(self) -> tuple[bool, float]:
        """Play the other seats until the learner is to act; ``(over, learner's reward)``."""
        env, me = self.aec, self.aec.possible_agents[self.seat]
        while env.agents:
            agent = env.agent_selection
            obs, reward, term, trunc, _ = env.last()
            if agent == me:
                if term or trunc:
                    return True, float(reward)
                return False, 0.0
            env.step(None if term or trunc else self._opponent_action(agent, obs))
        return True, 0.0  # pragma: no cover - the learner is removed only after its last()

    def action_masks(self) -> np.ndarray:
        """``bool[22]``: the learner's legal actions now."""
        return self.aec.observe(self.aec.possible_agents[self.seat])["action_mask"].astype(bool)

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        skipped = 0
        while True:
            self.seat = int(self.np_random.integers(self.params.players))
            self.aec.reset(seed=int(self.np_random.integers(0, 2**63)))
            over, _ = self._advance()
            if not over:
                return self._obs(), {"seat": self.seat, "skipped_deals": skipped}
            skipped += 1

    def step(self, action):
        self.aec.step(int(action))
        over, reward = self._advance()
        return self._obs(), reward, over, False, {}
