"""The author's tools at home, through the real CLI (issue 17): `ladder play` and `ladder validate`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import game_ids

needs_elfer_raus = pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")


def ladder(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )


def bot_file(where: Path, name: str, act_body: str, extra: str = "") -> Path:
    path = where / f"{name}.py"
    path.write_text(
        "from ladder.bot import Bot\n\n\n"
        f"class B(Bot):\n    name = {name!r}\n    games = ('elfer-raus',)\n{extra}\n"
        f"    def act(self, observation, legal_actions):\n{act_body}\n"
    )
    return path


def sandbox_or_skip(run: subprocess.CompletedProcess[str]) -> None:
    if "loads:" not in run.stdout and '"bot": {' not in run.stdout:
        pytest.skip(f"the sandbox cannot run here: {(run.stderr or run.stdout).strip()[:200]}")


@needs_elfer_raus
def test_play_plays_every_seating_of_each_deal_and_gives_the_difference_with_its_interval() -> None:
    run = ladder("play", "elfer-raus", "thumb", "random", "-n", "30", "-o", "rounds=1", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["matches"] == 60  # 30 deals x 2 seatings
    assert [row["games"] for row in data["bots"]] == [60, 60]
    by_measure = {d["measure"]: d for d in data["differences"]}
    # first the ladder's own verdict statistic (docs/verdict.md), then the descriptive measures
    assert [d["measure"] for d in data["differences"]] == ["paired", "score", "win rate", "rank"]
    assert -1 <= by_measure["paired"]["low"] < by_measure["paired"]["high"] <= 1
    for difference in by_measure.values():
        assert difference["bot"] == "random" and difference["baseline"] == "thumb" and difference["deals"] == 30
        assert difference["low"] <= difference["mean"] <= difference["high"]
    # each deal in both seatings: swapping the order of the bots gives the same matches, so the same totals
    swapped = json.loads(ladder("play", "elfer-raus", "random", "thumb", "-n", "30", "-o", "rounds=1", "--json").stdout)
    assert {row["bot"]: row["mean_score"] for row in swapped["bots"]} == {
        row["bot"]: row["mean_score"] for row in data["bots"]
    }
    human = ladder("play", "elfer-raus", "thumb", "random", "-n", "30", "-o", "rounds=1")
    words = " ".join(human.stdout.split())  # a title may wrap
    assert "difference from thumb, paired by deal, each deal played in every seating (60 matches)" in words
    assert "95% confidence interval" in words


@needs_elfer_raus
def test_play_says_when_a_difference_is_not_significant() -> None:
    run = ladder("play", "elfer-raus", "random", "random", "-n", "12", "-o", "rounds=1")
    assert run.returncode == 0, run.stderr
    assert "not significant" in run.stdout
    data = json.loads(ladder("play", "elfer-raus", "random", "random", "-n", "12", "-o", "rounds=1", "--json").stdout)
    assert any(not d["significant"] for d in data["differences"])


@needs_elfer_raus
def test_play_at_three_seats_plays_the_six_seatings() -> None:
    data = json.loads(
        ladder("play", "elfer-raus", "thumb", "random", "random", "-n", "2", "-o", "rounds=1", "--json").stdout
    )
    assert data["matches"] == 12 and [row["bot"] for row in data["bots"]] == ["thumb", "random#1", "random#2"]


@needs_elfer_raus
def test_play_shows_the_first_failures_traceback(tmp_path: Path) -> None:
    bot_file(tmp_path, "crashy", "        return {}['no such key']")
    run = ladder("play", "elfer-raus", "crashy.py", "random", "-n", "2", "-o", "rounds=1", cwd=tmp_path)
    if run.returncode != 0:
        pytest.skip(f"the sandbox cannot run here: {run.stderr.strip()[:200]}")
    assert "first failure: crashy in seat 0" in run.stdout
    assert "KeyError: 'no such key'" in run.stdout and "bot.py" in run.stdout
    data = json.loads(
        ladder("play", "elfer-raus", "crashy.py", "random", "-n", "2", "-o", "rounds=1", "--json", cwd=tmp_path).stdout
    )
    assert data["first_failure"]["reason"] == "exception" and "KeyError" in data["first_failure"]["stderr_tail"]


@needs_elfer_raus
def test_validate_plays_every_table_size_and_names_the_one_that_failed(tmp_path: Path) -> None:
    bot_file(
        tmp_path,
        "three",
        "        if self.match.num_players == 3:\n            return {}[3]\n        return legal_actions[0]",
    )
    run = ladder("validate", "three.py", "--json", cwd=tmp_path)
    sandbox_or_skip(run)
    report = json.loads(run.stdout)
    assert run.returncode == 1 and not report["ok"]
    assert "in elfer-raus at 3 players" in report["problem"] and "seat 0," in report["problem"]
    assert sorted({m["players"] for m in report["matches"]}) == [2, 3]
    human = ladder("validate", "three.py", cwd=tmp_path)
    assert human.returncode == 2 and "at 3 players" in human.stderr and "KeyError: 3" in human.stdout
    # counted from 0; the table sizes take turns (issue 24), so the 3-player table's first match is the second
    progress = [line.strip() for line in human.stdout.splitlines() if "match 1, seat" in line]
    assert progress[:2] == ["elfer-raus: 2 players, match 1, seat 0", "elfer-raus: 3 players, match 1, seat 0"], (
        progress
    )
    assert "seat 2," not in human.stdout

    fine = bot_file(tmp_path, "fine", "        return legal_actions[0]")
    passed = json.loads(ladder("validate", str(fine), "--json", cwd=tmp_path).stdout)
    assert passed["ok"] and sorted({m["players"] for m in passed["matches"]}) == [2, 3, 4, 5, 6]


@needs_elfer_raus
def test_a_timeout_keeps_the_stuck_bots_stack(tmp_path: Path) -> None:
    bot_file(
        tmp_path,
        "loopy",
        "        return self.think(legal_actions)",
        extra="\n    def think(self, legal_actions):\n        total = 0\n        while True:\n            total += 1\n",
    )
    run = ladder("validate", "loopy.py", "--move-seconds", "0.5", "--json", cwd=tmp_path)
    sandbox_or_skip(run)
    report = json.loads(run.stdout)
    assert "timeout" in report["problem"] and "stopped in File" in report["problem"] and "in think" in report["problem"]
    assert "most recent call first" in report["explanation"]
    assert "in think" in report["explanation"] and "in act" in report["explanation"]
