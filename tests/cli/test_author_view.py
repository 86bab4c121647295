"""An author's view of a failing bot, through the real CLI into a temporary database: `ladder bot`, `ladder logs`
and the report's pages (which must escape what the bot wrote)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import game_ids
from ladder.report.replay import build_replay
from ladder.sandbox.host_facts import is_root, process_layer_can_drop_root
from ladder.sandbox.layers import available_layers
from ladder.views.records import MatchRecord, SeatRecord

HERE = Path(__file__).resolve().parents[1] / "ladder"  # the helper bots
CROWD = HERE / "crowd_bot.py"
NAME = "crowd-of-forty-characters-to-be-wrapped"  # about as long as a name may be: the tables must still fit
CAN_RUN_SUBMITTED = not is_root() or "bubblewrap" in available_layers() or process_layer_can_drop_root()
needs_sandbox = pytest.mark.skipif(
    not CAN_RUN_SUBMITTED, reason="submitted bots cannot run here as root without bubblewrap"
)
needs_game = pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")


def ladder(where: Path, *args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env={
            **os.environ,
            "COLUMNS": str(columns),
            "LADDER_RESULTS": str(where / "results"),
            "LADDER_DB": f"sqlite:///{where / 'l.db'}",
        },
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CAN_RUN_SUBMITTED:
        pytest.skip("submitted bots cannot run here as root without bubblewrap")
    if "elfer-raus" not in game_ids():
        pytest.skip("elfer-raus is not registered")
    where = tmp_path_factory.mktemp("author")
    submitted = ladder(where, "submit", str(CROWD), "--name", NAME)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    (where / "t.toml").write_text(
        f'name = "crowd-test"\nseed = 3\ngames = ["elfer-raus"]\nbots = ["{NAME}", "random", "thumb"]\n'
        "players = [2, 3]\ngames_per_pairing = 1\nworkers = 2\n"
        "[game.elfer-raus]\noptions = [{ number_swap = true }]\n"
    )
    run = ladder(where, "run", "t.toml", "--no-progress")
    assert run.returncode == 0, run.stderr
    return where


def assert_fits(text: str, width: int = 80) -> None:
    """Every line fits, except the bot's own stderr lines (quoted verbatim) and a path alone on its line."""
    long = [
        line
        for line in text.splitlines()
        if len(line) > width and not line.startswith("  | ") and len(line.split()) != 1
    ]
    assert not long, long


@needs_sandbox
@needs_game
def test_bot_shows_ratings_with_uncertainty_failures_with_stderr_and_replay_links(played: Path) -> None:
    run = ladder(played, "bot", NAME)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "sigma" in out and "elfer-raus/2p" in out and "elfer-raus/3p" in out
    # the first decision it is asked (its number depends on the deal: forced moves are played for it; the number
    # itself is checked in tests/tournaments/test_author_loop.py)
    assert re.search(r"exception: RuntimeError while choosing its action #\d+: three is a crowd", " ".join(out.split()))
    assert "| <b>crowd gives up</b>" in out  # its own stderr, as written (a terminal shows it as text)
    replays = re.findall(r"ladder replay (\d+), or in the report:\s+(\S+matches/(\d+)\.html)", out)
    assert replays and all(a == b for a, _, b in replays)
    assert_fits(out)
    data = json.loads(ladder(played, "bot", NAME, "--json").stdout)
    (version,) = data["versions"]
    three = next(r for r in version["ratings"] if r["pool"] == "elfer-raus/3p")
    assert three["failures"] == three["matches"] > 0 and three["sigma"] > 0
    assert version["failure_count"] == three["matches"]
    assert all("three is a crowd" in f["stderr_tail"] for f in version["failures"])


@needs_sandbox
@needs_game
def test_logs_shows_the_bots_stderr_from_its_recent_matches(played: Path) -> None:
    run = ladder(played, "logs", NAME, "-n", "100", "--json")
    entries = json.loads(run.stdout)
    two = [e for e in entries if e["pool"] == "elfer-raus/2p"]
    three = [e for e in entries if e["pool"] == "elfer-raus/3p"]
    assert two and all(e["failure"] is None and f"crowd: seat {e['seat']} of 2" in e["stderr"] for e in two)
    assert three and all(e["failure"] == "exception" and "crowd gives up" in e["stderr"] for e in three)
    shown = ladder(played, "logs", NAME, "-n", "2")
    assert shown.returncode == 0 and shown.stdout.count("match ") == 2
    assert_fits(shown.stdout)


