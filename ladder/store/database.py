"""Opening the database: the engine, its backend's settings, the schema check, sessions.

Two backends are supported and tested: SQLite (the default, a file) and
PostgreSQL (``postgresql+psycopg://...``, with ``pip install ".[postgres]"``).
SQLite runs in WAL mode with a busy timeout so readers (``ladder rankings``
during a run) never block the writer for long; PostgreSQL sessions run in UTC.
The schema is brought to the current revision on open
(:mod:`ladder.store.migrations`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlmodel import Session, create_engine

from ladder.errors import UserError
from ladder.paths import as_db_url, default_db_url
from ladder.store import analysis_tables as analysis_tables  # registers the analysis cache table with the metadata
from ladder.store.migrations import ensure_current

# ---- opening ----------------------------------------------------------------------------------------


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str | None = None) -> Engine:
    """An SQLAlchemy engine for ``url`` (default: ``$LADDER_DB`` or ``results/ladder.db``)."""
    url = as_db_url(url) if url else default_db_url()
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        path = Path(url.removeprefix("sqlite:///"))
        folder = path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # a new database is readable by its owner only (it holds the deal secrets of running tournaments);
            # SQLite gives its -wal and -shm files the same mode
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:
            pass
        except OSError as error:
            raise UserError(
                f"cannot create the folder {folder} for the database {url}: {error.strerror or error}"
            ) from None
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError as error:
        raise UserError(f"cannot use the database URL {url!r}: {error}") from None
    connect_args: dict[str, Any] = {}
    if backend == "sqlite":
        connect_args = {"timeout": 30}
    elif backend == "postgresql":
        # timestamps are stored and read in UTC whatever the server's TimeZone, as SQLite keeps them
        connect_args = {"options": "-c timezone=UTC"}
    try:
        engine = create_engine(url, connect_args=connect_args)
    except ModuleNotFoundError as error:
        hint = ' (pip install ".[postgres]")' if backend == "postgresql" else ""
        raise UserError(f"cannot use the database URL {url!r}: no module named {error.name!r}{hint}") from None
    except (SQLAlchemyError, ValueError, ImportError) as error:
        raise UserError(f"cannot use the database URL {url!r}: {error}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def open_database(url: str | None = None) -> Engine:
    """Open (creating if new) the database and bring its schema to the current revision.

    Raises :class:`UserError` with one sentence when the database is from
    another version of the ladder, is locked, or cannot be opened.
    """
    engine = make_engine(url)
    try:
        _bring_current(engine, _shown(url or default_db_url()))
    except BaseException:
        engine.dispose()
        raise
    return engine


def _bring_current(engine: Engine, shown: str) -> None:
    """:func:`ensure_current`, with the driver's errors said in one sentence."""
    try:
        ensure_current(engine, shown)
    except OperationalError as error:
        message = str(error.orig) if error.orig else str(error)
        if "locked" in message:
            raise UserError(
                f"the database {shown} is locked by another process; wait for it or use another --db"
            ) from None
        raise UserError(f"cannot open the database {shown}: {message.strip().splitlines()[0]}") from None
    except SQLAlchemyError as error:
        raise UserError(f"cannot open the database {shown}: {str(error).splitlines()[0]}") from None


def _shown(url: str) -> str:
    """The URL as a message may show it: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


@contextmanager
def session_for(url: str | None = None) -> Iterator[Session]:
    """A session on the checked database at ``url``, closed (and its engine disposed) afterwards."""
    engine = open_database(url)
    try:
        with Session(engine, expire_on_commit=False) as session:
            yield session
    finally:
        engine.dispose()
