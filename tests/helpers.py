"""Shared test helpers: seeded random play through the checked Game wrapper."""

from __future__ import annotations

import random

from vitou_ai.rules import Game


def random_action(state, rng: random.Random) -> int:
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def play_random(game: Game, seed: int, on_state=None):
    """Play one game with seeded random actions; call ``on_state(state)`` before each action."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if on_state is not None:
            on_state(state)
        a = random_action(state, rng)
        history.append(a)
        state.apply_action(a)
    return state, history
