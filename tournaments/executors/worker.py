"""What a worker process does: play one match from its spec and send back a plain record.

The task is a :class:`~tournaments.executors.tasks.MatchTask` (game, options, seed,
seat references, the content hash of each seat's bot version, key, limits)
and the answer a :class:`~tournaments.executors.tasks.WorkerRecord` (scores, ranks,
details, the packed action log, seat failures, timings); both travel as plain
dicts stamped with their schema version, so any executor can carry them, the
local process pool or a Dask cluster, and a version mismatch is named. A worker keeps its
player source between tasks, so the bots' processes stay alive across matches.

:func:`seat_player` is the one place that turns a seat's bot reference into a
player: it asks ``ladder.seats.players`` (the sandbox's :class:`PlayerPool` when it
is there, the in-process built-in bots otherwise). Player sources belong to
the thread that made them (a :class:`PlayerPool` is not shared between
threads), one per set of limits.

Before a match is played, every seat is checked against the version the
tournament names (:func:`verify_seats`): a ``store:<sha256>`` bot must be in
this worker's bot store with exactly that hash, a built-in bot must have the
same source code as on the coordinator. A worker that lacks a bot or has
another version raises :class:`MatchRefused` instead of running other code.

Why long-lived threads (:func:`run_hosted`): a sandboxed bot process is told
to die with its parent (bubblewrap's ``--die-with-parent``, the bot host's
``PR_SET_PDEATHSIG``), and for Linux the parent is the *thread* that started
it. A worker that runs tasks on a thread pool whose threads may come and go
(Dask) would see its bots killed under it when a thread exits. The Dask
backend therefore runs every match on a thread of this module that lives as
long as the worker process (:func:`run_hosted`), so the bots it starts live
as long as their pool. The local pool runs matches on its worker processes'
main threads, which live as long as the process anyway.
"""

from __future__ import annotations

import importlib
import logging
import logging.handlers
import os
import queue
import shutil
import socket
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from bots.base import MatchStart
from ladder.errors import UserError
from ladder.matches.match import BotFailure, Player, SeatPlayer, play_match
from ladder.matches.statuses import FailureReason
from ladder.sandbox import host_load
from ladder.sandbox.limits import SandboxLimits
from ladder.seats.botref import BotRef, RefKind
from ladder.seats.versions import builtin_hash
from ladder.store.action_log import pack_actions
from ladder.text import bot_lines, clean_text
from tournaments.executors.tasks import MatchTask, WorkerRecord

log = logging.getLogger("ladder.worker")

_local = threading.local()  # .sources: this thread's player sources, by limits
_sources_lock = threading.Lock()
_all_sources: list[Any] = []  # every player source of this process, for close_players
_played = 0


def init_worker(
    log_queue: Any = None, level: int = logging.INFO, setup: str | None = None, results: str | None = None
) -> None:
    """Run once in each worker process: send its log records to the coordinator's log file.

    ``results`` is the coordinator's results folder as an absolute path, so
    the bot store is found whatever the sandbox's working folder. ``setup``
    (``"module:function"``) is called too: tests use it to register toy games
    and bots in the worker.
    """
    if results:
        os.environ["LADDER_RESULTS"] = results
    if log_queue is not None:
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        root.addHandler(logging.handlers.QueueHandler(log_queue))
        root.setLevel(level)
    if setup:
        module_name, _, function = setup.partition(":")
        getattr(importlib.import_module(module_name), function)()
    log.info("worker %d ready", os.getpid())


