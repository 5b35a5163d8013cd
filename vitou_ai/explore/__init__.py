"""The strategy explorer: browse what a solved or trained strategy does, hand by hand.

- :mod:`vitou_ai.explore.model`: a strategy's public tree read lazily (nodes, ranges,
  reach, the policy per hand, exact values where the tree fits);
- :mod:`vitou_ai.explore.views`: the views as data (node, hand grid, comparison, CSV, PNG);
- :mod:`vitou_ai.explore.app`: the web application (``vitou-ai explore``; the
  ``explore`` extra: Starlette and uvicorn);
- :func:`show` / :func:`grid_frame`: the same in Jupyter.

Example:
    >>> from vitou_ai.explore import load_strategy, grid_frame   # doctest: +SKIP
    >>> s = load_strategy("runs/vitou_2p-public-dcfr-...")       # doctest: +SKIP
    >>> grid_frame(s, "dealer 1, p0 raise").head()               # doctest: +SKIP
"""

from __future__ import annotations

from .model import ExploreError, HistorySearchError, Strategy, load_strategy
from .notebook import grid_frame, show

__all__ = ["ExploreError", "HistorySearchError", "Strategy", "grid_frame", "load_strategy",
           "show"]
