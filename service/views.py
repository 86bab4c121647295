"""What the pages and the JSON API show, read from the database: one place for both, as pydantic models.

Public: the leaderboards (with each pool's verdict: settled or not yet, and why), bots and their ratings, head to
head, matches. Private to a bot's author and the operator: submissions with the check's output, and the bot's
stderr from its failed matches (:func:`bot_failures` takes the viewer and says 403 for anyone else).
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import ColumnElement
from sqlmodel import Session, col, select

from ladder.ratings import certainty
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings import trueskill_model as ratings_trueskill_model
from ladder.ratings.trueskill_model import RatingSet
from ladder.ratings.verdict import Ledger
from ladder.report import data as report_data
from ladder.store.served_tables import AuthorRow, ServedBotRow, ServedVersionRow, SubmissionRow
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, SeatResultRow


class Row(BaseModel):
    rank: int
    bot: str
    version: str
    content_hash: str
    version_id: int
    author: str
    state: str  # active, superseded, paused, benched, retired, house
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    failures: int
    rank_low: int | None = None  # the ranks the paired tests do not rule out
    rank_high: int | None = None
    above_next: float | None = None  # its confidence of being better than the next row's bot; None on the last row


class Standing(Row):
    """A leaderboard row on a bot's page, which lists the bot's rows of every pool: so it names its pool."""

    pool: str


class Leaderboard(BaseModel):
    pool: str
    verdict: str
    reason: str
    rows: list[Row]


class SubmissionView(BaseModel):
    id: int
    author: str
    state: str
    filename: str
    bot: str
    content_hash: str
    problem: str
    explanation: str
    created_at: datetime
    finished_at: datetime | None
    attempts: int


class FailureView(BaseModel):
    match_id: int
    pool: str
    version: str
    reason: str
    detail: str
    stderr_tail: str
    finished_at: datetime | None


class SeatView(BaseModel):
    seat: int
    bot: str
    version_id: int
    score: float | None
    rank: int | None
    failure: str | None


class MatchView(BaseModel):
    id: int
    key: str
    game: str
    players: int
    status: str
    finished_at: datetime | None
    seats: list[SeatView]


class BotView(BaseModel):
    name: str
    author: str
    state: str
    reason: str
    versions: list[dict[str, object]]
    standings: list[Standing]
    recent: list[MatchView]


def _names(session: Session) -> dict[int, tuple[str, str, str]]:
    """version id -> (bot name, version label, content hash)."""
    return {
        v.id: (b.name, v.version, v.content_hash)
        for v, b in session.exec(
            select(BotVersionRow, BotRow).join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
        ).all()
        if v.id is not None
    }


def _states(session: Session) -> tuple[dict[int, str], dict[int, str]]:
    """version id -> served state, and version id -> author name."""
    authors = {a.id: a.name for a in session.exec(select(AuthorRow)).all()}
    bots = {b.bot_id: b for b in session.exec(select(ServedBotRow)).all()}
    states, owners = {}, {}
    for served in session.exec(select(ServedVersionRow)).all():
        bot = bots.get(served.bot_id)
        states[served.bot_version_id] = bot.state if bot is not None and bot.state != "active" else served.state
        owners[served.bot_version_id] = authors.get(served.author_id, "?")
    return states, owners


class _RatingsCache:
    """The ratings the pages show: the stored ones when fresh, else computed from the matches, at most once per
    :data:`STALE_SECONDS` while matches arrive (the scheduler stores fresh ones every few seconds anyway).

    Computing them reads and rates every match (1.4 s at 2,000 matches) and anyone may ask for a page, so one
    request at a time looks (a crowd waits for that one and shares its answer), and the pages compute at most
    a tenth of the time: between computations they show the last ones, or the scheduler's stored ones once fresh.
    """

    STALE_SECONDS = 2.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.marker: tuple[int, int] | None = None
        self.rated: RatingSet | None = None
        self.evidence: Ledger | None = None
        self.at = 0.0
        self.computed_at = 0.0
        self.gap = self.STALE_SECONDS

    def get(self, session: Session) -> RatingSet:
        marker = ratings_persistence.played_matches_marker(session)
        with self.lock:
            now = time.monotonic()
            if self.rated is not None and (marker == self.marker or now - self.at < self.STALE_SECONDS):
                return self.rated
            stored = ratings_persistence.load_stored(session)
            if stored is not None:
                self._keep(session, marker, stored)
                self.at = now
                return stored
            if self.rated is not None and now - self.computed_at < self.gap:
                return self.rated
            rated = ratings_persistence.rate_database(session)
            self._keep(session, marker, rated)
            self.at = self.computed_at = time.monotonic()
            self.gap = max(self.STALE_SECONDS, 10 * (self.computed_at - now))
            return rated

    def _keep(self, session: Session, marker: tuple[int, int], rated: RatingSet) -> None:
        """Keep ``rated`` and the paired evidence of the same matches (the verdict the pages show)."""
        self.evidence = certainty.paired_evidence(ratings_persistence.load_match_facts(session))
        self.marker, self.rated = marker, rated


RATINGS = _RatingsCache()


def leaderboards(session: Session) -> list[Leaderboard]:
    """Every pool's leaderboard with its verdict and each row's rank interval and P(above next): the static
    report's own figures (:func:`ladder.report.data.pool_certainty` and :func:`ladder.report.data.leaderboard`,
    so ``ladder rankings``, the report and these pages agree), on the ratings of :data:`RATINGS`."""
    data = report_data.ReportData(
        versions=report_data.load_versions(session),
        tournaments={},
        matches=[],
        rated=RATINGS.get(session),
        ratings_fresh=True,
        evidence=RATINGS.evidence,
    )
    states, owners = _states(session)
    boards = []
    for pool in data.rated.pools():
        sure = report_data.pool_certainty(data, pool)
        rows = []
        for line in report_data.leaderboard(data, pool, sure):
            s = line.standing
            info = data.versions.get(s.bot_version_id)
            low, high = line.rank_interval or (None, None)
            rows.append(
                Row(
                    rank=line.position,
                    bot=info.bot if info else "?",
                    version=info.version if info else "",
                    content_hash=info.content_hash if info else "",
                    version_id=s.bot_version_id,
                    author=owners.get(s.bot_version_id, ""),
                    state=states.get(s.bot_version_id, "house"),
                    mu=round(s.mu, 3),
                    sigma=round(s.sigma, 3),
                    conservative=round(s.conservative, 3),
                    matches=s.matches,
                    wins=s.wins,
                    failures=s.failures,
                    rank_low=low,
                    rank_high=high,
                    above_next=None if line.above_next is None else round(line.above_next, 4),
                )
            )
        boards.append(Leaderboard(pool=pool, verdict=sure.verdict.value, reason=sure.reason, rows=rows))
    return boards


def submission_view(session: Session, row: SubmissionRow) -> SubmissionView:
    author = session.get(AuthorRow, row.author_id)
    assert row.id is not None
    return SubmissionView(
        id=row.id,
        author=author.name if author else "?",
        state=row.state,
        filename=row.filename,
        bot=row.bot_name,
        content_hash=row.content_hash,
        problem=row.problem,
        explanation=row.explanation,
        created_at=row.created_at,
        finished_at=row.finished_at,
        attempts=row.attempts,
    )


def submissions_of(session: Session, author: AuthorRow | None) -> list[SubmissionView]:
    """An author's submissions, newest first (every author's for None: the operator's view)."""
    query = select(SubmissionRow).order_by(col(SubmissionRow.id).desc())
    if author is not None:
        query = query.where(SubmissionRow.author_id == author.id)
    return [submission_view(session, row) for row in session.exec(query.limit(200)).all()]


