"""Storage with SQLModel: one database, written by one coordinator process.

What is kept: bots and their versions, tournaments (their file, seed and
settings), matches (game, options, seed, seats, status, timings and the
action log, so any match can be replayed exactly), one result row per seat
(score, rank, failure), benched bots, and the ratings derived from the
matches with their history. Matches are the source of truth: the rating
tables are rebuilt from them by :func:`ladder.ratings.rerate`.

SQLite runs in WAL mode with a busy timeout so readers (``ladder rankings``
during a run) never block the writer for long. Any SQLAlchemy URL works
(``--db`` or ``$LADDER_DB``).

The schema carries a version number; opening a database of another version
stops with a clear sentence instead of a traceback deep in a query. Version 1
(bots only) is upgraded in place: version 2 only adds tables.
"""

from __future__ import annotations

import json
import os
import socket
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import LargeBinary, UniqueConstraint, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Column, Field, Session, SQLModel, create_engine, select

from ladder.errors import UserError
from ladder.paths import default_db_url

SCHEMA_VERSION = 2
UPGRADABLE_FROM = {1}  # versions whose tables are a subset of this one's: upgraded by adding tables


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class SchemaInfo(SQLModel, table=True):
    """One row: the schema version this database was created with."""

    id: int | None = Field(default=None, primary_key=True)
    version: int
    created_at: datetime = Field(default_factory=utcnow)


# ---- bots ---------------------------------------------------------------------------------------


class BotBase(SQLModel):
    name: str = Field(index=True, unique=True)
    author: str = ""


class BotRow(BotBase, table=True):
    """A bot on the ladder, by name; its code lives in its versions."""

    __tablename__ = "bot"
    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)


class BotVersionBase(SQLModel):
    version: str = "1"
    content_hash: str = Field(index=True)
    games_json: str = "[]"
    source: str = "submitted"  # "builtin", "submitted" or "entrypoint"
    store_path: str = ""  # where the bot's files live in the bot store ("" for built-ins)


class BotVersionRow(BotVersionBase, table=True):
    """One version of a bot: a content hash of its files. A changed file is a new version."""

    __tablename__ = "bot_version"
    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def games(self) -> list[str]:
        return json.loads(self.games_json)


# ---- tournaments and matches ----------------------------------------------------------------------

TOURNAMENT_STATES = ("running", "stopped", "complete", "incomplete", "budget spent")


class TournamentRow(SQLModel, table=True):
    """One tournament: a tournament file's schedule (its seed, games, bots, format) and its progress.

    The same file run again with the same schedule resumes this row; a changed
    schedule (other bots, seed, games...) is a new tournament of the same name.
    """

    __tablename__ = "tournament"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    file: str = ""
    seed: int = 0
    fingerprint: str = Field(index=True)  # hash of everything that decides the schedule
    config_json: str = "{}"
    state: str = "running"  # one of TOURNAMENT_STATES
    scheduled: int = 0  # matches in the cycles started so far
    cycles: int = 1  # cycles of the schedule started so far
    pid: int | None = None  # the coordinator process while running
    host: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None

    @property
    def config(self) -> dict[str, Any]:
        return json.loads(self.config_json)


def live_state(row: TournamentRow) -> str:
    """The tournament's state, with a "running" one checked: ``interrupted`` if its coordinator on this host is gone,
    ``running?`` if it runs (or ran) on another host."""
    if row.state != "running":
        return row.state
    if row.host == socket.gethostname() and row.pid:
        try:
            os.kill(row.pid, 0)
            return "running"
        except ProcessLookupError:
            return "interrupted"
        except PermissionError:
            return "running"
    return "running?"


MATCH_STATUSES = ("played", "skipped", "error")


