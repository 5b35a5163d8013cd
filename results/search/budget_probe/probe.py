import sys, time
sys.path.insert(0, '/work/wt-safe')
import numpy as np
from vitou_ai import VitouParams
from vitou_ai.rules import kernel as K, layout as L
from vitou_ai.bots.named import parse_bot
from vitou_ai.bots.policy import choose_action, pack_policies, scratch
from vitou_ai.solvers.public.subgame import build_subgame, SubgameTooLarge, _deal_tables, root_ranges
from vitou_ai.solvers.public import subgame as SG
from vitou_ai.eval.search_match import deal_hands
P = VitouParams(profile="vitou_2p")
pa = P.to_array()
bot = parse_bot("counter"); pack = pack_policies([bot])
legal, keybuf, iwork, stream = scratch(); stream[0] = np.uint64(7)
rng = np.random.default_rng(1)
hands_t, counts, _ = _deal_tables(P)
print("H", hands_t.shape)
for deal in range(int(sys.argv[1])):
    st = np.zeros(L.STATE_SIZE, np.int32); K.init_state(pa, st)
    hands = deal_hands(P, rng)
    nd = 0
    while not K.is_terminal(st):
        if K.is_chance(st):
            K.apply_deal(pa, st, hands); continue
        if int(st[L.S_NDEALT]) >= 6 and st[L.S_PHASE] != L.PH_BLIND:
            t0 = time.perf_counter()
            try:
                sub = build_subgame(P, st, 200_000); n = sub.num_nodes
            except SubgameTooLarge:
                n = -1
            t1 = time.perf_counter() - t0
            rr = root_ranges(P, st, counts)
            res = [deal, nd, [len(r) for r in rr], n, round(t1, 3)]
            for k in map(int, sys.argv[2:]):
                t0 = time.perf_counter()
                m = SG.subgame_lower_bound(P, st, 200_000, k)
                res += [k, m, round(time.perf_counter() - t0, 4)]
            print(res, flush=True)
            nd += 1
        seat = int(K.current_player(pa, st))
        nl = K.legal_actions(pa, st, legal)
        a = int(choose_action(pack, 0, pa, st, seat, stream, legal, nl, keybuf, iwork))
        K.apply_action(pa, st, a)
