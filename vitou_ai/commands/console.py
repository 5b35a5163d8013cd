"""Plumbing shared by the subcommands of ``vitou-ai``: the help format and one-line
argument errors; the rest (fresh output folders, progress bars, one-line notes, Ctrl-C,
the run lock) is library code in :mod:`vitou_ai.training.session`, re-exported here.

Library modules return values and raise; everything here talks to the terminal, so
only the command-line modules (:mod:`vitou_ai.commands.cli`, :mod:`vitou_ai.commands.train`,
:mod:`vitou_ai.commands.play`, :mod:`vitou_ai.commands.tournament`) use it.
"""

from __future__ import annotations

import argparse

from ..rng import SEED_MAX, SEED_RANGE, seed_error  # noqa: F401  (the commands' names)
from ..training.session import (  # noqa: F401  (the commands' names)
    DERIVED_ROW_BYTES,
    EXIT_INTERRUPTED,
    RETRY_SECONDS,
    UNSAFE_MODULES,
    check_simulation_memory,
    check_writable,
    claim_run_folder,
    interrupted_line,
    interrupts_deferred,
    interrupts_ignored,
    interrupts_outside_numba,
    new_folder,
    note,
    run_locks,
    show_progress,
)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line, as every other refusal of the
    commands is (``vitou-ai train: argument --iterations: invalid int value: 'abc' (see
    vitou-ai train --help)``), not the whole usage block followed by the error. Exit
    code 2, as argparse's. Subcommand parsers are of this class too (argparse makes
    them of the parent's class)."""

    def error(self, message: str):
        import sys

        if message.endswith(": expected one argument") and message.startswith("argument --"):
            # argparse reads a value such as "-1:0" as an option of its own
            opt = message[len("argument "):-len(": expected one argument")].split("/")[0]
            message += f" (a value that starts with '-' is written {opt}=VALUE)"
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's help with every option's default at the end of its line.

    As :class:`argparse.ArgumentDefaultsHelpFormatter`, except that a help text which
    already states its default (one that depends on other options) is left alone, an
    on/off flag reads ``(default: off)`` and a list default is written as it is typed.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (action.default is argparse.SUPPRESS or "default" in text.lower()
                or not action.option_strings):
            return text
        if action.nargs == 0 and action.default in (False, None):
            shown = "off"
        elif isinstance(action.default, list | tuple):
            shown = " ".join(str(v) for v in action.default)
        else:
            shown = str(action.default)
        return f"{text} (default: {shown.replace('%', '%%')})"
