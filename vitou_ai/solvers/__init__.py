"""The solvers, by family, over the one rules kernel (:mod:`vitou_ai.rules.kernel`).

- :mod:`.flat`: a deal's whole game tree as flat arrays (:mod:`.flat.tree`), full-width
  CFR / CFR+ / DCFR on it (:mod:`.flat.cfr`, kernels :mod:`.flat.kernels`), exact
  evaluation (best response, NashConv: :mod:`.flat.evaluate`), the sequence-form LP
  (:mod:`.flat.sequence_form`), the exact team max-min (:mod:`.flat.team_maxmin`) and
  the OpenSpiel export (:mod:`.flat.export`).
- :mod:`.public`: the public tree (:mod:`.public.tree`), vector CFR on it
  (:mod:`.public.cfr`, kernels :mod:`.public.kernels`), the team passes
  (:mod:`.public.team`), the export to tabular and bot policies (:mod:`.public.export`)
  and the subgame re-solving that real-time search uses (:mod:`.public.subgame`).
- :mod:`.sampling`: external-sampling MCCFR on the exact keys (:mod:`.sampling.mccfr`)
  and on the abstraction's keys (:mod:`.sampling.mccfr_abstract`), with the abstract
  tree that measures it exactly (:mod:`.sampling.abstract_tree`).

At this level: the :class:`~.protocol.Solver` protocol and ``make_solver``
(:mod:`.protocol`), checkpoints (:mod:`.checkpoint`), OpenSpiel's own solvers
(:mod:`.openspiel_solvers`), the information-state key packing (:mod:`.infoset_table`),
the payoff bookkeeping (:mod:`.payoffs`) and what the families' trees share
(:mod:`.arrays`).

The modules of the former flat layout (``vitou_ai.solvers.cfr``,
``vitou_ai.solvers.public_tree`` ...) still import, with a :class:`DeprecationWarning`
naming the new path (:data:`MOVED`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old module (``vitou_ai.solvers.NAME``) -> its module in the family folders
MOVED = {
    "tree": "flat.tree", "cfr": "flat.cfr", "cfr_kernels": "flat.kernels",
    "evaluate": "flat.evaluate", "sequence_form": "flat.sequence_form",
    "export": "flat.export", "team_maxmin": "flat.team_maxmin",
    "public_tree": "public.tree", "public_cfr": "public.cfr",
    "public_kernels": "public.kernels", "public_team": "public.team",
    "public_export": "public.export", "subgame": "public.subgame",
    "mccfr": "sampling.mccfr", "mccfr_abstract": "sampling.mccfr_abstract",
    "abstract_tree": "sampling.abstract_tree", "atomics": "sampling.atomics",
}


class _Forward(types.ModuleType):
    """An old module path: reads and writes of its public attributes go to the new module
    (so ``monkeypatch.setattr(old_module, "f", ...)`` patches the code that runs)."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self.__dict__["_new"]), attr)

    def __setattr__(self, attr, value):
        if attr.startswith("__") or attr == "_new":
            super().__setattr__(attr, value)
        else:
            setattr(importlib.import_module(self.__dict__["_new"]), attr, value)

    def __delattr__(self, attr):
        delattr(importlib.import_module(self.__dict__["_new"]), attr)

    def __dir__(self):
        return dir(importlib.import_module(self.__dict__["_new"]))


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old path as a :class:`_Forward` module, so that the new module itself is
    never executed or registered twice."""

    def find_spec(self, fullname, path=None, target=None):
        head, _, name = fullname.rpartition(".")
        if head == __name__ and name in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = _Forward(spec.name)
        module._new = f"{__name__}.{MOVED[spec.name.rpartition('.')[2]]}"
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        new = module.__dict__["_new"]
        warnings.warn(f"{module.__name__} moved to {new}; import it from there",
                      DeprecationWarning, stacklevel=2)
        importlib.import_module(new)
        module.__doc__ = f"Moved to :mod:`{new}`."


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())
