"""Vitou (or a family game) for one seat against fixed bots, as a Gymnasium environment.

::

    import gymnasium, vitou_ai.envs
    env = gymnasium.make("vitou_ai/Vitou-v0", profile="vitou_2p", opponents=["counter"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(obs["action_mask"].argmax()))

(``gymnasium.make("vitou_ai.envs:vitou_ai/Vitou-v0", ...)`` imports the module itself.)

- ``profile``: any profile, the Truc / Put family included
  (``docs/RULES_family.md``); ``**knobs``: fields of :class:`VitouParams`.
- ``opponents``: bot specs (:func:`vitou_ai.bots.parse_bot`: ``random``,
  ``cautious``, ``bluffer``, ``counter``, ``counter:bluff=0.2``, a ``.npz``
  policy file, ``nfsp:PATH`` ...) or policy objects; one entry plays every
  other seat, or one per other seat in seat order. Bots play inside the
  kernel's policy interface (``choose_action``), seeded from ``reset``.
  A neural bot has one output per action id of its game
  (``params.num_actions``) and must be of this game.
- A ``search`` bot (``search:counter,budget=0.1``, :mod:`vitou_ai.search`)
  re-solves the deal at each of its decisions
  (:meth:`~vitou_ai.search.bot.SearchPolicy.act`) from the state right after
  the deal and the actions since (``KernelTable.deal_start``,
  ``deal_actions``), as :mod:`vitou_ai.eval.search_match` plays it; in match
  mode each deal is searched as one deal at the current scores (R8.1: it
  plays for points, not for the match, as in ``vitou-ai play``); before the
  deal (2p blind window, R9.2) and in a four-player deal with a team at
  ``target - 1`` (R6.1, not a public subgame) it plays its blueprint. Its random
  draws come from a ``numpy`` Generator seeded from ``reset``; its budget is
  wall time, so a seeded episode repeats exactly only when its searches stop
  at their iteration cap (``iters=``) before the budget. It must fit the game
  (:func:`vitou_ai.search.bot.check_fits`: no signals, a profile with public
  subgames, no gadget ``safe=`` with four players, a blueprint of this game).
- Observation and actions as in ``vitou_v0``: ``{"observation": float32[N],
  "action_mask": int8[A]}``, ``Discrete(A)`` with the rules' ids, where
  ``A = params.num_actions`` (22 for the Vitou profiles, 31 for the family).
  The mask is also ``info["action_mask"]`` and ``action_masks()`` (``bool[A]``,
  sb3-contrib's ``MaskablePPO``).
- Reward at the end: the seat's points per deal (deal mode, R8.1) or the
  match result +1 / -1 / 0 (match mode, R8.2).
- An episode starts at the seat's first decision: a deal that ends before it
  (R6.1 / R6.2 decisions of others at one from the end) is skipped and counted
  in ``info["skipped_deals"]``.
- Opponents' fallbacks: ``info["opponent_decisions"]`` and
  ``info["opponent_fallbacks"]`` (ints, from ``reset`` and ``step``) count the
  opponents' decisions this episode (skipped deals included) and those where a
  tabular or abstract opponent had no strategy and its fallback played
  (:func:`vitou_ai.bots.policy.decide`); a share above
  :data:`vitou_ai.sim.batch.FALLBACK_LIMIT` means the opponent is largely its
  fallback (random play for a table without one). Search bots are not counted.
- Illegal actions (``illegal_action=``). ``"terminate"`` (default, PettingZoo's
  ``TerminateIllegalWrapper`` for one agent): the episode ends
  (``terminated=True``) with reward ``illegal_reward`` and
  ``info["illegal_action"]`` (the message naming the action, the rule and the
  legal actions) and ``info["illegal_move"] = True``; the default
  ``illegal_reward`` is the game's worst return (-1 in match mode, minus the
  most points a deal can score in deal mode), so that a learner without masks
  never finds breaking a rule better than losing. It is the default because a
  Gymnasium environment must take any action of its action space (Gymnasium's
  ``check_env`` and its users' unmasked agents sample the whole of
  ``Discrete(A)``), and ending the episode keeps every episode finite.
  ``"raise"``: raises :class:`vitou_ai.rules.IllegalActionError` and changes
  nothing (for debugging masked agents). ``"refuse"``: returns the same
  observation, reward 0, not terminated, with ``info["illegal_action"]``.
  A non-integer action, or an id outside ``Discrete(A)``, raises in every mode;
  so does ``step`` after the episode's end (``gymnasium.error.ResetNeeded``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "vitou_ai.envs needs Gymnasium: pip install 'vitou_ai[envs]' "
        f"(import failed: {exc})"
    ) from exc

import numpy as np

from ..bots.abstract import AbstractPolicy
from ..bots.abstract import check_fits as abstract_fits
from ..bots.named import parse_bot
from ..bots.neural import NeuralPolicy
from ..bots.neural import check_fits as neural_fits
from ..bots.policy import Policy, decide, pack_policies, scratch
from ..bots.tabular import TabularPolicy
from ..bots.tabular import check_fits as tabular_fits
from ..rng import UINT64_MAX, check_seed, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.game import IllegalActionError
from ..rules.params import VitouParams
from .core import ID_SLOTS, KernelTable, illegal_step, search_action

#: Handling of an illegal action (module docstring); the first is the default.
ILLEGAL_MODES = ("terminate", "raise", "refuse")


def _is_search(bot) -> bool:
    """A :class:`~vitou_ai.search.bot.SearchPolicy` (by its kind: the search package, and
    the solvers it loads, are imported only when one is given)."""
    return getattr(bot, "kind", None) == "search"


class VitouEnv(gymnasium.Env):
    """One seat of Vitou against bots (module docstring).

    Args:
        profile: any profile of :data:`vitou_ai.rules.params.ALL_PROFILES`.
        opponents: bot specs or policies, 1 or ``players - 1`` of them.
        seat: the learner's seat, ``0 .. players-1``.
        render_mode: ``None`` or ``"ansi"``.
        illegal_action: ``"terminate"`` (default), ``"raise"`` or ``"refuse"``.
        illegal_reward: the reward of an illegal action under ``"terminate"``;
            ``None`` (default): the game's worst return (``KernelTable.worst_return``).
        **knobs: fields of :class:`VitouParams`.

    Raises:
        ValueError: a bad knob, seat, opponent spec, count of opponents, render
            mode or ``illegal_action``; a bot of another game; a search bot that
            does not fit the game (one line, :func:`vitou_ai.search.bot.check_fits`).
        OSError: a policy file that cannot be read.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, profile: str = "vitou", opponents: Sequence[str | Policy] = ("random",),
                 seat: int = 0, render_mode: str | None = None,
                 illegal_action: str = "terminate", illegal_reward: float | None = None,
                 **knobs):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"Vitou-v0: render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"Vitou-v0: illegal_action must be one of {ILLEGAL_MODES}, "
                             f"got {illegal_action!r}")
        if "scores" in knobs:
            knobs["scores"] = tuple(knobs["scores"])
        self.params = VitouParams(profile=profile, **knobs)
        n = self.params.players
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < n:
            raise ValueError(f"Vitou-v0: seat must be in 0..{n - 1}, got {seat!r}")
        if isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) not in (1, n - 1):
            how = ("1 opponent" if n == 2 else
                   f"1 opponent (played by every other seat) or {n - 1}, one per other seat")
            raise ValueError(f"Vitou-v0: give {how} for {self.params.profile}, "
                             f"got {len(opponents)}")
        if len(opponents) == 1:
            opponents = opponents * (n - 1)
        bots = [parse_bot(b) if isinstance(b, str) else b for b in opponents]
        for b in bots:
            if _is_search(b):
                from ..search.bot import check_fits as search_fits

                try:
                    search_fits(b, self.params)
                except ValueError as e:
                    raise ValueError(f"Vitou-v0: {e}") from None
            elif isinstance(b, TabularPolicy):
                tabular_fits(b, self.params)
            elif isinstance(b, NeuralPolicy):
                neural_fits(b, self.params)
            elif isinstance(b, AbstractPolicy):
                abstract_fits(b, self.params)
        self.seat = int(seat)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.table = KernelTable(self.params, track_deal=any(_is_search(b) for b in bots))
        if illegal_reward is None:
            self.illegal_reward = self.table.worst_return()
        else:
            try:
                self.illegal_reward = float(illegal_reward)
            except (TypeError, ValueError):
                raise ValueError(f"Vitou-v0: illegal_reward must be a number (or None: the "
                                 f"game's worst return), got {illegal_reward!r}") from None
            if not math.isfinite(self.illegal_reward):
                raise ValueError(f"Vitou-v0: illegal_reward must be finite, got "
                                 f"{illegal_reward!r}")
        self.num_actions = self.table.num_actions
        others = [s for s in range(n) if s != self.seat]
        # the simulator's bots, packed for choose_action (a search bot acts from Python)
        unique: list[Policy] = []
        for b in bots:
            if not _is_search(b) and all(b is not u for u in unique):
                unique.append(b)
        self.bots = dict(zip(others, bots, strict=True))
        self._pack = pack_policies(unique) if unique else None
        self._pi = {s: next(k for k, u in enumerate(unique) if u is b)
                    for s, b in self.bots.items() if not _is_search(b)}
        self._searching = frozenset(s for s, b in self.bots.items() if _is_search(b))
        _, self._keybuf, self._iwork, self._bot_rng = scratch()
        self._search_rng = np.random.default_rng(0)  # reseeded by reset()
        self._legal = np.empty(ID_SLOTS, np.int64)  # room for the family's ids
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, self.table.obs_high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(self.num_actions)
        self._over = True  # before reset(), after the end or an illegal "terminate"
        self._opp_decisions = self._opp_fallbacks = 0  # this episode's (reset())

    # ---- the bots ------------------------------------------------------------------------
    def _play_bots(self) -> int:
        """Let bots act until the learner's turn or the end; return the player to act."""
        t = self.table
        player = t.player
        while player != L.TERMINAL_PLAYER and player != self.seat:
            if player in self._searching:
                a = search_action(t, self.bots[player], self._search_rng)
            else:
                n_legal = K.legal_actions(t.p, t.a, self._legal)
                a, fell = decide(self._pack, self._pi[player], t.p, t.a, player,
                                 self._bot_rng, self._legal, n_legal, self._keybuf,
                                 self._iwork)
                self._opp_decisions += 1
                self._opp_fallbacks += int(fell)
            player = t.apply(int(a))
        return player

    def _mask(self) -> np.ndarray:
        if self._over or self.table.player != self.seat:
            return np.zeros(self.num_actions, np.int8)
        return self.table.action_mask()

    def _obs(self) -> dict:
        return {"observation": self.table.infostate_tensor(self.seat), "action_mask": self._mask()}

    def action_masks(self) -> np.ndarray:
        """``bool[num_actions]``: the learner's legal actions now (sb3-contrib
        ``MaskablePPO``); all false once the episode is over."""
        return self._mask().astype(bool)

    # ---- the Gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # the package's seed range (Gymnasium took True as 1)
            seed = check_seed(seed, "seed", UINT64_MAX)
        super().reset(seed=seed)
        # Both streams come from np_random: a seeded reset fixes the whole episode,
        # and an unseeded one continues deterministically.
        s = int(self.np_random.integers(0, 2**63))
        self.table.seed(s)
        self._bot_rng[0] = row_seed(np.uint64(s), np.uint64(1))
        if self._searching:  # a Generator costs tens of us to seed: only when used
            self._search_rng = np.random.default_rng([s, 2])
        skipped = 0
        self._opp_decisions = self._opp_fallbacks = 0
        while True:
            self.table.new_game()
            if self._play_bots() == self.seat:
                break
            skipped += 1
        self._over = False
        obs = self._obs()
        return obs, {"skipped_deals": skipped, "action_mask": obs["action_mask"].copy(),
                     **self._fallback_info()}

    def step(self, action):
        if self._over:
            raise gymnasium.error.ResetNeeded(
                "Vitou-v0: the episode is over (or never started); call reset()")
        try:
            action = self.table.action_id(action)  # outside the space: raises in every mode
        except IllegalActionError as exc:
            raise IllegalActionError(f"Vitou-v0, seat {self.seat}: {exc}", exc.rule) from None
        except TypeError as exc:
            raise TypeError(f"Vitou-v0, seat {self.seat}: {exc}") from None
        try:
            self.table.check(action)
        except IllegalActionError as exc:
            where = f"Vitou-v0, seat {self.seat}: {exc}"
            return illegal_step(self, "Vitou-v0", where, IllegalActionError(where, exc.rule))
        self.table.apply(action)
        player = self._play_bots()
        if player == L.TERMINAL_PLAYER:
            self._over = True
            deal = self.table.last_deal()
            info = {} if deal is None else {"end": deal.end, "points": deal.points,
                                            "stake": deal.stake}
            obs = self._obs()
            info["action_mask"] = obs["action_mask"].copy()
            info.update(self._fallback_info())
            return obs, float(self.table.returns()[self.seat]), True, False, info
        obs = self._obs()
        return obs, 0.0, False, False, {"action_mask": obs["action_mask"].copy(),
                                        **self._fallback_info()}

    def _fallback_info(self) -> dict:
        return {"opponent_decisions": self._opp_decisions,
                "opponent_fallbacks": self._opp_fallbacks}

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("Vitou-v0: render() called without a render_mode; "
                                  "use render_mode='ansi'")
            return None
        return self.table.render()
