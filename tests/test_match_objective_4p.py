"""The four-player match objective: the score feature of the key, the
match-equity terminal values of the abstract trainer, the iteration policy -> table ->
policy on a toy whose fixed point is known in closed form, and bad input refused in one
line before any work."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.helpers import play_random, random_action
from vitou_ai.abstraction import AbstractionConfig
from vitou_ai.abstraction.key import abstract_key, need_bucket
from vitou_ai.commands.cli import main
from vitou_ai.match_equity.four_player import table_from_outcomes
from vitou_ai.match_equity.objective_4p import (
    bonferroni_z,
    equity_array,
    iterate,
    read_table_4p,
    table_change,
)
from vitou_ai.match_equity.two_player import MatchEquityError, table_csv
from vitou_ai.rules import Game, VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.solvers.sampling.mccfr_abstract import terminal_value
from vitou_ai.training.match4p import coin_flip_table

BUCKETS = AbstractionConfig(scores=True, score_buckets="stakes")
EXACT_SCORES = AbstractionConfig(scores=True)
# R6.1 (one team at 20), R6.2 (20:20), near the end, and far from it
SCORES = [(0, 0), (3, 5), (14, 18), (18, 14), (19, 20), (20, 17), (17, 20), (20, 20), (20, 0)]


# ---- the score feature of the key ---------------------------------------------------------


@pytest.mark.parametrize("cfg", [BUCKETS, EXACT_SCORES], ids=["stakes", "exact"])
def test_equal_keys_have_equal_legal_actions_across_score_states(cfg):
    # one dictionary over all score states: a key met at two scores must allow the same
    # actions at both (R6 removes raises and adds go / pass / decline)
    seen: dict[int, tuple[int, ...]] = {}
    clash = []
    for a, b in SCORES:
        game = Game(VitouParams(profile="vitou", dealer=-1, scores=(a, b)))
        c = cfg.to_array(False)

        def visit(state, game=game, c=c, a=a, b=b):
            if state.is_chance_node():
                return
            legal = np.array(state.legal_actions(), np.int64)
            k = int(abstract_key(c, game.array, state.array, state.current_player(), legal,
                                 len(legal)))
            if seen.setdefault(k, tuple(legal)) != tuple(legal):
                clash.append((a, b, k))

        for seed in range(60):
            play_random(game, 1000 * a + 10 * b + seed, visit)
    assert not clash
    assert len(seen) > 500


def _first_decision_keys(cfg: AbstractionConfig, scores, seed: int) -> list[int]:
    """The keys met along one seeded random deal at ``scores`` (seat 0 deals)."""
    game = Game(VitouParams(profile="vitou", dealer=0, scores=scores))
    c = cfg.to_array(False)
    keys = []

    def visit(state):
        if not state.is_chance_node():
            legal = np.array(state.legal_actions(), np.int64)
            keys.append(int(abstract_key(c, game.array, state.array, state.current_player(),
                                         legal, len(legal))))

    play_random(game, seed, visit)
    return keys


def test_stakes_buckets_keep_the_need_and_nothing_else_of_the_score():
    # needs 21 - a: 1 | 2-3 | 4-6 | 7-12 | 13+ (the smallest stake of 1, 3, 6, 12 that wins)
    assert [need_bucket(n) for n in (1, 2, 3, 4, 6, 7, 12, 13, 21)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    for seed in range(5):
        # both teams need 13 or more: one bucket; the exact scores tell them apart
        assert _first_decision_keys(BUCKETS, (0, 0), seed) == \
            _first_decision_keys(BUCKETS, (3, 8), seed)
        assert _first_decision_keys(EXACT_SCORES, (0, 0), seed) != \
            _first_decision_keys(EXACT_SCORES, (3, 8), seed)
        # need 3 vs need 4 (a 3 wins vs it does not): different keys at the same cards
        assert _first_decision_keys(BUCKETS, (18, 0), seed)[0] != \
            _first_decision_keys(BUCKETS, (17, 0), seed)[0]
    assert AbstractionConfig().describe() == AbstractionConfig.from_json(
        AbstractionConfig().to_json()).describe()
    assert "score_buckets" not in AbstractionConfig().describe()  # old records still match
    with pytest.raises(ValueError, match="score_buckets"):
        AbstractionConfig(scores=True, score_buckets="thirds")


# ---- match-equity terminal values ---------------------------------------------------------


def _random_table(target: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {(a, b, d): float(rng.uniform(0.05, 0.95)) for a in range(target)
            for b in range(target) for d in range(4)}


def _direct(table, target, a, b, d, u) -> float:
    """Team 0's equity change, written out: after the deal, then minus before."""
    if u > 0:
        after = 1.0 if a + u >= target else table[(a + u, b, (d + 1) % 4)]
    elif u < 0:
        after = 0.0 if b - u >= target else table[(a, b - u, (d + 1) % 4)]
    else:
        after = table[(a, b, (d + 1) % 4)]
    return after - table[(a, b, d)]


