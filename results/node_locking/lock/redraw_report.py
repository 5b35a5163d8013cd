"""Re-draw a lock run's report figure from the three exact reports (blueprint, locked
blueprint vs best response, re-solve), keeping memory low: one policy at a time, each
report's table cut to the rows with reach.

    python results/node_locking/lock/redraw_report.py runs/full0 runs/full0-lock OUT
"""
import gc
import sys
import time
from pathlib import Path

import vitou_ai.eval.report as R
from vitou_ai.bots.tabular import TabularPolicy
from vitou_ai.solvers.public.export import bot_policy
from vitou_ai.training import locking as LK

blueprint, lock, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
out.mkdir(parents=True, exist_ok=False)
t0 = time.perf_counter()
r = LK.load_public_run(blueprint)
print(f"tree read {time.perf_counter() - t0:.0f} s", flush=True)
reports = {}
for name, f in (("blueprint", None), ("exploit", lock / "exploit" / "policy.npz"),
                ("resolved", lock / "policy.npz")):
    t = time.perf_counter()
    p = r.policy if f is None else bot_policy(r.tree, TabularPolicy.load(f))
    rep = R.strategy_report(r.tree, p)
    rep.table = rep.table[rep.table["reach"] > 0].reset_index(drop=True)
    reports[name] = rep
    del p
    gc.collect()
    print(f"{name}: report {time.perf_counter() - t:.0f} s, {len(rep.table):,} rows with reach",
          flush=True)
LK._write_reports(out, reports, "blueprint / locked blueprint vs best response / re-solved")
print(f"total {time.perf_counter() - t0:.0f} s", flush=True)
