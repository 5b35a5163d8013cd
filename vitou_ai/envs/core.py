"""One Vitou game driven through the rules kernel, shared by the environments.

:class:`KernelTable` holds the kernel's ``int32[STATE_SIZE]`` state, draws
chance outcomes (the deal R1.2, the first dealer R1.4, caught gestures R7.2)
from a seeded SplitMix64 stream, and builds what an agent sees: the
information-state tensor of ``python_vitou`` (the OpenSpiel observer with
``perfect_recall=True``, so a network trained on the OpenSpiel game reads the
same input) and the action mask over the rules' action ids
(``docs/kernel_interface.md``). Every rule decision is the kernel's; this
module only samples chance, checks an action against the kernel's legal
actions before applying it, and formats a table for display.

Every size comes from the game, not from the Vitou constants of
``rules.layout``: the action ids are ``0 .. params.num_actions - 1`` (22 for
the Vitou profiles, 31 for the Truc / Put family, ``docs/kernel_interface.md``),
the seats ``params.players``, the ranks ``params.ranks`` (up to 13 in Put).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from .._numba import jit
from ..openspiel.game import game_string
from ..openspiel.observer import fill_infostate_tensor, infostate_tensor_dims
from ..rng import UINT64_MAX, check_seed, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.game import Game as RulesGame
from ..rules.game import IllegalActionError
from ..rules.game import State as RulesState
from ..rules.history import action_name
from ..rules.observe import infostate_key
from ..rules.params import VitouParams
from ..sim.random_play import sample_chance

#: Chance nodes between two player decisions are at most a dealer draw, the
#: cards of one deal and the gestures' catches (1 + 12 + 8; a French fresh deal,
#: F2.3, deals 12 more); room to spare. A longer run is an error, not an overflow.
MAX_CHANCE_RUN = 64

#: Slots for the kernel's legal actions and chance outcomes: every action id of
#: every profile (``layout.NUM_ACTIONS_PARTNERSHIP``: partnership Put's ids are the last), and
#: every chance id.
ID_SLOTS = max(L.NUM_ACTIONS_PARTNERSHIP, L.MAX_CHANCE_IDS_FAMILY, L.MAX_CHANCE_OUTCOMES)


@jit
def advance_chance(params, state, rng, actions, probs, drawn, dealt):
    """Apply sampled chance outcomes until a player node or the end (exact
    probabilities, ``sim.random_play.sample_chance``), writing them to
    ``drawn`` (``int64[MAX_CHANCE_RUN]``); return how many, or -1 if they do not fit.
    If the run deals a hand to the end (the phase leaves ``PH_DEAL``, R1.2), the
    state right after the deal's last card is copied to ``dealt``
    (``int32[STATE_SIZE]``) and ``dealt[S_PHASE]`` is ``PH_DEAL`` otherwise."""
    dealt[L.S_PHASE] = L.PH_DEAL  # sentinel: no deal ended in this run
    k = 0
    while K.is_chance(state):
        if k == drawn.shape[0]:
            return -1
        dealing = state[L.S_PHASE] == L.PH_DEAL
        c = sample_chance(params, state, rng, actions, probs)
        K.apply_action(params, state, c)
        if dealing and state[L.S_PHASE] != L.PH_DEAL:
            dealt[:] = state
        drawn[k] = c
        k += 1
    return k


@jit
def legal_mask(params, state, actions, mask):
    """``mask[a] = 1`` for each legal action ``a`` (``int8[num_actions]``, overwritten);
    returns the number of legal actions, or -1 if one does not fit in ``mask``."""
    for i in range(mask.shape[0]):
        mask[i] = 0
    n = K.legal_actions(params, state, actions)
    for i in range(n):
        if actions[i] < 0 or actions[i] >= mask.shape[0]:
            return -1
        mask[actions[i]] = 1
    return n


class KernelTable:
    """A Vitou game (one deal or a match) played through the kernel.

    Args:
        params: the game's :class:`VitouParams` (profile and knobs).
        track_deal: keep ``deal_start`` and ``deal_actions`` (what a search bot needs,
            :func:`search_action`); off by default: the bookkeeping costs about 0.9 us
            per action, 12% of :meth:`apply` (measured on a four-player deal).

    Attributes:
        params: the :class:`VitouParams`.
        num_actions: size of the action space and of the mask, ``params.num_actions``
            (22 for the Vitou profiles, 31 for the family).
        a: the kernel state, ``int32[STATE_SIZE]`` (read it, do not write it).
        obs_size: length of the information-state tensor.
        obs_high: ``float32[obs_size]`` upper bound of each tensor entry (1 for the
            one-hot pieces, ``max_deals`` for the deal counter in match mode).
    """

    def __init__(self, params: VitouParams, track_deal: bool = False):
        self.params = params
        self.n = params.players
        self.num_actions = params.num_actions
        self.p = params.to_array()
        self.rules_game = RulesGame(params)
        # Only the observer is used from the OpenSpiel game (one tensor layout).
        self.os_game = pyspiel.load_game(game_string(params))
        self.observer = self.os_game.make_py_observer(
            pyspiel.IIGObservationType(perfect_recall=True))
        self.obs_size = int(self.observer.tensor.shape[0])
        self.obs_high = np.ones(self.obs_size, np.float32)
        if "deals" in self.observer.dict:
            self.observer.tensor.fill(0)
            self.observer.dict["deals"][0] = 1
            self.obs_high[int(np.argmax(self.observer.tensor))] = params.max_deals
        self.a = K.new_state(self.p)
        self.rng = np.zeros(1, np.uint64)
        self._acts = np.empty(ID_SLOTS, np.int64)
        self._probs = np.empty(ID_SLOTS, np.float64)
        self._mask = np.zeros(self.num_actions, np.int8)
        self._ret = np.zeros(self.n, np.float64)
        self._drawn = np.empty(MAX_CHANCE_RUN, np.int64)
        self._key = np.empty(L.KEY_SIZE, np.int8)
        self._dims = infostate_tensor_dims(params)
        self.player = L.TERMINAL_PLAYER
        # Every action since the start of the game, as (is_chance, id): replaying it
        # on vitou_ai.rules.Game gives the same state.
        self.history: list[tuple[bool, int]] = []
        self._dealt = np.zeros(L.STATE_SIZE, np.int32)
        self.track_deal = bool(track_deal)
        #: with ``track_deal``: the state right after the current deal's last card
        #: (``int32[STATE_SIZE]``), or None before it (the 2p blind window, R9.2) and once
        #: the deal is over: the ``start`` of :meth:`vitou_ai.search.bot.SearchPolicy.act`;
        #: always None without ``track_deal``
        self.deal_start: np.ndarray | None = None
        #: the player action ids since ``deal_start`` (its ``actions``; empty while
        #: ``deal_start`` is None)
        self.deal_actions: list[int] = []

    def seed(self, seed: int) -> None:
        """Restart the chance stream from ``seed``, a whole number in ``0 .. 2**64-1``.

        Raises:
            ValueError, TypeError: another seed (:func:`vitou_ai.rng.check_seed`: ``-1``
                was taken mod 2**64, ``1.5`` as 1).
        """
        self.rng[0] = row_seed(np.uint64(check_seed(seed, "seed", UINT64_MAX)), np.uint64(0))

    def new_game(self) -> int:
        """A fresh game, played through its first chance nodes; returns the player to act
        (``layout.TERMINAL_PLAYER`` if the game is already over)."""
        self.a = K.new_state(self.p)
        self.history = []
        self.deal_start, self.deal_actions = None, []
        return self._advance()

    def _advance(self) -> int:
        k = advance_chance(self.p, self.a, self.rng, self._acts, self._probs, self._drawn,
                           self._dealt)
        if k < 0:  # pragma: no cover - a kernel that deals forever
            raise RuntimeError(f"more than {MAX_CHANCE_RUN} chance nodes in a row")
        self.history.extend((True, int(c)) for c in self._drawn[:k])
        if self.track_deal and self._dealt[L.S_PHASE] != L.PH_DEAL:
            self.deal_start, self.deal_actions = self._dealt.copy(), []
        self.player = int(K.current_player(self.p, self.a))
        return self.player

    def is_terminal(self) -> bool:
        return bool(K.is_terminal(self.a))

    def action_mask(self) -> np.ndarray:
        """A new ``int8[num_actions]``: 1 for the legal actions of the player to act
        (all zero at the end)."""
        if K.is_terminal(self.a):
            return np.zeros(self.num_actions, np.int8)
        if legal_mask(self.p, self.a, self._acts, self._mask) < 0:  # pragma: no cover
            raise RuntimeError(f"{self.params.profile}: a legal action id beyond "
                               f"0..{self.num_actions - 1}")
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        """The kernel's legal actions of the player to act, ascending (empty at the end)."""
        if K.is_terminal(self.a):
            return []
        n = K.legal_actions(self.p, self.a, self._acts)
        return self._acts[:n].tolist()

    def action_id(self, action) -> int:
        """``action`` as an int if it is in the action space ``0 .. num_actions - 1``.

        Raises:
            TypeError: an action that is not an integer id.
            IllegalActionError: an id outside the action space (rule ``"R10"``).
        """
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise TypeError(f"an action is an integer id 0..{self.num_actions - 1}, "
                            f"got {action!r}")
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action id {action} is not an action of {self.params.profile} "
                f"(0..{self.num_actions - 1})", "R10")
        return action

    def check(self, action) -> int:
        """``action`` as an int if it is legal for the player to act.

        Raises:
            TypeError: an action that is not an integer id.
            IllegalActionError: an action the rules do not allow here, or an id outside
                the action space; the message names the action, the seat, the rule and
                the legal actions. The state is unchanged.
        """
        action = self.action_id(action)
        if not K.is_terminal(self.a):
            n = K.legal_actions(self.p, self.a, self._acts)
            if action in self._acts[:n].tolist():
                return action
        # The checked wrapper (on a copy) names the rule the action breaks.
        RulesState(self.rules_game, self.a.copy()).apply_action(action)
        raise IllegalActionError(f"action {action} is illegal here", "R8")  # pragma: no cover

    def apply(self, action) -> int:
        """Apply a legal player action (see :meth:`check`), then the chance nodes that
        follow; returns the next player to act (``TERMINAL_PLAYER`` at the end)."""
        action = self.check(action)
        if self.deal_start is None:  # not tracked, or not dealt yet
            K.apply_action(self.p, self.a, action)
            self.history.append((False, action))
            return self._advance()
        a = self.a
        deals = a[L.S_DEALS]
        K.apply_action(self.p, a, action)
        self.history.append((False, action))
        # the deal is over (K.is_terminal, read here: a jitted call costs more)
        if a[L.S_DEALS] != deals or a[L.S_PHASE] == L.PH_TERMINAL:
            self.deal_start, self.deal_actions = None, []
        else:
            self.deal_actions.append(action)
        return self._advance()

    def infostate_tensor(self, seat: int) -> np.ndarray:
        """A new ``float32[obs_size]``: ``seat``'s information-state tensor, as
        ``python_vitou``'s ``information_state_tensor`` (layout:
        :class:`vitou_ai.openspiel.observer.VitouObserver`, information-state view)."""
        # The jitted twin of the observer (tests/test_envs.py checks they agree).
        infostate_key(self.p, self.a, seat, self._key)
        out = np.empty(self.obs_size, np.float32)
        fill_infostate_tensor(self._key, *self._dims[:5], True, self._dims[5],
                              int(self.a[L.S_DEALS]), out, self._dims[6])
        return out

    def returns(self) -> np.ndarray:
        """``float64[players]``: deal mode, points per deal (R8.1); match mode,
        +1 / -1 / 0 (R8.2). Zero before the end."""
        K.returns(self.p, self.a, self._ret)
        return self._ret.copy()

    def worst_return(self) -> float:
        """A lower bound of any seat's return: match mode -1 (R8.2); deal mode minus
        the most points a deal can score (a stake's value, what a team needs to reach
        the target, or R6.1's 3). The default penalty of an illegal action, so that
        no legal line of play ever looks worse than breaking a rule."""
        p = self.params
        if p.mode == "match":
            return -1.0
        if p.willughby:  # P7.5: a seat pays at most the put's stake
            return -float(p.put_stake)
        return -float(max(p.target, 3, *p.ladder))

    def last_deal(self):
        """The :class:`vitou_ai.rules.DealResult` of the latest finished deal, or None."""
        return RulesState(self.rules_game, self.a.copy()).last_deal()

    def render(self) -> str:
        """The table, all hands shown (a spectator's view, for ``render_mode="ansi"``)."""
        a, p = self.a, self.params
        score = ("" if p.willughby else  # P7.6: no score, no target
                 f"score {int(a[L.S_SCORE0])}:{int(a[L.S_SCORE1])} (target {p.target})  ")
        lines = [
            f"{p.profile} ({p.mode} mode)  dealer: seat {int(a[L.S_DEALER])}  {score}"
            f"stake {p.ladder_labels[int(a[L.S_STAKE])]}"
            + ("" if a[L.S_LASTRAISE] < 0 else (f" (put by seat {int(a[L.S_LASTRAISE])})"
                                                 if p.willughby else
                                                 f" (last raised by team {int(a[L.S_LASTRAISE])})"))
        ]
        labels = p.rank_labels  # Put's 13 ranks, Catalan's 10 (docs/RULES_family.md)
        for s in range(self.n):
            base = L.S_HELD + s * L.MAX_RANKS
            held = " ".join(labels[r] for r in range(p.ranks)
                            for _ in range(int(a[base + r])))
            turn = "  <- to act" if s == self.player and not self.is_terminal() else ""
            if p.willughby:  # P7: each for themselves; a folded seat is out (P7.4)
                side = "folded" if a[L.S_OUT + s] else "in"
            else:
                side = f"team {s % 2 if self.n == 4 else s}"
            lines.append(f"  seat {s} ({side}): {held or '-'}{turn}")
        nt = int(a[L.S_NTRICKS])
        if nt:
            if p.willughby:  # P7.1: won by a seat, or tied
                res = ["void" if a[L.S_TRES + t] == L.RES_VOID_SEAT else f"seat {int(a[L.S_TRES + t])}"
                       for t in range(nt)]
            else:
                res = ["void" if a[L.S_TRES + t] == L.RES_VOID else f"team {int(a[L.S_TRES + t])}"
                       for t in range(nt)]
            lines.append("  tricks: " + ", ".join(res))
        npl = int(a[L.S_NPLAYED])
        if npl:
            lines.append("  this trick: " + ", ".join(
                f"seat {int(K.card_seat(self.p, a, k))} {labels[int(a[L.S_TRICK + k])]}"
                for k in range(npl)))
        if self.is_terminal():
            d = self.last_deal()
            lines.append(f"  over: {d.end if d else '-'}, returns "
                         + " ".join(f"{x:+g}" for x in self.returns()))
        else:
            state = RulesState(self.rules_game, self.a)  # read only
            lines.append("  legal: " + ", ".join(  # P7.3: Willughby's raise is the put
                action_name(state, x) if p.willughby else self.rules_game.action_string(x)
                for x in self.legal_actions()))
        return "\n".join(lines)