def _play(game: Game, rng: random.Random, prefer: tuple[int, ...] = ()):
    state = game.new_initial_state()
    while not state.is_terminal():
        legal = [] if state.is_chance_node() else state.legal_actions()
        pick = [x for x in prefer if x in legal]
        state.apply_action(pick[0] if pick else random_action(state, rng))
    return state


def test_terminal_values_are_match_equity_changes():
    t = 21
    table = _random_table(t, 3)
    eq = equity_array(table, t)
    assert eq.shape == (22, 22, 4) and eq[21, 5, 2] == 1.0 and eq[5, 21, 1] == 0.0
    assert eq[14, 18, 3] == table[(14, 18, 3)]
    ret = np.zeros(L.MAX_PLAYERS)
    rng = random.Random(5)
    seen_u = set()
    for a, b in SCORES:
        for d in range(4):
            game = Game(VitouParams(profile="vitou", dealer=d, scores=(a, b)))
            for _ in range(12):
                state = _play(game, rng)
                u = int(state.returns()[0])
                seen_u.add(u)
                want = _direct(table, t, a, b, d, u)
                for p in range(4):
                    got = terminal_value(game.array, state.array, p, ret, eq)
                    assert got == pytest.approx(want if p % 2 == 0 else -want, abs=1e-12)
    assert {-1, 1} <= seen_u and len(seen_u) >= 4


def test_hand_checked_terminals():
    t = 21
    table = _random_table(t, 4)
    eq = equity_array(table, t)
    ret = np.zeros(L.MAX_PLAYERS)
    rng = random.Random(0)
    # R6.2 at 20:20, seat 1 deals: everyone passes, nothing scored, the deal passes to seat 2
    game = Game(VitouParams(profile="vitou", dealer=1, scores=(20, 20)))
    s = _play(game, rng, prefer=(L.A_PASS,))
    assert list(s.returns()) == [0, 0, 0, 0]
    assert terminal_value(game.array, s.array, 0, ret, eq) == pytest.approx(
        table[(20, 20, 2)] - table[(20, 20, 1)])
    assert terminal_value(game.array, s.array, 3, ret, eq) == pytest.approx(
        table[(20, 20, 1)] - table[(20, 20, 2)])
    # R6.1 at 20:17, seat 3 deals: team 0 declines, team 1 scores 1 -> 20:18, seat 0 deals
    game = Game(VitouParams(profile="vitou", dealer=3, scores=(20, 17)))
    s = _play(game, rng, prefer=(L.A_DECLINE,))
    assert s.returns()[1] == 1
    assert terminal_value(game.array, s.array, 2, ret, eq) == pytest.approx(
        table[(20, 18, 0)] - table[(20, 17, 3)])
    # R6.1 at 17:20, seat 0 deals: team 1 goes and team 0 wins: team 0 scores 3 -> 20:20
    game = Game(VitouParams(profile="vitou", dealer=0, scores=(17, 20)))
    for seed in range(200):
        s = _play(game, random.Random(seed), prefer=(L.A_GO,))
        if s.returns()[0] > 0:
            break
    assert s.returns()[0] == 3
    assert terminal_value(game.array, s.array, 1, ret, eq) == pytest.approx(
        -(table[(20, 20, 1)] - table[(17, 20, 0)]))


