"""The database: schema version check, in-place upgrade, WAL mode, the packed action log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlmodel import Session, select

from ladder.errors import UserError
from ladder.store import migrations
from ladder.store.action_log import pack_actions, unpack_actions
from ladder.store.database import open_database
from ladder.store.migrations import SCHEMA_VERSION
from ladder.store.tables import SchemaInfo
from tests.ladder.store.legacy import made_before_alembic


def test_a_new_database_gets_the_current_version_and_wal(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    engine = open_database(url)
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION
    engine.dispose()
    with sqlite3.connect(tmp_path / "new.db") as connection:
        assert connection.execute("pragma journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
    assert {
        "bot",
        "bot_version",
        "tournament",
        "match",
        "seat_result",
        "bench_pool",
        "rating",
        "rating_history",
        "rating_state",
    } <= tables


def test_a_new_database_on_either_backend_is_at_the_head_and_opens_again(db_url: str) -> None:
    engine = open_database(db_url)
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION
        assert session.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == migrations.head()
        tables = set(inspect(session.connection()).get_table_names())
    engine.dispose()
    assert {"bot", "bot_version", "tournament", "match", "seat_result", "bench_pool", "rating"} <= tables
    open_database(db_url).dispose()  # at the head: opened as it is, its one schemainfo row kept
    engine = open_database(db_url)
    with Session(engine) as session:
        assert len(session.exec(select(SchemaInfo)).all()) == 1
    engine.dispose()


def test_another_schema_version_stops_with_one_clear_sentence(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    open_database(url).dispose()
    with sqlite3.connect(tmp_path / "old.db") as connection:  # a database made before Alembic, of an unknown version
        connection.execute("drop table alembic_version")
        connection.execute("update schemainfo set version = 99")
    with pytest.raises(UserError) as caught:
        open_database(url)
    message = str(caught.value)
    assert "schema version 99" in message and f"uses version {SCHEMA_VERSION}" in message and "\n" not in message


def test_a_revision_from_a_newer_ladder_stops_with_one_clear_sentence(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    open_database(url).dispose()
    with sqlite3.connect(tmp_path / "newer.db") as connection:
        connection.execute("update alembic_version set version_num = '9999'")
    with pytest.raises(UserError) as caught:
        open_database(url)
    message = str(caught.value)
    assert "schema revision 9999" in message and "newer ladder" in message and "\n" not in message


def test_version_two_is_upgraded_by_adding_the_per_pool_bench_table(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    open_database(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as connection:  # version 2 benched a bot everywhere, in a table of its own
        connection.execute("drop table bench_pool")
        made_before_alembic(connection)
        connection.execute("update schemainfo set version = 2")
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION == 5
    engine.dispose()
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("pragma table_info(bench_pool)")]
    assert "pool" in columns


def test_version_four_is_upgraded_by_adding_each_moves_thinking_time(tmp_path: Path) -> None:
    path = tmp_path / "v4.db"
    open_database(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as connection:  # version 4 kept only each seat's total thinking time
        connection.execute("alter table match drop column move_us_z")
        made_before_alembic(connection)
        connection.execute("update schemainfo set version = 4")
    open_database(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as connection:
        assert "move_us_z" in [row[1] for row in connection.execute("pragma table_info(match)")]
        assert connection.execute("select version from schemainfo").fetchone() == (5,)


def test_version_three_is_upgraded_by_adding_the_host_pressure_of_each_match(tmp_path: Path) -> None:
    path = tmp_path / "v3.db"
    open_database(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as connection:  # version 3 kept no host pressure with a match
        connection.execute("alter table match drop column host_json")
        made_before_alembic(connection)
        connection.execute("update schemainfo set version = 3")
    open_database(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("pragma table_info(match)")]
        assert "host_json" in columns
        assert connection.execute("select version from schemainfo").fetchone() == (5,)


def test_version_one_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    with sqlite3.connect(path) as connection:  # what version 1 created: bots only
        connection.execute("create table schemainfo (id integer primary key, version integer, created_at datetime)")
        connection.execute("insert into schemainfo (version, created_at) values (1, '2024-01-01 00:00:00')")
        connection.execute(
            "create table bot (id integer primary key, name varchar unique, author varchar, created_at datetime)"
        )
        connection.execute("insert into bot (name, author, created_at) values ('mine', 'me', '2024-01-01 00:00:00')")
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        assert session.exec(select(SchemaInfo.version)).one() == SCHEMA_VERSION
    engine.dispose()
    with sqlite3.connect(path) as connection:
        assert connection.execute("select name from bot").fetchall() == [("mine",)]
        assert connection.execute("select count(*) from match").fetchone() == (0,)


def test_a_bad_url_is_one_sentence() -> None:
    with pytest.raises(UserError, match="cannot use the database URL"):
        open_database("nosuchdialect://x")


def test_action_logs_round_trip_compressed() -> None:
    actions = [{"type": "play", "card": i % 11, "row": "red"} for i in range(300)]
    blob = pack_actions(actions)
    assert unpack_actions(blob) == actions
    assert len(blob) < len(str(actions)) / 5
    assert unpack_actions(b"") == []


def test_a_new_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """It holds the deal secrets of running tournaments: no other user (a bot run as nobody) may read it."""
    path = tmp_path / "fresh" / "ladder.db"
    engine = open_database(f"sqlite:///{path}")
    with Session(engine) as session:
        session.add(SchemaInfo(version=99))
        session.commit()
        for made in [path, *path.parent.glob("ladder.db-*")]:
            assert made.stat().st_mode & 0o077 == 0, (made, oct(made.stat().st_mode))
    engine.dispose()
