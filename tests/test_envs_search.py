"""The environments with ``search`` bots at the other seats (``Vitou-v0``, ``SelfPlayEnv``).

The env hands the bot the deal's start and the kernel actions since, as the Python
runner does (:func:`vitou_ai.eval.search_match.play_deal`); these tests check those
arguments at every decision, the episodes to the end, seeded repeats, and the refusals.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import import_extra

gymnasium = import_extra("envs", "gymnasium")

import vitou_ai.envs  # noqa: E402,F401  (registers Vitou-v0)
from vitou_ai import VitouParams  # noqa: E402
from vitou_ai.bots.named import parse_bot  # noqa: E402
from vitou_ai.rules import kernel as K  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402

SMALL = {"ranks": 4, "copies": 2, "hand_size": 2}  # test_search.py's TINY / TINY4 decks
# iters=20 under a budget far above what 20 iterations of these subgames take, numba's
# compilation on a cold cache included (10-15 s for a first search; a 5 s budget made the
# first episode differ on a fresh clone): the cap, not the clock, ends each search, so a
# seeded episode repeats exactly
FIXED = "search:counter,budget=120,iters=20"
#: four players: the default (safe=auto) declines to search there; these tests exercise
#: the (unsafe, partner held to the blueprint) search
FIXED4 = FIXED + ",safe=none"


def _recording(bot, table=None):
    """Wrap ``bot.act`` to keep its arguments (copies), the action it returned and the
    table's history then (``KernelTable.history``)."""
    calls = []
    act = bot.act

    def recorded(params, start, actions, state, rng):
        a = act(params, start, actions, state, rng)
        history = None if table is None else list(table.history)
        calls.append((params, start.copy(), list(actions), state.copy(), a, history))
        return a

    bot.act = recorded
    return calls


def _episode(env, seed):
    """One episode, the learner taking its lowest legal id (a card where it may: long
    deals); (kernel history, reward)."""
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        a = int(np.flatnonzero(obs["action_mask"])[0])
        obs, reward, done, _, _ = env.step(a)
    return list(env.unwrapped.table.history), reward


def _check_calls(calls, game: VitouParams):
    """Each search decision got what ``play_deal`` gives: deal-mode params at the state's
    scores and dealer, ``state`` = ``start`` after ``actions``, and in deal mode ``start``
    the state right after the deal as ``play_deal`` makes it (the kernel's ``init_state``,
    the blind window's actions, ``apply_deal`` of the dealt hands); before the deal (R9.2),
    no actions. Returns (decisions after the deal, those whose ``start`` was compared with
    that reference)."""
    dealt = compared = 0
    for params, start, actions, state, _, history in calls:
        assert params.mode == "deal" and params.profile == game.profile
        assert params.dealer == state[L.S_DEALER]
        assert params.scores == (state[L.S_SCORE0], state[L.S_SCORE1])
        pa = params.to_array()
        if state[L.S_NDEALT] < params.players * params.hand_size:  # the blind window
            assert actions == [] and (start == state).all()
            continue
        dealt += 1
        st = start.copy()
        for a in actions:
            K.apply_action(pa, st, a)
        np.testing.assert_array_equal(st, state)
        if game.mode != "deal":  # the match's counters are not the deal's
            continue
        ref = np.zeros(L.STATE_SIZE, np.int32)
        K.init_state(pa, ref)
        for is_chance, a in history:  # the blind window (R9.2), up to the first card
            if is_chance and a < L.C_DEALER0:
                break
            if not is_chance:
                K.apply_action(pa, ref, a)
        h = params.hand_size
        hands = np.array([[start[L.S_HAND + s * L.MAX_HAND + i] for i in range(h)]
                          for s in range(params.players)], np.int64)
        K.apply_deal(pa, ref, hands)
        np.testing.assert_array_equal(ref, start)
        compared += 1
    return dealt, compared


@pytest.mark.parametrize("kw, spec", [
    ({"profile": "vitou_2p", **SMALL}, FIXED),
    ({"profile": "vitou", **SMALL}, FIXED4),
    ({"profile": "vitou_2p", **SMALL, "mode": "match", "target": 5}, FIXED),
    # R6.1 (a team at target - 1 sees its hands): those deals fall back on the blueprint
    ({"profile": "vitou", **SMALL, "mode": "match", "target": 5}, FIXED4),
    ({"profile": "vitou_2p"}, "search:counter,budget=0.05"),  # the real deck
])
def test_search_opponent_plays_episodes_to_the_end(kw, spec):
    """Episodes end with a search bot at every other seat; it searched some decisions,
    each from the arguments ``play_deal`` would give it."""
    bot = parse_bot(spec)
    env = gymnasium.make("vitou_ai/Vitou-v0", opponents=[bot], **kw)
    calls = _recording(bot, env.unwrapped.table)
    game = env.unwrapped.params
    for seed in range(4):
        history, reward = _episode(env, seed)
        assert env.unwrapped.table.is_terminal() and history
        assert reward == env.unwrapped.table.returns()[0]
    assert len(bot.decisions) == len(calls) > 0
    assert any(d["searched"] for d in bot.decisions), [d["reason"] for d in bot.decisions]
    dealt, compared = _check_calls(calls, game)
    assert dealt > 0 and (compared > 0 or game.mode == "match")
    if game.players == 2 and game.mode == "deal":
        assert any(not d["searched"] and "blind" in d["reason"] for d in bot.decisions)


def test_search_and_simulator_bots_mixed():
    """Four players: a search bot at one seat, simulator bots at the others."""
    bot = parse_bot(FIXED4)
    env = gymnasium.make("vitou_ai/Vitou-v0", profile="vitou", seat=1,
                         opponents=["counter", bot, "random"], **SMALL)
    for seed in range(3):
        _episode(env, seed)
    assert bot.decisions and any(d["searched"] for d in bot.decisions)


