"""Shared by the learning-baseline experiments (``baselines_2p.py``, ``baselines_4p.py``):
OpenSpiel's PyTorch NFSP and Deep CFR on ``python_vitou``, PPO self-play
(sb3-contrib ``MaskablePPO``) on the PettingZoo environment, each trained for a
wall-time budget and exported as a :class:`~vitou_ai.bots.neural.NeuralPolicy`.

Each trainer calls ``evaluate(policy, seconds, iterations, cpu_seconds)`` at
points spaced geometrically in training time; the time spent evaluating is not
counted. ``seconds`` is wall time, ``cpu_seconds`` the process's CPU time over
the same spans (all threads): on a shared, loaded machine the second is the
steadier measure of cost.
"""

from __future__ import annotations

import dataclasses
import json
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import vitou_ai  # noqa: E402,F401
from vitou_ai.bots.neural import NeuralPolicy  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402

Evaluate = Callable[[NeuralPolicy, float, int, float], None]


class TrainClock:
    """Training wall time with evaluation excluded, and evaluation points at
    ``first, first*growth, ...`` seconds up to ``budget``."""

    def __init__(self, budget: float, first: float = 2.0, growth: float = 1.6):
        self.budget, self.next, self.growth = budget, first, growth
        self.spent = 0.0
        self.cpu = 0.0
        self._t = time.perf_counter()
        self._c = time.process_time()

    def tick(self) -> None:
        now, c = time.perf_counter(), time.process_time()
        self.spent += now - self._t
        self.cpu += c - self._c
        self._t, self._c = now, c

    def due(self) -> bool:
        self.tick()
        if self.spent >= self.next or self.spent >= self.budget:
            self.next = max(self.next * self.growth, self.spent * 1.05)
            return True
        return False

    def resume(self) -> None:
        """Call after an evaluation: its time is not training time."""
        self._t = time.perf_counter()
        self._c = time.process_time()

    @property
    def over(self) -> bool:
        self.tick()
        return self.spent >= self.budget


def seed_all(seed: int) -> None:
    import random

    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)  # the machine is shared; one core per run


def train_nfsp(params: VitouParams, budget: float, evaluate: Evaluate, seed: int = 0,
               hidden: tuple[int, ...] = (128,)) -> NeuralPolicy:
    """OpenSpiel's ``pytorch.nfsp.NFSP``, one agent per seat, on ``python_vitou``
    (hyper-parameters of OpenSpiel's ``nfsp_kuhn_pytorch.py`` example, smaller buffers)."""
    import pyspiel
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    from vitou_ai.openspiel.game import game_string

    seed_all(seed)
    game = pyspiel.load_game(game_string(params))
    env = rl_environment.Environment(game, seed=seed)
    size = env.observation_spec()["info_state"][0]
    n = game.num_players()
    agents = [nfsp.NFSP(p, size, game.num_distinct_actions(), list(hidden),
                        reservoir_buffer_capacity=200_000, anticipatory_param=0.1,
                        replay_buffer_capacity=100_000, epsilon_start=0.06, epsilon_end=0.001,
                        epsilon_decay_duration=1_000_000, seed=seed + 10 * p)
              for p in range(n)]

    clock = TrainClock(budget)
    episodes = 0
    while not clock.over:
        time_step = env.reset()
        while not time_step.last():
            p = time_step.observations["current_player"]
            out = agents[p].step(time_step)
            time_step = env.step([out.action])
        for a in agents:
            a.step(time_step)
        episodes += 1
        if episodes % 100 == 0 and clock.due():
            pol = _nfsp_policy(agents, params)
            evaluate(pol, clock.spent, episodes, clock.cpu)
            clock.resume()
    pol = _nfsp_policy(agents, params)
    evaluate(pol, clock.spent, episodes, clock.cpu)
    return pol


def _nfsp_policy(agents, params: VitouParams) -> NeuralPolicy:
    nets = [NeuralPolicy.from_torch([a._avg_network.model], "logits", params) for a in agents]
    pol = NeuralPolicy.per_seat(nets, name="nfsp")
    pol.algorithm = "nfsp"
    return pol


