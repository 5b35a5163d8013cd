"""Team best responses for four players on the public tree: the pooled team (partners
who see both hands) against a brute force over deals written here, the alternating
partners' responses and seat best responses against the flat tree, and a toy solved
by hand."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from vitou_ai.rules import VitouParams
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.observe import infostate_key
from vitou_ai.solvers.flat.evaluate import best_response, team_best_response
from vitou_ai.solvers.flat.tree import build_tree, enumerate_deals
from vitou_ai.solvers.public import cfr as PC
from vitou_ai.solvers.public import team as PT
from vitou_ai.solvers.public.export import entry_children, from_flat_policy
from vitou_ai.solvers.public.tree import build_public_tree, infoset_table

SMALL = [
    VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1),
    VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1),
    VitouParams(profile="vitou_cason", ranks=4, copies=1, hand_size=1, scores=(11, 11)),
]
IDS = ["4p-3x2", "4p-3x2-drawn", "cason-r6.2"]


def _weight(key: np.ndarray, action: int) -> float:
    """A fixed, arbitrary positive weight per (information state, action)."""
    return 1.0 + zlib.crc32(key.tobytes() + bytes([action])) % 5


def _keyed_policy(tree) -> np.ndarray:
    keys, entry_is = infoset_table(tree)
    child = entry_children(tree)
    w = np.zeros(tree.num_entries)
    for e in np.nonzero(entry_is >= 0)[0]:
        w[e] = _weight(keys[entry_is[e]], int(tree.action[child[e]]))
    return PC.entry_policy(tree, w)


def _brute_force(params: VitouParams, team: int, pooled: bool) -> float:
    """Team ``team``'s value by a walk over kernel states, one list of (state, weight,
    hands) per public history: the other seats play :func:`_weight` normalised over
    their legal actions; with ``pooled`` the team's two seats take, for each pair of
    their hands, the action of highest value (expectimax over the team's joint
    information), else they play :func:`_weight` too."""
    pa = params.to_array()
    deals, probs = enumerate_deals(params)
    key = np.empty(L.KEY_SIZE, np.int8)
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    cprobs = np.empty(L.MAX_CHANCE_OUTCOMES)
    ret = np.empty(L.MAX_PLAYERS)

    def child(state, a):
        s = state.copy()
        K.apply_action(pa, s, a)
        return s

    def walk(items):
        st0 = items[0][0]
        if K.is_terminal(st0):
            total = 0.0
            for st, w, _ in items:
                K.returns(pa, st, ret)
                total += w * ret[team]
            return total
        if K.is_chance(st0):
            if st0[L.S_PHASE] == L.PH_DEAL:
                out = []
                for st, w, _ in items:
                    for hands, pr in zip(deals, probs, strict=True):
                        s = st.copy()
                        K.apply_deal(pa, s, hands)
                        out.append((s, w * pr, tuple(map(tuple, hands))))
                return walk(out)
            m = K.chance_outcomes(pa, st0, acts, cprobs)
            outcomes = list(zip(acts[:m].tolist(), cprobs[:m].tolist(), strict=True))
            return sum(walk([(child(st, a), w * q, h) for st, w, h in items])
                       for a, q in outcomes)
        p = K.current_player(pa, st0)
        if pooled and p % 2 == team:
            groups: dict = {}
            for it in items:
                groups.setdefault((it[2][team], it[2][team + 2]), []).append(it)
            total = 0.0
            for group in groups.values():
                m = K.legal_actions(pa, group[0][0], acts)
                total += max(walk([(child(st, a), w, h) for st, w, h in group])
                             for a in acts[:m].tolist())
            return total
        by_action: dict = {}
        for st, w, h in items:
            m = K.legal_actions(pa, st, acts)
            infostate_key(pa, st, p, key)
            ws = [_weight(key, a) for a in acts[:m].tolist()]
            for a, x in zip(acts[:m].tolist(), ws, strict=True):
                by_action.setdefault(a, []).append((child(st, a), w * x / sum(ws), h))
        return sum(walk(lst) for lst in by_action.values())

    return walk([(K.new_state(pa), 1.0, None)])


@pytest.mark.parametrize("params", SMALL, ids=IDS)
def test_pooled_best_response_matches_brute_force(params):
    pt = build_public_tree(params)
    pol = _keyed_policy(pt)
    ps = PT.TeamPasses(pt)
    for team in (0, 1):
        value = PT.team_value(pt, pol, team, ps)
        pooled = PT.pooled_best_response_value(pt, pol, team, ps)
        assert value == pytest.approx(_brute_force(params, team, False), abs=1e-12)
        assert pooled == pytest.approx(_brute_force(params, team, True), abs=1e-12)
        alt, rounds = PT.alternating_best_response(pt, pol, team, passes=ps)
        assert value - 1e-12 <= alt <= pooled + 1e-12
        assert rounds >= 2


@pytest.mark.parametrize("params", SMALL + [VitouParams(profile="vitou", ranks=3, copies=3,
                                                        hand_size=2)],
                         ids=IDS + ["4p-3x3-2cards"])
def test_seat_and_alternating_responses_agree_with_the_flat_tree(params):
    pt, ft = build_public_tree(params), build_tree(params)
    rng = np.random.default_rng(3)
    fp = rng.random((ft.num_infosets, 5)) * ft.legal_mask()
    fp /= fp.sum(1, keepdims=True)
    pol = from_flat_policy(pt, ft, fp)
    ps = PT.TeamPasses(pt)
    for seat in range(4):
        v, _ = PT.seat_best_response(pt, pol, seat, ps)
        assert v == pytest.approx(best_response(ft, fp, seat)[0], abs=1e-12)
    assert PT.nash_conv(pt, pol, ps) == pytest.approx(PC.nash_conv(pt, pol), abs=1e-12)
    for team in (0, 1):
        b = PT.team_bracket(pt, pol, team, passes=ps)
        flat = team_best_response(ft, fp, team)
        assert b.value == pytest.approx(flat.baseline, abs=1e-12)
        # both alternate from the same first responder with the first best action on
        # ties, so they climb through the same policies
        assert b.alternating == pytest.approx(flat.value, abs=1e-12)
        assert b.alternating <= b.pooled + 1e-12


@pytest.mark.parametrize("params", [
    SMALL[0], SMALL[1],
    VitouParams(profile="vitou", ranks=3, copies=3, hand_size=2),
    VitouParams(profile="trut", ranks=3, copies=2, hand_size=1),
    VitouParams(profile="truc_catalan", ranks=3, copies=3, hand_size=1),
], ids=["4p-3x2", "4p-3x2-drawn", "4p-3x3-2cards", "trut-3x2", "catalan-3x3"])
def test_flat_pooled_team_response_equals_the_public_trees(params):
    """The flat tree's pooled team best response (for truc_1912, which has no public
    tree, F2.3) equals the public tree's pooled pass on a random policy."""
    from vitou_ai.solvers.flat.evaluate import pooled_team_best_response

    pt, ft = build_public_tree(params), build_tree(params)
    rng = np.random.default_rng(5)
    fp = rng.random((ft.num_infosets, 5)) ** 3 * ft.legal_mask()
    fp /= fp.sum(1, keepdims=True)
    pol = from_flat_policy(pt, ft, fp)
    ps = PT.TeamPasses(pt)
    for team in (0, 1):
        assert pooled_team_best_response(ft, fp, team) == pytest.approx(
            PT.pooled_best_response_value(pt, pol, team, ps), abs=1e-12)


