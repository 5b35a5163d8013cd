"""Many independent solves (one per key: a score state, a seed...) as Ray tasks, or serially.

:class:`Sweep` runs a function over keys and keeps one result file per key, written
atomically as each task finishes, so a killed sweep started again with the same
folder resumes from the keys already written and loses nothing computed.

- Backends: ``"ray"``, an embedded local Ray runtime (``ray.init(address="local",
  num_cpus=workers)``, all cores by default; started and stopped here, nothing by
  hand) or, with ``address="HOST:PORT"``, an existing Ray cluster; ``"serial"``, the
  same calls in this process, one after the other. ``"auto"`` (the default) is Ray
  when it is installed (``pip install 'vitou_ai[ray]'``), else serial.
- Determinism: each task gets the seed :func:`task_seed` derives from its key (and
  the sweep's base seed), never from the order in which tasks run, so results do
  not depend on the backend or the number of workers.
- Failures: a task that raises or whose worker dies is retried ``max_retries``
  times (Ray's ``max_retries`` with ``retry_exceptions=True``; a loop in the serial
  backend); after that its key and error are collected, the other tasks finish
  and are written, and :class:`SweepError` names the failed keys in one line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

BACKENDS = ("auto", "ray", "serial")
RESULT_FORMAT = "vitou_ai-sweep-task-1"


class SweepError(RuntimeError):
    """A sweep that cannot start or finish; the message is one line."""


def ray_available() -> bool:
    """Whether Ray can be imported (the optional extra ``vitou_ai[ray]``)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def task_seed(key: Any, base_seed: int = 0) -> int:
    """A seed in ``0 .. 2**63-1`` derived from the task's key (JSON form) and
    ``base_seed`` by SHA-256: the same for a key whatever the order of the tasks."""
    text = json.dumps([int(base_seed), key], sort_keys=True)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def key_name(key: Any) -> str:
    """The key as a file name stem: ``(3, 11)`` -> ``3_11``."""
    parts = key if isinstance(key, list | tuple) else [key]
    return "_".join(str(p) for p in parts)


