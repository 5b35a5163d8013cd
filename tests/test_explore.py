"""The strategy explorer: its numbers are the policy's, computed here
independently on the built public tree; the web routes, the command's bad inputs and
the notebook helpers. The browser test is tests/test_explore_browser.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import needs_extra
from vitou_ai.rules.params import VitouParams
from vitou_ai.solvers.public.tree import KIND_DEAL, KIND_DECISION, build_public_tree

ROOT = Path(__file__).resolve().parents[1]
SMALL = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1, dealer=-1)


def make_run(folder: Path, params: VitouParams, iterations: int = 40, name: str = "run") -> Path:
    """A run folder as ``vitou-ai train --solver public-dcfr`` writes it (policy.npz and
    run.json with its params), without the training command's evaluations."""
    from vitou_ai.solvers.public.cfr import PublicCFR
    from vitou_ai.solvers.public.export import to_tabular_policy

    solver = PublicCFR(params, "dcfr")
    solver.iterate(iterations)
    folder.mkdir(parents=True)
    to_tabular_policy(solver.tree, solver.average_policy(), name=name).save(folder / "policy.npz")
    knobs = {"profile": params.profile, **params.knobs()}
    (folder / "run.json").write_text(json.dumps({"solver": "public-dcfr", "params": knobs}))
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("explore")
    params = VitouParams(**SMALL)
    return {"a": make_run(base / "a", params, 40, "a"), "b": make_run(base / "b", params, 3, "b"),
            "other": make_run(base / "other", VitouParams(**{**SMALL, "ranks": 3}), 2),
            "base": base}


@pytest.fixture(scope="module")
def strategy(runs):
    from vitou_ai.explore import load_strategy

    return load_strategy(runs["a"])


# ---- the numbers, computed independently on the built tree ----------------------------------


class Reference:
    """The policy over the built tree's entries (bot_policy) and a walk by node ids."""

    def __init__(self, strategy):
        from vitou_ai.solvers.public.export import bot_policy

        self.tree = t = build_public_tree(strategy.params)
        self.pol = bot_policy(t, strategy.policy)

    def walk(self, path):
        """(tree node, per seat {hand: own reach}) at ``path``."""
        t = self.tree
        H = t.num_hands
        reach = [{H: 1.0} for _ in range(t.num_players)]
        node, i = 0, 0
        while True:
            if t.kind[node] == KIND_DEAL:
                reach = [{h: r[H] for h in range(H)} for r in reach]
                node = int(t.first[node])
                continue
            if i == len(path):
                return node, reach
            f, m = int(t.first[node]), int(t.nchild[node])
            c = next(f + k for k in range(m) if int(t.action[f + k]) == path[i])
            if t.kind[node] == KIND_DECISION:
                p = int(t.player[node])
                o, n = int(t.actor_off[c]), int(t.actor_len[c])
                reach[p] = {int(t.entries[e]): reach[p][int(t.entries[e])] * self.pol[e]
                            for e in range(o, o + n)}
            node, i = c, i + 1

    def policy_at(self, node):
        """{hand: {action: probability}} of the actor at a decision node."""
        t = self.tree
        out: dict[int, dict[int, float]] = {}
        for k in range(int(t.nchild[node])):
            c = int(t.first[node]) + k
            for e in range(int(t.actor_off[c]), int(t.actor_off[c]) + int(t.actor_len[c])):
                out.setdefault(int(t.entries[e]), {})[int(t.action[c])] = float(self.pol[e])
        return out


def _decision_paths(strategy, limit=60):
    """Decision nodes breadth first from the root (paths)."""
    out, frontier = [], [strategy.root]
    while frontier and len(out) < limit:
        nxt = []
        for node in frontier:
            if node.kind == KIND_DECISION:
                out.append(node.path)
            for k in range(len(strategy.children(node))):
                nxt.append(strategy.child(node, k))
        frontier = nxt
    return out[:limit]


def test_grid_is_the_policy_with_card_removal(strategy):
    ref = Reference(strategy)
    P = strategy.pair_p
    paths = _decision_paths(strategy)
    assert len(paths) == 60 and any(len(p) >= 4 for p in paths)
    for path in paths:
        node = strategy.node(path)
        tid, reach = ref.walk(path)
        assert ref.tree.kind[tid] == KIND_DECISION and ref.tree.player[tid] == node.player
        p, o = node.player, 1 - node.player
        grid = strategy.hand_grid(node)
        pol = ref.policy_at(tid)
        acts = [c.action for c in strategy.children(node)]
        # P(h | history) = r_p(h) sum_h' P(h, h') r_o(h') / Z, card removal in P
        H = ref.tree.num_hands
        if H in reach[p]:
            want = {H: 1.0}
        else:
            w = {h: rp * sum(P[h, g] * ro for g, ro in reach[o].items())
                 for h, rp in reach[p].items()}
            z = sum(w.values())
            want = {h: x / z for h, x in w.items()}
        for row in grid["rows"]:
            h = row["hand"]
            assert row["reach"] == pytest.approx(want.get(h, 0.0), abs=1e-12), (path, h)
            if not row["in_range"]:  # not an entry, or no deal with the other's range
                assert h not in pol or want.get(h, 0.0) == 0.0
                continue
            assert want[h] > 0
            for a, x in zip(acts, row["probs"], strict=True):
                if x is None:
                    assert a not in pol[h]
                else:
                    assert x == pytest.approx(pol[h][a], abs=1e-12), (path, h, a)


def test_values_add_up_to_the_game_value(strategy):
    from vitou_ai.solvers.public.cfr import expected_returns

    V = strategy.values()
    assert V is not None
    want = expected_returns(V.tree, V.policy)[0]
    total = 0.0
    for k in range(len(strategy.children(strategy.root))):  # the dealer draw
        node = strategy.child(strategy.root, k)
        row = strategy.hand_grid(node)["rows"][0]  # "not dealt": one cell
        sign = 1.0 if node.player == 0 else -1.0
        total += strategy.children(strategy.root)[k].prob * sign * row["value"]
    assert total == pytest.approx(want, abs=1e-9)
    # below the deal, a hand's value averaged over the range is the node's value
    path = strategy.parse_history("dealer 1, p0 pass, p1 pass")
    node = strategy.node(path)
    grid = strategy.hand_grid(node)
    assert all(r["value"] is not None for r in grid["rows"] if r["in_range"])


