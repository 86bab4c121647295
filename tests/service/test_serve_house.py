"""`ladder serve --house BOT` on a fresh database: the house bot is a yardstick, and it must not lock the database.

The scheduler recorded a house bot's first version inside its round planning and, with nothing to plan (no
submitted bot yet), never committed: the open write held SQLite's lock, so every login, upload and
`ladder author add` waited 30 s and failed with "database is locked" (found by the fresh-user walk).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import start_server, wait_for

pytestmark = pytest.mark.slow  # a real server process and a second `ladder` process


def test_a_fresh_server_with_a_house_bot_leaves_the_database_writable(tmp_path: Path) -> None:
    home = LadderHome(tmp_path)
    server = start_server(home, "--house", "thumb", "--workers", "1")
    try:
        wait_for(
            lambda: server.get("/api/status").json()["scheduler"].startswith("idle"),
            60,
            lambda: f"the scheduler never went idle:\n{server.output()}",
        )
        added = home.ladder("author", "add", "bob", timeout=20)  # waited 30 s on the lock, then failed
        assert added.returncode == 0, added.stderr
        assert server.get("/bots/thumb").status_code == 200  # the house bot was recorded all the same
    finally:
        server.end()
