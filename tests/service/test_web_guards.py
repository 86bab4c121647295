"""The web app's guards over real HTTP (uvicorn on 127.0.0.1, a random port, a temporary database), without the
scheduler and checker: tokens, revocation, the rate limit, CSRF, tokens in URLs, and what goes to the log."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from service.app import create_app
from service.db import open_service_database
from service.models import Role, SubmissionRow
from service.security import add_author, hash_secret, revoke_author
from service.settings import ServeSettings
from tests.service.serving import free_port

BOT = b"from ladder.bot import Bot\n\nclass B(Bot):\n    name = 'b'\n    games = ('*',)\n\n    def act(self, o, legal):\n        return legal[0]\n"


@dataclass
class App:
    url: str
    engine: object
    tokens: dict[str, str]

    def submissions(self) -> int:
        with Session(self.engine) as session:  # type: ignore[arg-type]
            return len(session.exec(select(SubmissionRow)).all())


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[App]:
    import uvicorn

    monkeypatch.setenv("LADDER_RESULTS", str(tmp_path / "results"))
    engine = open_service_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    with Session(engine) as session:
        tokens = {
            "alice": add_author(session, "alice"),
            "bob": add_author(session, "bob"),
            "op": add_author(session, "op", Role.OPERATOR),
        }
    port = free_port()
    settings = ServeSettings(port=port, submissions_per_hour=3)
    server = uvicorn.Server(
        uvicorn.Config(create_app(engine, settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield App(f"http://127.0.0.1:{port}", engine, tokens)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_is_stored_only_as_its_hash(app: App, tmp_path: Path) -> None:
    raw = (tmp_path / "ladder.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("ladder.db-*"))
    for token in app.tokens.values():
        assert token.encode() not in raw and hash_secret(token).encode() in raw


def test_changes_need_a_valid_token_and_a_revoked_one_stops_working(app: App) -> None:
    upload = {"file": ("bot.py", BOT, "text/x-python")}
    assert httpx.post(app.url + "/api/submissions", files=upload).status_code == 401
    assert httpx.post(app.url + "/api/submissions", files=upload, headers=bearer("x" * 43)).status_code == 401
    ok = httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["bob"]))
    assert ok.status_code == 202 and ok.json()["state"] == "queued"
    with Session(app.engine) as session:  # type: ignore[arg-type]
        revoke_author(session, "bob")
    again = httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["bob"]))
    assert again.status_code == 401 and "revoked" in again.json()["detail"]
    assert app.submissions() == 1


def test_the_rate_limit_refuses_an_authors_extra_submissions_with_one_sentence(app: App) -> None:
    upload = {"file": ("bot.py", BOT, "text/x-python")}
    codes = [
        httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["alice"])).status_code
        for _ in range(4)
    ]
    assert codes == [202, 202, 202, 429]
    refused = httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["alice"]))
    assert "in the last hour" in refused.json()["detail"]
    assert httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["bob"])).status_code == 202
    assert app.submissions() == 4


def test_a_token_in_the_query_string_is_refused_and_never_logged(app: App, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ladder.serve.access")
    for key in ("token", "access_token", "api_key"):
        response = httpx.get(f"{app.url}/api/me?{key}={app.tokens['alice']}")
        assert response.status_code == 400 and "never in a URL" in response.json()["detail"]
    httpx.get(app.url + "/api/me", headers=bearer(app.tokens["alice"]))
    assert "GET /api/me 400" in caplog.text and "GET /api/me 200" in caplog.text
    assert app.tokens["alice"] not in caplog.text


def test_only_the_operator_changes_a_bots_state_and_submissions_are_private(app: App) -> None:
    assert httpx.post(app.url + "/api/bots/x/pause", headers=bearer(app.tokens["alice"])).status_code == 403
    assert httpx.post(app.url + "/api/bots/x/pause", headers=bearer(app.tokens["op"])).status_code == 404
    upload = {"file": ("bot.py", BOT, "text/x-python")}
    sid = httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["alice"])).json()["id"]
    assert httpx.get(f"{app.url}/api/submissions/{sid}", headers=bearer(app.tokens["bob"])).status_code == 403
    assert httpx.get(f"{app.url}/api/submissions/{sid}").status_code == 401
    assert httpx.get(f"{app.url}/api/submissions/{sid}", headers=bearer(app.tokens["op"])).status_code == 200
    assert httpx.get(f"{app.url}/api/submissions/{sid + 100}", headers=bearer(app.tokens["alice"])).status_code == 404


def test_a_logged_in_browser_cannot_log_out_or_submit_without_its_csrf_token(app: App) -> None:
    with httpx.Client(base_url=app.url) as browser:
        csrf = browser.get("/login").text.split('name="csrf_token" value="')[1].split('"')[0]
        assert browser.post("/login", data={"token": app.tokens["alice"], "csrf_token": csrf}).status_code == 303
        assert browser.post("/logout").status_code == 403
        assert browser.get("/me").status_code == 200  # still logged in
        page = browser.get("/me")
        assert page.headers["x-frame-options"] == "DENY" and "HttpOnly" not in page.text
        session_csrf = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        assert browser.post("/logout", data={"csrf_token": session_csrf}).status_code == 303
        assert browser.get("/me").status_code == 303  # logged out: sent to the login form
    with httpx.Client(base_url=app.url) as browser:
        login = browser.get("/login")
        assert (
            "SameSite=strict" in login.headers["set-cookie"] or "samesite=strict" in login.headers["set-cookie"].lower()
        )


def test_an_oversized_upload_is_refused_with_or_without_a_length(app: App) -> None:
    big = b"#" * (6 * 1024 * 1024)
    declared = httpx.post(
        app.url + "/api/submissions",
        files={"file": ("bot.py", big, "text/x-python")},
        headers=bearer(app.tokens["alice"]),
    )
    assert declared.status_code == 413 and "larger than this server takes" in declared.json()["detail"]

    def chunks() -> Iterator[bytes]:
        boundary = b"--xyz\r\n"
        yield boundary + b'Content-Disposition: form-data; name="file"; filename="bot.py"\r\n\r\n'
        for _ in range(7):
            yield b"#" * (1024 * 1024)
        yield b"\r\n--xyz--\r\n"

    streamed = httpx.post(
        app.url + "/api/submissions",
        content=chunks(),
        headers={**bearer(app.tokens["alice"]), "Content-Type": "multipart/form-data; boundary=xyz"},
    )
    assert streamed.status_code == 413 and "larger than this server takes" in streamed.json()["detail"]
    assert app.submissions() == 0
