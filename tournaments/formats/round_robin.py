"""Schedule formats: which matches a tournament plays, derived from its seed.

Round-robin: for a 2-player table every pairing of bots, for a larger table
every combination of bots; each table plays each deal in a balanced set of
seatings (:func:`balanced_seatings`: every bot sits in every seat equally
often and follows every other bot equally often), so the luck of the deal
and of the seat and neighbour cancel out across the seatings. Every table of
one player count plays the same deals, too.

Single-player games use duplicate deals: every bot plays the same seeded
deals, and each deal is later rated as one free-for-all among the bots that
played it.

The schedule (which matches, their keys, their order) is a pure function of
the tournament's public seed, its game entries and its bots. The deals are
not: each deal's seed is a keyed hash of the tournament's secret
(:mod:`ladder.matches.deals`), so nothing public tells a bot the cards. Each match
has a stable key naming the cycle, game, option set, player count, deal and
the bots by seat, so a resumed tournament plays exactly the keys it has not
recorded yet, with the deals of the same secret.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import get_game
from engine.rng import derive_seed
from ladder.matches.deals import keyed_seed
from ladder.matches.match import MatchSpec
from ladder.ratings.pools import PoolKey
from ladder.seats.roster import Entrant
from tournaments.formats.config import Seatings


@dataclass(frozen=True)
class GamePlan:
    """One game of a tournament with its bots resolved."""

    game: str
    players: tuple[int, ...]
    option_sets: tuple[Mapping[str, Any], ...]
    games_per_pairing: int
    entrants: tuple[Entrant, ...]

    @property
    def solitaire(self) -> bool:
        return get_game(self.game).facts.solitaire


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule: its key, its deal, and the bot version in each seat."""

    key: str
    cycle: int
    deal: str  # the matches dealt the same cards share it
    game: str
    options: Mapping[str, Any]
    seed: int
    seats: tuple[Entrant, ...]

    @property
    def pool(self) -> PoolKey:
        """The bench pool the match belongs to: its game, option set and player count (``elevenses/o0/3p``).
        A bot that keeps failing is benched in one pool, not everywhere."""
        return PoolKey.of_deal(self.deal)

    def spec(self) -> MatchSpec:
        return MatchSpec(self.game, tuple(e.ref for e in self.seats), self.seed, dict(self.options), self.key)


def deal_seed(secret: bytes, cycle: int, game: str, variant: int, num_players: int, deal: int) -> int:
    """The seed of one deal, from the tournament's secret (53 bits: it survives JSON and every SQL integer type)."""
    return keyed_seed(secret, "deal", cycle, game, variant, num_players, deal)


ALL_ORDERS_UP_TO = 24  # a table plays every order of its bots when there are at most this many (k <= 4)


def balanced_seatings(table: Sequence[Entrant]) -> list[tuple[Entrant, ...]]:
    """The seatings a table plays each deal in: every bot in every seat equally often, and right
    after every other bot (in turn order, round the table) equally often.

    Up to four seats that is every order of the bots (2, 6 or 24 seatings).
    Beyond, every order costs too much (120, 720), so the table plays the
    rotations of a few round-the-table orders chosen so that each ordered pair of
    neighbours occurs equally often (:func:`neighbour_balanced_cycles`): 20
    seatings at five seats, 60 at six.
    """
    size = len(table)
    if math.factorial(size) <= ALL_ORDERS_UP_TO:
        return [tuple(table[i] for i in order) for order in itertools.permutations(range(size))]
    return [
        tuple(table[cycle[(seat + shift) % size]] for seat in range(size))
        for cycle in neighbour_balanced_cycles(size)
        for shift in range(size)
    ]


