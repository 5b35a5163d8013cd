"""The figure of the experimental public-tree walk that left the package: iterations per
second and CPU seconds per iteration of main's walk against the stored-policy walk, on the
full ``vitou_2p`` public tree, read from ``results/bench_public_tree_full.json`` (written by
the run whose command that file records, while the experiment was in the package).

    python benchmarks/plot_public_walk_experiment.py   # -> docs/results/img/public_walk_experiment.png
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LABELS = {"public_2_threads": "main's walk\n(the default)",
          "public_issue24": "experimental walk,\nint8 returns",
          "public_issue24_stored_policy": "experimental walk,\nstored policy"}


def main() -> None:
    d = json.loads((ROOT / "results" / "bench_public_tree_full.json").read_text())
    names = list(LABELS)
    rate = [d["iterations_per_second"][k] for k in names]
    cpu = [d["cpu_seconds_per_iteration"][k] for k in names]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    for ax, values, title in ((axes[0], rate, "iterations per second (median, 2 threads)"),
                              (axes[1], cpu, "CPU seconds per iteration (median)")):
        bars = ax.bar(range(3), values, color=["tab:blue", "tab:gray", "tab:gray"])
        ax.set_xticks(range(3), [LABELS[k] for k in names], fontsize=8)
        ax.set_title(title, fontsize=9)
        for b, v in zip(bars, values, strict=True):
            ax.text(b.get_x() + b.get_width() / 2, v, f"{v:.3f}", ha="center", va="bottom",
                    fontsize=8)
    fig.suptitle(f"Full vitou_2p public tree ({d['public_tree']['nodes']:,} nodes), "
                 f"load {d['load_1min'][0]}-{d['load_1min'][1]}", fontsize=9)
    fig.tight_layout()
    out = ROOT / "docs" / "results" / "img" / "public_walk_experiment.png"
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
