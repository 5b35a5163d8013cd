"""Export tabular policies of a :class:`GameTree` to OpenSpiel (small games) and
import OpenSpiel policies back, by information-state string."""

from __future__ import annotations

import numpy as np

from .tree import MAX_INFOSET_ACTIONS, GameTree


def infostate_strings(tree: GameTree) -> list[str]:
    """The OpenSpiel information-state string of each of the tree's infosets."""
    from ...openspiel.game import infostate_string

    p = tree.params
    return [infostate_string(tree.is_keys[i], p.players, p.hand_size,
                             labels=p.rank_labels if p.family else None,
                             partnership=p.partnership, willughby=p.willughby)
            for i in range(tree.num_infosets)]


def to_openspiel_dict(tree: GameTree, policy: np.ndarray) -> dict[str, list[tuple[int, float]]]:
    """``{information-state string: [(action id, probability), ...]}``, the form
    ``pyspiel.TabularPolicy(dict)`` takes. Keep the TabularPolicy alive while
    OpenSpiel uses it (OPENSPIEL_NOTES.md: a freed temporary segfaults)."""
    out = {}
    for i, s in enumerate(infostate_strings(tree)):
        m = int(tree.is_nact[i])
        out[s] = [(int(tree.is_actions[i, a]), float(policy[i, a])) for a in range(m)]
    return out


def from_openspiel_table(tree: GameTree, table: dict[str, list[tuple[int, float]]]) -> np.ndarray:
    """A native ``float64[num_infosets, 5]`` policy from an OpenSpiel policy table.

    Raises:
        KeyError: when an information state of the tree is missing from ``table``.
    """
    out = np.zeros((tree.num_infosets, MAX_INFOSET_ACTIONS))
    for i, s in enumerate(infostate_strings(tree)):
        probs = dict(table[s])
        for a in range(int(tree.is_nact[i])):
            out[i, a] = probs.get(int(tree.is_actions[i, a]), 0.0)
    return out
