"""The schema's versions: Alembic migrations shipped in the package, run when a database is opened.

Every change of the schema is a numbered revision in ``versions/`` (``v0001_baseline.py``, ``v0002_...``),
each after the one before: one straight line, so the newest number is the head. Opening a database
(:func:`ladder.store.database.open_database`) reads its revision from ``alembic_version`` (one query) and,
only when it is behind, imports Alembic and upgrades it in place, in one transaction, under a lock (a
PostgreSQL advisory lock; SQLite's write lock) so that two processes opening a new database at once do not
both create it. Nobody needs an ``alembic.ini``: the configuration is built here, in code.

A database made before Alembic has a ``schemainfo`` row with the hand-written version (1 to 5) and no
``alembic_version``: the baseline revision brings it to version 5's shape in place (the tables it lacks,
the columns versions 3 to 5 added) and Alembic records it from there. A database from a newer ladder (a
revision this one does not have, or another ``schemainfo`` version) stops with one sentence.

Adding a migration (say, a cache table)::

    python -m ladder.store.migrations new "add the analysis cache"

writes ``versions/v000N_add_the_analysis_cache.py`` after the head; fill in its ``upgrade`` (and
``downgrade``) with ``op`` calls, add the model to the tables, and tests/ladder/store/test_migrations.py checks
that the migrated schema and the models agree, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

from ladder.errors import UserError

if TYPE_CHECKING:
    from alembic.config import Config

VERSIONS = Path(__file__).with_name("versions")
_REVISION_FILE = re.compile(r"v(\d{4})_\w+\.py")
SCHEMA_VERSION = 5  # the last hand-written version: what ``schemainfo`` says of every database since
UPGRADABLE_FROM = frozenset({1, 2, 3, 4, 5})  # pre-Alembic versions the baseline upgrades in place
_LOCK_KEY = 0x6C616464  # "ladd": the advisory lock held while a PostgreSQL database is migrated


@cache
def revisions() -> tuple[str, ...]:
    """The revisions shipped, oldest first (read from the file names, without importing Alembic)."""
    found = sorted(m.group(1) for m in map(_REVISION_FILE.fullmatch, (p.name for p in VERSIONS.iterdir())) if m)
    return tuple(found)


def head() -> str:
    return revisions()[-1]


def stored_revision(connection: Connection) -> str | None:
    """The database's Alembic revision, or ``None`` where it has none (new, or made before Alembic)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar_one_or_none()


def _legacy_version(connection: Connection) -> int | None:
    """The hand-written schema version of a database made before Alembic, ``None`` for a new one."""
    if not inspect(connection).has_table("schemainfo"):
        return None
    version = connection.execute(text("SELECT version FROM schemainfo ORDER BY id")).scalar()
    return None if version is None else int(version)


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code: the scripts in this package, the given connection."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent))
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    config.attributes["connection"] = connection
    return config


def _lock(connection: Connection) -> None:
    """Hold the database's migration lock until the transaction ends (one migrating process at a time)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
    elif connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock now, before the checks below


def ensure_current(engine: Engine, shown: str) -> None:
    """Bring the database at ``engine`` to the head revision, or say in one sentence why it cannot be."""
    with engine.connect() as connection:
        if stored_revision(connection) == head():
            return  # the usual case: one query, and Alembic is never imported
    upgrade(engine, shown)


def upgrade(engine: Engine, shown: str) -> None:
    """Upgrade to the head in one transaction, under the lock; a database another process upgraded meanwhile is
    left as it is."""
    from alembic import command

    with engine.connect() as connection:
        _lock(connection)
        revision = stored_revision(connection)
        if revision == head():
            connection.rollback()
            return
        if revision is None:
            legacy = _legacy_version(connection)
            if legacy is not None and legacy not in UPGRADABLE_FROM:
                raise UserError(
                    f"the database {shown} has schema version {legacy} but this ladder uses version "
                    f"{SCHEMA_VERSION}; point --db/LADDER_DB at a new file, or run the ladder version that made it"
                )
        elif revision not in revisions():
            raise UserError(
                f"the database {shown} is at schema revision {revision}, which this ladder (at {head()}) does not "
                "know: it was made by a newer ladder; run that version, or point --db/LADDER_DB at another database"
            )
        command.upgrade(alembic_config(connection), "head")
        connection.commit()
