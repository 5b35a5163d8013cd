"""OpenSpiel wrapper of the Vint kernel: the game ``python_vint`` (docs/RULES_vint.md V10).

Importing :mod:`vitou_ai` (or this module) registers it::

    import pyspiel, vitou_ai
    game = pyspiel.load_game("python_vint(dealer=0,short_auction=false,scoring=moscow)")

One deal: 52 chance nodes deal the pack in V1.2 order, then the auction (V3),
then 13 tricks (V4). Returns are the deal's difference (V6.5) in points,
``[+x, -x, +x, -x]``; a thrown-in hand returns zeros. Parameters (all in
``parameter_specification``): ``dealer`` (0), ``short_auction`` (False),
``scoring`` ("moscow" | "foster"), ``slam_small`` (1000), ``slam_grand`` (2000),
mapped one to one onto :class:`vitou_ai.vint.VintParams`.

The state holds the kernel's ``int64`` state array and the tuple of player
actions so far (OpenSpiel clones a Python state by deep-copying its attributes).
Information state (V10.2): seat, dealer, own dealt hand, the whole auction and
every card played, never another hand.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ..openspiel.util import Pieces, game_type, load_string, with_defaults
from . import kernel as K
from . import layout as L
from .game import VintParams, VintRuleError, VintState, action_str, bid_str, card_str, hand_str

SHORT_NAME = "python_vint"
_DEFAULTS = {"dealer": 0, "short_auction": False, "scoring": "moscow", "slam_small": 1000,
             "slam_grand": 2000}

GAME_TYPE = game_type(SHORT_NAME, "Vint (vitou_ai Vint kernel)", 4, 4, _DEFAULTS)


def game_string(params: VintParams) -> str:
    """``"python_vint(dealer=0,short_auction=false,...)"`` for a :class:`VintParams`."""
    d = {"dealer": params.dealer, "short_auction": params.short_auction,
         "scoring": params.scoring, "slam_small": params.slam_small,
         "slam_grand": params.slam_grand}
    return load_string(SHORT_NAME, d)


def params_from_dict(d: dict) -> VintParams:
    """:class:`VintParams` from an OpenSpiel parameter dict. Raises ValueError."""
    p = with_defaults(SHORT_NAME, d, _DEFAULTS)
    try:
        return VintParams(dealer=int(p["dealer"]), short_auction=bool(p["short_auction"]),
                          scoring=str(p["scoring"]), slam_small=int(p["slam_small"]),
                          slam_grand=int(p["slam_grand"]))
    except ValueError as exc:
        raise ValueError(f"{SHORT_NAME}: {exc}") from None


def max_calls(short_auction: bool) -> int:
    """Longest auction (V3.4, V3.5, V8.1): passes before the first bid, all 35 bids,
    each but the last followed by one pass short of the end, then the closing passes."""
    closing = 3 if short_auction else 12
    opening = (4 if short_auction else 8) - 1
    return opening + 35 + 34 * (closing - 1) + closing


def utility_bound(p: VintParams) -> float:
    """A bound on |deal difference| (V5, V8.2): everything one side can write in a deal."""
    if p.scoring == "foster":
        tv = 70
        return float(13 * tv + 100 * tv + 4 * 14000 // 2 + 13 * 100 * tv
                     + max(p.slam_small, p.slam_grand))
    tv = 72
    return float(13 * tv + 40 * tv + 40 * tv + 13 * 7 * 500 + 5000
                 + max(p.slam_small, p.slam_grand))


def game_info(p: VintParams) -> pyspiel.GameInfo:
    bound = utility_bound(p)
    return pyspiel.GameInfo(num_distinct_actions=L.NUM_ACTIONS, max_chance_outcomes=52,
                            num_players=4, min_utility=-bound, max_utility=bound,
                            utility_sum=0.0, max_game_length=max_calls(p.short_auction) + 52)


class VintGame(pyspiel.Game):
    """``python_vint``: one deal of Vint. ``vint_params``: the :class:`VintParams`."""

    def __init__(self, params: dict | None = None):
        vp = params_from_dict(dict(params or {}))
        super().__init__(GAME_TYPE, game_info(vp), dict(params or {}))
        self.vint_params = vp
        self.params_array = vp.to_array()

    def new_initial_state(self) -> VintOSState:
        return VintOSState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters not supported; got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.perfect_recall:
            return VintInfoStateObserver(iig_obs_type)
        return VintObserver(iig_obs_type)


class VintOSState(pyspiel.State):
    """A Vint state: the kernel array ``a`` and the player actions ``hist`` (a tuple of
    ``seat * 128 + action``)."""

    def __init__(self, game: VintGame):
        super().__init__(game)
        self.a = K.new_state(game.params_array)
        self.hist: tuple[int, ...] = ()

    def current_player(self) -> int:
        ph = int(self.a[L.S_PHASE])
        if ph == L.PH_DEAL:
            return pyspiel.PlayerId.CHANCE
        if ph == L.PH_OVER:
            return pyspiel.PlayerId.TERMINAL
        return int(self.a[L.S_TOMOVE])

    def is_terminal(self) -> bool:
        return int(self.a[L.S_PHASE]) == L.PH_OVER

    def _legal_actions(self, player: int) -> list[int]:
        buf = np.empty(52, np.int64)
        n = K.legal_actions(self.a, buf)
        return buf[:n].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        dealt = 0
        for s in range(4):
            dealt |= int(self.a[L.S_ORIG + s])
        left = [c for c in range(52) if not dealt >> c & 1]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if int(self.a[L.S_PHASE]) == L.PH_DEAL:
            if K.apply_chance(self.a, action) != L.OK:
                raise VintRuleError(f"card {action} is already dealt", "V1.2")
            return
        seat = int(self.a[L.S_TOMOVE])
        code = K.apply_action(self.a, action)
        if code != L.OK:
            game = self.get_game()
            probe = VintState(game.vint_params, self.a.copy(), game.params_array)
            probe.apply(action)  # raises with the message and the rule
        self.hist = self.hist + (seat * 128 + action,)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_str(int(action))}"
        return action_str(int(action))

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * 4
        game = self.get_game()
        sc = np.zeros(L.SCORE_SIZE, np.int64)
        K.deal_score(self.a, game.params_array, sc)
        d = float(K.deal_difference(sc))
        return [d, -d, d, -d]

    def __str__(self) -> str:
        a = self.a
        hands = " / ".join(hand_str(int(a[L.S_HAND + s])) or "-" for s in range(4))
        return (f"dealer {int(a[L.S_DEALER])} phase {int(a[L.S_PHASE])} | {hands} | "
                + _history_text(self.hist))


def _history_text(hist) -> str:
    calls, cards = [], []
    for h in hist:
        seat, act = divmod(h, 128)
        if act >= L.PASS:
            calls.append("pass" if act == L.PASS else bid_str(act - L.BID0))
        else:
            cards.append(f"p{seat}:{card_str(act)}")
    return "auction " + (" ".join(calls) or "-") + " | play " + (" ".join(cards) or "-")


# ---- observers ------------------------------------------------------------------------------


def _private(iig_obs_type) -> bool:
    pit = iig_obs_type.private_info
    if pit == pyspiel.PrivateInfoType.ALL_PLAYERS:
        raise ValueError(f"{SHORT_NAME}: private_info=ALL_PLAYERS is not supported")
    return pit == pyspiel.PrivateInfoType.SINGLE_PLAYER


def _set_player_and_hand(obs, player: int, hand: int) -> None:
    """Zero ``obs``'s tensor, then its ``player`` piece and, with private info, its
    ``hand`` piece from the 52-bit card mask ``hand`` (both observers' first pieces)."""
    obs.tensor.fill(0)
    d = obs.dict
    d["player"][player] = 1
    if obs.private:
        for c in range(52):
            if hand >> c & 1:
                d["hand"][c] = 1


class VintInfoStateObserver:
    """Information state, perfect recall (V10.2).

    Tensor pieces (one-hot unless said): ``player`` [4]; ``dealer`` [4]; ``hand``
    [52] the cards dealt to the player (private info); ``opening_passes`` [9]
    passes before the first bid; ``bids`` [35, 18]: per bid, made (1), bidder
    relative to the player (4), passes after it (13); ``play`` [52, 52]: the k-th
    card played. Bids only rise (V3.2), so these pieces give the whole auction.
    """

    def __init__(self, iig_obs_type):
        self.public = iig_obs_type.public_info
        self.private = _private(iig_obs_type)
        pieces = [("player", (4,))]
        if self.public:
            pieces.append(("dealer", (4,)))
        if self.private:
            pieces.append(("hand", (52,)))
        if self.public:
            pieces += [("opening_passes", (9,)), ("bids", (35, 18)), ("play", (52, 52))]
        p = Pieces(pieces)
        self.tensor, self.dict = p.tensor, p.dict

    def set_from(self, state: VintOSState, player: int) -> None:
        a = state.a
        _set_player_and_hand(self, player, int(a[L.S_ORIG + player]))
        if not self.public:
            return
        d = self.dict
        d["dealer"][int(a[L.S_DEALER])] = 1
        passes, last_bid, k = 0, -1, 0
        for h in state.hist:
            seat, act = divmod(h, 128)
            if act == L.PASS:
                passes += 1
            elif act > L.PASS:
                if last_bid < 0:
                    d["opening_passes"][passes] = 1
                else:
                    d["bids"][last_bid, 5 + passes] = 1
                last_bid = act - L.BID0
                d["bids"][last_bid, 0] = 1
                d["bids"][last_bid, 1 + (seat - player) % 4] = 1
                passes = 0
            else:
                d["play"][k, act] = 1
                k += 1
        if last_bid < 0:
            d["opening_passes"][passes] = 1
        else:
            d["bids"][last_bid, 5 + passes] = 1

    def string_from(self, state: VintOSState, player: int) -> str:
        parts = [f"p{player}"]
        if self.public:
            parts.append(f"dealer {int(state.a[L.S_DEALER])}")
        if self.private:
            parts.append("hand " + (hand_str(int(state.a[L.S_ORIG + player])) or "-"))
        if self.public:
            parts.append(_history_text(state.hist))
        return " | ".join(parts)


class VintObserver:
    """Observation (not perfect recall): the player's remaining cards, the auction so
    far in summary, the current trick and the tricks won.

    Tensor pieces: ``player`` [4]; ``hand`` [52] cards held (private info);
    ``dealer`` [4]; ``high_bid`` [36] (index 35 = no bid yet); ``bidder`` [4] relative;
    ``passes`` [13] passes in a row; ``contract`` [1] 1 once the auction has ended;
    ``trick`` [4, 52] the current trick's cards by seat relative to the player;
    ``played`` [52] cards played; ``tricks`` [2, 14] tricks of the player's side and
    of the other side.
    """

    def __init__(self, iig_obs_type):
        self.public = iig_obs_type.public_info
        self.private = _private(iig_obs_type)
        pieces = [("player", (4,))]
        if self.private:
            pieces.append(("hand", (52,)))
        if self.public:
            pieces += [("dealer", (4,)), ("high_bid", (36,)), ("bidder", (4,)),
                       ("passes", (13,)), ("contract", (1,)), ("trick", (4, 52)),
                       ("played", (52,)), ("tricks", (2, 14))]
        p = Pieces(pieces)
        self.tensor, self.dict = p.tensor, p.dict

    def set_from(self, state: VintOSState, player: int) -> None:
        a = state.a
        _set_player_and_hand(self, player, int(a[L.S_HAND + player]))
        if not self.public:
            return
        d = self.dict
        d["dealer"][int(a[L.S_DEALER])] = 1
        bid = int(a[L.S_BID])
        d["high_bid"][bid if bid >= 0 else 35] = 1
        if bid >= 0:
            d["bidder"][(int(a[L.S_BIDDER]) - player) % 4] = 1
        d["passes"][min(int(a[L.S_PASSES]), 12)] = 1
        d["contract"][0] = 1 if int(a[L.S_LEVEL]) > 0 else 0
        leader = int(a[L.S_LEADER])
        for i in range(int(a[L.S_NIN])):
            d["trick"][(leader + i - player) % 4, int(a[L.S_TRICK + i])] = 1
        held = 0
        for s in range(4):
            held |= int(a[L.S_HAND + s])
        dealt = 0
        for s in range(4):
            dealt |= int(a[L.S_ORIG + s])
        gone = dealt & ~held
        for c in range(52):
            if gone >> c & 1:
                d["played"][c] = 1
        mine = player % 2
        d["tricks"][0, int(a[L.S_TRICKS + mine])] = 1
        d["tricks"][1, int(a[L.S_TRICKS + 1 - mine])] = 1

    def string_from(self, state: VintOSState, player: int) -> str:
        a = state.a
        parts = [f"p{player}"]
        if self.private:
            parts.append("hand " + (hand_str(int(a[L.S_HAND + player])) or "-"))
        if self.public:
            bid = int(a[L.S_BID])
            high = f"{bid_str(bid)} by p{int(a[L.S_BIDDER])}" if bid >= 0 else "none"
            state_word = "contract" if int(a[L.S_LEVEL]) > 0 else "high bid"
            leader = int(a[L.S_LEADER])
            trick = " ".join(f"p{(leader + i) % 4}:{card_str(int(a[L.S_TRICK + i]))}"
                             for i in range(int(a[L.S_NIN])))
            parts += [f"dealer {int(a[L.S_DEALER])}", f"{state_word} {high}",
                      f"passes {int(a[L.S_PASSES])}", f"trick {trick or '-'}",
                      f"tricks {int(a[L.S_TRICKS])}-{int(a[L.S_TRICKS + 1])}"]
        return " | ".join(parts)


pyspiel.register_game(GAME_TYPE, VintGame)
