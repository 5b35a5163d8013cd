"""``python -m vitou_ai``: the ``vitou-ai`` command line (:mod:`vitou_ai.commands.cli`)."""

import sys

from .commands.cli import entry

if __name__ == "__main__":
    sys.exit(entry())
