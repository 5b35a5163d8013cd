"""The explorer's views as plain data: what the web page and the notebook show.

:func:`node_view` is one public node of one or two strategies (breadcrumb, children,
hand grids, the differences); :func:`grid_rows` sorts and filters a grid as the page
does; :func:`grid_csv` and :func:`grid_png` export it. No web library is imported here.
"""

from __future__ import annotations

import csv
import io
import math

import numpy as np

from ..solvers.public.tree import KIND_CHANCE, KIND_DECISION, KIND_TERMINAL
from .model import ExploreError, Strategy

KIND_NAMES = {KIND_CHANCE: "chance", KIND_DECISION: "decision", KIND_TERMINAL: "terminal"}
SORTS = ("hand", "raise", "reach", "value", "diff")
FILTERS = ("all", "range", "bluffs")
#: cells highlighted in a comparison: the largest differences, at most this many
HOT_CELLS = 8
#: and only differences of at least this much (total variation, 0..1)
HOT_MIN = 0.05


class BadRequest(ExploreError):
    """A malformed request parameter (a path that is no list of ids, an unknown sort or
    filter, a strategy index out of range): HTTP 400, where a path not in the tree is 404."""


def parse_path(text: str | None) -> tuple[int, ...]:
    """``"10,8,3"`` -> ``(10, 8, 3)``; ``""`` is the root.

    Raises:
        BadRequest: a piece that is not an integer, or an empty one (``"10,,12"``).
    """
    if not text:
        return ()
    items = text.split(",")
    if any(not x.strip() for x in items):
        raise BadRequest(f"bad path {text!r}: an empty item (two commas in a row, or a comma "
                         "at an end); action ids separated by commas")
    try:
        return tuple(int(x) for x in items)
    except ValueError:
        raise BadRequest(f"bad path {text!r}: action ids separated by commas") from None


def _fmt_path(path) -> str:
    return ",".join(str(a) for a in path)


def game_line(s: Strategy) -> str:
    p = s.params
    deck = f"{p.ranks} ranks x {p.copies} copies, {p.hand_size}-card hands"
    dealer = "dealer drawn" if p.dealer < 0 else f"dealer {p.dealer}"
    return (f"{p.profile} ({deck}; {dealer}; scores {p.scores[0]}:{p.scores[1]}; "
            f"{s.H} hands per seat)")


def _stake_ladder(s: Strategy, node) -> str:
    from ..rules import kernel as K
    from ..rules import layout as L

    ladder = s.params.ladder_labels
    k = int(node.state[L.S_STAKE])
    if K.one_from_end(s.pa, node.state):  # the kernel's rule: no raise at this score
        rules = "C5" if s.params.family else ("R9.3, R4.2d" if s.n == 2 else "R6, R4.2d")
        return (f"[{ladder[k]}], no raises: a team is at {s.params.target - 1}, one point "
                f"from the end ({rules})")
    return " > ".join(f"[{x}]" if i == k else x for i, x in enumerate(ladder))


