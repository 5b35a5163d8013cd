"""Bots (vitou_ai.bots): the heuristic family decides from the player's information
only, tabular policies look up and sample correctly, and the named bots behave as
their names say (measured in seeded batches, with intervals)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from vitou_ai.bots import (
    HeuristicParams,
    HeuristicPolicy,
    RandomPolicy,
    TabularPolicy,
    named_bot,
    pack_policies,
    parse_bot,
)
from vitou_ai.bots.heuristic import heuristic_action, strength
from vitou_ai.bots.policy import choose_action, scratch
from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.observe import infostate_key
from vitou_ai.sim import batch as B
from vitou_ai.sim.batch import simulate

DET = HeuristicParams(bluff=0.0, lead_high=1.0, save_top=1.0, to_partner=1.0, tie_to_void=1.0,
                      signal_rate=1.0, honesty=1.0, blind_raise=0.0, epsilon=0.0,
                      abandon_below=0.2)
DET_CAUTIOUS = DET.replace(raise_at=0.85, reraise_at=0.95, refuse_below=0.45, lead_high=0.0,
                           count=0.0, abandon_below=0.3, agree_below=0.5)


def walk(params: VitouParams, on_decision) -> None:
    """Visit every node of a (tiny) game; call ``on_decision(pa, state)`` at player nodes."""
    pa = params.to_array()
    buf = np.empty(L.NUM_ACTIONS, np.int64)
    pb = np.empty(L.MAX_CHANCE_OUTCOMES)
    stack = [K.new_state(pa)]
    while stack:
        s = stack.pop()
        if K.is_terminal(s):
            continue
        if K.is_chance(s):
            m = K.chance_outcomes(pa, s, buf, pb)
        else:
            on_decision(pa, s)
            m = K.legal_actions(pa, s, buf)
        for a in buf[:m].tolist():
            c = s.copy()
            K.apply_action(pa, c, a)
            stack.append(c)


def playouts(params: VitouParams, on_decision, n: int, seed: int) -> None:
    """``n`` uniformly random playouts, calling ``on_decision`` at player nodes."""
    pa = params.to_array()
    buf = np.empty(L.NUM_ACTIONS, np.int64)
    pb = np.empty(L.MAX_CHANCE_OUTCOMES)
    rng = random.Random(seed)
    for _ in range(n):
        s = K.new_state(pa)
        while not K.is_terminal(s):
            if K.is_chance(s):
                m = K.chance_outcomes(pa, s, buf, pb)
                a = rng.choices(buf[:m].tolist(), pb[:m].tolist())[0]
            else:
                on_decision(pa, s)
                m = K.legal_actions(pa, s, buf)
                a = int(buf[rng.randrange(m)])
            K.apply_action(pa, s, a)


class KeyRecorder:
    """Per information-state key: the deterministic bot's action and strength, and
    how many different states shared the key."""

    def __init__(self, hp: HeuristicParams):
        self.hp = hp.to_array()
        self.legal, self.keybuf, self.iwork, self.rng = scratch()
        self.seen: dict[bytes, tuple[int, float]] = {}
        self.states: dict[bytes, set[bytes]] = {}
        self.conflicts: list[bytes] = []

    def __call__(self, pa, s) -> None:
        p = K.current_player(pa, s)
        n = K.legal_actions(pa, s, self.legal)
        infostate_key(pa, s, p, self.keybuf)
        key = self.keybuf.tobytes()
        self.rng[0] = 12345
        a = int(heuristic_action(self.hp, pa, s, p, self.rng, self.legal, n, self.iwork))
        st = float(strength(self.hp, pa, s, p, self.iwork))
        if key in self.seen and self.seen[key] != (a, st):
            self.conflicts.append(key)
        self.seen.setdefault(key, (a, st))
        self.states.setdefault(key, set()).add(s.tobytes())

    def shared_keys(self) -> int:
        return sum(len(v) > 1 for v in self.states.values())


@pytest.mark.parametrize("cfg", [
    dict(profile="vitou_2p", ranks=4, copies=2, hand_size=2),
    dict(profile="vitou", ranks=4, copies=2, hand_size=1, scores=(20, 0)),  # R6.1 shared cards
    dict(profile="vitou", ranks=4, copies=2, hand_size=1, scores=(20, 20)),  # R6.2
], ids=["2p", "4p-r6.1", "4p-r6.2"])
def test_heuristic_decides_from_the_information_state_only(cfg):
    """Every state of a small game: two states with the same infostate_key (the
    player cannot tell them apart) get the same action and the same strength."""
    rec = KeyRecorder(DET)
    walk(VitouParams(**cfg), rec)
    assert rec.conflicts == []
    assert rec.shared_keys() > 20  # the check had states to tell apart


def test_heuristic_with_signals_decides_from_the_information_state_only():
    """With gestures (R7), caught or not: the bot reads only what its player saw."""
    rec = KeyRecorder(DET.replace(trust=0.7))
    params = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=2, signals=True)
    playouts(params, rec, 4000, seed=1)
    assert rec.conflicts == []
    assert rec.shared_keys() > 100


def one_hot_table(params: VitouParams, hp: HeuristicParams) -> TabularPolicy:
    rec = KeyRecorder(hp)
    walk(params, rec)
    assert rec.conflicts == []
    probs = np.zeros((len(rec.seen), L.NUM_ACTIONS), np.float32)
    keys = np.zeros((len(rec.seen), L.KEY_SIZE), np.int8)
    for i, (k, (a, _)) in enumerate(rec.seen.items()):
        keys[i] = np.frombuffer(k, np.int8)
        probs[i, a] = 1.0
    return TabularPolicy(keys, probs, name="det-table")


def test_tabular_policy_reproduces_the_bot_it_was_built_from():
    """A table holding the deterministic bot's action at every information state of
    a small game plays exactly as the bot: same seeds, same results, row by row."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1)
    table = one_hot_table(params.replace(dealer=0), DET)
    table1 = one_hot_table(params.replace(dealer=1), DET)
    merged = TabularPolicy(np.concatenate([table.keys, table1.keys]),
                           np.concatenate([table.probs, table1.probs]))
    bot = HeuristicPolicy(DET)
    other = HeuristicPolicy(DET_CAUTIOUS, "other")
    for lineup_t, lineup_b in (([merged, other], [bot, other]), ([other, merged], [other, bot])):
        a = simulate(params, lineup_t, 3000, seed=8)
        b = simulate(params, lineup_b, 3000, seed=8)
        assert (a.table == b.table).all()
        assert len(np.unique(a["return0"])) > 3


