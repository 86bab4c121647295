"""The executor interface: what the runner needs from the backend that plays its matches.

The runner submits ``play_task(task)`` calls (:func:`tournaments.executors.worker.play_task`,
a :class:`~tournaments.executors.tasks.MatchTask` as a dict in, a
:class:`~tournaments.executors.tasks.WorkerRecord` as a dict out) and reads the futures
as they complete. Any :class:`concurrent.futures.Executor` will do
(``RunOptions.executor``); the backends (:mod:`tournaments.executors.backends`) add the
optional parts below. A future's outcome tells the runner what happened:

- a result: the worker's record of the played match (bots may have failed in it);
- :class:`~tournaments.executors.local_pool.WorkerLost`: the worker died during the task;
  the runner submits it again, up to ``limits.max_attempts`` in all;
- :class:`~tournaments.executors.local_pool.TaskKilledWorkers`: the executor retried the
  task itself (Dask) and every worker that ran it died: recorded as an error;
- :class:`concurrent.futures.BrokenExecutor` (or its
  :class:`~tournaments.executors.local_pool.ExecutorLost`): the executor cannot go on;
  the run stops as ``stopped`` and a new run resumes;
- any other exception: the task raised (a worker that refuses a match,
  :class:`~tournaments.executors.worker.MatchRefused`, an engine bug); recorded as an
  error with the reason. An executor may attach the worker's traceback text
  as the exception's ``remote_traceback`` attribute, for the log.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Protocol, runtime_checkable


class MatchExecutor(Protocol):
    """The part every executor has (a :class:`concurrent.futures.Executor` is one)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` on a worker; the future of its result (see the module docstring)."""
        ...

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No more tasks; with ``wait``, return once the tasks submitted are done (a clean stop)."""
        ...


@runtime_checkable
class SizedExecutor(Protocol):
    """An executor that says how many tasks it runs at once; the runner keeps ``in_flight_per_worker`` times
    that many in flight, asked again before each hand-out (Dask workers come and go). Without it the
    runner assumes the number of workers asked for."""

    @property
    def worker_count(self) -> int: ...


@runtime_checkable
class TerminableExecutor(Protocol):
    """An executor that can abandon its tasks: a second Ctrl-C kills the workers (their futures fail)."""

    def terminate(self) -> None: ...


@runtime_checkable
class RetryingExecutor(Protocol):
    """An executor that reruns the tasks of dead workers itself (Dask); ``rerun_tasks`` counts the reruns, for
    the run's report (those it gave up on come back as ``TaskKilledWorkers``)."""

    @property
    def rerun_tasks(self) -> int: ...
