"""How a ``ladder run`` runs (as opposed to what it plays, which is the tournament file's), and what it did."""

from __future__ import annotations

import logging
import os
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.coordinator.write_buffer import WritePolicy


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
    write_policy: WritePolicy = field(default_factory=WritePolicy)  # when finished matches are written


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
    voided_now: int = 0  # matches voided for a host fault (a starved bot): the next run plays them again
    unplayable_now: int = (
        0  # matches voided again (tournaments.coordinator.recorder.VOID_LIMIT): recorded, not played again
    )
    phases: dict[str, float] = field(default_factory=dict)  # where the run's wall time went (see RunPhases)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
