"""`ladder serve` through the front door: the real command on 127.0.0.1 (a random port), a temporary database,
two workers, two authors on their own "machines" (a home folder and a token each) submitting with
`ladder submit --server`; then what each may see, what is refused, and a `kill -9` in the middle of play.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import signal
import sqlite3
import stat
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.ladder.front_door import LadderHome
from tests.service.serving import (
    CHROMEDRIVER,
    CHROMIUM,
    Server,
    add_author,
    author_env,
    browser_login,
    chromium,
    ladder_as,
    played,
    start_server,
    step_viewer_to_the_end,
    wait_for,
    write_bot,
)

pytestmark = [pytest.mark.slow, pytest.mark.needs_bot_sandbox]


@dataclass
class Ladder:
    home: LadderHome
    server: Server
    tokens: dict[str, str]
    homes: dict[str, Path]

    def rows(self, sql: str) -> list[tuple]:
        with sqlite3.connect(self.home.db_path) as connection:
            return connection.execute(sql).fetchall()


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    home = LadderHome(tmp_path_factory.mktemp("served"))
    tokens = {name: add_author(home, name) for name in ("alice", "bob", "carol")}
    tokens["op"] = add_author(home, "op", "--operator")
    server = start_server(home, "--workers", "2", "--check-matches", "1")
    homes = {name: home.root / f"home-{name}" for name in ("alice", "bob", "carol")}
    state = Ladder(home, server, tokens, homes)
    try:
        yield state
    finally:
        state.server.end()


def test_two_authors_submit_from_their_machines_and_both_get_played(ladder: Ladder) -> None:
    alice = author_env(ladder.home, ladder.homes["alice"], ladder.tokens["alice"])
    login = ladder_as(alice, "login", ladder.server.url)
    assert login.returncode == 0, login.stderr
    stored = ladder.homes["alice"] / ".config" / "ladder" / "servers.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    alice.pop("LADDER_TOKEN")  # from here alice's token comes from what `ladder login` stored
    bot_a = write_bot(ladder.homes["alice"] / "bot", "alice-rand", "alice", "alice-secret-stderr")
    first = ladder_as(alice, "submit", str(bot_a), "--server", ladder.server.url)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "active" in first.stdout and "alice-rand" in first.stdout

    bob = author_env(ladder.home, ladder.homes["bob"], ladder.tokens["bob"])
    bot_b = write_bot(ladder.homes["bob"] / "bot", "bob-rand", "bob", "bob-secret-stderr") / "bot.py"
    second = ladder_as(bob, "submit", str(bot_b), "--server", ladder.server.url)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "bob-rand" in second.stdout
    listed = ladder_as(bob, "submissions", "--server", ladder.server.url, "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(row["bot"], row["state"]) for row in json.loads(listed.stdout)] == [("bob-rand", "active")]

    counts = wait_for(
        lambda: (c := played(ladder.server)).get("alice-rand", 0) >= 2 and c.get("bob-rand", 0) >= 2 and c,
        600,
        lambda: f"not played: {played(ladder.server)}\n{ladder.server.output()[-3000:]}",
    )
    assert set(counts) == {"alice-rand", "bob-rand"}
    # nobody ran a tournament: the matches are the served ladder's own
    assert {name for (name,) in ladder.rows("SELECT name FROM tournament")} == {"serve"}
    assert ladder.rows("SELECT state FROM serve_submission ORDER BY id") == [("active",), ("active",)]


def test_head_to_head_and_replays_are_served_from_the_database(ladder: Ladder) -> None:
    h2h = ladder.server.get("/api/h2h/elevenses/2").json()
    pair = next(p for p in h2h["pairs"] if p["bot"] == "alice-rand" and p["opponent"] == "bob-rand")
    assert pair["ahead"] + pair["behind"] + pair["tied"] >= 2
    page = ladder.server.get("/h2h/elevenses/2")
    assert page.status_code == 200 and "alice-rand" in page.text and "bob-rand" in page.text
    match_id = ladder.rows("SELECT id FROM match WHERE status = 'played' ORDER BY id LIMIT 1")[0][0]
    match = ladder.server.get(f"/api/matches/{match_id}").json()
    assert {seat["bot"] for seat in match["seats"]} == {"alice-rand", "bob-rand"}
    page = ladder.server.get(f"/matches/{match_id}")  # the report's viewer, its data fetched from the API
    assert page.status_code == 200 and f'data-replay="/api/matches/{match_id}/replay"' in page.text
    assert "/static/report/replay.js" in page.text
    replay = ladder.server.get(f"/api/matches/{match_id}/replay")
    assert replay.headers["content-type"] == "application/gzip"
    document = json.loads(gzip.decompress(replay.content))
    (action_count,) = ladder.rows(f"SELECT action_count FROM match WHERE id = {match_id}")[0]
    assert len(document["frames"]) == action_count + 1 and action_count >= 2 and document["problem"] == ""
    assert ladder.server.get("/matches/999999").status_code == 404
    docs = ladder.server.get("/openapi.json").json()
    assert {"/api/submissions", "/api/leaderboards", "/api/bots/{name}/stderr"} <= set(docs["paths"])


def test_each_author_sees_their_own_stderr_and_not_the_others(ladder: Ladder) -> None:
    alice, bob = ladder.tokens["alice"], ladder.tokens["bob"]
    own = ladder.server.get("/api/bots/alice-rand/stderr", alice)
    assert own.status_code == 200 and "alice-secret-stderr" in own.text
    assert "bob-secret-stderr" in ladder.server.get("/api/bots/bob-rand/stderr", bob).text
    other = ladder.server.get("/api/bots/bob-rand/stderr", alice)
    assert other.status_code == 403 and "bob-secret-stderr" not in other.text
    assert ladder.server.get("/api/bots/alice-rand/stderr").status_code == 401
    assert "secret-stderr" not in ladder.server.get("/bots/alice-rand").text  # the public page
    assert "bob-secret-stderr" in ladder.server.get("/api/bots/bob-rand/stderr", ladder.tokens["op"]).text
    bobs = ladder.rows(
        "SELECT s.id FROM serve_submission s JOIN serve_author a ON a.id = s.author_id WHERE a.name = 'bob'"
    )
    assert ladder.server.get(f"/api/submissions/{bobs[0][0]}", alice).status_code == 404  # as if it did not exist
    assert ladder.server.get(f"/api/submissions/{bobs[0][0]}", bob).json()["state"] == "active"


def test_a_served_replay_holds_only_the_stderr_its_requester_may_see(ladder: Ladder) -> None:
    """Replays of the matches `ladder serve` played: each author gets their own bot's stderr in the data, never the
    other's; the operator gets both; nobody logged in gets none."""
    match_id = _match_of_both(ladder)

    def stderr_of(token: str | None) -> dict[str, str]:
        response = ladder.server.get(f"/api/matches/{match_id}/replay", token)
        assert response.status_code == 200 and response.headers["content-type"] == "application/gzip"
        return {seat["name"]: seat["stderr"] for seat in json.loads(gzip.decompress(response.content))["seats"]}

    alice, bob = stderr_of(ladder.tokens["alice"]), stderr_of(ladder.tokens["bob"])
    assert "alice-secret-stderr" in alice["alice-rand"] and alice["bob-rand"] == ""
    assert "bob-secret-stderr" in bob["bob-rand"] and bob["alice-rand"] == ""
    assert stderr_of(None) == {"alice-rand": "", "bob-rand": ""}
    operator = stderr_of(ladder.tokens["op"])
    assert "alice-secret-stderr" in operator["alice-rand"] and "bob-secret-stderr" in operator["bob-rand"]
    raw = ladder.server.get(f"/api/matches/{match_id}/replay", ladder.tokens["alice"]).content
    assert b"bob-secret-stderr" not in gzip.decompress(raw)


