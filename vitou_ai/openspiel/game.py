"""OpenSpiel wrapper of the Vitou rules kernel: the game ``python_vitou``.

Importing :mod:`vitou_ai` registers the game, so after that::

    import pyspiel, vitou_ai
    game = pyspiel.load_game("python_vitou(profile=vitou_2p,ranks=4,copies=2,hand_size=2)")

Parameters (all in ``parameter_specification``; unknown names and invalid
values are refused): ``profile`` ("vitou"), ``mode`` ("deal"), ``dealer`` (0;
-1 = drawn by chance), ``score0``, ``score1`` (0), ``target`` (-1 = the
profile's), ``early_end`` ("card"), ``signals`` (False), ``signal_seen``
(0.5), ``ranks`` (-1 = the profile's whole deck, 8 for Vitou), ``copies`` (4),
``hand_size`` (-1 = the profile's: 3, or ``players + 1`` in ``put_willughby``),
``max_deals`` (100), and for the Truc / Put family
(``profile=truc_catalan|truc_catalan_2p|truc_1912|trut|put|put_partnership|put_willughby``,
``docs/RULES_family.md``) ``direction`` ("" = the profile's), ``games`` (-1 =
the profile's), ``games_won0``, ``games_won1`` (0), ``chooser`` ("", P6.1), and for
Willughby's Put (P7) ``players`` (-1 = 3; 3 or 4), ``put_stake`` (-1 = 5) and
``fold_pays`` ("" = ``nothing``). They map one to one onto
:class:`vitou_ai.rules.VitouParams`; a family knob given to a profile without it
is refused, naming the rule.

The state holds only the kernel's ``int32`` state array (OpenSpiel clones a
Python state by deep-copying its attributes); every rule decision is the
kernel's. The numpy parameter array lives on the game object.

Observations (``make_py_observer``): every ``pyspiel.IIGObservationType``
(public and/or private information of one or all players, perfect recall or
the current observation), see :mod:`vitou_ai.openspiel.observer`. The
information state (``perfect_recall=True``, the default private and public
information) is built from :func:`vitou_ai.rules.observe.infostate_key` —
seat, dealer, scores, own hand, partner's hand when shared (R6.1), gestures as
seen (R7.2), and the public action tokens of the deal. In match mode it covers
the current deal only (plus scores, dealer and the number of deals played), so
it is *not* perfect recall across deals: use deal mode for solvers that need
perfect recall.
"""

from __future__ import annotations

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "vitou_ai.openspiel.game needs OpenSpiel: pip install open_spiel==2.0.2 "
        f"(importing pyspiel failed: {exc})"
    ) from exc

from ..rules import kernel as K
from ..rules import layout as L
from ..rules.game import Game as RulesGame
from ..rules.game import IllegalActionError, max_game_decisions
from ..rules.game import State as RulesState
from ..rules.params import VitouParams
from .observer import (  # after the guard: it needs pyspiel too
    VitouObserver,
    infostate_string,  # noqa: F401  (policy export takes it from here)
    token_string,
)
from .util import game_type, load_string, with_defaults

SHORT_NAME = "python_vitou"

_DEFAULTS = {
    "profile": "vitou",
    "mode": "deal",
    "dealer": 0,
    "score0": 0,
    "score1": 0,
    "target": -1,
    "early_end": "card",
    "signals": False,
    "signal_seen": 0.5,
    "ranks": -1,
    "copies": 4,
    "hand_size": -1,
    "max_deals": 100,
    "direction": "",
    "games": -1,
    "games_won0": 0,
    "games_won1": 0,
    "chooser": "",
    "players": -1,
    "put_stake": -1,
    "fold_pays": "",
}

GAME_TYPE = game_type(SHORT_NAME, "Vitou (vitou_ai rules kernel)", 2, 4, _DEFAULTS)


def game_string(params: VitouParams) -> str:
    """The ``pyspiel.load_game`` string of a :class:`VitouParams`:
    ``"python_vitou(profile=vitou_2p,ranks=4,...)"``."""
    d = {
        "profile": params.profile, "mode": params.mode, "dealer": params.dealer,
        "score0": params.scores[0], "score1": params.scores[1], "target": params.target,
        "early_end": params.early_end, "signals": params.signals,
        "signal_seen": float(params.signal_seen), "ranks": params.ranks, "copies": params.copies,
        "hand_size": params.hand_size, "max_deals": params.max_deals,
    }
    if params.family:
        d["direction"] = params.direction
        if params.partnership:  # P6.1
            d["chooser"] = params.chooser
        if params.willughby:  # P7.0, P7.5
            d.update(players=params.players, put_stake=params.put_stake,
                     fold_pays=params.fold_pays)
        if params.profile in ("truc_1912", "trut"):  # the profiles with a match of games (G4.1)
            d.update(games=params.games, games_won0=params.games_won[0],
                     games_won1=params.games_won[1])
    return load_string(SHORT_NAME, d)


