"""A local process pool behind the :class:`concurrent.futures.Executor` interface.

Why not :class:`~concurrent.futures.ProcessPoolExecutor`: when one of its
workers dies (killed, out of memory) the whole pool breaks and every match in
flight is lost. Here each worker runs one task at a time, so a dead worker
costs exactly the task it was running: that future fails with
:class:`WorkerLost`, a fresh worker takes the dead one's place, and the other
workers carry on. Workers are long-lived, so whatever they keep between tasks
(the bots' processes) stays alive.

Workers are started from a fork server (:func:`worker_context`), never
forked from the coordinator itself: the coordinator runs threads (this pool's
manager, the log funnel's reader, the database's), and a process forked from
a multi-threaded one inherits whatever locks those threads held at that
instant (a logging or allocator lock held by another thread stays locked in
the child for ever) and a copy of the coordinator's whole heap, which every
worker then copies page by page as its garbage collector touches it. The
fork server is a small single-threaded process that imported the worker's
modules once (:data:`PRELOAD`), so a worker (or a replacement) starts in a
few milliseconds with a clean heap of its own. Another start method can be
passed as ``mp_context``; objects handed to workers that hold locks (the log
queue) must come from the same context (:func:`log_funnel`).

``pin_cpus``: each worker is pinned to one CPU of its own (worker ``i`` to the
``i``-th CPU this process may use), and the bot processes it starts inherit
that CPU: a sandboxed decision hands the CPU from the worker to its bot and
back, and on one CPU that hand-over never wakes another core (on a virtual
machine a cross-CPU wake-up costs tens of microseconds; see
docs/benchmarks.md). Only when there are no more workers than CPUs.

Workers ignore SIGINT: Ctrl-C is the coordinator's to handle, so a match in
progress is never cut by it.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.util
import os
import signal
import tempfile
import threading
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, Future
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from multiprocessing_logging import MultiProcessingHandler

from ladder.errors import UserError
from ladder.sandbox.host_load import PIN_ENV as PIN_ENV  # re-exported: the pinning switch lives with the host facts
from ladder.sandbox.host_load import worker_cpus as worker_cpus
from ladder.sandbox.parent_death import die_with_parent

START_METHOD = "forkserver"
"""How workers are started: from a fork server, never by forking the (multi-threaded) coordinator."""

PRELOAD = ["tournaments.executors.worker", "ladder.seats.players", "ladder.matches.match", "engine", "bots.registry"]
"""Modules the fork server imports once, so that every worker starts with them loaded."""


SOCKET_PATH_MAX = 107
"""The longest path of a Unix socket (``sun_path`` less its terminating zero): the fork server listens on one."""
SOCKET_NAME_ROOM = 40
"""What multiprocessing adds to the temporary folder for the fork server's socket (``/pymp-XXXXXXXX/listener-XXXXXXXX``,
with room to spare)."""


def _short_socket_folder() -> None:
    """Keep the fork server's socket path within :data:`SOCKET_PATH_MAX`: with a long ``TMPDIR`` (a CI runner's or a
    test's folder) multiprocessing's own temporary folder, where the socket goes, is made in ``/tmp`` instead."""
    if len(os.fsencode(tempfile.gettempdir())) + SOCKET_NAME_ROOM <= SOCKET_PATH_MAX:  # sun_path counts bytes
        return
    chosen, tempfile.tempdir = tempfile.tempdir, "/tmp"
    try:
        folder = multiprocessing.util.get_temp_dir()  # made once per process, removed at exit
    except OSError as error:
        raise UserError(
            f"the temporary folder {chosen or tempfile.gettempdir()!r} is too long for the socket the workers are "
            f"started through (at most {SOCKET_PATH_MAX - SOCKET_NAME_ROOM} characters) and /tmp cannot be used "
            f"instead ({error.strerror or error}): set TMPDIR to a shorter folder"
        ) from error
    finally:
        tempfile.tempdir = chosen
    if len(os.fsencode(folder)) + SOCKET_NAME_ROOM > SOCKET_PATH_MAX:
        raise UserError(
            f"the temporary folder {folder!r} is too long for the socket the workers are started through "
            f"(at most {SOCKET_PATH_MAX - SOCKET_NAME_ROOM} characters): set TMPDIR to a shorter folder"
        )


def worker_context() -> Any:
    """The multiprocessing context workers are started with (a fork server that preloaded :data:`PRELOAD`)."""
    _short_socket_folder()
    context = multiprocessing.get_context(START_METHOD)
    context.set_forkserver_preload(PRELOAD)
    return context


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: it imports :data:`PRELOAD` (about a second) while the
    coordinator does other work, instead of when the first worker is asked for."""
    worker_context()
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except OSError:  # it is started again (and the error shown) when the first worker is asked for
        pass


