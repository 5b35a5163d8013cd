"""One solver interface: what ``vitou-ai train`` (and any experiment) asks of a solver.

:class:`Solver` is a :class:`typing.Protocol` in the spirit of ``postflop-solver``'s
game / solver traits: iterate, report progress, export the average policy as a
tabular bot (``policy.npz``), evaluate it exactly where the game tree is at hand,
and checkpoint. :func:`make_solver` builds one from a ``vitou-ai train`` solver
name; the families behind it:

- ``cfr`` / ``cfr+`` / ``dcfr`` / ``pcfr+`` / ``pdcfr+``:
  :class:`~vitou_ai.solvers.flat.cfr.TabularCFR` on the flat game tree
  (:class:`FlatTreeSolver`);
- ``public-cfr`` / ``public-cfr+`` / ``public-dcfr`` / ``public-pcfr+`` / ``public-pdcfr+``:
  range-vector CFR on the public tree
  (:class:`~vitou_ai.solvers.public.cfr.PublicCFR`, :class:`PublicTreeSolver`); four
  players also get the pooled team best response
  (:mod:`vitou_ai.solvers.public.team`);
- ``es-mccfr`` / ``os-mccfr``: :class:`~vitou_ai.solvers.sampling.mccfr.MCCFR` on the kernel
  (:class:`MCCFRSolver`);
- ``openspiel-*``: OpenSpiel's C++ solvers on ``python_vitou``
  (:class:`OpenSpielTreeSolver`).

Exact evaluation keys (points per deal): two players ``exploitability`` and
``game_value`` (seat 0's expected return under the average policy); four
players ``nash_conv`` and, per team, ``team{t}_br_gain`` (alternating partners'
best responses: a lower bound on the team's gain) and ``team{t}_pooled_gain`` (the
pooled team: an upper bound).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..rules.params import VitouParams
from .registry import SOLVERS, names

#: the solver names of each family (:data:`vitou_ai.solvers.registry.SOLVERS`)
FLAT = names("flat")
PUBLIC = names("public")
SAMPLING = names("sampling")
OPENSPIEL = names("openspiel")


@runtime_checkable
class Solver(Protocol):
    """A solver as the training loop sees it.

    Attributes:
        name: the ``vitou-ai train`` solver name.
        params: the game.
        resumable: whether :meth:`save` writes a checkpoint that :meth:`load`
            continues exactly.
    """

    name: str
    params: VitouParams
    resumable: bool

    @property
    def iterations_done(self) -> int: ...

    @property
    def nodes_touched(self) -> int | None:
        """Nodes the iterations visited so far (``None`` if the solver does not count)."""

    @property
    def table_size(self) -> int | None:
        """Information states in a sampling solver's table (``None`` for tree solvers)."""

    def iterate(self, n: int) -> None:
        """Run ``n`` more iterations.

        Raises:
            ValueError: ``n`` is not a whole number >= 0."""

    def solver_seconds(self) -> float:
        """Wall seconds spent in :meth:`iterate`, over all sessions."""

    def tabular_policy(self, name: str):
        """The average policy as a :class:`~vitou_ai.bots.tabular.TabularPolicy`."""

    def exact_evaluation(self) -> dict[str, float] | None:
        """The average policy's exact exploitability figures (module docstring), or
        ``None`` when no game tree is at hand."""

    def save(self, path: str | Path) -> None:
        """Write a checkpoint atomically."""

    def load(self, path: str | Path) -> None:
        """Resume from a checkpoint (:class:`~vitou_ai.solvers.flat.cfr.CheckpointError` if it
        belongs to another game or solver)."""


