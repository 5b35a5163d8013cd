"""A policy knows its domain (vitou_ai.bots.domain), and no consumer falls back silently.

A tabular policy trained on single deals at one score has rows at that score only (the
information-state key holds the dealer and both scores, R8): in a match, or in a deal at
another score, it used to play uniformly at random without a word. Now the consumers
refuse it in one line naming what it was trained for and what trains one that fits, the
simulator counts each policy's fallbacks (decisions at information states it has no row
for), and ``simulate`` / ``run_tournament`` / the commands report that share and refuse
above ``FALLBACK_LIMIT`` unless told to allow it. Tiny variant: vitou_2p, 4 ranks x 2
copies, 1-card hands (2,072 information states per score)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from vitou_ai.bots import RandomPolicy, TabularPolicy, named_bot
from vitou_ai.bots.domain import PolicyDomain, reached
from vitou_ai.bots.named import check_bot_fits, parse_bot
from vitou_ai.commands.cli import main
from vitou_ai.commands.play import play_match
from vitou_ai.eval.tournament import run_tournament
from vitou_ai.rules import VitouParams
from vitou_ai.rules import layout as L
from vitou_ai.sim import batch as B
from vitou_ai.sim.batch import FallbackError, simulate
from vitou_ai.solvers.flat.tree import build_tree
from vitou_ai.solvers.protocol import make_solver

TINY = dict(profile="vitou_2p", ranks=4, copies=2, hand_size=1)
FLAGS = ["--profile", "vitou_2p", "--ranks", "4", "--copies", "2", "--hand-size", "1"]
DEAL = VitouParams(**TINY, dealer=-1)
MATCH = DEAL.replace(mode="match")


def _trained(scores=(0, 0)) -> TabularPolicy:
    params = DEAL.replace(scores=scores)
    solver = make_solver("dcfr", params, tree=build_tree(params))
    solver.iterate(30)
    return solver.tabular_policy("dcfr")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A deal-mode policy trained at 0:0 and one at 9:5, saved as ``vitou-ai train`` saves
    them."""
    folder = tmp_path_factory.mktemp("policies")
    out = {}
    for name, scores in (("p00", (0, 0)), ("p95", (9, 5))):
        pol = _trained(scores)
        pol.save(folder / f"{name}.npz")
        out[name] = folder / f"{name}.npz"
    return out


def one_line(text: str) -> str:
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


# ---- the domain: written, read from the keys, old files alike ---------------------------------


def test_a_policy_file_records_its_domain(files):
    pol = TabularPolicy.load(files["p00"])
    z = np.load(files["p00"])
    rec = json.loads(str(z["domain"]))
    assert rec["mode"] == "deal" and rec["scores"] == [[0, 0]] and rec["dealers"] == "all"
    assert rec["profile"] == "vitou_2p" and rec["knobs"]["ranks"] == 4
    assert pol.domain.describe(2) == "single deals at score 0:0, every dealer"
    assert TabularPolicy.load(files["p95"]).domain.scores == {(9, 5)}


def test_an_old_file_without_the_record_gets_the_same_domain(files, tmp_path):
    """Files written before the ``domain`` record (results/...) load, and are checked the
    same way: the dealer and scores are read from the keys."""
    z = dict(np.load(files["p00"]))
    del z["domain"]
    np.savez_compressed(tmp_path / "old.npz", **z)
    old = TabularPolicy.load(tmp_path / "old.npz")
    assert old.domain == TabularPolicy.load(files["p00"]).domain
    with pytest.raises(ValueError, match="a match from 0:0 to 12"):
        check_bot_fits(old, MATCH)
    check_bot_fits(old, DEAL)


def test_a_published_old_file_is_refused_in_a_match_and_plays_deals():
    pol = parse_bot("results/baselines_2p/dcfr.npz")  # written before the record
    check_bot_fits(pol, DEAL)
    with pytest.raises(ValueError, match="single deals at score 0:0") as e:
        check_bot_fits(pol, MATCH)
    assert "vitou-ai train --objective match --profile vitou_2p --ranks 4" in str(e.value)


def test_a_table_covering_every_score_fits_a_match_and_reads_as_a_match_policy(files):
    base = TabularPolicy.load(files["p00"])
    keys, probs = [], []
    for a in range(12):
        for b in range(12):
            k = base.keys.copy()
            k[:, L.K_SCORE0], k[:, L.K_SCORE1] = a, b
            keys.append(k)
            probs.append(base.probs)
    pol = TabularPolicy(np.concatenate(keys), np.concatenate(probs), params=base.params)
    assert pol.domain.mode == "match"
    check_bot_fits(pol, MATCH)
    check_bot_fits(pol, MATCH.replace(scores=(9, 5)))