def test_flat_pooled_team_response_of_1912_bounds_the_alternating_one():
    """truc_1912 (fresh deal, F2.3): alternating <= pooled on the flat tree, and a team
    pooled at a fixed policy gains at least what one seat gains."""
    from vitou_ai.solvers.flat.evaluate import expected_returns, pooled_team_best_response

    ft = build_tree(VitouParams(profile="truc_1912", ranks=2, copies=4, hand_size=1, target=3))
    rng = np.random.default_rng(5)
    fp = rng.random((ft.num_infosets, 5)) * ft.legal_mask()
    fp /= fp.sum(1, keepdims=True)
    u = expected_returns(ft, fp)
    for team in (0, 1):
        pooled = pooled_team_best_response(ft, fp, team)
        assert team_best_response(ft, fp, team).value <= pooled + 1e-12
        assert max(best_response(ft, fp, s)[0] for s in (team, team + 2)) <= pooled + 1e-12
        assert pooled > u[team]


def test_seat_best_response_policy_reaches_its_value():
    params = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1)
    pt = build_public_tree(params)
    pol = _keyed_policy(pt)
    v, br = PT.seat_best_response(pt, pol, 2)
    # the response is a pure policy of seat 2; playing it gives the value claimed
    assert PT.team_value(pt, br, 0) == pytest.approx(v, abs=1e-12)
    np.testing.assert_allclose(PC.entry_policy(pt, br), br)


