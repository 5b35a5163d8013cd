"""Monte Carlo CFR on the kernel: external sampling and outcome sampling
(Lanctot, Waugh, Zinkevich & Bowling 2009, "Monte Carlo sampling for regret
minimization in extensive games", sections 3.1-3.2), with information states
allocated lazily in a memory-bounded open-addressing table.

The games are played by the kernel itself (no tree), so these solvers run on
games far too large for :mod:`.cfr` — the full four-player ``vitou`` included.
Both follow OpenSpiel's Python implementations
(``external_sampling_mccfr.py`` with simple averaging: the average policy is
accumulated at the other players' nodes; ``outcome_sampling_mccfr.py`` with
exploration ``epsilon = 0.6`` and no baseline), alternating the updating
player each iteration pass. One random stream per solver (:mod:`vitou_ai.rng`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..._numba import jit
from ...capabilities import require
from ...resources import check_memory
from ...rng import UINT64_MAX, check_seed, next_float, row_seed
from ...rules import kernel as K
from ...rules import layout as L
from ...rules.game import max_game_decisions
from ...rules.observe import infostate_key
from ...rules.params import RULES_VERSION, VitouParams
from ...sim.random_play import sample_chance
from ..checkpoint import (
    CheckpointError,
    check_config,
    load_checkpoint,
    params_record,
    save_checkpoint,
)
from ..flat.tree import action_width
from ..infoset_table import pack_key

MCCFR_FORMAT = "vitou_ai-mccfr-checkpoint-1"
TABLE_FULL = -2


class TableFullError(RuntimeError):
    """The information-state table reached its capacity (``max_infosets``)."""


# ---- the information-state table ---------------------------------------------------------


@jit
def _hash(w0, w1, w2, w3):
    """Multiply-xorshift mix of the four key words (uint64 arithmetic throughout)."""
    h = np.uint64(w0) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(w1) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= np.uint64(w2) * np.uint64(0x94D049BB133111EB)
    h ^= np.uint64(w3) * np.uint64(0xD6E8FEB86659FD93)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0x9E3779B97F4A7C15)
    return h ^ (h >> np.uint64(29))


@jit
def find_or_insert(words, used, slot_row, n_rows, pk, cap_rows):
    """Row of packed key ``pk`` in the table, inserting it if absent.

    ``words[row]`` holds the row's packed key, ``slot_row[slot]`` the row of a
    slot (-1 empty), ``n_rows[0]`` the rows used. Returns the row, or
    ``TABLE_FULL`` when a new row is needed and ``cap_rows`` are used.
    Sets ``used[0] = 1`` when the row is new.
    """
    nslots = slot_row.shape[0]
    mask = np.int64(nslots - 1)
    i = np.int64(_hash(pk[0], pk[1], pk[2], pk[3]) >> np.uint64(1)) & mask
    while True:
        r = slot_row[i]
        if r < 0:
            if n_rows[0] >= cap_rows or 2 * (n_rows[0] + 1) > nslots:
                return TABLE_FULL
            r = n_rows[0]
            n_rows[0] = r + 1
            slot_row[i] = r
            words[r, 0] = pk[0]
            words[r, 1] = pk[1]
            words[r, 2] = pk[2]
            words[r, 3] = pk[3]
            used[0] = 1
            return r
        if (words[r, 0] == pk[0] and words[r, 1] == pk[1] and words[r, 2] == pk[2]
                and words[r, 3] == pk[3]):
            used[0] = 0
            return r
        i = (i + 1) & mask


@jit
def regret_matching_row(regrets, row, m, out):
    """Regret matching on one table row: ``out[:m]`` = the positive part of
    ``regrets[row, :m]``, normalised, or uniform if no regret is positive (Hart &
    Mas-Colell 2000; Zinkevich et al. 2007, eq. 8). ``regrets``: float64 or float32
    ``[rows, width]`` (:func:`.tree.action_width`, ``m <= width``); returns the sum of
    positive regrets (float64).
    Shared by both MCCFR solvers (here and :mod:`.mccfr_abstract`)."""
    s = 0.0
    for a in range(m):
        if regrets[row, a] > 0.0:
            s += regrets[row, a]
    for a in range(m):
        if s > 0.0:
            out[a] = regrets[row, a] / s if regrets[row, a] > 0.0 else 0.0
        else:
            out[a] = 1.0 / m
    return s


@jit
def sample_action(probs, m, rng):
    """An index in ``[0, m)`` drawn with probabilities ``probs[:m]`` from the stream
    ``rng`` (:mod:`vitou_ai.rng`); the last index takes any rounding remainder."""
    u = next_float(rng)
    for a in range(m - 1):
        u -= probs[a]
        if u < 0.0:
            return a
    return m - 1


@jit
def _lookup(params, state, player, key, words, slot_row, n_rows, cap_rows, keys, nact,
            actions, acts, used):
    used[1] += 1  # information-state touches, for ``nodes_touched``
    infostate_key(params, state, player, key)
    pk = pack_key(key)
    row = find_or_insert(words, used, slot_row, n_rows, pk, cap_rows)
    if row >= 0 and used[0] == 1:
        m = K.legal_actions(params, state, acts)
        if m > actions.shape[1]:  # cannot happen: the width is max_legal_actions(params)
            raise ValueError("more legal actions than the table's width")
        nact[row] = m
        for a in range(m):
            actions[row, a] = acts[a]
        keys[row, :] = key
    return row


@jit
def _rehash(words, slot_row, n):
    mask = np.int64(slot_row.shape[0] - 1)
    for r in range(n):
        i = np.int64(_hash(words[r, 0], words[r, 1], words[r, 2], words[r, 3]) >> np.uint64(1)) & mask
        while slot_row[i] >= 0:
            i = (i + 1) & mask
        slot_row[i] = r


# ---- external sampling --------------------------------------------------------------------


@jit
def _advance_es(params, state, p, rng, tb, regrets, cum, key, acts, probs, sigma, used):
    """Walk ``state`` through chance and other players' nodes (sampling) until the
    game ends or ``p`` acts. Returns the row of p's infoset, -1 at terminal, or
    TABLE_FULL."""
    words, slot_row, n_rows, cap_rows, keys, nact, actions = tb
    while True:
        if K.is_terminal(state):
            return -1
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng, acts, probs))
            continue
        q = K.current_player(params, state)
        row = _lookup(params, state, q, key, words, slot_row, n_rows, cap_rows, keys, nact,
                      actions, acts, used)
        if row < 0:
            return row
        if q == p:
            return row
        m = nact[row]
        regret_matching_row(regrets, row, m, sigma)
        for a in range(m):
            cum[row, a] += sigma[a]  # simple averaging at the other players' nodes
        K.apply_action(params, state, actions[row, sample_action(sigma, m, rng)])


@jit
def es_iteration(params, p, rng, tb, regrets, cum, states, rows, child, vals, sig, key, acts,
                 probs, used, ret):
    """One external-sampling traversal for player ``p``; returns p's sampled value,
    or NaN if the table filled up."""
    nact = tb[5]
    actions = tb[6]
    K.init_state(params, states[0])
    row = _advance_es(params, states[0], p, rng, tb, regrets, cum, key, acts, probs, sig[0], used)
    if row == TABLE_FULL:
        return np.nan
    if row < 0:
        K.returns(params, states[0], ret)
        return ret[p]
    d = 0
    rows[0] = row
    child[0] = 0
    if used[2] < 1:
        used[2] = 1
    regret_matching_row(regrets, row, nact[row], sig[0])
    while True:
        r = rows[d]
        m = nact[r]
        if child[d] < m:
            K.copy_state(states[d], states[d + 1])
            K.apply_action(params, states[d + 1], actions[r, child[d]])
            nrow = _advance_es(params, states[d + 1], p, rng, tb, regrets, cum, key, acts,
                               probs, sig[d + 1], used)
            if nrow == TABLE_FULL:
                return np.nan
            if nrow < 0:
                K.returns(params, states[d + 1], ret)
                vals[d, child[d]] = ret[p]  # = sign * ret[0] in a two-team game
                child[d] += 1
            else:
                d += 1
                if used[2] < d + 1:
                    used[2] = d + 1
                rows[d] = nrow
                child[d] = 0
                regret_matching_row(regrets, nrow, nact[nrow], sig[d])
        else:
            v = 0.0
            for a in range(m):
                v += sig[d, a] * vals[d, a]
            for a in range(m):
                regrets[r, a] += vals[d, a] - v
            if d == 0:
                return v
            d -= 1
            vals[d, child[d]] = v
            child[d] += 1


# ---- outcome sampling ----------------------------------------------------------------------


@jit
def os_iteration(params, p, rng, tb, regrets, cum, state, path_row, path_a, path_q, path_sp,
                 path_my, path_opp, path_samp, sig, key, acts, probs, used, ret, epsilon):
    """One outcome-sampling episode for player ``p`` (Lanctot et al. 2009, 3.2,
    as OpenSpiel's ``outcome_sampling_mccfr``). Returns p's sampled value, NaN if
    the table filled up."""
    nact = tb[5]
    actions = tb[6]
    words, slot_row, n_rows, cap_rows, keys = tb[0], tb[1], tb[2], tb[3], tb[4]
    K.init_state(params, state)
    my, opp, samp = 1.0, 1.0, 1.0
    n = 0
    while not K.is_terminal(state):
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng, acts, probs))
            continue  # chance probabilities cancel in opp / samp (OpenSpiel multiplies both)
        q = K.current_player(params, state)
        row = _lookup(params, state, q, key, words, slot_row, n_rows, cap_rows, keys, nact,
                      actions, acts, used)
        if row < 0:
            return np.nan
        m = nact[row]
        regret_matching_row(regrets, row, m, sig[n])
        if q == p:
            for a in range(m):
                probs[a] = epsilon / m + (1.0 - epsilon) * sig[n, a]
        else:
            for a in range(m):
                probs[a] = sig[n, a]
        a = sample_action(probs, m, rng)
        path_row[n] = row
        path_a[n] = a
        path_q[n] = q
        path_sp[n] = probs[a]
        path_my[n] = my
        path_opp[n] = opp
        path_samp[n] = samp
        if q == p:
            my *= sig[n, a]
        else:
            opp *= sig[n, a]
        samp *= probs[a]
        K.apply_action(params, state, actions[row, a])
        n += 1
    if used[2] < n:
        used[2] = n
    K.returns(params, state, ret)
    value = ret[p]
    for j in range(n - 1, -1, -1):
        row = path_row[j]
        m = nact[row]
        a_s = path_a[j]
        child_value = value / path_sp[j]  # only the sampled action's estimate is non-zero
        value = sig[j, a_s] * child_value
        if path_q[j] == p:
            w = path_opp[j] / path_samp[j]
            for a in range(m):
                cv = child_value if a == a_s else 0.0
                regrets[row, a] += (cv - value) * w
            inc = path_my[j] / path_samp[j]
            for a in range(m):
                cum[row, a] += inc * sig[j, a]
    return ret[p]


NEED_GROW = 1


@jit
def _run_passes(external, params, players, done, passes, rng, tb, regrets, cum, states, rows,
                child, vals, sig, path_row, path_a, path_q, path_sp, path_my, path_opp,
                path_samp, key, acts, probs, used, ret, epsilon, max_slots, growth):
    """Run traversals ``done .. passes-1`` (player ``i % players``) in one call (the
    Python dispatch of a call costs more than a small game's traversal). Stops early
    with ``NEED_GROW`` when the hash index should grow first (the caller grows it and
    calls again), or ``TABLE_FULL``. Returns (passes run, status)."""
    slot_row = tb[1]
    n_rows = tb[2]
    k = 0
    while done + k < passes:
        nslots = slot_row.shape[0]
        if k > 0 and nslots < max_slots and 2 * (n_rows[0] + 2 * growth[0] + 1024) > nslots:
            return k, NEED_GROW
        before = n_rows[0]
        p = (done + k) % players
        if external:
            v = es_iteration(params, p, rng, tb, regrets, cum, states, rows, child, vals, sig,
                             key, acts, probs, used, ret)
        else:
            v = os_iteration(params, p, rng, tb, regrets, cum, states[0], path_row, path_a,
                             path_q, path_sp, path_my, path_opp, path_samp, sig, key, acts,
                             probs, used, ret, epsilon)
        if n_rows[0] - before > growth[0]:
            growth[0] = n_rows[0] - before
        if np.isnan(v):
            return k, TABLE_FULL
        k += 1
    return k, 0


# ---- the solver ----------------------------------------------------------------------------


def table_bytes(params: VitouParams, max_infosets: int) -> float:
    """Bytes of :class:`MCCFR`'s tables for ``max_infosets`` rows (a float: no overflow
    for huge counts): per row the hash words, key, actions, regrets and average policy,
    and the hash index at its largest (two slots a row)."""
    width = action_width(params)
    return float(max_infosets) * (4 * 8 + L.KEY_SIZE + 1 + width + 2 * 8 * width + 2 * 8)



class MCCFR:
    """External- or outcome-sampling MCCFR over the kernel.

    Args:
        params: the game (deal or match mode; match-mode information states cover
            the current deal only, see :func:`vitou_ai.rules.observe.infostate_key`).
            The per-episode buffers hold ``max_game_decisions(params) + 1`` states
            (about 800 bytes each; in match mode that grows with ``max_deals``,
            but only the depth episodes reach is ever touched).
        sampling: ``"external"`` or ``"outcome"``.
        seed: seed of the solver's random stream, ``0 .. 2**64-1``.
        max_infosets: capacity of the table (rows); memory is about
            ``max_infosets * 150`` bytes (:func:`table_bytes`), refused up front when
            larger than the memory available. Exceeding it raises :class:`TableFullError`.
        epsilon: outcome sampling's exploration at the updating player's nodes.

    Raises:
        ValueError: a bad setting; a ``seed`` out of range
            (:func:`vitou_ai.rng.check_seed`); a table larger than the memory available
            (:class:`vitou_ai.resources.ResourceError`). TypeError: a seed that is not
            a whole number.

    Attributes:
        deepest: the most decisions on one sampled path so far (outcome sampling:
            all players' decisions of an episode; external sampling: the
            updating player's), at most ``max_game_decisions(params)``.

    Tables: ``regrets`` / ``cum_policy`` ``float64[max_infosets, width]`` (``width``:
    :func:`.tree.action_width`, 5, or 6 for ``truc_1912``; only the first
    ``num_infosets`` rows in use), rows in order of first visit,
    ``keys[row]`` the kernel key and ``actions[row, :nact[row]]`` its legal actions.
    """

    def __init__(self, params: VitouParams, sampling: str = "external", seed: int = 0,
                 max_infosets: int = 1 << 20, epsilon: float = 0.6):
        require("mccfr", params)
        if sampling not in ("external", "outcome"):
            raise ValueError(f"unknown sampling {sampling!r}; expected 'external' or 'outcome'")
        if not 0 < epsilon <= 1:
            raise ValueError(f"epsilon must be in (0, 1], got {epsilon}")
        if max_infosets < 1:
            raise ValueError("max_infosets must be positive")
        seed = check_seed(seed, "seed", UINT64_MAX)
        check_memory(table_bytes(params, max_infosets), f"max_infosets {max_infosets:,}",
                     "lower it")
        self.params = params
        self.sampling = sampling
        self.seed = seed
        self.epsilon = float(epsilon)
        self._pa = params.to_array()
        cap = int(max_infosets)
        width = action_width(params)  # 5; 6 in truc_1912 (F3.3), from max_legal_actions
        self.words = np.zeros((cap, 4), np.int64)
        # the hash index grows with the table (small and cache-resident for small games);
        # the row arrays are allocated at full capacity but only touched as rows are used
        self.slot_row = np.full(4096, -1, np.int64)
        self._max_slots = 1 << max(12, (2 * cap - 1).bit_length())
        self._pass_growth = 0
        self.n_rows = np.zeros(1, np.int64)
        self.keys = np.zeros((cap, L.KEY_SIZE), np.int8)
        self.nact = np.zeros(cap, np.int8)
        self.actions = np.zeros((cap, width), np.int8)  # action ids (<= 30 in the family)
        self.regrets = np.zeros((cap, width))
        self.cum_policy = np.zeros((cap, width))
        self.rng = np.array([row_seed(self.seed, 0)], np.uint64)
        self.iteration = 0
        self.nodes_touched = 0
        self.seconds = 0.0
        self.deepest = 0
        # Per-episode buffers, one slot per decision on the path (outcome sampling) or
        # per decision of the updating player (external sampling, plus the root state):
        # sized by a bound on the game's length, because the jitted loops index them
        # unchecked. np.zeros maps untouched pages lazily, so a long match's bound
        # (max_deals deals) costs memory only as deep as episodes actually go.
        depth = max_game_decisions(params) + 1
        self._states = np.zeros((depth, L.STATE_SIZE), np.int32)
        self._rows = np.zeros(depth, np.int64)
        self._child = np.zeros(depth, np.int64)
        self._vals = np.zeros((depth, width))
        self._sig = np.zeros((depth, width))
        self._path = [np.zeros(depth, np.int64) for _ in range(3)] + [
            np.zeros(depth) for _ in range(4)]

    @property
    def num_infosets(self) -> int:
        return int(self.n_rows[0])

    @property
    def width(self) -> int:
        """Columns of the tables: :func:`.tree.action_width` of the game."""
        return int(self.regrets.shape[1])

    def _reserve(self) -> None:
        """Keep the hash index at most half full after the next pass: grow it (and
        rehash) ahead of time, from the largest growth of a pass so far."""
        need = 2 * (self.num_infosets + 2 * self._pass_growth + 1024)
        if self.slot_row.shape[0] >= need or self.slot_row.shape[0] >= self._max_slots:
            return
        size = min(self._max_slots, 1 << (need - 1).bit_length())
        self.slot_row = np.full(size, -1, np.int64)
        _rehash(self.words, self.slot_row, self.num_infosets)

    def _table(self):
        return (self.words, self.slot_row, self.n_rows, self.words.shape[0], self.keys,
                self.nact, self.actions)

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations; each runs one traversal (or episode) per player.

        Raises:
            TableFullError: when the information-state table is full.
        """
        key = np.zeros(L.KEY_SIZE, np.int8)
        acts = np.zeros(L.NUM_ACTIONS, np.int64)
        probs = np.zeros(L.MAX_CHANCE_OUTCOMES)
        used = np.array([0, 0, self.deepest], np.int64)
        ret = np.zeros(L.MAX_PLAYERS)
        growth = np.array([self._pass_growth], np.int64)
        start = time.perf_counter()
        passes = n * self.params.players
        done = 0
        while done < passes:
            self._reserve()
            before = self.num_infosets
            k, status = _run_passes(
                self.sampling == "external", self._pa, self.params.players, done, passes,
                self.rng, self._table(), self.regrets, self.cum_policy, self._states, self._rows,
                self._child, self._vals, self._sig, *self._path, key, acts, probs, used, ret,
                self.epsilon, self._max_slots, growth)
            done += k
            self._pass_growth = int(growth[0])
            if status == TABLE_FULL:
                raise TableFullError(
                    f"information-state table full ({self.words.shape[0]:,} rows, "
                    f"{before:,} before this call); raise max_infosets")
        self.iteration += n
        self.nodes_touched += int(used[1])
        self.deepest = int(used[2])
        self.seconds += time.perf_counter() - start

    def average_policy(self) -> np.ndarray:
        """``float64[num_infosets, width]`` average policy (uniform where never updated)."""
        from ..flat.kernels import normalize_average

        n = self.num_infosets
        out = np.zeros((n, self.width))
        normalize_average(self.cum_policy[:n], self.nact[:n], out)
        return out

    def current_policy(self) -> np.ndarray:
        from ..flat.kernels import regret_matching

        n = self.num_infosets
        out = np.zeros((n, self.width))
        regret_matching(self.regrets[:n], self.nact[:n], out)
        return out

    def policy_on_tree(self, tree, policy: np.ndarray | None = None) -> np.ndarray:
        """This solver's (average) policy laid out on a :class:`GameTree`'s infosets
        (uniform at infosets the solver never visited) for exact evaluation."""
        from ..flat.evaluate import uniform_policy

        pol = self.average_policy() if policy is None else policy
        out = uniform_policy(tree)
        index = {self.keys[r].tobytes(): r for r in range(self.num_infosets)}
        for i in range(tree.num_infosets):
            r = index.get(tree.is_keys[i].tobytes())
            if r is not None:
                out[i] = pol[r]
        return out

    # ---- checkpoints ----------------------------------------------------------------------
    def _config(self) -> dict:
        return {"format": MCCFR_FORMAT, "rules_version": RULES_VERSION,
                "sampling": self.sampling, "epsilon": self.epsilon, "seed": self.seed,
                "params": params_record(self.params)}

    def save(self, path: str | Path) -> None:
        """Checkpoint (``.npz``, no pickle, atomic): table rows in use and the stream."""
        n = self.num_infosets
        save_checkpoint(path, dict(self._config(), iteration=self.iteration,
                                   nodes_touched=self.nodes_touched, seconds=self.seconds,
                                   deepest=self.deepest),
                        keys=self.keys[:n], nact=self.nact[:n], actions=self.actions[:n],
                        regrets=self.regrets[:n], cum_policy=self.cum_policy[:n], rng=self.rng)

    def load(self, path: str | Path) -> None:
        """Resume from :meth:`save`'s file for the same game and settings.

        Raises:
            CheckpointError: damaged file, other format / rules version / game /
                sampling / seed, or more rows than this solver's capacity.
        """
        meta, data = load_checkpoint(path, ("keys", "nact", "actions", "regrets", "cum_policy",
                                            "rng"))
        check_config(path, meta, self._config(), self.params.players)
        n = data["keys"].shape[0]
        if n > self.words.shape[0]:
            raise CheckpointError(f"{path}: {n:,} information states exceed max_infosets")
        self.slot_row = np.full(min(self._max_slots, max(4096, 1 << (4 * n).bit_length())), -1,
                                np.int64)
        self.n_rows[0] = 0
        used = np.zeros(2, np.int64)
        for r in range(n):
            pk = pack_key(data["keys"][r])
            row = find_or_insert(self.words, used, self.slot_row, self.n_rows, np.array(pk),
                                 self.words.shape[0])
            assert row == r
        self.keys[:n] = data["keys"]
        self.nact[:n] = data["nact"]
        self.actions[:n] = data["actions"]
        self.regrets[:n] = data["regrets"]
        self.cum_policy[:n] = data["cum_policy"]
        self.rng[:] = data["rng"]
        self.iteration = int(meta["iteration"])
        self.nodes_touched = int(meta["nodes_touched"])
        self.seconds = float(meta["seconds"])
        self.deepest = int(meta.get("deepest", 0))  # absent from older checkpoints
