"""Public subgames, Bayes ranges, re-solving and the search bot (issue 23, item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.solvers import public_kernels as PK
from vitou_ai.solvers.public_cfr import PublicCFR, PublicPasses, entry_policy, nash_conv
from vitou_ai.solvers.public_tree import KIND_DECISION, KIND_TERMINAL, build_public_tree
from vitou_ai.solvers.subgame import (
    SubgameSolver,
    bayes_reach,
    build_subgame,
    find_node,
    range_posterior,
)

TINY = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=0)


def _dealt(params, hands, blind=(L.A_PASS, L.A_PASS)):
    """The kernel state after the blind window ``blind`` and the deal ``hands`` (per seat)."""
    pa = params.to_array()
    st = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(pa, st)
    for a in blind:
        K.apply_action(pa, st, a)
    K.apply_deal(pa, st, np.array(hands, np.int64))
    return st


def _play(params, st, actions):
    st = st.copy()
    for a in actions:
        K.apply_action(params.to_array(), st, a)
    return st


def _entry_map(sub, full, x):
    """``int64[sub entries]``: the whole tree's entry of each subgame entry (same node by
    action ids, same hand), checking on the way that the two trees agree node for node:
    kind, player, action, return, and the subgame's ranges inside the whole tree's."""
    t = sub.tree
    emap = np.full(t.num_entries, -1, np.int64)
    stack = [(0, x)]
    while stack:
        u, v = stack.pop()
        assert t.kind[u] == full.kind[v] and t.player[u] == full.player[v]
        assert t.util[u] == full.util[v]
        assert t.nchild[u] == full.nchild[v]
        fu, fv = int(t.first[u]), int(full.first[v])
        for k in range(int(t.nchild[u])):
            cu = fu + k
            cv = [c for c in range(fv, fv + int(full.nchild[v]))
                  if full.action[c] == t.action[cu]]
            assert len(cv) == 1
            cv = cv[0]
            if t.kind[u] == KIND_DECISION:
                hv = {int(h): int(full.actor_off[cv]) + j for j, h in enumerate(
                    full.entries[full.actor_off[cv]:full.actor_off[cv] + full.actor_len[cv]])}
                for j in range(int(t.actor_len[cu])):
                    e = int(t.actor_off[cu]) + j
                    emap[e] = hv[int(t.entries[e])]
            if t.kind[cu] != KIND_TERMINAL:
                stack.append((cu, cv))
    return emap


def _restrict(pol, emap):
    """A whole-tree policy on the subgame's entries (0 on the root ranges, never read)."""
    return np.where(emap >= 0, pol[np.maximum(emap, 0)], 0.0)


def _values_at(full, policy, x, tp):
    """The whole tree's own walk, cut at node ``x``: (reach ``float64[n, H+1]`` of the
    seats' ranges at ``x``, ``tp``'s counterfactual values there ``float64[H+1]``,
    offsets ``int64[n]``, lengths ``int64[n]``)."""
    ps = PublicPasses(full, frontier_size=0)
    n, H1 = full.num_players, full.num_hands + 1
    ps.frontier = np.array([x], np.int64)
    ps.chunk_start = np.array([0, 1], np.int64)
    ps.chunk_items = np.array([0], np.int64)
    ps.fr_offs = np.zeros((1, n), np.int64)
    ps.fr_lens = np.zeros((1, n), np.int64)
    ps.fr_reach = np.zeros((1, n, H1))
    ps.fr_val = np.zeros((1, H1))
    ps.visited = np.zeros(1, np.int64)
    e = np.zeros(0)
    ps.run(tp, PK.POLICY_GIVEN, PK.UPDATE_NONE, e, e, policy)
    return ps.fr_reach[0].copy(), ps.fr_val[0].copy(), ps.fr_offs[0].copy(), ps.fr_lens[0].copy()


@pytest.fixture(scope="module")
def solved_tiny():
    full = build_public_tree(TINY)
    cfr = PublicCFR(full, "dcfr", frontier_size=0)
    cfr.iterate(300)
    pol = cfr.average_policy()
    return full, pol, nash_conv(full, pol)


# the public states: the whole deal after the blind window; after trick 1 was void
# (both played a 9) and the leader of trick 2 raised
HISTORIES = [
    ([], [[1, 2], [1, 3]]),
    ([L.A_PLAY0 + 1, L.A_PLAY0 + 1], [[1, 2], [1, 3]]),
    ([L.A_PLAY0 + 1, L.A_PLAY0 + 1, L.A_RAISE], [[0, 1], [1, 2]]),
]


