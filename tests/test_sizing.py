"""Tables sized from the game: truc_1912 has 6 legal actions at a card turn (3 cards,
raise, refuse, rest: docs/RULES_family.md F3.3), one more than the 5 the solvers' tables
used to hold. The abstract trainer wrote past its tables (silently; IndexError under
NUMBA_BOUNDSCHECK=1); its key overflowed its fields on the family's verbs (concede, rest,
redeal, keep), longer ladder (F3.1) and larger decks. Now every table is sized from the
game (``solvers.tree.action_width``, ``params.num_actions``) or the game is refused, in
one line, before any work. The per-profile sweep under the bounds check is in
tests/test_boundscheck.py."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from tests.helpers import play_random
from vitou_ai.abstraction import AbstractionConfig
from vitou_ai.abstraction.key import abstract_key
from vitou_ai.bots.abstract import AbstractPolicy
from vitou_ai.capabilities import cell
from vitou_ai.commands.cli import main
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.rules.params import FAMILY_PROFILES
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.sampling.mccfr import MCCFR
from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

T1912 = VitouParams(profile="truc_1912", dealer=-1)


def _sixth_action_mass(keys, nact, probs) -> float:
    rows = nact == 6
    assert rows.any(), "no stored decision with 6 legal actions"
    return float(probs[rows, 5].sum())


def test_truc_1912_abstract_training_covers_the_sixth_action():
    """Fails on d8510d0: IndexError under NUMBA_BOUNDSCHECK=1, and unchecked a policy
    5 columns wide (the 6th action, rest, never had a probability)."""
    s = AbstractMCCFR(T1912, seed=5, threads=1, max_infosets=1 << 18)
    s.iterate(400)
    keys, nact, probs = s.average_policy()
    assert probs.shape[1] == 6 and int(nact.max()) == 6
    assert _sixth_action_mass(keys, nact, probs) > 0.0
    assert np.allclose(probs.sum(1), 1.0, atol=1e-5)
    # the bot plays it: the pack keeps the 6 columns
    policy = s.policy()
    assert policy.probs.shape[1] == 6
    from vitou_ai.bots.policy import pack_policies

    assert pack_policies([policy, policy]).abs_probs.shape[1] == 6


def test_truc_1912_abstract_training_from_the_command(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["train", "--profile", "truc_1912", "--solver", "abstract-mccfr",
                 "--iterations", "400", "--evals", "1", "--eval-deals", "2",
                 "--eval-matches", "0", "--lbr-deals", "0", "--bots", "random",
                 "--threads", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr()
    policy = AbstractPolicy.load(out / "policy.npz")
    assert policy.probs.shape[1] == 6
    assert _sixth_action_mass(policy.keys, policy.nact, policy.probs) > 0.0


def test_tabular_mccfr_takes_truc_1912():
    """Refused on d8510d0 (tables 5 wide); now 6 columns."""
    s = MCCFR(T1912, "outcome", seed=1, max_infosets=1 << 16)
    s.iterate(300)
    n = s.num_infosets
    assert s.regrets.shape[1] == 6 and int(s.nact[:n].max()) == 6
    pol = s.average_policy()
    assert np.allclose(pol.sum(1), 1.0)


def test_flat_tree_refuses_wider_decisions_before_any_work(tmp_path, capsys):
    """The flat tree's tables (CFR, exact evaluation, exports) stay 5 wide: truc_1912
    with 3-card hands is refused up front, naming the rule, in one line (exit 2)."""
    three = T1912.replace(ranks=3, copies=8)  # 3 cards, raise, refuse, rest: 6 actions
    with pytest.raises(ValueError, match=r"truc_1912 .* up to 6 legal actions .*F3\.3"):
        build_tree(three, max_nodes=1)  # refused before counting any node
    build_tree(T1912.replace(ranks=4, copies=2, hand_size=1))  # 4 actions: built
    out = tmp_path / "run"
    code = main(["train", "--profile", "truc_1912", "--ranks", "3", "--copies", "8",
                 "--hand-size", "3", "--solver", "dcfr", "--iterations", "2", "--out", str(out)])
    err = capsys.readouterr().err
    lines = [s for s in err.splitlines() if s.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert "up to 6 legal actions" in lines[0]
    assert not (out / "run.json").exists()


def test_sampling_solver_with_exact_yes_names_exact_as_the_cause(tmp_path, capsys):
    """Found by a new user: es-mccfr with --exact yes on 3-card 1912 suggested 'a sampling
    solver (es-mccfr, ...)', the one in use; the cause is --exact yes (the flat tree)."""
    out = tmp_path / "run"
    code = main(["train", "--profile", "truc_1912", "--ranks", "6", "--copies", "4",
                 "--hand-size", "3", "--solver", "es-mccfr", "--exact", "yes",
                 "--iterations", "2", "--out", str(out)])
    err = capsys.readouterr().err
    lines = [s for s in err.splitlines() if s.strip()]
    assert code == 2 and len(lines) == 1, err
    assert "drop --exact yes" in lines[0] and "up to 6 legal actions" in lines[0]
    assert "sampling solver" not in lines[0]
    assert not (out / "run.json").exists()