def params_from_dict(d: dict) -> VitouParams:
    """:class:`VitouParams` from an OpenSpiel parameter dict (defaults filled in).

    Raises:
        ValueError: unknown parameter names or invalid values, with the reason.
    """
    p = with_defaults(SHORT_NAME, d, _DEFAULTS)
    try:
        return VitouParams(
            profile=p["profile"],
            mode=p["mode"],
            dealer=int(p["dealer"]),
            scores=(int(p["score0"]), int(p["score1"])),
            target=None if int(p["target"]) == -1 else int(p["target"]),
            early_end=p["early_end"],
            signals=bool(p["signals"]),
            signal_seen=float(p["signal_seen"]),
            ranks=None if int(p["ranks"]) == -1 else int(p["ranks"]),
            copies=int(p["copies"]),
            hand_size=None if int(p["hand_size"]) == -1 else int(p["hand_size"]),
            max_deals=int(p["max_deals"]),
            direction=p["direction"] or None,
            games=None if int(p["games"]) == -1 else int(p["games"]),
            games_won=(int(p["games_won0"]), int(p["games_won1"])),
            chooser=p["chooser"] or None,
            players=None if int(p["players"]) == -1 else int(p["players"]),
            put_stake=None if int(p["put_stake"]) == -1 else int(p["put_stake"]),
            fold_pays=p["fold_pays"] or None,
        )
    except ValueError as exc:
        raise ValueError(f"{SHORT_NAME}: {exc}") from None


def game_info(params: VitouParams) -> pyspiel.GameInfo:
    """``GameInfo`` computed from the actual parameters."""
    if params.mode == "match":
        lo, hi = -1.0, 1.0
    else:
        # R8.1: v = min(points, target - scorer's score) <= target - min(score); Trut's
        # returns are not capped (T5): at most the trut, 3.
        hi = float(params.target - min(params.scores))
        if params.profile == "trut":
            hi = float(max(params.ladder))
        lo = -hi
        if params.willughby:  # P7.5: paid by each other player, or paying the winner
            hi = float(params.put_stake * (params.players - 1))
            lo = -float(params.put_stake)
    return pyspiel.GameInfo(
        num_distinct_actions=params.num_actions,
        max_chance_outcomes=params.num_chance_ids,
        num_players=params.players,
        min_utility=lo,
        max_utility=hi,
        utility_sum=0.0,
        max_game_length=max_game_decisions(params),
    )


