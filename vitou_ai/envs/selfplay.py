"""Self-play on the PettingZoo environment, seen by a single-agent learner.

:class:`SelfPlayEnv` is a Gymnasium view of ``vitou_v0`` for libraries that
train one agent (sb3-contrib's ``MaskablePPO``): each episode the learner takes
a seat drawn at random and every other seat is played by a frozen opponent
policy (a :class:`~vitou_ai.bots.neural.NeuralPolicy`, typically a recent
snapshot of the learner; uniformly random before the first), all through the
AEC API (``agent_iter`` / ``last`` / ``step``). The opponent may also be a
``search`` bot (:class:`~vitou_ai.search.bot.SearchPolicy`), which re-solves
each deal from its start as in ``Vitou-v0`` (:func:`.core.search_action`).

- Any profile, the Truc / Put family included; actions ``Discrete(A)`` with
  ``A = params.num_actions`` (22 for Vitou, 31 for the family). A neural
  opponent has one output per action id of its game (``params.num_actions``).
- Observation: the learner's information-state tensor (``float32[N]``);
  ``action_masks()`` (``bool[A]``) and ``info["action_mask"]`` give its legal
  actions.
- Reward at the end: the learner's reward in ``vitou_v0`` (points per deal, or
  the match result in match mode).
- A deal that ends before the learner's first decision is skipped (as in
  ``Vitou-v0``).
- Illegal actions of the learner as in ``Vitou-v0``: ``illegal_action="terminate"``
  (default: the episode ends with reward ``illegal_reward``, by default the
  game's worst return, and ``info["illegal_action"]``), ``"raise"`` or
  ``"refuse"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import gymnasium
import numpy as np

from ..bots.neural import NeuralPolicy
from ..bots.neural import check_fits as neural_fits
from ..rules.game import IllegalActionError
from .aec import raw_env
from .core import search_action
from .gym_env import ILLEGAL_MODES

if TYPE_CHECKING:
    from ..search.bot import SearchPolicy


class SelfPlayEnv(gymnasium.Env):
    """One learner seat against a frozen policy at the other seats (module docstring).

    Args:
        profile: the profile; ``**knobs``: fields of :class:`VitouParams`.
        opponent: a :class:`NeuralPolicy` for the game, a search bot
            (:class:`~vitou_ai.search.bot.SearchPolicy`, or its spec string such as
            ``"search:counter,budget=0.1"``) that fits it, or ``None``
            (uniform random). Its random draws come from ``np_random`` (seeded by
            ``reset``).
        illegal_action: ``"terminate"`` (default), ``"raise"`` or ``"refuse"``.
        illegal_reward: the reward of an illegal action under ``"terminate"``;
            ``None`` (default): the game's worst return.

    Raises:
        ValueError: a bad knob or ``illegal_action``, a bot spec that does not parse or a
            policy of another kind (a named heuristic: use ``Vitou-v0``), or an opponent
            trained for another game (or for the Vitou action ids in a family game); a search bot
            that does not fit the game (:func:`vitou_ai.search.bot.check_fits`).
    """

    metadata = {"render_modes": []}

    def __init__(self, profile: str = "vitou", opponent: NeuralPolicy | str | None = None,
                 illegal_action: str = "terminate", illegal_reward: float | None = None,
                 **knobs):
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"SelfPlayEnv: illegal_action must be one of {ILLEGAL_MODES}, "
                             f"got {illegal_action!r}")
        self.aec = raw_env(profile=profile, illegal_action="raise",
                           illegal_reward=illegal_reward, **knobs)
        # a search opponent may be set at any time: every deal's start is kept
        self.aec.table.track_deal = True
        self.illegal_action = illegal_action
        self.illegal_reward = self.aec.illegal_reward
        self.params = self.aec.params
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self.opponent = None
        self.set_opponent(opponent)
        self.seat = 0
        self._over = True

    def set_opponent(self, policy: NeuralPolicy | SearchPolicy | str | None) -> None:
        """Play the other seats with ``policy`` from the next decision on (a bot spec
        string is parsed by :func:`~vitou_ai.bots.named.parse_bot`).

        Raises:
            ValueError: as the constructor (one line).
        """
        if isinstance(policy, str):  # a bot spec, as Vitou-v0 takes them
            from ..bots.named import parse_bot

            try:
                policy = parse_bot(policy)
            except ValueError as e:
                raise ValueError(f"SelfPlayEnv: {e}") from None
        if policy is not None and not isinstance(policy, NeuralPolicy) and \
                getattr(policy, "kind", None) != "search":
            raise ValueError(f"SelfPlayEnv: the opponent must be a neural policy, a search bot "
                             f"or None, got {getattr(policy, 'name', type(policy).__name__)!r}")
        if getattr(policy, "kind", None) == "search":
            from ..search.bot import check_fits as search_fits

            try:
                search_fits(policy, self.params)
            except ValueError as e:
                raise ValueError(f"SelfPlayEnv: {e}") from None
        elif policy is not None:
            neural_fits(policy, self.params)
        self.opponent = policy

    def _opponent_action(self, agent: str, obs: dict) -> int:
        if getattr(self.opponent, "kind", None) == "search":
            return search_action(self.aec.table, self.opponent, self.np_random)
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
        """``bool[num_actions]``: the learner's legal actions now (all false at the end)."""
        if self._over:
            return np.zeros(self.action_space.n, bool)
        return self.aec.observe(self.aec.possible_agents[self.seat])["action_mask"].astype(bool)

    def _obs(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self, **info) -> dict:
        info["action_mask"] = self.action_masks().astype(np.int8)
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # the package's seed range (Gymnasium took True as 1)
            from ..rng import UINT64_MAX, check_seed

            seed = check_seed(seed, "seed", UINT64_MAX)
        super().reset(seed=seed)
        skipped = 0
        while True:
            self.seat = int(self.np_random.integers(self.params.players))
            self.aec.reset(seed=int(self.np_random.integers(0, 2**63)))
            over, _ = self._advance()
            if not over:
                self._over = False
                return self._obs(), self._info(seat=self.seat, skipped_deals=skipped)
            skipped += 1

    def step(self, action):
        if self._over:
            raise gymnasium.error.ResetNeeded(
                "SelfPlayEnv: the episode is over (or never started); call reset()")
        table = self.aec.table
        action = table.action_id(action)  # outside the space: raises in every mode
        try:
            table.check(action)
        except IllegalActionError as exc:
            where = f"SelfPlayEnv, seat {self.seat}: {exc}"
            if self.illegal_action == "raise":
                raise IllegalActionError(where, exc.rule) from None
            if self.illegal_action == "refuse":
                return self._obs(), 0.0, False, False, self._info(illegal_action=where)
            gymnasium.logger.warn("SelfPlayEnv: an illegal action ended the episode "
                                  "(illegal_action='terminate'); info['illegal_action'] names it")
            self._over = True
            return self._obs(), self.illegal_reward, True, False, self._info(
                illegal_action=where, illegal_move=True)
        self.aec.step(action)
        over, reward = self._advance()
        self._over = over
        return self._obs(), reward, over, False, self._info()
