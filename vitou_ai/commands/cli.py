"""The ``vitou-ai`` command line.

Subcommands:

- ``vitou-ai demo``: replay the example hand histories shipped with the package
  and simulate a batch of random deals, printing a summary.
- ``vitou-ai replay [--json] PATH...``: replay hand histories (files or folders).
- ``vitou-ai simulate --profile P --deals N [--bots B ...]``: a batch of deals (or
  matches) between bots, any profile of the Vitou or Truc / Put family.
- ``vitou-ai tournament``: round robin between bots (:mod:`vitou_ai.commands.tournament`).
- ``vitou-ai play``: play a match in the terminal against bots (:mod:`vitou_ai.commands.play`).
- ``vitou-ai train``: train a strategy and log its exploitability (:mod:`vitou_ai.commands.train`).
- ``vitou-ai match-equity``: the match-equity table of ``vitou_2p``
  (:mod:`vitou_ai.commands.match_equity`).
- ``vitou-ai explore RUN [RUN2]``: browse a strategy in the browser
  (:mod:`vitou_ai.commands.explore`).
- ``vitou-ai lock RUN LOCKS --out DIR``: node locking, exploit and re-solve;
  ``vitou-ai report RUN [--against RUN2] --out DIR``: aggregate reports
  (:mod:`vitou_ai.commands.lock`).
- ``vitou-ai play|tournament --game vint``: Vint (:mod:`vitou_ai.commands.vint`);
  ``vitou-ai replay`` reads ``game = "vint"`` histories too.

Ctrl-C ends any of them with one line on stderr and exit code 130.
"""

from __future__ import annotations

import argparse
import errno
import json
import sys
import time
from pathlib import Path
from typing import Any

from .console import (
    EXIT_INTERRUPTED,
    SEED_RANGE,
    check_simulation_memory,
    interrupts_outside_numba,
    run_locks,
    seed_error,
)

EXIT_OK, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("demo", "replay", "tournament", "play", "train", "match-equity", "explore",
               "lock", "report")


