"""The explorer in Jupyter: the web page inline (:func:`show`), or a grid as a table
(:func:`grid_frame`)."""

from __future__ import annotations

from pathlib import Path

from .model import ExploreError, Strategy, check_same_game, load_strategy

_SERVERS: list = []  # kept alive for the kernel's lifetime


def _check_text(name: str, value) -> None:
    """Refuse a non-string ``history``, ``sort`` or ``filt`` in one line (a positional
    argument in the wrong place, ``grid_frame(run, 5)``, used to end in an AttributeError
    deep inside the history parser)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}"
                        + (" (a public history in hand-history syntax, e.g. "
                           "'dealer 1, p0 raise')" if name == "history" else ""))


def _as_strategy(s, scores: tuple[int, int] | None = None) -> Strategy:
    if isinstance(s, Strategy):
        if scores is not None and tuple(scores) != tuple(s.params.scores):
            raise ExploreError(f"scores={tuple(scores)}: give a run folder or policy file "
                               f"(this Strategy is loaded at {s.params.scores[0]}:"
                               f"{s.params.scores[1]}; load_strategy(..., scores=...))")
        return s
    return load_strategy(str(s) if isinstance(s, Path) else s, scores=scores)


def show(run, run2=None, port: int = 0, height: int = 760, history: str = "",
         scores: tuple[int, int] | None = None):
    """Serve the explorer from a background thread of the kernel and show it inline.

    Args:
        run, run2: run folders, ``policy.npz`` files or :class:`Strategy` objects.
        port: port on 127.0.0.1 (0: any free port).
        history: open this public history (hand-history syntax) first.
        scores: explore the deal at this score ``(team 0, team 1)``, as
            ``vitou-ai explore --scores A:B`` (``None``: the run's).

    Returns:
        an ``IPython.display.IFrame`` of the page (its ``src`` is the URL; the server
        has ``.stop()`` in ``vitou_ai.explore.notebook._SERVERS``).

    Raises:
        ImportError: the ``explore`` extra (or IPython) is missing.
        ExploreError: bad runs (or two of different games), a port in use: one line,
            as ``vitou-ai explore``.
        HistorySearchError: a ``history`` the rules refuse (before any server starts).
        TypeError: ``history`` not a string.
    """
    _check_text("history", history)
    from IPython.display import IFrame

    from .app import Server, bind

    strategies = [_as_strategy(run, scores)] + (
        [_as_strategy(run2, scores)] if run2 is not None else [])
    if len(strategies) == 2:
        check_same_game(strategies[0], strategies[1])
    # the history first: a refused one leaves no server behind
    path = strategies[0].parse_history(history) if history else ()
    server = Server(strategies, bind(port)).start()
    _SERVERS.append(server)
    url = server.url
    if history:
        url += "#" + ",".join(str(a) for a in path)
    return IFrame(url, width="100%", height=height)


def grid_frame(strategy, history: str = "", sort: str = "hand", filt: str = "all",
               scores: tuple[int, int] | None = None):
    """The hand grid at a public history as a ``pandas.DataFrame`` (one row per hand:
    ``hand``, ``in_range``, ``reach``, ``value``, ``raise``, ``showdown``, ``bluff``, one
    column ``p(ACTION)`` per action).

    Args:
        scores: the deal at this score ``(team 0, team 1)``, as ``--scores A:B``
            (``None``: the run's).

    Raises:
        TypeError: ``history``, ``sort`` or ``filt`` not a string.
        HistorySearchError: a history the rules refuse (its message starts with the rule,
            ``"R9.2: item 1 ..."``, as the page shows it).
        ExploreError: a sort or filter the grid has no numbers for (``"value"`` without
            values, ``"bluffs"`` for four players).
    """
    for name, value in (("history", history), ("sort", sort), ("filt", filt)):
        _check_text(name, value)
    import pandas as pd

    from .views import grid_csv, node_view

    s = _as_strategy(strategy, scores)
    view = node_view([s], s.parse_history(history))
    import io

    return pd.read_csv(io.StringIO(grid_csv(view, 0, sort, filt)))
