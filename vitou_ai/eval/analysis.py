"""Bluff analysis of a policy on a deal's game tree (exact, reach-weighted).

For every information set of a policy the tree gives its reach (how often it
happens under the policy), the acting player's chances to win and to lose
the deal from there (against the opponents' range at that point: the
histories of the information set weighted by their reach) and the action
probabilities. :func:`infoset_table` lays this out as a pandas DataFrame, one
row per information set; the summaries group it by hand strength, seat, trick
and stake.

Definitions (documented choices):

- *hand strength*: the acting player's best dealt card (``T`` .. ``7``) and
  the equity bucket of the information set.
- *winning chance* ``p`` and *losing chance* ``q``: probabilities that the
  acting player's team scores / the other team scores, from that information
  set, under the policy (void and passed deals count for neither).
- *bluff*: a raise with ``p < q``. A raise from stake ``s`` to ``s'`` gains
  ``(p - q)(s' - s)`` when it is accepted, so ``p = q`` is its break-even
  whatever the stake (with no void deals, ``p < 1/2``).
- *false gesture* (R7): a gesture other than ``none`` that differs from the
  honest one for the hand (``ten`` if it holds a T, else ``nine`` if a 9, else
  ``ace`` if an A, else ``nohigh``).
- *base* of a frequency: what it rests on, carried in every summary table —
  ``reach`` (the sum of the reach probabilities of the information sets in the
  row: the expected number of such decisions per deal), ``raises`` (expected
  raises per deal, behind a bluff share), ``gestures``, and ``infosets`` (how
  many information sets the row sums). :func:`plot_summary` hatches in grey
  every bar whose base is below ``min_reach`` (:data:`MIN_REACH`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._numba import jit
from ..capabilities import require
from ..rules import layout as L
from ..solvers.tree import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL, GameTree


@jit
def _reach_and_chances_kernel(kind, first, nchild, prob, infoset, util, policy, reach, win0,
                              win1):
    reach[0] = 1.0
    n = kind.shape[0]
    for i in range(n):
        k = kind[i]
        if k == KIND_TERMINAL:
            continue
        f = first[i]
        for c in range(nchild[i]):
            w = prob[f + c] if k == KIND_CHANCE else policy[infoset[i], c]
            reach[f + c] = reach[i] * w
    for i in range(n - 1, -1, -1):
        k = kind[i]
        if k == KIND_TERMINAL:
            win0[i] = 1.0 if util[i] > 0 else 0.0
            win1[i] = 1.0 if util[i] < 0 else 0.0
            continue
        f = first[i]
        a = 0.0
        b = 0.0
        for c in range(nchild[i]):
            w = prob[f + c] if k == KIND_CHANCE else policy[infoset[i], c]
            a += w * win0[f + c]
            b += w * win1[f + c]
        win0[i] = a
        win1[i] = b


def _reach_and_chances(tree: GameTree, policy: np.ndarray):
    n = tree.num_nodes
    reach, win0, win1 = np.zeros(n), np.zeros(n), np.zeros(n)
    _reach_and_chances_kernel(tree.kind, tree.first, tree.nchild, tree.prob, tree.infoset,
                              tree.util, policy, reach, win0, win1)
    return reach, win0, win1


def _honest_gesture(hand: list[int]) -> int:
    for g, r in ((1, 0), (2, 1), (3, 2)):
        if r in hand:
            return g
    return 4


def check_game(params) -> None:
    """Refuse a game the bluff analysis does not read correctly (:mod:`vitou_ai.capabilities`).

    Raises:
        UnsupportedGameError: one line, with the reason.
    """
    require("bluff_analysis", params)


def _is_card(t: int) -> bool:
    """A token that plays a card: Vitou's ranks, or the family's low ranks (Put's 6 5 4)."""
    return L.A_PLAY0 <= t < L.A_RAISE or L.A_PLAY_HI0 <= t < L.A_CONCEDE


def _stake_index(toks: list[int], steps: int) -> int:
    """Ladder index standing after the deal's tokens: one step per raise (R4.1, G3),
    the top of the ladder after *our rest* (truc_1912, F3.3)."""
    if L.A_REST in toks:
        return steps - 1
    return min(sum(1 for t in toks if t == L.A_RAISE), steps - 1)


def infoset_table(tree: GameTree, policy: np.ndarray) -> pd.DataFrame:
    """One row per information set.

    Columns: ``infoset``, ``seat``, ``team``, ``position`` (0 = dealer's left),
    ``best_card`` (letter; ``-`` before the deal), ``trick`` (1-based, the trick
    being played: from the cards played, as many to a trick as players, two in
    partnership Put, P6.4), ``stake`` (ladder label standing at the decision: for
    an answer, the raise being answered), ``score0``,
    ``score1``, ``reach`` (probability the information set is reached),
    ``p_win``, ``p_lose``, ``equity`` (``p_win - p_lose``), ``can_raise``,
    ``raise``, ``answering`` (a raise awaits this player's answer),
    ``refuse``, ``gesture_phase``, ``false_gesture``, ``gesture_made``.
    Probabilities are the policy's at that information set. ``best_card`` uses the
    game's rank labels (``params.rank_labels``: Put's ``3 2 A K ...``).

    Raises:
        UnsupportedGameError: a game the analysis does not take (:func:`check_game`).
    """
    p = tree.params
    check_game(p)
    n_players = p.players
    # cards to a trick: every player's, but partnership Put's two active players only (P6.4)
    per_trick = 2 if p.partnership else n_players
    reach, win0, win1 = _reach_and_chances(tree, policy)
    dec = np.nonzero(tree.kind == KIND_DECISION)[0]
    iset = tree.infoset[dec]
    ni = tree.num_infosets
    r_sum = np.bincount(iset, weights=reach[dec], minlength=ni)
    w0 = np.bincount(iset, weights=reach[dec] * win0[dec], minlength=ni)
    w1 = np.bincount(iset, weights=reach[dec] * win1[dec], minlength=ni)
    with np.errstate(invalid="ignore", divide="ignore"):
        pw0 = w0 / r_sum
        pw1 = w1 / r_sum
    rows = []
    labels = p.ladder_labels
    ranks = p.rank_labels
    for i in range(ni):
        key = tree.is_keys[i]
        seat = int(key[L.K_PLAYER])
        team = seat % 2
        hand = [int(c) for c in key[L.K_HAND:L.K_HAND + p.hand_size] if c >= 0]
        toks = [int(t) for t in key[L.K_TOK:L.K_TOK + int(key[L.K_NTOK])]]
        stake = _stake_index(toks, len(p.ladder_labels))
        plays = sum(1 for t in toks if _is_card(t))
        acts = [int(a) for a in tree.is_actions[i, :tree.is_nact[i]]]
        prob = {a: float(policy[i, k]) for k, a in enumerate(acts)}
        gesture_phase = any(L.A_SIGNAL0 <= a < L.A_SIGNAL0 + 5 for a in acts)
        honest = _honest_gesture(hand) if hand else -1
        false_g = sum(prob.get(L.A_SIGNAL0 + g, 0.0) for g in range(1, 5) if g != honest)
        made = sum(prob.get(L.A_SIGNAL0 + g, 0.0) for g in range(1, 5))
        pw, pl = (pw0[i], pw1[i]) if team == 0 else (pw1[i], pw0[i])
        rows.append({
            "infoset": i, "seat": seat, "team": team,
            "position": (seat - int(key[L.K_DEALER]) - 1) % n_players,
            "best_card": ranks[min(hand)] if hand else "-",
            "trick": plays // per_trick + 1,
            "stake": labels[stake],
            "score0": int(key[L.K_SCORE0]), "score1": int(key[L.K_SCORE1]),
            "reach": r_sum[i], "p_win": pw, "p_lose": pl, "equity": pw - pl,
            "can_raise": L.A_RAISE in prob, "raise": prob.get(L.A_RAISE, 0.0),
            "answering": L.A_REFUSE in prob, "refuse": prob.get(L.A_REFUSE, 0.0),
            "gesture_phase": gesture_phase, "false_gesture": false_g, "gesture_made": made,
        })
    df = pd.DataFrame(rows)
    df["stake"] = pd.Categorical(df["stake"], categories=list(labels), ordered=True)
    df["best_card"] = pd.Categorical(df["best_card"], categories=["-", *ranks],
                                     ordered=True)
    df["equity_bucket"] = pd.cut(df["equity"], [-1.0001, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0001],
                                 labels=["<-0.5", "-0.5..-0.2", "-0.2..0", "0..0.2", "0.2..0.5",
                                         ">0.5"])
    return df


#: default of ``min_reach`` in :func:`plot_summary`: a row whose base (see the
#: summaries' ``reach`` / ``raises`` / ``gestures`` columns) is below this, in
#: expected decisions per deal, is drawn hatched in grey: its frequency rests on
#: too little play to read.
MIN_REACH = 0.01


def _weighted(df: pd.DataFrame, by: list[str], value: str, mask: pd.Series) -> pd.DataFrame:
    d = df[mask & (df["reach"] > 0)].copy()
    d["_w"] = d["reach"] * d[value]
    g = d.groupby(by, observed=True)
    return pd.DataFrame({value: g["_w"].sum() / g["reach"].sum(), "reach": g["reach"].sum(),
                         "infosets": g["reach"].size()})


def raise_frequencies(df: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Reach-weighted probability of raising where a raise is allowed (first raises
    and re-raises), grouped ``by`` (default: best card and trick).

    Columns: ``raise`` (the frequency), ``reach`` (its base: the sum of the reach
    probabilities of the information sets in the row, i.e. the expected number of
    such decisions per deal), ``infosets`` (how many information sets, with
    positive reach, it sums).
    """
    return _weighted(df, by or ["best_card", "trick"], "raise", df["can_raise"])


def refusal_rates(df: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Reach-weighted probability of refusing a raise, grouped ``by`` (default: stake).

    Columns: ``refuse``, ``reach`` (expected answers to a raise per deal, the
    base), ``infosets``.
    """
    return _weighted(df, by or ["stake"], "refuse", df["answering"])


def bluff_frequency(df: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Share of raises (reach-weighted) made with ``p_win < p_lose`` (module docstring),
    grouped ``by`` (default: stake).

    Columns: ``bluff_share``, ``raises`` (its base: expected raises per deal),
    ``reach`` (expected decisions per deal where a raise was allowed),
    ``infosets`` (information sets with a raise allowed and positive reach).
    """
    d = df[df["can_raise"] & (df["reach"] > 0)].copy()
    d["_raises"] = d["reach"] * d["raise"]
    d["_bluffs"] = d["_raises"] * (d["p_win"] < d["p_lose"])
    g = d.groupby(by or ["stake"], observed=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = g["_bluffs"].sum() / g["_raises"].sum()
    return pd.DataFrame({"bluff_share": share, "raises": g["_raises"].sum(),
                         "reach": g["reach"].sum(), "infosets": g["reach"].size()})


def false_gesture_rate(df: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Among gestures made (not ``none``), the reach-weighted share that are false (R7).

    Columns: ``false_share``, ``gestures`` (its base: expected gestures made per
    deal), ``reach`` (expected gesture decisions per deal), ``infosets``.
    """
    d = df[df["gesture_phase"] & (df["reach"] > 0)].copy()
    d["_made"] = d["reach"] * d["gesture_made"]
    d["_false"] = d["reach"] * d["false_gesture"]
    g = d.groupby(by or ["position"], observed=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = g["_false"].sum() / g["_made"].sum()
    return pd.DataFrame({"false_share": share, "gestures": g["_made"].sum(),
                         "reach": g["reach"].sum(), "infosets": g["reach"].size()})


def _bars(ax, table: pd.DataFrame, value: str, base: str, min_reach: float,
          colors: list[str]) -> bool:
    """Bars of ``table[value]`` (one series per column level 1 if ``table`` has a
    second index level), hatched grey where ``table[base] < min_reach``; True if any."""
    from matplotlib.patches import Patch

    if table.index.nlevels == 2:
        v = table[value].unstack(1)
        b = table[base].unstack(1).reindex_like(v)
    else:
        v = table[[value]]
        b = table[[base]].set_axis(v.columns, axis=1)
    x = np.arange(len(v.index))
    k = len(v.columns)
    width = 0.8 / k
    thin = False
    for j in range(k):
        for i in range(len(x)):
            y, r = v.iloc[i, j], b.iloc[i, j]
            if pd.isna(y):
                continue
            low = not r >= min_reach
            thin |= low
            ax.bar(x[i] - 0.4 + width * (j + 0.5), y, width,
                   color="lightgrey" if low else colors[j % len(colors)],
                   hatch="///" if low else None, edgecolor="grey" if low else "none")
    ax.set_xticks(x, [str(i) for i in v.index])
    handles = [] if k == 1 else [Patch(color=colors[j % len(colors)], label=f"{v.columns.name} {c}")
                                 for j, c in enumerate(v.columns)]
    if thin:
        handles.append(Patch(facecolor="lightgrey", hatch="///", edgecolor="grey",
                             label=f"{base} < {min_reach:g} per deal"))
    if handles:
        ax.legend(handles=handles, fontsize=8)
    return thin


def plot_summary(df: pd.DataFrame, title: str = "", min_reach: float = MIN_REACH):
    """A matplotlib Figure (Agg canvas, no pyplot state): raise frequency by best card
    and trick, bluff share by stake, refusal rate by stake.

    Args:
        df: :func:`infoset_table`.
        min_reach: a bar whose base is below this (expected decisions per deal:
            ``reach`` for the raise and refusal rates, ``raises`` for the bluff
            share) is drawn hatched in grey, and the legend says so
            (default :data:`MIN_REACH`).

    Raises:
        ValueError: ``min_reach`` negative.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not min_reach >= 0:
        raise ValueError(f"min_reach must be >= 0, got {min_reach}")
    fig = Figure(figsize=(13, 3.8))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3)
    tab10 = [f"C{i}" for i in range(10)]
    rf = raise_frequencies(df)
    order = [c for c in df["best_card"].cat.categories if c in rf.index.get_level_values(0)]
    rf = rf.reindex(order, level=0)  # .loc[list] fails on a one-trick MultiIndex (pandas)
    _bars(axes[0], rf, "raise", "reach", min_reach, tab10)
    axes[0].set_title("raise frequency by best card and trick")
    axes[0].set_ylabel("P(raise | raise allowed)")
    _bars(axes[1], bluff_frequency(df), "bluff_share", "raises", min_reach, ["tab:red"])
    axes[1].set_title("share of raises that are bluffs, by stake")
    _bars(axes[2], refusal_rates(df), "refuse", "reach", min_reach, ["tab:green"])
    axes[2].set_title("refusal rate by stake raised to")
    for ax in axes:
        ax.set_ylim(0, 1.05)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def policy_from_tabular(tree: GameTree, tabular) -> np.ndarray:
    """Lay a tabular bot (:class:`vitou_ai.bots.tabular.TabularPolicy`, e.g. a
    ``policy.npz`` of ``vitou-ai train``) onto the tree's information sets:
    ``float64[num_infosets, 5]``; rows missing from the table, or with no mass
    on a legal action, become uniform."""
    from ..solvers.evaluate import uniform_policy

    out = uniform_policy(tree)
    probs = np.asarray(tabular.probs, dtype=np.float64)
    for i in range(tree.num_infosets):
        row = tabular.row(tree.is_keys[i])
        if row < 0:
            continue
        m = int(tree.is_nact[i])
        v = probs[row, tree.is_actions[i, :m].astype(np.int64)]
        if v.sum() > 0:
            out[i, :m] = v / v.sum()
    return out


def score_sweep(params, scores: list[tuple[int, int]], iterations: int = 300,
                variant: str = "dcfr") -> pd.DataFrame:
    """Solve the deal at each starting score (R6, R8.1: the stakes are capped at what
    each team needs) and summarise the equilibrium's raising, refusing and bluffing.

    Returns:
        One row per score: ``score0``, ``score1``, ``exploitability`` or
        ``nash_conv``, ``value_dealer_left`` (the seat on the dealer's left,
        averaged over the draw when the dealer is drawn:
        :func:`~vitou_ai.solvers.evaluate.value_by_position`), and the
        reach-weighted rates over the whole deal, each with its base in
        expected decisions per deal: ``raise_rate`` / ``raise_reach``,
        ``refusal_rate`` / ``answer_reach``, ``bluff_share`` / ``raises``.

    Raises:
        TypeError: ``iterations`` not a whole number. ValueError: ``iterations < 1``
            (0 or fewer solved nothing: the uniform policy's rates came back as the
            equilibrium's).
    """
    if isinstance(iterations, bool) or not isinstance(iterations, int | np.integer):
        raise TypeError(f"iterations must be a whole number of CFR iterations, got "
                        f"{iterations!r}")
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    from ..solvers.cfr import TabularCFR
    from ..solvers.evaluate import exploitability, nash_conv, value_by_position
    from ..solvers.tree import build_tree

    rows = []
    for sc in scores:
        p = params.replace(scores=tuple(sc))
        tree = build_tree(p)
        s = TabularCFR(tree, variant)
        s.iterate(iterations)
        pol = s.average_policy()
        df = infoset_table(tree, pol)
        r = df[df["can_raise"] & (df["reach"] > 0)]
        a = df[df["answering"] & (df["reach"] > 0)]
        raises = float((r["reach"] * r["raise"]).sum())
        bluffs = float((r["reach"] * r["raise"] * (r["p_win"] < r["p_lose"])).sum())
        row = {"score0": sc[0], "score1": sc[1],
               "value_dealer_left": float(value_by_position(tree, pol)[0]),
               "raise_rate": raises / float(r["reach"].sum()) if len(r) else 0.0,
               "raise_reach": float(r["reach"].sum()),
               "refusal_rate": float((a["reach"] * a["refuse"]).sum() / a["reach"].sum())
               if len(a) else float("nan"),
               "answer_reach": float(a["reach"].sum()),
               "bluff_share": bluffs / raises if raises > 0 else float("nan"),
               "raises": raises}
        if p.players == 2:
            row["exploitability"] = exploitability(tree, pol)
        else:
            row["nash_conv"] = nash_conv(tree, pol)
        rows.append(row)
    return pd.DataFrame(rows)
