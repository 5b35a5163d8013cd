"""The search bot's raise, refusal and bluff rates against its blueprint's, on the same
decisions.

The search bot (:class:`~vitou_ai.search.bot.SearchPolicy`) builds trees and solves them
in Python at each decision, so it cannot play inside the jitted sampler of
:mod:`.sampled_analysis`. Here ``N`` deals are played one action at a time on the rules
kernel, with the search bot at some seats (by default team 0's) and its blueprint at the
others. Each of the search bot's decisions is recorded twice, with the fields of
:func:`~vitou_ai.eval.sampled_analysis.sample_decisions` (the same jitted recorder, so
position, stake, trick, best card ... are computed by one piece of code):

- with the **search bot's** exact action probabilities there: the solve's root policy
  for its hand where it searched, the blueprint's probabilities where it fell back (the
  ``probs`` of :attr:`SearchPolicy.decisions <vitou_ai.search.bot.SearchPolicy>`: the
  distribution its action was drawn from);
- with the **blueprint's** exact probabilities at the same state
  (:func:`vitou_ai.bots.exact.policy_probs`).

So the two rates of a row rest on the same decisions (paired): where they differ, it is
the search, not the deals. At a fallback both are the blueprint's, exactly.

Why team 0's seats and not all four: the search bot computes every other seat's range by
Bayes from the *blueprint's* probabilities (:func:`~vitou_ai.solvers.public.subgame.bayes_reach`).
With the blueprint at the opponents' seats that model is true (up to its ε of uniform play,
:data:`~vitou_ai.search.bot.DEFAULT_EPSILON`), as in a match of the search bot against its
blueprint (:mod:`.search_match`); with search at every seat the opponents' ranges would be
those of a policy they do not play, and the states met further from the blueprint's own.
The partner is the same search bot, whose searched decisions the bot still reads with the
blueprint's probabilities (the bot's documented model: only its own seat's range follows
its search). With the dealer rotated (``params.dealer == -1``: dealer ``k % players`` for
deal ``k``, as the sampler), team 0's seats take every position equally often.

Random streams: the hands of deal ``k`` are the simulator's (``deal_seed(seed, k, ...)``,
the sampler's deals for the same seed), the blueprint seats' actions are drawn from the
decision stream of deal ``k`` (``decision_seed(seed, k)``; not the sampler's draws, which
a search bot's seat does not consume), and the search bot draws from
``numpy.random.default_rng([seed, k])``. The search bot stops its solves on the wall clock
(its budget), so a run is repeatable only with an injected clock (the tests).

Rates, bases and intervals: :func:`~vitou_ai.eval.sampled_analysis.rate_table` on either
sample; :func:`compare_rates` puts both side by side with the difference's paired interval
(:func:`~vitou_ai.eval.stats.ratio_difference_interval`, deals the independent unit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..bots.exact import MAX_DRAWS, breakpoints, policy_probs
from ..bots.policy import IWORK_SIZE, policy_pack
from ..rng import UINT64_MAX, check_seed, next_float
from ..rules import kernel as K
from ..rules import layout as L
from ..search.bot import SearchPolicy, check_fits
from ..sim.batch import deal_seed, decision_seed, draw_hands
from .sampled_analysis import (
    _I_ACTION,
    _NF,
    _NI,
    MAX_DECISIONS,
    SampledDecisions,
    _check,
    _deal_sums,
    _frame,
    _grouped,
    _record,
)

#: the columns of :func:`compare_rates`
COMPARE_COLUMNS = ["search", "search_low", "search_high", "blueprint", "blueprint_low",
                   "blueprint_high", "diff", "diff_low", "diff_high", "per_deal_search",
                   "per_deal_blueprint", "decisions"]


@dataclass(frozen=True)
class SearchDecisions:
    """What :func:`sample_search_decisions` returns: the search bot's decisions twice,
    row for row (same ``deal``, state fields and ``action``), with the two policies'
    probabilities.

    Attributes:
        search: the search bot's probabilities (``policy`` its name).
        blueprint: the blueprint's probabilities at the same states (``policy`` its name).
        seats: the seats the search bot held.

    Both frames have, besides :func:`~.sampled_analysis.sample_decisions`' columns,
    ``searched`` (bool: the bot solved a subgame there; else it fell back on the
    blueprint) and ``seconds`` (float64, the wall time of the bot's decision).
    """

    search: SampledDecisions
    blueprint: SampledDecisions
    seats: tuple[int, ...]


def sample_search_decisions(params, bot: SearchPolicy, n_deals: int, seed: int = 0,
                            weak_rank: str = "K", seats: tuple[int, ...] | None = None,
                            progress: Callable[[int], None] | None = None) -> SearchDecisions:
    """Play ``n_deals`` deals with ``bot`` at ``seats`` and its blueprint elsewhere, and
    record each of the bot's decisions with its own and its blueprint's exact action
    probabilities (module docstring).

    Args:
        params: the game (:class:`~vitou_ai.rules.VitouParams`), deal mode (R8.1), signals
            off (the search bot's public subgames).
        bot: a search bot whose blueprint fits ``params``; its ``decisions`` list grows by
            one entry per decision, as in any game it plays.
        n_deals: ``N >= 1``.
        seed: the deals' seed (module docstring: its streams).
        weak_rank: as :func:`~.sampled_analysis.sample_decisions`.
        seats: the bot's seats (default team 0's, ``0, 2, ...``; why in the module
            docstring).
        progress: called with 1 after each deal.

    Returns:
        :class:`SearchDecisions`.

    Raises:
        ValueError: as :func:`~.sampled_analysis.sample_decisions` for the blueprint; a
            bot that does not fit ``params`` (:func:`~vitou_ai.search.bot.check_fits`);
            a seat outside ``0 .. players - 1``; a deal of more than
            :data:`~.sampled_analysis.MAX_DECISIONS` decisions.
        TypeError: ``bot`` not a :class:`~vitou_ai.search.bot.SearchPolicy`.
    """
    if not isinstance(bot, SearchPolicy):
        raise TypeError(f"bot must be a SearchPolicy, got {type(bot).__name__}")
    check_fits(bot, params)  # first: a game without public subgames is the real refusal
    _check(params, bot.blueprint, n_deals, weak_rank, where="sample_search_decisions")
    n = params.players
    seats = tuple(range(0, n, 2)) if seats is None else tuple(int(s) for s in seats)
    if not seats or any(not 0 <= s < n for s in seats):
        raise ValueError(f"seats must be seats 0 .. {n - 1}, got {seats}")
    seed = check_seed(seed, "seed", UINT64_MAX)
    n_deals = int(n_deals)
    pack = policy_pack(bot.blueprint, params.signals)
    bounds = breakpoints(pack.fparams[0])
    na = L.NUM_ACTIONS_WILLUGHBY  # policy_probs writes by action id (as the sampler)
    state = np.empty(L.STATE_SIZE, np.int32)
    legal = np.empty(na, np.int64)
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    deck = np.empty(L.MAX_RANKS, np.int64)
    keybuf = np.empty(L.KEY_SIZE, np.int8)
    iwork = np.zeros(IWORK_SIZE, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    bp_probs = np.zeros(na)
    s_probs = np.zeros(na)
    rng_dec = np.empty(1, np.uint64)
    rng_deal = np.empty(1, np.uint64)
    ints, f_search, f_blue, searched, seconds = [], [], [], [], []
    for k in range(n_deals):
        game = params.replace(dealer=k % n if params.dealer == -1 else params.dealer)
        pa = game.to_array()
        K.init_state(pa, state)
        rng_dec[0] = decision_seed(np.uint64(seed), np.int64(k))
        gen = np.random.default_rng([seed, k])
        start, actions, m = None, [], 0
        while not K.is_terminal(state):
            if K.is_chance(state):
                if state[L.S_PHASE] != L.PH_DEAL or state[L.S_REDEAL] == 2:
                    raise ValueError("only the deal is a chance event here (deal mode, "
                                     "signals off)")
                rng_deal[0] = deal_seed(np.uint64(seed), np.int64(k),
                                        np.int64(state[L.S_DEALS]))
                draw_hands(pa, rng_deal, deck, hands)
                K.apply_deal(pa, state, hands)
                start = state.copy()
                continue
            m += 1
            if m > MAX_DECISIONS:
                raise ValueError(f"a deal took more than MAX_DECISIONS = {MAX_DECISIONS} "
                                 "decisions")
            p = int(K.current_player(pa, state))
            nl = int(K.legal_actions(pa, state, legal))
            policy_probs(pack, 0, pa, state, p, legal, nl, bounds, keybuf, iwork, script,
                         bp_probs)
            if p in seats:
                before = state.copy()
                a = bot.act(game, start if start is not None else state.copy(), actions,
                            state, gen)
                info = bot.decisions[-1]
                s_probs[:] = 0.0
                for x, q in info["probs"].items():
                    s_probs[x] = q
                row_i = np.zeros(_NI, np.int32)
                row_s, row_b = np.zeros(_NF), np.zeros(_NF)
                _record(pa, before, p, legal, nl, s_probs, k, row_i, row_s)
                _record(pa, before, p, legal, nl, bp_probs, k, row_i, row_b)
                row_i[_I_ACTION] = a
                ints.append(row_i)
                f_search.append(row_s)
                f_blue.append(row_b)
                searched.append(bool(info["searched"]))
                seconds.append(float(info["seconds"]))
            else:  # the blueprint's action, drawn as the sampler draws it
                u = next_float(rng_dec)
                a = int(legal[nl - 1])
                for i in range(nl):
                    u -= bp_probs[legal[i]]
                    if u < 0.0:
                        a = int(legal[i])
                        break
            K.apply_action(pa, state, a)
            if start is not None:
                actions.append(a)
        if progress is not None:
            progress(1)
    ints_a = np.array(ints, np.int32).reshape(-1, _NI)
    out = []
    for floats, name in ((f_search, bot.name), (f_blue, bot.blueprint.name)):
        df = _frame(params, ints_a, np.array(floats, np.float64).reshape(-1, _NF), weak_rank)
        df["searched"] = np.array(searched, bool)
        df["seconds"] = np.array(seconds, np.float64)
        out.append(SampledDecisions(df, n_deals, params, name, weak_rank, int(seed)))
    return SearchDecisions(out[0], out[1], seats)


def compare_rates(result: SearchDecisions, rate: str, by: list[str] | None = None,
                  confidence: float = 0.95) -> pd.DataFrame:
    """The search bot's and the blueprint's ``rate`` on the same decisions, by ``by``.

    Args:
        result: :func:`sample_search_decisions`.
        rate, by, confidence: as :func:`~.sampled_analysis.rate_table` (``by`` may name
            ``searched``).

    Returns:
        One row per group (index as :func:`~.sampled_analysis.rate_table`'s), columns
        ``search``, ``search_low``, ``search_high``, ``blueprint``, ``blueprint_low``,
        ``blueprint_high`` (the rates and their ``confidence`` intervals over deals,
        clipped to [0, 1]), ``diff``, ``diff_low``, ``diff_high`` (search minus blueprint,
        the paired interval of :func:`~vitou_ai.eval.stats.ratio_difference_interval`),
        ``per_deal_search``, ``per_deal_blueprint`` (each rate's base: expected decisions
        per deal; equal for ``raise`` and ``refuse``, the expected raises for ``bluff``),
        ``decisions`` (sampled decisions in the group). NaN where a base is 0; interval
        bounds NaN with fewer than 30 deals in the base or without variation
        (:mod:`vitou_ai.eval.stats`).

    Raises:
        ValueError: as :func:`~.sampled_analysis.rate_table`.
    """
    from .stats import ratio_difference_interval, ratio_interval

    by = list(by or [])
    nan = float("nan")
    sums_b = {key: (y, x) for key, y, x, _ in _deal_sums(result.blueprint, rate, by,
                                                          confidence)}
    out = []
    for key, ys, xs, n_dec in _deal_sums(result.search, rate, by, confidence):
        yb, xb = sums_b[key]
        row = {"_key": key}
        for tag, y, x in (("search", ys, xs), ("blueprint", yb, xb)):
            r, lo, hi = ratio_interval(y, x, confidence) if x.sum() > 0 else (nan, nan, nan)
            row.update({tag: r, f"{tag}_low": np.clip(lo, 0.0, 1.0),
                        f"{tag}_high": np.clip(hi, 0.0, 1.0)})
        d = (ratio_difference_interval(ys, xs, yb, xb, confidence)
             if xs.sum() > 0 and xb.sum() > 0 else (nan, nan, nan))
        row.update({"diff": d[0], "diff_low": d[1], "diff_high": d[2],
                    "per_deal_search": xs.sum() / result.search.deals,
                    "per_deal_blueprint": xb.sum() / result.blueprint.deals,
                    "decisions": n_dec})
        out.append(row)
    return _grouped(out, by, COMPARE_COLUMNS)
