"""The search bot's decisions with exact probabilities, paired with its blueprint's
(``vitou_ai.eval.search_analysis``), on a four-player variant small
enough for the bot to search from the first trick on."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import TickClock
from vitou_ai.bots.named import parse_bot
from vitou_ai.eval import sampled_analysis as S
from vitou_ai.eval import search_analysis as SA
from vitou_ai.eval.stats import ratio_difference_interval, ratio_interval
from vitou_ai.rng import next_float
from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.search.bot import SearchPolicy
from vitou_ai.sim.batch import deal_seed, decision_seed, draw_hands

TINY4 = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=2, dealer=0)
DEALS, SEED = 12, 3
STATE_COLUMNS = ["deal", "seat", "team", "position", "dealer", "stake", "trick", "best_card",
                 "weak", "partner_gesture", "can_raise", "answering", "gesture_phase",
                 "action", "searched", "seconds"]


def _bot():
    # safe=none: four players, the default declines to search
    return SearchPolicy(parse_bot("counter"), budget=0.05, max_iterations=30, safe="none",
                        clock=TickClock(1e-3))


@pytest.fixture(scope="module")
def run():
    bot = _bot()
    return bot, SA.sample_search_decisions(TINY4, bot, DEALS, seed=SEED)


def _is_card(a: int) -> bool:
    return L.A_PLAY0 <= a < L.A_RAISE or L.A_PLAY_HI0 <= a < L.A_CONCEDE


def test_the_two_samples_are_the_same_decisions(run):
    bot, r = run
    fs, fb = r.search.frame, r.blueprint.frame
    assert r.seats == (0, 2) and set(fs["seat"]) <= {0, 2}
    assert len(fs) == len(bot.decisions) > 0
    assert fs[STATE_COLUMNS].equals(fb[STATE_COLUMNS])
    assert fs["searched"].any()  # this variant's subgames are small: it searches
    assert (fs["searched"] == [d["searched"] for d in bot.decisions]).all()
    for f in (fs, fb):
        total = f[["raise", "refuse", "play", "gesture", "other"]].sum(axis=1)
        np.testing.assert_allclose(total, 1.0, atol=1e-12)
    srch = fs["searched"]  # the search changes something where it searched
    assert (fs.loc[srch, S.CLASSES] - fb.loc[srch, S.CLASSES]).abs().to_numpy().max() > 1e-3


def test_a_fallback_is_the_blueprint_in_both_columns():
    """A bot that never searches (every subgame above its 1-node cap) plays its blueprint:
    its probabilities are the blueprint's, exactly, and every rate's difference is 0."""
    bot = SearchPolicy(parse_bot("counter"), budget=0.05, max_nodes=1, clock=TickClock(1e-3))
    r = SA.sample_search_decisions(TINY4, bot, 4, seed=SEED)
    fs, fb = r.search.frame, r.blueprint.frame
    assert len(fs) > 0 and not fs["searched"].any()
    np.testing.assert_allclose(fs[list(S.CLASSES)], fb[list(S.CLASSES)], atol=1e-12)
    t = SA.compare_rates(r, "raise")
    assert t.loc["all", "diff"] == pytest.approx(0.0, abs=1e-12)


def test_replayed_deals_give_the_recorded_probabilities_and_draws(run):
    """Replaying each deal from its streams: at every decision of the bot its recorded
    probabilities cover the legal actions and sum to 1, its action is the one its stream's
    single draw picks from them (the recording adds no draw and changes none), and the
    blueprint column is the blueprint's exact probabilities at that state."""
    bot, r = run
    fs, fb = r.search.frame, r.blueprint.frame
    ref = _bot()  # the blueprint's exact probabilities, by the bot's own fallback path
    pa = TINY4.to_array()
    legal = np.empty(TINY4.num_actions, np.int64)
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    deck = np.empty(L.MAX_RANKS, np.int64)
    rng_deal = np.empty(1, np.uint64)
    j = 0
    for k in range(DEALS):
        st = np.empty(L.STATE_SIZE, np.int32)
        K.init_state(pa, st)
        rng_dec = np.array([decision_seed(np.uint64(SEED), np.int64(k))], np.uint64)
        gen = np.random.default_rng([SEED, k])
        while not K.is_terminal(st):
            if K.is_chance(st):
                rng_deal[0] = deal_seed(np.uint64(SEED), np.int64(k), np.int64(st[L.S_DEALS]))
                draw_hands(pa, rng_deal, deck, hands)
                K.apply_deal(pa, st, hands)
                continue
            p = int(K.current_player(pa, st))
            nl = int(K.legal_actions(pa, st, legal))
            info: dict = {}
            ref._blueprint_action(TINY4, st, p, np.random.default_rng(0), info)
            blue = info["probs"]
            if p in (0, 2):
                row, rowb, d = fs.iloc[j], fb.iloc[j], bot.decisions[j]
                j += 1
                assert (row["deal"], row["seat"], row["trick"]) == (k, p, st[L.S_NTRICKS] + 1)
                probs = d["probs"]
                assert set(probs) == {int(a) for a in legal[:nl]}
                assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
                # Generator.choice(n, p=q): one uniform draw against the normalised cdf
                acts, cdf = list(probs), np.cumsum(list(probs.values()))
                a = acts[int((cdf / cdf[-1]).searchsorted(gen.random(), side="right"))]
                assert a == row["action"]
                assert rowb["raise"] == pytest.approx(blue.get(L.A_RAISE, 0.0), abs=1e-12)
                assert rowb["refuse"] == pytest.approx(blue.get(L.A_REFUSE, 0.0), abs=1e-12)
                assert rowb["play"] == pytest.approx(
                    sum(v for x, v in blue.items() if _is_card(x)), abs=1e-12)
                assert row["raise"] == pytest.approx(probs.get(L.A_RAISE, 0.0), abs=1e-12)
            else:
                u = next_float(rng_dec)
                a = int(legal[nl - 1])
                for i in range(nl):
                    u -= blue[int(legal[i])]
                    if u < 0.0:
                        a = int(legal[i])
                        break
            K.apply_action(pa, st, a)
    assert j == len(fs)


