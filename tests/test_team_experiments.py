"""The four-player team experiments (``experiments/team_benchmark.py``,
``experiments/team_maxmin.py``) over their one shared helper (``team_common.py``): bad
input refused in one line with exit code 2 and the script's name, before any tree; the
resumable CSV read back, its rows kept and skipped. And the team tools' one check of a
team game, and their one result class."""

from __future__ import annotations

import csv

import pytest

from tests.helpers import experiment
from vitou_ai import VitouParams
from vitou_ai.solvers.flat.evaluate import uniform_policy
from vitou_ai.solvers.flat.team_maxmin import (
    TeamMaxminError,
    TeamMaxminResult,
    check_team_game,
    team_best_response_to_reach,
    team_maxmin_best_response,
    team_reach,
)
from vitou_ai.solvers.flat.tmecor import TmecorError, solve_tmecor
from vitou_ai.solvers.flat.tree import NotTwoTeamsError, build_tree


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("script", ["team_benchmark", "team_maxmin"])
@pytest.mark.parametrize("spec", ["3,x,1", "3,2", "1,2,1"])
def test_a_bad_variant_is_refused_in_one_line_before_any_work(tmp_path, capsys, script,
                                                             spec):
    mod = experiment(f"{script}.py")
    with pytest.raises(SystemExit) as e:
        mod.main(["--variants", "2,3,1", spec, "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{script}: variant '{spec}': expected RANKS,COPIES,HAND of a "
                          "valid game (")
    assert "\n" not in err
    assert not (tmp_path / "out").exists()


def test_team_benchmark_keeps_and_skips_the_rows_already_there(tmp_path, capsys):
    mod = experiment("team_benchmark.py")
    args = ["--variants", "2,3,1", "--cfr-iterations", "20", "--out", str(tmp_path)]
    assert mod.main(args) == 0
    first = rows_of(tmp_path / "tmecor.csv")
    assert [r["variant"] for r in first] == ["2,3,1"]
    assert list(first[0]) == mod.COLUMNS and first[0]["status"] == "gap"
    capsys.readouterr()
    assert mod.main([*args[:2], "2,4,1", *args[2:]]) == 0
    assert "2,3,1:" not in capsys.readouterr().out  # read back, not solved again
    again = rows_of(tmp_path / "tmecor.csv")
    assert [r["variant"] for r in again] == ["2,3,1", "2,4,1"] and again[0] == first[0]


def test_team_maxmin_keeps_and_skips_the_rows_already_there(tmp_path, capsys):
    mod = experiment("team_maxmin.py")
    args = ["--variants", "2,3,1", "--bots", "uniform", "--out", str(tmp_path)]
    assert mod.main(args) == 0
    first = rows_of(tmp_path / "team_maxmin.csv")
    assert [(r["policy"], r["team"]) for r in first] == [("uniform", "0"), ("uniform", "1")]
    assert list(first[0]) == mod.COLUMNS
    capsys.readouterr()
    assert mod.main([*args, "--sizes", "2,3,1"]) == 0
    out = capsys.readouterr().out
    assert "uniform team 0: value" not in out  # read back, not solved again
    assert rows_of(tmp_path / "team_maxmin.csv") == first
    sizes = rows_of(tmp_path / "sizes.csv")
    assert len(sizes) == 2 and list(sizes[0]) == mod.SIZE_COLUMNS


@pytest.fixture(scope="module")
def tree():
    return build_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=0))


def test_both_team_tools_refuse_with_the_one_check(tree):
    """The same trees refused by TMECor and by the team best response, each with its own
    error class and name, in one line; a per-seat tree with the tree's own error."""
    two = build_tree(VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                                 dealer=0))
    per_seat = build_tree(VitouParams(profile="put_willughby", ranks=3, copies=2,
                                      hand_size=2))
    for bad, err, words in [("tree", (TmecorError, TeamMaxminError), "flat game tree"),
                            (two, (TmecorError, TeamMaxminError), "four players"),
                            (per_seat, (NotTwoTeamsError, NotTwoTeamsError), "P7.0")]:
        for call, cls, name in [(lambda t: solve_tmecor(t), err[0], "TMECor"),
                                (lambda t: team_maxmin_best_response(
                                    t, uniform_policy(tree), 0), err[1], "team-maxmin"),
                                (lambda t: check_team_game(t, "X", TmecorError), err[0], "X")]:
            with pytest.raises(cls, match=words) as e:
                call(bad)
            assert "\n" not in str(e.value) and name in str(e.value)
    check_team_game(tree, "X")  # a four-player team game passes