def may_see_private(viewer: AuthorRow | None, owner_id: int | None) -> bool:
    """Whether ``viewer`` may see what belongs to the author ``owner_id``: that author, or the operator."""
    return viewer is not None and (viewer.is_operator or (owner_id is not None and viewer.id == owner_id))


def _match_views(session: Session, match_ids: list[int], names: dict[int, tuple[str, str, str]]) -> list[MatchView]:
    if not match_ids:
        return []
    seats: dict[int, list[SeatView]] = defaultdict(list)
    for s in session.exec(
        select(SeatResultRow)
        .where(col(SeatResultRow.match_id).in_(match_ids))
        .order_by(col(SeatResultRow.match_id), col(SeatResultRow.seat))
    ).all():
        seats[s.match_id].append(
            SeatView(
                seat=s.seat,
                bot=names.get(s.bot_version_id, ("?", "", ""))[0],
                version_id=s.bot_version_id,
                score=s.score,
                rank=s.rank,
                failure=s.failure_reason,
            )
        )
    rows = session.exec(select(MatchRow).where(col(MatchRow.id).in_(match_ids)).order_by(col(MatchRow.id).desc())).all()
    return [
        MatchView(
            id=m.id or 0,
            key=m.key,
            game=m.game,
            players=m.num_players,
            status=m.status,
            finished_at=m.finished_at,
            seats=seats.get(m.id or 0, []),
        )
        for m in rows
    ]