def test_toy_worked_by_hand():
    """``vitou_cason``, T 9 A K one copy each, one card to every seat, both teams at
    11 of 12 (R6.2), dealer 0: seats 1, 2, 3, 0 say go or pass, each seeing only its
    card; the first go plays the deal and the team holding the T wins 1, all pass
    scores 0. Everybody uniform: the play happens with probability 15/16 and the T is
    equally likely on each side, team value 0. Team 0 pooled (sees both cards): with
    the T (probability 1/2) go: +1; without, both pass and the play happens if seat 1
    or seat 3 goes (3/4): -3/4. Value 1/2 - 3/8 = 1/8. The partners alone reach it
    too (each goes with the T, else passes: seat 2 without the T, going, wins only
    if seat 0 has it, 1/3 - 2/3 = -1/3, passing 1/2 (-1/3) + 1/2 (1/3) = 0), so
    alternating = pooled = 1/8; by symmetry the same for team 1."""
    params = VitouParams(profile="vitou_cason", ranks=4, copies=1, hand_size=1,
                         scores=(11, 11), dealer=0)
    pt = build_public_tree(params)
    uniform = PC.entry_policy(pt, np.zeros(pt.num_entries))
    for team in (0, 1):
        b = PT.team_bracket(pt, uniform, team)
        assert b.value == pytest.approx(0.0, abs=1e-12)
        assert b.pooled == pytest.approx(1 / 8, abs=1e-12)
        assert b.alternating == pytest.approx(1 / 8, abs=1e-12)


def test_bad_inputs():
    pt2 = build_public_tree(VitouParams(profile="vitou_2p", ranks=2, copies=2, hand_size=1))
    with pytest.raises(ValueError, match="four players"):
        PT.TeamPasses(pt2)
    pt = build_public_tree(SMALL[0])
    with pytest.raises(ValueError, match="policy shape"):
        PT.team_value(pt, np.zeros(3), 0)
    with pytest.raises(ValueError, match="team must be 0 or 1"):
        PT.pooled_best_response_value(pt, np.zeros(pt.num_entries), 2)


# ---- counting without building, exact bot policies -------------------------------------------


@pytest.mark.parametrize("params", [
    VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1),
    VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1),
    VitouParams(profile="vitou", ranks=4, copies=3, hand_size=2),
], ids=["4p-drawn", "2p-drawn", "4p-4x3-2cards"])
def test_count_equals_the_built_tree(params):
    from vitou_ai.solvers.public.tree import count_public_tree

    pt = build_public_tree(params)
    c = count_public_tree(params)
    assert (c.nodes, c.entries, c.decisions) == (pt.num_nodes, pt.num_entries,
                                                  int((pt.kind == 1).sum()))
    est = count_public_tree(params, probes=4000, seed=1)
    assert est.nodes == pytest.approx(pt.num_nodes, rel=0.15)
    assert est.entries == pytest.approx(pt.num_entries, rel=0.15)


def test_scripted_stream():
    from vitou_ai.rng import SCRIPT_SCALE, next_below, next_float

    s = np.array([0, 2, int(0.25 * SCRIPT_SCALE), int(0.7 * SCRIPT_SCALE)], np.uint64)
    assert next_float(s) == 0.25
    assert next_below(s, 3) == 2  # floor(0.7 * 3)
    assert next_float(s) == 0.0 and s[0] == 3  # past the script: counted


