"""``ladder run --dry-run``: what a run would play, without playing."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from tournaments.coordinator.opening import latest_tournament
from tournaments.coordinator.recorder import recorded_keys
from tournaments.coordinator.run_options import RunOptions
from tournaments.coordinator.runner import TournamentRun
from tournaments.formats.config import TournamentConfig, load_tournament
from tournaments.formats.estimate import estimate
from tournaments.formats.round_robin import ScheduledMatch


def _by_table(matches: list[ScheduledMatch]) -> dict[str, int]:
    """How many of ``matches`` each game and table size has (``"elevenses 3p"``)."""
    counts: dict[str, int] = {}
    for match in matches:
        key = f"{match.game} {len(match.seats)}p"
        counts[key] = counts.get(key, 0) + 1
    return counts


def plan_tournament(
    source: str | Path | TournamentConfig,
    db_url: str | None = None,
    workers: int | None = None,
    hours: float | None = None,
) -> dict[str, Any]:
    """What a run would play, without playing: matches per cycle by game and table size, the notes, whether the
    run resumes a tournament (and what it has recorded) or starts a new one, and an estimate of the time the
    missing matches take (:mod:`tournaments.formats.estimate`)."""
    config = source if isinstance(source, TournamentConfig) else load_tournament(source)
    run = TournamentRun(
        config, RunOptions(db_url=db_url, progress=False, backend="local", workers=workers, hours=hours)
    )  # no Dask needed; ``hours`` (--hours) overrides the file's budget, as in the run
    try:
        existing = latest_tournament(run.session, config, run.print_hash)
        cycles = max(config.cycles, existing.cycles if existing else 1)
        done = recorded_keys(run.session, existing.id) if existing is not None and existing.id is not None else set()
        missing = list(run.schedule.missing(cycles, done))
        to_play = _by_table(missing)
        return {
            "name": config.name,
            "per_cycle": run.per_cycle,
            "cycles": cycles,
            "hours": run.hours,
            "workers": run.workers,
            "backend": config.backend,
            "scheduler": config.scheduler,
            "matches": _by_table(run.cycle(0)),
            "adaptive": asdict(config.adaptive) if config.adaptive else None,
            "bots": {plan.game: [e.label for e in plan.entrants] for plan in run.plans},
            "notes": run.notes,
            "resumes": None
            if existing is None
            else {"tournament": existing.id, "state": existing.state, "recorded": len(done)},
            "to_play": len(missing),
            "to_play_by_table": to_play,
            "estimate": estimate(run.session, missing, run.workers).as_dict(),
        }
    finally:
        run.close()
