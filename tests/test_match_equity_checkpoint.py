"""A match-equity state's solve checkpoints and resumes (``solve_state(checkpoint_dir=...)``,
``vitou-ai match-equity --checkpoint-every``): a solve stopped at any save resumes to the
result of an uninterrupted one and says so, a file that is not this solve's is ignored
with a one-line warning that says why, and the command removes the spent files (a
temporary file a kill left mid-write too)."""

from __future__ import annotations

import shutil

import pytest
from helpers import one_line_error

from vitou_ai.commands.cli import main
from vitou_ai.match_equity import two_player as M

# small enough for tests; the state 0:2 needs 11 batches of 5 iterations a deal and three
# rounds of the fixed point (its scoreless deals pass to the other dealer)
CFG = M.EquityConfig(target=3, batch=5, ranks=4, copies=2, hand_size=1)
KEY = (0, 2)


class Stop(BaseException):
    """A kill (not an Exception: no retry catches it), right after a checkpoint was written."""


@pytest.fixture(scope="module")
def table():
    return M.compute_table(CFG)[0]  # 0:2 reads only the states of larger totals


@pytest.fixture(scope="module")
def whole(table):
    return M.solve_state(CFG, KEY, table)


def _saves(monkeypatch, stop_at=None):
    """Count the checkpoints written; raise :class:`Stop` after the ``stop_at``-th."""
    count = [0]
    save = M._save_state

    def counted(*a, **k):
        save(*a, **k)
        count[0] += 1
        if count[0] == stop_at:
            raise Stop

    monkeypatch.setattr(M, "_save_state", counted)
    return count


def _same(a, b):
    assert a["rows"] == b["rows"]  # equities, exploitabilities, iterations: bit for bit
    assert (a["rounds"], a["steps"]) == (b["rounds"], b["steps"])


def test_a_checkpointed_solve_is_the_uninterrupted_one(table, whole, tmp_path, monkeypatch):
    count = _saves(monkeypatch)
    rec = M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path, checkpoint_every=0)
    _same(rec, whole)
    assert count[0] > 10 and rec["rounds"] == 3  # many saves, over three rounds
    assert M.state_checkpoint(tmp_path, KEY).is_file()  # the caller removes it


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_solve_stopped_at_a_save_resumes_to_the_same_result(table, whole, tmp_path,
                                                              monkeypatch, caplog, where):
    total = _saves(monkeypatch)
    M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path / "count", checkpoint_every=0)
    stop_at = {"first": 1, "middle": total[0] // 2, "last": total[0]}[where]
    _saves(monkeypatch, stop_at)
    with pytest.raises(Stop):
        M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path, checkpoint_every=0)
    monkeypatch.undo()
    loaded = []
    load = M._load_state
    monkeypatch.setattr(M, "_load_state", lambda *a: loaded.append(load(*a)) or loaded[-1])
    rec = M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path, checkpoint_every=3600)
    assert loaded and loaded[0] is not None  # it did resume, and said so
    assert "match-equity: resuming" in caplog.text and "state_0_2.npz" in caplog.text
    assert 0 < rec["resumed_seconds"] <= rec["seconds"]
    _same(rec, whole)


def _warned(caplog, *words):
    """One warning line on the logger, holding ``words``; then forget it."""
    lines = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(lines) == 1 and "\n" not in lines[0], lines
    for w in words:
        assert w in lines[0], (w, lines[0])
    caplog.clear()


def test_another_solves_file_is_ignored_with_a_warning(table, whole, tmp_path, monkeypatch,
                                                       caplog):
    _saves(monkeypatch, 2)
    with pytest.raises(Stop):
        M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path, checkpoint_every=0)
    monkeypatch.undo()
    # the file of 0:2 under the name of 0:1: another state
    shutil.copy(M.state_checkpoint(tmp_path, KEY), M.state_checkpoint(tmp_path, (0, 1)))
    other = M.solve_state(CFG, (0, 1), table, checkpoint_dir=tmp_path)
    _warned(caplog, "written for another score state", "solving the state from the start")
    _same(other, M.solve_state(CFG, (0, 1), table))
    assert other["resumed_seconds"] == 0.0
    # other continuation payoffs (an earlier state's equity changed): not resumed
    moved = dict(table)
    moved[(1, 2, 0)] += 0.01  # 0:2 leads to 1:2 when seat 0 wins a point
    M.solve_state(CFG, KEY, moved, checkpoint_dir=tmp_path)
    _warned(caplog, "other equities of the states it leads to")
    # another configuration of the table
    M.solve_state(M.EquityConfig(target=3, batch=5, ranks=4, copies=2, hand_size=1, tol=2e-4),
                  KEY, table, checkpoint_dir=tmp_path)
    _warned(caplog, "another configuration of the table")
    # damaged: not a checkpoint at all
    M.state_checkpoint(tmp_path, KEY).write_bytes(b"not an npz")
    rec = M.solve_state(CFG, KEY, table, checkpoint_dir=tmp_path)
    _warned(caplog, "not a readable checkpoint")
    _same(rec, whole)


