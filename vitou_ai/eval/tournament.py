"""Round-robin tournaments between bots, with duplicate deals and seat rotation.

Every pair of bots plays ``games`` deals (deal mode) or matches (match mode)
with :func:`vitou_ai.sim.batch.simulate`: in four-player profiles each bot
is a team of two copies of itself. Two variance cuts:

- *duplicate deals*: games come in pairs on the same cards (the same hands
  at every deal index, the same first dealer), the second with the teams
  swapped, so the luck of the cards cancels within a pair;
- *seat rotation*: the first dealer of pair ``g`` is seat ``g % players``,
  so every bot leads from every seat equally often; or, with ``rotate_dealer=False``,
  every game is dealt from the game's dealer seat (``params.dealer``; in match mode the
  first deal of every match), for a policy trained with one dealer seat
  (``vitou-ai train --dealer N``; ``vitou-ai tournament --dealer N``). The bots are
  checked for the game as played (:func:`~vitou_ai.eval.search_match.played_params`),
  so a policy trained with one dealer seat is refused where the dealer rotates.

Every pairing uses the same seed, hence the same cards (common random
numbers across pairings). Reported per ordered pair (bot vs opponent):

- wins, losses, draws (deal mode: a deal nobody scored — all void, passed,
  abandoned; match mode: ``max_deals`` reached); the *win rate* over decisive
  games with its 95% Wilson interval (:func:`~vitou_ai.eval.stats.wilson_interval`;
  the games of a duplicate pair are treated as independent, which makes the
  interval conservative when the pair's results are negatively correlated);
- *points per deal*: the bot's points minus the opponent's, per deal played,
  with a 95% interval from the duplicate pairs as independent units
  (:func:`~vitou_ai.eval.stats.ratio_interval`).

Each bot's *fallback share* (``fallback``, and ``fallback_share`` in the ratings): the
share of its decisions at which a tabular or abstract policy had no strategy (an
information state not in its table) and its fallback played (uniform random play or a
heuristic bot, ``fallback_to``); 0 for the bots that play every state. Before the round
robin, the first :data:`~vitou_ai.sim.batch.PROBE_GAMES` games of every pairing measure
it, and a bot above :data:`~vitou_ai.sim.batch.FALLBACK_LIMIT` is refused unless
``allow_fallback``.

An interval needs :data:`~vitou_ai.eval.stats.MIN_UNITS` (30) units: below it, or
when every pair scored alike, its bounds are NaN (``null`` in the JSON) and
``ppd_n`` (duplicate pairs) and ``win_n`` (decisive games) say how many there were;
:func:`~vitou_ai.eval.stats.interval_note` gives the reason to print.

The ranking (``ratings``, ``ratings.csv``, the plot) uses one measure, and says
which (``ranked_by``):

- deal mode (R8.1): **points per deal** against all opponents, with its 95%
  interval (the duplicate pair index as the independent unit, summed over the
  bot's pairings, which share the cards). A deal's win/draw/loss ignores the
  stake, so a bot that wins many deals at 1 point and loses few at 6 can have
  the better record and the worse points; no Elo is fitted in deal mode.
- match mode (R8.2): **Elo** ratings fitted to the match results
  (:func:`~vitou_ai.eval.stats.fit_elo`): a match is decided by reaching the
  target, so winning it is what counts; points per deal are reported beside.
"""

from __future__ import annotations

import io
import itertools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bots.policy import Policy, describe
from ..io import json_finite
from ..rng import check_seed
from ..rules.params import RULES_VERSION, VitouParams
from ..sim.batch import (
    F_DEALS,
    F_POINTS0,
    F_POINTS1,
    F_SEAT_RETURN0,
    F_VARIANT,
    F_WINNER,
    PROBE_GAMES,
    check_fallback,
    fallback_report,
    simulate,
)
from .stats import MIN_UNITS, fit_elo, ratio_interval, wilson_interval

#: rows per simulator call (progress granularity); does not change results.
BLOCK = 1 << 16

#: the ranking measure of each mode (module docstring)
RANKED_BY = {"deal": "points per deal", "match": "Elo"}
#: how the ranking measure is computed, for the JSON output
RANKING_METHOD = {
    "deal": "points per deal against all opponents (own points minus the opponent's, per deal "
            "played); 95% interval by the ratio estimator over duplicate pair indices "
            "(Cochran 1977, 6.3)",
    "match": "Elo: Bradley-Terry MLE (Hunter 2004 MM) on match wins, draws half, prior 0.5 "
             "win each way, mean 0",
}


