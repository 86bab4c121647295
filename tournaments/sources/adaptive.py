"""The adaptive format: deals where the leaderboard is least certain, until every pool's order is known.

A pool is a game at one table size. The tournament starts with one
round-robin (``games_per_pairing`` deals per table, the same matches a
round-robin cycle plays). Then it goes in rounds. Each round reads the
matches of the round before it (this tournament's only), adds their deals to
the paired sequential tests of every pool (:mod:`ladder.ratings.verdict`: each pair of
bots compared deal by deal on the deals both played, docs/verdict.md), orders
each pool by strengths fitted to those tests' deal values and judges that order
(:func:`ladder.ratings.certainty.assess_paired`):

- a pool whose every adjacent pair is ordered, equal within the
  indifference margin, or shown not worse than the next by that margin, at
  the configured confidence (the whole order: a Bonferroni share of it per
  test, valid however often the tests are read) is **settled** and plays no
  more;
- a pool that has played its ``max_matches`` stops with its **budget spent**;
- any other pool plays, for each open adjacent pair (the least sure first),
  one new deal of a table holding that pair (at k seats: the pair and the k - 2 bots nearest to them
  on the leaderboard; a deal number no table of the pool has played), in the rotations of one
  round-the-table order drawn for that deal (every bot in every seat once; ``seatings = "all"``: in every
  balanced seating, docs/verdict.md "Fewer seatings per deal"); in a solitaire, one new deal played by
  every bot of an open pair.

The next round starts when every match of this one is recorded, and the tests
read each round's deals in deal order, so the matches played do not depend on
the number of workers or the backend. TrueSkill is not needed to choose: it
stays the displayed rating (``ladder rankings``). Each
round is a pure function of the stored results of the rounds before it and
the tournament's seed: after a crash or ``kill -9`` the next run replays the
choices of the stored rounds (playing nothing), plays what is missing of the
round it stopped in, and goes on, so it ends with exactly the matches an
uninterrupted run plays.
"""

from __future__ import annotations

import enum
import logging
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from sqlmodel import Session

from ladder.ratings import certainty, verdict
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import pool_key
from ladder.seats.roster import Entrant
from ladder.store import tournament_queries
from tournaments.formats.config import AdaptiveSettings
from tournaments.formats.round_robin import (
    GamePlan,
    ScheduledMatch,
    cycle_schedule,
    deal_group,
    deal_key,
    deal_seed,
    playable_counts,
)
from tournaments.sources.base import WAIT, Wait