GAME = ["match-equity", "--ranks", "4", "--copies", "2", "--hand-size", "1", "--target", "3",
        "--backend", "serial"]


def test_the_command_checkpoints_resumes_and_cleans_up(tmp_path, capsys, monkeypatch):
    out = tmp_path / "me"
    _saves(monkeypatch, 1)  # killed at the first checkpoint of the first state
    with pytest.raises(Stop):
        main([*GAME, "--checkpoint-every", "0", "--out", str(out)])
    monkeypatch.undo()
    partial = out / "partial_vitou_2p_ranks4_copies2_hand1_target3"
    (first,) = partial.glob("*.npz")
    # a kill in the middle of a save leaves write_atomic's temporary file
    (partial / f".{first.name}.x1y2z3.tmp").write_bytes(b"half a checkpoint")
    capsys.readouterr()
    # without --resume the checkpoint is not overwritten
    one_line_error(capsys, main([*GAME, "--out", str(out)]), "already holds a state's checkpoint",
                   "--resume")
    assert main([*GAME, "--checkpoint-every", "0", "--out", str(out), "--resume"]) == 0
    assert "before the checkpoint it resumed" in capsys.readouterr().err
    assert not partial.exists()  # every state stored: its checkpoints removed, the
    # temporary file too
    capsys.readouterr()
    whole = tmp_path / "whole"
    assert main([*GAME, "--out", str(whole)]) == 0
    name = "vitou_2p_ranks4_copies2_hand1_target3.csv"
    assert (out / name).read_text() == (whole / name).read_text()


@pytest.mark.parametrize("value", ["-1", "nan", "-0.5"])
def test_a_bad_checkpoint_interval_is_refused(value, tmp_path, capsys):
    code = main([*GAME, "--checkpoint-every", value, "--out", str(tmp_path / "x")])
    one_line_error(capsys, code, "--checkpoint-every must be")
    assert not (tmp_path / "x").exists()


def test_checkpoint_every_inf_never_saves(tmp_path, capsys, monkeypatch):
    count = _saves(monkeypatch)
    assert main([*GAME, "--checkpoint-every", "inf", "--out", str(tmp_path / "me")]) == 0
    assert count[0] == 0 and not list((tmp_path / "me").glob("partial_*"))


def test_a_resume_with_every_state_stored_builds_no_tree(tmp_path, capsys, monkeypatch):
    """A table whose states are all stored is rebuilt from them without the deal-size
    check (the full 3-card game's public tree: 19 s and 1.65 GB for nothing); a table
    with a state left checks it; a flat tree too large names ``--solver public``."""
    from vitou_ai.commands import match_equity as cmd

    out = tmp_path / "me"
    assert main([*GAME, "--out", str(out)]) == 0
    built = []
    monkeypatch.setattr(cmd, "_check_tree_size", lambda *a: built.append(a))
    assert main([*GAME, "--out", str(out), "--resume"]) == 0
    assert built == []
    (out / "tasks_vitou_2p_ranks4_copies2_hand1_target3" / "0_0.json").unlink()
    assert main([*GAME, "--out", str(out), "--resume"]) == 0
    assert len(built) == 1
    monkeypatch.undo()
    capsys.readouterr()
    assert main([*GAME, "--max-tree-nodes", "10", "--out", str(tmp_path / "f")]) == 2
    last = capsys.readouterr().err.splitlines()[-1]  # after the command's progress notes
    assert "flat tree has more than 10 nodes" in last and "use --solver public" in last
