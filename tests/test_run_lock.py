"""One writer per run folder (:class:`vitou_ai.io.RunLock`).

Two ``vitou-ai train --resume --out DIR`` at once both ran and wrote the same folder;
``run.json``'s ``resumes`` kept only the second. Now a second writer is refused in one
line naming the first one's PID, a lock left by a killed process is taken over with a
note, and the lock is let go however the command ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vitou_ai.commands.cli import main

LOCK_FILE = "run.lock"  # vitou_ai.io.LOCK_FILE

ROOT = Path(__file__).resolve().parents[1]
TINY = ["--ranks", "3", "--copies", "1", "--hand-size", "1", "--eval-deals", "200",
        "--no-progress", "--bots", "random"]

HOLDER = """
import sys, time
from vitou_ai.io import RunLock
lock = RunLock(sys.argv[1], "holder for the test")
lock.acquire()
print("locked", flush=True)
time.sleep(120)
"""


def hold(folder: Path) -> subprocess.Popen:
    """A process that holds ``folder``'s lock until killed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE,
                         text=True, env=env)
    assert p.stdout.readline().strip() == "locked"
    return p


def test_a_second_writer_is_refused_naming_the_first_ones_pid(tmp_path):
    from vitou_ai.io import RunLock, RunLockedError

    holder = hold(tmp_path / "run")
    try:
        with pytest.raises(RunLockedError) as e:
            RunLock(tmp_path / "run").acquire()
        msg = str(e.value)
        assert "\n" not in msg and f"PID {holder.pid}" in msg and "holder for the test" in msg
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_owners_lock_is_taken_over_with_a_note(tmp_path):
    from vitou_ai.io import RunLock

    holder = hold(tmp_path / "run")
    holder.send_signal(signal.SIGKILL)  # no clean-up: the lock file stays behind
    holder.wait()
    assert (tmp_path / "run" / LOCK_FILE).exists()
    lock = RunLock(tmp_path / "run", "second")
    note = lock.acquire()
    assert note and f"PID {holder.pid}" in note and "stale" in note
    record = json.loads((tmp_path / "run" / LOCK_FILE).read_text())
    assert record["pid"] == os.getpid() and record["command"] == "second"
    lock.release()
    assert not (tmp_path / "run" / LOCK_FILE).exists()


def test_released_on_an_error_and_the_folder_it_made_removed(tmp_path):
    from vitou_ai.io import RunLock

    with pytest.raises(ZeroDivisionError), RunLock(tmp_path / "new" / "run"):
        assert (tmp_path / "new" / "run" / LOCK_FILE).exists()
        raise ZeroDivisionError
    assert not (tmp_path / "new" / "run").exists()  # made for the run, nothing written
    kept = tmp_path / "kept"
    with RunLock(kept):
        (kept / "policy.npz").write_bytes(b"x")
    assert sorted(p.name for p in kept.iterdir()) == ["policy.npz"]


def test_nested_in_one_process(tmp_path):
    from vitou_ai.io import RunLock

    outer = RunLock(tmp_path)
    outer.acquire()
    inner = RunLock(tmp_path)
    assert inner.acquire() is None  # the command and the sweep it runs
    inner.release()
    assert (tmp_path / LOCK_FILE).exists()  # the outer one still holds it
    outer.release()
    assert not (tmp_path / LOCK_FILE).exists()


def test_train_resume_refused_while_another_process_writes_the_run(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["train", "--solver", "dcfr", "--iterations", "20", "--eval-every", "20",
                 "--out", str(out), *TINY]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    holder = hold(out)
    try:
        code = main(["train", "--resume", "--out", str(out), "--iterations", "40"])
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"PID {holder.pid}" in err[0] and "one writer per run folder" in err[0]
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.name != LOCK_FILE}
    assert after == before  # nothing read into a second record, nothing written
    # the killed holder's lock is stale: the resume takes it over and records itself
    assert main(["train", "--resume", "--out", str(out), "--iterations", "40"]) == 0
    assert "took over the stale lock" in capsys.readouterr().err
    record = json.loads((out / "run.json").read_text())
    assert [r["from_iteration"] for r in record["resumes"]] == [20]
    assert not (out / LOCK_FILE).exists()


def test_train_holds_the_lock_while_it_runs(tmp_path):
    """A real second ``vitou-ai train`` process: refused while the first one runs."""
    import vitou_ai

    out = tmp_path / "r"
    env = {**os.environ, "PYTHONPATH": str(Path(vitou_ai.__file__).parents[1])}  # under test
    cmd = [sys.executable, "-m", "vitou_ai", "train", "--solver", "dcfr", "--out", str(out),
           "--iterations", "100000000", "--eval-every", "100000000", "--time", "60", *TINY]
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env)
    try:
        for _ in range(600):
            if (out / LOCK_FILE).exists() or first.poll() is not None:
                break
            time.sleep(0.1)
        second = subprocess.run([*cmd[:-len(TINY)], *TINY, "--resume"], capture_output=True,
                                text=True, env=env, timeout=120)
        assert second.returncode == 2
        assert second.stderr.strip().count("\n") == 0
        assert f"PID {first.pid}" in second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=120)
    assert not (out / LOCK_FILE).exists()  # let go on Ctrl-C


def test_tournament_out_is_locked(tmp_path, capsys):
    holder = hold(tmp_path / "t")
    try:
        code = main(["tournament", "--bots", "random", "counter", "--profile", "vitou_2p",
                     "--ranks", "3", "--copies", "1", "--hand-size", "1", "--deals", "4",
                     "--out", str(tmp_path / "t"), "--force"])
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"PID {holder.pid}" in err[0]


def test_a_sweep_folder_is_locked(tmp_path):
    from vitou_ai.io import RunLockedError
    from vitou_ai.match_equity.sweep import Sweep

    holder = hold(tmp_path / "tasks")
    try:
        with pytest.raises(RunLockedError, match=f"PID {holder.pid}"), \
                Sweep(tmp_path / "tasks", "fp", backend="serial"):
            pass
    finally:
        holder.kill()
        holder.wait()
    with Sweep(tmp_path / "tasks", "fp", backend="serial") as sweep:
        assert sweep.lock_note and "stale" in sweep.lock_note
        assert (tmp_path / "tasks" / LOCK_FILE).exists()
    assert not (tmp_path / "tasks" / LOCK_FILE).exists()