# ---- the iteration on a toy with a known fixed point --------------------------------------

TOY_T = 2
P_GAMBLE = 0.4


def _toy_outcomes(option: str, a: int, b: int) -> dict[int, float]:
    """Team 0 chooses each deal: *steady* scores 1 for either team (1/2 each); *gamble*
    scores 2 for team 0 with probability 0.4, else 2 for team 1 (capped at what is
    needed, R8.1)."""
    if option == "steady":
        return {1: 0.5, -1: 0.5}
    return {min(2, TOY_T - a): P_GAMBLE, -min(2, TOY_T - b): 1 - P_GAMBLE}


def _toy_train(_r, table):
    """The policy best-responding to ``table``: at each state the option of larger
    expected equity after the deal."""
    policy = {}
    for a in range(TOY_T):
        for b in range(TOY_T):
            for d in range(4):
                def value(opt, a=a, b=b, d=d):
                    return sum(w * _direct(table, TOY_T, a, b, d, u)
                               for u, w in _toy_outcomes(opt, a, b).items())
                policy[(a, b, d)] = max(("steady", "gamble"), key=value)
    return policy


def _toy_estimate(_r, policy):
    return table_from_outcomes({k: _toy_outcomes(o, k[0], k[1]) for k, o in policy.items()},
                               TOY_T), None


def test_iteration_reaches_the_toy_fixed_point():
    # by hand: E(1,1) = max(1/2, 0.4) = 0.5; E(1,0) = max(1/2 + 1/2 * 0.5, 0.4) = 0.75;
    # E(0,1) = max(1/2 * 0.5, 0.4) = 0.4 (gamble); E(0,0) = max((0.75 + 0.4) / 2, 0.4) = 0.575
    fixed = {(0, 0): 0.575, (1, 0): 0.75, (0, 1): 0.4, (1, 1): 0.5}
    start = {(a, b, d): 0.5 for a in range(TOY_T) for b in range(TOY_T) for d in range(4)}
    table, history = iterate(start, None, _toy_train, _toy_estimate, rounds=10)
    for (a, b, _d), v in table.items():
        assert v == pytest.approx(fixed[(a, b)], abs=1e-9)
    # round 1 moves the table; round 2 reproduces it exactly: converged, stop
    assert [h["converged"] for h in history] == [False, True]
    assert history[0]["max_abs"] == pytest.approx(0.25, abs=1e-9)  # E(1,0): 0.5 -> 0.75
    # the coin-flip start is a steady-only table: not the fixed point
    coin = coin_flip_table(TOY_T)
    assert coin[(0, 1, 0)] == pytest.approx(0.25)
    table2, history2 = iterate(coin, None, _toy_train, _toy_estimate, rounds=10)
    assert table2[(0, 1, 2)] == pytest.approx(0.4) and history2[-1]["converged"]
    # a round limit stops it unconverged
    _, h3 = iterate(start, None, _toy_train, _toy_estimate, rounds=1)
    assert len(h3) == 1 and not h3[0]["converged"]


def test_convergence_criterion_against_monte_carlo_error():
    keys = [(a, b, d) for a in range(21) for b in range(21) for d in range(4)]
    old = {k: 0.5 for k in keys}
    se = {k: 0.01 for k in keys}
    crit = bonferroni_z(len(keys))
    assert 4.1 < crit < 4.3  # 1764 entries, 5 % family-wise: Phi^-1(1 - 0.025 / 1764) = 4.19
    rng = np.random.default_rng(0)
    noisy = {k: 0.5 + float(rng.normal(0, 0.01 * np.sqrt(2))) for k in keys}
    assert table_change(old, noisy, se, se)["converged"]
    moved = dict(noisy)
    moved[(20, 17, 1)] += 0.01 * np.sqrt(2) * (crit + 1)
    c = table_change(old, moved, se, se)
    assert not c["converged"] and c["worst"] == [20, 17, 1]