def test_one_result_class_for_both_best_responses(tree):
    pol = uniform_policy(tree)
    a = team_maxmin_best_response(tree, pol, 1)
    b = team_best_response_to_reach(tree, team_reach(tree, pol, 0), 1)
    assert type(a) is type(b) is TeamMaxminResult
    assert a.value is not None and a.gain == pytest.approx(a.best - a.value)
    assert a.gain_bound == pytest.approx(a.bound - a.value)
    assert b.value is None and b.best == pytest.approx(a.best, abs=1e-9)
    with pytest.raises(TeamMaxminError, match="no policy"):
        b.gain  # noqa: B018


@pytest.mark.parametrize("args, says", [
    (["--profile", "vitou_2p"], "--profile vitou_2p: TMECor needs four players in two teams"),
    (["--profile", "put_willughby"], "--profile put_willughby: TMECor needs four players"),
    (["--dealer", "5"], "--dealer must be a seat 0-3 or -1 (drawn), got 5"),
    (["--variants", "8,4,3"], "variant 8,4,3: the game tree has more than 2,000,000 nodes"),
    (["--variants"], "--variants: give at least one"),
])
def test_team_benchmark_refuses_what_it_cannot_solve_before_any_work(tmp_path, capsys, args,
                                                                     says):
    mod = experiment("team_benchmark.py")
    with pytest.raises(SystemExit) as e:
        mod.main([*args, "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"team_benchmark: {says}") and "\n" not in err, err
    assert not (tmp_path / "out").exists()


def test_team_benchmark_without_the_dcfr_baseline_writes_its_figure(tmp_path):
    mod = experiment("team_benchmark.py")
    assert mod.main(["--variants", "2,3,1", "--cfr-iterations", "0", "--out",
                     str(tmp_path)]) == 0
    row = rows_of(tmp_path / "tmecor.csv")[0]
    assert row["cfr_guarantee0"] == "" and (tmp_path / "tmecor.png").stat().st_size > 0


@pytest.mark.parametrize("script, csv_name", [("team_benchmark", "tmecor.csv"),
                                              ("team_maxmin", "team_maxmin.csv")])
@pytest.mark.parametrize("content, says", [
    (b"\xff\xfe\x00binary", "not a CSV this script wrote (UnicodeDecodeError)"),
    (b"a,b\n1,2\n", "row 1 has no 'profile'"),
])
def test_team_experiments_refuse_an_out_folder_they_cannot_use(tmp_path, capsys, script,
                                                                csv_name, content, says):
    """An --out that is a file, or that holds a damaged or foreign CSV under the script's
    name: one line, exit 2, and the file is left as it was."""
    mod = experiment(f"{script}.py")
    path = tmp_path / csv_name
    path.write_bytes(content)
    with pytest.raises(SystemExit) as e:
        mod.main(["--variants", "2,3,1", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and says in err and "\n" not in err, err
    assert path.read_bytes() == content
    with pytest.raises(SystemExit) as e:
        mod.main(["--variants", "2,3,1", "--out", str(path)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "exists and is not a folder" in err and "\n" not in err, err


def test_team_benchmark_refuses_a_non_number_in_its_csv(tmp_path, capsys):
    mod = experiment("team_benchmark.py")
    (tmp_path / "tmecor.csv").write_text("profile,variant,dealer,value,lower,upper,gap\n"
                                         "vitou,2,3,1,0,abc,0,0,0\n")
    with pytest.raises(SystemExit) as e:
        mod.main(["--variants", "2,3,1", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and "is not a number" in err, err
