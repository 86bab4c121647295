"""What the served pages and the JSON API show, read from the database: one place for both, as pydantic models.

Public: the leaderboards (with each pool's verdict: settled or not yet, and why), bots and their ratings, head to
head, matches, and of a failed seat the failure's kind. Private to a bot's author and the operator: submissions
with the check's output, the bot's stderr, and the failure's detail (its exception message, its traceback). Who
may see what of a seat is decided in one place, :func:`seat_failure` (the privacy model, docs/serve.md).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import defaultdict
from datetime import datetime

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, inspect
from sqlmodel import Session, col, select

from ladder.errors import Forbidden, NotFound
from ladder.ratings import certainty, trueskill_model
from ladder.ratings import persistence as ratings_persistence
from ladder.ratings.pools import PoolKey
from ladder.ratings.trueskill_model import RatingSet
from ladder.ratings.verdict import Ledger
from ladder.store.served_tables import AuthorRow, ServedBotRow, SubmissionRow, SubmissionState
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, SeatResultRow
from ladder.views import catalog, figures, leaderboard, records, states


class Standing(leaderboard.BoardRow):
    """A leaderboard row on a bot's page, which lists the bot's rows of every pool: so it names its pool."""

    pool: str


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
    reason: str  # the failure's kind: public
    detail: str  # these two: its author's and the operator's only (:func:`seat_failure`)
    stderr_tail: str
    hidden: bool
    finished_at: datetime | None


class SeatFailure(BaseModel):
    """What a viewer may see of a seat's failure and stderr: the kind always (``timeout``, ``crash``, ``illegal``,
    ``exception``...), the bot's own words (the failure's detail, its stderr) only when ``hidden`` is False."""

    model_config = ConfigDict(frozen=True)

    kind: str | None
    detail: str
    stderr: str
    hidden: bool


def seat_failure(may_see: bool, kind: str | None, detail: str, stderr: str) -> SeatFailure:
    """The privacy model's one rule for a seat (docs/serve.md): the failure's kind is public; its detail (the
    bot's exception message, a traceback) and the bot's stderr are its author's and the operator's alone.

    ``hidden`` is True for every viewer who may not see them, whether or not there was anything to see: "(hidden)"
    must not tell the others whether a bot wrote to stderr."""
    if may_see:
        return SeatFailure(kind=kind, detail=detail, stderr=stderr, hidden=False)
    return SeatFailure(kind=kind, detail="", stderr="", hidden=True)


def visible_seat(seat: records.SeatRecord, may_see: bool) -> records.SeatRecord:
    """``seat`` as a viewer who may (or may not) see its private data sees it (:func:`seat_failure`): what the
    served replays and the static report write."""
    shown = seat_failure(may_see, seat.failure_reason, seat.failure_detail, seat.stderr_tail)
    return dataclasses.replace(seat, failure_detail=shown.detail, stderr_tail=shown.stderr, hidden=shown.hidden)


BENCH_REASON_HIDDEN = "benched after failing too often (the failures' detail is its author's)"


def has_served_authors(session: Session) -> bool:
    """Whether the database holds bots that authors submitted to a served ladder (whose private data is theirs)."""
    if not inspect(session.get_bind()).has_table(ServedBotRow.__tablename__):
        return False
    return session.exec(select(ServedBotRow.bot_id).limit(1)).first() is not None


def public_report_data(data: records.ReportData) -> records.ReportData:
    """``data`` as anyone may read it (the static report of a served ladder): every seat as :func:`visible_seat`
    shows it to a viewer who may not see its private data, and the bench reasons (which quote a failure's detail)
    replaced by their public gist."""
    return dataclasses.replace(
        data,
        matches=[
            dataclasses.replace(match, seats=tuple(visible_seat(seat, False) for seat in match.seats))
            for match in data.matches
        ],
        tournaments={
            tid: dataclasses.replace(t, benched=tuple((version, BENCH_REASON_HIDDEN) for version, _ in t.benched))
            for tid, t in data.tournaments.items()
        },
    )


class SeatView(BaseModel):
    seat: int
    bot: str
    version_id: int
    score: float | None
    rank: int | None
    failure: str | None  # the kind: public
    detail: str  # the failure's detail: its author's and the operator's only ("" and hidden for anyone else)
    hidden: bool


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


def _database_of(session: Session) -> str:  # a cache's copy is of one database (a test process serves several)
    return str(session.get_bind().engine.url)


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
            self.rated = self.rated if getattr(self, "database", None) == _database_of(session) else None
            self.database = _database_of(session)
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


class _LatestCache:
    """The ratings among the current versions (:func:`ladder.views.leaderboard.among_current`), the pages' default:
    computed by one request at a time, again when matches or states changed and the copy is past its gap."""

    STALE_SECONDS = 2.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.marker: tuple[tuple[int, int], frozenset[int]] | None = None
        self.found: tuple[RatingSet, Ledger] | None = None
        self.at = 0.0
        self.gap = self.STALE_SECONDS

    def get(self, session: Session) -> tuple[RatingSet, Ledger]:
        marker = (ratings_persistence.played_matches_marker(session), frozenset(states.current_versions(session)))
        with self.lock:
            now = time.monotonic()
            if getattr(self, "database", None) != _database_of(session):
                self.found, self.database = None, _database_of(session)
            if self.found is not None and (marker == self.marker or now - self.at < self.gap):
                return self.found
            self.found = rate_current(session)  # the module's, looked up now (a test counts the calls)
            self.marker, self.at = marker, time.monotonic()
            self.gap = max(self.STALE_SECONDS, 10 * (self.at - now))
            return self.found


def rate_current(session: Session) -> tuple[RatingSet, Ledger]:
    """The ratings of the matches among the current versions and their paired evidence (the verdict's)."""
    facts = leaderboard.among_current(session, ratings_persistence.load_match_facts(session))
    return trueskill_model.compute(facts, history=False), certainty.paired_evidence(facts)


LATEST = _LatestCache()


def rankings(session: Session, versions: leaderboard.Versions = leaderboard.Versions.LATEST) -> leaderboard.Rankings:
    """Every pool's leaderboard with its verdict and each row's rank interval and P(above next), in the one schema
    (:mod:`ladder.views.leaderboard`, so ``ladder rankings --json``, the report and these pages agree): by default
    among the current versions (as ``ladder rankings --latest-versions``), on the ratings of :data:`LATEST`; with
    ``versions=all`` every version's, on the ratings of :data:`RATINGS`."""
    if versions is leaderboard.Versions.ALL:
        rated, evidence = RATINGS.get(session), RATINGS.evidence
    else:
        rated, evidence = LATEST.get(session)
    names = catalog.version_names(session)
    labels = catalog.distinct_labels(names)
    pools = rated.pools()
    sure = {
        pool: certainty.assess(
            rated.table(pool), pool, names=labels, evidence=evidence.pool(pool) if evidence is not None else None
        )
        for pool in pools
    }
    return leaderboard.rankings_of(rated, names, pools, sure, owned=leaderboard.owners(session))


def leaderboards(
    session: Session, versions: leaderboard.Versions = leaderboard.Versions.LATEST
) -> list[leaderboard.Leaderboard]:
    """The boards of :func:`rankings`, pool by pool."""
    return list(rankings(session, versions).pools.values())


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


def visible_submission(session: Session, submission_id: int, viewer: AuthorRow) -> SubmissionView:
    """A submission as ``viewer`` may see it: their own, or any for the operator. Another author's is answered
    as one that does not exist (:class:`~ladder.errors.NotFound`): ids are sequential, and a refusal would tell
    anyone with a token which ids exist and so how many bots the others send."""
    row = session.get(SubmissionRow, submission_id)
    if row is None or not may_see_private(viewer, row.author_id):
        raise NotFound(f"there is no submission #{submission_id} that you may see")
    return submission_view(session, row)


def queued_submissions(session: Session) -> int:
    """How many submissions wait for the checker (queued or being checked)."""
    waiting = [SubmissionState.QUEUED.value, SubmissionState.CHECKING.value]
    return len(session.exec(select(SubmissionRow.id).where(col(SubmissionRow.state).in_(waiting))).all())


def private_bot(session: Session, name: str, viewer: AuthorRow | None) -> BotView:
    """The bot ``name`` for a page of its private data (its stderr): :class:`~ladder.errors.Forbidden` unless
    ``viewer`` is its author or the operator."""
    bot, owner = bot_view(session, name, viewer)
    if not may_see_private(viewer, owner):
        raise Forbidden("a bot's stderr is shown only to its author and the operator")
    return bot


def may_see_private(viewer: AuthorRow | None, owner_id: int | None) -> bool:
    """Whether ``viewer`` may see what belongs to the author ``owner_id``: that author, or the operator."""
    return viewer is not None and (viewer.is_operator or (owner_id is not None and viewer.id == owner_id))


def seat_owners(session: Session, version_ids: list[int]) -> dict[int, int | None]:
    """version id -> the author id owning its bot on the served ladder (None: a house bot, no author's)."""
    rows = session.exec(
        select(BotVersionRow.id, ServedBotRow.author_id)
        .join(ServedBotRow, col(ServedBotRow.bot_id) == col(BotVersionRow.bot_id), isouter=True)
        .where(col(BotVersionRow.id).in_(version_ids))
    ).all()
    return {version_id: author_id for version_id, author_id in rows if version_id is not None}


def bot_names(session: Session, version_ids: list[int]) -> dict[int, str]:
    """version id -> its bot's name, for the versions ``version_ids``."""
    rows = session.exec(
        select(BotVersionRow.id, BotRow.name)
        .join(BotRow, col(BotRow.id) == col(BotVersionRow.bot_id))
        .where(col(BotVersionRow.id).in_(version_ids))
    ).all()
    return {version_id: name for version_id, name in rows if version_id is not None}


def _match_views(
    session: Session, match_ids: list[int], names: dict[int, tuple[str, str, str]], viewer: AuthorRow | None
) -> list[MatchView]:
    if not match_ids:
        return []
    seats: dict[int, list[SeatView]] = defaultdict(list)
    seat_rows = session.exec(
        select(SeatResultRow)
        .where(col(SeatResultRow.match_id).in_(match_ids))
        .order_by(col(SeatResultRow.match_id), col(SeatResultRow.seat))
    ).all()
    owners = seat_owners(session, sorted({s.bot_version_id for s in seat_rows}))
    for s in seat_rows:
        shown = seat_failure(
            may_see_private(viewer, owners.get(s.bot_version_id)), s.failure_reason, s.failure_detail, ""
        )
        seats[s.match_id].append(
            SeatView(
                seat=s.seat,
                bot=names.get(s.bot_version_id, ("?", "", ""))[0],
                version_id=s.bot_version_id,
                score=s.score,
                rank=s.rank,
                failure=shown.kind,
                detail=shown.detail,
                hidden=shown.hidden,
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


def match_view(session: Session, match_id: int, viewer: AuthorRow | None) -> MatchView:
    """A recorded match with its seats as ``viewer`` may see them (:class:`~ladder.errors.NotFound` when there is
    none)."""
    views = _match_views(session, [match_id], _names(session), viewer)
    if not views:
        raise NotFound(f"there is no match #{match_id}")
    return views[0]


def bot_view(session: Session, name: str, viewer: AuthorRow | None) -> tuple[BotView, int | None]:
    """A bot's page as ``viewer`` may see it (None: anyone's), and its owner's author id (None for a bot that is
    not the served ladder's); :class:`~ladder.errors.NotFound` when there is no such bot."""
    bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
    if bot is None or bot.id is None:
        raise NotFound(f"there is no bot {name!r}")
    served = session.get(ServedBotRow, bot.id)
    owner = session.get(AuthorRow, served.author_id) if served is not None else None
    versions = session.exec(
        select(BotVersionRow).where(BotVersionRow.bot_id == bot.id).order_by(col(BotVersionRow.id))
    ).all()
    ids = {v.id for v in versions}
    shown = states.states(session)
    standings = [
        Standing(pool=board.pool, **row.model_dump())
        for board in leaderboards(session, leaderboard.Versions.ALL)  # every version of the bot has its row here
        for row in board.table
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
        state=shown.bots.get(bot.id, states.ShownState.HOUSE).value,
        reason=served.reason if served else "",
        versions=[
            {
                "id": v.id,
                "version": v.version,
                "content_hash": v.content_hash,
                "state": shown.of(v.id or 0).value,
                "created_at": v.created_at.isoformat(),
            }
            for v in versions
        ],
        standings=standings,
        recent=_match_views(session, recent_ids, names, viewer),
    )
    return view, (served.author_id if served else None)


def bot_failures(session: Session, name: str, viewer: AuthorRow | None, limit: int = 20) -> list[FailureView]:
    """The bot's latest failed seats: their kind for anyone, the detail and the end of its stderr for its author
    and the operator (:func:`seat_failure`)."""
    return _bot_seats(session, name, viewer, col(SeatResultRow.failure_reason).is_not(None), limit)


def bot_stderr(session: Session, name: str, viewer: AuthorRow | None, limit: int = 20) -> list[FailureView]:
    """The end of the bot's stderr from its latest matches (failed or not), newest first:
    :class:`~ladder.errors.Forbidden` unless ``viewer`` is its author or the operator."""
    private_bot(session, name, viewer)
    return _bot_seats(session, name, viewer, col(SeatResultRow.stderr_tail) != "", limit)


def _bot_seats(
    session: Session, name: str, viewer: AuthorRow | None, which: ColumnElement[bool], limit: int
) -> list[FailureView]:
    """The bot's latest seats that meet ``which`` (a condition on its seat rows), newest first, as ``viewer`` may
    see them."""
    bot = session.exec(select(BotRow).where(BotRow.name == name)).first()
    if bot is None or bot.id is None:
        return []
    served = session.get(ServedBotRow, bot.id)
    may_see = may_see_private(viewer, served.author_id if served is not None else None)
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
    found = []
    for s, m in rows:
        shown = seat_failure(may_see, s.failure_reason, s.failure_detail, s.stderr_tail)
        found.append(
            FailureView(
                match_id=m.id or 0,
                pool=str(PoolKey(m.game, m.num_players)),
                version=versions.get(s.bot_version_id, "?"),
                reason=shown.kind or "",
                detail=shown.detail,
                stderr_tail=shown.stderr,
                hidden=shown.hidden,
                finished_at=m.finished_at,
            )
        )
    return found


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
    """Who finished ahead of whom in ``pool`` (the report's own count, :func:`ladder.views.figures.head_to_head`),
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
        self.data: records.ReportData | None = None
        self.known: set[str] = set()
        self.pools: dict[str, HeadToHead] = {}
        self.at = 0.0
        self.gap = self.STALE_SECONDS

    def loaded(self, session: Session) -> records.ReportData:
        """The report's data (the copy, or a fresh one when it is due), also for the bot pages' figures."""
        marker = ratings_persistence.played_matches_marker(session)
        with self.lock:
            return self._loaded(session, marker)

    def _loaded(self, session: Session, marker: tuple[int, int]) -> records.ReportData:
        if getattr(self, "database", None) != _database_of(session):
            self.data, self.database = None, _database_of(session)
        if self.data is None or (marker != self.marker and time.monotonic() - self.at >= self.gap):
            started = time.monotonic()
            self.data = records.load(session)
            self.marker, self.at, self.pools = marker, time.monotonic(), {}
            self.known = {match.pool for match in self.data.matches} | set(self.data.rated.pools())
            self.gap = max(self.STALE_SECONDS, 10 * (self.at - started))
        return self.data

    def head_to_head(self, session: Session, pool: str) -> HeadToHead:
        marker = ratings_persistence.played_matches_marker(session)
        with self.lock:
            self._loaded(session, marker)
            assert self.data is not None
            if pool not in self.known:
                return HeadToHead(pool=pool, order=[], names={}, pairs=[])
            if pool not in self.pools:
                self.pools[pool] = _count_head_to_head(self.data, pool)
            return self.pools[pool]


def _count_head_to_head(loaded: records.ReportData, pool: str) -> HeadToHead:
    counts = figures.head_to_head(loaded, pool)
    order = figures.pool_versions(loaded, pool)
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