def test_aggregate_and_child_reach(strategy):
    node = strategy.node(strategy.parse_history("dealer 0, p1 pass, p0 pass"))
    agg = strategy.aggregate(node)
    assert sum(agg) == pytest.approx(1.0)
    kids = [strategy.child(node, k) for k in range(len(agg))]
    here = strategy.reach_probability(node)
    for a, kid in zip(agg, kids, strict=True):
        assert strategy.reach_probability(kid) == pytest.approx(here * a, rel=1e-12)


def test_search_box_history(strategy):
    from vitou_ai.explore import HistorySearchError

    path = strategy.parse_history("dealer 1, p0 pass, p1 pass, p0 raise")
    assert strategy.node(path).labels == ("dealer 1", "p0 pass", "p1 pass", "p0 raise")
    cases = {
        "dealer 1, p1 pass": "R9.2",  # out of turn in the blind window
        "dealer 1, p0 pass, p1 pass, p0 play X": "R10",  # not an action
        "dealer 1, p0 pass, p1 pass, p0 play T, p1 play T, p0 play T": "R3.2",  # over
        "dealer 3": "R1.4",
    }
    for text, rule in cases.items():
        with pytest.raises(HistorySearchError) as info:
            strategy.parse_history(text)
        assert info.value.rule == rule, (text, str(info.value))
        assert "\n" not in str(info.value)


def test_bluffs_and_sorting(strategy):
    from vitou_ai.explore.views import grid_rows, node_view

    v = node_view([strategy], strategy.parse_history("dealer 1, p0 pass, p1 pass"))
    g = v["grids"][0]
    by_raise = grid_rows(g, "raise")
    rf = [r["raise"] or 0.0 for r in by_raise]
    assert rf == sorted(rf, reverse=True)
    for r in grid_rows(g, "hand", "bluffs"):
        assert r["raise"] >= 0.05 and r["showdown"] < 0.5
    assert [r["hand"] for r in grid_rows(g)] == sorted(r["hand"] for r in g["rows"])
    # the showdown share: the opponent's range weighted by reach and the deal, compared
    # card by card (sorted rank tuples, 0 the highest)
    node = strategy.node(strategy.parse_history("dealer 1, p0 pass, p1 pass"))
    hands = [tuple(h) for h in strategy.hands]
    for h in node.ranges[0]:
        w = {q: strategy.pair_p[h, q] * r for q, r in zip(node.ranges[1], node.reach[1],
                                                             strict=True)}
        share = sum(x * (1.0 if hands[h] < hands[q] else 0.5 if h == q else 0.0)
                    for q, x in w.items()) / sum(w.values())
        assert g["rows"][int(h)]["showdown"] == pytest.approx(share, abs=1e-12)


def test_two_strategies_differences(runs):
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.views import node_view

    a, b = load_strategy(runs["a"]), load_strategy(runs["b"])
    v = node_view([a, b], a.parse_history("dealer 1, p0 pass, p1 pass"))
    tv = {int(h): x for h, x in v["diff"]["tv"].items()}
    ga, gb = v["grids"]
    for ra, rb in zip(ga["rows"], gb["rows"], strict=True):
        want = 0.5 * sum(abs((x or 0) - (y or 0)) for x, y in zip(ra["probs"], rb["probs"],
                                                                  strict=True))
        assert tv[ra["hand"]] == pytest.approx(want)
    hot = v["diff"]["hot"]
    assert hot and tv[hot[0]] == max(tv.values())


def test_four_players_exact_and_sampled(monkeypatch):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import model as M

    params = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1, dealer=0)
    s = M.Strategy(named_bot("cautious"), params)
    node = s.root
    while node.kind != KIND_DECISION or len(node.path) < 2:
        node = s.child(node, int(np.argmax(s.aggregate(node))))
    exact = s.hand_grid(node)
    assert exact["exact_reach"] and not exact["values"]
    assert sum(r["reach"] for r in exact["rows"]) == pytest.approx(1.0)
    monkeypatch.setattr(M, "EXACT_JOINT_LIMIT", 0)
    monkeypatch.setattr(M, "REACH_SAMPLES", 20000)
    s2 = M.Strategy(named_bot("cautious"), params)
    sampled = s2.hand_grid(s2.node(node.path))
    assert not sampled["exact_reach"] and 0 < sampled["samples"] <= 20000
    assert sampled["samples_drawn"] == 20000, sampled["samples"]
    for r0, r1 in zip(exact["rows"], sampled["rows"], strict=True):
        assert r1["reach"] == pytest.approx(r0["reach"], abs=0.03), sampled["samples"]


def test_the_matrix_refusals():
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import Strategy

    with pytest.raises(ValueError, match="fresh deal"):
        Strategy(named_bot("random"), VitouParams(profile="truc_1912", ranks=2, copies=4,
                                                  hand_size=1, target=3))


# ---- the web routes (no browser) ----------------------------------------------------------


def _test_client(strategies, base_url: str = "http://127.0.0.1:8050"):
    """Starlette's test client of the app over ``strategies`` (its tests carry
    ``needs_extra("explore-test")``: the client needs httpx), asking as the page served
    at ``base_url`` does."""
    import warnings

    from vitou_ai.explore.app import make_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    return TestClient(make_app(strategies), base_url=base_url)


@pytest.fixture(scope="module")
def client(runs):
    from vitou_ai.explore import load_strategy

    both = [load_strategy(runs["a"]), load_strategy(runs["b"])]
    c = _test_client(both)  # the app starts the exact values in the background
    for s in both:
        s.values()  # wait for them: the routes do not
        assert not s.values_pending()
    return c


def test_values_are_built_in_the_background(runs):
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.views import node_view

    s = load_strategy(runs["a"])
    s.start_values()
    v = node_view([s], (), block=False)  # never waits
    assert v["values_pending"] in (True, False)
    s.values()
    v = node_view([s], s.parse_history("dealer 1"), block=False)
    assert not v["values_pending"] and v["grids"][0]["values"]
    assert v["values_note"].startswith("values: exact")