def match_view(session: Session, match_id: int) -> MatchView | None:
    views = _match_views(session, [match_id], _names(session))
    return views[0] if views else None


def bot_view(session: Session, name: str) -> tuple[BotView, int | None] | None:
    """A bot's public page, and its owner's author id (None for a bot that is not the served ladder's)."""
    bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
    if bot is None or bot.id is None:
        return None
    served = session.get(ServedBotRow, bot.id)
    owner = session.get(AuthorRow, served.author_id) if served is not None else None
    versions = session.exec(
        select(BotVersionRow).where(BotVersionRow.bot_id == bot.id).order_by(col(BotVersionRow.id))
    ).all()
    ids = {v.id for v in versions}
    states, _owners = _states(session)
    standings = [
        Standing(pool=board.pool, **row.model_dump())
        for board in leaderboards(session)
        for row in board.rows
        if row.version_id in ids
    ]
    names = _names(session)
    recent_ids = list(
        session.exec(
            select(SeatResultRow.match_id)
            .where(col(SeatResultRow.bot_version_id).in_(ids))
            .order_by(col(SeatResultRow.match_id).desc())
            .limit(20)
        ).all()
    )
    view = BotView(
        name=bot.name,
        author=owner.name if owner else bot.author,
        state=served.state if served else "house",
        reason=served.reason if served else "",
        versions=[
            {
                "id": v.id,
                "version": v.version,
                "content_hash": v.content_hash,
                "state": states.get(v.id or 0, "house"),
                "created_at": v.created_at.isoformat(),
            }
            for v in versions
        ],
        standings=standings,
        recent=_match_views(session, recent_ids, names),
    )
    return view, (served.author_id if served else None)


def bot_failures(session: Session, name: str, limit: int = 20) -> list[FailureView]:
    """The bot's latest failed seats with the end of its stderr (shown only to its author and the operator)."""
    return _bot_seats(session, name, col(SeatResultRow.failure_reason).is_not(None), limit)


def bot_stderr(session: Session, name: str, limit: int = 20) -> list[FailureView]:
    """The end of the bot's stderr from its latest matches (failed or not), newest first."""
    return _bot_seats(session, name, col(SeatResultRow.stderr_tail) != "", limit)