class _ContextFunnel(MultiProcessingHandler):
    """multiprocessing-logging's handler with its queue made by the workers' context.

    The library makes its queue with the default context (``fork`` on Linux),
    and a queue holds a lock: a lock made for forked children cannot be handed
    to a process started from a fork server. The set-up is the library's own
    (``MultiProcessingHandler.__init__``) but for the queue's context.
    """

    def __init__(self, name: str, sub_handler: logging.Handler, context: Any) -> None:
        logging.Handler.__init__(self)
        self.sub_handler = sub_handler
        self.setLevel(sub_handler.level)
        self.setFormatter(sub_handler.formatter)
        self.filters = sub_handler.filters
        self.queue = context.Queue(-1)
        self._is_closed = False
        self._receive_thread = threading.Thread(target=self._receive, name=name, daemon=True)
        self._receive_thread.start()


def log_funnel(name: str, sub_handler: logging.Handler, context: Any = None) -> MultiProcessingHandler:
    """A handler that writes every worker's log records (sent through its ``queue``) with ``sub_handler``."""
    return _ContextFunnel(name, sub_handler, context or worker_context())


class WorkerLost(RuntimeError):
    """The worker process running this task died before answering."""


class RemoteError(RuntimeError):
    """A task raised an exception that could not be sent back as itself; carries its traceback text."""


class TaskKilledWorkers(RuntimeError):
    """The task was retried on ``attempts`` workers and each of them died while running it: it is not retried again.

    Raised by executors that retry a task themselves when its worker dies
    (Dask: ``distributed.scheduler.allowed-failures``, then ``KilledWorker``).
    """

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class ExecutorLost(BrokenExecutor):
    """The executor cannot go on (e.g. the connection to a Dask scheduler is lost); the message says what to do."""


@dataclass
class _Task:
    future: Future
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    running: bool = False


@dataclass
class _Slot:
    index: int
    process: Any
    conn: Connection
    task: _Task | None = None
    ready: bool = False  # its initializer has run: it may be given tasks


