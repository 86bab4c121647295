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
    phases.loop(first_result=104.0, tail_from=None)  # the loop ends now: no tail seen means no tail
    seconds = phases.seconds()
    assert list(seconds)[:4] == ["prepare", "open", "executor", "first result"]
    assert seconds["prepare"] == 0.5 and seconds["open"] == 0.5 and seconds["executor"] == 2.0
    assert seconds["first result"] == 1.0 and seconds["tail"] == 0.0
    assert "rating" not in seconds  # a phase not reached is left out


@pytest.mark.slow
def test_a_run_reports_every_phase_and_they_add_up_to_its_wall_time(toy, db_url: str) -> None:
    tick = time.monotonic()
    report = run_tournament(config(), options(db_url))
    wall = time.monotonic() - tick
    assert list(report.phases) == [phase.value for phase in Phase]
    assert all(seconds >= 0 for seconds in report.phases.values())
    assert report.phases["playing"] + report.phases["tail"] > 0
    assert abs(sum(report.phases.values()) - wall) < 0.5  # nothing of the run is left out (or counted twice)
