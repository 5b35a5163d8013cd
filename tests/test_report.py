"""The aggregate report of a public-tree strategy (vitou_ai.eval.report) against the exact
bluff analysis of the flat tree (vitou_ai.eval.analysis, an independent walk over another
tree), and the value by hand class against the position values; the lock and report
commands end to end on a tiny run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from vitou_ai.commands.cli import main
from vitou_ai.eval import analysis as A
from vitou_ai.eval.report import compare, strategy_report
from vitou_ai.rules import VitouParams
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.public.cfr import PublicCFR
from vitou_ai.solvers.public.export import flat_slots
from vitou_ai.solvers.public.lock import PositionEvaluator
from vitou_ai.solvers.public.tree import build_public_tree
from vitou_ai.training.locking import write_policy_run

GAME = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=2, dealer=-1)


@pytest.fixture(scope="module")
def solved():
    tree = build_public_tree(GAME)
    s = PublicCFR(tree, "dcfr", frontier_size=0)
    s.iterate(40)  # far from equilibrium: every rate is away from 0 and 1
    return tree, s.average_policy()


def test_rates_equal_the_flat_trees_exact_analysis(solved):
    tree, pol = solved
    flat = build_tree(GAME)
    rows, slots = flat_slots(tree, flat)
    fp = np.zeros(flat.is_actions.shape)
    ok = rows >= 0
    fp[rows[ok], slots[ok]] = pol[ok]
    df = A.infoset_table(flat, fp)
    rep = strategy_report(tree, pol)
    ours = rep.frequencies(["best_card", "trick"])
    ref = A.raise_frequencies(df)
    pd.testing.assert_series_equal(ours.loc[ref.index, "raise"], ref["raise"], check_names=False,
                                   rtol=1e-9)
    pd.testing.assert_series_equal(ours.loc[ref.index, "raise_reach"], ref["reach"],
                                   check_names=False, rtol=1e-9)
    ours = rep.frequencies(["stake"])
    ref = A.refusal_rates(df)
    pd.testing.assert_series_equal(ours.loc[ref.index, "refuse"], ref["refuse"],
                                   check_names=False, rtol=1e-9)
    ref = A.bluff_frequency(df)
    assert ref["bluff_share"].between(0.001, 0.999).any()
    pd.testing.assert_series_equal(ours.loc[ref.index, "bluff_share"], ref["bluff_share"],
                                   check_names=False, rtol=1e-9)
    # accept + refuse + re-raise = 1 at every answer
    t = rep.table[rep.table["answering"]]
    assert np.allclose(t["accept"] + t["refuse"] + t["raise"], 1.0)


def test_hand_values_average_to_the_position_values(solved):
    tree, pol = solved
    rep = strategy_report(tree, pol)
    want = PositionEvaluator(tree).values(pol)
    assert np.allclose(rep.position_values, want, atol=1e-12)
    v = rep.hand_class_values()
    for k, pos in enumerate(("non-dealer", "dealer")):
        x = v.loc[pos]
        assert (x["probability"] * x["value"]).sum() == pytest.approx(want[k], abs=1e-12)
        assert x["probability"].sum() == pytest.approx(1.0)
    # a T is worth more than a hand without one
    assert (v.loc["dealer", "value"].iloc[0] > v.loc["dealer", "value"].iloc[1:]).all()
    side = compare({"a": rep, "b": rep})
    assert list(side.columns.levels[0]) == ["a", "b"]


def test_the_figure_gives_a_strategy_and_position_one_colour_in_every_panel(solved):
    from vitou_ai.eval.report import plot_reports

    tree, pol = solved
    rep = strategy_report(tree, pol)
    fig = plot_reports({"a": rep, "b": rep})

    def colours(ax):
        return {c.get_label().lstrip("_"): c.patches[0].get_facecolor() for c in ax.containers}

    first = colours(fig.axes[0])
    assert set(first) == {f"{n}, {p}" for n in "ab" for p in ("non-dealer", "dealer")}
    for ax in fig.axes[1:4]:
        assert colours(ax) == first


def test_four_players_refused():
    tree = build_public_tree(VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1))
    with pytest.raises(ValueError, match="two-player"):
        strategy_report(tree, np.ones(tree.num_entries))


def tiny_run_and_locks(solved, tmp_path):
    """A run folder of the solved tiny game and a lock file for it ("the non-dealer always
    accepts")."""
    tree, pol = solved
    run = tmp_path / "run"
    write_policy_run(run, tree, pol, "tiny", {"params": {**GAME.knobs(), "profile": GAME.profile}})
    locks = tmp_path / "locks.toml"
    locks.write_text('[game]\nprofile = "vitou_2p"\nranks = 3\ncopies = 2\nhand_size = 2\n'
                     'dealer = -1\n[[lock]]\nplayer = "non-dealer"\nphase = "answer"\n'
                     'mix = { accept = 1.0 }\n')
    return run, locks


def test_lock_and_report_commands(solved, tmp_path, capsys):
    run, locks = tiny_run_and_locks(solved, tmp_path)
    out = tmp_path / "out"
    assert main(["lock", str(run), str(locks), "--out", str(out), "--iterations", "200",
                 "--check-every", "100"]) == 0
    said = capsys.readouterr()
    assert "it 100: exploitability given the lock" in said.err  # progress, on stderr
    assert "re-solved with lock" in said.out
    rep = json.loads((out / "report.json").read_text())
    assert rep["exploit_value"] <= rep["locked_value"] + 1e-12
    assert rep["resolved_lock_held"]
    for f in ("policy.npz", "run.json", "locks.toml", "report.csv", "values.csv", "report.png",
              "curve.csv", "exploit/policy.npz", "exploit/run.json"):
        assert (out / f).is_file(), f
    from vitou_ai.explore.model import load_strategy

    assert load_strategy(out).params.knobs() == GAME.knobs()
    assert main(["report", str(run), "--against", str(out), "--out", str(tmp_path / "r")]) == 0
    table = pd.read_csv(tmp_path / "r" / "report.csv")
    assert {"run:raise", "out:raise", "run:bluff_share"} <= set(table.columns)
    capsys.readouterr()
    # bad input: one line, exit 2, before the tree is built
    locks.write_text(locks.read_text().replace("accept = 1.0", "accept = 0.7"))
    assert main(["lock", str(run), str(locks), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not 1" in err, err
    assert main(["report", str(tmp_path / "nope"), "--out", str(tmp_path / "r")]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_lock_and_report_never_overwrite(solved, tmp_path, capsys):
    """``--out`` is new or empty, never a run read, and one writer at a time: refused in
    one line before the tree is built, and the run folder's bytes are unchanged."""
    import subprocess
    import sys

    run, locks = tiny_run_and_locks(solved, tmp_path)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    cases = [(["lock", str(run), str(locks), "--out", str(run)], "run folder being read"),
             (["lock", str(run), str(locks), "--out", str(full)], "not empty"),
             (["report", str(run), "--out", str(run)], "run folder being read"),
             (["report", str(run), "--against", str(run), "--out", str(full)], "not empty")]
    for argv, why in cases:
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and why in err, err
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    assert (full / "notes.txt").read_text() == "mine"
    # another live process writing the folder: refused, naming its PID
    busy = tmp_path / "busy"
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; from vitou_ai.io import RunLock\n"
                               f"RunLock({str(busy)!r}, 'holder').acquire(); print('held', "
                               "flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        capsys.readouterr()
        assert main(["lock", str(run), str(locks), "--out", str(busy)]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and f"PID {holder.pid}" in err, err
    finally:
        holder.kill()
        holder.wait()
    # a mix written as a string is no probability
    locks.write_text(locks.read_text().replace("accept = 1.0", 'accept = "1"'))
    assert main(["lock", str(run), str(locks), "--out", str(tmp_path / "new")]) == 2
    assert "must be numbers" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_a_lock_run_too_large_for_the_memory_is_refused_in_one_line(solved, tmp_path, capsys,
                                                                    monkeypatch):
    """The re-solve's memory (measured per entry of the public tree) is checked against the
    machine's once the tree is read, before the re-solve; the drawn dealer's way round is
    named."""
    from vitou_ai.training import locking

    run, locks = tiny_run_and_locks(solved, tmp_path)
    monkeypatch.setattr(locking, "LOCK_BYTES_PER_ENTRY", 10**15)
    capsys.readouterr()
    assert main(["lock", str(run), str(locks), "--out", str(tmp_path / "out")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and "would need about" in err[0] and "--dealer 0" in err[0], err
    assert not (tmp_path / "out" / "policy.npz").exists()