def check_address(address: str, timeout: float = 5.0) -> tuple[str, int]:
    """Parse ``HOST:PORT`` and check that something listens there.

    Raises:
        SweepError: not ``HOST:PORT``, or nothing reachable there within ``timeout``
            seconds (Ray itself would retry for minutes).
    """
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SweepError(f"--address {address!r}: expected HOST:PORT of a Ray cluster's head "
                         "(e.g. 10.0.0.5:6379)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise SweepError(f"cannot reach a Ray cluster at {address}: {reason}") from None
    return host, int(port)


def _call(fn: Callable, key: Any, seed: int, shared: Any) -> Any:
    return fn(key, seed, shared)


class Sweep:
    """Runs tasks ``fn(key, seed, shared) -> JSON-able result`` over keys.

    Args:
        out: folder for the per-task result files (``out/<key>.json``); ``None``
            keeps results in memory only (no resume).
        fingerprint: what the results are for (a configuration hash); a result file
            with another fingerprint is refused, not overwritten.
        accepts: earlier fingerprints of the same configuration whose results are
            taken as they are (written under an earlier rules version that carries
            over, :meth:`~vitou_ai.match_equity.two_player.TableConfig.earlier_fingerprints`).
        backend: one of :data:`BACKENDS`.
        address: ``HOST:PORT`` of an existing Ray cluster; ``None`` starts a local one.
        workers: CPUs of the local Ray runtime (default: all of this machine's).
        max_retries: retries of a failed task before it is reported.
        base_seed: mixed into every task's seed (:func:`task_seed`).

    Use as a context manager: the local Ray runtime is shut down on exit. Entering also
    takes the one-writer lock of ``out`` (:class:`vitou_ai.io.RunLock`), let go on exit:
    a second sweep of the same folder at once is refused (``RunLockedError``, an
    ``OSError`` naming the first one's PID); ``lock_note`` says when a stale lock was
    taken over.

    Raises:
        SweepError: unknown backend; ``backend="ray"`` or an ``address`` without Ray
            installed; an unreachable address.
    """

    def __init__(self, out: str | Path | None, fingerprint: str, backend: str = "auto",
                 address: str | None = None, workers: int | None = None,
                 max_retries: int = 2, base_seed: int = 0, accepts: tuple[str, ...] = ()):
        if backend not in BACKENDS:
            raise SweepError(f"unknown backend {backend!r}; expected one of {BACKENDS}")
        if workers is not None and workers < 1:
            raise SweepError(f"--workers must be at least 1, got {workers}")
        from ..rng import seed_error

        if seed_error(base_seed, "base_seed", 2**63 - 1):  # int() truncated 1.5 to 1
            raise SweepError(seed_error(base_seed, "base_seed", 2**63 - 1))
        if backend == "auto":
            backend = "ray" if ray_available() else "serial"
            if address and backend == "serial":
                raise SweepError(f"--address {address}: Ray is not installed "
                                 "(pip install 'vitou_ai[ray]')")
        elif backend == "ray" and not ray_available():
            raise SweepError("the Ray backend needs Ray: pip install 'vitou_ai[ray]'")
        if address and backend == "serial":
            raise SweepError("--address is for the Ray backend, not the serial one")
        self.out = None if out is None else Path(out)
        self.fingerprint = fingerprint
        self.accepts = (fingerprint, *accepts)
        self.backend = backend
        self.address = address
        self.workers = workers or os.cpu_count() or 1
        self.max_retries = int(max_retries)
        self.base_seed = int(base_seed)
        self.failures: dict[str, str] = {}
        self._started_ray = False
        self._lock = None
        self.lock_note: str | None = None
        if address:
            check_address(address)

    # ---- lifecycle ------------------------------------------------------------------------
    def __enter__(self) -> Sweep:
        if self.out is not None:
            import sys

            from ..io import RunLock

            self._lock = RunLock(self.out, " ".join(sys.argv))
            self.lock_note = self._lock.acquire()
        try:
            if self.backend == "ray":
                self._start_ray()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start_ray(self) -> None:
        import ray

        if ray.is_initialized():
            return
        kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False,
                                      configure_logging=False)
        try:
            if self.address:
                ray.init(address=self.address, **kwargs)
            else:
                # "local": a new runtime of our own, never another user's `ray start`
                env = {k: os.environ[k] for k in ("PYTHONPATH", "NUMBA_CACHE_DIR",
                                                  "VITOU_AI_CACHE") if k in os.environ}
                # workers at the priority of a serial run (Ray's default niceness is 15,
                # which on a busy machine gives the sweep a fraction of its cores)
                ours = "RAY_worker_niceness" not in os.environ
                if ours:
                    os.environ["RAY_worker_niceness"] = "0"
                # Ray logs "Token authentication is enabled for this Ray cluster..." to
                # stderr when it starts a local runtime: a notice about a cluster the
                # user never set up (auth stays on; only the notice is dropped)
                notice = logging.getLogger("ray._private.authentication."
                                           "authentication_token_setup")
                level = notice.level
                notice.setLevel(logging.ERROR)
                try:
                    ray.init(address="local", num_cpus=self.workers,
                             runtime_env={"env_vars": env} if env else None, **kwargs)
                finally:
                    notice.setLevel(level)
                    if ours:
                        os.environ.pop("RAY_worker_niceness", None)
        except Exception as e:  # noqa: BLE001 - Ray raises many types; one line for all
            where = self.address or "a local runtime"
            raise SweepError(f"cannot start Ray ({where}): {type(e).__name__}: "
                             f"{str(e).splitlines()[0] if str(e) else ''}") from None
        self._started_ray = True

    def close(self) -> None:
        """Shut down the Ray runtime this sweep connected to or started; let go of the
        folder's lock."""
        if self._started_ray:
            import ray

            ray.shutdown()
            self._started_ray = False
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    # ---- results on disk ------------------------------------------------------------------
    def _path(self, key: Any) -> Path:
        assert self.out is not None
        return self.out / f"{key_name(key)}.json"

    def load(self, key: Any) -> Any | None:
        """The stored result of ``key``, or ``None`` if none is written yet.

        Raises:
            SweepError: a damaged file, or one written for another fingerprint.
        """
        if self.out is None:
            return None
        path = self._path(key)
        if not path.exists():
            return None
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError) as e:
            raise SweepError(f"{path}: not a readable task result ({e}); delete it to "
                             "recompute that task") from None
        if not isinstance(rec, dict) or rec.get("format") != RESULT_FORMAT or "result" not in rec:
            raise SweepError(f"{path}: not a task result of this sweep (expected a JSON object "
                             f"with format {RESULT_FORMAT!r} and a result); delete it to "
                             "recompute that task")
        if rec.get("fingerprint") not in self.accepts:
            raise SweepError(f"{path}: written for another configuration (fingerprint "
                             f"{rec.get('fingerprint')!r}, this run {self.fingerprint!r}); use "
                             "another --out folder")
        return rec["result"]

    def _store(self, key: Any, seed: int, result: Any, seconds: float) -> None:
        if self.out is None:
            return
        from ..io import write_atomic

        rec = {"format": RESULT_FORMAT, "fingerprint": self.fingerprint, "key": key,
               "seed": seed, "backend": self.backend, "seconds": seconds, "result": result}
        write_atomic(self._path(key), (json.dumps(rec, indent=1) + "\n").encode())

    # ---- running --------------------------------------------------------------------------
    def map(self, fn: Callable[[Any, int, Any], Any], keys: Sequence[Hashable],
            shared: Any = None, on_result: Callable[[Any, Any, bool], None] | None = None,
            ) -> dict:
        """Run ``fn(key, task_seed(key), shared)`` for every key not stored yet.

        ``fn`` must be a module-level function (Ray pickles it by reference) and its
        result JSON-able. ``on_result(key, result, resumed)`` is called for each key
        as its result is known.

        Returns:
            ``{key: result}`` for every key (stored ones read back).

        Raises:
            SweepError: a task failed after its retries (its key and error); the
                results of the other tasks are written first.
        """
        results: dict = {}
        todo = []
        for key in keys:
            stored = self.load(key)
            if stored is None:
                todo.append(key)
            else:
                results[key] = stored
                if on_result:
                    on_result(key, stored, True)
        failed: dict = {}
        if todo:
            run = self._map_ray if self.backend == "ray" else self._map_serial
            run(fn, todo, shared, results, failed, on_result)
        if failed:
            self.failures.update({key_name(k): v for k, v in failed.items()})
            shown = "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:3])
            more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
            raise SweepError(f"{len(failed)} task(s) failed after {self.max_retries} "
                             f"retries: {shown}{more}")
        return results

    def map_after(self, fn: Callable[[Any, int, Any], Any], keys: Sequence[Hashable],
                  after: dict, shared: Callable[[dict], Any],
                  on_result: Callable[[Any, Any, bool], None] | None = None) -> dict:
        """Run ``fn(key, task_seed(key), shared(results))`` for every key not stored yet,
        each as soon as every key of ``after[key]`` has its result (``results``: the
        results known then, stored ones included), not wave by wave: with Ray, a worker
        that finishes takes the next ready key while the others still run. ``keys`` must
        list every key after those it waits for (the order the serial backend runs).

        Returns:
            ``{key: result}`` for every key.

        Raises:
            SweepError: ``keys`` out of order (one line, before any task runs); a task
                failed after its retries (its key and error, and how many keys waited
                for it), after the results of the others are written.
        """
        seen: set = set()
        for key in keys:
            missing = sorted((k for k in after.get(key, ()) if k not in seen), key=key_name)
            if missing:
                raise SweepError(f"task {key_name(key)} waits for {key_name(missing[0])}, "
                                 "which is not listed before it")
            seen.add(key)
        results: dict = {}
        todo = []
        for key in keys:
            stored = self.load(key)
            if stored is None:
                todo.append(key)
            else:
                results[key] = stored
                if on_result:
                    on_result(key, stored, True)
        failed: dict = {}
        if todo:
            run = self._after_ray if self.backend == "ray" else self._after_serial
            run(fn, todo, after, shared, results, failed, on_result)
        if failed:
            self.failures.update({key_name(k): v for k, v in failed.items()})
            shown = "; ".join(f"{k}: {v}" for k, v in list(failed.items())[:3])
            more = f" (and {len(failed) - 3} more)" if len(failed) > 3 else ""
            waiting = len(todo) - len(failed) - sum(k in results for k in todo)
            raise SweepError(f"{len(failed)} task(s) failed after {self.max_retries} "
                             f"retries: {shown}{more}"
                             + (f"; {waiting} task(s) waiting for them not run"
                                if waiting else ""))
        return results

    def _after_serial(self, fn, todo, after, shared, results, failed, on_result) -> None:
        for key in todo:
            if all(k in results for k in after.get(key, ())):
                self._map_serial(fn, [key], shared(results), results, failed, on_result)

    def _after_ray(self, fn, todo, after, shared, results, failed, on_result) -> None:
        import ray

        remote = ray.remote(max_retries=self.max_retries, retry_exceptions=True,
                            num_cpus=1)(_call)
        waiting = list(todo)
        pending: dict = {}
        starts: dict = {}
        while True:
            ready = [k for k in waiting if all(d in results for d in after.get(k, ()))]
            if ready:  # one snapshot of the results for the keys that became ready
                ref_shared = ray.put(shared(results))
                for key in ready:  # in the order given: Ray starts them first come first
                    waiting.remove(key)
                    ref = remote.remote(fn, key, task_seed(key, self.base_seed), ref_shared)
                    pending[ref] = key
                    starts[ref] = time.perf_counter()
            if not pending:
                return
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                key = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as e:  # noqa: BLE001 - RayTaskError, WorkerCrashedError...
                    failed[key] = _one_line(getattr(e, "cause", None) or e)
                    continue
                self._finish(key, result, time.perf_counter() - starts[ref], results,
                             on_result)

    def _finish(self, key, result, seconds, results, on_result) -> None:
        self._store(key, task_seed(key, self.base_seed), result, seconds)
        results[key] = result
        if on_result:
            on_result(key, result, False)

    def _map_serial(self, fn, todo, shared, results, failed, on_result) -> None:
        for key in todo:
            seed = task_seed(key, self.base_seed)
            for attempt in range(self.max_retries + 1):
                start = time.perf_counter()
                try:
                    result = _call(fn, key, seed, shared)
                except Exception as e:  # noqa: BLE001 - reported with the key below
                    if attempt == self.max_retries:
                        failed[key] = _one_line(e)
                    continue
                self._finish(key, result, time.perf_counter() - start, results, on_result)
                break

    def _map_ray(self, fn, todo, shared, results, failed, on_result) -> None:
        import ray

        remote = ray.remote(max_retries=self.max_retries, retry_exceptions=True,
                            num_cpus=1)(_call)
        shared_ref = ray.put(shared)
        pending = {}
        starts = {}
        for key in todo:
            ref = remote.remote(fn, key, task_seed(key, self.base_seed), shared_ref)
            pending[ref] = key
            starts[ref] = time.perf_counter()
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                key = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except Exception as e:  # noqa: BLE001 - RayTaskError, WorkerCrashedError...
                    failed[key] = _one_line(getattr(e, "cause", None) or e)
                    continue
                self._finish(key, result, time.perf_counter() - starts[ref], results,
                             on_result)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[-1] if text else ''}".strip()
