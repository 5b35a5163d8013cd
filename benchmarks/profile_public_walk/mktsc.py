import inspect
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2]))
from vitou_ai.solvers import public_kernels_issue24 as PKX

src = inspect.getsource(PKX.walk_issue24.py_func).replace("@jit\n", "").replace("def walk_issue24(", "def walk_tsc(prof, ", 1)
def rep(old, new, count=1):
    global src
    n = src.count(old); assert n == count, (old, n)
    src = src.replace(old, new)
def mark(sec, ind):
    sp = " " * ind
    return (f"{sp}_t = rdtsc()\n{sp}prof[_sec] += _t - _last\n{sp}_last = _t\n{sp}_sec = {sec}\n{sp}prof[16 + {sec}] += 1\n")
rep("    k = 0\n    while True:\n", "    k = 0\n    _last = rdtsc()\n    _sec = 0\n    while True:\n" + mark(0, 8))
rep("""            if d == 0:
                for i in range(f_len[0, tp]):
                    out[i] = f_val[0, i]
                return visited""", mark(4, 12) + """            if d == 0:
                for i in range(f_len[0, tp]):
                    out[i] = f_val[0, i]
                _t = rdtsc()
                prof[_sec] += _t - _last
                return visited""")
rep("                    # the actor's policy on each entry", mark(1, 20) + "                    # the actor's policy on each entry")
rep("                    nterm = 0\n", mark(2, 20) + "                    nterm = 0\n")
rep("            if mv_out >= 0:\n", mark(3, 12) + "            if mv_out >= 0:\n")
rep("        # the next child to enter", mark(5, 8) + "        # the next child to enter")
rep("""                if forced[c] != FORCED_LAST or n != 2 or stop_mode != 0 or q_ == p:
                    break
""", """                if forced[c] != FORCED_LAST or n != 2 or stop_mode != 0 or q_ == p:
                    break
""" + mark(6, 16))
rep("""                        f_q[d, base + i] = acc
                k += 1
""", """                        f_q[d, base + i] = acc
                k += 1
""" + mark(5, 16))
rep("        if k < m:\n            f_k[d] = k\n", "        if k < m:\n" + mark(7, 12) + "            f_k[d] = k\n")
rep("""        if k_ == KIND_DECISION and player[node] == tp:
            # the traverser's values from its children's""", mark(8, 8) + """        if k_ == KIND_DECISION and player[node] == tp:
            # the traverser's values from its children's""")
header = '''import numba
import numpy as np
from tsc import rdtsc
from vitou_ai.solvers.cfr_kernels import RM_TOLERANCE
from vitou_ai.solvers.public_tree import KIND_CHANCE, KIND_DEAL, KIND_DECISION, KIND_TERMINAL
from vitou_ai.solvers.public_kernels import FORCED_LAST, _frontier_index, _terminal_value_n
'''
open(str(__import__("pathlib").Path(__file__).resolve().parent / "walktsc.py"), "w").write(header + "\n@numba.njit(nogil=True)\n" + src)
print("ok")
