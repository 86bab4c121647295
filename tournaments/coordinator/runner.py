"""Running a tournament: schedule, workers, progress, resume, time budget, benching.

One coordinator process (this one) owns the database. It works out the
schedule from the tournament file, skips the matches already recorded (so a
second ``ladder run`` of the same file resumes: only what is missing is
played, never twice), and hands match specs to an executor: any
:class:`concurrent.futures.Executor`. It submits plain match tasks, keeps a
bounded number in flight (a small multiple of the executor's worker count,
asked again as workers come and go), and consumes the results as they
complete. The backend makes the executor (:mod:`tournaments.executors.backends`): a
:class:`~tournaments.executors.local_pool.LocalPoolExecutor` (``local``, one worker per
core by default) or a Dask cluster (``dask``,
:class:`~tournaments.executors.dask_executor.DaskExecutor`). The coordinator stays the
only writer of the database whatever the backend.

Results are written in batches (:mod:`tournaments.coordinator.write_buffer`): one
transaction for what arrived in the last quarter of a second (or sooner when
many arrived, when nothing is left in flight, and at the end of the run,
however it ends), so a crash or ``kill -9`` loses only the matches still in
flight or finished in that last moment; each is played again by the next run,
never recorded twice.

Ctrl-C (or SIGTERM) stops cleanly: no new match starts, the matches in flight
finish and are recorded; a second Ctrl-C abandons them (they are replayed on
resume). A worker that dies costs the match it was playing, which is retried
(up to ``limits.max_attempts`` in all, then recorded as an error; on Dask the
scheduler does the retrying and a match that killed ``max_attempts`` workers
comes back as :class:`~tournaments.executors.local_pool.TaskKilledWorkers`). A worker
that refuses a match (it lacks a bot, or has another version) fails that
match with the reason; it is recorded as an error and retried by the next
run. Losing the executor (a Dask scheduler gone) stops the run as
``stopped``: what was recorded is kept and a new run resumes. A bot
version that fails ``limits.bench_after_failures`` matches in a row in one
pool (a game, option set and player count) is benched in that pool for the
rest of the tournament: its remaining matches there are recorded as
skipped, with the reason; its matches in other pools go on. A match in
which the host starved a bot (a wall-clock timeout while the bot was
runnable but not running, or stopped by someone else: see
:mod:`ladder.sandbox.move_clock`) comes back marked voided: it is recorded as
``voided`` with the reason, counts for nothing (no rating, no benching), and
the next run plays it again from its key, the same deal, like an error. A
match voided a second time (:data:`~tournaments.coordinator.recorder.VOID_LIMIT`) is
recorded ``unplayable`` with the reason instead: it counts for nothing and
is not played again, so the tournament can complete.

A tournament is identified by its name, seed, format and games, not by its
bots: a new bot version (or a new bot) run again under the same file joins
the same tournament, and only its own matches are played.

With a time budget (``--hours`` or ``hours =``), cycles of the schedule (new
deals each cycle) are played until the budget is spent. The adaptive format
(:mod:`tournaments.sources.adaptive`) plays rounds chosen from what is stored instead
of cycles, until every pool is settled or its budget (or the time) is spent.

Sealed deals (:mod:`ladder.matches.deals`): a new tournament gets a fresh secret (or
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

The parts, each with one job: :mod:`tournaments.formats.entrants` (who plays),
:mod:`tournaments.coordinator.opening` (which tournament and deal secret),
:mod:`tournaments.sources.schedule` (what is missing, what to play next; the
adaptive format's rounds come from :mod:`tournaments.sources.adaptive`),
:mod:`tournaments.coordinator.loop` (the executor loop, behind the interface of
:mod:`tournaments.executors.api`), :mod:`tournaments.coordinator.recorder` (the database),
:mod:`tournaments.coordinator.benching` (benching) and :mod:`tournaments.coordinator.progress` (the log
file and the progress bar). :class:`TournamentRun` puts them together.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import BrokenExecutor
from dataclasses import asdict
from pathlib import Path

from sqlmodel import Session

from engine import get_game
from ladder.errors import UserError
from ladder.matches.deals import DealSecret
from ladder.matches.statuses import MatchStatus, TournamentState
from ladder.sandbox.host_load import workers_warning
from ladder.store.database import open_database
from ladder.store.tables import TournamentRow, utcnow
from tournaments.coordinator.benching import BenchPolicy
from tournaments.coordinator.coordinator import Coordinator, ExecutorPlan, open_executor
from tournaments.coordinator.loop import ExecutorLoop, LoopSettings, StopSignals, broken_message
from tournaments.coordinator.opening import choose_tournament, open_tournament
from tournaments.coordinator.phases import Phase, RunPhases
from tournaments.coordinator.progress import ProgressBar, RunLog
from tournaments.coordinator.recorder import Finished, Recorder, recorded_keys
from tournaments.coordinator.run_options import RunOptions, RunReport, default_workers
from tournaments.executors.api import MatchExecutor
from tournaments.executors.backends import check_backend
from tournaments.executors.local_pool import LocalPoolExecutor, start_fork_server
from tournaments.formats.config import Seatings, TournamentConfig, check_scheduler_address, fingerprint, load_tournament
from tournaments.formats.entrants import bot_bundles, resolve_plans, sandbox_refusal_for
from tournaments.formats.round_robin import ScheduledMatch, schedule_fingerprint_data
from tournaments.sources.adaptive import AdaptivePlanner, AdaptiveSource
from tournaments.sources.base import MatchSource
from tournaments.sources.schedule import Schedule, ScheduleSource

__all__ = ["TournamentRun", "resolve_plans", "run_tournament"]

log = logging.getLogger("ladder.tournament")


def tournament_fingerprint(config: TournamentConfig, schedule: Schedule) -> str:
    """What identifies the tournament (its bots left out, see :func:`~tournaments.formats.round_robin.schedule_fingerprint_data`)."""
    data = schedule_fingerprint_data(config.format, schedule.plans, config.seed)
    if config.adaptive is not None:  # when the adaptive format stops decides what it plays
        data["adaptive"] = asdict(config.adaptive)
    return fingerprint(data)


class TournamentRun:
    """One ``ladder run`` of one tournament file: puts the parts together (see the module docstring)."""

    tournament: TournamentRow
    recorder: Recorder
    bench: BenchPolicy
    run_log: RunLog

    def __init__(self, config: TournamentConfig, options: RunOptions) -> None:
        self.created = time.monotonic()
        self.config = config
        self.options = options
        self.given_secret = DealSecret.from_hex(options.deal_secret) if options.deal_secret is not None else None
        self.secret = self.given_secret or DealSecret.fresh()  # replaced by the tournament's own when it is chosen
        self.engine = open_database(options.db_url)
        self.session = Session(self.engine, expire_on_commit=False)
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        config, options = self.config, self.options
        self.plans, self.notes = resolve_plans(self.session, config)
        self.session.commit()  # bot versions of built-ins
        seatings = config.adaptive.seatings if config.adaptive else Seatings.ALL
        self.schedule = Schedule(config.format, self.plans, config.seed, self.secret.value, seatings)
        self.print_hash = tournament_fingerprint(config, self.schedule)
        self.adaptive = AdaptivePlanner(self.plans, config.seed, config.adaptive) if config.adaptive else None
        self.per_cycle = self.schedule.per_cycle
        hours = options.hours if options.hours is not None else config.hours
        if self.per_cycle == 0:
            raise UserError(f"{config.path}: nothing to play: " + ("; ".join(self.notes) or "no game has bots"))
        if hours is not None and hours <= 0:
            raise UserError(f"--hours must be more than 0, not {hours}")
        self.hours = hours
        self.workers = options.workers or config.workers or default_workers()
        self.backend, self.scheduler = self._choose_backend()
        crowded = workers_warning(self.workers) if self.backend == "local" else None
        if crowded is not None:
            self.notes.append(crowded)
        self.stop = StopSignals()
        self.state_before: str | None = None  # the chosen tournament's state before this run (None: a new one)
        self.stats = RunReport(
            0,
            config.name,
            TournamentState.RUNNING.value,
            0,
            0,
            workers=self.workers,
            backend=self.backend,
            scheduler=self.scheduler or "",
            notes=list(self.notes),
        )

    def _note(self, note: str) -> None:
        self.notes.append(note)
        self.stats.notes.append(note)

    def _check_sandbox(self) -> None:
        """Refuse to start (one line) when a required layer is missing, or submitted bots cannot be sandboxed here."""
        from ladder.sandbox.layers import require_layers

        if self.options.require_layers:
            require_layers(self.options.require_layers)
        if self.options.executor is not None or (self.backend == "dask" and self.scheduler):
            return  # the workers are elsewhere: they judge their own sandbox, match by match
        refusal = sandbox_refusal_for(self.config, self.plans)
        if refusal is not None:
            raise UserError(refusal)

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

    def _open_executor(self) -> MatchExecutor:
        """The backend's executor (the caller shuts it down)."""
        executor = open_executor(
            ExecutorPlan(
                backend=self.backend,
                workers=self.workers,
                max_attempts=self.config.limits.max_attempts,
                log_queue=self.run_log.funnel.queue,
                scheduler=self.scheduler,
                log_level=self.options.log_level,
                setup=self.options.worker_setup,
                bundles=bot_bundles(self.plans) if self.backend == "dask" else {},
                run_name=f"{self.config.name}-{self.print_hash[:12]}",
            )
        )
        if self.backend == "dask":  # the cluster says where it is and how many workers it has now
            self.scheduler = self.stats.scheduler = str(getattr(executor, "address", ""))
            self.workers = self.stats.workers = max(1, int(getattr(executor, "worker_count", 1)))
        return executor

    def close(self) -> None:
        self.session.rollback()
        self.session.close()
        self.engine.dispose()

    # -- the schedule
    def cycle(self, number: int) -> list[ScheduledMatch]:
        """The matches of cycle ``number``, in playing order."""
        return self.schedule.cycle(number)

    def _more_to_play(self, row: TournamentRow) -> bool:
        """Whether this run would play a match of ``row``: a time budget, more cycles, or missing matches."""
        if self.hours is not None or self.config.cycles > row.cycles:
            return True
        assert row.id is not None
        done = recorded_keys(self.session, row.id)
        return next(self.schedule.missing(max(row.cycles, 1), done), None) is not None

    def missing_keys(self, cycles: int) -> list[str]:
        """The keys of the first ``cycles`` cycles that are not recorded (or only as errors)."""
        return self.schedule.missing_keys(cycles, self.recorder.done)

    # -- the run
    def run(self) -> RunReport:
        started = time.monotonic()
        self.phases = RunPhases(self.created)
        self.phases.mark(Phase.PREPARE, started)
        if self.backend == "local" and self.options.executor is None:
            start_fork_server()  # it imports the workers' modules while the database is opened below
        cycles = self._start()
        self.phases.mark(Phase.OPEN)
        deadline = started + self.hours * 3600 if self.hours else None
        own_executor = self.options.executor is None
        executor: MatchExecutor = (
            self._start_executor(started) if self.options.executor is None else self.options.executor
        )
        self.phases.mark(Phase.EXECUTOR)
        self.progress = ProgressBar(
            self.config.name,
            self.per_cycle * cycles,
            self.per_cycle * cycles - len(self.missing_keys(cycles)),
            deadline,
            self.options.progress,
        )
        loop = self._loop(executor, cycles, deadline)
        self.stop.install()
        reason = TournamentState.COMPLETE
        try:
            reason = self.coordinator.play(loop)
        except BrokenExecutor as error:
            reason = TournamentState.STOPPED
            raise UserError(f"{broken_message(error)}; see {self.stats.log_path}") from None
        except BaseException:
            reason = TournamentState.STOPPED  # the database holds every match recorded so far: a new run resumes
            raise
        finally:
            self.progress.close()
            self._end(executor, own_executor, loop, reason, started)
        return self.stats

    def _start(self) -> int:
        """Choose and open the tournament, read what it has recorded, open the log; the cycles scheduled."""
        try:
            self._check_sandbox()  # before anything is recorded: one line, not a tournament of errors
            choice = choose_tournament(
                self.session, self.config, self.print_hash, self.given_secret, self._more_to_play
            )
        except BaseException:
            self.close()
            raise
        for note in choice.notes:
            self._note(note)
        self.state_before = choice.row.state if choice.row is not None else None
        self.secret = choice.secret
        self.schedule.deal_from(self.secret.value)
        cycles = max(self.config.cycles, 1)
        self.tournament, resumed = open_tournament(
            self.session, self.config, self.print_hash, self.per_cycle * cycles, choice.row, self.secret
        )
        self.coordinator = Coordinator(
            self.session, self.tournament, self.secret.value, self.config.limits, self.stop, self.options.write_policy
        )
        self.recorder = self.coordinator.recorder
        tid = self.recorder.tournament_id
        self.stats.tournament_id = tid
        self.stats.deal_commitment = self.tournament.deal_commitment
        cycles = max(cycles, self.tournament.cycles)
        self._set_cycles(cycles)
        dropped = self.coordinator.resume()
        if dropped:
            self._note(f"{dropped} match(es) stored without all their seat rows were dropped: they are played again")
        self.bench = self.coordinator.bench
        self.stats.benched = self.bench.new_this_run
        try:
            self.run_log = RunLog.open(self.config.name, tid, self.options.log_level)
        except UserError:
            self.close()
            raise
        self.stats.log_path = str(self.run_log.path)
        self._announce(resumed, cycles)
        return cycles

    def _announce(self, resumed: bool, cycles: int) -> None:
        log.info(
            "tournament %s #%d: %s, %d matches per cycle, %d cycle(s) scheduled, %d already recorded, "
            "backend %s, %d workers%s",
            self.config.name,
            self.recorder.tournament_id,
            "resumed" if resumed else "new",
            self.per_cycle,
            cycles,
            len(self.recorder.done),
            self.backend,
            self.workers,
            f", budget {self.hours} h" if self.hours else "",
        )
        for note in self.notes:
            log.info("note: %s", note)
        if self.tournament.deal_commitment:
            log.info(
                "deals are sealed: commitment sha256(secret) = %s (the secret is revealed when the tournament ends)",
                self.tournament.deal_commitment,
            )

    def _start_executor(self, started: float) -> MatchExecutor:
        """The backend's executor; if it cannot start, the tournament is left ``stopped`` and the run ends."""
        try:
            return self._open_executor()
        except BaseException:
            try:
                self._finish(self._state_without_executor(), started)
            finally:
                self.run_log.close()
                self.close()
            raise

    def _state_without_executor(self) -> TournamentState:
        """How a run whose executor could not start leaves the tournament: ``stopped``, unless it was over and
        this run had nothing new to play (an unreachable Dask scheduler turned a complete tournament, its secret
        revealed, into a stopped one)."""
        before = TournamentState(self.state_before) if self.state_before else None
        if before is not None and before.over and not self._more_to_play(self.tournament):
            return before
        return TournamentState.STOPPED

    def _loop(self, executor: MatchExecutor, cycles: int, deadline: float | None) -> ExecutorLoop:
        settings = LoopSettings(
            max_attempts=self.config.limits.max_attempts,
            in_flight_per_worker=self.options.in_flight_per_worker,
            workers=self.workers,
            deadline=deadline,
            exhausted_is_budget=deadline is not None and self.adaptive is None,
            log_path=self.stats.log_path,
        )
        return self.coordinator.loop(
            executor, self._source(cycles, deadline), settings, self.progress.write, arrived=self._on_batch
        )

    def _source(self, cycles: int, deadline: float | None) -> MatchSource:
        """What the coordinator plays: the adaptive format's rounds, or the schedule's missing matches and new
        cycles."""
        if self.adaptive is None:
            return ScheduleSource(self.schedule, cycles, deadline, self.recorder.done, self._set_cycles)

        def schedule(planned: int) -> None:
            self.tournament.scheduled = planned
            self.session.add(self.tournament)
            self.session.commit()
            self.stats.scheduled = self.tournament.scheduled

        return AdaptiveSource(
            self.adaptive,
            self.session,
            self.recorder.tournament_id,
            self.secret.value,
            self.recorder.done,
            self.recorder.now,
            self.bench.benched_in,
            schedule,
        )

    def _end(
        self, executor: MatchExecutor, own_executor: bool, loop: ExecutorLoop, reason: TournamentState, started: float
    ) -> None:
        """Stop the executor, finish the tournament's record, close everything (whatever happened)."""
        counts = loop.counts
        self.phases.loop(counts.first_result, counts.tail_from, counts.first_seconds)
        self.stats.abandoned = counts.abandoned
        self.stats.busy_seconds += counts.busy_seconds
        self.stats.cpu_seconds += counts.cpu_seconds
        # an executor that reruns the matches of dead workers itself (Dask) says how many it held
        self.stats.retried_now += counts.retried + max(0, getattr(executor, "rerun_tasks", 0) - counts.given_up)
        # the local pool's workers stop (closing their bots) while the end is recorded and rated, not before
        overlap = own_executor and isinstance(executor, LocalPoolExecutor)
        try:
            try:
                self.coordinator.write_due(True)  # the matches that finished are kept, however the run ends
            finally:
                if own_executor:
                    self.coordinator.shutdown(executor, wait=not overlap)
                self.phases.mark(Phase.SHUTDOWN)
            self._finish(reason, started)
        finally:
            try:
                if overlap:
                    executor.shutdown(wait=True)  # the workers stopped meanwhile: this only waits for the last
                self.phases.mark(Phase.STOP)
                self.stats.phases = self.phases.seconds()
            finally:
                self.stop.restore()  # until here a Ctrl-C only sets a flag: the record is always finished
                self.run_log.close()
                self.close()

    def _set_cycles(self, cycles: int) -> None:
        self.tournament.cycles = cycles
        self.tournament.scheduled = cycles * self.per_cycle
        self.tournament.updated_at = utcnow()
        self.session.add(self.tournament)
        self.session.commit()
        self.stats.scheduled = self.tournament.scheduled

    def _on_batch(self, batch: list[Finished]) -> None:
        """A batch arrived (benches counted, kept to be written): the progress bar moves on."""
        failed = sum(1 for item in batch if item.record is not None and item.record.failures)
        self.progress.advance(len(batch), failed, self.tournament.scheduled, len(self.bench))

    def _count_recorded(self) -> None:
        """The run's counts of what the coordinator recorded."""
        tally = self.coordinator.tally
        self.stats.played_now = tally[MatchStatus.PLAYED]
        self.stats.skipped_now = tally[MatchStatus.SKIPPED]
        self.stats.errors_now = tally[MatchStatus.ERROR]
        self.stats.voided_now = tally[MatchStatus.VOIDED]
        self.stats.unplayable_now = tally[MatchStatus.UNPLAYABLE]
        self.stats.db_seconds = self.recorder.seconds
        self.stats.db_batches = self.recorder.batches
        self.stats.unstored = self.recorder.unstored

    def _finish(self, reason: TournamentState, started: float) -> None:
        """Record how the run ended (revealing the deal secret of a tournament that is over), then rate."""
        self.session.rollback()  # never commit a half-written batch: only what the recorder committed is kept
        self._count_recorded()
        tid = self.recorder.tournament_id
        # the tournament may also hold the matches of a bot's older versions: count what its schedule asks for now
        recorded = self.tournament.scheduled - len(self.missing_keys(self.tournament.cycles))
        state = reason
        if reason is TournamentState.COMPLETE and recorded < self.tournament.scheduled:
            state = TournamentState.INCOMPLETE  # some matches ended in errors: a new run retries them
        self.tournament = self.session.get(TournamentRow, tid) or self.tournament
        self._close_row(state)
        self.stats.deal_secret = self.tournament.shown_secret()
        self.stats.state = state.value
        self.stats.recorded = recorded
        self.stats.scheduled = self.tournament.scheduled
        self.stats.seconds = time.monotonic() - started
        if self.adaptive is not None:
            self.stats.notes.extend(self.adaptive.notes())
        self.phases.mark(Phase.RECORD_END)
        if self.options.rate_at_end:
            tick = time.perf_counter()
            self.coordinator.rate()
            log.info("ratings recomputed in %.2f s", time.perf_counter() - tick)
        self.phases.mark(Phase.RATING)
        log.info(
            "tournament %s #%d %s: %d of %d matches recorded (%d played now, %d skipped, %d errors) in %.1f s",
            self.config.name,
            tid,
            state,
            recorded,
            self.tournament.scheduled,
            self.stats.played_now,
            self.stats.skipped_now,
            self.stats.errors_now,
            self.stats.seconds,
        )

    def _close_row(self, state: TournamentState) -> None:
        """Write the tournament's final state; a tournament that is over reveals its deal secret."""
        row = self.tournament
        row.state = state.value
        row.pid = None
        row.updated_at = utcnow()
        if state.over:
            row.finished_at = utcnow()
            if row.deal_secret and row.secret_revealed_at is None:
                row.secret_revealed_at = utcnow()  # over: this secret never deals again
                log.info(
                    "deal secret revealed: %s (sha256 = %s, the commitment published at the start)",
                    row.deal_secret,
                    row.deal_commitment,
                )
        self.session.add(row)
        self.session.commit()


def run_tournament(source: str | Path | TournamentConfig, options: RunOptions | None = None) -> RunReport:
    """Run (or resume) the tournament of a file or config; see the module docstring."""
    config = source if isinstance(source, TournamentConfig) else load_tournament(source)
    for entry in config.games:
        get_game(entry.game)
    return TournamentRun(config, options or RunOptions()).run()
