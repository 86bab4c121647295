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

from ladder.store.authors import add_author, hash_secret, revoke_author
from ladder.store.served_tables import Role, SubmissionRow
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
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
    # different files each time: the same files again are answered as unchanged and cost nothing (test_web_ux.py)
    uploads = [{"file": ("bot.py", BOT + f"# {k}\n".encode(), "text/x-python")} for k in range(5)]
    upload = uploads[-1]
    codes = [
        httpx.post(app.url + "/api/submissions", files=uploads[k], headers=bearer(app.tokens["alice"])).status_code
        for k in range(4)
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
    others = httpx.get(f"{app.url}/api/submissions/{sid}", headers=bearer(app.tokens["bob"]))
    missing = httpx.get(f"{app.url}/api/submissions/{sid + 100}", headers=bearer(app.tokens["bob"]))
    # another author's submission and one that does not exist get the same answer: ids are sequential
    assert others.status_code == missing.status_code == 404
    assert others.json()["detail"].replace(str(sid), "N") == missing.json()["detail"].replace(str(sid + 100), "N")
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
        policy = page.headers["content-security-policy"]  # no inline script, nothing from another site
        assert "script-src 'self';" in policy and "default-src 'self';" in policy and "unsafe-inline" not in policy
        assert "content-security-policy" not in browser.get("/docs").headers  # Swagger UI comes from its CDN
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


def _tar(entries: list[tuple[str, bytes]]) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in entries:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize(
    "entries",
    [
        [("bot.py", BOT), ("a", b"1"), ("a/b", b"2")],  # a file, then a folder of the same name
        [("bot.py", BOT), ("a/b", b"2"), ("a", b"1")],  # a folder, then a file of the same name
        [("bot.py", BOT), ("a" * 300, b"1")],  # a name longer than a file system takes
        [("bot.py", BOT), ("/".join(["d" * 200] * 25) + "/f", b"1")],  # a path longer than a file system takes
    ],
    ids=["file-then-folder", "folder-then-file", "long-name", "long-path"],
)
def test_an_archive_that_cannot_be_laid_out_as_a_folder_is_refused_with_one_sentence(
    app: App, tmp_path: Path, entries: list[tuple[str, bytes]]
) -> None:
    response = httpx.post(
        app.url + "/api/submissions",
        files={"file": ("bot.tar.gz", _tar(entries), "application/gzip")},
        headers=bearer(app.tokens["alice"]),
    )
    assert response.status_code == 400, response.text
    assert "Internal" not in response.text and response.json()["detail"].endswith(("refused", "shorter"))
    assert app.submissions() == 0
    uploads = tmp_path / "results" / "serve" / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())  # nothing half-written left behind


@pytest.mark.slow
def test_an_authors_stream_of_archive_bombs_does_not_stall_everyone_elses_pages(app: App) -> None:
    """Refused uploads are free (they change nothing, so no rate limit counts them): unpacking one must not hold
    the web server's event loop, or one author sending bombs back to back stalls every page for everyone."""
    import io
    import random
    import statistics
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        # random padding makes the archive large enough (the 200x ratio) to unpack all 20 MB before its refusal,
        # in two files whose headers each claim less than the limit (the sum is only known by unpacking)
        for path, data in (
            ("bot.py", BOT),
            ("pad", random.randbytes(110_000)),
            ("big1", bytes(10_900_000)),
            ("big2", bytes(10_900_000)),
        ):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    bomb = buffer.getvalue()
    done = threading.Event()

    def probe(seconds: float) -> list[float]:
        took = []
        with httpx.Client(base_url=app.url, timeout=60) as visitor:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                started = time.perf_counter()
                assert visitor.get("/api/status").status_code == 200
                took.append(time.perf_counter() - started)
        return took

    def attacker() -> None:
        with httpx.Client(base_url=app.url, headers=bearer(app.tokens["bob"]), timeout=60) as client:
            while not done.is_set():
                refused = client.post("/api/submissions", files={"file": ("b.tar.gz", bomb, "application/gzip")})
                assert refused.status_code == 400

    calm = statistics.median(probe(1.0))
    attackers = [threading.Thread(target=attacker) for _ in range(4)]
    for thread in attackers:
        thread.start()
    try:
        time.sleep(0.5)
        under_attack = statistics.median(probe(2.5))
    finally:
        done.set()
        for thread in attackers:
            thread.join(timeout=60)
    assert app.submissions() == 0
    print(f"status page: {calm * 1000:.1f} ms calm, {under_attack * 1000:.1f} ms under attack")
    assert under_attack < max(10 * calm, 0.1), (calm, under_attack)  # held on the event loop: 0.5-0.7 s


