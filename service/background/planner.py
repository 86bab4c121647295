"""What the served ladder plays next: placement for new versions, then where the leaderboards are least settled.

Each round is chosen from the database as it is (:func:`plan_round`):

1. **Placement.** A version that has not yet met every other bot of a pool it claims ``placement_deals``
   times plays that first: tables of it and the bots it has met least (a deal in every balanced seating,
   as a tournament plays it; in a solitaire the same deal for every bot of the pool).
2. **Certainty.** Every other pool is judged by the paired sequential verdict of the served matches over the
   versions that can be scheduled (:func:`ladder.views.leaderboard.field_verdict`: the pages' rule and order, less
   the superseded, paused, benched and retired versions, which play no more and so could never settle a pair;
   ``/api/status`` reports this same verdict). A settled pool plays nothing; an open one plays, for each open
   adjacent pair (the least certain first), a deal of a table holding it (the pair and the bots nearest them) on
   a deal number no table of the pool has played, in the rotations of one order drawn for the deal (each bot in
   each seat once), as :mod:`tournaments.sources.adaptive` does: the verdict reads each such deal as one shared
   deal of every pair at the table.
3. **Shares.** The round is shared between the pools first: they take turns, one deal each per turn, the pool
   with the fewest deals so far first, so every pool that has something to play gets a deal in every round and
   none starves (a pool of house bots alone plays too: a pool needs two bots, whoever's they are). Within a
   pool, the next deal is the one of the author who has had the fewest seats so far (seats of the served ladder,
   all their versions together; a house bot takes no share), placement first: an author with many bots does not
   get more of the workers than one with a single bot. The turns go on until the round holds ``size`` matches
   (every pool's first turn is always taken).

A settled pool plays nothing more in the rounds. When every pool is settled the ladder does not stop for good:
every ``--refresh-seconds`` it plays a refresh round (:func:`refresh_round`, one deal per pool around its least
certain pair), so a settled order keeps being checked at a slow pace; a new version, or the operator's resuming
of a bot, opens the pools again at once.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine import get_game
from ladder.matches.deals import keyed_seed
from ladder.ratings.certainty import AdjacentPair, PoolCertainty
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import RatingSet, pool_key
from ladder.ratings.verdict import Ledger, PoolEvidence
from ladder.seats.roster import Entrant
from ladder.views.leaderboard import field_verdict
from tournaments.formats.round_robin import GamePlan, ScheduledMatch, deal_group, deal_key, deal_seed


@dataclass(frozen=True)
class FieldEntry:
    """A version that may be scheduled, with its author (None for a house bot: it takes no author's share)."""

    entrant: Entrant
    author_id: int | None


@dataclass(frozen=True)
class Candidate:
    """One deal of one table (its seatings): the unit the round is built from."""

    pool: str
    number: int
    matches: tuple[ScheduledMatch, ...]
    placement: bool
    authors: tuple[int, ...]  # one per seat held by an author's version


@dataclass(frozen=True)
class History:
    """What the served ladder has planned so far, for placement, deal numbers and shares."""

    met: Mapping[tuple[str, int, int], int]  # (pool, version, other version) -> deals together
    deals: Mapping[str, int]  # pool -> deals planned (the next deal's number)
    seats: Mapping[int, int]  # author id -> seats planned
    solo: Mapping[tuple[str, int], int]  # (solitaire pool, version) -> deals played


def pools_of(field: Sequence[FieldEntry]) -> dict[str, list[FieldEntry]]:
    """Every pool some version claims, with the versions that can play in it (a pool needs two bots, house bots or
    authors'; house bots play among themselves as well)."""
    from engine import game_ids

    pools: dict[str, list[FieldEntry]] = {}
    for game in game_ids():
        members = sorted((f for f in field if f.entrant.plays(game)), key=lambda f: f.entrant.label)
        if len(members) < 2:
            continue
        rules = get_game(game)
        counts = [1] if rules.facts.solitaire else [c for c in rules.player_counts() if 2 <= c <= len(members)]
        for count in counts:
            pools[pool_key(game, count)] = members
    return pools


class RoundBuilder:
    """Chooses one round (see the module docstring)."""

    def __init__(
        self, secret: bytes, history: History, placement_deals: int, confidence: float, indifference: float
    ) -> None:
        self.secret = secret
        self.history = history
        self.placement_deals = placement_deals
        self.confidence = confidence
        self.indifference = indifference
        self.numbers: dict[str, int] = dict(history.deals)
        self.verdicts: dict[str, PoolCertainty] = {}  # each pool's verdict as last judged (for /api/status)

    def verdict(
        self, pool: str, members: Sequence[FieldEntry], rated: RatingSet, evidence: PoolEvidence | None = None
    ) -> PoolCertainty:
        """The pool's verdict over ``members`` (:func:`ladder.views.leaderboard.field_verdict`; without evidence,
        the ratings' posteriors'), kept in :attr:`verdicts`."""
        names = {f.entrant.version_id: f.entrant.label for f in members}
        found = field_verdict(rated, pool, names, evidence, self.confidence, self.indifference, names)
        self.verdicts[pool] = found
        return found

    def _deal(self, pool: str, bots: Sequence[FieldEntry], placement: bool) -> Candidate:
        key = PoolKey.parse(pool)
        number = self.numbers.get(pool, 0)
        self.numbers[pool] = number + 1
        plan = GamePlan(key.game, (key.players,), ({},), 1, tuple(f.entrant for f in bots))
        ordered = sorted(bots, key=lambda f: f.entrant.label)
        matches = deal_group(
            plan,
            0,
            deal_key(0, key.game, 0, key.players, number),
            {},
            deal_seed(self.secret, 0, key.game, 0, key.players, number),
            [f.entrant for f in ordered],
            solitaire=key.players == 1,
            # placement in every balanced seating; the certainty deals, like the adaptive format's, in the rotations
            # of one order drawn per deal (docs/verdict.md, "Fewer seatings per deal")
            rotations_seed=None if placement else keyed_seed(self.secret, "seatings"),
        )
        authors = tuple(f.author_id for f in ordered if f.author_id is not None)
        return Candidate(pool, number, tuple(matches), placement, authors)

    def placement(self, pool: str, members: Sequence[FieldEntry]) -> list[Candidate]:
        """The placement deals of the pool's newcomers (versions that have not met everyone enough)."""
        players = PoolKey.parse(pool).players
        if players == 1:
            late = [
                f
                for f in members
                if f.author_id is not None
                and self.history.solo.get((pool, f.entrant.version_id), 0) < self.placement_deals
            ]
            return [self._deal(pool, members, True)] if late else []
        tables: dict[frozenset[int], list[FieldEntry]] = {}
        for member in members:
            if member.author_id is not None:
                for table in self._placement_tables(pool, member, members, players):
                    tables.setdefault(frozenset(f.entrant.version_id for f in table), table)
        return [self._deal(pool, table, True) for table in tables.values()]

    def _placement_tables(
        self, pool: str, member: FieldEntry, members: Sequence[FieldEntry], players: int
    ) -> list[list[FieldEntry]]:
        """Tables of ``member`` and the bots it has met fewer than ``placement_deals`` times (least met first),
        filled up with other bots of the pool."""
        me = member.entrant.version_id
        others = [f for f in members if f.entrant.version_id != me]

        def met(other: FieldEntry) -> int:
            return self.history.met.get((pool, me, other.entrant.version_id), 0)

        short = sorted((f for f in others if met(f) < self.placement_deals), key=lambda f: (met(f), f.entrant.label))
        tables = []
        for start in range(0, len(short), players - 1):
            table = [member, *short[start : start + players - 1]]
            table += [f for f in others if f not in table][: players - len(table)]
            if len(table) == players:
                tables.append(table)
        return tables

    def certainty_deals(
        self,
        pool: str,
        members: Sequence[FieldEntry],
        rated: RatingSet,
        refresh: bool = False,
        evidence: PoolEvidence | None = None,
    ) -> list[Candidate]:
        """A deal of a table around each open adjacent pair of the pool's leaderboard (none once settled; with
        ``refresh``, a settled pool plays one deal around its least certain pair instead). Settled and open are
        the paired verdict's of ``evidence`` on the leaderboard of ``members`` in TrueSkill's order (the pages'
        rule, on the pages' order less the versions that cannot be scheduled); without evidence, the ratings'
        posteriors'."""
        key = PoolKey.parse(pool)
        by_version = {f.entrant.version_id: f for f in members}
        verdict = self.verdict(pool, members, rated, evidence)
        pairs = sorted(verdict.open_pairs(), key=AdjacentPair.certainty)  # the least certain first
        if verdict.settled:
            if not refresh or not verdict.pairs:
                return []
            pairs = [min(verdict.pairs, key=lambda pair: pair.certainty())]
        order = [by_version[v] for v in verdict.order]
        chosen: list[Candidate] = []
        if key.players == 1:
            bots = {by_version[v] for pair in pairs for v in (pair.upper, pair.lower)}
            return [self._deal(pool, sorted(bots, key=lambda f: f.entrant.label), False)]
        seen: set[frozenset[int]] = set()
        for pair in pairs:
            around = _table_around(order, by_version[pair.upper], by_version[pair.lower], key.players)
            ids = frozenset(f.entrant.version_id for f in around)
            if ids not in seen:
                seen.add(ids)
                chosen.append(self._deal(pool, around, False))
        return chosen


def _table_around(order: Sequence[FieldEntry], upper: FieldEntry, lower: FieldEntry, size: int) -> list[FieldEntry]:
    """The pair and the ``size - 2`` bots nearest to them on the leaderboard."""
    at = {f.entrant.version_id: index for index, f in enumerate(order)}
    here = (at[upper.entrant.version_id], at[lower.entrant.version_id])
    others = sorted(
        (f for f in order if f not in (upper, lower)),
        key=lambda f: (min(abs(at[f.entrant.version_id] - i) for i in here), at[f.entrant.version_id]),
    )
    return [upper, lower, *others[: size - 2]]


def fair_share(
    candidates: Sequence[Candidate], seats: Mapping[int, int], size: int, pools: Sequence[str] | None = None
) -> list[Candidate]:
    """The round: the pools take turns (in the order of ``pools``, by default the candidates' first-seen order),
    one deal each per turn; within a pool, placement first, then the deal of the author with the fewest seats so
    far. Turns go on until the round holds ``size`` matches; every pool's first turn is always taken."""
    load: Counter[int] = Counter(seats)
    waiting: dict[str, list[Candidate]] = {}
    for candidate in sorted(candidates, key=lambda c: (not c.placement, c.number)):
        waiting.setdefault(candidate.pool, []).append(candidate)
    turns = [pool for pool in (pools or list(waiting)) if pool in waiting]
    turns += [pool for pool in waiting if pool not in turns]
    chosen: list[Candidate] = []
    matches = 0
    first_turn = True
    while any(waiting[pool] for pool in turns) and (first_turn or matches < size):
        for pool in turns:
            if waiting[pool] and (first_turn or matches < size):
                candidate = _take_fairest(waiting[pool], load)
                chosen.append(candidate)
                matches += len(candidate.matches)
        first_turn = False
    return chosen


def _take_fairest(here: list[Candidate], load: Counter[int]) -> Candidate:
    """A pool's next deal of the round: placement first, then the deal whose busiest author has had the fewest
    seats; taken out of ``here``, its seats counted to its authors."""
    best = min(
        range(len(here)), key=lambda i: (not here[i].placement, max((load[a] for a in here[i].authors), default=0), i)
    )
    candidate = here.pop(best)
    for author in candidate.authors:
        load[author] += len(candidate.matches)
    return candidate


def refresh_round(
    builder: RoundBuilder, field: Sequence[FieldEntry], rated: RatingSet, evidence: Ledger | None = None
) -> list[Candidate]:
    """When every pool is settled: one deal per pool around its least certain pair, so that a settled ladder keeps
    checking its answers at a slow pace (``--refresh-seconds``) instead of never playing again."""
    return [
        candidate
        for pool, members in pools_of(field).items()
        for candidate in builder.certainty_deals(pool, members, rated, True, _pool_evidence(evidence, pool))
    ]


def _pool_evidence(evidence: Ledger | None, pool: str) -> PoolEvidence | None:
    return evidence.pool(pool) if evidence is not None else None


def plan_round(
    builder: RoundBuilder,
    field: Sequence[FieldEntry],
    rated: RatingSet,
    size: int,
    passes: int = 4,
    evidence: Ledger | None = None,
) -> list[Candidate]:
    """The next round (empty: every pool is settled, or nothing can be played). ``evidence``: the served matches'
    paired deals, which decide which pools are settled (the scheduler always gives them).

    When the open pools' deals fill less than ``size`` matches (few bots), each open table is dealt again (up
    to ``passes`` deals of it a round), so the workers are not left idle while the round is played.
    """
    candidates: list[Candidate] = []
    open_pools: list[tuple[str, list[FieldEntry]]] = []
    pools = pools_of(field)
    for pool, members in pools.items():
        placing = builder.placement(pool, members)
        if placing:
            builder.verdict(pool, members, rated, _pool_evidence(evidence, pool))
            candidates.extend(placing)
            continue
        dealt = builder.certainty_deals(pool, members, rated, evidence=_pool_evidence(evidence, pool))
        if dealt:
            candidates.extend(dealt)
            open_pools.append((pool, members))
    for _ in range(passes - 1):
        if not open_pools or sum(len(c.matches) for c in candidates) >= size:
            break
        for pool, members in open_pools:
            candidates.extend(builder.certainty_deals(pool, members, rated, evidence=_pool_evidence(evidence, pool)))
    # the pools with the fewest deals so far take their turns first (ties: the least settled, then by name)
    turns = sorted(
        pools,
        key=lambda pool: (
            builder.history.deals.get(pool, 0),
            -len(builder.verdicts[pool].open_pairs()) if pool in builder.verdicts else 0,
            pool,
        ),
    )
    return fair_share(candidates, builder.history.seats, size, turns)


def history_from(rows: Sequence[tuple[str, int, bool, list[int]]], authors: Mapping[int, int]) -> History:
    """The history of planned deals: (pool, deal number, placement, version ids by seat) per planned match."""
    met: dict[tuple[str, int, int], set[int]] = defaultdict(set)
    deals: dict[str, int] = {}
    seats: Counter[int] = Counter()
    solo: dict[tuple[str, int], set[int]] = defaultdict(set)
    for pool, number, _placement, versions in rows:
        deals[pool] = max(deals.get(pool, 0), number + 1)
        for version in versions:
            if version in authors:
                seats[authors[version]] += 1
        if len(versions) == 1:
            solo[(pool, versions[0])].add(number)
        for first, second in itertools.permutations(set(versions), 2):
            met[(pool, first, second)].add(number)
    return History({k: len(v) for k, v in met.items()}, deals, dict(seats), {k: len(v) for k, v in solo.items()})
