"""notebooks/bluff_frequencies.ipynb executes top to bottom (nbclient), so it cannot rot;
it reads the run it is pointed at (``VITOU_RUN``), draws its figures, and is committed
executed, with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from vitou_ai.bots.tabular import TabularPolicy  # noqa: E402
from vitou_ai.rules import VitouParams  # noqa: E402
from vitou_ai.rules import layout as L  # noqa: E402
from vitou_ai.solvers.flat.cfr import TabularCFR  # noqa: E402
from vitou_ai.solvers.flat.tree import build_tree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "bluff_frequencies.ipynb"


def _outputs(nb) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def _pngs(nb) -> int:
    return sum(1 for o in _outputs(nb) if "image/png" in o.get("data", {}))


def _small_run(folder: Path) -> Path:
    """A run folder holding a policy.npz as `vitou-ai train` writes it (small game)."""
    params = VitouParams(profile="vitou_2p", ranks=4, copies=2, hand_size=2, dealer=-1)
    tree = build_tree(params)
    s = TabularCFR(tree, "dcfr")
    s.iterate(60)
    pol = s.average_policy()
    probs = np.zeros((tree.num_infosets, L.NUM_ACTIONS), np.float32)
    for i in range(tree.num_infosets):
        for k in range(tree.is_nact[i]):
            probs[i, tree.is_actions[i, k]] = pol[i, k]
    folder.mkdir()
    TabularPolicy(tree.is_keys, probs, name="small-dcfr", params=params).save(
        folder / "policy.npz")
    return folder


def test_bluff_notebook_executes_on_the_run_given_and_draws(tmp_path, monkeypatch):
    run = _small_run(tmp_path / "my_run")
    monkeypatch.setenv("VITOU_RUN", str(run))  # the kernel inherits the environment
    nb = nbformat.read(NOTEBOOK, as_version=4)
    params_cell = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params_cell) == 1
    params_cell[0].source += "\nSWEEP_ITERATIONS = 40  # the test keeps the sweep short"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert f"policy: {run / 'policy.npz'}" in text  # the user's run, not the shipped policy
    assert "ranks=4" in text and "exploitability of the policy" in text
    assert _pngs(nb) >= 1  # the summary figure is shown, not lost to a non-GUI backend
    tables = "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "reach" in tables and "infosets" in tables and "raises" in tables
    # the match objective's raise and refusal rates by score, from results/
    assert "rates: results/match_equity/rates_ranks4_copies2_hand2/rates.csv" in text
    assert "match_base" in tables and "refusal rate" in tables
    assert _pngs(nb) >= 2


def test_a_missing_run_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VITOU_RUN", str(tmp_path / "nowhere"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT / "notebooks")}})
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="no policy.npz"):
        client.execute()


def test_committed_notebook_is_executed_with_figures():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), "commit the notebook executed"
    assert not [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert _pngs(nb) >= 1


# ---- notebooks/four_player_bluffs.ipynb -----------------------------------

FOUR_PLAYER = ROOT / "notebooks" / "four_player_bluffs.ipynb"


def _small_4p_run(folder: Path, signals: bool, scores=((0, 0),)) -> Path:
    """A run folder with a tabular four-player policy.npz (a tiny variant: the heuristic
    ``bluffer``'s exact probabilities laid on its flat tree), its rows copied to each
    score of ``scores`` (a policy is refused at a score it has no rows for)."""
    from vitou_ai.bots.named import parse_bot
    from vitou_ai.solvers.public.export import flat_bot_policy

    params = VitouParams(profile="vitou", ranks=2 if signals else 4, copies=2, hand_size=1,
                         signals=signals, dealer=-1)
    tree = build_tree(params)
    pol = flat_bot_policy(tree, parse_bot("bluffer"))
    probs = np.zeros((tree.num_infosets, L.NUM_ACTIONS), np.float32)
    for i in range(tree.num_infosets):
        for k in range(tree.is_nact[i]):
            probs[i, tree.is_actions[i, k]] = pol[i, k]
    keys = []
    for a, b in scores:  # no score here is one from the end (R6): the same decisions
        k = np.array(tree.is_keys)
        k[:, L.K_SCORE0], k[:, L.K_SCORE1] = a, b
        keys.append(k)
    folder.mkdir()
    TabularPolicy(np.concatenate(keys), np.tile(probs, (len(scores), 1)), name="tiny-4p",
                  params=params).save(folder / "policy.npz")
    return folder


def test_four_player_notebook_executes_on_the_runs_given_and_draws(tmp_path, monkeypatch):
    run = _small_4p_run(tmp_path / "run4", signals=False)
    sig = _small_4p_run(tmp_path / "run4s", signals=True)
    monkeypatch.setenv("VITOU_RUN", str(run))
    monkeypatch.setenv("VITOU_SIGNALS_RUN", str(sig))
    # the match-objective section: the tiny policy in both roles (it only has to run), with
    # rows at the notebook's MATCH_SCORES from each team's view
    scored = _small_4p_run(tmp_path / "run4m", signals=False, scores=[
        (0, 0), (18, 14), (14, 18), (17, 17), (19, 12), (12, 19)])
    monkeypatch.setenv("VITOU_MATCH_RUN", str(scored))
    monkeypatch.setenv("VITOU_POINTS_RUN", str(scored))
    # the search bot against its blueprint: a few deals, a short budget (the tiny variant's
    # subgames are solved in milliseconds)
    monkeypatch.setenv("VITOU_SEARCH_DEALS", "40")
    monkeypatch.setenv("VITOU_SEARCH_BUDGET", "0.05")
    nb = nbformat.read(FOUR_PLAYER, as_version=4)
    params_cell = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params_cell) == 1
    params_cell[0].source += "\nDEALS = 300  # the test keeps it short\nWEAK_RANK = '9'"
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert f"policy: {run / 'policy.npz'}" in text and f"policy: {sig / 'policy.npz'}" in text
    assert "300 deals" in text
    # the summary, raises by hand and position, the gestures, search vs blueprint, by score
    assert _pngs(nb) >= 5
    tables = "".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "per_deal" in tables and "low" in tables and "partner_gesture" in tables
    assert "search(tiny-4p) at seats (0, 2) against tiny-4p: 40 deals" in text
    assert "diff_low" in tables and "per_deal_blueprint" in tables and "searched" in tables
    assert "300 deals per policy and score" in text
    assert "points_value" in tables and "match_value" in tables


def test_committed_four_player_notebook_is_executed_with_figures():
    nb = nbformat.read(FOUR_PLAYER, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), "commit the notebook executed"
    assert not [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert _pngs(nb) >= 4  # with search vs blueprint
