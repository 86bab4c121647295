"""The privacy model (docs/serve.md) over real HTTP (uvicorn on 127.0.0.1, a random port): every GET route of the
app, the API's (from its OpenAPI document) and the pages', walked with real ids and names, as anonymous and as
another author, carries no author's private text (a bot's exception message, its stderr, its check's output);
its author and the operator see it where it belongs.

The failed seats are written as the recorder writes a bot that raised (``exception``, the detail naming the
action it was choosing, a traceback on stderr), played out by the engine with a stand-in after the failure.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session, select

from engine import get_game
from ladder.store.action_log import pack_actions
from ladder.store.authors import add_author, author_for_token
from ladder.store.served_tables import Role, ServedBotRow, ServedVersionRow, SubmissionRow, SubmissionState
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, SeatResultRow, TournamentRow
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from tests.ladder.front_door import ROOT
from tests.service.serving import free_port

AUTHORS = ("alice", "bob")
SECRET = {author: f"SECRET-{author.upper()}-XYZ" for author in AUTHORS}  # the exception message
STDERR = {author: f"STDERR-{author.upper()}-MARK" for author in AUTHORS}  # printed by the bot
CHECK = {author: f"CHECK-{author.upper()}-OUTPUT" for author in AUTHORS}  # the check's private output
HOUSE_STDERR = "STDERR-HOUSE-MARK"


def _markers(author: str) -> tuple[str, ...]:
    return SECRET[author], STDERR[author], CHECK[author]


@dataclass
class Ladder:
    url: str
    app: object
    tokens: dict[str, str]
    bots: list[str]
    matches: list[int]
    submissions: dict[str, int]
    db_url: str

    def get(self, path: str, who: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.get(self.url + path, headers=headers, timeout=60)


def _version(session: Session, name: str, author_id: int | None) -> int:
    bot = BotRow(name=name, author=name)
    session.add(bot)
    session.flush()
    assert bot.id is not None
    version = BotVersionRow(bot_id=bot.id, content_hash=f"{name:0<64}"[:64], games_json='["elevenses"]')
    session.add(version)
    session.flush()
    assert version.id is not None
    if author_id is not None:
        session.add(ServedBotRow(bot_id=bot.id, author_id=author_id))
        session.add(ServedVersionRow(bot_version_id=version.id, bot_id=bot.id, author_id=author_id))
    return version.id


def _match(session: Session, tournament_id: int, seats: list[tuple[int, str | None]], seed: int) -> int:
    """Elevenses through the engine; each seat with an author raised at its third action (a stand-in played on)."""
    state = get_game("elevenses").new_state(len(seats), seed, {})
    chooser = random.Random(seed)
    actions = []
    while not state.is_over():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    result = state.result()
    match = MatchRow(
        tournament_id=tournament_id,
        key=f"privacy-{seed}",
        deal=f"d{seed}",
        game="elevenses",
        num_players=len(seats),
        seed=seed,
        status="played",
        action_count=len(actions),
        think_json=json.dumps([0.01] * len(seats)),
        actions_z=pack_actions(actions),
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    for seat, (version, author) in enumerate(seats):
        failed = author is not None
        session.add(
            SeatResultRow(
                match_id=match.id,
                seat=seat,
                bot_version_id=version,
                score=result.scores[seat],
                rank=len(seats) if failed else result.ranks[seat],
                failure_reason="exception" if failed else None,
                failure_detail=f"RuntimeError while choosing its action #3: {SECRET[author]}" if author else "",
                at_action=3 if failed else None,
                stderr_tail=(
                    f'{STDERR[author]}\nTraceback (most recent call last):\n  File "bot.py", line 9, in act\n'
                    f"RuntimeError: {SECRET[author]}\n"
                    if author
                    else f"{HOUSE_STDERR}\n"
                ),
            )
        )
    return match.id


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    import uvicorn

    from ladder.views import served

    folder = tmp_path_factory.mktemp("privacy")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LADDER_RESULTS", str(folder / "results"))
    monkey.setattr(served, "RATINGS", served._RatingsCache())  # nothing kept from another module's database
    monkey.setattr(served, "REPORT", served._ReportCache())
    db_url = f"sqlite:///{folder / 'ladder.db'}"
    engine = open_service_database(db_url)
    with Session(engine) as session:
        tokens = {name: add_author(session, name) for name in AUTHORS} | {
            "op": add_author(session, "op", Role.OPERATOR)
        }
        ids = {name: author_for_token(session, token).id for name, token in tokens.items()}  # type: ignore[union-attr]
        tournament = TournamentRow(name="serve", fingerprint="serve")
        session.add(tournament)
        session.flush()
        assert tournament.id is not None
        alice, bob = _version(session, "alice-bot", ids["alice"]), _version(session, "bob-bot", ids["bob"])
        house = _version(session, "house", None)
        matches = [
            _match(session, tournament.id, [(alice, "alice"), (bob, "bob"), (house, None)], 1),
            _match(session, tournament.id, [(bob, "bob"), (alice, "alice")], 2),
            _match(session, tournament.id, [(alice, "alice"), (house, None)], 3),
        ]
        submissions = {}
        for author in AUTHORS:
            row = SubmissionRow(
                author_id=ids[author],
                state=SubmissionState.ACTIVE.value,
                filename=f"{author}.py",
                bot_name=f"{author}-bot",
                explanation=f"the check's games: {CHECK[author]}",
            )
            session.add(row)
            session.flush()
            assert row.id is not None
            submissions[author] = row.id
        session.commit()
    port = free_port()
    app = create_app(engine, ServeSettings(port=port))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield Ladder(
            f"http://127.0.0.1:{port}", app, tokens, ["alice-bot", "bob-bot", "house"], matches, submissions, db_url
        )
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()
        monkey.undo()


def _app_get_routes(routes: list[object]) -> set[str]:
    """The paths of the GET routes among ``routes``, those of included routers too."""
    found = set()
    for route in routes:
        included = getattr(route, "original_router", None)  # an included router (FastAPI includes them lazily)
        if included is not None:
            found |= _app_get_routes(included.routes)
        elif "GET" in (getattr(route, "methods", None) or ()):
            found.add(str(getattr(route, "path", "")))
    return found


def _get_paths(ladder: Ladder) -> list[str]:
    """Every GET route of the app (the OpenAPI document's and the pages', which it leaves out), its parameters
    filled with every real value: each bot, match, submission and pool."""
    documented = ladder.get("/openapi.json").json()["paths"]
    templates = {path for path, methods in documented.items() if "get" in methods}
    templates |= _app_get_routes(ladder.app.routes)  # type: ignore[attr-defined]
    assert {"/api/matches/{match_id}/replay", "/matches/{match_id}", "/bots/{name}", "/api/bots/{name}/stderr"} <= (
        templates
    )
    values = {
        "name": ladder.bots,
        "match_id": [str(m) for m in ladder.matches],
        "submission_id": [str(s) for s in ladder.submissions.values()],
        "game": ["elevenses"],
        "players": ["2", "3"],
        "version_id": [str(v) for v in range(1, 13)],  # every version the few bots here have (and ids past them)
    }
    paths = []
    for template in sorted(templates):
        names = re.findall(r"{(\w+)(?::\w+)?}", template)
        assert all(n in values for n in names), f"no values for the parameters of {template}"
        for chosen in product(*(values[n] for n in names)):
            path = template
            for n, value in zip(names, chosen, strict=True):
                path = re.sub(r"{" + n + r"(?::\w+)?}", value, path)
            paths.append(path)
    return paths


def _text(response: httpx.Response) -> str:
    if response.headers.get("content-type", "").startswith("application/gzip"):
        return gzip.decompress(response.content).decode("utf-8")
    return response.text


def test_no_route_shows_an_authors_private_text_to_anyone_else(ladder: Ladder) -> None:
    paths = _get_paths(ladder)
    assert len(paths) > 20
    for path, who in product(paths, (None, *AUTHORS)):
        text = _text(ladder.get(path, who))
        others = [author for author in AUTHORS if author != who]
        for marker in [m for author in others for m in _markers(author)] + [HOUSE_STDERR]:
            assert marker not in text, f"{marker} in GET {path} as {who or 'anonymous'}"


def test_the_owner_and_the_operator_see_it_where_it_belongs(ladder: Ladder) -> None:
    first = ladder.matches[0]
    for who, authors in (("alice", ["alice"]), ("bob", ["bob"]), ("op", list(AUTHORS))):
        replay = _text(ladder.get(f"/api/matches/{first}/replay", who))
        match = ladder.get(f"/api/matches/{first}", who).text
        for author in authors:
            assert SECRET[author] in replay and STDERR[author] in replay, (who, author)
            assert SECRET[author] in match, (who, author)
            stderr = ladder.get(f"/api/bots/{author}-bot/stderr", who).text
            assert STDERR[author] in stderr and SECRET[author] in stderr
            assert STDERR[author] in ladder.get(f"/bots/{author}-bot", who).text
            assert CHECK[author] in ladder.get(f"/api/submissions/{ladder.submissions[author]}", who).text
    assert HOUSE_STDERR in _text(ladder.get(f"/api/matches/{first}/replay", "op"))  # the house bots' are the operator's


def test_the_failure_kind_is_public_and_the_rest_is_labelled_hidden(ladder: Ladder) -> None:
    path = f"/api/matches/{ladder.matches[0]}/replay"  # seats: alice-bot, bob-bot, house
    anonymous = json.loads(_text(ladder.get(path)))["seats"]
    assert [s["failure"] for s in anonymous] == ["exception", "exception", None]
    assert all(s["hidden"] and s["detail"] == "" and s["stderr"] == "" for s in anonymous)
    alices = json.loads(_text(ladder.get(path, "alice")))["seats"]
    assert [s["hidden"] for s in alices] == [False, True, True]
    assert [s["failure"] for s in ladder.get(f"/api/matches/{ladder.matches[0]}").json()["seats"]] == [
        "exception",
        "exception",
        None,
    ]
    # the viewer labels a hidden seat "(hidden)", never "(nothing on stderr)"
    script = ladder.get("/static/report/replay.js").text
    assert '" (hidden)"' in script and "s.hidden" in script


def test_another_authors_stderr_page_is_refused(ladder: Ladder) -> None:
    assert ladder.get("/api/bots/alice-bot/stderr", "bob").status_code == 403
    assert ladder.get("/api/bots/alice-bot/stderr").status_code == 401
    assert ladder.get(f"/api/submissions/{ladder.submissions['alice']}", "bob").status_code == 404
    with Session(ladder.app.state.engine) as session:  # type: ignore[attr-defined]
        assert session.exec(select(SeatResultRow).where(SeatResultRow.failure_detail != "")).first() is not None


def _report(ladder: Ladder, out: Path, *flags: str) -> tuple[str, str]:
    """``ladder report`` of the served database: what it printed, and the text of every file it wrote (each
    match's replay script decoded: base64 of gzip'd JSON)."""
    env = {**os.environ, "LADDER_RESULTS": str(out.parent / "results"), "COLUMNS": "300"}
    run = subprocess.run(
        [sys.executable, "-m", "cli", "report", "--db", ladder.db_url, "--out", str(out), *flags],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    texts = []
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        loaded = re.fullmatch(r'LadderReplay\.load\("([A-Za-z0-9+/=]*)"\);\n', text)
        texts.append(gzip.decompress(base64.b64decode(loaded.group(1))).decode("utf-8") if loaded else text)
    assert len(texts) > 10
    return " ".join(run.stdout.split()), "\n".join(texts)


def test_the_report_of_a_served_database_leaves_private_data_out_unless_asked(ladder: Ladder, tmp_path: Path) -> None:
    said, written = _report(ladder, tmp_path / "public")
    markers = [m for author in AUTHORS for m in (SECRET[author], STDERR[author])] + [HOUSE_STDERR]
    assert not [m for m in markers if m in written]
    assert "private data: stderr, tracebacks and exception messages are left out (hidden)" in said
    index = (tmp_path / "public" / "index.html").read_text(encoding="utf-8")
    assert "Private data: stderr, tracebacks and exception messages are left out (hidden)" in index
    assert '"failure":"exception"' in written and '"hidden":true' in written  # the kind stays public

    said, written = _report(ladder, tmp_path / "private", "--include-private")
    assert all(m in written for m in markers)
    assert "private data: stderr, tracebacks and exception messages of every author's bots are shown" in said
    assert "(--include-private)" in (tmp_path / "private" / "index.html").read_text(encoding="utf-8")
