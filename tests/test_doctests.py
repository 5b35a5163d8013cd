"""The docstring examples of the public API run (the API reference's examples
are doctests, so they cannot drift from the code)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "vitou_ai.capabilities",
    "vitou_ai.sim.batch",
    "vitou_ai.bots.named",
    "vitou_ai.solvers.flat.tree",
    "vitou_ai.solvers.public.tree",
    "vitou_ai.solvers.protocol",
    "vitou_ai.solvers.public.team",
    "vitou_ai.solvers.flat.evaluate",
    "vitou_ai.eval.tournament",
    "vitou_ai.eval.lbr",
    "vitou_ai.match_equity.two_player",
    "vitou_ai.solvers.registry",
    "vitou_ai.training",
    "vitou_ai.training.points",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
