"""Bluff analysis of a policy from sampled deals (any game the simulator plays).

The exact analysis (:mod:`.analysis`) needs the deal's whole game tree, which the
four-player game (R1.1, 32 cards, 3-card hands) does not have. Here ``N`` deals are
played with one policy at every seat, over the rules kernel
(:mod:`vitou_ai.rules.kernel`, the simulator's hands and random streams,
:mod:`vitou_ai.sim.batch`), and every player decision is recorded with the policy's
exact action probabilities there (:func:`vitou_ai.bots.exact.policy_probs`: a
tabular or abstract row, or a heuristic fallback with its random draws enumerated).
The deal goes on with an action drawn from those probabilities, so the deals are
the policy's own.

*Rao-Blackwellised counts*: a decision adds the policy's probability of each action
class (raise, accept, refuse, play, gesture), not the indicator of the action
drawn; the expected count of, e.g., raises in a row of a table is the sum of
``P(raise)`` over the decisions sampled in that row. It has the same expectation
as the count of raises drawn and a smaller variance (the action's own draw is
averaged out; the trajectory's randomness is not). Per deal these sums are the
sampled counterpart of the exact tree's reach-weighted sums: a rate of
:func:`rate_table` converges to the reach-weighted rate of
:func:`~vitou_ai.eval.analysis.raise_frequencies` and friends on a game whose
tree exists (the tests check it).

Definitions (documented choices; the exact analysis' where it has one):

- *position*: ``(seat - dealer - 1) % players``, 0 = the dealer's left, who leads
  the first trick (R1.3).
- *stake*: the ladder label standing at the decision (R4.1); for an answer, the
  raise being answered (R4.3), as :func:`~vitou_ai.eval.analysis.infoset_table`.
- *trick*: 1-based, the trick being played (tricks completed + 1); gestures
  (R7.1) and the R6 decisions count as trick 1.
- *hand strength*: ``best_card``, the best rank of the hand the player was dealt
  (R1.2; ``-`` before the deal, R9.2's blind window), as in the exact analysis;
  it does not change as the cards are played. A hand is *weak* when its best card
  is ``weak_rank`` or lower (default ``K``: no ``T``, ``9`` or ``A``, the hand whose
  honest gesture is ``nohigh``, R7).
- *bluff*: a raise (first raise or re-raise, R4.2, R4.3) with a weak hand. The
  exact analysis calls a raise a bluff when the raiser's team is less likely to
  win the deal than to lose it (``p_win < p_lose``), a chance against the
  opponents' range that sampled deals do not give; the weak-hand test is its
  stand-in, known from the raiser's own cards. The *bluff share* is the share of
  expected raises that are bluffs.
- *partner's gesture* (R7): the gesture the partner made this deal (the partner
  always sees it, R7.2): ``none``, ``ten``, ``nine``, ``ace``, ``nohigh``, or ``-``
  (not made yet, signals off, a two-player game).
- *false gesture*: a gesture other than ``none`` that differs from the honest one
  for the hand (:mod:`.analysis`).
- *base* of a rate, carried in every table: ``per_deal`` (the expected number of
  decisions the rate rests on per deal: decisions where a raise is allowed for the
  raise rate, answers to a raise for the refusal rate, expected raises for the
  bluff share, expected gestures made for the false-gesture share), and
  ``decisions`` (sampled decisions in the row).
- *interval*: the ratio estimator ``sum_deals(y) / sum_deals(x)`` with its normal
  interval from the linearisation (delta-method) variance over deals, the deal
  being the independent unit (Cochran 1977, *Sampling Techniques*, section 6.3:
  :func:`vitou_ai.eval.stats.ratio_interval`; the normal quantile from Python's
  ``statistics.NormalDist``), clipped to ``[0, 1]``. Decisions of one deal are not
  independent; deals are.

One module because the jitted sampler writes the decision table whose column layout
(``_I_*``, ``_F_*``) the frame, the rate tables and the fallback count read; split, each
part would need the others' layout.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pandas as pd

from .._numba import jit, jit_parallel
from ..bots.exact import MAX_DRAWS, breakpoints, policy_probs_flagged
from ..bots.policy import IWORK_SIZE, policy_pack
from ..rng import UINT64_MAX, check_seed, next_float
from ..rules import kernel as K
from ..rules import layout as L
from ..rules.params import P_HAND, P_PLAYERS
from ..sim.batch import (
    FALLBACK_LIMIT,
    check_fallback,
    deal_seed,
    decision_seed,
    draw_hands,
    fallback_report,
    seen_seed,
)
from ..sim.random_play import sample_chance

#: most decisions one deal may take (a four-player deal of three cards takes at most 25)
MAX_DECISIONS = 96
#: deals played per call of the jitted batch (its scratch: about 40 MB)
BLOCK = 4096
#: gesture labels of R7.1 by gesture id, and ``-`` for none made (yet)
GESTURES = ("none", "ten", "nine", "ace", "nohigh")
#: action classes and the columns of their probabilities (see :func:`sample_decisions`)
CLASSES = ("raise", "accept", "refuse", "play", "gesture", "other")

# integer columns of the kernel's decision table
_I_DEAL, _I_SEAT, _I_DEALER, _I_STAKE, _I_TRICK, _I_BEST, _I_PGEST = 0, 1, 2, 3, 4, 5, 6
_I_CANRAISE, _I_ANSWER, _I_GPHASE, _I_HONEST, _I_ACTION = 7, 8, 9, 10, 11
_NI = 12
# float columns: the classes, then false gestures
_F_RAISE, _F_ACCEPT, _F_REFUSE, _F_PLAY, _F_GEST, _F_OTHER, _F_FALSE = 0, 1, 2, 3, 4, 5, 6
_NF = 7


@jit
def _is_card(a):
    return L.A_PLAY0 <= a < L.A_RAISE or L.A_PLAY_HI0 <= a < L.A_CONCEDE


@jit
def _record(params, state, p, legal, nl, probs, k, row_i, row_f):
    """Write the decision of seat ``p`` at ``state`` (deal ``k``; legal actions
    ``legal[:nl]``, the policy's probabilities ``probs`` by action id) into one row of the
    decision table: ``row_i`` (``int32[_NI]``, all but ``_I_ACTION``) and ``row_f``
    (``float64[_NF]``). Shared by the jitted sampler and the search bot's Python loop
    (:mod:`.search_analysis`), so both record the same fields."""
    n = params[P_PLAYERS]
    h = params[P_HAND]
    best = -1
    for i in range(h):
        c = state[L.S_HAND + p * L.MAX_HAND + i]
        if c >= 0 and (best < 0 or c < best):
            best = c
    honest = 4  # R7: ten if a T, else nine if a 9, else ace if an A, else nohigh
    for g in range(3, 0, -1):
        for i in range(h):
            if state[L.S_HAND + p * L.MAX_HAND + i] == g - 1:
                honest = g
    if best < 0:
        honest = -1
    row_i[_I_DEAL] = k
    row_i[_I_SEAT] = p
    row_i[_I_DEALER] = state[L.S_DEALER]
    row_i[_I_STAKE] = state[L.S_STAKE]
    row_i[_I_TRICK] = state[L.S_NTRICKS] + 1
    row_i[_I_BEST] = best
    row_i[_I_PGEST] = state[L.S_GEST + (p + 2) % n] if n == 4 else -1
    row_i[_I_CANRAISE] = 0
    row_i[_I_ANSWER] = 0
    row_i[_I_GPHASE] = 0
    row_i[_I_HONEST] = honest
    for c in range(_NF):
        row_f[c] = 0.0
    for i in range(nl):
        a = legal[i]
        q = probs[a]
        if a == L.A_RAISE:
            row_i[_I_CANRAISE] = 1
            row_f[_F_RAISE] += q
        elif a == L.A_REFUSE:
            row_i[_I_ANSWER] = 1
            row_f[_F_REFUSE] += q
        elif a == L.A_ACCEPT:
            row_f[_F_ACCEPT] += q
        elif L.A_SIGNAL0 <= a < L.A_SIGNAL0 + 5:
            row_i[_I_GPHASE] = 1
            if a > L.A_SIGNAL0:
                row_f[_F_GEST] += q
                if a - L.A_SIGNAL0 != honest:
                    row_f[_F_FALSE] += q
            else:
                row_f[_F_OTHER] += q
        elif _is_card(a):
            row_f[_F_PLAY] += q
        else:
            row_f[_F_OTHER] += q
    if row_i[_I_ANSWER] == 1:  # R4.3: a card played without raising accepts the raise
        row_f[_F_ACCEPT] += row_f[_F_PLAY]


@jit
def _play_deal(params, pack, bounds, seed, k, state, legal, chance, hands, deck, keybuf,
               iwork, script, probs, rng_dec, rng_seen, rng_deal, ints, floats, fell):
    """Play deal ``k`` to its end and write one row of ``ints`` / ``floats`` / ``fell``
    (1: the policy fell back, :func:`~vitou_ai.bots.exact.policy_probs_flagged`) per
    decision; return the number of decisions (-1: more than ``ints.shape[0]``)."""
    n = params[P_PLAYERS]
    rng_dec[0] = decision_seed(seed, k)
    rng_seen[0] = seen_seed(seed, k)
    K.init_state(params, state)
    if state[L.S_PHASE] == L.PH_DRAW_DEALER:  # R1.4: rotated, so every seat deals N / n times
        K.apply_action(params, state, L.C_DEALER0 + k % n)
    m = 0
    while not K.is_terminal(state):
        ph = state[L.S_PHASE]
        if ph == L.PH_DEAL:
            if state[L.S_REDEAL] == 2:  # F2.3: the fresh deal, from the rest of the deck
                K.apply_action(params, state, sample_chance(params, state, rng_deal, legal,
                                                            chance))
                continue
            rng_deal[0] = deal_seed(seed, k, state[L.S_DEALS])
            draw_hands(params, rng_deal, deck, hands)
            K.apply_deal(params, state, hands)
            continue
        if K.is_chance(state):
            K.apply_action(params, state, sample_chance(params, state, rng_seen, legal, chance))
            continue
        if m == ints.shape[0]:
            return -1
        p = K.current_player(params, state)
        nl = K.legal_actions(params, state, legal)
        fell[m] = policy_probs_flagged(pack, 0, params, state, p, legal, nl, bounds, keybuf,
                                       iwork, script, probs)
        _record(params, state, p, legal, nl, probs, k, ints[m], floats[m])
        u = next_float(rng_dec)  # the action, drawn from the same probabilities
        a = legal[nl - 1]
        for i in range(nl):
            u -= probs[legal[i]]
            if u < 0.0:
                a = legal[i]
                break
        ints[m, _I_ACTION] = a
        m += 1
        K.apply_action(params, state, a)
    return m


@jit_parallel
def _sample_batch(params, pack, bounds, seed, k0, n_deals, ints, floats, fell, counts):
    """Deals ``k0 .. k0 + n_deals - 1``; deal ``k0 + i`` writes rows ``i * cap ..`` of
    ``ints`` / ``floats`` (``cap = ints.shape[0] // n_deals``) and its decision count in
    ``counts[i]``."""
    cap = ints.shape[0] // n_deals
    chunk = 256
    n_chunks = (n_deals + chunk - 1) // chunk
    na = L.NUM_ACTIONS_WILLUGHBY  # every game's action ids fit (policy_probs writes by id)
    for c in numba.prange(n_chunks):
        state = np.empty(L.STATE_SIZE, dtype=np.int32)
        legal = np.empty(na, dtype=np.int64)
        chance = np.empty(L.MAX_CHANCE_OUTCOMES, dtype=np.float64)
        hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), dtype=np.int64)
        deck = np.empty(L.MAX_RANKS, dtype=np.int64)
        keybuf = np.empty(L.KEY_SIZE, dtype=np.int8)
        iwork = np.zeros(IWORK_SIZE, dtype=np.int64)
        script = np.zeros(2 + MAX_DRAWS, dtype=np.uint64)
        probs = np.zeros(na, dtype=np.float64)
        rng_dec = np.empty(1, dtype=np.uint64)
        rng_seen = np.empty(1, dtype=np.uint64)
        rng_deal = np.empty(1, dtype=np.uint64)
        for i in range(c * chunk, min(n_deals, (c + 1) * chunk)):
            lo = i * cap
            counts[i] = _play_deal(params, pack, bounds, seed, k0 + i, state, legal, chance, hands,
                                   deck, keybuf, iwork, script, probs,
                                   rng_dec, rng_seen, rng_deal, ints[lo:lo + cap],
                                   floats[lo:lo + cap], fell[lo:lo + cap])


@dataclass(frozen=True)
class SampledDecisions:
    """What :func:`sample_decisions` returns.

    Attributes:
        frame: one row per decision (columns in :func:`sample_decisions`).
        deals: ``N``, the number of deals played (the unit of the intervals).
        params: the game (a :class:`~vitou_ai.rules.VitouParams`).
        policy: the policy's name.
        weak_rank: the rank label at and below which a best card is weak.
        seed: the seed of the deals.
        fallback: the policy's :func:`~vitou_ai.sim.batch.fallback_report` entry:
            ``decisions``, ``fallbacks`` (decisions where a tabular or abstract policy had
            no strategy and its fallback's probabilities were recorded, also the frame's
            ``fell_back`` column), ``share`` and ``fallback_to``; ``None`` where not
            counted (:mod:`.search_analysis`).
    """

    frame: pd.DataFrame
    deals: int
    params: object
    policy: str
    weak_rank: str
    seed: int
    fallback: dict | None = None


def _check(params, policy, n_deals: int, weak_rank: str,
           where: str = "sample_decisions") -> None:
    from ..bots.named import check_policies
    from ..bots.neural import NeuralPolicy

    if isinstance(n_deals, bool) or not isinstance(n_deals, int | np.integer) or n_deals <= 0:
        raise ValueError(f"n_deals must be a positive integer, got {n_deals!r}")
    check_policies([policy], params)  # TypeError / ValueError: another game's policy
    if isinstance(policy, NeuralPolicy):
        raise ValueError(f"{where} needs exact action probabilities; a neural policy "
                         "has none here (bots.exact.policy_probs)")
    if params.mode != "deal":
        raise ValueError(f"{where} plays single deals (R8.1): give mode='deal', got "
                         f"{params.mode!r}")
    if params.willughby:
        raise ValueError(f"{where} reads teams and partners; Willughby's Put has none "
                         "(docs/RULES_family.md P7.0)")
    if weak_rank not in params.rank_labels:
        raise ValueError(f"weak_rank must be one of the game's ranks {params.rank_labels}, got "
                         f"{weak_rank!r}")


def sample_decisions(params, policy, n_deals: int, seed: int = 0,
                     weak_rank: str = "K", allow_fallback: bool = False) -> SampledDecisions:
    """Play ``n_deals`` deals with ``policy`` at every seat and record every decision.

    The dealer of deal ``k`` is seat ``k % players`` when ``params.dealer == -1`` (R1.4's
    uniform draw, balanced exactly), else ``params.dealer``; the hands, the caught
    gestures (R7.2) and the decisions use the simulator's streams for ``(seed, k)``.

    Args:
        params: the game (:class:`~vitou_ai.rules.VitouParams`), deal mode (R8.1).
        policy: a random, heuristic, tabular or abstract policy made for ``params``
            (``vitou_ai.load_policy``).
        n_deals: ``N >= 1``.
        weak_rank: a hand whose best card is this rank or lower is weak (module
            docstring; default ``K``).
        allow_fallback: analyse a tabular or abstract policy that had no strategy at more
            than :data:`~vitou_ai.sim.batch.FALLBACK_LIMIT` (1%) of its decisions (its
            fallback's play is then folded into the rates). By default it is refused,
            after the first block of at most :data:`BLOCK` deals, before the rest.

    Returns:
        :class:`SampledDecisions`; its ``frame`` has one row per decision:
        ``deal`` (int64, 0 .. N-1), ``seat``, ``team`` (``seat % 2``), ``position``
        (0 = dealer's left, R1.3), ``dealer`` (int8 each), ``stake`` (ordered
        categorical of the ladder labels, R4.1), ``trick`` (int8, 1-based),
        ``best_card`` (ordered categorical, ``-`` then the ranks high to low),
        ``weak`` (bool), ``partner_gesture`` (categorical ``-`` and :data:`GESTURES`,
        R7), ``can_raise``, ``answering`` (a raise awaits this player's answer,
        R4.3), ``gesture_phase`` (R7.1) (bool each), the policy's probabilities
        (float64; ``raise + refuse + play + gesture + other`` is 1, and 1 minus
        the two-player answer's ``accept``, R9.2): ``raise`` (raise or re-raise),
        ``accept`` (at an answer: play a card without re-raising, R4.3; the
        two-player answer's ``accept``, R9.2), ``refuse``, ``play`` (any card),
        ``gesture`` (a gesture other than ``none``), ``other`` (``none``, ``go``,
        ``pass``, ...), ``false_gesture`` (probability of a false gesture), and
        ``action`` (int16, the action id drawn), ``fell_back`` (bool: the policy had no
        strategy here and its fallback's probabilities were recorded); its ``fallback``
        attribute gives the share.

    Raises:
        ValueError: ``n_deals <= 0``; a policy of another game or variant; a neural
            policy; match mode; Willughby's Put; an unknown ``weak_rank``; a deal of
            more than :data:`MAX_DECISIONS` decisions;
            :class:`~vitou_ai.sim.batch.FallbackError` (a ``ValueError``): a policy that
            fell back at more than ``FALLBACK_LIMIT`` of its decisions, unless
            ``allow_fallback``.
        TypeError: ``params`` not a ``VitouParams``, ``policy`` not a policy.
    """
    _check(params, policy, n_deals, weak_rank)
    seed = check_seed(seed, "seed", UINT64_MAX)
    n_deals = int(n_deals)
    pack = policy_pack(policy, params.signals)
    cap = MAX_DECISIONS
    block = min(n_deals, BLOCK)
    ints_b = np.zeros((block * cap, _NI), np.int32)
    floats_b = np.zeros((block * cap, _NF), np.float64)
    fell_b = np.zeros(block * cap, np.int8)
    counts = np.zeros(block, np.int64)
    parts_i, parts_f, parts_fell = [], [], []
    arr, bounds = params.to_array(), breakpoints(pack.fparams[0])
    for k0 in range(0, n_deals, block):  # blocks of deals: the scratch stays small
        nb = min(block, n_deals - k0)
        _sample_batch(arr, pack, bounds, np.uint64(seed), np.int64(k0), np.int64(nb),
                      ints_b[:nb * cap], floats_b[:nb * cap], fell_b[:nb * cap], counts[:nb])
        if (counts[:nb] < 0).any():
            raise ValueError(f"a deal took more than MAX_DECISIONS = {cap} decisions")
        keep = (np.arange(cap)[None, :] < counts[:nb, None]).ravel()
        parts_i.append(ints_b[:nb * cap][keep])
        parts_f.append(floats_b[:nb * cap][keep])
        parts_fell.append(fell_b[:nb * cap][keep])
        fell = np.concatenate(parts_fell)
        report = fallback_report([policy], [len(fell)], [int(fell.sum(dtype=np.int64))])
        if not allow_fallback:  # the first block is the probe: the rest is not played
            check_fallback(report, k0 + nb, "deal", FALLBACK_LIMIT)
    ints, floats = np.concatenate(parts_i), np.concatenate(parts_f)
    frame = _frame(params, ints, floats, weak_rank)
    frame["fell_back"] = fell.astype(bool)
    return SampledDecisions(frame, n_deals, params,
                            getattr(policy, "name", type(policy).__name__), weak_rank,
                            int(seed), report[0])


def _frame(params, ints: np.ndarray, floats: np.ndarray, weak_rank: str) -> pd.DataFrame:
    n = params.players
    ranks = list(params.rank_labels)
    labels = list(params.ladder_labels)
    seat = ints[:, _I_SEAT]
    dealer = ints[:, _I_DEALER]
    best = ints[:, _I_BEST]
    df = pd.DataFrame({
        "deal": ints[:, _I_DEAL].astype(np.int64),
        "seat": seat.astype(np.int8), "team": (seat % 2).astype(np.int8),
        "position": ((seat - dealer - 1) % n).astype(np.int8),
        "dealer": dealer.astype(np.int8),
        "stake": pd.Categorical.from_codes(np.minimum(ints[:, _I_STAKE], len(labels) - 1),
                                           categories=labels, ordered=True),
        "trick": ints[:, _I_TRICK].astype(np.int8),
        "best_card": pd.Categorical.from_codes(best + 1, categories=["-", *ranks],
                                               ordered=True),
        "weak": best >= ranks.index(weak_rank),
        "partner_gesture": pd.Categorical.from_codes(ints[:, _I_PGEST] + 1,
                                                     categories=["-", *GESTURES]),
        "can_raise": ints[:, _I_CANRAISE] == 1,
        "answering": ints[:, _I_ANSWER] == 1,
        "gesture_phase": ints[:, _I_GPHASE] == 1,
    })
    for c, name in enumerate(CLASSES):
        df[name] = floats[:, c]
    df["false_gesture"] = floats[:, _F_FALSE]
    df["action"] = ints[:, _I_ACTION].astype(np.int16)
    return df


#: the rates of :func:`rate_table`: (rows it is taken over, numerator, denominator), the
#: last two as columns of the decision frame (``_raise_weak`` = raise x weak)
RATES = {
    "raise": ("can_raise", "raise", None),
    "refuse": ("answering", "refuse", None),
    "bluff": ("can_raise", "_raise_weak", "raise"),
    "false_gesture": ("gesture_phase", "false_gesture", "gesture"),
}


def _deal_sums(sample: SampledDecisions, rate: str, by: list[str] | None,
               confidence: float) -> list[tuple[object, np.ndarray, np.ndarray, int]]:
    """The numerator and denominator of ``rate`` summed per deal, for each group of ``by``:
    ``(key, y, x, decisions)`` with ``y``, ``x`` ``float64[sample.deals]`` (deal ``k`` at
    index ``k``; zero where the deal has no decision in the group) and the group's
    sampled decisions; ``key`` is ``"all"`` without ``by``. Raises as :func:`rate_table`."""
    if rate not in RATES:
        raise ValueError(f"unknown rate {rate!r}; known: {', '.join(RATES)}")
    by = list(by or [])
    df = sample.frame
    missing = [c for c in by if c not in df.columns]
    if missing:
        raise ValueError(f"no column {missing} in the decision frame; known: "
                         f"{', '.join(df.columns)}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    rows, num, den = RATES[rate]
    d = df[df[rows]].copy()
    d["_raise_weak"] = d["raise"] * d["weak"]
    d["_y"] = d[num]
    d["_x"] = 1.0 if den is None else d[den]
    keys = by + ["deal"]
    per = d.groupby(keys, observed=True)[["_y", "_x"]].sum()
    n_dec = d.groupby(by, observed=True).size() if by else pd.Series({"all": len(d)})
    out = []
    groups = per.groupby(level=list(range(len(by))), observed=True) if by else [("all", per)]
    for key, g in groups:
        if len(by) == 1 and isinstance(key, tuple):
            key = key[0]
        y = np.zeros(sample.deals)
        x = np.zeros(sample.deals)
        idx = g.index.get_level_values("deal").to_numpy()
        y[idx] = g["_y"].to_numpy()
        x[idx] = g["_x"].to_numpy()
        out.append((key, y, x, int(n_dec.loc[key])))
    return out


def rate_table(sample: SampledDecisions, rate: str, by: list[str] | None = None,
               confidence: float = 0.95) -> pd.DataFrame:
    """A rate by the columns ``by`` of the decision frame, with its base and interval.

    Rates (module docstring): ``raise`` (P(raise) where a raise is allowed, R4.2),
    ``refuse`` (P(refuse) at an answer to a raise, R4.3), ``bluff`` (share of expected
    raises made with a weak hand), ``false_gesture`` (share of expected gestures made
    that are false, R7). All sums are of the policy's probabilities (Rao-Blackwellised).

    Args:
        sample: :func:`sample_decisions`.
        rate: a key of :data:`RATES`.
        by: columns of ``sample.frame`` (default: none, one row for the whole sample).

    Returns:
        One row per group (index ``by``; one row ``all`` without), columns ``rate``
        (float64), ``low``, ``high`` (the ``confidence`` interval over deals, clipped to
        [0, 1]; NaN, as ``rate``, for a group whose base is 0; NaN with fewer than 30
        deals in the group's base, or when every such deal has the same rate:
        :mod:`vitou_ai.eval.stats`), ``per_deal`` (the base:
        the denominator's expected decisions per deal, float64), ``decisions`` (int64,
        sampled decisions in the group), ``fallback_share`` (float64, the share of those
        decisions where the policy had no strategy and its fallback played,
        :attr:`SampledDecisions.fallback`; NaN for a frame without ``fell_back``).

    Raises:
        ValueError: an unknown ``rate``, a column of ``by`` the frame does not have, a bad
            ``confidence``.
    """
    from .stats import ratio_interval

    by = list(by or [])
    sums = _deal_sums(sample, rate, by, confidence)  # checks rate, by, confidence first
    df = sample.frame
    fell = None
    if "fell_back" in df.columns:  # the share of the rate's decisions the fallback played
        d = df[df[RATES[rate][0]]]
        fell = (d.groupby(by, observed=True)["fell_back"].mean() if by
                else pd.Series({"all": d["fell_back"].mean()}))
    out = []
    for key, y, x, n_dec in sums:
        if x.sum() > 0:
            r, lo, hi = ratio_interval(y, x, confidence)
        else:
            r = lo = hi = float("nan")
        # clipped to [0, 1]; NaN (no base) stays NaN (max(0.0, nan) would give 0.0)
        out.append({"_key": key, "rate": r, "low": float(np.clip(lo, 0.0, 1.0)),
                    "high": float(np.clip(hi, 0.0, 1.0)),
                    "per_deal": x.sum() / sample.deals, "decisions": n_dec,
                    "fallback_share": float("nan") if fell is None else float(fell.loc[key])})
    return _grouped(out, by, ["rate", "low", "high", "per_deal", "decisions",
                              "fallback_share"])


def _grouped(rows: list[dict], by: list[str], columns: list[str]) -> pd.DataFrame:
    """The table of ``rows`` (dicts with ``_key``, the group of :func:`_deal_sums`),
    indexed by ``by`` (a MultiIndex for two or more columns, ``all`` without); empty
    with ``columns`` when there are no rows."""
    if not rows:
        return pd.DataFrame(columns=columns)
    t = pd.DataFrame(rows)
    if len(by) > 1:
        t.index = pd.MultiIndex.from_tuples(t.pop("_key"), names=by)
    else:
        t.index = pd.Index(t.pop("_key").tolist(), name=by[0] if by else None)
    return t


def plot_rates(sample: SampledDecisions, rate: str, by: list[str], ax=None, title: str = "",
               min_per_deal: float = 0.01, confidence: float = 0.95):
    """Bars of :func:`rate_table` ``by`` one or two columns (the second as series), with
    the interval as error bars; a bar whose base ``per_deal`` is below ``min_per_deal``
    (expected decisions per deal) is hatched in grey, as :func:`.analysis.plot_summary`.

    Returns:
        The matplotlib Axes (a new Figure, Agg canvas, when ``ax`` is None).

    Raises:
        ValueError: as :func:`rate_table`; ``by`` of more than two columns.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    if not 1 <= len(by) <= 2:
        raise ValueError(f"plot_rates takes one or two columns, got {by}")
    t = rate_table(sample, rate, by, confidence)
    if ax is None:
        fig = Figure(figsize=(5, 3.5))
        FigureCanvasAgg(fig)
        ax = fig.subplots()
    if len(by) == 2:
        v = t["rate"].unstack(1)
        cols = list(v.columns)
        get = {c: t.xs(c, level=1) for c in cols}
    else:
        v = t[["rate"]]
        cols = ["rate"]
        get = {"rate": t}
    x = np.arange(len(v.index))
    width = 0.8 / len(cols)
    thin = False
    for j, c in enumerate(cols):
        g = get[c].reindex(v.index)
        for i in range(len(x)):
            r = g["rate"].iloc[i]
            if pd.isna(r):
                continue
            low = not g["per_deal"].iloc[i] >= min_per_deal
            thin |= low
            xi = x[i] - 0.4 + width * (j + 0.5)
            ax.bar(xi, r, width, color="lightgrey" if low else f"C{j}",
                   hatch="///" if low else None, edgecolor="grey" if low else "none")
            ax.errorbar(xi, r, yerr=[[r - g["low"].iloc[i]], [g["high"].iloc[i] - r]],
                        color="black", lw=0.8, capsize=2)
    ax.set_xticks(x, [str(i) for i in v.index])
    ax.set_xlabel(by[0])
    ax.set_ylim(0, 1.05)
    handles = ([Patch(color=f"C{j}", label=f"{by[1]} {c}") for j, c in enumerate(cols)]
               if len(by) == 2 else [])
    if thin:
        handles.append(Patch(facecolor="lightgrey", hatch="///", edgecolor="grey",
                             label=f"base < {min_per_deal:g} per deal"))
    if handles:
        ax.legend(handles=handles, fontsize=7)
    ax.set_title(title or f"{rate} rate by {' and '.join(by)}")
    return ax


def rates_by_score(policies, params, scores, n_deals: int, seed: int = 0,
                   weak_rank: str = "K", rates=("raise", "refuse"),
                   confidence: float = 0.95, allow_fallback: bool = False) -> pd.DataFrame:
    """Rates of several policies at several scores, from each team's view (where a match-objective policy's raise and refusal rates differ from a points policy's).

    For each score ``(a, b)`` every policy plays the same ``n_deals`` deals (seed ``seed + k``
    for the ``k``-th score: common random numbers for the hands) in deal mode at that score
    (R8.1; the dealer rotates, :func:`sample_decisions`), and :func:`rate_table` splits each
    rate by team: team 0 sees the score as ``a:b``, team 1 as ``b:a``.

    Args:
        policies: ``{name: policy}`` made for ``params``' game.
        params: the game (its ``scores`` and ``dealer`` are replaced).
        scores: ``(score0, score1)`` pairs below the target.
        n_deals, seed, weak_rank, confidence, allow_fallback: as :func:`sample_decisions`
            and :func:`rate_table`.
        rates: keys of :data:`RATES`.

    Returns:
        One row per policy, score, team and rate: ``policy`` (str), ``score`` (``"a:b"``,
        the deal's), ``view`` (``"own:other"``, the team's), ``team`` (0 or 1), ``rate``
        (its name), ``value``, ``low``, ``high``, ``per_deal``, ``decisions``
        ``fallback_share`` (:func:`rate_table`; NaN where the team made no such decision).

    Raises:
        ValueError: as :func:`sample_decisions` and :func:`rate_table`.
    """
    rows = []
    for k, (a, b) in enumerate(scores):
        game = params.replace(scores=(int(a), int(b)), dealer=-1, mode="deal")
        for name, pol in policies.items():
            sample = sample_decisions(game, pol, n_deals, seed=seed + k, weak_rank=weak_rank,
                                      allow_fallback=allow_fallback)
            for rate in rates:
                t = rate_table(sample, rate, ["team"], confidence)
                for team in (0, 1):
                    r = t.loc[team] if team in t.index else None
                    own, other = (a, b) if team == 0 else (b, a)
                    nan = float("nan")
                    rows.append({"policy": name, "score": f"{a}:{b}", "view": f"{own}:{other}",
                                 "team": team, "rate": rate,
                                 "value": nan if r is None else float(r["rate"]),
                                 "low": nan if r is None else float(r["low"]),
                                 "high": nan if r is None else float(r["high"]),
                                 "per_deal": 0.0 if r is None else float(r["per_deal"]),
                                 "decisions": 0 if r is None else int(r["decisions"]),
                                 "fallback_share": nan if r is None
                                 else float(r["fallback_share"])})
    return pd.DataFrame(rows)
