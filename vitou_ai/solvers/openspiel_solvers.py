"""OpenSpiel's C++ CFR, CFR+ and MCCFR solvers on ``python_vitou``, behind the interface of
the native solvers (``iterate``, ``iteration``, ``seconds``, ``save``, ``load``).

Checkpoints hold OpenSpiel's own text form of the solver (``CFRSolverBase::Serialize``,
``ExternalSamplingMCCFRSolver::Serialize``...: the game string, the solver type, the
iteration, the regret and average-policy tables as hexadecimal floats, and the MCCFR
random engine's state) inside a ``.npz`` with its SHA-256, the game string and our
iteration count and solver time. It is read back by the solver's ``__setstate__``, the
text parser pybind11 exposes for pickling; pickle itself is never used, so loading a
checkpoint cannot run code.

``openspiel-cfr+`` cannot be resumed: in open_spiel 2.0.2 a ``CFRPlusSolver`` read back
from its text continues differently from the solver that wrote it (Kuhn poker, 5
iterations, save and read back, 3 more: exploitability 0.0578 against 0.0278 without the
round trip; ``python_vitou`` 3 ranks x 1 copy, 1 card, 2 + 2 iterations: 1.3929 against
1.2605), so a resumed run would not be the same run. CFR and both MCCFR solvers
continue exactly (their tables after the round trip and more iterations equal the
uninterrupted solver's; ``tests/test_train.py``).
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import numpy as np

from ..rules.params import RULES_VERSION, VitouParams
from .checkpoint import CheckpointError, check_config, load_checkpoint, save_checkpoint
from .registry import SOLVERS, names

OPENSPIEL_FORMAT = "vitou_ai-openspiel-checkpoint-1"
#: ``vitou-ai train`` names of the OpenSpiel solvers and their pyspiel classes
CLASSES = {"openspiel-cfr": "CFRSolver", "openspiel-cfr+": "CFRPlusSolver",
           "openspiel-es-mccfr": "ExternalSamplingMCCFRSolver",
           "openspiel-os-mccfr": "OutcomeSamplingMCCFRSolver"}
#: the solvers whose checkpoints continue the same run (module docstring; :mod:`.registry`)
RESUMABLE = tuple(n for n in names("openspiel") if SOLVERS[n].resumable)
#: exploration of OpenSpiel's outcome-sampling MCCFR (its default)
OS_EPSILON = 0.6


class OpenSpielSolver:
    """One OpenSpiel solver on the game of ``params``.

    Args:
        name: a key of :data:`CLASSES`.
        params: the game (deal mode).
        seed: the MCCFR solvers' random seed (unused by CFR and CFR+).

    Raises:
        ValueError: an unknown solver name; a seed out of ``0 .. 2**31-1``.
        TypeError: a seed that is not a whole number.
    """

    def __init__(self, name: str, params: VitouParams, seed: int = 0):
        import pyspiel

        from ..openspiel.game import game_string

        if name not in CLASSES:
            raise ValueError(f"unknown OpenSpiel solver {name!r}; expected one of "
                             f"{', '.join(CLASSES)}")
        from ..rng import check_seed

        seed = check_seed(seed)  # OpenSpiel's samplers take a C int
        self.name = name
        self.players = params.players
        self.game_string = game_string(params)
        self.game = pyspiel.load_game(self.game_string)
        cls = getattr(pyspiel, CLASSES[name])
        if name == "openspiel-es-mccfr":
            self.solver = cls(self.game, seed)
        elif name == "openspiel-os-mccfr":
            self.solver = cls(self.game, OS_EPSILON, seed)
        else:
            self.solver = cls(self.game)
        self.iteration = 0
        self.seconds = 0.0

    @property
    def resumable(self) -> bool:
        return self.name in RESUMABLE

    def iterate(self, n: int) -> None:
        """Run ``n`` iterations (CFR: full tree passes; MCCFR: sampled passes)."""
        step = (getattr(self.solver, "evaluate_and_update_policy", None)
                or self.solver.run_iteration)
        t = time.perf_counter()
        for _ in range(n):
            step()
        self.iteration += n
        self.seconds += time.perf_counter() - t

    def average_policy_table(self) -> dict[str, list[tuple[int, float]]]:
        """The average policy: information-state string -> ``[(action, probability)]``,
        over every information state of the game tree."""
        if hasattr(self.solver, "tabular_average_policy"):
            return self.solver.tabular_average_policy().policy_table()
        pol = self.solver.average_policy()
        table: dict[str, list[tuple[int, float]]] = {}
        stack = [self.game.new_initial_state()]
        while stack:
            s = stack.pop()
            if s.is_terminal():
                continue
            if s.is_chance_node():
                stack.extend(s.child(a) for a, _ in s.chance_outcomes())
                continue
            key = s.information_state_string()
            if key not in table:
                table[key] = list(pol.get_state_policy(s))
            stack.extend(s.child(a) for a in s.legal_actions())
        return table

    def _meta(self) -> dict:
        return {"format": OPENSPIEL_FORMAT, "rules_version": RULES_VERSION,
                "solver": self.name, "game": self.game_string}

    def save(self, path: str | Path) -> None:
        """Write a checkpoint (``.npz``, no pickle) atomically.

        Raises:
            CheckpointError: the solver is not resumable (``openspiel-cfr+``).
        """
        if not self.resumable:
            raise CheckpointError(f"{self.name} cannot be checkpointed (see RESUMABLE)")
        text = self.solver.__getstate__().encode()
        meta = dict(self._meta(), iteration=self.iteration, seconds=self.seconds,
                    sha256=hashlib.sha256(text).hexdigest())
        save_checkpoint(path, meta, state=np.frombuffer(text, np.uint8))

    def load(self, path: str | Path) -> None:
        """Continue from a checkpoint written by :meth:`save` for the same solver and game.

        Raises:
            CheckpointError: unreadable or damaged file (the SHA-256 of the solver text
                differs), another format, rules version, solver or game, or a solver text
                OpenSpiel does not accept.
        """
        import pyspiel

        meta, z = load_checkpoint(path, ("state",))
        text = bytes(z["state"])
        check_config(path, meta, self._meta(), self.players)
        if hashlib.sha256(text).hexdigest() != meta.get("sha256"):
            raise CheckpointError(f"{path}: the solver state is damaged (SHA-256 differs)")
        decoded = text.decode()
        if f"\n[Game]\n{self.game}\n" not in decoded or (
                f"\n[SolverType]\n{CLASSES[self.name]}\n" not in decoded):
            raise CheckpointError(f"{path}: the solver state is for another game or solver")
        cls = getattr(pyspiel, CLASSES[self.name])
        solver = cls.__new__(cls)
        try:
            solver.__setstate__(decoded)
        except pyspiel.SpielError as e:
            raise CheckpointError(f"{path}: OpenSpiel cannot read the solver state "
                                  f"({str(e).splitlines()[0]})") from None
        self.solver = solver
        self.game = pyspiel.load_game(self.game_string)
        self.iteration = int(meta["iteration"])
        self.seconds = float(meta["seconds"])
