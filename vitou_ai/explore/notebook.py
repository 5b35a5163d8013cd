"""The explorer in Jupyter: the web page inline (:func:`show`), or a grid as a table
(:func:`grid_frame`)."""

from __future__ import annotations

from pathlib import Path

from .model import Strategy, load_strategy

_SERVERS: list = []  # kept alive for the kernel's lifetime


def _as_strategy(s) -> Strategy:
    return s if isinstance(s, Strategy) else load_strategy(s)


def show(run, run2=None, port: int = 0, height: int = 760, history: str = ""):
    """Serve the explorer from a background thread of the kernel and show it inline.

    Args:
        run, run2: run folders, ``policy.npz`` files or :class:`Strategy` objects.
        port: port on 127.0.0.1 (0: any free port).
        history: open this public history (hand-history syntax) first.

    Returns:
        an ``IPython.display.IFrame`` of the page (its ``src`` is the URL; the server
        has ``.stop()`` in ``vitou_ai.explore.notebook._SERVERS``).

    Raises:
        ImportError: the ``explore`` extra (or IPython) is missing.
        ExploreError: bad runs (or two of different games), a port in use: one line,
            as ``vitou-ai explore``.
    """
    from IPython.display import IFrame

    from .app import Server, bind

    strategies = [_as_strategy(run)] + ([_as_strategy(run2)] if run2 is not None else [])
    server = Server(strategies, bind(port)).start()
    _SERVERS.append(server)
    url = server.url
    if history:
        url += "#" + ",".join(str(a) for a in strategies[0].parse_history(history))
    return IFrame(url, width="100%", height=height)


def grid_frame(strategy, history: str = "", sort: str = "hand", filt: str = "all"):
    """The hand grid at a public history as a ``pandas.DataFrame`` (one row per hand:
    ``hand``, ``in_range``, ``reach``, ``value``, ``raise``, ``showdown``, ``bluff``, one
    column ``p(ACTION)`` per action).

    Raises:
        HistorySearchError: a history the rules refuse.
    """
    import pandas as pd

    from .views import grid_csv, node_view

    s = _as_strategy(strategy if not isinstance(strategy, str | Path) else str(strategy))
    view = node_view([s], s.parse_history(history))
    import io

    return pd.read_csv(io.StringIO(grid_csv(view, 0, sort, filt)))
