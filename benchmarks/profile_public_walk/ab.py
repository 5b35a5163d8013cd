"""A/B of PublicCFR kernels: CPU seconds per iteration, 1 numba thread, interleaved."""
import json
import statistics
import sys
import time

import numba
import numpy as np

from vitou_ai.rules import VitouParams
from vitou_ai.solvers.public_cfr import PublicCFR
from vitou_ai.solvers.public_tree import build_public_tree

ranks, hs, its, reps, th = map(int, sys.argv[1:6])
kernels = sys.argv[6].split(",")
tree = build_public_tree(VitouParams(profile="vitou_2p", ranks=ranks, copies=4, hand_size=hs))
numba.set_num_threads(th)
# kernels: main, issue24 (int8 returns), issue24s (and the stored policy)
sol = {k: PublicCFR(tree, "dcfr", 1.5, -1.0, 3.0, kernel=k.removesuffix("s"),
                    stored_policy=k == "issue24s") for k in kernels}
for s in sol.values(): s.iterate(3)
cpu = {k: [] for k in kernels}; wall = {k: [] for k in kernels}
for r in range(reps):
    for k, s in sol.items():
        c, w = time.process_time(), time.perf_counter()
        s.iterate(its)
        cpu[k].append((time.process_time() - c) / its); wall[k].append((time.perf_counter() - w) / its)
m = {k: (round(statistics.median(cpu[k]), 4), round(statistics.median(wall[k]), 4)) for k in kernels}
print(json.dumps(cpu))
print(json.dumps(m), "ratio cpu ref/k:", {k: round(m[kernels[0]][0] / m[k][0], 3) for k in kernels})
if len(kernels) > 1:
    a, b = sol[kernels[0]], sol[kernels[1]]
    print("equal regrets", np.array_equal(a.regrets, b.regrets), np.array_equal(a.cum_policy, b.cum_policy))
