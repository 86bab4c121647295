"""The ladder's tables (SQLModel): one database, written by one coordinator process.

What is kept: bots and their versions, tournaments (their file, seed and
settings), matches (game, options, seed, seats, status, timings and the
action log, so any match can be replayed exactly), one result row per seat
(score, rank, failure), benched bots, and the ratings derived from the
matches with their history. Matches are the source of truth: the rating
tables are rebuilt from them by :func:`ladder.ratings.persistence.rerate`.

Seeds, hash-derived numbers and counts that can pass 2^31 are ``BigInteger``:
64-bit on every backend (PostgreSQL's ``integer`` is 32-bit). A change here is
a migration too (:mod:`ladder.store.migrations`, docs/databases.md).
"""

from __future__ import annotations

import json
import os
import socket
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, LargeBinary, UniqueConstraint
from sqlmodel import Column, Field, SQLModel

from ladder.matches.statuses import MatchStatus, TournamentState
from ladder.store.action_log import unpack_actions


def utcnow() -> datetime:
    return datetime.now(UTC)


class SchemaInfo(SQLModel, table=True):
    """One row: the database's creation time, and the last hand-written schema version (5, since Alembic).

    The schema's version is Alembic's revision in ``alembic_version`` (:mod:`ladder.store.migrations`); this
    row tells a database made before Alembic (versions 1 to 5) apart from a new one.
    """

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

TOURNAMENT_STATES = tuple(TournamentState)  # the values, in the order of TournamentState


class TournamentRow(SQLModel, table=True):
    """One tournament: a tournament file's schedule (its seed, games, bots, format) and its progress.

    The same file run again resumes this row, new bots and new bot versions
    included (they add their own matches); another seed, format or games is a
    new tournament of the same name.

    ``deal_secret`` (hex) is what every deal and bot seed comes from
    (:mod:`ladder.matches.deals`): never shown while the tournament can still play a
    match; ``deal_commitment`` (its SHA-256) is public from the start; the
    secret is revealed (``secret_revealed_at``) when the tournament ends.
    ``deal_secret`` is ``None`` for a tournament made before sealed deals.
    A revealed secret never deals again: matches added later (a new bot
    version, more cycles) come from a new secret, and the revealed ones stay
    published in ``previous_deals``.
    """

    __tablename__ = "tournament"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    file: str = ""
    seed: int = Field(default=0, sa_type=BigInteger)
    fingerprint: str = Field(index=True)  # hash of everything that decides the schedule
    config_json: str = "{}"
    state: str = "running"  # one of TOURNAMENT_STATES
    scheduled: int = Field(default=0, sa_type=BigInteger)  # matches in the cycles started so far
    cycles: int = Field(default=1, sa_type=BigInteger)  # cycles of the schedule started so far
    pid: int | None = None  # the coordinator process while running
    host: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    deal_secret: str | None = None
    deal_commitment: str = ""
    secret_revealed_at: datetime | None = None
    # secrets revealed before this one, as JSON [{"secret", "commitment", "revealed_at"}]: a tournament whose secret
    # was revealed and that gets more matches (a new bot version, more cycles) deals them from a new secret
    previous_deals: str = "[]"

    @property
    def config(self) -> dict[str, Any]:
        return json.loads(self.config_json)

    @property
    def deals_public(self) -> bool:
        """Whether anyone may know this tournament's deals: its secret is revealed, or it never had one."""
        return self.deal_secret is None or self.secret_revealed_at is not None

    def shown_secret(self) -> str | None:
        """The secret as it may be shown: only once revealed."""
        return self.deal_secret if self.secret_revealed_at is not None else None


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


MATCH_STATUSES = tuple(MatchStatus)  # the values, in the order of MatchStatus


class MatchRow(SQLModel, table=True):
    """One scheduled match once it is over: everything needed to replay it exactly.

    ``status`` is ``played``; ``skipped`` when a seat's bot was benched before
    the match began (nothing was played; the seats have no score); or
    ``error`` when the match could not be played (a worker kept dying), with
    the reason in ``error``; ``voided`` when the host starved a bot (a
    wall-clock timeout while it was runnable but not running, or stopped by
    someone else): the match counts for nothing (no rating, no benching) and
    the next run plays it again from its key, the same deal, with the reason
    in ``error``. ``host_json`` is the host's CPU pressure while the match was
    played (:class:`ladder.sandbox.host_load.HostPressure`). ``deal`` groups the matches that share a deal:
    the seatings of one table, or every bot's game of one solitaire deal.
    """

    __tablename__ = "match"
    __table_args__ = (UniqueConstraint("tournament_id", "key", name="uq_match_tournament_key"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    key: str
    cycle: int = Field(default=0, sa_type=BigInteger)
    deal: str = Field(default="", index=True)
    game: str = Field(index=True)
    options_json: str = "{}"
    num_players: int
    seed: int = Field(sa_type=BigInteger)  # 53 bits (ladder.matches.deals.keyed_seed): past 32-bit INTEGER
    seats_json: str = "[]"  # the bot reference each worker was given, by seat
    status: str = MatchStatus.PLAYED
    error: str = ""
    attempts: int = 1
    started_at: datetime | None = None
    finished_at: datetime = Field(default_factory=utcnow)
    seconds: float = 0.0
    think_json: str = "[]"
    details_json: str = "{}"
    action_count: int = 0
    actions_z: bytes = Field(default=b"", sa_column=Column(LargeBinary, nullable=False, default=b""))
    move_us_z: bytes = Field(
        default=b"", sa_column=Column(LargeBinary, nullable=False, default=b"")
    )  # action_log.pack_actions of ints
    worker: str = ""
    host_json: str = "{}"

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
    """A bot version benched in one pool (game, option set, player count) for the rest of a tournament, and why.

    Its matches in other pools go on: a bot that fails only at 3 players keeps its 2-player matches.
    """

    __tablename__ = "bench_pool"
    __table_args__ = (UniqueConstraint("tournament_id", "bot_version_id", "pool", name="uq_bench_pool"),)
    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    bot_version_id: int = Field(foreign_key="bot_version.id")
    pool: str  # "<game>/o<option set>/<players>p", as ScheduledMatch.pool
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
    matches: int = Field(default=0, sa_type=BigInteger)
    wins: int = Field(default=0, sa_type=BigInteger)
    score_sum: float = 0.0
    failures: int = Field(default=0, sa_type=BigInteger)
    draw_probability: float = 0.0


class RatingHistoryRow(SQLModel, table=True):
    """A rating after each rated event (a match, or a whole solitaire deal) of a pool."""

    __tablename__ = "rating_history"
    id: int | None = Field(default=None, primary_key=True)
    pool: str = Field(index=True)
    event: int = Field(sa_type=BigInteger)  # 1, 2, ... within the pool, in match order
    match_id: int  # the last match of the event
    bot_version_id: int = Field(foreign_key="bot_version.id", index=True)
    mu: float
    sigma: float


class RatingStateRow(SQLModel, table=True):
    """One row: which matches the stored ratings were computed from, when and how."""

    __tablename__ = "rating_state"
    id: int | None = Field(default=None, primary_key=True)
    computed_at: datetime = Field(default_factory=utcnow)
    match_count: int = Field(default=0, sa_type=BigInteger)
    last_match_id: int = 0
    method: str = ""