@dataclass
class TournamentResult:
    """Results of :func:`run_tournament`.

    Attributes:
        params: the game as played (``mode`` says deals or matches; ``dealer``: -1 when the
            first dealer rotates over the duplicate pairs, else the seat that dealt every
            game, recorded in the JSON as ``dealer`` and ``rotate_dealer``).
        names: bot names, in the order given.
        games: games per pairing (even: duplicate pairs).
        seed: the seed of every pairing.
        pairs: one dict per ordered pair (see :meth:`pairs_frame` for the keys).
        elo: match mode: Elo rating per bot (``float64[len(names)]``, mean 0);
            deal mode: ``None`` (deals are ranked by points, module docstring).
        seconds: wall time of the simulation.
        ratings: one dict per bot, best first (see :meth:`ratings_frame`).
        bots: :func:`~vitou_ai.bots.policy.describe` of each bot.
        fallback: one dict per bot, in the order given
            (:func:`~vitou_ai.sim.batch.fallback_report`): its decisions over all its
            pairings, how many fell back (no strategy at the information state, its
            fallback played), the ``share`` and ``fallback_to``. With a search bot, whose
            pairings run outside the simulator, they are counted on the first
            :data:`~vitou_ai.sim.batch.PROBE_GAMES` games of each pairing with every search
            bot's blueprint in its place, and each dict says so in ``measured``.
        search: one dict per search bot (:class:`~vitou_ai.search.bot.SearchPolicy`), in
            the order given: ``name``, ``decisions`` (over all its pairings),
            ``searched_share`` (the rest played its blueprint) and ``reasons`` (the
            commonest reasons it did not search, with their counts: a four-player
            ``safe=auto`` bot never searches, and says so here).
    """

    params: VitouParams
    names: list[str]
    games: int
    seed: int
    pairs: list[dict[str, Any]]
    elo: np.ndarray | None
    seconds: float
    ratings: list[dict[str, Any]] = field(default_factory=list)
    bots: list[dict[str, Any]] = field(default_factory=list)
    fallback: list[dict[str, Any]] = field(default_factory=list)
    search: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ranked_by(self) -> str:
        """The ranking measure: ``"points per deal"`` (deal mode) or ``"Elo"`` (match mode)."""
        return RANKED_BY[self.params.mode]

    def pairs_frame(self):
        """Pairwise results, one row per ordered pair: ``bot``, ``opponent``,
        ``games``, ``wins``, ``losses``, ``draws``, ``win_rate`` (decisive games),
        ``win_lo``, ``win_hi`` (95% Wilson; NaN below 30 decisive games), ``win_n``
        (decisive games), ``score`` ((wins + draws/2) / games), ``deals``,
        ``points_per_deal``, ``ppd_lo``, ``ppd_hi`` (95%; NaN below 30 duplicate pairs
        or without variation), ``ppd_n`` (duplicate pairs)."""
        import pandas as pd

        return pd.DataFrame(self.pairs)

    def ratings_frame(self):
        """One row per bot, best first: ``rank`` (1 = best), ``bot``, ``ranked_by``
        (the measure, :attr:`ranked_by`), ``elo`` (match mode only),
        ``points_per_deal``, ``ppd_lo``, ``ppd_hi`` (95%, against all opponents; NaN
        as in :meth:`pairs_frame`), ``ppd_n`` (duplicate pairs), ``games``, ``wins``,
        ``losses``, ``draws``, ``score``, ``fallback_share`` (the share of its decisions
        played by its fallback, :attr:`fallback`)."""
        import pandas as pd

        return pd.DataFrame(self.ratings)

    def to_json(self, command: str | None = None) -> dict[str, Any]:
        """A JSON-ready dict (NaN written as ``null``); ``command``, if given, is
        recorded as the command line that reproduces the tournament."""
        p = self.params
        return _finite({
            "rules_version": RULES_VERSION,
            **({"command": command} if command else {}),
            "profile": p.profile,
            # the dealer is the top-level ``dealer`` (-1 in ``knobs`` means "drawn")
            "knobs": {k: v for k, v in p.knobs().items() if k != "dealer"},
            "mode": p.mode,
            "games_per_pairing": self.games,
            "seed": self.seed,
            "duplicate": True,
            "rotate_dealer": p.dealer < 0,
            "dealer": "rotating" if p.dealer < 0 else p.dealer,
            "bots": self.names,
            "bot_specs": self.bots,
            "seconds": self.seconds,
            "ranked_by": self.ranked_by,
            "ranking_method": RANKING_METHOD[p.mode],
            "interval_min_units": MIN_UNITS,
            "ratings": self.ratings,
            "pairs": self.pairs,
            "fallback": self.fallback,
            "search": self.search,
        })


