"""Sweeps (vitou_ai.match_equity.sweep) and `vitou-ai match-equity`: Ray and serial paths give the same
table, a killed sweep resumes from the states written, failed tasks are retried and
reported by key, bad input (an unreachable Ray address, a score outside the match) gets
one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import needs_extra
from vitou_ai.commands.cli import main
from vitou_ai.match_equity import two_player as M
from vitou_ai.match_equity.sweep import Sweep, SweepError, check_address, task_seed

SMALL = ["--ranks", "4", "--copies", "2", "--hand-size", "1", "--target", "3"]
CFG = M.EquityConfig(target=3, ranks=4, copies=2, hand_size=1)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _seed_task(key, seed, shared):
    return {"seed": seed, "shared": shared}


def _flaky_task(key, seed, shared):
    """Fails on its first call for every key (a marker file per key), then succeeds;
    key 'bad' always fails."""
    folder = shared
    if key == "bad":
        raise RuntimeError("this state cannot be solved")
    marker = folder / f"tried_{key}"
    if not marker.exists():
        marker.write_text("1")
        raise RuntimeError("first try fails")
    return key


def test_seed_comes_from_the_key_not_the_order(tmp_path):
    keys = [(0, 1), (1, 0), (2, 2)]
    with Sweep(None, "f", backend="serial") as s:
        a = s.map(_seed_task, keys)
        b = s.map(_seed_task, list(reversed(keys)))
    assert a == b
    assert len({r["seed"] for r in a.values()}) == 3
    assert a[(0, 1)]["seed"] == task_seed((0, 1))
    assert task_seed((0, 1), base_seed=1) != task_seed((0, 1))


def test_serial_retry_and_failure_report(tmp_path):
    with Sweep(tmp_path / "res", "f", backend="serial", max_retries=1) as s:
        with pytest.raises(SweepError) as e:
            s.map(_flaky_task, ["a", "bad", "c"], shared=tmp_path)
    msg = str(e.value)
    assert "\n" not in msg and "1 task(s) failed" in msg and "bad" in msg
    # the others were retried once and written
    assert sorted(p.name for p in (tmp_path / "res").glob("*.json")) == ["a.json", "c.json"]


def _after_task(key, seed, shared):
    """What the key saw: the results known when it was given to a worker."""
    if key == "bad":
        raise RuntimeError("this state cannot be solved")
    return {"saw": sorted(shared)}


def test_map_after_gives_each_key_the_results_it_waits_for(tmp_path):
    after = {"b": {"a"}, "c": {"a"}, "d": {"b", "c"}}
    with Sweep(tmp_path / "res", "f", backend="serial") as s:
        res = s.map_after(_after_task, ["a", "b", "c", "d"], after, lambda r: dict(r))
    assert res["a"]["saw"] == [] and set(res["d"]["saw"]) >= {"b", "c"}
    # out of order: refused before any task runs
    with Sweep(tmp_path / "other", "f", backend="serial") as s, \
            pytest.raises(SweepError, match="d waits for b, which is not listed before it"):
        s.map_after(_after_task, ["a", "d", "b", "c"], after, lambda r: dict(r))
    assert not list((tmp_path / "other").glob("*.json"))
    # a failed key: the keys waiting for it are not run, and the message says so
    with Sweep(tmp_path / "fail", "f", backend="serial", max_retries=0) as s, \
            pytest.raises(SweepError) as e:
        s.map_after(_after_task, ["a", "bad", "c", "d"], {"d": {"bad"}}, lambda r: dict(r))
    assert "bad" in str(e.value) and "1 task(s) waiting for them not run" in str(e.value)
    assert sorted(p.name for p in (tmp_path / "fail").glob("*.json")) == ["a.json", "c.json"]


@pytest.mark.parametrize("mirror", [True, False])
def test_state_dependencies_are_all_a_state_reads(mirror):
    """Each state solved from the table of only the states it waits for gives the same
    result as from the whole table (a missing lookup would raise KeyError)."""
    cfg = M.EquityConfig(target=4, ranks=4, copies=2, hand_size=1, mirror=mirror)
    table, records = M.compute_table(cfg)
    deps = M.state_dependencies(cfg)
    assert set(deps) == {tuple(r["key"]) for r in records}
    for rec in records:
        key = tuple(rec["key"])
        assert all(sum(d) > sum(key) for d in deps[key])  # larger totals only
        mine = M.table_from_records([r for r in records if tuple(r["key"]) in deps[key]], cfg)
        assert M.solve_state(cfg, key, mine)["rows"] == rec["rows"], key


def test_stored_result_for_another_configuration_is_refused(tmp_path):
    with Sweep(tmp_path, "one", backend="serial") as s:
        s.map(_seed_task, ["k"])
    with Sweep(tmp_path, "two", backend="serial") as s, \
            pytest.raises(SweepError, match="another configuration"):
        s.map(_seed_task, ["k"])


def test_resume_after_a_kill_gives_the_full_table(tmp_path, monkeypatch):
    full = tmp_path / "full"
    with Sweep(full / "tasks", CFG.fingerprint(), backend="serial") as s:
        M.run_table(CFG, full, s)
    calls = []
    real = M.solve_state

    def killed_after_three(config, key, table, *rest):
        if len(calls) == 3:
            raise KeyboardInterrupt  # the sweep is killed during its fourth state
        calls.append(key)
        return real(config, key, table, *rest)

    part = tmp_path / "part"
    monkeypatch.setattr(M, "solve_state", killed_after_three)
    with Sweep(part / "tasks", CFG.fingerprint(), backend="serial") as s, \
            pytest.raises(KeyboardInterrupt):
        M.run_table(CFG, part, s)
    assert len(list((part / "tasks").glob("*.json"))) == 3
    resumed = []
    monkeypatch.setattr(M, "solve_state",
                        lambda c, k, t, *r: resumed.append(k) or real(c, k, t, *r))
    with Sweep(part / "tasks", CFG.fingerprint(), backend="serial") as s:
        M.run_table(CFG, part, s)
    assert not set(resumed) & set(calls)  # nothing computed twice
    total = sum(len(w) for w in M.task_keys(CFG))
    assert len(resumed) == total - 3
    stem = M.output_stem(CFG)
    assert (part / f"{stem}.csv").read_text() == (full / f"{stem}.csv").read_text()


def test_cli_serial_table_lookup_and_bad_scores(tmp_path, capsys):
    out = str(tmp_path / "me")
    code, stdout, err = run(["match-equity", *SMALL, "--backend", "serial", "--out", out],
                            capsys)
    assert code == 0, err
    assert "dealer at 0:0 wins the match with probability" in stdout
    stem = "vitou_2p_ranks4_copies2_hand1_target3"
    table = M.read_table_csv(tmp_path / "me" / f"{stem}.csv")
    assert len(table) == 3 * 3 * 2
    summary = json.loads((tmp_path / "me" / f"{stem}.json").read_text())
    assert summary["max_exploitability"] <= 1e-4
    assert summary["command"].startswith("vitou-ai match-equity --ranks 4")
    # a second run without --resume is refused; with it, everything is read back
    code, _, err = run(["match-equity", *SMALL, "--backend", "serial", "--out", out], capsys)
    assert code == 2 and "--resume" in err and err.count("\n") == 1
    code, _, err = run(["match-equity", *SMALL, "--backend", "serial", "--out", out,
                        "--resume"], capsys)
    assert code == 0 and err.count("stored") == sum(len(w) for w in M.task_keys(CFG))
    code, stdout, _ = run(["match-equity", *SMALL, "--out", out, "--lookup", "2:0"], capsys)
    assert code == 0 and f"{table[(2, 0, 0)]:.6f}" in stdout
    for bad in ("3:0", "0:-1", "1"):
        code, _, err = run(["match-equity", *SMALL, "--out", out, "--lookup", bad], capsys)
        assert code == 2 and err.count("\n") == 1, (bad, err)
    assert "outside the match" in run(["match-equity", *SMALL, "--out", out, "--lookup",
                                       "3:0"], capsys)[2]


def test_unreachable_address_one_line(capsys):
    with pytest.raises(SweepError, match=r"^cannot reach a Ray cluster at 127.0.0.1:9"):
        check_address("127.0.0.1:9", timeout=2)
    with pytest.raises(SweepError, match="HOST:PORT"):
        check_address("nowhere")
    code, _, err = run(["match-equity", *SMALL, "--address", "127.0.0.1:9"], capsys)
    assert code == 2 and err.count("\n") == 1 and "127.0.0.1:9" in err


@needs_extra("ray")
def test_ray_and_serial_give_identical_tables(tmp_path):
    tables = {}
    for backend in ("serial", "ray"):
        with Sweep(tmp_path / backend / "tasks", CFG.fingerprint(), backend=backend,
                   workers=2) as s:
            M.run_table(CFG, tmp_path / backend, s)
        tables[backend] = (tmp_path / backend / f"{M.output_stem(CFG)}.csv").read_text()
        seeds = sorted(json.loads(p.read_text())["seed"]
                       for p in (tmp_path / backend / "tasks").glob("*.json"))
        tables[backend + "_seeds"] = seeds
    assert tables["ray"] == tables["serial"]
    assert tables["ray_seeds"] == tables["serial_seeds"]


@needs_extra("ray")
def test_ray_retries_and_reports_failures(tmp_path, monkeypatch):
    # the workers import _flaky_task from this file
    here = str(Path(__file__).parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (here, os.environ.get("PYTHONPATH")) if p))
    with Sweep(tmp_path / "res", "f", backend="ray", workers=2, max_retries=1) as s:
        with pytest.raises(SweepError, match="bad") as e:
            s.map(_flaky_task, ["a", "bad"], shared=tmp_path)
    assert "\n" not in str(e.value)
    assert json.loads((tmp_path / "res" / "a.json").read_text())["result"] == "a"


@needs_extra("ray")
def test_ray_map_after_waits_and_reports_like_serial(tmp_path, monkeypatch):
    here = str(Path(__file__).parent)  # the workers import _after_task from this file
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (here, os.environ.get("PYTHONPATH")) if p))
    after = {"b": {"a"}, "c": {"a"}, "d": {"b", "c"}}
    with Sweep(tmp_path / "res", "f", backend="ray", workers=2, max_retries=0) as s:
        res = s.map_after(_after_task, ["a", "b", "c", "d"], after, lambda r: dict(r))
        assert res["a"]["saw"] == [] and set(res["d"]["saw"]) >= {"b", "c"}
        assert set(res["b"]["saw"]) >= {"a"}
        with pytest.raises(SweepError, match="1 task.s. waiting for them not run"):
            s.map_after(_after_task, ["x", "bad", "y"], {"y": {"bad"}}, lambda r: dict(r))
    assert (tmp_path / "res" / "x.json").exists() and not (tmp_path / "res" / "y.json").exists()


def test_results_of_an_earlier_rules_version_that_carries_over_are_taken(tmp_path):
    """A task folder written under ``vitou-rules-1.1`` (every shipped table's) resumes:
    1.2 changed no two-player transition (``rules.params.carried_over_versions``); its
    results were refused as "written for another configuration" before. A fingerprint of
    another configuration is still refused."""
    from vitou_ai.rules.params import RULES_VERSION, carried_over_versions

    config = M.EquityConfig(target=2, ranks=3, copies=2, hand_size=1)
    assert "vitou-rules-1.1" in carried_over_versions(2) and RULES_VERSION != "vitou-rules-1.1"
    old = config.fingerprint("vitou-rules-1.1")
    assert old in config.earlier_fingerprints() and old != config.fingerprint()
    with Sweep(tmp_path, old, backend="serial") as s:
        s.map(lambda key, seed, shared: 7, ["k"])
    with Sweep(tmp_path, config.fingerprint(), backend="serial",
               accepts=config.earlier_fingerprints()) as s:
        assert s.load("k") == 7
    other = M.EquityConfig(target=3, ranks=3, copies=2, hand_size=1)
    with Sweep(tmp_path, other.fingerprint(), backend="serial",
               accepts=other.earlier_fingerprints()) as s:
        with pytest.raises(SweepError, match="another configuration"):
            s.load("k")
