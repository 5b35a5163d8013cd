"""The RL environments (vitou_ai.envs): PettingZoo's api_test, Gymnasium's
check_env, seeded determinism, masks against the kernel and the reference
engine, refusal of illegal actions."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

import pyspiel  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from tests.reference.engine import RefGame  # noqa: E402
from vitou_ai.envs import ENV_ID, vitou_v0  # noqa: E402
from vitou_ai.envs.gym_env import VitouEnv  # noqa: E402
from vitou_ai.openspiel.game import game_string  # noqa: E402
from vitou_ai.rules import Game, IllegalActionError  # noqa: E402

# PettingZoo warns for any Dict observation space (its classic card games get the same).
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")

# Every profile, both modes, signals, one-from-end scores (R6.1, R6.2, R9.3), a drawn dealer.
CONFIGS = [
    dict(profile="vitou"),
    dict(profile="vitou", signals=True, dealer=-1, scores=(20, 5)),
    dict(profile="vitou", scores=(20, 20), early_end="trick"),
    dict(profile="vitou_cason", mode="match", ranks=4, copies=2, hand_size=2, max_deals=5),
    dict(profile="vitou_2p", dealer=-1),
    dict(profile="vitou_2p", mode="match", scores=(10, 11)),
]
IDS = ["vitou", "signals-r6.1", "r6.2-trick", "cason-match-small", "2p", "2p-match"]


def _random_policy(rng: np.random.Generator):
    def act(obs):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))
    return act


def _play(env, seed: int, act_seed: int, steps: int, between=None):
    """(agent, observation bytes, mask bytes, reward, termination) at each of ``steps``
    AEC steps, with seeded random legal actions."""
    env.reset(seed=seed)
    act = _random_policy(np.random.default_rng(act_seed))
    out = []
    for _ in range(steps):
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward,
                    term))
        if between is not None:
            between()
        env.step(None if term or trunc else act(obs))
        if not env.agents:
            env.reset()
    return out


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(cfg):
    api_test(vitou_v0.env(**cfg), num_cycles=200)


def test_pettingzoo_seed_test():
    seed_test(lambda: vitou_v0.env(profile="vitou", signals=True, dealer=-1), num_cycles=200)


@pytest.mark.parametrize("cfg", [CONFIGS[1], CONFIGS[5]], ids=[IDS[1], IDS[5]])
def test_gymnasium_check_env(cfg):
    opponents = ["counter"] if cfg["profile"] == "vitou_2p" else ["counter", "bluffer", "random"]
    env = gymnasium.make(ENV_ID, opponents=opponents, illegal_action="refuse", **cfg)
    check_env(env.unwrapped)


def test_seeded_determinism_ignores_other_random_streams():
    def noise():
        np.random.random()
        random.random()
        np.random.default_rng().random()

    a = _play(vitou_v0.env(profile="vitou", signals=True, dealer=-1), 7, 1, 600)
    b = _play(vitou_v0.env(profile="vitou", signals=True, dealer=-1), 7, 1, 600, between=noise)
    c = _play(vitou_v0.env(profile="vitou", signals=True, dealer=-1), 8, 1, 600)
    assert a == b
    assert a != c  # another seed deals other cards


def test_gym_seeded_determinism():
    def run(seed):
        env = VitouEnv(profile="vitou", opponents=["counter", "bluffer", "cautious"], dealer=-1)
        rng = np.random.default_rng(3)
        obs, _ = env.reset(seed=seed)
        out = []
        for _ in range(300):
            a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, r, term, _, _ = env.step(a)
            out.append((a, r, term, obs["observation"].tobytes()))
            if term:
                obs, _ = env.reset()
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_masks_equal_kernel_and_reference_legal_actions_10000_steps():
    """Masks at 10,000 random decisions, against the kernel (the checked
    rules.Game) and the independent reference engine, each replaying the
    environment's history (chance outcomes included) on its own state."""
    checked, quota = 0, -(-10_000 // len(CONFIGS))
    for k, cfg in enumerate(CONFIGS):
        env = vitou_v0.env(**cfg)
        table = env.unwrapped.table
        act = _random_policy(np.random.default_rng(k))
        env.reset(seed=100 + k)
        while checked < (k + 1) * quota:
            game, ref = Game(**cfg), RefGame(**cfg)
            state, rstate, done = game.new_initial_state(), ref.new_initial_state(), 0
            while env.agents:
                for _, a in table.history[done:]:
                    state.apply_action(a)
                    rstate.apply_action(a)
                done = len(table.history)
                agent = env.agent_selection
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    assert state.is_terminal() and rstate.is_terminal()
                    assert not obs["action_mask"].any()
                    env.step(None)
                    continue
                seat = int(agent.split("_")[1])
                assert seat == state.current_player() == rstate.current_player()
                legal = np.flatnonzero(obs["action_mask"]).tolist()
                assert legal == state.legal_actions() == sorted(rstate.legal_actions())
                for other in env.possible_agents:
                    if other != agent:
                        assert not env.observe(other)["action_mask"].any()
                env.step(act(obs))
                checked += 1
            env.reset()
    assert checked >= 10_000


def test_observation_is_the_openspiel_information_state_tensor():
    cfg = dict(profile="vitou", signals=True, dealer=-1, scores=(20, 5))
    env = vitou_v0.env(**cfg)
    game = pyspiel.load_game(game_string(env.unwrapped.params))
    act = _random_policy(np.random.default_rng(0))
    for seed in range(5):
        env.reset(seed=seed)
        while env.agents:
            obs, _, term, trunc, _ = env.last()
            state = game.new_initial_state()
            for _, a in env.unwrapped.table.history:
                state.apply_action(a)
            seat = int(env.agent_selection.split("_")[1])
            np.testing.assert_array_equal(
                obs["observation"], np.asarray(state.information_state_tensor(seat), np.float32))
            env.step(None if term or trunc else act(obs))


def _first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def test_illegal_action_refused_and_nothing_lost():
    cfg = dict(profile="vitou", signals=True, dealer=-1)
    reference = _play(vitou_v0.env(**cfg), 3, 9, 200)

    env = vitou_v0.env(**cfg)
    env.reset(seed=3)
    act = _random_policy(np.random.default_rng(9))
    out, refused = [], 0
    for _ in range(200):
        agent = env.agent_selection
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward,
                    term))
        if not (term or trunc):
            history = list(env.unwrapped.table.history)
            bad = _first_illegal(obs["action_mask"])
            with pytest.raises(IllegalActionError, match=rf"{agent}: .* is illegal \(R.*legal: "):
                env.step(bad)
            with pytest.raises(IllegalActionError, match="not an action"):
                env.step(99)
            with pytest.raises(TypeError, match="integer id"):
                env.step("raise")
            refused += 3
            assert env.agent_selection == agent
            assert env.unwrapped.table.history == history
            after = env.last()
            assert after[0]["observation"].tobytes() == out[-1][1]
            assert after[1] == reward
        env.step(None if term or trunc else act(obs))
        if not env.agents:
            env.reset()
    assert refused > 100
    assert out == reference  # the refused actions changed nothing