@pytest.mark.parametrize("name", ["cautious", "bluffer", "counter"])
def test_heuristic_probabilities_match_the_bot_drawing(name):
    """Exact probabilities against the frequencies of the bot's own random draws, at
    the decisions of random deals (R1.2) played by the bot."""
    from vitou_ai.bots.exact import MAX_DRAWS, breakpoints, heuristic_probs
    from vitou_ai.bots.heuristic import heuristic_action
    from vitou_ai.bots.named import named_bot

    params = VitouParams(profile="vitou", ranks=5, copies=3, hand_size=2)
    pa = params.to_array()
    hp = named_bot(name).params.to_array()
    bounds = breakpoints(hp)
    rng = np.random.default_rng(11)
    legal = np.empty(L.NUM_ACTIONS, np.int64)
    cp = np.empty(L.MAX_CHANCE_OUTCOMES)
    iwork = np.zeros(32, np.int64)
    script = np.zeros(2 + MAX_DRAWS, np.uint64)
    out = np.zeros(L.NUM_ACTIONS)
    stream = np.array([12345], np.uint64)
    draws, mixed = 3000, 0
    for _ in range(25):
        st = K.new_state(pa)
        while not K.is_terminal(st):
            if K.is_chance(st):
                m = K.chance_outcomes(pa, st, legal, cp)
                K.apply_action(pa, st, legal[rng.choice(m, p=cp[:m] / cp[:m].sum())])
                continue
            p = K.current_player(pa, st)
            m = K.legal_actions(pa, st, legal)
            heuristic_probs(hp, pa, st, p, legal, m, bounds, iwork, script, out)
            assert out.sum() == pytest.approx(1.0, abs=1e-12)
            assert set(np.nonzero(out)[0]) <= set(legal[:m].tolist())
            hits = np.zeros(L.NUM_ACTIONS)
            for _ in range(draws):
                hits[heuristic_action(hp, pa, st, p, stream, legal, m, iwork)] += 1
            sd = np.sqrt(np.clip(out * (1 - out), 0.0, None) / draws)
            assert np.all(np.abs(hits / draws - out) <= 5 * sd + 1e-9), (hits / draws, out)
            mixed += int(((out > 0) & (out < 1)).any())
            K.apply_action(pa, st, heuristic_action(hp, pa, st, p, stream, legal, m, iwork))
    assert mixed > 0  # some decisions were mixed: the enumeration was exercised


