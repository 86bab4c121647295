"""TrueSkill ratings: the package's own numbers, the draw probability from ties, duplicate deals, rerate."""

from __future__ import annotations

import math
import random

import pytest
import trueskill
from sqlmodel import Session, select

from engine import GameFacts, ScoreOrder, WinRule
from ladder.ratings import across_pools as ratings_across_pools
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.trueskill_model import MatchFact, SeatFact, compute, deal_ranks, draw_probability, tie_pairs
from ladder.store.database import open_database
from ladder.store.tables import RatingHistoryRow, RatingRow
from tests.tournaments.conftest import toy  # noqa: F401  (a fixture; db_url is tests/conftest.py's, on each backend)

TABLE = GameFacts(2, 4, ScoreOrder.HIGHER_IS_BETTER, WinRule.FIRST_RANK, "first rank")
SCORED_SOLITAIRE = GameFacts(1, 1, ScoreOrder.HIGHER_IS_BETTER, WinRule.NO_WIN, "none")
GOAL_SOLITAIRE = GameFacts(1, 1, ScoreOrder.HIGHER_IS_BETTER, WinRule.GOAL_MET, "the goal")
TABLES = {"g": TABLE, "h": TABLE}
WITH_SOLITAIRE = TABLES | {"s": SCORED_SOLITAIRE}


def seat(version: int, rank: int, score: float = 0.0, failed: bool = False) -> SeatFact:
    return SeatFact(version, score, rank, failed, None)


def table(match_id: int, *seats: SeatFact, game: str = "g", tournament: int = 1) -> MatchFact:
    return MatchFact(match_id, tournament, game, len(seats), f"d{match_id}", tuple(seats))


def solo(match_id: int, version: int, score: float, deal: str, failed: bool = False) -> MatchFact:
    return MatchFact(match_id, 1, "s", 1, deal, (SeatFact(version, score, 1, failed, None),))


def test_one_event_is_rated_exactly_as_the_trueskill_package_rates_it() -> None:
    for match in (table(1, seat(1, 1), seat(2, 2)), table(1, seat(2, 1), seat(3, 1), seat(1, 3))):
        rated = compute([match], games=TABLES)
        pool = f"g/{len(match.seats)}p"
        draw = rated.draw_probability[pool]
        env = trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=0.0, draw_probability=draw, backend=None)
        new = env.rate([(env.create_rating(),) for _ in match.seats], ranks=[s.rank for s in match.seats])
        for s, (rating,) in zip(match.seats, new):
            standing = rated.standings[pool][s.bot_version_id]
            assert standing.mu == pytest.approx(rating.mu, abs=1e-9) and standing.sigma == pytest.approx(
                rating.sigma, abs=1e-9
            )


def test_ratings_are_a_fixed_point_of_trueskill_over_every_event() -> None:
    """Expectation propagation's fixed point: taking any one event's message out of the ratings and
    rating that event with the package gives the ratings back."""
    matches = [
        table(1, seat(1, 1), seat(2, 2)),
        table(2, seat(2, 1), seat(3, 2)),
        table(3, seat(3, 1), seat(1, 2)),
        table(4, seat(1, 1), seat(2, 2)),
        table(5, seat(1, 1), seat(3, 2)),
        table(6, seat(2, 1), seat(1, 1)),
    ]
    rated = compute(matches, games=TABLES)
    events, standings = ratings_trueskill_model.build_events(sorted(matches, key=lambda m: m.match_id), TABLES)
    env = ratings_trueskill_model.environment(rated.draw_probability["g/2p"])
    estimate, unrated = ratings_trueskill_model.order_free(env, events, standings["g/2p"])
    assert unrated == 0
    assert {v: (s.mu, s.sigma) for v, s in rated.standings["g/2p"].items()} == estimate
    # the one-pass online update in a single order is not the fixed point: the estimates differ from it
    online = {}
    for point in ratings_trueskill_model.online_history(env, "g/2p", events, (1, 2, 3)):
        online[point.bot_version_id] = point.mu
    assert any(abs(online[v] - estimate[v][0]) > 0.05 for v in online)


def test_the_same_matches_in_any_order_give_exactly_the_same_ratings() -> None:
    rng = random.Random(4)
    skill = {1: 30.0, 2: 27.0, 3: 25.0, 4: 21.0}
    matches = []
    for match_id in range(1, 301):
        seats = rng.sample(sorted(skill), rng.choice((2, 3)))
        drawn = [skill[v] + rng.gauss(0, 25 / 6) for v in seats]
        matches.append(table(match_id, *(seat(v, 1 + sum(d > mine for d in drawn)) for v, mine in zip(seats, drawn))))
    first = compute(matches, games=TABLES)
    shuffled = list(matches)
    rng.shuffle(shuffled)
    renumbered = [
        MatchFact(index, m.tournament_id, m.game, m.num_players, m.deal, m.seats)
        for index, m in enumerate(shuffled, start=1)
    ]
    second = compute(renumbered, games=TABLES)
    for pool in ("g/2p", "g/3p"):
        assert {v: (s.mu, s.sigma) for v, s in first.standings[pool].items()} == {
            v: (s.mu, s.sigma) for v, s in second.standings[pool].items()
        }
        assert [s.bot_version_id for s in first.table(pool)] == [1, 2, 3, 4]
    assert first.history != second.history  # only the history follows the order of arrival


