"""The adaptive format's drawn rotations against a neighbour effect they do not balance within a deal.

Each chosen deal of a table is played in the rotations of one order (every bot in every seat once), so who
sits right after whom is the same in every match of the deal. A game where sitting right after one bot is a
disaster gives a deal value far from zero for a pair of equal bots; only the draw of the order, a fresh one
per deal, makes those values average out. These tests read the verdict after every deal, as the adaptive
format does, and check both halves: with drawn orders equal bots are not called ordered (at most 5% of the
runs), and with one fixed order they are, quickly (so the draw is what keeps the verdict right).
"""

from __future__ import annotations

import random

import pytest

from engine import GameFacts, ScoreOrder, WinRule
from ladder.ratings import verdict
from ladder.ratings.trueskill_model import MatchFact, SeatFact
from ladder.seats.roster import Entrant
from tournaments.formats.round_robin import drawn_rotations

TABLE = GameFacts(2, 4, ScoreOrder.HIGHER_IS_BETTER, WinRule.FIRST_RANK, "first rank")
GAMES = {"table": TABLE}
DELTA = verdict.indifference_in_outcomes(1.0)
BOTS = tuple(Entrant(f"b{v}", "1", f"{v:064x}", v, f"b{v}", ("*",)) for v in (1, 2, 3, 4))
EQUAL = ((2, 3), (2, 4), (3, 4))  # bots 2, 3 and 4 are the same bot; bot 1 is better (it never sits after itself)


def deal_matches(number: int, seatings: list[tuple[Entrant, ...]], rng: random.Random) -> list[MatchFact]:
    """One deal: in each seating the bot right after bot 1 (in turn order, round the table) scores 0 and the
    others a random score; ranks by score."""
    facts = []
    for index, seating in enumerate(seatings):
        versions = [e.version_id for e in seating]
        victim = versions[(versions.index(1) + 1) % len(versions)]
        scores = {v: 0.0 if v == victim else rng.uniform(1, 10) for v in versions}
        ranked = sorted(versions, key=lambda v: -scores[v])
        seats = tuple(SeatFact(v, scores[v], ranked.index(v) + 1, False, None) for v in versions)
        facts.append(MatchFact(number * 10 + index + 1, 1, "table", 4, f"c0/table/o0/4p/d{number}", seats))
    return facts


def first_false_call(run: int, drawn: bool, deals: int) -> int | None:
    """The deal after which some pair of the equal bots is first shown ordered (either way) at the strict level
    a five-claim verdict needs, reading after every deal; None if never."""
    rng = random.Random(run)
    ledger = verdict.Ledger(GAMES, DELTA)
    level = verdict.test_level(0.95, len(BOTS))
    for number in range(deals):
        seatings = drawn_rotations(BOTS, rng.getrandbits(64)) if drawn else drawn_rotations(BOTS, 0)
        ledger.add(deal_matches(number, seatings, rng))
        pool = ledger.pool("table/4p")
        if any(max(pool.pair(a, b).above, pool.pair(a, b).below) >= level for a, b in EQUAL):
            return number
    return None


@pytest.mark.slow
def test_equal_bots_are_not_called_ordered_when_each_deal_draws_its_order() -> None:
    runs = 200
    called = sum(first_false_call(run, drawn=True, deals=150) is not None for run in range(runs))
    assert called <= 0.05 * runs


def test_with_one_fixed_order_the_neighbour_effect_would_order_equal_bots() -> None:
    # the same order on every deal: the bot after bot 1 loses every match; the verdict (rightly, for that seating)
    # calls it worse within a few deals. The drawn order is what removes this.
    assert all((found := first_false_call(run, drawn=False, deals=60)) is not None and found < 30 for run in range(5))
