"""The service's view of the database: the ladder's database, with the service's tables created alongside."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from ladder.store import served_tables as models
from ladder.store.database import open_database
from ladder.store.served_tables import AuthorRow
from ladder.store.tables import BotRow, BotVersionRow


def open_service_database(url: str | None = None) -> Engine:
    """Open (creating if new) the ladder's database; the service's tables are created with the ladder's own.

    :mod:`ladder.store.served_tables` is imported above, so its tables are in the metadata that
    :func:`ladder.store.database.open_database` creates: an existing ladder database gains them, untouched otherwise.
    """
    assert models.AuthorRow.__tablename__ == "serve_author"
    return open_database(url)


@contextmanager
def service_session(url: str | None = None) -> Iterator[Session]:
    """A session on the service's database, closed (and its engine disposed) afterwards."""
    engine = open_service_database(url)
    try:
        with Session(engine, expire_on_commit=False) as session:
            yield session
    finally:
        engine.dispose()


def author_named(session: Session, name: str) -> AuthorRow | None:
    return session.exec(select(AuthorRow).where(AuthorRow.name == name)).first()


def bot_and_version(session: Session, version_id: int) -> tuple[BotRow, BotVersionRow] | None:
    version = session.get(BotVersionRow, version_id)
    if version is None:
        return None
    bot = session.get(BotRow, version.bot_id)
    return None if bot is None else (bot, version)
