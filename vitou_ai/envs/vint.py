"""Vint (``docs/RULES_vint.md``) as RL environments, on the Vint kernel (:mod:`vitou_ai.vint`).

Two environments, one deal per episode (auction and play)::

    from vitou_ai.envs import vint_v0                      # PettingZoo AEC, four seats
    env = vint_v0.env(render_mode="ansi")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else \\
            env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

    import gymnasium, vitou_ai.envs                        # Gymnasium, one seat vs bots
    env = gymnasium.make("vitou_ai/Vint-v0", partner="heuristic", opponents="search")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

- Agents ``player_0`` .. ``player_3`` are the seats; partners sit opposite
  (side = seat % 2). Knobs: those of :class:`vitou_ai.vint.VintParams`
  (``dealer`` 0..3, ``short_auction``, ``scoring``, ``slam_small``,
  ``slam_grand``), with ``dealer="random"`` drawing the dealer of each
  episode from the seeded stream; a bad value raises ``ValueError``.
- Actions: ``Discrete(88)``, the rules' ids (V10.2): ``0..51`` play the card
  ``suit * 13 + rank`` (suits S C D H, rank 12 = ace), ``52`` pass,
  ``53 + 5 * (level - 1) + denom`` bid (denom S C D H NT).
- Observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[88]}``.
  ``observation`` starts with ``python_vint``'s information-state tensor
  (``INFOSTATE_SIZE`` = 3403: seat, dealer, own dealt hand, the whole auction,
  every card played in order) and adds pieces derived from it for convenience
  (``EXTRA_PIECES``: phase, who is to act, own cards held now, the high bid,
  its bidder and the passes since, the cards each seat has played, the
  current trick by seat, the tricks of each side; seats relative to the
  observer: 0 self, 1 left, 2 partner, 3 right). Nothing depends on a card
  another seat holds unseen. ``action_mask`` is the kernel's legal actions,
  all zero for an agent not to act and at the end.
- Rewards, at the end of the deal only: V6.5's deal difference in points,
  ``[+x, -x, +x, -x]`` (side 0 minus side 1, ``python_vint``'s returns; a
  thrown-in hand gives zeros), times ``reward_scale`` (default 1: points).
- Illegal actions: AEC ``illegal_action="raise"`` by default
  (:class:`vitou_ai.vint.VintRuleError`, naming the rule and the legal
  actions; nothing changes), or ``"terminate"`` (PettingZoo's
  ``TerminateIllegalWrapper``: the deal ends, the offender gets
  ``illegal_reward`` and the others 0). Gymnasium ``"terminate"`` by default,
  ``"raise"`` or ``"refuse"`` (same observation, reward 0). The default
  ``illegal_reward`` is the game's worst return, ``-utility_bound(params) *
  reward_scale`` (``vitou_ai.vint.openspiel_game.utility_bound``: -59 196
  points under the default Moscow scoring, -128 910 under Foster's), so
  breaking a rule never pays better than any deal. A non-integer action or an id outside ``0..87``
  raises in every mode.
- Seeds: ``reset(seed=...)`` fixes the deal (and, in Gymnasium, the bots'
  choices); ``reset()`` without a seed continues the stream. Nothing reads the
  global NumPy or ``random`` state. ``reset(options={"hands": [m0, m1, m2, m3],
  "dealer": d})`` deals given 52-bit card masks instead.
- ``render_mode``: ``"ansi"`` (``render()`` returns the table, all hands shown)
  or ``"human"`` (prints it).

One module because the kernel driver, the observation layout and the two
environments over it share one table object and its buffers; the Vitou
environments are split into ``core`` / ``aec`` / ``gym_env``, and this module may
follow when it grows.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

try:
    import gymnasium
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
import pyspiel

from ..openspiel.util import Pieces
from ..rng import UINT64_MAX, check_seed
from ..vint import kernel as K
from ..vint import layout as L
from ..vint.bots import BOT_NAMES, View, make_bot
from ..vint.game import (
    VintParams,
    VintRuleError,
    VintState,
    action_str,
    bid_str,
    card_str,
    hand_str,
)
from ..vint.openspiel_game import VintInfoStateObserver, game_string, utility_bound
from ..vint.table import deal_hands
from .core import illegal_step

NUM_ACTIONS = L.NUM_ACTIONS  # 88

#: Pieces after the information-state tensor (name, shape); seats relative to the observer.
EXTRA_PIECES = (
    ("phase", (3,)),  # auction, play, over
    ("to_act", (4,)),  # the seat to act (zeros at the end)
    ("held", (52,)),  # own cards still held
    ("high_bid", (35,)),  # the highest bid so far (the contract once the auction ends)
    ("bidder", (4,)),  # its bidder (the declarer)
    ("passes", (13,)),  # passes in a row since the last bid (or the start)
    ("played_by", (4, 52)),  # cards played by each seat
    ("trick", (4, 52)),  # the current trick's cards, by seat
    ("tricks", (2, 14)),  # tricks taken by the observer's side, by the other side
)
_OBSERVER = VintInfoStateObserver(pyspiel.IIGObservationType(perfect_recall=True))
INFOSTATE_SIZE = int(_OBSERVER.tensor.shape[0])  # 3403
OBS_SIZE = INFOSTATE_SIZE + sum(int(np.prod(s)) for _, s in EXTRA_PIECES)
#: Every piece of the observation vector in order: ``python_vint``'s information state
#: (``player``, ``dealer``, ``hand``, ``opening_passes``, ``bids``, ``play``), then the extras.
OBS_PIECES = tuple((k, tuple(v.shape)) for k, v in _OBSERVER.dict.items()) + EXTRA_PIECES


def obs_pieces(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Named views (:data:`OBS_PIECES`) into an observation vector ``float32[OBS_SIZE]``."""
    out, i = {}, 0
    for name, shape in OBS_PIECES:
        size = int(np.prod(shape))
        out[name] = observation[i:i + size].reshape(shape)
        i += size
    return out

