"""The package's layout and layers.

The folders name the architecture: ``rules/`` (the kernel, hand histories),
``openspiel/`` (the game ``python_vitou``), ``abstraction/``, ``bots/``, ``sim/``,
``solvers/``, ``eval/`` (tournaments, statistics, LBR, the bluff analysis), ``search/``
(the real-time search bot), ``envs/``,
``match_equity/``, ``vint/`` (the Vint game), ``explore/`` (the strategy explorer) and ``commands/`` (the ``vitou-ai`` command
line and what only it uses); the root holds only plumbing (numba options, random streams,
atomic file writes and run locks, memory and time limits), the games x tools matrix (``capabilities``), ``__init__`` and
``__main__``.

Layers, bottom first: the plumbing; the rules kernel; the OpenSpiel adapter and the
information abstraction; bots; the simulator; solvers, evaluation and search (a bot
kind built on the solvers, registered with the bots' spec parser); Vint (its own
rules and bots, over the shared plumbing and statistics); environments (Vitou's and
Vint's), match equity and the strategy explorer (``explore/``); the commands
and the package's ``__init__``. No module imports from a layer above its own, and no
module imports one that imports it back. A bot drawing random numbers from the
simulator's module was the one import that ran up the layers; the trainers
``commands/train.py`` and ``commands/train_abstract.py`` imported each other until
their shared run-folder helpers moved to ``commands/runs.py``; training is now a library
layer of its own (``training/``: loops, evaluation, checkpoints, the run-folder format)
between the tools it drives and the command line.

``docs/architecture.md`` is the map a reader sees; the last tests here read its floors
and folders tables and fail when they drift from ``LAYERS`` and the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import vitou_ai

PKG = Path(vitou_ai.__file__).parent
LAYERS = [
    {"_numba", "rng", "io", "resources"},
    {"rules"},
    {"capabilities"},
    {"openspiel", "abstraction"},
    {"bots"},
    {"sim"},
    {"solvers", "eval", "search"},
    {"vint"},
    {"envs", "match_equity", "explore"},
    {"training"},
    {"commands", "__init__", "__main__"},
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}

#: the package root: plumbing modules and the subpackages, nothing else
ROOT_MODULES = {"__init__", "__main__", "_numba", "rng", "io", "resources", "capabilities"}
SUBPACKAGES = {"rules", "openspiel", "abstraction", "bots", "sim", "solvers", "eval", "envs",
               "match_equity", "vint", "explore", "training", "commands",
               "search"}

#: pairs of modules allowed to import each other, with the reason; each must still exist
KNOWN_CYCLES: dict[frozenset[str], str] = {}

#: a folder of the package holds at most this many modules (its ``__init__`` not counted)
MAX_MODULES_PER_FOLDER = 12

#: a module longer than this says why it is one module, with this phrase in its docstring
LONG_MODULE = 600
WHY_ONE_MODULE = "One module because"


def top_name(path: Path) -> str:
    """The top-level part of the package a file belongs to (``bots``, ``io``...)."""
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


def module_name(path: Path) -> str:
    """``vitou_ai.commands.train`` for ``vitou_ai/commands/train.py`` (a package: its name)."""
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """Modules of the package that ``path`` imports, anywhere in it: ``from .x import y``
    counts as importing ``x.y`` when that is a module, else ``x``."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return (found & modules) - {name}


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


def test_no_module_imports_one_that_imports_it_back():
    paths = {module_name(p): p for p in PKG.rglob("*.py")}
    graph = {m: imported_modules(p, set(paths)) for m, p in paths.items()}
    pairs = {frozenset({a, b}) for a in graph for b in graph[a] if a in graph[b]}
    new = sorted(sorted(p) for p in pairs - set(KNOWN_CYCLES))
    assert not new, f"modules that import each other: {new}"
    gone = sorted(sorted(p) for p in set(KNOWN_CYCLES) - pairs)
    assert not gone, f"cycles broken since: drop them from KNOWN_CYCLES: {gone}"


