"""The Dask backend: a tournament's matches on a Dask cluster, behind the Executor interface.

:class:`DaskExecutor` is a :class:`concurrent.futures.Executor` made from
``distributed.Client(...).get_executor(pure=False)``; the runner uses it as
it uses the local pool. What it adds to Dask's own executor:

- every task runs on a long-lived thread of the worker process
  (:func:`tournaments.executors.worker.run_hosted`), never on a thread of Dask's pool,
  because sandboxed bots die when the thread that started them exits;
- a worker that dies mid-match costs the matches it held: Dask's scheduler
  runs them again elsewhere. A match whose workers keep dying is given up
  after ``distributed.scheduler.allowed-failures`` + 1 attempts (Dask's
  ``KilledWorker``), which this executor hands back as
  :class:`~tournaments.executors.local_pool.TaskKilledWorkers` so the runner records it as
  an error with the reason instead of retrying it for ever. The run sets the
  scheduler's ``allowed_failures`` to the tournament's ``limits.max_attempts - 1``;
- a lost connection to the scheduler fails the tasks in flight with
  :class:`~tournaments.executors.local_pool.ExecutorLost` (the runner stops, everything
  recorded is kept, and the same ``ladder run`` resumes);
- :attr:`DaskExecutor.worker_count` is the cluster's task slots now (threads
  of all workers), so the runner keeps a small multiple of it in flight.

Every worker is prepared by :class:`LadderWorkerPlugin`, registered for the
run (so workers that join later, or that replace a dead one, are prepared
too): it installs the bot store versions the tournament plays, shipped with
the plugin and hashed on arrival, runs the test set-up hook if any, and lets
the worker's ``ladder`` log records reach the coordinator's log file
(``Client.forward_logging``).

Without a scheduler address, :func:`open_dask_executor` starts a
``distributed.LocalCluster`` (worker processes with a nanny, one thread
each) on this machine; its workers ignore Ctrl-C (the coordinator's), and
Dask ends them if the coordinator dies (even by ``kill -9``). Its worker processes are started with
``spawn``: a script (not the ``ladder`` command) that runs a tournament on
Dask must guard its work with ``if __name__ == "__main__":``.

While the executor is open, Dask's own log records in the coordinator
(``distributed.*``, warnings and up) go to the run's log file rather than to
the console, where they would break the progress bar; the run's errors are
still said on the console, in one line.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from typing import Any

import dask
import distributed
from distributed.diagnostics.plugin import WorkerPlugin

from ladder.errors import UserError
from tournaments.executors.local_pool import ExecutorLost, TaskKilledWorkers
from tournaments.executors.worker import install_bot_files, run_hosted, stop_hosts

log = logging.getLogger("ladder.dask")

_runs_lock = threading.Lock()
_runs = 0  # runs whose plugin is installed in this worker process


TASK_PREFIX = "_call_hosted-"  # Dask names a task by its function: how this executor's tasks are recognised


def _call_hosted(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What a Dask worker runs: ``fn`` on one of the process's long-lived threads.

    The arguments travel as a tuple and a dict so that none of ``fn``'s
    keyword arguments is mistaken for one of ``Client.submit``'s.
    """
    return run_hosted(fn, *args, **kwargs)


class LadderWorkerPlugin(WorkerPlugin):
    """Prepares a Dask worker for one ``ladder run`` (and every worker that joins during it).

    ``bundles``: the bot store versions the tournament plays (content hash ->
    files), installed into the worker's bot store after checking their hash.
    ``results``: a results folder for the worker (``$LADDER_RESULTS``); only
    set for the coordinator's own local cluster, remote workers keep theirs.
    ``setup``: ``"module:function"`` run once (tests register toy games).
    ``ignore_sigint``: for the coordinator's own local cluster, whose workers
    share its terminal.
    """

    def __init__(
        self,
        bundles: Mapping[str, Mapping[str, bytes]] | None = None,
        results: str | None = None,
        setup: str | None = None,
        log_level: int = logging.INFO,
        ignore_sigint: bool = False,
    ) -> None:
        self.bundles = {digest: dict(files) for digest, files in (bundles or {}).items()}
        self.results = results
        self.setup_hook = setup
        self.log_level = log_level
        self.ignore_sigint = ignore_sigint
        self.counted = False  # this worker's copy of the plugin counts in _runs

    def setup(self, worker: Any) -> None:
        global _runs
        if self.results:
            os.environ["LADDER_RESULTS"] = self.results
        logging.getLogger("ladder").setLevel(self.log_level)
        if self.ignore_sigint and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the terminal is the coordinator's
        if self.setup_hook:
            import importlib

            module_name, _, function = self.setup_hook.partition(":")
            getattr(importlib.import_module(module_name), function)()
        installed = install_bot_files(self.bundles)
        with _runs_lock:
            _runs += 1
            self.counted = True
        log.info(
            "dask worker %s (pid %d) ready: %d bot version(s) shipped, %d written to its bot store",
            worker.address,
            os.getpid(),
            len(self.bundles),
            len(installed),
        )

    def teardown(self, worker: Any) -> None:
        global _runs
        with _runs_lock:
            if not self.counted:
                return
            self.counted = False
            _runs -= 1
            last = _runs == 0
        if last:
            stop_hosts()  # each host thread closes its player pools: the bots' processes stop