log = logging.getLogger("ladder.tournament")


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
        self.seed = seed  # public: the order of play
        self.secret = b""  # the tournament's deal secret, set by :meth:`pending`
        self.settings = settings
        self.pools = [_Pool(plan, count) for plan in plans for count in playable_counts(plan)[0]]
        self.status: dict[str, PoolStatus] = {}
        self.ledger = verdict.Ledger(
            ratings_trueskill_model.game_facts(), verdict.indifference_in_outcomes(settings.indifference)
        )

    def warm_up(self) -> list[ScheduledMatch]:
        """The first round: one round-robin cycle (in the format's seatings)."""
        return cycle_schedule("adaptive", self.plans, self.seed, 0, self.secret, self.settings.seatings)

    def next_round(
        self, session: Session, tournament_id: int, planned: set[str], benched: Callable[[Entrant, str, int], bool]
    ) -> list[ScheduledMatch]:
        """The round after the rounds whose matches are ``planned`` (keys), chosen from those matches' stored
        results alone (empty: every pool has stopped). Called once per round, in order: each call adds the
        matches new since the last to the paired tests (one round's deals, a batch)."""
        ids = {
            row_id for row_id, key in tournament_queries.match_ids_and_keys(session, tournament_id) if key in planned
        }
        facts = [fact for fact in ratings_persistence.load_match_facts(session, tournament_id) if fact.match_id in ids]
        self.ledger.add(facts)
        played: dict[str, int] = defaultdict(int)
        for fact in facts:
            played[pool_key(fact.game, fact.num_players)] += 1
        deals = _next_deals(planned)
        chosen: list[ScheduledMatch] = []
        for pool in self.pools:
            chosen.extend(self._choose(pool, self.ledger.pool(pool.key), played[pool.key], deals, benched))
        return chosen

    def _group(self, pool: _Pool, variant: int, number: int, bots: Sequence[Entrant]) -> list[ScheduledMatch]:
        """One chosen deal: a solitaire's bots, or a table in the seatings of ``settings.seatings``."""
        plan = pool.plan
        seed = deal_seed(self.secret, 0, plan.game, variant, pool.count, number)
        deal_id = deal_key(0, plan.game, variant, pool.count, number)
        return deal_group(
            plan,
            0,
            deal_id,
            plan.option_sets[variant],
            seed,
            bots,
            solitaire=pool.count == 1,
            rotations_seed=self.settings.seatings.rotations_seed(self.seed),
        )

    def _choose(
        self,
        pool: _Pool,
        evidence: verdict.PoolEvidence,
        played: int,
        deals: dict[tuple[str, frozenset[str]], int],
        benched: Callable[[Entrant, str, int], bool],
    ) -> list[ScheduledMatch]:
        """The pool's deals of the next round (none once it stops), from its paired ``evidence``."""
        members = sorted(
            (e for e in pool.plan.entrants if not benched(e, pool.plan.game, pool.count)), key=lambda e: e.label
        )
        if len(members) < max(2, pool.count):
            self._stop(pool, played, StopReason.TOO_FEW, f"{len(members)} bots not benched")
            return []
        by_version = {e.version_id: e for e in members}
        table = evidence.order(sorted(by_version))
        sure = certainty.assess_paired(
            table,
            pool.key,
            evidence,
            self.settings.confidence,
            self.settings.indifference,
            {v: e.label for v, e in by_version.items()},
        )
        if sure.settled:
            self._stop(pool, played, StopReason.SETTLED, sure.reason)
            return []
        if played >= self.settings.max_matches:
            self._stop(
                pool,
                played,
                StopReason.BUDGET,
                f"{played} matches played (max_matches {self.settings.max_matches}); {sure.reason}",
            )
            return []
        self.status[pool.key] = PoolStatus(pool.key, played, None, sure.reason)
        least_sure = sorted(sure.open_pairs(), key=certainty.AdjacentPair.certainty)
        pairs = [(by_version[pair.upper], by_version[pair.lower]) for pair in least_sure]
        if pool.count == 1:
            return self._solitaire_deal(pool, pairs, deals)
        return self._table_deals(pool, [by_version[v] for v in table], pairs, deals)

    def _solitaire_deal(
        self, pool: _Pool, pairs: list[tuple[Entrant, Entrant]], deals: dict[tuple[str, frozenset[str]], int]
    ) -> list[ScheduledMatch]:
        """One new deal played by every bot of an open pair."""
        bots = sorted({bot for pair in pairs for bot in pair}, key=lambda e: e.label)
        number = deals[(pool.key, frozenset())]
        deals[(pool.key, frozenset())] = number + 1
        return self._group(pool, number % len(pool.plan.option_sets), number, bots)

    def _table_deals(
        self,
        pool: _Pool,
        order: list[Entrant],
        pairs: list[tuple[Entrant, Entrant]],
        deals: dict[tuple[str, frozenset[str]], int],
    ) -> list[ScheduledMatch]:
        """For each open pair, one new deal of a table holding it (each table once a round)."""
        chosen: list[ScheduledMatch] = []
        tables_now: set[frozenset[str]] = set()
        # a deal number no table of the pool has played: different cards at every table, so that every table's
        # deal is a fresh value for its pairs (one played at two tables would count once, docs/verdict.md)
        number = max((next_number for (key, _), next_number in deals.items() if key == pool.key), default=0)
        for upper, lower in pairs:
            bots = _table_around(order, upper, lower, pool.count)
            labels = frozenset(e.label for e in bots)
            if labels in tables_now:
                continue
            tables_now.add(labels)
            deals[(pool.key, labels)] = number + 1
            chosen.extend(
                self._group(pool, number % len(pool.plan.option_sets), number, sorted(bots, key=lambda e: e.label))
            )
            number += 1
        return chosen

    def _stop(self, pool: _Pool, played: int, stop: StopReason, reason: str) -> None:
        if pool.key not in self.status or self.status[pool.key].stop is None:
            log.info("adaptive: %s stops (%s) after %d matches: %s", pool.key, stop.value, played, reason)
        self.status[pool.key] = PoolStatus(pool.key, played, stop, reason)

    def notes(self) -> list[str]:
        """One line per pool: why it stopped (or that it had not yet)."""
        return [
            f"{status.pool}: {status.stop.value if status.stop else 'still open'} after {status.matches} matches "
            f"({status.reason})"
            for status in self.status.values()
        ]

    # -- what the runner pulls from
    def pending(
        self,
        session: Session,
        tournament_id: int,
        secret: bytes,
        done: set[str],
        recorded_now: set[str],
        benched: Callable[[Entrant, str, int], bool],
        schedule: Callable[[int], None],
    ) -> Iterator[ScheduledMatch | Wait]:
        """The matches to play, round after round; :data:`WAIT` while a round is still being played.

        Rounds already stored (a resumed run) are replayed without playing: each round is chosen from
        the stored results of the rounds before it only, so a run that was interrupted (Ctrl-C, a crash,
        ``kill -9``) ends with the same matches as one that was not. ``done``: keys stored as played or
        skipped (live); ``recorded_now``: keys recorded by this run, errors included (live);
        ``schedule(n)``: n matches are planned so far; ``secret``: the tournament's deal secret.
        """
        self.secret = secret
        planned: set[str] = set()
        matches = self.warm_up()
        while matches:
            planned |= {match.key for match in matches}
            todo = [match for match in matches if match.key not in done and match.key not in recorded_now]
            if todo:
                schedule(len(planned))
                yield from todo
                while not all(match.key in recorded_now for match in todo):
                    yield WAIT
            matches = self.next_round(session, tournament_id, planned, benched)
        schedule(len(planned))


