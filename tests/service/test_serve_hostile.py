"""A hostile author against `ladder serve`, through the front door (the real command on 127.0.0.1, a temporary
database): each test is a hole that was found and closed (the red team's report of issue 26)."""

from __future__ import annotations

import json
import signal

import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import Server, add_author, start_server, wait_for

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


NAMED_BOT = """import random

from ladder.bot import Bot


class Named(Bot):
    name = "{name}"
    version = "1"
    games = ("elevenses",)

    def act(self, observation, legal_actions):
        return random.choice(legal_actions)
"""


def _submit(server: Server, token: str, name: str) -> int:
    upload = {"file": ("bot.py", NAMED_BOT.format(name=name).encode(), "text/x-python")}
    response = server.post("/api/submissions", token, files=upload)
    assert response.status_code == 202, response.text
    return int(response.json()["id"])


def _verdict(server: Server, token: str, submission: int) -> dict[str, str]:
    def final() -> dict[str, str] | None:
        status = server.get(f"/api/submissions/{submission}", token).json()
        return status if status["state"] in ("active", "failed") else None

    return wait_for(final, 300, lambda: f"submission #{submission} was never checked:\n{server.output()[-3000:]}")


def test_a_bot_name_that_only_looks_like_another_authors_or_a_built_in_one_is_refused(tmp_path) -> None:
    """Names are owned exactly, so `Alicebot`, `alice_bot`, `a1icebot` or `RANDOM` passed as new bots beside
    alice's `alicebot` and the built-in `random`: one author could pass for another on every page."""
    home = LadderHome(tmp_path)
    tokens = {name: add_author(home, name) for name in ("alice", "bob")}
    server = start_server(home, "--workers", "1", "--check-matches", "1", "--submissions-per-hour", "20")
    try:
        assert _verdict(server, tokens["alice"], _submit(server, tokens["alice"], "alicebot"))["state"] == "active"
        lookalikes = ("Alicebot", "alice_bot", "alicebot.", "a1icebot", "ALlCEBOT", "RANDOM", "Thumb-")
        sent = {name: _submit(server, tokens["bob"], name) for name in lookalikes}
        fine = _submit(server, tokens["bob"], "bobbot")
        own = _submit(server, tokens["alice"], "alice-bot")  # her own name, spelled another way: hers to use
        for name, submission in sent.items():
            verdict = _verdict(server, tokens["bob"], submission)
            assert verdict["state"] == "failed", f"{name!r} was accepted beside 'alicebot' and the built-in bots"
            # issue 23's rules come first: a name ending in punctuation, then one passing for a built-in bot;
            # another author's name is refused by its look
            builtin = name.lower() in ("random", "thumb", "search")
            reason = (
                "ends in punctuation"
                if not name[-1].isalnum()
                else "passes for the built-in bot"
                if builtin
                else "looks like"
            )
            assert reason in verdict["problem"], verdict["problem"]
        assert _verdict(server, tokens["bob"], fine)["state"] == "active"
        assert _verdict(server, tokens["alice"], own)["state"] == "active"
        names = {
            row["bot"] for board in server.get("/api/leaderboards").json()["pools"].values() for row in board["table"]
        }
        assert not names & set(lookalikes)
    finally:
        server.end()