@pytest.mark.parametrize("kw", [
    {"profile": "vitou_2p", **SMALL},
    {"profile": "vitou", **SMALL},
    {"profile": "vitou_2p", **SMALL, "mode": "match", "target": 5},
])
def test_seeded_reset_repeats_the_episode(kw):
    """``reset(seed=s)`` repeats the episode (cards, the search bot's draws) after other
    episodes and other random draws in between; another seed plays another."""
    bot = parse_bot(FIXED4 if kw["profile"] == "vitou" else FIXED)
    env = gymnasium.make("vitou_ai/Vitou-v0", opponents=[bot], **kw)
    runs = {}
    for seed in (5, 6, 5, 7, 5):
        np.random.default_rng(seed).random(3)
        np.random.random(7)  # the global stream: not the env's
        runs.setdefault(seed, []).append(_episode(env, seed))
    assert all(r == runs[5][0] for r in runs[5])
    assert runs[5][0][0] != runs[6][0][0] or runs[5][0][0] != runs[7][0][0]
    assert any(d["searched"] for d in bot.decisions)


def test_search_bot_draws_from_its_seeded_stream():
    """With the deal fixed by the seed, the search bot's stochastic choices follow the
    env's seed: its rng argument is a numpy Generator, one per episode."""
    bot = parse_bot(FIXED4)
    calls = []
    act = bot.act

    def recorded(params, start, actions, state, rng):
        calls.append(rng)
        return act(params, start, actions, state, rng)

    bot.act = recorded
    env = gymnasium.make("vitou_ai/Vitou-v0", profile="vitou", opponents=[bot], **SMALL)
    _episode(env, 1)
    first = {id(r) for r in calls}
    _episode(env, 1)
    assert all(isinstance(r, np.random.Generator) for r in calls)
    assert len(first) == 1 and {id(r) for r in calls} - first  # a new stream per reset


@pytest.mark.parametrize("kw, spec, words", [
    ({"profile": "vitou", **SMALL, "signals": True}, FIXED, "signal"),
    ({"profile": "vitou", **SMALL}, "search:counter,budget=0.05,safe=resolve",
     "safe=resolve is for two"),
    ({"profile": "truc_1912"}, FIXED, "F2.3"),  # a fresh deal: a second private hand
])
def test_search_that_does_not_fit_refused_in_one_line(kw, spec, words):
    with pytest.raises(ValueError) as e:
        gymnasium.make("vitou_ai/Vitou-v0", opponents=[spec], **kw)
    msg = str(e.value)
    assert msg.startswith("Vitou-v0: ") and "\n" not in msg and words in msg, msg
    assert "search:counter" in msg


def test_search_blueprint_for_another_game_refused():
    """A tabular blueprint trained for another variant (``test_search.py``'s file)."""
    from pathlib import Path

    tab = Path(__file__).resolve().parents[1] / "results" / "baselines_2p" / "dcfr.npz"
    with pytest.raises(ValueError) as e:
        gymnasium.make("vitou_ai/Vitou-v0", profile="vitou_2p", opponents=[f"search:{tab}"],
                       **SMALL)
    assert str(e.value).startswith("Vitou-v0: ") and "\n" not in str(e.value)


def test_selfplay_with_a_search_opponent():
    """``SelfPlayEnv`` takes a search bot for the other seats: episodes end, it searched,
    a seeded reset repeats the episode; one that does not fit is refused in one line."""
    from vitou_ai.envs.selfplay import SelfPlayEnv

    bot = parse_bot(FIXED4)
    env = SelfPlayEnv(profile="vitou", opponent=bot, **SMALL)

    def episode(seed):
        env.reset(seed=seed)
        done = False
        while not done:
            _, reward, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        return list(env.aec.table.history), reward

    runs = [episode(3), episode(4), episode(3)]
    assert runs[0] == runs[2]
    assert any(d["searched"] for d in bot.decisions)
    for bad in (parse_bot("search:counter,safe=maxmargin"), "search:counter,safe=maxmargin",
                "search:counter,budget=0", "counter"):
        with pytest.raises(ValueError) as e:
            env.set_opponent(bad)
        assert str(e.value).startswith("SelfPlayEnv: ") and "\n" not in str(e.value)
    env.set_opponent(FIXED)  # a spec string, parsed
    assert env.opponent.kind == "search"
    env.reset(seed=3)


def test_lbr_refuses_search_with_the_reason():
    """LBR keeps refusing a search bot: its rollouts would search at every decision."""
    from vitou_ai.eval.lbr import local_best_response

    params = VitouParams(profile="vitou_2p", **SMALL)
    with pytest.raises(ValueError) as e:
        local_best_response(parse_bot(FIXED), params, deals=2, samples=1)
    assert "rollout" in str(e.value) and "\n" not in str(e.value)


def test_deal_tracking_is_opt_in():
    """``KernelTable`` keeps the deal's start only when asked (``Vitou-v0`` asks when a
    search bot plays); ``search_action`` refuses a table that does not."""
    from vitou_ai.envs.core import KernelTable, search_action

    env = gymnasium.make("vitou_ai/Vitou-v0", profile="vitou", opponents=["counter"], **SMALL)
    env.reset(seed=0)
    table = env.unwrapped.table
    assert not table.track_deal and table.deal_start is None
    with pytest.raises(ValueError, match="track_deal=True"):
        search_action(table, parse_bot(FIXED), np.random.default_rng(0))
    table = KernelTable(VitouParams(profile="vitou", **SMALL), track_deal=True)
    table.seed(1)
    table.new_game()
    assert table.deal_start is not None and table.deal_actions == []
