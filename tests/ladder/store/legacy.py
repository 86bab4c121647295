"""A current database made to look as one made before Alembic (for the upgrade tests of older schema versions)."""

from __future__ import annotations

import sqlite3

from ladder.store.migrations.versions.v0001_baseline import BASELINE


def made_before_alembic(connection: sqlite3.Connection) -> None:
    """No revision stored, and no table or column that a revision after the baseline added."""
    tables = [row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")]
    for table in tables:
        if table not in BASELINE.tables:
            connection.execute(f"drop table {table}")
            continue
        baseline = set(BASELINE.tables[table].columns.keys())
        for column in [row[1] for row in connection.execute(f"pragma table_info({table})")]:
            if column not in baseline:
                connection.execute(f"alter table {table} drop column {column}")