def _flat_exact(tree, policy: np.ndarray) -> dict[str, float]:
    from .flat.evaluate import (
        EvaluationBuffers,
        best_response,
        expected_returns,
        nash_conv,
        pooled_team_best_response,
        team_best_response,
    )

    if tree.num_players == 2:
        u = expected_returns(tree, policy)
        work = EvaluationBuffers(tree)
        conv = sum(best_response(tree, policy, p, work)[0] - u[p] for p in range(2))
        return {"exploitability": float(conv) / 2, "game_value": float(u[0])}
    u = expected_returns(tree, policy)
    if tree.per_seat:  # each for themselves (P7.0): no teams to bracket
        conv = nash_conv(tree, policy)
        return {"nash_conv": conv, "exploitability": conv / tree.num_players,
                **{f"seat{s}_value": float(u[s]) for s in range(tree.num_players)}}
    return {"nash_conv": nash_conv(tree, policy),
            "team0_br_gain": team_best_response(tree, policy, 0).gain,
            "team1_br_gain": team_best_response(tree, policy, 1).gain,
            "team0_pooled_gain": pooled_team_best_response(tree, policy, 0) - u[0],
            "team1_pooled_gain": pooled_team_best_response(tree, policy, 1) - u[1]}


def _flat_tabular(params: VitouParams, keys, nact, actions, pol, name: str):
    from ..bots.tabular import TabularPolicy

    probs = np.zeros((keys.shape[0], params.num_actions), np.float32)
    rows = np.repeat(np.arange(keys.shape[0]), nact.astype(np.int64))
    slots = np.concatenate([np.arange(m) for m in nact]) if len(nact) else np.zeros(0, int)
    probs[rows, actions[rows, slots].astype(np.int64)] = pol[rows, slots]
    return TabularPolicy(keys, probs, name=name, params=params)


