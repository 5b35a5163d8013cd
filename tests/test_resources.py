"""Resource limits as one-line refusals, seeds checked at every entry point, and the
small messages of the new-user trial.

- A full disk while writing results gave a 60-line traceback (``OSError: [Errno 28]``
  in ``write_atomic`` / ``np.savez``): now one line naming the file, its earlier
  version kept (simulated by making ``os.fsync`` fail: no small tmpfs here).
- Counts of 1e11 (``--eval-deals``, ``--max-infosets``, ``--lbr-deals``,
  ``--eval-matches``) ended in NumPy's MemoryError traceback and an empty run folder;
  ``search:counter,budget=1e308`` in an OverflowError: now refused up front.
- ``make_solver("es-mccfr", seed=...)`` took -1, True and 1.5 (1, 1.5 and 1.9 gave one
  policy) and overflowed at 2**63.
"""

from __future__ import annotations

import errno
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from vitou_ai.commands.cli import main
from vitou_ai.rules.params import VitouParams

TINY = ["--ranks", "3", "--copies", "1", "--hand-size", "1", "--eval-deals", "200",
        "--no-progress", "--bots", "random"]
SMALL = VitouParams(profile="vitou_2p", ranks=3, copies=1, hand_size=1, dealer=-1)


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def last_line(capsys) -> str:
    """The refusal after the progress notes: the last line on stderr, no traceback."""
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return err.strip().splitlines()[-1]


# ---- disk errors ---------------------------------------------------------------------------


@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "no space left"),
                                          (errno.EDQUOT, "quota"),
                                          (errno.EROFS, "read-only"),
                                          (errno.EACCES, "permission denied")])
def test_write_atomic_names_the_file_and_keeps_the_earlier_one(tmp_path, monkeypatch, code,
                                                                words):
    from vitou_ai.io import WriteError, write_atomic

    path = tmp_path / "policy.npz"
    path.write_bytes(b"complete")

    def fail(fd):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(WriteError) as e:
        write_atomic(path, lambda f: np.savez(f, a=np.zeros(10)))  # as checkpoints write
    assert str(e.value) == (f"cannot write {path}: {resources_reason(code)}; the earlier "
                            "version of the file is kept unchanged")
    assert words in str(e.value) and e.value.errno == code
    assert path.read_bytes() == b"complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.npz"]  # no temp file


def resources_reason(code: int) -> str:
    from vitou_ai.io import DISK_ERRORS

    return DISK_ERRORS[code]


def test_full_disk_during_training_is_one_line_and_resume_continues(tmp_path, monkeypatch,
                                                                     capsys):
    out = tmp_path / "r"
    assert main(["train", "--solver", "dcfr", "--iterations", "20", "--eval-every", "10",
                 "--out", str(out), *TINY]) == 0
    before = {p: (out / p).read_bytes() for p in ("policy.npz", "checkpoint.npz",
                                                   "curve.csv")}
    capsys.readouterr()
    real, calls = os.fsync, []

    def full_after_one(fd):  # run.json's "writing" mark, then the disk is full
        calls.append(fd)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", full_after_one)
    code = main(["train", "--resume", "--out", str(out), "--iterations", "30"])
    line = last_line(capsys)
    assert code == 2
    assert line.startswith(f"vitou-ai train: cannot write {out / 'policy.npz'}: no space left")
    assert "--resume continues" in line
    assert {p: (out / p).read_bytes() for p in before} == before  # the complete state
    assert not list(out.glob(".*.tmp")) and not (out / "run.lock").exists()
    monkeypatch.setattr(os, "fsync", real)
    assert main(["train", "--resume", "--out", str(out), "--iterations", "30"]) == 0
    assert json.loads((out / "run.json").read_text())["iterations_done"] == 30