def test_unknown_infosets_fall_back_on_the_given_bot(tmp_path):
    """An empty table with ``fallback=counter`` is the counter bot, draw for draw (played
    with ``allow_fallback``: every decision falls back, which is refused by default)."""
    empty = TabularPolicy(np.zeros((0, L.KEY_SIZE), np.int8),
                          np.zeros((0, L.NUM_ACTIONS), np.float32), name="empty")
    empty.save(tmp_path / "e.npz")
    fb = parse_bot(f"{tmp_path / 'e.npz'}:fallback=counter")
    counter, rnd = named_bot("counter"), RandomPolicy()
    params = VitouParams(profile="vitou", signals=True, dealer=-1)
    a = simulate(params, [fb, rnd, fb, rnd], 2000, seed=4, duplicate=True, allow_fallback=True)
    b = simulate(params, [counter, rnd, counter, rnd], 2000, seed=4, duplicate=True)
    fell = range(B.F_SEAT_FALLBACKS0, B.F_SEAT_FALLBACKS0 + 4)
    same = [c for c in range(B.N_FIELDS) if c not in fell]
    assert (a.table[:, same] == b.table[:, same]).all()
    assert a.fallback[0]["share"] == 1.0 and a.fallback[0]["fallback_to"] == "counter"
    with pytest.raises(ValueError, match="no strategy at 100.0% of its"):
        simulate(params, [fb, rnd, fb, rnd], 2000, seed=4, duplicate=True)