def test_a_crowd_asking_for_head_to_head_pages_reads_the_database_once(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Head to head reads the whole database (0.7 s at 2,000 matches, and growing); anyone may ask, without a
    token, so each request must not read it again: eight clients asking in a loop held a trivial page at 0.9 s."""
    from concurrent.futures import ThreadPoolExecutor

    from ladder.views import records as report_data
    from ladder.views import served as views

    loads: list[float] = []
    real_load = report_data.load

    def counted(session: Session) -> report_data.ReportData:
        loads.append(time.monotonic())
        time.sleep(0.2)  # a large database
        return real_load(session)

    monkeypatch.setattr(report_data, "load", counted)
    monkeypatch.setattr(views, "REPORT", views._ReportCache())  # nothing kept from another test's database
    paths = [f"/api/h2h/elevenses/{players}" for players in (2, 3, 4)] * 4 + [f"/h2h/nosuch{n}/2" for n in range(6)]
    with ThreadPoolExecutor(max_workers=8) as crowd:
        codes = list(crowd.map(lambda path: httpx.get(app.url + path, timeout=60).status_code, paths))
    assert codes == [200] * len(paths)
    assert len(loads) == 1, f"the database was read {len(loads)} times for {len(paths)} requests"


def test_a_crowd_asking_for_leaderboards_while_matches_arrive_rates_the_database_once(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the scheduler's stored ratings, the pages rated every match themselves (1.4 s at 2,000 matches),
    every request at once: eight anonymous clients asking for the leaderboards in a loop stopped the scheduler
    (8 matches in 6 s, then none) and held a trivial page at 0.8 s. One rating at a time, shared."""
    from concurrent.futures import ThreadPoolExecutor

    from ladder.ratings import persistence
    from ladder.views import served as views

    computed: list[float] = []
    arrived = iter(range(1, 10_000))
    real_rate = persistence.rate_database

    def rate(session: Session) -> object:
        computed.append(time.monotonic())
        time.sleep(0.2)  # a large database
        return real_rate(session)

    current: list[float] = []
    real_current = views.rate_current

    def rate_current(session: Session) -> object:  # the default view: among the latest versions
        current.append(time.monotonic())
        time.sleep(0.2)
        return real_current(session)

    monkeypatch.setattr(persistence, "rate_database", rate)
    monkeypatch.setattr(views, "rate_current", rate_current)
    monkeypatch.setattr(persistence, "played_matches_marker", lambda _session: (next(arrived), 0))  # matches arrive
    monkeypatch.setattr(views, "RATINGS", views._RatingsCache())
    monkeypatch.setattr(views, "LATEST", views._LatestCache())
    paths = ["/api/leaderboards", "/", "/api/leaderboards", "/"] * 4
    paths += ["/api/leaderboards?versions=all", "/?versions=all"] * 4  # every version's: the database's ratings
    with ThreadPoolExecutor(max_workers=8) as crowd:
        codes = list(crowd.map(lambda path: httpx.get(app.url + path, timeout=60).status_code, paths))
    assert codes == [200] * len(paths)
    assert len(computed) == 1, f"the ratings were computed {len(computed)} times for {len(paths)} requests"
    assert len(current) == 1, f"the latest versions' ratings were computed {len(current)} times"


def test_a_bot_toml_whose_build_makes_its_program_is_accepted_for_checking(app: App, tmp_path: Path) -> None:
    """`command = ["./bot"]` made by `build` is not among the uploaded files: writing the upload tried to mark
    that missing file executable, and every such submission ended in a 500 and a half-written folder."""
    manifest = b'name = "built"\ngames = ["elevenses"]\ncommand = ["./bot"]\nbuild = ["cc", "-o", "bot", "bot.c"]\n'
    upload = _tar([("built/bot.toml", manifest), ("built/bot.c", b"int main(void) { return 0; }\n")])
    response = httpx.post(
        app.url + "/api/submissions",
        files={"file": ("built.tar.gz", upload, "application/gzip")},
        headers=bearer(app.tokens["alice"]),
    )
    assert response.status_code == 202, response.text
    assert app.submissions() == 1
    uploads = tmp_path / "results" / "serve" / "uploads"
    [folder] = list(uploads.iterdir())
    assert sorted(p.name for p in folder.iterdir()) == ["bot.c", "bot.toml"]


def test_an_id_past_what_the_database_holds_is_answered_not_a_500(app: App) -> None:
    """SQLite's integers stop at 2**63 - 1: a larger match or submission id in a URL reached the database and
    came back as a 500 with a traceback in the log, for anyone, without a token."""
    huge = 10**23
    for path in (f"/api/matches/{huge}", f"/matches/{huge}", f"/api/submissions/{huge}"):
        response = httpx.get(app.url + path, headers=bearer(app.tokens["alice"]))
        assert response.status_code == 422, (path, response.status_code, response.text)
        assert "less than or equal to" in response.text
    assert httpx.get(app.url + "/api/matches/1").status_code == 404  # an ordinary unknown id is still a 404


@pytest.mark.slow
def test_a_submission_waiting_when_its_author_is_revoked_never_goes_on_the_ladder(app: App, tmp_path: Path) -> None:
    """Revoking an author stops their token; a submission of theirs still waiting for its check went on to be
    checked and put on the schedule, after the operator had revoked them."""
    import os
    import subprocess
    import sys

    from tests.ladder.front_door import ROOT

    upload = {"file": ("bot.py", BOT.replace(b"'b'", b"'waiting'"), "text/x-python")}
    submission = httpx.post(app.url + "/api/submissions", files=upload, headers=bearer(app.tokens["bob"])).json()["id"]
    env = {
        **os.environ,
        "LADDER_DB": f"sqlite:///{tmp_path / 'ladder.db'}",
        "LADDER_RESULTS": str(tmp_path / "results"),
    }
    revoked = subprocess.run(
        [sys.executable, "-m", "cli", "author", "revoke", "bob"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert revoked.returncode == 0, revoked.stderr
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "service.background.check_job",
            "--db",
            env["LADDER_DB"],
            "--submission",
            str(submission),
            "--matches",
            "1",
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert check.returncode == 0, check.stderr
    verdict = httpx.get(f"{app.url}/api/submissions/{submission}", headers=bearer(app.tokens["op"])).json()
    assert verdict["state"] == "failed" and "revoked" in verdict["problem"], verdict
    assert httpx.get(app.url + "/api/bots/waiting").status_code == 404
