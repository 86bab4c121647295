"""The same tournament on SQLite and on PostgreSQL, through the real CLI: every match equal by key, the same tables.

With one deal secret the deals and the bots' seeds are the same wherever the matches are stored, so the
backend may change nothing: not a score, a rank, a seed, a status or an action, nor what ``ladder rankings``,
``ladder rerate`` and ``ladder report`` make of them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from ladder.store.action_log import unpack_actions
from ladder.store.database import session_for
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, SeatResultRow
from tests.postgres_cluster import PostgresServer

SECRET = "5eed" * 16
TOURNAMENT = """
name = "backends"
seed = 11
format = "round-robin"
games = ["elfer-raus", "elevenses", "bowling-solitaire"]
bots = ["random", "thumb"]
players = [2]
games_per_pairing = 3
workers = 0
"""


def ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LADDER_RESULTS": str(where / "results"), "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-m", "cli", *args], cwd=where, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def matches_by_key(url: str) -> dict[str, dict[str, Any]]:
    """Every stored match by its key: what was played and how it ended, with bots named (ids may differ)."""
    with session_for(url) as session:
        names = {
            version_id: name
            for version_id, name in session.execute(
                sa_select(col(BotVersionRow.id), col(BotRow.name)).join(
                    BotRow, col(BotRow.id) == col(BotVersionRow.bot_id)
                )
            ).all()
        }
        seats: dict[int, list[tuple[int, str, float | None, int | None, str | None]]] = {}
        for seat in session.exec(select(SeatResultRow).order_by(col(SeatResultRow.seat))).all():
            seats.setdefault(seat.match_id, []).append(
                (seat.seat, names[seat.bot_version_id], seat.score, seat.rank, seat.failure_reason)
            )
        found: dict[str, dict[str, Any]] = {}
        for match in session.exec(select(MatchRow)).all():
            found[match.key] = {
                "game": match.game,
                "options": match.options_json,
                "deal": match.deal,
                "seed": match.seed,
                "seats": match.seats_json,
                "status": match.status,
                "error": match.error,
                "actions": unpack_actions(match.actions_z),
                "action_count": match.action_count,
                "details": match.details_json,
                "results": seats.get(match.id or -1, []),
            }
    return found


@pytest.mark.slow  # ten CLI runs (about a minute on 2 busy cores); tests/ladder/ratings/test_ratings.py runs one in-process
@pytest.mark.postgres
def test_a_tournament_gives_the_same_matches_and_tables_on_sqlite_and_postgresql(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    urls = {"sqlite": f"sqlite:///{tmp_path / 'ladder.db'}", "postgresql": postgres_server.fresh_url()}
    (tmp_path / "backends.toml").write_text(TOURNAMENT)
    shown: dict[str, dict[str, str]] = {}
    for backend, url in urls.items():
        ladder(tmp_path, "run", "backends.toml", "--db", url, "--deal-secret", SECRET)
        shown[backend] = {"rankings": ladder(tmp_path, "rankings", "--db", url).stdout}
        ladder(tmp_path, "rerate", "--db", url)
        shown[backend]["rerated"] = ladder(tmp_path, "rankings", "--db", url).stdout
        ladder(tmp_path, "report", "--db", url, "--out", str(tmp_path / f"report-{backend}"))
    on_sqlite, on_postgresql = matches_by_key(urls["sqlite"]), matches_by_key(urls["postgresql"])
    assert len(on_sqlite) == 2 * 3 * 2 + 2 * 3  # two seatings of 3 deals in two duels, and each bot's 3 solitaires
    assert on_sqlite.keys() == on_postgresql.keys()
    for key, match in on_sqlite.items():
        assert on_postgresql[key] == match, key
    assert any(match["seed"] > 2**31 for match in on_postgresql.values())  # the seeds PostgreSQL's INTEGER refused
    assert all(match["status"] == "played" and match["actions"] for match in on_sqlite.values())
    assert shown["sqlite"] == shown["postgresql"]
    assert "thumb" in shown["postgresql"]["rankings"]
    for backend in urls:
        assert (tmp_path / f"report-{backend}" / "index.html").is_file()


@pytest.mark.postgres
def test_a_missing_postgresql_driver_or_server_is_one_sentence(postgres_server: PostgresServer, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli", "rankings", "--db", "postgresql+psycopg://ladder@/nosuch?host=" + str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert "cannot open the database" in done.stderr + done.stdout
