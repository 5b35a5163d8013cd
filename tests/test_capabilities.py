"""The games x tools matrix (vitou_ai.capabilities) is true: every "works" cell runs on a
small variant of its game and gives a checked answer, every "refused" cell is refused by
the tool itself, before any work, in one line that gives the matrix's reason (exit code 2
from the commands); the docs and the README show the matrix as generated."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import needs_extra
from vitou_ai import capabilities as C
from vitou_ai.rules.params import VitouParams

ROOT = Path(__file__).resolve().parents[1]

#: a small variant of each game: every tool that takes the game runs on it in seconds
SMALL = {
    "vitou": dict(ranks=4, copies=2, hand_size=1),
    "vitou_cason": dict(ranks=4, copies=2, hand_size=1),
    "vitou_2p": dict(ranks=4, copies=2, hand_size=1),
    "truc_catalan": dict(ranks=4, copies=2, hand_size=1),
    "truc_catalan_2p": dict(ranks=4, copies=2, hand_size=1),
    "truc_1912": dict(ranks=2, copies=4, hand_size=1, target=3),  # ladder 1 2 game (F3.1)
    "trut": dict(ranks=4, copies=2, hand_size=1),
    "put": dict(ranks=4, copies=2, hand_size=1),
    # P6.2: hands of 2 or 3; two ranks of four copies, every card dealt, keep the trees small
    "put_partnership": dict(ranks=2, copies=4, hand_size=2),
    # P7.0: three players, research hands of 2 (the default hand is players + 1)
    "put_willughby": dict(ranks=4, copies=2, hand_size=2),
}


def small(game: str, **extra) -> VitouParams:
    return VitouParams(profile=game, dealer=-1, **{**SMALL[game], **extra})


# ---- what "works" means, tool by tool ------------------------------------------------------


def gap(evaluation: dict) -> float:
    """Exploitability (two players) or NashConv (four) of an exact evaluation."""
    return evaluation.get("exploitability", evaluation.get("nash_conv"))


def _histories(game):
    from vitou_ai.commands.cli import main

    folders = ["vint_golden"] if game == "vint" else ["golden", "golden_family"]
    found = []
    for folder in folders:
        for path in sorted((ROOT / "tests" / folder).glob("*.toml")):
            data = tomllib.loads(path.read_text())
            name = "vint" if data.get("game") == "vint" else data.get("profile", "vitou")
            if name == game:
                found.append(path)
    assert found, f"no golden hand history of {game}"
    assert main(["replay", *map(str, found[:5])]) == 0


def _openspiel(game):
    import pyspiel

    from vitou_ai.openspiel.game import game_string

    g = pyspiel.load_game("python_vint" if game == "vint" else game_string(small(game)))
    pyspiel.random_sim_test(g, num_sims=3, serialize=False, verbose=False)


def _play(game):
    if game == "vint":
        from vitou_ai.vint.tournament import duplicate_match

        res = duplicate_match("random", "heuristic", pairs=1, seed=0)
        assert res.rubbers == 2 and res.deals > 0
        return
    from vitou_ai.bots.named import named_bot
    from vitou_ai.eval.tournament import run_tournament

    params = small(game)
    res = run_tournament([named_bot("random"), named_bot("counter")], params, games=40, seed=0)
    assert len(res.names) == 2


def _flat_tree(game):
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.protocol import make_solver

    params = small(game)
    solver = make_solver("cfr+", params, tree=build_tree(params))
    before = gap(solver.exact_evaluation())
    solver.iterate(100)
    after = gap(solver.exact_evaluation())
    assert after < before / (4 if params.players == 2 else 2)


def _public_tree(game):
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.protocol import make_solver
    from vitou_ai.solvers.public.tree import build_public_tree

    params = small(game)
    solver = make_solver("public-cfr+", params, tree=build_public_tree(params))
    solver.iterate(100)
    pub = solver.exact_evaluation()
    flat = make_solver("cfr+", params, tree=build_tree(params))
    flat.iterate(100)
    # the same CFR+ iterates on the two trees: the same exploitability
    assert gap(pub) == pytest.approx(gap(flat.exact_evaluation()), abs=1e-9)


def _mccfr(game):
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.protocol import make_solver

    params = small(game)
    solver = make_solver("es-mccfr", params, tree=build_tree(params), seed=1)
    solver.iterate(2000)
    uniform = gap(make_solver("cfr+", params, tree=build_tree(params)).exact_evaluation())
    assert gap(solver.exact_evaluation()) < uniform


def _abstract(game):
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    s = AbstractMCCFR(small(game), seed=3, threads=1, max_infosets=1 << 14)
    s.iterate(300)
    assert s.num_infosets > 0


def _lbr(game):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.eval.lbr import local_best_response

    r = local_best_response(named_bot("random"), small(game), deals=40, samples=8, seed=2)
    # uniform play is exploitable: the bound's estimate is above zero
    assert np.isfinite(r.value) and r.value > 0 and r.lo <= r.value <= r.hi


def _team_bracket(game):
    from vitou_ai.solvers.public import cfr as PC
    from vitou_ai.solvers.public import team as PT
    from vitou_ai.solvers.public.tree import build_public_tree

    if not C.MATRIX[game, "public_tree"].works:  # the flat tree's brackets (1912, P6)
        from vitou_ai.solvers.flat import evaluate as E
        from vitou_ai.solvers.flat.tree import build_tree

        tree = build_tree(small(game))
        for team in (0, 1):
            b = E.team_bracket(tree, E.uniform_policy(tree), team)
            assert 0.0 < b.gain_lower <= b.gain_upper + 1e-12
        return
    tree = build_public_tree(small(game))
    uniform = PC.entry_policy(tree, np.zeros(tree.num_entries))
    for team in (0, 1):
        b = PT.team_bracket(tree, uniform, team)
        # uniform play is exploitable by a team, and the bracket is ordered
        assert 0.0 < b.gain_lower <= b.gain_upper + 1e-12


def _envs(game):
    from pettingzoo.test import api_test

    if game == "vint":
        from vitou_ai.envs import vint_v0 as mod

        env = mod.env()
    else:
        from vitou_ai.envs import vitou_v0 as mod

        env = mod.env(**{"profile": game, **SMALL[game]})
    api_test(env, num_cycles=40)


def _match_equity(game):
    if game == "vitou_2p":
        from vitou_ai.match_equity import two_player as M

        table, _ = M.compute_table(M.EquityConfig(target=2, tol=1e-5, **SMALL[game]))
        assert 0.0 < table[(0, 0, 0)] < 1.0
        return
    from vitou_ai.bots.named import named_bot
    from vitou_ai.match_equity import four_player as M4

    target = 2
    outcomes = {}
    for a in range(target):
        for b in range(target):
            for d in range(4):
                params = VitouParams(profile=game, target=target, scores=(a, b), dealer=d)
                outcomes[(a, b, d)] = M4.deal_outcomes(named_bot("counter"), params, 30, seed=d)
    table = M4.table_from_outcomes(outcomes, target=target)
    assert all(0.0 <= v <= 1.0 for v in table.values())


def _bluff_analysis(game):
    from vitou_ai.eval.analysis import infoset_table, raise_frequencies
    from vitou_ai.solvers.flat.tree import build_tree
    from vitou_ai.solvers.protocol import make_solver

    params = small(game)
    tree = build_tree(params)
    solver = make_solver("cfr+", params, tree=tree)
    solver.iterate(50)
    df = infoset_table(tree, solver.solver.average_policy())
    assert df["reach"].max() == pytest.approx(1.0) or df["reach"].max() > 0
    assert not df["best_card"].isna().any() and not df["stake"].isna().any()
    # the rank labels are the game's own (Put's "3 2 A K ...", Truc's "3 2 1 12 ...")
    assert set(df["best_card"].astype(str)) - {"-"} <= set(params.rank_labels)
    raise_frequencies(df)


def _explore(game):
    from vitou_ai.bots.named import named_bot
    from vitou_ai.explore import Strategy
    from vitou_ai.explore.views import node_view
    from vitou_ai.solvers.public.tree import KIND_DECISION

    s = Strategy(named_bot("cautious"), small(game), values_budget=0)
    node = s.root
    while node.kind != KIND_DECISION:  # the dealer draw
        node = s.child(node, 0)
    node = s.child(node, int(np.argmax(s.aggregate(node))))
    while node.kind != KIND_DECISION:
        node = s.child(node, 0)
    view = node_view([s], node.path)
    grid = view["grids"][0]
    assert grid["rows"] and sum(r["reach"] for r in grid["rows"]) == pytest.approx(1.0)
    for r in grid["rows"]:
        if r["in_range"]:
            assert sum(x for x in r["probs"] if x is not None) == pytest.approx(1.0)
    assert sum(s.aggregate(node)) == pytest.approx(1.0)


def _node_locking(game):
    from vitou_ai.eval.report import strategy_report
    from vitou_ai.solvers.public import lock as LK
    from vitou_ai.solvers.public.cfr import PublicCFR
    from vitou_ai.solvers.public.tree import build_public_tree

    params = small(game)
    tree = build_public_tree(params)
    s = PublicCFR(tree, "dcfr", frontier_size=0)
    s.iterate(30)
    bp = s.average_policy()
    rules = LK.parse_locks({"game": {**params.knobs(), "profile": game},
                            "lock": [{"player": "non-dealer", "bot": "random"}]}, params)
    lock = LK.resolve_locks(tree, rules)
    pol, _, _ = LK.solve_locked(lock, 30, check_every=30)
    rep = LK.exploit_report(lock, bp, pol)
    assert rep["resolved_lock_held"] and rep["exploit_value"] <= rep["locked_value"] + 1e-12
    assert rep["resolved_gain_locked"] == pytest.approx(-rep["resolved_gain_other"])  # zero-sum
    r = strategy_report(tree, pol)
    assert r.frequencies(["position"])["raise_reach"].sum() > 0


WORKS = {
    "histories": _histories, "openspiel": _openspiel, "play": _play, "flat_tree": _flat_tree,
    "public_tree": _public_tree, "mccfr": _mccfr, "abstract": _abstract, "lbr": _lbr,
    "team_bracket": _team_bracket, "envs": _envs, "match_equity": _match_equity,
    "bluff_analysis": _bluff_analysis, "explore": _explore, "node_locking": _node_locking,
}


# ---- what "refused" means: the tool's own entry point, given the game ----------------------


def _entry(tool, game):
    """Call ``tool``'s library entry point on ``game`` (expected to refuse before work)."""
    if game == "vint":
        # the Vitou-kernel tools take a VitouParams, which cannot name Vint
        return VitouParams(profile="vint")
    params = small(game)
    if tool == "flat_tree":
        from vitou_ai.solvers.flat.tree import build_tree

        return build_tree(params)
    if tool == "public_tree":
        from vitou_ai.solvers.public.tree import build_public_tree

        return build_public_tree(params)
    if tool == "mccfr":
        from vitou_ai.solvers.sampling.mccfr import MCCFR

        return MCCFR(params)
    if tool == "abstract":
        from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

        return AbstractMCCFR(params, threads=1, max_infosets=1 << 10)
    if tool == "team_bracket":
        from vitou_ai.solvers.public import team as PT
        from vitou_ai.solvers.public.tree import build_public_tree

        return PT.TeamPasses(build_public_tree(params))
    if tool == "match_equity":
        from vitou_ai.match_equity import two_player as M

        return M.EquityConfig(profile=game)
    if tool == "bluff_analysis":
        from vitou_ai.eval.analysis import check_game

        return check_game(params)
    if tool == "explore":
        from vitou_ai.bots.named import named_bot
        from vitou_ai.explore import Strategy

        return Strategy(named_bot("random"), params)
    if tool == "node_locking":
        from vitou_ai.solvers.public.lock import parse_locks

        return parse_locks({"game": {"profile": game}, "lock": []}, params)
    if tool == "lbr":
        from vitou_ai.bots.named import named_bot
        from vitou_ai.eval.lbr import local_best_response

        return local_best_response(named_bot("random"), params, deals=1, samples=1, seed=0)
    raise AssertionError(f"no entry point for refusing {tool}")


