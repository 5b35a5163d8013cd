"""Benchmark: the strategy explorer's open times and memory.

1. The full ``vitou_2p`` game (32 cards, three-card hands: 19.1 M public nodes), read
   lazily: time to the root's view, then to each node's view along random walks from the
   root (``views.node_view``, what ``/api/view`` sends: children, their reach, the hand
   grid), and the peak RSS. The policy is the ``counter`` heuristic, whose exact action
   probabilities the explorer reads as it reads a table's (``bots.exact.policy_probs``),
   so the walk is the full game's without a solved policy file (solving takes 15 CPU
   minutes; ``experiments/solve_2p.py`` writes no ``policy.npz``).
2. A tabular policy file: load time and memory per row of ``policy.npz`` (trained here
   on ``vitou_2p`` with six ranks and three-card hands), for the scaling to the full
   game's 20.8 M information sets; and the setup of the exact values there (the whole
   public tree built, the policy replayed over its entries).

Writes ``results/bench_explore.json``.

    python benchmarks/bench_explore.py [--walks 20] [--no-table]
    python benchmarks/bench_explore.py --full-run RUN --only-full-run

3. With ``--full-run RUN``, a solved full-game run (``vitou-ai train --profile vitou_2p
   --hand-size 3 --dealer 0 --solver public-dcfr``, which writes the explorer's index at
   its end): the first open in a fresh process, imports included, and the node views.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _vmrss_mb() -> float:
    """The resident set now (Linux), MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _status_mb(field: str) -> float:
    """A field of /proc/self/status (Linux), MB: ``RssAnon`` is the process's own
    memory, ``RssFile`` the mapped files' pages it has read (clean page cache, which the
    kernel takes back under memory pressure)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _walk_times(s, walks: int, seed: int) -> tuple[list[float], list[int]]:
    """Node-view seconds along ``walks`` random walks from the root of strategy ``s``
    (each child drawn uniformly), and each walk's depth."""
    from vitou_ai.explore.views import node_view

    rng = np.random.default_rng(seed)
    times, depth = [], []
    for _ in range(walks):
        node = s.root
        while s.children(node):
            k = int(rng.integers(len(s.children(node))))
            t = time.perf_counter()
            node_view([s], node.path + (s.children(node)[k].action,))
            times.append(time.perf_counter() - t)
            node = s.child(node, k)
        depth.append(len(node.path))
    return times, depth


def lazy_full_game(walks: int, seed: int = 0) -> dict:
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import Strategy
    from vitou_ai.explore.views import node_view
    from vitou_ai.rules.params import VitouParams

    # compile on a small deal first (numba), outside the timing
    small = Strategy(named_bot("counter"), VitouParams(profile="vitou_2p", ranks=4, copies=2,
                                                        hand_size=1, dealer=-1), values_budget=0)
    node_view([small], small.parse_history("dealer 1, p0 pass, p1 pass"))
    t0 = time.perf_counter()
    s = Strategy(named_bot("counter"), VitouParams(profile="vitou_2p"), values_budget=0)
    node_view([s], ())
    root = time.perf_counter() - t0
    times, depth = _walk_times(s, walks, seed)
    return {"game": "vitou_2p full (8 ranks x 4 copies, 3-card hands), counter policy",
            "root_view_seconds_incl_setup": root, "node_views": len(times),
            "node_view_seconds_median": float(np.median(times)),
            "node_view_seconds_p95": float(np.percentile(times, 95)),
            "node_view_seconds_max": float(np.max(times)), "walk_depth_max": max(depth),
            "peak_rss_mb": _rss_mb(), "hands_per_seat": s.H}


def table_scaling(iterations: int = 30) -> dict:
    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.views import node_view
    from vitou_ai.rules.params import VitouParams
    from vitou_ai.solvers.public.cfr import PublicCFR
    from vitou_ai.solvers.public.export import to_tabular_policy

    params = VitouParams(profile="vitou_2p", ranks=6)  # 3-card hands, dealer 0 as the full game
    solver = PublicCFR(params, "dcfr")
    solver.iterate(iterations)
    pol = to_tabular_policy(solver.tree, solver.average_policy(), name="bench")
    nodes = solver.tree.num_nodes
    del solver
    with tempfile.TemporaryDirectory() as d:
        run = Path(d) / "run"
        run.mkdir()
        pol.save(run / "policy.npz")
        rows = len(pol)
        del pol
        (run / "run.json").write_text(json.dumps({"params": {"profile": "vitou_2p",
                                                              **params.knobs()}}))
        size = (run / "policy.npz").stat().st_size
        import gc

        gc.collect()
        rss0 = _vmrss_mb()
        t = time.perf_counter()
        s = load_strategy(run, values_budget=0, mapped=False)
        node_view([s], ())
        load = time.perf_counter() - t
        rss_loaded = _vmrss_mb()
        del s
        gc.collect()
        # the memory-mapped index: written once, then every open maps it
        t = time.perf_counter()
        load_strategy(run, values_budget=0, mapped=True)
        index_build = time.perf_counter() - t
        gc.collect()
        rss1 = _vmrss_mb()
        t = time.perf_counter()
        sm = load_strategy(run, values_budget=0, mapped=True)
        node_view([sm], ())
        mapped_root = time.perf_counter() - t
        times, _ = _walk_times(sm, 20, 1)
        rss_mapped = _vmrss_mb()
        # exact values: the whole public tree built, the policy over its entries
        t = time.perf_counter()
        sv = load_strategy(run, values_budget=10 * nodes, mapped=True)
        v = node_view([sv], ())
        values_setup = time.perf_counter() - t
        assert v["grids"][0]["values"]
        path = sv.parse_history("p1 pass, p0 pass")
        t = time.perf_counter()
        node_view([sv], path)
        values_node = time.perf_counter() - t
        rss_values = _vmrss_mb()
    full_rows = 20_758_688
    return {"game": "vitou_2p, 6 ranks x 4 copies, 3-card hands, dealer 0", "public_nodes": nodes,
            "values_setup_seconds": values_setup, "values_first_decision_seconds": values_node,
            "policy_rows": rows, "policy_file_bytes": size,
            "load_and_root_seconds": load, "seconds_per_row": load / rows,
            "rss_before_load_mb": rss0, "rss_with_policy_mb": rss_loaded,
            "mapped_index_build_seconds": index_build,
            "mapped_open_and_root_seconds": mapped_root,
            "mapped_node_views": len(times),
            "mapped_node_view_seconds_median": float(np.median(times)),
            "mapped_node_view_seconds_max": float(np.max(times)),
            "rss_before_mapped_mb": rss1, "rss_mapped_after_walks_mb": rss_mapped,
            "rss_with_values_mb": rss_values,
            "full_game_index_build_seconds_estimate": index_build / rows * 20_758_688,
            "full_game_rows": full_rows,
            "full_game_load_seconds_estimate": load / rows * full_rows}


