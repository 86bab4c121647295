"""One overall table across pools: each bot's share of the pools it leads or is rated in."""

from __future__ import annotations

from dataclasses import dataclass

from ladder.ratings.ordering import compared
from ladder.ratings.trueskill_model import RatingSet, Standing


@dataclass(frozen=True)
class OverallRow:
    bot_version_id: int
    score: float
    pools: int  # pools it played
    mean_conservative: float


def overall(rated: RatingSet) -> list[OverallRow]:
    """The overall leaderboard across pools (see :data:`OVERALL_METHOD`)."""
    versions = sorted({v for table in rated.standings.values() for v in table})
    shares: dict[int, list[float]] = {v: [] for v in versions}
    for pool in rated.pools():
        table = rated.standings[pool]
        for version in versions:
            if version in table:
                shares[version].append(_share_above(table, version))
    rows = []
    for version in versions:
        played = [table[version] for table in rated.standings.values() if version in table]
        rows.append(
            OverallRow(
                version,
                sum(shares[version]) / len(shares[version]) if shares[version] else 0.0,
                len(played),
                sum(s.conservative for s in played) / len(played) if played else 0.0,
            )
        )
    rows.sort(key=lambda r: (-r.score, -r.mean_conservative, r.bot_version_id))
    return rows


def _share_above(table: dict[int, Standing], version: int) -> float:
    """The share of a pool's other bot versions that ``version`` is above by mu - 3 sigma, ties counting half;
    alone in its pool it is above everyone (1.0)."""
    mine = table[version]
    others = [s for v, s in table.items() if v != version]
    if not others:
        return 1.0
    above = sum(_above(compared(mine.conservative), compared(o.conservative)) for o in others)
    return above / len(others)


def _above(mine: float, theirs: float) -> float:
    """1 above, 0.5 tied (equal as ratings are compared, :func:`~ladder.ratings.ordering.compared`: the
    leaderboard's rule), 0 below."""
    return 0.5 if mine == theirs else 1.0 if mine > theirs else 0.0