def test_tabular_lookup_and_npz_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    keys = np.unique(rng.integers(-1, 8, size=(3000, L.KEY_SIZE)).astype(np.int8), axis=0)
    probs = rng.random((len(keys), L.NUM_ACTIONS)).astype(np.float32)
    tab = TabularPolicy(keys, probs, name="rand")
    for i in rng.choice(len(keys), 300, replace=False):
        assert tab.row(keys[i]) == i
        k = keys[i].copy()
        k[rng.integers(L.KEY_SIZE)] ^= 64  # no key in the table has a byte >= 8
        assert tab.row(k) == -1
    path = tmp_path / "t.npz"
    tab.save(path)
    back = TabularPolicy.load(path)
    assert back.name == "rand" and (back.keys == keys).all() and (back.probs == probs).all()
    with pytest.raises(ValueError, match="twice"):
        TabularPolicy(np.concatenate([keys[:5], keys[:1]]), np.ones((6, L.NUM_ACTIONS)))
    with pytest.raises(ValueError, match="non-negative"):
        TabularPolicy(keys[:2], -np.ones((2, L.NUM_ACTIONS)))
    np.savez(tmp_path / "old.npz", keys=keys, probs=probs, rules_version=np.array("vitou-rules-0"))
    with pytest.raises(ValueError, match="written under rules 'vitou-rules-0'"):
        TabularPolicy.load(tmp_path / "old.npz")
    with pytest.raises(ValueError):
        tab.keys[0, 0] = 1  # read-only view


def test_tabular_sampling_follows_the_row_and_falls_back_to_uniform():
    params = VitouParams(profile="vitou_2p")
    pa = params.to_array()
    s = K.new_state(pa)
    buf = np.empty(L.NUM_ACTIONS, np.int64)
    pb = np.empty(L.MAX_CHANCE_OUTCOMES)
    while K.is_chance(s) or s[L.S_PHASE] != L.PH_PLAY:  # to the first card turn
        if K.is_chance(s):
            K.chance_outcomes(pa, s, buf, pb)
            K.apply_action(pa, s, int(buf[0]))
        else:
            K.apply_action(pa, s, L.A_PASS)
    p = K.current_player(pa, s)
    legal, keybuf, iwork, rng = scratch()
    n = K.legal_actions(pa, s, legal)
    acts = legal[:n].tolist()
    assert L.A_RAISE in acts and L.A_REFUSE not in acts
    infostate_key(pa, s, p, keybuf)
    row = np.zeros(L.NUM_ACTIONS, np.float32)
    row[acts[0]], row[L.A_RAISE], row[L.A_REFUSE] = 3.0, 1.0, 50.0  # refuse is illegal here
    tab = TabularPolicy(keybuf[None, :].copy(), row[None, :])
    other = keybuf.copy()
    other[L.K_PLAYER] = 1 - p
    miss = TabularPolicy(other[None, :], row[None, :])
    pack = pack_policies([tab, miss])
    rng[0] = 99
    draws = 20000
    hit = [int(choose_action(pack, 0, pa, s, p, rng, legal, n, keybuf, iwork)) for _ in range(draws)]
    c = np.bincount(hit, minlength=L.NUM_ACTIONS) / draws
    assert abs(c[acts[0]] - 0.75) < 5 * np.sqrt(0.75 * 0.25 / draws)
    assert abs(c[L.A_RAISE] - 0.25) < 5 * np.sqrt(0.75 * 0.25 / draws)
    assert c.sum() - c[acts[0]] - c[L.A_RAISE] == 0
    fb = [int(choose_action(pack, 1, pa, s, p, rng, legal, n, keybuf, iwork)) for _ in range(draws)]
    c = np.bincount(fb, minlength=L.NUM_ACTIONS)[acts] / draws
    assert np.abs(c - 1 / n).max() < 5 * np.sqrt((1 / n) * (1 - 1 / n) / draws)


