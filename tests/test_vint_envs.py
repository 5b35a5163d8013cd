"""Vint's RL environments (vitou_ai.envs.vint): PettingZoo's api_test, Gymnasium's
check_env, masks and rewards against the kernel and ``python_vint`` replays, no hidden
card in any observation, seeded determinism, refusal of bad input and illegal actions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.helpers import import_extra

gymnasium = import_extra("envs", "gymnasium")

import pyspiel  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from vitou_ai.envs import VINT_ENV_ID, vint_v0  # noqa: E402
from vitou_ai.envs.vint import INFOSTATE_SIZE, OBS_PIECES, OBS_SIZE, VintEnv, obs_pieces  # noqa: E402
from vitou_ai.vint import VintParams, VintRuleError  # noqa: E402
from vitou_ai.vint import kernel as K  # noqa: E402
from vitou_ai.vint import layout as L  # noqa: E402
from vitou_ai.vint.openspiel_game import utility_bound  # noqa: E402

# PettingZoo warns for any Dict observation space (its classic card games get the same).
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")
# check_env steps illegal actions on purpose (the default "terminate" warns), and warns
# about an env without a spec when given the unwrapped env.
QUIET = [pytest.mark.filterwarnings("ignore:.*illegal action ended"),
         pytest.mark.filterwarnings("ignore:.*not having a spec")]

CONFIGS = [
    dict(),
    dict(dealer="random", short_auction=True, scoring="foster", reward_scale=0.01),
    dict(dealer=2, slam_small=500, slam_grand=0, illegal_action="terminate"),
]
IDS = ["default", "random-dealer-short-foster-scaled", "dealer2-slams-terminate"]


def _kernel_mask(a: np.ndarray) -> np.ndarray:
    buf = np.empty(52, np.int64)
    m = np.zeros(L.NUM_ACTIONS, np.int8)
    m[buf[:K.legal_actions(a, buf)]] = 1
    return m


def _policy(rng: np.random.Generator, pass_prob: float):
    """Random legal actions; in the auction, pass with ``pass_prob`` (thrown-in hands)."""
    def act(mask):
        legal = np.flatnonzero(mask)
        if mask[L.PASS] and rng.random() < pass_prob:
            return L.PASS
        return int(rng.choice(legal))
    return act


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(cfg):
    api_test(vint_v0.env(**cfg), num_cycles=300)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_aec_masks_and_rewards_equal_kernel_and_python_vint(cfg):
    """Every decision: the mask is the kernel's and python_vint's legal actions, the
    tensor starts with python_vint's information state; every episode ends with the
    returns of python_vint on the same deal and actions (times reward_scale)."""
    env = vint_v0.env(**cfg)
    raw = env.unwrapped
    scale = cfg.get("reward_scale", 1.0)
    decisions, ends = 0, set()
    for ep, pass_prob in enumerate((-1.0, 0.99, 0.5, -1.0)):
        env.reset(seed=100 + ep)
        act = _policy(np.random.default_rng(ep), pass_prob)
        game = pyspiel.load_game(raw.table.game_string())
        state = game.new_initial_state()
        for c in raw.table.chance_outcomes():
            state.apply_action(c)
        got = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            assert obs["observation"].shape == (OBS_SIZE,)
            if term or trunc:
                got[agent] = reward
                env.step(None)
                continue
            seat = int(agent.split("_")[1])
            assert state.current_player() == seat
            mask = obs["action_mask"]
            assert np.array_equal(mask, _kernel_mask(raw.table.a))
            assert np.flatnonzero(mask).tolist() == state.legal_actions()
            np.testing.assert_array_equal(obs["observation"][:INFOSTATE_SIZE],
                                          state.information_state_tensor(seat))
            for other in raw.possible_agents:  # nobody else may act
                if other != agent:
                    assert not raw.observe(other)["action_mask"].any()
            a = act(mask)
            state.apply_action(a)
            env.step(a)
            decisions += 1
        assert state.is_terminal()
        ends.add(raw.table.state().end())
        want = [x * scale for x in state.returns()]
        assert [got[f"player_{i}"] for i in range(4)] == pytest.approx(want)
    assert decisions >= 150
    if not cfg.get("short_auction"):
        assert ends == {"played", "thrown_in"}


def test_observation_pieces_follow_the_play():
    """The derived pieces: held cards, cards by seat, the current trick, the tricks."""
    env = vint_v0.env()
    raw = env.unwrapped
    env.reset(seed=7)
    act = _policy(np.random.default_rng(7), -1.0)
    for _ in range(60):
        obs, *_ = env.last()
        env.step(act(obs["action_mask"]))
    t = raw.table
    assert int(t.a[L.S_PHASE]) == L.PH_PLAY
    for seat in range(4):
        x = t.observation(seat)
        d = obs_pieces(x)
        assert np.array_equal(np.flatnonzero(d["hand"]),
                              [c for c in range(52) if int(t.a[L.S_ORIG + seat]) >> c & 1])
        assert d["player"][seat] == 1 and d["play"].sum() == len(t.plays)
        assert np.array_equal(np.flatnonzero(d["held"]),
                              [c for c in range(52) if int(t.a[L.S_HAND + seat]) >> c & 1])
        for s, c in t.plays:
            assert d["played_by"][(s - seat) % 4, c] == 1
        assert d["played_by"].sum() == len(t.plays)
        assert d["trick"].sum() == int(t.a[L.S_NIN])
        assert d["phase"][1] == 1 and d["to_act"][(t.player - seat) % 4] == 1
        assert x.max() == 1.0 and x.min() == 0.0
    assert [n for n, _ in OBS_PIECES][:6] == ["player", "dealer", "hand", "opening_passes",
                                              "bids", "play"]
    assert (INFOSTATE_SIZE, OBS_SIZE) == (3403, 3958)


def _swap_hidden(hands: list[int], seen_by: int, unplayed: int, rng: random.Random,
                 same_suit: bool) -> list[int]:
    """The deal with cards swapped among the three seats ``seen_by`` does not see (cards
    not yet played; of one suit each time if ``same_suit``, so every past play stays legal)."""
    hands = list(hands)
    others = [s for s in range(4) if s != seen_by]
    swaps = 0
    for _ in range(200):
        s1, s2 = rng.sample(others, 2)
        c1 = rng.choice([c for c in range(52) if (hands[s1] & unplayed) >> c & 1] or [-1])
        pool = [c for c in range(52) if (hands[s2] & unplayed) >> c & 1
                and (not same_suit or c // 13 == c1 // 13)]
        if c1 < 0 or not pool:
            continue
        c2 = rng.choice(pool)
        hands[s1] ^= (1 << c1) | (1 << c2)
        hands[s2] ^= (1 << c1) | (1 << c2)
        swaps += 1
    assert swaps >= 3
    return hands


@pytest.mark.parametrize("cards,same_suit", [(0, False), (14, True)], ids=["auction", "play"])
def test_observation_ignores_hidden_cards(cards, same_suit):
    """Two deals differing only in cards another seat holds unseen give the same
    observation and mask, at every step of the same action sequence."""
    env = vint_v0.env()
    raw = env.unwrapped
    env.reset(seed=11)
    hands = [int(raw.table.a[L.S_ORIG + s]) for s in range(4)]
    act = _policy(np.random.default_rng(11), 0.6)
    actions = []
    # up to 25 calls in the auction, or up to ``cards`` cards into the play
    while len(raw.table.plays) < cards if cards else len(actions) < 25:
        obs, *_ = env.last()
        actions.append(act(obs["action_mask"]))
        env.step(actions[-1])
    unplayed = sum(int(raw.table.a[L.S_HAND + s]) for s in range(4))
    for seat in range(4):
        other = _swap_hidden(hands, seat, unplayed, random.Random(seat), same_suit)
        assert other != hands and other[seat] == hands[seat]
        envs = [vint_v0.env(), vint_v0.env()]
        for e, h in zip(envs, (hands, other), strict=True):
            e.reset(options={"hands": h, "dealer": 0})
        agent = f"player_{seat}"
        for a in [*actions, None]:
            o = [e.unwrapped.observe(agent) for e in envs]
            assert np.array_equal(o[0]["observation"], o[1]["observation"])
            assert np.array_equal(o[0]["action_mask"], o[1]["action_mask"])
            if a is not None:
                for e in envs:
                    e.step(a)
    # ... and the seat's own cards do show.
    mine = _swap_hidden(hands, 1, (1 << 52) - 1, random.Random(9), False)
    assert mine[0] != hands[0]
    envs = [vint_v0.env(), vint_v0.env()]
    for e, h in zip(envs, (hands, mine), strict=True):
        e.reset(options={"hands": h, "dealer": 0})
    assert not np.array_equal(*(e.unwrapped.observe("player_0")["observation"] for e in envs))


def _aec_trace(seed: int, noise: bool, **cfg):
    env = vint_v0.env(**cfg)
    env.reset(seed=seed)
    act = _policy(np.random.default_rng(seed), 0.2)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        if noise:  # other consumers of the global streams change nothing
            np.random.random(3)
            random.random()
        env.step(None if term or trunc else act(obs["action_mask"]))
    return out


def test_aec_seeded_determinism():
    a = _aec_trace(5, False, dealer="random")
    assert a == _aec_trace(5, True, dealer="random")
    assert a != _aec_trace(6, False, dealer="random")
    # reset() without a seed continues the seeded stream
    e1, e2 = vint_v0.env(), vint_v0.env()
    for e in (e1, e2):
        e.reset(seed=3)
        e.reset()
    assert np.array_equal(e1.unwrapped.table.a, e2.unwrapped.table.a)


def _gym_trace(env, seed: int, noise: bool):
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = [obs["observation"].tobytes()]
    while True:
        if noise:
            np.random.random(3)
            random.random()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(
            info["action_mask"]))))
        out.append((obs["observation"].tobytes(), reward, term))
        if term or trunc:
            return out, tuple(env.unwrapped.table.hist)


def test_gym_seeded_determinism():
    env = gymnasium.make(VINT_ENV_ID, seat=1, dealer="random")
    a = _gym_trace(env, 4, False)
    assert a == _gym_trace(env, 4, True)
    assert a == _gym_trace(gymnasium.make(VINT_ENV_ID, seat=1, dealer="random"), 4, True)
    assert a != _gym_trace(env, 5, False)


@pytest.mark.parametrize("seat", [0, 3])
def test_gym_rewards_and_masks_equal_python_vint(seat):
    """The learner's mask is the kernel's legal actions; the reward at the end is the
    learner's return of python_vint over the same deal and actions (bots' included)."""
    env = VintEnv(seat=seat, reward_scale=0.5)
    for ep in range(3):
        obs, info = env.reset(seed=ep)
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        rng = np.random.default_rng(ep)
        while True:
            mask = obs["action_mask"]
            assert env.table.player == seat
            assert np.array_equal(mask, _kernel_mask(env.table.a))
            assert np.array_equal(env.action_masks(), mask.astype(bool))
            obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if term:
                break
            assert reward == 0.0
        assert not obs["action_mask"].any() and not env.action_masks().any()
        game = pyspiel.load_game(env.table.game_string())
        state = game.new_initial_state()
        for c in env.table.chance_outcomes():
            state.apply_action(c)
        for h in env.table.hist:
            assert state.current_player() == h // 128
            state.apply_action(h % 128)
        assert state.is_terminal()
        assert reward == pytest.approx(0.5 * state.returns()[seat])
        assert info["difference"] == state.returns()[0]


@pytest.mark.filterwarnings("ignore:.*illegal action ended")
@pytest.mark.filterwarnings("ignore:.*not having a spec")
def test_gymnasium_check_env_registered_default():
    check_env(gymnasium.make(VINT_ENV_ID).unwrapped)
    env = gymnasium.make(VINT_ENV_ID)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)


@pytest.mark.filterwarnings("ignore:.*illegal action ended")
@pytest.mark.filterwarnings("ignore:.*not having a spec")
def test_gymnasium_check_env_other_bots():
    env = gymnasium.make(VINT_ENV_ID, seat=2, partner="random", opponents=("search", "random"),
                         worlds=2, dealer="random", scoring="foster")
    check_env(env.unwrapped)
    assert env.unwrapped.bots[0].name == "random" and env.unwrapped.bots[3].name == "search"


def test_illegal_actions_aec():
    env = vint_v0.env()
    raw = env.unwrapped
    env.reset(seed=0)
    before = raw.table.a.copy()
    with pytest.raises(VintRuleError, match="V3.4") as exc:  # a card in the auction
        env.step(0)
    assert "player_0" in str(exc.value) and "legal: pass" in str(exc.value)
    assert np.array_equal(raw.table.a, before) and env.agent_selection == "player_0"
    with pytest.raises(VintRuleError, match="V9.1"):
        env.step(88)
    with pytest.raises(TypeError):
        env.step(1.5)
    env = vint_v0.env(illegal_action="terminate")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="illegal action ended"):
        env.step(0)
    raw = env.unwrapped
    assert raw.terminations["player_0"]
    assert raw._cumulative_rewards["player_0"] == -utility_bound(VintParams())
    assert raw._cumulative_rewards["player_1"] == 0.0
    assert raw.infos["player_0"]["illegal_move"]


def test_illegal_actions_gym():
    env = VintEnv()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="illegal action ended"):
        obs, reward, term, trunc, info = env.step(0)
    assert term and not trunc and info["illegal_move"] and "V3.4" in info["illegal_action"]
    assert reward == -utility_bound(VintParams()) and not obs["action_mask"].any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(L.PASS)
    env = VintEnv(illegal_action="refuse", reward_scale=0.001)
    obs, _ = env.reset(seed=0)
    obs2, reward, term, _, info = env.step(0)
    assert reward == 0.0 and not term and "illegal_action" in info
    assert np.array_equal(obs["observation"], obs2["observation"])
    assert VintEnv(reward_scale=0.001).illegal_reward == pytest.approx(
        -utility_bound(VintParams()) / 1000)
    env = VintEnv(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(VintRuleError, match="V3.4"):
        env.step(0)
    with pytest.raises(VintRuleError, match="V9.1"):
        env.step(-1)


BAD = [
    (lambda: VintEnv(partner="nobody"), "unknown partner bot 'nobody'"),
    (lambda: VintEnv(opponents=["random", "gib"]), "unknown opponent bot 'gib'"),
    (lambda: VintEnv(opponents=["random"] * 3), "1 or 2 opponents"),
    (lambda: VintEnv(partner=42), "partner must be a bot name"),
    (lambda: VintEnv(seat=4), "seat must be in 0..3"),
    (lambda: VintEnv(seat=True), "seat must be in 0..3"),
    (lambda: VintEnv(worlds=0), "worlds"),
    (lambda: VintEnv(dealer=5), "dealer must be a seat"),
    (lambda: VintEnv(scoring="chicago"), "scoring must be one of"),
    (lambda: VintEnv(reward_scale=0), "reward_scale"),
    (lambda: VintEnv(illegal_action="ignore"), "illegal_action"),
    (lambda: gymnasium.make(VINT_ENV_ID, partner="nobody"), "unknown partner bot"),
    (lambda: gymnasium.make(VINT_ENV_ID, short_auction="yes"), "short_auction"),
    (lambda: vint_v0.env(dealer="north"), "dealer must be a seat"),
    (lambda: vint_v0.env(slam_small=-1), "slam_small"),
    (lambda: vint_v0.env(reward_scale=float("nan")), "reward_scale"),
    (lambda: vint_v0.env(render_mode="rgb_array"), "render_mode"),
    (lambda: vint_v0.env(illegal_action="refuse"), "illegal_action"),
    (lambda: vint_v0.env(target=500), "unknown knob"),
]


@pytest.mark.parametrize("make,words", BAD, ids=[w for _, w in BAD])
def test_bad_input_refused_in_one_line(make, words):
    with pytest.raises(ValueError, match=words) as exc:
        make()
    assert "\n" not in str(exc.value)


def test_bad_reset_options_refused():
    env = vint_v0.env()
    with pytest.raises(ValueError, match="reset options"):
        env.reset(options={"hands": [1, 2, 3, 4]})


def test_render():
    env = vint_v0.env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "dealer: seat 0" in text and "legal: pass, bid 1S" in text
    genv = VintEnv(render_mode="ansi", seat=1)
    genv.reset(seed=1)
    assert "<- to act" in genv.render().splitlines()[2]
