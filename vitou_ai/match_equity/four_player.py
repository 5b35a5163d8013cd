"""The match-equity table of four-player Vitou (profile ``vitou``), approximately.

``E(a, b, d)`` is the probability that team 0 (seats 0 and 2) wins the match when
team 0 has ``a`` points, team 1 (seats 1 and 3) has ``b`` (both below the target
``T``, 21 in ``vitou``: R5.3) and seat ``d`` (0 .. 3) deals the next deal.

What is approximated, and how:

1. *The play.* The table is the match equity of one given policy played in all four
   seats at every score (by default the four-player abstract ES-MCCFR policy of
   ``results/train_4p/``, :mod:`vitou_ai.bots.abstract`), not of an equilibrium of the
   match: that policy maximises points per deal and was trained at 0:0. Its
   abstraction has no scores (``scores=False``), so it plays the same at every score;
   the kernel still applies R6 (one from the end: no raises, ``go`` / ``decline``,
   R6.2 at ``T-1 : T-1``) and the caps of R8.1, and where the policy meets an
   information state it never trained (the R6 decisions) it plays its fallback
   heuristic (``counter``).
2. *The deal's outcome distribution* at each score state and dealer is estimated by
   simulating ``deals`` deals (:func:`vitou_ai.sim.batch.simulate`, deal mode at those
   scores, R8.1): the distribution of team 0's capped return ``u`` (``u > 0``: team 0
   scores ``u``; ``u < 0``: team 1 scores ``-u``; ``u = 0``: nothing scored, all void
   or all passed). Each state is a task of :mod:`vitou_ai.match_equity.sweep` whose seed comes from
   its key.
3. *The recursion* is the two-player table's (:mod:`vitou_ai.match_equity.two_player`), reused:
   ``E(a, b, d) = sum_u P_abd(u) E(after u, d+1) + P_abd(0) E(a, b, d+1)``, with the
   deal passing to the left after every deal (R1.3), ``E = 1`` once team 0 reaches
   ``T`` and ``0`` once team 1 does. A deal that scores nothing keeps the scores, so
   the four dealers of a score pair form one cycle ``d -> d+1 -> .. -> d``; it is
   solved as a fixed point by :func:`vitou_ai.match_equity.two_player.iterate_values` (states of
   a larger total first).

Given the policy, (2) is the only source of error: with a policy that ignores the
score the play of a deal depends only on the cards, the dealer and the scores (the
state of the Markov chain the recursion assumes), so the table's error is the Monte
Carlo error of (2). It is measured twice: by a parametric bootstrap of the outcome
counts through the recursion (:func:`bootstrap_se`), and by simulating whole matches
in the kernel's match mode (R8.2) from given states and comparing their win rates
(95% Wilson intervals) with the table (:func:`compare_with_matches`).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..capabilities import UnsupportedGameError, require
from ..rng import UINT64_MAX, check_seed
from ..rules.params import RULES_VERSION, VitouParams
from . import two_player as M
from .two_player import MatchEquityError

#: four-player profiles (two teams: seats 0/2 and 1/3)
PROFILES_4P = ("vitou", "vitou_cason")
PLAYERS = 4
#: the policy of the four-player training run (README, "four players as people play them")
DEFAULT_POLICY = "results/train_4p/policy.npz"

# a table's outcome distributions: (score0, score1, dealer) -> {u: count}
Outcomes = Mapping[tuple[int, int, int], Mapping[int, float]]


@dataclass(frozen=True)
class Config4p(M.TableConfig):
    """What a four-player table is estimated for.

    Attributes:
        policy: path of the policy played in all four seats (an abstract or tabular
            ``.npz``, :mod:`vitou_ai.bots.named`).
        profile: ``"vitou"`` or ``"vitou_cason"``.
        target: points that win the match, 2 .. 99 (21 in ``vitou``).
        deals: simulated deals per score state and dealer.

    Raises:
        MatchEquityError: an invalid field (one line).
    """

    policy: str = DEFAULT_POLICY
    profile: str = "vitou"
    target: int = 21
    deals: int = 20_000

    def __post_init__(self) -> None:
        try:
            require("match_equity", self.profile)
        except UnsupportedGameError as e:
            raise MatchEquityError(str(e)) from None
        if self.profile not in PROFILES_4P:
            raise MatchEquityError(f"profile {self.profile!r}: the four-player table is for "
                                   f"{' or '.join(PROFILES_4P)}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or self.deals < 1:
            raise MatchEquityError(f"deals per state must be a positive integer, got "
                                   f"{self.deals!r}")
        self._check_game()

    def _game_knobs(self) -> dict:
        return {"profile": self.profile, "target": self.target}

    def match_params(self, scores: tuple[int, int], dealer: int) -> VitouParams:
        """A match from ``scores`` with ``dealer`` dealing first (R8.2)."""
        return VitouParams(**self._game_knobs(), dealer=dealer, scores=tuple(scores),
                           mode="match")

    def _fingerprint_extra(self) -> dict:
        """The policy file's SHA-256: the table is that policy's (:meth:`fingerprint`).

        Raises:
            MatchEquityError: the policy file cannot be read.
        """
        try:
            policy_hash = hashlib.sha256(Path(self.policy).read_bytes()).hexdigest()
        except OSError as e:
            raise MatchEquityError(f"{self.policy}: cannot read the policy ({e.strerror})") \
                from None
        return {"policy_sha256": policy_hash}


def output_stem(config: Config4p) -> str:
    """``vitou_4p`` for the game as played (target 21), else e.g. ``vitou_4p_target12``."""
    stem = f"{config.profile}_4p"
    default = VitouParams(profile=config.profile).target
    return stem if config.target == default else f"{stem}_target{config.target}"


@functools.lru_cache(maxsize=4)
def load_policy(path: str):
    """The policy at ``path`` (a bot spec of :func:`vitou_ai.bots.named.parse_bot`), cached
    per process (a sweep's tasks share it).

    Raises:
        MatchEquityError: not a readable policy file (one line).
    """
    from ..bots.named import parse_bot

    if not Path(path).is_file():
        raise MatchEquityError(f"{path}: no such policy file")
    try:
        return parse_bot(path)
    except (ValueError, OSError) as e:
        raise MatchEquityError(f"{path}: {e}") from None


def check_policy(config: Config4p):
    """Load ``config.policy`` and check it was trained for this game's shape.

    Raises:
        MatchEquityError: unreadable, or trained for another game (one line).
    """
    from ..bots.abstract import AbstractPolicy, check_fits

    policy = load_policy(config.policy)
    if isinstance(policy, AbstractPolicy):
        try:
            check_fits(policy, config.deal_params((0, 0), 0))
        except ValueError as e:
            raise MatchEquityError(str(e)) from None
    return policy


# ---- the deal's outcome distribution --------------------------------------------------


def deal_outcomes(policy, params: VitouParams, deals: int, seed: int) -> dict[int, int]:
    """Simulate ``deals`` deals of ``params`` (deal mode) with ``policy`` in every seat.

    Returns:
        ``{u: count}``: team 0's return (R8.1, capped and signed; 0 when nothing is
        scored) and how many deals ended with it.
    """
    from ..sim.batch import simulate

    res = simulate(params, [policy] * params.players, deals, seed=seed, allow_fallback=True)
    vals, counts = np.unique(np.asarray(res["return0"]), return_counts=True)
    return {int(v): int(c) for v, c in zip(vals, counts, strict=True)}


def state_dealer_seed(task_seed: int, dealer: int) -> int:
    """The seed of one dealer's deals within a state's task (derived from the task's)."""
    from .sweep import task_seed as derive

    return derive([int(task_seed), int(dealer)])


def _sweep_task(key, seed, shared) -> dict:
    """One sweep task: the outcome counts of score state ``key`` for the four dealers."""
    config = Config4p(**shared)
    policy = check_policy(config)
    a, b = M.check_scores((int(key[0]), int(key[1])), config.target)
    start = time.perf_counter()
    rows = []
    for d in range(PLAYERS):
        counts = deal_outcomes(policy, config.deal_params((a, b), d), config.deals,
                               state_dealer_seed(seed, d))
        rows.append({"dealer": d, "counts": {str(u): c for u, c in sorted(counts.items())}})
    return {"key": [a, b], "rows": rows, "seconds": time.perf_counter() - start}


# ---- the recursion --------------------------------------------------------------------


def state_order(target: int) -> list[tuple[int, int]]:
    """Every score pair below ``target``, larger totals first (the recursion's order)."""
    return [(a, total - a) for total in range(2 * (target - 1), -1, -1)
            for a in range(max(0, total - target + 1), min(target - 1, total) + 1)]


def table_from_outcomes(outcomes: Outcomes, target: int, players: int = PLAYERS,
                        tol: float = 1e-12) -> dict[tuple[int, int, int], float]:
    """The match-equity table from each state's outcome distribution (module docstring).

    Args:
        outcomes: ``(score0, score1, dealer) -> {u: weight}`` for every score pair
            below ``target`` and every dealer ``0 .. players-1``; weights are counts
            or probabilities (normalised here), ``u`` team 0's capped return.
        target: the match's target.
        players: seats (the deal passes to seat ``dealer + 1``, R1.3).
        tol: the fixed point of each score pair's dealer cycle is iterated until no
            value moves by this much (:func:`vitou_ai.match_equity.two_player.iterate_values`).

    Returns:
        ``{(score0, score1, dealer): E}`` (team 0's probability of winning the match).

    Raises:
        MatchEquityError: a missing state, a distribution without positive weight or with a
            negative one, or a cycle that never scores (all naming the state).
    """
    table: dict[tuple[int, int, int], float] = {}
    partner = [(d + 1) % players for d in range(players)]
    for a, b in state_order(target):
        A = np.zeros(players)
        P = np.zeros(players)
        for d in range(players):
            try:
                dist = outcomes[(a, b, d)]
            except KeyError:
                raise MatchEquityError(f"no outcome distribution for score {a}:{b}, dealer "
                                       f"{d}") from None
            u = np.array([int(k) for k in dist], dtype=np.float64)
            w = np.array([float(v) for v in dist.values()], dtype=np.float64)
            if (w < 0).any() or not w.sum() > 0:
                raise MatchEquityError(f"score {a}:{b}, dealer {d}: the outcome weights must "
                                       f"be non-negative with a positive sum, got {dict(dist)}")
            w /= w.sum()
            eq, nothing = M.equity_after(u, (a, b), d, target, table, next_dealer=partner[d])
            A[d] = float(np.sum(w[~nothing] * eq[~nothing]))
            P[d] = float(np.sum(w[nothing]))
        if np.prod(P) >= 1.0:  # the cycle never leaves the state: x = x has every answer
            raise MatchEquityError(f"score {a}:{b}: no deal ever scores, whoever deals; its "
                                   "equity is undetermined")
        x, _ = M.iterate_values(A, P, partner, np.full(players, 0.5), tol)
        for d in range(players):
            table[(a, b, d)] = float(x[d])
    return table


def pool_symmetric(counts: Outcomes, players: int = PLAYERS
                   ) -> dict[tuple[int, int, int], dict[int, float]]:
    """Pool each state's outcome counts with those of the states the seat symmetries map
    it to, for a policy that is the same in every seat and reads the seats relative to
    the dealer (as the abstract key does): turning the table by two seats keeps the
    teams, so ``(a, b, d)`` plays as ``(a, b, d+2)``; turning it by one swaps them, so
    ``(a, b, d)`` plays as ``(b, a, d+1)`` with ``u`` negated (the rules are the same
    for both teams, R6 included). Four times the deals per state; the table of pooled
    counts satisfies ``E(a,b,d) = E(a,b,d+2) = 1 - E(b,a,d+1)`` exactly.

    Raises:
        KeyError: a state of an orbit is missing.
    """
    out: dict[tuple[int, int, int], dict[int, float]] = {}
    for (a, b, d) in counts:
        pooled: dict[int, float] = {}  # counts stay ints if they were
        for k in range(players):
            src = (a, b, (d + k) % players) if k % 2 == 0 else (b, a, (d + k) % players)
            sign = 1 if k % 2 == 0 else -1
            for u, c in counts[src].items():
                pooled[sign * int(u)] = pooled.get(sign * int(u), 0) + c
        out[(a, b, d)] = pooled
    return out


def bootstrap_se(counts: Outcomes, target: int, replicates: int = 100, seed: int = 0,
                 players: int = PLAYERS, pool: bool = False
                 ) -> dict[tuple[int, int, int], float]:
    """Standard error of each table entry from the sampling of the outcome counts: the
    counts of every state are redrawn ``replicates`` times from a multinomial with the
    observed frequencies (parametric bootstrap), pooled if ``pool``
    (:func:`pool_symmetric`), and the table recomputed.

    Returns:
        ``{(score0, score1, dealer): standard deviation over the replicates}``.

    Raises:
        ValueError, TypeError: a seed that is not a whole number in ``0 .. 2**64-1``.
    """
    rng = np.random.default_rng(check_seed(seed, "seed", UINT64_MAX))
    keys = sorted(counts)
    vals = {k: list(counts[k]) for k in keys}
    n = {k: int(sum(counts[k].values())) for k in keys}
    p = {k: np.array([float(v) for v in counts[k].values()]) / n[k] for k in keys}
    tables = []
    for _ in range(replicates):
        draw = {k: dict(zip(vals[k], rng.multinomial(n[k], p[k]).tolist(), strict=True))
                for k in keys}
        if pool:
            draw = pool_symmetric(draw, players)
        tables.append(table_from_outcomes(draw, target, players))
    return {k: float(np.std([t[k] for t in tables], ddof=1)) for k in tables[0]}


def symmetry_z(table: Mapping[tuple[int, int, int], float],
               se: Mapping[tuple[int, int, int], float], target: int,
               players: int = PLAYERS) -> dict:
    """How far an unpooled table is from the seat symmetries of :func:`pool_symmetric`,
    in standard errors: ``z = (E(a,b,d) - E(a,b,d+2)) / hypot(se, se')`` and
    ``(E(a,b,d) + E(b,a,d+1) - 1) / hypot(se, se')`` over the distinct pairs.

    Returns:
        For ``"rotation2"`` and ``"team_swap"``: ``pairs``, ``sd_z`` (about 1 if the
        differences are Monte Carlo error; less, since neighbouring states share their
        successors' noise), ``max_abs_z``, ``share_outside_1.96``.
    """
    out = {}
    pairs = {"rotation2": [((a, b, d), (a, b, d + 2), 0.0) for a in range(target)
                           for b in range(target) for d in range(players // 2)],
             "team_swap": [((a, b, d), (b, a, (d + 1) % players), 1.0)
                           for a in range(target) for b in range(target) if a < b
                           for d in range(players)]}
    for name, ps in pairs.items():
        z = np.array([(table[k] + (table[k2] if c else -table[k2]) - c)
                      / max(np.hypot(se[k], se[k2]), 1e-300) for k, k2, c in ps])
        out[name] = {"pairs": len(ps), "sd_z": float(z.std()),
                     "max_abs_z": float(np.abs(z).max()),
                     "share_outside_1.96": float(np.mean(np.abs(z) > 1.96))}
    return out


# ---- checking the table against whole matches -----------------------------------------


def simulate_matches(policy, config: Config4p, start: tuple[int, int], dealer: int,
                     matches: int, seed: int) -> dict:
    """``matches`` matches (kernel match mode, R8.2) from ``start`` with ``dealer``
    dealing first, ``policy`` in all four seats.

    Returns:
        ``wins0``, ``wins1``, ``draws`` (open after ``max_deals`` deals, R8.2),
        ``matches``, ``mean_deals``.
    """
    from ..sim.batch import simulate

    res = simulate(config.match_params(start, dealer), [policy] * PLAYERS, matches, seed=seed,
                   allow_fallback=True)
    w = np.asarray(res["winner"])
    return {"wins0": int((w == 0).sum()), "wins1": int((w == 1).sum()),
            "draws": int((w < 0).sum()), "matches": int(matches),
            "mean_deals": float(np.mean(res["deals"]))}


def compare_with_matches(config: Config4p, table: dict[tuple[int, int, int], float],
                         se: Mapping[tuple[int, int, int], float] | None,
                         starts: Sequence[tuple[int, int]], matches: int, seed: int = 0,
                         dealers: Sequence[int] = tuple(range(PLAYERS)),
                         on_row: Callable[[dict], None] | None = None) -> list[dict]:
    """Simulated match win rates of team 0 from each start and dealer against the table.

    Each row: ``score0``, ``score1``, ``dealer``, ``table`` (``E``), ``table_se`` (the
    bootstrap's, or NaN), ``simulated`` (wins0 / matches; a draw counts as not won),
    ``lo`` / ``hi`` (95% Wilson), ``diff`` (simulated - table), ``z`` (``diff`` over
    the combined standard error of both), ``inside`` (the table in the interval;
    ``None`` below 30 matches, where the interval is withheld:
    :mod:`vitou_ai.eval.stats`), ``matches``, ``draws``, ``mean_deals``. The seed of each row comes from the sweep's
    :func:`~vitou_ai.match_equity.sweep.task_seed` of ``[seed, score0, score1, dealer]``.

    Raises:
        MatchEquityError: a start outside the match. ValueError, TypeError: a seed that
            is not a whole number in ``0 .. 2**64-1`` (:func:`vitou_ai.rng.check_seed`).
    """
    from ..eval.stats import wilson_interval
    from .sweep import task_seed

    seed = check_seed(seed, "seed", UINT64_MAX)  # int() truncated 1.5 to 1
    policy = check_policy(config)
    rows = []
    for start in starts:
        a, b = M.check_scores(tuple(start), config.target)
        for d in dealers:
            r = simulate_matches(policy, config, (a, b), d, matches,
                                 task_seed([int(seed), a, b, int(d)]))
            sim = r["wins0"] / matches
            lo, hi = wilson_interval(r["wins0"], matches)
            e = table[(a, b, d)]
            s = float("nan") if se is None else se[(a, b, d)]
            comb = np.sqrt(sim * (1 - sim) / matches + (0.0 if se is None else s * s))
            row = {"score0": a, "score1": b, "dealer": d, "table": e, "table_se": s,
                   "simulated": sim, "lo": lo, "hi": hi, "diff": sim - e,
                   "z": float((sim - e) / comb) if comb > 0 else float("nan"),
                   "inside": None if np.isnan(lo) else bool(lo <= e <= hi), **r}
            rows.append(row)
            if on_row:
                on_row(row)
    return rows


# ---- a whole table through a sweep, with its output files -----------------------------


def counts_from_records(records: Sequence[dict]) -> dict[tuple[int, int, int], dict[int, int]]:
    """``(score0, score1, dealer) -> {u: count}`` from task records."""
    out = {}
    for rec in records:
        a, b = rec["key"]
        for r in rec["rows"]:
            out[(int(a), int(b), int(r["dealer"]))] = {int(u): int(c)
                                                       for u, c in r["counts"].items()}
    return out


def heatmap_4p(table: Mapping[tuple[int, int, int], float],
               se: Mapping[tuple[int, int, int], float] | None, target: int,
               path: str | Path, title: str) -> None:
    """Draw ``E`` with seat 0 (team 0) and seat 1 (team 1) dealing, and the bootstrap
    standard error, into a PNG, atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io import write_atomic

    panels = 3 if se is not None else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.6), constrained_layout=True)
    for d, ax in enumerate(axes[:2]):
        m = np.full((target, target), np.nan)
        for (a, b, dd), v in table.items():
            if dd == d:
                m[a, b] = v
        im = ax.imshow(m, origin="lower", cmap="RdBu", vmin=0, vmax=1)
        ax.set_xlabel("score of team 1 (seats 1, 3)")
        ax.set_ylabel("score of team 0 (seats 0, 2)")
        ax.set_title(f"seat {d} deals (team {d})")
    fig.colorbar(im, ax=axes[:2], label="P(team 0 wins the match)", shrink=0.9)
    if se is not None:
        m = np.full((target, target), np.nan)
        for (a, b, _d), v in se.items():
            m[a, b] = v if np.isnan(m[a, b]) else max(m[a, b], v)
        ax = axes[2]
        im2 = ax.imshow(m, origin="lower", cmap="viridis")
        ax.set_xlabel("score of team 1")
        ax.set_ylabel("score of team 0")
        ax.set_title("standard error (bootstrap; largest of the 4 dealers)")
        fig.colorbar(im2, ax=ax, shrink=0.9)
    fig.suptitle(title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    write_atomic(Path(path), buf.getvalue())


def run_table_4p(config: Config4p, out: str | Path, sweep,
                 on_state: Callable[[dict, bool], None] | None = None,
                 replicates: int = 100, pool: bool = True) -> tuple[dict, dict, dict]:
    """Estimate every state's outcome distribution through ``sweep`` (a
    :class:`vitou_ai.match_equity.sweep.Sweep`, one task per score pair), compute the table (from
    the counts pooled over the seat symmetries if ``pool``, :func:`pool_symmetric`) and
    its bootstrap standard errors, and write into ``out``: ``<stem>.csv``
    (:data:`vitou_ai.match_equity.two_player.CSV_COLUMNS`), ``<stem>_states.csv`` (per state and
    dealer: the table's equity, the unpooled one, the bootstrap standard error, and
    the state's own simulated deals: their number, P(nothing scored), team 0's mean
    return, the count of each ``u``), ``<stem>.png`` (heatmap).

    Returns:
        ``(table, se, summary)``; the summary holds the configuration, fingerprint,
        ``rules_version``, the dealer's equity at 0:0, the largest standard error,
        the largest deviations of the unpooled table from the seat symmetries (its
        Monte Carlo error: :func:`pool_symmetric`), simulated deals and seconds.

    Raises:
        vitou_ai.match_equity.sweep.SweepError: a state failed (named), or stored results are for
            another configuration.
    """
    from ..io import write_atomic

    out = Path(out)
    stem = output_stem(config)
    start = time.perf_counter()
    keys = state_order(config.target)
    res = sweep.map(_sweep_task, keys, shared=config.as_dict(),
                    on_result=(lambda k, r, resumed: on_state(r, resumed)) if on_state else None)
    records = [res[k] for k in keys]
    raw_counts = counts_from_records(records)
    raw = table_from_outcomes(raw_counts, config.target)
    counts = pool_symmetric(raw_counts) if pool else raw_counts
    table = table_from_outcomes(counts, config.target) if pool else raw
    se = bootstrap_se(raw_counts, config.target, replicates, pool=pool) \
        if replicates > 1 else None
    sym = symmetry_z(raw, bootstrap_se(raw_counts, config.target, replicates, seed=1),
                     config.target) if pool and replicates > 1 else None
    write_atomic(out / f"{stem}.csv", M.table_csv(table).encode())
    values = sorted({u for c in raw_counts.values() for u in c})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["score0", "score1", "dealer", "equity0", "equity0_unpooled", "se", "deals",
                "p_nothing",
                "mean_return0", *[f"u{u}" for u in values]])
    for k in sorted(raw_counts):
        c = raw_counts[k]
        n = sum(c.values())
        w.writerow([*k, f"{table[k]:.12f}", f"{raw[k]:.12f}", f"{se[k]:.6f}" if se else "",
                    n,
                    f"{c.get(0, 0) / n:.6f}", f"{sum(u * v for u, v in c.items()) / n:.6f}",
                    *[c.get(u, 0) for u in values]])
    write_atomic(out / f"{stem}_states.csv", buf.getvalue().encode())
    t = config.target
    states = state_order(t)
    rot2 = max(abs(raw[(a, b, d)] - raw[(a, b, d + 2)]) for a, b in states
               for d in (0, 1))
    swap = max(abs(raw[(a, b, d)] + raw[(b, a, (d + 1) % PLAYERS)] - 1)
               for a, b in states for d in range(PLAYERS))
    dealer_00 = float(np.mean([table[(0, 0, 0)], table[(0, 0, 2)],
                               1 - table[(0, 0, 1)], 1 - table[(0, 0, 3)]]))
    pooled = " (x4 pooled by seat symmetry)" if pool else ""
    heatmap_4p(table, se, t, out / f"{stem}.png",
               f"{stem}: P(team 0 wins the match) before the deal; {config.deals:,} deals per "
               f"state and dealer{pooled}; dealer's team at 0:0 wins {dealer_00:.4f}")
    summary = {
        "config": config.as_dict(), "rules_version": RULES_VERSION,
        "fingerprint": config.fingerprint(), "states": len(records),
        "table_rows": len(table),
        "deals_simulated": sum(sum(c.values()) for c in raw_counts.values()),
        "equity_dealer_team_0_0": dealer_00,
        "equity_team0_0_0_by_dealer": [table[(0, 0, d)] for d in range(PLAYERS)],
        "pooled": pool, "bootstrap_replicates": replicates,
        "max_se": max(se.values()) if se else None,
        "se_0_0": [se[(0, 0, d)] for d in range(PLAYERS)] if se else None,
        "max_dev_rotation2": rot2, "max_dev_team_swap": swap, "symmetry_z_unpooled": sym,
        "simulate_seconds_sum": sum(rec["seconds"] for rec in records),
        "wall_seconds_this_run": time.perf_counter() - start,
        "backend": getattr(sweep, "backend", None),
        "workers": getattr(sweep, "workers", None) if getattr(sweep, "backend", None) == "ray"
        else 1,
    }
    return table, se or {}, summary
