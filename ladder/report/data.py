"""Everything the report shows, read from the database in one place.

The report's pages and ``ladder bot``/``ladder logs`` read the database only
through this module: bot versions, tournaments, matches with their seats,
and the ratings (the stored ones when they are fresh, else computed now
from the matches, with their history). What is derived from those records
(head-to-head counts, a bot's best wins and worst losses, the chance that a
row of a leaderboard is really above the next one) is computed here too, so
a new rating figure is added in one module.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from ladder.matches.statuses import MatchStatus
from ladder.ratings import certainty
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.certainty import PoolCertainty
from ladder.ratings.trueskill_model import HistoryPoint, RatingSet, Standing, pool_key
from ladder.ratings.verdict import Ledger
from ladder.seats.botref import BotRef
from ladder.store.action_log import unpack_actions
from ladder.store.tables import (
    BenchRow,
    BotRow,
    BotVersionRow,
    MatchRow,
    SeatResultRow,
    TournamentRow,
    live_state,
)


def is_solitaire(pool: str) -> bool:
    """Whether the pool's game is a solitaire, as the game declares it (rated deal by deal)."""
    return ratings_trueskill_model.facts_of(pool.partition("/")[0]).solitaire


def pool_title(pool: str) -> str:
    """``elevenses: 3 players`` or ``bowling-solitaire: solitaire, duplicate deals``."""
    game, _, players = pool.partition("/")
    count = int(players.rstrip("p"))
    return f"{game}: solitaire, duplicate deals" if count == 1 else f"{game}: {count} players"


def slug(text: str) -> str:
    """A file-name-safe form of ``text`` (bot names and pools are in file names)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "x"


@dataclass(frozen=True)
class VersionInfo:
    """A bot version as the report names it."""

    version_id: int
    bot: str
    author: str
    version: str
    content_hash: str
    source: str
    games: tuple[str, ...]
    created_at: datetime | None

    @property
    def label(self) -> str:
        return f"{self.bot}@{self.content_hash[:8]}"

    @property
    def short(self) -> str:
        return f"{self.version} {self.content_hash[:6]}"

    @property
    def page(self) -> str:
        """The bot page's path inside the site."""
        return f"bots/{slug(self.bot)}-{self.content_hash[:8]}.html"


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    version_id: int
    score: float | None
    rank: int | None
    failure_reason: str | None
    failure_detail: str
    stderr_tail: str
    at_action: int | None


@dataclass(frozen=True)
class MatchRecord:
    """A recorded match without its action log (see :func:`match_actions`)."""

    match_id: int
    tournament_id: int
    key: str
    deal: str
    game: str
    options: dict[str, Any]
    num_players: int
    seed: int
    status: str
    error: str
    seconds: float
    think: tuple[float, ...]
    action_count: int
    finished_at: datetime
    seats: tuple[SeatRecord, ...]

    @property
    def pool(self) -> str:
        return pool_key(self.game, self.num_players)

    @property
    def page(self) -> str:
        return f"matches/{self.match_id}.html"

    def seat_of(self, version_id: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.version_id == version_id), None)


@dataclass(frozen=True)
class TournamentRecord:
    tournament_id: int
    name: str
    file: str
    seed: int
    fingerprint: str
    state: str
    scheduled: int
    cycles: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    config: dict[str, Any]
    benched: tuple[tuple[int, str], ...]  # (bot version id, reason)

    @property
    def page(self) -> str:
        return f"tournaments/{self.tournament_id}.html"


@dataclass
class ReportData:
    """The whole database as the report needs it."""

    versions: dict[int, VersionInfo]
    tournaments: dict[int, TournamentRecord]
    matches: list[MatchRecord]
    rated: RatingSet
    ratings_fresh: bool  # False: the stored ratings missed matches and were computed now
    history: list[HistoryPoint] = field(default_factory=list)
    evidence: Ledger | None = None  # the paired evidence of every pool (None: the verdict from the posteriors)

    def name(self, version_id: int) -> str:
        """The bot's name, with its version (or short hash) when the report holds another version of it."""
        info = self.versions.get(version_id)
        if info is None:
            return f"#{version_id}"
        twins = [v for v in self.versions.values() if v.bot == info.bot]
        if len(twins) == 1:
            return info.bot
        if sum(v.version == info.version for v in twins) == 1:
            return f"{info.bot}@{info.version}" if info.version.startswith("v") else f"{info.bot}@v{info.version}"
        return info.label

    def tournament_statuses(self, tournament_id: int) -> Counter[str]:
        """A tournament's matches by status, as ``ladder tournaments`` counts them: a match with a version of one
        of its bots older than that bot's latest counts as "older versions" (a new version has its own matches to
        play), so that played + skipped never exceeds what the schedule asks for now."""
        latest: dict[str, int] = {}
        for version in self.versions.values():
            latest[version.bot] = max(latest.get(version.bot, 0), version.version_id)
        counts: Counter[str] = Counter()
        for match in self.matches:
            if match.tournament_id != tournament_id:
                continue
            older = any(
                s.version_id in self.versions and latest[self.versions[s.version_id].bot] != s.version_id
                for s in match.seats
            )
            counts["older versions" if older else match.status] += 1
        return counts

    def matches_of(self, version_id: int) -> list[MatchRecord]:
        return [m for m in self.matches if any(s.version_id == version_id for s in m.seats)]

    def versions_named(self, ref: str) -> list[VersionInfo]:
        """The versions meant by ``ref``: a bot name (every version) or ``name@hashprefix``."""
        wanted = BotRef.parse(ref)
        return [v for v in self.versions.values() if wanted.matches_version(v.bot, v.content_hash)]


