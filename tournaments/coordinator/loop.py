"""The executor loop: hands matches to the executor, keeps a bounded number in flight, collects what finishes.

It pulls matches from a pending iterator (the schedule's, or the adaptive
format's rounds, which may say :data:`~tournaments.sources.adaptive.WAIT` until a
round is recorded), skips those with a benched seat, submits the others, and
hands each batch of finished matches (those that completed together) to
``on_batch``, which keeps them to be written; once per turn it calls ``tick``
(told whether any match is still in flight), which writes what is due (see
:mod:`tournaments.coordinator.write_buffer`), and it waits for results no longer than
``wait_limit`` allows. It decides what a failed future means
(see :mod:`tournaments.executors.api`): a lost worker's match is retried, up
to ``max_attempts`` in all; a match that raised is an error with the reason;
a broken executor ends the run. Ctrl-C and SIGTERM are flags
(:class:`StopSignals`): the first stops handing out matches and lets those in
flight finish, the second abandons them.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait
from dataclasses import dataclass, field
from typing import Any

from ladder.errors import UserError
from ladder.matches.statuses import MatchStatus, TournamentState
from ladder.text import clean_text
from tournaments.coordinator.recorder import Finished
from tournaments.executors.api import MatchExecutor
from tournaments.executors.local_pool import ExecutorLost, TaskKilledWorkers, WorkerLost
from tournaments.executors.tasks import WorkerRecord
from tournaments.executors.worker import play_task
from tournaments.formats.round_robin import ScheduledMatch
from tournaments.sources.base import WAIT, Wait

log = logging.getLogger("ladder.tournament")


class StopSignals:
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


def broken_message(error: BaseException) -> str:
    """What to tell the operator when the executor cannot go on."""
    return str(error) if isinstance(error, ExecutorLost) else f"the worker pool broke: {error}"


@dataclass
class LoopCounts:
    """What the loop did, for the run's report."""

    retried: int = 0  # matches submitted again after their worker died
    given_up: int = 0  # matches the executor gave up after their workers died (Dask's KilledWorker)
    abandoned: int = 0  # in flight when a second Ctrl-C stopped the run
    busy_seconds: float = 0.0  # wall time the workers spent playing
    cpu_seconds: float = 0.0  # the workers' CPU time in those matches
    submitted: dict[int, int] = field(default_factory=dict)  # matches sent to the workers, by cycle
    first_result: float | None = None  # monotonic time the first match came back
    first_seconds: float = 0.0  # the longest wall time on its worker of the matches in that first batch
    tail_from: float | None = None  # monotonic time the schedule ran out and the workers stopped being all busy


@dataclass
class LoopSettings:
    max_attempts: int  # a match whose worker dies is played at most this many times
    in_flight_per_worker: int
    workers: int  # the slots assumed when the executor does not say (no worker_count)
    deadline: float | None  # the time budget's end on the monotonic clock
    exhausted_is_budget: bool  # the pending matches running out means the budget is spent (round-robin with hours)
    log_path: str


