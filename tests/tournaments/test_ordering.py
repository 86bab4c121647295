"""Longest matches first: a cycle hands out its long matches before its short ones, so no long one is left last."""

from __future__ import annotations

from ladder.matches.deals import DealSecret
from ladder.seats.roster import Entrant
from tournaments.formats.match_order import SEAT_MS, estimated_ms, longest_first
from tournaments.formats.round_robin import GamePlan, cycle_schedule, round_robin_groups

SECRET = DealSecret.from_hex("5e" * 32).value


def entrant(name: str, ref: str | None = None, number: int = 0) -> Entrant:
    return Entrant(name, "1", f"{number:064x}", number + 1, ref or name, ("*",))


BUILT_IN = (entrant("random", number=1), entrant("search", number=2), entrant("thumb", number=3))


def test_a_cycle_hands_out_the_search_matches_first_and_the_cheap_ones_last() -> None:
    plans = [
        GamePlan("elevenses", (2, 3), ({},), 2, BUILT_IN),
        GamePlan("bowling-solitaire", (1,), ({},), 2, BUILT_IN),
        GamePlan("elfer-raus", (2,), ({},), 2, BUILT_IN),
    ]
    order = cycle_schedule("round-robin", plans, 7, 0, SECRET)
    groups: list[list] = []  # consecutive matches of one deal and table: the groups as handed out
    for match in order:
        table = frozenset(e.name for e in match.seats) if len(match.seats) > 1 else None
        if groups and groups[-1][0] == match.deal and groups[-1][1] == table:
            groups[-1][2].append(match)
        else:
            groups.append([match.deal, table, [match]])
    with_search = [any(e.name == "search" for m in group for e in m.seats) for _deal, _table, group in groups]
    # every group with a search bot comes before every group without one
    assert with_search == sorted(with_search, reverse=True)
    assert any(with_search) and not all(with_search)
    longest = [max(estimated_ms(m) for m in group) for _deal, _table, group in groups]
    assert longest == sorted(longest, reverse=True)
    assert len(order) == sum(len(g) for p in plans for g in round_robin_groups(p, SECRET, 0))


def test_equal_estimates_keep_the_seeded_mix() -> None:
    # random and thumb only: every group of a game costs the same, so the seeded shuffle decides, as before
    cheap = (BUILT_IN[0], BUILT_IN[2])
    plans = [GamePlan("elevenses", (2,), ({},), 6, cheap)]
    one = [m.key for m in cycle_schedule("round-robin", plans, 7, 0, SECRET)]
    other = [m.key for m in cycle_schedule("round-robin", plans, 8, 0, SECRET)]
    assert sorted(one) == sorted(other) and one != other  # the public seed still orders them


def test_a_submitted_bot_is_assumed_to_think_as_long_as_the_search_bot() -> None:
    submitted = entrant("mybot", ref="store:" + "ab" * 32, number=9)
    groups = round_robin_groups(GamePlan("elevenses", (2,), ({},), 1, (BUILT_IN[0], BUILT_IN[2], submitted)), SECRET, 0)
    ordered = longest_first(groups)
    assert any(e.ref.startswith("store:") for e in ordered[0][0].seats)  # its tables first
    assert estimated_ms(ordered[0][0]) >= SEAT_MS["elevenses"]["search"]
    assert not any(e.ref.startswith("store:") for e in ordered[-1][0].seats)


def test_a_third_seat_makes_a_match_longer() -> None:
    two = [m for g in round_robin_groups(GamePlan("elevenses", (2,), ({},), 1, BUILT_IN), SECRET, 0) for m in g]
    three = [m for g in round_robin_groups(GamePlan("elevenses", (3,), ({},), 1, BUILT_IN), SECRET, 0) for m in g]
    assert min(estimated_ms(m) for m in three) > min(estimated_ms(m) for m in two)
