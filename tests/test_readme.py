"""The README stays short and true: its Python example runs, its ``vitou-ai`` commands
parse, it is at most 250 lines, and its relative links point to files that exist.

The commands are parsed, not run: each runs through the console script's entry point
(``[project.scripts]`` of pyproject.toml) in a subprocess whose argparse stops right
after parsing, so an unknown option, a bad choice or a misspelt subcommand fails here,
without the training, tournament or Ray sweep the command would start.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 250

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def _blocks(lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(README.read_text(encoding="utf-8"))
            if kind == lang]


def _commands() -> list[str]:
    """Every ``vitou-ai ...`` line of the README's shell blocks (comments dropped,
    backslash continuations joined), with any ``.venv/bin/`` prefix removed."""
    cmds = []
    for body in _blocks("bash"):
        for line in body.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            words = shlex.split(line) if line else []
            if words and words[0] in ("vitou-ai", ".venv/bin/vitou-ai"):
                cmds.append(shlex.join(["vitou-ai", *words[1:]]))
    return cmds


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_readme_is_short():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"README.md has {n} lines, more than {MAX_LINES}: move detail to docs/"


def test_readme_python_example_runs(tmp_path):
    blocks = _blocks("python")
    assert len(blocks) == 1, "the README should hold exactly one Python example"
    script = tmp_path / "readme_example.py"
    script.write_text(blocks[0], encoding="utf-8")
    # cold numba cache: about 30 s of compilation on 2 cores, then under a second
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "exploitability" in r.stdout


# Stops argparse right after a successful parse: the command's work never starts.
_DRY_RUN = """
import argparse, importlib, sys
module, func, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
real = argparse.ArgumentParser.parse_args
def parse_then_stop(self, args=None, namespace=None):
    real(self, args, namespace)
    print("README-COMMAND-PARSED")
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_then_stop
real_known = argparse.ArgumentParser.parse_known_args
def known_then_stop(self, args=None, namespace=None):
    # the command line parses with parse_known_args and names leftovers by the subcommand;
    # a subcommand's own parser (prog "vitou-ai train", ...) is called inside the top one's
    ns, extra = real_known(self, args, namespace)
    if self.prog != "vitou-ai":
        return ns, extra
    if extra:
        self.error("unrecognized arguments: " + " ".join(extra))
    print("README-COMMAND-PARSED")
    raise SystemExit(0)
argparse.ArgumentParser.parse_known_args = known_then_stop
sys.argv = ["vitou-ai", *argv]
sys.exit(getattr(importlib.import_module(module), func)())
"""


def _entry_point() -> tuple[str, str]:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, func = scripts["vitou-ai"].partition(":")
    return module, func


def test_readme_has_commands():
    cmds = _commands()
    assert len(cmds) >= 5, cmds
    assert any(c.endswith("--help") for c in cmds)


@pytest.mark.parametrize("command", _commands())
def test_readme_command_parses(command):
    module, func = _entry_point()
    argv = shlex.split(command)[1:]
    r = subprocess.run([sys.executable, "-c", _DRY_RUN, module, func, *argv], cwd=ROOT,
                       env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{command}: exit {r.returncode}\n{r.stderr[-2000:]}"
    if "--help" in argv:
        assert "usage:" in r.stdout, r.stdout[-2000:]
    elif argv == ["--version"]:
        assert r.stdout.startswith("vitou-ai "), r.stdout[-2000:]
    else:
        assert "README-COMMAND-PARSED" in r.stdout, f"{command}: not parsed\n{r.stdout[-2000:]}"


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_relative_links_exist():
    text = README.read_text(encoding="utf-8")
    bad = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL, or an anchor in the README itself
        path = target.split("#", 1)[0]
        if not (ROOT / path).exists():
            bad.append(target)
    assert not bad, f"README links to missing files: {bad}"
    assert LINK.findall(text), "no links found: the pattern no longer matches"


#: the README's commands that finish in seconds: run for real, as written
QUICK = ("vitou-ai --version", "vitou-ai replay ", "vitou-ai simulate ")


@pytest.mark.parametrize("command", [c for c in _commands() if c.startswith(QUICK)])
def test_readme_quick_command_runs(command):
    argv = shlex.split(command)[1:]
    r = subprocess.run([sys.executable, "-m", "vitou_ai", *argv], cwd=ROOT, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{command}: exit {r.returncode}\n{r.stderr[-2000:]}"
    assert r.stdout.strip()


def test_readme_has_quick_commands():
    assert len([c for c in _commands() if c.startswith(QUICK)]) >= 3
