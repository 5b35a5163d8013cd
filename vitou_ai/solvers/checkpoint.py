"""Solver checkpoints: one ``.npz`` file (no pickle), written atomically, with a JSON record.

A checkpoint holds named arrays and ``meta``, the UTF-8 JSON of a dict stored as
``uint8[n]`` (so ``np.load(allow_pickle=False)`` reads it back). Every solver's
``meta`` starts with its configuration (``format``, ``rules_version``, the game's
parameters, ...), which :func:`check_config` compares with the resuming solver's
before any table is touched. Each problem is one :class:`CheckpointError` line
that names the file.

Typical use (``TabularCFR``)::

    save_checkpoint(path, dict(self._config(), iteration=...), regrets=..., cum_policy=...)
    ...
    meta, z = load_checkpoint(path, ("regrets", "cum_policy"))
    check_config(path, meta, self._config(), self.tree.params.players)
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..rules.params import RULES_VERSION, VitouParams, check_rules_version


class CheckpointError(ValueError):
    """A checkpoint that cannot be resumed here: damaged, another game or rules version."""


def unreadable_reason(e: Exception) -> str:
    """Why a file could not be read as a checkpoint, for a one-line message. NumPy's
    hint to load pickled data unsafely is never passed on: checkpoints hold no pickle."""
    if "pickle" in str(e):  # NumPy says so of any file that is not an .npy / .npz
        return ("it holds no plain arrays: NumPy could read it only as pickled objects, "
                "which vitou_ai never loads")
    return str(e)


def params_record(p: VitouParams) -> dict[str, Any]:
    """The game's parameters as a JSON-able dict (knobs, profile, dealer, scores): what a
    checkpoint records as ``params`` to recognise its game."""
    return {**p.knobs(), "profile": p.profile, "dealer": p.dealer, "scores": list(p.scores)}


def save_checkpoint(path: str | Path, meta: dict[str, Any], **arrays: np.ndarray) -> None:
    """Write ``arrays`` and ``meta`` (JSON) to ``path`` as ``.npz``, atomically.

    Args:
        path: the file; its folder is created if missing.
        meta: JSON-able record (configuration and counters).
        arrays: the tables, by name (``meta`` is reserved).
    """
    from ..io import write_atomic

    record = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    # streamed into the temporary file: a copy in memory would double the tables' peak
    write_atomic(Path(path), lambda f: np.savez(f, **arrays, meta=record))


def load_checkpoint(path: str | Path, names: tuple[str, ...]) -> tuple[dict[str, Any],
                                                                      dict[str, np.ndarray]]:
    """Read a file written by :func:`save_checkpoint`.

    Args:
        path: the file.
        names: the arrays to read.

    Returns:
        ``(meta, arrays)``: the JSON record and the named arrays (in memory).

    Raises:
        CheckpointError: ``"<path>: not a readable checkpoint (<why>)"``: missing,
            not an ``.npz``, damaged, pickled, without ``meta`` or one of ``names``.
    """
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            arrays = {k: z[k] for k in names}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as e:
        # ValueError covers json.JSONDecodeError and UnicodeDecodeError
        raise CheckpointError(f"{path}: not a readable checkpoint ({unreadable_reason(e)})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{path}: not a readable checkpoint (meta is not a record)")
    return meta, arrays


#: record keys added after checkpoints without them were written, and what their absence
#: means (a public-tree checkpoint from before compact tables holds float64 tables; an
#: abstract-MCCFR checkpoint from before its traversal option traversed "es")
ABSENT_MEANS = {"tables": "float64", "traversal": "es"}


def check_config(path: str | Path, meta: dict[str, Any], want: dict[str, Any],
                 players: int | None) -> None:
    """Check that a checkpoint's record matches the resuming solver's configuration.

    Every key of ``want`` is compared in ``want``'s order (put ``format`` first, so a
    file of another solver says so first); ``rules_version`` goes through
    :func:`~vitou_ai.rules.params.check_rules_version`, which lets files from
    ``vitou-rules-1.1`` and two-player files from ``vitou-rules-1.0`` carry over; a key
    an older file lacks is read as :data:`ABSENT_MEANS` says.

    Args:
        path: the file, for the message.
        meta: the record read by :func:`load_checkpoint`.
        want: the resuming solver's configuration (JSON-able values).
        players: players of the solver's game.

    Raises:
        CheckpointError: ``"<path>: checkpoint <key> <saved> does not match this
            solver's <wanted>"``, or the rules-version message.
    """
    for k, v in want.items():
        saved = meta.get(k, ABSENT_MEANS.get(k))
        if k == "rules_version":
            try:
                check_rules_version(meta.get(k), players, str(path))
            except ValueError as e:
                raise CheckpointError(str(e)) from None
        elif saved != v:
            raise CheckpointError(f"{path}: checkpoint {k} {saved!r} does not match "
                                  f"this solver's {v!r}")


class RegretTableCheckpoints:
    """:meth:`save` / :meth:`load` of a full-width CFR's two tables, ``regrets`` and
    ``cum_policy`` (:class:`~vitou_ai.solvers.flat.cfr.TabularCFR` on the flat tree,
    :class:`~vitou_ai.solvers.public.cfr.PublicCFR` on the public tree).

    The record is the solver's configuration (:meth:`_config`: ``format``,
    ``rules_version``, variant, DCFR's ``alpha`` / ``beta`` / ``gamma``, the game's
    parameters, the tree's fingerprint) and its counters (``iteration``,
    ``nodes_touched``, ``seconds``). A subclass sets ``checkpoint_format`` and has the
    attributes ``tree``, ``variant``, ``alpha``, ``beta``, ``gamma``, ``regrets``,
    ``cum_policy``, ``iteration``, ``nodes_touched``, ``seconds``.
    """

    checkpoint_format: str
    tree: Any
    variant: str
    alpha: float
    beta: float
    gamma: float
    regrets: np.ndarray
    cum_policy: np.ndarray
    iteration: int
    nodes_touched: int
    seconds: float

    def _tree_fingerprint(self) -> str:
        """SHA-256 of the solver's tree (what the tables are indexed by)."""
        raise NotImplementedError

    def _config(self) -> dict:
        return {
            "format": self.checkpoint_format,
            "rules_version": RULES_VERSION,
            "variant": self.variant,
            "alpha": self.alpha, "beta": self.beta, "gamma": self.gamma,
            "params": params_record(self.tree.params),
            "tree": self._tree_fingerprint(),
        }

    def _extra_tables(self) -> dict[str, np.ndarray]:
        """Further state tables saved and restored by name (the predictive variants'
        ``prediction``); none by default."""
        return {}

    def state_tables(self) -> dict[str, np.ndarray]:
        """The tables a resumed run needs, by name: ``regrets``, ``cum_policy`` and
        :meth:`_extra_tables` (the arrays themselves, not copies)."""
        return {"regrets": self.regrets, "cum_policy": self.cum_policy,
                **self._extra_tables()}

    def state_counters(self) -> dict[str, Any]:
        """The counters a resumed run continues: ``iteration``, ``nodes_touched``,
        ``seconds``."""
        return {"iteration": self.iteration, "nodes_touched": self.nodes_touched,
                "seconds": self.seconds}

    def restore_state(self, path: str | Path, counters: dict[str, Any],
                      tables: dict[str, np.ndarray]) -> None:
        """Set the tables and counters read from ``path`` (:meth:`state_tables`,
        :meth:`state_counters`), after the caller has checked what they are for.

        Raises:
            CheckpointError: a table missing or of another shape.
        """
        mine = self.state_tables()
        for k, a in mine.items():
            if k not in tables or tables[k].shape != a.shape:
                got = tables[k].shape if k in tables else "missing"
                raise CheckpointError(f"{path}: table {k} {got} does not match {a.shape}")
        for k, a in mine.items():
            a[...] = tables[k]
        self.iteration = int(counters["iteration"])
        self.nodes_touched = int(counters["nodes_touched"])
        self.seconds = float(counters["seconds"])
        self._loaded()

    def save(self, path: str | Path) -> None:
        """Write a checkpoint (``.npz``, no pickle) atomically."""
        save_checkpoint(path, dict(self._config(), **self.state_counters()),
                        **self.state_tables())

    def load(self, path: str | Path) -> None:
        """Resume from a checkpoint written by :meth:`save` for the same game.

        Raises:
            CheckpointError: unreadable or damaged file, another format (another
                solver's included), another ``RULES_VERSION``, another variant or
                discounts, or another game (parameters or tree).
        """
        meta, z = load_checkpoint(path, tuple(self.state_tables()))
        check_config(path, meta, self._config(), self.tree.params.players)
        self.restore_state(path, meta, z)

    def _loaded(self) -> None:
        """Called after :meth:`load` has replaced the tables (e.g. to refresh a cache)."""
