"""The one solver interface (``vitou_ai.solvers.protocol``): every family implements it,
and ``vitou-ai train --solver public-*`` runs the public-tree solver through it, giving
the flat tree's figures at equal iterations."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.commands.cli import main
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.protocol import Solver, make_solver
from vitou_ai.solvers.public.tree import build_public_tree

TINY = ["--ranks", "3", "--copies", "2", "--hand-size", "1", "--eval-deals", "200",
        "--no-progress", "--bots", "random"]


def rows(folder):
    with open(folder / "curve.csv") as f:
        return list(csv.DictReader(f))


def test_every_family_implements_the_protocol(tmp_path):
    params = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1)
    flat, public = build_tree(params), build_public_tree(params)
    solvers = [make_solver("dcfr", params, flat), make_solver("public-dcfr", params, public),
               make_solver("es-mccfr", params, flat, seed=1, max_infosets=1000)]
    for s in solvers:
        assert isinstance(s, Solver)
        s.iterate(3)
        assert s.iterations_done == 3 and s.solver_seconds() >= 0
        assert s.exact_evaluation()["exploitability"] >= -1e-12
        s.save(tmp_path / f"{s.name}.npz")
        again = make_solver(s.name, params, public if s.name.startswith("public") else flat,
                            seed=1, max_infosets=1000)
        again.load(tmp_path / f"{s.name}.npz")
        assert again.iterations_done == 3
        assert len(s.tabular_policy("x")) > 0
    with pytest.raises(ValueError, match="public tree"):
        make_solver("public-dcfr", params, flat)
    with pytest.raises(ValueError, match="flat game tree"):
        make_solver("dcfr", params, public)
    with pytest.raises(ValueError, match="unknown solver"):
        make_solver("dcfr2", params, flat)


@pytest.mark.parametrize("profile", ["vitou_2p", "vitou"])
def test_train_public_solver_matches_the_flat_solver(tmp_path, profile):
    runs = {}
    for solver in ("dcfr", "public-dcfr"):
        out = tmp_path / solver
        assert main(["train", "--profile", profile, "--solver", solver, "--iterations", "20",
                     "--eval-every", "10", "--out", str(out), *TINY]) == 0
        runs[solver] = rows(out)
    flat, public = runs["dcfr"], runs["public-dcfr"]
    keys = ["exploitability"] if profile == "vitou_2p" else [
        "nash_conv", "team0_br_gain", "team1_br_gain", "team0_pooled_gain", "team1_pooled_gain"]
    for a, b in zip(flat, public, strict=True):
        for k in keys:
            assert float(a[k]) == pytest.approx(float(b[k]), abs=1e-9)
    if profile == "vitou":
        last = public[-1]
        for t in (0, 1):
            assert float(last[f"team{t}_pooled_gain"]) >= float(last[f"team{t}_br_gain"]) - 1e-12


@pytest.mark.slow
def test_train_public_solver_resumes_exactly(tmp_path):
    args = ["--solver", "public-dcfr", "--eval-every", "10", *TINY]
    out, straight = tmp_path / "r", tmp_path / "s"
    assert main(["train", "--iterations", "20", "--out", str(out), *args]) == 0
    assert main(["train", "--iterations", "30", "--out", str(out), "--resume", *args]) == 0
    assert main(["train", "--iterations", "30", "--out", str(straight), *args]) == 0
    a, b = rows(out), rows(straight)
    assert [x["iteration"] for x in a] == ["10", "20", "30"]
    assert a[-1]["exploitability"] == b[-1]["exploitability"]
    np.testing.assert_array_equal(TabularPolicy.load(out / "policy.npz").probs,
                                  TabularPolicy.load(straight / "policy.npz").probs)


def test_train_public_solver_refuses_signals(tmp_path, capsys):
    code = main(["train", "--profile", "vitou", "--solver", "public-dcfr", "--signals",
                 "--iterations", "2", "--out", str(tmp_path / "r"), *TINY])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "signals" in err[0]


def test_one_solver_registry_read_by_make_solver_the_cli_and_openspiel():
    """A solver's name is written once (``solvers.registry.SOLVERS``): the ``--solver``
    choices, the protocol's families, the OpenSpiel wrapper's resumable list and the
    tools of the games x tools matrix all agree with it."""
    import argparse

    from vitou_ai.capabilities import TOOLS
    from vitou_ai.commands.train import add_arguments
    from vitou_ai.solvers import openspiel_solvers, protocol
    from vitou_ai.solvers.registry import FAMILIES, SOLVERS, names

    p = argparse.ArgumentParser()
    add_arguments(p)
    choices = next(a.choices for a in p._actions if "--solver" in a.option_strings)
    assert tuple(choices) == tuple(SOLVERS)
    assert {s.tool for s in SOLVERS.values()} <= set(TOOLS)
    assert {s.family for s in SOLVERS.values()} == set(FAMILIES)
    assert set(protocol.FLAT + protocol.PUBLIC + protocol.SAMPLING + protocol.OPENSPIEL) == set(
        names("flat", "public", "sampling", "openspiel"))
    assert openspiel_solvers.RESUMABLE == ("openspiel-cfr", "openspiel-es-mccfr",
                                           "openspiel-os-mccfr")
    assert set(openspiel_solvers.CLASSES) == set(names("openspiel"))
    with pytest.raises(ValueError, match="unknown solver family"):
        names("tabular")
