"""The numba cache is keyed on what compiled code depends on (``vitou_ai._numba``).

An edit to a module outside the kernels' import closure (the command line, here) keeps
the key, so no kernel recompiles; an edit to a jitted module, or to a module that jitted
code imports without being jitted itself (``rules/layout.py``'s constants), changes it, so
no stale compiled caller survives the edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import vitou_ai
from vitou_ai import _numba

PKG = Path(vitou_ai.__file__).resolve().parent


@pytest.fixture
def pkg(tmp_path):
    copy = tmp_path / "vitou_ai"
    shutil.copytree(PKG, copy, ignore=shutil.ignore_patterns("__pycache__", "static"))
    return copy


def _edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")


def test_the_copy_has_the_installed_key(pkg):
    assert _numba.cache_key(pkg) == _numba.cache_key()


def test_an_edit_outside_the_kernels_keeps_the_key(pkg):
    before = _numba.cache_key(pkg)
    for module in ("commands/train.py", "commands/cli.py", "eval/tournament.py",
                   "envs/gym_env.py"):
        _edit(pkg / module)
    assert _numba.cache_key(pkg) == before


@pytest.mark.parametrize("module", ["rules/kernel.py", "rules/layout.py", "rng.py",
                                    "bots/policy.py", "solvers/flat/kernels.py"])
def test_an_edit_to_a_kernel_or_what_it_imports_changes_the_key(pkg, module):
    before = _numba.cache_key(pkg)
    _edit(pkg / module)
    assert _numba.cache_key(pkg) != before


def test_the_closure_follows_imports(pkg):
    names = _numba.kernel_sources(pkg)
    # layout holds no jitted code: it is in because the kernel imports its constants
    assert "vitou_ai.rules.layout" in names and "vitou_ai.rules.kernel" in names
    assert not any(n.startswith("vitou_ai.commands") for n in names)
    # a new import of a non-kernel module from a kernel module brings it in
    _edit(pkg / "rules" / "kernel.py")
    (pkg / "rules" / "kernel.py").write_text(
        (pkg / "rules" / "kernel.py").read_text() + "from ..commands import console\n")
    assert "vitou_ai.commands.console" in _numba.kernel_sources(pkg)