def test_draw_probability_is_the_observed_tie_rate() -> None:
    events = [
        ratings_trueskill_model.Event("p", i, (1, 2), ranks, (False, False))
        for i, ranks in enumerate([(1, 1), (1, 2), (2, 1), (1, 2)])
    ]
    assert draw_probability(events) == pytest.approx(0.25)
    assert draw_probability(events[1:]) == ratings_trueskill_model.MIN_DRAW  # no tie: the floor keeps TrueSkill finite
    # two failed seats tied last are not a tie of play
    assert tie_pairs([1, 2, 2], [False, True, True]) == (0, 1)


def test_each_solitaire_deal_is_one_free_for_all_among_its_bots() -> None:
    matches = [
        solo(1, 1, 10, "d1"),
        solo(2, 2, 4, "d1"),
        solo(3, 3, 4, "d1"),
        solo(4, 1, 3, "d2"),
        solo(5, 2, 9, "d2"),
        solo(6, 3, 0, "d2", failed=True),
    ]
    rated = compute(matches, games=WITH_SOLITAIRE)
    draw = rated.draw_probability["s/1p"]
    assert draw == pytest.approx(1 / 4)  # d1: 10 > 4 = 4 (one tie in two pairs); d2: 9 > 3 > failed
    env = trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=0.0, draw_probability=draw, backend=None)
    r = {v: env.create_rating() for v in (1, 2, 3)}
    (r[1],), (r[2],), (r[3],) = env.rate([(r[1],), (r[2],), (r[3],)], ranks=[1, 2, 2])
    (r[1],), (r[2],), (r[3],) = env.rate([(r[1],), (r[2],), (r[3],)], ranks=[2, 1, 3])
    last = {point.bot_version_id: point.mu for point in rated.history}  # the history: one pass in recording order
    for version in (1, 2, 3):
        assert last[version] == r[version].mu
    # the ratings: the same as the two deals rated as two three-player free-for-alls
    as_tables = compute(
        [table(1, seat(1, 1), seat(2, 2), seat(3, 2)), table(2, seat(1, 2), seat(2, 1), seat(3, 3))], games=TABLES
    )
    for version in (1, 2, 3):
        assert rated.standings["s/1p"][version].mu == pytest.approx(as_tables.standings["g/3p"][version].mu, abs=1e-9)
    assert rated.standings["s/1p"][1].mean_score == pytest.approx(6.5)
    # a solitaire scored by points only has no notion of winning: the best score of a deal is no win
    # (it used to count as one here, while `ladder play` said "no win rate": two meanings of a win)
    assert rated.standings["s/1p"][1].wins == 0 and rated.standings["s/1p"][1].win_rate is None


def test_a_solitaire_is_won_only_when_its_goal_is_met_and_never_by_a_failed_seat() -> None:
    matches = [
        MatchFact(1, 1, "s", 1, "d1", (SeatFact(1, 30, 1, False, True),)),
        MatchFact(2, 1, "s", 1, "d1", (SeatFact(2, 10, 1, False, False),)),
        MatchFact(3, 1, "s", 1, "d2", (SeatFact(1, 5, 1, False, False),)),
        MatchFact(4, 1, "s", 1, "d2", (SeatFact(2, 9, 1, True, True),)),
    ]
    rated = compute(matches, games={"s": GOAL_SOLITAIRE})
    assert rated.standings["s/1p"][1].wins == 1 and rated.standings["s/1p"][1].win_rate == pytest.approx(0.5)
    assert rated.standings["s/1p"][2].wins == 0  # d1: goal not met; d2: met, but the seat failed


def test_a_solitaire_deal_ranks_by_the_games_score_order() -> None:
    assert deal_ranks([5, 9, 2], [False, False, False], higher_is_better=False) == (2, 3, 1)


def test_deal_ranks_put_failed_seats_last() -> None:
    assert deal_ranks([5, 9, 9, 100], [False, False, False, True]) == (3, 1, 1, 4)


def test_a_failed_seat_counts_as_a_failure_and_never_as_a_win() -> None:
    rated = compute([table(1, seat(1, 2, failed=True), seat(2, 1))], games=TABLES)
    assert rated.standings["g/2p"][1].failures == 1 and rated.standings["g/2p"][1].wins == 0
    assert rated.standings["g/2p"][2].wins == 1


