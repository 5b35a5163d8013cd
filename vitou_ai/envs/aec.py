"""Vitou and its family as a PettingZoo AEC environment (``vitou_v0``), on the rules kernel.

Laid out as PettingZoo's classic card games (``leduc_holdem_v4``)::

    from vitou_ai.envs import vitou_v0
    env = vitou_v0.env(profile="vitou", render_mode="ansi")   # every VitouParams knob
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

- Every profile: ``vitou``, ``vitou_cason``, ``vitou_2p`` and the Truc / Put
  family (``truc_catalan``, ``truc_catalan_2p``, ``truc_1912``, ``trut``,
  ``put``; ``docs/RULES_family.md``). Agents ``player_0`` .. ``player_{n-1}``
  are the seats (four players: team = seat % 2; two players: team = seat).
  Any knob of :class:`VitouParams` (``mode``, ``dealer``, ``scores``,
  ``target``, ``early_end``, ``signals``, ``signal_seen``, ``ranks``,
  ``copies``, ``hand_size``, ``max_deals``, and the family's ``direction``,
  ``games``, ``games_won``) is a keyword argument; a bad value raises
  ``ValueError`` at construction.
- Observation: ``{"observation": float32[N], "action_mask": int8[A]}``, the
  information-state tensor of ``python_vitou`` (perfect recall within a
  deal) and the mask of the rules' action ids (``docs/kernel_interface.md``),
  all zero for an agent not to act. ``A = params.num_actions``: 22 for the
  Vitou profiles, 31 for the family (its low ranks, concede, rest, redeal, keep).
- Actions: ``Discrete(A)``, the rules' ids (``0..7 play`` the eight highest
  ranks, ``8 raise``, ``9 accept``, ``10 refuse``, ..., ``22..26`` the family's
  lower ranks, ``27 concede``, ``28 rest``, ``29 redeal``, ``30 keep``).
- Rewards, at the end only: deal mode, points per deal for each seat (R8.1);
  match mode (``mode="match"``), the match result +1 / -1 / 0 (R8.2).
- Illegal actions (``illegal_action=``). ``"raise"`` (default): the action
  raises :class:`vitou_ai.rules.IllegalActionError` (a ``ValueError`` naming
  the action, the seat, the rule and the legal actions) and changes nothing,
  the same agent is still to act. Every observation carries the mask and
  PettingZoo's ``api_test`` samples through it, so an illegal action here is
  a bug of the caller, and an error shows it where it happens.
  ``"terminate"``: PettingZoo's ``TerminateIllegalWrapper`` (its classic
  games' convention): the game ends for every agent, the offender's reward is
  ``illegal_reward`` and the others' 0, and the offender's info has
  ``illegal_move=True`` and ``illegal_action`` (the message). The default
  ``illegal_reward`` is the game's worst return (-1 in match mode, minus the
  most points a deal can score in deal mode), so that breaking a rule never
  pays better than losing. An id outside the action space, or a non-integer,
  raises in every mode.
- Chance (the deal, a drawn dealer, caught gestures) is sampled from a stream
  seeded by ``reset(seed=...)``; ``reset()`` without a seed continues it.
"""

from __future__ import annotations

try:
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "vitou_ai.envs needs PettingZoo and Gymnasium: pip install 'vitou_ai[envs]' "
        f"(import failed: {exc})"
    ) from exc

import numpy as np

from ..rng import UINT64_MAX, check_seed
from ..rules import layout as L
from ..rules.game import IllegalActionError
from ..rules.params import VitouParams
from .core import KernelTable

#: Handling of an illegal action (module docstring); the first is the default.
ILLEGAL_MODES = ("raise", "terminate")


