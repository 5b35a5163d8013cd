import json
import statistics
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import numba
import numpy as np
import walkprof

from vitou_ai.rules import VitouParams
from vitou_ai.solvers import public_kernels as PK
from vitou_ai.solvers.public_cfr import PublicCFR, PublicPasses
from vitou_ai.solvers.public_tree import build_public_tree

ranks, hs, warm, reps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
params = VitouParams(profile="vitou_2p", ranks=ranks, copies=4, hand_size=hs)
t = time.perf_counter(); tree = build_public_tree(params); print("build", time.perf_counter() - t, tree.num_nodes, tree.num_entries, tree.num_hands, flush=True)
s = PublicCFR(tree, "dcfr", 1.5, -1.0, 3.0)
t = time.perf_counter(); s.iterate(warm); print("warm", warm, time.perf_counter() - t, flush=True)
ps = PublicPasses(tree, 0)
T = tree
def args(tp, reg, cum):
    H = T.num_hands
    top = 0
    return ((T.kind, T.player, T.first, T.nchild, T.prob, T.util, T.actor_off, T.actor_len, T.entries,
             T.parent_slot, ps.forced, H, T.pair_prob, T.counts, ps.joint, T.num_players, tp, PK.POLICY_REGRET,
             PK.UPDATE_CFR, reg, cum, s._empty, 1.0, 0.9, 0.5, 0.99, False, 0, ps.root_offs, ps.root_lens,
             ps.root_reach, ps.frontier, PK.STOP_IGNORE, ps.fr_offs, ps.fr_lens, ps.fr_reach, ps.fr_val,
             ps.s_node[top], ps.s_k[top], ps.s_off[top], ps.s_len[top], ps.s_rd[top], ps.s_vr[top],
             ps.s_reach[top], ps.s_val[top], ps.s_aux[top], ps.s_cnt[top], ps.s_sig[top], ps.s_q[top], ps.out))
numba.set_num_threads(1)
prof = np.zeros(32, np.int64)
names = {0: "enter_chance", 1: "enter_decision", 2: "enter_terminal", 3: "enter_deal", 4: "mv_calls", 5: "mv_gather_len",
         6: "mv_macs", 7: "inline_calls", 8: "inline_gather_len", 9: "inline_macs", 10: "policy_entries_nonforced",
         11: "policy_entries_forced", 12: "frames_pushed", 13: "reach_copy_entries", 14: "tp_update_entries",
         15: "tp_update_nodes", 16: "mv_out_len", 17: "mv_at_terminal_nodes", 18: "mv_macs_at_terminal_nodes"}
reg, cum = s.regrets.copy(), s.cum_policy.copy()
for tp in (0, 1):
    walkprof.walk_prof(prof, 0, *args(tp, reg.copy(), cum.copy()))
counts = {names[i]: int(prof[i]) for i in names}
print(json.dumps(counts, indent=1), flush=True)
times = {k: [] for k in ("real", "prof0", "prof1", "prof2", "prof3")}
for r in range(reps):
    for k in times:
        t = time.perf_counter()
        for tp in (0, 1):
            a = args(tp, reg.copy() if False else reg, cum)
            if k == "real":
                PK.walk(*a)
            else:
                walkprof.walk_prof(prof, int(k[-1]), *a)
        times[k].append(time.perf_counter() - t)
        reg[:] = s.regrets; cum[:] = s.cum_policy
med = {k: statistics.median(v) for k, v in times.items()}
print(json.dumps({k: round(v, 4) for k, v in med.items()}))
print("fraction terminal MACs", (med["prof0"] - med["prof1"]) / med["prof0"], "inline MACs", (med["prof0"] - med["prof2"]) / med["prof0"], "both", (med["prof0"] - med["prof3"]) / med["prof0"])

@numba.njit(nogil=True)
def stream(kind, player, first, nchild, prob, util, aoff, alen, forced, ent, pslot, reg, cum):
    a = 0.0
    for i in range(kind.shape[0]):
        a += kind[i] + player[i] + first[i] + nchild[i] + prob[i] + util[i] + aoff[i] + alen[i] + forced[i]
    for e in range(ent.shape[0]):
        a += ent[e] + pslot[e] + reg[e] + cum[e]
    return a
@numba.njit(nogil=True)
def stream_nodes(kind, player, first, nchild, prob, util, aoff, alen, forced):
    a = 0.0
    for i in range(kind.shape[0]):
        a += kind[i] + player[i] + first[i] + nchild[i] + prob[i] + util[i] + aoff[i] + alen[i] + forced[i]
    return a
@numba.njit(nogil=True)
def stream_rw(reg, cum):
    for e in range(reg.shape[0]):
        reg[e] = reg[e] * 0.999
        cum[e] = cum[e] * 0.999
sa = (T.kind, T.player, T.first, T.nchild, T.prob, T.util, T.actor_off, T.actor_len, ps.forced, T.entries, T.parent_slot, reg, cum)
stream(*sa); stream_nodes(*sa[:9]); stream_rw(reg, cum)
st = {"stream_all_read": [], "stream_nodes_read": [], "stream_regcum_rw": []}
for r in range(reps):
    t = time.perf_counter(); stream(*sa); st["stream_all_read"].append(time.perf_counter() - t)
    t = time.perf_counter(); stream_nodes(*sa[:9]); st["stream_nodes_read"].append(time.perf_counter() - t)
    t = time.perf_counter(); stream_rw(reg, cum); st["stream_regcum_rw"].append(time.perf_counter() - t)
print(json.dumps({k: round(statistics.median(v), 4) for k, v in st.items()}))
print("dtypes", {k: str(getattr(T, k).dtype) for k in ("kind","player","first","nchild","prob","util","actor_off","actor_len","entries","parent_slot")})
