"""Benchmark: the RL environments' cost per step, against the kernel and against
PettingZoo's own classic card games, in one run.

Every environment is driven the same way (PettingZoo's ``agent_iter`` loop,
``env.last()``, a uniformly random legal action from the observation's
``action_mask``, reset at the end); a *step* is one decision of an agent (the
dead steps after the end are done but not counted). Rows:

- ``vitou_v0`` (PettingZoo AEC) on ``vitou`` and on ``vitou_2p``;
- ``Vitou-v0`` (Gymnasium, ``vitou_2p`` against ``random``: a step is one
  learner decision, the bot's moves inside it);
- PettingZoo's classic ``leduc_holdem_v4``, ``texas_holdem_v4``,
  ``texas_holdem_no_limit_v6`` (RLCard games);
- the kernel itself: random ``vitou`` / ``vitou_2p`` deals played in jitted code,
  one thread (decisions per second).

Medians of 5 interleaved repeats. Writes ``results/bench_envs.json`` and
``results/bench_envs.png``. Needs ``pip install 'vitou_ai[envs-bench]'``.

    python benchmarks/bench_envs.py
"""

from __future__ import annotations

import io
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vitou_ai.envs import vitou_v0  # noqa: E402
from vitou_ai.envs.gym_env import VitouEnv  # noqa: E402
from vitou_ai.io import write_atomic  # noqa: E402
from vitou_ai.rng import row_seed  # noqa: E402
from vitou_ai.rules import RULES_VERSION, VitouParams  # noqa: E402
from vitou_ai.rules import kernel as K  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.sim.random_play import play_random  # noqa: E402

STEPS = 5_000


def aec_rate(env, steps: int, seed: int) -> float:
    """Agent decisions per second of random legal play in a PettingZoo AEC env."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    t = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
        env.reset()
    return done / (time.perf_counter() - t)


def gym_rate(env, steps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    t = time.perf_counter()
    for _ in range(steps):
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if term or trunc:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - t)


@numba.njit(cache=False)
def _kernel_decisions(params, n_games, seed):
    state = np.zeros(L.STATE_SIZE, np.int32)
    rng = np.zeros(1, np.uint64)
    rng[0] = row_seed(np.uint64(seed), np.uint64(0))
    actions = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    total = 0
    for _ in range(n_games):
        K.init_state(params, state)
        total += play_random(params, state, rng, actions, probs)
    return total


def kernel_rate(params: VitouParams, n_games: int, seed: int) -> float:
    p = params.to_array()
    t = time.perf_counter()
    decisions = _kernel_decisions(p, n_games, seed)
    return decisions / (time.perf_counter() - t)


def main() -> None:
    warnings.filterwarnings("ignore")  # RLCard / gymnasium deprecation chatter
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_no_limit_v6, texas_holdem_v4

    rows = {
        "vitou_v0 (vitou)": lambda s: aec_rate(vitou_v0.env(profile="vitou"), STEPS, s),
        "vitou_v0 (vitou_2p)": lambda s: aec_rate(vitou_v0.env(profile="vitou_2p"), STEPS, s),
        "Vitou-v0 gym (vitou_2p vs random)": lambda s: gym_rate(
            VitouEnv(profile="vitou_2p", opponents="random"), STEPS, s),
        "pettingzoo leduc_holdem_v4": lambda s: aec_rate(leduc_holdem_v4.env(), STEPS, s),
        "pettingzoo texas_holdem_v4": lambda s: aec_rate(texas_holdem_v4.env(), STEPS, s),
        "pettingzoo texas_holdem_no_limit_v6": lambda s: aec_rate(
            texas_holdem_no_limit_v6.env(), STEPS, s),
        "kernel, jitted (vitou)": lambda s: kernel_rate(VitouParams(profile="vitou"), 200_000, s),
        "kernel, jitted (vitou_2p)": lambda s: kernel_rate(
            VitouParams(profile="vitou_2p"), 200_000, s),
    }
    for f in rows.values():  # warm up: jit, imports, RLCard set-up
        f(99)
    rates: dict[str, list[float]] = {k: [] for k in rows}
    for rep in range(5):
        for k, f in rows.items():
            rates[k].append(f(rep))
    med = {k: statistics.median(v) for k, v in rates.items()}
    us = {k: 1e6 / v for k, v in med.items()}
    leduc = us["pettingzoo leduc_holdem_v4"]
    classic = [k for k in rows if k.startswith("pettingzoo")]
    fastest_classic = min(us[k] for k in classic)
    report = {
        "rules_version": RULES_VERSION,
        "steps_per_repeat": STEPS,
        "decisions_per_s": med,
        "us_per_decision": us,
        "vitou_v0_vitou_over_leduc": us["vitou_v0 (vitou)"] / leduc,
        "vitou_v0_vitou_over_fastest_classic": us["vitou_v0 (vitou)"] / fastest_classic,
        "vitou_v0_2p_over_fastest_classic": us["vitou_v0 (vitou_2p)"] / fastest_classic,
        "kernel_over_vitou_v0_vitou": med["kernel, jitted (vitou)"] / med["vitou_v0 (vitou)"],
    }
    for k in rows:
        print(f"{k:<38} {med[k]:>12,.0f} decisions/s  {us[k]:8.2f} us/decision")
    print(f"vitou_v0 (vitou) per step / leduc_holdem_v4: x{report['vitou_v0_vitou_over_leduc']:.2f}; "
          f"/ fastest classic card env: x{report['vitou_v0_vitou_over_fastest_classic']:.2f}; "
          f"kernel is x{report['kernel_over_vitou_v0_vitou']:.0f} faster than the env")
    out = ROOT / "results"
    write_atomic(out / "bench_envs.json", (json.dumps(report, indent=2) + "\n").encode())

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(rows)
    fig, ax = plt.subplots(figsize=(8, 4))
    colors = ["C0" if n.startswith(("vitou", "Vitou")) else "C1" if n.startswith("petting")
              else "C2" for n in names]
    ax.barh(names[::-1], [us[n] for n in names][::-1], color=colors[::-1])
    ax.set_xscale("log")
    ax.set_xlabel("microseconds per agent decision (median of 5, random legal play)")
    ax.set_title("Environment step cost: vitou_ai.envs vs PettingZoo classic vs the kernel")
    for i, n in enumerate(names[::-1]):
        ax.text(us[n], i, f" {us[n]:.1f}", va="center", fontsize=8)
    fig.tight_layout()
    img = io.BytesIO()
    fig.savefig(img, format="png", dpi=100)
    write_atomic(out / "bench_envs.png", img.getvalue())
    print(f"wrote {out / 'bench_envs.json'}, {out / 'bench_envs.png'}")


if __name__ == "__main__":
    main()
