"""OpenSpiel's own API conformance suite (``open_spiel.integration_tests.api_test``,
shipped in the wheel) run on ``python_vitou``, and every observation type the game offers.

The suite defines two test-case bases that its ``load_tests`` instantiates per
registered game: ``EnforceAPIOnPartialTreeBase`` (400 sampled states: sequence
lengths, errors on bad players, legal actions of non-movers, private-only and
public-only observations) and ``EnforceAPIOnFullTreeBase`` (every state of a
small game: terminal / chance conventions, constant sum, perfect recall, no
information state shared between players). Here each base is subclassed per
``python_vitou`` variant, so pytest runs its methods as they are. Two methods of
the full-tree base compare against counts OpenSpiel recorded for its own games;
they are replaced by checks against our flat game tree (see below).
"""

from __future__ import annotations

import pyspiel
import pytest

import vitou_ai  # noqa: F401  (registers python_vitou)
from vitou_ai.openspiel.game import VitouState
from vitou_ai.rules import layout as L
from vitou_ai.solvers.flat.tree import build_tree

api_test = pytest.importorskip("open_spiel.integration_tests.api_test")

T = pyspiel.IIGObservationType
PRIVATE = pyspiel.PrivateInfoType
ALL_OBS_TYPES = [T(public_info=pub, perfect_recall=recall, private_info=pit)
                 for pub in (True, False) for recall in (True, False)
                 for pit in (PRIVATE.NONE, PRIVATE.SINGLE_PLAYER, PRIVATE.ALL_PLAYERS)]


def _partial(name: str, spec: str):
    cls = type(name, (api_test.EnforceAPIOnPartialTreeBase,), {})
    cls.game_name = spec
    cls.game = pyspiel.load_game(spec)
    return cls


# sampled states of the real games (and match mode, signals, one from the end)
TestApiPartialVitou = _partial("TestApiPartialVitou", "python_vitou")
TestApiPartialVitou2p = _partial("TestApiPartialVitou2p", "python_vitou(profile=vitou_2p)")
TestApiPartialMatch = _partial("TestApiPartialMatch",
                               "python_vitou(profile=vitou_cason,mode=match,dealer=-1)")
TestApiPartialSignals = _partial("TestApiPartialSignals",
                                 "python_vitou(signals=True,dealer=-1,score0=20)")


class _FullTree(api_test.EnforceAPIOnFullTreeBase):
    """The full-tree suite on a small deal-mode variant.

    ``test_number_of_nodes`` and ``test_game_is_perfect_recall`` check OpenSpiel's
    recorded counts for its own games (``TOTAL_NUM_STATES``,
    ``PERFECT_RECALL_NUM_STATES``); for ``python_vitou`` the counts come from the
    flat game tree built straight from the kernel (:mod:`vitou_ai.solvers.flat.tree`),
    which is a check of the OpenSpiel adapter against an independent traversal.
    """

    __test__ = False  # a base: only its per-variant subclasses run

    def test_number_of_nodes(self):
        # get_all_states keeps one state per distinct str(state): equal strings must
        # mean equal kernel states up to the order in which a hand was dealt
        # (hands are multisets), and every decision node of the flat tree must appear.
        by_string: dict[str, bytes] = {}
        for state in self.all_states:
            assert isinstance(state, VitouState)
            a = state.a.copy()
            for s in range(self.game.num_players()):
                base = L.S_HAND + s * L.MAX_HAND
                a[base : base + L.MAX_HAND] = sorted(a[base : base + L.MAX_HAND])
            assert by_string.setdefault(str(state), a.tobytes()) == a.tobytes(), str(state)
        decisions = sum(1 for s in self.all_states if not s.is_chance_node() and not s.is_terminal())
        assert decisions >= build_tree(self.game.vitou_params).num_infosets > 0

    def test_game_is_perfect_recall(self):
        if self.game.vitou_params.signals:
            seen = _own_sequences(self.game)
        else:
            seen = api_test._assert_is_perfect_recall(self.game)  # raises if not
        # one OpenSpiel information state per information set of the kernel's tree
        assert len(seen) == build_tree(self.game.vitou_params).num_infosets


def _own_sequences(game) -> dict:
    """Perfect recall as ``api_test._assert_is_perfect_recall`` defines it (each
    information state of a player comes with one sequence of that player's own
    information states and actions), without the helper's extra demand that all
    histories of an information state be equally long. With signals that demand
    cannot hold: the catch draws (R7.2, chance) follow only a gesture other than
    ``none``, and an opponent who missed a gesture cannot tell it from ``none``.
    Returns {(information state, player): own sequence}, raising on a violation."""
    out: dict = {}

    def rec(state, trails):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                rec(state.child(a), trails)
            return
        p = state.current_player()
        key = (state.information_state_string(p), p)
        tensor = tuple(state.information_state_tensor(p))
        own = out.setdefault(key, (trails[p], tensor))
        assert own == (trails[p], tensor), f"not perfect recall at {key}"
        for a in state.legal_actions():
            t = list(trails)
            t[p] = trails[p] + ((key[0], a),)
            rec(state.child(a), tuple(t))

    rec(game.new_initial_state(), tuple(() for _ in range(game.num_players())))
    return out


def _full(name: str, spec: str):
    cls = type(name, (_FullTree,), {"__test__": True})
    cls.game_name = spec
    cls.game = pyspiel.load_game(spec)
    return cls


TestApiFull2p = _full("TestApiFull2p",
                      "python_vitou(profile=vitou_2p,ranks=3,copies=1,hand_size=1,dealer=-1)")
TestApiFull4pShared = _full("TestApiFull4pShared", "python_vitou(ranks=2,copies=3,hand_size=1,"
                                                   "score0=20)")
TestApiFull4pSignals = _full("TestApiFull4pSignals",
                             "python_vitou(ranks=2,copies=2,hand_size=1,signals=True,"
                             "signal_seen=0.5,score1=20)")