@needs_extra("explore-test")
def test_routes(client, strategy):
    assert "vitou-ai explore" in client.get("/").text
    info = client.get("/api/info").json()
    assert info["names"] == ["a", "b"] and info["players"] == 2
    root = client.get("/api/view", params={"path": ""}).json()
    assert [c["label"] for c in root["children"]] == ["dealer 0", "dealer 1"]
    found = client.get("/api/search", params={"history": "dealer 1, p0 pass, p1 pass"}).json()
    v = client.get("/api/view", params={"path": found["path"]}).json()
    want = strategy.hand_grid(strategy.node(strategy.parse_history("dealer 1, p0 pass, p1 pass")))
    assert v["grids"][0]["rows"] == want["rows"]
    assert v["breadcrumb"][-1]["label"] == "p1 pass" and v["diff"]["tv"]
    bad = client.get("/api/search", params={"history": "dealer 1, p1 raise"})
    assert bad.status_code == 400 and bad.json()["rule"] == "R9.2"
    assert client.get("/api/view", params={"path": "99"}).status_code == 404
    assert client.get("/api/view", params={"path": "x"}).status_code == 400
    csv = client.get("/api/export.csv", params={"path": found["path"], "sort": "raise"})
    lines = csv.text.strip().splitlines()
    assert lines[0].startswith("history,strategy,hand,in_range,reach,value")
    assert len(lines) == 1 + 2 * strategy.H  # both strategies in view
    png = client.get("/api/export.png", params={"path": found["path"], "which": "1"})
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    assert client.get("/api/export.csv", params={"path": "", "sort": "nope"}).status_code == 400


ROUTES = ["/", "/api/info", "/api/view?path=", "/api/search?history=dealer+1",
          "/api/export.csv?path=", "/api/export.png?path="]


@needs_extra("explore-test")
def test_only_loopback_host_names_are_answered(runs):
    """DNS rebinding: a page of evil.example whose name is re-pointed at 127.0.0.1 asks
    with ``Host: evil.example``; the explorer answered every route (the run's paths in
    /api/info). Only 127.0.0.1, localhost and [::1], any port, are answered."""
    from vitou_ai.explore import load_strategy

    c = _test_client([load_strategy(runs["a"], values_budget=0)])
    for host in ("evil.example", "evil.example:8050", "127.0.0.1.evil.example",
                 "localhost.evil.example:8050", "0.0.0.0:8050", "[::2]:8050", "127.0.0.2",
                 "127.0.0.1:8050@evil.example", ""):
        for route in ROUTES:
            r = c.get(route, headers={"host": host})
            assert r.status_code in (400, 403), (host, route, r.status_code)
            assert str(runs["a"]) not in r.text and "PNG" not in r.text[:8], (host, route)
    for host in ("127.0.0.1", "127.0.0.1:8050", "localhost", "localhost:1", "LOCALHOST:8050",
                 "[::1]", "[::1]:8050"):
        for route in ROUTES:
            r = c.get(route, headers={"host": host})
            assert r.status_code == 200, (host, route, r.status_code, r.text[:200])


@needs_extra("explore-test")
def test_cross_origin_api_requests_are_refused(runs):
    """Another site's page (or a sandboxed one, Origin: null) may not call the API, even
    on a loopback name; the page's own requests, typed addresses and scripts may."""
    from vitou_ai.explore import load_strategy

    c = _test_client([load_strategy(runs["a"], values_budget=0)])
    api = [r for r in ROUTES if r.startswith("/api/")]
    for headers in ({"origin": "http://evil.example"}, {"origin": "null"},
                    {"origin": "http://127.0.0.1:9999"}, {"origin": "http://localhost:8050"},
                    {"origin": "https://127.0.0.1:8050"},
                    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                    {"origin": "http://127.0.0.1:8050", "sec-fetch-site": "cross-site"}):
        for route in api:
            r = c.get(route, headers=headers)
            assert r.status_code == 403, (headers, route, r.status_code)
            assert r.json()["error"].startswith("refused: a request made by another site")
            assert "\n" not in r.json()["error"]
    for headers in ({}, {"origin": "http://127.0.0.1:8050"}, {"sec-fetch-site": "same-origin"},
                    {"sec-fetch-site": "none"},
                    {"origin": "http://127.0.0.1:8050", "sec-fetch-site": "same-origin"}):
        for route in api:
            r = c.get(route, headers=headers)
            assert r.status_code == 200, (headers, route, r.status_code)
    lc = _test_client([load_strategy(runs["a"], values_budget=0)],
                      base_url="http://localhost:8050")
    assert lc.get("/api/info", headers={"origin": "http://localhost:8050"}).status_code == 200
    # the page may be opened from another site (a notebook's frame): it holds no numbers
    assert c.get("/", headers={"sec-fetch-site": "cross-site"}).status_code == 200


@needs_extra("explore")
def test_a_served_explorer_refuses_another_host(runs):
    """The served app (uvicorn), as the command runs it: ``Host: evil.example`` is 400."""
    import http.client

    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.app import Server, bind

    server = Server([load_strategy(runs["a"], values_budget=0)], bind(0)).start()
    try:
        def status(host):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
            conn.request("GET", "/api/info", headers={"Host": host})
            r = conn.getresponse()
            body = r.read()
            conn.close()
            return r.status, body

        code, body = status("evil.example")
        assert code == 400 and str(runs["a"]).encode() not in body, (code, body)
        code, body = status(f"127.0.0.1:{server.port}")
        assert code == 200 and json.loads(body)["names"] == ["a"], (code, body)
    finally:
        server.stop()


# ---- the command ------------------------------------------------------------------------


def _explore(argv, capsys):
    from vitou_ai.commands.cli import main

    code = main(["explore", *argv])
    err = capsys.readouterr().err.strip()
    return code, err