class MatchRow(SQLModel, table=True):
    """One scheduled match once it is over: everything needed to replay it exactly.

    ``status`` is ``played``; ``skipped`` when a seat's bot was benched before
    the match began (nothing was played; the seats have no score); or
    ``error`` when the match could not be played (a worker kept dying), with
    the reason in ``error``. ``deal`` groups the matches that share a deal:
    the seatings of one table, or every bot's game of one solitaire deal.
    """

    __tablename__ = "match"
    __table_args__ = (UniqueConstraint("tournament_id", "key", name="uq_match_tournament_key"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    key: str
    cycle: int = 0
    deal: str = Field(default="", index=True)
    game: str = Field(index=True)
    options_json: str = "{}"
    num_players: int
    seed: int
    seats_json: str = "[]"  # the bot reference each worker was given, by seat
    status: str = "played"
    error: str = ""
    attempts: int = 1
    started_at: datetime | None = None
    finished_at: datetime = Field(default_factory=utcnow)
    seconds: float = 0.0
    think_json: str = "[]"
    details_json: str = "{}"
    action_count: int = 0
    actions_z: bytes = Field(default=b"", sa_column=Column(LargeBinary, nullable=False, default=b""))
    worker: str = ""

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json)

    @property
    def seats(self) -> list[str]:
        return json.loads(self.seats_json)

    @property
    def actions(self) -> list[dict[str, Any]]:
        return unpack_actions(self.actions_z)


class SeatResultRow(SQLModel, table=True):
    """One seat of one match: who sat there, the score and rank, and why it failed if it did."""

    __tablename__ = "seat_result"
    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seat: int
    bot_version_id: int = Field(foreign_key="bot_version.id", index=True)
    score: float | None = None
    rank: int | None = None
    failure_reason: str | None = None
    failure_detail: str = ""
    stderr_tail: str = ""  # the end of what the bot wrote to stderr in this match (sandboxed bots; a failure's tail)
    at_action: int | None = None


class BenchRow(SQLModel, table=True):
    """A bot version benched for the rest of a tournament, and why."""

    __tablename__ = "bench"
    __table_args__ = (UniqueConstraint("tournament_id", "bot_version_id", name="uq_bench"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    bot_version_id: int = Field(foreign_key="bot_version.id")
    reason: str
    created_at: datetime = Field(default_factory=utcnow)


# ---- ratings (derived from the matches; rebuilt by `ladder rerate`) -------------------------------


class RatingRow(SQLModel, table=True):
    """A bot version's current TrueSkill rating in one pool (a game at one player count)."""

    __tablename__ = "rating"
    id: int | None = Field(default=None, primary_key=True)
    pool: str = Field(index=True)
    game: str = Field(index=True)
    num_players: int
    bot_version_id: int = Field(foreign_key="bot_version.id", index=True)
    mu: float
    sigma: float
    conservative: float
    matches: int = 0
    wins: int = 0
    score_sum: float = 0.0
    failures: int = 0
    draw_probability: float = 0.0


class RatingHistoryRow(SQLModel, table=True):
    """A rating after each rated event (a match, or a whole solitaire deal) of a pool."""

    __tablename__ = "rating_history"
    id: int | None = Field(default=None, primary_key=True)
    pool: str = Field(index=True)
    event: int  # 1, 2, ... within the pool, in match order
    match_id: int  # the last match of the event
    bot_version_id: int = Field(foreign_key="bot_version.id", index=True)
    mu: float
    sigma: float


class RatingStateRow(SQLModel, table=True):
    """One row: which matches the stored ratings were computed from, when and how."""

    __tablename__ = "rating_state"
    id: int | None = Field(default=None, primary_key=True)
    computed_at: datetime = Field(default_factory=utcnow)
    match_count: int = 0
    last_match_id: int = 0
    method: str = ""


# ---- the action log -------------------------------------------------------------------------------


def pack_actions(actions: Any) -> bytes:
    """The action log as compressed compact JSON (a match log shrinks about tenfold)."""
    return zlib.compress(json.dumps(list(actions), separators=(",", ":")).encode(), 6)


def unpack_actions(blob: bytes) -> list[dict[str, Any]]:
    return json.loads(zlib.decompress(blob)) if blob else []


# ---- opening ----------------------------------------------------------------------------------------


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str | None = None) -> Engine:
    """An SQLAlchemy engine for ``url`` (default: ``$LADDER_DB`` or ``results/ladder.db``)."""
    url = url or default_db_url()
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        folder = Path(url.removeprefix("sqlite:///")).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot create the folder {folder} for the database {url}: {error.strerror or error}") from None
    connect_args = {"timeout": 30} if url.startswith("sqlite") else {}
    try:
        engine = create_engine(url, connect_args=connect_args)
    except (SQLAlchemyError, ValueError, ImportError) as error:
        raise UserError(f"cannot use the database URL {url!r}: {error}") from None
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def open_database(url: str | None = None) -> Engine:
    """Open (creating if new) the database and check its schema version.

    Raises :class:`UserError` with one sentence when the database is from
    another version of the ladder, is locked, or cannot be opened.
    """
    engine = make_engine(url)
    shown = url or default_db_url()
    try:
        SQLModel.metadata.create_all(engine)
        with Session(engine) as session:
            info = session.exec(select(SchemaInfo)).first()
            if info is None:
                session.add(SchemaInfo(version=SCHEMA_VERSION))
                session.commit()
            elif info.version in UPGRADABLE_FROM:
                info.version = SCHEMA_VERSION  # create_all above added the new tables
                session.add(info)
                session.commit()
            elif info.version != SCHEMA_VERSION:
                raise UserError(
                    f"the database {shown} has schema version {info.version} but this ladder uses version "
                    f"{SCHEMA_VERSION}; point --db/LADDER_DB at a new file, or run the ladder version that made it"
                )
    except OperationalError as error:
        message = str(error.orig) if error.orig else str(error)
        if "locked" in message:
            raise UserError(f"the database {shown} is locked by another process; wait for it or use another --db") from None
        raise UserError(f"cannot open the database {shown}: {message}") from None
    except SQLAlchemyError as error:
        raise UserError(f"cannot open the database {shown}: {str(error).splitlines()[0]}") from None
    return engine


@contextmanager
def session_for(url: str | None = None) -> Iterator[Session]:
    """A session on the checked database at ``url``, closed (and its engine disposed) afterwards."""
    engine = open_database(url)
    try:
        with Session(engine, expire_on_commit=False) as session:
            yield session
    finally:
        engine.dispose()
