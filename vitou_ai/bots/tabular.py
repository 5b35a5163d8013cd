"""Tabular policies: a probability table indexed by information state.

Format (what the solvers export for their average policies):

- ``keys``: ``int8[M, KEY_SIZE]``, one information-state key per row, exactly
  as written by :func:`vitou_ai.rules.observe.infostate_key` (all
  ``KEY_SIZE`` bytes, ``-1`` padding included); no key twice.
- ``probs``: ``float32[M, NUM_ACTIONS]``, row ``i`` the action probabilities
  at the information state ``keys[i]``, indexed by action id
  (``docs/kernel_interface.md``). Rows need not be normalised, and mass on
  illegal actions is ignored: at play time the row is restricted to the
  legal actions and renormalised.
- in a ``.npz`` file, also ``rules_version`` (must equal ``RULES_VERSION``)
  and ``key_size`` (must equal ``KEY_SIZE``), and optionally ``name``,
  ``params`` (a JSON string of the :class:`VitouParams` the table was built
  for: its profile and the knobs that differ from the profile's defaults) and
  ``domain`` (a JSON string, :mod:`vitou_ai.bots.domain`: ``mode`` ``"deal"`` or
  ``"match"``, the ``dealers`` and ``scores`` the rows cover, ``"all"`` for every
  one, and the game again). The domain is read from the keys (each holds the
  dealer and both scores), so a file without the record, written before it
  existed, is checked the same way (:func:`check_fits`); only its ``mode`` is
  inferred (``"match"`` when the rows cover every score, else ``"deal"``).

Lookup from jitted code goes through an open-addressing hash table built
when the policy is created: ``slots: int32[cap]`` with ``cap`` the smallest
power of two >= 2 M (load factor <= 1/2), each slot ``-1`` (empty) or a row
index. A key's home slot is its 64-bit FNV-1a hash (Fowler, Noll & Vo) over
the ``KEY_SIZE`` bytes, masked to ``cap - 1``; collisions probe linearly and
compare the stored key byte for byte, so a lookup is exact. Several tabular
policies share one concatenated ``slots`` / ``keys`` / ``probs`` in a
:class:`vitou_ai.bots.policy.PolicyPack`, each with its offsets.

An information state missing from the table (or whose row has no mass on a
legal action) falls back to uniform random play, or to a heuristic bot if the
policy was given ``fallback=HeuristicParams(...)``.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path

import numpy as np

from .._numba import jit
from ..rules import layout as L
from ..rules.params import RULES_VERSION, VitouParams, check_rules_version
from .heuristic import HeuristicParams

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@jit
def key_hash(key):
    """64-bit FNV-1a hash of an ``int8[KEY_SIZE]`` key (each byte as unsigned)."""
    h = _FNV_OFFSET
    for i in range(key.shape[0]):
        h = (h ^ np.uint64(np.int64(key[i]) & 0xFF)) * _FNV_PRIME
    return h


@jit
def _same_key(keys, row, key):
    for i in range(key.shape[0]):
        if keys[row, i] != key[i]:
            return False
    return True


@jit
def lookup(slots, slot0, cap, keys, row0, key):
    """Row of ``key`` in a table, or -1 if absent.

    Args:
        slots: the (shared) hash slots; this table's are ``slots[slot0 : slot0 + cap]``.
        keys: the (shared) key rows; this table's are ``keys[row0:]``.
        cap: this table's slot count, a power of two.
    """
    mask = np.uint64(cap - 1)
    i = np.int64(key_hash(key) & mask)
    for _ in range(cap):
        r = slots[slot0 + i]
        if r < 0:
            return -1
        if _same_key(keys, row0 + r, key):
            return r
        i = (i + 1) & (cap - 1)
    return -1


@jit
def build_slots(keys, slots):
    """Insert every row; return the first duplicated row, or -1."""
    cap = slots.shape[0]
    for r in range(keys.shape[0]):
        i = np.int64(key_hash(keys[r]) & np.uint64(cap - 1))
        while slots[i] >= 0:
            if _same_key(keys, slots[i], keys[r]):
                return r
            i = (i + 1) & (cap - 1)
        slots[i] = r
    return -1


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


def hash_capacity(m: int) -> int:
    """Slots of an open-addressing hash table for ``m`` keys: the least power of two
    at least ``2 m`` (load at most 1/2; shared with :mod:`vitou_ai.bots.abstract`)."""
    cap = 1
    while cap < 2 * max(m, 1):
        cap *= 2
    return cap


class TabularPolicy:
    """A policy given as ``probs[infoset row, action]`` with a key -> row hash table.

    Args:
        keys: ``int8[M, KEY_SIZE]`` information-state keys, distinct.
        probs: ``float[M, NUM_ACTIONS]`` non-negative weights (stored as float32).
        name: for tables and plots.
        fallback: ``None`` (uniform random at unknown information states) or
            the :class:`HeuristicParams` of the bot to fall back on.
        params: optional :class:`VitouParams` the table was built for: the game
            :func:`check_fits` compares a game with (no check without it).
        mode: ``"deal"`` (trained on single deals, for points) or ``"match"`` (for the
            match); ``None``: read from the rows (:attr:`domain`).

    Raises:
        ValueError: wrong shapes or dtypes, negative or non-finite weights,
            duplicated keys.
    """

    kind_name = "tabular"

    def __init__(self, keys: np.ndarray, probs: np.ndarray, name: str = "tabular",
                 fallback: HeuristicParams | None = None, params: VitouParams | None = None,
                 mode: str | None = None):
        keys = np.array(keys, copy=True, order="C")
        probs = np.array(probs, dtype=np.float32, copy=True, order="C")
        if keys.dtype != np.int8 or keys.ndim != 2 or keys.shape[1] != L.KEY_SIZE:
            raise ValueError(f"keys must be int8[M, {L.KEY_SIZE}], got {keys.dtype}{list(keys.shape)}")
        if probs.ndim != 2 or probs.shape[0] != keys.shape[0] or probs.shape[1] not in (
                L.NUM_ACTIONS, L.NUM_ACTIONS_FAMILY, L.NUM_ACTIONS_PARTNERSHIP,
                L.NUM_ACTIONS_WILLUGHBY):
            raise ValueError(f"probs must be float32[{keys.shape[0]}, {L.NUM_ACTIONS}] "
                             f"(or {L.NUM_ACTIONS_FAMILY} columns for the Truc / Put family, "
                             f"{L.NUM_ACTIONS_PARTNERSHIP} for partnership Put, "
                             f"{L.NUM_ACTIONS_WILLUGHBY} for Willughby's Put), "
                             f"got {list(probs.shape)}")
        if not np.isfinite(probs).all() or (probs < 0).any():
            raise ValueError("probs must be finite and non-negative")
        slots = np.full(hash_capacity(keys.shape[0]), -1, dtype=np.int32)
        dup = build_slots(keys, slots)
        if dup >= 0:
            raise ValueError(f"key of row {dup} appears twice in the table")
        if mode is not None and mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', got {mode!r}")
        self.name = name
        self.fallback = fallback
        self.params = params
        self.mode = mode
        self.path: str | None = None  # the file it was read from (:meth:`load`)
        self._domain = None
        self._keys = keys
        self._probs = probs
        self._slots = slots

    # read-only views: the arrays themselves are shared with the jitted simulator
    @property
    def keys(self) -> np.ndarray:
        return _readonly(self._keys)

    @property
    def probs(self) -> np.ndarray:
        return _readonly(self._probs)

    @property
    def slots(self) -> np.ndarray:
        return _readonly(self._slots)

    @property
    def domain(self):
        """The :class:`~vitou_ai.bots.domain.PolicyDomain` of the table: the dealers and
        scores its rows cover (read from the keys), and its mode."""
        if self._domain is None:
            from .domain import tabular_domain

            self._domain = tabular_domain(self._keys, self.params, self.mode)
        return self._domain

    def __getstate__(self) -> dict:
        # the cached simulator pack (bots.policy.policy_pack) shares the tables in this
        # process; pickled (a worker), it would send them twice: it is built again there
        state = dict(self.__dict__)
        state.pop("_packs", None)
        return state

    def __len__(self) -> int:
        return self._keys.shape[0]

    def __repr__(self) -> str:
        return f"TabularPolicy(name={self.name!r}, infosets={len(self)})"

    def row(self, key: np.ndarray) -> int:
        """Row of an ``int8[KEY_SIZE]`` key, or -1 if absent."""
        key = np.ascontiguousarray(key, dtype=np.int8)
        return int(lookup(self._slots, 0, self._slots.shape[0], self._keys, 0, key))

    @classmethod
    def from_compact(cls, keys: np.ndarray, actions: np.ndarray, n_actions: np.ndarray,
                     probs: np.ndarray, **kwargs) -> TabularPolicy:
        """From per-infoset action lists, the solvers' form (``GameTree.is_keys``,
        ``is_actions``, ``is_nact`` and an average policy ``float[M, A]``): row ``i``
        gives ``probs[i, a]`` to action id ``actions[i, a]`` for ``a < n_actions[i]``.

        Raises:
            ValueError: shapes that do not match, an action id out of range.
        """
        keys = np.asarray(keys)
        actions = np.asarray(actions)
        n_actions = np.asarray(n_actions)
        probs = np.asarray(probs, dtype=np.float64)
        m = keys.shape[0]
        if actions.shape[0] != m or n_actions.shape != (m,) or probs.shape != actions.shape:
            raise ValueError(f"compact policy of {m} keys: actions {actions.shape}, "
                             f"n_actions {n_actions.shape}, probs {probs.shape} do not match")
        used = np.arange(actions.shape[1])[None, :] < n_actions[:, None]
        width = L.NUM_ACTIONS
        if (actions[used] >= L.NUM_ACTIONS).any():  # the family's ids (concede, low ranks)
            width = L.NUM_ACTIONS_FAMILY
        if (actions[used] >= L.NUM_ACTIONS_FAMILY).any():  # partnership Put (P6.1, P6.3)
            width = L.NUM_ACTIONS_PARTNERSHIP
        if (actions[used] >= L.NUM_ACTIONS_PARTNERSHIP).any():  # Willughby's see / fold (P7.4)
            width = L.NUM_ACTIONS_WILLUGHBY
        if ((actions < 0) | (actions >= width))[used].any():
            raise ValueError(f"action ids must be in 0..{width - 1}")
        full = np.zeros((m, width), np.float32)
        rows = np.nonzero(used)[0]
        full[rows, actions[used].astype(np.int64)] = probs[used]
        return cls(keys, full, **kwargs)

    @classmethod
    def from_mapping(cls, mapping: dict[bytes, np.ndarray], **kwargs) -> TabularPolicy:
        """From ``{key.tobytes(): probs}`` (``probs`` of length ``NUM_ACTIONS``)."""
        keys = np.array([np.frombuffer(k, dtype=np.int8) for k in mapping], dtype=np.int8)
        keys = keys.reshape(len(mapping), L.KEY_SIZE)
        probs = np.array([np.asarray(v, dtype=np.float32) for v in mapping.values()],
                         dtype=np.float32).reshape(len(mapping), L.NUM_ACTIONS)
        return cls(keys, probs, **kwargs)

    def save(self, path: str | Path) -> None:
        """Write a ``.npz`` file (atomic: temporary file and rename)."""
        from ..io import write_atomic

        buf = io.BytesIO()
        extra = {}
        if self.params is not None:
            extra["params"] = np.array(json.dumps({"profile": self.params.profile,
                                                   **self.params.knobs()}))
            extra["domain"] = np.array(self.domain.to_json(self.params))
        np.savez_compressed(buf, keys=self._keys, probs=self._probs,
                            rules_version=np.array(RULES_VERSION), key_size=np.array(L.KEY_SIZE),
                            name=np.array(self.name), **extra)
        write_atomic(Path(path), buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, fallback: HeuristicParams | None = None) -> TabularPolicy:
        """Read a ``.npz`` file written by :meth:`save` (or by a solver, same format).

        Raises:
            ValueError: not such a file or a damaged one, missing arrays, another
                ``RULES_VERSION`` or ``KEY_SIZE``; an abstract policy's file (naming
                the sampled analysis that reads it).
            OSError: the file cannot be read.
        """
        z = read_npz(path, "tabular policy")
        if "abstraction" in z:  # its keys are uint64 abstract states: "keys must be int8"
            raise ValueError(f"{path}: an abstract policy (four-player abstract ES-MCCFR), "
                             "not a tabular one: read it with vitou_ai.load_policy; its bluff "
                             "and raise tables come from the sampled analysis "
                             "(notebooks/four_player_bluffs.ipynb, vitou_ai.eval."
                             "sampled_analysis), not from the game tree")
        missing = {"keys", "probs"} - set(z)
        if missing:
            raise ValueError(f"{path}: not a tabular policy (missing {sorted(missing)})")
        if "key_size" in z and int(z["key_size"]) != L.KEY_SIZE:
            raise ValueError(f"{path}: key size {int(z['key_size'])}, expected {L.KEY_SIZE}")
        name = str(z["name"]) if "name" in z else Path(path).stem
        params = None
        if "params" in z:
            try:
                d = json.loads(str(z["params"]))
                if "scores" in d:
                    d["scores"] = tuple(d["scores"])
                params = VitouParams(**d)
            except (ValueError, TypeError) as e:
                raise ValueError(f"{path}: bad 'params' record: {e}") from None
        version = str(z["rules_version"]) if "rules_version" in z else None
        check_rules_version(version, None if params is None else params.players, str(path))
        from .domain import read_mode

        try:
            mode = read_mode(str(z["domain"]) if "domain" in z else None)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        try:  # damaged arrays (NaN or negative probs, a wrong shape): name the file
            policy = cls(z["keys"], z["probs"], name=name, fallback=fallback, params=params,
                         mode=mode)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        policy.path = str(path)
        return policy


def read_npz(path: str | Path, kind: str) -> dict[str, np.ndarray]:
    """Every array of a ``.npz`` file, read at once (``allow_pickle=False``).

    Policies are written compressed, so a file damaged inside one of its arrays
    opens as a zip archive and fails only while that array is inflated (a
    ``zlib.error`` or a CRC mismatch): every array is read here, so that such a
    file is refused in one line when it is loaded rather than later.

    Args:
        kind: what the file should be, for the message (``"tabular policy"``).

    Raises:
        ValueError: one line naming the file: not an ``.npz`` archive, truncated,
            or damaged.
        OSError: the file cannot be opened (missing, a folder, no permission).
    """
    what = f"{path}: not a {kind} file (.npz written by vitou_ai)"
    try:
        z = np.load(path, allow_pickle=False)
        if not hasattr(z, "files"):
            raise ValueError(f"{what}: a single array, not an archive")
        with z:
            return {k: z[k] for k in z.files}
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        reason = str(e) or type(e).__name__
        if reason.startswith(what):
            raise
        if "pickle" in reason:
            reason = _not_archive_reason(path)
        raise ValueError(f"{what}, or a damaged one: {reason}") from None


def _not_archive_reason(path: str | Path) -> str:
    """Why NumPy took a file for pickled data (it does for anything that is neither a
    zip archive nor an ``.npy`` array, and for an archive member that is an object
    array): pickled objects if it is a zip archive (its arrays hold objects) or starts
    like a pickle, else text or unknown bytes."""
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError as e:
        return e.strerror or str(e)
    if zipfile.is_zipfile(path):  # a valid .npz whose member .npy is an object array
        return "it holds pickled objects (object arrays), which vitou_ai never loads"
    if head[:1] == b"\x80":  # the PROTO opcode of pickle protocols 2 and later
        return "it holds pickled objects, which vitou_ai never loads"
    if not head:
        return "the file is empty"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return "not a zip archive (unknown bytes)"
    return "it is a text file, not a zip archive"


def check_game_shape(name: str, trained: VitouParams, params: VitouParams) -> None:
    """Refuse a policy ``name`` trained for ``trained`` in a game of another shape:
    profile, ranks, copies, hand size and target must match (shared by the tabular and
    neural policies' ``check_fits``).

    Raises:
        ValueError: naming the policy, the first field that differs, what it was trained
            for and the option to pass.
    """
    for field, flag in (("profile", "--profile"), ("ranks", "--ranks"), ("copies", "--copies"),
                        ("hand_size", "--hand-size"), ("target", "--target")):
        if getattr(trained, field) != getattr(params, field):
            raise ValueError(
                f"policy {name!r} was trained for {field} = {getattr(trained, field)!r}, "
                f"this game has {getattr(params, field)!r}: pass {flag} "
                f"{getattr(trained, field)}")


def check_fits(policy: TabularPolicy, params: VitouParams, allow_fallback: bool = False) -> None:
    """Refuse a tabular policy trained for another game than ``params``.

    The game's shape (profile, ranks, copies, hand size, target) and ``signals``
    (R7: the information state holds the gestures seen) must match, and a
    policy trained for one dealer seat only does not cover games where the dealer
    rotates (``params.dealer == -1``) or another seat deals: it would fall back at every
    other deal (or every deal); one trained on single deals with one dealer seat does
    not cover a match either (the deal passes on, R8.2). These two refusals hold with
    ``allow_fallback`` too.
    Then every dealer and score the game reaches must have rows (its domain,
    :mod:`vitou_ai.bots.domain`: a key holds the dealer and both scores, so a
    policy trained at one score has no row at another; a match reaches every
    score up to the target): a policy trained on single deals at 0:0 is refused
    in a match, one trained at 9:5 in a deal at 0:0.

    Raises:
        ValueError: one line naming the policy, what it was trained for and what to
            pass or run (a policy object without ``params`` is not checked).
    """
    t = policy.params
    if t is None:
        return
    check_game_shape(policy.name, t, params)
    if bool(t.signals) != bool(params.signals):
        raise ValueError(signals_mismatch(policy.path or f"policy {policy.name!r}",
                                          bool(t.signals)))
    if t.dealer >= 0 and t.mode == "deal" and params.mode == "match":
        # in a match the deal passes on (R8.2): the other seats deal whatever the first
        # dealer, so a one-dealer deal policy falls back there, --allow-fallback or not
        from .domain import match_hint

        hint = match_hint(t).replace("(a tournament's --deals, play's --deal)",
                                     f"(a tournament's --deals N --dealer {t.dealer})")
        raise ValueError(
            f"{_where(policy)} was trained on single deals with seat {t.dealer} dealing "
            f"only; in a match the deal passes on (R8.2), so the other seats deal too: "
            f"{hint}")
    if t.dealer >= 0 and params.dealer != t.dealer:
        if params.dealer >= 0 and params.mode == "deal":
            where = (f"seat {params.dealer} deals every deal, so it would play at random "
                     "in all of them")
        elif params.dealer >= 0:
            where = (f"seat {params.dealer} deals first, so it would play at random in "
                     "the deals it was not trained for")
        else:
            n = params.players  # the other seats deal (n - 1) / n of the deals
            share = {2: "half the deals", 4: "three quarters of the deals"}.get(
                n, f"{n - 1} of {n} deals")
            where = f"the dealer rotates, so it would play at random in {share}"
        raise ValueError(
            f"{_where(policy)} was trained with seat {t.dealer} dealing only; here "
            f"{where} (train it with --dealer -1, or play only deals dealt by seat "
            f"{t.dealer}: vitou-ai tournament --dealer {t.dealer}, or "
            f"experiments/search_match.py --dealer {t.dealer} in a source checkout)")
    domain = getattr(policy, "domain", None)
    if domain is not None and not allow_fallback:
        fb = "random" if policy.fallback is None else "its heuristic bot"
        why = domain.refusal(params, _where(policy), t, fb)
        if why:
            raise ValueError(why)


def _where(policy) -> str:
    """A policy as messages name it: its file and name, or its name."""
    if getattr(policy, "path", None):
        return f"policy {policy.name!r} ({policy.path})"
    return f"policy {policy.name!r}"


def signals_mismatch(where: str, trained: bool) -> str:
    """The one-line refusal of a policy trained with ``signals = trained`` in a
    game that has the other setting (R7)."""
    if trained:
        return (f"{where}: trained with signals (R7 gestures), this game has none: "
                "pass --signals")
    return (f"{where}: trained without signals, this game has signals (R7 gestures): "
            "drop --signals, or train with --signals")
