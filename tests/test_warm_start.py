"""Warm starts of a match-equity deal (``experiments/warm_start.py``):
whatever tables a deal starts from, its solve ends at the cold start's equilibrium
value, which is the table's own entry; and a table of another game is refused."""

from __future__ import annotations

import pytest
from helpers import experiment

from vitou_ai.match_equity import two_player as M

# 4 ranks x 2, 2-card hands, a 5-point match: the state (1, 1) and its neighbour (1, 2)
# are away from the end (R9.3), so their deal trees have the same structure
CONFIG = dict(target=5, ranks=4, copies=2, hand_size=2)
TOL = 1e-4


@pytest.fixture(scope="module")
def solved():
    config = M.EquityConfig(**CONFIG)
    table, _ = M.compute_table(config)
    return config, table


def test_every_warm_start_ends_at_the_cold_value(solved):
    ws = experiment("warm_start.py")
    config, table = solved
    key = (1, 1)
    warm, _, _, _ = ws.solve(config, (1, 2), table, TOL, 10)
    cold, cold_its, _, _ = ws.solve(config, key, table, TOL, 10)
    cold_values = [s._value() + 0.5 for s in cold]
    for d in (0, 1):
        # the table solved this deal (cold, at its fixed point): the same value
        assert cold_values[d] == pytest.approx(table[(*key, d)], abs=4 * TOL)
        assert cold[d].exploitability() <= TOL
    for start in ws.STARTS[1:]:
        solves, its, _, chosen = ws.solve(config, key, table, TOL, 10, start, warm)
        for d, s in enumerate(solves):
            assert s.exploitability() <= TOL, (start, d)
            assert s._value() + 0.5 == pytest.approx(cold_values[d], abs=4 * TOL), (start, d)
            mode, e0 = chosen[d]
            if start == "adaptive":
                # the neighbour's average judged in this deal decides the start
                assert e0 is not None and mode == ("regrets_t" if e0 <= 20 * TOL else "cold")
            else:
                assert mode == start and e0 is None


def test_a_warm_start_from_another_tree_is_refused(solved):
    ws = experiment("warm_start.py")
    config, table = solved
    # (1, 4) is one point from the end (R9.3: no raises), a deal tree of its own
    warm, _, _, _ = ws.solve(config, (1, 4), table, 1e-2, 10)
    with pytest.raises(ValueError, match="the neighbour's deal tree differs"):
        ws.solve(config, (1, 3), table, TOL, 10, "regrets_t", warm)


def test_a_table_of_another_game_is_refused(solved, tmp_path, capsys):
    ws = experiment("warm_start.py")
    _, table = solved
    path = tmp_path / "table.csv"
    path.write_text(M.table_csv(table))
    base = ["--ranks", "4", "--copies", "2", "--hand-size", "2", "--table", str(path),
            "--states", "1,1", "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as e:
        ws.main([*base, "--target", "6"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "not those of a 6-point match" in err
    (tmp_path / "table.json").write_text('{"config": {"target": 5, "ranks": 8}}')
    with pytest.raises(SystemExit):
        ws.main([*base, "--target", "5"])
    assert "is the table of ranks 8, not 4" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