def search_action(table: KernelTable, bot, rng: np.random.Generator) -> int:
    """The action of search bot ``bot`` (:class:`~vitou_ai.search.bot.SearchPolicy`) for
    the player to act at ``table``: it re-solves the deal from ``table.deal_start`` after
    ``table.deal_actions`` (as :func:`vitou_ai.eval.search_match.play_deal` plays it),
    drawing from ``rng``. In match mode the deal is searched as one deal at the current
    scores and dealer (R8.1: the bot plays for points, not for the match, as in
    ``vitou-ai play``); before the deal (the 2p blind window, R9.2) the bot falls back on
    its blueprint. The bot must fit the game (:func:`vitou_ai.search.bot.check_fits`) and
    ``table`` track its deals (``track_deal``).

    Raises:
        ValueError: ``table`` does not track its deals (the bot would search from a wrong
            start).
    """
    if not table.track_deal:
        raise ValueError("search_action needs KernelTable(params, track_deal=True)")
    a = table.a
    deal = table.params.replace(mode="deal", dealer=int(a[L.S_DEALER]),
                                scores=(int(a[L.S_SCORE0]), int(a[L.S_SCORE1])))
    start = a.copy() if table.deal_start is None else table.deal_start.copy()
    return int(bot.act(deal, start, list(table.deal_actions), a.copy(), rng))