def _match_of_both(ladder: Ladder) -> int:
    """A played match of the served ladder where alice-rand and bob-rand both sat."""
    rows = ladder.rows(
        "SELECT m.id FROM match m JOIN seat_result s ON s.match_id = m.id JOIN bot_version v "
        "ON v.id = s.bot_version_id JOIN bot b ON b.id = v.bot_id JOIN tournament t ON t.id = m.tournament_id "
        "WHERE m.status = 'played' AND t.name = 'serve' AND b.name IN ('alice-rand', 'bob-rand') "
        "GROUP BY m.id HAVING COUNT(DISTINCT b.name) = 2 ORDER BY m.id LIMIT 1"
    )
    assert rows, "no match of alice-rand against bob-rand was recorded"
    return int(rows[0][0])


@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="needs chromium and chromedriver")
def test_the_viewer_replays_a_match_the_server_played_to_its_end(ladder: Ladder) -> None:
    pytest.importorskip("selenium")
    match_id = _match_of_both(ladder)
    (action_count,) = ladder.rows(f"SELECT action_count FROM match WHERE id = {match_id}")[0]
    with chromium() as driver:
        browser_login(driver, ladder.server.url, ladder.tokens["bob"])
        assert step_viewer_to_the_end(driver, f"{ladder.server.url}/matches/{match_id}") == action_count
        assert "the match is over" in driver.find_element("id", "move").text
        stderr = driver.find_element("id", "stderr").get_attribute("textContent")
        assert "bob-secret-stderr" in stderr and "alice-secret-stderr" not in driver.page_source


