"""Baseline: the schema of the last hand-written version (5), with 64-bit seeds and counts.

A new database gets every table here. A database made before Alembic (its ``schemainfo`` says version 1
to 5, and it has no ``alembic_version``) is brought to the same shape in place: the tables it lacks are
created, and the columns versions 3 to 5 added to old tables are added where missing (SQLite's INTEGER is
64-bit already, so its seed and count columns need no change). The tables are a frozen copy, not the
models of :mod:`ladder.store.tables`: a later change of a model is a later migration, and this one keeps
making the schema it made.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

LAST_HAND_WRITTEN_VERSION = 5  # schemainfo.version of every database at or past this revision

BASELINE = sa.MetaData()

sa.Table(
    "bot",
    BASELINE,
    sa.Column("name", sa.String(), nullable=False),
    sa.Column("author", sa.String(), nullable=False),
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_bot_name", "name", unique=True),
)
sa.Table(
    "rating_state",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("match_count", sa.BigInteger(), nullable=False),
    sa.Column("last_match_id", sa.Integer(), nullable=False),
    sa.Column("method", sa.String(), nullable=False),
)
sa.Table(
    "schemainfo",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
sa.Table(
    "serve_author",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("name", sa.String(), nullable=False),
    sa.Column("role", sa.String(), nullable=False),
    sa.Column("token_hash", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_serve_author_name", "name", unique=True),
    sa.Index("ix_serve_author_token_hash", "token_hash", unique=True),
)
sa.Table(
    "tournament",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("name", sa.String(), nullable=False),
    sa.Column("file", sa.String(), nullable=False),
    sa.Column("seed", sa.BigInteger(), nullable=False),
    sa.Column("fingerprint", sa.String(), nullable=False),
    sa.Column("config_json", sa.String(), nullable=False),
    sa.Column("state", sa.String(), nullable=False),
    sa.Column("scheduled", sa.BigInteger(), nullable=False),
    sa.Column("cycles", sa.BigInteger(), nullable=False),
    sa.Column("pid", sa.Integer(), nullable=True),
    sa.Column("host", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("deal_secret", sa.String(), nullable=True),
    sa.Column("deal_commitment", sa.String(), nullable=False),
    sa.Column("secret_revealed_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("previous_deals", sa.String(), nullable=False),
    sa.Index("ix_tournament_fingerprint", "fingerprint", unique=False),
    sa.Index("ix_tournament_name", "name", unique=False),
)
sa.Table(
    "bot_version",
    BASELINE,
    sa.Column("version", sa.String(), nullable=False),
    sa.Column("content_hash", sa.String(), nullable=False),
    sa.Column("games_json", sa.String(), nullable=False),
    sa.Column("source", sa.String(), nullable=False),
    sa.Column("store_path", sa.String(), nullable=False),
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_bot_version_bot_id", "bot_id", unique=False),
    sa.Index("ix_bot_version_content_hash", "content_hash", unique=False),
)
sa.Table(
    "match",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id"), nullable=False),
    sa.Column("key", sa.String(), nullable=False),
    sa.Column("cycle", sa.BigInteger(), nullable=False),
    sa.Column("deal", sa.String(), nullable=False),
    sa.Column("game", sa.String(), nullable=False),
    sa.Column("options_json", sa.String(), nullable=False),
    sa.Column("num_players", sa.Integer(), nullable=False),
    sa.Column("seed", sa.BigInteger(), nullable=False),
    sa.Column("seats_json", sa.String(), nullable=False),
    sa.Column("status", sa.String(), nullable=False),
    sa.Column("error", sa.String(), nullable=False),
    sa.Column("attempts", sa.Integer(), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("seconds", sa.Float(), nullable=False),
    sa.Column("think_json", sa.String(), nullable=False),
    sa.Column("details_json", sa.String(), nullable=False),
    sa.Column("action_count", sa.Integer(), nullable=False),
    sa.Column("actions_z", sa.LargeBinary(), nullable=False),
    sa.Column("move_us_z", sa.LargeBinary(), nullable=False),
    sa.Column("worker", sa.String(), nullable=False),
    sa.Column("host_json", sa.String(), nullable=False),
    sa.UniqueConstraint("tournament_id", "key", name="uq_match_tournament_key"),
    sa.Index("ix_match_deal", "deal", unique=False),
    sa.Index("ix_match_game", "game", unique=False),
    sa.Index("ix_match_tournament_id", "tournament_id", unique=False),
)
sa.Table(
    "serve_bot",
    BASELINE,
    sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), primary_key=True),
    sa.Column("author_id", sa.Integer(), sa.ForeignKey("serve_author.id"), nullable=False),
    sa.Column("state", sa.String(), nullable=False),
    sa.Column("reason", sa.String(), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_serve_bot_author_id", "author_id", unique=False),
)
sa.Table(
    "serve_planned",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id"), nullable=False),
    sa.Column("round", sa.BigInteger(), nullable=False),
    sa.Column("key", sa.String(), nullable=False),
    sa.Column("deal", sa.String(), nullable=False),
    sa.Column("pool", sa.String(), nullable=False),
    sa.Column("number", sa.BigInteger(), nullable=False),
    sa.Column("placement", sa.Boolean(), nullable=False),
    sa.Column("version_ids_json", sa.String(), nullable=False),
    sa.Index("ix_serve_planned_key", "key", unique=False),
    sa.Index("ix_serve_planned_round", "round", unique=False),
    sa.Index("ix_serve_planned_tournament_id", "tournament_id", unique=False),
)
sa.Table(
    "serve_web_session",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("cookie_hash", sa.String(), nullable=False),
    sa.Column("author_id", sa.Integer(), sa.ForeignKey("serve_author.id"), nullable=False),
    sa.Column("csrf_token", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_serve_web_session_author_id", "author_id", unique=False),
    sa.Index("ix_serve_web_session_cookie_hash", "cookie_hash", unique=True),
)
sa.Table(
    "bench_pool",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id"), nullable=False),
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=False),
    sa.Column("pool", sa.String(), nullable=False),
    sa.Column("reason", sa.String(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("tournament_id", "bot_version_id", "pool", name="uq_bench_pool"),
    sa.Index("ix_bench_pool_tournament_id", "tournament_id", unique=False),
)
sa.Table(
    "rating",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("pool", sa.String(), nullable=False),
    sa.Column("game", sa.String(), nullable=False),
    sa.Column("num_players", sa.Integer(), nullable=False),
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=False),
    sa.Column("mu", sa.Float(), nullable=False),
    sa.Column("sigma", sa.Float(), nullable=False),
    sa.Column("conservative", sa.Float(), nullable=False),
    sa.Column("matches", sa.BigInteger(), nullable=False),
    sa.Column("wins", sa.BigInteger(), nullable=False),
    sa.Column("score_sum", sa.Float(), nullable=False),
    sa.Column("failures", sa.BigInteger(), nullable=False),
    sa.Column("draw_probability", sa.Float(), nullable=False),
    sa.Index("ix_rating_bot_version_id", "bot_version_id", unique=False),
    sa.Index("ix_rating_game", "game", unique=False),
    sa.Index("ix_rating_pool", "pool", unique=False),
)
sa.Table(
    "rating_history",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("pool", sa.String(), nullable=False),
    sa.Column("event", sa.BigInteger(), nullable=False),
    sa.Column("match_id", sa.Integer(), nullable=False),
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=False),
    sa.Column("mu", sa.Float(), nullable=False),
    sa.Column("sigma", sa.Float(), nullable=False),
    sa.Index("ix_rating_history_bot_version_id", "bot_version_id", unique=False),
    sa.Index("ix_rating_history_pool", "pool", unique=False),
)
sa.Table(
    "seat_result",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("match_id", sa.Integer(), sa.ForeignKey("match.id"), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=False),
    sa.Column("score", sa.Float(), nullable=True),
    sa.Column("rank", sa.Integer(), nullable=True),
    sa.Column("failure_reason", sa.String(), nullable=True),
    sa.Column("failure_detail", sa.String(), nullable=False),
    sa.Column("stderr_tail", sa.String(), nullable=False),
    sa.Column("at_action", sa.Integer(), nullable=True),
    sa.Index("ix_seat_result_bot_version_id", "bot_version_id", unique=False),
    sa.Index("ix_seat_result_match_id", "match_id", unique=False),
)
sa.Table(
    "serve_submission",
    BASELINE,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("author_id", sa.Integer(), sa.ForeignKey("serve_author.id"), nullable=False),
    sa.Column("state", sa.String(), nullable=False),
    sa.Column("filename", sa.String(), nullable=False),
    sa.Column("upload_dir", sa.String(), nullable=False),
    sa.Column("name_override", sa.String(), nullable=False),
    sa.Column("bot_name", sa.String(), nullable=False),
    sa.Column("content_hash", sa.String(), nullable=False),
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), nullable=True),
    sa.Column("problem", sa.String(), nullable=False),
    sa.Column("explanation", sa.String(), nullable=False),
    sa.Column("check_json", sa.String(), nullable=False),
    sa.Column("attempts", sa.Integer(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_serve_submission_author_id", "author_id", unique=False),
)
sa.Table(
    "serve_version",
    BASELINE,
    sa.Column("bot_version_id", sa.Integer(), sa.ForeignKey("bot_version.id"), primary_key=True),
    sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bot.id"), nullable=False),
    sa.Column("author_id", sa.Integer(), sa.ForeignKey("serve_author.id"), nullable=False),
    sa.Column("state", sa.String(), nullable=False),
    sa.Column("activated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_serve_version_author_id", "author_id", unique=False),
    sa.Index("ix_serve_version_bot_id", "bot_id", unique=False),
)

# (table, column) added by the hand-written versions 3 to 5: an older database has the table without them
ADDED_COLUMNS: tuple[tuple[str, sa.Column[object]], ...] = (
    ("match", sa.Column("host_json", sa.String(), nullable=False, server_default="{}")),
    ("match", sa.Column("move_us_z", sa.LargeBinary(), nullable=False, server_default=sa.text("x''"))),
    ("tournament", sa.Column("deal_secret", sa.String(), nullable=True)),
    ("tournament", sa.Column("deal_commitment", sa.String(), nullable=False, server_default="")),
    ("tournament", sa.Column("secret_revealed_at", sa.DateTime(timezone=True), nullable=True)),
    ("tournament", sa.Column("previous_deals", sa.String(), nullable=False, server_default="[]")),
)


def upgrade() -> None:
    bind = op.get_bind()
    existing = set(sa.inspect(bind).get_table_names())
    BASELINE.create_all(bind, checkfirst=True)  # on a pre-Alembic database: only the tables it lacks
    for table, column in ADDED_COLUMNS:
        if table in existing and column.name not in {c["name"] for c in sa.inspect(bind).get_columns(table)}:
            op.add_column(table, column)
    info = BASELINE.tables["schemainfo"]
    if bind.execute(sa.select(sa.func.count()).select_from(info)).scalar_one() == 0:
        op.bulk_insert(info, [{"version": LAST_HAND_WRITTEN_VERSION, "created_at": datetime.now(UTC)}])
    else:
        op.execute(info.update().values(version=LAST_HAND_WRITTEN_VERSION))


def downgrade() -> None:
    BASELINE.drop_all(op.get_bind())