def _bot_seats(session: Session, name: str, which: ColumnElement[bool], limit: int) -> list[FailureView]:
    """The bot's latest seats that meet ``which`` (a condition on its seat rows), newest first."""
    bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
    if bot is None:
        return []
    versions = {
        v.id: v.version for v in session.exec(select(BotVersionRow).where(BotVersionRow.bot_id == bot.id)).all()
    }
    rows = session.exec(
        select(SeatResultRow, MatchRow)
        .join(MatchRow, col(MatchRow.id) == col(SeatResultRow.match_id))
        .where(col(SeatResultRow.bot_version_id).in_(list(versions)), which)
        .order_by(col(SeatResultRow.match_id).desc())
        .limit(limit)
    ).all()
    return [
        FailureView(
            match_id=m.id or 0,
            pool=ratings_trueskill_model.pool_key(m.game, m.num_players),
            version=versions.get(s.bot_version_id, "?"),
            reason=s.failure_reason or "",
            detail=s.failure_detail,
            stderr_tail=s.stderr_tail,
            finished_at=m.finished_at,
        )
        for s, m in rows
    ]


class PairView(BaseModel):
    bot: str
    version_id: int
    opponent: str
    opponent_version_id: int
    ahead: int
    behind: int
    tied: int
    share: float  # (ahead + tied / 2) / met


class HeadToHead(BaseModel):
    pool: str
    order: list[int]  # version ids, leaderboard order
    names: dict[int, str]
    pairs: list[PairView]


def head_to_head(session: Session, pool: str) -> HeadToHead:
    """Who finished ahead of whom in ``pool`` (the report's own count, :func:`ladder.report.data.head_to_head`),
    from :data:`REPORT`'s copy of the database."""
    return REPORT.head_to_head(session, pool)


class _ReportCache:
    """The report's data behind the head-to-head pages, which anyone may ask for without a token. Loading it
    reads the whole database (0.7 s at 2,000 matches, and growing), so it is loaded by one request at a time (a
    crowd asking together waits for that load and shares it), and again only when matches arrived and the copy
    is older than :data:`STALE_SECONDS` or ten times its own load (the pages never spend more than a tenth of
    the time on it). Each pool's counts are kept with the copy; an unknown pool is answered empty without a
    count, so made-up pool names neither cost a pass over the matches nor fill the cache."""

    STALE_SECONDS = 2.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.marker: tuple[int, int] | None = None
        self.data: report_data.ReportData | None = None
        self.known: set[str] = set()
        self.pools: dict[str, HeadToHead] = {}
        self.at = 0.0
        self.gap = self.STALE_SECONDS

    def head_to_head(self, session: Session, pool: str) -> HeadToHead:
        marker = ratings_persistence.played_matches_marker(session)
        with self.lock:
            if self.data is None or (marker != self.marker and time.monotonic() - self.at >= self.gap):
                started = time.monotonic()
                self.data = report_data.load(session)
                self.marker, self.at, self.pools = marker, time.monotonic(), {}
                self.known = {match.pool for match in self.data.matches} | set(self.data.rated.pools())
                self.gap = max(self.STALE_SECONDS, 10 * (self.at - started))
            if pool not in self.known:
                return HeadToHead(pool=pool, order=[], names={}, pairs=[])
            if pool not in self.pools:
                self.pools[pool] = _count_head_to_head(self.data, pool)
            return self.pools[pool]


def _count_head_to_head(loaded: report_data.ReportData, pool: str) -> HeadToHead:
    counts = report_data.head_to_head(loaded, pool)
    order = report_data.pool_versions(loaded, pool)
    names = {v: loaded.name(v) for v in order}
    pairs = [
        PairView(
            bot=names.get(a, loaded.name(a)),
            version_id=a,
            opponent=names.get(b, loaded.name(b)),
            opponent_version_id=b,
            ahead=c.ahead,
            behind=c.behind,
            tied=c.tied,
            share=round(c.share, 4),
        )
        for (a, b), c in sorted(counts.items())
    ]
    return HeadToHead(pool=pool, order=order, names=names, pairs=pairs)


REPORT = _ReportCache()
