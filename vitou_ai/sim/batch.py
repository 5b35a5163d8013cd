"""Batch simulation of deals or matches between policies, over the rules kernel.

:func:`simulate` plays ``n`` games (deals in deal mode, R8.1; matches in match
mode, R8.2 — the kernel runs the dealer draw, the rotation of the deal, the
R6 decisions and baraque) with a policy per seat, in a ``prange`` loop that
writes into one preallocated ``int32[n, N_FIELDS]`` table. Results come back
as a :class:`SimResult`: named columns and a pandas DataFrame.

Randomness, one set of streams per row (:mod:`vitou_ai.rng`), so the same
seed gives the same table on any thread count and for any split of the rows
into calls (``row0``):

- rows form *groups* of ``V`` consecutive rows, one per lineup variant
  (``V = 2`` with ``duplicate=True``: the second row of a group replays the
  first with the teams swapped);
- the first dealer (R1.4) and the hands of deal ``k`` of a group come from a
  stream keyed by ``(seed, group, k)``, and are dealt with
  ``kernel.apply_deal``: every row of a group gets the same cards at the
  same deal index, whatever happened before;
- caught gestures (R7.2) use a stream per group, decisions a stream per row.

With ``rotate_dealer=True`` (and ``dealer=-1`` in the parameters) the first
dealer of group ``g`` is seat ``g % players`` instead of a draw, which
balances the seats exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from .._numba import jit, jit_parallel
from ..bots.policy import (
    IWORK_SIZE,
    KIND_RANDOM,
    Policy,
    can_fall_back,
    decide,
    pack_policies,
)
from ..resources import check_memory
from ..rng import UINT64_MAX, check_seed, next_below, row_seed
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import (
    P_COPIES,
    P_HAND,
    P_MATCH,
    P_PLAYERS,
    P_RANKS,
    P_SCORE0,
    P_SCORE1,
    P_WILL,
    VitouParams,
)
from .random_play import sample_chance

CHUNK = 256

# ---- columns of the result table ------------------------------------------------------------
F_WINNER = 0  # deal: scoring team, -1 nobody; match: winning team, -1 draw
F_POINTS0 = 1  # deal: points scored by team 0; match: total over the match
F_POINTS1 = 2
F_RETURN0 = 3  # returns of team 0 / 1 (R8.1 capped points, or R8.2 +1/-1/0)
F_RETURN1 = 4
F_STAKE = 5  # ladder index the (last) deal was scored at
F_END = 6  # END_* of the (last) deal
F_RAISES = 7  # raises (match: over all deals)
F_REFUSALS = 8
F_NTRICKS = 9  # completed tricks of the (last) deal
F_TRICK0 = 10  # RES_* of tricks 1..3 of the (last) deal, -1 = not played
F_DEALER = 13  # (first) dealer
F_DEALS = 14  # deals played (1 in deal mode)
F_SCORE0 = 15  # scores at the end
F_SCORE1 = 16
F_DECISIONS = 17  # player decisions taken
F_VARIANT = 18  # lineup variant of the row
F_SEAT_RETURN0 = 19  # returns per seat, 4 slots (0 past the players): each for themselves
#                      in Willughby's Put (docs/RULES_family.md P7.5), else the team's return
F_SEAT_DECISIONS0 = 23  # decisions taken by each seat, 4 slots (0 past the players)
F_SEAT_FALLBACKS0 = 27  # of those, the ones where the seat's policy had no strategy and
#                         played its fallback (bots.policy.decide), 4 slots
N_FIELDS = 31
FIELD_NAMES = ("winner", "points0", "points1", "return0", "return1", "stake", "end", "raises",
               "refusals", "n_tricks", "trick1", "trick2", "trick3", "dealer", "deals", "score0",
               "score1", "decisions", "variant", "seat_return0", "seat_return1", "seat_return2",
               "seat_return3", "seat_decisions0", "seat_decisions1", "seat_decisions2",
               "seat_decisions3", "seat_fallbacks0", "seat_fallbacks1", "seat_fallbacks2",
               "seat_fallbacks3")
assert len(FIELD_NAMES) == N_FIELDS

# independent stream families derived from one seed
_DEAL_SALT = np.uint64(0x6A09E667F3BCC909)
_SEEN_SALT = np.uint64(0xBB67AE8584CAA73B)
_DECISION_SALT = np.uint64(0x3C6EF372FE94F82B)
_DEALER_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)


@jit
def draw_hands(params, rng, deck, hands):
    """Draw ``players`` hands of ``hand_size`` cards without replacement from
    the deck (``ranks`` x ``copies``, R1.1) into ``hands`` (``int64[4, 3]``); ``deck``
    is ``int64[>= ranks]`` scratch (only its first ``ranks`` slots are written)."""
    n = params[P_PLAYERS]
    h = params[P_HAND]
    nranks = params[P_RANKS]
    total = 0
    for r in range(nranks):
        deck[r] = params[P_COPIES]
        total += deck[r]
    for s in range(n):
        for i in range(h):
            k = next_below(rng, total)
            for r in range(nranks):
                k -= deck[r]
                if k < 0:
                    hands[s, i] = r
                    deck[r] -= 1
                    total -= 1
                    break


@jit
def deal_seed(seed, group, k):
    """Stream seed of the hands of deal ``k`` (``S_DEALS`` at the deal) of row group ``group``."""
    return row_seed(row_seed(np.uint64(seed) ^ _DEAL_SALT, group), np.uint64(k))


@jit
def dealer_seed(seed, group):
    """Stream seed of the first-dealer draw (R1.4) of row group ``group``."""
    return deal_seed(seed, group, _DEALER_KEY)


@jit
def seen_seed(seed, group):
    """Stream seed of the caught / missed gestures (R7.2) of row group ``group``."""
    return row_seed(np.uint64(seed) ^ _SEEN_SALT, group)


@jit
def decision_seed(seed, row):
    """Stream seed of the policies' decisions in row ``row``."""
    return row_seed(np.uint64(seed) ^ _DECISION_SALT, row)