_finite = json_finite  # NaN as null (vitou_ai.io)


def unique_names(policies: Sequence[Policy]) -> list[str]:
    """Policy names, with ``#2``, ``#3`` ... appended to repeats."""
    seen: dict[str, int] = {}
    out = []
    for p in policies:
        k = seen.get(p.name, 0) + 1
        seen[p.name] = k
        out.append(p.name if k == 1 else f"{p.name}#{k}")
    return out


def _pair_stats(a_team_wins, a_team_losses, draws, diff_pairs, deals_pairs) -> dict[str, Any]:
    games = int(a_team_wins + a_team_losses + draws)
    decisive = int(a_team_wins + a_team_losses)
    lo, hi = wilson_interval(int(a_team_wins), decisive)
    ppd, plo, phi = ratio_interval(diff_pairs, deals_pairs)
    return {
        "games": games,
        "wins": int(a_team_wins),
        "losses": int(a_team_losses),
        "draws": int(draws),
        "win_rate": a_team_wins / decisive if decisive else float("nan"),
        "win_lo": lo,
        "win_hi": hi,
        "win_n": decisive,
        "score": (a_team_wins + 0.5 * draws) / games if games else float("nan"),
        "deals": int(deals_pairs.sum()),
        "points_per_deal": ppd,
        "ppd_lo": plo,
        "ppd_hi": phi,
        "ppd_n": len(diff_pairs),
    }


