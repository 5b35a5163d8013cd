"""Shared test helpers: seeded random play through the checked Game wrapper, a state
after a given deal, and the golden-history, differential, key-walk, record-and-replay
and OpenSpiel scaffolding the Vitou and the Truc / Put family test files share; the
marks of the tests that need an optional extra (:func:`needs_extra`)."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.util
import random
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from packaging.requirements import Requirement

from vitou_ai.rules import Game
from vitou_ai.rules import kernel as K
from vitou_ai.rules import layout as L
from vitou_ai.rules.history import HandHistory, HistoryError, check_expect, replay, result_dict

ROOT = Path(__file__).resolve().parents[1]


# ---- optional extras ----------------------------------------------------------------------
# `make test` installs the `test` extra only (the README's command on a fresh clone): a test
# that needs another extra carries needs_extra(NAME); conftest.py skips it, saying which
# extra, when that extra is not installed, and CI's second phase (.ci/run) runs exactly these
# tests with `pytest -m extra` after installing the extras.


@functools.cache
def missing_extra(extra: str) -> str | None:
    """Why the tests of the optional ``extra`` cannot run here (the skip reason: which
    extra, the command that installs it, the first requirement not met), or ``None`` when
    every requirement pyproject.toml lists for it is installed at a matching version.

    Raises:
        ValueError: pyproject.toml has no extra ``extra``.
    """
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = table["optional-dependencies"]
    if extra not in extras:
        raise ValueError(f"no optional extra {extra!r} in pyproject.toml "
                         f"(one of {', '.join(sorted(extras))})")
    for spec in extras[extra]:
        req = Requirement(spec)
        try:
            have = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            why = f"{req.name} is not installed"
        else:
            if req.specifier.contains(have, prereleases=True):
                continue
            why = f"{req.name} {have} is installed, {req.specifier} is needed"
        return f"needs the '{extra}' extra: pip install -e '.[{extra}]' ({why})"
    return None


def needs_extra(extra: str) -> pytest.MarkDecorator:
    """The mark of a test (or, as ``pytestmark``, a module) that needs the optional
    ``extra`` of pyproject.toml: ``pytest.mark.extra(extra)``. conftest.py skips the test
    with :func:`missing_extra`'s reason when the extra is not installed; ``pytest -m extra``
    selects these tests.

    Raises:
        ValueError: pyproject.toml has no extra ``extra`` (at import, not at run time).
    """
    missing_extra(extra)  # an unknown name fails where the mark is written
    return pytest.mark.extra(extra)


#: test modules that called :func:`import_extra`: module name -> extra (conftest.py marks
#: each of their tests ``extra``, so that ``pytest -m extra`` selects them)
EXTRA_MODULES: dict[str, str] = {}


def import_extra(extra: str, module: str):
    """``module`` imported, for a test module whose imports need the optional ``extra``
    (call it at module level): when the extra is not installed the whole module is
    skipped with :func:`missing_extra`'s reason; when it is, every test of the module
    gets the mark ``needs_extra(extra)`` (conftest.py, from :data:`EXTRA_MODULES`)."""
    reason = missing_extra(extra)
    if reason is not None:
        pytest.skip(reason, allow_module_level=True)
    EXTRA_MODULES[sys._getframe(1).f_globals["__name__"]] = extra
    return importlib.import_module(module)


def experiment(script: str, name: str | None = None):
    """``experiments/<script>`` loaded as a module (``experiments/`` is not a package),
    named ``name`` (by default the script's stem)."""
    path = ROOT / "experiments" / script
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def random_action(state, rng: random.Random) -> int:
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def play_random(game: Game, seed: int, on_state=None):
    """Play one game with seeded random actions; call ``on_state(state)`` before each action."""
    return play_deal(game, random.Random(seed), on_state)


def play_deal(game: Game, rng: random.Random, on_state=None):
    """Play one game with random actions drawn from ``rng`` (chance by its probabilities);
    call ``on_state(state)`` before each action. Returns ``(terminal state, actions)``."""
    state = game.new_initial_state()
    history = []
    while not state.is_terminal():
        if on_state is not None:
            on_state(state)
        a = random_action(state, rng)
        history.append(a)
        state.apply_action(a)
    return state, history


def dealt(game: Game, hands):
    """A state of ``game`` right after the deal of ``hands`` (rank indices, seat by seat)."""
    s = game.new_initial_state()
    K.apply_deal(game.array, s.array, np.array(hands, np.int64))
    return s


def check_keys_give_legal_actions(game: Game, on_terminal=None) -> tuple[int, int]:
    """Every decision node of ``game`` (a small variant: the whole tree is walked): equal
    information-state keys give the same player to act and the same legal actions (the
    key is perfect recall). ``on_terminal(state)`` is called at each terminal state.
    Returns ``(decision nodes, distinct keys)``."""
    seen: dict[bytes, tuple[int, tuple[int, ...]]] = {}
    stack = [game.new_initial_state()]
    nodes = 0
    while stack:
        s = stack.pop()
        if s.is_terminal():
            if on_terminal is not None:
                on_terminal(s)
            continue
        if s.is_chance_node():
            for a, _ in s.chance_outcomes():
                t = s.clone()
                t.apply_action(a)
                stack.append(t)
            continue
        p = s.current_player()
        legal = tuple(s.legal_actions())
        assert seen.setdefault(s.infostate_key(p).tobytes(), (p, legal)) == (p, legal)
        nodes += 1
        for a in legal:
            t = s.clone()
            t.apply_action(a)
            stack.append(t)
    return nodes, len(seen)


def check_recorded_deals_replay(game: Game, rng: random.Random, deals: int) -> None:
    """``deals`` random deals of ``game``, each recorded as a hand history
    (``history.record``, through its dict form), replay to the same last deal and returns."""
    from vitou_ai.rules.history import record

    for _ in range(deals):
        s, trail = play_deal(game, rng)
        hh = HandHistory.from_dict(record(game, trail).to_dict())
        end = replay(hh)
        assert end.last_deal() == s.last_deal() and end.returns() == s.returns()


# ---- scaffolding shared by the Vitou and Truc / Put family tests ----------------------------


def check_golden_history(path: Path) -> None:
    """Replay a golden hand history through the kernel and check its ``[expect]`` table."""
    hh = HandHistory.load(path)
    assert hh.expect, "a golden history must carry [expect]"
    assert check_expect(hh, result_dict(hh, replay(hh))) == []


def check_bad_history(path: Path) -> None:
    """A history that breaks a rule is refused at the action and with the rule its
    ``[expect_error]`` table names."""
    want = tomllib.loads(path.read_text())["expect_error"]
    hh = HandHistory.load(path)
    with pytest.raises(HistoryError) as e:
        replay(hh)
    assert e.value.index == want["index"]
    assert e.value.rule == want["rule"]
    assert e.value.action == hh.actions[want["index"]]


def draw_scores(target: int, rng: random.Random) -> tuple[int, int]:
    """Scores for a differential deal: a quarter one team at ``target - 1`` (R6.1, R9.3;
    family C5), a tenth both (R6.2), else anywhere below the target."""
    u = rng.random()
    if u < 0.25:
        s = [target - 1, rng.randrange(target - 1)]
        rng.shuffle(s)
    elif u < 0.35:
        s = [target - 1, target - 1]
    else:
        s = [rng.randrange(target), rng.randrange(target)]
    return (s[0], s[1])


def drive_against_reference(cfg: dict, ref, rng: random.Random):
    """Play the kernel and a reference engine's state ``ref`` in lockstep with seeded random
    actions, asserting at every step that they agree on terminal / chance status, current
    player, legal actions, chance outcomes and probabilities (to 1e-9), and at the end on
    the returns (to 1e-12) and the scores.

    Returns:
        ``(d, r)``: the kernel's and the reference's summaries of the last deal (both
        present), for the caller's deal-summary checks.
    """
    game = Game(**cfg)
    params = game.array
    state = K.new_state(params)
    acts = np.empty(L.NUM_ACTIONS, np.int64)
    probs = np.empty(L.MAX_CHANCE_OUTCOMES, np.float64)
    steps = 0
    while True:
        where = f"{cfg} step {steps}"
        term = K.is_terminal(state)
        assert term == ref.is_terminal(), where
        if term:
            break
        player = K.current_player(params, state)
        assert player == ref.current_player(), where
        if player == L.CHANCE_PLAYER:
            n = K.chance_outcomes(params, state, acts, probs)
            theirs = ref.chance_outcomes()
            assert [int(a) for a in acts[:n]] == [a for a, _ in theirs], where
            assert np.allclose(probs[:n], [p for _, p in theirs], atol=1e-9, rtol=0), where
            a = int(rng.choices(acts[:n], probs[:n])[0])
        else:
            n = K.legal_actions(params, state, acts)
            legal = [int(a) for a in acts[:n]]
            assert legal == ref.legal_actions(), where
            a = rng.choice(legal)
        K.apply_action(params, state, a)
        ref.apply_action(a)
        steps += 1
    out = np.zeros(game.num_players)
    K.returns(params, state, out)
    assert list(out) == pytest.approx(ref.returns(), abs=1e-12), cfg
    mine = game.new_initial_state()
    mine.array = state
    assert mine.scores() == tuple(ref.scores()), cfg
    d, r = mine.last_deal(), ref.last_deal()
    assert d is not None and r is not None, cfg
    return d, r


def play_along_kernel(osg, rng: random.Random) -> None:
    """One seeded random deal of the OpenSpiel game ``osg`` played alongside the checked
    kernel wrapper of its parameters: the same current player, chance outcomes, legal
    actions, action strings that parse back, kernel array after every action, and returns
    (zero-sum)."""
    s, k = osg.new_initial_state(), Game(osg.vitou_params).new_initial_state()
    while True:
        assert s.is_terminal() == k.is_terminal()
        assert s.current_player() == k.current_player()
        if k.is_terminal():
            break
        if k.is_chance_node():
            assert s.is_chance_node()
            outcomes = k.chance_outcomes()
            assert s.chance_outcomes() == outcomes
            a = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            legal = k.legal_actions()
            assert s.legal_actions() == legal
            assert s.legal_actions(s.current_player()) == legal
            a = rng.choice(legal)
            assert s.string_to_action(s.action_to_string(a)) == a
        s.apply_action(a)
        k.apply_action(a)
        assert np.array_equal(s.a, k.array)
    assert s.returns() == k.returns()
    assert sum(s.returns()) == 0


def check_random_sim(spec: str) -> None:
    """OpenSpiel's API check of the game ``spec``: ``pyspiel.random_sim_test``, 10 random
    simulations with serialisation."""
    import pyspiel

    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=10, serialize=True, verbose=False)


