"""``vitou-ai tournament``: the command-line front of :mod:`vitou_ai.eval.tournament`
(argument checks, progress bar, printed summary, output files)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from .console import (
    SEED_RANGE,
    check_simulation_memory,
    check_writable,
    claim_run_folder,
    new_folder,
    note,
    seed_error,
    show_progress,
)

#: games per pairing when neither --deals nor --matches is given
DEFAULT_MATCHES = 200
#: deals per pairing of ``put_willughby`` when neither --deals nor --matches is given: it is
#: played in deal mode only (docs/RULES_family.md P7.6)
DEFAULT_WILLUGHBY_DEALS = 2000
#: show a progress bar from this many games in total
PROGRESS_FROM = 20_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``vitou-ai tournament``."""
    from ..bots.named import NAMED_BOTS
    from ..rules.params import ALL_PROFILES

    p.add_argument("--bots", nargs="+", default=list(NAMED_BOTS), metavar="BOT",
                   help="bot specs, space-separated: a name (" + ", ".join(NAMED_BOTS) + "; "
                   "heuristic: the default heuristic parameters), NAME:field=value,... for a "
                   "heuristic variant, a tabular or abstract policy FILE.npz[:fallback=NAME], "
                   "a network nfsp:FILE.npz (also deep_cfr:, ppo:, neural:), or "
                   "search:BLUEPRINT[,budget=SECONDS][,safe=auto|maxmargin|resolve|none] (real-time search; --deals only)")
    p.add_argument("--profile", default="vitou", choices=ALL_PROFILES,
                   help="game profile: RULES.md section 9, or a Truc / Put family profile "
                   "(docs/RULES_family.md)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--deals", type=int,
                      help="deals per pairing, at least 4: duplicate pairs, the interval needs "
                      "two (deal mode, R8.1; default: match mode)")
    size.add_argument("--matches", type=int,
                      help=f"matches per pairing, at least 4: duplicate pairs, the interval "
                      f"needs two (match mode, R8.2; default "
                      f"{DEFAULT_MATCHES})")
    p.add_argument("--seed", type=int, default=0, help=f"random seed, {SEED_RANGE}")
    p.add_argument("--target", type=int, default=None, help="match target (default: the profile's)")
    p.add_argument("--signals", action="store_true", help="gestures on (R7; four players)")
    p.add_argument("--ranks", type=int, default=None,
                   help="research variant: top N ranks (default: the whole deck)")
    p.add_argument("--copies", type=int, default=4, help="research variant: copies per rank")
    p.add_argument("--hand-size", type=int, default=None,
                   help="research variant: cards per hand (default: 3; players + 1 in "
                   "put_willughby)")
    add_willughby_arguments(p)
    p.add_argument("--dealer", type=int, default=None, metavar="SEAT",
                   help="deal every game from this seat (0 .. players - 1; in match mode the "
                   "first deal of every match), for a policy trained with one dealer seat "
                   "(vitou-ai train --dealer SEAT); the bots are checked for it (default: the "
                   "first dealer rotates over the duplicate pairs)")
    p.add_argument("--out", default=None,
                   help="output folder, new or empty (default: a new "
                   "runs/tournament-<profile>-<time>)")
    p.add_argument("--force", action="store_true",
                   help="write into an --out that is not empty, replacing an earlier "
                   "tournament's files")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (there is none when stderr is not a terminal)")
    add_fallback_argument(p, search=True)


def add_fallback_argument(p: argparse.ArgumentParser, search: bool = False) -> None:
    """``--allow-fallback``: play a policy file that has no strategy at more than
    :data:`~vitou_ai.sim.batch.FALLBACK_LIMIT` of its decisions, or outside the scores
    (and dealer seats) its table covers; ``search``: the command takes search bots, whose
    blueprint must fit all the same (said in the help)."""
    from ..sim.batch import FALLBACK_LIMIT

    text = (f"play a tabular or abstract policy file outside the scores and dealer seats "
            f"its table covers, or that has no strategy at more than {FALLBACK_LIMIT:.0%}% "
            "of its decisions (measured on the first games): its fallback (random play or "
            "a heuristic bot) plays there. Refused otherwise; the share is printed either "
            "way. A policy trained with one dealer seat (vitou-ai train --dealer SEAT) is "
            "refused wherever another seat deals, with this option or without")
    if search:
        text += (" (here: pass --dealer SEAT). A search bot's blueprint must cover the scores "
                 "and dealer seats of the game as played, option or not, because the search "
                 "takes the ranges and its safe gadget's values in every subgame from the "
                 "blueprint's strategy there; a blueprint with no strategy at some "
                 "information states of that game (a short sampling run) is played under "
                 "this option, its share measured with the blueprint in the bot's place")
    p.add_argument("--allow-fallback", action="store_true", help=text)


