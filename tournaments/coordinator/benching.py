"""Benching: a bot version that keeps failing in a pool sits out the rest of the tournament there.

A bot version that fails ``limits.bench_after_failures`` played matches in a
row in one bench pool (a game, option set and player count,
:class:`~ladder.ratings.pools.PoolKey`) is benched there: its remaining matches in
that pool are recorded as skipped, with the reason, and its matches in other
pools go on. Benches are stored (``BenchRow``), so a resumed tournament
keeps them; the streaks of failures are counted per run.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from sqlmodel import Session

from ladder.matches.match import SeatFailure
from ladder.ratings.pools import PoolKey
from ladder.seats.roster import Entrant
from ladder.store import tournament_queries
from ladder.text import clean_text
from tournaments.formats.round_robin import ScheduledMatch

log = logging.getLogger("ladder.tournament")

Where = tuple[int, PoolKey]  # a bot version in a bench pool


class BenchPolicy:
    """Who is benched where, and the streaks of failures that bench a bot."""

    def __init__(self, limit: int, benched: Mapping[Where, str] | None = None) -> None:
        self.limit = limit
        self.benched: dict[Where, str] = dict(benched or {})
        self.streaks: dict[Where, int] = {}
        self.new_this_run: dict[str, str] = {}  # "<bot> in <pool>" -> reason: the benches of this run, for its report

    @classmethod
    def load(cls, session: Session, tournament_id: int, limit: int) -> BenchPolicy:
        """The policy of a tournament, with the benches it has stored."""
        rows = tournament_queries.benches(session, tournament_id)
        return cls(limit, {(row.bot_version_id, PoolKey.parse(row.pool)): row.reason for row in rows})

    def __len__(self) -> int:
        return len(self.benched)

    def benched_seats(self, match: ScheduledMatch) -> dict[int, str]:
        """The seats of ``match`` whose bot is benched in its pool, with the reason (empty: play it)."""
        return {
            seat: self.benched[(entrant.version_id, match.pool)]
            for seat, entrant in enumerate(match.seats)
            if (entrant.version_id, match.pool) in self.benched
        }

    def benched_in(self, entrant: Entrant, game: str, players: int) -> bool:
        """Whether ``entrant`` is benched in any option set of ``game`` at ``players`` (the adaptive format's pools)."""
        rating_pool = PoolKey(game, players)
        return any(version == entrant.version_id and pool.rating_pool == rating_pool for version, pool in self.benched)

    def observe(self, match: ScheduledMatch, failures: Mapping[int, SeatFailure]) -> dict[Where, str]:
        """Count the failures of a played match; the benches it causes, with their reasons."""
        new: dict[Where, str] = {}
        for seat, entrant in enumerate(match.seats):
            where = (entrant.version_id, match.pool)
            if seat not in failures:
                self.streaks[where] = 0
                continue
            self.streaks[where] = self.streaks.get(where, 0) + 1
            if self.streaks[where] >= self.limit and where not in self.benched:
                failure = failures[seat]
                reason = clean_text(
                    f"failed {self.streaks[where]} matches in a row in {match.pool}; last in "
                    f"{match.key}: {failure.reason}: {failure.detail}",
                    one_line=True,
                )[:1000]
                self.benched[where] = new[where] = reason
                self.new_this_run[f"{entrant.label} in {match.pool}"] = reason
                log.warning("benched %s in %s for the rest of the tournament: %s", entrant.label, match.pool, reason)
        return new
