"""Aggregate reports of a two-player public-tree strategy: how often it raises, accepts,
refuses and bluffs by trick, stake, position and hand class, and what each hand class is
worth, exact and weighted by reach probability.

The policy is one over a public tree's entries (:mod:`vitou_ai.solvers.public.tree`;
:meth:`~vitou_ai.solvers.public.cfr.PublicCFR.average_policy`, a run's ``policy.npz``
through :func:`~vitou_ai.solvers.public.export.bot_policy`). Two jitted passes over the
tree give every information set (decision node, hand of the actor):

- forward, each seat's own reach of each hand (the product of its action probabilities);
- backward, per terminal and per hand of each seat, the probability mass of reaching it
  (public chance x both seats' own reach x the exact joint deal probability, card removal:
  :func:`~vitou_ai.solvers.public.tree.pair_deal_probabilities`), summed up the tree into
  each information set's reach and the part of it the actor's team wins and loses.

Definitions (:mod:`vitou_ai.eval.analysis`'s, on the public tree):

- ``reach``: the probability that the information set is reached (expected decisions
  there per deal); every rate is reach-weighted and carries its base;
- ``position``: 0 the non-dealer (leads trick 1, R1.3), 1 the dealer; ``trick``
  (1-based), ``stake`` (the ladder label standing; for an answer, the raise answered);
- hand class ``best_card``: the best rank dealt (``-`` in the blind window, R9.2);
- ``raise`` where a raise is allowed; ``accept`` and ``refuse`` where a raise awaits the
  actor's answer (a re-raise is neither: it is a raise);
- *bluff*: a raise at an information set where the actor's team is less likely to win
  the deal than to lose it (``p_win < p_lose`` under the policy), the exact analysis'
  definition; ``bluff_share`` is the share of raises (reach-weighted) that are bluffs;
- hand value: the expected return (points per deal, R8.1) of the position given the hand
  it is dealt, ``E[u | hand]``; a deal that ends in the blind window (before the cards)
  counts for every hand with its probability.

Costs: the backward pass is ``O(terminals x hands^2)`` (two players); the report refuses
trees above :data:`MAX_WORK` of that product.

One module because the infoset table, its groupings, the comparison and the figure are
one report over one table's columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._numba import jit
from ..rules import layout as L
from ..solvers.public.lock import POSITIONS, node_features
from ..solvers.public.tree import (
    KIND_DEAL,
    KIND_DECISION,
    KIND_TERMINAL,
    PublicTree,
    check_entry_array,
)

#: most ``terminals x hands^2`` the report takes: the full vitou_2p game with a fixed
#: dealer is 2.36e11 (its backward pass 69 s here; the dealer drawn doubles it)
MAX_WORK = 2.5e11
GROUPS = ("trick", "stake", "position", "best_card")


@jit
def _forward(kind, player, first, nchild, prob, aoff, alen, ent, pslot, H, policy, er, off, ln,
             boff, chance, scale):
    """Own reach per entry (``er``; below the deal relative to it, the blind window's
    own reach in ``scale[node, seat]``), each seat's range slice per node, its last blind
    entry (``boff``) and the public chance probability."""
    er[0] = 1.0
    for i in range(1, H + 1):
        er[i] = 1.0
    off[0, 0] = 0
    off[0, 1] = 0
    ln[0, 0] = 1
    ln[0, 1] = 1
    boff[0, 0] = 0
    boff[0, 1] = 0
    chance[0] = 1.0
    scale[0, 0] = 1.0
    scale[0, 1] = 1.0
    for node in range(kind.shape[0]):
        k = kind[node]
        if k == KIND_TERMINAL:
            continue
        f = first[node]
        for kk in range(nchild[node]):
            c = f + kk
            for s in range(2):
                off[c, s] = off[node, s]
                ln[c, s] = ln[node, s]
                boff[c, s] = boff[node, s]
                scale[c, s] = scale[node, s]
            chance[c] = chance[node]
            if k == KIND_DEAL:
                for s in range(2):
                    scale[c, s] = er[off[node, s]]
                    off[c, s] = 1
                    ln[c, s] = H
            elif k == KIND_DECISION:
                p = player[node]
                off[c, p] = aoff[c]
                ln[c, p] = alen[c]
                if ent[aoff[c]] == H:
                    boff[c, p] = aoff[c]
                for j in range(alen[c]):
                    e = aoff[c] + j
                    er[e] = er[off[node, p] + pslot[e]] * policy[e]
            else:
                chance[c] = chance[node] * prob[c]


@jit
def _backward(kind, player, first, nchild, util, aoff, alen, ent, pslot, H, pair_p, dealer, er,
              off, ln, boff, chance, scale, mt, mw, ml, val, vpre):
    """Masses per entry (``mt`` total, ``mw`` won, ``ml`` lost by the slice's seat's team)
    and the value masses per (dealer, seat, hand) ``val`` and before the deal ``vpre``."""
    for node in range(kind.shape[0] - 1, -1, -1):
        k = kind[node]
        if k == KIND_TERMINAL:
            u0 = util[node]
            d = dealer[node]
            for s in range(2):
                o = 1 - s
                us = u0 if s == 0 else -u0
                win = 1.0 if us > 0 else 0.0
                lose = 1.0 if us < 0 else 0.0
                os_ = off[node, s]
                oo = off[node, o]
                if ent[os_] == H:  # before the deal
                    m = chance[node] * er[os_] * er[oo]
                    mt[os_] += m
                    mw[os_] += m * win
                    ml[os_] += m * lose
                    vpre[d, s] += m * us
                    continue
                tot = 0.0
                for i in range(ln[node, s]):
                    h = ent[os_ + i]
                    r = er[os_ + i]
                    if r == 0.0:
                        continue
                    acc = 0.0
                    for j in range(ln[node, o]):
                        acc += pair_p[h, ent[oo + j]] * er[oo + j]
                    m = chance[node] * scale[node, 0] * scale[node, 1] * r * acc
                    mt[os_ + i] += m
                    mw[os_ + i] += m * win
                    ml[os_ + i] += m * lose
                    val[d, s, h] += m * us
                    tot += m
                b = boff[node, s]
                mt[b] += tot
                mw[b] += tot * win
                ml[b] += tot * lose
        elif k == KIND_DECISION:
            p = player[node]
            f = first[node]
            base = off[node, p]
            for kk in range(nchild[node]):
                c = f + kk
                for j in range(alen[c]):
                    e = aoff[c] + j
                    t = base + pslot[e]
                    mt[t] += mt[e]
                    mw[t] += mw[e]
                    ml[t] += ml[e]


@dataclass
class StrategyReport:
    """A strategy's report (:func:`strategy_report`).

    Attributes:
        table: one row per information set (decision node, hand): ``node``, ``seat``,
            ``position``, ``dealer``, ``phase``, ``trick``, ``stake``, ``best_card``,
            ``hand``, ``reach``, ``p_win``, ``p_lose``, ``can_raise``, ``raise``,
            ``answering``, ``accept``, ``refuse``, ``bluff`` (the raise probability where
            ``p_win < p_lose``, else 0).
        values: one row per (position, hand): ``position``, ``hand``, ``best_card``,
            ``probability`` (of being dealt it), ``value`` (points per deal, ``E[u | hand]``).
        position_values: ``float64[2]``, each position's value (points per deal).
    """

    table: pd.DataFrame
    values: pd.DataFrame
    position_values: np.ndarray

    def frequencies(self, by: list[str] | tuple[str, ...] = GROUPS) -> pd.DataFrame:
        """:func:`frequencies` of :attr:`table`."""
        return frequencies(self.table, list(by))

    def hand_class_values(self) -> pd.DataFrame:
        """Value by position and hand class: ``probability`` of the class, ``value``
        (points per deal given a hand of the class)."""
        v = self.values.copy()
        v["_w"] = v["probability"] * v["value"]
        g = v.groupby(["position", "best_card"], observed=True)
        return pd.DataFrame({"probability": g["probability"].sum(),
                             "value": g["_w"].sum() / g["probability"].sum()})


def strategy_report(tree: PublicTree, policy: np.ndarray) -> StrategyReport:
    """The report of ``policy`` (``float64[num_entries]``) on ``tree`` (module docstring).

    Raises:
        ValueError: a four-player tree; a policy of another tree; a tree above
            :data:`MAX_WORK`.
    """
    from ..capabilities import require

    require("node_locking", tree.params)
    policy = check_entry_array(tree, policy)
    H = tree.num_hands
    nterm = int((tree.kind == KIND_TERMINAL).sum())
    if nterm * H * H > MAX_WORK:
        raise ValueError(f"the report's pass is terminals x hands^2 = {nterm * H * H:.3g}, above "
                         f"{MAX_WORK:.0e}: use a smaller variant")
    t = tree
    N, E = t.num_nodes, t.num_entries
    feats = node_features(t)
    er = np.zeros(E)
    off = np.zeros((N, 2), np.int64)
    ln = np.zeros((N, 2), np.int64)
    boff = np.zeros((N, 2), np.int64)
    chance = np.zeros(N)
    scale = np.zeros((N, 2))
    _forward(t.kind, t.player, t.first, t.nchild, t.prob, t.actor_off, t.actor_len, t.entries,
             t.parent_slot, H, policy, er, off, ln, boff, chance, scale)
    mt, mw, ml = np.zeros(E), np.zeros(E), np.zeros(E)
    val = np.zeros((2, 2, H))
    vpre = np.zeros((2, 2))
    dealer = np.maximum(feats.dealer, 0)
    _backward(t.kind, t.player, t.first, t.nchild, t.util, t.actor_off, t.actor_len, t.entries,
              t.parent_slot, H, t.pair_prob, dealer, er, off, ln, boff, chance, scale, mt, mw,
              ml, val, vpre)
    table = _infoset_rows(t, feats, policy, mt, mw, ml)
    pair_marg = t.pair_prob.sum(1)
    rows = []
    pos_val = np.zeros(2)
    labels = t.params.rank_labels
    dealers = sorted(set(int(d) for d in np.unique(feats.dealer) if d >= 0))
    for k in range(2):
        for h in range(H):
            v = 0.0
            for d in dealers:
                s = (d + 1 + k) % 2
                v += val[d, s, h] / pair_marg[h] + vpre[d, s]
            rows.append({"position": POSITIONS[k],
                         "hand": " ".join(labels[r] for r in t.hands[h]),
                         "best_card": labels[int(t.hands[h].min())],
                         "probability": float(pair_marg[h]), "value": v})
            pos_val[k] += pair_marg[h] * v
    values = pd.DataFrame(rows)
    values["best_card"] = pd.Categorical(values["best_card"], categories=list(labels),
                                         ordered=True)
    return StrategyReport(table, values, pos_val)


def _infoset_rows(t: PublicTree, feats, policy, mt, mw, ml) -> pd.DataFrame:
    from ..solvers.public.lock import entry_nodes

    H = t.num_hands
    enode, child = entry_nodes(t)
    ok = np.nonzero(enode >= 0)[0]
    key = enode[ok] * (H + 1) + t.entries[ok].astype(np.int64)
    uniq, inv = np.unique(key, return_inverse=True)
    n = len(uniq)
    act = t.action[child[ok]].astype(np.int64)

    def per(x):
        return np.bincount(inv, weights=x, minlength=n)

    pol = policy[ok]
    reach = per(mt[ok])
    win = per(mw[ok])
    lose = per(ml[ok])
    node = uniq // (H + 1)
    hand = uniq % (H + 1)
    can_raise = per((act == L.A_RAISE).astype(float)) > 0
    answering = per((act == L.A_REFUSE).astype(float)) > 0
    p_raise = per(pol * (act == L.A_RAISE))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_win = np.where(reach > 0, win / reach, np.nan)
        p_lose = np.where(reach > 0, lose / reach, np.nan)
    labels = t.params.rank_labels
    ladder = list(t.params.ladder_labels)
    # categorical columns (codes of a byte or two): a row per information set, 20 M of
    # them in the full vitou_2p game, where columns of Python strings took gigabytes
    best_codes = np.concatenate([[0], 1 + np.array([int(h.min()) for h in t.hands])])
    best = pd.Categorical.from_codes(best_codes[np.where(hand < H, hand + 1, 0)],
                                     categories=["-", *labels], ordered=True)
    hand_txt = pd.Categorical.from_codes(
        hand, categories=[" ".join(labels[r] for r in h) for h in t.hands] + ["-"])
    phase_names = {L.PH_BLIND: "blind", L.PH_PLAY: "play", L.PH_ANSWER: "answer",
                   L.PH_ABANDON: "abandon", L.PH_ONE_FROM_END: "one-from-end"}
    ph = feats.phase[node]
    ph_u = np.unique(ph)
    phase = pd.Categorical.from_codes(np.searchsorted(ph_u, ph),
                                      categories=[phase_names.get(int(x), str(int(x)))
                                                  for x in ph_u])
    df = pd.DataFrame({
        "node": node, "seat": t.player[node].astype(np.int8),
        "position": pd.Categorical.from_codes(feats.position[node], categories=list(POSITIONS)),
        "dealer": feats.dealer[node],
        "phase": phase,
        "trick": feats.trick[node],
        "stake": pd.Categorical.from_codes(np.minimum(feats.stake[node], len(ladder) - 1),
                                           categories=ladder, ordered=True),
        "best_card": best,
        "hand": hand_txt, "reach": reach, "p_win": p_win, "p_lose": p_lose,
        "can_raise": can_raise, "raise": p_raise,
        "answering": answering, "accept": per(pol * (act == L.A_ACCEPT)),
        "refuse": per(pol * (act == L.A_REFUSE)),
    })
    df["bluff"] = np.where(df["can_raise"] & (df["p_win"] < df["p_lose"]), df["raise"], 0.0)
    return df


def frequencies(table: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Reach-weighted rates grouped ``by`` (default: trick, stake, position, best card).

    Columns: ``raise`` and its base ``raise_reach`` (expected decisions per deal where a
    raise is allowed), ``accept`` / ``refuse`` and ``answer_reach`` (expected answers to a
    raise per deal), ``bluff_share`` and ``raises`` (expected raises per deal), ``infosets``
    (information sets with positive reach). A rate with a base of 0 is NaN.
    """
    by = list(by or GROUPS)
    d = table[table["reach"] > 0].copy()
    r = d["reach"]
    d["_rr"] = r * d["can_raise"]
    d["_ra"] = r * d["can_raise"] * d["raise"]
    d["_bl"] = r * d["can_raise"] * d["bluff"]
    d["_ar"] = r * d["answering"]
    d["_ac"] = r * d["answering"] * d["accept"]
    d["_rf"] = r * d["answering"] * d["refuse"]
    g = d.groupby(by, observed=True)
    s = g[["_rr", "_ra", "_bl", "_ar", "_ac", "_rf"]].sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        out = pd.DataFrame({
            "raise": s["_ra"] / s["_rr"], "raise_reach": s["_rr"],
            "accept": s["_ac"] / s["_ar"], "refuse": s["_rf"] / s["_ar"],
            "answer_reach": s["_ar"],
            "bluff_share": s["_bl"] / s["_ra"], "raises": s["_ra"],
            "infosets": g.size(),
        })
    return out.replace([np.inf, -np.inf], np.nan)


