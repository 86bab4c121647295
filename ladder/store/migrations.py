"""The schema version, and the in-place upgrades of older databases.

Opening a database of another version stops with a clear sentence instead of
a traceback deep in a query. Older versions are upgraded in place: version 2
added tables to version 1 (bots only); version 3 added the ``bench_pool`` table
(a bot benched per pool; the old ``bench`` table of version 2, a benching
everywhere, is no longer read) and the tournament's deal secret columns
(tournaments made before have none: their deals came from the public seed);
version 4 added the match's ``host_json`` (the host's CPU pressure while it was
played) and the ``voided`` match status; version 5 the match's ``move_us_z`` (each
move's thinking time, for the replays).
"""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlmodel import Session

SCHEMA_VERSION = 5
UPGRADABLE_FROM = {1, 2, 3, 4}  # versions upgraded in place: by adding tables, and the columns of ADDED_COLUMNS
ADDED_COLUMNS: tuple[tuple[str, str, str], ...] = (  # (table, column, SQL type and default) added by versions 3 to 5
    ("match", "host_json", "VARCHAR NOT NULL DEFAULT '{}'"),
    ("match", "move_us_z", "BLOB NOT NULL DEFAULT x''"),  # 5: each move's thinking time (the report's replays)
    ("tournament", "deal_secret", "VARCHAR"),
    ("tournament", "deal_commitment", "VARCHAR NOT NULL DEFAULT ''"),
    ("tournament", "secret_revealed_at", "DATETIME"),
    ("tournament", "previous_deals", "VARCHAR NOT NULL DEFAULT '[]'"),
)


def _add_columns(session: Session) -> None:
    """Add the columns of :data:`ADDED_COLUMNS` that an older database lacks (in the upgrade's transaction)."""
    present: dict[str, set[str]] = {}
    for table, column, sql_type in ADDED_COLUMNS:
        if table not in present:
            present[table] = {c["name"] for c in inspect(session.connection()).get_columns(table)}
        if column not in present[table]:
            session.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}"))