# ---- bad input, one line, before any work -------------------------------------------------


def _one_line(capsys, code, *words):
    _, err = capsys.readouterr()
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1, err
    for w in words:
        assert w in lines[0], lines[0]


def test_bad_tables_and_settings_are_refused_in_one_line(tmp_path, capsys):
    cason = tmp_path / "cason.csv"
    cason.write_text(table_csv(coin_flip_table(12)))
    two = tmp_path / "two.csv"
    two.write_text(table_csv({(a, b, d): 0.5 for a in range(21) for b in range(21)
                              for d in (0, 1)}))
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("a,b\n1,2\n")
    holes = tmp_path / "holes.csv"
    tab = coin_flip_table(21)
    del tab[(7, 3, 2)]
    holes.write_text(table_csv(tab))
    dup = tmp_path / "dup.csv"  # a state given twice: the later row must not win silently
    dup.write_text(table_csv(coin_flip_table(21)) + "0,0,0,0.9\n")
    cut = tmp_path / "cut.csv"  # a table cut short: incomplete, not "another target"
    cut.write_text("\n".join(table_csv(coin_flip_table(21)).splitlines()[:50]) + "\n")
    other = tmp_path / "vitou_4p.csv"  # a 21-point table whose record says another profile
    other.write_text(table_csv(coin_flip_table(21)))
    (tmp_path / "vitou_4p.json").write_text('{"config": {"profile": "vitou_2p"}}')
    out = tmp_path / "run"
    base = ["train", "--objective", "match", "--out", str(out)]
    cases = [
        (["--profile", "vitou", "--table", str(cason)], "target 12", "plays to 21"),
        (["--profile", "vitou_cason", "--table", str(tmp_path / "none.csv")], "cannot read"),
        (["--profile", "vitou", "--table", str(two)], "two-player table"),
        (["--profile", "vitou", "--table", str(bad_csv)], "expected the columns"),
        (["--profile", "vitou", "--table", str(holes)], "missing", "7:3 dealer 2"),
        (["--profile", "vitou", "--table", str(other)], "profile vitou_2p"),
        (["--profile", "vitou", "--table", str(dup)], "0:0, dealer 0 is given twice"),
        (["--profile", "vitou", "--table", str(cut)], "incomplete table"),
        (["--profile", "vitou", "--rounds", "0"], "--rounds"),
        (["--profile", "vitou", "--time", "-5"], "--time"),
        (["--profile", "vitou", "--time", "nan"], "--time"),
        (["--profile", "vitou", "--table-deals", "0"], "--table-deals"),
        (["--profile", "vitou", "--abstraction", "scores=off"], "scores=on"),
        (["--profile", "vitou", "--abstraction", "score_buckets=thirds,scores=on"],
         "score_buckets"),
        (["--profile", "vitou", "--score0", "3"], "--score0 does not apply"),
        (["--profile", "vitou", "--solver", "es-mccfr"], "abstract-mccfr"),
        (["--profile", "truc_catalan"], "is for vitou_2p"),
        (["--profile", "vitou_2p", "--table", str(cason)], "four-player --objective match only"),
        (["--profile", "vitou", "--objective", "points", "--table", str(cason)],
         "four-player --objective match only"),
        (["--profile", "vitou", "--resume"], "no four-player --objective match run"),
    ]
    for extra, *words in cases:
        code = main(base + extra)
        _one_line(capsys, code, *words)
        assert not out.exists(), extra  # refused before any work
    with pytest.raises(MatchEquityError, match="target 12"):
        read_table_4p(cason, "vitou", 21)
    # a resumed run keeps its settings: a contradicting flag is refused in one line
    import json

    run = tmp_path / "resumed"
    run.mkdir()
    settings = {"profile": "vitou_cason", "time": 20, "rounds": 1, "table_deals": 10,
                "threads": 1, "seed": 0, "max_infosets": 1000, "abstraction": {},
                "table": None, "warm_policy": None}
    (run / "run.json").write_text(json.dumps({"objective": "match", "players": 4,
                                              "settings": settings}))
    (run / "state.json").write_text(json.dumps({"round": 1, "trained": 1, "history": []}))
    before = sorted(p.name for p in run.iterdir())
    for extra, words in ((["--profile", "vitou"], "contradicts the run's vitou_cason"),
                         (["--time", "5"], "--time 5.0 contradicts the run's 20"),
                         (["--table-deals", "20"], "--table-deals 20 contradicts")):
        code = main(["train", "--objective", "match", "--resume", "--out", str(run), *extra])
        _one_line(capsys, code, words)
        assert sorted(p.name for p in run.iterdir()) == before
    # without --objective match, the points trainer points to the right command
    code = main(["train", "--resume", "--out", str(run)])
    _one_line(capsys, code, "continue it with --objective match --resume")
    assert len(read_table_4p(cason, "vitou_cason", 12)) == 12 * 12 * 4


