"""What the read model derives from the records (:mod:`ladder.views.records`): leaderboard rows with P(above
next) and rank intervals, head-to-head counts, a bot's best wins and worst losses, its failures grouped.

The figures are the ratings' own (:mod:`ladder.ratings.certainty`); nothing here changes the maths, it only
puts the records and the ratings side by side.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ladder.matches.statuses import MatchStatus
from ladder.ratings import certainty
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.certainty import PoolCertainty
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import HistoryPoint, Standing
from ladder.views.records import MatchRecord, ReportData, SeatRecord, is_solitaire


@dataclass(frozen=True)
class LeaderboardRow:
    position: int
    standing: Standing
    above_next: float | None  # P(this row's skill > the next row's); None on the last row
    rank_interval: tuple[int, int] | None = None  # the ranks the paired tests do not rule out


def pool_certainty(data: ReportData, pool: str) -> PoolCertainty:
    """How sure ``pool``'s order is: the verdict, the adjacent pairs and the rank intervals, exactly as
    ``ladder rankings`` computes them (:func:`ladder.ratings.certainty.assess_pools`, at its defaults)."""
    evidence = data.evidence.pool(pool) if data.evidence is not None else None
    names = {v: data.name(v) for v in data.versions}  # the CLI's labels (catalog.distinct_labels)
    return certainty.assess(data.rated.table(pool), pool, names=names, evidence=evidence)


def leaderboard(data: ReportData, pool: str, sure: PoolCertainty | None = None) -> list[LeaderboardRow]:
    """The pool's rows, each with P(above next) and its rank interval from :func:`pool_certainty`."""
    table = data.rated.table(pool)
    sure = sure or pool_certainty(data, pool)
    following = {pair.upper: pair.p_order for pair in sure.pairs}
    return [
        LeaderboardRow(i, s, following.get(s.bot_version_id), sure.rank_intervals.get(s.bot_version_id))
        for i, s in enumerate(table, start=1)
    ]


@dataclass
class PairCount:
    """How ``first`` did against ``second`` where they met: ahead, behind, tied."""

    ahead: int = 0
    behind: int = 0
    tied: int = 0

    @property
    def met(self) -> int:
        return self.ahead + self.behind + self.tied

    @property
    def share(self) -> float:
        return (self.ahead + self.tied / 2) / self.met if self.met else 0.0


def head_to_head(data: ReportData, pool: str) -> dict[tuple[int, int], PairCount]:
    """For every ordered pair of versions of ``pool``: at the same table, who finished ahead (ranks);
    in a solitaire, who scored more on the same deal."""
    counts: dict[tuple[int, int], PairCount] = defaultdict(PairCount)
    groups: dict[Any, list[tuple[int, float]]] = defaultdict(list)  # group -> (version, key: lower is better)
    sign = -ratings_trueskill_model.facts_of(PoolKey.parse(pool).game).score_sign  # lower key is better
    for match in data.matches:
        if match.status != MatchStatus.PLAYED or match.pool != pool:
            continue
        for seat in match.seats:
            if is_solitaire(pool):
                key = math.inf if seat.failure_reason else sign * (seat.score or 0.0)
                groups[(match.tournament_id, match.deal)].append((seat.version_id, key))
            else:
                groups[match.match_id].append((seat.version_id, float(seat.rank or 0)))
    for entries in groups.values():
        for a, a_key in entries:
            for b, b_key in entries:
                if a == b:
                    continue
                pair = counts[(a, b)]
                if a_key < b_key:
                    pair.ahead += 1
                elif a_key > b_key:
                    pair.behind += 1
                else:
                    pair.tied += 1
    return dict(counts)


def pool_versions(data: ReportData, pool: str) -> list[int]:
    """The versions of ``pool`` in leaderboard order (unrated ones last)."""
    ordered = [s.bot_version_id for s in data.rated.table(pool)]
    extra = sorted({s.version_id for m in data.matches if m.pool == pool for s in m.seats} - set(ordered))
    return ordered + extra


@dataclass(frozen=True)
class NotableMatch:
    match: MatchRecord
    seat: SeatRecord
    margin: float  # how far the score beat the best other score (tables; in the game's score order), or the score (solitaires)


def margin(match: MatchRecord, seat: SeatRecord) -> float:
    if match.num_players == 1:
        return seat.score or 0.0
    others = [s.score or 0.0 for s in match.seats if s.seat != seat.seat]
    if ratings_trueskill_model.facts_of(match.game).higher_is_better:
        return (seat.score or 0.0) - max(others)
    return min(others) - (seat.score or 0.0)  # penalty points (Elfer raus): fewer is better


def notable_matches(data: ReportData, version_id: int, count: int = 5) -> tuple[list[NotableMatch], list[NotableMatch]]:
    """(best wins, worst losses) of a version. Tables: won (ranked 1st) by the widest margin, lost (ranked
    last, failures first) by the widest; solitaires: the highest and the lowest scores."""
    played = _played_seats(data, version_id)
    tables = [n for n in played if n.match.num_players > 1]
    solos = [n for n in played if n.match.num_players == 1]
    best, worst = _widest_wins_and_losses(tables, count)
    best += sorted(solos, key=lambda n: (-n.margin, n.match.match_id))[:count]
    worst += sorted(solos, key=lambda n: (not n.seat.failure_reason, n.margin, n.match.match_id))[:count]
    return best, worst


