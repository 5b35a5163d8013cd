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
- *Willughby's Put* (docs/RULES_family.md P7, each for themselves): ``team`` is the
  seat; ``p`` is the chance the acting seat is paid (it wins the deal, P7.5) and ``q``
  the chance it pays (another seat wins while it is still in: a folded seat pays
  nothing); a bluff is still a put with ``p < q`` (a put paid by ``k`` seats breaks even
  at ``k p = q``: the bluffs counted are the raises more likely to pay than to be paid);
  ``fold`` is the refusal of a put (P7.4) and a trick holds the cards of the seats still
  in.
- *false gesture* (R7): a gesture other than ``none`` that differs from the
  honest one for the hand (``ten`` if it holds a T, else ``nine`` if a 9, else
  ``ace`` if an A, else ``nohigh``).
- *base* of a frequency: what it rests on, carried in every summary table —
  ``reach`` (the sum of the reach probabilities of the information sets in the
  row: the expected number of such decisions per deal), ``raises`` (expected
  raises per deal, behind a bluff share), ``gestures``, and ``infosets`` (how
  many information sets the row sums). :func:`plot_summary` hatches in grey
  every bar whose base is below ``min_reach`` (:data:`MIN_REACH`).

The tree and the policy must be of one game: :func:`policy_from_tabular` checks the
table's recorded game against the tree's (:func:`vitou_ai.bots.tabular.check_fits`),
the width of its action space, and the share of the policy's own decisions that would
fall back to uniform play at information sets the table lacks
(:func:`tabular_coverage`, refused above :data:`MAX_FALLBACK`); :func:`infoset_table`
checks that the policy array is one of this tree (:func:`check_tree_policy`). A policy
of another deck used to match many keys by chance (a ``vitou_2p`` 4x2x1 table on a
5-rank tree: 1,036 of 1,543 information sets) and gave numbers of no game.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._numba import jit
from ..capabilities import require
from ..rules import layout as L
from ..rules.params import game_name
from ..solvers.flat.tree import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL, GameTree

#: most share of a tabular policy's own decisions (reach-weighted, :func:`tabular_coverage`)
#: that may fall back to uniform play at information sets its table lacks before
#: :func:`policy_from_tabular` refuses it: 1%. A full solve's table covers every
#: information set (0%); an external-sampling MCCFR table lacks sets only its opponents'
#: never-played actions lead to (0% of its own decisions: 976 of 1,036 sets of vitou_2p
#: 4x2x1 after 10,000 iterations); a table of another deck or score leaves 30 to 100%.
MAX_FALLBACK = 0.01


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


def _reach_and_chances(tree: GameTree, policy: np.ndarray, seat: int = 0):
    """Reach of every node and, below it, the chances that team 0 / team 1 scores; in a
    per-seat tree (Willughby's Put, P7.5) that seat ``seat`` is paid / pays instead."""
    n = tree.num_nodes
    reach, win0, win1 = np.zeros(n), np.zeros(n), np.zeros(n)
    util = tree.util if tree.util_seats is None else tree.util_seats[:, seat]
    _reach_and_chances_kernel(tree.kind, tree.first, tree.nchild, tree.prob, tree.infoset,
                              np.ascontiguousarray(util), policy, reach, win0, win1)
    return reach, win0, win1


def _seat_chances(tree: GameTree, policy: np.ndarray):
    """``(reach, paid, pays)``: node reach and, per node, the chance that the seat acting
    there is paid / pays by the deal's end (per-seat trees: one pass per seat; two-team
    trees: its team scores / the other team scores)."""
    reach, win0, win1 = _reach_and_chances(tree, policy)
    if tree.util_seats is None:
        team0 = tree.player % 2 == 0
        return reach, np.where(team0, win0, win1), np.where(team0, win1, win0)
    paid, pays = win0.copy(), win1.copy()
    for seat in range(1, tree.params.players):
        _, w, q = _reach_and_chances(tree, policy, seat)
        at = tree.player == seat
        paid[at], pays[at] = w[at], q[at]
    return reach, paid, pays


def _trick(toks: list[int], per_trick: int) -> int:
    """The trick being played (1-based) after the deal's tokens: ``per_trick`` cards to a
    trick, one fewer after each fold (Willughby's Put, P7.4: a folder plays no more; a fold
    comes at a trick's lead, P7.3, so no trick is left half played by it)."""
    trick, played, active = 1, 0, per_trick
    for t in toks:
        if t == L.A_FOLD:
            active -= 1
        elif _is_card(t):
            played += 1
            if played == active:
                trick, played = trick + 1, 0
    return trick


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


