"""The report as files: compact replays, an incremental build, grouped failures (through the real CLI where it
writes the site)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from ladder.report.replay import SeatLabel, replay_bytes
from ladder.views.figures import FailureRecord, failure_groups
from ladder.views.records import MatchRecord, SeatRecord

MAX_REPLAY_BYTES = (
    50_000  # the budget per match on disk (its page and its data script) for the quick tournament's games
)


def ladder(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", f"sqlite:///{where / 'l.db'}"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=where,
        env={**os.environ, "COLUMNS": "200", "LADDER_RESULTS": str(where / "results")},
    )


def tiny(where: Path, name: str, seed: int) -> None:
    (where / f"{name}.toml").write_text(
        f'name = "{name}"\nseed = {seed}\ngames = "all"\nbots = ["random", "thumb"]\n'
        "players = [2, 3]\ngames_per_pairing = 1\nworkers = 1\n"
    )
    run = ladder(where, "run", f"{name}.toml", "--no-progress")
    assert run.returncode == 0, run.stderr


def written(run: subprocess.CompletedProcess[str]) -> dict[str, int]:
    assert run.returncode == 0, run.stderr
    line = " ".join(run.stdout.split())
    counts = {}
    for word in ("files written", "unchanged", "removed", "matches replayed"):
        before = line.split(f" {word}")[0]
        counts[word] = int(before.split()[-1])
    return counts


def site_files(site: Path) -> dict[str, float]:
    return {str(p.relative_to(site)): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_a_second_report_writes_only_what_changed(tmp_path: Path) -> None:
    tiny(tmp_path, "first", 7)
    site = tmp_path / "site"
    first = written(ladder(tmp_path, "report", "--out", str(site)))
    assert first["files written"] > 0 and first["unchanged"] == 0 and first["matches replayed"] > 0
    before = site_files(site)
    again = written(ladder(tmp_path, "report", "--out", str(site)))
    assert again == {"files written": 0, "unchanged": first["files written"], "removed": 0, "matches replayed": 0}
    assert {k: v for k, v in site_files(site).items() if k != ".ladder-report.json"} == {
        k: v for k, v in before.items() if k != ".ladder-report.json"
    }  # not a byte touched
    # more matches: only those are replayed; the old replays stay as they were
    old_replays = {k: v for k, v in before.items() if k.startswith("matches/")}
    tiny(tmp_path, "second", 8)
    more = written(ladder(tmp_path, "report", "--out", str(site)))
    new_matches = json.loads(ladder(tmp_path, "matches", "--json", "-n", "1000").stdout)
    assert more["matches replayed"] == len(new_matches) - first["matches replayed"] > 0
    after = site_files(site)
    assert all(after[k] == v for k, v in old_replays.items())
    # a file deleted by hand is written again; a stray file of the last build is removed
    (site / "matches" / "1.js").unlink()
    (site / "matches" / "1.js").parent.joinpath("1.html").unlink()
    repaired = written(ladder(tmp_path, "report", "--out", str(site)))
    assert repaired["files written"] == 2 and repaired["matches replayed"] == 1
    assert (site / "matches" / "1.js").is_file()


@pytest.mark.slow
def test_every_replay_of_a_quick_tournament_game_fits_the_budget(tmp_path: Path) -> None:
    tiny(tmp_path, "sizes", 11)
    site = tmp_path / "site"
    written(ladder(tmp_path, "report", "--out", str(site)))
    for script in (site / "matches").glob("*.js"):
        size = script.stat().st_size + script.with_suffix(".html").stat().st_size
        assert size <= MAX_REPLAY_BYTES, (script, size)
        document = decode(script.read_text())
        decisions = [f for f in document["frames"] if "chose" in f]
        assert decisions and all(
            isinstance(f["think_us"], int) and f["think_us"] >= 0 for f in decisions
        )  # recorded per move
    assert len(list((site / "matches").glob("*.js"))) == len(
        json.loads(ladder(tmp_path, "matches", "--json", "-n", "1000").stdout)
    )


def decode(script: str) -> dict[str, Any]:
    """The replay a match's data script hands the viewer (base64 of gzip'd JSON)."""
    prefix, suffix = 'LadderReplay.load("', '");\n'
    assert script.startswith(prefix) and script.endswith(suffix)
    return json.loads(gzip.decompress(base64.b64decode(script[len(prefix) : -len(suffix)])))


def played_match(game: str, players: int, seed: int) -> tuple[MatchRecord, list[dict[str, object]]]:
    """A match of ``game`` played out with the first legal action each time (no database)."""
    state = get_game(game).new_state(players, seed, {})
    actions = []
    while not state.is_over():
        action = state.legal_actions()[0]
        actions.append(action)
        state.apply(action)
    seats = tuple(
        SeatRecord(s, s + 1, state.result().scores[s], state.result().ranks[s], None, "", "", None)
        for s in range(players)
    )
    return MatchRecord(
        1,
        1,
        "k",
        "d",
        game,
        {},
        players,
        seed,
        "played",
        "",
        1.0,
        (0.1,) * players,
        len(actions),
        datetime(2026, 1, 1),
        seats,
    ), actions


@pytest.mark.parametrize(
    "game, players", [("elfer-raus", 4), ("elevenses", 3), ("elevenses-for-one", 1), ("bowling-solitaire", 1)]
)
def test_the_replay_bytes_are_a_pure_function_of_the_match(game: str, players: int) -> None:
    match, actions = played_match(game, players, 5)
    labels = [SeatLabel(f"bot{s}", f"bots/bot{s}.html") for s in range(players)]
    timing = [1000 + i for i in range(len(actions))]
    first = replay_bytes(match, actions, labels, "t #1", timing)
    assert first == replay_bytes(
        match, actions, labels, "t #1", timing
    )  # the same bytes each time (the static site's hash)
    document = json.loads(gzip.decompress(first))
    assert [f["think_us"] for f in document["frames"][:-1]] == timing  # each decision with the time it took
    assert len(document["frames"]) == len(actions) + 1 and document["problem"] == ""
    # every decision offers the engine's legal actions and names the one played
    state = get_game(game).new_state(players, 5, {})
    for frame, action in zip(document["frames"], actions, strict=False):
        assert frame["offer"] == json.loads(json.dumps(state.legal_actions()))
        assert frame["offer"][frame["chose"]] == action
        state.apply(action)
    assert document["frames"][-1]["to_move"] is None and "offer" not in document["frames"][-1]
    assert len(first) < MAX_REPLAY_BYTES * 3 // 4  # base64 adds a third on disk


def failure(match_id: int, reason: str, detail: str, stderr: str) -> FailureRecord:
    seat = SeatRecord(0, 1, 0.0, 2, reason, detail, stderr, 3)
    match = MatchRecord(
        match_id, 1, "k", "d", "elfer-raus", {}, 2, 1, "played", "", 1.0, (), 5, datetime(2026, 1, 1), (seat,)
    )
    return FailureRecord(match, seat)


def test_failures_are_grouped_by_reason_detail_and_traceback_line() -> None:
    crash = "Traceback (most recent call last):\n  File \"bot.py\", line 3, in act\nKeyError: 'hand'\n"
    other = 'Traceback (most recent call last):\n  File "bot.py", line 9, in act\nZeroDivisionError: division by zero\n'
    found = [failure(i, "crash", "the bot raised", crash) for i in range(40, 4, -1)]  # 36 alike, newest first
    found.insert(3, failure(100, "crash", "the bot raised", other))
    found.append(failure(2, "timeout", "no answer in 5 s\nmore", ""))
    groups = failure_groups(sorted(found, key=lambda f: -f.match.match_id))
    assert [(g.reason, g.traceback_line, g.count) for g in groups] == [
        ("crash", "KeyError: 'hand'", 36),
        ("crash", "ZeroDivisionError: division by zero", 1),
        ("timeout", "", 1),
    ]
    assert [f.match.match_id for f in groups[0].latest] == [40, 39, 38, 37, 36]
    assert groups[2].detail == "no answer in 5 s" and groups[2].alike


def test_failures_that_differ_only_in_their_numbers_are_one_group_shown_by_the_newest() -> None:
    """A timeout's detail names its CPU seconds and its move: eleven timeouts were eleven groups of one."""
    found = [
        failure(20 + i, "timeout", f"used {5 + i / 10:.2f} s of CPU on move {i * 3}, 5.00 s allowed", "")
        for i in range(11)
    ]
    found.append(failure(5, "illegal", "answered 7, which is not one of the 3 legal actions", ""))
    groups = failure_groups(sorted(found, key=lambda f: -f.match.match_id))
    assert [(g.reason, g.count) for g in groups] == [("timeout", 11), ("illegal", 1)]
    assert groups[0].detail == "used 6.00 s of CPU on move 30, 5.00 s allowed" and not groups[0].alike


