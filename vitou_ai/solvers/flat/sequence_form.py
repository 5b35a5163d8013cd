"""Exact game value of a two-player deal by the sequence-form linear program
(Koller, Megiddo & von Stengel 1996, "Efficient computation of equilibria for
extensive two-person games", section 4), solved with SciPy's HiGHS.

An independent check of the CFR solvers on small variants: it shares only the
flat tree with them, not their update rules.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from .tree import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL, GameTree


def _sequences(tree: GameTree):
    """Sequence ids: 0 is the empty sequence; (infoset i, action slot a) of
    player p gets ``1 + offset[i] + a`` in p's numbering."""
    offset = np.zeros(tree.num_infosets, np.int64)
    count = [1, 1]
    for i in range(tree.num_infosets):
        p = int(tree.is_player[i])
        offset[i] = count[p]
        count[p] += int(tree.is_nact[i])
    return offset, count


def game_value(tree: GameTree) -> float:
    """Value of the deal for seat 0 (points per deal), maximin over behaviour strategies.

    Raises:
        ValueError: for a game that is not two-player.
        RuntimeError: if the LP solver fails.
    """
    if tree.num_players != 2:
        raise ValueError("the sequence-form LP here is for two-player games")
    offset, (n0, n1) = _sequences(tree)
    n = tree.num_nodes
    seq = np.zeros((n, 2), np.int64)  # each player's last sequence on the path
    chance = np.ones(n)
    parent_seq = np.full(tree.num_infosets, -1, np.int64)
    a_rows, a_cols, a_vals = [], [], []
    for i in range(n):  # parents precede children
        k = tree.kind[i]
        if k == KIND_TERMINAL:
            a_rows.append(seq[i, 0])
            a_cols.append(seq[i, 1])
            a_vals.append(chance[i] * tree.util[i])
            continue
        f, m = int(tree.first[i]), int(tree.nchild[i])
        seq[f:f + m] = seq[i]
        if k == KIND_CHANCE:
            chance[f:f + m] = chance[i] * tree.prob[f:f + m]
        else:
            assert k == KIND_DECISION
            chance[f:f + m] = chance[i]
            iset, p = int(tree.infoset[i]), int(tree.player[i])
            parent_seq[iset] = seq[i, p]
            seq[f:f + m, p] = offset[iset] + np.arange(m)
    A = sp.coo_matrix((a_vals, (a_rows, a_cols)), shape=(n0, n1)).tocsr()

    def constraints(p: int, size: int):
        rows, cols, vals = [0], [0], [1.0]
        r = 1
        for iset in np.nonzero(tree.is_player == p)[0]:
            rows.append(r)
            cols.append(parent_seq[iset])
            vals.append(-1.0)
            for a in range(int(tree.is_nact[iset])):
                rows.append(r)
                cols.append(offset[iset] + a)
                vals.append(1.0)
            r += 1
        return sp.coo_matrix((vals, (rows, cols)), shape=(r, size)).tocsr()

    E = constraints(0, n0)
    F = constraints(1, n1)
    # variables z = [x (n0), q (rows of F)]; maximise q_0 = f.q
    nq = F.shape[0]
    c = np.zeros(n0 + nq)
    c[n0] = -1.0
    A_ub = sp.hstack([-A.T, F.T]).tocsr()  # F^T q - A^T x <= 0
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], nq))]).tocsr()
    b_eq = np.zeros(E.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * nq
    res = scipy.optimize.linprog(c, A_ub=A_ub, b_ub=np.zeros(n1), A_eq=A_eq, b_eq=b_eq,
                                 bounds=bounds, method="highs")
    if res.status != 0:
        raise RuntimeError(f"sequence-form LP failed: {res.message}")
    return float(-res.fun)
