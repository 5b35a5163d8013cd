"""Abstract policies: action probabilities indexed by abstract information state.

What :class:`vitou_ai.solvers.sampling.mccfr_abstract.AbstractMCCFR` exports: for each
stored abstract key (:func:`vitou_ai.abstraction.key.abstract_key`, with bit
63 set), the probabilities of its legal actions in ascending action-id order.
At play time the bot computes the key of its information state, looks it up
in an open-addressing table (SplitMix64 hash, linear probing, exact compare)
and samples; an unknown key (or one whose action count differs) falls back on
a heuristic bot (by default ``counter``) or uniform play.

File format (``.npz``, no pickle): ``keys uint64[M]``, ``nact int8[M]``,
``probs float32[M, W]`` (``W = policy_width(params)``: 5, or 6 for
``truc_1912``), ``abstraction`` (JSON of
:class:`~vitou_ai.abstraction.config.AbstractionConfig`), ``params`` (JSON of
the game trained), ``rules_version``, ``format`` (``vitou_ai-abstract-policy-1``),
``name``, and ``domain`` (JSON, :mod:`vitou_ai.bots.domain`: ``mode`` ``"deal"`` or
``"match"``, the scores its keys cover, ``"all"`` for every one). With the abstraction's
``scores`` knob off the key has no scores, and the policy plays the same strategy at
every score; with it on, the scores (or their buckets) its keys hold are its domain, read
from the keys (so files written before the record are checked the same way;
:func:`check_fits`).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

from .._numba import jit
from ..abstraction.config import AbstractionConfig
from ..rules.game import max_legal_actions
from ..rules.params import RULES_VERSION, VitouParams, check_rules_version
from .heuristic import HeuristicParams
from .tabular import hash_capacity, read_npz, signals_mismatch

FORMAT = "vitou_ai-abstract-policy-1"
MAX_ACTIONS = 5  # the fewest columns of ``probs`` (the Vitou profiles' width)


def policy_width(params: VitouParams) -> int:
    """Columns of an abstract policy's ``probs`` for the game ``params``: the most legal
    actions at one decision (:func:`~vitou_ai.rules.game.max_legal_actions`), at least
    :data:`MAX_ACTIONS` (the width of ``solvers.tree.action_width``, a layer above)."""
    return max(MAX_ACTIONS, max_legal_actions(params))
_MARK = np.uint64(1) << np.uint64(63)


@jit
def _mix64(x):
    z = np.uint64(x)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit
def build_slots(keys, slots):
    """Insert every row of ``keys`` into ``slots`` (int32, -1 empty); return the
    first duplicated row or -1."""
    mask = slots.shape[0] - 1
    for r in range(keys.shape[0]):
        i = np.int64(_mix64(keys[r]) & np.uint64(mask))
        while slots[i] >= 0:
            if keys[slots[i]] == keys[r]:
                return r
            i = (i + 1) & mask
        slots[i] = r
    return -1


@jit
def lookup_row(slots, slot0, cap, keys, row0, stored):
    """Row (relative to ``row0``) of ``stored`` in a table, or -1."""
    mask = cap - 1
    i = np.int64(_mix64(stored) & np.uint64(mask))
    for _ in range(cap):
        r = slots[slot0 + i]
        if r < 0:
            return -1
        if keys[row0 + r] == stored:
            return r
        i = (i + 1) & mask
    return -1


class AbstractPolicy:
    """A policy over abstract information states (module docstring).

    Args:
        keys: ``uint64[M]`` stored keys (bit 63 set), distinct.
        nact: ``int8[M]`` legal actions at each key.
        probs: ``float32[M, policy_width(params)]``: probability of the k-th legal action.
        abstraction: the abstraction the keys come from.
        params: the game it was trained for.
        fallback: heuristic parameters used at unknown keys (``None``: uniform).
        mode: ``"deal"`` (trained on single deals) or ``"match"`` (for the match);
            ``None``: read from the keys (:attr:`domain`).

    Raises:
        ValueError: shapes that do not match, bad probabilities, duplicated keys.
    """

    kind_name = "abstract"

    def __init__(self, keys, nact, probs, abstraction: AbstractionConfig, params: VitouParams,
                 name: str = "abstract", fallback: HeuristicParams | None = None,
                 mode: str | None = None):
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        nact = np.ascontiguousarray(nact, dtype=np.int8)
        probs = np.ascontiguousarray(probs, dtype=np.float32)
        m = keys.shape[0]
        width = policy_width(params)
        if keys.ndim != 1 or nact.shape != (m,) or probs.shape != (m, width):
            raise ValueError(f"abstract policy: keys {keys.shape}, nact {nact.shape}, probs "
                             f"{probs.shape} do not match (M, M, M x {width}) for "
                             f"{params.profile}")
        if m and int(nact.max()) > width:
            raise ValueError(f"abstract policy: action counts above {width}, the most legal "
                             f"actions of {params.profile}")
        if not np.isfinite(probs).all() or (probs < 0).any():
            raise ValueError("abstract policy: probs must be finite and non-negative")
        if m and ((keys & _MARK) == 0).any():
            raise ValueError("abstract policy: every key must have bit 63 set")
        abstraction.check_game(params)
        slots = np.full(hash_capacity(m), -1, np.int32)
        dup = build_slots(keys, slots)
        if dup >= 0:
            raise ValueError(f"abstract policy: key of row {dup} appears twice")
        self.keys, self.nact, self.probs, self.slots = keys, nact, probs, slots
        self.abstraction = abstraction
        self.params = params
        if mode is not None and mode not in ("deal", "match"):
            raise ValueError(f"abstract policy: mode must be 'deal' or 'match', got {mode!r}")
        self.name = name
        self.fallback = fallback
        self.mode = mode
        self.path: str | None = None  # the file it was read from (:meth:`load`)
        self._domain = None

    @property
    def domain(self):
        """The :class:`~vitou_ai.bots.domain.PolicyDomain`: the scores its keys cover
        (every score with the abstraction's ``scores`` off), and its mode."""
        if self._domain is None:
            from .domain import abstract_domain

            self._domain = abstract_domain(self.keys, self.abstraction, self.params, self.mode)
        return self._domain

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def __repr__(self) -> str:
        return f"AbstractPolicy(name={self.name!r}, infosets={len(self)})"

    def cfg_array(self, params: VitouParams) -> np.ndarray:
        return self.abstraction.to_array(params.signals)

    def save(self, path: str | Path) -> None:
        """Write the ``.npz`` file atomically."""
        from ..io import write_atomic

        p = self.params
        buf = io.BytesIO()
        np.savez_compressed(
            buf, keys=self.keys, nact=self.nact, probs=self.probs,
            abstraction=np.array(self.abstraction.to_json()),
            params=np.array(json.dumps({"profile": p.profile, **p.knobs()})),
            rules_version=np.array(RULES_VERSION), format=np.array(FORMAT),
            name=np.array(self.name), domain=np.array(self.domain.to_json(p)))
        write_atomic(Path(path), buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, fallback: HeuristicParams | None = None) -> AbstractPolicy:
        """Read :meth:`save`'s file.

        Raises:
            ValueError: one line: not such a file, another rules version, a bad
                abstraction or game record.
            OSError: the file cannot be read.
        """
        z = read_npz(path, "abstract policy")
        if "format" not in z or str(z["format"]) != FORMAT:
            raise ValueError(f"{path}: not an abstract policy ({FORMAT})")
        version = str(z["rules_version"])
        if version != RULES_VERSION:  # an earlier version whose changes cannot reach it passes
            try:
                check_rules_version(version, None, str(path))
            except ValueError:
                raise ValueError(f"{path}: built for rules {version!r}, this is "
                                 f"{RULES_VERSION!r}") from None
        try:
            abstraction = AbstractionConfig.from_json(str(z["abstraction"]))
            d = json.loads(str(z["params"]))
            if "scores" in d:
                d["scores"] = tuple(d["scores"])
            params = VitouParams(**d)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"{path}: bad abstraction or game record: {e}") from None
        from .domain import read_mode

        try:
            mode = read_mode(str(z["domain"]) if "domain" in z else None)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        policy = cls(z["keys"], z["nact"], z["probs"], abstraction, params,
                     name=str(z["name"]), fallback=fallback, mode=mode)
        policy.path = str(path)
        return policy