DRIVER = CHROMEDRIVER


@pytest.mark.skipif(CHROMIUM is None or DRIVER is None, reason="needs chromium and chromedriver")
def test_the_live_pages_in_a_browser_show_both_bots_and_each_author_their_own_stderr(ladder: Ladder) -> None:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        driver.get(ladder.server.url + "/")
        rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "section.pool tr.bot-row")]
        assert any("alice-rand" in row for row in rows) and any("bob-rand" in row for row in rows)
        assert driver.find_element(By.CSS_SELECTOR, "section.pool .verdict").text.split(":")[0] in (
            "settled",
            "not yet",
        )
        browser_login(
            driver, ladder.server.url, ladder.tokens["alice"]
        )  # waits for /me: the click returns before it loads
        assert "My bots" in driver.find_element(By.TAG_NAME, "h1").text
        driver.get(ladder.server.url + "/bots/alice-rand")
        assert "alice-secret-stderr" in driver.find_element(By.ID, "stderr").find_element(By.XPATH, "..").text
        driver.get(ladder.server.url + "/bots/bob-rand")
        assert "bob-secret-stderr" not in driver.page_source
        driver.get(ladder.server.url + "/bots/bob-rand/stderr")
        assert (
            "only to its author and the operator" in driver.page_source
            and "bob-secret-stderr" not in driver.page_source
        )
    finally:
        driver.quit()