def test_what_a_game_reaches():
    assert reached(DEAL) == ({0, 1}, {(0, 0)})
    assert reached(DEAL.replace(dealer=1, scores=(3, 4))) == ({1}, {(3, 4)})
    dealers, scores = reached(MATCH.replace(scores=(9, 5)))
    assert dealers == {0, 1} and scores == {(a, b) for a in range(9, 12) for b in range(5, 12)}


def test_abstract_scores_in_need_buckets_read_from_the_published_match_policy():
    """The four-player match policy (score_buckets=stakes, trained over every score state)
    covers every need bucket a match reaches; the points policy (no scores) every score."""
    match = parse_bot("results/match_4p/cason/policy.npz")
    assert match.domain.scores_as == "need" and match.domain.mode == "match"
    assert len(match.domain.scores) == 16  # needs 1..12: four buckets each way
    check_bot_fits(match, VitouParams(profile="vitou_cason", mode="match", dealer=-1))
    points = parse_bot("results/match_4p/cason_points/policy.npz")
    assert points.domain.scores is None
    check_bot_fits(points, VitouParams(profile="vitou_cason", mode="match", dealer=-1))


def test_abstract_policy_with_scores_trained_at_one_score_is_refused_elsewhere():
    from vitou_ai.abstraction.config import AbstractionConfig
    from vitou_ai.solvers.sampling.mccfr_abstract import AbstractMCCFR

    params = VitouParams(profile="vitou", ranks=3, copies=2, hand_size=1, dealer=-1,
                         target=9, scores=(3, 5))
    s = AbstractMCCFR(params, AbstractionConfig(scores=True), seed=1, threads=1,
                      max_infosets=1 << 14)
    s.iterate(200)
    pol = s.policy("scored")
    assert pol.domain.scores == {(3, 5), (5, 3)}  # own:other, for each team
    check_bot_fits(pol, params)
    with pytest.raises(ValueError, match="this deal is at 0:0"):
        check_bot_fits(pol, params.replace(scores=(0, 0)))
    with pytest.raises(ValueError, match="no trainer covers the matches"):
        check_bot_fits(pol, params.replace(mode="match"))


# ---- refusals: the tournament, simulate, the API ----------------------------------------------


def test_match_tournament_of_a_deal_policy_is_refused(files, tmp_path, capsys):
    """The finding: it scored -0.912 points per deal against counter, worse than random."""
    code = main(["tournament", "--bots", str(files["p00"]), "counter", *FLAGS,
                 "--out", str(tmp_path / "t"), "--no-progress"])
    err = one_line(capsys.readouterr().err)
    assert code == 2 and not (tmp_path / "t").exists()
    assert "trained for single deals at score 0:0, every dealer" in err
    assert "no strategy at 143 of them" in err and "play at random" in err
    assert "vitou-ai train --objective match --profile vitou_2p --ranks 4 --copies 2 " \
           "--hand-size 1" in err


def test_another_score_is_refused(files, capsys):
    pol = parse_bot(str(files["p95"]))
    with pytest.raises(ValueError, match="trained for single deals at score 9:5") as e:
        check_bot_fits(pol, DEAL)
    assert "this deal is at 0:0" in str(e.value) and "--score0" not in str(e.value)
    check_bot_fits(pol, DEAL.replace(scores=(9, 5)))
    with pytest.raises(ValueError, match="this deal is at 9:5") as e:
        check_bot_fits(parse_bot(str(files["p00"])), DEAL.replace(scores=(9, 5)))
    assert "--score0 9 --score1 5" in str(e.value)
    # a tournament's deals are at 0:0
    assert main(["tournament", "--bots", str(files["p95"]), "random", *FLAGS, "--deals", "40",
                 "--no-progress"]) == 2
    assert "this deal is at 0:0" in one_line(capsys.readouterr().err)
    # simulate in match mode
    assert main(["simulate", "--bots", str(files["p00"]), "random", *FLAGS, "--mode", "match",
                 "--deals", "50"]) == 2
    assert "a match from 0:0 to 12" in one_line(capsys.readouterr().err)


def test_the_api_refuses_and_allow_fallback_plays_and_reports(files):
    pol = TabularPolicy.load(files["p00"])
    with pytest.raises(ValueError, match="no strategy at 143"):
        simulate(MATCH, [pol, RandomPolicy()], 10)
    with pytest.raises(ValueError, match="no strategy at 143"):
        run_tournament([pol, named_bot("counter")], MATCH, 10)
    res = run_tournament([pol, named_bot("counter")], MATCH, 40, allow_fallback=True)
    fb = res.fallback[0]
    assert fb["name"] == "dcfr" and fb["fallback_to"] == "random" and fb["share"] > 0.5
    assert res.fallback[1]["fallback_to"] is None and res.fallback[1]["share"] == 0.0
    assert {r["bot"]: r["fallback_share"] for r in res.ratings}["dcfr"] == fb["share"]
    assert res.to_json()["fallback"][0]["fallbacks"] == fb["fallbacks"]


