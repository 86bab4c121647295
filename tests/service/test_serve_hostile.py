"""A hostile author against `ladder serve`, through the front door (the real command on 127.0.0.1, a temporary
database): each test is a hole that was found and closed (the red team's report of issue 26)."""

from __future__ import annotations

import json
import signal

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import start_server

pytestmark = [pytest.mark.slow]


def _serve_row(home: LadderHome) -> dict[str, object]:
    listed = json.loads(home.ladder_ok("tournaments", "--json").stdout)
    return next(row for row in listed if row["name"] == "serve")


def test_a_restart_after_the_secret_was_revealed_deals_from_a_new_sealed_secret(tmp_path) -> None:
    """`ladder tournaments --reveal` works on a stopped server's tournament; the next start must not go on
    dealing from that public secret (anyone could compute every deal to come)."""
    home = LadderHome(tmp_path)
    server = start_server(home, "--workers", "1")
    try:
        first = server.get("/api/status").json()["tournament_id"]
        server.kill(signal.SIGINT)
        revealed = home.ladder_ok("tournaments", "--reveal", str(first)).stdout
        old = _serve_row(home)
        assert old["deal_secret"] and old["deal_secret"] in revealed
        server = start_server(home, "--workers", "1")
        assert server.get("/api/status").json()["tournament_id"] == first  # the same served ladder goes on
        now = _serve_row(home)
        assert now["deal_secret"] is None, "the served ladder deals from a secret anyone can read"
        assert now["deal_commitment"] != old["deal_commitment"]
        assert f"commitment {old['deal_commitment']}" not in server.output().split("stopped")[-1]
    finally:
        server.end()
