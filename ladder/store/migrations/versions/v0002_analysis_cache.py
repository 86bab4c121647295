"""The decision analysis cache (issue 37, :mod:`ladder.store.analysis_tables`).

Revision 0002, after 0001. Analyses are derived data like the ratings, but expensive (seconds a seat), so a
computed one is kept: one row per analysed seat and per set of inputs its numbers depend on. Its seed is
64-bit, as every seed is.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "analysis",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("reference", sa.String(), nullable=False),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=True),
        sa.Column("measure", sa.String(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("ranked", sa.Integer(), nullable=False),
        sa.Column("total_loss", sa.Float(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("result_z", sa.LargeBinary(), nullable=False),
        sa.UniqueConstraint("match_id", "seat", "reference", "samples", "seed", "version", name="uq_analysis_key"),
    )
    op.create_index("ix_analysis_match_id", "analysis", ["match_id"])
    op.create_index("ix_analysis_bot_version_id", "analysis", ["bot_version_id"])


def downgrade() -> None:
    op.drop_index("ix_analysis_bot_version_id", table_name="analysis")
    op.drop_index("ix_analysis_match_id", table_name="analysis")
    op.drop_table("analysis")
