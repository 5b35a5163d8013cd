"""The commands take the Truc / Put family profiles: replay, simulate, tournament, play,
train; and refuse bad input in one line naming the rule (docs/RULES_family.md)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from vitou_ai.commands.cli import main
from vitou_ai.commands.play import play_match
from vitou_ai.rules.params import FAMILY_PROFILES

HERE = Path(__file__).parent


def test_replay_family_histories(capsys):
    assert main(["replay", str(HERE / "golden_family")]) == 0
    assert main(["replay", "--json", str(HERE / "golden_family_bad" /
                                         "bad_c5_2_raise_at_11.toml")]) == 2
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rec["error"]["rule"] == "C5.2" and rec["error"]["index"] == 1


@pytest.mark.parametrize("profile", FAMILY_PROFILES)
def test_simulate_every_profile(profile, capsys):
    assert main(["simulate", "--profile", profile, "--deals", "3000", "--bots", "random",
                 "counter"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(profile) and "3,000 deals" in text


def test_simulate_refuses_bad_input(capsys):
    assert main(["simulate", "--profile", "put", "--ranks", "14"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ranks must be in [2, 13]" in err
    with pytest.raises(SystemExit):
        main(["simulate", "--profile", "truco"])


def test_tournament_family(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "--profile", "truc_catalan_2p", "--deals", "400", "--bots",
                 "random", "cautious", "--out", str(out), "--no-progress"]) == 0
    assert (out / "tournament.json").exists()
    assert main(["tournament", "--profile", "trut", "--matches", "20", "--bots", "random",
                 "bluffer", "--out", str(tmp_path / "t2"), "--no-progress"]) == 0


@pytest.mark.parametrize("profile", ["put", "truc_catalan", "truc_1912", "put_partnership"])
def test_play_scripted_match(profile):
    out = io.StringIO()
    inp = io.StringIO("\n".join(["foo", "99"] + ["1"] * 3000) + "\n")
    code = play_match(profile=profile, seed=3, target=3, inp=inp, out=out)
    text = out.getvalue()
    assert code == 0 and "Traceback" not in text
    assert re.search(r"Your team (wins|loses) the match", text) or "draw" in text


def test_train_put_small(tmp_path):
    run = tmp_path / "run"
    assert main(["train", "--profile", "put", "--ranks", "4", "--copies", "2", "--hand-size",
                 "1", "--solver", "dcfr", "--iterations", "40", "--eval-every", "20",
                 "--eval-deals", "200", "--out", str(run), "--no-progress"]) == 0
    info = json.loads((run / "run.json").read_text())
    assert info["params"]["profile"] == "put"
    assert main(["tournament", "--profile", "put", "--ranks", "4", "--copies", "2",
                 "--hand-size", "1", "--deals", "200", "--bots", str(run / "policy.npz"),
                 "random", "--out", str(tmp_path / "t"), "--no-progress"]) == 0


def test_train_flat_defaults_to_the_profiles_whole_deck(tmp_path, capsys):
    """``vitou-ai train --profile truc_catalan_2p`` solved the top 8 of Catalan's 10
    ranks (the default was Vitou's 8) without a word; it takes the profile's whole deck
    now, and the run's first line says which deck it is."""
    from vitou_ai.commands.cli import main

    assert main(["train", "--profile", "truc_catalan_2p", "--iterations", "1", "--exact", "no",
                 "--eval-deals", "2", "--bots", "random", "--out", str(tmp_path / "r"),
                 "--no-progress"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "truc_catalan_2p (10 ranks x 4 copies, 2-card hands)" in first, first