def test_full_disk_in_any_command_is_one_line(tmp_path, monkeypatch, capsys):
    """The tournament writes its results through write_atomic."""
    def fail(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    code = main(["tournament", "--bots", "random", "counter", "--profile", "vitou_2p",
                 "--ranks", "3", "--copies", "1", "--hand-size", "1", "--deals", "4",
                 "--out", str(tmp_path / "t")])
    line = one_line(capsys)
    assert code == 2 and "no space left on the device" in line
    assert f"cannot write {tmp_path / 't' / 'pairs.csv'}" in line


# ---- memory --------------------------------------------------------------------------------


@pytest.mark.parametrize("flags, named", [
    (["--eval-deals", "100000000000"], "--eval-deals 100,000,000,000"),
    (["--solver", "es-mccfr", "--max-infosets", "100000000000"],
     "--max-infosets 100,000,000,000"),
])
def test_huge_counts_refused_before_the_run_folder(tmp_path, capsys, flags, named):
    out = tmp_path / "r"
    code = main(["train", "--iterations", "10", "--out", str(out), *TINY, *flags])
    line = one_line(capsys)
    assert code == 2 and named in line and "of memory, more than the" in line
    assert not out.exists()


@pytest.mark.parametrize("flags, named", [
    (["--lbr-deals", "100000000000"], "--lbr-deals 100,000,000,000"),
    (["--eval-matches", "100000000000"], "--eval-matches 100,000,000,000"),
    (["--max-infosets", "100000000000"], "--max-infosets 100,000,000,000"),
    (["--lbr-samples", "100000000000"], "--lbr-samples 100,000,000,000"),
])
def test_abstract_trainer_refuses_huge_counts(tmp_path, capsys, flags, named):
    out = tmp_path / "r"
    code = main(["train", "--profile", "vitou", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--time", "5", "--out", str(out), *flags])
    line = one_line(capsys)
    assert code == 2 and named in line and "of memory" in line
    assert not out.exists()


def test_tournament_and_simulate_counts_against_the_memory(monkeypatch, capsys):
    from vitou_ai import resources

    monkeypatch.setattr(resources, "available_memory", lambda: 10**6)  # a 1 MB machine
    assert main(["tournament", "--bots", "random", "counter", "--deals", "100000"]) == 2
    assert "--deals 100,000 would need about" in one_line(capsys)
    assert main(["simulate", "--deals", "100000"]) == 2
    assert "--deals 100,000 would need about" in one_line(capsys)
    import vitou_ai

    lineup = [vitou_ai.load_policy("random")] * 2
    with pytest.raises(resources.ResourceError, match="n = 100,000 rows"):
        vitou_ai.simulate(SMALL, lineup, 100_000)


def test_check_memory_and_available_memory():
    from vitou_ai import resources

    room = resources.available_memory()
    assert room is None or room > 0
    resources.check_memory(1.0, "one byte")
    with pytest.raises(resources.ResourceError, match="more memory than any machine"):
        resources.check_memory(float("inf"), "--x")
    assert resources.format_bytes(9.2e12) == "8.37 TiB"


@pytest.mark.parametrize("value", [1e308, float("inf"), float("nan"), 0, -1])
def test_time_budgets_are_finite_and_bounded(tmp_path, capsys, value):
    assert main(["train", "--iterations", "10", "--time", str(value),
                 "--out", str(tmp_path / "r"), *TINY]) == 2
    assert "--time must be a positive number of seconds, at most 10,000,000" in one_line(capsys)
    assert main(["train", "--profile", "vitou", "--time", str(value),
                 "--out", str(tmp_path / "a")]) == 2
    assert "--time must be" in one_line(capsys)
    assert not (tmp_path / "r").exists() and not (tmp_path / "a").exists()


@pytest.mark.parametrize("spec", ["search:counter,budget=1e308", "search:counter,budget=inf",
                                  "search:counter,nodes=100000000000000000000"])
def test_search_budget_and_nodes_bounded(spec):
    from vitou_ai.bots.named import parse_bot

    with pytest.raises(ValueError, match="at most") as e:
        parse_bot(spec)
    assert "\n" not in str(e.value)


# ---- seeds ---------------------------------------------------------------------------------


BAD_SEEDS = [(-1, ValueError), (True, TypeError), (1.5, TypeError), (2**63, ValueError)]


@pytest.mark.parametrize("solver", ["cfr", "dcfr", "es-mccfr", "os-mccfr", "public-dcfr",
                                    "openspiel-cfr+"])
@pytest.mark.parametrize("seed, error", BAD_SEEDS)
def test_make_solver_checks_the_seed_of_every_solver(solver, seed, error):
    from vitou_ai.solvers.protocol import make_solver

    with pytest.raises(error, match=r"seed must be in 0 \.\. 2\*\*31-1"):
        make_solver(solver, SMALL, seed=seed)


def test_seeds_of_the_solvers_and_samplers():
    from vitou_ai.abstraction.config import AbstractionConfig
    from vitou_ai.eval.lbr import sample_worlds
    from vitou_ai.sim.random_play import random_games
    from vitou_ai.solvers.flat.tree import sample_deals
    from vitou_ai.solvers.public.tree import count_public_tree
    from vitou_ai.solvers.sampling.mccfr import MCCFR
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    four = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1, dealer=0)
    calls = [lambda s: MCCFR(SMALL, seed=s, max_infosets=16),
             lambda s: AbstractMCCFR(four, AbstractionConfig(), seed=s, max_infosets=16),
             lambda s: random_games(SMALL.to_array(), 4, s),
             lambda s: sample_deals(SMALL, 2, seed=s),
             lambda s: count_public_tree(SMALL, probes=2, seed=s),
             lambda s: sample_worlds(vitou_ai_random(), SMALL.replace(dealer=0), [], 0,
                                     seed=s)]
    for call in calls:
        for seed, error in [(-1, ValueError), (True, TypeError), (1.5, TypeError),
                            (2**64, ValueError)]:
            with pytest.raises(error, match="seed"):
                call(seed)


def vitou_ai_random():
    import vitou_ai

    return vitou_ai.load_policy("random")


def test_envs_reset_checks_the_seed():
    pytest.importorskip("gymnasium", reason="the 'envs' extra")
    from vitou_ai.envs.gym_env import VitouEnv

    env = VitouEnv(profile="vitou_2p", opponents=["random"])
    for seed, error in [(-1, ValueError), (True, TypeError), (1.5, TypeError)]:
        with pytest.raises(error, match="seed"):
            env.reset(seed=seed)
    env.reset(seed=2**64 - 1)


def test_sweep_and_vint_seeds():
    from vitou_ai.match_equity.sweep import Sweep, SweepError
    from vitou_ai.vint.tournament import duplicate_match

    with pytest.raises(SweepError, match="base_seed"):
        Sweep(None, "fp", backend="serial", base_seed=1.5)
    with pytest.raises(TypeError, match="seed"):
        duplicate_match("random", "random", 1, seed=1.5)


# ---- small messages ------------------------------------------------------------------------


def test_an_npz_of_object_arrays_is_called_that(tmp_path):
    from vitou_ai.bots.tabular import TabularPolicy

    path = tmp_path / "p.npz"
    np.savez(path, keys=np.array([{"a": 1}], dtype=object), probs=np.zeros((1, 5)))
    assert zipfile.is_zipfile(path)
    with pytest.raises(ValueError) as e:
        TabularPolicy.load(path)
    assert "holds pickled objects (object arrays), which vitou_ai never loads" in str(e.value)
    assert "unknown bytes" not in str(e.value)


def test_table_full_before_any_evaluation_says_nothing_was_saved(tmp_path, capsys):
    out = tmp_path / "r"
    code = main(["train", "--solver", "es-mccfr", "--max-infosets", "10", "--iterations",
                 "1000", "--out", str(out), *TINY])
    err = capsys.readouterr().err
    assert code == 2 and "no evaluation was reached, nothing was saved" in err
    assert "checkpoint and outputs are kept" not in err
    assert not out.exists()


def test_tournament_help_says_four_matches(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "matches per pairing, at least 4" in text


def test_an_abstract_policy_in_the_tabular_loader_names_the_sampled_analysis(tmp_path):
    from vitou_ai.abstraction.config import AbstractionConfig
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    four = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1, dealer=0)
    s = AbstractMCCFR(four, AbstractionConfig(), seed=0, max_infosets=1 << 12, threads=1)
    s.iterate(20)
    s.policy("x").save(tmp_path / "policy.npz")
    with pytest.raises(ValueError) as e:
        TabularPolicy.load(tmp_path / "policy.npz")
    assert "four_player_bluffs.ipynb" in str(e.value) and "keys must be" not in str(e.value)


def test_score_sweep_refuses_no_iterations():
    from vitou_ai.eval.analysis import score_sweep

    with pytest.raises(ValueError, match="iterations must be at least 1"):
        score_sweep(SMALL, [(0, 0)], iterations=-1)
    with pytest.raises(TypeError, match="iterations"):
        score_sweep(SMALL, [(0, 0)], iterations=2.5)


# ---- --time ----------------------------------------------------------------------------------


def test_time_is_kept_and_a_spent_time_is_not_run_again(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["train", "--iterations", "100000000", "--eval-every", "100000000",
                 "--time", "1", "--out", str(out), *TINY]) == 0
    rec = json.loads((out / "run.json").read_text())
    seconds = rec["latest"]["seconds"]
    # a doubled chunk overshot --time 2 by 1.85 s; now about one iteration (ms here)
    assert 1.0 <= seconds < 1.2, seconds
    capsys.readouterr()
    before = (out / "checkpoint.npz").read_bytes()
    assert main(["train", "--resume", "--out", str(out), "--time", "0.5"]) == 2
    line = one_line(capsys)
    assert "leaves nothing to run" in line and "--time 0.5" in line
    assert (out / "checkpoint.npz").read_bytes() == before


def test_write_atomic_passes_other_errors_through(tmp_path):
    from vitou_ai.io import WriteError, write_atomic

    def boom(f):
        raise ValueError("not a disk error")

    with pytest.raises(ValueError, match="not a disk error"):
        write_atomic(tmp_path / "x", boom)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(WriteError, match="nothing was written"):
        write_atomic(tmp_path / "y", lambda f: (_ for _ in ()).throw(
            OSError(errno.ENOSPC, "full")))
    assert not Path(tmp_path / "y").exists()


def test_public_tree_training_checks_its_memory_before_the_solve(monkeypatch, tmp_path, capsys):
    """A public-tree training run whose solve and evaluation would not fit in memory is
    refused in one line once the tree is built, naming the way round (the drawn dealer's
    tree: --dealer 0), before any iteration or run file (the full drawn-dealer vitou_2p
    game was killed by the kernel at 20 GB before this check)."""
    from vitou_ai.training import points

    # a tree that needs a terabyte an entry: more than any machine has available
    monkeypatch.setattr(points, "PUBLIC_TRAIN_BYTES_PER_ENTRY", 10**12)
    out = tmp_path / "r"
    code = main(["train", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
                 "--hand-size", "2", "--solver", "public-dcfr", "--iterations", "5",
                 "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    # the build's progress note, then the refusal in one line
    assert code == 2 and len(err) == 2 and "building the public tree" in err[0]
    assert "training on this public tree" in err[1] and "--dealer 0" in err[1]
    assert not (out / "policy.npz").exists()
