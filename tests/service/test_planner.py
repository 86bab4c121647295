"""The served ladder's choices: placement first, fair shares between authors, nothing for a settled pool."""

from __future__ import annotations

from collections import Counter

from ladder.ratings.trueskill_model import RatingSet, Standing
from ladder.seats.roster import Entrant
from service.background.planner import Candidate, FieldEntry, RoundBuilder, fair_share, history_from, plan_round

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
    from service.background.planner import refresh_round

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


def test_what_is_settled_is_the_paired_verdict_the_pages_show_not_the_posteriors() -> None:
    """The served pages judge a pool by the paired sequential verdict; so does the planner (given the served
    matches' evidence, as the scheduler gives it). Here the two disagree both ways."""
    from ladder.ratings import certainty
    from ladder.ratings.trueskill_model import MatchFact, SeatFact

    field = [entry(1, 10), entry(2, 20)]
    rows = [("elevenses/2p", n, True, [1, 2]) for n in range(2)]
    facts: list[MatchFact] = []
    for deal in range(40):  # bot 1 ahead of bot 2 on every deal, from either seat
        for seating in ((1, 2), (2, 1)):
            seats = tuple(SeatFact(v, 10.0 if v == 1 else 0.0, 1 if v == 1 else 2, False, None) for v in seating)
            facts.append(MatchFact(len(facts) + 1, 1, "elevenses", 2, f"c0/elevenses/o0/2p/d{deal}", seats))
    shown = certainty.paired_evidence(facts)
    close = RatingSet()  # posteriors that cannot tell the two apart
    close.standings["elevenses/2p"] = {
        1: Standing("elevenses/2p", "elevenses", 2, 1, 25.0, 5.0),
        2: Standing("elevenses/2p", "elevenses", 2, 2, 24.0, 5.0),
    }
    planner = builder(rows, {1: 10, 2: 20})
    assert certainty.assess(
        [close.standings["elevenses/2p"][v] for v in (1, 2)], "elevenses/2p", evidence=shown.pool("elevenses/2p")
    ).settled
    assert planner.certainty_deals("elevenses/2p", field, close, evidence=shown.pool("elevenses/2p")) == []
    assert plan_round(planner, field, close, size=8, evidence=shown) == []
    assert plan_round(planner, field, close, size=8)  # by the posteriors alone it would go on playing
    # posteriors far apart, but no paired deal yet: the pages say "not yet", and the planner plays
    apart = RatingSet()
    apart.standings["elevenses/2p"] = {
        1: Standing("elevenses/2p", "elevenses", 2, 1, 40.0, 0.5),
        2: Standing("elevenses/2p", "elevenses", 2, 2, 10.0, 0.5),
    }
    nothing = certainty.paired_evidence([])
    assert plan_round(builder(rows, {1: 10, 2: 20}), field, apart, size=8) == []
    assert plan_round(builder(rows, {1: 10, 2: 20}), field, apart, size=8, evidence=nothing)


def test_certainty_deals_are_played_in_drawn_rotations_and_placement_in_every_seating() -> None:
    field = [entry(1, 10), entry(2, 20), entry(3, 30)]
    placement = [c for c in plan_round(builder(), field, RatingSet(), size=100) if c.pool == "elevenses/3p"]
    assert placement and all(len(c.matches) == 6 for c in placement)  # 3! seatings
    met = [(pool, n, True, [1, 2, 3]) for pool in ("elevenses/2p", "elevenses/3p") for n in range(2)]
    met += [("elevenses/2p", 2 + n, True, list(pair)) for n, pair in enumerate(((1, 2), (1, 3), (2, 3)) * 2)]
    close = RatingSet()
    close.standings["elevenses/3p"] = {
        v: Standing("elevenses/3p", "elevenses", 3, v, 25.0 - v / 10, 5.0) for v in (1, 2, 3)
    }
    chosen = [
        c for c in plan_round(builder(met, {1: 10, 2: 20, 3: 30}), field, close, size=30) if c.pool == "elevenses/3p"
    ]
    assert chosen and not any(c.placement for c in chosen)
    orders = set()
    for candidate in chosen:
        seatings = [tuple(e.version_id for e in m.seats) for m in candidate.matches]
        assert len(seatings) == 3 and all(len({s[seat] for s in seatings}) == 3 for seat in range(3))
        first = seatings[0]
        assert set(seatings) == {first[i:] + first[:i] for i in range(3)}  # the rotations of one order
        orders.add(min(seatings))
    assert len({c.number for c in chosen}) == len(chosen)
    assert orders == {(1, 2, 3), (1, 3, 2)}  # drawn per deal: not one fixed order for every deal of the table


