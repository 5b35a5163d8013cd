"""The solvers' shared checkpoint file: atomic ``.npz`` with a JSON record, one-line refusals."""

import numpy as np
import pytest

from vitou_ai.rules.params import RULES_VERSION
from vitou_ai.solvers.checkpoint import (
    CheckpointError,
    check_config,
    load_checkpoint,
    save_checkpoint,
)

WANT = {"format": "f-1", "rules_version": RULES_VERSION, "seed": 3}


def test_round_trip_keeps_arrays_and_record(tmp_path):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    save_checkpoint(tmp_path / "sub" / "c.npz", dict(WANT, iteration=7), table=a)
    meta, z = load_checkpoint(tmp_path / "sub" / "c.npz", ("table",))
    assert meta == dict(WANT, iteration=7)
    assert z["table"].dtype == a.dtype and np.array_equal(z["table"], a)
    assert [p.name for p in (tmp_path / "sub").iterdir()] == ["c.npz"]  # no temporary left


def test_unreadable_files_are_one_line(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    np.savez(tmp_path / "pickled.npz", meta=np.array([{"a": 1}], dtype=object))
    save_checkpoint(tmp_path / "ok.npz", WANT, table=np.zeros(2))
    for name, names in (("junk.npz", ()), ("pickled.npz", ()), ("ok.npz", ("other",)),
                        ("missing.npz", ())):
        with pytest.raises(CheckpointError, match="not a readable checkpoint") as e:
            load_checkpoint(tmp_path / name, names)
        assert "\n" not in str(e.value) and "allow_pickle" not in str(e.value)


def test_config_mismatch_names_the_key_format_first():
    check_config("c.npz", dict(WANT, iteration=1), WANT, 4)
    with pytest.raises(CheckpointError, match=r"c.npz: checkpoint seed 4 does not match "
                                              r"this solver's 3"):
        check_config("c.npz", dict(WANT, seed=4), WANT, 4)
    with pytest.raises(CheckpointError, match="checkpoint format 'g-1'"):
        check_config("c.npz", dict(WANT, format="g-1", seed=4), WANT, 4)


def test_rules_version_goes_through_check_rules_version():
    """Two-player files from vitou-rules-1.0 carry over (R3.2's change cannot reach
    them); four-player ones and unknown versions are refused."""
    old = dict(WANT, rules_version="vitou-rules-1.0")
    check_config("c.npz", old, WANT, 2)
    with pytest.raises(CheckpointError, match="written under vitou-rules-1.0.*R3.2"):
        check_config("c.npz", old, WANT, 4)
    with pytest.raises(CheckpointError, match="written under rules None"):
        check_config("c.npz", {k: v for k, v in WANT.items() if k != "rules_version"}, WANT, 2)
