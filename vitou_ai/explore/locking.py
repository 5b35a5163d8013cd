"""Node locking from the explorer's page: lock the node in view, re-solve in the
background, compare (two-player public-tree runs; docs/guide/explore.md, "Locking a
node").

A request names a decision node (its ``path`` of action ids, as ``/api/view`` takes it),
a ``mix`` (action label as the node's children write it without the seat, e.g.
``raise``, ``play T`` → probability, summing to 1) and optionally ``hands`` (hand labels,
``"T"``, ``"K Q"``; all hands by default) and optionally ``player`` (the seat the page
believes acts there: refused when another seat does). :meth:`LockSession.start` writes it as a lock
file (one ``[[lock]]`` rule with the node's public ``history``: the format of
:mod:`vitou_ai.solvers.public.lock`), checks it with the lock library (refusals are
:class:`LockRequestError`, HTTP 400, before anything is written or started) and runs
:class:`~vitou_ai.solvers.public.lock.LockedCFR` in a daemon thread, at most
``iterations`` iterations and ``seconds`` seconds, one re-solve at a time per session.
Progress (:meth:`LockSession.status`): iterations done / target and the exploitability
given the lock (points per deal) at each check.

When done, the session writes ``RUN/locks/NNN/`` (each file atomically; the run's own
``policy.npz`` is never touched): ``locks.toml``, ``policy.npz`` (the re-solved policy),
``run.json`` (the game, so ``vitou-ai explore RUN/locks/NNN`` opens it) and
``result.json``: the lock library's :func:`~vitou_ai.solvers.public.lock.exploit_report`
(``report``), and at the locked node the old and new mix and value per hand of the
actor and the actor's old and new action frequencies over its hands (``node``). :meth:`LockSession.saved` reads them back for a re-opened explorer.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import numpy as np

from ..io import write_atomic
from ..solvers.public.tree import KIND_DECISION
from .model import ExploreError, Strategy

#: default re-solve budget: a small variant finishes in seconds
ITERATIONS = 300
SECONDS = 30.0
CHECK_EVERY = 25
LOCKS_DIR = "locks"


class LockRequestError(ExploreError):
    """A lock request the page cannot make (illegal action, a mix that is no probability
    distribution, a node that is not a decision of two-player run, a re-solve already
    running); one line, HTTP 4xx (``status``)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _game_table(params) -> str:
    knobs = {"profile": params.profile, **params.knobs()}
    lines = ["[game]"]
    for k, v in knobs.items():
        if isinstance(v, bool):
            lines.append(f"{k} = {'true' if v else 'false'}")
        elif isinstance(v, int | float):
            lines.append(f"{k} = {v}")
        elif isinstance(v, str):
            lines.append(f"{k} = {json.dumps(v)}")
        elif isinstance(v, list | tuple):
            lines.append(f"{k} = {json.dumps(list(v))}")
    return "\n".join(lines) + "\n"


