"""Longest matches first: the order a cycle's deal groups are handed to the workers.

A pool of workers that takes matches in a random order ends with a tail: the
last long match (a search bot's Bowling Solitaire takes about 1.8 s of CPU, a
random bot's Elevenses 8 ms) starts when the others are nearly done, and
every other worker idles until it ends. Handing out the longest first
(the classic longest-processing-time rule) leaves only short matches for the
end, so the workers finish together.

The lengths are estimates from a fixed table (:data:`ENGINE_MS`,
:data:`SEAT_MS`), measured once on a 2-core x86-64 VM (CPU milliseconds per
match, built-in bots, default options; ``tests/bench/bench_tournament.py``
prints the real figures). Only the order matters, so a rough table does:
errors of a factor of two between two short groups change nothing that
matters. A fixed table keeps the schedule a pure function of the tournament
file (the same order on every machine and every resume); a bot the table
does not know (a submitted bot) is assumed to cost as much as the game's
search bot, so it starts early rather than late (overestimating a short
match costs nothing; underestimating a long one leaves a tail).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bots.registry import bot_names

if TYPE_CHECKING:  # formats calls this module: no import cycle at run time
    from tournaments.formats.round_robin import ScheduledMatch

ENGINE_MS: dict[str, float] = {
    "bowling-solitaire": 10.0,
    "elevenses": 8.0,
    "elevenses-for-one": 1.0,
    "elfer-raus": 6.0,
}
"""CPU milliseconds of a match of random bots at two players (one in a solitaire): the engine's own work.
Both parts grow about in proportion to the number of opponents (a third seat doubles a match's length)."""


SEAT_MS: dict[str, dict[str, float]] = {
    "bowling-solitaire": {"search": 1800.0},
    "elevenses": {"search": 450.0},
    "elevenses-for-one": {"search": 650.0},
    "elfer-raus": {"search": 1400.0},
}
"""CPU milliseconds one seat of a built-in bot adds to a two-player match (one in a solitaire) beyond the engine's
work; the other built-in bots (random, thumb and its handicapped versions) answer at once: nothing."""

DEFAULT_ENGINE_MS = 10.0
"""A game the table does not know."""


def seat_cost(game: str, ref: str) -> float:
    """The estimated CPU milliseconds one seat of the bot ``ref`` adds to a two-player match of ``game``."""
    costs = SEAT_MS.get(game, {})
    if ref in costs:
        return costs[ref]
    if ref in bot_names():
        return 0.0
    return max(costs.values(), default=DEFAULT_ENGINE_MS * 10)  # a submitted bot: assume it thinks


def estimated_ms(match: ScheduledMatch) -> float:
    """The estimated CPU milliseconds of one match (engine plus seats)."""
    per_opponent = ENGINE_MS.get(match.game, DEFAULT_ENGINE_MS) + sum(seat_cost(match.game, e.ref) for e in match.seats)
    return per_opponent * max(1, len(match.seats) - 1)


def longest_first(groups: Sequence[Sequence[ScheduledMatch]]) -> list[list[ScheduledMatch]]:
    """The groups in decreasing order of their longest match (a stable sort: equal ones keep their order).

    By the longest match, not the group's sum: a group's seatings go to
    different workers, so what leaves a tail is its longest single match.
    """
    return sorted(
        (list(group) for group in groups), key=lambda group: -max((estimated_ms(m) for m in group), default=0.0)
    )