def illegal_step(env, name: str, message: str, error: Exception):
    """The Gymnasium ``step`` result of an illegal action, by ``env.illegal_action``
    (the Gymnasium environments' one convention, ``Vitou-v0`` and ``Vint-v0``):
    ``"raise"`` raises ``error``; ``"refuse"`` returns the unchanged observation, reward
    0; ``"terminate"`` (PettingZoo's ``TerminateIllegalWrapper``) ends the episode with
    ``env.illegal_reward``. ``info["illegal_action"]`` is ``message`` in both.

    ``env`` has ``illegal_action``, ``illegal_reward``, ``_over`` and ``_obs()``.
    """
    import gymnasium

    if env.illegal_action == "raise":
        raise error from None  # the caller's except clause: its context is not news
    if env.illegal_action == "refuse":
        obs = env._obs()
        return obs, 0.0, False, False, {"illegal_action": message,
                                        "action_mask": obs["action_mask"].copy()}
    # One text, so Python's warning filter shows it once (the message is in info).
    gymnasium.logger.warn(f"{name}: an illegal action ended the episode "
                          "(illegal_action='terminate'); info['illegal_action'] names it")
    env._over = True
    obs = env._obs()
    return obs, env.illegal_reward, True, False, {
        "illegal_action": message, "illegal_move": True,
        "action_mask": obs["action_mask"].copy()}