def _collect(paths: list[str]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Files to replay (folders searched recursively for ``*.toml``) and the
    paths that give none, with the reason."""
    files, bad = [], []
    for p in paths:
        path = Path(p)
        if not p.strip():  # Path('') is '.': the whole current folder would be replayed
            bad.append((p, "no such file or folder (an empty path)"))
        elif path.is_dir():
            found = sorted(f for f in path.rglob("*.toml") if not f.is_dir())
            if found:
                files.extend(found)
            else:
                bad.append((p, "no .toml files in this folder"))
        elif path.exists():
            files.append(path)
        else:
            bad.append((p, "no such file or folder"))
    return files, bad


def replay_files(paths: list[str], as_json: bool, out=None, err=None) -> int:
    """Replay each history; print a line (or a JSON object) per file. Returns the exit code:
    0 all good, 1 an ``[expect]`` mismatch, 2 an error (bad file, broken rule)."""
    out = out or sys.stdout
    err = err or sys.stderr
    from ..rules.history import HandHistory, HistoryError, check_expect, replay, result_dict

    files, bad = _collect(paths)
    code = EXIT_OK
    for path, why in bad:
        code = EXIT_ERROR
        _emit(out, err, as_json, {"file": path, "error": {"message": why, "index": None,
                                                         "action": None, "rule": None}})
    from ..vint.history import is_vint_file, replay_for_cli

    for f in files:
        if is_vint_file(f):  # game = "vint": docs/RULES_vint.md V9
            code = max(code, replay_for_cli(f, as_json, out, err))
            continue
        record: dict[str, Any] = {"file": str(f)}
        try:
            hh = HandHistory.load(f)
            state = replay(hh)
        except HistoryError as e:
            code = EXIT_ERROR
            record["error"] = e.as_dict()
            _emit(out, err, as_json, record)
            continue
        except Exception as e:  # noqa: BLE001 - one bad file must not stop the batch
            code = EXIT_ERROR
            record["error"] = {"message": f"cannot replay: {type(e).__name__}: {e}",
                               "index": None, "action": None, "rule": None}
            _emit(out, err, as_json, record)
            continue
        record.update(result_dict(hh, state))
        diffs = check_expect(hh, record)
        if diffs:
            record["mismatch"] = diffs
            code = max(code, EXIT_MISMATCH)
        _emit(out, err, as_json, record)
    return code


def _emit(out, err, as_json: bool, record: dict[str, Any]) -> None:
    if as_json:
        print(json.dumps(record), file=out, flush=True)
        return
    if "error" in record:
        e = record["error"]
        where = f" [action {e['index']}" + (f", {e['rule']}]" if e["rule"] else "]") \
            if e["index"] is not None else (f" [{e['rule']}]" if e["rule"] else "")
        out.flush()
        print(f"{record['file']}: error{where}: {e['message']}", file=err, flush=True)
        return
    status = "MISMATCH " + "; ".join(record["mismatch"]) if "mismatch" in record else "ok"
    side = "seat" if record.get("profile") == "put_willughby" else "team"  # P7.5
    winner = "nobody" if record["winner"] is None else f"{side} {record['winner']}"
    paid = (f"points {record['points']}" if "points" in record
            else f"returns {record['returns']}")
    print(
        f"{record['file']}: end {record['end']}, {winner}, {paid}, "
        f"stake {record['stake']}, tricks {' '.join(record['tricks']) or '-'}: {status}",
        file=out, flush=True,
    )


def mean_pm(values, unit: str, spec: str = ".4f", sep: str = " ± ") -> str:
    """``"+m ± h"``: the mean of independent ``values`` (``float[n]``) and its 95%
    half-width (:func:`~vitou_ai.eval.stats.ratio_interval`), or ``"+m (n too small
    ...)"`` where the interval is withheld (:mod:`vitou_ai.eval.stats`)."""
    import numpy as np

    from ..eval.stats import interval_note, ratio_interval

    m, lo, hi = ratio_interval(values, np.ones(len(values)))
    note = interval_note(len(values), lo, hi, unit)
    if note is not None:
        return f"{m:+{spec}} ({note})"
    return f"{m:+{spec}}{sep}{(hi - lo) / 2:{spec}}"


def demo(n_deals: int, seed: int, out=None) -> int:
    """Replay the shipped examples, then simulate random deals for each profile."""
    out = out or sys.stdout
    import numpy as np

    from ..rules import RULES_VERSION, VitouParams
    from ..rules.layout import END_NAMES
    from ..sim.random_play import random_games

    examples = Path(__file__).parent.parent / "examples"
    print(f"vitou_ai {RULES_VERSION}: replaying the example hand histories in {examples}", file=out)
    code = replay_files([str(examples)], as_json=False, out=out)
    print(f"\nSimulating {n_deals:,} random deals per profile (uniformly random legal actions):",
          file=out)
    print(f"{'profile':<12} {'deals/s':>11} {'tricks':>7} {'refused':>8} {'declined':>9} "
          f"{'abandoned':>9} {'all void':>8} {'mean raises':>11} {'E[return p0]':>12}", file=out)
    for profile in ("vitou", "vitou_cason", "vitou_2p"):
        params = VitouParams(profile=profile).to_array()
        random_games(params, 64, seed)  # compile outside the timing
        t = time.perf_counter()
        res = random_games(params, n_deals, seed)
        rate = n_deals / (time.perf_counter() - t)
        share = np.bincount(res["end"], minlength=len(END_NAMES)) / n_deals
        ret = res["return0"]
        print(
            f"{profile:<12} {rate:>11,.0f} {share[1]:>7.1%} {share[2]:>8.1%} {share[3]:>9.1%} "
            f"{share[6]:>9.1%} {share[5]:>8.1%} {res['raises'].mean():>11.3f} "
            f"{mean_pm(ret, 'deals', '.3f', '±'):>13}",
            file=out,
        )
    return code


