"""A run's wall time phase by phase (tournaments.coordinator.phases): what bench_run_overhead.py prints."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

import pytest

from ladder.matches.statuses import TournamentState
from ladder.seats.roster import Entrant
from tests.tournaments.test_runner import config, options
from tournaments.coordinator.loop import ExecutorLoop, LoopSettings, StopSignals
from tournaments.coordinator.phases import Phase, RunPhases
from tournaments.coordinator.runner import run_tournament
from tournaments.executors.tasks import WorkerRecord
from tournaments.formats.round_robin import ScheduledMatch


def test_phases_are_the_gaps_between_their_ends_in_order() -> None:
    phases = RunPhases(started=100.0)
    phases.mark(Phase.PREPARE, 100.5)
    phases.mark(Phase.OPEN, 101.0)
    phases.mark(Phase.EXECUTOR, 103.0)
    # the first match back took 0.75 s on its worker: it started 0.25 s after the workers were asked for
    phases.loop(first_result=104.0, tail_from=None, first_seconds=0.75)  # the loop ends now: no tail seen, no tail
    seconds = phases.seconds()
    assert list(seconds)[:5] == ["prepare", "open", "executor", "workers starting", "first match"]
    assert seconds["prepare"] == 0.5 and seconds["open"] == 0.5 and seconds["executor"] == 2.0
    assert seconds["workers starting"] == 0.25 and seconds["first match"] == 0.75 and seconds["tail"] == 0.0
    assert "rating" not in seconds  # a phase not reached is left out


def test_a_first_match_longer_than_the_wait_for_it_starts_no_earlier_than_the_workers_were_asked_for() -> None:
    phases = RunPhases(started=100.0)
    phases.mark(Phase.EXECUTOR, 103.0)
    phases.loop(first_result=104.0, tail_from=104.0, first_seconds=5.0)  # clocks of two processes: never negative
    seconds = phases.seconds()
    assert seconds["workers starting"] == 0.0 and seconds["first match"] == 1.0


@pytest.mark.slow
def test_a_run_reports_every_phase_and_they_add_up_to_its_wall_time(toy, db_url: str) -> None:
    tick = time.monotonic()
    report = run_tournament(config(), options(db_url))
    wall = time.monotonic() - tick
    assert list(report.phases) == [phase.value for phase in Phase]
    assert all(seconds >= 0 for seconds in report.phases.values())
    assert report.phases["playing"] + report.phases["tail"] > 0
    assert report.phases["first match"] > 0  # the first match back was played on its worker, not waited for
    assert abs(sum(report.phases.values()) - wall) < 0.5  # nothing of the run is left out (or counted twice)


class _SlowExecutor:
    """Each match comes back ``after`` seconds after it was handed out, played for ``seconds`` on its worker."""

    def __init__(self, after: float, seconds: float) -> None:
        self.after, self.seconds = after, seconds
        self.timers: list[threading.Timer] = []

    def submit(self, _fn: Any, message: dict[str, Any]) -> Future[Any]:
        future: Future[Any] = Future()
        record = WorkerRecord(
            key=message["key"],
            scores=(1.0, 0.0),
            ranks=(0, 1),
            details={},
            actions_z=b"",
            action_count=0,
            failures={},
            seconds=self.seconds,
            cpu_seconds=self.seconds,
            think=(0.0, 0.0),
            stderr=("", ""),
            started_at=datetime.now(UTC),
            worker="test:1",
        )
        timer = threading.Timer(self.after, future.set_result, (record.to_wire(),))
        self.timers.append(timer)
        timer.start()
        return future


def _match(key: str) -> ScheduledMatch:
    seats = tuple(Entrant(name, "1", name * 8, i, name, ("*",)) for i, name in enumerate(("random", "thumb")))
    return ScheduledMatch(key, 0, "elfer-raus/o0/2p/0", "elfer-raus", {}, 1, seats)


def test_a_first_batch_of_benched_matches_alone_is_not_the_first_result() -> None:
    # A resumed run whose first scheduled match seats a benched bot: it is skipped at once, in the loop's first turn,
    # while the match handed to a worker comes back later. The first result (and so the workers' start and the first
    # match, in the run's phases) is that match's, not the skip's.
    executor = _SlowExecutor(after=0.3, seconds=0.2)
    loop = ExecutorLoop(
        executor,  # type: ignore[arg-type]
        LoopSettings(
            max_attempts=1, in_flight_per_worker=1, workers=1, deadline=None, exhausted_is_budget=False, log_path="log"
        ),
        StopSignals(),
        make_task=lambda match: {"key": match.key},
        benched_seats=lambda match: {0: "benched"} if match.key == "benched" else {},
        handed_out=lambda _match: None,
        on_batch=lambda _batch: None,
        say=lambda _text: None,
        wait_limit=lambda _longest: 0.05,  # the first turn's wait ends before the played match is back
    )
    tick = time.monotonic()
    assert loop.run(iter([_match("benched"), _match("played")])) is TournamentState.COMPLETE
    assert loop.counts.first_result is not None and loop.counts.first_result - tick >= 0.25
    assert loop.counts.first_seconds == 0.2
