"""Neural policies as bots (vitou_ai.bots.neural): the jitted network against the
numpy one, the file format, exact exploitability on a tree against OpenSpiel's,
and ``nfsp:PATH`` in a tournament."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as os_policy

import vitou_ai  # noqa: F401
from tests.helpers import needs_extra, random_action
from vitou_ai.bots.named import parse_bot
from vitou_ai.bots.neural import NeuralPolicy, neural_policy_on_tree
from vitou_ai.bots.policy import choose_action, pack_policies, scratch
from vitou_ai.commands.cli import main as cli_main
from vitou_ai.openspiel.game import game_string
from vitou_ai.rng import row_seed
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.solvers.flat.evaluate import exploitability
from vitou_ai.solvers.flat.tree import build_tree

SMALL = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)


def _net(params: VitouParams, seed: int, output: str = "logits") -> NeuralPolicy:
    rng = np.random.default_rng(seed)
    size = pyspiel.load_game(game_string(params)).information_state_tensor_size()
    layers = [("linear", rng.normal(size=(12, size)), rng.normal(size=12)), ("tanh",),
              ("layernorm", rng.normal(size=12), rng.normal(size=12)),
              ("linear", rng.normal(size=(10, 12)), rng.normal(size=10)), ("relu",),
              ("linear", rng.normal(size=(22, 10)), rng.normal(size=22))]
    return NeuralPolicy(layers, output, params, name=f"net{seed}")


@pytest.mark.parametrize("output", ["logits", "probs"])
def test_jitted_policy_samples_the_numpy_policy(output):
    params = VitouParams(profile="vitou", hand_size=2, signals=True)
    pol = NeuralPolicy.per_seat([_net(params, s, output) for s in range(4)], name="four")
    pack = pack_policies([pol])
    game = pyspiel.load_game(game_string(params))
    legal, keybuf, iwork, rng = scratch()
    rng[0] = row_seed(np.uint64(1), np.uint64(0))
    py = random.Random(0)
    state = Game(params).new_initial_state()
    osstate = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 6:
        if not state.is_chance_node():
            p = state.current_player()
            mask = np.zeros((1, 22), bool)
            mask[0, state.legal_actions()] = True
            x = np.asarray(osstate.information_state_tensor(p), np.float32)[None]
            want = pol.action_probs(x, mask, p)[0]
            n = K.legal_actions(game.vitou_params.to_array(), state.array, legal)
            draws = np.zeros(22)
            for _ in range(4000):
                draws[choose_action(pack, 0, state.game.array, state.array, p, rng, legal, n,
                                    keybuf, iwork)] += 1
            np.testing.assert_allclose(draws / 4000, want, atol=0.03)
            assert set(np.flatnonzero(draws)) <= set(state.legal_actions())
            checked += 1
        a = random_action(state, py)
        state.apply_action(a)
        osstate.apply_action(a)
    assert checked >= 3


def test_save_load_round_trip_and_bad_files(tmp_path):
    pol = NeuralPolicy.per_seat([_net(SMALL, 1), _net(SMALL, 2)], name="pair")
    pol.save(tmp_path / "p.npz")
    back = parse_bot(f"nfsp:{tmp_path / 'p.npz'}")
    x = np.random.default_rng(0).random((5, pol.input_size), dtype=np.float32)
    for seat in (0, 1):
        np.testing.assert_array_equal(back.forward(x, seat), pol.forward(x, seat))
    assert back.name == "pair" and back.params == SMALL
    np.savez(tmp_path / "tab.npz", keys=np.zeros((1, 3)), probs=np.zeros((1, 22)))
    with pytest.raises(ValueError, match="not a neural policy file"):
        NeuralPolicy.load(tmp_path / "tab.npz")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="not a neural policy file"):
        NeuralPolicy.load(tmp_path / "obj.npy")
    with pytest.raises(ValueError, match="give the network file"):
        parse_bot("nfsp:")
    with pytest.raises(ValueError, match="outputs, expected 22"):
        NeuralPolicy([("linear", np.zeros((5, pol.input_size)), np.zeros(5))], "logits", SMALL)


def test_tree_exploitability_equals_openspiel():
    """The network read on the tree's keys, scored by the native exact
    exploitability, equals pyspiel.exploitability of the same network read on
    OpenSpiel's states (float32 rounding aside)."""
    params = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1)
    pol = NeuralPolicy.per_seat([_net(params, 3), _net(params, 4)])
    tree = build_tree(params)
    ours = exploitability(tree, neural_policy_on_tree(pol, tree))
    game = pyspiel.load_game(game_string(params))

    def probs(state):
        p = state.current_player()
        mask = np.zeros((1, 22), bool)
        mask[0, state.legal_actions()] = True
        pr = pol.action_probs(np.asarray(state.information_state_tensor(p), np.float32)[None],
                              mask, p)[0]
        return {a: pr[a] for a in state.legal_actions()}

    table = os_policy.tabular_policy_from_callable(game, probs)
    theirs = pyspiel.exploitability(game, pyspiel.TabularPolicy(table.to_dict()))
    assert ours > 0.1  # a random network is far from equilibrium
    assert abs(ours - theirs) < 1e-5


def test_tournament_takes_nfsp_spec_and_refuses_other_games(tmp_path, capsys):
    path = tmp_path / "nfsp.npz"
    NeuralPolicy.per_seat([_net(SMALL, 5), _net(SMALL, 6)], name="nfsp").save(path)
    rc = cli_main(["tournament", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
                   "--hand-size", "1", "--deals", "400", "--bots", f"nfsp:{path}", "random",
                   "--out", str(tmp_path / "t")])
    assert rc == 0
    assert "nfsp" in (tmp_path / "t" / "ratings.csv").read_text()
    rc = cli_main(["tournament", "--profile", "vitou_2p", "--deals", "10", "--bots",
                   f"nfsp:{path}", "random", "--out", str(tmp_path / "u")])
    assert rc == 2
    assert "trained for ranks = 4" in capsys.readouterr().err


@needs_extra("rl")
def test_from_torch_matches_torch():
    import torch
    from torch import nn

    size = pyspiel.load_game(game_string(SMALL)).information_state_tensor_size()
    torch.manual_seed(0)
    net = nn.Sequential(nn.Sequential(nn.Linear(size, 16), nn.ReLU()), nn.LayerNorm(16),
                        nn.Linear(16, 22), nn.Softmax(-1))
    pol = NeuralPolicy.from_torch([net], "probs", SMALL)
    x = np.random.default_rng(1).random((7, size), dtype=np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(pol.action_probs(x, np.ones((7, 22), bool)), want, atol=1e-5)
    with pytest.raises(ValueError, match="cannot export a Sigmoid"):
        NeuralPolicy.from_torch([nn.Linear(size, 22), nn.Sigmoid()], "logits", SMALL)
