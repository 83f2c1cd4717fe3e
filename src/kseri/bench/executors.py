"""Where a batch of independent jobs runs: in this process, on local worker processes, or on a
Ray cluster (the ``kseri[cluster]`` extra).

An executor maps a module-level function over jobs and yields each ``(index, result)`` as it
finishes, in any order; callers put the results back in job order, so what they compute does
not depend on where it ran. ``cleanup`` runs in each worker process once it is done with its
jobs (on Ray after every job, since Ray ends its worker processes without a hook).

>>> with local_executor(1) as executor:
...     sorted(executor.map(abs, [-2, 3]))
[(0, 2), (1, 3)]
"""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import multiprocessing.util
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType, TracebackType
from typing import Any, Self, TypeVar

Job = TypeVar("Job")
Result = TypeVar("Result")

LOCAL_RAY = "local"
"""The Ray address that starts a Ray cluster of this machine for the run (Ray's own word)."""


class ClusterError(Exception):
    """Ray is missing, or the cluster named cannot be joined."""


class Executor:
    """Runs jobs in this process (the base class); subclasses spread them over processes."""

    workers: int = 1
    """How many jobs run at once (it sizes the callers' pieces of work)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        return None

    def map(self, function: Callable[[Job], Result], jobs: Sequence[Job],
            cleanup: Callable[[], None] | None = None) -> Iterator[tuple[int, Result]]:
        """Each job's index and ``function(job)``, as they finish."""
        try:
            for index, job in enumerate(jobs):
                yield index, function(job)
        finally:
            if cleanup is not None:
                cleanup()


class ProcessPool(Executor):
    """Jobs on ``workers`` local processes, started with ``spawn`` for each :meth:`map`.

    A script that uses one must guard its top level with ``if __name__ == "__main__":``.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, function: Callable[[Job], Result], jobs: Sequence[Job],
            cleanup: Callable[[], None] | None = None) -> Iterator[tuple[int, Result]]:
        """Each job's index and ``function(job)``, as they finish."""
        context = multiprocessing.get_context("spawn")
        pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_cleanup_at_exit, initargs=(cleanup,))
        try:
            futures = {pool.submit(function, job): index for index, job in enumerate(jobs)}
            for future in concurrent.futures.as_completed(futures):
                yield futures[future], future.result()
        finally:
            pool.shutdown(cancel_futures=True)


def _cleanup_at_exit(cleanup: Callable[[], None] | None) -> None:
    """In a pool's worker: run ``cleanup`` when it exits (workers skip ``atexit``)."""
    if cleanup is not None:
        multiprocessing.util.Finalize(None, cleanup, exitpriority=10)


def local_executor(workers: int) -> Executor:
    """This process for one worker, else a pool of ``workers`` processes."""
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    return Executor() if workers == 1 else ProcessPool(workers)


def import_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`ClusterError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError("Ray is not installed: install 'kseri[cluster]' to run on a cluster") from None
    return ray


def check_ray_address(address: str) -> None:
    """Refuse an address that is neither ``local`` nor a reachable ``HOST:PORT``, naming it."""
    if address == LOCAL_RAY:
        return
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"a Ray address is {LOCAL_RAY!r} or HOST:PORT (as 'ray start --head' prints it), "
                           f"not {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as error:
        raise ClusterError(f"cannot reach a Ray cluster at {address}: {error.strerror or error}") from None


class RayCluster(Executor):
    """Jobs as Ray tasks of one CPU each, on the cluster at ``address`` (``local``: a new one of
    this machine, stopped afterwards). Joining an already started Ray session of this process
    reuses it.

    Every node needs this version of kseri installed (and any external engine's command at
    the same path); the results come back to this process.
    """

    def __init__(self, address: str = LOCAL_RAY) -> None:
        self.address = address
        self._started = False

    def __enter__(self) -> Self:
        ray = import_ray()
        if not ray.is_initialized():
            check_ray_address(self.address)
            # A cluster of one's own needs no dashboard and reports no usage statistics; a
            # running one keeps its settings.
            local = {"include_dashboard": False} if self.address == LOCAL_RAY else {}
            if self.address == LOCAL_RAY:
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            try:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR, **local)
            except Exception as error:
                raise ClusterError(f"cannot join the Ray cluster at {self.address}: {error}") from None
            self._started = True
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._started:
            import_ray().shutdown()
            self._started = False

    def map(self, function: Callable[[Job], Result], jobs: Sequence[Job],
            cleanup: Callable[[], None] | None = None) -> Iterator[tuple[int, Result]]:
        """Each job's index and ``function(job)``, as they finish."""
        ray = import_ray()
        task = ray.remote(num_cpus=1)(_ray_job)
        pending: dict[Any, int] = {
            task.remote(function, cleanup, job): index for index, job in enumerate(jobs)
        }
        try:
            while pending:
                [finished], _ = ray.wait(list(pending), num_returns=1)
                yield pending.pop(finished), ray.get(finished)
        finally:
            for reference in pending:
                ray.cancel(reference)


def _ray_job(function: Callable[[Job], Result], cleanup: Callable[[], None] | None, job: Job) -> Result:
    """One job in a Ray worker, cleaned up after."""
    try:
        return function(job)
    finally:
        if cleanup is not None:
            cleanup()
