"""The RL environments (vitou_ai.envs): PettingZoo's api_test, Gymnasium's
check_env, seeded determinism, masks against the kernel and the reference
engine, refusal of illegal actions; every profile, the Truc / Put family
included (spaces of ``params.num_actions`` ids)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from tests.helpers import import_extra

gymnasium = import_extra("envs", "gymnasium")

import pyspiel  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from tests.reference.engine import RefGame  # noqa: E402
from vitou_ai.envs import ENV_ID, vitou_v0  # noqa: E402
from vitou_ai.envs.gym_env import VitouEnv  # noqa: E402
from vitou_ai.openspiel.game import game_string  # noqa: E402
from vitou_ai.rules import Game, IllegalActionError  # noqa: E402
from vitou_ai.rules import kernel as K  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.rules.params import ALL_PROFILES, VitouParams  # noqa: E402

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

# The family (docs/RULES_family.md): small match variants, a small deck, one-from-end scores.
FAMILY_CONFIGS = [
    dict(profile="truc_catalan", hand_size=2, dealer=-1),
    dict(profile="truc_catalan_2p", mode="match", target=4, max_deals=5,
         direction="counterclockwise"),
    dict(profile="truc_1912", mode="match", target=4, games=1, max_deals=6),
    dict(profile="trut", mode="match", max_deals=6),
    dict(profile="put", dealer=-1, scores=(4, 3)),
    dict(profile="put", mode="match", target=3, max_deals=6),
]
FAMILY_IDS = ["catalan-2cards", "catalan2p-match", "1912-match", "trut-match", "put-r6",
              "put-match"]


def _kernel_legal(table) -> list[int]:
    """The kernel's legal actions at the table's state (buffer wider than any profile's ids)."""
    buf = np.empty(64, np.int64)
    return buf[:K.legal_actions(table.p, table.a, buf)].tolist()


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


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_pettingzoo_api_test_every_profile(profile):
    api_test(vitou_v0.env(profile=profile), num_cycles=200)


@pytest.mark.parametrize("cfg", FAMILY_CONFIGS, ids=FAMILY_IDS)
def test_pettingzoo_api_test_family_variants(cfg):
    api_test(vitou_v0.env(**cfg), num_cycles=200)


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_spaces_are_sized_from_the_game(profile):
    params = VitouParams(profile=profile)
    aec = vitou_v0.env(profile=profile)
    gym = VitouEnv(profile=profile)
    n = params.num_actions
    assert n == (L.NUM_ACTIONS_PARTNERSHIP if params.partnership  # take, give, discard (P6)
                 else L.NUM_ACTIONS_WILLUGHBY if params.willughby  # see, fold (P7.4)
                 else L.NUM_ACTIONS_FAMILY if params.family else L.NUM_ACTIONS)
    assert len(aec.possible_agents) == params.players
    for space in [aec.action_space(a) for a in aec.possible_agents] + [gym.action_space]:
        assert space == gymnasium.spaces.Discrete(n)
    for obs_space in [aec.observation_space(a) for a in aec.possible_agents] + \
            [gym.observation_space]:
        assert obs_space["action_mask"].shape == (n,)
        size = pyspiel.load_game(game_string(params)).information_state_tensor_size()
        assert obs_space["observation"].shape == (size,)


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_masks_equal_kernel_legal_actions_every_profile(profile):
    """300 seeded random decisions each in vitou_v0 and Vitou-v0: the mask is exactly
    the kernel's legal actions (d8510d0: 22-wide masks hid the family's ids 22..30)."""
    env = vitou_v0.env(profile=profile)
    table = env.unwrapped.table
    rng = np.random.default_rng(11)
    env.reset(seed=11)
    decisions = 0
    while decisions < 300:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        legal = _kernel_legal(table)
        assert legal, "a decision without legal actions"
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal, (profile, agent)
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(legal)))
        decisions += 1

    genv = VitouEnv(profile=profile, opponents=["random"])
    obs, _ = genv.reset(seed=12)
    for _ in range(300):
        legal = _kernel_legal(genv.table)
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal, profile
        assert np.flatnonzero(genv.action_masks()).tolist() == legal
        obs, _, term, _, _ = genv.step(int(rng.choice(legal)))
        if term:
            obs, _ = genv.reset()


@pytest.mark.parametrize("cfg", FAMILY_CONFIGS, ids=FAMILY_IDS)
def test_masks_equal_kernel_legal_actions_family_variants(cfg):
    env = vitou_v0.env(**cfg)
    table = env.unwrapped.table
    act = _random_policy(np.random.default_rng(13))
    env.reset(seed=13)
    for _ in range(300):
        obs, _, term, trunc, _ = env.last()
        if not (term or trunc):
            assert np.flatnonzero(obs["action_mask"]).tolist() == _kernel_legal(table)
        env.step(None if term or trunc else act(obs))
        if not env.agents:
            env.reset()