class DaskExecutor(Executor):
    """``client.get_executor(pure=False)`` with the ladder's additions (see the module docstring).

    ``cluster``: the :class:`distributed.LocalCluster` this executor started
    and closes, if any. ``plugin_name``: the run's worker plugin, unregistered
    at shutdown on a cluster that outlives the run.
    """

    def __init__(
        self,
        client: Any,
        cluster: Any = None,
        plugin_name: str | None = None,
        restore_allowed_failures: int | None = None,
        console: _LogsToFile | None = None,
    ) -> None:
        self._client = client
        self._cluster = cluster
        self._inner = client.get_executor(pure=False)
        self._plugin_name = plugin_name
        self._restore_allowed_failures = restore_allowed_failures
        self._closing = False
        self._shut = False
        self._console = console or _LogsToFile()
        self._slots = 0
        self._slots_at = 0.0
        self.address = str(client.scheduler.address)
        self.lost_workers = 0  # workers that died (not retired) during the run
        self.rerun_tasks = 0  # tasks of this executor those workers held: Dask runs them again (or gives up)

    # ---- the Executor interface -----------------------------------------------------------------
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._client.status != "running":
            raise ExecutorLost(self._lost_message())
        inner = self._inner.submit(_call_hosted, fn, args, kwargs)
        outer: Future = Future()
        inner.add_done_callback(lambda done: self._relay(done, outer))
        return outer

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._shut:
            return
        self._shut = True
        if cancel_futures:
            self._closing = True  # the cancelled futures are ours, not a lost scheduler's
        try:
            self._inner.shutdown(wait=wait and not cancel_futures)
        except Exception:  # a lost scheduler: nothing left to wait for
            pass
        self._close()

    def terminate(self) -> None:
        """Give up the tasks in flight now (a second Ctrl-C) and leave the cluster."""
        self.shutdown(wait=False, cancel_futures=True)

    @property
    def worker_count(self) -> int:
        """Task slots in the cluster now: the threads of every worker (asked at most every two seconds)."""
        now = time.monotonic()
        if now - self._slots_at >= 2.0 and self._client.status == "running":
            self._slots_at = now
            try:
                self._slots = sum(self._client.nthreads().values())
            except Exception:  # keep the last answer; a lost scheduler shows up in the futures
                pass
        return self._slots

    # ---- helpers ----------------------------------------------------------------------------------
    def _on_scheduler_event(self, event: Any) -> None:
        """The scheduler's ``all`` topic: say in the log when a worker joins or dies, count what it held."""
        message = event[1] if isinstance(event, (tuple, list)) and len(event) == 2 else event
        if not isinstance(message, dict):
            return
        action = message.get("action")
        if action == "add-worker":
            log.info("Dask worker %s joined", message.get("worker"))
        elif action == "remove-worker" and not message.get("expected"):
            held = [key for key in message.get("processing-tasks", ()) if str(key).startswith(TASK_PREFIX)]
            self.lost_workers += 1
            self.rerun_tasks += len(held)
            log.warning(
                "Dask worker %s died holding %d match(es) of this run: Dask plays them again on other "
                "workers (a match is given up after its allowed failures)",
                message.get("worker"),
                len(held),
            )

    def _lost_message(self) -> str:
        return (
            f"lost the connection to the Dask scheduler at {self.address}; every match recorded is kept: "
            "restart the scheduler (and workers) and run the same command again to resume"
        )

    def _relay(self, inner: Future, outer: Future) -> None:
        """Hand the outcome of Dask's future to ours, in the ladder's terms."""
        if inner.cancelled():
            if self._closing:
                outer.cancel()
                outer.set_running_or_notify_cancel()  # wakes concurrent.futures.wait
            else:
                outer.set_exception(ExecutorLost(self._lost_message()))
            return
        error = inner.exception()
        if error is None:
            outer.set_result(inner.result())
        elif isinstance(error, distributed.KilledWorker):
            attempts = int(error.allowed_failures) + 1
            last = getattr(error.last_worker, "address", "?")
            outer.set_exception(
                TaskKilledWorkers(
                    f"killed its worker {attempts} time(s): each of the {attempts} Dask workers that played it died "
                    f"(the last: {last}); not retried again (distributed.scheduler.allowed-failures = {attempts - 1})",
                    attempts,
                )
            )
        elif isinstance(error, distributed.client.FutureCancelledError) or (
            type(error).__name__ == "CancelledError" and self._client.status != "running"
        ):
            outer.set_exception(ExecutorLost(self._lost_message()))
        else:
            outer.set_exception(error)

    def _close(self) -> None:
        self._closing = True
        client, cluster = self._client, self._cluster
        if cluster is None and client.status == "running":  # a cluster that outlives the run: tidy up after us
            try:
                if self._plugin_name:
                    client.unregister_worker_plugin(self._plugin_name)
                client.unforward_logging("ladder")
                client.unsubscribe_topic("all")
                if self._restore_allowed_failures is not None:
                    client.run_on_scheduler(_set_allowed_failures, self._restore_allowed_failures)
            except Exception as error:
                log.warning("could not tidy up on the Dask cluster at %s: %s", self.address, error)
        try:
            client.close(timeout=10)
        except Exception:
            pass
        if cluster is not None:
            try:
                cluster.close(timeout=20)
            except Exception:
                pass
        self._console.restore()


