import json
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import numpy as np
import walktsc

from vitou_ai.rules import VitouParams
from vitou_ai.solvers import public_kernels as PK
from vitou_ai.solvers import public_kernels_issue24 as PKX
from vitou_ai.solvers.public_cfr import PublicCFR, PublicPasses
from vitou_ai.solvers.public_tree import build_public_tree

ranks, hs, warm, reps = map(int, sys.argv[1:5])
tree = build_public_tree(VitouParams(profile="vitou_2p", ranks=ranks, copies=4, hand_size=hs))
s = PublicCFR(tree, "dcfr", 1.5, -1.0, 3.0, kernel="issue24", stored_policy=True); s.iterate(warm)
ps = PublicPasses(tree, 0, "issue24"); T = tree
def args(tp):
    return ((T.kind, T.player, T.first, T.nchild, T.prob, ps.util, T.actor_off, T.actor_len, T.entries,
             T.parent_slot, ps.forced, T.num_hands, T.pair_prob, T.counts, ps.joint, T.num_players, tp, PK.POLICY_GIVEN,
             PKX.UPDATE_CFR_SIGMA, reg, cum, sig, 1.0, 0.9, 0.5, 0.99, False, 0, ps.root_offs, ps.root_lens,
             ps.root_reach, ps.frontier, PK.STOP_IGNORE, ps.fr_offs, ps.fr_lens, ps.fr_reach, ps.fr_val,
             ps.s_node[0], ps.s_k[0], ps.s_off[0], ps.s_len[0], ps.s_rd[0], ps.s_vr[0],
             ps.s_reach[0], ps.s_val[0], ps.s_aux[0], ps.s_cnt[0], ps.s_sig[0], ps.s_q[0], ps.out))
reg, cum, sig = s.regrets.copy(), s.cum_policy.copy(), s._sigma.copy()
prof = np.zeros(32, np.int64)
walktsc.walk_tsc(prof, *args(0))
names = ["loop top/enter", "policy", "terminal prep (count, actor reach x returns)", "terminal matvec + f_q", "pop (values up)", "next child scan", "inline last card", "push frame", "traverser update"]
best = None
for r in range(reps):
    prof[:] = 0
    reg[:] = s.regrets; cum[:] = s.cum_policy; sig[:] = s._sigma
    t = time.process_time()
    for tp in (0, 1):
        walktsc.walk_tsc(prof, *args(tp))
    c = time.process_time() - t
    tot = prof[:9].sum()
    print(f"cpu {c:.3f} s, cycles {tot/1e9:.3f} G", json.dumps({names[i]: [round(100 * prof[i] / tot, 1), int(prof[16 + i])] for i in range(9)}))