def test_policy_pack_is_built_once_and_shares_the_tables():
    """``policy_pack``: a tabular policy's one-policy pack is built once (per ``signals``)
    and holds its tables without a copy (a full-game table is 3 GB); it plays as
    ``pack_policies([policy])``; other policies are packed afresh."""
    from vitou_ai.bots.policy import policy_pack

    rng = np.random.default_rng(0)
    keys = rng.integers(-5, 5, (50, L.KEY_SIZE)).astype(np.int8)
    keys[:, 0] = np.arange(50)
    tab = TabularPolicy(keys, rng.random((50, L.NUM_ACTIONS)))
    pack = policy_pack(tab)
    assert policy_pack(tab) is pack and policy_pack(tab, signals=True) is not pack
    assert np.shares_memory(pack.tab_probs, tab._probs)
    assert np.shares_memory(pack.tab_keys, tab._keys)
    fresh = pack_policies([tab])
    for a, b in zip(pack, fresh, strict=True):
        np.testing.assert_array_equal(a, b)
    counter = named_bot("counter")
    assert policy_pack(counter) is not policy_pack(counter)
    import pickle

    again = pickle.loads(pickle.dumps(tab))  # the cache stays behind, the table goes
    assert "_packs" not in again.__dict__ and len(again) == len(tab)
    np.testing.assert_array_equal(policy_pack(again).tab_probs, pack.tab_probs)


def test_signals_honest_and_false():
    """R7.1: an honest bot gestures its best of T, 9, A (else nohigh); a liar never does."""
    params = VitouParams(profile="vitou", signals=True)
    honest, liar = DET.to_array(), DET.replace(honesty=0.0).to_array()
    legal, keybuf, iwork, rng = scratch()
    got = {"honest": 0, "liar": 0}
    n_states = 0

    def check(pa, s):
        nonlocal n_states
        if s[L.S_PHASE] != L.PH_SIGNAL:
            return
        p = K.current_player(pa, s)
        n = K.legal_actions(pa, s, legal)
        held = s[L.S_HELD + p * L.MAX_RANKS: L.S_HELD + p * L.MAX_RANKS + 3]
        truth = 1 + int(np.flatnonzero(held)[0]) if held.any() else 4
        n_states += 1
        a = heuristic_action(honest, pa, s, p, rng, legal, n, iwork) - L.A_SIGNAL0
        b = heuristic_action(liar, pa, s, p, rng, legal, n, iwork) - L.A_SIGNAL0
        got["honest"] += a == truth
        got["liar"] += b == truth or b == 0

    playouts(params, check, 300, seed=2)
    assert n_states > 500
    assert got == {"honest": n_states, "liar": 0}


def test_strength_orders_hands():
    """At the first card turn, a hand of tens is stronger than a middling hand, which
    is stronger than a hand of sevens; all are probabilities."""
    for profile in ("vitou", "vitou_2p"):
        params = VitouParams(profile=profile, dealer=1 if profile == "vitou_2p" else 3)
        pa = params.to_array()
        iwork = np.zeros(32, np.int64)
        vals = {}
        for name, hand in (("high", [0, 0, 0]), ("mid", [2, 3, 4]), ("low", [7, 7, 7])):
            s = K.new_state(pa)
            if profile == "vitou_2p":  # R9.2 blind window: both pass
                K.apply_action(pa, s, L.A_PASS)
                K.apply_action(pa, s, L.A_PASS)
            hands = np.array([hand] + [[1, 5, 6]] * (params.players - 1), np.int64)
            K.apply_deal(pa, s, hands)
            assert K.current_player(pa, s) == 0 and s[L.S_PHASE] == L.PH_PLAY
            vals[name] = strength(DET.to_array(), pa, s, 0, iwork)
        assert 0.0 <= vals["low"] < vals["mid"] < vals["high"] <= 1.0, (profile, vals)


