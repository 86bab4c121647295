"""The served site as an author and a browser meet it, over real HTTP (uvicorn on 127.0.0.1, a random port, a
temporary database), without the scheduler: a fair quota (an unchanged resubmission and a refused name cost
nothing, the quota left is told), HTML error pages, ``HEAD``, every allowed name routable, the bot page's rating
history and failures, and pages that update themselves while matches arrive (headless Chromium).

Matches are written as the recorder writes them (:func:`tests.service.test_served_replays._record_match`); a
submission's check is the real one (``python -m service.background.check_job``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from ladder.store.authors import add_author, author_for_token
from ladder.store.served_bots import Action, set_bot_state
from ladder.store.served_tables import Role, SubmissionRow
from ladder.store.tables import SeatResultRow, TournamentRow
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from tests.ladder.front_door import ROOT
from tests.service.serving import (
    CHROMEDRIVER,
    CHROMIUM,
    browser_login,
    chromium,
    free_port,
    ladder_as,
    wait_in_browser,
)
from tests.service.test_served_replays import SECRETS, _bot, _record_match

PER_HOUR = 4
BOT = (
    "from ladder.bot import Bot\n\nclass B(Bot):\n    name = '{name}'\n    games = ('elevenses',)\n\n"
    "    def act(self, o, legal):\n        return legal[0]\n"
)
ODD_NAMES = ("a.b", "a..b", "x.json", "v1.2-rc_3")
FAILURE_DETAIL = "RuntimeError while choosing its action #3: alice-secret-exception-text"


@dataclass
class Site:
    url: str
    engine: object
    db: Path
    results: Path
    tokens: dict[str, str]
    versions: dict[str, int]
    tournament: int
    seeds: list[int]

    def headers(self, who: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}

    def get(self, path: str, who: str | None = None, **headers: str) -> httpx.Response:
        return httpx.get(self.url + path, headers=self.headers(who) | headers, timeout=30)

    def submit(self, who: str, source: str, name: str = "", filename: str = "bot.py") -> httpx.Response:
        upload = {"file": (filename, source.encode(), "text/x-python")}
        return httpx.post(
            self.url + "/api/submissions", files=upload, data={"name": name}, headers=self.headers(who), timeout=60
        )

    def author_env(self, who: str) -> dict[str, str]:
        """The environment of ``who`` on their own machine: their home, their token, none of the server's."""
        home = self.results.parent / f"{who}-home"
        home.mkdir(exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("LADDER_DB", "XDG_CONFIG_HOME", "LADDER_TOKEN")}
        return env | {
            "HOME": str(home),
            "LADDER_RESULTS": str(home / "results"),
            "LADDER_TOKEN": self.tokens[who],
            "COLUMNS": "200",
        }

    def rows(self, who: str) -> int:
        with Session(self.engine) as session:  # type: ignore[arg-type]
            author = author_for_token(session, self.tokens[who])
            assert author is not None
            return len(session.exec(select(SubmissionRow).where(SubmissionRow.author_id == author.id)).all())

    def check(self, submission: int) -> None:
        """The real check of one submission, as the server's checker runs it."""
        env = {**os.environ, "LADDER_DB": f"sqlite:///{self.db}", "LADDER_RESULTS": str(self.results)}
        command = [
            sys.executable,
            "-m",
            "service.background.check_job",
            "--db",
            env["LADDER_DB"],
            "--submission",
            str(submission),
        ]
        done = subprocess.run(
            [*command, "--matches", "1"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr

    def record(self, names: list[str]) -> int:
        """A match of ``names`` written as the recorder writes it (a new deal each time)."""
        seed = max(self.seeds) + 1
        self.seeds.append(seed)
        with Session(self.engine) as session:  # type: ignore[arg-type]
            match = _record_match(session, self.tournament, [self.versions[n] for n in names], names, seed)
            session.commit()
        return match


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    import uvicorn

    folder = tmp_path_factory.mktemp("webux")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LADDER_RESULTS", str(folder / "results"))
    db = folder / "ladder.db"
    engine = open_service_database(f"sqlite:///{db}")
    with Session(engine) as session:
        tokens = {name: add_author(session, name) for name in ("alice", "bob", "dave", "erin", "fran")} | {
            "op": add_author(session, "op", Role.OPERATOR)
        }
        ids = {name: author_for_token(session, token).id for name, token in tokens.items()}  # type: ignore[union-attr]
        tournament = TournamentRow(name="serve", fingerprint="serve")
        session.add(tournament)
        session.flush()
        assert tournament.id is not None
        versions = {
            "alice-bot": _bot(session, "alice-bot", ids["alice"]),
            "bob-bot": _bot(session, "bob-bot", ids["bob"]),
            "house": _bot(session, "house", None),
        }
        for odd in ODD_NAMES:
            _bot(session, odd, ids["bob"])
        first = _record_match(
            session, tournament.id, [versions["alice-bot"], versions["bob-bot"]], ["alice-bot", "bob-bot"], 1
        )
        for seed in range(2, 6):
            _record_match(
                session, tournament.id, [versions["bob-bot"], versions["alice-bot"]], ["bob-bot", "alice-bot"], seed
            )
        failed = session.exec(
            select(SeatResultRow).where(
                SeatResultRow.match_id == first, SeatResultRow.bot_version_id == versions["alice-bot"]
            )
        ).one()
        failed.failure_reason, failed.failure_detail, failed.at_action = "exception", FAILURE_DETAIL, 3
        session.add(failed)
        session.commit()
        tournament_id = tournament.id
    port = free_port()
    settings = ServeSettings(port=port, submissions_per_hour=PER_HOUR)
    server = uvicorn.Server(
        uvicorn.Config(create_app(engine, settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield Site(
            f"http://127.0.0.1:{port}",
            engine,
            db,
            folder / "results",
            tokens,
            versions,
            tournament_id,
            list(range(1, 6)),
        )
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()  # type: ignore[attr-defined]
        monkey.undo()


# ---- a fair quota --------------------------------------------------------------------------------------------------


def test_an_unchanged_resubmission_is_answered_at_once_and_costs_nothing(site: Site) -> None:
    source = BOT.format(name="dave-bot")
    first = site.submit("dave", source)
    assert first.status_code == 202, first.text
    assert first.json()["unchanged"] is False
    assert first.json()["quota"]["left"] == PER_HOUR - 1 and first.json()["quota"]["next_free_at"]
    # while it waits for its check: the same files again are that submission, nothing queued, nothing spent
    again = site.submit("dave", source)
    assert again.status_code == 200 and again.json()["unchanged"] is True, again.text
    assert again.json()["id"] == first.json()["id"] and again.json()["quota"]["left"] == PER_HOUR - 1
    assert site.rows("dave") == 1
    # checked and on the schedule: the same files again are its version, answered without a check
    site.check(first.json()["id"])
    assert site.get(f"/api/submissions/{first.json()['id']}", "dave").json()["state"] == "active"
    started = time.monotonic()
    unchanged = site.submit("dave", source)
    assert time.monotonic() - started < 5  # no check ran
    body = unchanged.json()
    assert unchanged.status_code == 200 and body["unchanged"] is True and body["bot"] == "dave-bot", body
    assert body["message"].startswith(f"unchanged: version {body['version']} of dave-bot")
    assert body["content_hash"] and body["quota"]["left"] == PER_HOUR - 1
    assert site.rows("dave") == 1
    # the author's command line says the same, and spends nothing either
    bot = site.results.parent / "dave" / "bot.py"
    bot.parent.mkdir(parents=True, exist_ok=True)
    bot.write_text(source)
    said = ladder_as(site.author_env("dave"), "submit", str(bot), "--server", site.url)
    assert said.returncode == 0, said.stdout + said.stderr
    assert f"unchanged: version {body['version']} of dave-bot" in " ".join(said.stdout.split())
    assert f"{PER_HOUR - 1} of {PER_HOUR} submissions left this hour" in " ".join(said.stdout.split())
    assert site.rows("dave") == 1
    me = site.get("/api/me", "dave").json()
    assert me["quota"]["left"] == PER_HOUR - 1 and me["quota"]["per_hour"] == PER_HOUR
    # other files are a new version: checked, and they spend a place
    bot.write_text(source.replace("legal[0]", "legal[-1]"))
    queued = ladder_as(site.author_env("dave"), "submit", str(bot), "--server", site.url, "--no-wait")
    assert queued.returncode == 0, queued.stdout + queued.stderr
    assert f"{PER_HOUR - 2} of {PER_HOUR} submissions left this hour; the next frees up at" in " ".join(
        queued.stdout.split()
    )
    assert site.rows("dave") == 2 and site.get("/api/me", "dave").json()["quota"]["left"] == PER_HOUR - 2
    # ... after which the first files are no longer the bot's latest: sending them again changes something
    back = site.submit("dave", source)
    assert back.status_code == 202 and back.json()["unchanged"] is False and site.rows("dave") == 3


def test_a_submission_refused_before_its_check_costs_nothing(site: Site) -> None:
    source = BOT.format(name="fran-bot")
    refusals = [
        site.submit("fran", source, name="alice-bot"),  # another author's bot
        site.submit("fran", source, name="alice-b0t"),  # looks like it
        site.submit("fran", source, name="bad name!"),  # not a name
        site.submit("fran", "", filename="bot.py"),  # an empty upload
        site.submit("fran", "not a bot", filename="bot.tar.gz"),  # not an archive
    ]
    assert [r.status_code for r in refusals] == [400] * 5, [r.text for r in refusals]
    assert "another author" in refusals[0].json()["detail"] and "alice-bot" in refusals[1].json()["detail"]
    assert site.rows("fran") == 0
    assert site.get("/api/me", "fran").json()["quota"] == {
        "per_hour": PER_HOUR,
        "used": 0,
        "left": PER_HOUR,
        "next_free_at": None,
    }
    taken = site.submit("fran", source)
    assert taken.status_code == 202 and taken.json()["quota"]["left"] == PER_HOUR - 1


def test_my_bots_shows_the_quota_left(site: Site) -> None:
    page = site.get("/me", "dave").text
    assert f"of {PER_HOUR} submissions left this hour; the next frees up at" in page


# ---- HTTP ----------------------------------------------------------------------------------------------------------


def test_head_is_answered_wherever_get_is(site: Site) -> None:
    for path in ("/", "/api/status", "/bots/alice-bot", "/static/serve.css", "/api/leaderboards"):
        got = site.get(path)
        head = httpx.head(site.url + path, timeout=30)
        assert head.status_code == 200 == got.status_code, path
        assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"], path
    assert httpx.head(site.url + "/api/submissions", timeout=30).status_code == 405  # POST only


def test_a_browser_gets_an_html_error_page_and_the_api_json(site: Site) -> None:
    page = site.get("/bots/nobody-at-all", accept="text/html,application/xhtml+xml,*/*;q=0.8")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "there is no bot &#39;nobody-at-all&#39;" in page.text and "HTTP 404" in page.text
    assert '<a href="/">Leaderboards</a>' in page.text  # the site's template
    for path, accept in (("/api/bots/nobody-at-all", "text/html"), ("/bots/nobody-at-all", "*/*")):
        answer = site.get(path, accept=accept)
        assert answer.status_code == 404 and answer.json() == {"detail": "there is no bot 'nobody-at-all'"}
    missing = site.get("/no/such/page", accept="text/html")
    assert missing.status_code == 404 and "there is nothing at /no/such/page" in missing.text
    wrong = site.get("/matches/abc", accept="text/html")
    assert (
        wrong.status_code == 422 and "match_id" in wrong.text and wrong.headers["content-type"].startswith("text/html")
    )


@pytest.mark.parametrize("name", ODD_NAMES)
def test_every_allowed_name_routes_to_its_bot_page(site: Site, name: str) -> None:
    page = site.get(f"/bots/{name}", accept="text/html")
    assert page.status_code == 200 and f"<h1>{name}</h1>" in page.text
    assert site.get(f"/api/bots/{name}").json()["name"] == name


def test_an_encoded_slash_in_a_name_is_a_clean_404(site: Site) -> None:
    for path in ("/bots/alice%2Fpause", "/bots/a%2fb", "/api/bots/a%2Fb/stderr"):
        answer = site.get(path)
        assert answer.status_code == 404, (path, answer.status_code)
        assert "'/'" in answer.json()["detail"]
    assert site.get("/bots/a%2Fb", accept="text/html").headers["content-type"].startswith("text/html")


# ---- the bot page's figures ----------------------------------------------------------------------------------------


def test_the_bot_page_draws_each_versions_rating_history(site: Site) -> None:
    page = site.get("/bots/alice-bot").text
    version = site.versions["alice-bot"]
    assert f"/bots/alice-bot/versions/{version}/rating.svg" in page
    plot = site.get(f"/bots/alice-bot/versions/{version}/rating.svg")
    assert plot.status_code == 200 and plot.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in plot.text and "elevenses/2p mu" in plot.text
    assert site.get(f"/bots/alice-bot/versions/{site.versions['bob-bot']}/rating.svg").status_code == 404


def test_the_failures_list_shows_the_kind_to_all_and_the_detail_to_its_author(site: Site) -> None:
    public, other, own = (site.get("/bots/alice-bot", who).text for who in (None, "bob", "alice"))
    for page in (public, other, own):
        failures = page[page.index('id="failures"') :]
        assert "exception" in failures and "/matches/1#step=3" in failures and "after 3 moves" in failures
    assert "alice-secret-exception-text" not in public and "alice-secret-exception-text" not in other
    assert "alice-secret-exception-text" in own
    assert SECRETS["alice-bot"] in own and SECRETS["alice-bot"] not in public


# ---- live pages ----------------------------------------------------------------------------------------------------


@pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs chromium and chromedriver")
def test_the_pages_update_themselves_while_matches_arrive(site: Site) -> None:
    pytest.importorskip("selenium")
    with chromium() as driver:
        driver.get(site.url + "/bots/house")
        driver.execute_script("window.notReloaded = true;")
        before = driver.find_element("css selector", "table.standings").text
        site.record(["house", "alice-bot"])
        wait_in_browser(driver, lambda d: d.find_element("css selector", "table.standings").text != before, 10)
        assert driver.execute_script("return window.notReloaded === true;")

        driver.get(site.url + "/")
        driver.execute_script("window.notReloaded = true;")
        matches = driver.find_element("id", "boards").text
        site.record(["bob-bot", "house"])
        wait_in_browser(driver, lambda d: d.find_element("id", "boards").text != matches, 10)
        assert driver.execute_script("return window.notReloaded === true;")

        with Session(site.engine) as session:  # type: ignore[arg-type]
            set_bot_state(session, "bob-bot", Action.BENCH, "misbehaved in the test")
        driver.get(site.url + "/bots/bob-bot")
        driver.execute_script("window.notReloaded = true;")
        with Session(site.engine) as session:  # type: ignore[arg-type]
            set_bot_state(session, "bob-bot", Action.RESUME)
        wait_in_browser(driver, lambda d: "benched" not in d.find_element("id", "bot-state").text, 10)
        assert driver.execute_script("return window.notReloaded === true;")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors


@pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs chromium and chromedriver")
def test_my_bots_shows_queued_then_active_without_a_reload(site: Site) -> None:
    pytest.importorskip("selenium")
    submission = site.submit("erin", BOT.format(name="erin-bot")).json()["id"]
    with chromium() as driver:
        browser_login(driver, site.url, site.tokens["erin"])
        driver.execute_script("window.notReloaded = true;")
        row = f"#submission-{submission} .state"
        assert driver.find_element("css selector", row).text == "queued"
        site.check(submission)
        started = time.monotonic()
        wait_in_browser(driver, lambda d: d.find_element("css selector", row).text == "active", 10)
        assert time.monotonic() - started < 6
        assert driver.execute_script("return window.notReloaded === true;")
        assert "erin-bot" in driver.find_element("id", "my-submissions").text
