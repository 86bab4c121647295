"""Opening the database: the engine, its SQLite settings, the schema check, sessions.

SQLite runs in WAL mode with a busy timeout so readers (``ladder rankings``
during a run) never block the writer for long. Any SQLAlchemy URL works
(``--db`` or ``$LADDER_DB``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlmodel import Session, SQLModel, create_engine, select

from ladder.errors import UserError
from ladder.paths import as_db_url, default_db_url
from ladder.store import analysis_tables as analysis_tables  # registers the analysis cache for create_all
from ladder.store.migrations import SCHEMA_VERSION, UPGRADABLE_FROM, _add_columns
from ladder.store.tables import SchemaInfo

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
                _add_columns(session)  # create_all above added the new tables; new columns of old tables here
                info.version = SCHEMA_VERSION
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
            raise UserError(
                f"the database {shown} is locked by another process; wait for it or use another --db"
            ) from None
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