def env(**kwargs) -> AECEnv:
    """The environment in PettingZoo's ``OrderEnforcingWrapper``. Illegal actions
    are handled by the environment itself (``illegal_action=``, module docstring):
    PettingZoo's ``TerminateIllegalWrapper`` is ``illegal_action="terminate"``."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's name for the unwrapped class
    """Vitou, one deal or a match, as an AEC environment (module docstring).

    Args:
        profile: any profile of :data:`vitou_ai.rules.params.ALL_PROFILES`.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the table as text).
        illegal_action: ``"raise"`` (default) or ``"terminate"``.
        illegal_reward: the offender's reward under ``"terminate"``; ``None``
            (default): the game's worst return (``KernelTable.worst_return``).
        **knobs: fields of :class:`VitouParams`.

    Raises:
        ValueError: an invalid knob, render mode or ``illegal_action``.
    """

    metadata = {"render_modes": ["ansi"], "name": "vitou_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, profile: str = "vitou", render_mode: str | None = None,
                 illegal_action: str = "raise", illegal_reward: float | None = None, **knobs):
        EzPickle.__init__(self, profile=profile, render_mode=render_mode,
                          illegal_action=illegal_action, illegal_reward=illegal_reward, **knobs)
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"vitou_v0: render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"vitou_v0: illegal_action must be one of {ILLEGAL_MODES}, "
                             f"got {illegal_action!r}")
        if "scores" in knobs:
            knobs["scores"] = tuple(knobs["scores"])
        self.params = VitouParams(profile=profile, **knobs)
        self.render_mode = render_mode
        self.table = KernelTable(self.params)
        self.illegal_action = illegal_action
        self.illegal_reward = (self.table.worst_return() if illegal_reward is None
                               else float(illegal_reward))
        self.num_actions = self.table.num_actions
        self.possible_agents = [f"player_{i}" for i in range(self.params.players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, self.table.obs_high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self._seeded = False
        self._over = True  # no game before reset(); also set when an illegal action ends it

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = self._seat[agent]
        mask = (self.table.action_mask() if seat == self.table.player and not self._over
                else np.zeros(self.num_actions, np.int8))
        return {"observation": self.table.infostate_tensor(seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.table.seed(check_seed(seed, "seed", UINT64_MAX))
        elif not self._seeded:
            self.table.seed(int(np.random.SeedSequence().entropy) % 2**64)  # 128 bits
        self._seeded = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        player = self.table.new_game()
        self._over = False
        if player == L.TERMINAL_PLAYER:  # a deal that needs no decision (not in Vitou)
            self._finish()
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[player]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            action = self.table.action_id(action)  # outside the space: raises in every mode
            try:
                self.table.check(action)
            except IllegalActionError as exc:
                if self.illegal_action == "raise":
                    raise
                self._terminate_illegal(agent, f"vitou_v0, {agent}: {exc}")
                return
        except IllegalActionError as exc:  # refused before anything changed
            raise IllegalActionError(f"vitou_v0, {agent}: {exc}", exc.rule) from None
        except TypeError as exc:
            raise TypeError(f"vitou_v0, {agent}: {exc}") from None
        player = self.table.apply(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if player == L.TERMINAL_PLAYER:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[player]
        self._accumulate_rewards()
        self._deads_step_first()

    def _terminate_illegal(self, agent: str, message: str) -> None:
        """``illegal_action="terminate"``: as PettingZoo's ``TerminateIllegalWrapper``."""
        from gymnasium import logger

        # One text, so Python's warning filter shows it once (the message is in info).
        logger.warn("vitou_v0: an illegal action ended the game (illegal_action='terminate'); "
                    "the offender's info['illegal_action'] names it")
        self._over = True
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        for a in self.agents:
            self.terminations[a] = True
        self.rewards[agent] = self.illegal_reward
        self.infos[agent] = {"illegal_move": True, "illegal_action": message}
        self._accumulate_rewards()
        self._deads_step_first()

    def _finish(self) -> None:
        self._over = True
        returns = self.table.returns()
        deal = self.table.last_deal()
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = float(returns[i])
            self.terminations[a] = True
            if deal is not None:
                self.infos[a] = {"end": deal.end, "points": deal.points, "stake": deal.stake}

    def render(self) -> str | None:
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("vitou_v0: render() called without a render_mode; use render_mode='ansi'")
            return None
        return self.table.render()

    def close(self) -> None:
        pass