@needs_sandbox
@needs_game
def test_unknown_bot_is_one_clear_line(played: Path) -> None:
    for command in ("bot", "logs"):
        run = ladder(played, command, "nobody")
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert run.stderr.strip().splitlines() == [run.stderr.strip()] and "no bot 'nobody'" in run.stderr


@needs_sandbox
@needs_game
def test_the_report_escapes_the_bots_text_and_replays_its_failed_matches(played: Path) -> None:
    run = ladder(played, "report")
    assert run.returncode == 0, run.stderr
    site = played / "results" / "report"
    page = next((site / "bots").glob(f"{NAME}-*.html")).read_text()
    assert "&lt;script&gt;alert(&#39;author&#39;)&lt;/script&gt;" in page
    assert "&lt;b&gt;crowd gives up&lt;/b&gt; &lt;script&gt;alert(&#39;stderr&#39;)" in page
    for html in site.rglob("*.html"):
        assert "<script>alert" not in html.read_text(), html
    failed = json.loads(ladder(played, "bot", NAME, "--json").stdout)["versions"][0]["failures"][0]
    replay_page = Path(failed["replay"])
    assert 'src="../static/replay.js"' in replay_page.read_text()
    document = decode_replay_script(replay_page.with_suffix(".js").read_text())
    seat = next(s for s in document["seats"] if s["name"] == NAME)
    assert (
        "three is a crowd" in seat["detail"] and "<script>alert('stderr')" in seat["stderr"]
    )  # drawn as text by the viewer
    frames = document["frames"]
    matches = json.loads(ladder(played, "matches", "--json", "-n", "100").stdout)
    match = next(m for m in matches if m["id"] == failed["match"])
    assert frames[-1]["to_move"] is None and match["status"] == "played"
    assert any(f.get("move", {}).get("stand_in") for f in frames)  # the random stand-in's moves are marked


def decode_replay_script(text: str) -> dict[str, Any]:
    """The replay a match's data script hands the viewer: base64 of gzip'd JSON."""
    found = re.fullmatch(r'LadderReplay\.load\("([A-Za-z0-9+/=]*)"\);\n', text)
    assert found, text[:200]
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_a_match_that_was_never_played_still_opens_on_its_deal() -> None:
    game = "elfer-raus" if "elfer-raus" in game_ids() else game_ids()[0]
    from engine import get_game

    players = get_game(game).min_players
    match = MatchRecord(
        1,
        1,
        "k",
        "d0",
        game,
        {},
        players,
        42,
        "error",
        "the worker kept dying",
        0.0,
        (),
        0,
        __import__("datetime").datetime(2026, 1, 1),
        tuple(SeatRecord(s, s + 1, None, None, None, "", "", None) for s in range(players)),
    )
    replay = build_replay(match, [])
    assert len(replay.frames) == 1 and "move" not in replay.frames[0]
    state = get_game(game).new_state(players, 42, {})
    shared, own = replay.frames[0]["pub"]["set"], replay.frames[0]["own"][0]["set"]
    seen = json.loads(json.dumps(state.observation(0)))
    seen.pop("events", None)
    assert {**shared, **own} == seen  # seat 0's view of the deal: exactly its observation
    assert replay.frames[0]["offer"] == json.loads(json.dumps(state.legal_actions()))


@needs_sandbox
@needs_game
@pytest.mark.parametrize(
    "command",
    [
        ("tournaments",),
        ("bots",),
        ("games",),
        ("doctor",),
        ("h2h", NAME, "thumb"),
        ("bot", NAME),
        ("logs", NAME),
        ("bot", "thumb"),
    ],
)
def test_every_table_fits_80_columns_with_the_numbers_whole(played: Path, command: tuple[str, ...]) -> None:
    run = ladder(played, *command)
    assert run.returncode == 0, run.stderr
    assert_fits(run.stdout)
    assert "…" not in run.stdout  # nothing was cut