@pytest.mark.slow
def test_a_tournaments_matches_are_listed_on_pages_that_each_name_the_others(tmp_path: Path) -> None:
    """`--matches-per-page N`: every match on exactly one page, each page linking every other; a smaller
    tournament later has fewer pages and the extra ones are removed."""
    tiny(tmp_path, "paged", 7)
    site = tmp_path / "site"
    run = ladder(tmp_path, "report", "--out", str(site), "--matches-per-page", "7")
    assert run.returncode == 0, run.stderr
    recorded = sorted(m["id"] for m in json.loads(ladder(tmp_path, "matches", "--json", "-n", "1000").stdout))
    first = site / "tournaments" / "1.html"
    pages = [first, *sorted(site.glob("tournaments/1-matches-*.html"), key=lambda p: int(p.stem.split("-")[-1]))]
    assert len(pages) == -(-len(recorded) // 7) > 1
    listed = []
    for number, page in enumerate(pages, start=1):
        html = page.read_text()
        ids = [int(cell.split("</td>")[0]) for cell in html.split('<tr><td class="n">')[1:]]
        assert 0 < len(ids) <= 7
        listed += ids
        for match_id in ids:  # a match's page links back to the page that lists it
            assert f'href="../tournaments/{page.name}"' in (site / "matches" / f"{match_id}.html").read_text()
        for other in pages:
            if other != page:
                assert f'href="../tournaments/{other.name}"' in html, (page.name, other.name)
        assert f"<strong>{number}</strong>" in html
        assert ("schedule fingerprint" in html) == (number == 1)  # the facts on the first page only
    assert sorted(listed) == recorded and len(listed) == len(set(listed))
    # one page is enough now: the others go
    again = ladder(tmp_path, "report", "--out", str(site), "--matches-per-page", "1000")
    assert again.returncode == 0, again.stderr
    assert not list(site.glob("tournaments/1-matches-*.html"))
    assert 'href="../tournaments/1.html"' in (site / "matches" / f"{recorded[-1]}.html").read_text()
    assert 'class="pager"' not in first.read_text()
    bad = ladder(tmp_path, "report", "--out", str(site), "--matches-per-page", "0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_the_leaderboards_explain_p_above_next_as_the_paired_test_that_computes_it(tmp_path: Path) -> None:
    """The report's P(above next) and rank (95%) are the paired sequential tests' figures (those of `ladder
    rankings`, docs/verdict.md); the pages must not explain them as TrueSkill's normal beliefs."""
    (tmp_path / "t.toml").write_text(
        'name = "t"\nseed = 3\ngames = ["elfer-raus"]\nbots = ["random", "thumb"]\nplayers = [2]\n'
        "games_per_pairing = 2\nworkers = 1\n"
    )
    run = ladder(tmp_path, "run", "t.toml", "--no-progress", "--no-rankings")
    assert run.returncode == 0, run.stderr
    site = tmp_path / "site"
    written(ladder(tmp_path, "report", "--out", str(site)))
    for page in (site / "index.html", *sorted((site / "pools").glob("*.html"))):
        text = " ".join(page.read_text().split())
        assert "P(above next)" in text, page
        assert "from a paired sequential test on the deals both played" in text, page
        assert "normal beliefs" not in text and "truly ranks above" not in text, page
        assert "when skills are drawn from the ratings" not in text, page  # the rank interval is the tests' too