def test_truc_1912_redeal_decision_is_masked():
    """F2.1: the first leader proposes a fresh deal (29) or keeps (30); d8510d0 gave
    it an all-zero mask, and the mask-sampling loop raised there."""
    env = vitou_v0.env(profile="truc_1912")
    table = env.unwrapped.table
    act = _random_policy(np.random.default_rng(5))
    env.reset(seed=5)
    reached = 0
    for _ in range(400):
        obs, _, term, trunc, _ = env.last()
        if not (term or trunc) and table.a[L.S_PHASE] == L.PH_REDEAL:
            assert np.flatnonzero(obs["action_mask"]).tolist() == [L.A_REDEAL, L.A_KEEP]
            reached += 1
        env.step(None if term or trunc else act(obs))
        if not env.agents:
            env.reset()
    assert reached >= 10
    genv = VitouEnv(profile="truc_1912", seat=0, dealer=3)  # seat 0 leads: it decides F2.1
    obs, _ = genv.reset(seed=5)
    assert genv.table.a[L.S_PHASE] == L.PH_REDEAL
    assert np.flatnonzero(obs["action_mask"]).tolist() == [L.A_REDEAL, L.A_KEEP]


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_readme_loop_runs_every_profile(profile):
    """The README's loop (``action_space(agent).sample(mask)``), seeded, to the end of
    several deals, rendering each step; and its Gymnasium twin."""
    env = vitou_v0.env(profile=profile, render_mode="ansi")
    for k, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(k)
    env.reset(seed=0)
    for _ in range(4):
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            assert env.render()
            action = None if termination or truncation else \
                env.action_space(agent).sample(obs["action_mask"])
            env.step(action)
        assert "over:" in env.render()
        env.reset()
    genv = gymnasium.make(ENV_ID, profile=profile, render_mode="ansi")
    genv.action_space.seed(0)
    obs, info = genv.reset(seed=0)
    for _ in range(4):
        terminated = False
        while not terminated:
            assert genv.render()
            obs, reward, terminated, truncated, info = genv.step(
                genv.action_space.sample(obs["action_mask"]))
            assert "illegal_action" not in info
        obs, info = genv.reset()


@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_observation_is_the_openspiel_tensor_every_profile(profile):
    """The jitted tensor is ``information_state_tensor`` in every profile (d8510d0:
    the family's action tokens were laid out 22 wide, the observer's 31)."""
    env = vitou_v0.env(profile=profile, **({"mode": "match", "max_deals": 4} if profile in (
        "trut", "put") else {}))
    game = pyspiel.load_game(game_string(env.unwrapped.params))
    act = _random_policy(np.random.default_rng(1))
    env.reset(seed=1)
    for _ in range(150):
        obs, _, term, trunc, _ = env.last()
        state = game.new_initial_state()
        for _, a in env.unwrapped.table.history:
            state.apply_action(a)
        seat = int(env.agent_selection.split("_")[1])
        np.testing.assert_array_equal(
            obs["observation"], np.asarray(state.information_state_tensor(seat), np.float32))
        env.step(None if term or trunc else act(obs))
        if not env.agents:
            env.reset()


def test_pettingzoo_seed_test():
    seed_test(lambda: vitou_v0.env(profile="vitou", signals=True, dealer=-1), num_cycles=200)


# check_env steps illegal actions on purpose (the default "terminate" warns), and warns that
# an unwrapped environment has no spec.
QUIET_ILLEGAL = pytest.mark.filterwarnings("ignore:.*illegal action ended")
QUIET_NO_SPEC = pytest.mark.filterwarnings("ignore:.*not having a spec")


@QUIET_ILLEGAL
@QUIET_NO_SPEC
def test_gymnasium_check_env_registered_default():
    """The registered environment on its default settings passes Gymnasium's checker,
    which steps actions sampled from the whole action space (d8510d0 raised)."""
    check_env(gymnasium.make(ENV_ID).unwrapped)


@QUIET_ILLEGAL
@QUIET_NO_SPEC
@pytest.mark.parametrize("profile", ALL_PROFILES)
def test_gymnasium_check_env_every_profile(profile):
    from vitou_ai.envs.selfplay import SelfPlayEnv

    check_env(gymnasium.make(ENV_ID, profile=profile).unwrapped)
    check_env(SelfPlayEnv(profile=profile))


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