def check_information_states(game, extra=None) -> None:
    """Over every history of the OpenSpiel ``game`` (a small variant): a player's
    information-state string starts with the player, determines the legal actions and the
    player's own earlier (information state, action) sequence (perfect recall), and the
    information-state tensor tells the same states apart as the string (more than 4 of
    them). ``extra(state, key)``: the caller's further checks of each string."""
    import pyspiel

    obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    seen: dict = {}
    tensors: dict = {}

    def check(state, trail):
        p = state.current_player()
        key = state.information_state_string(p)
        assert key.startswith(f"p{p} ")
        if extra is not None:
            extra(state, key)
        entry = (p, tuple(state.legal_actions()), trail[p])
        assert seen.setdefault(key, entry) == entry, key
        obs.set_from(state, p)
        assert tensors.setdefault(obs.tensor.tobytes(), key) == key

    walk_decisions(game, check)
    assert len(seen) == len(tensors) > 4


def walk_decisions(game, fn) -> None:
    """Depth-first over every history of an OpenSpiel game; ``fn(state, trail)`` at
    decision nodes, where ``trail[p]`` is player p's own sequence of (information state,
    action)."""

    def rec(state, trail):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                rec(state.child(a), trail)
            return
        p = state.current_player()
        fn(state, trail)
        key = state.information_state_string(p)
        for a in state.legal_actions():
            t = list(trail)
            t[p] = trail[p] + ((key, a),)
            rec(state.child(a), tuple(t))

    rec(game.new_initial_state(), tuple(() for _ in range(game.num_players())))


class TickClock:
    """A clock that moves ``tick`` seconds at each reading (the search bot's ``clock``):
    its budget logic and solves stop at the same point whatever the machine's load, so a
    run repeats exactly."""

    def __init__(self, tick: float):
        self.t = 0.0
        self.tick = tick

    def __call__(self) -> float:
        self.t += self.tick
        return self.t


def one_line_error(capsys, code, *words):
    """Exit code 2 and a single stderr line holding ``words``, no traceback (a command's
    refusal of bad input); returns the line."""
    out, err = capsys.readouterr()
    lines = [s for s in err.splitlines() if s.strip()]
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and len(lines) == 1, err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]