@needs_extra("explore")
def test_bad_inputs_one_line_exit_2(runs, capsys, tmp_path):
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "policy.npz").write_bytes(b"not a zip")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "policy.npz").write_bytes((runs["other"] / "policy.npz").read_bytes())
    (mixed / "run.json").write_text((runs["a"] / "run.json").read_text())
    badjson = tmp_path / "badjson"
    badjson.mkdir()
    (badjson / "policy.npz").write_bytes((runs["a"] / "policy.npz").read_bytes())
    (badjson / "run.json").write_text("{")
    cases = [
        ([str(tmp_path / "missing"), "--port", "0"], "no such run folder"),
        ([str(tmp_path), "--port", "0"], "no policy.npz"),
        ([str(damaged), "--port", "0"], "cannot read the policy"),
        ([str(badjson), "--port", "0"], "damaged run record"),
        ([str(mixed), "--port", "0"], "other game"),
        ([str(runs["a"]), str(runs["other"]), "--port", "0"], "another game"),
        (["--game", "vint"], "Vint is not covered"),
    ]
    for argv, words in cases:
        code, err = _explore(argv, capsys)
        assert code == 2 and len(err.splitlines()) == 1 and words in err, (argv, err)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        code, err = _explore([str(runs["a"]), "--port", str(busy.getsockname()[1])], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "in use" in err, err


def test_without_the_extra(monkeypatch, runs, capsys):
    import vitou_ai.explore.app as app

    def missing():
        raise ImportError(app.EXTRA_HINT)

    monkeypatch.setattr(app, "require_web", missing)
    code, err = _explore([str(runs["a"])], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "'explore' extra" in err


@needs_extra("explore")
def test_serves_prints_its_url_and_stops_on_ctrl_c(runs):
    import urllib.request

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "vitou_ai", "explore", str(runs["a"]),
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        line = proc.stdout.readline()
        assert " at http://127.0.0.1:" in line, line + proc.stderr.read()
        url = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(url + "api/info", timeout=20) as r:
            assert json.loads(r.read())["names"] == ["a"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130  # the toolkit's Ctrl-C code
        err = proc.stderr.read().strip()
        assert err.splitlines() == ["vitou-ai explore: stopped"], err
    finally:
        if proc.poll() is None:
            proc.kill()


# ---- Jupyter -------------------------------------------------------------------------------


def test_grid_frame_of_a_run(runs):
    from vitou_ai.explore import grid_frame

    df = grid_frame(str(runs["a"]), "dealer 1, p0 pass, p1 pass", sort="raise")
    assert len(df) == 4 and {"reach", "value", "p(raise)"} <= set(df.columns)
    assert df["reach"].sum() == pytest.approx(1.0)


@needs_extra("explore")
def test_notebook_show_serves_the_run(runs):
    import urllib.request

    from vitou_ai.explore import notebook, show

    frame = show(runs["a"], history="dealer 1")
    try:
        assert frame.src.startswith("http://127.0.0.1:") and frame.src.endswith("#11")
        with urllib.request.urlopen(frame.src.split("#")[0] + "api/info", timeout=20) as r:
            assert json.loads(r.read())["names"] == ["a"]
    finally:
        for s in notebook._SERVERS:
            s.stop()
        notebook._SERVERS.clear()


def test_memory_mapped_policy_is_the_same_policy(runs, strategy, tmp_path):
    import shutil

    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.views import node_view

    run = tmp_path / "mapped"
    shutil.copytree(runs["a"], run)
    m = load_strategy(run, mapped=True)
    assert (run / "policy.npz.explore" / "index.json").is_file()
    again = load_strategy(run, mapped=True)  # the index is reused
    assert again.policy.rows == m.policy.rows == len(strategy.policy)
    for path in _decision_paths(strategy, 30):
        a = node_view([strategy], path)["grids"][0]
        b = node_view([m], path)["grids"][0]
        assert a["rows"] == b["rows"], path
    # a damaged file is refused in one line, mapped or not
    (run / "policy.npz").write_bytes(b"PK\x03\x04 damaged")
    from vitou_ai.explore import ExploreError

    with pytest.raises(ExploreError, match="cannot read the policy") as info:
        load_strategy(run, mapped=True)
    assert "\n" not in str(info.value)


def test_train_writes_the_index_of_a_large_policy(tmp_path, monkeypatch, capsys):
    """``vitou-ai train`` writes the explorer's index at the end of a run with a large
    table, so that the first open maps it (no inflation, no hash table built): here
    with the threshold lowered to a small run's table."""
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.commands.cli import main
    from vitou_ai.explore import load_strategy, mapped, model

    monkeypatch.setattr(model, "MAP_ROWS", 10)
    run = tmp_path / "run"
    assert main(["train", "--profile", "vitou_2p", "--ranks", "3", "--copies", "2",
                 "--hand-size", "2", "--solver", "public-dcfr", "--iterations", "4",
                 "--eval-every", "2", "--eval-deals", "20", "--bots", "random",
                 "--no-progress", "--out", str(run)]) == 0
    assert "explorer index of" in capsys.readouterr().err
    info = run / "policy.npz.explore" / "index.json"
    stamp = info.stat().st_mtime_ns
    monkeypatch.setattr(mapped, "_inflate", None)  # an open that rebuilt it would fail
    s = load_strategy(run)
    assert isinstance(s.policy, mapped.MappedPolicy) and info.stat().st_mtime_ns == stamp
    table = TabularPolicy.load(run / "policy.npz")
    assert s.policy.rows == len(table)
    np.testing.assert_array_equal(np.asarray(s.policy._keys), table.keys)
    np.testing.assert_array_equal(np.asarray(s.policy._probs), table.probs)
    np.testing.assert_array_equal(np.asarray(s.policy._slots), table.slots)
    assert s.policy.params == table.params and s.policy.name == table.name
    # a policy rewritten after the index (another run into the folder) is indexed anew
    monkeypatch.undo()
    table.save(run / "policy.npz")
    load_strategy(run, mapped=True)
    assert info.stat().st_mtime_ns != stamp


def test_scores_and_table_coverage(runs, capsys):
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.views import node_view

    s = load_strategy(runs["a"])
    v = node_view([s], s.parse_history("dealer 1, p0 pass, p1 pass"))
    assert v["not_in_table"] == [0]
    assert all(r["in_table"] for r in v["grids"][0]["rows"] if r["in_range"])
    # the points policy was trained at 0:0: at 5:3 no hand is in its table
    s53 = load_strategy(runs["a"], scores=(5, 3))
    assert s53.params.scores == (5, 3)
    v = node_view([s53], s53.parse_history("dealer 1, p0 pass, p1 pass"))
    assert v["not_in_table"] == [4]


@needs_extra("explore")
def test_the_command_checks_its_scores(runs, capsys):
    code, err = _explore([str(runs["a"]), "--scores", "5-3", "--port", "0"], capsys)
    assert code == 2 and "--scores takes A:B" in err
    code, err = _explore([str(runs["a"]), "--scores", "99:0", "--port", "0"], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "--scores 99:0" in err, err


def _truc_run(runs) -> Path:
    """A truc_catalan_2p run of the same deck as runs a and b (made once)."""
    tc = runs["base"] / "tc2"
    if not tc.exists():
        make_run(tc, VitouParams(**{**SMALL, "profile": "truc_catalan_2p"}), 2)
    return tc


def test_two_strategies_of_different_games_are_refused(runs):
    """Fresh-user report 25, item 1: the whole game is compared (profile and knobs), not
    only the deck: 2 vs 4 players."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import ExploreError, load_strategy
    from vitou_ai.explore.model import Strategy, check_same_game

    four = Strategy(named_bot("random"), VitouParams(**{**SMALL, "profile": "vitou"}),
                    "v4", values_budget=0)
    with pytest.raises(ExploreError, match="another game") as info:
        check_same_game(load_strategy(runs["a"], values_budget=0), four)
    assert "vitou " in str(info.value) and "vitou_2p" in str(info.value)


@needs_extra("explore")
def test_two_runs_of_different_games_are_refused_at_start(runs, capsys):
    """Fresh-user report 25, item 1: vitou_2p vs truc_catalan_2p (same deck), by the
    command and by the app."""
    from vitou_ai.explore import ExploreError, load_strategy
    from vitou_ai.explore.app import make_app

    tc = _truc_run(runs)
    code, err = _explore([str(runs["a"]), str(tc), "--port", "0"], capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "truc_catalan_2p" in err and "vitou_2p" in err and "another game" in err, err
    with pytest.raises(ExploreError, match="another game"):
        make_app([load_strategy(runs["a"], values_budget=0), load_strategy(tc, values_budget=0)])


def _crawl_rows(s, limit):
    """(node, grid) of the first ``limit`` decision nodes, breadth first."""
    for path in _decision_paths(s, limit):
        node = s.node(path)
        yield node, s.hand_grid(node)


def test_card_removal_and_zero_reach_are_out_of_range(monkeypatch):
    """Report 25, item 2: a hand the cards shown rule out (or that the strategy never
    plays to the node) is out of range: greyed, no mix, not counted as "not in the
    policy's table"; in_range=0 in the CSV."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import model as M
    from vitou_ai.explore.views import grid_csv, node_view

    s = M.Strategy(named_bot("random"), VitouParams(profile="vitou_2p", ranks=3, copies=2,
                                                    hand_size=2, dealer=-1), values_budget=0)
    v = node_view([s], s.parse_history("dealer 0, p1 raise, p0 accept, p1 play T"))
    tt = next(r for r in v["grids"][0]["rows"] if r["label"] == "T T")
    assert not tt["in_range"] and tt["probs"] == [None] * len(tt["probs"])
    assert tt["in_table"] is None and tt["raise"] is None and v["not_in_table"] == [0]
    import csv

    line = next(x for x in csv.reader(grid_csv(v).splitlines()) if x[2] == "T T")
    assert line[3] == "0", line
    ruled_out = 0
    for node, g in _crawl_rows(s, 150):
        ruled_out += len(node.ranges[node.player]) - sum(r["in_range"] for r in g["rows"])
        for r in g["rows"]:
            assert r["in_range"] == (r["reach"] > 0), (node.labels, r)
            if not r["in_range"]:
                assert all(x is None for x in r["probs"]) and r["in_table"] is None
    assert ruled_out > 0  # in the node's range (its own cards allow it), not in a deal
    # four players: the card shown by two seats, exact and sampled reach alike
    for limit in (M.EXACT_JOINT_LIMIT, 0):
        monkeypatch.setattr(M, "EXACT_JOINT_LIMIT", limit)
        s4 = M.Strategy(named_bot("cautious"), VitouParams(profile="vitou", ranks=4, copies=2,
                                                           hand_size=1, dealer=-1))
        v = node_view([s4], s4.parse_history("dealer 0, p1 play 9, p2 play 9"))
        g = v["grids"][0]
        assert g["exact_reach"] == (limit > 0)
        nine = next(r for r in g["rows"] if r["label"] == "9")
        assert not nine["in_range"] and nine["probs"] == [None] * len(nine["probs"])
        assert v["not_in_table"] == [0]
        for node, g in _crawl_rows(s4, 40):
            for r in g["rows"]:
                if r["in_range"]:
                    assert r["own_reach"] > 0, (node.labels, r)
                    if g["exact_reach"]:
                        assert r["reach"] > 0, (node.labels, r)
                else:
                    assert all(x is None for x in r["probs"])


def test_four_players_exact_up_to_the_documented_limit(monkeypatch):
    """Report 25, item 3: the reach is exact when the three other ranges give at most
    EXACT_JOINT_LIMIT combinations (whatever the actor's range), and the children's
    frequency and reach come from the same numbers, sampled or exact (said on both)."""
    import math

    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import model as M
    from vitou_ai.explore.views import node_view

    params = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=2, dealer=0)
    s = M.Strategy(named_bot("cautious"), params)
    assert s.H == 10
    monkeypatch.setattr(M, "EXACT_JOINT_LIMIT", 10 ** 3)  # exactly the 3 ranges' 10 ** 3
    v = node_view([s], ())  # the first decision (dealer 0: no draw)
    assert v["kind"] == "decision"
    g = v["grids"][0]
    assert g["exact_reach"] and v["sampled"] == [None]
    # nothing is public yet: the reach is the marginal deal probability of the hand
    for r, counts in zip(g["rows"], s.counts, strict=True):
        want = math.prod(math.comb(2, int(k)) for k in counts) / math.comb(8, 2)
        assert r["reach"] == pytest.approx(want, abs=1e-12), r
    for view in (v, None):
        if view is None:  # the same, sampled
            monkeypatch.setattr(M, "EXACT_JOINT_LIMIT", 0)
            s2 = M.Strategy(named_bot("cautious"), params)
            view = node_view([s2], ())
            assert view["sampled"][0] and not view["grids"][0]["exact_reach"]
        here = view["reach"][0]
        assert sum(c["reach"][0] for c in view["children"]) == pytest.approx(here, rel=1e-12)
        for c in view["children"]:
            assert c["reach"][0] == pytest.approx(here * c["prob"][0], rel=1e-12)


@needs_extra("explore-test")
def test_compare_mode_exports_both_strategies(client, strategy):
    """Report 25, item 4: with two strategies the page's export links (no ``which``)
    give both grids: the CSV's strategy column names both, the PNG draws both."""
    import csv
    import io

    from PIL import Image

    path = client.get("/api/search", params={"history": "dealer 1, p0 pass, p1 pass"}).json()
    q = {"path": path["path"]}
    rows = list(csv.DictReader(io.StringIO(client.get("/api/export.csv", params=q).text)))
    assert [r["strategy"] for r in rows] == ["a"] * strategy.H + ["b"] * strategy.H
    one = list(csv.DictReader(io.StringIO(
        client.get("/api/export.csv", params={**q, "which": "1"}).text)))
    assert {r["strategy"] for r in one} == {"b"} and len(one) == strategy.H
    both = Image.open(io.BytesIO(client.get("/api/export.png", params=q).content))
    first = Image.open(io.BytesIO(client.get("/api/export.png",
                                             params={**q, "which": "0"}).content))
    assert both.size[1] > 1.6 * first.size[1]
    page = client.get("/").text
    assert "which=" not in page  # the links export what is in view


def test_family_games_use_their_own_raise_verbs(runs):
    """Report 25, item 7: Truc's truc / retruc and Put's put, as the hand histories write
    them (rules.history.action_name), in the breadcrumb, the history box, the children."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import Strategy, load_strategy
    from vitou_ai.explore.views import node_view

    tc = _truc_run(runs)
    s = load_strategy(tc, values_budget=0)
    v = node_view([s], s.parse_history("dealer 1, p0 truc, p1 retruc"))
    assert [c["label"] for c in v["breadcrumb"]] == ["root", "dealer 1", "p0 truc", "p1 retruc"]
    assert v["history"] == "dealer 1, p0 truc, p1 retruc"
    assert v["stake"].endswith("[retruc]")
    kids = [c["label"] for c in node_view([s], s.parse_history("dealer 1"))["children"]]
    assert "p0 truc" in kids and not any("raise" in k for k in kids), kids
    # a copied history is searchable again
    assert s.parse_history(v["history"]) == tuple(int(x) for x in v["path"].split(","))
    put = Strategy(named_bot("random"), VitouParams(**{**SMALL, "profile": "put"}),
                   values_budget=0)
    kids = [c["label"] for c in node_view([put], put.parse_history("dealer 1"))["children"]]
    assert "p0 put" in kids and not any("raise" in k for k in kids), kids


def test_search_errors_list_what_is_legal_publicly(strategy, runs):
    """Report 25, item 5: the legal actions named are those of the public node (any card
    the player may hold), not one hidden deal's; a bad verb does not list Vitou's whole
    deck and gestures; the game's rank labels and verbs."""
    from vitou_ai.explore import HistorySearchError, load_strategy

    here = "dealer 1, p0 pass, p1 pass"
    public = ", ".join(c.label.split(" ", 1)[1]
                       for c in strategy.children(strategy.node(strategy.parse_history(here))))
    assert public.startswith("play T, play 9, play A, play K")
    for item in ("p0 play Q", "p0 signal ten", "p0 fly"):
        with pytest.raises(HistorySearchError) as info:
            strategy.parse_history(f"{here}, {item}")
        msg = str(info.value)
        assert msg.endswith(f"legal here: {public}"), msg
        assert "signal G" not in msg and "J 8 7" not in msg and "nohigh" not in msg, msg
    tc = _truc_run(runs)
    s = load_strategy(tc, values_budget=0)
    with pytest.raises(HistorySearchError) as info:
        s.parse_history("dealer 1, p0 truc, p1 retruc, p0 truc")
    assert "'truc' by seat 0" in str(info.value) and "legal here: accept, refuse" in str(
        info.value), str(info.value)
    with pytest.raises(HistorySearchError) as info:
        s.parse_history("dealer 1, p0 fly")
    assert str(info.value).endswith("legal here: play 3, play 2, play 1, play 12, truc")


def test_help_lists_game_vint_and_docs_cover_match_runs(capsys):
    """Report 25, items 8 and 6: ``--game vint`` is in ``vitou-ai explore --help``; the
    guide does not list match-objective runs among the refusals (they are explored at a
    score, the tour's steps 1 and 5)."""
    from vitou_ai.commands.cli import main

    with pytest.raises(SystemExit) as info:
        main(["explore", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--game {vint}" in out and "Vint is not explored" in out, out
    guide = (ROOT / "docs" / "guide" / "explore.md").read_text()
    covers = guide.split("## What it covers")[1].split("## How it works")[0]
    refused = covers.split("Not covered")[1].split("Match-objective runs are covered")[0]
    assert "match" not in refused.lower(), refused
    assert "--scores" in guide.split("## What it covers")[0]


def test_search_box_any_case_and_no_empty_items(strategy):
    """Report 25, item 9: any case; ';' and empty items refused."""
    from vitou_ai.explore import HistorySearchError

    want = strategy.parse_history("dealer 1, p0 pass, p1 pass, p0 play T")
    assert strategy.parse_history("DEALER 1, P0 PASS, p1 Pass, p0 PLAY t") == want
    for text, words in (("dealer 1; p0 pass", "not ';'"), ("dealer 1,,p0 pass", "empty"),
                        ("dealer 1, p0 pass,", "empty")):
        with pytest.raises(HistorySearchError, match=words):
            strategy.parse_history(text)


@needs_extra("explore-test")
def test_search_box_and_parameters_small_fixes(client, strategy, runs):
    """Report 25, item 9: a valid placeholder; the rule once; no "difference" sort with
    one strategy; malformed parameters 400; a port in use one clear message from show()."""
    from vitou_ai.explore import ExploreError, load_strategy

    info = client.get("/api/info").json()
    assert strategy.parse_history(info["example"])  # the placeholder is a valid history
    assert info["example"].startswith("dealer 0, p1 ")
    page = client.get("/").text
    assert "info.example" in page and "p0 raise, p0 play T, ..." not in page
    # the page prefixes the rule only when the message does not cite it already
    assert "!r.error.includes(r.rule)" in page
    r = client.get("/api/search", params={"history": "dealer 1, p0 pass, p1 pass, p0 play Q"})
    assert r.json()["rule"] == "R1.1" and "(R1.1:" in r.json()["error"]
    for params in ({"path": "abc"}, {"path": "", "sort": "bogus"}, {"path": "", "which": "2"},
                   {"path": "", "filter": "x"}):
        route = "/api/export.csv" if set(params) - {"path"} else "/api/view"
        assert client.get(route, params=params).status_code == 400, params
    assert client.get("/api/view", params={"path": "99"}).status_code == 404
    # one strategy: no "difference" sort (the page removes it, the API refuses it)
    one = _test_client([load_strategy(runs["a"], values_budget=0)])
    assert 'option[value="diff"]' in one.get("/").text
    r = one.get("/api/export.csv", params={"path": "11", "sort": "diff"})
    assert r.status_code == 400 and "two strategies" in r.json()["error"]
    from vitou_ai.explore import show

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        with pytest.raises(ExploreError, match=f"port {port} on 127.0.0.1 is in use") as e:
            show(runs["a"], port=port)
    assert "\n" not in str(e.value)


# ---- fresh-user pass 2 ---------------------------------------------------------------------


def test_the_fallback_is_named(runs):
    """Pass 2, item 1: the policy's real fallback is named (the API sends it)."""
    from vitou_ai.bots.named import NAMED_BOTS
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.model import Strategy
    from vitou_ai.explore.views import node_view

    s = load_strategy(runs["a"], values_budget=0)
    assert s.fallback == "uniform"
    pol = TabularPolicy.load(runs["a"] / "policy.npz", fallback=NAMED_BOTS["counter"])
    fb = Strategy(pol, s.params, "fb", values_budget=0)
    assert fb.fallback == "the counter heuristic"
    assert node_view([fb], fb.parse_history("dealer 1"))["fallbacks"] == ["the counter heuristic"]
    guide = (ROOT / "docs" / "guide" / "explore.md").read_text()
    assert "plays the fallback, uniform at random" not in guide and "`counter`" in guide


@needs_extra("explore-test")
def test_the_page_names_the_fallback(client):
    """Pass 2, item 1: the page names the policy's real fallback (the API sends it)."""
    assert client.get("/api/info").json()["fallbacks"] == ["uniform", "uniform"]
    page = client.get("/").text
    assert "fallback (uniform)" not in page and "v.fallbacks[i]" in page


def _four_player_strategy():
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore.model import Strategy

    params = VitouParams(profile="vitou", ranks=4, copies=2, hand_size=1, dealer=0)
    return Strategy(named_bot("cautious"), params, "v4", values_budget=0)


@needs_extra("explore-test")
def test_four_players_refuse_bluffs_and_value_sort():
    """Pass 2, item 3: no showdown proxy or values for four players: the view says so, the
    exports refuse filter=bluffs and sort=value in one line (400)."""
    s = _four_player_strategy()
    c = _test_client([s])
    assert c.get("/api/info").json()["showdown"] is False
    node = s.root
    while node.kind != KIND_DECISION:
        node = s.child(node, 0)
    path = ",".join(map(str, node.path))
    v = c.get("/api/view", params={"path": path}).json()
    assert v["showdown"] is False and "four players" in v["showdown_note"]
    assert not v["grids"][0]["showdown"] and not v["grids"][0]["values"]
    for route, q in (("/api/export.png", {"filter": "bluffs"}),
                     ("/api/export.csv", {"filter": "bluffs"}),
                     ("/api/export.png", {"sort": "value"}),
                     ("/api/export.csv", {"sort": "value"})):
        r = c.get(route, params={"path": path, **q})
        assert r.status_code == 400, (route, q)
        err = r.json()["error"]
        assert "not available" in err and "\n" not in err, err
    assert c.get("/api/export.csv", params={"path": path, "sort": "raise"}).status_code == 200
    page = c.get("/").text
    assert "showdown_note" in page and "o.disabled = off" in page


@needs_extra("explore-test")
def test_two_players_keep_bluffs_and_value_sort(client, strategy):
    path = ",".join(map(str, strategy.parse_history("dealer 1, p0 pass, p1 pass")))
    v = client.get("/api/view", params={"path": path}).json()
    assert v["showdown"] is True and v["showdown_note"] is None
    for q in ({"filter": "bluffs"}, {"sort": "value"}):
        assert client.get("/api/export.csv", params={"path": path, **q}).status_code == 200


def test_stake_line_one_point_from_the_end():
    """Pass 2, item 6: at a score where a team is one point from the end the kernel allows
    no raise (R4.2d, R9.3): the stake line says so instead of the ladder."""
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore.model import Strategy
    from vitou_ai.explore.views import node_view

    base = dict(SMALL, target=3)
    s = Strategy(named_bot("random"), VitouParams(**base, scores=(1, 2)), "m", values_budget=0)
    v = node_view([s], s.parse_history("dealer 1"))
    assert ">" not in v["stake"] and "no raises" in v["stake"], v["stake"]
    with pytest.raises(Exception, match="R4.2d"):
        s.parse_history("dealer 1, p1 raise")
    s0 = Strategy(named_bot("random"), VitouParams(**base), "m0", values_budget=0)
    assert node_view([s0], s0.parse_history("dealer 1"))["stake"].startswith("[1] > 3")


def _score_runs(runs):
    """A points run at 1:2, a match run and a points run at 0:0, target 3 (made once)."""
    p12, match, other = (runs["base"] / n for n in ("points12", "match", "points00"))
    if not p12.exists():
        make_run(p12, VitouParams(**SMALL, target=3, scores=(1, 2)), 2)
        make_run(match, VitouParams(**SMALL, target=3), 2)
        rec = json.loads((match / "run.json").read_text())
        (match / "run.json").write_text(json.dumps({**rec, "objective": "match"}))
        make_run(other, VitouParams(**SMALL, target=3), 2)
    return p12, match, other


def test_points_run_against_a_match_run_hints_scores(runs):
    """Pass 2, item 7: games that differ by the scores only, one a match run: the line
    says which --scores compares them."""
    from vitou_ai.explore import ExploreError, load_strategy
    from vitou_ai.explore.model import check_same_game

    p12, match, other = _score_runs(runs)
    with pytest.raises(ExploreError, match="give --scores 1:2"):
        check_same_game(load_strategy(p12, values_budget=0), load_strategy(match, values_budget=0))
    # and that works
    check_same_game(load_strategy(p12, values_budget=0),
                    load_strategy(match, values_budget=0, scores=(1, 2)))
    # two points runs at different scores: no hint
    with pytest.raises(ExploreError, match="another game") as e:
        check_same_game(load_strategy(p12, values_budget=0), load_strategy(other, values_budget=0))
    assert "--scores" not in str(e.value)


@needs_extra("explore")
def test_the_command_hints_scores(runs, capsys):
    p12, match, other = _score_runs(runs)
    code, err = _explore([str(p12), str(match), "--port", "0"], capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "--scores 1:2" in err, err
    code, err = _explore([str(p12), str(other), "--port", "0"], capsys)
    assert code == 2 and "another game" in err and "--scores" not in err, err


@needs_extra("explore-test")
def test_route_consistency(client):
    """Pass 2, item 9: an empty path item is 400; a refused search is 400 with the rule."""
    for path in ("10,,12", "10,", ",10"):
        r = client.get("/api/view", params={"path": path})
        assert r.status_code == 400 and "empty" in r.json()["error"], path
    r = client.get("/api/search", params={"history": "dealer 1, p1 raise"})
    assert r.status_code == 400
    body = r.json()
    assert body["rule"] == "R9.2" and body["index"] == 1
    assert body["error"].startswith("R9.2: item 1 'p1 raise'"), body
    r = client.get("/api/search", params={"history": "dealer 1, p0 pass, p1 pass, p0 play Q"})
    assert r.status_code == 400 and r.json()["error"].count("R1.1") == 1, r.json()


def test_history_search_error_starts_with_its_rule(strategy):
    """Pass 2, item 9: the HistorySearchError message starts with its rule."""
    from vitou_ai.explore import HistorySearchError, grid_frame

    with pytest.raises(HistorySearchError) as e:
        grid_frame(strategy, "dealer 1, p1 raise")
    assert str(e.value).startswith("R9.2: item 1 'p1 raise'"), str(e.value)


def test_grid_frame_takes_scores(runs):
    """Pass 2, item 10: grid_frame() takes scores=(a, b)."""
    from vitou_ai.explore import grid_frame

    df = grid_frame(runs["a"], "dealer 1, p0 pass, p1 pass", scores=(5, 3))
    cols = [c for c in df.columns if c.startswith("p(")]
    for _, row in df[df["in_range"] == 1].iterrows():  # no row at 5:3: uniform
        xs = [row[c] for c in cols if row[c] == row[c]]
        assert max(xs) == pytest.approx(min(xs)), row


@needs_extra("explore")
def test_notebook_history_first_and_scores(runs):
    """Pass 2, items 5 and 10: a refused history starts no server; show() takes
    scores=(a, b)."""
    import inspect
    import threading
    import urllib.request

    from vitou_ai.explore import HistorySearchError, notebook, show

    assert "HistorySearchError" in inspect.getdoc(show)
    before = threading.active_count()
    with pytest.raises(HistorySearchError):
        show(runs["a"], history="dealer 9")
    assert notebook._SERVERS == [] and threading.active_count() == before
    frame = show(runs["a"], scores=(5, 3))
    try:
        with urllib.request.urlopen(frame.src.split("#")[0] + "api/info", timeout=20) as r:
            assert "scores 5:3" in json.loads(r.read())["game"]
    finally:
        for s in notebook._SERVERS:
            s.stop()
        notebook._SERVERS.clear()


def test_small_messages(runs, tmp_path):
    """Pass 2, item 13: --values-budget 0 says so; a favicon; a network file is named."""
    from vitou_ai.explore import ExploreError, load_strategy
    from vitou_ai.explore.views import node_view

    s = load_strategy(runs["a"], values_budget=0)
    note = node_view([s], s.parse_history("dealer 1"))["values_note"]
    assert "exact values off (--values-budget 0)" in note and "budget of 0" not in note
    page = (ROOT / "vitou_ai" / "explore" / "static" / "index.html").read_text()
    assert 'rel="icon" href="data:' in page  # the page the app serves at /
    import pyspiel

    import vitou_ai  # noqa: F401  (registers the game with OpenSpiel)
    from vitou_ai.bots.neural import NeuralPolicy
    from vitou_ai.openspiel.game import game_string

    params = VitouParams(**SMALL)
    size = pyspiel.load_game(game_string(params)).information_state_tensor_size()
    a = params.num_actions
    net = NeuralPolicy([("linear", np.zeros((a, size)), np.zeros(a))], "logits", params)
    net.save(tmp_path / "net.npz")
    with pytest.raises(ExploreError, match="networks cannot be explored") as e:
        load_strategy(tmp_path / "net.npz")
    assert "missing" not in str(e.value)


def test_docs_route_reference_and_labels():
    """Pass 2, items 8 and 12: the JSON routes, their parameters, and the benchmark's
    games named."""
    guide = (ROOT / "docs" / "guide" / "explore.md").read_text()
    routes = guide.split("## The JSON routes")[1].split("\n## ")[0]
    for word in ("/api/info", "/api/view?path=", "/api/search?history=", "/api/export.csv",
                 "/api/export.png", "separated by commas", "`which`", "`all`", "`range`",
                 "`bluffs`", "`hand`", "`raise`", "`reach`", "`value`", "`diff`"):
        assert word in routes, word
    assert "3-card hands, dealer 0" in guide and "123,595" in guide
    assert "the full `vitou_2p`\ntree (19.1 M" not in guide


@pytest.mark.parametrize("kwargs", [{"history": 5}, {"sort": 1}, {"filt": None}])
def test_grid_frame_refuses_a_non_string_argument_in_one_line(kwargs):
    """grid_frame(run, 5) used to end in an AttributeError inside the history parser; the
    arguments are checked before the run is read (no run folder needed here)."""
    from vitou_ai.explore.notebook import grid_frame

    with pytest.raises(TypeError, match=r"^(history|sort|filt) must be a string, got "):
        grid_frame("no/such/run", **kwargs)


def test_a_policy_file_in_the_current_folder_is_named_by_its_folder(runs, monkeypatch):
    """``explore policy.npz`` run inside the run's folder: the name is ``a/policy.npz``,
    not ``/policy.npz`` (the folder of a relative path is '.', whose name is empty)."""
    from vitou_ai.explore import load_strategy

    monkeypatch.chdir(runs["a"])
    assert load_strategy("policy.npz").name == "a/policy.npz"


def test_a_policy_with_no_rows_is_refused_saying_so(tmp_path):
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.model import ExploreError
    from vitou_ai.rules import layout as L

    path = tmp_path / "empty.npz"
    TabularPolicy(np.zeros((0, L.KEY_SIZE), np.int8), np.zeros((0, L.NUM_ACTIONS), np.float32),
                  name="e", params=VitouParams(**SMALL)).save(path)
    with pytest.raises(ExploreError, match="has no rows"):
        load_strategy(path)
