"""One policy interface for jitted code: a packed set of policies and ``choose_action``.

A policy is a *kind* id, a ``float64`` parameter vector and, for tabular
policies, a table (:mod:`vitou_ai.bots.tabular`). The Python objects are
:class:`RandomPolicy`, :class:`HeuristicPolicy` and
:class:`~vitou_ai.bots.tabular.TabularPolicy`; :func:`pack_policies` turns a
list of them into a :class:`PolicyPack`, a named tuple of flat arrays that
jitted code receives, and :func:`choose_action` plays policy ``pi`` of the
pack at a decision node::

    pack = pack_policies([RandomPolicy(), named_bot("counter")])
    a = choose_action(pack, 1, params, state, player, rng, legal, n_legal, keybuf, iwork)

Policy ``pi`` decides from the player's information only (the heuristic reads
the player's view of the state, the tabular policy its information-state key);
its randomness comes from the ``rng`` stream passed in (one per batch row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .._numba import jit
from ..abstraction.config import N_CFG
from ..abstraction.key import abstract_key
from ..rng import next_below, next_float
from ..rules import layout as L
from ..rules.observe import infostate_key
from .abstract import AbstractPolicy, lookup_row
from .heuristic import N_HP, HeuristicParams, heuristic_action
from .neural import OUTPUT_NAMES as OUTPUTS
from .neural import NeuralPolicy, neural_action
from .tabular import TabularPolicy, lookup

KIND_RANDOM = 0
KIND_HEURISTIC = 1
KIND_TABULAR = 2
KIND_NEURAL = 3
KIND_ABSTRACT = 4
KIND_NAMES = ("random", "heuristic", "tabular", "neural", "abstract")

# columns of PolicyPack.tab_meta
TM_SLOT0 = 0  # first hash slot of the policy's table
TM_CAP = 1  # number of slots (power of two)
TM_ROW0 = 2  # first key / probs row
TM_FALLBACK = 3  # KIND_RANDOM or KIND_HEURISTIC (with the policy's fparams) at unknown infosets
N_TM = 4

# columns of PolicyPack.nn_meta (neural policies): output (neural.OUT_*), the 7
# tensor-layout dims (neural._dims), the row of PolicyPack.nn_nets of each seat
NM_OUTPUT = 0
NM_DIMS = 1
NM_SEAT = 8
N_NM = NM_SEAT + L.MAX_PLAYERS
# columns of PolicyPack.nn_nets: first layer row, number of layers, first weight
NN_ROW0, NN_NLAYERS, NN_W0 = 0, 1, 2

#: ``int64`` scratch slots ``choose_action`` needs (``iwork``).
IWORK_SIZE = 32


class RandomPolicy:
    """Uniformly random legal actions."""

    kind = KIND_RANDOM

    def __init__(self, name: str = "random"):
        self.name = name

    def __repr__(self) -> str:
        return f"RandomPolicy(name={self.name!r})"


class HeuristicPolicy:
    """A heuristic bot of :mod:`vitou_ai.bots.heuristic` with its parameters."""

    kind = KIND_HEURISTIC

    def __init__(self, params: HeuristicParams | None = None, name: str = "heuristic"):
        self.params = params or HeuristicParams()
        self.name = name

    def __repr__(self) -> str:
        return f"HeuristicPolicy(name={self.name!r}, params={self.params})"


Policy = RandomPolicy | HeuristicPolicy | TabularPolicy | NeuralPolicy | AbstractPolicy


class PolicyPack(NamedTuple):
    """Policies as flat arrays for jitted code (build with :func:`pack_policies`).

    Attributes:
        kinds: ``int64[P]``, ``KIND_*`` per policy.
        fparams: ``float64[P, N_HP]``: heuristic parameters (heuristic policies,
            and tabular policies that fall back on a heuristic); zeros otherwise.
        tab_meta: ``int64[P, N_TM]``: ``TM_*`` columns, tabular policies only.
        tab_slots: ``int32[S]``: hash slots of all tables, concatenated (at least 1).
        tab_keys: ``int8[M, KEY_SIZE]``: keys of all tables, concatenated.
        tab_probs: ``float32[M, NUM_ACTIONS]``.
        nn_meta: ``int64[P, N_NM]``: ``NM_*`` columns, neural policies only.
        nn_nets: ``int64[N, 3]``: ``NN_*`` columns, one row per network.
        nn_layers: ``int64[K, 4]``: layers of all networks (:mod:`.neural`), concatenated.
        nn_weights: ``float32[W]``: their weights, concatenated.
        abs_cfg: ``int64[P, N_CFG]``: abstraction knobs (abstract policies).
        abs_meta: ``int64[P, N_TM]``: ``TM_*`` columns of the abstract tables.
        abs_slots, abs_keys, abs_nact, abs_probs: the abstract tables, concatenated
            (:mod:`vitou_ai.bots.abstract`).
    """

    kinds: np.ndarray
    fparams: np.ndarray
    tab_meta: np.ndarray
    tab_slots: np.ndarray
    tab_keys: np.ndarray
    tab_probs: np.ndarray
    nn_meta: np.ndarray
    nn_nets: np.ndarray
    nn_layers: np.ndarray
    nn_weights: np.ndarray
    abs_cfg: np.ndarray
    abs_meta: np.ndarray
    abs_slots: np.ndarray
    abs_keys: np.ndarray
    abs_nact: np.ndarray
    abs_probs: np.ndarray


def pack_policies(policies: Sequence[Policy], signals: bool = False) -> PolicyPack:
    """Pack policies (index ``i`` of the list is policy ``pi = i`` of the pack);
    ``signals``: whether the game played has signals (abstraction knobs).

    Raises:
        TypeError: an object that is not one of the policy classes.
        ValueError: an empty list.
    """
    if len(policies) == 0:
        raise ValueError("pack_policies needs at least one policy")
    p = len(policies)
    kinds = np.zeros(p, np.int64)
    fparams = np.zeros((p, N_HP), np.float64)
    meta = np.zeros((p, N_TM), np.int64)
    slots, keys, probs = [np.full(1, -1, np.int32)], [], []
    slot0, row0 = 1, 0
    nn_meta = np.zeros((p, N_NM), np.int64)
    nn_nets: list[tuple[int, int, int]] = []
    nn_layers, nn_weights = [np.zeros((0, 4), np.int64)], [np.zeros(1, np.float32)]
    layer0, w0 = 0, 1
    acfg = np.zeros((p, N_CFG), np.int64)
    ameta = np.zeros((p, N_TM), np.int64)
    aslots, akeys, anact, aprobs = [np.full(1, -1, np.int32)], [], [], []
    aslot0, arow0 = 1, 0
    for i, pol in enumerate(policies):
        if isinstance(pol, RandomPolicy):
            kinds[i] = KIND_RANDOM
        elif isinstance(pol, HeuristicPolicy):
            kinds[i] = KIND_HEURISTIC
            fparams[i] = pol.params.to_array()
        elif isinstance(pol, TabularPolicy):
            kinds[i] = KIND_TABULAR
            meta[i] = (slot0, pol._slots.shape[0], row0,
                       KIND_RANDOM if pol.fallback is None else KIND_HEURISTIC)
            if pol.fallback is not None:
                fparams[i] = pol.fallback.to_array()
            slots.append(pol._slots)
            keys.append(pol._keys)
            probs.append(pol._probs)
            slot0 += pol._slots.shape[0]
            row0 += len(pol)
        elif isinstance(pol, NeuralPolicy):
            kinds[i] = KIND_NEURAL
            nn_meta[i, NM_OUTPUT] = OUTPUTS.index(pol.output)
            nn_meta[i, NM_DIMS:NM_SEAT] = pol.dims
            first = len(nn_nets)
            for layers, weights in pol.nets:
                nn_nets.append((layer0, len(layers), w0))
                nn_layers.append(layers)
                nn_weights.append(weights)
                layer0 += len(layers)
                w0 += weights.shape[0]
            nn_meta[i, NM_SEAT:NM_SEAT + len(pol.seat_net)] = first + pol.seat_net
        elif isinstance(pol, AbstractPolicy):
            kinds[i] = KIND_ABSTRACT
            acfg[i] = pol.abstraction.to_array(signals)
            ameta[i] = (aslot0, pol.slots.shape[0], arow0,
                        KIND_RANDOM if pol.fallback is None else KIND_HEURISTIC)
            if pol.fallback is not None:
                fparams[i] = pol.fallback.to_array()
            aslots.append(pol.slots)
            akeys.append(pol.keys)
            anact.append(pol.nact)
            aprobs.append(pol.probs)
            aslot0 += pol.slots.shape[0]
            arow0 += len(pol)
        else:
            raise TypeError(f"policy {i} is a {type(pol).__name__}, not a RandomPolicy, "
                            "HeuristicPolicy, TabularPolicy, NeuralPolicy or AbstractPolicy")
    # one table is used as it is (read-only, never written): a 20 M-row table is a
    # 3 GB copy otherwise
    tab_keys = (keys[0] if len(keys) == 1 else np.concatenate(keys) if keys
                else np.zeros((0, L.KEY_SIZE), np.int8))
    width = max([L.NUM_ACTIONS] + [q.shape[1] for q in probs])  # 31 columns for family tables
    probs = [q if q.shape[1] == width else np.pad(q, ((0, 0), (0, width - q.shape[1])))
             for q in probs]
    tab_probs = (probs[0] if len(probs) == 1 else np.concatenate(probs) if probs
                 else np.zeros((0, L.NUM_ACTIONS), np.float32))
    return PolicyPack(
        kinds, fparams, meta, np.concatenate(slots), tab_keys, tab_probs,
        nn_meta, np.array(nn_nets, np.int64).reshape(-1, 3),
        np.concatenate(nn_layers), np.concatenate(nn_weights), acfg, ameta,
        np.concatenate(aslots), np.concatenate(akeys) if akeys else np.zeros(0, np.uint64),
        np.concatenate(anact) if anact else np.zeros(0, np.int8),
        _stack_columns(aprobs, 5))


def policy_pack(policy: Policy, signals: bool = False) -> PolicyPack:
    """``pack_policies([policy], signals)``, built once per tabular policy object and
    ``signals`` and then reused: a tabular policy's tables never change once loaded, and
    packing a full-game table (20.8 M rows) at every search decision or deal held many
    GB and most of the time (the search bot over a public-tree solve). Other policies
    are packed afresh (small).

    Raises:
        TypeError: as :func:`pack_policies`.
    """
    if not isinstance(policy, TabularPolicy):
        return pack_policies([policy], signals)
    cache = policy.__dict__.setdefault("_packs", {})
    if bool(signals) not in cache:
        cache[bool(signals)] = pack_policies([policy], signals)
    return cache[bool(signals)]


def _stack_columns(tables: list[np.ndarray], width: int) -> np.ndarray:
    """Abstract policies' ``probs`` stacked, padded with zeros to the widest (5 columns,
    6 for ``truc_1912``: ``bots.abstract.policy_width``): one array of the pack."""
    width = max([width] + [q.shape[1] for q in tables])
    if not tables:
        return np.zeros((0, width), np.float32)
    return np.concatenate([np.pad(q, ((0, 0), (0, width - q.shape[1]))) for q in tables])


_MARK = np.uint64(1) << np.uint64(63)


@jit
def abstract_row(pack, pi, params, state, player, legal, n_legal):
    """Row of the abstract policy ``pi`` at this decision (absolute index into
    ``pack.abs_probs``), or -1 when the key is unknown or its action count differs."""
    meta = pack.abs_meta
    key = abstract_key(pack.abs_cfg[pi], params, state, player, legal, n_legal)
    row0 = meta[pi, TM_ROW0]
    r = lookup_row(pack.abs_slots, meta[pi, TM_SLOT0], meta[pi, TM_CAP], pack.abs_keys, row0,
                   np.uint64(key) | _MARK)
    if r < 0 or pack.abs_nact[row0 + r] != n_legal:
        return -1
    return row0 + r


@jit
def _abstract_action(pack, pi, params, state, player, rng, legal, n_legal, iwork):
    """``(action, fell_back)`` of the abstract policy ``pi`` (:func:`decide`)."""
    r = abstract_row(pack, pi, params, state, player, legal, n_legal)
    if r >= 0:
        x = next_float(rng)
        for i in range(n_legal - 1):
            x -= pack.abs_probs[r, i]
            if x < 0.0:
                return legal[i], 0
        for i in range(n_legal - 1, -1, -1):
            if pack.abs_probs[r, i] > 0.0:
                return legal[i], 0
    if pack.abs_meta[pi, TM_FALLBACK] == KIND_HEURISTIC:
        return heuristic_action(pack.fparams[pi], params, state, player, rng, legal, n_legal,
                                iwork), 1
    return legal[next_below(rng, n_legal)], 1


@jit
def _tabular_action(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork):
    """``(action, fell_back)`` of the tabular policy ``pi`` (:func:`decide`)."""
    infostate_key(params, state, player, keybuf)
    meta = pack.tab_meta
    row0 = meta[pi, TM_ROW0]
    r = lookup(pack.tab_slots, meta[pi, TM_SLOT0], meta[pi, TM_CAP], pack.tab_keys, row0, keybuf)
    if r >= 0:
        total = 0.0
        for i in range(n_legal):
            total += pack.tab_probs[row0 + r, legal[i]]
        if total > 0.0:
            x = next_float(rng) * total
            for i in range(n_legal - 1):
                x -= pack.tab_probs[row0 + r, legal[i]]
                if x < 0.0:
                    return legal[i], 0
            # the remainder, skipping trailing zero-weight actions
            for i in range(n_legal - 1, -1, -1):
                if pack.tab_probs[row0 + r, legal[i]] > 0.0:
                    return legal[i], 0
    if meta[pi, TM_FALLBACK] == KIND_HEURISTIC:
        return heuristic_action(pack.fparams[pi], params, state, player, rng, legal, n_legal,
                                iwork), 1
    return legal[next_below(rng, n_legal)], 1


@jit
def decide(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork):
    """:func:`choose_action`, and whether the policy fell back: ``(action, fell_back)``.

    ``fell_back`` is 1 when a tabular or abstract policy has no strategy at this
    information state (its key is not in the table, an abstract key's action count
    differs, or the row has no mass on a legal action) and the action comes from its
    fallback (uniform random play, or the heuristic bot it was given); 0 otherwise, and
    always 0 for random, heuristic and neural policies, which play every state. The
    action and the random draws are exactly :func:`choose_action`'s.
    """
    kind = pack.kinds[pi]
    if kind == KIND_RANDOM:
        return legal[next_below(rng, n_legal)], 0
    if kind == KIND_HEURISTIC:
        return heuristic_action(pack.fparams[pi], params, state, player, rng, legal, n_legal,
                                iwork), 0
    if kind == KIND_NEURAL:
        m = pack.nn_meta[pi]
        net = pack.nn_nets[m[NM_SEAT + player]]
        return neural_action(pack.nn_layers[net[NN_ROW0]: net[NN_ROW0] + net[NN_NLAYERS]],
                             pack.nn_weights[net[NN_W0]:], m[NM_DIMS:NM_SEAT], m[NM_OUTPUT],
                             params, state, player, rng, legal, n_legal, keybuf), 0
    if kind == KIND_ABSTRACT:
        return _abstract_action(pack, pi, params, state, player, rng, legal, n_legal, iwork)
    return _tabular_action(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork)


@jit
def choose_action(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork):
    """Action of policy ``pi`` of ``pack`` for ``player`` at a decision node.

    Args:
        pack: a :class:`PolicyPack`.
        pi: index of the policy in the pack.
        params: ``int64[N_PARAMS]``; state: ``int32[STATE_SIZE]``.
        player: the seat to act (``kernel.current_player``).
        rng: ``uint64[1]`` random stream of the batch row, advanced in place.
        legal, n_legal: ``kernel.legal_actions`` output (ascending ids).
        keybuf: ``int8[KEY_SIZE]`` scratch (tabular policies).
        iwork: ``int64[IWORK_SIZE]`` scratch (heuristic policies).

    Returns:
        An action among ``legal[:n_legal]``. :func:`decide` also says whether it came
        from the policy's fallback.
    """
    return decide(pack, pi, params, state, player, rng, legal, n_legal, keybuf, iwork)[0]


def can_fall_back(policy) -> bool:
    """Whether ``policy`` can meet information states it has no strategy for (a tabular or
    abstract policy: its fallback plays there, :func:`decide`); random, heuristic and
    neural policies play every state."""
    return isinstance(policy, TabularPolicy | AbstractPolicy)


def describe(policy: Policy) -> dict:
    """A JSON-ready description of a policy (for result files): name, kind and
    the heuristic parameters, or the table size, fallback and domain (what its rows
    cover, :class:`~vitou_ai.bots.domain.PolicyDomain`)."""
    out = _describe(policy)
    if getattr(policy, "path", None):  # which file, when two entrants share a name
        out["file"] = policy.path
    return out


def _describe(policy: Policy) -> dict:
    import dataclasses

    if isinstance(policy, RandomPolicy):
        return {"name": policy.name, "kind": "random"}
    if isinstance(policy, HeuristicPolicy):
        return {"name": policy.name, "kind": "heuristic",
                "params": dataclasses.asdict(policy.params)}
    if isinstance(policy, TabularPolicy):
        fb = None if policy.fallback is None else dataclasses.asdict(policy.fallback)
        players = None if policy.params is None else policy.params.players
        return {"name": policy.name, "kind": "tabular", "infosets": len(policy),
                "fallback": fb or "random", "domain": policy.domain.describe(players)}
    if isinstance(policy, NeuralPolicy):
        return {"name": policy.name, "kind": "neural", "algorithm": policy.algorithm,
                "network": repr(policy)}
    if getattr(policy, "kind", None) == "search":
        return {"name": policy.name, "kind": "search", "blueprint": _describe(policy.blueprint),
                "budget_seconds": policy.budget, "max_nodes": policy.max_nodes,
                "max_iterations": policy.max_iterations, "epsilon": policy.epsilon}
    if isinstance(policy, AbstractPolicy):
        fb = None if policy.fallback is None else dataclasses.asdict(policy.fallback)
        return {"name": policy.name, "kind": "abstract", "infosets": len(policy),
                "abstraction": policy.abstraction.describe(), "fallback": fb or "random",
                "domain": policy.domain.describe(policy.params.players)}
    raise TypeError(f"not a policy: {type(policy).__name__}")


def scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh buffers for calling :func:`choose_action` from Python:
    ``(legal int64[NUM_ACTIONS], keybuf int8[KEY_SIZE], iwork int64[IWORK_SIZE], rng uint64[1])``."""
    return (np.empty(L.NUM_ACTIONS, np.int64), np.empty(L.KEY_SIZE, np.int8),
            np.zeros(IWORK_SIZE, np.int64), np.zeros(1, np.uint64))


__all__ = [
    "AbstractPolicy",
    "KIND_ABSTRACT",
    "KIND_HEURISTIC",
    "KIND_NAMES",
    "KIND_NEURAL",
    "KIND_RANDOM",
    "KIND_TABULAR",
    "HeuristicPolicy",
    "NeuralPolicy",
    "Policy",
    "PolicyPack",
    "RandomPolicy",
    "TabularPolicy",
    "can_fall_back",
    "choose_action",
    "decide",
    "describe",
    "pack_policies",
    "scratch",
]
