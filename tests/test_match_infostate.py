"""Match mode (R8.2): information states cover the current deal and the scores.

The kernel's token list was never cleared at a new deal, so a
match-mode key held earlier deals' actions, grew past ``MAX_TOKENS`` and was cut
off: one information-state string then came with different legal actions.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

import vitou_ai  # noqa: F401  (registers python_vitou)
from vitou_ai.rules import Game
from vitou_ai.rules import layout as L
from vitou_ai.rules.layout import A_RAISE, A_REFUSE
from vitou_ai.rules.observe import infostate_key


def test_second_deal_key_holds_no_tokens_of_the_first():
    game = Game(profile="vitou", mode="match")
    state = game.new_initial_state()
    # deal 1: first chance outcome each time; raise, the first legal card, refuse
    script = [A_RAISE, None, A_REFUSE]
    while script:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        a = script.pop(0)
        state.apply_action(state.legal_actions()[0] if a is None else a)
    assert state.array[L.S_DEALS] == 1, "deal 1 ended by the refusal"
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    key = np.empty(L.KEY_SIZE, np.int8)
    infostate_key(game.array, state.array, player, key)
    assert key[L.K_NTOK] == 0, f"deal 2 starts with {key[L.K_NTOK]} tokens of deal 1"
    assert (key[L.K_TOK:] == -1).all()


def test_equal_information_states_mean_equal_decisions_over_random_matches():
    """Equal information-state strings => equal tensors, legal actions, player."""
    game = pyspiel.load_game("python_vitou(profile=vitou,mode=match,max_deals=60)")
    rng = random.Random(14)
    seen: dict[str, tuple] = {}
    steps = 0
    for _ in range(60):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            p = state.current_player()
            s = state.information_state_string(p)
            facts = (p, tuple(state.legal_actions()), tuple(state.information_state_tensor(p)))
            old = seen.setdefault(s, facts)
            assert old == facts, f"information state {s!r} with two different decisions"
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    assert steps > 2000 and len(seen) > 1000  # the matches ran long enough to test something
