"""The solvers by name, written once: ``vitou-ai train --solver`` choices,
:func:`vitou_ai.solvers.protocol.make_solver`, the trainers of :mod:`vitou_ai.training`
and the OpenSpiel wrapper's list of resumable solvers all read :data:`SOLVERS`.

Each entry says the solver's family (which tree or table it runs on), the tool of the
games x tools matrix it needs (:data:`vitou_ai.capabilities.TOOLS`; the matrix sits
below the solvers in the package's layers, so it cannot read this table: a test checks
that every tool named here is one of its columns), whether a checkpoint continues the
same run exactly, and its defaults.

Example:
    >>> from vitou_ai.solvers.registry import SOLVERS, names
    >>> SOLVERS["public-dcfr"].family, SOLVERS["public-dcfr"].tool
    ('public', 'public_tree')
    >>> names("sampling")
    ('es-mccfr', 'os-mccfr')
"""

from __future__ import annotations

from dataclasses import dataclass

#: the families, in the order of the ``--solver`` choices
FAMILIES = ("flat", "public", "sampling", "openspiel", "abstract")


@dataclass(frozen=True)
class SolverSpec:
    """One solver name of ``vitou-ai train --solver``.

    Attributes:
        name: the name as typed (``"dcfr"``, ``"openspiel-es-mccfr"``).
        family: one of :data:`FAMILIES`: ``flat`` (CFR on the flat game tree,
            :mod:`vitou_ai.solvers.flat`), ``public`` (range-vector CFR on the public
            tree, :mod:`vitou_ai.solvers.public`), ``sampling`` (MCCFR on the kernel,
            :mod:`vitou_ai.solvers.sampling.mccfr`), ``openspiel`` (OpenSpiel's C++ solvers
            on ``python_vitou``), ``abstract`` (abstract MCCFR of four players,
            :mod:`vitou_ai.solvers.sampling.mccfr_abstract`; not built by ``make_solver``:
            its trainer is :mod:`vitou_ai.training.abstract`).
        tool: the column of :data:`vitou_ai.capabilities.MATRIX` the solver needs
            (``flat_tree``, ``public_tree``, ``mccfr``, ``abstract``).
        resumable: a checkpoint continues the same run exactly (OpenSpiel's CFR+ read
            back does not, :mod:`vitou_ai.solvers.openspiel_solvers`).
        tree: the tree the solver needs (``"flat"``, ``"public"``), or ``None`` (a
            sampling solver: a flat tree only for the exact evaluation).
        discounts: takes DCFR's ``alpha``, ``beta``, ``gamma`` (Brown & Sandholm 2019,
            section 3).
        native: numba kernels of this package (a first run after an install compiles).
        iterations: ``vitou-ai train``'s default ``--iterations``.
    """

    name: str
    family: str
    tool: str
    resumable: bool = True
    tree: str | None = "flat"
    discounts: bool = False
    native: bool = True
    iterations: int = 1000


def _specs() -> dict[str, SolverSpec]:
    out = [
        SolverSpec("cfr", "flat", "flat_tree"),
        SolverSpec("cfr+", "flat", "flat_tree"),
        SolverSpec("dcfr", "flat", "flat_tree", discounts=True),
        SolverSpec("pcfr+", "flat", "flat_tree"),
        SolverSpec("pdcfr+", "flat", "flat_tree"),
        SolverSpec("hs-pcfr+", "flat", "flat_tree"),
        SolverSpec("es-mccfr", "sampling", "mccfr", tree=None, iterations=200_000),
        SolverSpec("os-mccfr", "sampling", "mccfr", tree=None, iterations=200_000),
        SolverSpec("public-cfr", "public", "public_tree", tree="public"),
        SolverSpec("public-cfr+", "public", "public_tree", tree="public"),
        SolverSpec("public-dcfr", "public", "public_tree", tree="public", discounts=True),
        SolverSpec("public-pcfr+", "public", "public_tree", tree="public"),
        SolverSpec("public-pdcfr+", "public", "public_tree", tree="public"),
        SolverSpec("public-hs-pcfr+", "public", "public_tree", tree="public"),
        SolverSpec("public-dcfr-postflop", "public", "public_tree", tree="public",
                   discounts=True),
        SolverSpec("openspiel-cfr", "openspiel", "flat_tree", native=False),
        # OpenSpiel 2.0.2's CFRPlusSolver read back does not continue the same run
        SolverSpec("openspiel-cfr+", "openspiel", "flat_tree", resumable=False, native=False),
        SolverSpec("openspiel-es-mccfr", "openspiel", "flat_tree", native=False,
                   iterations=200_000),
        SolverSpec("openspiel-os-mccfr", "openspiel", "flat_tree", native=False,
                   iterations=200_000),
        SolverSpec("abstract-mccfr", "abstract", "abstract", tree=None, iterations=200_000),
    ]
    return {s.name: s for s in out}


#: every solver name -> its :class:`SolverSpec`, in the order of the ``--solver`` choices
SOLVERS: dict[str, SolverSpec] = _specs()


def names(*families: str) -> tuple[str, ...]:
    """The solver names of ``families`` (all of them without one), in :data:`SOLVERS`' order.

    Raises:
        ValueError: a family that is not one of :data:`FAMILIES`.
    """
    for f in families:
        if f not in FAMILIES:
            raise ValueError(f"unknown solver family {f!r}; expected one of {', '.join(FAMILIES)}")
    return tuple(n for n, s in SOLVERS.items() if not families or s.family in families)


def spec(name: str) -> SolverSpec:
    """The :class:`SolverSpec` of ``name``.

    Raises:
        ValueError: an unknown name (one line, listing the names).
    """
    try:
        return SOLVERS[name]
    except KeyError:
        raise ValueError(f"unknown solver {name!r}; expected one of {', '.join(SOLVERS)}"
                         ) from None