@pytest.mark.parametrize("after, hands", HISTORIES)
def test_subgame_is_the_whole_trees_subtree(solved_tiny, after, hands):
    """Node for node the same tree, and under the same policy and the reaches the whole
    tree's walk carries to that node, the same counterfactual value for every hand."""
    full, pol, _ = solved_tiny
    st = _play(TINY, _dealt(TINY, hands), after)
    sub = build_subgame(TINY, st)
    x = find_node(full, [L.A_PASS, L.A_PASS] + after)
    emap = _entry_map(sub, full, x)
    edges = int(sub.root_offs[-1] + sub.root_lens[-1])  # before: the root ranges
    assert (emap[edges:] >= 0).all() and (emap[:edges] < 0).all()
    sub_pol = _restrict(pol, emap)
    for tp in range(2):
        reach_x, val_x, offs, lens = _values_at(full, pol, x, tp)
        reach = np.zeros((2, full.num_hands))
        for s in range(2):
            hs = full.entries[offs[s]:offs[s] + lens[s]].astype(np.int64)
            reach[s, hs] = reach_x[s, :lens[s]]
            # the subgame drops only hands the public cards rule out
            assert set(sub.root_hands[s]) <= set(hs)
        solver = SubgameSolver(sub, reach)
        v_sub = solver.root_values(tp, sub_pol)
        full_hands = full.entries[offs[tp]:offs[tp] + lens[tp]].astype(np.int64)
        v_full = dict(zip(full_hands.tolist(), val_x[:lens[tp]], strict=True))
        for h, v in zip(sub.root_hands[tp], v_sub, strict=True):
            assert v == pytest.approx(v_full[int(h)], abs=1e-12)
        for h in set(v_full) - set(sub.root_hands[tp].tolist()):
            assert v_full[h] == 0.0  # a hand the public cards rule out is never dealt


@pytest.mark.parametrize("after, hands", HISTORIES)
def test_subgame_solve_matches_the_whole_trees_solve(solved_tiny, after, hands):
    """Re-solving the subgame from the whole solve's reaches reaches its value: in a
    zero-sum game ``|u(sigma) - v*| <= NashConv(sigma)``, and the whole solve restricted to
    the subgame is at most as exploitable there as in the whole game (its reaches are
    the whole game's, so a deviation in the subgame is one in the whole game)."""
    full, pol, nc_full = solved_tiny
    st = _play(TINY, _dealt(TINY, hands), after)
    sub = build_subgame(TINY, st)
    x = find_node(full, [L.A_PASS, L.A_PASS] + after)
    emap = _entry_map(sub, full, x)
    reach_x, _, offs, lens = _values_at(full, pol, x, 0)
    reach = np.zeros((2, full.num_hands))
    for s in range(2):
        reach[s, full.entries[offs[s]:offs[s] + lens[s]].astype(np.int64)] = reach_x[s, :lens[s]]
    solver = SubgameSolver(sub, reach)
    solver.iterate(300)
    nc_sub = solver.nash_conv()
    nc_restricted = solver.nash_conv(_restrict(pol, emap))
    assert nc_restricted <= nc_full + 1e-12
    assert nc_sub < 1e-3
    v_solved = solver.value(0)
    v_whole = solver.value(0, _restrict(pol, emap))
    assert abs(v_solved - v_whole) <= nc_sub + nc_restricted + 1e-12


# ---- Bayes ranges ------------------------------------------------------------------------

TOY = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=0)


@pytest.fixture(scope="module")
def toy_blueprint():
    """A blueprint that, leading trick 1 (seat 1), raises with T 90% of the time, with 9
    50%, with A 10%; uniform elsewhere."""
    from vitou_ai.solvers.public_export import to_tabular_policy

    tree = build_public_tree(TOY)
    x = find_node(tree, [L.A_PASS, L.A_PASS])
    assert tree.player[x] == 1
    w = np.zeros(tree.num_entries)
    q = {0: 0.9, 1: 0.5, 2: 0.1}
    f, m = int(tree.first[x]), int(tree.nchild[x])
    n_other = {}
    for c in range(f, f + m):
        for e in range(int(tree.actor_off[c]), int(tree.actor_off[c] + tree.actor_len[c])):
            if tree.action[c] != L.A_RAISE:
                n_other[int(tree.entries[e])] = n_other.get(int(tree.entries[e]), 0) + 1
    for c in range(f, f + m):
        for e in range(int(tree.actor_off[c]), int(tree.actor_off[c] + tree.actor_len[c])):
            h = int(tree.entries[e])
            w[e] = q[h] if tree.action[c] == L.A_RAISE else (1 - q[h]) / n_other[h]
    pol = entry_policy(tree, w)
    return to_tabular_policy(tree, pol, name="toy")


def test_bayes_ranges_by_hand(toy_blueprint):
    """Deck T 9 A, one card each. Seat 1 raises: its posterior is 0.9 : 0.5 : 0.1 / 1.5
    (uniform prior); seat 0 holding the A knows seat 1 has T or 9: 0.9 : 0.5 / 1.4 (card
    removal); seat 0's range after its uniform answer stays the prior."""
    start = _dealt(TOY, [[2], [0]])
    reach = bayes_reach(TOY, toy_blueprint, start, [L.A_RAISE])
    np.testing.assert_allclose(reach[1], [0.9, 0.5, 0.1])
    np.testing.assert_allclose(reach[0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(range_posterior(TOY, reach, 1), [0.6, 1 / 3, 1 / 15])
    np.testing.assert_allclose(range_posterior(TOY, reach, 1, known={0: 2}),
                               [9 / 14, 5 / 14, 0.0])
    np.testing.assert_allclose(range_posterior(TOY, reach, 0, known={1: 0}), [0, 0.5, 0.5])
    # seat 1 then plays its card (the T): hands without a T drop out
    reach2 = bayes_reach(TOY, toy_blueprint, start, [L.A_RAISE, L.A_ACCEPT, L.A_PLAY0 + 0])
    assert reach2[1, 1] == 0.0 and reach2[1, 2] == 0.0 and reach2[1, 0] > 0
    np.testing.assert_allclose(range_posterior(TOY, reach2, 1), [1.0, 0.0, 0.0])