def _hostile_archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (("bot.py", b"x = 1\n"), ("../../escaped.py", b"boom")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_no_token_a_revoked_token_and_a_hostile_archive_are_refused_and_change_nothing(ladder: Ladder) -> None:
    before = ladder.rows("SELECT count(*) FROM serve_submission")
    uploads = sorted((ladder.home.results / "serve" / "uploads").iterdir())
    bot = write_bot(ladder.homes["carol"] / "bot", "carol-rand", "carol", "carol") / "bot.py"

    nobody = ladder_as(
        author_env(ladder.home, ladder.homes["carol"], None), "submit", str(bot), "--server", ladder.server.url
    )
    assert nobody.returncode == 2 and "no token for" in nobody.stderr and "Traceback" not in nobody.stderr

    revoked = ladder.home.ladder("author", "revoke", "carol")
    assert revoked.returncode == 0, revoked.stderr
    carol = author_env(ladder.home, ladder.homes["carol"], ladder.tokens["carol"])
    refused = ladder_as(carol, "submit", str(bot), "--server", ladder.server.url)
    assert refused.returncode == 2 and "this token is not valid" in refused.stderr and "HTTP 401" in refused.stderr

    hostile = ladder.server.post(
        "/api/submissions",
        ladder.tokens["alice"],
        files={"file": ("bot.tar.gz", _hostile_archive(), "application/gzip")},
    )
    assert hostile.status_code == 400 and "climbs out of the folder" in hostile.json()["detail"]
    assert not (ladder.home.results / "serve" / "escaped.py").exists()
    in_url = ladder.server.get(f"/api/me?token={ladder.tokens['alice']}")
    assert in_url.status_code == 400 and "never in a URL" in in_url.text
    assert ladder.tokens["alice"] not in ladder.server.output()  # no token in the server's log

    assert ladder.rows("SELECT count(*) FROM serve_submission") == before
    assert sorted((ladder.home.results / "serve" / "uploads").iterdir()) == uploads


def test_a_browser_session_needs_its_csrf_token_to_change_anything(ladder: Ladder) -> None:
    with httpx.Client(base_url=ladder.server.url, timeout=30) as browser:
        form = browser.get("/login")
        login_csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
        assert login_csrf is not None
        assert browser.post("/login", data={"token": ladder.tokens["alice"], "csrf_token": "forged"}).status_code == 403
        logged = browser.post("/login", data={"token": ladder.tokens["alice"], "csrf_token": login_csrf.group(1)})
        assert logged.status_code == 303 and "ladder_session" in browser.cookies
        page = browser.get("/me")
        assert page.status_code == 200 and "alice-rand" in page.text
        before = ladder.rows("SELECT count(*) FROM serve_submission")
        upload = {"file": ("bot.py", b"print('x')\n", "text/x-python")}
        forged = browser.post("/me/submit", files=upload)
        assert forged.status_code == 403 and "CSRF" in forged.text
        assert browser.post("/me/submit", files=upload, data={"csrf_token": "not-it"}).status_code == 403
        assert ladder.rows("SELECT count(*) FROM serve_submission") == before
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf is not None
        accepted = browser.post("/me/submit", files=upload, data={"csrf_token": csrf.group(1)})
        assert accepted.status_code == 303
        assert ladder.rows("SELECT count(*) FROM serve_submission")[0][0] == before[0][0] + 1
        # an author is no operator: the operator's buttons are refused even with the right CSRF token
        pause = browser.post("/bots/bob-rand/pause", data={"csrf_token": csrf.group(1)})
        assert pause.status_code == 403


def test_the_operator_benches_and_resumes_a_bot_from_the_web_pages(ladder: Ladder) -> None:
    with httpx.Client(base_url=ladder.server.url, timeout=30) as browser:
        login_csrf = re.search(r'name="csrf_token" value="([^"]+)"', browser.get("/login").text)
        assert login_csrf is not None
        browser.post("/login", data={"token": ladder.tokens["op"], "csrf_token": login_csrf.group(1)})
        page = browser.get("/bots/bob-rand")
        assert "bob-secret-stderr" in page.text  # the operator sees every bot's stderr
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert csrf is not None and 'action="/bots/bob-rand/bench"' in page.text
        assert browser.post("/bots/bob-rand/bench", data={"reason": "too slow"}).status_code == 403
        benched = browser.post("/bots/bob-rand/bench", data={"reason": "too slow", "csrf_token": csrf.group(1)})
        assert benched.status_code == 303
        bot = ladder.server.get("/api/bots/bob-rand").json()
        assert (bot["state"], bot["reason"]) == ("benched", "too slow")
        assert browser.post("/bots/bob-rand/resume", data={"csrf_token": csrf.group(1)}).status_code == 303
        assert ladder.server.get("/api/bots/bob-rand").json()["state"] == "active"


def test_the_operator_pauses_and_resumes_a_bot_from_the_command_line(ladder: Ladder) -> None:
    paused = ladder.home.ladder("admin", "pause", "bob-rand", "--reason", "looking into it")
    assert paused.returncode == 0 and "paused" in paused.stdout
    assert ladder.server.get("/api/bots/bob-rand").json()["state"] == "paused"
    resumed = ladder.home.ladder("admin", "resume", "bob-rand")
    assert resumed.returncode == 0
    assert ladder.server.get("/api/bots/bob-rand").json()["state"] == "active"
    missing = ladder.home.ladder("admin", "retire", "nobody")
    assert missing.returncode == 2 and "there is no bot 'nobody'" in missing.stderr


def _match_rows(ladder: Ladder) -> list[tuple]:
    return ladder.rows(
        "SELECT m.id, m.key, m.status FROM match m JOIN tournament t ON t.id = m.tournament_id "
        "WHERE t.name = 'serve' ORDER BY m.id"
    )


def _group_alive(group: int) -> list[str]:
    """The processes left in the killed server's process group (its workers, bots, checks)."""
    left = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            left.append(stat_file.parent.name)
    return left


def _stalled(ladder: Ladder) -> str:
    status = ladder.server.get("/api/status").text
    lines = [line for line in ladder.server.output().splitlines() if "ladder.serve.access" not in line]
    return f"no match was played: {status}\n" + "\n".join(lines[-40:])


def _in_flight(ladder: Ladder) -> set[str]:
    """Planned matches not recorded: those the workers are playing (or about to)."""
    return {key for (key,) in ladder.rows("SELECT key FROM serve_planned WHERE key NOT IN (SELECT key FROM match)")}


def _new_version(ladder: Ladder, tag: str) -> None:
    """A new version of alice's bot: its placement set (and the pools it opens) keeps the workers busy, whatever the
    leaderboards already settled."""
    env = author_env(ladder.home, ladder.homes["alice"], ladder.tokens["alice"])
    bot = write_bot(ladder.homes["alice"] / f"bot-{tag}", "alice-rand", "alice", f"alice-secret-stderr {tag}")
    done = ladder_as(env, "submit", str(bot), "--server", ladder.server.url)
    assert done.returncode == 0, done.stdout + done.stderr


def test_kill_9_mid_play_then_a_restart_loses_and_repeats_nothing(ladder: Ladder) -> None:
    _new_version(ladder, "v2")
    start = len(_match_rows(ladder))
    wait_for(lambda: len(_match_rows(ladder)) >= start + 2 and _in_flight(ladder), 300, lambda: _stalled(ladder))
    ladder.server.kill()  # kill -9, mid-play: the two workers hold matches in flight
    group = ladder.server.process.pid
    wait_for(
        lambda: not _group_alive(group), 30, lambda: f"processes of the killed server are left: {_group_alive(group)}"
    )
    recorded = _match_rows(ladder)
    planned = {key for (key,) in ladder.rows("SELECT key FROM serve_planned")}
    submissions = ladder.rows("SELECT id, state, content_hash FROM serve_submission ORDER BY id")
    assert _in_flight(ladder), "the kill found no match in flight; the test proves nothing"

    ladder.server = start_server(ladder.home, "--workers", "2", "--check-matches", "1")
    wait_for(
        lambda: planned <= {key for _id, key, _status in _match_rows(ladder)},
        300,
        lambda: (
            f"the matches in flight at the kill were not played after the restart:\n{ladder.server.output()[-3000:]}"
        ),
    )
    wait_for(
        lambda: len(_match_rows(ladder)) >= len(planned) + 2, 300, lambda: "the restarted server plays nothing new"
    )
    after = _match_rows(ladder)
    assert after[: len(recorded)] == recorded  # every match recorded before the kill is there, unchanged
    keys = [key for _id, key, _status in after]
    assert len(keys) == len(set(keys))  # none played twice
    now = {row[0]: row for row in ladder.rows("SELECT id, state, content_hash FROM serve_submission")}
    for row in submissions:  # every accepted submission is still there; a verdict given stays given
        assert row[0] in now
        if row[1] in ("active", "failed"):
            assert now[row[0]] == row


def test_ctrl_c_stops_cleanly_after_recording_the_matches_in_flight(ladder: Ladder) -> None:
    _new_version(ladder, "v3")
    start = len(_match_rows(ladder))
    wait_for(lambda: len(_match_rows(ladder)) > start and _in_flight(ladder), 300, lambda: _stalled(ladder))
    ladder.server.kill(signal.SIGINT)
    assert ladder.server.process.returncode == 0, ladder.server.output()[-3000:]
    output = ladder.server.output()
    assert "finishing the matches in flight" in output and "stopped" in output and "Traceback" not in output
    assert ladder.rows("SELECT state, pid FROM tournament WHERE name = 'serve'") == [("stopped", None)]
    keys = [key for _id, key, _status in _match_rows(ladder)]
    assert len(keys) == len(set(keys))
