"""The one coordinator of the league: ``ladder run`` and ``ladder serve`` both play through it.

It opens an executor (:func:`open_executor`: the local pool or Dask), turns each scheduled match into a task
(:func:`match_task`), hands tasks out and collects results (:class:`~tournaments.coordinator.loop.ExecutorLoop`),
benches a bot that keeps failing, writes each batch of results in one transaction
(:class:`~tournaments.coordinator.recorder.Recorder`, through the
:class:`~tournaments.coordinator.write_buffer.WriteBuffer`), rates, stops on Ctrl-C (the
:class:`~tournaments.coordinator.loop.StopSignals`) and, after ``kill -9``, resumes from what is recorded
(:meth:`Coordinator.resume`). What differs between a tournament and the served ladder is only the **match
source** (:class:`~tournaments.sources.base.MatchSource`): the fixed schedule, the adaptive planner or the
served planner.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from ladder.matches.deals import sealed_bot_seed
from ladder.matches.statuses import MatchStatus, TournamentState
from ladder.paths import results_dir
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings.pools import PoolKey
from ladder.sandbox.limits import SandboxLimits
from ladder.store.tables import TournamentRow
from tournaments.coordinator.benching import BenchPolicy
from tournaments.coordinator.loop import ExecutorLoop, LoopSettings, StopSignals
from tournaments.coordinator.recorder import Finished, Recorder
from tournaments.coordinator.write_buffer import WriteBuffer, WritePolicy
from tournaments.executors.api import MatchExecutor, TerminableExecutor
from tournaments.executors.local_pool import LocalPoolExecutor
from tournaments.executors.tasks import MatchTask
from tournaments.executors.worker import close_players, init_worker
from tournaments.formats.round_robin import ScheduledMatch
from tournaments.sources.base import MatchSource

log = logging.getLogger("ladder.tournament")


@dataclass(frozen=True)
class ExecutorPlan:
    """How to open the executor: the backend (``local`` or ``dask``) and what its workers need."""

    backend: str
    workers: int
    max_attempts: int
    log_queue: Any  # the run log's funnel queue: the local workers' log records come back through it
    scheduler: str | None = None  # a Dask scheduler's address (none: a local cluster of ``workers``)
    log_level: int = logging.INFO
    setup: str | None = None  # "module:function" run in each worker (tests)
    bundles: Mapping[str, Mapping[str, bytes]] = field(default_factory=dict)  # bot files shipped to Dask workers
    run_name: str | None = None


def open_executor(plan: ExecutorPlan) -> MatchExecutor:
    """The executor of ``plan`` (the caller shuts it down): long-lived local workers, or a Dask cluster."""
    results = str(results_dir().resolve())
    if plan.backend != "dask":
        return LocalPoolExecutor(
            plan.workers,
            initializer=init_worker,
            finalizer=close_players,
            pin_cpus=True,
            initargs=(plan.log_queue, plan.log_level, plan.setup, results),
        )
    from tournaments.executors.dask_executor import open_dask_executor

    if plan.scheduler:
        log.info("dask backend: joining the scheduler at %s (--workers does not apply)", plan.scheduler)
    else:
        log.info("dask backend: starting a local cluster of %d worker process(es)", plan.workers)
    return open_dask_executor(
        scheduler=plan.scheduler,
        workers=plan.workers,
        max_attempts=plan.max_attempts,
        bundles=plan.bundles,
        results=results,
        setup=plan.setup,
        log_level=plan.log_level,
        run_name=plan.run_name,
    )


def match_task(match: ScheduledMatch, secret: bytes, limits: SandboxLimits, retire: tuple[str, ...]) -> dict[str, Any]:
    """The match as a task for a worker (:class:`~tournaments.executors.tasks.MatchTask` on the wire): the deal's
    seed and each seat's bot seed (from the deal ``secret``, which stays here), never the secret."""
    spec = match.spec()
    return MatchTask(
        key=spec.key,
        game=spec.game,
        seats=spec.seats,
        seed=spec.seed,
        options=dict(spec.options),
        limits=limits,
        bot_seeds=tuple(sealed_bot_seed(secret, match.key, seat) for seat in range(len(match.seats))),
        deal=match.deal,
        hashes=tuple(entrant.content_hash for entrant in match.seats),
        retire=retire,
    ).to_wire()