def test_gym_illegal_action_terminates_by_default():
    """The default, as PettingZoo's TerminateIllegalWrapper: the episode ends, the
    reward is the game's worst return, info names the action; then reset() is needed."""
    from vitou_ai.envs.selfplay import SelfPlayEnv

    for profile, mode, worst in (("vitou_2p", "deal", -12.0), ("vitou", "deal", -21.0),
                                 ("put", "deal", -5.0), ("trut", "match", -1.0)):
        env = VitouEnv(profile=profile, mode=mode)
        assert env.illegal_action == "terminate" and env.illegal_reward == worst
        obs, _ = env.reset(seed=2)
        bad = _first_illegal(obs["action_mask"])
        with pytest.warns(UserWarning, match="illegal action ended the episode"):
            obs2, r, term, trunc, info = env.step(bad)
        assert term and not trunc and r == worst and info["illegal_move"]
        assert re.match(r"Vitou-v0, seat 0: .* is illegal \([A-Z]\d.*legal: ", info["illegal_action"])
        assert not obs2["action_mask"].any() and not env.action_masks().any()
        with pytest.raises(gymnasium.error.ResetNeeded):
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        env.reset(seed=3)
        with pytest.raises(IllegalActionError, match="not an action"):  # outside the space
            env.step(env.action_space.n)
        with pytest.raises(TypeError, match="integer id"):
            env.step("raise")
        env.step(int(np.flatnonzero(env.action_masks())[0]))  # still usable
        sp = SelfPlayEnv(profile=profile, mode=mode)
        sp.reset(seed=2)
        bad = _first_illegal(sp.action_masks().astype(np.int8))
        with pytest.warns(UserWarning, match="illegal action ended the episode"):
            _, r, term, _, info = sp.step(bad)
        assert term and r == worst and info["illegal_move"]
    env = VitouEnv(profile="vitou_2p", illegal_reward=-100)
    obs, _ = env.reset(seed=2)
    with pytest.warns(UserWarning):
        assert env.step(_first_illegal(obs["action_mask"]))[1] == -100.0


def test_aec_illegal_action_terminate_mode():
    env = vitou_v0.env(profile="truc_1912", illegal_action="terminate")
    env.reset(seed=4)
    agent = env.agent_selection
    obs, *_ = env.last()
    with pytest.warns(UserWarning, match="illegal action ended the game"):
        env.step(_first_illegal(obs["action_mask"]))
    rewards = {}
    for a in env.agent_iter():
        _, reward, term, _, info = env.last()
        assert term and not env.observe(a)["action_mask"].any()
        rewards[a] = reward
        if a == agent:
            assert info["illegal_move"] and "is illegal" in info["illegal_action"]
        env.step(None)
    assert rewards[agent] == -12.0 and sum(rewards.values()) == -12.0
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        vitou_v0.env(illegal_action="refuse")


def test_gym_neural_bots_of_the_family():
    from vitou_ai.bots.neural import NeuralPolicy

    params = VitouParams(profile="put")
    size = pyspiel.load_game(game_string(params)).information_state_tensor_size()
    # refused where it is made: a family network has one output per action id (31)
    with pytest.raises(ValueError, match="the network has 22 outputs, expected 31"):
        NeuralPolicy([("linear", np.zeros((L.NUM_ACTIONS, size)), np.zeros(L.NUM_ACTIONS))],
                     "logits", params)
    a = params.num_actions
    net = NeuralPolicy([("linear", np.zeros((a, size)), np.zeros(a))], "logits", params)
    env = VitouEnv(profile="put", opponents=[net])
    obs, info = env.reset(seed=4)
    for _ in range(200):
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if term:
            break
    assert term and "illegal_action" not in info


def test_gym_illegal_action_raise_and_refuse():
    for mode in ("raise", "refuse"):
        env = VitouEnv(profile="vitou_2p", opponents="counter", illegal_action=mode)
        assert env.illegal_action == mode
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
    with pytest.raises(ValueError, match=r"give 1 opponent \(played by every other seat\) or 3"):
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


def test_opponent_fallbacks_are_counted_in_info(tmp_path):
    """An opponent from a table missing half its rows played at random without a word;
    now info counts its decisions and those its fallback played (none for a full table)."""
    from vitou_ai.bots.tabular import TabularPolicy
    from vitou_ai.solvers.flat.tree import build_tree

    params = VitouParams(profile="vitou_2p", ranks=3, copies=2, hand_size=1)
    tree = build_tree(params)
    probs = np.full((tree.num_infosets, L.NUM_ACTIONS), 0.2, np.float32)
    TabularPolicy(tree.is_keys, probs, name="full", params=params).save(tmp_path / "full.npz")
    TabularPolicy(tree.is_keys[::2], probs[::2], name="half",
                  params=params).save(tmp_path / "half.npz")
    totals = {}
    for name in ("full", "half"):
        env = VitouEnv(profile="vitou_2p", ranks=3, copies=2, hand_size=1,
                       opponents=[str(tmp_path / f"{name}.npz")])
        decisions = fallbacks = 0
        for ep in range(30):
            obs, info = env.reset(seed=ep)
            done = False
            while not done:
                obs, _, done, _, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            assert 0 <= info["opponent_fallbacks"] <= info["opponent_decisions"]
            decisions += info["opponent_decisions"]
            fallbacks += info["opponent_fallbacks"]
        totals[name] = (decisions, fallbacks)
    assert totals["full"][0] > 0 and totals["full"][1] == 0
    assert totals["half"][1] > 0.1 * totals["half"][0]