FIRST_OPEN = """
import sys, time
t0 = time.perf_counter()
from vitou_ai.explore import load_strategy
from vitou_ai.explore.views import node_view
s = load_strategy(sys.argv[1], values_budget=0)
v = node_view([s], ())
print(time.perf_counter() - t0)
"""


def full_run(run: Path, walks: int, seed: int = 0) -> dict:
    """A solved full-game run of ``vitou-ai train`` (its ``policy.npz`` with the index the
    run wrote at its end): the first open in a fresh process, imports included (what a
    user waits for after ``vitou-ai explore RUN``), then node views along random walks."""
    import subprocess

    from vitou_ai.explore import load_strategy
    from vitou_ai.explore.mapped import _index_folder
    from vitou_ai.explore.views import node_view

    policy = run / "policy.npz"
    index = _index_folder(policy)
    had_index = (index / "index.json").is_file()
    fresh = []
    for i in range(4):  # the first one warms numba's cache (compiled after an edit), untimed
        r = subprocess.run([sys.executable, "-c", FIRST_OPEN, str(run)], capture_output=True,
                           text=True, check=True,
                           env={**__import__("os").environ,
                                "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
        if i:
            fresh.append(float(r.stdout.split()[0]))
    rss0 = _vmrss_mb()
    t = time.perf_counter()
    s = load_strategy(run, values_budget=0)
    node_view([s], ())
    in_process = time.perf_counter() - t
    times, _ = _walk_times(s, walks, seed)
    index_bytes = sum(f.stat().st_size for f in index.iterdir())
    return {"run": str(run), "rows": len(s.policy) if hasattr(s.policy, "__len__") else None,
            "policy_file_bytes": policy.stat().st_size,
            "index_written_by_train": had_index, "index_bytes": index_bytes,
            "first_open_root_seconds_fresh_process": fresh,
            "first_open_root_seconds_median": float(np.median(fresh)),
            "open_root_seconds_in_process": in_process, "node_views": len(times),
            "node_view_seconds_median": float(np.median(times)),
            "node_view_seconds_p95": float(np.percentile(times, 95)),
            "node_view_seconds_max": float(np.max(times)),
            "rss_before_open_mb": rss0, "rss_after_walks_mb": _vmrss_mb(),
            "rss_after_walks_anon_mb": _status_mb("RssAnon"),
            "rss_after_walks_file_mb": _status_mb("RssFile"),
            "note": "page cache warm (the run was just written or read)"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--walks", type=int, default=20)
    ap.add_argument("--no-table", action="store_true")
    ap.add_argument("--full-run", type=Path, default=None,
                    help="a full-game vitou_2p run folder of vitou-ai train --solver "
                    "public-dcfr: measure its first open (section full_game_solved)")
    ap.add_argument("--only-full-run", action="store_true",
                    help="with --full-run: measure only that, keeping the other sections of "
                    "--out as they are")
    ap.add_argument("--out", default="results/bench_explore.json")
    args = ap.parse_args()
    out_path = Path(args.out)
    out = {}
    if args.only_full_run:
        if args.full_run is None:
            ap.error("--only-full-run needs --full-run")
        if out_path.is_file():
            out = json.loads(out_path.read_text())
    else:
        out["lazy_full_game"] = lazy_full_game(args.walks)
        print(json.dumps(out, indent=1), flush=True)
        if not args.no_table:
            out["table"] = table_scaling()
            print(json.dumps(out["table"], indent=1), flush=True)
    if args.full_run is not None:
        out["full_game_solved"] = full_run(args.full_run, args.walks)
        out["full_game_solved"]["command"] = "benchmarks/bench_explore.py " + " ".join(
            sys.argv[1:])
        print(json.dumps(out["full_game_solved"], indent=1), flush=True)
    from vitou_ai.io import write_atomic

    write_atomic(out_path, (json.dumps(out, indent=1) + "\n").encode())


if __name__ == "__main__":
    main()
