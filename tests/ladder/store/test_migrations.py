"""The schema's versions: Alembic's head is what the models say, on both backends, and old databases upgrade in place."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from sqlalchemy import inspect, text
from sqlmodel import Session, SQLModel, select

import ladder.store.served_tables  # noqa: F401  (the service's tables: in the same database and the same migrations)
from ladder.ratings import persistence
from ladder.store import migrations
from ladder.store.database import open_database
from ladder.store.tables import MatchRow, SchemaInfo, SeatResultRow

OLD_SCHEMA = Path(__file__).with_name("schema_v5_sqlite.sql")
BIG_SEED = 5369198538010780  # a match seed of issue 36: past PostgreSQL's 32-bit integer


def test_the_head_is_the_newest_numbered_revision_and_alembic_agrees() -> None:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(migrations.alembic_config())
    assert scripts.get_heads() == [migrations.head()]  # one straight line of revisions
    assert [s.revision for s in scripts.walk_revisions()][::-1] == list(migrations.revisions())


def test_the_migrated_schema_is_what_the_models_say(db_url: str) -> None:
    """A model changed without a migration (or a migration without its model) fails here, on either backend."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = open_database(db_url)
    with engine.connect() as connection:
        differences = compare_metadata(
            MigrationContext.configure(connection, opts={"compare_type": True}), SQLModel.metadata
        )
        seed_type = {c["name"]: c["type"] for c in inspect(connection).get_columns("match")}["seed"]
    engine.dispose()
    assert differences == []
    assert "BIGINT" in str(seed_type).upper()


def test_a_big_seed_and_counts_past_two_to_the_31_round_trip(db_url: str) -> None:
    engine = open_database(db_url)
    with Session(engine) as session:
        session.execute(
            text(
                "INSERT INTO tournament (name, file, seed, fingerprint, config_json, state, scheduled, cycles, host,"
                " created_at, updated_at, deal_commitment, previous_deals)"
                " VALUES ('t', '', :seed, 'f', '{}', 'done', :many, :many, '', :now, :now, '', '[]')"
            ),
            {"seed": BIG_SEED, "many": 2**40, "now": "2024-01-01 00:00:00"},
        )
        session.commit()
        assert session.execute(text("SELECT seed, scheduled FROM tournament")).one() == (BIG_SEED, 2**40)
    engine.dispose()


def test_opening_a_current_database_does_not_import_alembic(tmp_path: Path) -> None:
    """Startup stays fast: a database at the head is checked with one query, and Alembic is loaded only to migrate."""
    url = f"sqlite:///{tmp_path / 'current.db'}"
    open_database(url).dispose()
    probe = (
        "import json, sys\nfrom ladder.store.database import open_database\n"
        f"open_database({url!r}).dispose()\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('alembic'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout) == []


def _old_database(path: Path, *, served: bool) -> None:
    """A database as the ladder made it before Alembic (schema version 5): one tournament, one match, two seats."""
    with sqlite3.connect(path) as connection:
        connection.executescript(OLD_SCHEMA.read_text())
        if not served:  # `ladder run` alone never made the service's tables
            for table in ("serve_version", "serve_submission", "serve_planned", "serve_bot", "serve_web_session"):
                connection.execute(f"DROP TABLE {table}")
            connection.execute("DROP TABLE serve_author")
        now = "2024-05-01 12:00:00.000000"
        connection.execute("INSERT INTO schemainfo (version, created_at) VALUES (5, ?)", (now,))
        for name in ("first", "second"):
            connection.execute("INSERT INTO bot (name, author, created_at) VALUES (?, '', ?)", (name, now))
            connection.execute(
                "INSERT INTO bot_version (version, content_hash, games_json, source, store_path, bot_id, created_at)"
                " VALUES ('1', ?, '[\"toy\"]', 'builtin', '', (SELECT id FROM bot WHERE name = ?), ?)",
                (f"hash-{name}", name, now),
            )
        connection.execute(
            "INSERT INTO tournament (name, file, seed, fingerprint, config_json, state, scheduled, cycles, host,"
            " created_at, updated_at, deal_commitment, previous_deals)"
            " VALUES ('old', 'old.toml', 7, 'fp', '{}', 'done', 1, 1, '', ?, ?, '', '[]')",
            (now, now),
        )
        connection.execute(
            "INSERT INTO match (tournament_id, key, cycle, deal, game, options_json, num_players, seed, seats_json,"
            " status, error, attempts, finished_at, seconds, think_json, details_json, action_count, actions_z,"
            " move_us_z, worker, host_json)"
            " VALUES (1, 'c0/elevenses/o0/2p/d0/s0', 0, 'd0', 'elevenses', '{}', 2, ?, '[\"first\", \"second\"]',"
            " 'played', '', 1, ?, 0.5, '[]', '{}', 0, x'', x'', 'w', '{}')",
            (BIG_SEED, now),
        )
        for seat, (score, rank) in enumerate([(5.0, 1), (2.0, 2)]):
            connection.execute(
                "INSERT INTO seat_result (match_id, seat, bot_version_id, score, rank, failure_detail, stderr_tail)"
                " VALUES (1, ?, ?, ?, ?, '', '')",
                (seat, seat + 1, score, rank),
            )


def test_a_pre_alembic_database_upgrades_in_place_and_keeps_its_matches(tmp_path: Path) -> None:
    for served in (False, True):
        path = tmp_path / f"old-{served}.db"
        _old_database(path, served=served)
        engine = open_database(f"sqlite:///{path}")
        with Session(engine) as session:
            match = session.exec(select(MatchRow)).one()
            assert (match.key, match.seed, match.status) == ("c0/elevenses/o0/2p/d0/s0", BIG_SEED, "played")
            seats = session.exec(select(SeatResultRow).order_by(SeatResultRow.seat)).all()
            assert [(s.score, s.rank) for s in seats] == [(5.0, 1), (2.0, 2)]
            assert session.exec(select(SchemaInfo.version)).one() == migrations.SCHEMA_VERSION
            assert str(session.exec(select(SchemaInfo.created_at)).one()).startswith("2024-05-01 12:00:00")
            assert persistence.rate_database(session).pools()  # the kept match rates as before
            revision = session.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
            tables = set(inspect(session.connection()).get_table_names())
        engine.dispose()
        assert revision == migrations.head()
        assert {"serve_author", "serve_planned", "match", "rating_state"} <= tables
        open_database(f"sqlite:///{path}").dispose()  # opened again: at the head, nothing to do
