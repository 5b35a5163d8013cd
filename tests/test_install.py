"""`import vitou_ai` finds the package wherever Python is started.

A clone is usually a folder named ``vitou_ai``. Started in the folder that holds it,
Python sees that folder as a candidate namespace package ``vitou_ai``; with the
default editable install (an import hook placed after the path search) the empty
namespace won, ``vitou_ai.__file__`` was ``None`` and ``python_vitou`` was not
registered. The Makefile installs in ``editable_mode=compat`` (a path entry, where a
regular package beats a namespace portion). Run by ``make test`` on its own install;
with ``PYTHONPATH`` pointing at a worktree it checks that set-up instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import vitou_ai

PROBE = ("import vitou_ai, pyspiel; print(vitou_ai.__file__); "
         "print(pyspiel.load_game('python_vitou').num_players())")


def test_import_from_the_parent_folder_of_a_clone_named_vitou_ai(tmp_path):
    clone = tmp_path / "vitou_ai"  # what `git clone .../vitou_ai` makes: no __init__.py on top
    (clone / "tests").mkdir(parents=True)
    (clone / "pyproject.toml").write_text('[project]\nname = "vitou_ai"\n')
    (clone / "README.md").write_text("# vitou_ai\n")
    r = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-1500:]
    file, players = r.stdout.split()
    assert file != "None", "vitou_ai was imported as an empty namespace package"
    assert Path(file).resolve() == Path(vitou_ai.__file__).resolve()
    assert players == "4"
