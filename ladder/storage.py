"""Storage with SQLModel: one database, written by one coordinator process.

Models follow SQLModel's base → table → public pattern where a public view is
useful. SQLite runs in WAL mode with a busy timeout so readers (``ladder
rankings`` during a run) never block the writer for long.

The schema carries a version number; opening a database of another version
stops with a clear sentence instead of a traceback deep in a query.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Field, Session, SQLModel, create_engine, select

from ladder.errors import UserError
from ladder.paths import default_db_url

SCHEMA_VERSION = 1


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class SchemaInfo(SQLModel, table=True):
    """One row: the schema version this database was created with."""

    id: int | None = Field(default=None, primary_key=True)
    version: int
    created_at: datetime = Field(default_factory=utcnow)


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
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    connect_args = {"timeout": 30} if url.startswith("sqlite") else {}
    engine = create_engine(url, connect_args=connect_args)
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
    return engine
