"""``vitou-ai explore RUN [RUN2]``: the strategy explorer in the browser.

Reads a run folder (or a ``policy.npz`` with its game), optionally a second one of
the same game to compare, starts the web application (:mod:`vitou_ai.explore.app`)
on ``127.0.0.1``, prints its URL and serves until Ctrl-C (one line, exit code 130). Bad input (a missing or
damaged run folder, a policy of another game, a port in use, the ``explore`` extra
missing) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys

from .console import EXIT_INTERRUPTED

EXIT_ERROR = 2


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..explore.model import VALUES_BUDGET

    p.add_argument("run", metavar="RUN", help="a run folder of vitou-ai train (policy.npz and "
                   "run.json), or a policy.npz that records its game")
    p.add_argument("run2", metavar="RUN2", nargs="?", default=None,
                   help="a second strategy of the same game, shown side by side")
    p.add_argument("--port", type=int, default=8050,
                   help="port on 127.0.0.1 (0: any free port)")
    p.add_argument("--scores", default=None, metavar="A:B",
                   help="explore the deal at this score, team 0 : team 1 (a match-objective "
                   "run holds every score's strategy; None: the run's)")
    p.add_argument("--game", choices=["vint"], default=None,
                   help="--game vint: says why Vint is not explored (one line, exit code 2); "
                   "leave it out for Vitou and its family (the game is the run's)")
    p.add_argument("--values-budget", type=int, default=VALUES_BUDGET,
                   help="build the whole public tree for exact values per hand when it has at "
                   "most this many nodes (two players; 0: never)")


def command(args, out=None, err=None) -> int:
    """Run ``vitou-ai explore``; returns the exit code (130 after Ctrl-C, the toolkit's
    interrupted code, with one line "stopped" on stderr; 2 on bad input)."""
    out = out or sys.stdout
    err = err or sys.stderr

    def fail(msg: str) -> int:
        print(f"vitou-ai explore: error: {msg}", file=err, flush=True)
        return EXIT_ERROR

    if getattr(args, "game", None) == "vint":
        from ..explore.model import VINT_NOT_COVERED

        return fail(VINT_NOT_COVERED)
    try:
        from ..explore.app import require_web

        require_web()
    except ImportError as e:
        return fail(str(e))
    if not 0 <= args.port <= 65535:
        return fail(f"--port must be in 0 .. 65535, got {args.port}")
    if args.values_budget < 0:
        return fail(f"--values-budget must be >= 0, got {args.values_budget}")
    scores = None
    if args.scores is not None:
        try:
            a, b = args.scores.split(":")
            scores = (int(a), int(b))
        except ValueError:
            return fail(f"--scores takes A:B, two integers (team 0 : team 1), got "
                        f"{args.scores!r}")
    from ..explore.app import Server, bind
    from ..explore.model import ExploreError, check_same_game, load_strategy

    try:
        sock = bind(args.port)
    except ExploreError as e:
        return fail(str(e).replace("another port", "another with --port"))
    try:
        strategies = [load_strategy(args.run, values_budget=args.values_budget, scores=scores)]
        if args.run2 is not None:
            s2 = load_strategy(args.run2, values_budget=args.values_budget, scores=scores)
            check_same_game(strategies[0], s2)  # the whole game: profile and knobs
            if s2.name == strategies[0].name:
                s2.name += " (2)"
            strategies.append(s2)
    except ExploreError as e:
        sock.close()
        return fail(str(e))
    server = Server(strategies, sock)
    print(f"vitou-ai explore: {' vs '.join(s.name for s in strategies)} at {server.url} "
          "(Ctrl-C stops)", file=out, flush=True)
    try:
        server.run()  # uvicorn shuts down on Ctrl-C, then raises it again
    except KeyboardInterrupt:
        pass
    sock.close()
    print("vitou-ai explore: stopped", file=err, flush=True)
    return EXIT_INTERRUPTED