def test_the_planner_reads_the_leaderboard_in_the_pages_order_when_ratings_tie_as_compared() -> None:
    """Two bots with the same record come out of the propagation 1e-8 apart, either way: the pages order them by
    version id (RatingSet.table); the planner's adjacent pairs must be the pages' pairs, not the noise's."""
    field = [entry(1, 10), entry(2, 20), entry(3, 30)]
    rows = [("elevenses/2p", n, True, [a, b]) for n in range(2) for a, b in ((1, 2), (1, 3), (2, 3))]
    rated = RatingSet()
    rated.standings["elevenses/2p"] = {
        1: Standing("elevenses/2p", "elevenses", 2, 1, 25.0, 5.0),
        2: Standing("elevenses/2p", "elevenses", 2, 2, 25.0 + 1e-8, 5.0),  # ahead by the propagation's noise
        3: Standing("elevenses/2p", "elevenses", 2, 3, 24.0, 5.0),
    }
    shown = [s.bot_version_id for s in rated.table("elevenses/2p")]
    assert shown == [1, 2, 3]
    pages_pairs = {frozenset(pair) for pair in zip(shown, shown[1:])}
    chosen = builder(rows, {1: 10, 2: 20, 3: 30}).certainty_deals("elevenses/2p", field, rated)
    assert {frozenset(e.version_id for e in c.matches[0].seats) for c in chosen} == pages_pairs


def _played(chosen: list[Candidate], start: int = 0) -> list:  # type: ignore[type-arg]
    """Each planned match as a recorded fact: the lower version id always ahead (a known order)."""
    from ladder.ratings.trueskill_model import MatchFact, SeatFact

    facts = []
    for candidate in chosen:
        for match in candidate.matches:
            ranked = sorted(e.version_id for e in match.seats)
            seats = tuple(
                SeatFact(e.version_id, 10.0 - ranked.index(e.version_id), 1 + ranked.index(e.version_id), False, None)
                for e in match.seats
            )
            facts.append(MatchFact(start + len(facts) + 1, 1, match.game, len(match.seats), match.deal, seats))
    return facts


def test_house_bots_alone_play_and_every_open_pool_gets_a_deal_each_round() -> None:
    """Issue 35: a ladder of house bots alone played nothing (every pool without an author's bot was skipped),
    and house-only tables won every round on fair share while ties went by pool name, so some pools starved."""
    from service.background.planner import pools_of

    house = [entry(v, None, ("elevenses", "elfer-raus")) for v in (1, 2, 3)]
    pools = pools_of(house)
    assert set(pools) == {"elevenses/2p", "elevenses/3p", "elfer-raus/2p", "elfer-raus/3p"}
    chosen = plan_round(builder(), house, RatingSet(), size=4, evidence=_ledger([]))
    assert {c.pool for c in chosen} == set(pools)  # a round far smaller than the pools' deals still reaches each
    # with an author's bot beside them: placement for it, and the house-only pool keeps its turn
    field = [*house, entry(4, 40, ("elevenses",))]
    rows = [("elevenses/2p", 0, True, [4, v]) for v in (1, 2, 3)] + [
        ("elevenses/2p", 1, True, [4, v]) for v in (1, 2, 3)
    ]
    chosen = plan_round(builder(rows, {4: 40}), field, RatingSet(), size=4, evidence=_ledger([]))
    assert {c.pool for c in chosen} >= {"elfer-raus/2p", "elfer-raus/3p", "elevenses/2p"}