class _LogsToFile:
    """Send the records of Dask's loggers (``distributed``, ``distributed.client``, ``tornado``...: the
    ones Dask's logging config gives a console handler) to the root logger, warnings and up, instead of stderr."""

    PREFIXES = ("distributed", "tornado", "bokeh")

    def __init__(self) -> None:
        self.saved: list[tuple[logging.Logger, list[logging.Handler], bool, int]] = []
        names = [
            name
            for name in logging.root.manager.loggerDict
            if any(name == prefix or name.startswith(prefix + ".") for prefix in self.PREFIXES)
        ]
        for name in names:
            logger = logging.getLogger(name)
            if not logger.handlers:
                continue
            self.saved.append((logger, list(logger.handlers), logger.propagate, logger.level))
            for handler in list(logger.handlers):
                logger.removeHandler(handler)
            logger.propagate = True
            logger.setLevel(max(logger.level, logging.WARNING))

    def restore(self) -> None:
        for logger, handlers, propagate, level in self.saved:
            for handler in handlers:
                if handler not in logger.handlers:
                    logger.addHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)
        self.saved = []


def _set_allowed_failures(value: int, dask_scheduler: Any = None) -> int:
    """On the scheduler: set how often a task may lose its worker before it fails; the previous value."""
    previous = int(dask_scheduler.allowed_failures)
    dask_scheduler.allowed_failures = value
    return previous


def open_dask_executor(
    *,
    scheduler: str | None,
    workers: int,
    max_attempts: int,
    bundles: Mapping[str, Mapping[str, bytes]],
    results: str,
    setup: str | None = None,
    log_level: int = logging.INFO,
    run_name: str | None = None,
    connect_seconds: float = 30.0,
    workers_seconds: float = 120.0,
) -> DaskExecutor:
    """A :class:`DaskExecutor` on the scheduler at ``scheduler``, or on a local cluster of ``workers`` workers.

    ``run_name`` names the run's worker plugin (``ladder-<run_name>``): the
    same tournament run again replaces the plugin a killed coordinator left
    behind on a long-lived cluster, instead of piling up another one.

    Raises :class:`UserError` (one line) when the scheduler cannot be
    reached, no worker joins in time, or a worker cannot be prepared.
    """
    allowed = max(0, max_attempts - 1)
    cluster = None
    previous: int | None = None
    plugin = LadderWorkerPlugin(bundles, setup=setup, log_level=log_level)
    console = _LogsToFile()
    try:
        if scheduler is None:
            with dask.config.set({"distributed.scheduler.allowed-failures": allowed}):
                cluster = distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    scheduler_port=0,
                    silence_logs=logging.ERROR,
                )
            client = distributed.Client(cluster, timeout=connect_seconds)
            plugin.results = results
            plugin.ignore_sigint = True
            wanted = workers
        else:
            try:
                client = distributed.Client(scheduler, timeout=connect_seconds)
            except Exception as error:
                raise UserError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
            try:
                previous = client.run_on_scheduler(_set_allowed_failures, allowed)
            except Exception as error:
                client.close()
                raise UserError(
                    f"the Dask scheduler at {scheduler} refused to be configured "
                    f"(allowed-failures): {type(error).__name__}: {error}"
                ) from None
            wanted = 1
    except BaseException as error:
        console.restore()
        if cluster is not None:
            cluster.close()
        if isinstance(error, Exception) and not isinstance(error, UserError):
            raise UserError(f"could not start a local Dask cluster: {type(error).__name__}: {error}") from None
        raise
    executor = DaskExecutor(client, cluster, f"ladder-{run_name or uuid.uuid4().hex[:12]}", previous, console)
    try:
        try:
            client.wait_for_workers(wanted, timeout=workers_seconds)
        except Exception:
            where = scheduler or "the local cluster"
            raise UserError(
                f"no Dask worker joined {where} within {workers_seconds:g} s: start some with "
                f"`dask worker {scheduler or 'SCHEDULER'} --nthreads 1` (see docs/dask.md)"
            ) from None
        client.forward_logging("ladder", level=log_level)
        client.subscribe_topic("all", executor._on_scheduler_event)
        try:
            client.register_plugin(plugin, name=executor._plugin_name)
        except Exception as error:
            raise UserError(
                f"a Dask worker could not be prepared for the run: {type(error).__name__}: {error}"
            ) from None
    except BaseException:
        executor.terminate()
        raise
    log.info(
        "dask backend: scheduler %s, %d worker(s) with %d task slot(s), %d bot version(s) shipped, "
        "allowed-failures %d%s",
        executor.address,
        len(client.nthreads()),
        executor.worker_count,
        len(bundles),
        allowed,
        "" if previous is None else f" (was {previous} on this scheduler; restored at the end)",
    )
    return executor
