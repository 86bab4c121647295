"""One leaderboard JSON schema (docs/leaderboard-json.md): ``ladder rankings --json``, ``/api/leaderboards`` and
the static report's ``leaderboards.json`` give the same document for the same database, a tournament played through the real code (``ladder run``), the
served one read over real HTTP (uvicorn on 127.0.0.1, a random port)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from markupsafe import escape
from pydantic import BaseModel

from ladder.views import leaderboard
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from tests.service.serving import free_port

ROOT = Path(__file__).resolve().parents[2]


def _ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "LADDER_RESULTS": str(where / "results")}
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=600, cwd=where, env=env
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A small elevenses tournament of every built-in bot at two table sizes (two pools), run by ``ladder run``."""
    where = tmp_path_factory.mktemp("board")
    (where / "tiny.toml").write_text(
        'seed = 7\ngames = ["elevenses"]\nbots = "all"\nplayers = [2, 3]\ngames_per_pairing = 1\nworkers = 1\n'
    )
    url = f"sqlite:///{where / 'l.db'}"
    run = _ladder(where, "run", "tiny.toml", "--no-progress", "--db", url)
    assert run.returncode == 0, run.stderr
    return url


@pytest.fixture
def api(played: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    import uvicorn

    from ladder.views import served

    monkeypatch.setattr(served, "RATINGS", served._RatingsCache())  # nothing kept from another test's database
    engine = open_service_database(played)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(engine, ServeSettings(port=port)), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()


def test_the_cli_and_the_api_give_one_leaderboard_document(played: str, api: str) -> None:
    where = Path(played.removeprefix("sqlite:///")).parent
    run = _ladder(where, "rankings", "--json", "--db", played)
    assert run.returncode == 0, run.stderr
    from_cli = json.loads(run.stdout)
    response = httpx.get(api + "/api/leaderboards?versions=all", timeout=60)
    assert response.status_code == 200, response.text
    from_api = response.json()
    assert from_cli == from_api
    # like with like: the API's default is the CLI's --latest-versions (the read model's one filter)
    latest = _ladder(where, "rankings", "--json", "--latest-versions", "--db", played)
    assert latest.returncode == 0, latest.stderr
    default = httpx.get(api + "/api/leaderboards", timeout=60)
    assert default.status_code == 200, default.text
    assert json.loads(latest.stdout) == default.json()
    # the static report writes the same document beside its pages
    report = _ladder(where, "report", "--db", played, "--out", str(where / "site"))
    assert report.returncode == 0, report.stderr
    assert json.loads((where / "site" / "leaderboards.json").read_text(encoding="utf-8")) == from_cli
    # and it is the documented schema, with both pools and every bot in each
    parsed = leaderboard.Rankings.model_validate(from_api)
    assert set(parsed.pools) == {"elevenses/2p", "elevenses/3p"}
    for pool, board in parsed.pools.items():
        assert board.pool == pool and board.verdict in ("settled", "not yet")
        assert [row.rank for row in board.table] == list(range(1, len(board.table) + 1))
        assert all(row.state == leaderboard.HOUSE and row.bot for row in board.table)
        assert board.table[-1].p_above_next is None
        assert len(board.adjacent_pairs) == len(board.table) - 1
    # the served page shows that same verdict for every pool
    page = httpx.get(api + "/", timeout=60).text
    for board in parsed.pools.values():
        assert f"<strong>{escape(board.verdict)}</strong>: {escape(board.reason)}" in page


def _fields(model: type[BaseModel], seen: set[str]) -> set[str]:
    names = set()
    for name, field in model.model_fields.items():
        names.add(name)
        for kind in re.findall(r"\b[A-Z][A-Za-z]+\b", str(field.annotation)):
            nested = getattr(leaderboard, kind, None)
            if isinstance(nested, type) and issubclass(nested, BaseModel) and kind not in seen:
                seen.add(kind)
                names |= _fields(nested, seen)
    return names


def test_the_schema_document_names_every_field() -> None:
    doc = (ROOT / "docs" / "leaderboard-json.md").read_text(encoding="utf-8")
    missing = sorted(name for name in _fields(leaderboard.Rankings, set()) if f"`{name}`" not in doc)
    assert not missing, f"docs/leaderboard-json.md does not describe {missing}"
