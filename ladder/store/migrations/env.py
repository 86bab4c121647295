"""Alembic's environment: the migrations run on the connection :func:`ladder.store.migrations.upgrade` opened.

There is no ``alembic.ini`` and no URL here: the ladder builds Alembic's configuration in code and hands it
the connection (already in its transaction, under the lock that keeps two processes from migrating at once).
``render_as_batch`` lets a later migration alter a column on SQLite, which has no ``ALTER COLUMN``: Alembic
copies the table instead.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the ladder's migrations run on a connection given by ladder.store.migrations.upgrade")
context.configure(connection=connection, render_as_batch=True, transaction_per_migration=False)
with context.begin_transaction():
    context.run_migrations()