def check_fits(policy: AbstractPolicy, params: VitouParams, allow_fallback: bool = False) -> None:
    """Refuse an abstract policy trained for another game than ``params``.

    The game's shape (profile, ranks, copies, hand size) must match, and so
    must ``signals`` (R7): with signals the key holds the gestures seen and the
    gesture decisions, so a policy trained without them finds almost none of
    its keys (it would play its fallback), and one trained with them never
    meets its gesture states. The dealer may differ (the key is relative to the
    dealer's seat); so may the mode, the target and the scores when the
    abstraction has no scores (the same strategy at every score, by design). With
    the ``scores`` knob on, every score (or need bucket) the game reaches must be
    among the policy's keys (its domain, :mod:`vitou_ai.bots.domain`): one trained
    at one score is refused in a match or at another score, unless
    ``allow_fallback`` (its fallback then plays there).

    Raises:
        ValueError: one line naming the policy file (or name), what it was
            trained for and what this game has, or what to run.
    """
    t = policy.params
    where = policy.path or f"policy {policy.name!r}"
    for field, flag in (("profile", "--profile"), ("ranks", "--ranks"), ("copies", "--copies"),
                        ("hand_size", "--hand-size")):
        if getattr(t, field) != getattr(params, field):
            raise ValueError(
                f"{where}: trained for {field} = {getattr(t, field)!r}, this game has "
                f"{getattr(params, field)!r}: pass {flag} {getattr(t, field)}")
    if bool(t.signals) != bool(params.signals):
        raise ValueError(signals_mismatch(where, bool(t.signals)))
    domain = getattr(policy, "domain", None)
    if domain is not None and not allow_fallback:
        fb = "random" if policy.fallback is None else "its heuristic bot"
        why = domain.refusal(params, where, t, fb)
        if why:
            raise ValueError(why)


def is_abstract_file(path: str | Path) -> bool:
    """True if ``path`` is an ``.npz`` written by :meth:`AbstractPolicy.save`."""
    try:
        z = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return False
    if not hasattr(z, "files"):  # a single array (``.npy`` renamed): not an archive
        return False
    try:
        with z:
            return "format" in z.files and str(z["format"]) == FORMAT
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError):
        return False
