"""`vitou-ai replay` and `vitou-ai demo`: output, exit codes, bad input (RULES.md section 10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vitou_ai.commands.cli import main

HERE = Path(__file__).parent
GOOD = """profile = "vitou"
dealer = 3
scores = [0, 0]
hands = ["T 9 A", "K Q J", "8 7 7", "T A K"]
actions = ["p0 raise", "p0 play T", "p1 refuse"]
[expect]
points = [1, 0]
"""


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_replay_json_record(tmp_path, capsys):
    code, out, _ = run(["replay", "--json", write(tmp_path, "a.toml", GOOD)], capsys)
    assert code == 0
    rec = json.loads(out)
    assert rec["profile"] == "vitou" and rec["winner"] == 0 and rec["points"] == [1, 0]
    assert rec["stake"] == 1 and rec["end"] == "refused" and rec["tricks"] == []
    assert rec["returns"] == [1, -1, 1, -1]


def test_replay_many_files_and_folders(capsys):
    code, out, _ = run(["replay", "--json", str(HERE / "golden"), str(HERE / "golden" /
                        "r3_1_row1_x_x.toml")], capsys)
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == len(list((HERE / "golden").glob("*.toml"))) + 1
    baraque = [r for r in records if r["file"].endswith("r4_1_ladder_to_b.toml")][0]
    assert baraque["stake"] == "B" and baraque["points"] == [16, 0] or baraque["points"] == [0, 16]


def test_expect_mismatch_exits_1(tmp_path, capsys):
    code, out, _ = run(["replay", write(tmp_path, "m.toml", GOOD.replace("[1, 0]", "[0, 1]"))],
                       capsys)
    assert code == 1 and "MISMATCH points" in out


def test_rule_break_exits_2_with_index_action_rule(tmp_path, capsys):
    bad = GOOD.replace('"p1 refuse"', '"p2 refuse"')
    code, out, _ = run(["replay", "--json", write(tmp_path, "b.toml", bad)], capsys)
    assert code == 2
    err = json.loads(out)["error"]
    assert err["index"] == 2 and err["action"] == "p2 refuse" and err["rule"] == "R2.1"
    code, _, text = run(["replay", write(tmp_path, "b.toml", bad)], capsys)
    assert code == 2 and "action 2" in text and "seat 1's turn" in text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("profile = \"vitou\"\ndealer = [", "malformed TOML"),
        (GOOD.replace('profile = "vitou"', 'profile = "bridge"'), "unknown profile"),
        ("turbo = true\n" + GOOD, "unknown key(s) ['turbo']"),
        (GOOD.replace('"T 9 A", "K Q J"', '"T T A", "T T J"'), "5 cards of rank T"),
        (GOOD.replace('"T 9 A"', '"T 9"'), "2 cards, hand_size is 3"),
        (GOOD.replace('"T 9 A"', '"T 9 X"'), "'X' is not a rank"),
        (GOOD.replace("dealer = 3", "dealer = 7"), "dealer must be a seat, 0 to 3, got 7"),
        (GOOD.replace('"p1 refuse"', '"p1 dance"'), "bad action"),
        (GOOD.replace(', "p1 refuse"', ""), "the deal is not over"),
        (GOOD.replace('"p1 refuse"', '"p1 refuse", "p2 play 8"'), "already over"),
        (GOOD.replace('"p0 raise"', '"p0 raise 6"'), "next step is 3"),
        (GOOD.replace("scores = [0, 0]", "scores = [25, 0]"), "scores[0] must be in"),
        (GOOD.replace("points = [1, 0]", "pointz = [1, 0]"), "unknown [expect] key"),
    ],
)
def test_bad_files_exit_2_with_a_clear_message(tmp_path, capsys, text, fragment):
    code, out, _ = run(["replay", "--json", write(tmp_path, "x.toml", text)], capsys)
    assert code == 2
    assert fragment in json.loads(out)["error"]["message"]


def test_missing_path_exits_2(capsys):
    code, out, _ = run(["replay", "--json", "/no/such/history.toml"], capsys)
    assert code == 2 and json.loads(out)["error"]["message"] == "no such file or folder"


def test_console_script_no_traceback(tmp_path):
    """The installed entry point reports bad input without a Python traceback."""
    p = write(tmp_path, "x.toml", "hands = 3\n")
    r = subprocess.run([sys.executable, "-m", "vitou_ai", "replay", p],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "missing key" in r.stderr


def test_demo_runs(capsys):
    code, out, _ = run(["demo", "--deals", "2000"], capsys)
    assert code == 0
    assert "vitou_2p" in out and "rules_section10.toml" in out


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8 text"),
        (b"x = " + b"[" * 1000 + b"]" * 1000, "malformed TOML"),
        (GOOD.replace("scores = [0, 0]", "scores = [inf, 0]").encode(), "scores must be"),
        (GOOD.replace("scores = [0, 0]", 'scores = ["5", "3"]').encode(), "scores must be"),
        (GOOD.replace('"p0 raise"', '"p\u00b2 raise"').encode(), "expected 'pS VERB"),
        (GOOD.replace('"p0 raise"', '"p00 raise"').encode(), "expected 'pS VERB"),
        (GOOD.replace("dealer = 3", "dealer = " + "9" * 5000).encode(), "malformed TOML"),
        (GOOD.replace("signal_seen", "x").replace("dealer = 3", "dealer = 3\nsignal_seen = true")
         .encode(), "signal_seen must be a number"),
    ],
)
def test_hostile_files_exit_2_and_the_batch_goes_on(tmp_path, capsys, data, fragment):
    (tmp_path / "a_bad.toml").write_bytes(data)
    (tmp_path / "b_good.toml").write_text(GOOD)
    code, out, _ = run(["replay", "--json", str(tmp_path)], capsys)
    assert code == 2
    bad, good = [json.loads(line) for line in out.splitlines()]
    assert fragment in bad["error"]["message"]
    assert good["end"] == "refused"


def test_typed_expectations(tmp_path, capsys):
    # an [expect] value of the wrong type is a malformed file (exit 2), not a mismatch
    code, _, err = run(["replay", write(tmp_path, "s.toml", GOOD.replace("[1, 0]",
                                                                         '"[1, 0]"'))], capsys)
    assert code == 2 and "[expect] points must be a list of numbers" in err
    code, _, _ = run(["replay", write(tmp_path, "f.toml", GOOD.replace("[1, 0]", "[1.0, 0.0]"))],
                     capsys)
    assert code == 0


def test_empty_folder_and_folder_named_toml(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "x.toml").mkdir()
    code, out, _ = run(["replay", "--json", str(tmp_path / "empty"), str(tmp_path / "x.toml")],
                       capsys)
    assert code == 2
    msgs = [json.loads(line)["error"]["message"] for line in out.splitlines()]
    assert msgs == ["no .toml files in this folder", "no .toml files in this folder"]


def test_demo_rejects_bad_options():
    with pytest.raises(SystemExit):
        main(["demo", "--seed", "-1"])
    with pytest.raises(SystemExit):
        main(["demo", "--deals", "1"])


# ---- help, usage, refusals, bot lists, tournament folders ----


def test_every_option_of_every_subcommand_has_help_with_its_default():
    import argparse

    from vitou_ai.commands.cli import build_parser
    from vitou_ai.commands.vint import _parser as vint_parser

    _, subs = build_parser()
    assert set(subs) == {"demo", "replay", "simulate", "tournament", "play", "train",
                         "match-equity", "explore", "lock", "report"}
    vint_subs = next(a for a in vint_parser()._actions
                     if isinstance(a, argparse._SubParsersAction)).choices
    subs.update({f"{name} --game vint": sp for name, sp in vint_subs.items()})
    missing = []
    for name, sp in subs.items():
        fmt = sp._get_formatter()
        for action in sp._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            text = fmt._expand_help(action) if action.help else ""
            if not text or (action.option_strings and "default" not in text):
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, "options without help or default: " + ", ".join(missing)


def test_top_help_has_no_doc_markup(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "``" not in out and ":mod:" not in out
    assert "train" in out and "tournament" in out


def test_demo_bad_deals_is_one_line_naming_the_command(capsys):
    with pytest.raises(SystemExit) as e:
        main(["demo", "--deals", "-1"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("vitou-ai demo: --deals must be in") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["train", "--iterations", "abc"], ["tournament", "--bogus"],
                                  ["simulate", "--profile", "chess"], ["nosuchcommand"], [],
                                  ["play", "--game", "vint", "--seed", "x"]])
def test_argparse_errors_are_one_line(argv, capsys):
    """argparse's refusals are one line with the command and where to look, as the
    commands' own refusals are (the usage block before them was 5-20 lines)."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's exit, or main's return code (the Vint commands)
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vitou-ai") and "--help" in err, err