CELLS = [(g, t) for g in C.GAMES for t in C.TOOLS]


@pytest.mark.parametrize(("game", "tool"), [
    pytest.param(*c, marks=needs_extra("envs")) if c[1] == "envs" else c
    for c in CELLS if C.MATRIX[c].works], ids=lambda x: x)
def test_works(game, tool):
    WORKS[tool](game)


@pytest.mark.parametrize(("game", "tool"), [c for c in CELLS if not C.MATRIX[c].works],
                         ids=lambda x: x)
def test_refused_by_the_tool_with_its_reason(game, tool):
    reason = C.MATRIX[game, tool].reason
    if tool == "team_bracket" and not C.MATRIX[game, "public_tree"].works:
        reason = C.MATRIX[game, "public_tree"].reason  # no tree to take brackets on
    with pytest.raises(ValueError) as info:
        _entry(tool, game)
    msg = str(info.value)
    assert "\n" not in msg and reason in msg, msg


# the commands: a refused solver or table is exit 2 and one line on stderr
_TRAIN_SOLVER = {"flat_tree": "dcfr", "public_tree": "public-dcfr", "mccfr": "es-mccfr",
                 "abstract": "abstract-mccfr"}


@pytest.mark.parametrize(("game", "tool"),
                         [c for c in CELLS if not C.MATRIX[c].works and c[0] != "vint"
                          and c[1] in (*_TRAIN_SOLVER, "match_equity")], ids=lambda x: x)