class ExecutorLoop:
    """One run's loop over the executor (see the module docstring)."""

    def __init__(
        self,
        executor: MatchExecutor,
        settings: LoopSettings,
        stop: StopSignals,
        make_task: Callable[[ScheduledMatch], dict[str, Any]],
        benched_seats: Callable[[ScheduledMatch], dict[int, str]],
        handed_out: Callable[[ScheduledMatch], None],
        on_batch: Callable[[list[Finished]], None],
        say: Callable[[str], None],
        tick: Callable[[bool], None] | None = None,
        wait_limit: Callable[[float], float] | None = None,
    ) -> None:
        self.executor = executor
        self.settings = settings
        self.stop = stop
        self.make_task = make_task
        self.benched_seats = benched_seats
        self.handed_out = handed_out
        self.on_batch = on_batch
        self.say = say
        self.tick = tick or (lambda _idle: None)
        self.wait_limit = wait_limit or (lambda longest: longest)
        self.counts = LoopCounts()
        self.in_flight: dict[Future[Any], tuple[ScheduledMatch, int]] = {}
        self.exhausted = False
        self.budget_spent = False
        self.broken = ""

    def run(self, pending: Iterator[ScheduledMatch | Wait]) -> TournamentState:
        """Play what ``pending`` yields; why it ended: ``complete``, ``budget spent`` or ``stopped``."""
        while True:
            self._heed_signals()
            if self.stop.abandon:
                self.counts.abandoned = len(self.in_flight)
                return TournamentState.STOPPED
            self._watch_budget()
            batch = self._hand_out(pending)
            if not self.in_flight and not batch:
                break
            batch.extend(self._collect())
            if batch:
                self._note_first(batch)
                self.on_batch(batch)
            if self.counts.tail_from is None and self.exhausted and len(self.in_flight) < self._slots():
                self.counts.tail_from = time.monotonic()
            self.tick(not self.in_flight)  # nothing in flight: write everything (the adaptive format reads it)
            if self.broken:
                log.error(self.broken)
                raise UserError(self.broken)
        if self.stop.requested:
            return TournamentState.STOPPED
        if self.budget_spent or (self.settings.exhausted_is_budget and self.exhausted):
            return TournamentState.BUDGET_SPENT
        return TournamentState.COMPLETE

    def _note_first(self, batch: list[Finished]) -> None:
        """When the first results came back from the workers, and how long the longest of them was played (the
        run's phases). A match skipped for a benched seat never went to a worker: a batch of those alone (a resumed
        run whose first matches seat a benched bot) says nothing of when the workers were ready."""
        if self.counts.first_result is None and any(f.status is not MatchStatus.SKIPPED for f in batch):
            self.counts.first_result = time.monotonic()
            self.counts.first_seconds = max((f.record.seconds for f in batch if f.record), default=0.0)

    def _heed_signals(self) -> None:
        if self.stop.message:
            self.say(self.stop.message)
            log.info(self.stop.message)
            self.stop.message = None

    def _watch_budget(self) -> None:
        deadline = self.settings.deadline
        if deadline is not None and not self.budget_spent and time.monotonic() >= deadline:
            self.budget_spent = True
            log.info("time budget spent: finishing the %d matches in flight", len(self.in_flight))

    def _slots(self) -> int:
        """How many matches the executor plays at once now (its ``worker_count``, else the workers asked for)."""
        count = getattr(self.executor, "worker_count", None)
        return count if isinstance(count, int) and count >= 0 else self.settings.workers

    def _hand_out(self, pending: Iterator[ScheduledMatch | Wait]) -> list[Finished]:
        """Submit matches until the in-flight cap; the matches skipped for a benched seat."""
        skipped: list[Finished] = []
        cap = max(1, self._slots() * self.settings.in_flight_per_worker)  # workers come and go (Dask)
        while not (self.exhausted or self.stop.requested or self.budget_spent) and len(self.in_flight) < cap:
            match = next(pending, None)
            if match is None:
                self.exhausted = True
                break
            if match is WAIT:  # the adaptive format waits for its round's results
                break
            assert isinstance(match, ScheduledMatch)
            benched = self.benched_seats(match)
            self.handed_out(match)
            if benched:
                skipped.append(Finished(match, MatchStatus.SKIPPED, benched_seats=benched))
                continue
            self._submit(match, 1)
            self.counts.submitted[match.cycle] = self.counts.submitted.get(match.cycle, 0) + 1
        return skipped

    def _submit(self, match: ScheduledMatch, attempt: int) -> None:
        self.in_flight[self.executor.submit(play_task, self.make_task(match))] = (match, attempt)

    def _collect(self) -> list[Finished]:
        """Wait (half a second at most, less when results are due to be written) for matches in flight; those
        that finished."""
        if not self.in_flight:
            return []
        done, _ = wait(list(self.in_flight), timeout=self.wait_limit(0.5), return_when=FIRST_COMPLETED)
        finished = []
        for future in done:
            match, attempt = self.in_flight.pop(future)
            if future.cancelled():
                continue
            item = self._settle(future, match, attempt)
            if item is not None:
                finished.append(item)
        return finished

    def _settle(self, future: Future[Any], match: ScheduledMatch, attempt: int) -> Finished | None:
        """What a completed future means for its match (None: retried, or the executor broke)."""
        try:
            record = WorkerRecord.from_wire(future.result())
        except WorkerLost as error:
            if attempt < self.settings.max_attempts:
                log.warning("match %s: %s; retrying (attempt %d)", match.key, error, attempt + 1)
                self.counts.retried += 1
                self._submit(match, attempt + 1)
                return None
            return Finished(match, MatchStatus.ERROR, error=f"{error} (after {attempt} attempts)", attempts=attempt)
        except TaskKilledWorkers as error:
            log.error("match %s %s", match.key, error)
            self.counts.given_up += 1
            return Finished(match, MatchStatus.ERROR, error=f"the match {error}", attempts=error.attempts)
        except BrokenExecutor as error:
            self.broken = f"{broken_message(error)}; see {self.settings.log_path}"
            return None
        except Exception as error:  # the match itself raised: an engine or worker bug, not a bot's
            log.error(
                "match %s raised %s: %s\n%s",
                match.key,
                type(error).__name__,
                clean_text(error, one_line=True),
                clean_text(getattr(error, "remote_traceback", "")),
            )
            return Finished(match, MatchStatus.ERROR, error=f"{type(error).__name__}: {error}", attempts=attempt)
        self.counts.busy_seconds += record.seconds
        self.counts.cpu_seconds += record.cpu_seconds
        if record.voided:  # a host fault: recorded with the reason, counted for nothing, played again by a new run
            return Finished(match, MatchStatus.VOIDED, record, error=record.voided, attempts=attempt)
        return Finished(match, MatchStatus.PLAYED, record, attempts=attempt)
