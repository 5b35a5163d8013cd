"""Node locking on the public tree (vitou_ai.solvers.public.lock): the re-solve and the
exploit against an independent sequence-form LP and the flat tree's best response, the
lock held exactly, and bad lock files refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat import evaluate as FE
from vitou_ai.solvers.flat.tree import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL, build_tree
from vitou_ai.solvers.public import lock as LK
from vitou_ai.solvers.public.cfr import PublicCFR
from vitou_ai.solvers.public.export import flat_slots
from vitou_ai.solvers.public.tree import build_public_tree

GAME = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1)
HEAD = '[game]\nprofile = "vitou_2p"\nranks = 3\ncopies = 2\nhand_size = 1\n'
NEVER_REFUSE_6 = HEAD + ('[[lock]]\nplayer = "non-dealer"\nphase = "answer"\nstake = "6"\n'
                         'mix = { accept = 1.0 }\n')
ALWAYS_REFUSE = HEAD + ('[[lock]]\nplayer = "non-dealer"\nphase = "answer"\n'
                        'mix = { refuse = 1.0 }\n')
DEALER_RAISES = HEAD + ('[[lock]]\nplayer = "dealer"\nphase = "play"\nbest_card = ["A"]\n'
                        'mix = { raise = 0.75, "play A" = 0.25 }\n')


@pytest.fixture(scope="module")
def setup():
    tree = build_public_tree(GAME)
    s = PublicCFR(tree, "dcfr", frontier_size=0)
    s.iterate(300)
    return tree, s.average_policy(), build_tree(GAME)


def lock_of(tree, text, tmp_path, name="l.toml"):
    path = tmp_path / name
    path.write_text(text)
    return LK.lock_from_file(tree, path)


def flat_policy(tree, flat, policy):
    rows, slots = flat_slots(tree, flat)
    out = np.zeros(flat.is_actions.shape)
    ok = rows >= 0
    out[rows[ok], slots[ok]] = policy[ok]
    return out


def locked_lp_value(flat, player, locked: dict[int, np.ndarray], fixed_other=None) -> float:
    """``player``'s value of the locked game: the sequence-form LP (Koller, Megiddo & von
    Stengel 1996) with ``player`` the maximiser and its locked sets' sequences tied to
    their parents' (``x[I, a] = mix[a] * x[parent(I)]``); written here, apart from the
    package's LP, so that the reference shares only the flat tree with the solver.
    ``fixed_other``: the other player's flat policy, held: the LP is then ``player``'s
    best response restricted to its free sets."""
    sign = 1.0 if player == 0 else -1.0
    o = 1 - player
    offset = np.zeros(flat.num_infosets, np.int64)
    count = [1, 1]
    for i in range(flat.num_infosets):
        q = int(flat.is_player[i])
        offset[i] = count[q]
        count[q] += int(flat.is_nact[i])
    n = flat.num_nodes
    seq = np.zeros((n, 2), np.int64)
    chance = np.ones(n)
    parent_seq = np.full(flat.num_infosets, -1, np.int64)
    rows, cols, vals = [], [], []
    for i in range(n):
        k = flat.kind[i]
        if k == KIND_TERMINAL:
            rows.append(seq[i, player])
            cols.append(seq[i, o])
            vals.append(sign * chance[i] * flat.util[i])
            continue
        f, m = int(flat.first[i]), int(flat.nchild[i])
        seq[f:f + m] = seq[i]
        if k == KIND_CHANCE:
            chance[f:f + m] = chance[i] * flat.prob[f:f + m]
        else:
            assert k == KIND_DECISION
            chance[f:f + m] = chance[i]
            iset, q = int(flat.infoset[i]), int(flat.player[i])
            parent_seq[iset] = seq[i, q]
            seq[f:f + m, q] = offset[iset] + np.arange(m)
    nx, ny = count[player], count[o]
    A = sp.coo_matrix((vals, (rows, cols)), shape=(nx, ny)).tocsr()

    def cons(q, size, extra):
        r_, c_, v_ = [0], [0], [1.0]
        r = 1
        for iset in np.nonzero(flat.is_player == q)[0]:
            r_.append(r)
            c_.append(parent_seq[iset])
            v_.append(-1.0)
            for a in range(int(flat.is_nact[iset])):
                r_ += [r]
                c_ += [offset[iset] + a]
                v_ += [1.0]
            r += 1
            if extra and iset in locked:
                for a, mu in enumerate(locked[iset]):
                    r_ += [r, r]
                    c_ += [offset[iset] + a, parent_seq[iset]]
                    v_ += [1.0, -float(mu)]
                    r += 1
        return sp.coo_matrix((v_, (r_, c_)), shape=(r, size)).tocsr()

    E = cons(player, nx, True)
    if fixed_other is not None:
        y = np.zeros(ny)
        y[0] = 1.0
        for i in range(n):  # parents first: each set's sequences from its parent's
            if flat.kind[i] == KIND_DECISION and flat.player[i] == o:
                iset = int(flat.infoset[i])
                for a in range(int(flat.is_nact[iset])):
                    y[offset[iset] + a] = y[parent_seq[iset]] * fixed_other[iset, a]
        res = scipy.optimize.linprog(-(A @ y), A_eq=E, b_eq=np.eye(E.shape[0])[0],
                                     bounds=[(0, None)] * nx, method="highs")
        assert res.status == 0, res.message
        return float(-res.fun)
    F = cons(o, ny, False)
    nq = F.shape[0]
    c = np.zeros(nx + nq)
    c[nx] = -1.0
    res = scipy.optimize.linprog(
        c, A_ub=sp.hstack([-A.T, F.T]).tocsr(), b_ub=np.zeros(ny),
        A_eq=sp.hstack([E, sp.csr_matrix((E.shape[0], nq))]).tocsr(),
        b_eq=np.eye(E.shape[0])[0], bounds=[(0, None)] * nx + [(None, None)] * nq,
        method="highs")
    assert res.status == 0, res.message
    return float(-res.fun)


@pytest.mark.parametrize("text", [NEVER_REFUSE_6, DEALER_RAISES], ids=["never-refuse-6",
                                                                       "dealer-raises"])
def test_resolve_and_exploit_match_the_lp_and_flat_best_response(setup, text, tmp_path):
    tree, bp, flat = setup
    lock = lock_of(tree, text, tmp_path)
    seat = (GAME.dealer + 1 + lock.position) % 2  # dealer fixed: the locked position's seat
    pol, solver, curve = LK.solve_locked(lock, 20000, target=1e-5, check_every=500)
    rep = LK.exploit_report(lock, bp, pol)
    # the lock is held exactly, in the average and the current policy
    m = lock.mask
    assert np.array_equal(pol[m], lock.fixed[m])
    # inside the solver, before the lock is laid over its output
    assert np.allclose(PublicCFR.average_policy(solver)[m], lock.fixed[m], atol=1e-15)
    assert np.allclose(PublicCFR.current_policy(solver)[m], lock.fixed[m], atol=1e-15)
    assert rep["resolved_lock_held"]
    # re-solved value == the LP's value of the locked game (within the exploitability)
    rows, slots = flat_slots(tree, flat)
    locked = {}
    for e in np.nonzero(m & (rows >= 0))[0]:
        locked.setdefault(int(rows[e]), np.zeros(int(flat.is_nact[rows[e]])))[slots[e]] = \
            lock.fixed[e]
    lp = locked_lp_value(flat, seat, locked)
    x = rep["resolved_exploitability"]
    assert x <= 1e-5
    assert abs(rep["resolved_value"] - lp) <= 2 * x + 1e-9
    # the maximal exploit == the flat tree's best response to the locked blueprint
    fp = flat_policy(tree, flat, lock.apply(bp))
    br = FE.best_response(flat, fp, 1 - seat)[0]
    assert rep["exploit_value"] == pytest.approx(-br, abs=1e-9)
    u = FE.expected_returns(flat, fp)
    assert rep["locked_value"] == pytest.approx(u[seat], abs=1e-9)
    # the exploit is at most the locked game's value for the locked side
    assert rep["exploit_value"] <= lp + 1e-9


def test_restricted_best_response_is_the_lp_with_the_lock(setup, tmp_path):
    """The locked side's best response restricted to its free sets (UPDATE_BR_FIXED)
    against a fixed opponent equals the LP with every opponent set locked too."""
    tree, bp, flat = setup
    lock = lock_of(tree, ALWAYS_REFUSE, tmp_path)
    seat = (GAME.dealer + 1 + lock.position) % 2
    ev = LK.PositionEvaluator(tree)
    v = ev.best_response(bp, lock.position, lock.fixed)
    fp = flat_policy(tree, flat, bp)
    rows, slots = flat_slots(tree, flat)
    locked = {}
    for e in np.nonzero(lock.mask & (rows >= 0))[0]:
        locked.setdefault(int(rows[e]), np.zeros(int(flat.is_nact[rows[e]])))[slots[e]] = \
            lock.fixed[e]
    assert locked_lp_value(flat, seat, locked, fixed_other=fp) == pytest.approx(v, abs=1e-7)
    # and it lies between the blueprint's value and the unrestricted best response
    assert v < ev.best_response(bp, lock.position) - 0.01  # the lock costs the responder


BAD = {
    "unknown history": (HEAD + '[[lock]]\nhistory = "p1 raise, p0 agree"\nmix = { accept = 1.0 }\n',
                        "item 1 'p0 agree'"),
    "illegal action at the node": (HEAD + '[[lock]]\nhistory = "p1 raise"\nmix = { "play T" = 1.0 }\n',
                                   "is not legal at"),
    "mix not summing to 1": (HEAD + '[[lock]]\nplayer = "dealer"\nmix = { raise = 0.5, '
                             'accept = 0.4 }\n', "not 1"),
    "another game": ('[game]\nprofile = "vitou_2p"\nranks = 4\ncopies = 2\nhand_size = 1\n'
                     '[[lock]]\nplayer = "dealer"\nmix = { raise = 1.0 }\n', "written for"),
    "another dealer": (HEAD + 'dealer = 1\n[[lock]]\nplayer = "dealer"\nmix = { raise = 1.0 }\n',
                       "dealer 1 (run: 0)"),
    "history of the other position": (HEAD + '[[lock]]\nhistory = "p1 raise"\n'
                                      'player = "non-dealer"\nmix = { accept = 1.0 }\n',
                                      "ends at the dealer's decision (answer, stake 3"),
    "a mix of strings": (HEAD + '[[lock]]\nplayer = "dealer"\nmix = { raise = "1" }\n',
                         "must be numbers"),
    "a dealer history item in a game with a fixed dealer": (
        HEAD + '[[lock]]\nhistory = "dealer 0, p1 raise"\nmix = { accept = 1.0 }\n',
        "the dealer is not drawn in this game (dealer 0): leave the 'dealer S' item out"),
    "an unknown [game] knob": (HEAD + 'colour = "red"\n[[lock]]\nplayer = "dealer"\n'
                               'mix = { raise = 1.0 }\n', "[game] has no knob 'colour'"),
    "no game": ('[[lock]]\nplayer = "dealer"\nmix = { raise = 1.0 }\n', "[game]"),
    "unknown action": (HEAD + '[[lock]]\nplayer = "dealer"\nmix = { fold = 1.0 }\n',
                       "not an action"),
    "bad stake": (HEAD + '[[lock]]\nplayer = "dealer"\nstake = "5"\nmix = { raise = 1.0 }\n',
                  "not on the ladder"),
    "matches nothing": (HEAD + '[[lock]]\nplayer = "dealer"\nphase = "answer"\nstake = "1"\n'
                        'mix = { accept = 1.0 }\n', "matches no"),
    "both positions": (HEAD + '[[lock]]\nplayer = "dealer"\nphase = "play"\nmix = { raise = 1.0 }\n'
                       '[[lock]]\nplayer = "non-dealer"\nphase = "play"\nmix = { raise = 1.0 }\n',
                       "both positions"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_lock_files_are_refused_in_one_line(setup, name, tmp_path):
    tree = setup[0]
    text, words = BAD[name]
    with pytest.raises(LK.LockError) as e:
        lock_of(tree, text, tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and words in msg, msg


def test_four_players_refused():
    with pytest.raises(LK.LockError, match="two-player"):
        LK.parse_locks({"game": {"profile": "vitou"}, "lock": []},
                       VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1))


def test_a_knob_left_out_of_game_is_named_as_the_default():
    run = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1, dealer=-1)
    table = {"game": {"profile": "vitou_2p", "ranks": 3, "copies": 2, "hand_size": 1},
             "lock": [{"player": "dealer", "mix": {"raise": 1.0}}]}
    with pytest.raises(LK.LockError, match=r"dealer 0 \(left out: the default\) \(run: -1\)"):
        LK.parse_locks(table, run)