def test_the_dealer_refusal_is_kept(files):
    pol = _trained_dealer0()
    with pytest.raises(ValueError, match="half the deals"):
        check_bot_fits(pol, DEAL)


def _trained_dealer0() -> TabularPolicy:
    params = DEAL.replace(dealer=0)
    solver = make_solver("dcfr", params, tree=build_tree(params))
    solver.iterate(2)
    return solver.tabular_policy("d0")


# ---- the fallback share: counted, correct, reported; the threshold -------------------------


def _without_player(pol: TabularPolicy, player: int, name: str) -> TabularPolicy:
    keep = pol.keys[:, L.K_PLAYER] != player
    return TabularPolicy(pol.keys[keep], pol.probs[keep], name=name, params=pol.params)


def test_fallback_share_is_exact_on_a_table_without_one_seat(files):
    """Rows of seat 1's information states removed: seat 0 always finds its row, seat 1
    never; so every seat-1 decision falls back and none of seat 0's, and the share is
    seat 1's part of the decisions (the decision count is the simulator's, checked against
    its readable twin in test_sim_batch)."""
    half = _without_player(TabularPolicy.load(files["p00"]), 1, "half")
    res = simulate(DEAL, [half, half], 1000, seed=3, allow_fallback=True)
    t = np.asarray(res.table)
    assert (t[:, B.F_SEAT_FALLBACKS0] == 0).all()
    assert (t[:, B.F_SEAT_FALLBACKS0 + 1] == t[:, B.F_SEAT_DECISIONS0 + 1]).all()
    assert (t[:, B.F_SEAT_DECISIONS0] + t[:, B.F_SEAT_DECISIONS0 + 1] == t[:, B.F_DECISIONS]).all()
    want = t[:, B.F_SEAT_DECISIONS0 + 1].sum() / t[:, B.F_DECISIONS].sum()
    (fb,) = res.fallback
    assert fb["decisions"] == t[:, B.F_DECISIONS].sum() and fb["share"] == pytest.approx(want)
    assert 0.3 < fb["share"] < 0.7


def test_the_threshold_refuses_before_the_work_and_allow_plays(files, monkeypatch):
    half = _without_player(TabularPolicy.load(files["p00"]), 1, "half")
    played = []
    batch = B.simulate_batch

    def counting(params, pack, lineups, seed, row0, rotate, out):
        played.append(out.shape[0])
        return batch(params, pack, lineups, seed, row0, rotate, out)

    monkeypatch.setattr(B, "simulate_batch", counting)
    with pytest.raises(FallbackError, match=r"policy 'half' had no strategy at \d+\.\d% of its") \
            as e:
        simulate(DEAL, [half, RandomPolicy()], 100_000, seed=1, duplicate=True)
    assert "\n" not in str(e.value) and "--allow-fallback" in str(e.value)
    assert "(random)" in str(e.value)
    assert sum(played) == B.PROBE_GAMES  # refused after the probe, before the rest
    played.clear()
    with pytest.raises(FallbackError):
        run_tournament([half, RandomPolicy(), named_bot("counter")], DEAL, 100_000, seed=1)
    assert sum(played) <= 3 * B.PROBE_GAMES
    monkeypatch.undo()
    res = simulate(DEAL, [half, RandomPolicy()], 2000, seed=1, duplicate=True,
                   allow_fallback=True)
    t = np.asarray(res.table)
    swapped = t[:, B.F_VARIANT] == 1  # half at seat 1, where it has no rows
    mine = np.where(swapped, t[:, B.F_SEAT_DECISIONS0 + 1], t[:, B.F_SEAT_DECISIONS0])
    want = t[swapped, B.F_SEAT_DECISIONS0 + 1].sum() / mine.sum()
    assert res.fallback[0]["share"] == pytest.approx(want) and 0.3 < want < 0.7
    # within the limit: no refusal (FALLBACK_LIMIT is the largest share allowed)
    report = [{"name": "p", "share": B.FALLBACK_LIMIT, "decisions": 100, "fallback_to": "x"}]
    B.check_fallback(report, 10, "deal")
    report[0]["share"] = B.FALLBACK_LIMIT * 1.01
    with pytest.raises(FallbackError):
        B.check_fallback(report, 10, "deal")


def test_the_probe_leaves_the_table_bit_identical(files):
    pol = TabularPolicy.load(files["p00"])
    probed = simulate(DEAL, [pol, named_bot("counter")], 3000, seed=5, duplicate=True)
    whole = simulate(DEAL, [pol, named_bot("counter")], 3000, seed=5, duplicate=True,
                     allow_fallback=True)
    assert (probed.table == whole.table).all()
    assert probed.fallback[0]["share"] == 0.0 and probed.fallback[0]["decisions"] > 0