def test_leaderboard_is_ordered_by_mu_minus_three_sigma() -> None:
    matches = [table(i, seat(1, 1), seat(2, 2)) for i in range(1, 6)] + [table(6, seat(3, 1), seat(2, 2))]
    rated = compute(matches, games=TABLES)
    board = rated.table("g/2p")
    values = [s.conservative for s in board]
    assert values == sorted(values, reverse=True)
    assert board[0].bot_version_id == 1


def test_overall_score_is_the_mean_share_over_the_pools_played() -> None:
    matches = [table(i, seat(1, 1), seat(2, 2)) for i in range(1, 4)]
    matches += [MatchFact(10 + i, 1, "h", 2, "x", (seat(2, 1), seat(3, 2))) for i in range(3)]
    rated = compute(matches, games=TABLES)
    overall = {row.bot_version_id: row for row in ratings_across_pools.overall(rated)}
    # above bot 2 in g, absent from h: a pool it does not play does not count against it (issue 17)
    assert overall[1].score == pytest.approx(1.0) and overall[1].pools == 1
    assert overall[2].score == pytest.approx((0.0 + 1.0) / 2) and overall[2].pools == 2
    assert overall[3].score == 0.0 and overall[3].pools == 1
    assert [row.bot_version_id for row in ratings_across_pools.overall(rated)] == [1, 2, 3]


@pytest.mark.usefixtures("toy")
def test_rerate_reproduces_the_stored_ratings(db_url: str) -> None:
    from tournaments.coordinator.run_options import RunOptions
    from tournaments.coordinator.runner import run_tournament
    from tournaments.formats.config import parse_tournament

    cfg = parse_tournament(
        {
            "seed": 5,
            "games": ["toy-coins", "toy-solo"],
            "bots": ["random", "greedy"],
            "games_per_pairing": 5,
            "game": {"toy-coins": {"players": [2]}},
        },
        "r.toml",
        "r",
    )
    run_tournament(
        cfg, RunOptions(db_url=db_url, workers=2, progress=False, worker_setup="tests.tournaments.toygames:install")
    )
    engine = open_database(db_url)
    with Session(engine) as session:

        def snapshot():
            stored = sorted(
                (r.pool, r.bot_version_id, r.mu, r.sigma, r.matches, r.wins, r.draw_probability)
                for r in session.exec(select(RatingRow)).all()
            )
            history = sorted(
                (h.pool, h.event, h.match_id, h.bot_version_id, h.mu, h.sigma)
                for h in session.exec(select(RatingHistoryRow)).all()
            )
            return stored, history

        # the end of a run stores the standings, not the history (nine tenths of the work; the report computes it)
        before = snapshot()
        assert before[0] and not before[1]
        computed_history = ratings_persistence.rating_history(session)
        assert computed_history
        ratings_persistence.rerate(session)
        assert snapshot() == before
        # `ladder rerate` stores the history too: the same points the report computed without it
        ratings_persistence.rerate(session, history=True)
        with_history = snapshot()
        assert with_history[0] == before[0] and with_history[1]
        assert ratings_persistence.rating_history(session) == computed_history
        stored, fresh = ratings_persistence.current(session)
        assert fresh
        computed = ratings_persistence.rate_database(session)
        for pool in computed.pools():
            for version, standing in computed.standings[pool].items():
                assert math.isclose(stored.standings[pool][version].mu, standing.mu, rel_tol=0, abs_tol=0)
    engine.dispose()


def test_the_closed_form_duel_is_the_packages_two_player_update() -> None:
    rng = random.Random(2)
    for draw in (0.001, 0.1, 0.5):
        env = ratings_trueskill_model.environment(draw)
        for _ in range(200):
            a = trueskill.Rating(rng.uniform(10, 40), rng.uniform(0.1, 9))
            b = trueskill.Rating(rng.uniform(10, 40), rng.uniform(0.1, 9))
            ranks = rng.choice([(1, 2), (2, 1), (1, 1)])
            for (package,), (mine,) in zip(
                env.rate([(a,), (b,)], ranks=list(ranks)), ratings_trueskill_model.duel(env, a, b, *ranks)
            ):
                assert mine.mu == pytest.approx(package.mu, abs=1e-9) and mine.sigma == pytest.approx(
                    package.sigma, abs=1e-9
                )


def test_bots_with_the_same_record_share_the_overall_score() -> None:
    """Two bots that each won half of their mirrored matches have the same rating up to the propagation's
    tolerance (either may come out 1e-8 ahead): the overall score counts them as tied, not 1 and 0."""
    matches = [table(2 * i + 1 + k, seat(1 + k, 1), seat(2 - k, 2)) for i in range(26) for k in (0, 1)]
    rated = compute(matches, games=TABLES)
    first, second = rated.table("g/2p")
    assert first.conservative == pytest.approx(second.conservative, abs=1e-6)
    assert {row.bot_version_id: row.score for row in ratings_across_pools.overall(rated)} == {1: 0.5, 2: 0.5}
    # and the leaderboard orders them by version id, not by which came out 1e-8 ahead (here the second one)
    assert [first.bot_version_id, second.bot_version_id] == [1, 2]
