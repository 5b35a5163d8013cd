"""The search bot's policy on a whole public tree, for exact evaluation (small variants).

The search bot (:class:`~vitou_ai.search.bot.SearchPolicy`) with a fixed number of DCFR
iterations per decision (no clock) plays a policy that depends only on the public history
and its own hand: at a decision of seat ``p`` its root reaches are the blueprint's for the
other seats (Bayes) and, for ``p``, those of the policy its own earlier searches played.
:func:`search_policy` computes that policy at every decision of a public tree after the
deal (the blueprint's before: the 2p blind window, R9.2) by the same subgame build and
solve as the bot, so the exact tools of :mod:`vitou_ai.solvers.public.cfr` measure it:
NashConv of every seat searching, and the exact head-to-head value of search against its
own blueprint (no sampling noise).
"""

from __future__ import annotations

import numpy as np

from ..rules import kernel as K
from ..rules import layout as L
from ..solvers.public.subgame import (
    SubgameSolver,
    SubgameTooLarge,
    UnreachableSubgame,
    build_subgame,
    effective_safe_mode,
    subtree_entries,
)
from ..solvers.public.tree import (
    KIND_CHANCE,
    KIND_DEAL,
    KIND_DECISION,
    KIND_TERMINAL,
    PublicTree,
    set_dealt_hand,
)


