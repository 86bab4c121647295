"""How long the missing matches of a run take: what `ladder run --dry-run` says (see docs/benchmarks.md).

Each match is costed on its own, by the best evidence there is:

1. the database's own history: the mean wall time of the stored played
   matches of the same game, options, table size and bots in the same seats
   (as a set), measured on this machine under its load at the time;
2. otherwise the built-in bots' measured CPU costs (:mod:`tournaments.formats.match_order`'s
   table, the one that orders a cycle); a submitted bot never played here is
   assumed to think as long as the game's search bot.

The matches' total is shared by the workers that can run at once (no more
than the cores), and a fixed start-up is added: starting the workers, the
rating and the summary (:data:`STARTUP_SECONDS`, measured with
``tests/bench/bench_author_loop.py``-style tiny runs).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from sqlmodel import Session

from ladder.store import tournament_queries
from tournaments.formats.match_order import estimated_ms
from tournaments.formats.round_robin import ScheduledMatch

STARTUP_SECONDS = 3.0
"""The run's fixed cost beside its matches: the workers' start (each imports the engine and the bots), the rating
and the summary. Measured: 2.5 s for 12 matches with 1 worker (2-core VM, load 6.4; docs/benchmarks.md)."""


class Basis(StrEnum):
    """Where an estimate's match times come from."""

    HISTORY = "history"  # every match: stored matches of the same table
    BUILT_IN_COSTS = "built-in costs"  # every match: the fixed table of the built-in bots' CPU costs
    BOTH = "history and built-in costs"
    NOTHING = "nothing to play"


@dataclass(frozen=True)
class Estimate:
    """The time a run's missing matches take, and what the figure rests on."""

    seconds: float  # wall time of the whole run, start-up included
    match_seconds: float  # the matches' total, before sharing it among the workers
    startup_seconds: float
    workers: int  # the workers that can play at once (no more than the cores)
    basis: Basis
    from_matches: int  # stored matches the history part averages
    by_history: int  # missing matches costed from history
    by_built_in_costs: int  # missing matches costed from the fixed table
    tables_from_costs: tuple[str, ...]  # "game Np" where some match had no stored history

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "basis": self.basis.value, "tables_from_costs": list(self.tables_from_costs)}


def _table_key(game: str, options: Mapping[str, Any], seats: Iterable[str]) -> tuple[str, str, tuple[str, ...]]:
    seats = tuple(seats)
    return game, json.dumps(dict(options), sort_keys=True, default=str), tuple(sorted(seats)) + (str(len(seats)),)


def _history(session: Session, games: set[str]) -> dict[tuple[str, str, tuple[str, ...]], list[float]]:
    """The stored played matches' wall seconds by game, options and bots (as a set, with the table size)."""
    rows = tournament_queries.played_seconds(session, games)
    times: dict[tuple[str, str, tuple[str, ...]], list[float]] = defaultdict(list)
    for game, options_json, seats_json, seconds in rows:
        times[_table_key(game, json.loads(options_json or "{}"), json.loads(seats_json or "[]"))].append(float(seconds))
    return times


def _cores() -> int:
    """The cores this process may run on (its affinity), as the default worker count counts them."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def estimate(session: Session, missing: list[ScheduledMatch], workers: int) -> Estimate:
    """The wall time of playing ``missing`` with ``workers`` workers (see the module docstring)."""
    history = _history(session, {m.game for m in missing})
    total, basis_matches, by_history, used = 0.0, 0, 0, set()
    never: dict[str, None] = {}
    for match in missing:
        key = _table_key(match.game, match.options, (e.ref for e in match.seats))
        stored = history.get(key)
        if stored:
            total += sum(stored) / len(stored)
            by_history += 1
            if key not in used:
                used.add(key)
                basis_matches += len(stored)
        else:
            total += estimated_ms(match) / 1000
            never[f"{match.game} {len(match.seats)}p"] = None
    by_costs = len(missing) - by_history
    basis = (
        Basis.NOTHING
        if not missing
        else Basis.BOTH
        if by_history and by_costs
        else Basis.HISTORY
        if by_history
        else Basis.BUILT_IN_COSTS
    )
    parallel = max(1, min(workers, _cores(), len(missing) or 1))
    seconds = STARTUP_SECONDS + total / parallel if missing else 0.0
    return Estimate(
        seconds=seconds,
        match_seconds=total,
        startup_seconds=STARTUP_SECONDS if missing else 0.0,
        workers=parallel,
        basis=basis,
        from_matches=basis_matches,
        by_history=by_history,
        by_built_in_costs=by_costs,
        tables_from_costs=tuple(never),
    )
