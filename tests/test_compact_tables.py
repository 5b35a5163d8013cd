"""Compact tables of the public-tree solvers (``PublicCFR(tables="float32")``): the same
solve as the float64 tables to single precision's tolerance, checkpoints that resume to
the same iterates and keep their table type, and bad table types refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vitou_ai import VitouParams
from vitou_ai.solvers.checkpoint import CheckpointError
from vitou_ai.solvers.protocol import make_solver
from vitou_ai.solvers.public.cfr import PublicCFR
from vitou_ai.solvers.public.tree import build_public_tree

#: the stated tolerance of a float32 solve against the float64 one after 200 iterations of
#: the variant below (measured: game values 1.2e-7 apart, exploitabilities 5.07e-4 and
#: 5.25e-4 for DCFR, 4.41e-4 and 4.34e-4 for PCFR+; the average policies differ by at most
#: 2.3e-5 at 99 % of the entries, by up to 0.11 at a few dozen entries where the policy is
#: indifferent): the game value (points per deal), the exploitability relative to the
#: float64 run's, and the 99th percentile of the entries' probability differences
VALUE_TOLERANCE = 1e-6
EXPLOITABILITY_RELATIVE = 0.10
POLICY_TOLERANCE_99 = 1e-4


@pytest.fixture(scope="module")
def tree():
    return build_public_tree(VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2,
                                         dealer=-1))


@pytest.mark.parametrize("variant", ["dcfr", "pcfr+"])
def test_float32_tables_solve_as_float64(tree, variant):
    a, b = PublicCFR(tree, variant), PublicCFR(tree, variant, tables="float32")
    a.iterate(200)
    b.iterate(200)
    assert b.regrets.dtype == b.cum_policy.dtype == np.float32
    assert b.prediction.dtype == np.float32 if variant == "pcfr+" else b.prediction.size == 0
    pa, pb = a.average_policy(), b.average_policy()
    assert pb.dtype == np.float64
    assert np.quantile(np.abs(pa - pb), 0.99) <= POLICY_TOLERANCE_99
    assert abs(a.expected_returns()[0] - b.expected_returns()[0]) <= VALUE_TOLERANCE
    ea, eb = a.exploitability(), b.exploitability()
    assert abs(ea - eb) <= EXPLOITABILITY_RELATIVE * ea, (ea, eb)
    # and the compact run did converge (not merely stay near a poor float64 run)
    assert eb < 0.01


def test_float32_checkpoint_resumes_to_the_same_iterates(tree, tmp_path):
    whole = PublicCFR(tree, "pdcfr+", tables="float32")
    whole.iterate(30)
    part = PublicCFR(tree, "pdcfr+", tables="float32")
    part.iterate(12)
    part.save(tmp_path / "c.npz")
    resumed = PublicCFR(tree, "pdcfr+", tables="float32")
    resumed.load(tmp_path / "c.npz")
    resumed.iterate(18)
    for k in ("regrets", "cum_policy", "prediction"):
        assert getattr(resumed, k).dtype == np.float32
        np.testing.assert_array_equal(getattr(resumed, k), getattr(whole, k))
    # a run resumes with the table type it was saved with, not silently converted
    with pytest.raises(CheckpointError, match="tables"):
        PublicCFR(tree, "pdcfr+").load(tmp_path / "c.npz")
    part64 = PublicCFR(tree, "pdcfr+")
    part64.iterate(1)
    part64.save(tmp_path / "d.npz")
    with pytest.raises(CheckpointError, match="tables"):
        PublicCFR(tree, "pdcfr+", tables="float32").load(tmp_path / "d.npz")


def test_bad_table_types_are_refused(tree):
    with pytest.raises(ValueError, match="tables must be one of float64, float32"):
        PublicCFR(tree, "dcfr", tables="float16")
    params = tree.params
    with pytest.raises(ValueError, match="tables must be one of"):
        make_solver("public-dcfr", params, tree, tables="i16")
    with pytest.raises(ValueError, match="option of the public-tree solvers only"):
        make_solver("es-mccfr", params, tables="float32")
    s = make_solver("public-pcfr+", params, tree, tables="float32")
    assert s.solver.regrets.dtype == np.float32


def test_train_takes_compact_tables(tmp_path, capsys):
    from vitou_ai.commands.cli import main

    game = ["--profile", "vitou_2p", "--ranks", "3", "--copies", "2", "--hand-size", "1",
            "--eval-deals", "200", "--bots", "random", "--no-progress"]
    out = tmp_path / "r"
    assert main(["train", "--solver", "public-pdcfr+", "--tables", "float32", "--iterations",
                 "6", "--eval-every", "3", "--out", str(out), *game]) == 0
    said = capsys.readouterr()
    assert "public-pdcfr+ (float32 tables);" in said.out + said.err  # the run's header
    assert json.loads((out / "run.json").read_text())["settings"]["tables"] == "float32"
    with np.load(out / "checkpoint.npz") as z:
        assert z["regrets"].dtype == np.float32
    # resumed with its own table type; another is refused, in one line
    assert main(["train", "--resume", "--out", str(out), "--iterations", "9"]) == 0
    capsys.readouterr()
    assert main(["train", "--resume", "--out", str(out), "--iterations", "12",
                 "--tables", "float64"]) == 2
    assert "--tables float64 conflicts with the run's float32" in capsys.readouterr().err
    assert main(["train", "--solver", "dcfr", "--tables", "float32",
                 "--out", str(tmp_path / "f"), *game]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("is an option of the public-tree solvers (--solver public-*), not of dcfr")
    assert "\n" not in err


def test_four_player_default_refuses_compact_tables(tmp_path, capsys):
    """The abstract four-player trainer keeps float64 tables: --tables float32 is refused
    in one line before any work, not silently dropped."""
    from vitou_ai.commands.cli import main

    out = tmp_path / "r4"
    for solver in ([], ["--solver", "abstract-mccfr"]):
        assert main(["train", "--profile", "vitou", "--ranks", "3", "--copies", "2",
                     "--hand-size", "1", "--tables", "float32", "--iterations", "10",
                     "--out", str(out), "--no-progress", *solver]) == 2
        err = capsys.readouterr().err.strip()
        assert "--tables float32 is an option of the public-tree solvers" in err, err
        assert "\n" not in err
        assert not out.exists()