def node_view(strategies: list[Strategy], path: tuple[int, ...], block: bool = True) -> dict:
    """One public node of the first strategy (and the second's same node).

    ``block=False``: do not wait for exact values still being built (the grids then have
    none, and ``values_pending`` is true).

    Returns:
        a JSON-ready dict: ``path``, ``breadcrumb`` (``[{label, path}]``), ``kind``,
        ``player``, ``reach`` (probability of the node, per strategy), ``sampled`` (per strategy: the
        sampled deals behind the reach, the frequencies and the children's reach, or
        ``None`` where they are exact), ``util``,
        ``stake``, ``children`` (``[{label, path, prob (per strategy: chance
        probability, or the actor's frequency aggregated over hands), reach (per
        strategy: probability of the child node)}]``), ``grids`` (per strategy,
        :meth:`Strategy.hand_grid`), ``diff`` (``{hand: total variation}`` between the two
        strategies' action mixes, and ``hot``, the hands highlighted).

    Raises:
        ExploreError: a path that is not in the tree.
    """
    nodes = [s.node(path) for s in strategies]
    a, na = strategies[0], nodes[0]
    crumbs = [{"label": "root", "path": ""}]
    for i, lab in enumerate(na.labels):
        crumbs.append({"label": lab, "path": _fmt_path(na.path[:i + 1])})
    children = []
    aggs = [s.aggregate(n) for s, n in zip(strategies, nodes, strict=True)]
    here = [s.reach_probability(n) for s, n in zip(strategies, nodes, strict=True)]
    for k, ch in enumerate(a.children(na)):
        kids = [s.child(n, k) for s, n in zip(strategies, nodes, strict=True)]
        children.append({
            "label": ch.label, "path": _fmt_path(na.path + (ch.action,)),
            "prob": [_num(g[k]) for g in aggs],
            # the child's probability from this node's numbers (the same reach, exact or
            # the same sample, as the frequency): the node's times the frequency
            "reach": [_num(r * g[k]) for r, g in zip(here, aggs, strict=True)],
            "terminal": kids[0].kind == KIND_TERMINAL,
        })
    grids = [s.hand_grid(n, block) for s, n in zip(strategies, nodes, strict=True)]
    missing = [sum(1 for r in g["rows"] if r["in_table"] is False) for g in grids]
    out = {
        "path": _fmt_path(na.path), "not_in_table": missing, "breadcrumb": crumbs, "kind": KIND_NAMES[na.kind],
        "player": na.player, "history": ", ".join(na.labels),
        "reach": [_num(r) for r in here],
        "sampled": [_sampled(s, n) for s, n in zip(strategies, nodes, strict=True)],
        "util": na.util, "stake": _stake_ladder(a, na), "children": children,
        "grids": grids, "names": [s.name for s in strategies],
        "values_note": _values_note(a),
        "values_pending": any(s.values_pending() for s in strategies), "diff": None,
        "fallbacks": [s.fallback for s in strategies],
        "showdown": a.n == 2,
        "showdown_note": None if a.n == 2 else SHOWDOWN_NOTE,
    }
    if len(strategies) == 2 and na.kind == KIND_DECISION:
        out["diff"] = grid_diff(grids[0], grids[1])
    return out


#: why four-player grids have no bluff flag (the page's and the export routes' words)
SHOWDOWN_NOTE = ("bluffs: not flagged for four players (the showdown proxy compares a hand "
                 "with one opponent's range, two players only)")


def _sampled(s: Strategy, node) -> int | None:
    """The deals of the sample behind the node's reach, frequencies and children's reach
    (four players, large ranges), or ``None`` where they are exact."""
    if node.kind != KIND_DECISION:
        return None
    _, info = s._other_weights(node, node.player)
    return None if info["exact"] else int(info["samples"])


def _values_note(s: Strategy) -> str:
    if s.n != 2:
        return "values: not exact for four players (no team value per hand here)"
    if s.values_pending():
        return "values: being computed on the whole public tree (the page updates itself)"
    if s.values(block=False) is None:
        if s.values_budget <= 0:
            return "values: not computed, exact values off (--values-budget 0)"
        return (f"values: not computed, the public tree is over the explorer's budget of "
                f"{s.values_budget:,} nodes (--values-budget)")
    return (f"values: exact, on the public tree ({s.values(False).tree.num_nodes:,} nodes), "
            "points per deal for the player to act, given the hand and the history")


def _num(x):
    x = float(x)
    return None if math.isnan(x) else x


