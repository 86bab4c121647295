"""A submission's source hash (issue 35): the content hash of the files as uploaded, written when it is accepted.

Revision 0003, after 0002. The intake compares an upload with the author's latest submission of the same files
before any check runs: an identical resubmission is answered at once and costs no quota. (``content_hash`` is
the hash of what runs, written by the check after a build, so it cannot be compared before one.) Submissions made
before this revision have none and are never taken for a resubmission.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("serve_submission") as batch:
        batch.add_column(sa.Column("source_hash", sa.String(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("serve_submission") as batch:
        batch.drop_column("source_hash")