_KNOBS = ("dealer", "short_auction", "scoring", "slam_small", "slam_grand")


def make_params(name: str, knobs: dict) -> tuple[VintParams, bool]:
    """:class:`VintParams` from keyword knobs (``dealer="random"`` allowed) and whether the
    dealer is drawn. Raises ValueError in one line, prefixed with ``name``."""
    unknown = sorted(set(knobs) - set(_KNOBS))
    if unknown:
        raise ValueError(f"{name}: unknown knob(s) {unknown}; known: {list(_KNOBS)}")
    knobs = dict(knobs)
    drawn = knobs.get("dealer") == "random"
    if drawn:
        knobs["dealer"] = 0
    try:
        return VintParams(**knobs), drawn
    except ValueError as exc:
        raise ValueError(f"{name}: {exc} (or dealer='random')" if "dealer" in str(exc)
                         else f"{name}: {exc}") from None


def _check_scale(name: str, reward_scale) -> float:
    if isinstance(reward_scale, bool) or not isinstance(reward_scale, int | float | np.number) \
            or not math.isfinite(reward_scale) or reward_scale <= 0:
        raise ValueError(f"{name}: reward_scale must be a finite number > 0, got {reward_scale!r}")
    return float(reward_scale)


class VintTable:
    """One Vint deal on the kernel: the state array, the player actions so far (as
    ``python_vint``'s ``hist``, ``seat * 128 + action``), observations and masks.

    Args:
        params: the deal's :class:`VintParams` (``params.dealer`` unless ``deal`` says).
    """

    def __init__(self, params: VintParams):
        self.params = params
        self.deal_params = params
        self.parr = params.to_array()
        self.a = K.new_state(self.parr)
        self.hist: tuple[int, ...] = ()
        self.calls: list[tuple[int, int]] = []
        self.plays: list[tuple[int, int]] = []
        self._buf = np.empty(52, np.int64)
        self.observer = VintInfoStateObserver(pyspiel.IIGObservationType(perfect_recall=True))
        self._extra = Pieces(list(EXTRA_PIECES))

    # ---- dealing ----------------------------------------------------------------------------
    def deal(self, hands: Sequence[int], dealer: int) -> None:
        """A fresh deal of the four card masks ``hands`` with ``dealer`` (ValueError if bad)."""
        self.deal_params = dataclasses.replace(self.params, dealer=dealer)
        self.parr = self.deal_params.to_array()
        st = VintState(self.deal_params, parr=self.parr)
        st.deal([int(h) for h in hands])
        self.a = st.arr
        self.hist = ()
        self.calls, self.plays = [], []

    def deal_random(self, rng: random.Random, draw_dealer: bool) -> None:
        dealer = rng.randrange(4) if draw_dealer else self.params.dealer
        self.deal(deal_hands(rng, dealer), dealer)

    def game_string(self) -> str:
        """``python_vint``'s ``load_game`` string for this deal (its dealer and knobs)."""
        return game_string(self.deal_params)

    def chance_outcomes(self) -> list[int]:
        """The deal as ``python_vint``'s 52 chance outcomes (V1.2 order, each seat's
        cards ascending): replaying them gives this deal."""
        dealer = int(self.a[L.S_DEALER])
        cards = [[c for c in range(52) if int(self.a[L.S_ORIG + s]) >> c & 1] for s in range(4)]
        return [cards[(dealer + 1 + k) % 4][k // 4] for k in range(52)]

    # ---- queries ----------------------------------------------------------------------------
    @property
    def player(self) -> int:
        """Seat to act, -1 at the end."""
        return int(self.a[L.S_TOMOVE]) if not self.is_terminal() else -1

    def is_terminal(self) -> bool:
        return int(self.a[L.S_PHASE]) == L.PH_OVER

    def legal_actions(self) -> list[int]:
        n = K.legal_actions(self.a, self._buf)
        return self._buf[:n].tolist()

    def action_mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, np.int8)
        m[self.legal_actions()] = 1
        return m

    def state(self) -> VintState:
        """A checked copy of the state (:class:`VintState`)."""
        return VintState(self.deal_params, self.a.copy(), self.parr)

    def difference(self) -> int:
        """V6.5: side 0's points minus side 1's (0 before the end, and for a thrown-in hand)."""
        return self.state().difference() if self.is_terminal() else 0

    # ---- acting -----------------------------------------------------------------------------
    @staticmethod
    def action_id(action) -> int:
        """``action`` as an int in ``0..87``. Raises TypeError / VintRuleError (V9.1)."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise TypeError(f"an action is an integer id 0..{NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise VintRuleError(f"action id {action} is not a Vint action "
                                f"(0..{NUM_ACTIONS - 1}) [V9.1]", "V9.1")
        return action

    def check(self, action: int) -> None:
        """Raise :class:`VintRuleError` (rule, action, legal actions) unless ``action`` is
        legal now; nothing changes."""
        legal = self.legal_actions()
        if action in legal:
            return
        try:
            self.state().apply(action)
        except VintRuleError as exc:
            shown = ", ".join(action_str(a) for a in legal) or "none"
            raise VintRuleError(f"{action_str(action)} (id {action}): {exc} [{exc.rule}]; "
                                f"legal: {shown}", exc.rule) from None
        raise VintRuleError(f"action {action} is illegal here")  # pragma: no cover

    def apply(self, action: int) -> int:
        """Apply a legal action (:meth:`check` first); return the next seat, -1 at the end."""
        seat = self.player
        code = K.apply_action(self.a, action)
        if code != L.OK:  # pragma: no cover - check() comes first
            raise VintRuleError(f"kernel refused action {action}", L.ERROR_RULES.get(code))
        self.hist = self.hist + (seat * 128 + action,)
        (self.calls if action >= L.PASS else self.plays).append((seat, action))
        return self.player

    def bot_act(self, bot, rng: random.Random) -> int:
        """``bot``'s action at the seat to act (its :class:`View`: own cards and public play)."""
        seat = self.player
        return int(bot.act(View(seat, self.state(), list(self.calls), list(self.plays)), rng))

    # ---- observation ------------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """A new ``float32[OBS_SIZE]``: ``seat``'s information-state tensor, then
        :data:`EXTRA_PIECES` (module docstring)."""
        a = self.a
        self.observer.set_from(self, seat)  # reads .a and .hist, as python_vint's state
        x = self._extra
        x.tensor.fill(0)
        d = x.dict
        ph = int(a[L.S_PHASE])
        d["phase"][ph - L.PH_AUCTION] = 1
        if ph != L.PH_OVER:
            d["to_act"][(int(a[L.S_TOMOVE]) - seat) % 4] = 1
        held = int(a[L.S_HAND + seat])
        for c in range(52):
            if held >> c & 1:
                d["held"][c] = 1
        bid = int(a[L.S_BID])
        if bid >= 0:
            d["high_bid"][bid] = 1
            d["bidder"][(int(a[L.S_BIDDER]) - seat) % 4] = 1
        d["passes"][min(int(a[L.S_PASSES]), 12)] = 1
        for s, c in self.plays:
            d["played_by"][(s - seat) % 4, c] = 1
        leader = int(a[L.S_LEADER])
        for i in range(int(a[L.S_NIN])):
            d["trick"][(leader + i - seat) % 4, int(a[L.S_TRICK + i])] = 1
        d["tricks"][0, int(a[L.S_TRICKS + seat % 2])] = 1
        d["tricks"][1, int(a[L.S_TRICKS + 1 - seat % 2])] = 1
        return np.concatenate([self.observer.tensor, x.tensor])

    # ---- display ----------------------------------------------------------------------------
    def render(self) -> str:
        """The table, all hands shown (a spectator's view)."""
        a = self.a
        p = self.deal_params
        lines = [f"Vint ({p.scoring}{', short auction' if p.short_auction else ''})  "
                 f"dealer: seat {int(a[L.S_DEALER])}"]
        for s in range(4):
            turn = "  <- to act" if s == self.player else ""
            lines.append(f"  seat {s} (side {s % 2}): {hand_str(int(a[L.S_HAND + s])) or '-'}"
                         f"{turn}")
        calls = " ".join(f"{s}:{'pass' if c == L.PASS else bid_str(c - L.BID0)}"
                         for s, c in self.calls)
        lines.append(f"  auction: {calls or '-'}")
        if int(a[L.S_LEVEL]):
            lines.append(f"  contract: {bid_str(int(a[L.S_BID]))} by seat {int(a[L.S_BIDDER])}"
                         f"  tricks {int(a[L.S_TRICKS])}:{int(a[L.S_TRICKS + 1])}")
        leader = int(a[L.S_LEADER])
        if int(a[L.S_NIN]):
            lines.append("  this trick: " + ", ".join(
                f"seat {(leader + i) % 4} {card_str(int(a[L.S_TRICK + i]))}"
                for i in range(int(a[L.S_NIN]))))
        if self.is_terminal():
            d = self.difference()
            lines.append(f"  over: {L.END_NAMES[int(a[L.S_END])]}, difference {d:+d} "
                         f"(returns {d:+d} {-d:+d} {d:+d} {-d:+d})")
        else:
            lines.append("  legal: " + ", ".join(action_str(x) for x in self.legal_actions()))
        return "\n".join(lines)


def _deal_options(table: VintTable, options: dict | None, name: str) -> bool:
    """Deal ``options["hands"]`` (with ``options.get("dealer")``) if given; True if dealt."""
    if not options or options.get("hands") is None:
        return False
    dealer = options.get("dealer", table.params.dealer)
    try:
        dataclasses.replace(table.params, dealer=dealer)
        table.deal(list(options["hands"]), dealer)
    except ValueError as exc:
        raise ValueError(f"{name}: reset options: {exc}") from None
    return True


def _obs_space() -> spaces.Dict:
    return spaces.Dict({
        "observation": spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
    })


def _render(table: VintTable, render_mode: str | None, name: str) -> str | None:
    if render_mode is None:
        gymnasium.logger.warn(f"{name}: render() called without a render_mode; "
                              "use render_mode='ansi' or 'human'")
        return None
    text = table.render()
    if render_mode == "human":
        print(text)
        return None
    return text


RENDER_MODES = ("ansi", "human")

# ---- PettingZoo AEC ------------------------------------------------------------------------

#: AEC handling of an illegal action; the first is the default.
AEC_ILLEGAL_MODES = ("raise", "terminate")


def env(**kwargs) -> AECEnv:
    """``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` (module docstring)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's name for the unwrapped class
    """One deal of Vint for four agents (module docstring).

    Args:
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        illegal_action: ``"raise"`` (default) or ``"terminate"``.
        illegal_reward: the offender's reward under ``"terminate"``; ``None``: the
            game's worst return times ``reward_scale``.
        reward_scale: rewards are points times this (default 1).
        **knobs: :class:`VintParams` fields; ``dealer="random"`` draws it per deal.

    Raises:
        ValueError: a bad knob, render mode, ``illegal_action`` or ``reward_scale``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "vint_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 illegal_reward: float | None = None, reward_scale: float = 1.0, **knobs):
        EzPickle.__init__(self, render_mode=render_mode, illegal_action=illegal_action,
                          illegal_reward=illegal_reward, reward_scale=reward_scale, **knobs)
        super().__init__()
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"vint_v0: render_mode must be None, 'ansi' or 'human', "
                             f"got {render_mode!r}")
        if illegal_action not in AEC_ILLEGAL_MODES:
            raise ValueError(f"vint_v0: illegal_action must be one of {AEC_ILLEGAL_MODES}, "
                             f"got {illegal_action!r}")
        self.params, self.draw_dealer = make_params("vint_v0", knobs)
        self.reward_scale = _check_scale("vint_v0", reward_scale)
        self.illegal_action = illegal_action
        self.illegal_reward = (-utility_bound(self.params) * self.reward_scale
                               if illegal_reward is None else float(illegal_reward))
        self.render_mode = render_mode
        self.table = VintTable(self.params)
        self.possible_agents = [f"player_{i}" for i in range(4)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space = _obs_space()
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng: random.Random | None = None
        self._over = True

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = self._seat[agent]
        mask = (self.table.action_mask() if not self._over and seat == self.table.player
                else np.zeros(NUM_ACTIONS, np.int8))
        return {"observation": self.table.observation(seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:  # random.Random took -1 and, through int(), 1.5 as 1
            self._rng = random.Random(check_seed(seed, "seed", UINT64_MAX))
        elif self._rng is None:
            self._rng = random.Random(int(np.random.SeedSequence().entropy))
        if not _deal_options(self.table, options, "vint_v0"):
            self.table.deal_random(self._rng, self.draw_dealer)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._over = False
        self.agent_selection = self.possible_agents[self.table.player]  # the dealer (V3.1)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            action = self.table.action_id(action)  # outside the space: raises in every mode
        except VintRuleError as exc:
            raise VintRuleError(f"vint_v0, {agent}: {exc}", exc.rule) from None
        except TypeError as exc:
            raise TypeError(f"vint_v0, {agent}: {exc}") from None
        try:
            self.table.check(action)
        except VintRuleError as exc:
            message = f"vint_v0, {agent}: {exc}"
            if self.illegal_action == "raise":
                raise VintRuleError(message, exc.rule) from None
            self._terminate_illegal(agent, message)
            return
        player = self.table.apply(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if player < 0:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[player]
        self._accumulate_rewards()
        self._deads_step_first()

    def _terminate_illegal(self, agent: str, message: str) -> None:
        """``illegal_action="terminate"``: as PettingZoo's ``TerminateIllegalWrapper``."""
        gymnasium.logger.warn("vint_v0: an illegal action ended the game "
                              "(illegal_action='terminate'); the offender's "
                              "info['illegal_action'] names it")
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
        d = self.table.difference()
        info = _end_info(self.table)
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = (d if i % 2 == 0 else -d) * self.reward_scale
            self.terminations[a] = True
            self.infos[a] = dict(info)

    def render(self) -> str | None:
        return _render(self.table, self.render_mode, "vint_v0")

    def close(self) -> None:
        pass


def _end_info(table: VintTable) -> dict:
    """What a finished deal says: its end, the contract, the tricks, the points."""
    st = table.state()
    c = st.contract()
    return {"end": st.end(), "difference": st.difference(),
            "contract": None if c is None else f"{bid_str(int(table.a[L.S_BID]))} by seat {c[2]}",
            "tricks": st.tricks(), "score": st.score_dict()}


# ---- Gymnasium -----------------------------------------------------------------------------

GYM_ILLEGAL_MODES = ("terminate", "raise", "refuse")


def _bot(spec, worlds: int, what: str):
    if isinstance(spec, str):
        try:
            return make_bot(spec, worlds)
        except ValueError:
            raise ValueError(f"Vint-v0: unknown {what} bot {spec!r}; choose from "
                             f"{', '.join(BOT_NAMES)} or pass an object with act(view, rng)"
                             ) from None
    if not callable(getattr(spec, "act", None)):
        raise ValueError(f"Vint-v0: {what} must be a bot name ({', '.join(BOT_NAMES)}) or an "
                         f"object with act(view, rng), got {spec!r}")
    return spec


class VintEnv(gymnasium.Env):
    """One seat of Vint against three bots, one deal per episode (module docstring).

    Args:
        seat: the learner's seat 0..3 (partner ``seat + 2``).
        partner: a bot name (``random``, ``heuristic``, ``search``;
            :func:`vitou_ai.vint.bots.make_bot`) or an object with ``act(view, rng)``.
        opponents: one bot for both opponents, or two: the left-hand (``seat + 1``)
            and the right-hand (``seat + 3``) opponent.
        worlds: sampled deals per card of the ``search`` bots.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        illegal_action: ``"terminate"`` (default), ``"raise"`` or ``"refuse"``.
        illegal_reward: the reward of an illegal action under ``"terminate"``;
            ``None``: the game's worst return times ``reward_scale``.
        reward_scale: rewards are points times this (default 1).
        **knobs: :class:`VintParams` fields; ``dealer="random"`` draws it per deal.

    Raises:
        ValueError: a bad seat, bot, knob, render mode, ``illegal_action`` or scale.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, seat: int = 0, partner="heuristic", opponents="heuristic",
                 worlds: int = 8, render_mode: str | None = None,
                 illegal_action: str = "terminate", illegal_reward: float | None = None,
                 reward_scale: float = 1.0, **knobs):
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < 4:
            raise ValueError(f"Vint-v0: seat must be in 0..3, got {seat!r}")
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"Vint-v0: render_mode must be None, 'ansi' or 'human', "
                             f"got {render_mode!r}")
        if illegal_action not in GYM_ILLEGAL_MODES:
            raise ValueError(f"Vint-v0: illegal_action must be one of {GYM_ILLEGAL_MODES}, "
                             f"got {illegal_action!r}")
        if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= 1000:
            raise ValueError(f"Vint-v0: worlds must be an integer 1..1000, got {worlds!r}")
        self.params, self.draw_dealer = make_params("Vint-v0", knobs)
        self.reward_scale = _check_scale("Vint-v0", reward_scale)
        opp = [opponents] if isinstance(opponents, str) or not isinstance(opponents, Sequence) \
            else list(opponents)
        if len(opp) not in (1, 2):
            raise ValueError(f"Vint-v0: give 1 or 2 opponents (left, right), got {len(opp)}")
        opp = [_bot(o, worlds, "opponent") for o in opp]
        if len(opp) == 1:
            opp = opp * 2
        self.seat = int(seat)
        self.bots = {(self.seat + 2) % 4: _bot(partner, worlds, "partner"),
                     (self.seat + 1) % 4: opp[0], (self.seat + 3) % 4: opp[1]}
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = (-utility_bound(self.params) * self.reward_scale
                               if illegal_reward is None else float(illegal_reward))
        self.table = VintTable(self.params)
        self.observation_space = _obs_space()
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._deal_rng = random.Random(0)
        self._bot_rng = random.Random(0)
        self._over = True

    def _play_bots(self) -> int:
        """Bots act until the learner's turn or the end; return the seat to act (-1 end)."""
        t = self.table
        player = t.player
        while player >= 0 and player != self.seat:
            a = t.bot_act(self.bots[player], self._bot_rng)
            t.check(a)  # a bot breaking a rule is an error of the bot
            player = t.apply(a)
        return player

    def _mask(self) -> np.ndarray:
        if self._over or self.table.player != self.seat:
            return np.zeros(NUM_ACTIONS, np.int8)
        return self.table.action_mask()

    def _obs(self) -> dict:
        return {"observation": self.table.observation(self.seat), "action_mask": self._mask()}

    def action_masks(self) -> np.ndarray:
        """``bool[88]``: the learner's legal actions now (sb3-contrib ``MaskablePPO``)."""
        return self._mask().astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:  # the package's seed range (Gymnasium took True as 1)
            seed = check_seed(seed, "seed", UINT64_MAX)
        super().reset(seed=seed)
        # Both streams come from np_random: a seeded reset fixes the episode, an
        # unseeded one continues deterministically.
        s_deal, s_bot = (int(x) for x in self.np_random.integers(0, 2**63, size=2))
        self._deal_rng = random.Random(s_deal)
        self._bot_rng = random.Random(s_bot)
        if not _deal_options(self.table, options, "Vint-v0"):
            self.table.deal_random(self._deal_rng, self.draw_dealer)
        self._over = False
        if self._play_bots() < 0:  # pragma: no cover - every seat calls before the end
            self._over = True
        obs = self._obs()
        return obs, {"action_mask": obs["action_mask"].copy()}

    def step(self, action):
        if self._over:
            raise gymnasium.error.ResetNeeded(
                "Vint-v0: the episode is over (or never started); call reset()")
        where = f"Vint-v0, seat {self.seat}"
        try:
            action = self.table.action_id(action)
        except VintRuleError as exc:
            raise VintRuleError(f"{where}: {exc}", exc.rule) from None
        except TypeError as exc:
            raise TypeError(f"{where}: {exc}") from None
        try:
            self.table.check(action)
        except VintRuleError as exc:
            message = f"{where}: {exc}"
            return illegal_step(self, "Vint-v0", message, VintRuleError(message, exc.rule))
        self.table.apply(action)
        if self._play_bots() < 0:
            self._over = True
            d = self.table.difference()
            info = _end_info(self.table)
            obs = self._obs()
            info["action_mask"] = obs["action_mask"].copy()
            reward = (d if self.seat % 2 == 0 else -d) * self.reward_scale
            return obs, float(reward), True, False, info
        obs = self._obs()
        return obs, 0.0, False, False, {"action_mask": obs["action_mask"].copy()}

    def render(self) -> str | None:
        return _render(self.table, self.render_mode, "Vint-v0")