def test_commands_refuse_in_one_line(game, tool, capsys, tmp_path):
    from vitou_ai.commands.cli import main

    s = SMALL[game]
    if tool == "match_equity":
        argv = ["match-equity", "--profile", game, "--out", str(tmp_path / "me")]
    else:
        argv = ["train", "--profile", game, "--solver", _TRAIN_SOLVER[tool], "--ranks",
                str(s["ranks"]), "--copies", str(s["copies"]), "--hand-size",
                str(s["hand_size"]), "--iterations", "2", "--out", str(tmp_path / "run"),
                "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and C.MATRIX[game, tool].reason in err, err
    assert not (tmp_path / "run").exists() and not (tmp_path / "me").exists()


def test_vint_commands_refuse_in_one_line(capsys):
    from vitou_ai.commands.cli import main

    for argv in (["train", "--game", "vint"], ["simulate", "--game", "vint"],
                 ["match-equity", "--game", "vint"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Vint" in err, err


# ---- the matrix, its docs and the README ---------------------------------------------------


def test_every_cell_is_filled_and_every_refusal_has_a_reason():
    assert set(C.MATRIX) == set(CELLS)
    for key, c in C.MATRIX.items():
        assert c.works != bool(c.reason), key
        assert "\n" not in c.reason


def test_require_refuses_in_one_line():
    with pytest.raises(C.UnsupportedGameError, match=r"^public tree does not take truc_1912: "):
        C.require("public_tree", "truc_1912")
    C.require("lbr", small("vitou_2p"))
    with pytest.raises(KeyError):
        C.require("no_such_tool", "vitou")


def _between_markers(text: str) -> str:
    m = re.search(r"<!-- games-x-tools:start -->\n(.*?)<!-- games-x-tools:end -->", text, re.S)
    assert m, "the generated table's markers are missing"
    return m.group(1).strip()


def test_docs_and_readme_show_the_generated_matrix():
    page = (ROOT / "docs" / "guide" / "games-and-tools.md").read_text()
    assert _between_markers(page) == C.markdown_table().strip(), (
        "docs/guide/games-and-tools.md is stale: regenerate it with "
        "python -m vitou_ai.capabilities --write")
    readme = (ROOT / "README.md").read_text()
    assert _between_markers(readme) == C.markdown_table(short=True).strip(), (
        "README.md's games x tools table is stale: python -m vitou_ai.capabilities --write")