@jit
def play_row(params, pack, lineup, seed, group, row, rotate_dealer, state, legal, probs, hands,
             deck, keybuf, iwork, rng_dec, rng_seen, rng_deal, out):
    """Play one game (deal or match) to the end and write its ``out[F_*]`` fields.

    Args:
        lineup: ``int64[players]``, the pack index of each seat's policy.
        seed, group, row: select the random streams (module docstring).
    """
    n = params[P_PLAYERS]
    rng_dec[0] = decision_seed(seed, row)
    rng_seen[0] = seen_seed(seed, group)
    K.init_state(params, state)
    if state[L.S_PHASE] == L.PH_DRAW_DEALER:  # R1.4
        if rotate_dealer:
            d = group % n
        else:
            rng_deal[0] = dealer_seed(seed, group)
            d = next_below(rng_deal, n)
        K.apply_action(params, state, L.C_DEALER0 + d)
    first_dealer = state[L.S_DEALER]
    for s in range(L.MAX_PLAYERS):
        out[F_SEAT_DECISIONS0 + s] = 0
        out[F_SEAT_FALLBACKS0 + s] = 0
    decisions = 0
    deals = 0
    raises = 0
    refusals = 0
    while not K.is_terminal(state):
        ph = state[L.S_PHASE]
        if ph == L.PH_DEAL:
            if state[L.S_REDEAL] == 2:  # F2.3: the fresh deal, from the rest of the deck
                K.apply_action(params, state, sample_chance(params, state, rng_deal, legal, probs))
                continue
            rng_deal[0] = deal_seed(seed, group, state[L.S_DEALS])
            draw_hands(params, rng_deal, deck, hands)
            K.apply_deal(params, state, hands)
            continue
        if K.is_chance(state):
            a = sample_chance(params, state, rng_seen, legal, probs)
        else:
            p = K.current_player(params, state)
            nl = K.legal_actions(params, state, legal)
            pi = lineup[p]
            if pack.kinds[pi] == KIND_RANDOM:
                # choose_action's KIND_RANDOM branch, inlined: passing the pack to a call
                # costs about 40% of the random-play rate (measured, benchmarks/bench_sim.py)
                a = legal[next_below(rng_dec, nl)]
            else:
                a, fb = decide(pack, pi, params, state, p, rng_dec, legal, nl, keybuf, iwork)
                out[F_SEAT_FALLBACKS0 + p] += fb
            out[F_SEAT_DECISIONS0 + p] += 1
            decisions += 1
        before = state[L.S_DEALS]
        K.apply_action(params, state, a)
        if state[L.S_DEALS] != before or K.is_terminal(state):  # a deal just ended
            deals += 1
            raises += state[L.S_RES_RAISES]
            refusals += state[L.S_RES_REFUSALS]
    r0 = state[L.S_RETURNS]
    r1 = state[L.S_RETURNS + 1]
    if params[P_MATCH] == 1:  # R8.2
        out[F_WINNER] = 0 if r0 > 0 else (1 if r1 > 0 else -1)
        out[F_POINTS0] = state[L.S_SCORE0] - params[P_SCORE0]
        out[F_POINTS1] = state[L.S_SCORE0 + 1] - params[P_SCORE1]
    else:
        out[F_WINNER] = state[L.S_WINNER]
        out[F_POINTS0] = state[L.S_POINTS]
        out[F_POINTS1] = state[L.S_POINTS + 1]
    out[F_RETURN0] = r0
    out[F_RETURN1] = r1
    out[F_STAKE] = state[L.S_RES_STAKE]
    out[F_END] = state[L.S_END]
    out[F_RAISES] = raises
    out[F_REFUSALS] = refusals
    nt = state[L.S_RES_NTRICKS]
    out[F_NTRICKS] = nt
    for t in range(3):  # tricks 1..3 (Willughby's later tricks are not in the table)
        out[F_TRICK0 + t] = state[L.S_RES_TRES + t] if t < nt else -1
    out[F_DEALER] = first_dealer
    out[F_DEALS] = deals
    out[F_SCORE0] = state[L.S_SCORE0]
    out[F_SCORE1] = state[L.S_SCORE0 + 1]
    out[F_DECISIONS] = decisions
    np_ = params[P_PLAYERS]
    for s in range(4):
        if s >= np_:
            out[F_SEAT_RETURN0 + s] = 0
        elif params[P_WILL] == 1:
            out[F_SEAT_RETURN0 + s] = state[L.S_WRETURNS + s]
        else:
            out[F_SEAT_RETURN0 + s] = state[L.S_RETURNS + s % 2]


