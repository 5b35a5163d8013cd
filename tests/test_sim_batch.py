"""Batch simulator with policies (vitou_ai.sim.batch): a readable Python twin of the
row loop through the checked Game wrapper, determinism (thread count, row splits),
duplicate deals and seat rotation, and the result table's invariants (R5, R8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from vitou_ai.bots import HeuristicParams, HeuristicPolicy, RandomPolicy, named_bot
from vitou_ai.bots.policy import choose_action, pack_policies, scratch
from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.sim import batch as B
from vitou_ai.sim.random_play import random_games, sample_chance

COUNTER = named_bot("counter")
BLUFFER = named_bot("bluffer")
RANDOM = RandomPolicy()
# every rate 0 or 1: the bot never needs its random stream to decide
DETERMINISTIC = HeuristicPolicy(HeuristicParams(
    bluff=0.0, lead_high=1.0, save_top=1.0, to_partner=1.0, tie_to_void=1.0, signal_rate=1.0,
    honesty=1.0, blind_raise=0.0, epsilon=0.0), "deterministic")


def twin_row(params: VitouParams, lineup, seed: int, row: int, v: int = 1,
             rotate_dealer: bool = False) -> dict[str, int]:
    """The slow twin of ``batch.play_row``: the same streams, but every action goes
    through the checked ``State.apply_action`` (an illegal one would raise). A tabular
    policy's fallbacks are counted from Python: the checked state's information-state key
    not in its table, or its row without mass on a legal action."""
    game = Game(params)
    pack = pack_policies(list(dict.fromkeys(lineup)))
    index = {id(p): i for i, p in enumerate(dict.fromkeys(lineup))}
    group = row // v
    legal, keybuf, iwork, rng_dec = scratch()
    rng_dec[0] = B.decision_seed(np.uint64(seed), row)
    rng_seen = np.array([B.seen_seed(np.uint64(seed), group)], np.uint64)
    rng_deal = np.zeros(1, np.uint64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES)
    hands = np.zeros((L.MAX_PLAYERS, L.MAX_HAND), np.int64)
    deck = np.zeros(L.MAX_RANKS, np.int64)
    st = game.new_initial_state()
    a = st.array
    if st.is_chance_node() and a[L.S_PHASE] == L.PH_DRAW_DEALER:
        if rotate_dealer:
            d = group % params.players
        else:
            rng_deal[0] = B.dealer_seed(np.uint64(seed), group)
            d = int(B.next_below(rng_deal, params.players))
        st.apply_action(L.C_DEALER0 + d)
    first_dealer = int(a[L.S_DEALER])
    decisions = deals = raises = refusals = 0
    seat_decisions = [0] * 4
    seat_fallbacks = [0] * 4
    while not st.is_terminal():
        if a[L.S_PHASE] == L.PH_DEAL:
            rng_deal[0] = B.deal_seed(np.uint64(seed), group, int(a[L.S_DEALS]))
            B.draw_hands(game.array, rng_deal, deck, hands)
            for k in range(params.players):  # R1.2 order, one checked chance node per card
                seat = (int(a[L.S_DEALER]) + 1 + k) % params.players
                for i in range(params.hand_size):
                    st.apply_action(L.C_DEAL0 + int(hands[seat, i]))
            continue
        if st.is_chance_node():
            x = int(sample_chance(game.array, a, rng_seen, legal, probs))
        else:
            p = st.current_player()
            acts = st.legal_actions()
            legal[: len(acts)] = acts
            x = int(choose_action(pack, index[id(lineup[p])], game.array, a, p, rng_dec, legal,
                                  len(acts), keybuf, iwork))
            decisions += 1
            seat_decisions[p] += 1
            if isinstance(lineup[p], TabularPolicy):
                r = lineup[p].row(st.infostate_key(p))
                seat_fallbacks[p] += int(r < 0 or lineup[p].probs[r, acts].sum() <= 0)
        before = int(a[L.S_DEALS])
        st.apply_action(x)
        if int(a[L.S_DEALS]) != before or st.is_terminal():
            d = st.last_deal()
            deals += 1
            raises += d.raises
            refusals += d.refusals
    d = st.last_deal()
    ret = st.returns()
    s0, s1 = st.scores()
    if params.mode == "match":
        winner = 0 if ret[0] > 0 else (1 if ret[1] > 0 else -1)
        points = (s0 - params.scores[0], s1 - params.scores[1])
    else:
        winner = -1 if d.winner is None else d.winner
        points = d.points
    return {"winner": winner, "points0": points[0], "points1": points[1], "return0": ret[0],
            "return1": ret[1], "end": L.END_NAMES.index(d.end),
            "stake": game.params.ladder_labels.index(d.stake), "raises": raises,
            "refusals": refusals, "n_tricks": len(d.tricks), "dealer": first_dealer,
            "deals": deals, "score0": s0, "score1": s1, "decisions": decisions,
            **{f"seat_decisions{s}": seat_decisions[s] for s in range(4)},
            **{f"seat_fallbacks{s}": seat_fallbacks[s] for s in range(4)}}


CONFIGS = [
    dict(profile="vitou", signals=True),
    dict(profile="vitou", scores=(20, 17)),  # R6.1 decisions, shared hands
    dict(profile="vitou", scores=(20, 20)),  # R6.2 round
    dict(profile="vitou", mode="match", dealer=-1, target=9, signals=True),
    dict(profile="vitou_cason", mode="match", dealer=-1),
    dict(profile="vitou_2p"),
    dict(profile="vitou_2p", mode="match", dealer=-1),
    dict(profile="vitou_2p", ranks=4, copies=2, hand_size=2),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{v}" for v in c.values()))
def test_batch_rows_equal_the_checked_twin(cfg):
    params = VitouParams(**cfg)
    lineup = [COUNTER, RANDOM, BLUFFER, RANDOM][: params.players]
    n = 40
    res = B.simulate(params, lineup, n, seed=11)
    for row in range(n):
        want = twin_row(params, lineup, 11, row)
        got = {k: int(res[k][row]) for k in want}
        assert got == want, (row, got, want)


def test_fallback_counts_equal_the_twin():
    """A tabular policy with every other row removed (and one row without mass on any
    action): each seat's decisions and fallbacks, row by row, as the twin counts them from
    Python lookups, and the report's share their sum's ratio."""
    from vitou_ai.solvers.flat.tree import build_tree

    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)
    tree = build_tree(params)
    probs = np.random.default_rng(0).random(tree.is_actions.shape)
    full = TabularPolicy.from_compact(tree.is_keys, tree.is_actions, tree.is_nact, probs)
    keep = np.arange(len(full)) % 2 == 0
    p = np.array(full.probs[keep])
    p[0] = 0.0
    half = TabularPolicy(full.keys[keep], p, name="half")
    for mode in ("deal", "match"):
        pm = params.replace(mode=mode, target=4)
        lineup = [half, COUNTER]
        res = B.simulate(pm, lineup, 60, seed=3, allow_fallback=True)
        for row in range(60):
            want = twin_row(pm, lineup, 3, row)
            assert {k: int(res[k][row]) for k in want} == want, (mode, row)
        t = np.asarray(res.table)
        assert t[:, B.F_SEAT_FALLBACKS0].sum() > 0
        assert res.fallback[0]["share"] == pytest.approx(
            t[:, B.F_SEAT_FALLBACKS0].sum() / t[:, B.F_SEAT_DECISIONS0].sum())
        assert res.fallback[1] == {"name": "counter", "kind": "heuristic", "file": None,
                                   "decisions": int(t[:, B.F_SEAT_DECISIONS0 + 1].sum()),
                                   "fallbacks": 0, "share": 0.0, "fallback_to": None}


def test_duplicate_rows_twin_and_rotation():
    params = VitouParams(profile="vitou", dealer=-1)
    res = B.simulate(params, [COUNTER, RANDOM, COUNTER, RANDOM], 24, seed=5, duplicate=True,
                     rotate_dealer=True)
    swapped = [RANDOM, COUNTER, RANDOM, COUNTER]
    for row in range(24):
        lu = [COUNTER, RANDOM, COUNTER, RANDOM] if row % 2 == 0 else swapped
        want = twin_row(params, lu, 5, row, v=2, rotate_dealer=True)
        assert {k: int(res[k][row]) for k in want} == want
    assert (res["dealer"] == (np.arange(24) // 2) % 4).all()  # seat rotation
    assert list(res.team_policy(0)[:4]) == ["counter", "random", "counter", "random"]


@pytest.mark.parametrize("profile", ["vitou", "vitou_2p"])
def test_same_seed_same_table_any_thread_count(profile):
    params = VitouParams(profile=profile, mode="match", dealer=-1)
    lineup = [COUNTER, RANDOM, BLUFFER, RANDOM][: params.players]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = B.simulate(params, lineup, 600, seed=3, duplicate=True)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = B.simulate(params, lineup, 600, seed=3, duplicate=True)
    finally:
        numba.set_num_threads(before)
    assert (one.table == many.table).all()
    other = B.simulate(params, lineup, 600, seed=4, duplicate=True)
    assert (one.table != other.table).any()


def test_rows_do_not_depend_on_the_split():
    params = VitouParams(signals=True)
    lineup = [COUNTER, BLUFFER, RANDOM, COUNTER]
    whole = B.simulate(params, lineup, 1000, seed=9, duplicate=True)
    parts = [B.simulate(params, lineup, m, seed=9, duplicate=True, row0=r0)
             for r0, m in ((0, 258), (258, 500), (758, 242))]
    assert (np.concatenate([p.table for p in parts]) == whole.table).all()


def test_duplicate_halves_get_the_same_cards():
    """A bot that needs no randomness, on every seat: swapping the teams changes
    nothing, so both halves of a duplicate pair must play out identically — in
    deal mode and over whole matches (same hands at every deal index)."""
    for mode in ("deal", "match"):
        params = VitouParams(profile="vitou", mode=mode, dealer=-1, target=11)
        res = B.simulate(params, [DETERMINISTIC] * 4, 400, seed=2, duplicate=True)
        t = np.asarray(res.table)
        cols = [i for i in range(B.N_FIELDS) if i != B.F_VARIANT]
        assert (t[0::2][:, cols] == t[1::2][:, cols]).all(), mode
        # and different groups do get different cards
        assert len(np.unique(t[0::2][:, B.F_RETURN0])) > 1


def test_draw_hands_is_a_uniform_deal():
    params = VitouParams().to_array()
    hands = np.zeros((4, 3), np.int64)
    deck = np.zeros(8, np.int64)
    rng = np.zeros(1, np.uint64)
    counts = np.zeros(8)
    n = 20000
    for g in range(n):
        rng[0] = B.deal_seed(np.uint64(1), g, 0)
        B.draw_hands(params, rng, deck, hands)
        c = np.bincount(hands.ravel(), minlength=8)
        assert c.max() <= 4 and c.sum() == 12  # a deal from 8 ranks x 4 copies (R1.1)
        counts += c
    expected = n * 12 / 8
    assert np.abs(counts - expected).max() < 5 * np.sqrt(expected)


def test_random_policies_agree_with_random_games():
    """Two implementations of uniformly random play (the kernel's random_games and the
    policy simulator) must give the same distribution of deal ends and stakes."""
    params = VitouParams(profile="vitou")
    n = 200_000
    res = B.simulate(params, [RANDOM] * 4, n, seed=1)
    ref = random_games(params.to_array(), n, seed=2)
    for name in ("end", "stake", "raises"):
        k = max(res[name].max(), ref[name].max()) + 1
        p = np.bincount(res[name], minlength=k) / n
        q = np.bincount(ref[name], minlength=k) / n
        se = np.sqrt(p * (1 - p) / n + q * (1 - q) / n) + 1e-9
        assert (np.abs(p - q) < 5 * se + 1e-4).all(), (name, p, q)


@pytest.mark.parametrize("mode", ["deal", "match"])
def test_result_table_invariants(mode):
    params = VitouParams(profile="vitou", mode=mode, dealer=-1, signals=True)
    res = B.simulate(params, [COUNTER, BLUFFER, COUNTER, RANDOM], 3000, seed=4)
    df = res.to_frame()
    assert len(df) == 3000
    assert (df.return0 == -df.return1).all()  # zero-sum (R8)
    assert ((df.points0 > 0) | (df.points1 > 0) | (df.winner == -1)).all()
    if mode == "deal":
        assert set(df.columns) >= {"winner", "points0", "points1", "stake", "end", "raises",
                                   "refusals", "n_tricks", "trick1", "team0_policy"}
        won = df.winner >= 0
        assert (np.where(df.winner[won] == 0, df.points0[won], df.points1[won]) > 0).all()
        assert ((df.points0 == 0) | (df.points1 == 0)).all()  # one scoring team (R5.1)
        assert (df.refusals <= 1).all()
        assert ((df.end == "refused") == (df.refusals == 1)).all()
        assert (df.trick1.isna() == (df.n_tricks < 1)).all()
        assert (df.decisions >= 5).all()  # 4 gestures + at least one card
    else:
        target = params.target
        s = np.where(df.winner == 0, df.score0, df.score1)
        assert (s[df.winner >= 0] >= target).all()  # R5.3 (or a won baraque, R5.2)
        assert (df.points0 == df.score0).all() and (df.points1 == df.score1).all()
        assert (df.deals >= 1).all() and (df.deals <= params.max_deals).all()


def test_bad_arguments_are_refused():
    params = VitouParams()
    with pytest.raises(ValueError, match="4 policies"):
        B.simulate(params, [RANDOM, RANDOM], 10)
    with pytest.raises(ValueError, match="dealer=-1"):
        B.simulate(params, [RANDOM] * 4, 10, rotate_dealer=True)
    with pytest.raises(TypeError):
        B.simulate(params, ["random"] * 4, 10)
    assert len(B.simulate(params, [RANDOM] * 4, 0)) == 0


def test_interpreted_bodies_give_the_same_table():
    """NUMBA_DISABLE_JIT=1 runs the loop, the bots and the kernel as plain Python:
    the table must be the compiled one, row for row."""
    code = (
        "import json, warnings; warnings.simplefilter('ignore')\n"
        "from vitou_ai.rules import VitouParams\n"
        "from vitou_ai.bots import named_bot, RandomPolicy\n"
        "from vitou_ai.sim.batch import simulate\n"
        "c, b, r = named_bot('counter'), named_bot('bluffer'), RandomPolicy()\n"
        "t1 = simulate(VitouParams(signals=True, dealer=-1), [c, r, b, r], 12, seed=3,"
        " duplicate=True).table\n"
        "t2 = simulate(VitouParams(profile='vitou_2p', mode='match', dealer=-1, target=5),"
        " [c, b], 4, seed=3).table\n"
        "print(json.dumps([t1.tolist(), t2.tolist()]))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    t1, t2 = json.loads(done.stdout)
    c, b, r = COUNTER, BLUFFER, RANDOM
    assert B.simulate(VitouParams(signals=True, dealer=-1), [c, r, b, r], 12, seed=3,
                      duplicate=True).table.tolist() == t1
    assert B.simulate(VitouParams(profile="vitou_2p", mode="match", dealer=-1, target=5), [c, b],
                      4, seed=3).table.tolist() == t2