class LockSession:
    """Locks of one strategy (its run folder ``strategy.source``), one re-solve at a time.

    Args:
        strategy: the explorer's first strategy (a two-player run folder).
        iterations, seconds: the re-solve's budget (whichever ends first).
        guard: the lock the explorer holds around the strategy's (not thread-safe)
            caches; the re-solve's thread takes it to read the old strategy's node.
    """

    def __init__(self, strategy: Strategy, iterations: int = ITERATIONS,
                 seconds: float = SECONDS, guard: threading.Lock | None = None):
        self.guard = guard if guard is not None else threading.Lock()
        self.strategy = strategy
        self.iterations = int(iterations)
        self.seconds = float(seconds)
        src = Path(strategy.source) if strategy.source else None
        self.folder = src if src is not None and src.is_dir() else None
        self._tree = None
        self._blueprint = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._status: dict = {"state": "idle"}

    # ---- checks ------------------------------------------------------------------------

    def why_not(self) -> str | None:
        """Why this run cannot be locked from the page, or ``None``."""
        if self.strategy.n != 2:
            return (f"node locking is for two-player public trees; this is a "
                    f"{self.strategy.n}-player game")
        if self.folder is None:
            return "node locking from the page needs a run folder (run.json + policy.npz)"
        return None

    def lock_text(self, path: tuple[int, ...], mix: dict, hands: list | None = None,
                  player: int | None = None) -> str:
        """The lock file of a request (module docstring), checked against the node.

        Raises:
            LockRequestError: not a two-player run folder, not a decision node, a mix
                that is not a table of numbers, an action not at the node.
        """
        why = self.why_not()
        if why:
            raise LockRequestError(why)
        s = self.strategy
        node = s.node(tuple(path))  # ExploreError (404) when not in the tree
        if node.kind != KIND_DECISION:
            raise LockRequestError("only a decision node can be locked (this is "
                                   f"{'the root' if not node.labels else node.labels[-1]})")
        if player is not None and player != node.player:
            raise LockRequestError(f"this node is seat {node.player}'s decision, not seat "
                                   f"{player}'s: a lock fixes the acting player's mix")
        acts = [c.label.split(" ", 1)[1] for c in s.children(node)]
        if not isinstance(mix, dict) or not mix:
            raise LockRequestError("mix is an object of action: probability")
        for a, v in mix.items():
            if a not in acts:
                raise LockRequestError(f"action {a!r} is not legal at this node; legal: "
                                       f"{', '.join(acts)}")
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise LockRequestError(f"the probability of {a!r} is not a number")
        if hands is not None and (not isinstance(hands, list) or not hands
                                  or not all(isinstance(h, str) for h in hands)):
            raise LockRequestError("hands is a list of hand labels, e.g. [\"T\"]")
        rule = [f"history = {json.dumps(', '.join(node.labels))}",
                "mix = { " + ", ".join(f"{json.dumps(a)} = {float(v)!r}"
                                      for a, v in mix.items()) + " }"]
        if hands is not None:
            rule.append(f"hands = {json.dumps(hands)}")
        return _game_table(s.params) + "\n[[lock]]\n" + "\n".join(rule) + "\n"

    def _resolve(self, text: str):
        import tomllib

        from ..solvers.public.export import bot_policy
        from ..solvers.public.lock import LockError, parse_locks, resolve_locks
        from ..solvers.public.tree import build_public_tree

        try:
            rules = parse_locks(tomllib.loads(text), self.strategy.params, "lock")
            if self._tree is None:
                self._tree = build_public_tree(self.strategy.params)
                self._blueprint = bot_policy(self._tree, self.strategy.policy)
            return resolve_locks(self._tree, rules, text, "lock")
        except LockError as e:
            raise LockRequestError(str(e).splitlines()[0]) from None

    # ---- the re-solve ------------------------------------------------------------------

    def start(self, path: tuple[int, ...], mix: dict, hands: list | None = None,
              player: int | None = None) -> dict:
        """Check the request and start the re-solve in the background.

        Returns:
            :meth:`status` (``state`` ``"running"``).

        Raises:
            LockRequestError: :meth:`lock_text`'s refusals, the lock library's
                (:class:`~vitou_ai.solvers.public.lock.LockError`: a mix not summing
                to 1, a hand not of the game, an action no hand may take), or a
                re-solve already running (status 409).
        """
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                raise LockRequestError("a re-solve is already running; wait for it", 409)
            text = self.lock_text(path, mix, hands, player)
            lock = self._resolve(text)
            self._status = {"state": "running", "iterations": 0, "target": self.iterations,
                            "exploitability": None, "path": list(path)}
            self._thread = threading.Thread(target=self._run, args=(lock, text, tuple(path)),
                                            daemon=True)
            self._thread.start()
            return dict(self._status)

    def _run(self, lock, text: str, path: tuple[int, ...]) -> None:
        from ..solvers.public.lock import LockedCFR, PositionEvaluator, exploit_report

        try:
            t0 = time.perf_counter()
            solver = LockedCFR(lock.tree, lock, "dcfr")
            ev = PositionEvaluator(lock.tree)
            while (solver.iteration < self.iterations
                   and time.perf_counter() - t0 < self.seconds):
                solver.iterate(min(CHECK_EVERY, self.iterations - solver.iteration))
                x = ev.exploitability(solver.average_policy(), lock.fixed)
                self._status = {**self._status, "iterations": solver.iteration,
                                "exploitability": x}
            pol = solver.average_policy()
            seconds = time.perf_counter() - t0
            rep = exploit_report(lock, self._blueprint, pol)
            rep.update({"iterations": solver.iteration, "seconds": seconds,
                        "variant": "dcfr"})
            result = self._save(lock, text, path, pol, rep)
            self._status = {**self._status, "state": "done", "result": result}
        except Exception as e:  # shown on the page, one line
            self._status = {**self._status, "state": "failed",
                            "error": f"{type(e).__name__}: {str(e).splitlines()[0]}"}

    def _node_compare(self, resolved: Strategy, path: tuple[int, ...]) -> dict:
        with self.guard:
            node = self.strategy.node(path)
            old = self.strategy.hand_grid(node)
            agg_old = self.strategy.aggregate(node)
        rnode = resolved.node(path)
        new = resolved.hand_grid(rnode)
        agg_new = resolved.aggregate(rnode)
        return {"history": ", ".join(node.labels),
                "actions": old["actions"],
                "frequency_old": [float(x) for x in agg_old],
                "frequency_new": [float(x) for x in agg_new],
                "rows": [{"hand": a["label"], "in_range": a["in_range"],
                          "old": a["probs"], "new": b["probs"],
                          "value_old": a["value"], "value_new": b["value"]}
                         for a, b in zip(old["rows"], new["rows"], strict=True)]}

    def _save(self, lock, text, path, pol: np.ndarray, rep: dict) -> dict:
        from ..solvers.public.export import to_tabular_policy
        from .model import load_strategy

        base = self.folder / LOCKS_DIR
        base.mkdir(exist_ok=True)
        n = 1 + max([int(p.name) for p in base.iterdir() if p.name.isdigit()], default=0)
        out = base / f"{n:03d}"
        tmp = base / f".{n:03d}.tmp"
        if tmp.exists():  # left by a re-solve that failed while saving
            shutil.rmtree(tmp)
        tmp.mkdir()
        to_tabular_policy(lock.tree, pol, name="locked-resolve").save(tmp / "policy.npz")
        params = self.strategy.params
        write_atomic(tmp / "run.json", (json.dumps({
            "solver": "public-dcfr with node locks (explorer)",
            "params": {"profile": params.profile, **params.knobs()},
            "lock": {"file": "locks.toml", "position": rep["locked_position"]},
            "report": rep}, indent=2) + "\n").encode())
        write_atomic(tmp / "locks.toml", text.encode())
        resolved = load_strategy(tmp, name=f"lock {n:03d}", values_budget=10**9)
        resolved.values()
        result = {"id": f"{n:03d}", "path": list(path), "report": rep,
                  "node": self._node_compare(resolved, path)}
        write_atomic(tmp / "result.json", (json.dumps(result, indent=2) + "\n").encode())
        tmp.rename(out)  # the folder appears whole
        return result

    def status(self) -> dict:
        """``{"state": idle | running | done | failed, "iterations", "target",
        "exploitability" (given the lock, points per deal), "result" (done), "error"
        (failed)}``."""
        return dict(self._status)

    def wait(self, timeout: float | None = None) -> dict:
        """Block until the running re-solve ends (tests, scripts); :meth:`status`."""
        t = self._thread
        if t is not None:
            t.join(timeout)
        return self.status()

    def saved(self) -> list[dict]:
        """The saved locks' results (``RUN/locks/NNN/result.json``), oldest first, each
        with its lock file's text as ``locks``."""
        if self.folder is None or not (self.folder / LOCKS_DIR).is_dir():
            return []
        out = []
        for d in sorted((self.folder / LOCKS_DIR).iterdir()):
            f = d / "result.json"
            if d.name.isdigit() and f.is_file():
                r = json.loads(f.read_text())
                r["locks"] = (d / "locks.toml").read_text()
                out.append(r)
        return out
