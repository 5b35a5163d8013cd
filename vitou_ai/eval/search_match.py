"""Duplicate matches for bots that play from Python (the ``search`` bot), deal mode.

The jitted simulator (:func:`vitou_ai.sim.batch.simulate`) cannot call a bot that builds
trees at its decisions, so this plays deals one action at a time on the kernel. The
design is the tournament's (:mod:`vitou_ai.eval.tournament`): games in duplicate pairs
on the same cards (seat ``s`` is dealt the same hand in both games, the bots swap
seats), dealer ``g % players`` for pair ``g`` (or, with ``rotate_dealer=False``, the
game's fixed dealer seat at every deal, for a policy trained with one dealer), and points
per deal with a 95% interval over the pairs as independent units
(:func:`~vitou_ai.eval.stats.ratio_interval`).
The deals are drawn from ``numpy.random.default_rng([seed, g])`` (one stream per pair;
not the simulator's deals), each bot's random choices from its own stream per game.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..rng import UINT64_MAX, check_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import VitouParams
from ..search.bot import SearchPolicy
from .stats import ratio_interval


def deal_hands(params: VitouParams, rng: np.random.Generator) -> np.ndarray:
    """``int64[players, hand_size]``: a uniformly random deal (R1.1, R1.2: the shuffled
    deck's first cards, ranks only)."""
    deck = np.repeat(np.arange(params.ranks), params.copies)
    rng.shuffle(deck)
    n, h = params.players, params.hand_size
    return np.sort(deck[: n * h].reshape(n, h), axis=1).astype(np.int64)


def play_deal(params: VitouParams, seats: list, hands: np.ndarray, dealer: int,
              seed: tuple[int, ...]) -> float:
    """Play one deal with bot ``seats[s]`` at seat ``s``; returns team 0's return (R8.1,
    points per deal). Simulator bots play by
    :func:`~vitou_ai.bots.policy.choose_action` on a stream seeded from ``seed``; search
    bots by :meth:`~vitou_ai.search.bot.SearchPolicy.act`."""
    from ..bots.policy import choose_action, policy_pack, scratch

    p = params.replace(dealer=dealer)
    pa = p.to_array()
    packs = {}
    for b in seats:
        if not isinstance(b, SearchPolicy) and id(b) not in packs:
            packs[id(b)] = policy_pack(b)
    legal, keybuf, iwork, stream = scratch()
    stream[0] = np.uint64(np.random.default_rng(list(seed)).integers(1, 2**63))
    gen = np.random.default_rng(list(seed) + [1])
    st = np.zeros(L.STATE_SIZE, np.int32)
    K.init_state(pa, st)
    start = None
    actions: list[int] = []
    while not K.is_terminal(st):
        if K.is_chance(st):
            if st[L.S_PHASE] != L.PH_DEAL:
                raise ValueError("only the deal is a chance event here (deal mode, no signals)")
            K.apply_deal(pa, st, hands)
            start = st.copy()
            continue
        seat = int(K.current_player(pa, st))
        b = seats[seat]
        if isinstance(b, SearchPolicy):
            a = b.act(p, start if start is not None else st.copy(), actions, st, gen)
        else:
            n = K.legal_actions(pa, st, legal)
            a = int(choose_action(packs[id(b)], 0, pa, st, seat, stream, legal, n, keybuf,
                                  iwork))
        K.apply_action(pa, st, a)
        if start is not None:
            actions.append(a)
    ret = np.zeros(L.MAX_PLAYERS)
    K.returns(pa, st, ret)
    return float(ret[0])


def played_params(params: VitouParams, rotate_dealer: bool) -> VitouParams:
    """The game as a duplicate match plays it, for checking its bots: the dealer drawn
    (``dealer=-1``) when it rotates over the pairs, else ``params`` (its fixed dealer).

    Raises:
        ValueError: ``rotate_dealer=False`` with a drawn dealer (``params.dealer == -1``).
    """
    if rotate_dealer:
        return params.replace(dealer=-1)
    if params.dealer < 0:
        raise ValueError("a fixed-dealer match needs a dealer seat (params.dealer >= 0), "
                         "got -1 (drawn)")
    return params


def duplicate_returns(params: VitouParams, a, b, pairs: int, seed: int = 0, row0: int = 0,
                      progress: Callable[[int], None] | None = None,
                      rotate_dealer: bool = True) -> np.ndarray:
    """``float64[pairs, 2]``: team 0's return (R8.1) in the two games of each duplicate
    pair (module docstring): in game 0 ``a`` holds the even seats (team 0), in game 1 the
    odd ones. Pair ``g`` uses deal ``default_rng([seed, row0 + g])`` and dealer
    ``(row0 + g) % players`` (``rotate_dealer=False``: ``params.dealer`` at every deal);
    ``progress`` is called with 2 after each pair.

    Raises:
        ValueError: ``rotate_dealer=False`` with a dealer drawn by chance
            (``params.dealer == -1``).
    """
    seed = check_seed(seed, "seed", UINT64_MAX)
    played_params(params, rotate_dealer)
    n = params.players
    out = np.zeros((pairs, 2))
    for k in range(pairs):
        g = row0 + k
        hands = deal_hands(params, np.random.default_rng([seed, g]))
        for swap in (0, 1):
            x, y = (a, b) if swap == 0 else (b, a)
            seats = [x if s % 2 == 0 else y for s in range(n)]
            dealer = g % n if rotate_dealer else params.dealer
            out[k, swap] = play_deal(params, seats, hands, dealer, (seed, g, swap))
        if progress is not None:
            progress(2)
    return out


def duplicate_match(params: VitouParams, a, b, pairs: int, seed: int = 0,
                    progress: Callable[[int], None] | None = None,
                    rotate_dealer: bool = True) -> dict:
    """``pairs`` duplicate pairs of deals, ``a`` against ``b`` (four players: partners are
    copies of the same bot). The dealer rotates over the pairs (``params.dealer`` is not
    used), and the bots are checked for a rotating dealer, so a policy trained with one
    dealer seat is refused; ``rotate_dealer=False`` deals every game from
    ``params.dealer`` (a policy trained with ``--dealer``), the bots swapping seats in
    each pair as before.

    Returns:
        ``{"points_per_deal", "lo", "hi"}`` for ``a`` (points per deal, own minus the
        opponent's, 95% interval over the pairs; NaN below 30 pairs or when every pair
        scored alike, :mod:`vitou_ai.eval.stats`), ``"pairs"``, ``"deals"``,
        ``"seconds"``, ``"pair_points"`` (``a``'s points per deal in each pair, for paired
        comparisons on the same deals), and per search bot among ``a``, ``b`` its decision times
        (``"decision_seconds_<a|b>"``: median, 95th percentile, max, decisions, share
        searched).

    Raises:
        ValueError: ``pairs < 1``; a bot that does not fit the game as played (with the
            dealer rotating, or fixed at ``params.dealer``); ``rotate_dealer=False`` with
            a drawn dealer; a seed out of ``0 .. 2**64-1``. TypeError: a seed or
            ``pairs`` that is not a whole number.
    """
    from ..bots.named import check_bot_fits

    seed = check_seed(seed, "seed", UINT64_MAX)
    if isinstance(pairs, bool) or not isinstance(pairs, int | np.integer):
        raise TypeError(f"pairs must be a whole number of duplicate pairs, got {pairs!r}")
    if pairs < 1:
        raise ValueError(f"pairs must be >= 1, got {pairs}")
    played = played_params(params, rotate_dealer)
    for bot in (a, b):
        check_bot_fits(bot, played, search_ok=True)
    t0 = time.perf_counter()
    for bot in (a, b):
        if isinstance(bot, SearchPolicy):
            bot.decisions.clear()
    r = duplicate_returns(params, a, b, pairs, seed, progress=progress,
                          rotate_dealer=rotate_dealer)
    # a's points minus b's (R8.1: team 0's return is +v when it scores v, -v when the other
    # team does): a is team 0 in the first game, team 1 in the second
    diff = r[:, 0] - r[:, 1]
    ppd, lo, hi = ratio_interval(diff, np.full(pairs, 2.0))
    out = {"points_per_deal": ppd, "lo": lo, "hi": hi, "pairs": pairs, "deals": 2 * pairs,
           "seconds": time.perf_counter() - t0, "pair_points": (diff / 2.0).tolist()}
    for tag, bot in (("a", a), ("b", b)):
        if isinstance(bot, SearchPolicy) and bot.decisions:
            s = np.array([d["seconds"] for d in bot.decisions])
            out[f"decision_seconds_{tag}"] = {
                "median": float(np.median(s)), "p95": float(np.percentile(s, 95)),
                "max": float(s.max()), "decisions": len(s),
                "searched_share": float(np.mean([d["searched"] for d in bot.decisions])),
                "median_searched": (float(np.median([d["seconds"] for d in bot.decisions
                                                     if d["searched"]]))
                                    if any(d["searched"] for d in bot.decisions) else None)}
    return out