def print_fallback(report, out: TextIO, width: int = 16) -> None:
    """The fallback share of each bot that can fall back (a tabular or abstract policy):
    the share of its decisions played by its fallback, and what that is."""
    rows = [r for r in report if r["fallback_to"] is not None]
    if not rows:
        return
    print("\nfallback: the share of each policy's decisions at information states it has no "
          "strategy for, played by its fallback", file=out)
    for r in rows:
        share = "not measured" if r["share"] is None else f"{r['share']:.2%}"
        print(f"  {r['name']:<{width}} {share:>12} of {r['decisions']:,} decisions "
              f"(fallback: {r['fallback_to']})", file=out)
    measured = {r.get("measured") for r in rows} - {None}
    for m in sorted(measured):
        print(f"  (counted on {m})", file=out)


def print_search(report, out: TextIO, width: int = 16) -> None:
    """The share of its decisions each search bot searched, and why it did not search the
    others (its blueprint played them)."""
    if not report:
        return
    print("\nsearch: the share of each search bot's decisions it searched (the others: its "
          "blueprint)", file=out)
    for r in report:
        share = "no decisions" if r["searched_share"] is None else f"{r['searched_share']:.1%}"
        print(f"  {r['name']:<{width}} {share:>12} of {r['decisions']:,} decisions", file=out)
        for x in r["reasons"]:
            print(f"  {'':<{width}} {x['decisions']:>12,} not searched: {x['reason']}", file=out)


def add_willughby_arguments(p: argparse.ArgumentParser) -> None:
    """``--players``, ``--put-stake``, ``--fold-pays``: Willughby's Put's knobs
    (docs/RULES_family.md P7.0, P7.5); refused, naming P7, for another profile."""
    p.add_argument("--players", type=int, default=None,
                   help="put_willughby: 3 or 4 players, each for themselves (P7.0; default 3)")
    p.add_argument("--put-stake", type=int, default=None,
                   help="put_willughby: what each player still in pays the winner after a put "
                   "(P7.5; default 5)")
    p.add_argument("--fold-pays", default=None, choices=("nothing", "stake"),
                   help="put_willughby: a folder pays nothing, or 1 to the putter (P7.5)")


def willughby_knobs(args: argparse.Namespace) -> dict:
    """The Willughby knobs given on the command line (:func:`add_willughby_arguments`)."""
    return {k: getattr(args, k) for k in ("players", "put_stake", "fold_pays")
            if getattr(args, k, None) is not None}


def command_line(args: argparse.Namespace, mode: str, games: int, out_dir: Path) -> str:
    """The ``vitou-ai tournament`` command that reproduces ``args`` (every setting
    that changes the result spelled out) into ``out_dir``, for the output's
    ``tournament.json``."""
    import shlex

    from ..bots.named import split_bot_specs

    words = ["vitou-ai", "tournament", "--profile", args.profile, "--bots",
             *split_bot_specs(args.bots),
             f"--{'deals' if mode == 'deal' else 'matches'}", str(games), "--seed", str(args.seed)]
    if args.target is not None:
        words += ["--target", str(args.target)]
    if args.signals:
        words.append("--signals")
    for opt, value, default in (("--ranks", args.ranks, None), ("--copies", args.copies, 4),
                                ("--hand-size", args.hand_size, None),
                                ("--players", args.players, None),
                                ("--put-stake", args.put_stake, None),
                                ("--fold-pays", args.fold_pays, None)):
        if value != default:
            words += [opt, str(value)]
    if getattr(args, "dealer", None) is not None:
        words += ["--dealer", str(args.dealer)]
    if getattr(args, "allow_fallback", False):
        words.append("--allow-fallback")
    return shlex.join([*words, "--out", str(out_dir)])


