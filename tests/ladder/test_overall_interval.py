"""The overall score lies inside its own 95% interval (issue 24): both count only the pools a version played."""

from __future__ import annotations

from ladder.ratings.across_pools import overall
from ladder.ratings.certainty import overall_intervals
from ladder.ratings.trueskill_model import RatingSet, Standing


def standing(pool: str, version: int, mu: float, sigma: float) -> Standing:
    game, players = pool.split("/")
    return Standing(pool, game, int(players.removesuffix("p")), version, mu=mu, sigma=sigma, matches=30)


def test_a_new_version_that_played_one_pool_of_five_has_its_score_inside_its_interval() -> None:
    pools = [f"g{i}/2p" for i in range(5)]
    rated = RatingSet()
    for pool in pools:
        rated.standings[pool] = {1: standing(pool, 1, 30.0, 1.0), 2: standing(pool, 2, 20.0, 1.0)}
    rated.standings[pools[0]][3] = standing(pools[0], 3, 40.0, 1.0)  # the new version: one pool, the best there
    rows = {row.bot_version_id: row for row in overall(rated)}
    intervals = overall_intervals(rated, samples=400)
    assert rows[3].score == 1.0 and rows[3].pools == 1
    for version, row in rows.items():
        assert intervals[version].low <= row.score <= intervals[version].high, (version, row, intervals[version])
