"""Generate a counting/ablation copy of public_kernels.walk."""
import inspect
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from vitou_ai.solvers import public_kernels as PK

src = inspect.getsource(PK.walk.py_func)
src = src.replace("@jit\n", "")
src = src.replace("def walk(", "def walk_prof(prof, skip, ", 1)
def rep(old, new, count=1):
    global src
    n = src.count(old)
    assert n == count, (old, n)
    src = src.replace(old, new)
# nodes entered by kind
rep("        if entering:\n            visited += 1\n",
    "        if entering:\n            visited += 1\n            prof[k_] += 1\n")
# terminal matvec, 2 seats
rep("""                    for i in range(lt):
                        hi = ent[ot + i]
                        acc = 0.0
                        for j in range(nnz):""",
"""                    prof[4] += 1
                    prof[5] += f_len[d, o]
                    prof[6] += nnz * lt
                    prof[16] += lt
                    if k_ == KIND_TERMINAL:
                        prof[17] += 1
                        prof[18] += nnz * lt
                    if skip & 1:
                        nnz = 0
                    for i in range(lt):
                        hi = ent[ot + i]
                        acc = 0.0
                        for j in range(nnz):""")
# inline forced last, q == tp
rep("""                    vr = f_vr[d]
                    for kk in range(mc):
                        cc = fc + kk
                        u = sign * util[cc]""",
"""                    prof[7] += 1
                    prof[8] += alen[c]
                    prof[9] += nnz * (aoff[fc + mc - 1] + alen[fc + mc - 1] - aoff[fc])
                    if skip & 2:
                        nnz = 0
                    vr = f_vr[d]
                    for kk in range(mc):
                        cc = fc + kk
                        u = sign * util[cc]""")
rep("""                    base = aoff[c] - E0
                    for i in range(alen[c]):
                        hi = ent[aoff[c] + i]""",
"""                    prof[7] += 1
                    prof[8] += aoff[fc + mc - 1] + alen[fc + mc - 1] - aoff[fc]
                    prof[9] += nnz * alen[c]
                    if skip & 2:
                        nnz = 0
                    base = aoff[c] - E0
                    for i in range(alen[c]):
                        hi = ent[aoff[c] + i]""")
# policy at decisions
rep("""                    lp = f_len[d, p]
                    if forced[node]:""",
"""                    lp = f_len[d, p]
                    prof[10 + (1 if forced[node] else 0)] += E1 - E0
                    if forced[node]:""")
# frame pushes
rep("""            d = nd
            entering = True
            continue""",
"""            prof[12] += 1
            if k_ == KIND_DECISION:
                prof[13] += alen[c]
            d = nd
            entering = True
            continue""")
rep("""            for i in range(lt):
                f_aux[d, i] = 0.0
                f_cnt[d, i] = 0
            if forced[node]:""",
"""            prof[14] += E1 - E0
            prof[15] += 1
            for i in range(lt):
                f_aux[d, i] = 0.0
                f_cnt[d, i] = 0
            if forced[node]:""")
header = '''import numba
import numpy as np
from vitou_ai._numba import jit
from vitou_ai.solvers.cfr_kernels import RM_TOLERANCE
from vitou_ai.solvers.public_tree import KIND_CHANCE, KIND_DEAL, KIND_DECISION, KIND_TERMINAL
from vitou_ai.solvers.public_kernels import FORCED_LAST, _frontier_index, _terminal_value_n
'''
open(str(__import__("pathlib").Path(__file__).resolve().parent / "walkprof.py"), "w").write(header + "\n@numba.njit(nogil=True)\n" + src)
print("ok")