def test_no_import_circle_of_any_length():
    """No chain of imports leads from a module back to itself (a -> b -> c -> a as well as
    the pairs above): each strongly connected component of the import graph is one module
    (Tarjan 1972, iteratively)."""
    paths = {module_name(p): p for p in PKG.rglob("*.py")}
    graph = {m: sorted(imported_modules(p, set(paths)) - {m}) for m, p in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            for j in range(i, len(graph[v])):
                w = graph[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        circles.append(sorted(comp))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
    known = {m for pair in KNOWN_CYCLES for m in pair}
    new = [c for c in circles if not set(c) <= known or len(c) > 2]
    assert not new, f"import circles: {new}"


def test_the_package_root_holds_only_plumbing_and_the_subpackages():
    modules = {p.stem for p in PKG.glob("*.py")}
    assert modules == ROOT_MODULES, (
        f"move {sorted(modules - ROOT_MODULES)} into a subpackage (or name them here)")
    packages = {p.parent.name for p in PKG.glob("*/__init__.py")}
    assert packages == SUBPACKAGES
    assert set(LAYER) == ROOT_MODULES | SUBPACKAGES


def test_long_modules_say_why_they_are_one_module():
    unexplained = []
    for path in sorted(PKG.rglob("*.py")):
        text = path.read_text()
        if text.count("\n") > LONG_MODULE:
            doc = " ".join((ast.get_docstring(ast.parse(text)) or "").split())
            if WHY_ONE_MODULE not in doc:
                unexplained.append(str(path.relative_to(PKG)))
    assert not unexplained, (
        f"over {LONG_MODULE} lines: split them, or say in the module docstring "
        f"{WHY_ONE_MODULE!r} ...: {unexplained}")


def test_the_random_streams_sit_below_bots_and_simulator():
    assert LAYER["rng"] < LAYER["bots"] < LAYER["sim"]
    assert not (PKG / "sim" / "rng.py").exists()


def test_library_code_never_imports_the_commands():
    assert LAYER["commands"] == len(LAYERS) - 1
    assert all(LAYER[p] < LAYER["commands"] for p in SUBPACKAGES - {"commands"})


def test_no_tracker_numbers_in_the_product():
    """A reader of the package, the README or the docs has no tracker: a name or a sentence
    says what is meant ("the safe-search benchmark"), never a tracker number."""
    root = PKG.parent
    files = [*PKG.rglob("*.py"), root / "README.md", root / "Makefile", root / "pyproject.toml",
             *root.joinpath("docs").rglob("*.md"), *root.joinpath("docs").rglob("*.ipynb"),
             *root.joinpath(".ci").glob("*"),
             *[f for d in ("tests", "experiments", "benchmarks", "notebooks")
               for f in root.joinpath(d).rglob("*") if f.suffix in (".py", ".toml", ".ipynb", ".md")]]
    pattern = re.compile(r"\bissue\s*#?\s*\d+|\bissue_?\d+", re.I)
    found = [f"{f.relative_to(root)}:{i}: {line.strip()[:80]}"
             for f in files if f.is_file()
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert not found, "tracker numbers: " + "; ".join(found)


def private_imports(path: Path, modules: dict[str, Path], source: str | None = None) -> list[str]:
    """Underscore names ``path`` imports from a module of another folder of the package
    (``from ..solvers.public.tree import _set_hand``), and underscore modules of another
    folder (``from ..explore import _kernels``). The root's plumbing module ``_numba`` is
    the package's own and open to every folder; dunders (``__version__``) are public.
    ``source``: the text to read as ``path``'s (default: the file's)."""
    name = module_name(path)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source if source is not None else path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            target = ".".join(package[:len(package) - node.level + 1]
                              + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if not target.startswith("vitou_ai"):
            continue
        for a in node.names:
            sub = f"{target}.{a.name}"
            module = sub if sub in modules else target
            if module not in modules:
                continue
            folder = module if modules[module].name == "__init__.py" else module.rpartition(".")[0]
            if folder == ".".join(package):
                continue
            leaf = module.rpartition(".")[2]
            private_module = leaf.startswith("_") and not leaf.startswith("__") and leaf != "_numba"
            private_name = (module == target and a.name.startswith("_")
                            and not a.name.startswith("__"))
            if private_module or private_name:
                found.append(f"{name} imports {module}.{a.name if module == target else ''}")
    return found


def test_no_private_name_is_imported_across_folders():
    """A folder's contract with the others is its public names (with docstrings): what
    another folder needs gets a public name, so a module's private layout can change in
    that module alone."""
    modules = {module_name(p): p for p in PKG.rglob("*.py")}
    found = [f for p in sorted(PKG.rglob("*.py")) for f in private_imports(p, modules)]
    assert not found, "private names imported across folders: " + "; ".join(found)


def test_the_private_import_rule_sees_a_private_import():
    """The rule above finds what it is for (it is not vacuous): a private name of another
    folder is caught, a public one and one of the same folder pass."""
    modules = {module_name(p): p for p in PKG.rglob("*.py")}
    text = ("from ..solvers.public.tree import _something\n"
            "from ..rules.history import parse_actor\n"
            "from ._kernels import anything\n")
    found = private_imports(PKG / "explore" / "model.py", modules, source=text)
    assert found == ["vitou_ai.explore.model imports vitou_ai.solvers.public.tree._something"]


def test_no_folder_is_a_warehouse():
    """Big families get their own folders (``solvers/flat``, ``solvers/public``,
    ``solvers/sampling``): a folder holds at most :data:`MAX_MODULES_PER_FOLDER` modules."""
    crowded = {}
    for init in PKG.rglob("__init__.py"):
        n = sum(1 for p in init.parent.glob("*.py") if p.name != "__init__.py")
        if n > MAX_MODULES_PER_FOLDER:
            crowded[str(init.parent.relative_to(PKG.parent))] = n
    assert not crowded, f"folders over {MAX_MODULES_PER_FOLDER} modules: {crowded}"


def test_old_solver_paths_still_import_with_a_warning(monkeypatch):
    """The flat layout's module paths forward to the family folders' modules (the same
    objects), with a DeprecationWarning naming the new path."""
    import importlib
    import sys
    import warnings

    from vitou_ai.solvers import MOVED
    from vitou_ai.solvers.flat.cfr import TabularCFR

    for old in MOVED:
        assert not (PKG / "solvers" / f"{old}.py").exists()
        # imported once already in this process: the warning comes at the first import
        monkeypatch.delitem(sys.modules, f"vitou_ai.solvers.{old}", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("vitou_ai.solvers.cfr")
        from vitou_ai.solvers.public_tree import build_public_tree
    assert old.TabularCFR is TabularCFR
    from vitou_ai.solvers.public.tree import build_public_tree as new_build
    assert build_public_tree is new_build
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert any("vitou_ai.solvers.flat.cfr" in m for m in messages), messages
    # a write through the old path reaches the code that runs (monkeypatching keeps working)
    from vitou_ai.solvers.flat import cfr as new_cfr

    sentinel = object()
    saved = new_cfr.VARIANTS
    try:
        old.VARIANTS = sentinel
        assert new_cfr.VARIANTS is sentinel
    finally:
        new_cfr.VARIANTS = saved


ARCHITECTURE = PKG.parent / "docs" / "architecture.md"


def _table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with ``| header |``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def test_the_architecture_page_has_the_layers_of_this_test():
    """docs/architecture.md's floors table is LAYERS, bottom first."""
    rows = _table_rows(ARCHITECTURE.read_text(encoding="utf-8"), "floor")
    floors = [set(_ticked(parts)) for _, parts, _ in rows]
    assert [int(r[0]) for r in rows] == list(range(len(rows)))
    assert floors == LAYERS, "docs/architecture.md's floors differ from LAYERS in this test"


def test_the_architecture_page_lists_every_folder_and_module():
    """docs/architecture.md's folders table names each folder of the package and exactly
    its modules (``__init__`` aside), so the map cannot go stale."""
    rows = _table_rows(ARCHITECTURE.read_text(encoding="utf-8"), "folder")
    page = {_ticked(folder)[0].rstrip("/"): set(_ticked(modules)) for folder, modules in rows}
    real = {str(init.parent.relative_to(PKG.parent)):
            {p.stem for p in init.parent.glob("*.py") if p.name != "__init__.py"}
            for init in PKG.rglob("__init__.py")}
    assert set(page) == set(real), (
        f"folders missing from the page: {sorted(set(real) - set(page))}; "
        f"on the page but gone: {sorted(set(page) - set(real))}")
    wrong = {f: (sorted(real[f] - page[f]), sorted(page[f] - real[f]))
             for f in real if page[f] != real[f]}
    assert not wrong, f"modules (missing from the page, gone) by folder: {wrong}"


def test_the_architecture_page_names_paths_that_exist():
    """Every path in the features table exists."""
    rows = _table_rows(ARCHITECTURE.read_text(encoding="utf-8"), "feature")
    paths = [p for _, where in rows for p in _ticked(where) if "/" in p]
    assert len(paths) > 10
    missing = [p for p in paths if not (PKG.parent / p).exists()]
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_experiments_and_benchmarks_use_the_library_not_the_command_line():
    """Scripts under ``experiments/`` and ``benchmarks/`` call the library (training runs
    through :mod:`vitou_ai.training`), never :mod:`vitou_ai.commands`: the command line is a
    front end, and what a script needs from it belongs in the library."""
    root = PKG.parent
    found = []
    for path in sorted([*root.joinpath("experiments").rglob("*.py"),
                        *root.joinpath("benchmarks").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                mods = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            found += [f"{path.relative_to(root)}:{node.lineno} imports {m}" for m in mods
                      if m == "vitou_ai.commands" or m.startswith("vitou_ai.commands.")]
    assert not found, "scripts that import the command line: " + "; ".join(found)
