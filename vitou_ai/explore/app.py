"""The explorer's web application (Starlette, served by uvicorn on 127.0.0.1).

Routes (all ``GET``):

- ``/``: the page (``static/index.html``, vanilla JavaScript, no build step);
- ``/api/info``: the strategies and the game (names, game line, players, sources,
  an example history, each strategy's fallback, whether bluffs are flagged);
- ``/api/view?path=ID,ID,...``: :func:`vitou_ai.explore.views.node_view` as JSON
  (404 with ``{"error": ...}`` for a path not in the tree, 400 for a malformed
  parameter: not integers, an empty item);
- ``/api/search?history=TEXT``: ``{"path": ...}``, or HTTP 400 with ``{"error": ...,
  "rule": ..., "index": ...}`` for a history the rules refuse (the page shows it and
  keeps running);
- ``/api/export.csv`` and ``/api/export.png`` with ``path``, ``which`` (0, 1 or
  ``all``, the default: both grids when two strategies are compared), ``sort`` and
  ``filter``: the grids in view (400, one line, for a sort or filter the view has no
  numbers for: ``filter=bluffs`` for four players, ``sort=value`` without values);
- ``POST /api/lock`` with a JSON body ``{"path": "ID,ID,...", "mix": {action: p},
  "hands": [labels], "player": seat (both optional)}``: lock that node and start the re-solve
  (:class:`vitou_ai.explore.locking.LockSession`; 4xx with ``{"error": ...}``, one line,
  for a request it refuses, nothing written); ``/api/lock/status``: its progress and,
  when done, its result; ``/api/locks``: the run's saved locks and their results.

docs/guide/explore.md, "The JSON routes", documents them for users.

Who may ask: the explorer serves local files' numbers (and the run's paths) to whoever
reaches its port, so it answers only requests addressed to a loopback name
(:data:`LOOPBACK_HOSTS`, any port; Starlette's ``TrustedHostMiddleware``: any other
``Host`` header is HTTP 400, which defeats DNS rebinding, where another site's name is
re-pointed at 127.0.0.1) and refuses an API request made by another site's page
(:class:`SameOriginOnly`: HTTP 403 when ``Sec-Fetch-Site`` is ``cross-site`` or
``same-site`` or ``Origin`` is not the explorer's own).

Needs the ``explore`` extra (``pip install 'vitou_ai[explore]'``).
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from .locking import LockRequestError, LockSession
from .model import ExploreError, HistorySearchError, Strategy, check_same_game
from .views import BadRequest, grid_csv, grid_png, node_view, parse_path

#: the host names the explorer answers to, with any port (it listens on 127.0.0.1 only;
#: ``[::1]`` is the IPv6 loopback as a ``Host`` header writes it)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
EXTRA_HINT = ("the explorer needs the 'explore' extra: pip install 'vitou_ai[explore]' "
              "(starlette, uvicorn)")
STATIC = Path(__file__).parent / "static"


def require_web() -> None:
    """Raise ``ImportError`` with :data:`EXTRA_HINT` when starlette or uvicorn is missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise ImportError(EXTRA_HINT) from None


def cross_origin(headers, own_host: str) -> str | None:
    """Why a request is refused as cross-origin, or ``None``: ``headers`` (a mapping with
    lower-case names, e.g. Starlette's ``Headers``) name another site's page as its
    maker: ``Sec-Fetch-Site`` is ``cross-site`` or ``same-site`` (browsers send it with
    every request; ``same-origin`` and ``none``, a typed address, pass), or ``Origin``
    is not ``http://`` + ``own_host`` (the request's ``Host`` header; ``null`` included).
    A request without these headers (curl, scripts) passes."""
    site = headers.get("sec-fetch-site")
    if site in ("cross-site", "same-site"):
        return f"refused: a request made by another site's page (Sec-Fetch-Site: {site})"
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"http://{own_host}".lower():
        return f"refused: a request made by another site's page (Origin: {origin})"
    return None


