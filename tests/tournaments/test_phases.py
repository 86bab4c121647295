"""A run's wall time phase by phase (tournaments.phases): what bench_run_overhead.py prints."""

from __future__ import annotations

import time

import pytest

from tests.tournaments.test_runner import config, options
from tournaments.phases import Phase, RunPhases
from tournaments.runner import run_tournament


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