def drawn_rotations(table: Sequence[Entrant], seed: int) -> list[tuple[Entrant, ...]]:
    """The rotations of one round-the-table order of ``table`` drawn from ``seed``: every bot in every seat
    once (``len(table)`` seatings).

    Every order is equally likely, so over its draw a deal's rotations are, on average, exactly every order of
    the table (all ``k!``): each bot follows each other bot equally often *in expectation* rather than on every
    deal. The verdict's value of such a deal is an unbiased draw of its value over every order, and deals drawn
    independently keep the sequential tests valid (docs/verdict.md). Up to four seats every order is what
    :func:`balanced_seatings` plays; at five and six it plays a neighbour-balanced subset (20 or 60 seatings),
    whose mean can differ from the every-order mean where more than the next seat matters (at six seats it does
    not balance who sits two seats after whom). At two seats it is both seatings.
    """
    first, *rest = table
    random.Random(seed).shuffle(rest)
    order = [first, *rest]  # a fixed first bot: each round-the-table order once, uniformly
    size = len(order)
    return [tuple(order[(seat + shift) % size] for seat in range(size)) for shift in range(size)]


@functools.cache
def neighbour_balanced_cycles(size: int) -> tuple[tuple[int, ...], ...]:
    """The fewest round-the-table orders of ``range(size)`` in which every ordered pair (a, b)
    has b right after a the same number of times.

    Found by a deterministic depth-first search over orders starting with 0:
    ``lam * (size - 1)`` orders cover the ``size * (size - 1)`` ordered pairs
    ``lam`` times each. ``lam = 1`` exists for every size but 4 and 6
    (Tillson's theorem on Hamiltonian decompositions of complete digraphs);
    six seats need ``lam = 2``.
    """
    candidates = [(0, *rest) for rest in itertools.permutations(range(1, size))]
    arcs_of = [tuple((c[i], c[(i + 1) % size]) for i in range(size)) for c in candidates]
    for lam in itertools.count(1):
        chosen = _cover_arcs(
            arcs_of, lam, lam * (size - 1), dict.fromkeys(itertools.permutations(range(size), 2), 0), [], 0
        )
        if chosen is not None:
            return tuple(candidates[i] for i in chosen)
    raise AssertionError("unreachable")


def _cover_arcs(
    arcs_of: list[tuple[tuple[int, int], ...]],
    lam: int,
    wanted: int,
    used: dict[tuple[int, int], int],
    chosen: list[int],
    start: int,
) -> list[int] | None:
    """Depth-first: ``wanted`` orders (by index, from ``start`` on) using no arc more than ``lam`` times, or None."""
    if len(chosen) == wanted:
        return chosen
    for index in range(start, len(arcs_of)):
        arcs = arcs_of[index]
        if all(used[arc] < lam for arc in arcs):
            for arc in arcs:
                used[arc] += 1
            chosen.append(index)
            if _cover_arcs(arcs_of, lam, wanted, used, chosen, index + 1) is not None:
                return chosen
            chosen.pop()
            for arc in arcs:
                used[arc] -= 1
    return None


def playable_counts(plan: GamePlan) -> tuple[list[int], list[str]]:
    """The player counts the plan's bots can fill with distinct bots, and a note for each dropped count."""
    if plan.solitaire:
        return [1], []
    counts = [count for count in plan.players if count <= len(plan.entrants)]
    dropped = [count for count in plan.players if count > len(plan.entrants)]
    if not dropped:
        return counts, []
    shown = ", ".join(str(count) for count in dropped)
    return counts, [
        f"{plan.game} at {shown} players: not scheduled (a table needs a different bot in every seat "
        f"and only {len(plan.entrants)} play it)"
    ]


def round_robin_groups(
    plan: GamePlan, secret: bytes, cycle: int, rotations_seed: int | None = None
) -> list[list[ScheduledMatch]]:
    """The matches of one cycle of ``plan``, in groups that share a deal and a table (each in every balanced
    seating, or with ``rotations_seed`` in drawn rotations: :func:`deal_group`)."""
    entrants = sorted(plan.entrants, key=lambda e: e.label)
    counts, _ = playable_counts(plan)
    groups: list[list[ScheduledMatch]] = []
    for variant, options in enumerate(plan.option_sets):
        for count in counts:
            for deal in range(plan.games_per_pairing):
                seed = deal_seed(secret, cycle, plan.game, variant, count, deal)
                deal_id = deal_key(cycle, plan.game, variant, count, deal)
                if count == 1:
                    groups.append(deal_group(plan, cycle, deal_id, options, seed, entrants, solitaire=True))
                    continue
                for table in itertools.combinations(entrants, count):
                    groups.append(deal_group(plan, cycle, deal_id, options, seed, table, rotations_seed=rotations_seed))
    return groups


