"""A bot's state said once (:mod:`ladder.views.states`) and leaderboards of the latest versions, over real HTTP
(uvicorn on 127.0.0.1, a random port) and the real CLI, on one served database.

alice's ``alpha`` has three versions, the first two superseded; her ``beta`` has one version, superseded by the
cap when alpha's burst came (the case where the page said "active", the API "superseded" and the skip reason
"superseded by its author's newer versions" of a bot with no newer version); bob's ``gamma`` is paused.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from itertools import combinations

import httpx
import pytest
from sqlmodel import Session

from engine import get_game
from ladder.store.action_log import pack_actions
from ladder.store.authors import add_author, author_for_token
from ladder.store.served_tables import BotState, ServedBotRow, ServedVersionRow, VersionState
from ladder.store.tables import BotRow, BotVersionRow, MatchRow, SeatResultRow, TournamentRow, utcnow
from ladder.views import states
from service.db import open_service_database
from service.settings import ServeSettings
from service.web.app import create_app
from tests.ladder.front_door import ROOT
from tests.service.serving import free_port


@dataclass
class Ladder:
    url: str
    engine: object
    db_url: str
    versions: dict[str, int]  # "alpha@1" -> version id

    def get(self, path: str) -> httpx.Response:
        return httpx.get(self.url + path, timeout=60)


def _bot(session: Session, name: str, author_id: int, versions: list[str], state: BotState) -> dict[str, int]:
    bot = BotRow(name=name, author="x")
    session.add(bot)
    session.flush()
    assert bot.id is not None
    session.add(
        ServedBotRow(
            bot_id=bot.id, author_id=author_id, state=state.value, reason="" if state == BotState.ACTIVE else "too slow"
        )
    )
    found = {}
    for number, label in enumerate(versions):
        version = BotVersionRow(
            bot_id=bot.id, version=label, content_hash=f"{name}{label:0<60}"[:64], games_json='["elevenses"]'
        )
        session.add(version)
        session.flush()
        assert version.id is not None
        found[f"{name}@{label}"] = version.id
        session.add(
            ServedVersionRow(
                bot_version_id=version.id,
                bot_id=bot.id,
                author_id=author_id,
                state=(
                    VersionState.ACTIVE if label == versions[-1] and name != "beta" else VersionState.SUPERSEDED
                ).value,
                activated_at=utcnow() + timedelta(seconds=number),
            )
        )
    return found


def _match(session: Session, tournament_id: int, seats: list[int], seed: int) -> None:
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
        key=f"versions-{seed}",
        deal=f"d{seed}",
        game="elevenses",
        num_players=len(seats),
        seed=seed,
        status="played",
        action_count=len(actions),
        actions_z=pack_actions(actions),
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    for seat, version in enumerate(seats):
        session.add(
            SeatResultRow(
                match_id=match.id,
                seat=seat,
                bot_version_id=version,
                score=result.scores[seat],
                rank=result.ranks[seat],
            )
        )


@pytest.fixture(scope="module")
def ladder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ladder]:
    import uvicorn

    from ladder.views import served

    folder = tmp_path_factory.mktemp("versions")
    monkey = pytest.MonkeyPatch()
    monkey.setenv("LADDER_RESULTS", str(folder / "results"))
    monkey.setattr(served, "RATINGS", served._RatingsCache())
    monkey.setattr(served, "LATEST", served._LatestCache())
    db_url = f"sqlite:///{folder / 'ladder.db'}"
    engine = open_service_database(db_url)
    with Session(engine) as session:
        ids = {}
        for name in ("alice", "bob"):
            ids[name] = author_for_token(session, add_author(session, name)).id  # type: ignore[union-attr]
        tournament = TournamentRow(name="serve", fingerprint="serve")
        session.add(tournament)
        session.flush()
        assert tournament.id is not None
        versions = _bot(session, "alpha", ids["alice"], ["1", "2", "3"], BotState.ACTIVE)
        versions |= _bot(session, "beta", ids["alice"], ["1"], BotState.ACTIVE)
        versions |= _bot(session, "gamma", ids["bob"], ["1"], BotState.PAUSED)
        versions |= _bot(session, "delta", ids["bob"], ["1"], BotState.ACTIVE)
        seed = 0
        for pair in combinations(sorted(versions.values()), 2):
            for _ in range(2):
                seed += 1
                _match(session, tournament.id, list(pair), seed)
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
        yield Ladder(f"http://127.0.0.1:{port}", engine, db_url, versions)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        engine.dispose()  # type: ignore[attr-defined]
        monkey.undo()


def _ladder(ladder: Ladder, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "300"}
    run = subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", ladder.db_url], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert run.returncode == 0, run.stderr
    return run


def _rows(document: dict) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
    return {(r["bot"], r["version"], r["state"]) for board in document["pools"].values() for r in board["table"]}


def test_every_reader_states_the_same_state(ladder: Ladder) -> None:
    expected = {"alpha": "active", "beta": "superseded", "gamma": "paused", "delta": "active"}
    for bot, state in expected.items():
        api = ladder.get(f"/api/bots/{bot}").json()
        assert api["state"] == state, bot
        assert f'<span class="state">{state}</span>' in ladder.get(f"/bots/{bot}").text, bot
        assert f"{state} on the served ladder" in " ".join(_ladder(ladder, "bot", bot).stdout.split()), bot
    alpha = {v["version"]: v["state"] for v in ladder.get("/api/bots/alpha").json()["versions"]}
    assert alpha == {"1": "superseded", "2": "superseded", "3": "active"}
    every = _rows(ladder.get("/api/leaderboards?versions=all").json())
    assert ("alpha", "1", "superseded") in every and ("beta", "1", "superseded") in every
    assert ("gamma", "1", "paused") in every
    with Session(ladder.engine) as session:  # type: ignore[arg-type]
        # the skip reason of a superseded version of a bot with no newer version does not invent one
        beta = states.why_not_playing(session, ladder.versions["beta@1"])
        assert "beta has none newer" in beta and "newer version of beta" not in beta
        # alpha@2 is superseded too: only alpha@3 plays
        assert (
            states.why_not_playing(session, ladder.versions["alpha@1"]) == "superseded by 1 newer version of alpha (3)"
        )
        assert states.why_not_playing(session, ladder.versions["gamma@1"]) == "paused by the operator: too slow"


def test_the_leaderboards_show_the_latest_versions_by_default(ladder: Ladder) -> None:
    latest = ladder.get("/api/leaderboards").json()
    shown = _rows(latest)
    assert {bot for bot, _, _ in shown} == {"alpha", "delta", "gamma"}  # beta's only version is superseded
    assert all(state not in ("superseded", "retired") for _, _, state in shown)
    assert {version for bot, version, _ in shown if bot == "alpha"} == {"3"}
    # the CLI's --latest-versions is the same document (one filter, in the read model)
    assert json.loads(_ladder(ladder, "rankings", "--json", "--latest-versions").stdout) == latest
    assert (
        json.loads(_ladder(ladder, "rankings", "--json").stdout) == ladder.get("/api/leaderboards?versions=all").json()
    )
    page = ladder.get("/").text
    assert '<a href="/?versions=all">All versions</a>' in page and "old-version" not in page
    everything = ladder.get("/?versions=all").text
    assert '<a href="/">Latest versions only</a>' in everything
    assert 'class="bot-row state-superseded old-version"' in everything and "<em>superseded</em>" in everything
    assert ladder.get("/api/leaderboards?versions=some").status_code == 422