def name_by_file(policies: list, specs: list[str]) -> None:
    """Rename the policies read from files whose names another entrant shares (two
    ``policy.npz`` of ``vitou-ai train`` are both ``vitou-abstract``): each takes its
    file's stem, or the file as given when stems collide too, so that the results say
    which file is which (``tournament.json`` also records each entrant's file)."""
    from collections import Counter

    count = Counter(p.name for p in policies)
    files = [getattr(p, "path", None) for p in policies]
    stems = Counter(Path(f).stem for f in files if f)
    for p, f, spec in zip(policies, files, specs, strict=True):
        if f and count[p.name] > 1:
            p.name = Path(f).stem if stems[Path(f).stem] == 1 else spec


def tournament_command(args: argparse.Namespace, out: TextIO | None = None,
                       err: TextIO | None = None) -> int:
    """Run the tournament of ``args``; exit code 0, or 2 on bad input (message on ``err``)."""
    out = out or sys.stdout
    err = err or sys.stderr
    from ..bots.named import check_bot_fits, parse_bot, split_bot_specs
    from ..eval.search_match import played_params
    from ..eval.stats import format_interval
    from ..eval.tournament import run_tournament, write_outputs
    from ..rules.params import VitouParams

    mode, games = ("deal", args.deals) if args.deals is not None else (
        "match", args.matches if args.matches is not None else DEFAULT_MATCHES)
    if args.profile == "put_willughby" and args.deals is None and args.matches is None:
        mode, games = "deal", DEFAULT_WILLUGHBY_DEALS  # P7.6: deal mode only
    try:
        if games < 4:  # games come in duplicate pairs: one pair has no interval (a zero-width
            # one was printed for --deals 2 and 3)
            raise ValueError(f"--{'matches' if mode == 'match' else 'deals'} must be at least "
                             f"4 (two duplicate pairs: the 95% intervals need two), got {games}")
        if games > 100_000_000:
            raise ValueError(f"at most 100,000,000 games per pairing, got {games}")
        # a pairing's table is held twice while its blocks are joined
        check_simulation_memory(2 * games, f"--{'matches' if mode == 'match' else 'deals'} "
                                f"{games:,}")
        if seed_error(args.seed):
            raise ValueError(seed_error(args.seed))
        params = VitouParams(profile=args.profile, mode=mode, dealer=-1, signals=args.signals,
                             target=args.target, ranks=args.ranks, copies=args.copies,
                             hand_size=args.hand_size, **willughby_knobs(args))
        dealer = getattr(args, "dealer", None)
        rotate = dealer is None
        if not rotate:
            if not 0 <= dealer < params.players:
                raise ValueError(f"--dealer must be a seat of the game, 0 .. "
                                 f"{params.players - 1} ({params.profile}: {params.players} "
                                 f"players), got {dealer}; leave it out for the first dealer "
                                 "rotating over the duplicate pairs")
            params = params.replace(dealer=dealer)
        specs = split_bot_specs(args.bots)
        policies = [parse_bot(b) for b in specs]
        name_by_file(policies, specs)  # first, so that a refusal says which file
        for pol in policies:  # for the game as played (its dealer), before any work
            if getattr(pol, "kind", None) == "search" and mode != "deal":
                # first: its blueprint's refusal would only lead to this one
                raise ValueError(f"bot {pol.name!r}: a search bot plays tournaments in deal "
                                 "mode (--deals N): it re-solves the deal's public subgame "
                                 "(R8.1)")
            check_bot_fits(pol, played_params(params, rotate), search_ok=True,
                           allow_fallback=getattr(args, "allow_fallback", False))
        if args.out is not None and not args.out.strip():  # Path('') is the current folder
            raise ValueError("--out is empty: give a folder, or leave --out out")
        check_writable(args.out if args.out is not None else "runs")  # before the run
        if (args.out is not None and not getattr(args, "force", False)
                and Path(args.out).is_dir() and any(Path(args.out).iterdir())):
            raise ValueError(f"--out {args.out}: not empty (an earlier tournament or run would "
                             "be overwritten): choose a new or empty folder, or pass --force")
        if len(policies) < 2:
            raise ValueError("--bots needs at least two bots")
        if args.out is not None:  # one writer per output folder (vitou_ai.io.RunLock)
            import shlex

            claim_run_folder(args.out, "tournament",
                             "vitou-ai " + shlex.join(getattr(args, "argv", None) or []))
    except (ValueError, OSError) as e:
        print(f"vitou-ai tournament: error: {e}", file=err)
        return 2
    n = len(policies)
    if games % 2:
        note("tournament", f"{games} {'deals' if mode == 'deal' else 'matches'} per pairing "
             f"rounded up to {games + 1}: they are played in duplicate pairs", err)
    total = (games + games % 2) * n * (n - 1) // 2
    bar = None
    if total >= PROGRESS_FROM:  # long enough to want a word before the first result
        note("tournament", f"{total:,} {mode}es in all" if mode == "match" else
             f"{total:,} deals in all", err)
    if show_progress(err, args.no_progress) and total >= PROGRESS_FROM:
        from tqdm import tqdm

        bar = tqdm(total=total, unit=mode, desc="tournament", file=err, mininterval=0.5)
    try:
        result = run_tournament(policies, params, games, seed=args.seed,
                                progress=bar.update if bar else None,
                                allow_fallback=getattr(args, "allow_fallback", False),
                                rotate_dealer=rotate)
    except ValueError as e:  # a bot that falls back too often: refused before the round robin
        print(f"vitou-ai tournament: error: {e}", file=err)
        return 2
    finally:
        if bar is not None:
            bar.close()
    try:  # a folder of its own unless --out names one: an earlier tournament is never overwritten
        out_dir = Path(args.out) if args.out is not None else new_folder(
            "runs", f"tournament-{args.profile}")
        if (out_dir / "tournament.json").exists():  # --force: said, not silent
            note("tournament", f"replacing the earlier tournament's outputs in {out_dir}", err)
        paths = write_outputs(result, out_dir, command=command_line(args, mode, games, out_dir))
    except OSError as e:  # a WriteError names the file already
        print(f"vitou-ai tournament: error: "
              f"{e if e.filename else f'cannot write the results: {e}'}", file=err)
        return 2
    pairs = result.pairs_frame()
    unit = "match" if mode == "match" else "deal"
    plural = "matches" if mode == "match" else "deals"
    print(f"{args.profile}: {result.games} {plural} per pairing", file=out)
    swapped = ("every seat's bot swapped (each for themselves, P7)" if params.willughby
               else "the teams swapped")
    if rotate:
        dealt = "first dealer rotated"
    else:
        dealt = (f"every deal dealt by seat {dealer}" if mode == "deal"
                 else f"every match first dealt by seat {dealer}")
    print(f"(duplicate {plural} with {swapped}, {dealt}; seed {args.seed}; "
          f"{result.seconds:.1f} s)", file=out)
    w = max([16, *(len(str(b)) for b in pairs.bot), *(len(str(b)) for b in pairs.opponent)])
    print(f"{'bot':<{w}} {'opponent':<{w}} {unit + ' win rate':>15} {'95% Wilson':>15} "
          f"{'points/deal':>11} {'95% CI':>17}", file=out)
    for r in pairs.itertuples():  # an interval from too few units: the reason instead
        win_ci = format_interval(r.win_lo, r.win_hi, r.win_n, "decisive games", ".3f")
        ppd_ci = format_interval(r.ppd_lo, r.ppd_hi, r.ppd_n, "pairs")
        print(f"{r.bot:<{w}} {r.opponent:<{w}} {r.win_rate:>15.3f} "
              f"{win_ci:>15} {r.points_per_deal:>+11.3f} {ppd_ci:>17}", file=out)
    if mode == "match":
        print("\nranked by Elo (Bradley-Terry fit on match results; a match is won at the "
              "target)", file=out)
        print(f"{'rank':>4} {'bot':<{w}} {'Elo':>7} {'match score':>11} {'points/deal':>11} "
              f"{'95% CI':>17}", file=out)
    else:
        print("\nranked by points per deal against all opponents (95% interval); no Elo in "
              "deal mode: a deal's win/loss ignores its stake", file=out)
        print(f"{'rank':>4} {'bot':<{w}} {'points/deal':>11} {'95% CI':>17} {'deal score':>11}",
              file=out)
    for r in result.ratings:
        ci = format_interval(r["ppd_lo"], r["ppd_hi"], r["ppd_n"], "pairs")
        if mode == "match":
            print(f"{r['rank']:>4} {r['bot']:<{w}} {r['elo']:>+7.0f} {r['score']:>11.3f} "
                  f"{r['points_per_deal']:>+11.3f} {ci:>17}", file=out)
        else:
            print(f"{r['rank']:>4} {r['bot']:<{w}} {r['points_per_deal']:>+11.3f} {ci:>17} "
                  f"{r['score']:>11.3f}", file=out)
    print_fallback(result.fallback, out, w)
    print_search(result.search, out, w)
    print("\nwrote " + ", ".join(str(p) for p in paths), file=out)
    return 0