def deal_key(cycle: int, game: str, variant: int, num_players: int, deal: int) -> str:
    """The name of a deal: the matches dealt the same cards share it."""
    return f"c{cycle}/{game}/o{variant}/{num_players}p/d{deal}"


def deal_group(
    plan: GamePlan,
    cycle: int,
    deal_id: str,
    options: Mapping[str, Any],
    seed: int,
    bots: Sequence[Entrant],
    solitaire: bool = False,
    rotations_seed: int | None = None,
) -> list[ScheduledMatch]:
    """The unit of evidence: one deal of a table in all its balanced seatings, or with ``rotations_seed`` (the
    tournament's public seed) in the rotations of one order drawn for this deal and table
    (:func:`drawn_rotations`); in a solitaire, the deal played once by each of ``bots``. ``bots`` in label
    order."""
    if solitaire:
        return [
            ScheduledMatch(f"{deal_id}/{bot.label}", cycle, deal_id, plan.game, options, seed, (bot,)) for bot in bots
        ]
    if rotations_seed is None:
        seatings = balanced_seatings(bots)
    else:
        seatings = drawn_rotations(bots, derive_seed(rotations_seed, "seating", deal_id, [b.label for b in bots]))
    return [
        ScheduledMatch(
            f"{deal_id}/{'+'.join(bot.label for bot in seating)}", cycle, deal_id, plan.game, options, seed, seating
        )
        for seating in seatings
    ]


# the adaptive format starts with one round-robin (its later deals are chosen by tournaments.sources.adaptive)
FORMATS = {"round-robin": round_robin_groups, "adaptive": round_robin_groups}


def cycle_schedule(
    format_: str,
    plans: Sequence[GamePlan],
    tournament_seed: int,
    cycle: int,
    secret: bytes,
    seatings: Seatings = Seatings.ALL,
) -> list[ScheduledMatch]:
    """Every match of one cycle, longest first, dealt from ``secret``; groups of about the same length in an
    order from the public ``tournament_seed`` that mixes games and tables. ``seatings``: every balanced
    seating of each deal, or (the adaptive format's default) the rotations of one order drawn per deal.

    Groups (a table's seatings of one deal, or a solitaire deal's bots) stay
    together so that a run stopped by its time budget leaves few deals half
    played. Longest first (:mod:`tournaments.formats.match_order`): so that no long match
    starts last and keeps one worker busy while the others idle.
    """
    from tournaments.formats.match_order import longest_first

    rotations_seed = seatings.rotations_seed(tournament_seed)
    groups = [group for plan in plans for group in FORMATS[format_](plan, secret, cycle, rotations_seed)]
    random.Random(derive_seed(tournament_seed, "order", cycle)).shuffle(groups)
    return [match for group in longest_first(groups) for match in group]


def schedule_fingerprint_data(format_: str, plans: Sequence[GamePlan], tournament_seed: int) -> dict[str, Any]:
    """What identifies a tournament: its format, seed and games (player counts, options, deals per table).

    The bots are left out on purpose: a match's key names its bots and its
    deal does not depend on them, so a new bot version (or a new bot) only
    adds its own matches to the tournament and every match already played
    keeps its key and stays recorded.
    """
    return {
        "format": format_,
        "seed": tournament_seed,
        "games": [
            {
                "game": plan.game,
                "players": list(plan.players),
                "options": [dict(o) for o in plan.option_sets],
                "games_per_pairing": plan.games_per_pairing,
            }
            for plan in plans
        ],
    }