def check_tree_policy(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """``policy`` as ``float64[num_infosets, width]`` after checking that it is a policy
    on ``tree``'s information sets (``width``: the tree's ``is_actions`` width, column
    ``k`` the set's ``k``-th action, as the solvers' ``average_policy()``, the
    ``uniform_policy`` and :func:`policy_from_tabular` give it): that shape, finite,
    non-negative, summing to 1 over each set's actions and 0 beyond them.

    Raises:
        ValueError: one line naming the tree's game and what does not fit (a policy of
            another tree: another deck, score or variant; an unnormalised table).
    """
    arr = np.asarray(policy)
    want = (tree.num_infosets, tree.is_actions.shape[1])
    where = f"a policy on the tree of {game_name(tree.params)}"
    if arr.ndim != 2 or arr.shape != want:
        raise ValueError(f"{where} is float[{want[0]}, {want[1]}] (one row per information "
                         f"set), got {arr.dtype}{list(arr.shape)}: a policy of another "
                         "game's tree? (a TabularPolicy goes through policy_from_tabular)")
    arr = arr.astype(np.float64, copy=False)
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{where} must be finite and non-negative")
    legal = np.arange(want[1])[None, :] < tree.is_nact[:, None]
    total = np.where(legal, arr, 0.0).sum(1)
    beyond = np.where(legal, 0.0, arr).sum(1)
    bad = np.nonzero((np.abs(total - 1.0) > 1e-6) | (beyond > 1e-9))[0]
    if len(bad):
        i = int(bad[0])
        raise ValueError(f"{where}: {len(bad)} of {want[0]} rows do not sum to 1 over their "
                         f"set's actions (row {i}: {total[i]:.6g} on its {int(tree.is_nact[i])} "
                         f"actions, {beyond[i]:.6g} beyond): a policy of another game's tree?")
    return arr


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
        ValueError: ``policy`` is not a policy on this tree (:func:`check_tree_policy`).
    """
    p = tree.params
    check_game(p)
    policy = check_tree_policy(tree, policy)
    n_players = p.players
    # cards to a trick: every player's, but partnership Put's two active players only (P6.4)
    per_trick = 2 if p.partnership else n_players
    reach, paid, pays = _seat_chances(tree, policy)
    dec = np.nonzero(tree.kind == KIND_DECISION)[0]
    iset = tree.infoset[dec]
    ni = tree.num_infosets
    r_sum = np.bincount(iset, weights=reach[dec], minlength=ni)
    w = np.bincount(iset, weights=reach[dec] * paid[dec], minlength=ni)
    q = np.bincount(iset, weights=reach[dec] * pays[dec], minlength=ni)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_paid = w / r_sum
        p_pays = q / r_sum
    rows = []
    labels = p.ladder_labels
    ranks = p.rank_labels
    for i in range(ni):
        key = tree.is_keys[i]
        seat = int(key[L.K_PLAYER])
        team = seat if p.willughby else seat % 2
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
        pw, pl = p_paid[i], p_pays[i]
        rows.append({
            "infoset": i, "seat": seat, "team": team,
            "position": (seat - int(key[L.K_DEALER]) - 1) % n_players,
            "best_card": ranks[min(hand)] if hand else "-",
            "trick": _trick(toks, per_trick) if p.willughby else plays // per_trick + 1,
            "stake": labels[stake],
            "score0": int(key[L.K_SCORE0]), "score1": int(key[L.K_SCORE1]),
            "reach": r_sum[i], "p_win": pw, "p_lose": pl, "equity": pw - pl,
            "can_raise": L.A_RAISE in prob, "raise": prob.get(L.A_RAISE, 0.0),
            # an answer to a raise: accept / refuse, or see / fold (P7.4)
            "answering": L.A_REFUSE in prob or L.A_FOLD in prob,
            "refuse": prob.get(L.A_REFUSE, 0.0) + prob.get(L.A_FOLD, 0.0),
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


def _laid_out(tree: GameTree, tabular) -> tuple[np.ndarray, np.ndarray]:
    """(``float64[num_infosets, width]`` policy, ``bool[num_infosets]`` found): the
    table's rows on the tree, uniform where the table has no row or no mass on a legal
    action (not found)."""
    from ..solvers.flat.evaluate import uniform_policy

    out = uniform_policy(tree)
    found = np.zeros(tree.num_infosets, np.bool_)
    probs = np.asarray(tabular.probs, dtype=np.float64)
    for i in range(tree.num_infosets):
        row = tabular.row(tree.is_keys[i])
        if row < 0:
            continue
        m = int(tree.is_nact[i])
        v = probs[row, tree.is_actions[i, :m].astype(np.int64)]
        if v.sum() > 0:
            out[i, :m] = v / v.sum()
            found[i] = True
    return out, found


def _check_tabular_game(tree: GameTree, tabular) -> None:
    """The table's recorded game and its action space against the tree's (ValueError)."""
    from ..bots.tabular import check_fits

    name = getattr(tabular, "name", "tabular")
    here = game_name(tree.params)
    trained = getattr(tabular, "params", None)
    if trained is not None:
        try:
            check_fits(tabular, tree.params)
        except ValueError as e:
            why = str(e).splitlines()[0].split(": pass ")[0]
            raise ValueError(f"policy {name!r} is of another game ({game_name(trained)}) "
                             f"than the tree ({here}): {why}") from None
    width = int(np.asarray(tabular.probs).shape[1])
    nact = tree.is_nact.astype(np.int64)
    used = np.arange(tree.is_actions.shape[1])[None, :] < nact[:, None]
    need = int(tree.is_actions[used].max()) + 1 if used.any() else 0
    if width < need or width > tree.params.num_actions:
        raise ValueError(f"policy {name!r} has {width} action ids, the tree ({here}) "
                         f"{tree.params.num_actions}, ids up to {need - 1} in use: a policy "
                         "of another game")


def tabular_coverage(tree: GameTree, tabular) -> dict[str, float]:
    """How much of ``tree`` a tabular policy covers, after checking its game
    (:func:`policy_from_tabular`'s checks but the fallback limit).

    Returns:
        ``infosets`` (the tree's information sets), ``missing`` (sets the table has no
        row for, or no mass on a legal action: played uniformly), ``fallback_share``
        (the share of the policy's own decisions taken at those sets: their reach
        summed over the sum of every set's reach, the policy laid out on the tree
        playing every seat, each deal by its chance).

    Raises:
        ValueError: a policy of another game (its recorded params, its action space).
    """
    _check_tabular_game(tree, tabular)
    pol, found = _laid_out(tree, tabular)
    return _coverage(tree, pol, found)


def _coverage(tree: GameTree, pol: np.ndarray, found: np.ndarray) -> dict[str, float]:
    reach, _, _ = _reach_and_chances(tree, pol)
    dec = np.nonzero(tree.kind == KIND_DECISION)[0]
    r = np.bincount(tree.infoset[dec], weights=reach[dec], minlength=tree.num_infosets)
    total = float(r.sum())
    share = float(r[~found].sum()) / total if total > 0 else float(not found.all())
    return {"infosets": int(tree.num_infosets), "missing": int((~found).sum()),
            "fallback_share": share}


def policy_from_tabular(tree: GameTree, tabular, max_fallback: float = MAX_FALLBACK
                        ) -> np.ndarray:
    """Lay a tabular bot (:class:`vitou_ai.bots.tabular.TabularPolicy`, e.g. a
    ``policy.npz`` of ``vitou-ai train``) onto the tree's information sets:
    ``float64[num_infosets, width]`` (:func:`check_tree_policy`); rows missing from
    the table, or with no mass on a legal action, become uniform.

    The game is checked first: the table's recorded params against the tree's
    (:func:`vitou_ai.bots.tabular.check_fits`: profile, deck, hand size, target,
    signals, dealer), its action space against the tree's, and the share of the
    policy's own decisions that fall back to uniform play (:func:`tabular_coverage`)
    against ``max_fallback`` (a table recording no game is checked by that share alone).

    Args:
        max_fallback: most share of decisions allowed to fall back
            (:data:`MAX_FALLBACK`, 1%; ``1.0`` takes any table).

    Raises:
        ValueError: one line naming both games: a policy of another game, or one that
            would play more than ``max_fallback`` of its decisions at random here.
    """
    if not 0.0 <= max_fallback <= 1.0:
        raise ValueError(f"max_fallback must be in [0, 1], got {max_fallback!r}")
    _check_tabular_game(tree, tabular)
    out, found = _laid_out(tree, tabular)
    if not found.all() and max_fallback < 1.0:
        c = _coverage(tree, out, found)
        if c["fallback_share"] > max_fallback:
            trained = getattr(tabular, "params", None)
            of = f" ({game_name(trained)})" if trained is not None else " (no game recorded)"
            raise ValueError(
                f"policy {getattr(tabular, 'name', 'tabular')!r}{of} has no row for "
                f"{c['missing']:,} of the {c['infosets']:,} information sets of the tree "
                f"({game_name(tree.params)}): {c['fallback_share']:.1%} of its decisions "
                f"would be uniform play, above max_fallback = {max_fallback:.1%}: a policy "
                "of another game, score or variant? (max_fallback=1.0 takes it)")
    return out


def score_sweep(params, scores: list[tuple[int, int]], iterations: int = 300,
                variant: str = "dcfr") -> pd.DataFrame:
    """Solve the deal at each starting score (R6, R8.1: the stakes are capped at what
    each team needs) and summarise the equilibrium's raising, refusing and bluffing.

    Returns:
        One row per score: ``score0``, ``score1``, ``exploitability`` or
        ``nash_conv``, ``value_dealer_left`` (the seat on the dealer's left,
        averaged over the draw when the dealer is drawn:
        :func:`~vitou_ai.solvers.flat.evaluate.value_by_position`), and the
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
    from ..solvers.flat.cfr import TabularCFR
    from ..solvers.flat.evaluate import exploitability, nash_conv, value_by_position
    from ..solvers.flat.tree import build_tree

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
