"""The match-equity table of two-player Vitou (``vitou_2p``), solved exactly.

``E(a, b, d)`` is the probability that seat 0 wins the match when seat 0 has ``a``
points, seat 1 has ``b`` (both below the target ``T``) and seat ``d`` deals the next
deal, both players playing an equilibrium of the match. A match is a sequence of
deals (R8.2) and the deal passes to the left after every deal (R1.3), so

    E(a, b, d) = value of the deal at scores (a, b), dealer d, whose terminal
                 payoff is E(score after the deal, 1 - d),

with ``E = 1`` once seat 0 reaches ``T`` and ``0`` once seat 1 does. Each deal is
solved as a zero-sum game on the deal's game tree built by the rules kernel in deal
mode at those scores, so R6 / R9.3 (one point from the end: no raises, ``go`` or
``decline``) and the capped returns of R8.1 come from the kernel. A deal adds to
at most one side's score (R5, R9), and team 0's return in deal mode, ``u``, is
``min(points, T - scorer's score)`` signed, so the score after the deal is
``(a + u, b)`` if ``u > 0`` and ``(a, b - u)`` if ``u < 0``: the terminal points
alone say where the match goes (:func:`equity_after`).

Scores only grow, except after a deal that scores nothing (all void, abandoned,
R6.2 passed): then the match goes on at ``(a, b)`` with the other dealer. So the
two states ``(a, b, 0)`` and ``(a, b, 1)`` depend on each other and on states of a
larger total only; they are solved together as a fixed point
(:func:`solve_fixed_point`), and the states are processed in waves of ``a + b``
descending (states of one total are independent). Through a sweep
(:mod:`vitou_ai.match_equity.sweep`, :func:`run_table`) a state starts as soon as the
states it can lead to are solved (:func:`state_dependencies`), not when its wave does.

Payoffs: team 0's utility at a terminal is ``E(next) - 1/2`` (zero-sum: seat 1's
equity is ``1 - E``), so values and exploitabilities are in match-equity units
(probability of winning the match). The hook that replaces points by equities is
:func:`vitou_ai.solvers.payoffs.with_terminal_utility`, used alike by the flat-tree
CFR (:mod:`vitou_ai.solvers.flat.cfr`) and the public-tree CFR
(:mod:`vitou_ai.solvers.public.cfr`).

Seat symmetry: swapping the two seats maps ``(a, b, d)`` to ``(b, a, 1 - d)``, so
``E(b, a, d) = 1 - E(a, b, 1 - d)``. With ``mirror=True`` (the default) only the
states with ``a <= b`` are solved and the others are written by this identity;
``mirror=False`` solves every state (a check of the identity, at twice the cost).

One module because its parts are one pipeline over one :class:`EquityConfig` (solve a
state, join the table, write its files, derive the score-conditioned policies), and
:mod:`vitou_ai.match_equity.four_player` and :mod:`vitou_ai.match_equity.score_rates`
use it as one namespace (``M.iterate_values``, ``M.table_csv``, ``M.state_policy``...).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..bots.tabular import read_npz
from ..capabilities import UnsupportedGameError, require
from ..rules.params import RULES_VERSION, VitouParams, carried_over_versions
from ..solvers.payoffs import KIND_TERMINAL, with_terminal_utility

SOLVERS = ("flat", "public")
VARIANTS = ("cfr", "cfr+", "dcfr")
CSV_COLUMNS = ("score0", "score1", "dealer", "equity0")


class MatchEquityError(ValueError):
    """Bad input to a match-equity computation (one line, says what and where)."""


@dataclass(frozen=True)
class TableConfig:
    """What the match-equity configurations share (:class:`EquityConfig`, and the
    four-player :class:`~vitou_ai.match_equity.four_player.Config4p`): the deal at a score state,
    the check that it is a valid game, the record and the fingerprint of a stored result.

    A subclass is a frozen dataclass with the fields ``profile`` and ``target`` and
    gives the deal's other knobs in :meth:`_game_knobs`.
    """

    def _game_knobs(self) -> dict:
        """``VitouParams`` keywords of the game, besides ``dealer``, ``scores``, ``mode``."""
        raise NotImplementedError

    def _check_game(self) -> None:
        """Raise :class:`MatchEquityError` (one line) unless the deal at 0:0 is a valid game."""
        try:
            self.deal_params((0, 0), 0)
        except ValueError as e:
            raise MatchEquityError(str(e)) from None

    def deal_params(self, scores: tuple[int, int], dealer: int) -> VitouParams:
        """The deal at ``scores`` (seat or team 0, seat or team 1) with ``dealer`` in deal
        mode (R8.1).

        Raises:
            ValueError: a score outside ``0 .. target-1`` (from ``VitouParams``).
        """
        return VitouParams(**self._game_knobs(), dealer=dealer, scores=tuple(scores),
                           mode="deal")

    def as_dict(self) -> dict:
        return asdict(self)

    def _fingerprint_extra(self) -> dict:
        """What else a stored result is for, besides the fields (none here)."""
        return {}

    def fingerprint(self, rules_version: str = RULES_VERSION) -> str:
        """SHA-256 (first 16 hex digits) of the configuration, :meth:`_fingerprint_extra`
        and the rules version (what a stored result is for)."""
        text = json.dumps({**self.as_dict(), **self._fingerprint_extra(),
                           "rules_version": rules_version}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def earlier_fingerprints(self) -> tuple[str, ...]:
        """The fingerprints this configuration had under the earlier rules versions whose
        files carry over (:func:`~vitou_ai.rules.params.carried_over_versions`): a task
        folder written under them resumes (a stored deal was solved by the same rules)."""
        players = VitouParams(profile=self.profile).players
        return tuple(self.fingerprint(v) for v in carried_over_versions(players))


@dataclass(frozen=True)
class EquityConfig(TableConfig):
    """What a match-equity table is computed for and how precisely.

    Attributes:
        profile: only ``"vitou_2p"`` (the four-player table, approximately:
            :mod:`vitou_ai.match_equity.four_player`).
        target: points that win the match, 2 .. 99 (the profile's 12 by default).
        ranks, copies, hand_size, early_end: the deal's knobs (``VitouParams``).
        tol: exploitability (match-equity units, i.e. probability of winning the
            match; OpenSpiel's definition, NashConv / 2) each deal is solved to.
        fixed_point_tol: the fixed point of a state and its redeal partner is
            iterated until its value moves by less than this (probability).
        solver: ``"flat"`` (:class:`~vitou_ai.solvers.flat.cfr.TabularCFR`) or ``"public"``
            (:class:`~vitou_ai.solvers.public.cfr.PublicCFR`).
        variant: ``"cfr"``, ``"cfr+"`` or ``"dcfr"``.
        batch: CFR iterations between exploitability checks.
        max_iterations: per deal; a deal not at ``tol`` by then is an error.
        mirror: solve the states with ``score0 <= score1`` only and write the others
            by seat symmetry (module docstring).

    Raises:
        MatchEquityError: on an invalid field.
    """

    profile: str = "vitou_2p"
    target: int = 12
    ranks: int = 8
    copies: int = 4
    hand_size: int = 3
    early_end: str = "card"
    tol: float = 1e-4
    fixed_point_tol: float = 1e-9
    solver: str = "flat"
    variant: str = "dcfr"
    batch: int = 25
    max_iterations: int = 100_000
    mirror: bool = True

    def __post_init__(self) -> None:
        try:
            require("match_equity", self.profile)
        except UnsupportedGameError as e:
            raise MatchEquityError(str(e)) from None
        if self.profile != "vitou_2p":
            raise MatchEquityError(f"profile {self.profile!r}: only the two-player table "
                                   "(vitou_2p) is computed here; the four-player one: "
                                   "python experiments/match_equity_4p.py")
        if self.solver not in SOLVERS:
            raise MatchEquityError(f"unknown solver {self.solver!r}; expected one of {SOLVERS}")
        if self.variant not in VARIANTS:
            raise MatchEquityError(f"unknown CFR variant {self.variant!r}; expected one of "
                                   f"{VARIANTS}")
        if not 0 < self.tol < 1:
            raise MatchEquityError(f"tol must be in (0, 1), got {self.tol}")
        if not 0 < self.fixed_point_tol < 1:
            raise MatchEquityError(f"fixed_point_tol must be in (0, 1), got {self.fixed_point_tol}")
        if self.batch < 1 or self.max_iterations < 1:
            raise MatchEquityError("batch and max_iterations must be at least 1")
        self._check_game()

    def _game_knobs(self) -> dict:
        return {"profile": self.profile, "target": self.target, "ranks": self.ranks,
                "copies": self.copies, "hand_size": self.hand_size,
                "early_end": self.early_end}


def check_scores(scores: Sequence[int], target: int) -> tuple[int, int]:
    """``scores`` as a pair of ints in ``0 .. target-1``.

    Raises:
        MatchEquityError: not two integers, or one outside the range, naming it.
    """
    if len(scores) != 2:
        raise MatchEquityError(f"a score state is two scores, got {list(scores)!r}")
    out = []
    for seat, s in enumerate(scores):
        if isinstance(s, bool) or not isinstance(s, int | np.integer):
            raise MatchEquityError(f"score{seat} must be an integer, got {s!r}")
        if not 0 <= s < target:
            raise MatchEquityError(f"score{seat} = {s} is outside the match: scores before a "
                                   f"deal are 0 .. {target - 1} (target {target})")
        out.append(int(s))
    return out[0], out[1]


# ---- the recursion ----------------------------------------------------------------------


def equity_after(points: np.ndarray, scores: tuple[int, int], dealer: int, target: int,
                 table: dict[tuple[int, int, int], float], next_dealer: int | None = None,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's match equity after each terminal of a deal, except where nothing scored.

    Args:
        points: ``float64[T]``, team 0's return in points at each terminal (deal mode,
            R8.1: ``min(points, target - scorer's score)``, signed).
        scores, dealer: the state before the deal.
        target: the match's target.
        table: ``E(a, b, d)`` of the states reached by a scoring deal (a larger total).
        next_dealer: the dealer of the next deal (R1.3: the deal passes to the left);
            ``None``: ``1 - dealer`` (two players). Four players pass ``(dealer + 1) % 4``
            (:mod:`vitou_ai.match_equity.four_player`).

    Returns:
        (equity, nothing): ``float64[T]`` equity of the state after the deal (1 at a
        match won by seat 0, 0 at one won by seat 1; NaN where nothing scored), and
        ``bool[T]``, the terminals where nothing scored (the match goes on at the
        same scores with dealer ``1 - dealer``, R1.3).

    Raises:
        KeyError: a state the deal reaches is missing from ``table``.
    """
    a, b = scores
    nxt = 1 - dealer if next_dealer is None else next_dealer
    u = np.rint(points).astype(np.int64)
    equity = np.full(u.shape, np.nan)
    cache: dict[int, float] = {}
    for k, v in enumerate(u):
        if v == 0:
            continue
        if v not in cache:
            if v > 0:
                cache[v] = 1.0 if a + v >= target else table[(a + int(v), b, nxt)]
            else:
                cache[v] = 0.0 if b - v >= target else table[(a, b - int(v), nxt)]
        equity[k] = cache[v]
    return equity, u == 0


class _DealSolve:
    """One deal's tree with equity payoffs and its CFR solver (flat or public tree)."""

    def __init__(self, tree, scored: np.ndarray, nothing: np.ndarray, solver: str,
                 variant: str):
        self.scored = np.where(nothing, 0.0, scored) - 0.5
        self.nothing = nothing
        self.tree = with_terminal_utility(tree, lambda pts: self.scored.copy())
        self._term = np.nonzero(self.tree.kind == KIND_TERMINAL)[0]
        self.public = solver == "public"
        if self.public:
            from ..solvers.public.cfr import PublicCFR

            self.cfr = PublicCFR(self.tree, variant)
        else:
            from ..solvers.flat.cfr import TabularCFR

            self.cfr = TabularCFR(self.tree, variant)

    def set_redeal(self, x: float) -> None:
        """Payoff ``x - 1/2`` at the terminals where nothing scored (in place: the solver
        reads ``tree.util`` at every pass)."""
        self.tree.util[self._term] = np.where(self.nothing, x - 0.5, self.scored)

    def _value(self) -> float:
        if self.public:
            return float(self.cfr.expected_returns()[0])
        from ..solvers.flat.evaluate import expected_returns

        return float(expected_returns(self.tree, self.cfr.average_policy())[0])

    def exploitability(self) -> float:
        if self.public:
            return float(self.cfr.exploitability())
        from ..solvers.flat.evaluate import exploitability

        return float(exploitability(self.tree, self.cfr.average_policy()))

    def linear_value(self) -> tuple[float, float]:
        """``(A, P)`` with the average policy held fixed: its value as seat 0's equity is
        ``A + P * x`` when a deal that scores nothing is worth ``x``; ``P`` is the
        probability that nothing is scored."""
        saved = self.tree.util.copy()
        try:
            self.set_redeal(0.0)
            a = self._value() + 0.5
            self.set_redeal(1.0)
            p = self._value() + 0.5 - a
        finally:
            self.tree.util[...] = saved
        return a, p


@dataclass
class FixedPointResult:
    """The solved states of one fixed point (:func:`solve_fixed_point`).

    ``equity``: seat 0's equity of each game; ``exploitability`` (equity units) and
    ``iterations`` per game; ``p_nothing``: probability that the deal scores nothing
    under the solved policy; ``rounds``: solve-then-iterate rounds; ``steps``: value
    iterations of the last round; ``seconds``: of solving, over the runs;
    ``resumed_seconds``: the part of them kept from a checkpoint (0 without one);
    ``policies``: the solvers' average policies.
    """

    equity: list[float]
    exploitability: list[float]
    iterations: list[int]
    p_nothing: list[float]
    rounds: int
    steps: int
    seconds: float
    policies: list[np.ndarray] = field(default_factory=list, repr=False)
    resumed_seconds: float = 0.0


def iterate_values(a: np.ndarray, p: np.ndarray, partner: Sequence[int], x0: np.ndarray,
                   tol: float, max_steps: int = 100_000) -> tuple[np.ndarray, int]:
    """Iterate ``x_i <- a_i + p_i * x_{partner(i)}`` from ``x0`` until no value moves by
    ``tol`` or more.

    Returns:
        (x, steps): the fixed point and the number of steps.

    Raises:
        MatchEquityError: no convergence in ``max_steps`` (a deal that scores nothing
            with probability 1 under the policy makes the value undetermined).
    """
    x = np.array(x0, dtype=np.float64)
    idx = np.asarray(partner)
    for step in range(1, max_steps + 1):
        new = a + p * x[idx]
        moved = float(np.max(np.abs(new - x)))
        x = new
        if moved < tol:
            return x, step
    raise MatchEquityError(f"the fixed point did not converge in {max_steps} steps "
                           f"(probability that nothing is scored: {p.tolist()})")


#: the format of a score state's checkpoint (:func:`solve_fixed_point`)
STATE_CHECKPOINT_FORMAT = "vitou-match-equity-state-1"


def _games_digest(games: Sequence[tuple[object, np.ndarray, np.ndarray]]) -> str:
    """SHA-256 (16 hex digits) of the games' continuation payoffs and scoreless terminals:
    what, beside the configuration and the state, a checkpoint of their solve is for."""
    h = hashlib.sha256()
    for _, eq, nothing in games:
        for a in (eq, nothing):
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def _save_state(path: Path, tag: dict, solves: list[_DealSolve], rounds: int, game: int,
                x: np.ndarray, seconds: float) -> None:
    from ..solvers.checkpoint import save_checkpoint

    meta = {**tag, "round": rounds, "game": game, "x": [float(v) for v in x],
            "seconds": seconds,
            "solvers": [s.cfr.state_counters() for s in solves]}
    save_checkpoint(path, meta, **{f"g{i}_{k}": a for i, s in enumerate(solves)
                                   for k, a in s.cfr.state_tables().items()})


#: what a checkpoint that is not this solve's was written for, by record key
_OTHER_SOLVE = {
    "format": "another kind of file", "rules_version": "other rules",
    "fingerprint": "another configuration of the table (tol, solver, game...)",
    "key": "another score state", "games": "other equities of the states it leads to "
    "(one of them was solved again since)"}

#: one-line notes on checkpoints (the command-line prints them on stderr; Ray forwards a
#: worker's)
log = logging.getLogger("vitou_ai.match_equity")


def _load_state(path: Path, tag: dict, solves: list[_DealSolve]) -> dict | None:
    """Restore the solvers from ``path`` and return where the solve stood (``round``,
    ``game``, ``x``, ``seconds``), or ``None`` (with a warning on :data:`log`) when the
    file is not a checkpoint of this solve: the solve starts afresh and the file is
    overwritten at the next save. A solver's tables are replaced only once the whole
    record is read."""
    from ..solvers.checkpoint import CheckpointError, load_checkpoint

    names = tuple(f"g{i}_{k}" for i, s in enumerate(solves) for k in s.cfr.state_tables())
    try:
        meta, z = load_checkpoint(path, names)
        for k, v in tag.items():
            if meta.get(k) != v:
                why = _OTHER_SOLVE.get(k, f"another {k} ({meta.get(k)!r}, here {v!r})")
                raise CheckpointError(f"{path}: a checkpoint written for {why}")
        where = {"round": int(meta["round"]), "game": int(meta["game"]),
                 "x": np.array(meta["x"], dtype=np.float64),
                 "seconds": float(meta["seconds"])}
        if where["x"].shape != (len(solves),):
            raise CheckpointError(f"{path}: checkpoint x {meta['x']!r} is not one value a game")
        tables = [{k: z[f"g{i}_{k}"] for k in s.cfr.state_tables()}
                  for i, s in enumerate(solves)]
        for s, t in zip(solves, tables, strict=True):  # every shape before any table
            for k, a in s.cfr.state_tables().items():
                if t[k].shape != a.shape:
                    raise CheckpointError(f"{path}: table {k} {t[k].shape} does not match "
                                          f"{a.shape}")
        counters = [{"iteration": int(c["iteration"]), "nodes_touched": int(c["nodes_touched"]),
                     "seconds": float(c["seconds"])} for c in meta["solvers"][:len(solves)]]
        for s, c, t in zip(solves, counters, tables, strict=True):
            s.cfr.restore_state(path, c, t)
    except (CheckpointError, KeyError, IndexError, TypeError, ValueError) as e:
        log.warning("match-equity: %s; solving the state from the start", e)
        return None
    log.warning("match-equity: resuming %s (round %d, %s iterations, %.0f s of solving "
                "kept)", path, where["round"],
                " and ".join(str(s.cfr.iteration) for s in solves), where["seconds"])
    return where


def solve_fixed_point(games: Sequence[tuple[object, np.ndarray, np.ndarray]],
                      partner: Sequence[int], tol: float, fixed_point_tol: float,
                      solver: str = "flat", variant: str = "dcfr", batch: int = 25,
                      max_iterations: int = 100_000, x0: Sequence[float] | None = None,
                      checkpoint: str | Path | None = None, checkpoint_every: float = 600.0,
                      checkpoint_tag: dict | None = None) -> FixedPointResult:
    """Solve deals whose scoreless terminals lead to one another's start.

    Game ``i`` is ``(tree, equity, nothing)``: a deal tree (flat or public, points at
    its terminals), seat 0's equity after each terminal (``float64[T]``, terminals in
    node order; ignored where ``nothing``) and ``bool[T]``, the terminals after which
    the match restarts at game ``partner[i]``. Each round (1) runs CFR on every game,
    with a scoreless terminal paid the current estimate ``x[partner[i]]``, until its
    exploitability is at most ``tol``; (2) holds the average policies fixed, so each
    value is linear in the estimate, ``A_i + P_i x[partner[i]]``, and iterates the
    values until they move by less than ``fixed_point_tol``; (3) stops when every
    game is still within ``tol`` at the new estimates, else goes back to (1)
    (warm: CFR continues from its tables). At the end each ``equity[i]`` is the
    value of a policy that is a ``tol``-equilibrium of the deal whose scoreless
    terminals pay ``equity[partner[i]]``: the fixed point to ``fixed_point_tol``.

    With ``checkpoint`` (a file), the solve is saved there atomically every
    ``checkpoint_every`` seconds of solving (``0``: after every batch): the round, the
    game being solved, the estimate ``x`` and every solver's tables and counters (a
    :func:`~vitou_ai.solvers.checkpoint.save_checkpoint` file, no pickle). A solve that
    finds the file resumes from it to the same iterates, and so the same result, as an
    uninterrupted one; a file that is not a checkpoint of this solve (another
    ``checkpoint_tag``, other continuation payoffs, damaged) is ignored with a warning.
    ``seconds`` then counts the solving kept, over the runs (``resumed_seconds`` the part
    from the checkpoint); up to ``checkpoint_every`` seconds of solving since the last
    save are lost with a kill. Notes go to the logger ``vitou_ai.match_equity`` (one
    line each: resumed, or why a file was not). The caller removes the file once the
    result is stored.

    Raises:
        MatchEquityError: a game not within ``tol`` after ``max_iterations``.
    """
    start = time.perf_counter()
    solves = [_DealSolve(tree, eq, nothing, solver, variant) for tree, eq, nothing in games]
    n = len(solves)
    x = np.full(n, 0.5) if x0 is None else np.array(x0, dtype=np.float64)
    expl = [np.inf] * n
    rounds = steps = first = 0
    carried = 0.0  # seconds of solving kept from earlier runs
    tag = {"format": STATE_CHECKPOINT_FORMAT, "rules_version": RULES_VERSION,
           **(checkpoint_tag or {}), "solver": solver, "variant": variant, "tol": tol,
           "fixed_point_tol": fixed_point_tol, "batch": batch, "partner": list(partner),
           "games": _games_digest(games)}
    if checkpoint is not None:
        checkpoint = Path(checkpoint)
        meta = _load_state(checkpoint, tag, solves) if checkpoint.exists() else None
        if meta is not None:
            rounds, first, x, carried = meta["round"] - 1, meta["game"], meta["x"], meta["seconds"]
    saved = time.perf_counter()
    while True:
        rounds += 1
        for i in range(first, n):
            s = solves[i]
            s.set_redeal(float(x[partner[i]]))
            expl[i] = s.exploitability() if s.cfr.iteration else np.inf
            while expl[i] > tol:
                if s.cfr.iteration >= max_iterations:
                    raise MatchEquityError(
                        f"deal {i} not solved to exploitability {tol:g} in {max_iterations} "
                        f"iterations (at {expl[i]:.3g})")
                s.cfr.iterate(min(batch, max_iterations - s.cfr.iteration))
                expl[i] = s.exploitability()
                if checkpoint is not None and time.perf_counter() - saved >= checkpoint_every:
                    _save_state(checkpoint, tag, solves, rounds, i, x,
                                carried + time.perf_counter() - start)
                    saved = time.perf_counter()
        first = 0
        lin = [s.linear_value() for s in solves]
        a = np.array([v[0] for v in lin])
        p = np.array([v[1] for v in lin])
        x, steps = iterate_values(a, p, partner, x, fixed_point_tol)
        ok = True
        for i, s in enumerate(solves):
            s.set_redeal(float(x[partner[i]]))
            expl[i] = s.exploitability()
            ok &= expl[i] <= tol
        if ok:
            break
    return FixedPointResult(
        equity=[float(v) for v in x], exploitability=[float(e) for e in expl],
        iterations=[int(s.cfr.iteration) for s in solves], p_nothing=[float(v) for v in p],
        rounds=rounds, steps=steps, seconds=carried + time.perf_counter() - start,
        policies=[s.cfr.average_policy() for s in solves], resumed_seconds=carried)


# ---- states, tasks and the table --------------------------------------------------------


def task_keys(config: EquityConfig) -> list[list[tuple[int, int]]]:
    """The tasks in waves: each task is a score pair ``(a, b)`` (both dealers solved
    together); waves by ``a + b`` descending, tasks within a wave independent. With
    ``mirror`` only ``a <= b``."""
    t = config.target
    waves = []
    for total in range(2 * (t - 1), -1, -1):
        wave = [(a, total - a) for a in range(max(0, total - t + 1), min(t - 1, total) + 1)]
        if config.mirror:
            wave = [(a, b) for a, b in wave if a <= b]
        if wave:
            waves.append(wave)
    return waves


def state_dependencies(config: EquityConfig) -> dict[tuple[int, int], set[tuple[int, int]]]:
    """For each task of :func:`task_keys`, the tasks whose equities its deals can lead
    to: a deal raises one seat's score only (R8.1), so ``(a, b)`` waits for every
    ``(a', b)``, ``a' > a``, and ``(a, b')``, ``b' > b``, below the target (as solved
    keys: with ``mirror`` the seat-swapped ``(b, a')``). A superset of what
    :func:`equity_after` reads, whatever the stakes; a lookup outside it raises
    ``KeyError`` rather than read a state not solved."""
    t = config.target

    def key(a, b):
        return (min(a, b), max(a, b)) if config.mirror else (a, b)

    return {(a, b): {key(x, b) for x in range(a + 1, t)} | {key(a, y) for y in range(b + 1, t)}
            for wave in task_keys(config) for a, b in wave}


def state_checkpoint(checkpoint_dir: str | Path, key: Sequence[int]) -> Path:
    """The checkpoint file of score state ``key`` in ``checkpoint_dir``."""
    return Path(checkpoint_dir) / f"state_{int(key[0])}_{int(key[1])}.npz"


def solve_state(config: EquityConfig, key: tuple[int, int],
                table: dict[tuple[int, int, int], float],
                policy_dir: str | Path | None = None,
                checkpoint_dir: str | Path | None = None,
                checkpoint_every: float = 600.0) -> dict:
    """Solve the score state ``key = (a, b)`` for both dealers (a fixed point: a deal
    that scores nothing passes the deal, R1.3).

    Args:
        table: ``E`` of the states of a larger total (the waves before).
        policy_dir: if given, the solved average policies of both dealers are written
            there as ``policy_A_B.npz`` (tabular-policy keys and probabilities,
            :mod:`vitou_ai.bots.tabular`), atomically.
        checkpoint_dir: if given, the solve is checkpointed every ``checkpoint_every``
            seconds to :func:`state_checkpoint` there and resumes from it
            (:func:`solve_fixed_point`); the file stays until the caller removes it.

    Returns:
        A JSON-able record: ``key``, ``rows`` (one per dealer: ``score0``, ``score1``,
        ``dealer``, ``equity0``, ``exploitability``, ``iterations``, ``p_nothing``),
        ``rounds``, ``steps``, ``seconds`` (of solving, over the runs),
        ``resumed_seconds`` (the part of them kept from a checkpoint), ``nodes`` (per
        dealer).

    Raises:
        MatchEquityError: a score outside the match; a deal not solved.
        KeyError: ``table`` lacks a state of a larger total.
    """
    a, b = check_scores(key, config.target)
    if config.solver == "public":
        from ..solvers.public.tree import build_public_tree as build
    else:
        from ..solvers.flat.tree import build_tree as build
    games = []
    for d in (0, 1):
        tree = build(config.deal_params((a, b), d))
        pts = tree.util[tree.kind == KIND_TERMINAL]
        eq, nothing = equity_after(pts, (a, b), d, config.target, table)
        games.append((tree, eq, nothing))
    res = solve_fixed_point(
        games, [1, 0], config.tol, config.fixed_point_tol, config.solver, config.variant,
        config.batch, config.max_iterations,
        checkpoint=None if checkpoint_dir is None else state_checkpoint(checkpoint_dir, key),
        checkpoint_every=checkpoint_every,
        checkpoint_tag={"fingerprint": config.fingerprint(), "key": [a, b]})
    if policy_dir is not None:
        _write_policy(Path(policy_dir) / f"policy_{a}_{b}.npz",
                      [g[0] for g in games], res.policies)
    rows = [{"score0": a, "score1": b, "dealer": d, "equity0": res.equity[d],
             "exploitability": res.exploitability[d], "iterations": res.iterations[d],
             "p_nothing": res.p_nothing[d]} for d in (0, 1)]
    return {"key": [a, b], "rows": rows, "rounds": res.rounds, "steps": res.steps,
            "seconds": res.seconds, "resumed_seconds": res.resumed_seconds,
            "nodes": [int(g[0].kind.shape[0]) for g in games]}


def _tabular_rows(trees, policies) -> tuple[np.ndarray, np.ndarray]:
    from ..bots.tabular import TabularPolicy

    keys, probs = [], []
    for tree, pol in zip(trees, policies, strict=True):
        tp = TabularPolicy.from_compact(tree.is_keys, tree.is_actions, tree.is_nact, pol)
        keys.append(np.asarray(tp.keys))
        probs.append(np.asarray(tp.probs))
    return np.concatenate(keys), np.concatenate(probs)


def _write_policy(path: Path, trees, policies) -> None:
    from ..io import write_atomic

    keys, probs = _tabular_rows(trees, policies)
    buf = io.BytesIO()
    np.savez_compressed(buf, keys=keys, probs=probs)
    write_atomic(path, buf.getvalue())


def mirror_keys(keys: np.ndarray) -> np.ndarray:
    """Information-state keys with the two seats swapped (``int8[M, KEY_SIZE]``): the
    acting seat, the dealer and the two scores; the own hand and the public action
    tokens stay (two players, no gestures). A policy solved at ``(a, b, d)`` plays the
    seat-swapped state ``(b, a, 1 - d)`` through these keys (module docstring)."""
    from ..rules import layout as L

    out = np.array(keys, dtype=np.int8, copy=True)
    out[:, L.K_PLAYER] = 1 - keys[:, L.K_PLAYER]
    out[:, L.K_DEALER] = 1 - keys[:, L.K_DEALER]
    out[:, L.K_SCORE0] = keys[:, L.K_SCORE1]
    out[:, L.K_SCORE1] = keys[:, L.K_SCORE0]
    return out


def read_policies(policy_dir: str | Path, keys: Sequence[tuple[int, int]],
                  mirror: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The policies :func:`solve_state` wrote for ``keys``, concatenated:
    ``(keys int8[M, KEY_SIZE], probs float32[M, NUM_ACTIONS])``; with ``mirror``, also
    the seat-swapped copies (:func:`mirror_keys`) of the states with ``a < b``.

    Raises:
        MatchEquityError: a state's file is missing or unreadable.
    """
    ks, ps = [], []
    for a, b in keys:
        path = Path(policy_dir) / f"policy_{a}_{b}.npz"
        try:
            z = read_npz(path, "state policy")
            ks.append(z["keys"])
            ps.append(z["probs"])
            if mirror and a < b:
                ks.append(mirror_keys(z["keys"]))
                ps.append(z["probs"])
        except (OSError, ValueError, KeyError) as e:
            raise MatchEquityError(f"{path}: cannot read the state's policy ({e})") from None
    return np.concatenate(ks), np.concatenate(ps)


def table_from_records(records: Sequence[dict], config: EquityConfig
                       ) -> dict[tuple[int, int, int], float]:
    """``E(a, b, d)`` from task records, the mirrored states added when ``mirror``."""
    table: dict[tuple[int, int, int], float] = {}
    for rec in records:
        for r in rec["rows"]:
            table[(r["score0"], r["score1"], r["dealer"])] = r["equity0"]
    if config.mirror:
        for (a, b, d), v in list(table.items()):
            if a < b:
                table[(b, a, 1 - d)] = 1.0 - v
    return table


def swap_symmetry(records: Sequence[dict]) -> dict:
    """The seat-swap check of solved states: ``E(a, b, d) + E(b, a, 1 - d) = 1`` (module
    docstring) for every solved deal whose swapped twin was solved too (with ``mirror``
    the diagonal states ``a = b``, whose two dealers are solved separately; the mirrored
    half holds it exactly, by construction).

    The bound of a pair is twice the sum of its two deals' exploitabilities: a profile
    whose exploitability is ``e`` (NashConv / 2) has a value within ``2 e`` of the
    deal's value, and the twins' values add up to 1.

    Returns:
        ``pairs`` (twins checked), ``largest_residual`` (``|E + E_twin - 1|``),
        ``largest_share_of_bound`` (residual / bound), ``within_bound`` (every pair),
        and ``worst``: ``[a, b, d, residual, bound]`` of the largest share (``None``
        without pairs).
    """
    solved = {(r["score0"], r["score1"], r["dealer"]): (r["equity0"], r["exploitability"])
              for rec in records for r in rec["rows"]}
    worst, largest, share, ok = None, 0.0, 0.0, True
    pairs = 0
    for (a, b, d), (v, e) in sorted(solved.items()):
        twin = (b, a, 1 - d)
        if twin not in solved or twin < (a, b, d):
            continue
        pairs += 1
        residual = abs(v + solved[twin][0] - 1.0)
        bound = 2.0 * (e + solved[twin][1])
        ok &= residual <= bound
        largest = max(largest, residual)
        if worst is None or residual / bound > share:
            share, worst = residual / bound, [a, b, d, residual, bound]
    return {"pairs": pairs, "largest_residual": largest, "largest_share_of_bound": share,
            "within_bound": bool(ok), "worst": worst}


def lookup(table: dict[tuple[int, int, int], float], a: int, b: int, d: int,
           target: int) -> float:
    """``E(a, b, d)``, with 1 once seat 0 has reached ``target`` and 0 once seat 1 has."""
    if a >= target:
        return 1.0
    if b >= target:
        return 0.0
    return table[(a, b, d)]


def table_csv(table: dict[tuple[int, int, int], float]) -> str:
    """The table as CSV text, columns :data:`CSV_COLUMNS`, sorted, equities to 12 digits."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for (a, b, d) in sorted(table):
        w.writerow([a, b, d, f"{table[(a, b, d)]:.12f}"])
    return buf.getvalue()


def read_table_csv(path: str | Path) -> dict[tuple[int, int, int], float]:
    """Read a table written by :func:`table_csv`.

    Raises:
        MatchEquityError: missing file, not text, missing columns, or a bad row
            (named by line): not four numbers, an equity outside [0, 1], or a state
            given twice.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise MatchEquityError(f"{path}: cannot read the match-equity table ({e.strerror})") \
            from None
    except UnicodeDecodeError as e:
        raise MatchEquityError(f"{path}: not a match-equity table: not UTF-8 text "
                               f"(byte {e.start})") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:
        raise MatchEquityError(f"{path}: not a match-equity table: {e}") from None
    if not rows or tuple(rows[0]) != CSV_COLUMNS:
        raise MatchEquityError(f"{path}: expected the columns {','.join(CSV_COLUMNS)}")
    table = {}
    for line, r in enumerate(rows[1:], start=2):
        try:
            a, b, d, v = int(r[0]), int(r[1]), int(r[2]), float(r[3])
        except (ValueError, IndexError):
            raise MatchEquityError(f"{path}: line {line}: not a table row: {r!r}") from None
        if not 0.0 <= v <= 1.0:
            raise MatchEquityError(f"{path}: line {line}: equity {r[3]} is not a probability")
        if (a, b, d) in table:
            raise MatchEquityError(f"{path}: line {line}: the state {a}:{b}, dealer {d} is "
                                   "given twice")
        table[(a, b, d)] = v
    return table


def heatmap(table: dict[tuple[int, int, int], float], target: int, path: str | Path,
            title: str) -> None:
    """Draw ``E`` as two heatmaps (seat 0 deals, seat 1 deals) into a PNG, atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io import write_atomic

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), constrained_layout=True)
    for d, ax in enumerate(axes):
        m = np.full((target, target), np.nan)
        for (a, b, dd), v in table.items():
            if dd == d:
                m[a, b] = v
        im = ax.imshow(m, origin="lower", cmap="RdBu", vmin=0, vmax=1)
        ax.set_xlabel("score of seat 1")
        ax.set_ylabel("score of seat 0")
        ax.set_title(f"seat {d} deals")
        if target <= 15:
            for a in range(target):
                for b in range(target):
                    if not np.isnan(m[a, b]):
                        ax.text(b, a, f"{m[a, b]:.2f}"[1:] if m[a, b] < 1 else "1",
                                ha="center", va="center", fontsize=6)
    fig.colorbar(im, ax=axes, label="P(seat 0 wins the match)")
    fig.suptitle(title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    write_atomic(Path(path), buf.getvalue())


def compute_table(config: EquityConfig, run_task: Callable[[list[tuple[int, int]], dict],
                                                            list[dict]] | None = None,
                  ) -> tuple[dict[tuple[int, int, int], float], list[dict]]:
    """The whole table, wave by wave, serially in this process (``run_task`` maps a
    wave's keys and the table so far to their records; :mod:`vitou_ai.match_equity.sweep` passes
    its runner).

    Returns:
        (table, records).

    Examples:
        >>> import vitou_ai
        >>> config = vitou_ai.EquityConfig(target=2, ranks=4, copies=2, hand_size=1)
        >>> table, records = vitou_ai.match_equity_table(config)
        >>> round(table[(0, 0, 0)], 4), len(records)
        (0.5, 3)
    """
    records: list[dict] = []
    table: dict[tuple[int, int, int], float] = {}
    for wave in task_keys(config):
        if run_task is None:
            recs = [solve_state(config, k, table) for k in wave]
        else:
            recs = run_task(wave, table)
        records.extend(recs)
        table = table_from_records(records, config)
    return table, records


# ---- a whole table through a sweep (vitou_ai.match_equity.sweep), with its output files -----


def output_stem(config: EquityConfig) -> str:
    """File stem of a table: ``vitou_2p`` for the game as played (8 ranks x 4, 3 cards,
    target 12), else the knobs that differ, e.g. ``vitou_2p_hand2``."""
    base = EquityConfig()
    parts = [config.profile]
    for name, tag in (("ranks", "ranks"), ("copies", "copies"), ("hand_size", "hand"),
                      ("target", "target"), ("early_end", "end")):
        if getattr(config, name) != getattr(base, name):
            parts.append(f"{tag}{getattr(config, name)}")
    return "_".join(parts)


def _sweep_task(key, seed, shared) -> dict:  # noqa: ARG001 - CFR draws no random numbers
    """One sweep task: :func:`solve_state` of ``key`` (``shared``: the configuration as
    a dict, the table so far as ``[a, b, d, equity]`` rows, then optionally the policy
    folder, the checkpoint folder and the seconds between checkpoints)."""
    config_dict, items, *rest = shared
    policy_dir, checkpoint_dir, every = (*rest, None, None, 600.0)[:3]
    table = {(int(a), int(b), int(d)): float(v) for a, b, d, v in items}
    return solve_state(EquityConfig(**config_dict), (int(key[0]), int(key[1])), table,
                       policy_dir, checkpoint_dir, every)


def run_table(config: EquityConfig, out: str | Path, sweep,
              on_state: Callable[[dict, bool], None] | None = None,
              policy_dir: str | Path | None = None,
              checkpoint_every: float | None = None) -> dict:
    """Compute the table through ``sweep`` (a :class:`vitou_ai.match_equity.sweep.Sweep`
    whose result folder holds one file per score state), each state as soon as the
    states it leads to are solved (:func:`state_dependencies`,
    :meth:`~vitou_ai.match_equity.sweep.Sweep.map_after`), and write into ``out``:
    ``<stem>.csv`` (:data:`CSV_COLUMNS`), ``<stem>_states.csv`` (per state and dealer:
    exploitability, iterations, probability that nothing is scored, seconds),
    ``<stem>.png`` (heatmap) and ``<stem>.json`` (summary); with ``policy_dir``, each
    state's solved policies (:func:`solve_state`).

    With ``checkpoint_every`` (seconds), each state being solved is checkpointed that
    often into ``out/partial_<stem>/`` (:func:`state_checkpoint`), so that a run stopped
    mid-state resumes there; a state's file is removed once its result is stored, the
    folder once the table is done.

    Returns:
        The summary: configuration, ``rules_version``, fingerprint, the deal's value
        at 0:0 (``equity_dealer_0_0``: the dealer's probability of winning the match),
        the largest exploitability, seconds of solving (sum over states) and wall time.

    Raises:
        vitou_ai.match_equity.sweep.SweepError: a state failed (named), or stored results are for
            another configuration.
    """
    from ..io import write_atomic

    out = Path(out)
    stem = output_stem(config)
    start = time.perf_counter()

    # absolute: Ray's workers write the checkpoints, from their own working folder (on a
    # cluster, ``out`` must be on a filesystem the nodes share for a state to resume)
    partial = None if checkpoint_every is None else out.resolve() / f"partial_{stem}"

    def shared(results):  # the task's arguments: the table of the states solved so far
        table = table_from_records(list(results.values()), config)
        return (config.as_dict(), [[a, b, d, v] for (a, b, d), v in sorted(table.items())],
                None if policy_dir is None else str(policy_dir),
                None if partial is None else str(partial),
                600.0 if checkpoint_every is None else float(checkpoint_every))

    def stored(key, rec, resumed):
        if partial is not None:  # the result is stored: its checkpoint is spent, and a
            # temporary file a kill left mid-write (vitou_ai.io.write_atomic) too
            spent = state_checkpoint(partial, key)
            for f in (spent, *partial.glob(f".{spent.name}.*.tmp")):
                f.unlink(missing_ok=True)
        if on_state:
            on_state(rec, resumed)

    keys = [tuple(k) for wave in task_keys(config) for k in wave]
    res = sweep.map_after(_sweep_task, keys, state_dependencies(config), shared, stored)
    records = [res[k] for k in keys]
    table = table_from_records(records, config)
    if partial is not None and partial.is_dir() and not any(partial.iterdir()):
        partial.rmdir()
    wall = time.perf_counter() - start
    write_atomic(out / f"{stem}.csv", table_csv(table).encode())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["score0", "score1", "dealer", "equity0", "exploitability", "iterations",
                "p_nothing", "task_seconds"])
    for rec in sorted(records, key=lambda r: tuple(r["key"])):
        for r in rec["rows"]:
            w.writerow([r["score0"], r["score1"], r["dealer"], f"{r['equity0']:.12f}",
                        f"{r['exploitability']:.3e}", r["iterations"],
                        f"{r['p_nothing']:.6f}", f"{rec['seconds']:.2f}"])
    write_atomic(out / f"{stem}_states.csv", buf.getvalue().encode())
    t = config.target
    dealer_00 = 1.0 - table[(0, 0, 1)]  # seat 1 deals; E is seat 0's equity
    heatmap(table, t, out / f"{stem}.png",
            f"{stem}: P(seat 0 wins the match) before the deal "
            f"(dealer at 0:0 wins {dealer_00:.4f})")
    summary = {
        "config": config.as_dict(), "rules_version": RULES_VERSION,
        "fingerprint": config.fingerprint(), "states_solved": len(records),
        "table_rows": len(table),
        "equity_dealer_0_0": dealer_00,
        "equity_seat0_0_0": {"seat0_deals": table[(0, 0, 0)],
                             "seat1_deals": table[(0, 0, 1)]},
        "max_exploitability": max(r["exploitability"] for rec in records
                                  for r in rec["rows"]),
        "swap_symmetry": swap_symmetry(records),
        "solve_seconds_sum": sum(rec["seconds"] for rec in records),
        "wall_seconds_this_run": wall,
        "backend": getattr(sweep, "backend", None),
        "workers": getattr(sweep, "workers", None),
    }
    write_atomic(out / f"{stem}.json", (json.dumps(summary, indent=1) + "\n").encode())
    return summary


# ---- score-conditioned policies (match objective, or points per deal at every score) ----


def _solve_points(tree, variant: str, tol: float, batch: int, max_iterations: int):
    """CFR on the deal in points (R8.1 at the deal's scores) until exploitability <= tol."""
    from ..solvers.flat.cfr import TabularCFR
    from ..solvers.flat.evaluate import exploitability

    cfr = TabularCFR(tree, variant)
    while True:
        cfr.iterate(batch)
        pol = cfr.average_policy()
        if exploitability(tree, pol) <= tol:
            return pol
        if cfr.iteration >= max_iterations:
            raise MatchEquityError(f"deal at {tree.params.scores} not solved to {tol:g} points "
                                   f"in {max_iterations} iterations")


def state_policy(config: EquityConfig, key: tuple[int, int],
                 table: dict[tuple[int, int, int], float], objective: str = "match",
                 points_tol: float | None = None):
    """The solved policies of score state ``key`` (both dealers) in the tabular-policy
    form of :mod:`vitou_ai.bots.tabular`: ``(keys int8[M, KEY_SIZE], probs
    float32[M, NUM_ACTIONS])``. The information-state keys hold the scores and the
    dealer, so the policies of all states concatenate into one score-conditioned policy.

    Args:
        objective: ``"match"`` (the deal solved with match-equity payoffs, as in
            :func:`solve_state`: the same deterministic solve, so the same policy as
            the table's) or ``"points"`` (points per deal, R8.1, to ``points_tol``,
            default ``tol * target``).
    """
    from ..solvers.flat.tree import build_tree

    a, b = check_scores(key, config.target)
    trees = [build_tree(config.deal_params((a, b), d)) for d in (0, 1)]
    if objective == "match":
        games = []
        for d, tree in enumerate(trees):
            eq, nothing = equity_after(tree.util[tree.kind == KIND_TERMINAL], (a, b), d,
                                       config.target, table)
            games.append((tree, eq, nothing))
        res = solve_fixed_point(games, [1, 0], config.tol, config.fixed_point_tol, "flat",
                                config.variant, config.batch, config.max_iterations)
        pols = res.policies
    elif objective == "points":
        tol = points_tol if points_tol is not None else config.tol * config.target
        pols = [_solve_points(t, config.variant, tol, config.batch, config.max_iterations)
                for t in trees]
    else:
        raise MatchEquityError(f"unknown objective {objective!r}; expected 'match' or 'points'")
    return _tabular_rows(trees, pols)


def reachable_states(start: tuple[int, int], target: int) -> list[tuple[int, int]]:
    """Every score pair below ``target`` reachable from ``start`` (scores only grow)."""
    a0, b0 = start
    return [(a, b) for a in range(a0, target) for b in range(b0, target)]