def test_the_commands_print_the_share(files, tmp_path, capsys):
    half = _without_player(TabularPolicy.load(files["p00"]), 1, "half")
    half.save(tmp_path / "half.npz")
    args = ["--bots", str(tmp_path / "half.npz"), "random", *FLAGS]
    assert main(["tournament", *args, "--deals", "400", "--out", str(tmp_path / "a"),
                 "--no-progress"]) == 2
    assert "--allow-fallback" in one_line(capsys.readouterr().err)
    assert not (tmp_path / "a").exists()
    assert main(["tournament", *args, "--deals", "400", "--out", str(tmp_path / "b"),
                 "--no-progress", "--allow-fallback"]) == 0
    text = capsys.readouterr().out
    line = [x for x in text.splitlines() if x.strip().startswith("half ")][-1]
    js = json.loads((tmp_path / "b" / "tournament.json").read_text())
    share = js["fallback"][0]["share"]
    assert f"{share:.2%}" in line and "(fallback: random)" in line and 0.3 < share < 0.7
    assert "--allow-fallback" in js["command"]
    assert "fallback_share" in (tmp_path / "b" / "ratings.csv").read_text().splitlines()[0]
    seat1 = ["--bots", "random", str(tmp_path / "half.npz"), *FLAGS]  # where it has no rows
    assert main(["simulate", *seat1, "--deals", "1000"]) == 2
    assert "had no strategy at 100.0% of its" in one_line(capsys.readouterr().err)
    assert main(["simulate", *seat1, "--deals", "1000", "--allow-fallback"]) == 0
    assert "half" in capsys.readouterr().out.split("fallback:")[1].split("100.00% of")[0]


# ---- play -------------------------------------------------------------------------------


def test_play_refuses_a_deal_policy_in_a_match_and_plays_it_deal_by_deal(files, capsys):
    """The README's "a bot you can play against": `vitou-ai play` plays a match, where a
    policy trained on single deals at 0:0 had no strategy after the first scoring deal."""
    spec = str(files["p00"])
    with pytest.raises(ValueError, match="--objective match"):
        play_match(profile="vitou_2p", opponents=spec, ranks=4, copies=2, hand_size=1,
                   seed=1, inp=io.StringIO("quit\n"), out=io.StringIO())
    assert main(["play", *FLAGS, "--opponents", spec, "--seed", "1"]) == 2
    err = one_line(capsys.readouterr().err)
    assert "play's --deal" in err and "vitou-ai train --objective match" in err
    out = io.StringIO()
    assert play_match(profile="vitou_2p", opponents=spec, ranks=4, copies=2, hand_size=1,
                      seed=1, inp=io.StringIO("1\n" * 20), out=out, deal=True) == 0
    text = out.getvalue()
    assert "one deal (R8.1)" in text and "the deal (" in text and "match" not in text.lower()


def test_domain_record_is_json_the_docs_describe(files):
    rec = json.loads(str(np.load(files["p95"])["domain"]))
    assert set(rec) == {"format", "profile", "knobs", "mode", "dealers", "scores", "scores_as",
                        "signals"}
    d = PolicyDomain("match", None, None, "own")
    assert json.loads(d.to_json(MATCH))["scores"] == "all"


def test_search_blueprint_lbr_and_environments_check_the_domain(files):
    import vitou_ai  # noqa: F401  (registers the search bot kind)
    from vitou_ai.eval.lbr import local_best_response

    spec = str(files["p95"])
    with pytest.raises(ValueError, match="this deal is at 0:0"):
        check_bot_fits(parse_bot(f"search:{spec},budget=0.1"), DEAL, search_ok=True)
    with pytest.raises(ValueError, match="this deal is at 0:0"):
        local_best_response(parse_bot(spec), DEAL, deals=10)
    pytest.importorskip("gymnasium", reason="the 'envs' extra")
    from vitou_ai.envs.gym_env import VitouEnv

    with pytest.raises(ValueError, match="a match from 0:0"):
        VitouEnv(**TINY, mode="match", dealer=-1, opponents=[str(files["p00"])])


def test_a_domain_with_no_rows_is_refused_as_having_no_rows():
    """A tabular policy with zero rows is refused saying so, not with empty score and
    dealer lists ("trained for single deals at scores , dealer seats ;") and a training
    command for another dealer."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=1)
    empty = PolicyDomain("deal", frozenset(), frozenset(), "teams", frozenset())
    msg = empty.refusal(params, "policy 'p' (p.npz)", params)
    assert msg is not None and "has no rows" in msg
    assert "scores ," not in msg and "--dealer" not in msg