class VitouGame(pyspiel.Game):
    """``python_vitou``: a deal (R8.1) or a match (R8.2) of Vitou.

    Attributes:
        vitou_params: the :class:`VitouParams`.
        rules_game: the checked :class:`vitou_ai.rules.Game` (error messages).
        params_array: the kernel's ``int64[N_PARAMS]`` view (shared by all states).
    """

    def __init__(self, params: dict | None = None):
        vp = params_from_dict(dict(params or {}))
        super().__init__(GAME_TYPE, game_info(vp), dict(params or {}))
        self.vitou_params = vp
        self.params_array = vp.to_array()
        self.n = vp.players
        self.rules_game = RulesGame(vp)  # checked wrapper, for error messages only

    def new_initial_state(self) -> VitouState:
        return VitouState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME}: observation parameters not supported; passed {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return VitouObserver(self, iig_obs_type)


class VitouState(pyspiel.State):
    """A Vitou state: only the kernel's ``int32[STATE_SIZE]`` array (``self.a``)."""

    def __init__(self, game: VitouGame):
        super().__init__(game)
        self.a = K.new_state(game.params_array)

    # -- queries ----------------------------------------------------------------------
    def current_player(self) -> int:
        return int(K.current_player(self.get_game().params_array, self.a))

    def is_terminal(self) -> bool:
        return bool(K.is_terminal(self.a))

    def _legal_actions(self, player: int) -> list[int]:
        buf = np.empty(L.NUM_ACTIONS, dtype=np.int64)
        n = K.legal_actions(self.get_game().params_array, self.a, buf)
        return buf[:n].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        acts = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.int64)
        probs = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.float64)
        n = K.chance_outcomes(self.get_game().params_array, self.a, acts, probs)
        return list(zip(acts[:n].tolist(), probs[:n].tolist(), strict=True))

    def returns(self) -> list[float]:
        game = self.get_game()
        out = np.zeros(game.n, dtype=np.float64)
        K.returns(game.params_array, self.a, out)
        return out.tolist()

    # -- transitions --------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        # pyspiel.State.apply_action does not check legality for a Python game,
        # and the kernel trusts its input: check here (one kernel call).
        game = self.get_game()
        action = int(action)
        if K.is_chance(self.a):
            ok = any(a == action for a, _ in self.chance_outcomes())
        else:
            buf = np.empty(L.NUM_ACTIONS, dtype=np.int64)
            n = K.legal_actions(game.params_array, self.a, buf)
            ok = action in buf[:n]
        if not ok:
            # The checked wrapper names the action and the rule it breaks.
            RulesState(game.rules_game, self.a.copy()).apply_action(action)
            raise IllegalActionError(f"action {action} is illegal here", "R8")  # pragma: no cover
        K.apply_action(game.params_array, self.a, action)

    def _action_to_string(self, player: int, action: int) -> str:
        game = self.get_game()
        if player != pyspiel.PlayerId.CHANCE and game.vitou_params.willughby:
            return token_string(int(action), game.rules_game.labels, True)  # P7.3: put
        return game.rules_game.action_string(
            int(action), chance=player == pyspiel.PlayerId.CHANCE)

    # -- display --------------------------------------------------------------------------
    def __str__(self) -> str:
        a, game = self.a, self.get_game()
        n = game.n
        labels = game.vitou_params.rank_labels
        sep = " " if game.vitou_params.family else ""
        hands = []
        for s in range(n):
            base = L.S_HELD + s * L.MAX_RANKS
            hands.append(
                sep.join(labels[r] for r in range(len(labels)) for _ in range(int(a[base + r])))
                or "-"
            )
        trick = sep.join(labels[int(a[L.S_TRICK + k])] for k in range(int(a[L.S_NPLAYED])))
        vp = game.vitou_params
        toks = " ".join(
            token_string(int(a[L.S_TOK + i]), game.rules_game.labels, vp.willughby)
            for i in range(min(int(a[L.S_NTOK]), L.MAX_TOKENS))
        )
        if game.vitou_params.family:
            hands = [f"[{h}]" for h in hands]
        stake = game.vitou_params.ladder_labels[int(a[L.S_STAKE])]
        # Gestures and catches (R7) are not in the tokens: without them two different
        # states would print alike (OpenSpiel's get_all_states tells states apart by
        # this string).
        gest = [int(g) for g in a[L.S_GEST : L.S_GEST + n]]
        signals = ""
        if any(g >= 0 for g in gest):
            seen = a[L.S_SEEN : L.S_SEEN + L.MAX_PLAYERS * L.MAX_PLAYERS]
            caught = [f"p{o} saw p{g}" for o in range(n) for g in range(n)
                      if seen[o * L.MAX_PLAYERS + g]]
            signals = " gestures " + " ".join(L.GESTURES[g] if g >= 0 else "?" for g in gest)
            signals += f" caught [{', '.join(caught)}]"
            if a[L.S_PHASE] == L.PH_SEEN:
                signals += f" drawing catch {int(a[L.S_SIGCH]) + 1} of 2"
        if vp.willughby:  # P7: no scores or deals (P7.6); tricks by seat (P7.1), folds (P7.4)
            res = ",".join("void" if a[L.S_TRES + t] == L.RES_VOID_SEAT else f"p{int(a[L.S_TRES + t])}"
                           for t in range(int(a[L.S_NTRICKS])))
            out = " ".join(f"p{s}" for s in range(n) if a[L.S_OUT + s])
            return (
                f"phase {int(a[L.S_PHASE])} dealer {int(a[L.S_DEALER])} "
                f"stake {stake} hands {' '.join(hands)} leader {int(a[L.S_LEADER])} "
                f"trick [{trick}] tricks [{res}] out [{out}] | {toks}"
            )
        return (
            f"phase {int(a[L.S_PHASE])} dealer {int(a[L.S_DEALER])} "
            f"scores {int(a[L.S_SCORE0])}:{int(a[L.S_SCORE0 + 1])} deals {int(a[L.S_DEALS])} "
            f"stake {stake} hands {' '.join(hands)} leader {int(a[L.S_LEADER])} "
            f"trick [{trick}] tricks {int(a[L.S_NTRICKS])}{signals} | {toks}"
        )


pyspiel.register_game(GAME_TYPE, VitouGame)
