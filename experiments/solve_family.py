"""Solve a two-player game of the Truc / Put family (``put``, ``truc_catalan_2p``) with the
native full-width DCFR, on the deal's public tree (``--tree public``, the default: range
vectors, :mod:`vitou_ai.solvers.public.cfr`) or its flat tree (``--tree flat``), and report
its value, exploitability and (flat tree) equilibrium raise (put / truc) rates by hand
strength.

Deal mode at 0:0 (``docs/RULES_family.md`` G4: points per deal, capped at the target), the
dealer at seat ``--dealer``. The solver comes from the one solver interface
(:func:`vitou_ai.solvers.protocol.make_solver`, ``"dcfr"``) and runs in the solve loop shared
with ``solve_2p.py`` (``experiments/solve_common.py``). Writes to ``--out``:

- ``curve.csv``: iteration, solver seconds, wall seconds since the start, exploitability
  (points per deal), value for the non-dealer (the first leader);
- ``rates.csv``: for each situation (the first decisions of each player, the answer to a
  raise, Put's decision before trick 2) and each hand class (the best card of the hand),
  the probability of reaching it and the equilibrium frequency of each action there,
  weighted by the probability of reaching each of its information states;
- ``summary.json``: configuration, ``RULES_VERSION``, tree size, final figures, wall and
  solver seconds, peak RSS, command;
- ``checkpoint.npz`` (``--resume`` continues; written after the first evaluation, every
  ``--checkpoint-every`` wall seconds and at the end; ``--rates-only`` rewrites
  ``rates.csv`` from it).

The full games (the whole deck, three cards each, 0:0) write to
``results/solve_<profile>_full``:

    python experiments/solve_family.py --profile put --target 1e-4
    python experiments/solve_family.py --profile truc_catalan_2p --target 1e-4
    python experiments/solve_family.py --profile put --ranks 8 --tree flat
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from solve_common import ROOT, lock_out, peak_rss_mb, resume, solve, write_summary  # noqa: E402

from vitou_ai._numba import jit  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.rules.game import action_to_string  # noqa: E402
from vitou_ai.solvers.flat.tree import KIND_CHANCE, KIND_DECISION, build_tree  # noqa: E402
from vitou_ai.solvers.protocol import make_solver  # noqa: E402
from vitou_ai.solvers.public.tree import (  # noqa: E402
    build_public_tree,
    check_public_params,
    entry_dtype,
    enumerate_hands,
)


@jit
def reach_probabilities(kind, infoset, first, nchild, prob, policy):
    """Probability of reaching each node under ``policy`` for both players and chance
    (nodes are numbered parents first, so one forward pass suffices)."""
    n = kind.shape[0]
    reach = np.zeros(n)
    reach[0] = 1.0
    for node in range(n):
        r = reach[node]
        if r == 0.0:
            continue
        f = first[node]
        if kind[node] == KIND_CHANCE:
            for k in range(nchild[node]):
                reach[f + k] = r * prob[f + k]
        elif kind[node] == KIND_DECISION:
            i = infoset[node]
            for k in range(nchild[node]):
                reach[f + k] = r * policy[i, k]
    return reach


def situation(tree, i: int, dealer: int) -> str | None:
    """A name for the decision at information state ``i``, or None for the others."""
    key = tree.is_keys[i]
    p = int(tree.is_player[i])
    acts = [int(a) for a in tree.is_actions[i, : tree.is_nact[i]]]
    toks = [int(t) for t in key[L.K_TOK: L.K_TOK + key[L.K_NTOK]]]
    role = "dealer" if p == dealer else "non-dealer"
    plays = [t for t in toks if t < L.A_RAISE or L.A_PLAY_HI0 <= t < L.A_CONCEDE]
    if acts == [L.A_ACCEPT, L.A_REFUSE] or acts == [L.A_RAISE, L.A_ACCEPT, L.A_REFUSE]:
        return f"{role}: answer to a raise"
    if acts == [L.A_RAISE, L.A_CONCEDE]:
        return f"{role}: before trick 2 (P5.3)"
    if L.A_RAISE not in toks and not any(a in (L.A_ACCEPT, L.A_REFUSE) for a in acts):
        if len(plays) == 0:
            return f"{role}: first card turn, leading trick 1"
        if len(plays) == 1:
            return f"{role}: first card turn, after the lead"
    return None


def rate_table(tree, policy: np.ndarray, labels: tuple[str, ...], dealer: int) -> list[dict]:
    reach = reach_probabilities(tree.kind, tree.infoset, tree.first, tree.nchild, tree.prob,
                                policy)
    dec = np.flatnonzero(tree.kind == KIND_DECISION)
    mass = np.bincount(tree.infoset[dec], weights=reach[dec], minlength=tree.num_infosets)
    acc: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for i in range(tree.num_infosets):
        if mass[i] <= 0.0:
            continue
        name = situation(tree, i, dealer)
        if name is None:
            continue
        best = labels[int(tree.is_keys[i, L.K_HAND])]
        row = acc[(name, best)]
        row["reach"] += mass[i]
        for k in range(tree.is_nact[i]):
            a = action_to_string(int(tree.is_actions[i, k]), labels=labels)
            a = "play" if a.startswith("play") else a
            row[a] += mass[i] * policy[i, k]
    out = []
    order = {lab: j for j, lab in enumerate(labels)}
    for (name, best), row in sorted(acc.items(), key=lambda kv: (kv[0][0], order[kv[0][1]])):
        r = row["reach"]
        out.append({"situation": name, "best_card": best, "reach": r,
                    **{a: v / r for a, v in sorted(row.items()) if a != "reach"}})
    return out


# situations of the public tree's rate table, in the flat table's words (:func:`situation`)
_SITUATIONS = ("answer to a raise", "before trick 2 (P5.3)", "first card turn, leading trick 1",
               "first card turn, after the lead")


@jit
def _public_rates(kind, player, first, nchild, action, prob, aoff, alen, ent, pslot, hands,
                  pair_p, policy, dealer, na, acc, reach):
    """The public tree's rate table (2 players): for each decision node in a situation
    (:data:`_SITUATIONS`, from the node's actions and the public actions above it) and each
    hand ``h`` of the actor, the probability of reaching (node, ``h``) under ``policy``
    (chance x both players' reach x the exact pair probability ``pair_p``) is added to
    ``reach[role, situation, best rank of h]`` and, times the policy, to
    ``acc[role, situation, best rank, action id]``; role 0 the dealer, 1 the other."""
    N = kind.shape[0]
    H = hands.shape[0]
    roff = np.zeros((N, 2), np.int64)
    rlen = np.ones((N, 2), np.int64)
    cprob = np.ones(N)
    nplays = np.zeros(N, np.int64)
    raised = np.zeros(N, np.bool_)
    R = np.ones(ent.shape[0])  # reach of the entry's hand for the seat whose range it is in
    acts = np.zeros(na, np.bool_)
    for d in range(N):
        m = nchild[d]
        f = first[d]
        k0 = kind[d]
        if k0 == 2:  # terminal
            continue
        p = player[d]
        for k in range(m):
            c = f + k
            roff[c, 0] = roff[d, 0]
            roff[c, 1] = roff[d, 1]
            rlen[c, 0] = rlen[d, 0]
            rlen[c, 1] = rlen[d, 1]
            cprob[c] = cprob[d]
            nplays[c] = nplays[d]
            raised[c] = raised[d]
            if k0 == 3:  # the deal: every hand
                for s in range(2):
                    roff[c, s] = 1
                    rlen[c, s] = H
            elif k0 == 0:
                cprob[c] = cprob[d] * prob[c]
            else:
                a = action[c]
                roff[c, p] = aoff[c]
                rlen[c, p] = alen[c]
                if a < L.A_RAISE or L.A_PLAY_HI0 <= a < L.A_CONCEDE:
                    nplays[c] += 1
                if a == L.A_RAISE:
                    raised[c] = True
                for j in range(alen[c]):
                    e = aoff[c] + j
                    R[e] = R[roff[d, p] + pslot[e]] * policy[e]
        if k0 != 1:
            continue
        for a in range(na):
            acts[a] = False
        for k in range(m):
            acts[action[f + k]] = True
        nverbs = 0
        nplay = 0
        for a in range(na):
            if acts[a]:
                if a < L.A_RAISE or L.A_PLAY_HI0 <= a < L.A_CONCEDE:
                    nplay += 1
                else:
                    nverbs += 1
        sit = -1
        if (nplay == 0 and acts[L.A_ACCEPT] and acts[L.A_REFUSE]
                and nverbs == 2 + (1 if acts[L.A_RAISE] else 0)):
            sit = 0
        elif nplay == 0 and acts[L.A_RAISE] and acts[L.A_CONCEDE] and nverbs == 2:
            sit = 1
        elif not raised[d] and not acts[L.A_ACCEPT] and not acts[L.A_REFUSE]:
            if nplays[d] == 0:
                sit = 2
            elif nplays[d] == 1:
                sit = 3
        if sit < 0:
            continue
        role = 0 if p == dealer else 1
        o = 1 - p
        for i in range(rlen[d, p]):
            h = ent[roff[d, p] + i]
            r = R[roff[d, p] + i]
            if r == 0.0:
                continue
            w = 0.0
            for j in range(rlen[d, o]):
                w += pair_p[h, ent[roff[d, o] + j]] * R[roff[d, o] + j]
            mass = cprob[d] * r * w
            if mass <= 0.0:
                continue
            b = hands[h, 0]
            reach[role, sit, b] += mass
            for k in range(m):
                c = f + k
                for j in range(alen[c]):  # the hand's entry in this child, if legal
                    if pslot[aoff[c] + j] == i:
                        acc[role, sit, b, action[c]] += mass * policy[aoff[c] + j]
                        break


def public_rate_table(tree, policy: np.ndarray, labels: tuple[str, ...],
                      dealer: int) -> list[dict]:
    """:func:`rate_table` on the public tree (two players), ``policy`` over its entries."""
    na = tree.params.num_actions
    acc = np.zeros((2, len(_SITUATIONS), tree.params.ranks, na))
    reach = np.zeros((2, len(_SITUATIONS), tree.params.ranks))
    _public_rates(tree.kind, tree.player, tree.first, tree.nchild, tree.action, tree.prob,
                  tree.actor_off, tree.actor_len, tree.entries, tree.parent_slot, tree.hands,
                  tree.pair_prob, policy, dealer, na, acc, reach)
    out = []
    for role, rname in ((0, "dealer"), (1, "non-dealer")):
        for si, sname in enumerate(_SITUATIONS):
            for b in range(tree.params.ranks):
                r = reach[role, si, b]
                if r <= 0.0:
                    continue
                row: dict[str, float] = defaultdict(float)
                for a in np.flatnonzero(acc[role, si, b] > 0.0):
                    name = action_to_string(int(a), labels=labels)
                    row["play" if name.startswith("play") else name] += acc[role, si, b, a] / r
                out.append({"situation": f"{rname}: {sname}", "best_card": labels[b],
                            "reach": r, **dict(sorted(row.items()))})
    order = {lab: j for j, lab in enumerate(labels)}
    return sorted(out, key=lambda r: (r["situation"], order[r["best_card"]]))


def write_rates(path: Path, table: list[dict]) -> None:
    """``rates.csv``: one row per (situation, best card), the action frequencies."""
    cols = ["situation", "best_card", "reach"] + sorted({k for r in table for k in r} - {
        "situation", "best_card", "reach"})
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")  # quotes a situation or label with a comma
    w.writerow(cols)
    w.writerows([f"{r[c]:.4f}" if isinstance(r.get(c), float) else str(r.get(c, ""))
                 for c in cols] for r in table)
    write_atomic(path, buf.getvalue().encode())


# DCFR's discounts as experiments/solve_2p.py (Brown & Sandholm 2019 use 1.5, 0, 2; beta -1
# and gamma 3 did better on the full vitou_2p game)
DISCOUNTS = {"alpha": 1.5, "beta": -1.0, "gamma": 3.0}


def warm_up(params: VitouParams, tree_kind: str) -> float:
    """Compile the solver's kernels on a small variant (hand indices of the full game's
    width), so that the full game's solver seconds hold no compilation. Returns seconds."""
    t = time.perf_counter()
    small = params.replace(ranks=4, copies=2, hand_size=2)
    if tree_kind == "public":
        tree = build_public_tree(small)
        dt = entry_dtype(enumerate_hands(params).shape[0])
        tree = dataclasses.replace(tree, entries=tree.entries.astype(dt),
                                   parent_slot=tree.parent_slot.astype(dt))
        solver = make_solver("public-dcfr", small, tree)
    else:
        solver = make_solver("dcfr", small, build_tree(small))
    solver.iterate(2)
    solver.exact_evaluation()
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    wall0 = time.perf_counter()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="put", choices=("put", "truc_catalan_2p"))
    ap.add_argument("--tree", choices=("public", "flat"), default=None,
                    help="the public tree with range vectors (default where the game allows "
                         "it) or the flat game tree")
    ap.add_argument("--ranks", type=int, default=None, help="top N ranks (default: the whole deck)")
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--hand-size", type=int, default=3)
    ap.add_argument("--dealer", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--time", type=float, default=None, help="stop after this many solver seconds")
    ap.add_argument("--target", type=float, default=1e-3,
                    help="stop at this exploitability (points per deal)")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--checkpoint-every", type=float, default=600.0,
                    help="wall seconds between checkpoints (also after the first evaluation "
                         "and at the end)")
    for k, v in DISCOUNTS.items():
        ap.add_argument(f"--{k}", type=float, default=v, help=f"DCFR's {k} (default {v})")
    ap.add_argument("--max-nodes", type=int, default=60_000_000)
    ap.add_argument("--out", default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--rates-only", action="store_true",
                    help="read --out's checkpoint and write its rates.csv only (no iterations; "
                         "curve and summary untouched)")
    args = ap.parse_args(argv)
    try:
        params = VitouParams(profile=args.profile, ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size, dealer=args.dealer)
    except ValueError as e:
        print(f"solve_family: {e}", file=sys.stderr)
        return 2
    if args.tree is None:
        try:
            check_public_params(params)
            args.tree = "public"
        except ValueError:
            args.tree = "flat"
    elif args.tree == "public":
        try:
            check_public_params(params)
        except ValueError as e:
            print(f"solve_family: --tree public: {e}", file=sys.stderr)
            return 2
    full = (params.ranks == VitouParams(profile=args.profile).ranks
            and params.copies == 4 and params.hand_size == 3)
    name = f"solve_{args.profile}_full" if full else f"solve_{args.profile}_r{params.ranks}"
    if not full and args.tree == "public":
        name += "_public"
    out = Path(args.out or ROOT / "results" / name)
    out.mkdir(parents=True, exist_ok=True)
    if not lock_out(out, "solve_family"):
        return 2
    discounts = {k: getattr(args, k) for k in DISCOUNTS}
    compile_s = warm_up(params, args.tree)
    t0 = time.perf_counter()
    if args.tree == "public":
        tree = build_public_tree(params, max_nodes=max(args.max_nodes, 500_000_000))
        build_s = time.perf_counter() - t0
        print(f"{args.profile} ranks {params.ranks}: public tree {tree.num_nodes:,} nodes, "
              f"{tree.num_entries:,} entries, {tree.num_hands} hands, "
              f"{tree.nbytes / 2**20:,.0f} MiB, built in {build_s:.0f} s", flush=True)
        solver = make_solver("public-dcfr", params, tree, **discounts)
    else:
        tree = build_tree(params, max_nodes=args.max_nodes)
        build_s = time.perf_counter() - t0
        print(f"{args.profile} ranks {params.ranks}: {tree.num_nodes:,} nodes, "
              f"{tree.num_infosets:,} infosets, built in {build_s:.0f} s", flush=True)
        solver = make_solver("dcfr", params, tree, **discounts)
    rows = resume(solver, out) if args.resume or args.rates_only else []
    if rows is None:
        return 2
    if args.rates_only:
        if solver.iterations_done == 0:
            print(f"solve_family: --rates-only: no checkpoint in {out}", file=sys.stderr)
            return 2
        avg = solver.solver.average_policy()
        table = (rate_table(tree, avg, params.rank_labels, params.dealer) if args.tree == "flat"
                 else public_rate_table(tree, avg, params.rank_labels, params.dealer))
        write_rates(out / "rates.csv", table)
        print(f"rates.csv of iteration {solver.iterations_done} written to {out}")
        return 0
    leader = (params.dealer + 1) % 2

    def record(ev: dict) -> dict:
        expl = ev["exploitability"]
        value = ev["game_value"] if leader == 0 else -ev["game_value"]  # game_value: seat 0
        wall = time.perf_counter() - wall0
        print(f"it {solver.iterations_done:>5}  {solver.solver_seconds():>7.0f} s  wall {wall:>7.0f} s"
              f"  exploitability {expl:.6f}  value(non-dealer) {value:+.5f}", flush=True)
        return {"iteration": solver.iterations_done, "seconds": round(solver.solver_seconds(), 2),
                "wall_seconds": round(wall, 1), "exploitability": expl,
                "value_nondealer": value}

    solve(solver, rows, record, out=out, iterations=args.iterations,
          eval_every=args.eval_every, target=args.target, time_limit=args.time,
          checkpoint_every=args.checkpoint_every)
    avg = solver.solver.average_policy()  # flat: rows = information states; public: entries
    if args.tree == "flat":
        table = rate_table(tree, avg, params.rank_labels, params.dealer)
    else:
        table = public_rate_table(tree, avg, params.rank_labels, params.dealer)
    write_rates(out / "rates.csv", table)
    summary = {
        "rules_version": RULES_VERSION, "params": {**params.knobs(), "profile": params.profile,
                                                   "ranks": params.ranks, "dealer": params.dealer},
        "tree": args.tree, "variant": "dcfr", "discounts": discounts, "nodes": tree.num_nodes,
        "infosets": getattr(tree, "num_infosets", None),
        "entries": getattr(tree, "num_entries", None),
        "compile_seconds": round(compile_s, 1), "tree_build_seconds": round(build_s, 1),
        "iterations": solver.iterations_done,
        "solver_seconds": round(solver.solver_seconds(), 1),
        "wall_seconds": round(time.perf_counter() - wall0, 1),
        "exploitability": float(rows[-1]["exploitability"]),
        "value_nondealer": float(rows[-1]["value_nondealer"]),
        "peak_rss_mb": round(peak_rss_mb()),
        "command": "python experiments/solve_family.py " + " ".join(sys.argv[1:]),
    }
    write_summary(out, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