class Coordinator:
    """One tournament's play: its recorder, benches and write buffer, and the loop over a match source."""

    def __init__(
        self,
        session: Session,
        tournament: TournamentRow,
        secret: bytes,
        limits: SandboxLimits,
        stop: StopSignals,
        write_policy: WritePolicy | None = None,
    ) -> None:
        self.session = session
        self.secret = secret
        self.limits = limits
        self.stop = stop
        self.recorder = Recorder(session, tournament)
        self.writes = WriteBuffer(write_policy)
        self.bench = BenchPolicy(limits.bench_after_failures)
        self.tally: dict[MatchStatus, int] = dict.fromkeys(MatchStatus, 0)  # matches recorded by this run
        self.source: MatchSource | None = None

    @property
    def tournament_id(self) -> int:
        return self.recorder.tournament_id

    def resume(self) -> int:
        """Read what the tournament has recorded (after ``kill -9`` too) and its benches; how many half-written
        matches were dropped (they are played again)."""
        dropped = self.recorder.repair()
        self.recorder.load_keys()
        self.bench = BenchPolicy.load(self.session, self.tournament_id, self.limits.bench_after_failures)
        return dropped

    def loop(
        self,
        executor: MatchExecutor,
        source: MatchSource,
        settings: LoopSettings,
        say: Callable[[str], None],
        arrived: Callable[[list[Finished]], None] | None = None,
    ) -> ExecutorLoop:
        """The executor loop that plays ``source`` on ``executor`` (``arrived`` is told of each batch as it
        arrives, before it is written: a progress bar)."""
        self.source = source
        self._arrived = arrived or (lambda _batch: None)
        return ExecutorLoop(
            executor,
            settings,
            self.stop,
            make_task=self.task,
            benched_seats=self._refused,
            handed_out=source.handed_out,
            on_batch=self._on_batch,
            say=say,
            tick=self.write_due,
            wait_limit=self.writes.wait_limit,
        )

    def play(self, loop: ExecutorLoop) -> TournamentState:
        """Play the source's matches until it has none, the budget is spent or Ctrl-C; why it ended."""
        assert self.source is not None, "make the loop first (Coordinator.loop)"
        return loop.run(self.source.pending(loop.counts.submitted))

    def task(self, match: ScheduledMatch) -> dict[str, Any]:
        retire = self.source.retired() if self.source is not None else ()
        return match_task(match, self.secret, self.limits, retire)

    def _refused(self, match: ScheduledMatch) -> dict[int, str]:
        benched = self.bench.benched_seats(match)
        if benched or self.source is None:
            return benched
        return self.source.refusal(match)

    def _on_batch(self, batch: list[Finished]) -> None:
        """Count the batch's failures toward benching at once (no more matches are handed to a benched bot),
        and keep it to be written with the benches it causes."""
        new_benches: dict[tuple[int, PoolKey], str] = {}
        for item in batch:
            if item.status is MatchStatus.PLAYED and item.record is not None:
                new_benches.update(self.bench.observe(item.match, item.record.failures))
        self.writes.add(batch, new_benches)
        self._arrived(batch)

    def write_due(self, everything: bool = False) -> None:
        """Write the waiting results if they are due (all of them with ``everything``), in one transaction."""
        if self.writes.oldest is None or not (everything or self.writes.due()):
            return
        batch, new_benches = self.writes.take()
        self.recorder.record(batch, new_benches)
        for item in batch:
            self.tally[item.status] += 1
        if self.source is not None:
            self.source.recorded()

    def shutdown(self, executor: MatchExecutor, wait: bool = True) -> None:
        """Stop ``executor``: its workers end after their matches, or at once after a second Ctrl-C."""
        if self.stop.abandon and isinstance(executor, TerminableExecutor):
            executor.terminate()
        else:
            executor.shutdown(wait=wait)

    def rate(self) -> None:
        """Recompute and store the ratings from the recorded matches."""
        ratings_persistence.rerate(self.session)