class _UnavailablePlayer(SeatPlayer):
    """A seat whose bot could not even be loaded: it fails at the start of the match."""

    def __init__(self, failure: BotFailure) -> None:
        self.failure = failure

    def start(self, match: MatchStart) -> None:
        raise self.failure

    def act(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        raise self.failure

    def end(self, result: dict[str, Any]) -> None:
        raise self.failure


class _InProcessSource:
    """Stand-in for the sandbox's PlayerPool: built-in bots in this process, nothing else."""

    def player(self, ref: str, game_id: str, deal: str = "") -> Player:
        from ladder.seats.builtin_players import builtin_player

        if BotRef.parse(ref).sandboxed:
            raise BotFailure(
                FailureReason.CRASH, f"cannot run {ref}: the sandbox (ladder.seats.players.PlayerPool) is not available"
            )
        return builtin_player(ref, game_id)

    def close(self) -> None:
        pass


def _player_source(limits: SandboxLimits | Mapping[str, Any]) -> Any:
    """This thread's PlayerPool for ``limits`` (in-process built-in bots if ``ladder.seats.players`` has no pool)."""
    sources: dict[SandboxLimits, Any] | None = getattr(_local, "sources", None)
    if sources is None:
        sources = _local.sources = {}
    key = limits = SandboxLimits.from_mapping(limits)
    source = sources.get(key)
    if source is None:
        import ladder.seats.players as players

        pool_class = getattr(players, "PlayerPool", None)
        source = _make_pool(pool_class, limits) if pool_class is not None else _InProcessSource()
        sources[key] = source
        with _sources_lock:
            _all_sources.append(source)
    return source


def _make_pool(pool_class: Any, limits: SandboxLimits) -> Any:
    try:
        return pool_class(limits=limits)
    except TypeError:
        return pool_class()


def seat_player(ref: str, game_id: str, limits: SandboxLimits, deal: str = "") -> Player:
    """The player for one seat: the single switch between in-process bots and the sandbox.

    ``deal`` names the match's deal: a sandboxed bot never plays one deal twice in the same process.
    """
    try:
        return _player_source(limits).player(ref, game_id, deal=deal)
    except BotFailure as failure:
        return _UnavailablePlayer(failure)
    except Exception as error:  # a bot that cannot be loaded fails its seat, not the worker
        return _UnavailablePlayer(
            BotFailure(FailureReason.CRASH, f"could not load {ref}: {type(error).__name__}: {error}")
        )


def _retire(refs: Any, limits: SandboxLimits) -> None:
    """Stop this thread's idle processes of bots whose every scheduled match has been handed out."""
    source = _player_source(limits)
    retire = getattr(source, "retire", None)
    if retire is not None and refs:
        stopped = retire(list(refs))
        if stopped:
            log.debug("stopped %d idle bot process(es) with no more matches to play", stopped)


def close_players() -> None:
    """Stop the bots' processes this worker keeps (the local pool calls it at exit)."""
    log.info("worker %d stops after %d matches", os.getpid(), _played)
    _close_sources(everyone=True)


def _close_sources(everyone: bool) -> None:
    """Close this thread's player sources, or every thread's (``everyone``)."""
    mine = list(getattr(_local, "sources", {}).values())
    _local.sources = {}
    with _sources_lock:
        chosen = list(_all_sources) if everyone else [s for s in _all_sources if any(s is m for m in mine)]
        for source in chosen:
            _all_sources.remove(source)
    for source in chosen:
        try:
            source.close()
        except Exception:  # closing is best effort: the bots die with their thread anyway
            log.exception("could not close a player source")


# ---- checking the seats ----------------------------------------------------------------------------


class MatchRefused(RuntimeError):
    """This worker will not play the match: a seat's bot is missing here, or is not the version named."""


_verified: set[tuple[str, str]] = set()  # (reference, content hash) pairs checked in this process
_verified_lock = threading.Lock()


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def seat_problem(ref: str, expected_hash: str) -> str | None:
    """Why this worker cannot play ``ref`` as the bot version ``expected_hash``, or ``None`` if it can."""
    from bots.registry import bot_names
    from ladder.sandbox.submission import entry_point_bots, entry_point_submission, stored_submission
    from ladder.seats.players import store_folder

    short = expected_hash[:12]
    parsed = BotRef.parse(ref)
    if parsed.kind is RefKind.STORE:
        digest = parsed.target
        if digest != expected_hash:
            return f"the reference {ref} does not name the version {short} the tournament entered"
        if not parsed.well_formed:
            return f"{ref!r} is not a bot store reference (store:<64 hex digits>)"
        folder = store_folder(digest)
        if not folder.is_dir():
            return (
                f"bot version {short} is not in this worker's bot store ({folder}): ship it with the run "
                "or share the results folder (see docs/dask.md)"
            )
        try:
            stored_submission(ref, folder, digest)
        except UserError as error:
            return f"bot version {short} in this worker's bot store is not the one entered: {error}"
        return None
    if parsed.kind is RefKind.ENTRY_POINT:
        name = parsed.target
        bot = next((b for b in entry_point_bots() if b.name == name), None)
        if bot is None:
            return f"no installed package here offers the bot {name!r} (entry point group ladder.bots)"
        try:
            found = entry_point_submission(bot).content_hash
        except UserError as error:
            return str(error)
        if found != expected_hash:
            return f"the installed bot {name!r} here is version {found[:12]}, the tournament entered {short}"
        return None
    if ref in bot_names():
        found = builtin_hash(ref)
        if found != expected_hash:
            return (
                f"the built-in bot {ref!r} here is version {found[:12]}, the tournament entered {short}: "
                "install the same version of the ladder on every worker"
            )
        return None
    return f"no bot {ref!r} here (neither built-in, nor store:<sha256>, nor ep:<name>)"


def verify_seats(task: MatchTask) -> None:
    """Raise :class:`MatchRefused` unless every seat's bot here is exactly the version the task names.

    Each (reference, hash) is checked once per process: the bot store's
    files are hashed the first time they are used. A task without hashes
    is not checked.
    """
    if not task.hashes:
        return
    for seat, (ref, expected) in enumerate(zip(task.seats, task.hashes)):
        with _verified_lock:
            if (ref, expected) in _verified:
                continue
        problem = seat_problem(ref, expected)
        if problem is not None:
            raise MatchRefused(f"worker {_worker_name()} refuses match {task.key} (seat {seat}): {problem}")
        with _verified_lock:
            _verified.add((ref, expected))


def install_bot_files(bundles: Mapping[str, Mapping[str, bytes]]) -> list[str]:
    """Put shipped bot versions (content hash -> files) into this worker's bot store; the hashes installed.

    Each bundle is hashed on arrival and refused (``ValueError``) unless it
    matches its name. A version already in the store with the right hash is
    left alone (a shared results folder); a damaged copy is replaced. Several
    workers of one machine may install the same version at once: the files
    are written aside and moved into place in one step.
    """
    from ladder.sandbox.submission import content_hash, stored_submission, write_tree
    from ladder.seats.players import store_folder

    installed = []
    for digest, files in bundles.items():
        found = content_hash(dict(files))
        if found != digest:
            raise ValueError(f"the files shipped for bot version {digest[:12]} arrived with hash {found[:12]}: refused")
        target = store_folder(digest)
        try:
            stored_submission(str(BotRef.store(digest)), target, digest)
            continue  # already here, intact
        except UserError:
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.parent / f".{digest}.{os.getpid()}.{threading.get_ident()}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        write_tree(dict(files), partial)
        try:
            os.replace(partial, target)
        except OSError:  # another worker of this machine was first
            shutil.rmtree(partial, ignore_errors=True)
            stored_submission(str(BotRef.store(digest)), target, digest)
        installed.append(digest)
    return installed


# ---- long-lived threads ----------------------------------------------------------------------------


class _HostThread:
    """A thread that runs calls handed to it, one at a time, until it is told to stop."""

    _numbers = iter(range(1, 1 << 30))

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._serve, name=f"ladder-match-host-{next(self._numbers)}", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            while True:
                job = self.inbox.get()
                if job is None:
                    return
                job.run()
        finally:
            _close_sources(everyone=False)  # this thread's bots: they would die with it anyway


class _Job:
    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.done = threading.Event()
        self.ok = False
        self.value: Any = None

    def run(self) -> None:
        try:
            self.value = self.fn(*self.args, **self.kwargs)
            self.ok = True
        except BaseException as error:  # handed back to the caller as itself
            self.value = error
        finally:
            self.done.set()


_hosts_lock = threading.Lock()
_idle_hosts: list[_HostThread] = []
_all_hosts: list[_HostThread] = []


def run_hosted(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn(*args, **kwargs)`` on one of this process's long-lived threads; its result or exception.

    A free host thread is reused, else a new one is started: there are never
    more host threads than calls that ran at the same time, and each keeps
    its own player sources (and so its bots' processes) between calls.
    """
    with _hosts_lock:
        host = _idle_hosts.pop() if _idle_hosts else None
        if host is None:
            host = _HostThread()
            _all_hosts.append(host)
    job = _Job(fn, args, kwargs)
    host.inbox.put(job)
    try:
        job.done.wait()
    finally:
        with _hosts_lock:
            if host in _all_hosts:
                _idle_hosts.append(host)
    if job.ok:
        return job.value
    raise job.value


def host_threads() -> list[str]:
    """The names of this process's live host threads (for tests and diagnostics)."""
    with _hosts_lock:
        return [host.thread.name for host in _all_hosts if host.thread.is_alive()]


def stop_hosts(timeout: float = 10.0) -> None:
    """Stop the host threads once their calls are done; each closes its player sources (its bots)."""
    with _hosts_lock:
        hosts = list(_all_hosts)
        _all_hosts.clear()
        _idle_hosts.clear()
    for host in hosts:
        host.inbox.put(None)
    deadline = time.monotonic() + timeout
    for host in hosts:
        host.thread.join(max(0.0, deadline - time.monotonic()))


def play_task(message: Mapping[str, Any]) -> dict[str, Any]:
    """Play the match of a task sent as :meth:`MatchTask.to_wire` and return its record as
    :meth:`WorkerRecord.to_wire` (:class:`~tournaments.executors.tasks.SchemaMismatch` if the task is of another version)."""
    return play(MatchTask.from_wire(message)).to_wire()


def play(task: MatchTask) -> WorkerRecord:
    """Play the match of ``task`` (after checking its seats' bots are the versions named) and return its record."""
    spec = task.spec()
    limits = task.limits
    verify_seats(task)
    started = datetime.now(UTC)
    tick = time.perf_counter()
    cpu = time.process_time()
    host_before = host_load.sample()
    players = [seat_player(ref, spec.game, limits, task.deal) for ref in spec.seats]
    outcome = play_match(spec, players)
    host = host_load.pressure_between(host_before, host_load.sample())
    _retire(task.retire, limits)
    global _played
    _played += 1
    log.debug("match %s played in %.3f s", spec.key, time.perf_counter() - tick)
    for seat, failure in outcome.failures.items():
        # the bot's words are cleaned and every line of its stderr is marked as its own: it cannot forge a log line
        tail = (
            f"\n  its stderr ends with:\n{bot_lines(failure.stderr_tail.rstrip(), f'seat {seat} bot')}"
            if failure.stderr_tail.strip()
            else ""
        )
        log.warning(
            "match %s: seat %d (%s) failed: %s: %s%s",
            spec.key,
            seat,
            spec.seats[seat],
            failure.reason,
            clean_text(failure.detail, one_line=True),
            tail,
        )
    for seat, note in outcome.after_game.items():  # the result stands: told to the author, never counted
        log.warning("match %s: seat %d (%s): %s", spec.key, seat, spec.seats[seat], clean_text(note, one_line=True))
    voided = _voided(outcome.failures, spec.seats, host)
    if voided:
        log.warning("match %s voided (it will be played again): %s", spec.key, voided)
    return WorkerRecord(
        key=spec.key,
        scores=tuple(outcome.result.scores),
        ranks=tuple(outcome.result.ranks),
        details=dict(outcome.result.details),
        actions_z=pack_actions(outcome.actions),
        action_count=len(outcome.actions),
        failures=dict(outcome.failures),
        seconds=time.perf_counter() - tick,
        cpu_seconds=time.process_time() - cpu,  # this worker's CPU (sandboxed bots' processes not included)
        think=tuple(outcome.think_seconds),
        stderr=tuple(outcome.stderr),
        started_at=started,
        worker=_worker_name(),
        host=host.to_json(),  # the host's CPU pressure while the match was played
        voided=voided,  # empty, or why the host (not a bot) is to blame: the match counts for nothing
        move_us=tuple(round(seconds * 1e6) for seconds in outcome.move_seconds),
    )


def _voided(failures: Mapping[int, Any], seats: tuple[str, ...], host: host_load.HostPressure) -> str:
    """Why the match is void (a seat's timeout was a host fault), with the host's pressure; empty if it counts."""
    starved = [
        f"seat {seat} ({seats[seat]}): {failure.host_fault}"
        for seat, failure in sorted(failures.items())
        if failure.host_fault
    ]
    if not starved:
        return ""
    return f"host fault, not the bot's: {'; '.join(starved)}; host during the match: {host.describe()}"
