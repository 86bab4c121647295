"""The adaptive format: deals where the leaderboard is least certain, until every pool's order is known.

A pool is a game at one table size. The tournament starts with one
round-robin (``games_per_pairing`` deals per table, the same matches a
round-robin cycle plays). Then it goes in rounds. Each round reads the
tournament's stored matches, rates every pool that is still open (the
order-free ratings of :mod:`ladder.ratings`, this tournament's matches only)
and judges its order (:mod:`ladder.certainty`):

- a pool whose every adjacent pair is ordered, or equal within the
  indifference margin, at the configured confidence (the whole order, with a
  Bonferroni share per pair) is **settled** and plays no more;
- a pool that has played its ``max_matches`` stops with its **budget spent**;
- any other pool plays, for each open adjacent pair, one new deal of a table
  holding that pair (at k seats: the pair and the k - 2 bots nearest to them
  on the leaderboard), in all the table's balanced seatings; in a solitaire,
  one new deal played by every bot of an open pair.

The next round starts when every match of this one is recorded, so the
matches played do not depend on the number of workers or the backend. A
round is a pure function of the stored matches and the tournament's seed:
after a crash or ``kill -9`` the next run first completes the deal groups
left half-played, then goes on choosing from what is stored.
"""

from __future__ import annotations

import enum
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from sqlmodel import Session, select

from ladder import certainty, ratings
from ladder.ratings import Standing, pool_key
from ladder.roster import Entrant
from ladder.storage import MatchRow
from tournaments.config import AdaptiveSettings
from tournaments.formats import (
    GamePlan, ScheduledMatch, cycle_schedule, deal_group, deal_key, deal_seed, playable_counts,
)

log = logging.getLogger("ladder.tournament")


class Wait(enum.Enum):
    """Yielded by :meth:`AdaptivePlanner.pending` while the round's matches are still being played."""

    WAIT = "wait"


WAIT = Wait.WAIT


class StopReason(enum.StrEnum):
    SETTLED = "settled"
    BUDGET = "budget spent"
    TOO_FEW = "too few bots left"


@dataclass(frozen=True)
class PoolStatus:
    pool: str
    matches: int  # played in this tournament
    stop: StopReason | None
    reason: str


@dataclass(frozen=True)
class _Pool:
    plan: GamePlan
    count: int

    @property
    def key(self) -> str:
        return pool_key(self.plan.game, self.count)


