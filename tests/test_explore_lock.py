"""Node locking from the explorer's page over HTTP: lock -> re-solve -> result equal to
the lock library's numbers for the same lock, the saved lock re-read by a new explorer,
and the refusals (4xx, one line, nothing written)."""

from __future__ import annotations

import time
import tomllib

import numpy as np
import pytest

from tests.helpers import needs_extra
from tests.test_explore import SMALL, make_run
from vitou_ai.rules.params import VitouParams

pytestmark = needs_extra("explore-test")
ITERATIONS = 100
HISTORY = "dealer 1, p0 pass, p1 pass"


def client_of(run, iterations=ITERATIONS):
    import warnings

    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.app import make_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    s = load_strategy(run)
    s.values()
    return TestClient(make_app([s], lock_iterations=iterations),
                      base_url="http://127.0.0.1:8050"), s


def wait_done(c, timeout=120.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        st = c.get("/api/lock/status").json()
        if st["state"] != "running":
            return st
        time.sleep(0.1)
    raise AssertionError("the re-solve did not end")


@pytest.fixture(scope="module")
def locked(tmp_path_factory):
    run = make_run(tmp_path_factory.mktemp("explock") / "run", VitouParams(**SMALL), 40, "a")
    c, s = client_of(run)
    path = ",".join(str(a) for a in s.parse_history(HISTORY))
    v = c.get("/api/view", params={"path": path}).json()
    hand = next(r["label"] for r in v["grids"][0]["rows"] if r["in_range"])
    acts = v["grids"][0]["actions"]
    mix = {acts[0]: 0.25, acts[-1]: 0.75}
    r = c.post("/api/lock", json={"path": path, "mix": mix, "hands": [hand],
                                  "player": v["player"]})
    assert r.status_code == 202, r.text
    st = wait_done(c)
    assert st["state"] == "done", st
    return run, c, s, path, hand, acts, mix, st


def test_lock_resolve_result_is_the_library_s(locked):
    from vitou_ai.solvers.public.export import bot_policy
    from vitou_ai.solvers.public.lock import (
        exploit_report,
        parse_locks,
        resolve_locks,
        solve_locked,
    )
    from vitou_ai.solvers.public.tree import build_public_tree

    run, c, s, path, hand, acts, mix, st = locked
    text = (run / "locks" / "001" / "locks.toml").read_text()
    data = tomllib.loads(text)
    assert data["lock"] == [{"history": HISTORY, "mix": mix, "hands": [hand]}]
    tree = build_public_tree(s.params)
    lock = resolve_locks(tree, parse_locks(data, s.params), text)
    pol, _, _ = solve_locked(lock, ITERATIONS, check_every=25)
    want = exploit_report(lock, bot_policy(tree, s.policy), pol)
    got = st["result"]["report"]
    for k, x in want.items():
        assert got[k] == pytest.approx(x, abs=1e-9), k
    assert got["iterations"] == ITERATIONS and got["resolved_lock_held"]
    # the node's new mix is the lock for the locked hand; the old one the blueprint's
    rows = {r["hand"]: r for r in st["result"]["node"]["rows"]}
    new = [0.0 if x is None else x for x in rows[hand]["new"]]  # None: not legal for it
    assert new == pytest.approx([mix.get(a, 0.0) for a in acts])
    old = s.hand_grid(s.node(s.parse_history(HISTORY)))
    assert rows[hand]["old"] == pytest.approx(
        next(r["probs"] for r in old["rows"] if r["label"] == hand))
    assert rows[hand]["value_new"] != pytest.approx(rows[hand]["value_old"])
    assert not np.allclose([x or 0.0 for x in rows[hand]["old"]], new)
    node = st["result"]["node"]
    assert node["frequency_old"] == pytest.approx(s.aggregate(s.node(s.parse_history(HISTORY))))
    assert sum(node["frequency_new"]) == pytest.approx(1.0)
    assert not np.allclose(node["frequency_old"], node["frequency_new"])


def test_saved_lock_is_shown_by_a_reopened_explorer(locked):
    run, c, s, path, hand, acts, mix, st = locked
    assert (run / "policy.npz").stat().st_mtime < (run / "locks" / "001").stat().st_mtime
    c2, _ = client_of(run)
    saved = c2.get("/api/locks").json()
    assert saved["available"]
    assert [x["id"] for x in saved["locks"]] == ["001"]
    assert saved["locks"][0]["report"] == st["result"]["report"]
    assert "history = " in saved["locks"][0]["locks"]


BAD = {
    "illegal action": (lambda acts: {"mix": {"agree": 1.0}}, "not legal at this node"),
    "mix not summing to 1": (lambda acts: {"mix": {acts[0]: 0.5}}, "not 1"),
    "mix not numbers": (lambda acts: {"mix": {acts[0]: "x"}}, "not a number"),
    "another seat's node": (lambda acts: {"mix": {acts[0]: 1.0}, "player": 1}, "not seat 1"),
    "a hand not of the game": (lambda acts: {"mix": {acts[0]: 1.0}, "hands": ["Z"]}, "hand"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_lock_requests_are_refused(locked, name):
    run, c, s, path, hand, acts, mix, st = locked
    body, needle = BAD[name]
    before = sorted(p.name for p in (run / "locks").iterdir())
    r = c.post("/api/lock", json={"path": path, **body(acts)})
    assert 400 <= r.status_code < 500
    err = r.json()["error"]
    assert needle in err and "\n" not in err
    assert sorted(p.name for p in (run / "locks").iterdir()) == before
    assert c.get("/api/lock/status").json()["state"] == "done"  # nothing started


def test_chance_node_and_four_players_refused(locked):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import model as M
    from vitou_ai.explore.locking import LockRequestError, LockSession

    run, c, *_ = locked
    r = c.post("/api/lock", json={"path": "", "mix": {"raise": 1.0}})
    assert r.status_code == 400 and "decision node" in r.json()["error"]
    s4 = M.Strategy(named_bot("cautious"), VitouParams(profile="vitou", ranks=4, copies=2,
                                                       hand_size=1, dealer=0),
                    source=str(run), values_budget=0)
    with pytest.raises(LockRequestError, match="two-player"):
        LockSession(s4).start((), {"raise": 1.0})