@pytest.mark.slow
def test_bot_policy_values_match_simulation():
    """All four seats play ``counter``: the exact value on the public tree against a
    simulated mean (duplicate-free, 300,000 deals, 4.5 standard errors)."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.sim.batch import simulate
    from vitou_ai.solvers.public.export import bot_policy

    params = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=2)
    pt = build_public_tree(params)
    for name in ("random", "counter"):
        bot = named_bot(name)
        exact = PT.team_value(pt, bot_policy(pt, bot), 0)
        r = np.asarray(simulate(params, [bot] * 4, 300_000, seed=3)["return0"], float)
        assert abs(exact - r.mean()) <= 4.5 * r.std() / np.sqrt(len(r))


@pytest.mark.parametrize("params", [SMALL[0], SMALL[2],
                                    VitouParams(profile="vitou", ranks=3, copies=3, hand_size=2),
                                    VitouParams(ranks=4, copies=2, hand_size=2)],
                         ids=["4p-3x2", "cason-r6.2", "4p-3x3-2cards", "2p-4x2-2cards"])
def test_random_bot_fast_path_equals_the_kernel_replay(params):
    """``bot_policy`` gives ``random`` without replaying the tree on the kernel; the
    replay (any policy's path) gives the same probabilities, and they are uniform over
    each hand's legal actions at the decisions the flat tree reaches."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.solvers.public.export import _replayed_policy, bot_policy, flat_slots

    pt = build_public_tree(params)
    bot = named_bot("random")
    fast, slow = bot_policy(pt, bot), _replayed_policy(pt, bot)
    assert np.abs(fast - slow).max() <= 1e-15
    ft = build_tree(params)
    rows, _ = flat_slots(pt, ft)
    ok = rows >= 0
    assert ok.any()
    assert np.allclose(fast[ok], 1.0 / ft.is_nact[rows[ok]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("params", SMALL + [VitouParams(profile="vitou", ranks=4, copies=3,
                                                        hand_size=2)],
                         ids=IDS + ["4p-4x3-2cards"])
def test_single_seat_passes_equal_the_team_passes(params):
    """``team_value`` and ``seat_best_response`` run on the single-seat range passes;
    the team passes over pairs of hands (``MODE_VALUE``, ``MODE_SEAT``) give the same
    values, and the same pure response where no two actions tie in value."""
    pt = build_public_tree(params)
    pol = _keyed_policy(pt)
    ps = PT.TeamPasses(pt)
    for team in (0, 1):
        assert PT.team_value(pt, pol, team, ps) == pytest.approx(
            ps.run(team, PT.MODE_VALUE, -1, pol)[0], abs=1e-12)
    for seat in range(4):
        v, out = PT.seat_best_response(pt, pol, seat, ps)
        v_team, br = ps.run(seat % 2, PT.MODE_SEAT, seat, pol)
        assert v == pytest.approx(v_team, abs=1e-12)
        mine = ps.seat_of_entry == seat
        assert np.all(np.isin(out[mine], (0.0, 1.0)))
        assert np.array_equal(out[~mine], pol[~mine])
        # the response reaches its value, whichever action won a tie
        assert PT.team_value(pt, out, seat % 2, ps) == pytest.approx(v, abs=1e-12)
        assert np.mean(out[mine] == br[mine]) > 0.95


@pytest.mark.parametrize("params", SMALL + [VitouParams(profile="vitou", ranks=4, copies=3,
                                                        hand_size=2)],
                         ids=IDS + ["4p-4x3-2cards"])
def test_merged_terminal_children_equal_entering_each(params):
    """The team passes value a decision's terminal children together (one pair-value
    matrix below a partner, one opponent-weighted sum below an opponent); entering each
    terminal gives the same values in every mode, and the same seat responses."""
    pt = build_public_tree(params)
    pol = _keyed_policy(pt)
    fast, ref = PT.TeamPasses(pt), PT.TeamPasses(pt, merge_terminals=False)
    for team in (0, 1):
        for mode, responder in ((PT.MODE_VALUE, -1), (PT.MODE_POOLED, -1),
                                (PT.MODE_SEAT, team), (PT.MODE_SEAT, team + 2)):
            v, br = fast.run(team, mode, responder, pol)
            v_ref, br_ref = ref.run(team, mode, responder, pol)
            assert v == pytest.approx(v_ref, abs=1e-12)
            assert np.mean(br == br_ref) > 0.99


@pytest.mark.parametrize("bot", ["random", "cautious", "bluffer", "counter"])
def test_flat_bot_policy_and_flat_bracket_equal_the_public_trees(bot):
    """A named bot exported to the flat tree (``flat_bot_policy``, for truc_1912 and
    partnership Put, which have no public tree) is the public tree's export of it: the
    team values, the pooled bound and every seat's best response equal the public tree's
    to 1e-12. (The alternating bound depends on which of equally good responses each
    round picks, so the two trees may stop at different local optima: only its order
    is checked.)"""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.solvers.flat import evaluate as E
    from vitou_ai.solvers.public.export import bot_policy, flat_bot_policy

    params = VitouParams(profile="vitou_cason", ranks=4, copies=2, hand_size=1, dealer=-1)
    pt, ft = build_public_tree(params), build_tree(params)
    fb, pb = E.team_bracket, PT.team_bracket
    fp, pp = flat_bot_policy(ft, named_bot(bot)), bot_policy(pt, named_bot(bot))
    assert np.allclose(fp.sum(1), 1.0) and (fp[~ft.legal_mask().astype(bool)] == 0).all()
    for team in (0, 1):
        a, b = fb(ft, fp, team), pb(pt, pp, team)
        assert (a.value, a.pooled) == pytest.approx((b.value, b.pooled), abs=1e-12)
        assert a.value <= a.alternating <= a.pooled + 1e-12
    for seat in range(4):
        assert best_response(ft, fp, seat)[0] == pytest.approx(
            PT.seat_best_response(pt, pp, seat)[0], abs=1e-12)


def test_flat_team_bracket_refuses_two_players_and_a_bad_team():
    from vitou_ai.solvers.flat import evaluate as E

    ft = build_tree(VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1))
    with pytest.raises(ValueError, match="four players"):
        E.team_bracket(ft, E.uniform_policy(ft), 0)
    ft = build_tree(VitouParams(profile="truc_1912", ranks=2, copies=4, hand_size=1, target=3))
    with pytest.raises(ValueError, match="team must be 0 or 1"):
        E.team_bracket(ft, E.uniform_policy(ft), 2)