def test_abstract_trainer_refuses_two_players_in_one_line(tmp_path, capsys):
    code = main(["train", "--profile", "put", "--solver", "abstract-mccfr", "--iterations", "2",
                 "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    lines = [s for s in err.splitlines() if s.strip()]
    assert code == 2 and len(lines) == 1, err
    assert "four players (put has 2)" in lines[0]


def _legal_by_key(params: VitouParams, cfg: AbstractionConfig, deals: int):
    game = Game(params)
    c = cfg.to_array(params.signals)
    seen: dict[int, tuple[int, ...]] = {}
    clash = []

    def visit(state):
        if state.is_chance_node():
            return
        legal = np.array(state.legal_actions(), np.int64)
        k = int(abstract_key(c, game.array, state.array, state.current_player(), legal,
                             len(legal)))
        assert 0 <= k < 2**cfg.bits(params)
        if seen.setdefault(k, tuple(legal)) != tuple(legal):
            clash.append((k, seen[k], tuple(legal)))

    for d in range(deals):
        play_random(game, d, visit)
    return seen, clash


# the abstract key's games (partnership Put is refused by the abstract trainer, P6:
# tests/test_capabilities.py checks the refusal)
@pytest.mark.parametrize("profile", [p for p in FAMILY_PROFILES if cell(p, "abstract").works])
@pytest.mark.parametrize("cfg", [
    AbstractionConfig(), AbstractionConfig(trick="exact", count=1),
    AbstractionConfig(partner=False, history="cards", scores=True)])
def test_family_keys_fit_their_bits_and_equal_keys_have_equal_legal_actions(profile, cfg):
    """On d8510d0 the family's verbs (ids 27..30) and truc_1912's stake (up to 11 in 3
    bits) spilled into the next fields, and Catalan / Put ranks past 8 indexed past the
    hand table: keys of different legal actions collided."""
    params = VitouParams(profile=profile, dealer=-1, scores=(1, 2))
    if cfg.bits(params) > 63:
        with pytest.raises(ValueError, match="-bit key for this game"):
            cfg.check_game(params)
        return
    seen, clash = _legal_by_key(params, cfg, 250)
    assert not clash, clash[:3]
    assert len(seen) > 50


def test_vitou_keys_are_unchanged():
    """The Vitou profiles' keys (and so their checkpoints and policy files) are those of
    d8510d0: digest of the keys of 40 random deals each, computed on d8510d0."""
    keys = []
    for params, cfg in ((VitouParams(profile="vitou", dealer=-1, signals=True),
                         AbstractionConfig(count=2)),
                        (VitouParams(profile="vitou_2p", dealer=-1),
                         AbstractionConfig(trick="exact", history="cards", scores=True))):
        game = Game(params)
        c = cfg.to_array(params.signals)

        def visit(state, game=game, c=c):
            if not state.is_chance_node():
                legal = np.array(state.legal_actions(), np.int64)
                keys.append(int(abstract_key(c, game.array, state.array, state.current_player(),
                                             legal, len(legal))))

        for d in range(40):
            play_random(game, d, visit)
    digest = hashlib.sha256(np.array(keys, np.int64).tobytes()).hexdigest()[:16]
    assert (len(keys), digest) == (732, "6976cdfb594e94ad")


def test_neural_outputs_are_one_per_action_id_of_the_game():
    """A network is read by action id: the family's ids run to 30 (31 outputs). A 22-output
    network read ids 22..30 off the end of its outputs (other activations)."""
    pytest.importorskip("pyspiel")
    import pyspiel

    from vitou_ai.bots.neural import NeuralPolicy, tree_inputs
    from vitou_ai.openspiel.game import game_string

    params = VitouParams(profile="put", ranks=10, copies=1, hand_size=1)
    size = pyspiel.load_game(game_string(params)).information_state_tensor_size()
    with pytest.raises(ValueError, match="expected 31"):
        NeuralPolicy([("linear", np.zeros((L.NUM_ACTIONS, size)), np.zeros(L.NUM_ACTIONS))],
                     "logits", params)
    NeuralPolicy([("linear", np.zeros((31, size)), np.zeros(31))], "logits", params)
    x, mask = tree_inputs(build_tree(params))
    assert mask.shape[1] == 31 and mask[:, L.NUM_ACTIONS:].any()