def train_deep_cfr(params: VitouParams, budget: float, evaluate: Evaluate, seed: int = 0,
                   traversals: int = 40) -> NeuralPolicy:
    """OpenSpiel's ``pytorch.deep_cfr.DeepCFRSolver`` on ``python_vitou``: the loop of
    its ``solve()`` with ``print_nash_convs`` (the policy network is trained, read and
    re-initialised at each evaluation; its training counts as solver time)."""
    import pyspiel
    from open_spiel.python.pytorch import deep_cfr

    from vitou_ai.openspiel.game import game_string

    seed_all(seed)
    game = pyspiel.load_game(game_string(params))
    s = deep_cfr.DeepCFRSolver(
        game, policy_network_layers=(64, 64), advantage_network_layers=(64, 64),
        num_iterations=1, num_traversals=traversals, learning_rate=1e-3,
        batch_size_advantage=512, batch_size_strategy=512, memory_capacity=int(1e6),
        policy_network_train_steps=200, advantage_network_train_steps=50,
        reinitialize_advantage_networks=True, seed=seed)
    clock = TrainClock(budget, first=5.0)
    pol = None
    while True:
        for p in range(game.num_players()):
            for _ in range(traversals):
                s._traverse_game_tree(s._root_node, p)
            s._reinitialize_advantage_network(p)
            s._learn_advantage_network(p)
        s._iteration += 1
        over = clock.over
        if over or clock.due():
            s._learn_strategy_network()
            pol = NeuralPolicy.from_torch([s._policy_network.model], "logits", params,
                                          name="deep_cfr", algorithm="deep_cfr")
            clock.tick()
            evaluate(pol, clock.spent, s._iteration - 1, clock.cpu)
            s._reinitialize_policy_network()
            clock.resume()
        if over:
            return pol


def ppo_policy(model, params: VitouParams) -> NeuralPolicy:
    """The actor of an sb3-contrib ``MaskablePPO`` ``MlpPolicy`` (flatten, policy MLP,
    action head) as a :class:`NeuralPolicy`."""
    return NeuralPolicy.from_torch([model.policy.mlp_extractor.policy_net,
                                    model.policy.action_net], "logits", params,
                                   name="ppo", algorithm="ppo")


def train_ppo(params: VitouParams, budget: float, evaluate: Evaluate, seed: int = 0,
              snapshot_every: int = 4096) -> NeuralPolicy:
    """PPO self-play (sb3-contrib ``MaskablePPO``) on ``vitou_v0`` through
    :class:`vitou_ai.envs.selfplay.SelfPlayEnv`: the other seats play the learner's
    latest snapshot, refreshed every ``snapshot_every`` steps."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from vitou_ai.envs.selfplay import SelfPlayEnv

    seed_all(seed)
    knobs = {f.name: getattr(params, f.name) for f in dataclasses.fields(params)
             if f.name != "profile"}
    env = SelfPlayEnv(profile=params.profile, **knobs)
    env.reset(seed=seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=1024, batch_size=128, n_epochs=4,
                        learning_rate=3e-4, gamma=1.0, gae_lambda=0.95, ent_coef=0.01,
                        seed=seed, device="cpu", verbose=0)
    clock = TrainClock(budget, first=5.0)

    class Selfplay(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % snapshot_every == 0:
                env.set_opponent(ppo_policy(self.model, params))
            if self.num_timesteps % 512 == 0 and clock.due():
                evaluate(ppo_policy(self.model, params), clock.spent, self.num_timesteps,
                         clock.cpu)
                clock.resume()
            return not clock.over

    model.learn(total_timesteps=10**9, callback=Selfplay())
    pol = ppo_policy(model, params)
    clock.tick()
    evaluate(pol, clock.spent, model.num_timesteps, clock.cpu)
    return pol


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in ("vitou_ai", "numpy", "numba", "open_spiel", "torch", "pettingzoo", "gymnasium",
                "stable_baselines3", "sb3_contrib"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "absent"
    return out


def write_run(folder: Path, record: dict) -> None:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    record = {"rules_version": RULES_VERSION, "git_commit": commit, "versions": versions(),
              **record}
    write_atomic(folder / "run.json", (json.dumps(record, indent=2) + "\n").encode())