def simulate_command(args, out=None, err=None) -> int:
    """``vitou-ai simulate``: play deals (or matches) between bots and print how they ended.

    Seats take the ``--bots`` specs in turn (seat ``s`` plays ``bots[s % len(bots)]``).
    Exit code 0, or 2 on bad input (one line on ``err`` naming what and the rule).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    import numpy as np

    from ..bots.named import check_bot_fits, parse_bot, split_bot_specs
    from ..rules import VitouParams
    from ..rules.layout import END_NAMES
    from ..sim.batch import simulate
    from .tournament import print_fallback

    try:
        if not 1 <= args.deals <= 50_000_000:
            raise ValueError(f"--deals must be in 1 .. 50,000,000, got {args.deals}")
        check_simulation_memory(args.deals, f"--deals {args.deals:,}")
        if seed_error(args.seed):
            raise ValueError(seed_error(args.seed))
        from .tournament import willughby_knobs

        params = VitouParams(profile=args.profile, mode=args.mode, dealer=-1, target=args.target,
                             ranks=args.ranks, copies=args.copies, hand_size=args.hand_size,
                             **willughby_knobs(args))
        specs = split_bot_specs(args.bots)
        if len(specs) > params.players:
            raise ValueError(f"--bots: {len(specs)} bots for {params.players} seats "
                             f"({params.profile}): give at most {params.players}, one per seat "
                             "(fewer are taken in turn)")
        bots = [parse_bot(b) for b in specs]
        for b in bots:
            check_bot_fits(b, params, allow_fallback=getattr(args, "allow_fallback", False))
    except (ValueError, OSError) as e:
        print(f"vitou-ai simulate: error: {e}", file=err)
        return 2
    lineup = [bots[s % len(bots)] for s in range(params.players)]
    # compile outside the timing
    simulate(params, lineup, min(64, args.deals), seed=args.seed, allow_fallback=True)
    t = time.perf_counter()
    try:
        res = simulate(params, lineup, args.deals, seed=args.seed,
                       allow_fallback=getattr(args, "allow_fallback", False))
    except ValueError as e:  # a policy that falls back too often, refused after the probe
        print(f"vitou-ai simulate: error: {e}", file=err)
        return 2
    rate = args.deals / (time.perf_counter() - t)
    a = res.arrays()
    unit = "matches" if params.mode == "match" else "deals"
    names = ", ".join(f"seat {s}: {p.name}" for s, p in enumerate(lineup))
    print(f"{params.profile} ({unit}, {names}): {args.deals:,} {unit}, {rate:,.0f} {unit}/s",
          file=out)
    ends = np.bincount(a["end"], minlength=len(END_NAMES)) / args.deals
    # in match mode a row's ending is its last deal's; in deal mode, every deal's
    print(("last deal ended: " if params.mode == "match" else "deals ended: ") + ", ".join(f"{END_NAMES[e]} {ends[e]:.1%}"
                                          for e in range(1, len(END_NAMES)) if ends[e] > 0),
          file=out)
    if params.willughby:  # P7.5: each for themselves, a return per seat
        for s in range(params.players):
            ret = a[f"seat_return{s}"].astype(float)
            print(f"seat {s} ({lineup[s].name}): {mean_pm(ret, unit)} points per deal",
                  file=out)
        print(f"puts per deal {a['raises'].mean():.3f}, folds per deal "
              f"{a['refusals'].mean():.3f}", file=out)
        print_fallback(res.fallback, out)
        return 0
    ret = a["return0"].astype(float)
    what = "points per deal" if params.mode == "deal" else "match result (+1/-1)"
    print(f"team 0 ({lineup[0].name}): {mean_pm(ret, unit)} {what}; mean raises "
          f"{a['raises'].mean():.3f}", file=out)
    print_fallback(res.fallback, out)
    return 0


DESCRIPTION = ("Vitou, the trick-and-bluff card game of Nice: replay hand histories, simulate "
               "random deals, run tournaments between bots, play against them, train a strategy.")


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``vitou-ai`` parser and its subcommand parsers by name."""
    from .. import __version__
    from ..rules.params import ALL_PROFILES, RULES_VERSION
    from . import play as play_cli
    from . import tournament as tournament_cli
    from . import train as train_cli
    from .console import ArgumentParser, HelpFormatter

    parser = ArgumentParser(prog="vitou-ai", description=DESCRIPTION,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"vitou-ai {__version__} (rules {RULES_VERSION})",
                        help="print the version and the rules version, and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    subs: dict[str, argparse.ArgumentParser] = {}

    def add(name: str, text: str) -> argparse.ArgumentParser:
        subs[name] = sub.add_parser(name, help=text, description=text + ".",
                                    formatter_class=HelpFormatter)
        return subs[name]

    p_demo = add("demo", "replay the example histories and simulate random deals")
    p_demo.add_argument("--deals", type=int, default=1_000_000,
                        help="random deals per profile, 2 .. 50,000,000")
    p_demo.add_argument("--seed", type=int, default=0, help=f"random seed, {SEED_RANGE}")
    p_rep = add("replay", "replay hand histories (TOML files or folders, RULES.md section 10)")
    p_rep.add_argument("paths", nargs="+", metavar="PATH",
                       help="hand history files, or folders searched for *.toml")
    p_rep.add_argument("--json", action="store_true", help="one JSON object per file")
    p_sim = add("simulate", "a batch of deals or matches between bots, any profile")
    p_sim.add_argument("--profile", default="vitou", choices=ALL_PROFILES,
                       help="game profile (docs/RULES.md section 9, docs/RULES_family.md)")
    p_sim.add_argument("--deals", type=int, default=100_000, help="deals (or matches)")
    p_sim.add_argument("--mode", default="deal", choices=("deal", "match"),
                       help="one deal at a time, or whole matches")
    p_sim.add_argument("--bots", nargs="+", default=["random"], metavar="BOT",
                       help="bot per seat, at most one per seat; fewer are taken in turn "
                       "(seat s plays bot s mod the number given): named, NAME:field=value, or "
                       "FILE.npz")
    p_sim.add_argument("--seed", type=int, default=0, help=f"random seed, {SEED_RANGE}")
    p_sim.add_argument("--target", type=int, default=None,
                       help="match target (None: the profile's)")
    p_sim.add_argument("--ranks", type=int, default=None,
                       help="research variant: the top N ranks (None: the profile's deck)")
    p_sim.add_argument("--copies", type=int, default=4, help="research variant: copies of each rank")
    p_sim.add_argument("--hand-size", type=int, default=None,
                       help="cards per hand (default: 3; players + 1 in put_willughby)")
    tournament_cli.add_willughby_arguments(p_sim)
    tournament_cli.add_fallback_argument(p_sim)
    tournament_cli.add_arguments(add(
        "tournament", "round robin between bots: win rates, points per deal, Elo in match mode"))
    play_cli.add_arguments(add("play", "play a match in the terminal against bots"))
    for name in ("tournament", "play"):  # Vint has its own parser (vitou_ai.commands.vint)
        subs[name].epilog = (f"Vint: vitou-ai {name} --game vint [...]; its options: "
                             f"vitou-ai {name} --game vint --help.")
    train_cli.add_arguments(add(
        "train", "train a betting strategy (CFR family, MCCFR), log exploitability and win rates"))
    from . import match_equity as equity_cli

    equity_cli.add_arguments(add(
        "match-equity", "the match-equity table of vitou_2p: P(win the match) by score and "
        "dealer, each deal solved with match-equity payoffs"))
    from . import explore as explore_cli

    explore_cli.add_arguments(add(
        "explore", "browse a strategy in the browser: the public tree, the hand grid, two "
        "strategies side by side (needs the 'explore' extra)"))
    from . import lock as lock_cli

    lock_cli.add_lock_arguments(add(
        "lock", "node locking on a two-player public run: fix a player's play at chosen "
        "nodes, measure the best exploit and re-solve around the lock"))
    lock_cli.add_report_arguments(add(
        "report", "aggregate report of a two-player public run: raise, accept, refuse and "
        "bluff rates by trick, stake, position and hand class; value by hand class"))
    return parser, subs


def main(argv: list[str] | None = None) -> int:
    """Run ``vitou-ai`` with ``argv`` (default: the process's arguments); return the exit
    code. Ctrl-C anywhere ends the command with one line and exit code 130
    (:func:`vitou_ai.training.session.interrupts_outside_numba` keeps it out of compiled code)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = "vitou-ai" + (f" {argv[0]}" if argv and argv[0] in SUBCOMMANDS else "")
    try:
        with interrupts_outside_numba():
            from . import vint as vint_cli

            if vint_cli.wants_vint(argv):  # docs/RULES_vint.md
                return vint_cli.main(argv)
            refusal = vint_cli.refuse_vint(argv) or vint_cli.refuse_game(argv)
            if refusal:
                print(refusal, file=sys.stderr)
                return 2
            parser, subs = build_parser()
            args, extra = parser.parse_known_args(argv)
            if extra:  # named by the subcommand's parser, whose --help lists its options
                (subs.get(getattr(args, "command", None)) or parser).error(
                    f"unrecognized arguments: {' '.join(extra)}")
            args.argv = argv  # the command as typed, for run records
            with run_locks():  # the run folders a command claims, let go however it ends
                return _dispatch(args, subs)
    except KeyboardInterrupt:
        print(f"\n{command}: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    except OSError as e:
        # a second writer of a run folder (RunLockedError), or the machine refusing a
        # write (WriteError: full disk, quota, read-only): one line naming the file, not
        # a traceback; write_atomic has kept the file's earlier version
        from ..io import DISK_ERRORS, RunLockedError, WriteError, write_error

        if isinstance(e, RunLockedError | WriteError):
            print(f"{command}: {e}", file=sys.stderr, flush=True)
        elif e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):  # only writes fail so
            print(f"{command}: " + (str(write_error(Path(e.filename), e)) if e.filename else
                                    f"cannot write the results: {DISK_ERRORS[e.errno]}"),
                  file=sys.stderr, flush=True)
        else:
            raise
        return EXIT_ERROR


def _dispatch(args: argparse.Namespace, subs: dict[str, argparse.ArgumentParser]) -> int:
    if args.command == "train":
        from . import train as train_cli

        return train_cli.run(args)
    if args.command == "match-equity":
        from . import match_equity as equity_cli

        return equity_cli.command(args)
    if args.command == "explore":
        from . import explore as explore_cli

        return explore_cli.command(args)
    if args.command in ("lock", "report"):
        from . import lock as lock_cli

        return (lock_cli.lock_command if args.command == "lock" else lock_cli.report_command)(args)
    if args.command == "replay":
        return replay_files(args.paths, args.json)
    if args.command == "simulate":
        return simulate_command(args)
    if args.command == "tournament":
        from . import tournament as tournament_cli

        return tournament_cli.tournament_command(args)
    if args.command == "play":
        from . import play as play_cli

        return play_cli.play_command(args)
    if not 2 <= args.deals <= 50_000_000:
        subs["demo"].error(f"--deals must be in 2 .. 50,000,000, got {args.deals}")
    if seed_error(args.seed):
        subs["demo"].error(seed_error(args.seed))
    from ..resources import check_memory

    try:  # random_games' columns: 16 bytes a deal, and the returns read back
        check_memory(24.0 * args.deals, f"--deals {args.deals:,}", "give fewer")
    except ValueError as e:
        subs["demo"].error(str(e))
    return demo(args.deals, args.seed)


def entry() -> int:
    """Console-script entry: :func:`main`, quiet on a closed pipe (``| head``)."""
    try:
        code = main()
        sys.stdout.flush()  # before exiting: a Ctrl-C now ends the process at once
        return code
    except BrokenPipeError:
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout
        return 1


if __name__ == "__main__":
    sys.exit(entry())