def load_versions(session: Session) -> dict[int, VersionInfo]:
    """Every bot version, by id, as the report names it."""
    return {
        v.id: VersionInfo(v.id, b.name, b.author, v.version, v.content_hash, v.source, tuple(v.games), v.created_at)
        for v, b in session.exec(
            select(BotVersionRow, BotRow).join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
        ).all()
        if v.id is not None
    }


_MATCH_COLUMNS = (
    MatchRow.id,
    MatchRow.tournament_id,
    MatchRow.key,
    MatchRow.deal,
    MatchRow.game,
    MatchRow.options_json,
    MatchRow.num_players,
    MatchRow.seed,
    MatchRow.status,
    MatchRow.error,
    MatchRow.seconds,
    MatchRow.think_json,
    MatchRow.action_count,
    MatchRow.finished_at,
)


def _match_record(values: Any, seats: Iterable[SeatRecord]) -> MatchRecord:
    mid, tid, key, deal, game, options, players, seed, status, error, seconds, think, count, finished = values
    return MatchRecord(
        mid,
        tid,
        key,
        deal,
        game,
        json.loads(options or "{}"),
        players,
        seed,
        status,
        error,
        seconds,
        tuple(json.loads(think or "[]")),
        count,
        finished,
        tuple(seats),
    )


def _seat_record(s: SeatResultRow) -> SeatRecord:
    return SeatRecord(
        s.seat, s.bot_version_id, s.score, s.rank, s.failure_reason, s.failure_detail, s.stderr_tail, s.at_action
    )


def load_match(session: Session, match_id: int) -> MatchRecord | None:
    """One recorded match (without its action log), as :func:`load` reads them all: what a server needs to
    replay a single match on request."""
    values = session.exec(select(*_MATCH_COLUMNS).where(MatchRow.id == match_id)).first()  # type: ignore[call-overload]
    if values is None:
        return None
    seats = session.exec(
        select(SeatResultRow).where(SeatResultRow.match_id == match_id).order_by(col(SeatResultRow.seat))
    ).all()
    return _match_record(values, (_seat_record(s) for s in seats))


def load(session: Session) -> ReportData:
    """Read everything the report shows from ``session``'s database."""
    versions = load_versions(session)
    benched: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for bench in session.exec(select(BenchRow).order_by(BenchRow.id)).all():  # type: ignore[arg-type]
        benched[bench.tournament_id].append((bench.bot_version_id, bench.reason))
    tournaments = {
        t.id: TournamentRecord(
            t.id,
            t.name,
            t.file,
            t.seed,
            t.fingerprint,
            live_state(t),
            t.scheduled,
            t.cycles,
            t.created_at,
            t.updated_at,
            t.finished_at,
            t.config,
            tuple(benched[t.id]),
        )
        for t in session.exec(select(TournamentRow).order_by(TournamentRow.id)).all()  # type: ignore[arg-type]
        if t.id is not None
    }
    seats: dict[int, list[SeatRecord]] = defaultdict(list)
    for s in session.exec(select(SeatResultRow).order_by(SeatResultRow.match_id, SeatResultRow.seat)).all():  # type: ignore[arg-type]
        seats[s.match_id].append(_seat_record(s))
    matches = [
        _match_record(values, seats.get(values[0], ()))
        for values in session.exec(select(*_MATCH_COLUMNS).order_by(MatchRow.id)).all()  # type: ignore[call-overload]
    ]
    facts = ratings_persistence.load_match_facts(session)
    rated, fresh = ratings_persistence.current(session, history=True, facts=facts)  # stale: one computation, both
    history = ratings_persistence.rating_history(session, facts) if fresh else rated.history
    evidence = certainty.paired_evidence(facts)
    return ReportData(versions, tournaments, matches, rated, fresh, history, evidence)


def match_actions(session: Session, match_ids: Iterable[int]) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The action logs of ``match_ids``, one match at a time (they are the bulk of the database)."""
    for match_id in match_ids:
        blob = session.exec(select(MatchRow.actions_z).where(MatchRow.id == match_id)).first()
        yield match_id, unpack_actions(blob or b"")


def unpack_move_us(blob: bytes) -> list[int]:
    """Each move's thinking time in microseconds, as the recorder packed it (empty: not recorded)."""
    values = json.loads(zlib.decompress(blob)) if blob else []
    return [int(value) for value in values] if isinstance(values, list) else []


# ---- derived figures -------------------------------------------------------------------------------


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
    names = {v: info.bot for v, info in data.versions.items()}
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
    sign = -ratings_trueskill_model.facts_of(
        pool.partition("/")[0]
    ).score_sign  # the game's score order: lower key is better
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
