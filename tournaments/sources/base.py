"""What the coordinator plays: the match source, its one plug-in.

``ladder run`` and ``ladder serve`` are one coordinator (:class:`tournaments.coordinator.coordinator.Coordinator`)
with different sources: the fixed schedule (:class:`tournaments.sources.schedule.ScheduleSource`), the adaptive
planner (:class:`tournaments.sources.adaptive.AdaptiveSource`) and the served planner
(:class:`service.background.scheduler.ServeLoop`). The coordinator does everything else: the executor, the
tasks, benching, writing, rating, Ctrl-C and resume.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from typing import Protocol

from tournaments.formats.round_robin import ScheduledMatch


class Wait(enum.Enum):
    """Yielded by a source while the matches it handed out must be recorded before it can choose more."""

    WAIT = "wait"


WAIT = Wait.WAIT


class MatchSource(Protocol):
    """The matches to play and what the source must be told while they are played."""

    def pending(self, submitted: Mapping[int, int]) -> Iterator[ScheduledMatch | Wait]:
        """The matches to play, in order; :data:`WAIT` while the source waits for results. ``submitted``
        (matches sent to the workers, by cycle) is read live."""
        ...

    def refusal(self, match: ScheduledMatch) -> dict[int, str]:
        """The seats of ``match`` that may not play (besides the benched ones), with the reason: recorded as
        skipped."""
        ...

    def handed_out(self, match: ScheduledMatch) -> None:
        """``match`` was handed out (sent to a worker, or skipped)."""
        ...

    def retired(self) -> tuple[str, ...]:
        """Bot references with nothing left to play: the workers stop their idle processes."""
        ...

    def recorded(self) -> None:
        """A batch of results was written (the database holds them now)."""
        ...
