"""Running a tournament: schedule, workers, progress, resume, time budget, benching.

One coordinator process (this one) owns the database. It works out the
schedule from the tournament file, skips the matches already recorded (so a
second ``ladder run`` of the same file resumes: only what is missing is
played, never twice), and hands match specs to an executor: any
:class:`concurrent.futures.Executor`. It submits plain match tasks, keeps a
bounded number in flight (a small multiple of the executor's worker count,
asked again as workers come and go), and consumes the results as they
complete. The backend makes the executor (:mod:`tournaments.backends`): a
:class:`~tournaments.executor.LocalPoolExecutor` (``local``, one worker per
core by default) or a Dask cluster (``dask``,
:class:`~tournaments.dask_executor.DaskExecutor`). The coordinator stays the
only writer of the database whatever the backend.

Every result is written as soon as it arrives: the results that completed
together are written in one transaction (commits are batched by arrival), so
a crash or ``kill -9`` loses only the matches still in flight.

Ctrl-C (or SIGTERM) stops cleanly: no new match starts, the matches in flight
finish and are recorded; a second Ctrl-C abandons them (they are replayed on
resume). A worker that dies costs the match it was playing, which is retried
(up to ``limits.max_attempts`` in all, then recorded as an error; on Dask the
scheduler does the retrying and a match that killed ``max_attempts`` workers
comes back as :class:`~tournaments.executor.TaskKilledWorkers`). A worker
that refuses a match (it lacks a bot, or has another version) fails that
match with the reason; it is recorded as an error and retried by the next
run. Losing the executor (a Dask scheduler gone) stops the run as
``stopped``: what was recorded is kept and a new run resumes. A bot
version that fails ``limits.bench_after_failures`` matches in a row in one
pool (a game, option set and player count) is benched in that pool for the
rest of the tournament: its remaining matches there are recorded as
skipped, with the reason; its matches in other pools go on.

A tournament is identified by its name, seed, format and games, not by its
bots: a new bot version (or a new bot) run again under the same file joins
the same tournament, and only its own matches are played.

With a time budget (``--hours`` or ``hours =``), cycles of the schedule (new
deals each cycle) are played until the budget is spent. The adaptive format
(:mod:`tournaments.adaptive`) plays rounds chosen from what is stored instead
of cycles, until every pool is settled or its budget (or the time) is spent.

deals each cycle) are played until the budget is spent.

Sealed deals (:mod:`ladder.deals`): a new tournament gets a fresh secret (or
the one the operator passes, ``--deal-secret``), kept in its database row; its
commitment is logged and shown by ``ladder tournaments`` from the start. The
workers are sent each match's deal seed and bot seeds, never the secret. A
resumed tournament deals from the same secret. When the tournament ends
(``complete`` or ``budget spent``) the secret is revealed. A ``stopped``,
interrupted or ``incomplete`` tournament (matches a new run would still play)
keeps it secret. A revealed secret never deals another match: when a run
of a revealed tournament's file has something to play (a new bot version,
more cycles), the tournament goes on dealt from a new secret, and the
revealed one is kept in ``previous_deals``. A tournament made before sealed
deals is not continued: a new tournament with a secret starts instead.

Storing is atomic: the matches that completed together are written in one
transaction with all their seat rows, or not at all. If a batch cannot be
written (say, text a database refuses), it is rolled back and each match is
written alone; a match that still cannot be written is recorded as an error
with the reason (and retried by the next run), and the tournament goes on.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, wait
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from multiprocessing_logging import MultiProcessingHandler
from sqlalchemy import delete, func, insert
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session, select
from tqdm import tqdm

from engine import get_game
from ladder import ratings
from ladder.deals import DealSecret, bot_seed
from ladder.errors import UserError
from ladder.paths import results_dir
from ladder.roster import Entrant, entrants_for_game, resolve
from ladder.storage import BenchRow, MatchRow, SeatResultRow, TournamentRow, open_database, utcnow
from ladder.text import clean_text
from tournaments.adaptive import WAIT, AdaptivePlanner, Wait
from tournaments.backends import check_backend
from tournaments.config import TournamentConfig, check_scheduler_address, fingerprint, load_tournament
from tournaments.executor import ExecutorLost, LocalPoolExecutor, TaskKilledWorkers, WorkerLost, log_funnel
from tournaments.formats import GamePlan, ScheduledMatch, cycle_schedule, playable_counts, schedule_fingerprint_data
from tournaments.worker import close_players, init_worker, play_task

log = logging.getLogger("ladder.tournament")


@dataclass
class RunOptions:
    """How to run (as opposed to what to play, which is the tournament file's)."""

    hours: float | None = None  # overrides the file's time budget
    workers: int | None = None  # overrides the file's workers (0 or None there: one per core)
    db_url: str | None = None
    progress: bool = True
    executor: Executor | None = None  # any Executor; default: the backend's
    backend: str | None = None  # "local" or "dask"; overrides the file's (default local)
    scheduler: str | None = None  # a Dask scheduler's address; overrides the file's (implies backend "dask")
    worker_setup: str | None = None  # "module:function" run in each local worker (tests)
    in_flight_per_worker: int = 2
    rate_at_end: bool = True
    log_level: int = logging.INFO
    deal_secret: str | None = None  # hex: deal a new tournament from this secret instead of a fresh one
    require_layers: tuple[str, ...] = ()  # sandbox layers that must be available, else the run refuses to start


@dataclass
class RunReport:
    """What one ``ladder run`` did."""

    tournament_id: int
    name: str
    state: str
    scheduled: int
    recorded: int  # matches of the tournament in the database now (played + skipped + error)
    played_now: int = 0
    skipped_now: int = 0
    errors_now: int = 0
    retried_now: int = 0
    abandoned: int = 0  # in flight when a second Ctrl-C stopped the run
    seconds: float = 0.0
    db_seconds: float = 0.0
    db_batches: int = 0
    busy_seconds: float = 0.0  # wall time the workers spent playing the matches of this run
    cpu_seconds: float = 0.0  # CPU time of the workers in those matches (without sandboxed bot processes)
    workers: int = 0
    backend: str = "local"
    scheduler: str = ""  # the Dask scheduler's address ("" for the local backend)
    log_path: str = ""
    notes: list[str] = field(default_factory=list)
    benched: dict[str, str] = field(default_factory=dict)
    deal_commitment: str = ""  # SHA-256 of the deal secret, public from the start
    deal_secret: str | None = None  # the secret once revealed (the tournament ended), else None
    unstored: int = 0  # matches whose result could not be written (recorded as errors with the reason)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class _Finished:
    match: ScheduledMatch
    status: str  # "played", "skipped" or "error"
    record: dict[str, Any] | None = None
    error: str = ""
    attempts: int = 1
    benched_seats: dict[int, str] = field(default_factory=dict)


# ---- preparing -------------------------------------------------------------------------------------


def resolve_plans(session: Session, config: TournamentConfig) -> tuple[list[GamePlan], list[str]]:
    """Each game of the tournament with its bots; notes on what cannot be scheduled."""
    chosen: list[tuple[Any, list[Entrant]]] = []
    used: set[str] = set()
    for entry in config.games:
        if entry.bots is None:
            entrants = entrants_for_game(session, entry.game)
        else:
            entrants = []
            for ref in entry.bots:
                try:
                    entrant = resolve(session, ref)
                except UserError as error:
                    raise UserError(f"{config.path}: {entry.bots_key}: {error}") from None
                if entrant.plays(entry.game):
                    entrants.append(entrant)
                    used.add(ref)
                elif entry.bots_key != "bots":
                    raise UserError(f"{config.path}: {entry.bots_key}: bot {ref!r} does not play {entry.game}")
        chosen.append((entry, entrants))
    top_level = next((entry.bots for entry in config.games if entry.bots is not None and entry.bots_key == "bots"), None)
    for ref in top_level or ():
        if ref not in used:
            raise UserError(f"{config.path}: bots: bot {ref!r} plays none of the tournament's games")
    plans: list[GamePlan] = []
    notes: list[str] = []
    for entry, entrants in chosen:
        unique: dict[int, Entrant] = {}
        for entrant in entrants:
            unique.setdefault(entrant.version_id, entrant)
        plan = GamePlan(entry.game, entry.players, entry.option_sets, entry.games_per_pairing, tuple(unique.values()))
        if entry.dropped_players:
            shown = ", ".join(str(count) for count in entry.dropped_players)
            notes.append(f"{entry.game} at {shown} players: not played ({entry.game} does not allow it; players applies "
                         f"to each game where the count fits)")
        counts, dropped = playable_counts(plan)
        if entry.explicit_players and dropped:
            raise UserError(f"{config.path}: game.{entry.game}.players: {dropped[0]}")
        if not plan.entrants:
            notes.append(f"{entry.game}: no bot plays it: not scheduled")
        elif not counts:
            names = ", ".join(e.name for e in plan.entrants)
            notes.append(f"{entry.game}: only {len(plan.entrants)} bot plays it ({names}): not scheduled")
        else:
            notes.extend(dropped)
        plans.append(plan)
    return plans, notes


def _process_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            return b"python" in cmdline.read_bytes() or b"ladder" in cmdline.read_bytes()
        except OSError:
            return True
    return True


def _latest_tournament(session: Session, config: TournamentConfig, print_hash: str) -> TournamentRow | None:
    """The latest tournament of this name and schedule, if any."""
    return session.exec(
        select(TournamentRow)
        .where(TournamentRow.name == config.name, TournamentRow.fingerprint == print_hash)
        .order_by(TournamentRow.id.desc())  # type: ignore[union-attr]
    ).first()


def _open_tournament(session: Session, config: TournamentConfig, print_hash: str, scheduled: int,
                     found: TournamentRow | None, secret: DealSecret) -> tuple[TournamentRow, bool]:
    """Resume ``found``, or create the tournament (dealt from ``secret``); mark it running."""
    row = found
    resumed = row is not None
    if row is None:
        row = TournamentRow(name=config.name, file=config.path, seed=config.seed, fingerprint=print_hash,
                            config_json=_json(config.to_json()), scheduled=scheduled, cycles=config.cycles,
                            deal_secret=secret.hex, deal_commitment=secret.commitment)
    elif row.state == "running" and row.host == socket.gethostname() and _process_alive(row.pid):
        raise UserError(f"tournament {config.name!r} (#{row.id}) is being run by process {row.pid}; wait for it, "
                        f"or stop it (Ctrl-C) before running it again")
    row.state = "running"
    row.pid = os.getpid()
    row.host = socket.gethostname()
    row.file = config.path
    row.updated_at = utcnow()
    row.finished_at = None
    session.add(row)
    session.commit()
    return row, resumed


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _error_line(error: BaseException) -> str:
    """An exception in one clean line (a database error's first line: not its SQL and parameters)."""
    text = str(getattr(error, "orig", None) or error).strip().splitlines()
    return clean_text(f"{type(error).__name__}: {text[0] if text else ''}", one_line=True)[:300]


# ---- running ---------------------------------------------------------------------------------------


class _Stop:
    """Ctrl-C / SIGTERM as flags: the first asks for a clean stop, the second abandons what is in flight."""

    def __init__(self) -> None:
        self.requested = False
        self.abandon = False
        self.message: str | None = None
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.requested:
            self.abandon = True
            self.message = "abandoning the matches in flight (they will be played on resume)"
        else:
            self.requested = True
            self.message = "stopping: finishing the matches in flight (Ctrl-C again to abandon them)"


def _setup_logging(name: str, tournament_id: int, level: int) -> tuple[MultiProcessingHandler, Path, int]:
    """One log file for the run: this process's records and, through the handler's queue, every worker's."""
    logs = results_dir() / "logs"
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = logs / f"{name}-{tournament_id}-{stamp}.log"
    try:
        logs.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(path, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write the log file {path}: {error.strerror or error}") from None
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s[%(process)d] %(name)s %(levelname)s: %(message)s"))
    funnel = log_funnel(f"ladder-log-{tournament_id}", file_handler)  # its queue made for the workers' start method
    funnel.setLevel(level)
    root = logging.getLogger()
    previous = root.level
    root.addHandler(funnel)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    return funnel, path, previous


def _teardown_logging(funnel: MultiProcessingHandler, previous_level: int) -> None:
    root = logging.getLogger()
    root.removeHandler(funnel)
    root.setLevel(previous_level)
    funnel.close()  # waits (up to 5 s) until every record that can still arrive is written
    # A worker killed mid-run may have announced records it never sent: the handler's queue then
    # never drains, and without this the interpreter would wait for it for ever at exit.
    funnel.queue.cancel_join_thread()


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


class TournamentRun:
    """One ``ladder run`` of one tournament file."""

    def __init__(self, config: TournamentConfig, options: RunOptions) -> None:
        self._cycles: dict[int, list[ScheduledMatch]] = {}
        self.done: set[str] = set()  # keys recorded (played or skipped), filled in by run()
        self.config = config
        self.options = options
        self.given_secret = DealSecret.from_hex(options.deal_secret) if options.deal_secret is not None else None
        self.secret = self.given_secret or DealSecret.fresh()  # replaced by the tournament's own when it is resumed
        self.engine = open_database(options.db_url)
        self.session = Session(self.engine, expire_on_commit=False)
        try:
            self.plans, self.notes = resolve_plans(self.session, config)
            self.session.commit()  # bot versions of built-ins
        except BaseException:
            self.close()
            raise
        schedule_data = schedule_fingerprint_data(config.format, self.plans, config.seed)
        if config.adaptive is not None:  # when the adaptive format stops decides what it plays
            schedule_data["adaptive"] = asdict(config.adaptive)
        self.print_hash = fingerprint(schedule_data)
        self.adaptive = AdaptivePlanner(self.plans, config.seed, config.adaptive) if config.adaptive else None
        self.recorded_now: set[str] = set()  # keys recorded by this run, errors included
        self.per_cycle = len(self.cycle(0))
        hours = options.hours if options.hours is not None else config.hours
        if self.per_cycle == 0 or (hours is not None and hours <= 0):
            self.close()
            if self.per_cycle == 0:
                raise UserError(f"{config.path}: nothing to play: " + ("; ".join(self.notes) or "no game has bots"))
            raise UserError(f"--hours must be more than 0, not {hours}")
        self.hours = hours
        self.workers = options.workers or config.workers or default_workers()
        try:
            self.backend, self.scheduler = self._choose_backend()
        except BaseException:
            self.close()
            raise
        self.stop = _Stop()
        self._given_up = 0  # matches the executor gave up after their workers died (Dask's KilledWorker)
        self.unplayed: dict[str, int] = {}  # matches not yet handed out per bot reference (without a time budget)
        self.retired: set[str] = set()  # bot references with no match left to hand out
        self._touched = 0.0
        self._bulk_returning = bool(getattr(self.engine.dialect, "insert_executemany_returning_sort_by_parameter_order", False))
        self.stats = RunReport(0, config.name, "running", 0, 0, workers=self.workers, backend=self.backend,
                               scheduler=self.scheduler or "", notes=list(self.notes))

    def _check_sandbox(self) -> None:
        """Refuse to start (one line) when a required layer is missing, or submitted bots cannot be sandboxed here."""
        from ladder.players import sandbox_refusal
        from ladder.sandbox import require_layers

        if self.options.require_layers:
            require_layers(self.options.require_layers)
        if self.options.executor is not None or (self.backend == "dask" and self.scheduler):
            return  # the workers are elsewhere: they judge their own sandbox, match by match
        sandboxed = sorted({e.label for plan in self.plans for e in plan.entrants if e.ref.startswith(("store:", "ep:"))})
        if sandboxed:
            refusal = sandbox_refusal()
            if refusal is not None:
                shown = ", ".join(sandboxed[:3]) + (f" and {len(sandboxed) - 3} more" if len(sandboxed) > 3 else "")
                raise UserError(f"{self.config.path}: {refusal} (the tournament enters {shown})")

    def _choose_backend(self) -> tuple[str, str | None]:
        """The backend and scheduler address: the options', else the file's."""
        options, config = self.options, self.config
        scheduler = options.scheduler or (config.scheduler if options.backend in (None, "dask") else None)
        backend = options.backend or ("dask" if options.scheduler else config.backend)
        if options.executor is not None:
            return "executor", None
        if options.scheduler and backend != "dask":
            raise UserError(f"--scheduler names a Dask scheduler: it needs --backend dask, not --backend {backend}")
        check_backend(backend)
        if scheduler is not None:
            scheduler = check_scheduler_address(scheduler)
        return backend, scheduler

    def _bot_bundles(self) -> dict[str, dict[str, bytes]]:
        """The files of every bot store version the tournament plays, by content hash (shipped to Dask workers)."""
        from ladder.players import store_folder
        from ladder.submission import content_hash, read_files

        bundles: dict[str, dict[str, bytes]] = {}
        for plan in self.plans:
            for entrant in plan.entrants:
                if not entrant.ref.startswith("store:") or entrant.content_hash in bundles:
                    continue
                folder = store_folder(entrant.content_hash)
                if not folder.is_dir():
                    raise UserError(f"bot {entrant.label}: its files are missing from the bot store ({folder})")
                files = read_files(folder)
                if content_hash(files) != entrant.content_hash:
                    raise UserError(f"bot {entrant.label}: the files in {folder} do not match their hash "
                                    f"{entrant.content_hash[:12]} (changed after submission?)")
                bundles[entrant.content_hash] = files
        return bundles

    def _open_executor(self, funnel: MultiProcessingHandler) -> Executor:
        """The backend's executor (the caller shuts it down)."""
        if self.backend == "dask":
            from tournaments.dask_executor import open_dask_executor

            bundles = self._bot_bundles()
            if self.scheduler:
                log.info("dask backend: joining the scheduler at %s (--workers does not apply)", self.scheduler)
            else:
                log.info("dask backend: starting a local cluster of %d worker process(es)", self.workers)
            executor = open_dask_executor(
                scheduler=self.scheduler, workers=self.workers, max_attempts=self.config.limits.max_attempts,
                bundles=bundles, results=str(results_dir().resolve()), setup=self.options.worker_setup,
                log_level=self.options.log_level, run_name=f"{self.config.name}-{self.print_hash[:12]}",
            )
            self.scheduler = executor.address
            self.stats.scheduler = executor.address
            self.workers = self.stats.workers = max(1, executor.worker_count)
            return executor
        return LocalPoolExecutor(self.workers, initializer=init_worker, finalizer=close_players, pin_cpus=True,
                                 initargs=(funnel.queue, self.options.log_level, self.options.worker_setup,
                                           str(results_dir().resolve())))

    def close(self) -> None:
        self.session.rollback()
        self.session.close()
        self.engine.dispose()

    # -- the schedule
    def cycle(self, number: int) -> list[ScheduledMatch]:
        """The matches of cycle ``number``, in playing order (the last cycle asked for is kept)."""
        if number not in self._cycles:
            self._cycles = {number: cycle_schedule(self.config.format, self.plans, self.config.seed, number, self.secret.value)}
        return self._cycles[number]

    def _more_to_play(self, row: TournamentRow) -> bool:
        """Whether this run would play a match of ``row``: a time budget, more cycles, or missing matches."""
        if self.hours is not None or self.config.cycles > row.cycles:
            return True
        done = set(self.session.exec(select(MatchRow.key).where(MatchRow.tournament_id == row.id, MatchRow.status != "error")).all())
        return any(match.key not in done for number in range(max(row.cycles, 1)) for match in self.cycle(number))

    def _choose_tournament(self) -> TournamentRow | None:
        """The tournament this run continues (``None``: a new one), and the secret it deals from (``self.secret``)."""
        found = _latest_tournament(self.session, self.config, self.print_hash)
        if found is None:
            return None
        if found.deals_public:
            if self._more_to_play(found):
                if found.deal_secret is None:
                    note = (f"tournament {found.name} #{found.id} was made before sealed deals (its deals are public): "
                            "this run starts a new tournament with a secret")
                    self.notes.append(note)
                    self.stats.notes.append(note)
                    return None
                self._reseal(found)
                return found
            if found.deal_secret:
                self.secret = DealSecret.from_hex(found.deal_secret)
            return found  # nothing to play: the run reports it as it is
        assert found.deal_secret is not None
        secret = DealSecret.from_hex(found.deal_secret)
        if self.given_secret is not None and self.given_secret != secret:
            raise UserError(f"tournament {found.name} #{found.id} is unfinished and dealt from another secret than "
                            "--deal-secret: finish it first (run it without --deal-secret), or give this run another name")
        self.secret = secret
        return found

    def _reseal(self, row: TournamentRow) -> None:
        """Give ``row``, whose secret is revealed and which has more to play, a new secret: a revealed secret never
        deals again. The revealed one stays published in ``previous_deals``, so every stored deal can still be
        checked; the matches already played stay as they are."""
        assert row.deal_secret is not None and row.secret_revealed_at is not None
        if self.given_secret is not None and self.given_secret.hex == row.deal_secret:
            raise UserError(f"--deal-secret: that secret was revealed when tournament {row.name} #{row.id} ended; "
                            "a public secret never deals again: give another one, or none")
        previous = json.loads(row.previous_deals)
        previous.append({"secret": row.deal_secret, "commitment": row.deal_commitment,
                         "revealed_at": row.secret_revealed_at.isoformat()})
        self.secret = self.given_secret or DealSecret.fresh()
        row.previous_deals = json.dumps(previous)
        row.deal_secret, row.deal_commitment, row.secret_revealed_at = self.secret.hex, self.secret.commitment, None
        self.session.add(row)
        self.session.commit()
        note = (f"tournament {row.name} #{row.id}: its deal secret was revealed when it ended, so the matches it "
                f"plays now are dealt from a new secret (commitment {self.secret.commitment[:16]}...)")
        self.notes.append(note)
        self.stats.notes.append(note)

    def missing_keys(self, cycles: int) -> list[str]:
        """The keys of the first ``cycles`` cycles that are not recorded (or only as errors)."""
        return [match.key for number in range(cycles) for match in self.cycle(number) if match.key not in self.done]

    def run(self) -> RunReport:
        started = time.monotonic()
        target = max(self.config.cycles, 1)
        try:
            self._check_sandbox()  # before anything is recorded: one line, not a tournament of errors
            found = self._choose_tournament()
        except BaseException:
            self.close()
            raise
        self._cycles = {}  # the schedule is dealt from the secret just chosen
        self.tournament, resumed = _open_tournament(self.session, self.config, self.print_hash, self.per_cycle * target,
                                                    found, self.secret)
        tid = self.tournament.id
        assert tid is not None
        self.stats.tournament_id = tid
        self.stats.deal_commitment = self.tournament.deal_commitment
        target = max(target, self.tournament.cycles)
        self._set_cycles(target)
        self._repair(tid)
        recorded = dict(self.session.exec(select(MatchRow.key, MatchRow.status).where(MatchRow.tournament_id == tid)).all())
        self.done = {key for key, status in recorded.items() if status != "error"}
        self.error_keys = {key for key, status in recorded.items() if status == "error"}
        self.benched: dict[tuple[int, str], str] = {
            (row.bot_version_id, row.pool): row.reason
            for row in self.session.exec(select(BenchRow).where(BenchRow.tournament_id == tid)).all()
        }
        self.streaks: dict[tuple[int, str], int] = {}
        try:
            funnel, log_path, previous_level = _setup_logging(self.config.name, tid, self.options.log_level)
        except UserError:
            self.close()
            raise
        self.stats.log_path = str(log_path)
        log.info("tournament %s #%d: %s, %d matches per cycle, %d cycle(s) scheduled, %d already recorded, "
                 "backend %s, %d workers%s", self.config.name, tid, "resumed" if resumed else "new", self.per_cycle,
                 target, len(self.done), self.backend, self.workers, f", budget {self.hours} h" if self.hours else "")
        for note in self.notes:
            log.info("note: %s", note)
        if self.tournament.deal_commitment:
            log.info("deals are sealed: commitment sha256(secret) = %s (the secret is revealed when the tournament ends)",
                     self.tournament.deal_commitment)
        executor = self.options.executor
        own_executor = executor is None
        if executor is None:
            try:
                executor = self._open_executor(funnel)
            except BaseException:
                try:
                    self._finish("stopped", started)
                finally:
                    _teardown_logging(funnel, previous_level)
                    self.close()
                raise
        deadline = started + self.hours * 3600 if self.hours else None
        already = self.per_cycle * target - len(self.missing_keys(target))
        progress = tqdm(
            total=self.per_cycle * target, initial=already, unit="match",
            desc=self.config.name, dynamic_ncols=True, file=sys.stderr,
            disable=not self.options.progress or not sys.stderr.isatty(),  # never a progress bar in a redirected file
            smoothing=0.05,
            # under a time budget the total grows every cycle, so tqdm's own ETA would start again each time:
            # the time left is the budget's, shown in the postfix
            bar_format=None if deadline is None else "{desc}: {n_fmt} matches [{elapsed}, {rate_fmt}{postfix}]",
        )
        self.stop.install()
        reason = "complete"
        try:
            reason = self._loop(executor, progress, deadline, target)
        except BrokenExecutor as error:
            reason = "stopped"
            raise UserError(f"{self._broken_message(error)}; see {self.stats.log_path}") from None
        except BaseException:
            reason = "stopped"  # the database holds every match recorded so far: a new run resumes
            raise
        finally:
            progress.close()
            # an executor that reruns the matches of dead workers itself (Dask) says how many it held
            self.stats.retried_now += max(0, getattr(executor, "rerun_tasks", 0) - self._given_up)
            try:
                if own_executor:
                    if self.stop.abandon:
                        executor.terminate()  # type: ignore[attr-defined]
                    else:
                        executor.shutdown(wait=True)
                self._finish(reason, started)
            finally:
                self.stop.restore()  # until here a Ctrl-C only sets a flag: the record is always finished
                _teardown_logging(funnel, previous_level)
                self.close()
        return self.stats

    def _repair(self, tid: int) -> None:
        """Drop matches stored without all their seat rows (by a ladder before atomic storing): they are played again."""
        seat_count = (select(func.count(SeatResultRow.id)).where(SeatResultRow.match_id == MatchRow.id)  # type: ignore[arg-type]
                      .correlate(MatchRow).scalar_subquery())
        broken = list(self.session.exec(select(MatchRow.id).where(MatchRow.tournament_id == tid,
                                                                  seat_count != MatchRow.num_players)).all())
        if broken:
            self.session.exec(delete(SeatResultRow).where(SeatResultRow.match_id.in_(broken)))  # type: ignore[call-overload,attr-defined]
            self.session.exec(delete(MatchRow).where(MatchRow.id.in_(broken)))  # type: ignore[call-overload,attr-defined]
            self.session.commit()
            note = f"{len(broken)} match(es) stored without all their seat rows were dropped: they are played again"
            self.notes.append(note)
            self.stats.notes.append(note)

    @staticmethod
    def _broken_message(error: BaseException) -> str:
        return str(error) if isinstance(error, ExecutorLost) else f"the worker pool broke: {error}"

    def _slots(self, executor: Executor) -> int:
        """How many matches the executor plays at once now (its ``worker_count``, else the workers asked for)."""
        count = getattr(executor, "worker_count", None)
        return count if isinstance(count, int) and count >= 0 else self.workers

    def _set_cycles(self, cycles: int) -> None:
        self.tournament.cycles = cycles
        self.tournament.scheduled = cycles * self.per_cycle
        self.tournament.updated_at = utcnow()
        self.session.add(self.tournament)
        self.session.commit()
        self.stats.scheduled = self.tournament.scheduled

    def _pending(self, target: list[int], deadline: float | None, submitted: dict[int, int]) -> Iterator[ScheduledMatch]:
        """The matches still to play: what is missing from the cycles started so far, then (with a
        time budget) new cycles while time is left. ``target[0]`` is the number of cycles started."""
        first_new = target[0]
        number = 0
        while True:
            if number >= target[0]:
                if deadline is None or time.monotonic() >= deadline:
                    return
                if number > first_new and submitted.get(number - 1, 0) == 0:
                    log.info("cycle %d had nothing to play (every bot benched?): no new cycle", number - 1)
                    return
                target[0] = number + 1
                self._set_cycles(target[0])
            for match in self.cycle(number):
                if match.key not in self.done:
                    yield match
            number += 1

    def _adaptive_pending(self) -> Iterator[ScheduledMatch | Wait]:
        """The adaptive format's rounds (see :mod:`tournaments.adaptive`)."""
        assert self.adaptive is not None and self.tournament.id is not None

        def schedule(planned: int) -> None:
            self.tournament.scheduled = planned
            self.session.add(self.tournament)
            self.session.commit()
            self.stats.scheduled = self.tournament.scheduled

        yield from self.adaptive.pending(self.session, self.tournament.id, self.secret.value, self.done, self.recorded_now,
                                         lambda entrant, game, count: any(version == entrant.version_id and where.startswith(f"{game}/") and where.endswith(f"/{count}p")
                                                                for version, where in self.benched), schedule)

    def _task(self, match: ScheduledMatch) -> dict[str, Any]:
        spec = match.spec()
        return {
            "game": spec.game, "seats": list(spec.seats), "seed": spec.seed, "options": dict(spec.options),
            "key": spec.key, "limits": asdict(self.config.limits),
            "bot_seeds": [bot_seed(self.secret.value, match.key, seat) for seat in range(len(match.seats))],
            "deal": match.deal,  # a bot process plays each deal once: it cannot remember it from another seat
            "hashes": [entrant.content_hash for entrant in match.seats],  # the worker checks its bots are these
            "retire": sorted(self.retired),  # bots with no match left to hand out: workers stop their idle processes
        }

    def _count_unplayed(self, cycles: int, deadline: float | None) -> dict[str, int]:
        """Matches not yet handed out per bot reference (empty with a time budget: cycles keep coming)."""
        if deadline is not None:
            return {}
        counts: dict[str, int] = {}
        for number in range(cycles):
            for match in self.cycle(number):
                if match.key not in self.done:
                    for ref in set(match.spec().seats):
                        counts[ref] = counts.get(ref, 0) + 1
        return counts

    def _handed_out(self, match: ScheduledMatch) -> None:
        """Count a match as handed out (sent or skipped); a bot with none left is retired."""
        for ref in set(match.spec().seats):
            if ref in self.unplayed:
                self.unplayed[ref] -= 1
                if self.unplayed[ref] <= 0:
                    self.retired.add(ref)

    def _loop(self, executor: Executor, progress: tqdm, deadline: float | None, cycles: int) -> str:
        target = [cycles]
        submitted: dict[int, int] = {}  # matches sent to the workers, by cycle
        self.unplayed = {} if self.adaptive else self._count_unplayed(cycles, deadline)
        pending = self._adaptive_pending() if self.adaptive else self._pending(target, deadline, submitted)
        in_flight: dict[Future, tuple[ScheduledMatch, int]] = {}
        exhausted = False
        budget_spent = False
        broken = ""
        failures = 0
        while True:
            if self.stop.message:
                progress.write(self.stop.message)
                log.info(self.stop.message)
                self.stop.message = None
            if self.stop.abandon:
                self.stats.abandoned = len(in_flight)
                return "stopped"
            if deadline is not None and not budget_spent and time.monotonic() >= deadline:
                budget_spent = True
                log.info("time budget spent: finishing the %d matches in flight", len(in_flight))
            batch: list[_Finished] = []
            cap = max(1, self._slots(executor) * self.options.in_flight_per_worker)  # workers come and go (Dask)
            while not (exhausted or self.stop.requested or budget_spent) and len(in_flight) < cap:
                match = next(pending, None)
                if match is None:
                    exhausted = True
                    break
                if match is WAIT:  # the adaptive format waits for its round's results
                    break
                benched = {seat: self.benched[(e.version_id, match.pool)] for seat, e in enumerate(match.seats)
                           if (e.version_id, match.pool) in self.benched}
                self._handed_out(match)
                if benched:
                    batch.append(_Finished(match, "skipped", benched_seats=benched))
                    continue
                in_flight[executor.submit(play_task, self._task(match))] = (match, 1)
                submitted[match.cycle] = submitted.get(match.cycle, 0) + 1
            if not in_flight and not batch:
                break
            if in_flight:
                done, _ = wait(list(in_flight), timeout=0.5, return_when=FIRST_COMPLETED)
            else:
                done = set()
            for future in done:
                match, attempt = in_flight.pop(future)
                if future.cancelled():
                    continue
                try:
                    record = future.result()
                except WorkerLost as error:
                    if attempt < self.config.limits.max_attempts:
                        log.warning("match %s: %s; retrying (attempt %d)", match.key, error, attempt + 1)
                        self.stats.retried_now += 1
                        in_flight[executor.submit(play_task, self._task(match))] = (match, attempt + 1)
                    else:
                        batch.append(_Finished(match, "error", error=f"{error} (after {attempt} attempts)", attempts=attempt))
                    continue
                except TaskKilledWorkers as error:
                    log.error("match %s %s", match.key, error)
                    self._given_up += 1
                    batch.append(_Finished(match, "error", error=f"the match {error}", attempts=error.attempts))
                    continue
                except BrokenExecutor as error:
                    broken = f"{self._broken_message(error)}; see {self.stats.log_path}"
                    continue
                except Exception as error:  # the match itself raised: an engine or worker bug, not a bot's
                    log.error("match %s raised %s: %s\n%s", match.key, type(error).__name__, clean_text(error, one_line=True),
                              clean_text(getattr(error, "remote_traceback", "")))
                    batch.append(_Finished(match, "error", error=f"{type(error).__name__}: {error}", attempts=attempt))
                    continue
                batch.append(_Finished(match, "played", record, attempts=attempt))
                self.stats.busy_seconds += record["seconds"]
                self.stats.cpu_seconds += record.get("cpu_seconds", 0.0)
            if batch:
                self._record(batch)
                failures += sum(1 for item in batch if item.record is not None and item.record["failures"])
                progress.total = self.tournament.scheduled
                progress.update(len(batch))
                postfix = {}
                if failures:
                    postfix["failed"] = failures
                if self.benched:
                    postfix["benched"] = len(self.benched)
                if deadline is not None:
                    postfix["budget left"] = str(timedelta(seconds=max(0, int(deadline - time.monotonic()))))
                if postfix:
                    progress.set_postfix(postfix, refresh=False)
            if broken:
                log.error(broken)
                raise UserError(broken)
        if self.stop.requested:
            return "stopped"
        if budget_spent or (deadline is not None and exhausted and not self.adaptive):
            return "budget spent"
        return "complete"

    # -- writing
    def _record(self, batch: list[_Finished]) -> None:
        """Write ``batch`` atomically; what cannot be written is recorded as an error, the run goes on."""
        tick = time.perf_counter()
        new_benches = self._update_streaks(batch)
        try:
            self._write(batch, new_benches)
        except (SQLAlchemyError, ValueError, TypeError, OverflowError) as error:  # text or values the database refuses
            self.session.rollback()
            log.warning("a batch of %d match(es) could not be stored (%s): storing them one by one",
                        len(batch), _error_line(error))
            if new_benches:
                self._write([], new_benches)
            for item in batch:
                self._record_alone(item)
        for item in batch:
            self.recorded_now.add(item.match.key)
            if item.status == "error":
                self.error_keys.add(item.match.key)
            else:
                self.error_keys.discard(item.match.key)
                self.done.add(item.match.key)
            self.stats.played_now += item.status == "played"
            self.stats.skipped_now += item.status == "skipped"
            self.stats.errors_now += item.status == "error"
        self.stats.db_seconds += time.perf_counter() - tick
        self.stats.db_batches += 1

    def _record_alone(self, item: _Finished) -> None:
        """Write one match; if the database refuses it, record it as an error with the reason instead (in place)."""
        try:
            self._write([item], {})
            return
        except (SQLAlchemyError, ValueError, TypeError, OverflowError) as error:
            self.session.rollback()
            reason = f"its result could not be stored: {_error_line(error)}"
        log.error("match %s: %s; recorded as an error (a new run plays it again)", item.match.key, reason)
        self.stats.unstored += 1
        item.status, item.record, item.error, item.benched_seats = "error", None, reason[:2000], {}
        self._write([item], {})  # plain ladder values only: if even this fails the database is unusable: stop

    def _write(self, batch: list[_Finished], new_benches: dict[tuple[int, str], str]) -> None:
        """One transaction: the matches of ``batch`` with all their seat rows, and the new benches; or nothing."""
        tid = self.tournament.id
        retried = [item.match.key for item in batch if item.match.key in self.error_keys]
        if retried:
            old = self.session.exec(select(MatchRow.id).where(MatchRow.tournament_id == tid, MatchRow.key.in_(retried))).all()  # type: ignore[attr-defined]
            self.session.exec(delete(SeatResultRow).where(SeatResultRow.match_id.in_(old)))  # type: ignore[call-overload,attr-defined]
            self.session.exec(delete(MatchRow).where(MatchRow.id.in_(old)))  # type: ignore[call-overload,attr-defined]
        values = [self._match_values(item) for item in batch]
        ids: list[int | None] = []
        if not values:
            pass
        elif self._bulk_returning:  # one INSERT ... RETURNING for the matches, one INSERT for the seats (Core: fast)
            ids = list(self.session.execute(
                insert(MatchRow.__table__).returning(MatchRow.__table__.c.id, sort_by_parameter_order=True), values  # type: ignore[attr-defined]
            ).scalars())
        else:  # a database without multi-row RETURNING: let the ORM fetch the ids
            rows = [MatchRow(**v) for v in values]
            self.session.add_all(rows)
            self.session.flush()
            ids = [row.id for row in rows]
        seats = [seat for item, match_id in zip(batch, ids) for seat in self._seat_values(item, match_id)]
        if seats:
            self.session.execute(insert(SeatResultRow.__table__), seats)  # type: ignore[attr-defined]
        for (version, pool), reason in new_benches.items():
            self.session.add(BenchRow(tournament_id=tid, bot_version_id=version, pool=pool, reason=reason))
        if new_benches or time.monotonic() - self._touched > 10:
            self.tournament.updated_at = utcnow()  # "last activity", refreshed every ten seconds
            self.session.add(self.tournament)
            self._touched = time.monotonic()
        self.session.commit()
        self.session.expunge_all()
        self.session.add(self.tournament)

    def _update_streaks(self, batch: list[_Finished]) -> dict[tuple[int, str], str]:
        """Count each bot version's failures in a row per pool; bench it in a pool where they reach the limit."""
        limit = self.config.limits.bench_after_failures
        new: dict[tuple[int, str], str] = {}
        for item in batch:
            if item.status != "played" or item.record is None:
                continue
            failures = {int(seat): f for seat, f in item.record["failures"].items()}
            for seat, entrant in enumerate(item.match.seats):
                where = (entrant.version_id, item.match.pool)
                if seat not in failures:
                    self.streaks[where] = 0
                    continue
                self.streaks[where] = self.streaks.get(where, 0) + 1
                if self.streaks[where] >= limit and where not in self.benched:
                    failure = failures[seat]
                    reason = clean_text(f"failed {self.streaks[where]} matches in a row in {item.match.pool}; last in "
                                        f"{item.match.key}: {failure['reason']}: {failure['detail']}", one_line=True)[:1000]
                    self.benched[where] = reason
                    new[where] = reason
                    self.stats.benched[f"{entrant.label} in {item.match.pool}"] = reason
                    log.warning("benched %s in %s for the rest of the tournament: %s", entrant.label, item.match.pool, reason)
        return new

    def _match_values(self, item: _Finished) -> dict[str, Any]:
        """The column values of a match row (plain values: inserted in bulk, no ORM object per match)."""
        match, record = item.match, item.record
        values: dict[str, Any] = {
            "tournament_id": self.tournament.id, "key": match.key, "cycle": match.cycle, "deal": match.deal,
            "game": match.game, "options_json": _json(dict(match.options)), "num_players": len(match.seats),
            "seed": match.seed, "seats_json": _json([e.ref for e in match.seats]), "status": item.status,
            "error": clean_text(item.error), "attempts": item.attempts, "started_at": None, "finished_at": datetime.now(timezone.utc),
            "seconds": 0.0, "think_json": "[]", "details_json": "{}", "action_count": 0, "actions_z": b"", "worker": "",
        }
        if record is not None:
            started = datetime.fromisoformat(record["started_at"])
            values.update(
                started_at=started, finished_at=started + timedelta(seconds=record["seconds"]), seconds=record["seconds"],
                think_json=_json(record["think"]), details_json=_json(record["details"]), actions_z=record["actions_z"],
                action_count=record["action_count"], worker=record["worker"],
            )
        return values

    def _seat_values(self, item: _Finished, match_id: int) -> list[dict[str, Any]]:
        """The column values of the match's seat rows: score, rank, and the failure if any."""
        failures = {int(seat): f for seat, f in (item.record or {}).get("failures", {}).items()}
        seats = []
        for seat, entrant in enumerate(item.match.seats):
            values: dict[str, Any] = {
                "match_id": match_id, "seat": seat, "bot_version_id": entrant.version_id, "score": None, "rank": None,
                "failure_reason": None, "failure_detail": "", "stderr_tail": "", "at_action": None,
            }
            if item.record is not None:
                values["score"] = float(item.record["scores"][seat])
                values["rank"] = int(item.record["ranks"][seat])
                stderr = item.record.get("stderr") or []
                values["stderr_tail"] = str(stderr[seat])[-4000:] if seat < len(stderr) else ""
            failure = failures.get(seat)
            if failure is not None:
                values.update(failure_reason=failure["reason"], failure_detail=clean_text(failure["detail"])[:2000],
                              stderr_tail=clean_text(failure["stderr_tail"])[-4000:], at_action=failure["at_action"])
            elif seat in item.benched_seats:
                values.update(failure_reason="benched", failure_detail=clean_text(item.benched_seats[seat])[:2000])
            seats.append(values)
        return seats

    def _finish(self, reason: str, started: float) -> None:
        self.session.rollback()  # never commit a half-written batch: only what _write committed is kept
        tid = self.tournament.id
        # the tournament may also hold the matches of a bot's older versions: count what its schedule asks for now
        recorded = self.tournament.scheduled - len(self.missing_keys(self.tournament.cycles))
        state = reason
        if reason == "complete" and recorded < self.tournament.scheduled:
            state = "incomplete"  # some matches ended in errors: a new run retries them
        self.tournament = self.session.get(TournamentRow, tid) or self.tournament
        self.tournament.state = state
        self.tournament.pid = None
        self.tournament.updated_at = utcnow()
        if state in ("complete", "budget spent"):
            self.tournament.finished_at = utcnow()
            if self.tournament.deal_secret and self.tournament.secret_revealed_at is None:
                self.tournament.secret_revealed_at = utcnow()  # over: this secret never deals again
                log.info("deal secret revealed: %s (sha256 = %s, the commitment published at the start)",
                         self.tournament.deal_secret, self.tournament.deal_commitment)
        self.session.add(self.tournament)
        self.session.commit()
        self.stats.deal_secret = self.tournament.shown_secret()
        self.stats.state = state
        self.stats.recorded = recorded
        self.stats.scheduled = self.tournament.scheduled
        self.stats.seconds = time.monotonic() - started
        if self.adaptive is not None:
            self.stats.notes.extend(self.adaptive.notes())
        if self.options.rate_at_end:
            tick = time.perf_counter()
            ratings.rerate(self.session)
            log.info("ratings recomputed in %.2f s", time.perf_counter() - tick)
        log.info("tournament %s #%d %s: %d of %d matches recorded (%d played now, %d skipped, %d errors) in %.1f s",
                 self.config.name, tid, state, recorded, self.tournament.scheduled, self.stats.played_now,
                 self.stats.skipped_now, self.stats.errors_now, self.stats.seconds)


def run_tournament(source: str | Path | TournamentConfig, options: RunOptions | None = None) -> RunReport:
    """Run (or resume) the tournament of a file or config; see the module docstring."""
    config = source if isinstance(source, TournamentConfig) else load_tournament(source)
    for entry in config.games:
        get_game(entry.game)
    return TournamentRun(config, options or RunOptions()).run()


def plan_tournament(source: str | Path | TournamentConfig, db_url: str | None = None, workers: int | None = None) -> dict[str, Any]:
    """What a run would play, without playing: matches per cycle by game and table size, the notes, whether the
    run resumes a tournament (and what it has recorded) or starts a new one, and an estimate of the time the
    missing matches take, from the stored matches of the same game and table size."""
    config = source if isinstance(source, TournamentConfig) else load_tournament(source)
    run = TournamentRun(config, RunOptions(db_url=db_url, progress=False, backend="local", workers=workers))  # no Dask needed
    try:
        counts: dict[str, int] = {}
        for match in run.cycle(0):
            key = f"{match.game} {len(match.seats)}p"
            counts[key] = counts.get(key, 0) + 1
        bots = {plan.game: [e.label for e in plan.entrants] for plan in run.plans}
        existing = run.session.exec(
            select(TournamentRow).where(TournamentRow.name == config.name, TournamentRow.fingerprint == run.print_hash)
            .order_by(TournamentRow.id.desc())  # type: ignore[union-attr]
        ).first()
        cycles = max(config.cycles, existing.cycles if existing else 1)
        run.done = set()
        if existing is not None:
            run.done = {key for key, status in run.session.exec(
                select(MatchRow.key, MatchRow.status).where(MatchRow.tournament_id == existing.id)).all() if status != "error"}
        missing = [match for number in range(cycles) for match in run.cycle(number) if match.key not in run.done]
        to_play: dict[str, int] = {}
        for match in missing:
            key = f"{match.game} {len(match.seats)}p"
            to_play[key] = to_play.get(key, 0) + 1
        seconds, unknown, basis = 0.0, [], 0
        for key, count in to_play.items():
            game, _, players = key.partition(" ")
            mean, stored = run.session.exec(
                select(func.avg(MatchRow.seconds), func.count(MatchRow.id))
                .where(MatchRow.game == game, MatchRow.num_players == int(players.rstrip("p")), MatchRow.status == "played")
            ).one()
            if stored:
                seconds += float(mean) * count
                basis += int(stored)
            else:
                unknown.append(key)
        return {"name": config.name, "per_cycle": run.per_cycle, "cycles": cycles, "hours": run.hours,
                "workers": run.workers, "backend": config.backend, "scheduler": config.scheduler, "matches": counts,
                "adaptive": asdict(config.adaptive) if config.adaptive else None,
                "bots": bots, "notes": run.notes,
                "resumes": None if existing is None else {"tournament": existing.id, "state": existing.state,
                                                          "recorded": len(run.done)},
                "to_play": len(missing), "to_play_by_table": to_play,
                "estimate": {"seconds": seconds / max(1, run.workers), "from_matches": basis, "workers": run.workers,
                             "tables_never_played": unknown}}
    finally:
        run.close()