def test_named_bots_behave_as_named():
    """Seeded duplicate deals, four players: the bluffer raises most and the cautious
    bot refuses most often; the counter beats random play (95% interval above 0)."""
    params = VitouParams(profile="vitou", dealer=-1)
    n = 20000
    stats = {}
    for name in ("cautious", "bluffer", "counter"):
        res = simulate(params, [named_bot(name)] * 4, n, seed=1, rotate_dealer=True)
        raised = np.asarray(res["raises"]) > 0
        stats[name] = (np.mean(res["raises"]), np.asarray(res["refusals"])[raised].mean())
    assert stats["bluffer"][0] > stats["counter"][0] > stats["cautious"][0]
    assert stats["cautious"][1] > stats["counter"][1] > stats["bluffer"][1]
    bot, rnd = named_bot("counter"), RandomPolicy()
    res = simulate(params, [bot, rnd, bot, rnd], n, seed=2, duplicate=True, rotate_dealer=True)
    a_team = np.asarray(res["variant"])
    diff = np.where(a_team == 0, res["return0"], res["return1"]).reshape(-1, 2).sum(1) / 2
    lo = diff.mean() - 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert lo > 0.0


def test_bot_specs():
    assert parse_bot("random").name == "random"
    assert parse_bot("counter").params == named_bot("counter").params
    v = parse_bot("counter:bluff=0.2,raise_at=0.7")
    assert v.params.bluff == 0.2 and v.params.raise_at == 0.7 and v.params.count == 1.0
    assert parse_bot("heuristic").params == HeuristicParams()
    for bad, msg in (("nobody", "unknown bot"), ("counter:nope=1", "unknown heuristic"),
                     ("counter:bluff=2", r"\[0, 1\]"), ("counter:bluff", "name=value"),
                     ("random:bluff=0.1", "no parameters"), ("counter:bluff=x", "number"),
                     ("counter:bluff=0.2,bluff=0.3", "bluff is given twice")):
        with pytest.raises(ValueError, match=msg):
            parse_bot(bad)
    with pytest.raises(ValueError):
        HeuristicParams(raise_at=-0.1)
    with pytest.raises(TypeError):
        pack_policies([object()])


def test_solver_tree_keys_index_the_table():
    """A policy given in the solvers' compact form (GameTree infosets) becomes a table
    whose keys are exactly the information states the simulator meets."""
    tree_mod = pytest.importorskip("vitou_ai.solvers.flat.tree")
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2)
    tree = tree_mod.build_tree(params)
    m = tree.num_infosets
    mask = np.arange(tree.is_actions.shape[1])[None, :] < tree.is_nact[:, None]
    rng = np.random.default_rng(3)
    avg = rng.random(mask.shape) * mask
    avg /= avg.sum(1, keepdims=True)
    tab = TabularPolicy.from_compact(tree.is_keys[:m], tree.is_actions[:m], tree.is_nact[:m],
                                     avg[:m])
    for i in rng.choice(m, 200, replace=False):
        k = int(tree.is_nact[i])
        row = tab.probs[tab.row(tree.is_keys[i])]
        assert row[tree.is_actions[i, :k]] == pytest.approx(avg[i, :k], rel=1e-6)
        assert row.sum() == pytest.approx(1.0, rel=1e-6)
    rec = KeyRecorder(DET)
    walk(params, rec)
    assert len(rec.seen) == m
    assert all(tab.row(np.frombuffer(k, np.int8)) >= 0 for k in rec.seen)
    with pytest.raises(ValueError, match="do not match"):
        TabularPolicy.from_compact(tree.is_keys[:m], tree.is_actions[:m], tree.is_nact[:5],
                                   avg[:m])
