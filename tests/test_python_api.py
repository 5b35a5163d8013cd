"""The public Python API: the entry points are importable from
``vitou_ai`` itself, and every example of docs/guide/python-api.md runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import vitou_ai

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "guide" / "python-api.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)


def test_every_entry_point_is_importable_and_listed():
    for name in vitou_ai.__all__:
        assert getattr(vitou_ai, name) is not None, name
    assert set(vitou_ai._LAZY) <= set(dir(vitou_ai))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        vitou_ai.nope  # noqa: B018


@pytest.mark.parametrize("block", range(len(BLOCKS)))
def test_the_docs_examples_run(block):
    assert len(BLOCKS) >= 5
    run = subprocess.run([sys.executable, "-c", BLOCKS[block]], capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip()
