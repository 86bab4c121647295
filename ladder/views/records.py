"""The database as the report, ``ladder bot``/``ladder logs`` and the served pages read it: records.

Bot versions, tournaments, matches with their seats, and the ratings (the
stored ones when they are fresh, else computed now from the matches, with
their history), as frozen values. What is derived from them (head-to-head
counts, a bot's best wins and worst losses, P(above next)) is in
:mod:`ladder.views.figures`, so a new rating figure is added in one module.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from ladder.ratings import certainty
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import HistoryPoint, RatingSet, pool_key
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
    return ratings_trueskill_model.facts_of(PoolKey.parse(pool).game).solitaire


def pool_title(pool: str) -> str:
    """``elevenses: 3 players`` or ``bowling-solitaire: solitaire, duplicate deals``."""
    key = PoolKey.parse(pool)
    return f"{key.game}: solitaire, duplicate deals" if key.players == 1 else f"{key.game}: {key.players} players"


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
    hidden: bool = False  # the detail and stderr were withheld from this reader (ladder.views.served.seat_failure)


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


def match_blobs(session: Session, match_id: int) -> tuple[bytes, bytes]:
    """A match's packed action log and packed thinking times (empty when not recorded): what a replay is made of."""
    row = session.exec(select(MatchRow.actions_z, MatchRow.move_us_z).where(MatchRow.id == match_id)).first()
    return (row[0] or b"", row[1] or b"") if row is not None else (b"", b"")


def unpack_move_us(blob: bytes) -> list[int]:
    """Each move's thinking time in microseconds, as the recorder packed it (empty: not recorded)."""
    values = json.loads(zlib.decompress(blob)) if blob else []
    return [int(value) for value in values] if isinstance(values, list) else []