@jit_parallel
def simulate_batch(params, pack, lineups, seed, row0, rotate_dealer, out):
    """Play ``out.shape[0]`` games, rows ``row0 ..``; row ``j`` uses lineup
    variant ``j % V`` and group ``j // V`` (``V = lineups.shape[0]``).

    Args:
        params: ``int64[N_PARAMS]``.
        pack: a :class:`~vitou_ai.bots.policy.PolicyPack`.
        lineups: ``int64[V, players]`` pack index per variant and seat.
        seed: ``uint64`` batch seed.
        out: ``int32[n, N_FIELDS]``, written (no allocation in the loop beyond
            per-chunk scratch).
    """
    n_rows = out.shape[0]
    v = lineups.shape[0]
    n_chunks = (n_rows + CHUNK - 1) // CHUNK
    for c in numba.prange(n_chunks):
        state = np.empty(L.STATE_SIZE, dtype=np.int32)
        legal = np.empty(L.NUM_ACTIONS, dtype=np.int64)
        probs = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.float64)
        hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), dtype=np.int64)
        deck = np.empty(L.MAX_RANKS, dtype=np.int64)
        keybuf = np.empty(L.KEY_SIZE, dtype=np.int8)
        iwork = np.zeros(IWORK_SIZE, dtype=np.int64)
        rng_dec = np.empty(1, dtype=np.uint64)
        rng_seen = np.empty(1, dtype=np.uint64)
        rng_deal = np.empty(1, dtype=np.uint64)
        for i in range(c * CHUNK, min(n_rows, (c + 1) * CHUNK)):
            row = row0 + i
            variant = row % v
            play_row(params, pack, lineups[variant], seed, row // v, row, rotate_dealer, state,
                     legal, probs, hands, deck, keybuf, iwork, rng_dec, rng_seen, rng_deal, out[i])
            out[i, F_VARIANT] = variant