def test_same_seed_same_run(run):
    _, r = run
    again = SA.sample_search_decisions(TINY4, _bot(), DEALS, seed=SEED)
    cols = [c for c in r.search.frame.columns if c != "seconds"]
    assert r.search.frame[cols].equals(again.search.frame[cols])


def test_rates_and_the_paired_comparison(run):
    _, r = run
    for rate in ("raise", "refuse", "bluff"):
        t = SA.compare_rates(r, rate, ["trick", "searched"])
        for side, sample in (("search", r.search), ("blueprint", r.blueprint)):
            one = S.rate_table(sample, rate, ["trick", "searched"])
            np.testing.assert_allclose(t[side], one["rate"])
            np.testing.assert_allclose(t[f"per_deal_{side}"], one["per_deal"])
        ok = t["diff"].notna()
        np.testing.assert_allclose(t.loc[ok, "diff"], (t["search"] - t["blueprint"])[ok])
        # 12 deals: fewer than the 30 units an interval needs (vitou_ai.eval.stats)
        assert t[["diff_low", "diff_high", "search_low", "blueprint_high"]].isna().all().all()


def test_ratio_difference_interval_is_the_ratio_interval_of_the_difference_on_one_base():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, 200).astype(float)
    y1, y2 = x * rng.random(200), x * rng.random(200)
    d, lo, hi = ratio_difference_interval(y1, x, y2, x)
    assert (d, lo, hi) == pytest.approx(ratio_interval(y1 - y2, x))
    with pytest.raises(ValueError):
        ratio_difference_interval(y1, x, y2, x[:-1])


def test_bad_input_refused():
    bot = _bot()
    with pytest.raises(TypeError):
        SA.sample_search_decisions(TINY4, parse_bot("counter"), 2)
    with pytest.raises(ValueError, match="seats"):
        SA.sample_search_decisions(TINY4, bot, 2, seats=(4,))
    with pytest.raises(ValueError, match="n_deals"):
        SA.sample_search_decisions(TINY4, bot, 0)
    with pytest.raises(ValueError):
        SA.sample_search_decisions(TINY4.replace(signals=True), bot, 2)
    with pytest.raises(ValueError, match="^sample_search_decisions plays single deals"):
        SA.sample_search_decisions(TINY4.replace(mode="match"), bot, 2)