class AdaptiveSource:
    """The adaptive format as the coordinator's match source: its rounds (:meth:`AdaptivePlanner.pending`), with
    nothing refused (benching is the coordinator's) and no bot retired early."""

    def __init__(
        self,
        planner: AdaptivePlanner,
        session: Session,
        tournament_id: int,
        secret: bytes,
        done: set[str],
        recorded_now: set[str],
        benched: Callable[[Entrant, str, int], bool],
        schedule: Callable[[int], None],
    ) -> None:
        self.planner = planner
        self._rounds = (session, tournament_id, secret, done, recorded_now, benched, schedule)

    def pending(self, submitted: Mapping[int, int]) -> Iterator[ScheduledMatch | Wait]:
        return self.planner.pending(*self._rounds)

    def refusal(self, match: ScheduledMatch) -> dict[int, str]:
        return {}

    def handed_out(self, match: ScheduledMatch) -> None:
        return None

    def retired(self) -> tuple[str, ...]:
        return ()

    def recorded(self) -> None:
        return None


def _next_deals(planned: set[str]) -> dict[tuple[str, frozenset[str]], int]:
    """The next deal number of each table among the ``planned`` match keys (by pool and bot labels; a
    solitaire pool counts as one table)."""
    following: dict[tuple[str, frozenset[str]], int] = defaultdict(int)
    for key in planned:
        _, game, _, players, deal, seating = key.split("/", 5)
        pool = PoolKey.parse(f"{game}/{players}")
        labels = frozenset() if pool.players == 1 else frozenset(seating.split("+"))
        where = (str(pool), labels)
        following[where] = max(following[where], int(deal.removeprefix("d")) + 1)
    return following


def _table_around(order: Sequence[Entrant], upper: Entrant, lower: Entrant, size: int) -> list[Entrant]:
    """The pair and the ``size - 2`` bots nearest to them on the leaderboard (the higher one first on a tie)."""
    at = {entrant: index for index, entrant in enumerate(order)}
    others = sorted(
        (e for e in order if e not in (upper, lower)),
        key=lambda e: (min(abs(at[e] - at[upper]), abs(at[e] - at[lower])), at[e]),
    )
    return [upper, lower, *others[: size - 2]]