# ---- Python API --------------------------------------------------------------------------------


def swap_teams(lineup: Sequence[Policy]) -> list[Policy]:
    """The lineup with the teams swapped: seat ``s`` gets seat ``s ^ 1``'s policy
    (four players: 0<->1, 2<->3; two players: 0<->1). Three players (Willughby's Put,
    each for themselves): seats 0, 1, 2 get seats 1, 0, 1's, so an alternating lineup
    ``a b a`` becomes its complement ``b a b``: on the same cards every seat is played
    once by each bot."""
    if len(lineup) == 3:
        return [lineup[1], lineup[0], lineup[1]]
    return [lineup[s ^ 1] for s in range(len(lineup))]


#: the largest share of a policy's decisions that may fall back (no strategy at the
#: information state: the policy's fallback plays) before :func:`simulate` and
#: :func:`~vitou_ai.eval.tournament.run_tournament` refuse, unless ``allow_fallback``
#: (``--allow-fallback`` on the command line)
FALLBACK_LIMIT = 0.01
#: games played first to measure the fallback share before the work starts (the probe's
#: rows are the run's first rows: nothing is played twice)
PROBE_GAMES = 512


class FallbackError(ValueError):
    """A policy fell back at more than :data:`FALLBACK_LIMIT` of its decisions."""