class AdaptivePlanner:
    """Chooses the adaptive format's rounds (see the module docstring)."""

    def __init__(self, plans: Sequence[GamePlan], seed: int, settings: AdaptiveSettings) -> None:
        self.plans = list(plans)
        self.seed = seed
        self.settings = settings
        self.pools = [_Pool(plan, count) for plan in plans for count in playable_counts(plan)[0]]
        self.status: dict[str, PoolStatus] = {}

    def warm_up(self) -> list[ScheduledMatch]:
        """The first round: one round-robin cycle."""
        return cycle_schedule("adaptive", self.plans, self.seed, 0)

    def next_round(self, session: Session, tournament_id: int, recorded: set[str],
                   benched: Callable[[Entrant], bool]) -> list[ScheduledMatch]:
        """The matches of the next round, none of them in ``recorded`` (empty: every pool has stopped)."""
        missing = [match for match in self.warm_up() if match.key not in recorded]
        if missing:
            return missing
        stored = session.exec(select(MatchRow.key, MatchRow.deal, MatchRow.game, MatchRow.num_players)
                              .where(MatchRow.tournament_id == tournament_id)).all()
        unfinished = self._unfinished_groups(stored, recorded)
        if unfinished:
            return unfinished
        facts = ratings.load_match_facts(session, tournament_id)
        rated = ratings.compute(facts, ratings.solitaire_ids(), history=False)
        played: dict[str, int] = defaultdict(int)
        for fact in facts:
            played[pool_key(fact.game, fact.num_players)] += 1
        deals = self._deals_so_far(stored)
        chosen: list[ScheduledMatch] = []
        for pool in self.pools:
            chosen.extend(self._choose(pool, rated, played[pool.key], deals, benched))
        return [match for match in chosen if match.key not in recorded]

    # -- a round's parts
    def _entrants(self, pool: _Pool) -> dict[str, Entrant]:
        return {entrant.label: entrant for entrant in pool.plan.entrants}

    def _pool_of(self, game: str, count: int) -> _Pool | None:
        return next((pool for pool in self.pools if pool.plan.game == game and pool.count == count), None)

    def _unfinished_groups(self, stored: Sequence[tuple[str, str, str, int]], recorded: set[str]) -> list[ScheduledMatch]:
        """The missing seatings of every table deal some of whose seatings are stored (a run stopped mid-round)."""
        tables: dict[tuple[str, frozenset[str]], tuple[_Pool, str]] = {}
        for key, deal, game, count in stored:
            pool = self._pool_of(game, count)
            if pool is None or count == 1:
                continue  # a solitaire deal is evidence among the bots that played it, complete or not
            labels = frozenset(key.removeprefix(deal + "/").split("+"))
            tables.setdefault((deal, labels), (pool, deal))
        missing: list[ScheduledMatch] = []
        for (deal, labels), (pool, _) in sorted(tables.items(), key=lambda item: (item[0][0], sorted(item[0][1]))):
            entrants = self._entrants(pool)
            if not labels <= set(entrants):
                continue
            variant, number = _deal_numbers(deal)
            bots = [entrants[label] for label in sorted(labels)]
            group = self._group(pool, variant, number, bots)
            missing.extend(match for match in group if match.key not in recorded)
        return missing

    def _deals_so_far(self, stored: Sequence[tuple[str, str, str, int]]) -> dict[tuple[str, frozenset[str]], int]:
        """The next deal number of each table (by pool and bot labels; a solitaire pool counts as one table)."""
        following: dict[tuple[str, frozenset[str]], int] = defaultdict(int)
        for key, deal, game, count in stored:
            labels = frozenset() if count == 1 else frozenset(key.removeprefix(deal + "/").split("+"))
            _, number = _deal_numbers(deal)
            where = (pool_key(game, count), labels)
            following[where] = max(following[where], number + 1)
        return following

    def _group(self, pool: _Pool, variant: int, number: int, bots: Sequence[Entrant]) -> list[ScheduledMatch]:
        plan = pool.plan
        seed = deal_seed(self.seed, 0, plan.game, variant, pool.count, number)
        deal_id = deal_key(0, plan.game, variant, pool.count, number)
        return deal_group(plan, 0, deal_id, plan.option_sets[variant], seed, bots, solitaire=pool.count == 1)

    def _choose(self, pool: _Pool, rated: ratings.RatingSet, played: int, deals: dict[tuple[str, frozenset[str]], int],
                benched: Callable[[Entrant], bool]) -> list[ScheduledMatch]:
        members = sorted((e for e in pool.plan.entrants if not benched(e)), key=lambda e: e.label)
        if len(members) < max(2, pool.count):
            self._stop(pool, played, StopReason.TOO_FEW, f"{len(members)} bots not benched")
            return []
        known = rated.standings.get(pool.key, {})
        table = sorted((known.get(e.version_id) or Standing(pool.key, pool.plan.game, pool.count, e.version_id) for e in members),
                       key=lambda s: (-s.conservative, -s.mu, s.bot_version_id))
        by_version = {e.version_id: e for e in members}
        sure = certainty.assess(table, pool.key, self.settings.confidence, self.settings.indifference,
                                {v: e.label for v, e in by_version.items()})
        if sure.settled:
            self._stop(pool, played, StopReason.SETTLED, sure.reason)
            return []
        if played >= self.settings.max_matches:
            self._stop(pool, played, StopReason.BUDGET, f"{played} matches played (max_matches {self.settings.max_matches}); "
                                                        f"{sure.reason}")
            return []
        self.status[pool.key] = PoolStatus(pool.key, played, None, sure.reason)
        order = [by_version[s.bot_version_id] for s in table]
        variants = len(pool.plan.option_sets)
        chosen: list[ScheduledMatch] = []
        if pool.count == 1:
            bots = sorted({by_version[v] for pair in sure.open_pairs() for v in (pair.upper, pair.lower)}, key=lambda e: e.label)
            number = deals[(pool.key, frozenset())]
            deals[(pool.key, frozenset())] = number + 1
            return self._group(pool, number % variants, number, bots)
        tables_now: set[frozenset[str]] = set()
        for pair in sure.open_pairs():
            bots = _table_around(order, by_version[pair.upper], by_version[pair.lower], pool.count)
            labels = frozenset(e.label for e in bots)
            if labels in tables_now:
                continue
            tables_now.add(labels)
            number = deals[(pool.key, labels)]
            deals[(pool.key, labels)] = number + 1
            chosen.extend(self._group(pool, number % variants, number, sorted(bots, key=lambda e: e.label)))
        return chosen

    def _stop(self, pool: _Pool, played: int, stop: StopReason, reason: str) -> None:
        if pool.key not in self.status or self.status[pool.key].stop is None:
            log.info("adaptive: %s stops (%s) after %d matches: %s", pool.key, stop.value, played, reason)
        self.status[pool.key] = PoolStatus(pool.key, played, stop, reason)

    def notes(self) -> list[str]:
        """One line per pool: why it stopped (or that it had not yet)."""
        return [f"{status.pool}: {status.stop.value if status.stop else 'still open'} after {status.matches} matches "
                f"({status.reason})" for status in self.status.values()]

    # -- what the runner pulls from
    def pending(self, session: Session, tournament_id: int, done: set[str], recorded_now: set[str],
                benched: Callable[[Entrant], bool], schedule: Callable[[int], None]) -> Iterator[ScheduledMatch | Wait]:
        """The matches to play, round after round; :data:`WAIT` while a round is still being played.

        ``done``: keys stored as played or skipped (live); ``recorded_now``: keys recorded by this run,
        errors included (live); ``schedule(n)``: n more matches are planned.
        """
        while True:
            matches = self.next_round(session, tournament_id, done | recorded_now, benched)
            if not matches:
                return
            schedule(len(matches))
            for match in matches:
                yield match
            while not all(match.key in recorded_now for match in matches):
                yield WAIT


def _deal_numbers(deal: str) -> tuple[int, int]:
    """(option set, deal number) from a deal key (``c0/game/o1/3p/d7``)."""
    parts = deal.split("/")
    return int(parts[-3].removeprefix("o")), int(parts[-1].removeprefix("d"))


def _table_around(order: Sequence[Entrant], upper: Entrant, lower: Entrant, size: int) -> list[Entrant]:
    """The pair and the ``size - 2`` bots nearest to them on the leaderboard (the higher one first on a tie)."""
    at = {entrant: index for index, entrant in enumerate(order)}
    others = sorted((e for e in order if e not in (upper, lower)),
                    key=lambda e: (min(abs(at[e] - at[upper]), abs(at[e] - at[lower])), at[e]))
    return [upper, lower, *others[: size - 2]]

