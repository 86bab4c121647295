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


def test_a_bot_with_a_high_mu_and_a_wide_sigma_has_its_score_inside_its_interval() -> None:
    """The score ranks by mu - 3 sigma; the interval drew bare skills around mu, another quantity. A bot with the
    highest mu but the widest sigma scored 0.5 (second by mu - 3 sigma) with an interval of about 0.7-1.0 (first by
    drawn skill, mostly): the walk found 4 of 8 scores of a real database outside their intervals."""
    pools = [f"g{i}/2p" for i in range(5)]
    rated = RatingSet()
    for pool in pools:
        rated.standings[pool] = {
            1: standing(pool, 1, 30.0, 1.0),  # mu - 3 sigma = 27: first
            2: standing(pool, 2, 32.0, 3.0),  # 23: second, though its mu is the highest
            3: standing(pool, 3, 20.0, 1.0),  # 17: last
        }
    rows = {row.bot_version_id: row for row in overall(rated)}
    assert {v: row.score for v, row in rows.items()} == {1: 1.0, 2: 0.5, 3: 0.0}
    intervals = overall_intervals(rated, samples=400)
    for version, row in rows.items():
        assert intervals[version].low <= row.score <= intervals[version].high, (version, row, intervals[version])