def test_gym_illegal_action_raise_and_refuse():
    for mode in ("raise", "refuse"):
        env = VitouEnv(profile="vitou_2p", opponents="counter", illegal_action=mode)
        obs, _ = env.reset(seed=1)
        bad = _first_illegal(obs["action_mask"])
        if mode == "raise":
            with pytest.raises(IllegalActionError, match=r"Vitou-v0, seat 0: .* is illegal"):
                env.step(bad)
        else:
            obs2, r, term, trunc, info = env.step(bad)
            assert "is illegal" in info["illegal_action"] and r == 0.0 and not term
            np.testing.assert_array_equal(obs2["observation"], obs["observation"])
        good = int(np.flatnonzero(obs["action_mask"])[0])
        env.step(good)  # still usable


def test_render_ansi_and_bad_arguments():
    env = vitou_v0.env(profile="vitou_2p", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seat 0" in text and "legal:" in text
    with pytest.raises(ValueError, match="signals are a four-player knob"):
        vitou_v0.env(profile="vitou_2p", signals=True)
    with pytest.raises(ValueError, match="render_mode"):
        vitou_v0.env(render_mode="human")
    with pytest.raises(ValueError, match="give 1 or 3 opponents"):
        VitouEnv(profile="vitou", opponents=["counter", "random"])
    with pytest.raises(ValueError, match="unknown bot"):
        VitouEnv(profile="vitou_2p", opponents=["nobody"])


def test_gym_rewards_are_points_per_deal_and_match_results():
    env = VitouEnv(profile="vitou_2p", opponents="random", dealer=-1)
    obs, _ = env.reset(seed=0)
    rewards = []
    while len(rewards) < 200:
        obs, r, term, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term:
            rewards.append(r)
            assert r == info["points"][0] - info["points"][1]  # seat 0 is team 0 (R8.1)
            obs, _ = env.reset()
    assert any(r != 0 for r in rewards)
    env = VitouEnv(profile="vitou_2p", opponents="random", mode="match", target=3)
    obs, _ = env.reset(seed=0)
    while True:
        obs, r, term, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if term:
            assert r in (-1.0, 0.0, 1.0)
            break


def test_jitted_tensor_matches_the_observer_pieces():
    """The jitted tensor builder puts each key field where the observer's named
    pieces (``observer.dict``) say it is."""
    from vitou_ai.rules import layout as L

    for cfg in (CONFIGS[1], CONFIGS[3]):
        env = vitou_v0.env(**cfg)
        table = env.unwrapped.table
        obs = table.observer
        act = _random_policy(np.random.default_rng(4))
        env.reset(seed=4)
        for _ in range(300):
            seat = int(env.agent_selection.split("_")[1])
            t = table.infostate_tensor(seat)
            key = np.empty(L.KEY_SIZE, np.int8)
            from vitou_ai.rules.observe import infostate_key
            infostate_key(table.p, table.a, seat, key)
            obs.tensor[:] = t
            d = obs.dict
            assert np.flatnonzero(d["player"]).tolist() == [key[L.K_PLAYER]]
            assert np.flatnonzero(d["score0"]).tolist() == [key[L.K_SCORE0]]
            hand = [int(np.flatnonzero(row)[0]) for row in d["hand"] if row.any()]
            assert hand == [int(x) for x in key[L.K_HAND:L.K_HAND + len(d["hand"])] if x >= 0]
            toks = [int(np.flatnonzero(row)[0]) for row in d["tokens"] if row.any()]
            assert toks == key[L.K_TOK:L.K_TOK + key[L.K_NTOK]].tolist()
            if "deals" in d:
                assert d["deals"][0] == table.a[L.S_DEALS]
            obs_, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else act(obs_))
            if not env.agents:
                env.reset()


def test_selfplay_env_rewards_are_the_learners():
    from vitou_ai.envs.selfplay import SelfPlayEnv

    env = SelfPlayEnv(profile="vitou", hand_size=2, dealer=-1)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    seats, finished = set(), 0
    while finished < 40:
        assert obs.shape == env.observation_space.shape
        mask = env.action_masks()
        obs, r, term, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term:
            table = env.aec.table
            assert r == table.returns()[info["seat"]]
            seats.add(info["seat"])
            finished += 1
            obs, info = env.reset()
    assert seats == {0, 1, 2, 3}