def test_the_pool_with_fewest_deals_takes_the_first_turn() -> None:
    house = [entry(v, None, ("elevenses", "elfer-raus")) for v in (1, 2)]
    rows = [("elevenses/2p", n, False, [1, 2]) for n in range(50)]
    chosen = plan_round(builder(rows), house, RatingSet(), size=1, evidence=_ledger([]))
    assert [c.pool for c in chosen][:1] == ["elfer-raus/2p"] and {c.pool for c in chosen} == {
        "elevenses/2p",
        "elfer-raus/2p",
    }


def _ledger(facts: list) -> object:  # type: ignore[type-arg]
    from ladder.ratings import certainty

    return certainty.paired_evidence(facts)


def test_the_planned_deals_are_shared_deals_of_each_open_adjacent_pair_as_the_verdict_reads_them() -> None:
    """Issue 35: the pages read "not yet ... after 0 shared deals" after 2,000 served matches. Every certainty
    deal the planner writes must count, in the verdict the pages read, as one shared deal of each pair at its
    table, and round after round the known order settles."""
    from ladder.ratings import certainty
    from ladder.ratings.trueskill_model import compute
    from ladder.views.leaderboard import field_verdict

    field = [entry(v, None, ("elevenses",)) for v in (4, 3, 2, 1)]
    facts: list = []  # type: ignore[type-arg]
    rows: list[tuple[str, int, bool, list[int]]] = []
    rounds = 0
    for _ in range(60):
        planner = builder(rows)
        shown = certainty.paired_evidence(facts)
        chosen = plan_round(planner, field, compute(facts, history=False), size=8, evidence=shown)
        pool = planner.verdicts["elevenses/2p"]
        if not chosen:
            break
        rounds += 1
        before = {(p.upper, p.lower): shown.pool("elevenses/2p").pair(p.upper, p.lower).deals for p in pool.pairs}
        new = _played(chosen, len(facts))
        facts += new
        rows += [(c.pool, c.number, c.placement, [e.version_id for e in m.seats]) for c in chosen for m in c.matches]
        after = certainty.paired_evidence(facts).pool("elevenses/2p")
        for c in chosen:
            if c.pool == "elevenses/2p":
                a, b = (e.version_id for e in c.matches[0].seats)
                pair = (a, b) if (a, b) in before else (b, a)
                if pair in before:  # an open adjacent pair's deal: one more shared deal of it, at least
                    assert after.pair(*pair).deals > before[pair]
    assert 0 < rounds < 60  # it played, and stopped because every pool settled
    shown, rated = certainty.paired_evidence(facts), compute(facts, history=False)
    for pool in ("elevenses/2p", "elevenses/3p", "elevenses/4p"):
        verdict = field_verdict(rated, pool, [1, 2, 3, 4], shown.pool(pool))
        assert verdict.settled and list(verdict.order) == [1, 2, 3, 4], (pool, verdict.reason)


def test_a_served_ladder_of_house_bots_alone_plans_deals_and_its_status_reads_the_same_verdict(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: `ladder serve --house thumb,...` alone played nothing while /api/status said "idle: every
    leaderboard is settled". Through the served loop's own planning on a real database."""
    from ladder.matches.deals import DealSecret
    from service.background.scheduler import ServeLoop, idle_status, serve_tournament
    from service.db import open_service_database
    from service.settings import ServeSettings
    from tournaments.coordinator.loop import StopSignals

    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    loop = ServeLoop(engine, ServeSettings(house_bots=("thumb", "thumb-50", "random"), workers=1), StopSignals())
    loop.tournament = serve_tournament(loop.session)
    assert loop.tournament.id is not None and loop.tournament.deal_secret is not None
    loop.tournament_id, loop.secret = loop.tournament.id, DealSecret.from_hex(loop.tournament.deal_secret).value
    matches = loop._plan()
    assert matches
    assert loop.verdicts and not any(v.settled for v in loop.verdicts.values())
    planned_pools = {f"{m.game}/{len(m.seats)}p" for m in matches if len(m.seats) > 1}
    assert planned_pools == {pool for pool in loop.verdicts if not pool.endswith("/1p")}  # every pool a deal
    status = idle_status(loop.verdicts)
    assert "not yet settled" in status and "every leaderboard is settled" not in status
    assert idle_status({}) == "idle: no two bots share a pool"
    loop.session.close()
    engine.dispose()