def grid_diff(g0: dict, g1: dict) -> dict:
    """Per hand, the total variation ``0.5 sum_a |p0(a) - p1(a)|`` between the two grids'
    action mixes (hands in both ranges), and the hands highlighted: the
    :data:`HOT_CELLS` largest, at least :data:`HOT_MIN`."""
    tv = {}
    for r0, r1 in zip(g0["rows"], g1["rows"], strict=True):
        if not (r0["in_range"] and r1["in_range"]):
            continue
        d = 0.5 * sum(abs((x or 0.0) - (y or 0.0)) for x, y in zip(r0["probs"], r1["probs"],
                                                                   strict=True))
        tv[r0["hand"]] = d
    ranked = sorted(tv, key=lambda h: -tv[h])
    hot = [h for h in ranked[:HOT_CELLS] if tv[h] >= HOT_MIN]
    return {"tv": {str(h): v for h, v in tv.items()}, "hot": hot}


def grid_rows(grid: dict, sort: str = "hand", filt: str = "all",
              diff: dict | None = None) -> list[dict]:
    """The grid's rows as the page shows them.

    Args:
        sort: ``"hand"`` (the game's order: best card first), ``"raise"``, ``"reach"``,
            ``"value"`` (highest first) or ``"diff"`` (largest difference first).
        filt: ``"all"``, ``"range"`` (hands the history leaves possible) or ``"bluffs"``
            (hands that raise and beat less than half of the opponent's range card by card).

    Raises:
        BadRequest: an unknown sort or filter; ``"diff"`` without a comparison.
    """
    if sort not in SORTS:
        raise BadRequest(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")
    if filt not in FILTERS:
        raise BadRequest(f"unknown filter {filt!r}; expected one of {', '.join(FILTERS)}")
    if sort == "diff" and not diff:
        raise BadRequest("sort 'diff' compares two strategies: give a second run")
    rows = list(grid["rows"])
    if filt == "range":
        rows = [r for r in rows if r["in_range"] and r["reach"] > 0]
    elif filt == "bluffs":
        rows = [r for r in rows if r["bluff"]]
    tv = (diff or {}).get("tv", {})
    key = {
        "hand": lambda r: r["hand"],
        "raise": lambda r: -(r["raise"] or 0.0),
        "reach": lambda r: -r["reach"],
        "value": lambda r: -(r["value"] if r["value"] is not None else -1e300),
        "diff": lambda r: -tv.get(str(r["hand"]), -1.0),
    }[sort]
    return sorted(rows, key=lambda r: (key(r), r["hand"]))


def _which_grids(view: dict, which: int | None) -> list[int]:
    return list(range(len(view["grids"]))) if which is None else [which]


def check_export(view: dict, sort: str, filt: str) -> None:
    """Refuse a sort or filter the view has no numbers for (the page disables them): the
    bluffs without the showdown proxy (four players), the value sort without values.

    Raises:
        BadRequest: one line saying why.
    """
    if filt == "bluffs" and not view.get("showdown", True):
        raise BadRequest(f"filter 'bluffs' is not available here: {view['showdown_note']}")
    grids = [g for g in view["grids"] if g["rows"]]
    if sort == "value" and grids and not any(g["values"] for g in grids):
        why = view.get("values_note") or "no values"
        raise BadRequest(f"sort 'value' is not available here: {why}")


def grid_csv(view: dict, which: int | None = None, sort: str = "hand",
             filt: str = "all") -> str:
    """The grid of strategy ``which`` in ``view`` (:func:`node_view`), or every grid in
    view (``None``: both strategies when two are compared, one after the other, told
    apart by the ``strategy`` column) as CSV text: one line per hand, its reach, value,
    raise frequency, showdown share, bluff flag and one column per action (empty where
    the action is not legal for the hand)."""
    check_export(view, sort, filt)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    tv = (view.get("diff") or {}).get("tv", {})
    for n, k in enumerate(_which_grids(view, which)):
        grid = view["grids"][k]
        if n == 0:
            w.writerow(["history", "strategy", "hand", "in_range", "reach", "value", "raise",
                        "showdown", "bluff"] + [f"p({a})" for a in grid["actions"]]
                       + (["diff"] if view.get("diff") else []))
        for r in grid_rows(grid, sort, filt, view.get("diff")):
            w.writerow([view["history"], view["names"][k], r["label"], int(r["in_range"]),
                        _fmt(r["reach"]), _fmt(r["value"]), _fmt(r["raise"]),
                        _fmt(r["showdown"]), int(r["bluff"])] + [_fmt(x) for x in r["probs"]]
                       + ([_fmt(tv.get(str(r["hand"])))] if view.get("diff") else []))
    return buf.getvalue()


def _fmt(x) -> str:
    return "" if x is None else repr(float(x))


#: action colours, the page's and the PNG's (raise red, pass / refuse grey, cards blue)
PALETTE = ["#4e79a7", "#59a14f", "#f28e2b", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac", "#86bcb6"]


def action_colors(actions: list[str]) -> list[str]:
    out = []
    k = 0
    for a in actions:
        verb = a.split()[0]
        if verb == "raise" or verb in ("truc", "retruc", "quatre", "joc", "envit", "put"):
            out.append("#e15759")
        elif verb in ("refuse", "decline", "pass", "abandon", "concede"):
            out.append("#8c8c8c")
        else:
            out.append(PALETTE[k % len(PALETTE)])
            k += 1
    return out


def grid_png(view: dict, which: int | None = None, sort: str = "hand",
             filt: str = "all") -> bytes:
    """The grid as a PNG (matplotlib): one cell per hand, its action mix as a stacked bar,
    its reach and value under it; the compared cells framed in red. ``which=None``:
    every grid in view (both strategies when two are compared, one above the other)."""
    check_export(view, sort, filt)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = _which_grids(view, which)
    hot = set((view.get("diff") or {}).get("hot", []))
    rows_of = [grid_rows(view["grids"][k], sort, filt, view.get("diff")) for k in ks]
    most = max(len(r) for r in rows_of)
    cols = max(1, min(10, int(np.ceil(np.sqrt(max(most, 1)) * 1.4))))
    heights = [max(1, int(np.ceil(len(r) / cols))) + 1.2 for r in rows_of]
    fig, axes = plt.subplots(len(ks), 1, figsize=(1.3 * cols + 0.4, sum(heights)), dpi=100,
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, k, rows in zip(axes[:, 0], ks, rows_of, strict=True):
        _draw_grid(plt, ax, view, k, rows, cols, hot)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _draw_grid(plt, ax, view: dict, which: int, rows: list[dict], cols: int, hot: set) -> None:
    grid = view["grids"][which]
    nrows = max(1, int(np.ceil(len(rows) / cols)))
    ax.set_xlim(0, cols)
    ax.set_ylim(nrows, -0.6)
    ax.axis("off")
    colors = action_colors(grid["actions"])
    for i, r in enumerate(rows):
        x, y = i % cols, i // cols
        ax.add_patch(plt.Rectangle((x + 0.04, y + 0.04), 0.92, 0.92, fill=False,
                                   ec="#d62728" if r["hand"] in hot else "#999",
                                   lw=2.5 if r["hand"] in hot else 0.6))
        left = x + 0.08
        for p, c in zip(r["probs"], colors, strict=True):
            if p:
                ax.add_patch(plt.Rectangle((left, y + 0.42), 0.84 * p, 0.22, color=c, lw=0))
                left += 0.84 * p
        ax.text(x + 0.5, y + 0.28, r["label"], ha="center", va="center", fontsize=9,
                color="black" if r["in_range"] else "#aaa", weight="bold")
        sub = f"{r['reach']:.1%}" if r["in_range"] else "-"
        if r["value"] is not None:
            sub += f"  {r['value']:+.2f}"
        ax.text(x + 0.5, y + 0.8, sub, ha="center", va="center", fontsize=7)
    title = f"{view['names'][which]}: {view['history'] or 'root'}"
    ax.text(0, -0.45, title, fontsize=9, va="center")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors]
    if handles:
        ax.legend(handles, grid["actions"], loc="lower center", ncol=min(6, len(handles)),
                  fontsize=7, frameon=False, bbox_to_anchor=(0.5, -0.02 - 0.25 / nrows))
