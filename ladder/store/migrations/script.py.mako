"""${message}

Revision ${up_revision}, after ${down_revision | comma,n}. Says WHY the schema changes; write the DDL with
``op`` (``op.create_table``, ``op.add_column``; ``with op.batch_alter_table(...)`` to alter or drop a column on
SQLite). Seeds, hash-derived numbers and counts are ``sa.BigInteger()``. See docs/databases.md.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
${imports if imports else ""}
revision = ${repr(up_revision)}
down_revision: str | None = ${repr(down_revision)}
branch_labels: str | None = ${repr(branch_labels)}
depends_on: str | None = ${repr(depends_on)}


def upgrade() -> None:
    ${upgrades if upgrades else "pass"}


def downgrade() -> None:
    ${downgrades if downgrades else "pass"}
