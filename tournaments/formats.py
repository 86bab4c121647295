"""Schedule formats: which matches a tournament plays, derived from its seed.

Round-robin: for a 2-player table every pairing of bots, for a larger table
every combination of bots; each table is played in every rotation of its
seats (each bot sits once in each seat) with the same deal, so the luck of
the deal cancels out across the seatings. Every table of one player count
plays the same deals, too.

Single-player games use duplicate deals: every bot plays the same seeded
deals, and each deal is later rated as one free-for-all among the bots that
played it.

The schedule is a pure function of the tournament's seed, its game entries
and its bots. Each match has a stable key naming the cycle, game, option
set, player count, deal and the bots by seat, so a resumed tournament plays
exactly the keys it has not recorded yet.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import get_game
from engine.rng import derive_seed
from ladder.match import MatchSpec
from ladder.roster import Entrant


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
        return get_game(self.game).max_players == 1


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
    def pool(self) -> str:
        """The pool the match belongs to: its game, option set and player count (``elevenses/o0/3p``).
        A bot that keeps failing is benched in one pool, not everywhere."""
        return "/".join(self.deal.split("/")[1:4])

    def spec(self) -> MatchSpec:
        return MatchSpec(self.game, tuple(e.ref for e in self.seats), self.seed, dict(self.options), self.key)


def deal_seed(tournament_seed: int, cycle: int, game: str, variant: int, num_players: int, deal: int) -> int:
    """The seed of one deal: 53 bits, so it survives JSON and every SQL integer type."""
    return derive_seed(tournament_seed, "deal", cycle, game, variant, num_players, deal) >> 11


def rotations(table: Sequence[Entrant]) -> list[tuple[Entrant, ...]]:
    """Every seating of a table by rotation: each bot sits once in each seat."""
    return [tuple(table[(seat + shift) % len(table)] for seat in range(len(table))) for shift in range(len(table))]


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


def round_robin_groups(plan: GamePlan, tournament_seed: int, cycle: int) -> list[list[ScheduledMatch]]:
    """The matches of one cycle of ``plan``, in groups that share a deal and a table."""
    entrants = sorted(plan.entrants, key=lambda e: e.label)
    counts, _ = playable_counts(plan)
    groups: list[list[ScheduledMatch]] = []
    for variant, options in enumerate(plan.option_sets):
        for count in counts:
            for deal in range(plan.games_per_pairing):
                seed = deal_seed(tournament_seed, cycle, plan.game, variant, count, deal)
                deal_id = f"c{cycle}/{plan.game}/o{variant}/{count}p/d{deal}"
                if count == 1:
                    groups.append([
                        ScheduledMatch(f"{deal_id}/{bot.label}", cycle, deal_id, plan.game, options, seed, (bot,))
                        for bot in entrants
                    ])
                    continue
                for table in itertools.combinations(entrants, count):
                    groups.append([
                        ScheduledMatch(
                            f"{deal_id}/{'+'.join(bot.label for bot in seating)}", cycle, deal_id, plan.game, options, seed, seating
                        )
                        for seating in rotations(table)
                    ])
    return groups


FORMATS = {"round-robin": round_robin_groups}


def cycle_schedule(format_: str, plans: Sequence[GamePlan], tournament_seed: int, cycle: int) -> list[ScheduledMatch]:
    """Every match of one cycle, in a seeded order that mixes games and tables.

    Groups (a table's seatings of one deal, or a solitaire deal's bots) stay
    together so that a run stopped by its time budget leaves few deals half
    played.
    """
    groups = [group for plan in plans for group in FORMATS[format_](plan, tournament_seed, cycle)]
    random.Random(derive_seed(tournament_seed, "order", cycle)).shuffle(groups)
    return [match for group in groups for match in group]


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
