"""``ladder run`` and ``ladder serve`` are one coordinator with different match sources (issue 34).

Each entry point is run for real here, with the coordinator's class watched: both must construct a
:class:`Coordinator`, hand it their match source, and have their results recorded through it.
"""

from __future__ import annotations

from typing import Any

import pytest

from cli.commands import run as run_command  # the CLI's `ladder run` calls run_tournament
from ladder.matches.statuses import MatchStatus, TournamentState
from service import server
from service.background.scheduler import ServeLoop
from service.db import open_service_database
from service.settings import ServeSettings
from tournaments.coordinator import coordinator as coordinator_module
from tournaments.coordinator.coordinator import Coordinator
from tournaments.coordinator.loop import StopSignals
from tournaments.coordinator.run_options import RunOptions
from tournaments.formats.config import parse_tournament
from tournaments.sources.schedule import ScheduleSource

SETUP = "tests.tournaments.toygames:install"


class Watch:
    """Every Coordinator made, the source each played, and what each recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: list[Coordinator] = []
        self.sources: list[Any] = []
        init, loop = Coordinator.__init__, Coordinator.loop
        watch = self

        def made(self: Coordinator, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **kwargs)
            watch.made.append(self)

        def looped(self: Coordinator, executor: Any, source: Any, *args: Any, **kwargs: Any) -> Any:
            watch.sources.append(source)
            return loop(self, executor, source, *args, **kwargs)

        monkeypatch.setattr(Coordinator, "__init__", made)
        monkeypatch.setattr(Coordinator, "loop", looped)


def test_ladder_run_plays_through_the_coordinator(toy, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    watch = Watch(monkeypatch)
    config = parse_tournament(
        {"seed": 3, "games": ["toy-coins"], "bots": ["random", "greedy"], "games_per_pairing": 2},
        "toy.toml",
        "toy",
    )
    report = run_command.run_tournament(
        config, RunOptions(db_url=db_url, workers=1, progress=False, worker_setup=SETUP)
    )
    assert report.state == "complete" and report.played_now > 0
    [made] = watch.made
    assert type(made) is Coordinator
    [source] = watch.sources
    assert isinstance(source, ScheduleSource)
    assert made.tally[MatchStatus.PLAYED] == report.played_now  # every match was recorded by the coordinator


def test_ladder_serve_plays_through_the_same_coordinator(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    watch = Watch(monkeypatch)
    stop = StopSignals()
    loop_of = Coordinator.loop

    def looped_then_stopped(self: Coordinator, *args: Any, **kwargs: Any) -> Any:
        made = loop_of(self, *args, **kwargs)
        stop.requested = True  # as a first Ctrl-C does once serving: the served source ends, the coordinator stops
        return made

    monkeypatch.setattr(Coordinator, "loop", looped_then_stopped)
    engine = open_service_database(db_url)
    settings = ServeSettings(db_url=db_url, workers=1)
    assert server.ServeLoop is ServeLoop  # the loop `ladder serve` starts (service.server.serve)
    served = ServeLoop(engine, settings, stop)
    try:
        assert served.run() is TournamentState.STOPPED
    finally:
        engine.dispose()
    [made] = watch.made
    assert type(made) is Coordinator
    assert watch.sources == [served]  # the served planner is the coordinator's match source
    assert served.coordinator is made


def test_one_task_builder_and_one_executor_opener() -> None:
    """The executor opener is the coordinator module's, and neither entry point builds tasks of its own."""
    import service.background.scheduler as scheduler
    import tournaments.coordinator.runner as runner

    assert scheduler.open_executor is coordinator_module.open_executor is runner.open_executor
    assert not hasattr(ServeLoop, "task") and not hasattr(runner.TournamentRun, "_task")