# ---- warm start from the points policy ----------------------------------------------------


def _probs(pol, key):
    from vitou_ai.bots.abstract import lookup_row

    stored = np.uint64(key) | (np.uint64(1) << np.uint64(63))
    r = lookup_row(pol.slots, 0, pol.slots.shape[0], pol.keys, 0, stored)
    return None if r < 0 else pol.probs[r]


def test_warm_start_rows_begin_at_the_points_policy():
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    params = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1)
    points = AbstractMCCFR(params, AbstractionConfig(), seed=1, max_infosets=1 << 14, threads=1)
    points.iterate(3000)
    base = points.policy()
    eq = equity_array(coin_flip_table(21), 21)
    states = np.array([(a, b, d) for a, b in ((0, 0), (18, 14), (14, 18)) for d in range(4)],
                      np.int64)

    def solver(warm: bool):
        s = AbstractMCCFR(params, BUCKETS, seed=2, max_infosets=1 << 16, threads=1)
        s.set_match_equity(eq, states, np.ones(len(states)))
        if warm:
            s.set_warm_start(base, 1.0 / 21, 10.0)
        s.iterate(1)
        return s.policy()

    warm, cold = solver(True), solver(False)
    cfg_m, cfg_b = BUCKETS.to_array(False), base.cfg_array(params)
    far_warm, far_cold, matched = [], [], 0
    for a, b, _ in states[::4]:
        game = Game(params.replace(scores=(int(a), int(b))))

        def visit(state, game=game):
            nonlocal matched
            if state.is_chance_node():
                return
            legal = np.array(state.legal_actions(), np.int64)
            if len(legal) < 2:
                return
            q = state.current_player()
            km = abstract_key(cfg_m, game.array, state.array, q, legal, len(legal))
            kb = abstract_key(cfg_b, game.array, state.array, q, legal, len(legal))
            pw, pb, pc = (_probs(pol, k) for pol, k in ((warm, km), (base, kb), (cold, km)))
            if pw is None or pb is None or pc is None:
                return
            matched += 1
            far_warm.append(np.abs(pw[:len(legal)] - pb[:len(legal)]).max())
            far_cold.append(np.abs(pc[:len(legal)] - pb[:len(legal)]).max())

        for seed in range(40):
            play_random(game, seed, visit)
    assert matched > 20
    # warm: 10 visits of prior p plus at most one visit of regret matching on p / T
    assert max(far_warm) <= 1 / 11 + 1e-6
    assert max(far_cold) > 0.2  # cold rows start uniform: the check can fail


def test_stakes_buckets_are_refused_in_a_family_game():
    """The ``stakes`` buckets follow Vitou's ladder (R4.1); a Truc ladder differs."""
    cfg = AbstractionConfig(scores=True, score_buckets="stakes")
    cfg.check_game(VitouParams(profile="vitou", dealer=-1))
    with pytest.raises(ValueError, match="family's ladders differ"):
        cfg.check_game(VitouParams(profile="truc_catalan", dealer=-1))