def run_tournament(policies: Sequence[Policy], params: VitouParams, games: int, seed: int = 0,
                   progress: Callable[[int], None] | None = None,
                   allow_fallback: bool = False,
                   rotate_dealer: bool = True) -> TournamentResult:
    """Round robin between ``policies`` (module docstring).

    Args:
        policies: two or more bots.
        params: the game; ``mode`` chooses deals or matches; the first dealer
            is rotated (``dealer`` is set to -1) unless ``rotate_dealer=False``.
        games: games per pairing, rounded up to an even number.
        progress: called with the number of games just played (e.g. a tqdm
            ``update``); the library prints nothing.
        allow_fallback: play a bot outside the scores and dealers it was trained for
            (:func:`~vitou_ai.bots.named.check_bot_fits`), or that has no strategy at more
            than :data:`~vitou_ai.sim.batch.FALLBACK_LIMIT` of its decisions (module
            docstring), instead of refusing it; its share is reported either way. A search
            bot's blueprint must fit the game all the same
            (:func:`vitou_ai.search.bot.check_fits`).
        rotate_dealer: ``True``: the first dealer of duplicate pair ``g`` is seat
            ``g % players``; ``False``: every game is dealt from ``params.dealer`` (in
            match mode its first deal; R8.2 then passes the deal on), for a policy
            trained with that dealer seat only. The bots are checked for the game as
            played either way.

    Raises:
        ValueError: fewer than two bots, ``games < 1``, a seed out of 0 .. 2**31-1, a
            policy trained for another game or variant, or one that does not fit the game
            as played (trained with one dealer seat where the dealer rotates or another
            seat deals); ``rotate_dealer=False`` with a drawn dealer (``params.dealer``
            -1).
        FallbackError: (a ``ValueError``, :mod:`vitou_ai.sim.batch`) a bot that fell back
            at more than ``FALLBACK_LIMIT`` of its decisions in the probe, before the round
            robin, unless ``allow_fallback``.
        TypeError: a bot that is not a policy object (a name: ``vitou_ai.load_policy``).

    Examples:
        >>> import vitou_ai
        >>> params = vitou_ai.VitouParams(profile="vitou_cason", ranks=4, copies=2, hand_size=1)
        >>> bots = [vitou_ai.load_policy(name) for name in ("random", "counter")]
        >>> frame = vitou_ai.run_tournament(bots, params, games=20, seed=0).ratings_frame()
        >>> sorted(frame["bot"])
        ['counter', 'random']
    """
    from ..bots.named import check_policies
    from .search_match import played_params

    if isinstance(policies, str) or not isinstance(policies, Sequence):
        raise TypeError(f"policies must be a list of bots, got {type(policies).__name__}")
    if not isinstance(params, VitouParams):  # before played_params reads it
        raise TypeError(f"params must be a VitouParams (vitou_ai.VitouParams(profile=...)), "
                        f"got {type(params).__name__} {params!r}")
    # the game as played, for the checks too: checking the given dealer seat and then
    # rotating it would play a one-dealer policy outside its table half the time
    params = played_params(params, rotate_dealer)
    check_policies(policies, params, "bot", search_ok=True, allow_fallback=allow_fallback)
    seed = check_seed(seed)
    if len(policies) < 2:
        raise ValueError("a tournament needs at least two bots")
    if games < 1:
        raise ValueError(f"games per pairing must be >= 1, got {games}")
    games += games % 2
    names = unique_names(policies)
    n = len(policies)
    wins = np.zeros((n, n))
    stats_rows: list[dict[str, Any]] = []
    per_bot = {i: {"wins": 0, "losses": 0, "draws": 0} for i in range(n)}
    # per bot and duplicate pair index: point difference and deals, summed over its
    # pairings (the units of the bot's points-per-deal interval)
    unit_diff = np.zeros((n, games // 2))
    unit_deals = np.zeros((n, games // 2))
    t0 = time.perf_counter()
    searching = any(getattr(p, "kind", None) == "search" for p in policies)
    if searching and (params.mode != "deal" or params.players % 2):
        raise ValueError("a search bot plays tournaments in deal mode (--deals) with two or "
                         "four players: it re-solves the deal's public subgame (R8.1)")
    decisions = np.zeros(n, np.int64)
    fallbacks = np.zeros(n, np.int64)
    probe = None
    if searching:
        # the round robin runs outside the simulator and counts no fallbacks: measure them
        # on the probe's games, each search bot's blueprint in its place (it plays the
        # blueprint where it does not search, and searches over the blueprint's ranges)
        probe = _probe_fallback(policies, names, params, games, seed, rotate_dealer,
                                check=not allow_fallback)
    elif not allow_fallback:
        _probe_fallback(policies, names, params, games, seed, rotate_dealer)
    for i, j in itertools.combinations(range(n), 2):
        a, b = policies[i], policies[j]
        if searching:
            # every pairing on the Python runner's deals (common cards across pairings)
            a_team, winner, a_pts, b_pts, deals = _search_games(params, a, b, games, seed,
                                                                progress, rotate_dealer)
            _record_pair(i, j, names, a_team, winner, a_pts, b_pts, deals, stats_rows, wins,
                         per_bot, unit_diff, unit_deals)
            continue
        lineup = ([a, b] * params.players)[: params.players]  # a b (a b); a b a for three
        tables = []
        for row0 in range(0, games, BLOCK):
            m = min(BLOCK, games - row0)
            res = simulate(params, lineup, m, seed=seed, duplicate=True,
                           rotate_dealer=rotate_dealer, row0=row0, allow_fallback=True)
            for k, r in zip(_pair_index(a, b, i, j), res.fallback, strict=True):
                decisions[k] += r["decisions"]
                fallbacks[k] += r["fallbacks"]
            tables.append(res.table)
            if progress is not None:
                progress(m)
        t = np.concatenate(tables)
        a_team = t[:, F_VARIANT].astype(np.int64)  # variant 0: a is team 0; 1: swapped
        winner = t[:, F_WINNER]
        if params.willughby:
            a_team, winner, a_pts, b_pts = _willughby_sides(t, params.players)
        else:
            a_pts = np.where(a_team == 0, t[:, F_POINTS0], t[:, F_POINTS1]).astype(np.float64)
            b_pts = np.where(a_team == 0, t[:, F_POINTS1], t[:, F_POINTS0]).astype(np.float64)
        deals = t[:, F_DEALS].astype(np.float64)
        _record_pair(i, j, names, a_team, winner, a_pts, b_pts, deals, stats_rows, wins,
                     per_bot, unit_diff, unit_deals)
    seconds = time.perf_counter() - t0
    elo = fit_elo(wins) if params.mode == "match" else None
    fallback = [dict(r) for r in fallback_report(policies, decisions, fallbacks, names)]
    if searching:  # played by search_match, outside the simulator: the probe's counts
        fallback = [dict(r) for r in fallback_report(policies, *probe[:2], names)]
        for r in fallback:
            r["measured"] = (f"the first {probe[2]} games of each pairing, each search bot's "
                             "blueprint in its place")
    ratings = []
    for k in range(n):
        s = per_bot[k]
        g = s["wins"] + s["losses"] + s["draws"]
        ppd, lo, hi = ratio_interval(unit_diff[k], unit_deals[k])
        row: dict[str, Any] = {"bot": names[k], "ranked_by": RANKED_BY[params.mode]}
        if elo is not None:
            row["elo"] = float(elo[k])
        row.update({"points_per_deal": ppd, "ppd_lo": lo, "ppd_hi": hi,
                    "ppd_n": games // 2, "games": g,
                    "wins": s["wins"], "losses": s["losses"], "draws": s["draws"],
                    "score": (s["wins"] + 0.5 * s["draws"]) / g,
                    "fallback_share": fallback[k]["share"]})
        ratings.append(row)
    key = "elo" if elo is not None else "points_per_deal"
    ratings.sort(key=lambda r: -r[key])  # stable: ties keep the order given
    ratings = [{"rank": r + 1, **row} for r, row in enumerate(ratings)]
    bots = [{**describe(p), "name": nm} for p, nm in zip(policies, names, strict=True)]
    return TournamentResult(params, names, games, seed, stats_rows, elo, seconds, ratings, bots,
                            fallback, search_report(policies, names))


def search_report(policies: Sequence[Policy], names: Sequence[str]) -> list[dict[str, Any]]:
    """What each search bot of ``policies`` did (:attr:`TournamentResult.search`)."""
    from collections import Counter

    rows = []
    for p, nm in zip(policies, names, strict=True):
        if getattr(p, "kind", "") != "search":
            continue
        reasons = Counter(d["reason"] for d in p.decisions if not d["searched"])
        rows.append({"name": nm, "decisions": len(p.decisions),
                     "searched_share": p.searched_share if p.decisions else None,
                     "reasons": [{"reason": r, "decisions": c}
                                 for r, c in reasons.most_common(3)]})
    return rows


def _pair_index(a: Policy, b: Policy, i: int, j: int) -> list[int]:
    """The bot index of each distinct policy of a pairing's lineup, in the order of
    :attr:`~vitou_ai.sim.batch.SimResult.fallback` (``a`` first; one if ``a is b``)."""
    return [i] if a is b else [i, j]


def _probe_fallback(policies: Sequence[Policy], names: Sequence[str], params: VitouParams,
                    games: int, seed: int, rotate_dealer: bool = True, check: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, int]:
    """The first :data:`~vitou_ai.sim.batch.PROBE_GAMES` games of every pairing that has a
    tabular or abstract bot, a search bot's blueprint standing in for it (the search runs
    outside the simulator); unless ``not check``, refuse a bot whose fallback share over
    them is above the limit (:func:`~vitou_ai.sim.batch.check_fallback`), before the round
    robin.

    Returns:
        ``(decisions, fallbacks, games)``: ``int64[len(policies)]`` each, per bot over its
        probed pairings, and the games probed per pairing.
    """
    from ..bots.policy import can_fall_back

    n = len(policies)
    decisions = np.zeros(n, np.int64)
    fallbacks = np.zeros(n, np.int64)
    m = min(games, PROBE_GAMES)
    played = False
    stand_in = [p.blueprint if getattr(p, "kind", None) == "search" else p for p in policies]
    for i, j in itertools.combinations(range(n), 2):
        a, b = stand_in[i], stand_in[j]
        if not (can_fall_back(a) or can_fall_back(b)):
            continue
        lineup = ([a, b] * params.players)[: params.players]
        res = simulate(params, lineup, m, seed=seed, duplicate=True,
                       rotate_dealer=rotate_dealer, allow_fallback=True)
        played = True
        # one record per distinct policy object in the lineup
        if a is not b:
            index, recs = [i, j], res.fallback
        elif policies[i] is policies[j]:  # one bot given twice (as _pair_index)
            index, recs = [i], res.fallback
        else:  # two search bots over one blueprint object: its counts are both's
            index, recs = [i, j], res.fallback * 2
        for k, r in zip(index, recs, strict=True):
            decisions[k] += r["decisions"]
            fallbacks[k] += r["fallbacks"]
    if played and check:
        check_fallback(fallback_report(policies, decisions, fallbacks, names), m, params.mode,
                       scope=" of its pairings")
    return decisions, fallbacks, m


def _record_pair(i, j, names, a_team, winner, a_pts, b_pts, deals, stats_rows, wins, per_bot,
                 unit_diff, unit_deals) -> None:
    """Add one pairing's games (per game: ``a``'s team, the winning team or -1, each bot's
    points, deals played; duplicate pairs in consecutive rows) to the tallies."""
    a_w = int((winner == a_team).sum())
    a_l = int((winner == 1 - a_team).sum())
    d = int((winner < 0).sum())
    diff_pairs = (a_pts - b_pts).reshape(-1, 2).sum(1)
    deals_pairs = deals.reshape(-1, 2).sum(1)
    ab = _pair_stats(a_w, a_l, d, diff_pairs, deals_pairs)
    ba = _pair_stats(a_l, a_w, d, -diff_pairs, deals_pairs)
    stats_rows.append({"bot": names[i], "opponent": names[j], **ab})
    stats_rows.append({"bot": names[j], "opponent": names[i], **ba})
    wins[i, j] += a_w + 0.5 * d
    wins[j, i] += a_l + 0.5 * d
    for k, (w_, l_) in ((i, (a_w, a_l)), (j, (a_l, a_w))):
        per_bot[k]["wins"] += w_
        per_bot[k]["losses"] += l_
        per_bot[k]["draws"] += d
        unit_deals[k] += deals_pairs
    unit_diff[i] += diff_pairs
    unit_diff[j] -= diff_pairs


def _search_games(params, a, b, games, seed, progress, rotate_dealer=True):
    """A pairing with a search bot, on :mod:`vitou_ai.eval.search_match`'s deals (not the
    simulator's): the per-game columns :func:`_record_pair` takes."""
    from .search_match import duplicate_returns

    r = duplicate_returns(params, a, b, games // 2, seed, progress=progress,
                          rotate_dealer=rotate_dealer).reshape(-1)
    a_team = np.tile([0, 1], games // 2)
    winner = np.where(r > 0, 0, np.where(r < 0, 1, -1))
    team0 = np.maximum(r, 0.0)
    team1 = np.maximum(-r, 0.0)
    a_pts = np.where(a_team == 0, team0, team1)
    b_pts = np.where(a_team == 0, team1, team0)
    return a_team, winner, a_pts, b_pts, np.ones(games)


def _willughby_sides(t: np.ndarray, n: int):
    """Willughby's Put (docs/RULES_family.md P7.5), each for themselves: in variant 0 bot
    ``a`` holds the even seats of the alternating lineup, in variant 1 (its complement,
    :func:`~vitou_ai.sim.batch.swap_teams`) the others. Returns ``(a_side, winner, a_pts,
    b_pts)`` as the team path has them: a side 0 / 1 per row (0 when ``a`` won the deal),
    the side of the deal's winning seat (-1 nobody), and each bot's summed per-seat
    returns (their sum is 0, P7.5)."""
    variant = t[:, F_VARIANT].astype(np.int64)
    seats = np.arange(n)
    a_seat = (seats[None, :] % 2 == variant[:, None])  # variant 0: a at 0, 2; 1: a at 1 (3)
    if n == 3:
        a_seat = np.where(variant[:, None] == 0, seats[None, :] != 1, seats[None, :] == 1)
    ret = t[:, F_SEAT_RETURN0:F_SEAT_RETURN0 + n].astype(np.float64)
    a_pts = (ret * a_seat).sum(1)
    b_pts = (ret * ~a_seat).sum(1)
    w = t[:, F_WINNER].astype(np.int64)
    won_by_a = a_seat[np.arange(len(t)), np.clip(w, 0, n - 1)]
    winner = np.where(w < 0, -1, np.where(won_by_a, 0, 1))
    # a draw in the team path is "winner < 0"; a deal won by a's seat counts for a
    return np.zeros(len(t), np.int64), winner, a_pts, b_pts


def _short(name: str, width: int = 22) -> str:
    return name if len(name) <= width else name[:width - 1] + "\u2026"


def plot(result: TournamentResult):
    """A matplotlib Figure (Agg canvas, no pyplot state): win-rate and
    points-per-deal matrices, and the ranking by its measure (deal mode: points
    per deal with 95% intervals; match mode: Elo), titled with that measure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = result.names
    n = len(names)
    idx = {b: k for k, b in enumerate(names)}
    short = [_short(b) for b in names]  # long bot specs would squeeze the axes
    wr = np.full((n, n), np.nan)
    ppd = np.full((n, n), np.nan)
    for row in result.pairs:
        i, j = idx[row["bot"]], idx[row["opponent"]]
        wr[i, j] = row["win_rate"]
        ppd[i, j] = row["points_per_deal"]
    fig = Figure(figsize=(4.2 * 3, 0.5 * n + 3.2))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 3)
    unit = "match" if result.params.mode == "match" else "deal"
    for ax, mat, title, cmap, lim in (
        (axes[0], wr, f"{unit} win rate (row vs column)", "RdBu", (0.0, 1.0)),
        (axes[1], ppd, "points per deal (row - column)", "RdBu",
         (-np.nanmax(np.abs(ppd)) or -1, np.nanmax(np.abs(ppd)) or 1)),
    ):
        im = ax.imshow(mat, cmap=cmap, vmin=lim[0], vmax=lim[1])
        ax.set_xticks(range(n), short, rotation=45, ha="right")
        ax.set_yticks(range(n), short)
        ax.set_title(title, fontsize=10)
        for i in range(n):
            for j in range(n):
                if not np.isnan(mat[i, j]):
                    ax.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=8)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    ranked = result.ratings[::-1]  # best at the top of a horizontal bar chart
    labels = [_short(r["bot"]) for r in ranked]
    if result.elo is not None:
        axes[2].barh(labels, [r["elo"] for r in ranked], color="tab:gray")
        axes[2].set_xlabel("Elo (Bradley-Terry fit on\nmatch results, mean 0)")
    else:
        v = np.array([r["points_per_deal"] for r in ranked])
        err = np.array([[r["points_per_deal"] - r["ppd_lo"] for r in ranked],
                        [r["ppd_hi"] - r["points_per_deal"] for r in ranked]])
        axes[2].barh(labels, v, xerr=err, color="tab:gray", capsize=3)
        axes[2].set_xlabel("points per deal against all opponents\n(95% interval)")
    axes[2].axvline(0, color="black", lw=0.8)
    plural = "matches" if unit == "match" else "deals"
    d = result.params.dealer
    dealt = ("first dealer rotated" if d < 0 else f"every deal dealt by seat {d}"
             if unit != "match" else f"every match first dealt by seat {d}")
    axes[2].set_title(f"ranked by {result.ranked_by}\n{result.params.profile}, {result.games} "
                      f"{plural} per pairing\n{dealt}", fontsize=10)
    fig.tight_layout()
    return fig


def write_outputs(result: TournamentResult, out_dir: str | Path,
                  command: str | None = None) -> list[Path]:
    """Write ``pairs.csv``, ``ratings.csv``, ``tournament.json`` (with ``command``
    if given) and ``tournament.png`` into ``out_dir`` (each atomically); return
    the paths."""
    from ..io import write_atomic

    out = Path(out_dir)
    paths = [out / "pairs.csv", out / "ratings.csv", out / "tournament.json",
             out / "tournament.png"]
    write_atomic(paths[0], result.pairs_frame().to_csv(index=False).encode())
    write_atomic(paths[1], result.ratings_frame().to_csv(index=False).encode())
    write_atomic(paths[2], (json.dumps(result.to_json(command), indent=2) + "\n").encode())
    buf = io.BytesIO()
    plot(result).savefig(buf, format="png", dpi=110)
    write_atomic(paths[3], buf.getvalue())
    return paths