def fallback_counts(table: np.ndarray, seats: np.ndarray, n_policies: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Decisions and fallbacks of each policy over the rows of a result table.

    Args:
        table: ``int32[n, N_FIELDS]`` rows of :func:`simulate_batch`.
        seats: ``int64[V, players]``, the policy index of each variant's seats.
        n_policies: ``P``, one more than the largest index.

    Returns:
        ``(decisions, fallbacks)``, both ``int64[P]``.
    """
    decisions = np.zeros(n_policies, np.int64)
    fallbacks = np.zeros(n_policies, np.int64)
    v, players = seats.shape
    variant = np.asarray(table[:, F_VARIANT])
    for s in range(players):
        for col, total in ((F_SEAT_DECISIONS0 + s, decisions), (F_SEAT_FALLBACKS0 + s, fallbacks)):
            if v == 1:  # no copy of the table: one column's sum
                per_variant = [int(table[:, col].sum(dtype=np.int64))]
            else:  # exact: counts far below 2**53
                per_variant = np.bincount(variant, weights=table[:, col], minlength=v)
            for k in range(v):
                total[seats[k, s]] += int(per_variant[k])
    return decisions, fallbacks


def policy_info(policies: Sequence[Policy], names: Sequence[str] | None = None
                ) -> tuple[dict, ...]:
    """``name``, ``kind``, ``file`` and ``fallback_to`` of each policy
    (:func:`fallback_report`)."""
    from ..bots.named import fallback_label

    names = [p.name for p in policies] if names is None else list(names)
    return tuple({"name": name,
                  "kind": _KIND_LABEL.get(type(pol).__name__, str(getattr(pol, "kind", ""))),
                  "file": str(pol.path) if getattr(pol, "path", None) else None,
                  "fallback_to": fallback_label(pol)}
                 for pol, name in zip(policies, names, strict=True))


def fallback_report(policies: Sequence[Policy] | Sequence[dict], decisions: Sequence[int],
                    fallbacks: Sequence[int], names: Sequence[str] | None = None
                    ) -> tuple[dict, ...]:
    """One JSON-ready dict per policy: ``name``, ``kind``, ``file`` (the file it was read
    from, or ``None``), ``decisions``, ``fallbacks``, ``share`` (``fallbacks /
    decisions``; ``None`` without decisions) and ``fallback_to``
    (what played at the states it had no strategy for: ``"random"``, a named heuristic bot,
    ``"heuristic"``; ``None`` for the kinds that play every state: random, heuristic and
    neural policies). ``policies``: the policy objects, or their :func:`policy_info`."""
    infos = policies if policies and isinstance(policies[0], dict) else \
        policy_info(policies, names)
    return tuple({"name": info["name"], "kind": info["kind"], "file": info.get("file"),
                  "decisions": int(d),
                  "fallbacks": int(f), "share": float(f) / float(d) if d else None,
                  "fallback_to": info["fallback_to"]}
                 for info, d, f in zip(infos, decisions, fallbacks, strict=True))


_KIND_LABEL = {"RandomPolicy": "random", "HeuristicPolicy": "heuristic",
               "TabularPolicy": "tabular", "AbstractPolicy": "abstract", "NeuralPolicy": "neural"}


def check_fallback(report: Sequence[dict], games: int, mode: str,
                   limit: float = FALLBACK_LIMIT, scope: str = "") -> None:
    """Refuse, in one line, the first policy of ``report`` (:func:`fallback_report`) that
    fell back at more than ``limit`` of its decisions in ``games`` games (``scope``: what
    follows them in the message, e.g. ``" of each pairing"``).

    Raises:
        FallbackError: naming the policy, the share, what played instead and the keyword /
            option that allows it.
    """
    for r in report:
        if r["share"] is not None and r["share"] > limit:
            unit = "matches" if mode == "match" else "deals"
            where = f" ({r['file']})" if r.get("file") else ""
            raise FallbackError(
                f"policy {r['name']!r}{where} had no strategy at {r['share']:.1%} of its "
                f"{r['decisions']:,} decisions in the first {games:,} {unit}{scope} (limit "
                f"{limit:.0%}): its table has no row for those information states (not "
                f"reached in training), and its fallback ({r['fallback_to']}) played them; "
                "pass --allow-fallback (allow_fallback=True) to play it anyway")


def _team_name(names: Sequence[str], team: int) -> str:
    seats = sorted({names[s] for s in range(team, len(names), 2)})
    return "+".join(seats)


@dataclass(frozen=True)
class SimResult:
    """Outcome of :func:`simulate`: ``table`` is ``int32[n, N_FIELDS]`` (read-only),
    one row per game, columns ``FIELD_NAMES`` (``F_*``).

    Attributes:
        params: the game parameters.
        lineups: policy names per variant and seat.
        seed, row0: the batch seed and the index of the first row.
        seats: ``int64[V, players]``, the index of each variant's seats' policy in
            ``policies``.
        policies: :func:`policy_info` of each distinct policy of the lineups, in order
            of first appearance.
    """

    params: VitouParams
    lineups: tuple[tuple[str, ...], ...]
    seed: int
    row0: int
    table: np.ndarray
    seats: np.ndarray | None = None
    policies: tuple[dict, ...] = ()

    @functools.cached_property
    def fallback(self) -> tuple[dict, ...]:
        """One dict per distinct policy of the lineups, in order of first appearance
        (:func:`fallback_report`): its decisions, how many fell back (no strategy at the
        information state, its fallback played), the ``share`` and ``fallback_to``.
        Computed from the table on first use."""
        if self.seats is None:
            return ()
        counts = fallback_counts(self.table, self.seats, len(self.policies))
        return fallback_report(self.policies, *counts)

    def __len__(self) -> int:
        return self.table.shape[0]

    def __getitem__(self, name: str) -> np.ndarray:
        """Column ``name`` (a read-only view)."""
        return self.table[:, FIELD_NAMES.index(name)]

    def arrays(self) -> dict[str, np.ndarray]:
        """All columns as a dict of read-only views."""
        return {name: self.table[:, i] for i, name in enumerate(FIELD_NAMES)}

    def team_policy(self, team: int) -> np.ndarray:
        """Name of the policy (or ``a+b``) playing ``team`` in each row."""
        names = np.array([_team_name(v, team) for v in self.lineups], dtype=object)
        return names[self["variant"]]

    def to_frame(self):
        """A pandas DataFrame, one row per game.

        Deal mode: ``winner`` (-1 nobody), ``points0/1``, ``return0/1``, ``stake``
        (label: 1 3 6 12 B), ``end`` (``tricks``, ``refused``, ...), ``raises``,
        ``refusals``, ``n_tricks``, ``trick1..3`` (``0``, ``1``, ``void``, or
        missing), ``dealer``, ``decisions``, ``team0_policy``, ``team1_policy``.
        Match mode: ``winner`` (-1 draw), ``score0/1`` final, ``points0/1``
        scored in the match, ``deals``, ``raises``, ``refusals``, ``dealer``
        (first), ``decisions``, the last deal's ``end`` and ``stake``, and the
        team policies.
        """
        import pandas as pd

        a = self.arrays()
        labels = self.params.ladder_labels
        df = pd.DataFrame({k: np.asarray(v) for k, v in a.items()})
        df["stake"] = pd.Categorical.from_codes(a["stake"], categories=list(labels))
        df["end"] = pd.Categorical.from_codes(a["end"], categories=list(L.END_NAMES))
        tricks = ["0", "1", "void"]
        if self.params.willughby:  # P7.1: the winning seat, or a tied trick (RES_VOID_SEAT)
            tricks = ["0", "1", "2", "3", "void"]
        for t in (1, 2, 3):
            df[f"trick{t}"] = pd.Categorical.from_codes(a[f"trick{t}"], categories=tricks)
        df["team0_policy"] = self.team_policy(0)
        df["team1_policy"] = self.team_policy(1)
        if self.params.mode == "match":
            drop = ["n_tricks", "trick1", "trick2", "trick3"]
        else:
            drop = ["deals", "score0", "score1"]
        n = self.params.players
        if self.params.willughby:  # P7.5: per-seat returns; no teams
            drop += ["points0", "points1", "return0", "return1", "team0_policy",
                     "team1_policy"]
            drop += [f"seat_return{s}" for s in range(n, 4)]
        else:
            drop += [f"seat_return{s}" for s in range(4)]
        drop += [f"seat_{c}{s}" for c in ("decisions", "fallbacks") for s in range(n, 4)]
        return df.drop(columns=drop)


def simulate(params: VitouParams, lineup: Sequence[Policy] | Sequence[Sequence[Policy]], n: int,
             seed: int = 0, duplicate: bool = False, rotate_dealer: bool = False,
             row0: int = 0, allow_fallback: bool = False) -> SimResult:
    """Play ``n`` deals (``params.mode == "deal"``) or matches (``"match"``).

    Args:
        params: the game; ``dealer=-1`` draws the (first) dealer (R1.4).
        lineup: a policy per seat, or a list of such lineups (variants; row
            ``j`` plays variant ``j % V``).
        n: number of rows (games), >= 0.
        seed: batch seed, 0 .. 2**64-1.
        duplicate: play each group twice, the second time with the teams
            swapped (:func:`swap_teams`), on the same cards. Needs a single lineup.
        rotate_dealer: first dealer of group ``g`` is ``g % players`` (needs
            ``params.dealer == -1``).
        row0: index of the first row, to split a long run into calls that
            give the same rows as one call.
        allow_fallback: play a tabular or abstract policy outside the scores and dealers
            it was trained for, or that has no strategy at more than
            :data:`FALLBACK_LIMIT` of its decisions (its fallback plays there). By
            default such a policy is refused: outside its domain at once
            (:func:`~vitou_ai.bots.named.check_bot_fits`), and for its share after the
            first :data:`PROBE_GAMES` rows, before the rest; either way
            :attr:`SimResult.fallback` gives each policy's share.

    Raises:
        ValueError: a lineup of the wrong length, ``n < 0``, a bad combination, a seed
            out of range, a policy trained for another game or variant; a table of ``n``
            rows larger than the memory available
            (:class:`vitou_ai.resources.ResourceError`).
        FallbackError: (a ``ValueError``) a policy that fell back at more than
            :data:`FALLBACK_LIMIT` of its decisions in the first rows, unless
            ``allow_fallback``.
        TypeError: ``params`` not a ``VitouParams``, an object that is not a policy.

    Examples:
        >>> import vitou_ai
        >>> lineup = [vitou_ai.load_policy("counter"), vitou_ai.load_policy("random")] * 2
        >>> frame = vitou_ai.simulate(vitou_ai.VitouParams(), lineup, 100, seed=1).to_frame()
        >>> len(frame), "return0" in frame.columns
        (100, True)
    """
    from ..bots.named import check_policies

    seed = check_seed(seed, "seed", UINT64_MAX)
    if isinstance(lineup, str) or not isinstance(lineup, Sequence):
        raise TypeError(f"lineup must be a list of policies (one per seat), got "
                        f"{type(lineup).__name__}")
    nested = len(lineup) > 0 and isinstance(lineup[0], list | tuple)
    lineups = [list(lu) for lu in lineup] if nested else [list(lineup)]
    check_policies([p for lu in lineups for p in lu], params, allow_fallback=allow_fallback)
    if duplicate:
        if len(lineups) != 1:
            raise ValueError("duplicate=True takes a single lineup")
        lineups = [list(lineups[0]), swap_teams(lineups[0])]
    for lu in lineups:
        if len(lu) != params.players:
            raise ValueError(f"a lineup needs {params.players} policies (one per seat), got {len(lu)}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if rotate_dealer and params.dealer != -1:
        raise ValueError("rotate_dealer needs dealer=-1 (a first dealer to choose)")
    unique: list[Policy] = []
    index: dict[int, int] = {}
    for lu in lineups:
        for pol in lu:
            if id(pol) not in index:
                index[id(pol)] = len(unique)
                unique.append(pol)
    pack = pack_policies(unique, params.signals)
    seats = np.array([[index[id(p)] for p in lu] for lu in lineups], dtype=np.int64)
    check_memory(4.0 * N_FIELDS * n, f"n = {n:,} rows", "simulate fewer, in calls with row0")
    out = np.empty((n, N_FIELDS), dtype=np.int32)
    pa = params.to_array()
    probe = 0
    if n and not allow_fallback and any(can_fall_back(p) for p in unique):
        # the first rows first: a policy that falls back too often is refused before the
        # rest is played (rows do not depend on the split, so the table is the same)
        probe = min(n, PROBE_GAMES)
        simulate_batch(pa, pack, seats, np.uint64(seed), np.int64(row0), bool(rotate_dealer),
                       out[:probe])
        check_fallback(fallback_report(unique, *fallback_counts(out[:probe], seats,
                                                                len(unique))),
                       probe, params.mode)
    if n > probe:
        simulate_batch(pa, pack, seats, np.uint64(seed), np.int64(row0 + probe),
                       bool(rotate_dealer), out[probe:])
    out.flags.writeable = False
    names = tuple(tuple(p.name for p in lu) for lu in lineups)
    seats.flags.writeable = False
    return SimResult(params, names, int(seed), int(row0), out, seats, policy_info(unique))
