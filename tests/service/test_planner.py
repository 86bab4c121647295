"""The served ladder's choices: placement first, fair shares between authors, nothing for a settled pool."""

from __future__ import annotations

from collections import Counter

from ladder.ratings.trueskill_model import RatingSet, Standing
from ladder.seats.roster import Entrant
from service.planner import Candidate, FieldEntry, RoundBuilder, fair_share, history_from, plan_round

SECRET = b"s" * 32


def entry(version: int, author: int | None, games: tuple[str, ...] = ("elevenses",)) -> FieldEntry:
    name = f"bot{version}"
    return FieldEntry(Entrant(name, "1", f"{version:064x}", version, f"store:{version:064x}", games), author)


def builder(rows: list[tuple[str, int, bool, list[int]]] = (), authors: dict[int, int] | None = None) -> RoundBuilder:  # type: ignore[assignment]
    return RoundBuilder(
        SECRET, history_from(list(rows), authors or {}), placement_deals=2, confidence=0.95, indifference=1.0
    )


def test_a_new_version_meets_every_bot_of_its_pools_first_in_every_seating() -> None:
    field = [entry(1, 10), entry(2, 20), entry(3, 30)]
    chosen = plan_round(builder(), field, RatingSet(), size=100)
    placement = [c for c in chosen if c.placement]
    assert placement and all(c.placement for c in chosen)
    pairs = Counter(frozenset(e.version_id for e in c.matches[0].seats) for c in placement if c.pool == "elevenses/2p")
    assert set(pairs) == {frozenset({1, 2}), frozenset({1, 3}), frozenset({2, 3})}
    for candidate in placement:  # each deal in all its seatings, on one deal
        assert len({m.seed for m in candidate.matches}) == 1
        assert len(candidate.matches) >= len(candidate.matches[0].seats)
    assert {c.pool for c in placement} == {"elevenses/2p", "elevenses/3p"}  # a pool needs as many bots as seats


def test_placement_is_over_once_every_pair_has_met_enough() -> None:
    field = [entry(1, 10), entry(2, 20)]
    rows = [("elevenses/2p", n, True, [1, 2]) for n in range(2)]
    chosen = builder(rows, {1: 10, 2: 20}).placement("elevenses/2p", field)
    assert chosen == []
    late = builder(rows[:1], {1: 10, 2: 20}).placement("elevenses/2p", field)
    assert len(late) == 1 and late[0].number == 1  # deal numbers go on from what was planned


def test_a_settled_pool_plays_nothing_and_an_open_one_plays_its_open_pair() -> None:
    field = [entry(1, 10), entry(2, 20)]
    rows = [("elevenses/2p", n, True, [1, 2]) for n in range(2)]
    settled = RatingSet()
    settled.standings["elevenses/2p"] = {
        1: Standing("elevenses/2p", "elevenses", 2, 1, 40.0, 0.5),
        2: Standing("elevenses/2p", "elevenses", 2, 2, 10.0, 0.5),
    }
    assert builder(rows, {1: 10, 2: 20}).certainty_deals("elevenses/2p", field, settled) == []
    assert plan_round(builder(rows, {1: 10, 2: 20}), field, settled, size=8) == []
    close = RatingSet()
    close.standings["elevenses/2p"] = {
        1: Standing("elevenses/2p", "elevenses", 2, 1, 25.0, 5.0),
        2: Standing("elevenses/2p", "elevenses", 2, 2, 24.0, 5.0),
    }
    chosen = plan_round(builder(rows, {1: 10, 2: 20}), field, close, size=8)
    assert chosen and sum(len(c.matches) for c in chosen) >= 8 and len({c.number for c in chosen}) == len(chosen)


def test_fair_shares_give_the_author_with_fewer_seats_the_next_deal() -> None:
    def candidate(number: int, authors: tuple[int, ...]) -> Candidate:
        return Candidate("elevenses/2p", number, (None, None), False, authors)  # type: ignore[arg-type]

    many = [candidate(n, (1, 1)) for n in range(6)]  # author 1 has six bots' worth of deals waiting
    few = [candidate(10 + n, (2, 9)) for n in range(2)]
    chosen = fair_share(many + few, {1: 0, 2: 0, 9: 0}, size=6)
    assert [c.authors for c in chosen].count((2, 9)) == 2  # author 2's deals are not crowded out
    assert fair_share(many + few, {1: 100, 2: 0, 9: 0}, size=4)[0].authors == (2, 9)


def test_a_settled_ladder_refreshes_with_one_deal_around_its_least_certain_pair() -> None:
    from service.planner import refresh_round

    field = [entry(1, 10), entry(2, 20), entry(3, 30)]
    settled = RatingSet()
    settled.standings["elevenses/2p"] = {
        v: Standing("elevenses/2p", "elevenses", 2, v, mu, 0.5) for v, mu in ((1, 40.0), (2, 30.0), (3, 28.0))
    }
    settled.standings["elevenses/3p"] = {
        v: Standing("elevenses/3p", "elevenses", 3, v, mu, 0.5) for v, mu in ((1, 40.0), (2, 30.0), (3, 20.0))
    }
    assert builder().certainty_deals("elevenses/2p", field, settled) == []
    chosen = refresh_round(builder(), field, settled)
    two = [c for c in chosen if c.pool == "elevenses/2p"]
    assert len(two) == 1 and {e.version_id for e in two[0].matches[0].seats} == {2, 3}  # 30 vs 28: the closest
    assert {c.pool for c in chosen} == {"elevenses/2p", "elevenses/3p"}