def compare(reports: dict[str, StrategyReport], by: list[str] | None = None) -> pd.DataFrame:
    """Several strategies' :func:`frequencies` side by side: columns ``(name, rate)``."""
    if not reports:
        raise ValueError("compare needs at least one report")
    out = pd.concat({name: rep.frequencies(by or GROUPS) for name, rep in reports.items()},
                    axis=1)
    for name in reports:  # a group one strategy never reaches has 0 of its information sets
        if (name, "infosets") in out.columns:
            out[(name, "infosets")] = out[(name, "infosets")].fillna(0).astype(np.int64)
    return out


def plot_reports(reports: dict[str, StrategyReport], title: str = ""):
    """A matplotlib Figure (Agg canvas, no pyplot state): for each strategy, the raise,
    refusal and bluff rates by stake and position, and the value by hand class and
    position."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 4)
    names = list(reports)
    width = 0.8 / max(1, 2 * len(names))
    for a, (col, lab) in enumerate((("raise", "P(raise | raise allowed)"),
                                    ("refuse", "P(refuse | answering)"),
                                    ("bluff_share", "share of raises that are bluffs"))):
        ax = axes[a]
        for j, name in enumerate(names):
            f = reports[name].frequencies(["stake", "position"])[col].unstack("position")
            x = np.arange(len(f.index))
            for pos in f.columns:  # one colour a (strategy, position) in every panel
                q = POSITIONS.index(str(pos))
                ax.bar(x - 0.4 + width * (2 * j + q + 0.5), f[pos].to_numpy(), width,
                       label=f"{name}, {pos}", color=f"C{2 * j + q}")
            ax.set_xticks(x, [str(i) for i in f.index])
        ax.set_xlabel("stake")
        ax.set_title(lab, fontsize=9)
        ax.set_ylim(0, 1.05)
    ax = axes[3]
    for j, name in enumerate(names):
        v = reports[name].hand_class_values()["value"].unstack("position")
        x = np.arange(len(v.index))
        for pos in v.columns:
            q = POSITIONS.index(str(pos))
            ax.bar(x - 0.4 + width * (2 * j + q + 0.5), v[pos].to_numpy(), width,
                   label=f"_{name}, {pos}", color=f"C{2 * j + q}")  # "_": not in a legend
        ax.set_xticks(x, [str(i) for i in v.index])
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("best card dealt")
    ax.set_title("value given the hand class (points per deal)", fontsize=9)
    axes[0].legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
