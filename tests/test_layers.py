"""The package's layers: no module imports from a layer above its own (issue 14, item 17).

Layers, bottom first: modules that import nothing of the package (numba options,
random streams, command-line plumbing); the rules kernel;
hand histories and the OpenSpiel adapter; bots; the simulator; solvers and
evaluation; the command line, analysis and the Vint game (its own rules, bots and
commands, over the shared plumbing). A bot drawing random numbers from
the simulator's module was the one import that ran up the layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vitou_ai

PKG = Path(vitou_ai.__file__).parent
LAYERS = [
    {"_numba", "rng", "console"},
    {"rules"},
    {"history", "openspiel_game", "openspiel_observer", "openspiel_util", "abstraction"},
    {"bots"},
    {"sim"},
    {"solvers", "eval", "envs", "sweep", "match_equity", "match_equity_4p"},
    {"__init__", "analysis", "cli", "play", "train", "train_abstract", "vint",
     "match_equity_command", "train_match", "score_rates"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def top_name(path: Path) -> str:
    """The top-level part of the package a file belongs to (``bots``, ``train``...)."""
    return path.relative_to(PKG).parts[0].removesuffix(".py")


def imported_parts(path: Path) -> set[str]:
    """Top-level parts of the package that ``path`` imports (module level or inside functions)."""
    tree = ast.parse(path.read_text())
    package = path.relative_to(PKG).parent.parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] != "vitou_ai":
                    continue
                rest = parts[1:]
            else:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                rest = [*base, *((node.module or "").split(".") if node.module else [])]
            if rest:
                found.add(rest[0])
            else:  # "from . import x" at the top of the package
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "vitou_ai" and len(parts) > 1:
                    found.add(parts[1])
    return found


def test_every_part_of_the_package_has_a_layer():
    parts = {top_name(p) for p in PKG.rglob("*.py")}
    assert parts <= set(LAYER), f"give these a layer in this test: {parts - set(LAYER)}"


def test_no_import_runs_up_the_layers():
    upward = []
    for path in sorted(PKG.rglob("*.py")):
        me = top_name(path)
        for other in imported_parts(path):
            if other in LAYER and LAYER[other] > LAYER[me]:
                upward.append(f"{path.relative_to(PKG)} imports {other}")
    assert not upward, "imports that run up the layers: " + "; ".join(upward)


def test_the_random_streams_sit_below_bots_and_simulator():
    assert LAYER["rng"] < LAYER["bots"] < LAYER["sim"]
    assert not (PKG / "sim" / "rng.py").exists()