class SameOriginOnly:
    """ASGI middleware: an ``/api/`` request that :func:`cross_origin` refuses is HTTP
    403 with ``{"error": ...}`` (one line); the page itself (``/``) may be opened from
    anywhere, e.g. a notebook's frame, and its own requests are same-origin."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            from starlette.datastructures import Headers
            from starlette.responses import JSONResponse

            headers = Headers(scope=scope)
            why = cross_origin(headers, headers.get("host", ""))
            if why is not None:
                await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def make_app(strategies: list[Strategy], lock_iterations: int | None = None,
             lock_seconds: float | None = None):
    """The Starlette application over one or two strategies of the same game.

    Raises:
        ImportError: the ``explore`` extra is not installed (:data:`EXTRA_HINT`).
        ValueError: no strategy, more than two, or two of different games.
    """
    require_web()
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    if not 1 <= len(strategies) <= 2:
        raise ValueError("the explorer shows one or two strategies")
    if len(strategies) == 2:
        check_same_game(strategies[0], strategies[1])  # an ExploreError, a ValueError
    lock = threading.Lock()  # the strategies' caches are not thread-safe
    for s in strategies:
        s.start_values()  # exact values built in the background; the page polls
    page = (STATIC / "index.html").read_text()
    budget = {k: v for k, v in (("iterations", lock_iterations), ("seconds", lock_seconds))
              if v is not None}
    locks = LockSession(strategies[0], guard=lock, **budget)

    def _view(request):
        path = parse_path(request.query_params.get("path"))
        with lock:
            return node_view(strategies, path, block=False)

    def _which(request) -> int | None:
        w = request.query_params.get("which", "all")
        if w == "all":
            return None  # every grid in view (both strategies when two are compared)
        if w not in ("0", "1") or int(w) >= len(strategies):
            raise BadRequest(f"which must be 0 .. {len(strategies) - 1} or all")
        return int(w)

    def _error(e: ExploreError):
        # a malformed parameter is 400; a path not in the tree 404
        return JSONResponse({"error": str(e)},
                            status_code=400 if isinstance(e, BadRequest) else 404)

    def _example() -> str:
        """A valid history of this game for the search box: the first children down to
        the third decision (``dealer 1, p0 pass, p1 pass``)."""
        s, node, labels = strategies[0], strategies[0].root, []
        with lock:
            while len(labels) < 4 and s.children(node):
                node = s.child(node, 0)
                labels = list(node.labels)
        return ", ".join(labels)

    example = _example()

    async def index(request):
        return HTMLResponse(page)

    async def info(request):
        from .views import game_line

        s = strategies[0]
        return JSONResponse({"names": [x.name for x in strategies], "game": game_line(s),
                             "players": s.n, "sources": [x.source for x in strategies],
                             "example": example,
                             "fallbacks": [x.fallback for x in strategies],
                             "showdown": s.n == 2})

    def view(request):
        try:
            return JSONResponse(_view(request))
        except ExploreError as e:
            return _error(e)

    def search(request):
        text = request.query_params.get("history", "")
        try:
            with lock:
                path = strategies[0].parse_history(text)
        except HistorySearchError as e:
            return JSONResponse({"error": str(e), "rule": e.rule, "index": e.index},
                                status_code=400)
        return JSONResponse({"path": ",".join(str(a) for a in path)})

    def export_csv(request):
        try:
            v = _view(request)
            text = grid_csv(v, _which(request), request.query_params.get("sort", "hand"),
                            request.query_params.get("filter", "all"))
        except ExploreError as e:
            return _error(e)
        return Response(text, media_type="text/csv", headers={
            "Content-Disposition": 'attachment; filename="vitou-grid.csv"'})

    def export_png(request):
        try:
            v = _view(request)
            which = _which(request)
            with lock:
                data = grid_png(v, which, request.query_params.get("sort", "hand"),
                                request.query_params.get("filter", "all"))
        except ExploreError as e:
            return _error(e)
        return Response(data, media_type="image/png", headers={
            "Content-Disposition": 'inline; filename="vitou-grid.png"'})

    async def lock_start(request):
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not JSON"}, status_code=400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body is a JSON object"}, status_code=400)
        def start():
            with lock:
                player = body.get("player")
                if player is not None and (isinstance(player, bool)
                                           or not isinstance(player, int)):
                    raise LockRequestError("player is a seat number")
                return locks.start(parse_path(str(body.get("path") or "")), body.get("mix"),
                                   body.get("hands"), player)

        try:
            out = await run_in_threadpool(start)
        except LockRequestError as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        except ExploreError as e:
            return _error(e)
        return JSONResponse(out, status_code=202)

    def lock_status(request):
        return JSONResponse(locks.status())

    def locks_saved(request):
        return JSONResponse({"locks": locks.saved(), "available": locks.why_not() is None,
                             "why_not": locks.why_not()})

    async def internal(request, exc):  # the page shows it and keeps running
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"},
                            status_code=500)

    # the host check first (outermost): a request to another name gets no further
    return Starlette(exception_handlers={500: internal}, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=list(LOOPBACK_HOSTS),
                   www_redirect=False),
        Middleware(SameOriginOnly),
    ], routes=[
        Route("/", index), Route("/api/info", info), Route("/api/view", view),
        Route("/api/search", search), Route("/api/export.csv", export_csv),
        Route("/api/export.png", export_png),
        Route("/api/lock", lock_start, methods=["POST"]),
        Route("/api/lock/status", lock_status), Route("/api/locks", locks_saved),
    ])


def bind(port: int, host: str = "127.0.0.1") -> socket.socket:
    """A listening socket on ``host:port`` (0: a free port). The command and ``show()``
    bind 127.0.0.1; whatever the host, the app answers loopback names only
    (:data:`LOOPBACK_HOSTS`).

    Raises:
        ExploreError: the port is in use (or not allowed), one line.
    """
    if not 0 <= port <= 65535:
        raise ExploreError(f"the port must be in 0 .. 65535, got {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ExploreError(f"port {port} on {host} is in use or not allowed ({e.strerror}); "
                           "give another port (0: any free port)") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


class Server:
    """The app served by uvicorn on a bound socket.

    ``run()`` serves until Ctrl-C (uvicorn's own shutdown); ``start()`` serves from a
    daemon thread (notebooks, tests) and ``stop()`` ends it.
    """

    def __init__(self, strategies: list[Strategy], sock: socket.socket):
        import uvicorn

        self.sock = sock
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        config = uvicorn.Config(make_app(strategies), log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread: threading.Thread | None = None

    def run(self) -> None:
        self.server.run(sockets=[self.sock])

    def start(self) -> Server:
        import time

        self.server.config.install_signal_handlers = False  # uvicorn < 0.29 spelling too
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=5)
        self.sock.close()