def search_policy(tree: PublicTree, blueprint: np.ndarray, iterations: int = 1000,
                  max_nodes: int = 2_000_000, epsilon: float = 0.01,
                  safe: str = "auto", alternative: str = "best_response",
                  nested: bool | None = None, partner: str = "blueprint",
                  tricks: int | None = None, biases=None, br_continuation: bool = False,
                  fallback: str = "auto", search_tricks: int | None = None,
                  ) -> tuple[np.ndarray, dict]:
    """The search bot's policy over ``tree``'s entries (module docstring).

    Args:
        tree: a public tree (two or four players).
        blueprint: ``float64[num_entries]``, the blueprint as an entry policy (e.g.
            :func:`~vitou_ai.solvers.public.export.bot_policy`).
        iterations: DCFR iterations per decision (the bot's ``max_iterations``).
        max_nodes: the bot's node cap: above it, the blueprint's action.
        epsilon: the bot's ``epsilon``: the other seats' reaches use ``(1 - epsilon)
            blueprint + epsilon`` uniform over the entries of each (decision, hand) (the
            bot: over the kernel's legal actions; the same but where the public tree
            drops an action no deal allows).
        safe: the bot's ``safe`` (:data:`~vitou_ai.solvers.public.subgame.SEARCH_SAFE_MODES`,
            default ``"auto"``, the bot's default:
            :func:`~vitou_ai.solvers.public.subgame.effective_safe_mode`, nested Maxmargin
            with two players, no search with four): the gadgets' alternatives are
            ``blueprint``'s values on each subgame (its entries there by
            :func:`~vitou_ai.solvers.public.subgame.subtree_entries`), from the same root
            reaches. Four players, ``"none"``: the searcher's partner is held to
            ``blueprint`` in the subgame (``SubgameSolver(fixed=...)``), as in the bot.
        alternative: the gadgets' alternative values
            (:data:`~vitou_ai.solvers.public.subgame.ALTERNATIVES`).
        nested: with a gadget, a seat's alternatives at a decision below one it searched
            come from its previous solve's average policy on the entries the two
            subgames share (the blueprint's elsewhere), not the blueprint's: nested
            subgame solving (Brown & Sandholm 2017), which keeps the gadget's guarantee
            from one solve to the next. Default (None): nested with a gadget, as the
            bot plays; False measures the non-nested gadget (not the bot).
        partner: four players, ``safe="none"``: ``"blueprint"`` (the bot's: the
            searcher's partner held to ``blueprint`` in the subgame, its root range the
            blueprint's Bayes range) or ``"search"`` (a design measured, not the bot's:
            partners run the same deterministic search from what the team knows in
            common, so the searcher re-solves its partner's play in the subgame and
            takes the partner's root range from the policy the partner's own searches
            really played, as its own, instead of the blueprint's Bayes range; SPARTA,
            Lerer et al. AAAI 2020, joint search by partners who replay each other's
            search).

        tricks: ``None`` (the bot's default), each subgame to the end of the deal;
            ``t >= 1``, *every* subgame depth-limited to ``t`` tricks
            (:func:`~vitou_ai.solvers.public.subgame.build_subgame`), its leaves valued by
            ``blueprint``'s continuation values with the opponent's choice among
            ``biases`` (:func:`vitou_ai.search.leaves.subgame_continuation_values`;
            Brown, Sandholm & Amos 2018); two players.
        biases: the continuations at the leaves (default
            :data:`vitou_ai.search.leaves.DEFAULT_BIASES`).
        fallback: what a decision that is not searched plays (the subgame too large):
            ``"blueprint"``, or ``"previous"``: with nested re-solving, the seat's
            previous solve of this deal where it covers the decision (the policy the
            nested guarantee is about), else the blueprint; ``"auto"`` (the bot's):
            ``"previous"`` when nested, else ``"blueprint"``.
        search_tricks: search only the decisions of the first ``search_tricks`` tricks,
            the later ones falling back as ``fallback`` says (a measurement of the
            fallback: a bot whose later subgames do not fit its budget); ``None``, all.
        br_continuation: with ``tricks``, one more continuation: the opponent's best
            response to ``blueprint`` in the whole tree (Brown, Sandholm & Amos 2018 add a
            best response to the set).

    Raises:
        ValueError: an unknown ``safe``, or a gadget in a four-player tree
            (:func:`~vitou_ai.solvers.public.subgame.effective_safe_mode`); ``nested``
            without a gadget; an unknown ``partner``, or ``partner="search"`` other than
            with four players and ``safe="none"``; ``tricks`` not an integer from 1 to
            the hand size less 1, or with four players; ``biases`` refused by
            :func:`vitou_ai.search.leaves.check_biases`, or ``biases`` /
            ``br_continuation`` without ``tricks``; an unknown ``fallback``;
            ``search_tricks`` below 0; ``iterations`` below 1. Errors of a subgame's
            solve other than a subgame too large or unreachable are raised, not taken
            for a fallback.

    Returns:
        (``float64[num_entries]`` policy, ``{"searched": decisions searched, "fallback":
        decisions not searched (before the deal, the 2p blind window; a subgame too
        large; outside ``search_tricks``), "previous": of those, the ones that played the
        seat's previous solve (``fallback="previous"``; the rest, the blueprint), "subgame_nodes": total nodes built,
        "worst_violation": with a gadget, the largest over the searched decisions of
        ``sum_h max(0, -margin(h))`` over the opponent's root hands of positive reach
        (:meth:`~vitou_ai.solvers.public.subgame.SubgameSolver.safety_margins` of the solved
        policy: how far the solve is from the gadget's guarantee; 0 without)}``).
    """
    mode = effective_safe_mode(safe, tree.num_players)
    if nested is None:
        nested = mode in ("resolve", "maxmargin")
    if nested and mode in ("none", "off"):
        raise ValueError("nested re-solving needs a gadget (safe=resolve or maxmargin)")
    if partner not in ("blueprint", "search"):
        raise ValueError(f"unknown partner {partner!r}; expected blueprint or search")
    if partner == "search" and (mode != "none" or tree.num_players != 4):
        raise ValueError("partner='search' is a four-player design of safe='none'")
    if fallback not in ("auto", "blueprint", "previous"):
        raise ValueError(f"unknown fallback {fallback!r}; expected auto, blueprint or previous")
    if fallback == "auto":
        fallback = "previous" if nested else "blueprint"
    if tricks is not None:
        from ..search.leaves import DEFAULT_BIASES, check_biases

        if tree.num_players != 2:
            raise ValueError("depth-limited search (tricks=) is for two players")
        if (isinstance(tricks, bool) or not isinstance(tricks, int | np.integer)
                or not 1 <= tricks < tree.params.hand_size):
            raise ValueError(f"tricks must be an integer from 1 to {tree.params.hand_size - 1} "
                             f"(fewer than the deal's {tree.params.hand_size} tricks), got "
                             f"{tricks!r}")
        biases = check_biases(DEFAULT_BIASES if biases is None else biases)
    elif biases is not None or br_continuation:
        raise ValueError("biases and br_continuation are for depth-limited search (tricks=)")
    if search_tricks is not None and (isinstance(search_tricks, bool) or
                                      not isinstance(search_tricks, int | np.integer)
                                      or search_tricks < 0):
        raise ValueError(f"search_tricks must be an integer >= 0, got {search_tricks!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, int | np.integer) \
            or iterations < 1:
        raise ValueError(f"iterations must be an integer >= 1, got {iterations!r}")
    safe = mode
    br_pols = _br_policies(tree, blueprint) if (tricks is not None and br_continuation) else None
    p_arr = tree.params.to_array()
    n, H = tree.num_players, tree.num_hands
    from ..solvers.public.cfr import entry_policy

    out = blueprint.copy()
    if safe == "off":  # the bot declines to search (four players, safe=auto)
        n_dec = int(((tree.kind == KIND_DECISION)).sum())
        return out, {"searched": 0, "fallback": n_dec, "previous": 0, "subgame_nodes": 0,
                     "worst_violation": 0.0}
    model = (1.0 - epsilon) * blueprint + epsilon * entry_policy(tree, np.zeros(tree.num_entries))
    stats = {"searched": 0, "fallback": 0, "previous": 0, "subgame_nodes": 0,
             "worst_violation": 0.0}
    played = np.empty(L.MAX_RANKS, np.int64)
    st0 = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(p_arr, st0)
    ones = np.ones((n, H))
    # (node, kernel state, blueprint reaches, search reaches, per seat its previous solve:
    # None or (subgame, average policy, its entries in tree))
    stack = [(0, st0, ones, ones.copy(), (None,) * n)]
    while stack:
        node, st, r_bp, r_se, prev = stack.pop()
        k = tree.kind[node]
        if k == KIND_TERMINAL:
            continue
        f, m = int(tree.first[node]), int(tree.nchild[node])
        if k == KIND_DEAL:
            s2 = st.copy()
            K.apply_deal(p_arr, s2, tree.deal0)
            stack.append((f, s2, r_bp, r_se, prev))
            continue
        if k == KIND_CHANCE:
            for c in range(f, f + m):
                s2 = st.copy()
                K.apply_action(p_arr, s2, int(tree.action[c]))
                stack.append((c, s2, r_bp, r_se, prev))
            continue
        assert k == KIND_DECISION
        p = int(tree.player[node])
        dealt = tree.entries[tree.actor_off[f]] != H
        kids_prev = prev
        if dealt:
            reach = r_bp.copy()
            reach[p] = r_se[p]
            if partner == "search":
                reach[(p + 2) % 4] = r_se[(p + 2) % 4]
            try:
                if search_tricks is not None and int(st[L.S_NTRICKS]) >= search_tricks:
                    raise _NotSearched("not searched (search_tricks)")
                sub = build_subgame(tree.params, st, max_nodes, tricks=tricks)
                leaf_values = (None if not len(sub.leaves)
                               else _leaf_values(tree, blueprint, sub, node, p, biases,
                                                 br_pols))
                bp_sub = None
                fixed = (p + 2) % 4 if n == 4 and partner == "blueprint" else None
                if safe != "none" or fixed is not None:
                    emap = subtree_entries(sub.tree, tree, node)
                    # the root ranges' entries belong to no action: never read as a policy
                    bp_sub = np.where(emap >= 0, blueprint[np.maximum(emap, 0)], 0.0)
                    if nested and prev[p] is not None:
                        _, pol_prev, emap_prev = prev[p]
                        inv = np.full(tree.num_entries, -1, np.int64)
                        ok = emap_prev >= 0
                        inv[emap_prev[ok]] = np.nonzero(ok)[0]
                        j = np.where(emap >= 0, inv[np.maximum(emap, 0)], -1)
                        bp_sub = np.where(j >= 0, pol_prev[np.maximum(j, 0)], bp_sub)
                solver = SubgameSolver(sub, reach, safe=safe, blueprint=bp_sub,
                                       alternative=alternative,
                                       fixed=() if fixed is None else (fixed,),
                                       leaf_values=leaf_values)
            except (SubgameTooLarge, UnreachableSubgame, _NotSearched):
                # too large, nobody's hand reaches it, or not to be searched: any other
                # error (a bad leaf value, a bug) is raised, not taken for a fallback
                stats["fallback"] += 1
                if fallback == "previous" and nested and prev[p] is not None:
                    _, pol_prev, emap_prev = prev[p]
                    inv = np.full(tree.num_entries, -1, np.int64)
                    ok = emap_prev >= 0
                    inv[emap_prev[ok]] = np.nonzero(ok)[0]
                    lo0 = int(tree.actor_off[f])
                    hi0 = int(tree.actor_off[f + m - 1] + tree.actor_len[f + m - 1])
                    j = inv[lo0:hi0]
                    if (j >= 0).any():
                        out[lo0:hi0] = np.where(j >= 0, pol_prev[np.maximum(j, 0)], out[lo0:hi0])
                        stats["previous"] += 1
            else:
                solver.iterate(iterations)
                pol = solver.average_policy()
                if safe != "none":
                    o = solver.opponent
                    pos = reach[o, sub.root_hands[o]] > 0
                    v = float(np.maximum(0.0, -solver.safety_margins(pol))[pos].sum())
                    stats["worst_violation"] = max(stats["worst_violation"], v)
                t = sub.tree
                by_action = {}
                for c in range(int(t.first[0]), int(t.first[0] + t.nchild[0])):
                    lo, ln = int(t.actor_off[c]), int(t.actor_len[c])
                    by_action[int(t.action[c])] = dict(zip(
                        t.entries[lo:lo + ln].tolist(), pol[lo:lo + ln].tolist(), strict=True))
                root = set(sub.root_hands[p].tolist())
                for c in range(f, f + m):
                    a = int(tree.action[c])
                    for e in range(int(tree.actor_off[c]), int(tree.actor_off[c] + tree.actor_len[c])):
                        h = int(tree.entries[e])
                        if h in root:
                            out[e] = by_action.get(a, {}).get(h, 0.0)
                stats["searched"] += 1
                stats["subgame_nodes"] += sub.num_nodes
                if nested:
                    kids_prev = tuple((sub, pol, emap) if s == p else prev[s]
                                      for s in range(n))
        else:
            stats["fallback"] += 1
        for c in range(f, f + m):
            lo, ln = int(tree.actor_off[c]), int(tree.actor_len[c])
            hs = tree.entries[lo:lo + ln].astype(np.int64)
            s2 = st.copy()
            if dealt:
                set_dealt_hand(p_arr, s2, p, tree.hands[hs[0]], played)
            K.apply_action(p_arr, s2, int(tree.action[c]))
            b2, e2 = r_bp.copy(), r_se.copy()
            if dealt:
                b2[p] = 0.0
                e2[p] = 0.0
                b2[p, hs] = r_bp[p, hs] * model[lo:lo + ln]
                e2[p, hs] = r_se[p, hs] * out[lo:lo + ln]
            else:  # not dealt: one "hand", the same factor for every hand
                b2[p] *= model[lo]
                e2[p] *= out[lo]
            stack.append((c, s2, b2, e2, kids_prev))
    return out, stats


class _NotSearched(ValueError):
    pass


def _node_map(sub_tree: PublicTree, tree: PublicTree, node: int) -> np.ndarray:
    """``int64[sub_tree.num_nodes]``: the node of ``tree`` (below ``node``, the subgame's
    root there) of each node of ``sub_tree``, matched by the actions on the path."""
    out = np.full(sub_tree.num_nodes, -1, np.int64)
    out[0] = node
    for u in range(sub_tree.num_nodes):
        tu = int(out[u])
        if tu < 0 or sub_tree.nchild[u] == 0:
            continue
        kids = {int(tree.action[c]): c for c in range(int(tree.first[tu]),
                                                        int(tree.first[tu] + tree.nchild[tu]))}
        for c in range(int(sub_tree.first[u]), int(sub_tree.first[u] + sub_tree.nchild[u])):
            out[c] = kids.get(int(sub_tree.action[c]), -1)
    return out


def _br_policies(tree: PublicTree, blueprint: np.ndarray) -> list[np.ndarray]:
    """Per seat ``s``: ``blueprint`` with ``s``'s entries replaced by a pure best response
    to the others' blueprint (the whole tree's best-response pass)."""
    from ..search.leaves import entry_seats_actions
    from ..solvers.public import kernels as PK
    from ..solvers.public.cfr import PublicPasses

    seat_of = entry_seats_actions(tree)[0]
    ps = PublicPasses(tree, frontier_size=0)
    out = []
    for s in range(tree.num_players):
        buf = np.zeros(tree.num_entries)
        ps.run(s, PK.POLICY_GIVEN, PK.UPDATE_BR_POLICY, buf, np.zeros(0), blueprint)
        out.append(np.where(seat_of == s, buf, blueprint))
    return out


def _leaf_values(tree: PublicTree, blueprint: np.ndarray, sub, node: int, searcher: int,
                 biases, br_pols=None) -> tuple[list, list]:
    """The depth-limited subgame ``sub``'s leaf values from the whole tree's blueprint:
    each leaf's full subgame, the blueprint mapped onto it (and, with ``br_pols``, the
    opponent's best response to it as one more continuation)."""
    from ..search.leaves import DEFAULT_BIASES, subgame_continuation_values

    where = _node_map(sub.tree, tree, node)
    hands, values = [], []
    for leaf, st in zip(sub.leaves, sub.leaf_states, strict=True):
        full = build_subgame(tree.params, st)
        emap = subtree_entries(full.tree, tree, int(where[leaf]))
        bp = np.where(emap >= 0, blueprint[np.maximum(emap, 0)], 0.0)
        extra = ()
        if br_pols is not None:
            b = br_pols[1 - searcher]
            extra = (np.where(emap >= 0, b[np.maximum(emap, 0)], 0.0),)
        cv = subgame_continuation_values(full, bp, searcher,
                                         DEFAULT_BIASES if biases is None else biases, extra)
        hands.append(cv.hands)
        values.append(cv.values)
    return hands, values


def mix_by_seat(tree: PublicTree, policies: list[np.ndarray]) -> np.ndarray:
    """``float64[num_entries]``: seat ``s`` plays ``policies[s]`` (entry policies of
    ``tree``), for exact head-to-head values with
    :func:`~vitou_ai.solvers.public.cfr.expected_returns`."""
    from ..solvers.public.export import entry_children

    parent = np.full(tree.num_nodes, -1, np.int64)
    for d in np.nonzero(tree.kind == KIND_DECISION)[0]:
        f, m = int(tree.first[d]), int(tree.nchild[d])
        parent[f:f + m] = int(tree.player[d])
    child = entry_children(tree)
    seat = np.where(child >= 0, parent[np.maximum(child, 0)], -1)
    out = np.zeros(tree.num_entries)
    for s, pol in enumerate(policies):
        out[seat == s] = pol[seat == s]
    return out
