"""Jitted buffers under ``NUMBA_BOUNDSCHECK=1``: ``make test`` runs the solver and
simulator tests once that way, so a buffer overrun raises
IndexError there instead of corrupting memory silently."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numba
import numpy as np
import pytest

from vitou_ai.capabilities import cell
from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L


def _cache_dir(env_changes: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_BOUNDSCHECK")}
    env.update(env_changes)
    code = "import numba, vitou_ai._numba; print(numba.config.CACHE_DIR)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout.strip()


def test_bounds_checked_code_has_its_own_cache():
    """numba's on-disk cache does not record NUMBA_BOUNDSCHECK: without a separate
    folder a checked run would load unchecked machine code (and the reverse)."""
    plain = _cache_dir({})
    checked = _cache_dir({"NUMBA_BOUNDSCHECK": "1"})
    assert plain and checked and plain != checked


@pytest.mark.skipif(not numba.config.BOUNDSCHECK, reason="needs NUMBA_BOUNDSCHECK=1 (make test)")
def test_an_overrun_raises_in_the_checked_run():
    """The checked run is really checked: a legal-action buffer one slot short
    (the 2p blind window has two actions, R9.2) raises instead of writing past it."""
    pa = VitouParams(profile="vitou_2p").to_array()
    state = K.new_state(pa)
    assert K.legal_actions(pa, state, np.empty(2, np.int64)) == 2
    with pytest.raises(IndexError):
        K.legal_actions(pa, state, np.empty(1, np.int64))


# ---- every profile, every jitted tool (issue: tables sized from the game) ---------------------
# Each tool sizes its tables from the game (solvers.tree.action_width, the rules'
# max_legal_actions; params.num_actions for tables indexed by action id) or refuses the
# game before any work. Under NUMBA_BOUNDSCHECK=1 (make test) a mis-sized table raises
# IndexError here; unchecked, the assertions still catch a table too narrow for the game.

#: per profile, a variant small enough for the flat game tree (and the public tree)
SMALL = {
    "vitou": dict(ranks=3, copies=2, hand_size=1),
    "vitou_cason": dict(ranks=3, copies=2, hand_size=1),
    "vitou_2p": dict(ranks=4, copies=2, hand_size=2),
    "truc_catalan": dict(ranks=3, copies=2, hand_size=1),
    "truc_catalan_2p": dict(ranks=4, copies=2, hand_size=2),
    "truc_1912": dict(ranks=4, copies=2, hand_size=1),  # F2.3: twice the cards
    "trut": dict(ranks=3, copies=2, hand_size=1),
    "put": dict(ranks=4, copies=2, hand_size=2),
    "put_partnership": dict(ranks=2, copies=4, hand_size=2),  # P6.2: hands of 2 or 3
}
PROFILES = tuple(SMALL)


def _full(profile: str) -> VitouParams:
    """The whole deck and 3-card hands (the widest decisions: 6 actions in truc_1912)."""
    return VitouParams(profile=profile, dealer=-1)


def _small(profile: str) -> VitouParams:
    return VitouParams(profile=profile, dealer=-1, **SMALL[profile])


def _widest_decision(params: VitouParams, deals: int, seed: int = 0) -> int:
    """The most legal actions seen at one decision in ``deals`` random deals."""
    from vitou_ai.sim.random_play import sample_chance

    pa = params.to_array()
    rng = np.random.default_rng(seed)
    legal = np.empty(L.NUM_ACTIONS, np.int64)
    acts = np.empty(L.MAX_CHANCE_OUTCOMES, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES)
    stream = np.array([seed + 1], np.uint64)
    most = 0
    for _ in range(deals):
        state = K.new_state(pa)
        while not K.is_terminal(state):
            if K.is_chance(state):
                K.apply_action(pa, state, sample_chance(pa, state, stream, acts, probs))
                continue
            m = K.legal_actions(pa, state, legal)
            most = max(most, m)
            K.apply_action(pa, state, int(legal[rng.integers(m)]))
    return most


@pytest.mark.parametrize("profile", PROFILES)
def test_max_legal_actions_bounds_every_decision(profile):
    """``rules.game.max_legal_actions`` (what the tables are sized by) bounds every
    decision of random play, and is reached where it is tight (truc_1912: 6, F3.3 cards
    raise refuse rest; trut's one raise, T3.1, never meets a refusal: 4 of its bound 5)."""
    from vitou_ai.rules.game import max_legal_actions

    params = _full(profile)
    most = _widest_decision(params, 400)
    assert most <= max_legal_actions(params)
    assert most == max_legal_actions(params) - (profile == "trut")


@pytest.mark.parametrize("profile", PROFILES)
def test_simulator_and_bots_on_every_profile(profile):
    """The batch simulator with every kind of bot (random, heuristic, tabular from MCCFR,
    abstract from the abstract trainer), deal and match mode."""
    from vitou_ai.abstraction import AbstractionConfig
    from vitou_ai.bots.named import named_bot
    from vitou_ai.sim.batch import simulate
    from vitou_ai.solvers.protocol import _flat_tabular
    from vitou_ai.solvers.sampling.mccfr import MCCFR
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    params = _full(profile)
    mc = MCCFR(params, "outcome", seed=1, max_infosets=1 << 16)
    mc.iterate(100)
    n = mc.num_infosets
    tab = _flat_tabular(params, mc.keys[:n], mc.nact[:n], mc.actions[:n], mc.average_policy(),
                        "tab")
    bots = [named_bot("random"), named_bot("cautious"), named_bot("bluffer"),
            named_bot("counter"), tab]
    abstract = tab
    if cell(profile, "abstract").works:  # put_partnership: refused (P6)
        ab = AbstractMCCFR(params, AbstractionConfig(), seed=1, threads=1, max_infosets=1 << 16)
        ab.iterate(20)
        abstract = ab.policy()
        bots.append(abstract)
    # briefly trained tables fall back at most decisions, and the deal-mode table has no
    # rows at a match's other scores: allowed, the fallback paths are what is exercised
    for k in range(len(bots)):
        lineup = [bots[k], bots[(k + 1) % len(bots)]] * (params.players // 2)
        res = simulate(params, lineup, 40, seed=k, duplicate=True, allow_fallback=True)
        assert len(res) == 40
    match = params.replace(mode="match", max_deals=20)
    res = simulate(match, [abstract, tab] * (params.players // 2), 8, seed=9,
                   allow_fallback=True)
    assert len(res) == 8 and res.fallback[-1]["share"] > 0


@pytest.mark.parametrize("profile", PROFILES)
def test_tabular_mccfr_on_every_profile(profile):
    """External sampling on the small variant, outcome sampling on the whole deck: the
    tables are ``action_width`` columns (6 for truc_1912)."""
    from vitou_ai.rules.game import max_legal_actions
    from vitou_ai.solvers.sampling.mccfr import MCCFR

    for params, sampling, n in ((_small(profile), "external", 50), (_full(profile), "outcome", 200)):
        s = MCCFR(params, sampling, seed=2, max_infosets=1 << 16)
        s.iterate(n)
        assert s.regrets.shape[1] == max(5, max_legal_actions(params))  # tree.action_width
        assert 0 < s.num_infosets
        assert int(s.nact[: s.num_infosets].max()) <= s.regrets.shape[1]
        pol = s.average_policy()
        assert np.allclose(pol.sum(1), 1.0)


@pytest.mark.parametrize("profile", PROFILES)
def test_abstract_trainer_on_every_profile(profile):
    """A few hundred iterations of abstract ES-MCCFR on the whole deck, and the abstract
    key is sound on the small variant's tree (a function of the information state;
    merges only information sets with equal legal actions)."""
    from vitou_ai.abstraction import AbstractionConfig
    from vitou_ai.rules.game import max_legal_actions
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.sampling.abstract_tree import abstract_tree
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    params = _full(profile)
    if not cell(profile, "abstract").works:  # refused before any work, with its reason
        with pytest.raises(ValueError, match=re.escape(cell(profile, "abstract").reason)):
            AbstractMCCFR(params, AbstractionConfig(), seed=4, threads=1, max_infosets=1 << 10)
        return
    s = AbstractMCCFR(params, AbstractionConfig(), seed=4, threads=2, max_infosets=1 << 18)
    s.iterate(300)
    assert s.regrets.shape[1] == max(5, max_legal_actions(params))  # tree.action_width
    keys, nact, probs = s.average_policy()
    assert len(keys) > 100 and int(nact.max()) <= probs.shape[1]
    assert np.allclose(probs.sum(1), 1.0, atol=1e-5)
    tree = build_tree(_small(profile))
    for cfg in (AbstractionConfig(), AbstractionConfig(trick="exact", count=1, history="cards")):
        abstract_tree(tree, cfg)  # raises on an unsound merge


@pytest.mark.parametrize("profile", PROFILES)
def test_tree_solvers_on_every_profile(profile):
    """The flat tree (DCFR, exact evaluation) on the small variant; the public tree where
    it takes the game (all but truc_1912), its one-line refusal there; and the flat
    tree's refusal, before any work, of a game whose decisions are wider than its tables."""
    from vitou_ai.rules.game import max_legal_actions
    from vitou_ai.solvers.flat.tree import MAX_INFOSET_ACTIONS, build_tree
    from vitou_ai.solvers.protocol import make_solver
    from vitou_ai.solvers.public.tree import build_public_tree, count_public_tree

    params = _small(profile)
    tree = build_tree(params)
    s = make_solver("dcfr", params, tree)
    s.iterate(5)
    assert s.exact_evaluation()
    assert s.tabular_policy("t") is not None

    if not cell(profile, "public_tree").works:  # refused with the matrix's reason
        reason = cell(profile, "public_tree").reason
        with pytest.raises(ValueError, match=re.escape(reason)):
            build_public_tree(params)
        with pytest.raises(ValueError, match=re.escape(reason)):
            count_public_tree(params)
    else:
        ptree = build_public_tree(params)
        ps = make_solver("public-dcfr", params, ptree)
        ps.iterate(5)
        assert ps.exact_evaluation()
        assert ps.tabular_policy("p") is not None
    wide = VitouParams(profile=profile, dealer=-1, ranks=3, copies=8)  # 3-card hands
    assert max_legal_actions(wide) == max_legal_actions(_full(profile))
    if max_legal_actions(wide) > MAX_INFOSET_ACTIONS:
        with pytest.raises(ValueError, match="legal actions at a decision"):
            build_tree(wide, max_nodes=1)


@pytest.mark.parametrize("players", [3, 4])
def test_willughby_simulator_bots_and_refusals(players):
    """Willughby's Put (docs/RULES_family.md P7) on the bounds-checked kernel: hands of 4
    and 5 (MAX_HAND), the see round, per-seat returns; random and heuristic bots in the
    simulator (duplicate lineups, zero-sum rows); ``max_legal_actions`` bounds random play
    and is reached; the flat tree and MCCFR keep one utility per seat, and the solvers that
    cannot take three or four sides refuse it before work."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.rules.game import max_legal_actions
    from vitou_ai.sim.batch import F_SEAT_RETURN0, simulate
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.public.tree import build_public_tree
    from vitou_ai.solvers.sampling.mccfr import MCCFR
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    params = VitouParams(profile="put_willughby", players=players, dealer=-1)
    most = _widest_decision(params, 400)
    assert most == max_legal_actions(params) == params.hand_size + 1
    bots = [named_bot(b) for b in ("random", "cautious", "bluffer", "counter")]
    for k in range(len(bots)):
        lineup = ([bots[k], bots[(k + 1) % len(bots)]] * players)[:players]
        res = simulate(params, lineup, 200, seed=k, duplicate=True)
        assert (res.table[:, F_SEAT_RETURN0:F_SEAT_RETURN0 + players].sum(1) == 0).all()
    small = params.replace(ranks=4, copies=2, hand_size=2)
    # One utility per seat (P7.5): the flat tree and external-sampling MCCFR take it, and
    # run bounds-checked; the two-sided public tree and the two-team abstract key refuse.
    tree = build_tree(small)
    assert tree.per_seat and tree.util_seats.shape == (tree.num_nodes, players)
    assert np.allclose(tree.util_seats.sum(1), 0.0)
    solver = MCCFR(small, seed=0)
    solver.iterate(50)
    avg = solver.average_policy()
    assert np.isfinite(avg).all() and avg.min() >= 0.0
    for build in (lambda: build_public_tree(small),
                  lambda: AbstractMCCFR(small, threads=1, max_infosets=1 << 10)):
        with pytest.raises(ValueError, match="docs/RULES_family.md P7"):
            build()
