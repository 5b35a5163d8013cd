"""A tabular ``policy.npz`` read lazily: a memory-mapped index of its table.

``TabularPolicy.load`` inflates the whole table into memory (about 257 bytes an
information set with its hash table: 5 GB for the full ``vitou_2p`` game's 20.8 M).
The explorer only reads the rows of the nodes it opens, so a large policy file is
converted once into an index of three ``.npy`` files, read through ``numpy.memmap``:

- ``keys.npy`` (``int8[M, KEY_SIZE]``) and ``probs.npy`` (``float32[M, W]``): the file's
  arrays, inflated member by member in chunks (never whole in memory);
- ``slots.npy`` (``int32[cap]``): the open-addressing hash table of
  :mod:`vitou_ai.bots.tabular` (same hash, same probing, built by its ``build_slots``);
- ``index.json``: the source's size and modification time (a changed file is indexed
  anew), its name and ``params`` record.

The index lives beside the policy (``policy.npz.explore/``), or under
``~/.cache/vitou_ai/explore/`` when that folder is not writable. The table is then
packed for the jitted code (:class:`vitou_ai.bots.policy.PolicyPack`) without a copy, so
lookups are :func:`vitou_ai.bots.exact.policy_probs`' own and only the pages of the rows
read are loaded. A heuristic fallback is not supported here (uniform at unknown states,
as ``TabularPolicy`` without one).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..rules import layout as L
from ..rules.params import RULES_VERSION, VitouParams, check_rules_version

INDEX_FORMAT = "vitou_ai-explore-index-1"
CHUNK_BYTES = 64 << 20


class MappedPolicy:
    """A tabular policy whose arrays are memory-mapped (module docstring).

    Attributes:
        name, params, path: as :class:`~vitou_ai.bots.tabular.TabularPolicy`'s.
        fallback: always ``None`` (uniform play at unknown information states).
        rows: the number of information sets.
        index: the index folder.
    """

    fallback = None

    def __init__(self, index: Path, meta: dict, source: Path):
        self.index = index
        self.path = str(source)
        self.name = meta["name"]
        self.params = None if meta["params"] is None else _params(meta["params"])
        self._keys = np.load(index / "keys.npy", mmap_mode="c")
        self._probs = np.load(index / "probs.npy", mmap_mode="c")
        self._slots = np.load(index / "slots.npy", mmap_mode="c")
        self.rows = int(self._keys.shape[0])

    def __len__(self) -> int:
        return self.rows

    def pack(self):
        """A :class:`~vitou_ai.bots.policy.PolicyPack` of this one table, its arrays the
        mapped files themselves (no copy)."""
        from ..bots.heuristic import N_HP
        from ..bots.policy import (
            KIND_RANDOM,
            KIND_TABULAR,
            N_TM,
            PolicyPack,
            RandomPolicy,
            pack_policies,
        )

        empty = pack_policies([RandomPolicy()])
        meta = np.zeros((1, N_TM), np.int64)
        meta[0, :4] = (0, self._slots.shape[0], 0, KIND_RANDOM)
        return PolicyPack(np.array([KIND_TABULAR], np.int64), np.zeros((1, N_HP)), meta,
                          np.asarray(self._slots), np.asarray(self._keys),
                          np.asarray(self._probs), *empty[6:])


def _params(d: dict) -> VitouParams:
    d = dict(d)
    if "scores" in d:
        d["scores"] = tuple(d["scores"])
    return VitouParams(**d)


def _index_folder(source: Path) -> Path:
    beside = source.parent / (source.name + ".explore")
    if beside.is_dir() and os.access(beside, os.W_OK) or os.access(source.parent, os.W_OK):
        return beside
    h = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    base = os.environ.get("VITOU_AI_CACHE") or os.path.join(os.path.expanduser("~"), ".cache",
                                                            "vitou_ai")
    return Path(base) / "explore" / h


def _stat(source: Path) -> dict:
    st = source.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def member_rows(source: Path, member: str = "probs") -> int:
    """Rows of an array of a ``.npz`` from its header alone (0 if absent or unreadable)."""
    try:
        with zipfile.ZipFile(source) as zf, zf.open(member + ".npy") as f:
            version = np.lib.format.read_magic(f)
            shape = (np.lib.format.read_array_header_1_0(f) if version == (1, 0)
                     else np.lib.format.read_array_header_2_0(f))[0]
            return int(shape[0]) if shape else 0
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, zlib.error, EOFError):
        return 0


def _small(zf: zipfile.ZipFile, name: str):
    import io

    if name + ".npy" not in zf.namelist():
        return None
    return np.load(io.BytesIO(zf.read(name + ".npy")), allow_pickle=False)


def _inflate(zf: zipfile.ZipFile, member: str, out: Path) -> tuple:
    """Copy ``member`` of the archive into the ``.npy`` file ``out``, in chunks."""
    with zf.open(member + ".npy") as f:
        version = np.lib.format.read_magic(f)
        shape, fortran, dtype = (np.lib.format.read_array_header_1_0(f) if version == (1, 0)
                                 else np.lib.format.read_array_header_2_0(f))
        if fortran or dtype.hasobject:
            raise ValueError(f"array {member} is not a plain C array")
        mm = np.lib.format.open_memmap(out, mode="w+", dtype=dtype, shape=shape)
        flat = mm.reshape(-1)
        n = flat.shape[0]
        step = max(1, CHUNK_BYTES // max(dtype.itemsize, 1))
        i = 0
        while i < n:
            k = min(step, n - i)
            buf = f.read(k * dtype.itemsize)
            if len(buf) != k * dtype.itemsize:
                raise ValueError(f"array {member} is truncated")
            part = np.frombuffer(buf, dtype)
            if member == "probs" and (not np.isfinite(part).all() or (part < 0).any()):
                raise ValueError("probs must be finite and non-negative")
            flat[i:i + k] = part
            i += k
        mm.flush()
        del mm
    return shape, dtype


def write_index(policy, source: str | Path) -> Path:
    """Write the memory-mapped index of ``policy``, just saved as ``source``, from its
    arrays in memory: no inflation of the file and no hash table to build (the policy's
    own ``slots`` are the index's). ``vitou-ai train`` calls it at the end of a run whose
    table is large (:data:`vitou_ai.explore.model.MAP_ROWS` rows or more), so that the
    explorer's first open of that run is as fast as any later one.

    Args:
        policy: the :class:`~vitou_ai.bots.tabular.TabularPolicy` that was saved.
        source: its ``policy.npz`` (written before this call: the index records its
            size and modification time, and a changed file is indexed anew).

    Returns:
        The index folder. ``index.json`` is written last (atomically), so an index cut
        short by a kill is not used: :func:`open_mapped` builds it again.

    Raises:
        OSError: the index cannot be written.
    """
    from ..io import write_atomic

    source = Path(source)
    index = _index_folder(source)
    index.mkdir(parents=True, exist_ok=True)
    info = index / "index.json"
    if info.exists():
        info.unlink()
    for name, a in (("keys", policy.keys), ("probs", policy.probs), ("slots", policy.slots)):
        np.save(index / f"{name}.npy", np.ascontiguousarray(a))
    params = (None if policy.params is None else
              {"profile": policy.params.profile, **policy.params.knobs()})
    meta = {"format": INDEX_FORMAT, "source": _stat(source), "name": policy.name,
            "params": json.loads(json.dumps(params)), "rules_version": RULES_VERSION}
    write_atomic(info, json.dumps(meta).encode())
    return index


def open_mapped(source: str | Path) -> MappedPolicy:
    """The memory-mapped form of a tabular ``policy.npz``, indexing it first if needed.

    Raises:
        ValueError: one line: not a tabular policy file, a damaged one, another
            ``RULES_VERSION`` or ``KEY_SIZE``, a key twice.
        OSError: the file, or the index, cannot be read or written.
    """
    from ..bots.tabular import build_slots, hash_capacity

    source = Path(source)
    index = _index_folder(source)
    want = {"format": INDEX_FORMAT, "source": _stat(source)}
    info = index / "index.json"
    if info.is_file():
        try:
            meta = json.loads(info.read_text())
            if all(meta.get(k) == v for k, v in want.items()):
                return MappedPolicy(index, meta, source)
        except (ValueError, OSError):
            pass
    what = f"{source}: not a tabular policy file (.npz written by vitou_ai)"
    index.mkdir(parents=True, exist_ok=True)
    if info.exists():
        info.unlink()
    try:
        with zipfile.ZipFile(source) as zf:
            names = set(zf.namelist())
            if not {"keys.npy", "probs.npy"} <= names:
                raise ValueError(f"{what} (missing keys or probs)")
            ks = _small(zf, "key_size")
            if ks is not None and int(ks) != L.KEY_SIZE:
                raise ValueError(f"{source}: key size {int(ks)}, expected {L.KEY_SIZE}")
            rv = _small(zf, "rules_version")
            pr = _small(zf, "params")
            params = None
            if pr is not None:
                params = json.loads(str(pr))
            check_rules_version(None if rv is None else str(rv),
                                None if params is None else _params(params).players,
                                str(source))
            nm = _small(zf, "name")
            kshape, kdt = _inflate(zf, "keys", index / "keys.npy")
            pshape, _ = _inflate(zf, "probs", index / "probs.npy")
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise ValueError(f"{what}, or a damaged one: {e or type(e).__name__}") from None
    if kdt != np.int8 or len(kshape) != 2 or kshape[1] != L.KEY_SIZE or len(pshape) != 2 \
            or pshape[0] != kshape[0] or pshape[1] < L.NUM_ACTIONS:
        raise ValueError(f"{what}: keys {kshape} / probs {pshape} do not match")
    keys = np.load(index / "keys.npy", mmap_mode="c")
    slots = np.lib.format.open_memmap(index / "slots.npy", mode="w+", dtype=np.int32,
                                      shape=(hash_capacity(kshape[0]),))
    slots[:] = -1
    dup = build_slots(np.asarray(keys), np.asarray(slots))
    slots.flush()
    del slots, keys
    if dup >= 0:
        raise ValueError(f"{source}: key of row {dup} appears twice in the table")
    meta = {**want, "name": str(nm) if nm is not None else source.stem, "params": params,
            "rules_version": RULES_VERSION}
    info.write_text(json.dumps(meta))
    return MappedPolicy(index, meta, source)