def test_a_value_starting_with_a_dash_is_told_how_to_write_it(capsys):
    """argparse reads ``--scores -1:0`` as two options ("expected one argument"); the
    line says how to pass such a value."""
    with pytest.raises(SystemExit) as e:
        main(["explore", "somewhere", "--scores", "-1:0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scores=VALUE" in err, err


def test_play_refuses_a_partner_in_a_two_player_game(capsys):
    assert main(["play", "--profile", "vitou_2p", "--partner", "bluffer", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert "--partner" in err and "two-player" in err


TINY_TOURNAMENT = ["tournament", "--profile", "vitou_2p", "--ranks", "3", "--copies", "1",
                   "--hand-size", "1", "--deals", "20", "--no-progress"]


def test_tournament_without_out_never_overwrites_an_earlier_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*TINY_TOURNAMENT, "--bots", "random", "cautious"]) == 0
    assert main([*TINY_TOURNAMENT, "--bots", "random", "bluffer"]) == 0
    folders = sorted((tmp_path / "runs").iterdir())
    assert len(folders) == 2
    bots = [json.loads((f / "tournament.json").read_text()) for f in folders]
    assert "cautious" in json.dumps(bots[0]) and "bluffer" in json.dumps(bots[1])


def test_tournament_reads_the_comma_form_of_bots_too(tmp_path, capsys):
    assert main([*TINY_TOURNAMENT, "--bots", "random,cautious", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cautious" in out and "random" in out


def test_bot_lists_split_at_spaces_and_commas():
    from vitou_ai.bots.named import split_bot_specs

    assert split_bot_specs(["random,counter:bluff=0.2,raise_at=0.7", "cautious",
                            "runs/a=1/policy.npz:fallback=counter"]) == [
        "random", "counter:bluff=0.2,raise_at=0.7", "cautious",
        "runs/a=1/policy.npz:fallback=counter"]


def test_ctrl_c_waits_while_numba_is_on_the_stack():
    """A KeyboardInterrupt raised inside numba's callbacks (``_numba_unpickle``, called
    from compiled code) crashed the process; the handler asks again later instead."""
    import signal
    from types import SimpleNamespace

    from vitou_ai.training import session as console

    inner = SimpleNamespace(f_globals={"__name__": "numba.core.serialize"}, f_back=None)
    ours = SimpleNamespace(f_globals={"__name__": "vitou_ai.commands.train"}, f_back=inner)
    previous = signal.signal(signal.SIGALRM, lambda *a: None)
    try:
        assert console._on_sigint(signal.SIGINT, ours) is None  # numba below: wait
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # ... and ask again soon
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with pytest.raises(KeyboardInterrupt):
        console._on_sigint(signal.SIGINT, SimpleNamespace(
            f_globals={"__name__": "vitou_ai.commands.train"}, f_back=None))


class _Stop(Exception):
    pass


def test_sampling_solver_tree_cap_is_what_the_message_and_help_say(tmp_path, monkeypatch,
                                                                    capsys):
    """es-mccfr with --exact auto builds at most AUTO_TREE_NODES nodes for the exact
    evaluation: the note says so and why, and --help names that cap next to the
    --max-tree-nodes default (it used to say only "at most 2,000,000 nodes")."""
    from vitou_ai.commands import train as T
    from vitou_ai.solvers.flat import tree as tree_mod
    built = []

    def fake_build(params, max_nodes):
        built.append(max_nodes)
        raise _Stop

    monkeypatch.setattr(tree_mod, "build_tree", fake_build)
    with pytest.raises(_Stop):
        main(["train", "--profile", "vitou_2p", "--ranks", "4", "--copies", "2",
              "--hand-size", "1", "--solver", "es-mccfr", "--iterations", "10",
              "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert built == [T.AUTO_TREE_NODES]
    assert f"at most {T.AUTO_TREE_NODES:,} nodes, for the exact evaluation" in err
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert f"at most {T.AUTO_TREE_NODES:,} nodes" in helptext


def test_unrecognized_arguments_point_to_the_subcommands_help(capsys):
    """An option the subcommand does not have is refused pointing to that subcommand's
    --help, which lists its options (it used to point to ``vitou-ai --help``)."""
    with pytest.raises(SystemExit) as e:
        main(["play", "--profile", "vitou_2p", "--score0", "3"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --score0 3 (see vitou-ai play --help)" in err
