"""The served replay viewer and leaderboards over real HTTP (uvicorn on 127.0.0.1, a random port, a temporary
database), without the scheduler: the viewer's files, a match's replay data with the stderr of other authors'
bots taken out, the viewer page, and the leaderboards' verdicts and rank intervals.

The matches here are played by the engine itself and written as the recorder writes them (fast); the
front-door tests (tests/service/test_serve_front_door.py) check the same on matches `ladder serve` played.
"""

from __future__ import annotations

import gzip
import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session

from engine import get_game
from ladder import report as report_package
from ladder.report.replay import SeatLabel, replay_bytes
from ladder.store.action_log import pack_actions, unpack_actions
from ladder.store.authors import add_author, author_for_token
from ladder.store.served_tables import Role, ServedBotRow, ServedVersionRow
from ladder.store.tables import (
    BotRow,
    BotVersionRow,
    MatchRow,
    SeatResultRow,
    TournamentRow,
)
from ladder.views import figures, records
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from tests.service.serving import CHROMEDRIVER, CHROMIUM, browser_login, chromium, free_port, step_viewer_to_the_end

SECRETS = {"alice-bot": "alice-private-trace", "bob-bot": "bob-private-trace", "house": "house-private-trace"}


@dataclass
class Served:
    url: str
    engine: object
    tokens: dict[str, str]
    match_ids: list[int]

    def get(self, path: str, who: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.get(self.url + path, headers=headers, timeout=30)


def _bot(session: Session, name: str, author_id: int | None) -> int:
    bot = BotRow(name=name, author=name.split("-")[0])
    session.add(bot)
    session.flush()
    assert bot.id is not None
    version = BotVersionRow(bot_id=bot.id, content_hash=f"{name:0<64}"[:64], games_json='["elevenses"]')
    session.add(version)
    session.flush()
    assert version.id is not None
    if author_id is not None:  # a submitted bot; the house bot has no author on the served ladder
        session.add(ServedBotRow(bot_id=bot.id, author_id=author_id))
        session.add(ServedVersionRow(bot_version_id=version.id, bot_id=bot.id, author_id=author_id))
    return version.id


def _record_match(session: Session, tournament_id: int, versions: list[int], names: list[str], seed: int) -> int:
    """Play elevenses with random moves through the engine and write it as the recorder does."""
    game = get_game("elevenses")
    state = game.new_state(len(versions), seed, {})
    chooser = random.Random(seed)
    actions = []
    while not state.is_over():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    result = state.result()
    match = MatchRow(
        tournament_id=tournament_id,
        key=f"test-{seed}",
        deal=f"d{seed}",
        game="elevenses",
        num_players=len(versions),
        seed=seed,
        status="played",
        action_count=len(actions),
        think_json=json.dumps([0.01] * len(versions)),
        actions_z=pack_actions(actions),
        move_us_z=pack_actions([1000 + i for i in range(len(actions))]),
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    for seat, version in enumerate(versions):
        session.add(
            SeatResultRow(
                match_id=match.id,
                seat=seat,
                bot_version_id=version,
                score=result.scores[seat],
                rank=result.ranks[seat],
                stderr_tail=f"{SECRETS[names[seat]]} seat {seat}\n",
            )
        )
    return match.id


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    import uvicorn

    folder = tmp_path_factory.mktemp("replays")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LADDER_RESULTS", str(folder / "results"))
    engine = open_service_database(f"sqlite:///{folder / 'ladder.db'}")
    with Session(engine) as session:
        tokens = {
            "alice": add_author(session, "alice"),
            "bob": add_author(session, "bob"),
            "op": add_author(session, "op", Role.OPERATOR),
        }
        ids = {name: author_for_token(session, token).id for name, token in tokens.items()}  # type: ignore[union-attr]
        tournament = TournamentRow(name="serve", fingerprint="serve")
        session.add(tournament)
        session.flush()
        assert tournament.id is not None
        alice, bob, house = (
            _bot(session, "alice-bot", ids["alice"]),
            _bot(session, "bob-bot", ids["bob"]),
            _bot(session, "house", None),
        )
        matches = [_record_match(session, tournament.id, [alice, bob, house], ["alice-bot", "bob-bot", "house"], 1)]
        matches += [
            _record_match(session, tournament.id, [bob, alice], ["bob-bot", "alice-bot"], seed) for seed in range(2, 8)
        ]
        session.commit()
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
        yield Served(f"http://127.0.0.1:{port}", engine, tokens, matches)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()  # type: ignore[attr-defined]
        monkey.undo()


def _document(response: httpx.Response) -> dict:  # type: ignore[type-arg]
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/gzip"
    assert "content-encoding" not in response.headers  # the viewer inflates the bytes itself
    assert "private" in response.headers["cache-control"]
    return json.loads(gzip.decompress(response.content))


def _stderr(document: dict) -> list[str]:  # type: ignore[type-arg]
    return [seat["stderr"] for seat in document["seats"]]


def test_the_replay_data_is_the_reports_own_bytes_for_the_operator(served: Served) -> None:
    match_id = served.match_ids[0]
    served_bytes = served.get(f"/api/matches/{match_id}/replay", "op").content
    with Session(served.engine) as session:  # type: ignore[arg-type]
        record = records.load_match(session, match_id)
        row = session.get(MatchRow, match_id)
        assert record is not None and row is not None
        labels = [SeatLabel(n, f"bots/{n}") for n in ("alice-bot", "bob-bot", "house")]
        expected = replay_bytes(
            record, unpack_actions(row.actions_z), labels, "", records.unpack_move_us(row.move_us_z)
        )
    assert served_bytes == expected
    document = json.loads(gzip.decompress(served_bytes))
    assert len(document["frames"]) == row.action_count + 1 and document["problem"] == ""
    assert [s["page"] for s in document["seats"]] == ["bots/alice-bot", "bots/bob-bot", "bots/house"]
    # each move's recorded thinking time reaches the viewer, on the frame where it was decided
    assert [f["think_us"] for f in document["frames"][:3]] == [1000, 1001, 1002]


def test_each_requester_gets_only_the_stderr_they_may_see(served: Served) -> None:
    path = f"/api/matches/{served.match_ids[0]}/replay"  # seats: alice-bot, bob-bot, the house bot
    operator = _stderr(_document(served.get(path, "op")))
    assert operator == [f"{SECRETS[n]} seat {i}\n" for i, n in enumerate(("alice-bot", "bob-bot", "house"))]
    assert _stderr(_document(served.get(path, "alice"))) == [operator[0], "", ""]
    assert _stderr(_document(served.get(path, "bob"))) == ["", operator[1], ""]
    anonymous = served.get(path)
    assert _stderr(_document(anonymous)) == ["", "", ""]
    for secret in SECRETS.values():  # not in the bytes in any form, not only not in the field
        assert secret.encode() not in gzip.decompress(anonymous.content)
    bobs = gzip.decompress(served.get(path, "bob").content)
    assert SECRETS["alice-bot"].encode() not in bobs and SECRETS["house"].encode() not in bobs


def test_a_browser_login_gets_its_own_stderr_too(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as browser:
        form = browser.get("/login").text
        csrf = form.split('name="csrf_token" value="')[1].split('"')[0]
        assert browser.post("/login", data={"token": served.tokens["bob"], "csrf_token": csrf}).status_code == 303
        document = _document(browser.get(f"/api/matches/{served.match_ids[1]}/replay"))  # seats: bob-bot, alice-bot
    assert _stderr(document) == [f"{SECRETS['bob-bot']} seat 0\n", ""]


def test_refusals_and_a_missing_match(served: Served) -> None:
    missing = served.get("/api/matches/999999/replay")
    assert missing.status_code == 404 and "there is no match #999999" in missing.json()["detail"]
    assert served.get("/matches/999999").status_code == 404
    assert served.get("/api/matches/x/replay").status_code == 422
    assert served.get(f"/api/matches/{2**63}/replay").status_code == 422  # past SQLite's integers: refused, not a 500
    revoked_like = httpx.get(
        served.url + f"/api/matches/{served.match_ids[0]}/replay",
        headers={"Authorization": "Bearer " + "x" * 43},
        timeout=30,
    )
    assert revoked_like.status_code == 401  # a wrong token is refused, not served as anonymous


def test_the_page_is_the_reports_viewer_fetching_its_data(served: Served) -> None:
    match_id = served.match_ids[0]
    page = served.get(f"/matches/{match_id}")
    assert page.status_code == 200
    assert f'data-replay="/api/matches/{match_id}/replay"' in page.text and 'data-root="/"' in page.text
    for asset in (
        "/static/report/replay.js",
        "/static/report/replay.css",
        "/static/report/report.css",
        "/static/replay-page.js",
        "/static/replay-page.css",
    ):
        assert asset in page.text
        fetched = served.get(asset)
        assert fetched.status_code == 200, asset
    shipped = Path(report_package.__file__).parent / "static" / "replay.js"
    assert served.get("/static/report/replay.js").content == shipped.read_bytes()  # the report's viewer, not a copy
    assert "javascript" in served.get("/static/report/replay.js").headers["content-type"]
    assert served.get("/static/serve.css").status_code == 200  # the service's own files are still served
    assert "/api/matches/{match_id}/replay" in served.get("/openapi.json").json()["paths"]


def test_the_leaderboards_carry_the_reports_verdicts_and_rank_intervals(served: Served) -> None:
    boards = served.get("/api/leaderboards").json()["pools"]  # the one schema (docs/leaderboard-json.md)
    with Session(served.engine) as session:  # type: ignore[arg-type]
        data = records.load(session)
    assert set(boards) == set(data.rated.pools())
    for pool, board in boards.items():
        assert board["pool"] == pool
        sure = figures.pool_certainty(data, pool)
        assert (board["verdict"], board["reason"]) == (sure.verdict.value, sure.reason)
        expected = figures.leaderboard(data, pool, sure)
        assert [(r["version_id"], *r["rank_interval"]) for r in board["table"]] == [
            (line.standing.bot_version_id, *(line.rank_interval or (None, None))) for line in expected
        ]
        assert [r["p_above_next"] for r in board["table"]][-1] is None
        assert all(
            r["rank_interval"][0] is not None and r["rank_interval"][0] <= r["rank_interval"][1] for r in board["table"]
        )
    page = served.get("/").text
    assert "rank (95%)" in page and "P(above next)" in page
    first = next(iter(boards.values()))["table"][0]
    assert f'<td class="rank-interval">{first["rank_interval"][0]}' in page


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="needs chromium and chromedriver")
def test_the_viewer_draws_every_step_and_shows_an_author_only_their_own_stderr(served: Served) -> None:
    """Headless Chromium on the served page: the data arrives over HTTP, the step counter runs to the end with
    no JavaScript error; logged in as alice, the stderr pane has her bot's and not bob's or the house bot's."""
    pytest.importorskip("selenium")
    match_id = served.match_ids[0]
    with Session(served.engine) as session:  # type: ignore[arg-type]
        row = session.get(MatchRow, match_id)
        assert row is not None
        moves = row.action_count
    with chromium() as driver:
        assert step_viewer_to_the_end(driver, f"{served.url}/matches/{match_id}") == moves
        assert "the match is over" in driver.find_element("id", "move").text
        assert all(secret not in driver.page_source for secret in SECRETS.values())  # anonymous: nobody's stderr
        assert (
            driver.find_element("css selector", "#match-header a.bot").get_attribute("href")
            == f"{served.url}/bots/alice-bot"
        )
        browser_login(driver, served.url, served.tokens["alice"])
        step_viewer_to_the_end(driver, f"{served.url}/matches/{match_id}#step=0")
        stderr = driver.find_element("id", "stderr").get_attribute("textContent")  # closed <details> included
        assert SECRETS["alice-bot"] in stderr and "bob-bot (hidden)" in stderr
        assert SECRETS["bob-bot"] not in driver.page_source and SECRETS["house"] not in driver.page_source


def test_a_bot_page_names_the_pool_of_each_of_its_ratings(served: Served) -> None:
    """The Ratings table's "pool" column showed the version's database id (found by the fresh-user walk)."""
    import re

    page = served.get("/bots/alice-bot").text
    ratings = page.split("<h2>Ratings</h2>")[1].split("</table>")[0]
    assert sorted(re.findall(r'<td class="pool">([^<]*)</td>', ratings)) == ["elevenses/2p", "elevenses/3p"]
    api = served.get("/api/bots/alice-bot").json()
    assert sorted(row["pool"] for row in api["standings"]) == ["elevenses/2p", "elevenses/3p"]


def test_my_bots_link_only_to_bots_that_have_a_page(served: Served) -> None:
    """/me linked every submission's bot name to /bots/NAME, a 404 for a bot whose only submission failed its
    check (found by the fresh-user walk); the submission stays listed in the table with its problem."""
    from ladder.store.served_tables import SubmissionRow, SubmissionState

    with Session(served.engine) as session:  # type: ignore[arg-type]
        author = author_for_token(session, served.tokens["alice"])
        assert author is not None and author.id is not None
        for bot, state in (("alice-bot", SubmissionState.ACTIVE), ("alice-broken", SubmissionState.FAILED)):
            session.add(SubmissionRow(author_id=author.id, state=state.value, filename=f"{bot}.py", bot_name=bot))
        session.commit()
    page = served.get("/me", "alice").text
    assert '<a href="/bots/alice-bot#stderr">' in page
    assert "/bots/alice-broken" not in page and "alice-broken.py" in page
    assert served.get("/bots/alice-broken").status_code == 404
