"""``vitou-ai lock RUN LOCKS --out DIR`` and ``vitou-ai report RUN [--against RUN2] --out DIR``:
node locking and aggregate reports of two-player public-tree runs
(:mod:`vitou_ai.training.locking` does the work). Bad input (a run folder that is not a
two-player public run, a lock file the game refuses) is one line on stderr and exit code 2,
before the tree is built where the game alone decides.
"""

from __future__ import annotations

import argparse
import shlex
import sys

EXIT_OK, EXIT_ERROR = 0, 2


def add_lock_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="a two-player run folder whose policy.npz "
                   "the game's public tree reads (a public-tree run, a flat-tree run, a lock run)")
    p.add_argument("locks", metavar="LOCKS", help="a lock file (TOML; docs/guide/node-locking.md)")
    p.add_argument("--out", required=True, help="the run folder to write (explorer-ready): "
                   "new or empty, never the run read")
    p.add_argument("--iterations", type=int, default=2000,
                   help="most re-solve iterations")
    p.add_argument("--target", type=float, default=1e-3,
                   help="stop once the exploitability given the lock is at most this "
                   "(points per deal)")
    p.add_argument("--variant", default="dcfr", choices=("cfr", "cfr+", "dcfr", "pcfr+", "pdcfr+"),
                   help="the CFR variant of the re-solve")
    p.add_argument("--check-every", type=int, default=50,
                   help="iterations between exact exploitability checks")


def add_report_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run", metavar="RUN", help="a two-player run folder (any solver's "
                   "policy.npz, read onto the game's public tree)")
    p.add_argument("--against", metavar="RUN2", default=None,
                   help="a second run of the same game, reported side by side")
    p.add_argument("--out", required=True, help="folder for report.csv, values.csv, "
                   "report.png: new or empty, never a run read")


def _fail(name: str, msg: str, err) -> int:
    print(f"vitou-ai {name}: error: {msg}", file=err, flush=True)
    return EXIT_ERROR


def lock_command(args, out=None, err=None) -> int:
    """Run ``vitou-ai lock``; returns the exit code."""
    from ..training.locking import lock_run

    out = out or sys.stdout
    err = err or sys.stderr
    if args.iterations < 1 or args.check_every < 1 or not args.target >= 0:
        return _fail("lock", "--iterations and --check-every must be >= 1, --target >= 0", err)
    cmd = "vitou-ai lock " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    try:
        rep = lock_run(args.run, args.locks, args.out, args.iterations, args.target,
                       args.variant, args.check_every, cmd,
                       log=lambda s: print(f"vitou-ai lock: {s}", file=err, flush=True))
    except ValueError as e:
        return _fail("lock", str(e).splitlines()[0], err)
    lp, op = rep["locked_position"], rep["other_position"]
    print(f"locked: {lp} ({rep['locked_infosets']:,} information sets); points per deal "
          f"for the {lp}:", file=out)
    print(f"  blueprint            {rep['blueprint_value']:+.5f}  (exploitability "
          f"{rep['blueprint_exploitability']:.5f})", file=out)
    print(f"  lock vs blueprint    {rep['locked_value']:+.5f}", file=out)
    print(f"  lock vs best resp.   {rep['exploit_value']:+.5f}  ({op} gains "
          f"{rep['exploit_gain']:+.5f})", file=out)
    print(f"  re-solved with lock  {rep['resolved_value']:+.5f}  ({op} gains "
          f"{rep['resolved_gain_other']:+.5f}; exploitability given the lock "
          f"{rep['resolved_exploitability']:.5f} after {rep['iterations']:,} iterations, "
          f"{rep['seconds']:.0f} s)", file=out)
    if args.target > 0 and rep["resolved_exploitability"] > args.target:
        print(f"vitou-ai lock: the target {args.target:g} was not reached in "
              f"{rep['iterations']:,} iterations (the measures above are of the re-solve as it "
              "stands): run again with more --iterations", file=err, flush=True)
    return EXIT_OK


def report_command(args, out=None, err=None) -> int:
    """Run ``vitou-ai report``; returns the exit code."""
    from ..training.locking import report_runs

    out = out or sys.stdout
    err = err or sys.stderr
    cmd = "vitou-ai report " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    try:
        reps = report_runs(args.run, args.out, args.against, command=cmd,
                           log=lambda s: print(f"vitou-ai report: {s}", file=err, flush=True))
    except ValueError as e:
        return _fail("report", str(e).splitlines()[0], err)
    for name, r in reps.items():
        f = r.frequencies(["position"])
        print(f"{name}: value non-dealer {r.position_values[0]:+.5f}, dealer "
              f"{r.position_values[1]:+.5f} points per deal", file=out)
        print(f.round(4).to_string(), file=out)
    return EXIT_OK