def check_iterations(n: Any) -> None:
    """Refuse an iteration count that is not a whole number >= 0 (``-1`` used to run
    nothing, silently)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"iterate: the number of iterations must be a whole number >= 0, "
                         f"got {n!r}")


class _Common:
    """What every family shares: iteration counters and checkpoints of ``self.solver``."""

    solver: Any
    resumable = True

    @property
    def iterations_done(self) -> int:
        return self.solver.iteration

    @property
    def nodes_touched(self) -> int | None:
        return getattr(self.solver, "nodes_touched", None)

    @property
    def table_size(self) -> int | None:
        return None

    def iterate(self, n: int) -> None:
        check_iterations(n)
        self.solver.iterate(n)

    def solver_seconds(self) -> float:
        return self.solver.seconds

    def save(self, path: str | Path) -> None:
        self.solver.save(path)

    def load(self, path: str | Path) -> None:
        self.solver.load(path)


class FlatTreeSolver(_Common):
    """CFR / CFR+ / DCFR on the flat game tree (:class:`~vitou_ai.solvers.flat.tree.GameTree`)."""

    def __init__(self, name: str, params: VitouParams, tree, **discounts: float):
        from .flat.cfr import TabularCFR

        self.name, self.params, self.tree = name, params, tree
        self.solver = TabularCFR(tree, name, **discounts)

    def tabular_policy(self, name: str):
        t = self.tree
        return _flat_tabular(self.params, t.is_keys, t.is_nact, t.is_actions,
                             self.solver.average_policy(), name)

    def exact_evaluation(self) -> dict[str, float] | None:
        return _flat_exact(self.tree, self.solver.average_policy())


class PublicTreeSolver(_Common):
    """Range-vector CFR / CFR+ / DCFR on the public tree
    (:class:`~vitou_ai.solvers.public.tree.PublicTree`)."""

    def __init__(self, name: str, params: VitouParams, tree, tables: str = "float64",
                 **discounts: float):
        from .public.cfr import PublicCFR

        self.name, self.params, self.tree = name, params, tree
        self.solver = PublicCFR(tree, name.removeprefix("public-"), tables=tables,
                                **discounts)
        self._team = None

    def tabular_policy(self, name: str):
        from .public.export import to_tabular_policy

        return to_tabular_policy(self.tree, self.solver.average_policy(), name=name)

    def exact_evaluation(self) -> dict[str, float] | None:
        from .public import team as PT

        s = self.solver
        if self.tree.num_players == 2:
            u = s.expected_returns()
            conv = sum(s.best_response_value(p) - u[p] for p in range(2))
            return {"exploitability": float(conv) / 2, "game_value": float(u[0])}
        if self._team is None:
            self._team = PT.TeamPasses(self.tree)
        pol = s.average_policy()
        out = {"nash_conv": PT.nash_conv(self.tree, pol, self._team)}
        for t in (0, 1):
            b = PT.team_bracket(self.tree, pol, t, passes=self._team)
            out[f"team{t}_br_gain"] = b.gain_lower
            out[f"team{t}_pooled_gain"] = b.gain_upper
        return out


class MCCFRSolver(_Common):
    """External- or outcome-sampling MCCFR on the kernel; exact evaluation on ``tree``
    (a flat tree) when one is given."""

    def __init__(self, name: str, params: VitouParams, tree, seed: int, max_infosets: int):
        from .sampling.mccfr import MCCFR

        self.name, self.params, self.tree = name, params, tree
        self.solver = MCCFR(params, "external" if name == "es-mccfr" else "outcome",
                            seed=seed, max_infosets=max_infosets)

    @property
    def table_size(self) -> int | None:
        return self.solver.num_infosets

    def tabular_policy(self, name: str):
        s = self.solver
        n = s.num_infosets
        return _flat_tabular(self.params, s.keys[:n], s.nact[:n], s.actions[:n],
                             s.average_policy(), name)

    def exact_evaluation(self) -> dict[str, float] | None:
        if self.tree is None:
            return None
        return _flat_exact(self.tree, self.solver.policy_on_tree(self.tree))


class OpenSpielTreeSolver(_Common):
    """OpenSpiel's C++ CFR / CFR+ / MCCFR on ``python_vitou``; exact evaluation and the
    tabular export on the flat ``tree``."""

    def __init__(self, name: str, params: VitouParams, tree, seed: int):
        from .openspiel_solvers import RESUMABLE, OpenSpielSolver

        self.name, self.params, self.tree = name, params, tree
        self.solver = OpenSpielSolver(name, params, seed)
        self.resumable = name in RESUMABLE

    def _policy(self) -> np.ndarray:
        from .flat.export import from_openspiel_table

        return from_openspiel_table(self.tree, self.solver.average_policy_table())

    def tabular_policy(self, name: str):
        t = self.tree
        return _flat_tabular(self.params, t.is_keys, t.is_nact, t.is_actions, self._policy(),
                             name)

    def exact_evaluation(self) -> dict[str, float] | None:
        return _flat_exact(self.tree, self._policy())


def make_solver(name: str, params: VitouParams, tree=None, seed: int = 0,
                max_infosets: int = 1 << 22, tables: str = "float64",
                **discounts: float) -> Solver:
    """The solver ``name`` (a ``vitou-ai train`` solver name) for ``params``.

    Args:
        tree: the flat game tree (flat-tree and OpenSpiel solvers; optional for MCCFR,
            for exact evaluation) or the public tree (public-tree solvers).
        tables: the public-tree solvers' table type, ``"float64"`` or ``"float32"``
            (:data:`~vitou_ai.solvers.public.cfr.TABLE_DTYPES`); the other solvers take
            only ``"float64"``.
        discounts: ``alpha``, ``beta``, ``gamma`` of DCFR (Brown & Sandholm 2019,
            section 3) for the flat- and public-tree solvers; their defaults otherwise.

    Raises:
        ValueError: an unknown name, a tree of the wrong kind for it or of another game
            than ``params``, discounts given to a solver without them, a discount that
            is not ``alpha`` / ``beta`` / ``gamma`` or not a finite number; compact
            ``tables`` for a solver off the public tree, or an unknown table type; a ``seed``
            out of ``0 .. 2**31-1`` (every solver: the range of ``--seed``,
            :func:`vitou_ai.rng.check_seed`); sampling solvers: a table of
            ``max_infosets`` rows larger than the memory available
            (:class:`vitou_ai.resources.ResourceError`).
        TypeError: a ``seed`` that is not a whole number (``True``, ``1.5``).

    Examples:
        >>> import vitou_ai
        >>> params = vitou_ai.VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1,
        ...                               dealer=-1)
        >>> solver = vitou_ai.make_solver("dcfr", params, tree=vitou_ai.build_tree(params))
        >>> solver.iterate(300)
        >>> round(solver.exact_evaluation()["exploitability"], 4)
        0.0004
    """
    import math

    from ..rng import check_seed

    # one seed range for every solver, the flags': a float used to be truncated (1, 1.5
    # and 1.9 gave one policy) and 2**63 overflowed in the sampling solvers
    seed = check_seed(seed)
    if name not in FLAT + PUBLIC + SAMPLING and not name.startswith("openspiel-"):
        raise ValueError(f"unknown solver {name!r}; expected one of "
                         f"{', '.join(FLAT + PUBLIC + SAMPLING)} or openspiel-*")
    if tables != "float64":
        from .public.cfr import check_tables

        check_tables(tables)
        if name not in PUBLIC:
            raise ValueError(f"solver {name}: compact tables ({tables}) are an option of the "
                             f"public-tree solvers only ({', '.join(PUBLIC)})")
    if discounts and not (name in SOLVERS and SOLVERS[name].discounts):
        raise ValueError(f"solver {name} takes no DCFR discounts ({', '.join(discounts)})")
    for k, v in discounts.items():
        if k not in ("alpha", "beta", "gamma"):
            raise ValueError(f"unknown DCFR discount {k!r}; expected alpha, beta or gamma")
        if not math.isfinite(v):
            raise ValueError(f"DCFR discount {k} must be a finite number, got {v}")
    from .public.tree import PublicTree

    public = isinstance(tree, PublicTree)
    if tree is not None and name in FLAT + PUBLIC and tree.params != params:
        # the tables are the tree's: a solver told another game would write a policy
        # and a checkpoint labelled with the wrong game
        import dataclasses

        diff = ", ".join(f"{f.name} {getattr(tree.params, f.name)!r} != "
                         f"{getattr(params, f.name)!r}" for f in dataclasses.fields(params)
                         if getattr(tree.params, f.name) != getattr(params, f.name))
        raise ValueError(f"solver {name}: the tree is of another game than params "
                         f"(tree's {diff or type(tree.params).__name__})")
    if name in PUBLIC:
        if not public:
            raise ValueError(f"solver {name} needs a public tree (public_tree.build_public_tree)")
        return PublicTreeSolver(name, params, tree, tables, **discounts)
    if public:
        raise ValueError(f"solver {name} runs on the flat game tree, not a public tree")
    if name in FLAT:
        if tree is None:
            raise ValueError(f"solver {name} needs the game tree (tree.build_tree)")
        return FlatTreeSolver(name, params, tree, **discounts)
    if name in SAMPLING:
        return MCCFRSolver(name, params, tree, seed, max_infosets)
    if name.startswith("openspiel-"):
        if tree is None:
            raise ValueError(f"solver {name} needs the game tree (tree.build_tree)")
        return OpenSpielTreeSolver(name, params, tree, seed)
    raise ValueError(f"unknown solver {name!r}; expected one of "
                     f"{', '.join(FLAT + PUBLIC + SAMPLING)} or openspiel-*")


def tree_summary(tree) -> tuple[dict[str, int], str]:
    """(record, text) describing a flat or public tree for ``run.json`` and the log."""
    from .public.tree import PublicTree

    if isinstance(tree, PublicTree):
        return ({"public_nodes": tree.num_nodes, "entries": tree.num_entries},
                f"public tree {tree.num_nodes:,} nodes, {tree.num_entries:,} entries")
    return ({"nodes": tree.num_nodes, "infosets": tree.num_infosets},
            f"tree {tree.num_nodes:,} nodes, {tree.num_infosets:,} infosets")