def _worker_main(
    conn: Connection,
    initializer: Callable[..., Any] | None,
    initargs: tuple[Any, ...],
    finalizer: Callable[[], Any] | None,
    inherited: list[Connection],
    cpu: int | None = None,
    environ: dict[str, str] | None = None,
    coordinator_pid: int = 0,
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if environ is not None:  # started by the fork server (its only thread), which ends with the coordinator: a
        die_with_parent(os.getppid())  # worker mid-match must not outlive a coordinator killed with kill -9
        if coordinator_pid and not _alive(coordinator_pid):
            os._exit(1)  # the coordinator died before the fork server's death could be asked to end this worker
    if environ is not None:  # the coordinator's environment now, as a fork would have given it
        _take_environment(environ)
    if cpu is not None:
        try:
            os.sched_setaffinity(0, {cpu})  # the bot processes this worker starts inherit it
        except OSError:
            pass  # the CPU went away (hot-unplug, a changed cpuset): run anywhere
    for other in inherited:  # a forked worker holds copies of the coordinator's pipe ends: close
        other.close()  # them, or no worker would see EOF when the coordinator dies
    if initializer is not None:
        initializer(*initargs)
    try:
        conn.send("ready")
        _serve(conn)
    finally:
        if finalizer is not None:
            finalizer()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _take_environment(environ: dict[str, str]) -> None:
    """Make this process's environment ``environ``: a fork server's children start with the fork server's own,
    which is the coordinator's as it was when the fork server started, not as it is now."""
    for key in set(os.environ) - set(environ):
        del os.environ[key]
    os.environ.update(environ)


def _serve(conn: Connection) -> None:
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return  # the coordinator is gone
        if message is None:
            return
        fn, args, kwargs = message
        try:
            reply: tuple[Any, ...] = (True, fn(*args, **kwargs))
        except BaseException as error:  # the coordinator decides what a failed task means
            reply = (False, error, traceback.format_exc())
        try:
            conn.send(reply)
        except (BrokenPipeError, OSError):
            return
        except Exception:  # the result or the exception could not be pickled
            text = traceback.format_exc()
            try:
                conn.send((False, RemoteError(text), text))
            except (BrokenPipeError, OSError):
                return


class LocalPoolExecutor(Executor):
    """``max_workers`` long-lived worker processes, one task each at a time.

    ``initializer(*initargs)`` runs once in every worker (and in every
    replacement), ``finalizer()`` when it stops. ``pin_cpus``: worker ``i``
    (and its replacements, and the bot processes it starts) runs on the
    ``i``-th CPU this process may use; ignored when there are more workers
    than CPUs. Workers that die while starting up (before their first
    task) three times in a row break the pool, since their initializer is
    failing: pending futures then fail with :class:`BrokenExecutor`.
    """

    def __init__(
        self,
        max_workers: int | None = None,
        initializer: Callable[..., Any] | None = None,
        initargs: tuple[Any, ...] = (),
        mp_context: Any = None,
        finalizer: Callable[[], Any] | None = None,
        pin_cpus: bool = False,
    ) -> None:
        self._workers = max_workers or os.cpu_count() or 1
        if self._workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._cpus = worker_cpus(self._workers) if pin_cpus else None
        self._context = mp_context or worker_context()
        self._initializer = initializer
        self._initargs = initargs
        self._finalizer = finalizer
        self._lock = threading.Lock()
        self._pending: deque[_Task] = deque()
        self._shutdown = False
        self._broken: str | None = None
        self._wake_reader, self._wake_writer = self._context.Pipe(duplex=False)
        self._slots: list[_Slot] = []
        self._deaths_without_work = 0
        self._terminating = False
        self.lost_workers = 0
        for index in range(self._workers):
            self._slots.append(self._start_slot(index))
        self._thread = threading.Thread(target=self._manage, name="local-pool-manager", daemon=True)
        self._thread.start()

    # ---- the Executor interface -------------------------------------------------------------
    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        with self._lock:
            if self._broken:
                raise BrokenExecutor(self._broken)
            if self._shutdown:
                raise RuntimeError("cannot submit a task after shutdown")
            was_idle = not self._pending
            self._pending.append(_Task(future, fn, args, kwargs))
        # Only a submit that made the queue non-empty wakes the manager. While the queue is not empty the manager
        # is woken anyway: by that first submit's byte, if it has not yet run _assign since; else every free
        # ready worker took a task there, and each busy, starting or dying worker will wake it (a result,
        # "ready", its sentinel), after which _assign runs again before the next wait.
        if was_idle:
            self._wake()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while self._pending:
                    self._pending.popleft().future.cancel()
        self._wake()
        if wait:
            self._thread.join()

    def terminate(self) -> None:
        """Kill every worker now; their tasks fail with :class:`WorkerLost`."""
        self._terminating = True
        self.shutdown(wait=False, cancel_futures=True)
        for slot in list(self._slots):
            if slot.process.is_alive():
                slot.process.kill()
        self._thread.join(timeout=10)

    @property
    def worker_count(self) -> int:
        """How many tasks run at once (the runner keeps a small multiple of this in flight)."""
        return self._workers

    @property
    def pinned_cpus(self) -> list[int] | None:
        """The CPU of each worker, by index (``None``: not pinned)."""
        return list(self._cpus) if self._cpus else None

    @property
    def worker_pids(self) -> list[int]:
        return [slot.process.pid for slot in self._slots if slot.process.is_alive()]

    # ---- the manager thread -----------------------------------------------------------------
    def _wake(self) -> None:
        try:
            self._wake_writer.send_bytes(b"!")
        except (OSError, ValueError):
            pass

    def _start_slot(self, index: int) -> _Slot:
        parent, child = self._context.Pipe(duplex=True)
        inherited: list[Connection] = []
        if self._context.get_start_method() == "fork":
            inherited = [parent, self._wake_reader, self._wake_writer] + [slot.conn for slot in self._slots]
        cpu = self._cpus[index] if self._cpus else None
        process = self._context.Process(
            target=_worker_main,
            args=(
                child,
                self._initializer,
                self._initargs,
                self._finalizer,
                inherited,
                cpu,
                None if self._context.get_start_method() == "fork" else dict(os.environ),
                os.getpid(),
            ),
            name=f"ladder-worker-{index}",
        )
        process.start()
        child.close()
        return _Slot(index, process, parent)

    def _assign(self) -> None:
        with self._lock:
            for slot in self._slots:
                while slot.ready and slot.task is None and self._pending:
                    task = self._pending.popleft()
                    if not task.running:
                        if not task.future.set_running_or_notify_cancel():
                            continue  # cancelled while waiting
                        task.running = True
                    try:
                        slot.conn.send((task.fn, task.args, task.kwargs))
                    except (BrokenPipeError, ConnectionError, EOFError):
                        self._pending.appendleft(task)  # the worker just died: the next one takes it
                        break
                    except Exception as error:  # the task cannot be pickled
                        task.future.set_exception(error)
                        continue
                    slot.task = task

    def _finish(self, slot: _Slot) -> bool:
        """Read one message of ``slot``; False at end of file (the death is handled by the sentinel)."""
        try:
            message = slot.conn.recv()
        except (EOFError, OSError):
            return False
        if message == "ready":
            slot.ready = True
            self._deaths_without_work = 0
            return True
        ok, value = message[0], message[1]
        task, slot.task = slot.task, None
        if task is None:
            return True
        if ok:
            task.future.set_result(value)
        else:
            value.remote_traceback = message[2]  # the worker's traceback, for the log
            task.future.set_exception(value)
        return True

    def _bury(self, slot: _Slot) -> None:
        while slot.conn.poll() and self._finish(slot):
            pass  # it answered before dying
        slot.process.join()
        code = slot.process.exitcode
        slot.conn.close()
        self._slots.remove(slot)
        if self._terminating:
            if slot.task is not None:
                slot.task.future.set_exception(WorkerLost("the pool was terminated while this task ran"))
            return
        self.lost_workers += 1
        lost_task, slot.task = slot.task, None
        if lost_task is None and not slot.ready:
            self._deaths_without_work += 1  # died starting up: its initializer fails
        if self._deaths_without_work >= 3:
            self._break(
                f"worker processes keep dying before finishing any task (last exit status {code}); if a "
                'script of yours starts the tournament, put its code under `if __name__ == "__main__":` '
                "(workers start from a fork server and import the main script)"
            )
        if self._broken is None:
            # replace the worker before failing its task, so whoever sees the failure sees a full pool
            self._slots.append(self._start_slot(slot.index))
        if lost_task is not None:
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            lost_task.future.set_exception(WorkerLost(f"worker {slot.process.pid} died ({how}) during the task"))

    def _break(self, reason: str) -> None:
        with self._lock:
            self._broken = reason
            self._shutdown = True
            while self._pending:
                self._pending.popleft().future.set_exception(BrokenExecutor(reason))

    def _idle(self) -> bool:
        with self._lock:
            return not self._pending and all(slot.task is None for slot in self._slots)

    def _manage(self) -> None:
        while True:
            self._assign()
            if self._shutdown and self._idle():
                break
            waitables: list[Any] = [self._wake_reader]
            for slot in self._slots:
                waitables.append(slot.conn)
                waitables.append(slot.process.sentinel)
            ready = set(wait(waitables))
            if self._wake_reader in ready:
                while self._wake_reader.poll():
                    self._wake_reader.recv_bytes()
            for slot in list(self._slots):
                if slot.conn in ready and slot.process.sentinel not in ready:
                    self._finish(slot)
            for slot in list(self._slots):
                if slot.process.sentinel in ready:
                    self._bury(slot)
        self._stop_workers()

    def _stop_workers(self) -> None:
        for slot in self._slots:
            try:
                slot.conn.send(None)
            except (OSError, ValueError):
                pass
        for slot in self._slots:
            slot.process.join(timeout=5)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join(timeout=5)
            slot.conn.close()
        self._wake_reader.close()
        self._wake_writer.close()