def _played_seats(data: ReportData, version_id: int) -> list[NotableMatch]:
    """A version's seat in every match of it that was played (skipped and errored ones have no result),
    with its margin."""
    played = []
    for match in data.matches_of(version_id):
        seat = match.seat_of(version_id)
        if match.status == MatchStatus.PLAYED and seat is not None:
            played.append(NotableMatch(match, seat, margin(match, seat)))
    return played


def _widest_wins_and_losses(tables: list[NotableMatch], count: int) -> tuple[list[NotableMatch], list[NotableMatch]]:
    """The ``count`` wins by the widest margin and the ``count`` worst losses (failures first, then the lowest
    rank, then the widest margin) among a version's table matches."""
    wins = [n for n in tables if n.seat.rank == 1 and not n.seat.failure_reason]
    losses = [n for n in tables if (n.seat.rank or 0) > 1 or n.seat.failure_reason]
    best = sorted(wins, key=lambda n: (-n.margin, n.match.match_id))[:count]
    worst = sorted(losses, key=lambda n: (not n.seat.failure_reason, -(n.seat.rank or 0), n.margin, n.match.match_id))[
        :count
    ]
    return best, worst


@dataclass(frozen=True)
class FailureRecord:
    match: MatchRecord
    seat: SeatRecord


def failures(data: ReportData, version_ids: Iterable[int], newest_first: bool = True) -> list[FailureRecord]:
    wanted = set(version_ids)
    found = [FailureRecord(m, s) for m in data.matches for s in m.seats if s.version_id in wanted and s.failure_reason]
    return sorted(found, key=lambda f: f.match.match_id, reverse=newest_first)


def exception_line(stderr: str) -> str:
    """The line that names the error in a Python traceback on stderr (its last line), or ``""`` without one."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not any(line.startswith("Traceback (most recent call last)") for line in lines):
        return ""
    return lines[-1][:300]


@dataclass(frozen=True)
class FailureGroup:
    """The failures of a bot that look alike: the same reason, the same first line of detail but for its
    numbers (a timeout's CPU seconds, the move it came at), the same error line of the traceback on stderr.
    ``detail``: the newest one's; ``alike``: every detail of the group was that one. ``latest``: the newest first."""

    reason: str
    detail: str
    traceback_line: str
    count: int
    latest: tuple[FailureRecord, ...]
    alike: bool = True

    @property
    def example(self) -> FailureRecord:
        return self.latest[0]


def failure_groups(found: list[FailureRecord], keep: int = 5) -> list[FailureGroup]:
    """``found`` (newest first) grouped by :class:`FailureGroup`'s key, the most frequent group first."""
    groups: dict[tuple[str, str, str], list[FailureRecord]] = defaultdict(list)
    for failure in found:
        shape = _NUMBER.sub("#", _first_line(failure))
        groups[(failure.seat.failure_reason or "", shape, exception_line(failure.seat.stderr_tail))].append(failure)
    made = [
        FailureGroup(
            reason,
            _first_line(items[0]),
            line,
            len(items),
            tuple(items[:keep]),
            alike=len({_first_line(item) for item in items}) == 1,
        )
        for (reason, _shape, line), items in groups.items()
    ]
    return sorted(made, key=lambda g: (-g.count, -g.latest[0].match.match_id))


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _first_line(failure: FailureRecord) -> str:
    return (failure.seat.failure_detail.strip().splitlines() or [""])[0][:300]


@dataclass
class Record:
    """A version's results over every match it sat in."""

    matches: int = 0
    firsts: int = 0
    failures: int = 0
    skipped: int = 0
    errors: int = 0


def record(data: ReportData, version_id: int) -> Record:
    found = Record()
    for match in data.matches_of(version_id):
        seat = match.seat_of(version_id)
        assert seat is not None
        if match.status == MatchStatus.SKIPPED:
            found.skipped += 1
        elif match.status == MatchStatus.ERROR:
            found.errors += 1
        else:
            found.matches += 1
            found.firsts += seat.rank == 1 and not seat.failure_reason and match.num_players > 1
            found.failures += bool(seat.failure_reason)
    return found


def solitaire_scores(data: ReportData, version_id: int) -> dict[str, list[float]]:
    """A version's scores in each solitaire pool it played, in match order."""
    scores: dict[str, list[float]] = defaultdict(list)
    for match in data.matches_of(version_id):
        seat = match.seat_of(version_id)
        if (
            match.num_players == 1
            and match.status == MatchStatus.PLAYED
            and seat is not None
            and seat.score is not None
        ):
            scores[match.pool].append(seat.score)
    return dict(scores)


def history_of(data: ReportData, version_id: int) -> dict[str, list[HistoryPoint]]:
    """A version's rating after each rated event of each pool it played."""
    found: dict[str, list[HistoryPoint]] = defaultdict(list)
    for point in data.history:
        if point.bot_version_id == version_id:
            found[point.pool].append(point)
    return dict(found)
