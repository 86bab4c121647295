"""Where the wall time of one ``ladder run`` goes, phase by phase (``RunReport.phases``).

The throughput benchmark measures the matches; a user waits for the whole
command. The difference is the run's fixed costs: opening the database and
the tournament, starting the fork server and the workers (until the first
match to come back had started on its worker), stopping the workers, writing
the end of the tournament and rating. The first match, the time every worker
is busy and the tail (fewer matches than workers left) are the matches being
played. ``tests/bench/bench_run_overhead.py`` prints the phases beside the
command's wall time.
"""

from __future__ import annotations

import enum
import time


class Phase(enum.Enum):
    """The phases of a run, in order."""

    PREPARE = "prepare"  # the tournament file resolved: bots, schedule (before run())
    OPEN = "open"  # the tournament chosen and opened, its recorded keys read, the log opened
    EXECUTOR = "executor"  # the workers asked for (they start in the background)
    WORKERS_START = "workers starting"  # until the first match that came back had started (cold workers)
    FIRST_MATCH = "first match"  # that match being played, until it came back
    PLAYING = "playing"  # every worker busy
    TAIL = "tail"  # the schedule ran out: fewer matches in flight than workers
    SHUTDOWN = "last writes"  # the last results written, the workers told to stop (local: without waiting)
    RECORD_END = "record end"  # the tournament's final state (and the deal secret) written
    RATING = "rating"  # the ratings recomputed
    STOP = "workers stopped"  # what is left of waiting for the workers to stop (they stop during the two above)


class RunPhases:
    """Stamps of the monotonic clock at the end of each phase, turned into seconds per phase."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.ends: dict[Phase, float] = {}
        self._last = started

    def mark(self, phase: Phase, now: float | None = None) -> None:
        """``phase`` ended now (or at ``now``)."""
        self._last = time.monotonic() if now is None else now
        self.ends[phase] = self._last

    def loop(self, first_result: float | None, tail_from: float | None, first_seconds: float = 0.0) -> None:
        """The loop ended now: split it where the first match to come back started (``first_seconds``, its wall
        time on the worker, before it came back), when it came back, and at the start of the tail."""
        now = time.monotonic()
        first = first_result if first_result is not None else now
        self.mark(Phase.WORKERS_START, max(self._last, first - max(0.0, first_seconds)))
        self.mark(Phase.FIRST_MATCH, first)
        self.mark(Phase.PLAYING, max(first, tail_from) if tail_from is not None else now)
        self.mark(Phase.TAIL, now)

    def seconds(self) -> dict[str, float]:
        """Seconds per phase, in order (a phase not reached is left out)."""
        out: dict[str, float] = {}
        before = self.started
        for phase in Phase:
            end = self.ends.get(phase)
            if end is None:
                continue
            out[phase.value] = round(max(0.0, end - before), 4)
            before = end
        return out
