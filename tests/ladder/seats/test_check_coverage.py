"""The submission check through the real CLI (issue 24): every seat of every table size, and submit reusing it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ladder.sandbox.layers import default_layers
from ladder.sandbox.limits import SandboxLimits
from ladder.sandbox.submission import read_files
from ladder.seats.botstore import check_schedule
from ladder.seats.check_cache import check_key
from tests.cli.test_author_tools import bot_file, ladder, needs_elfer_raus, sandbox_or_skip

LAST_SEAT_BUG = (
    "        if self.match.num_players >= 3 and self.match.seat == self.match.num_players - 1:\n"
    "            return {}['last seat']\n"
    "        return legal_actions[0]"
)


def test_the_schedule_puts_the_bot_in_every_seat_and_never_two_small_tables_in_a_row() -> None:
    schedule = check_schedule(range(2, 7), 1)
    assert sorted({(size, index % size) for size, index in schedule}) == [
        (size, seat) for size in range(2, 7) for seat in range(size)
    ]
    assert len(schedule) == 2 + 3 + 4 + 5 + 6
    assert schedule[:5] == [(2, 0), (3, 0), (4, 0), (5, 0), (6, 0)]
    assert check_schedule([1], 2) == [(1, 0), (1, 1)]  # more matches than seats: the seats take turns


@needs_elfer_raus
def test_validate_finds_a_bug_that_shows_only_in_the_last_seat(tmp_path: Path) -> None:
    bot_file(tmp_path, "last-seat", LAST_SEAT_BUG)
    run = ladder("validate", "last-seat.py", "--json", cwd=tmp_path)
    sandbox_or_skip(run)
    report = json.loads(run.stdout)
    assert run.returncode == 1 and not report["ok"], report["problem"]
    assert "in elfer-raus at 3 players" in report["problem"] and "seat 2," in report["problem"], report["problem"]
    assert "KeyError: 'last seat'" in report["explanation"]


@needs_elfer_raus
def test_a_passing_bot_played_every_seat_against_cheap_opponents(tmp_path: Path) -> None:
    bot_file(tmp_path, "first-legal", "        return legal_actions[0]")
    run = ladder("validate", "first-legal.py", "--json", "--matches", "1", cwd=tmp_path)
    sandbox_or_skip(run)
    report = json.loads(run.stdout)
    assert run.returncode == 0 and report["ok"], report["problem"]
    seats = sorted((m["players"], m["seat"]) for m in report["matches"])
    assert seats == [(size, seat) for size in range(2, 7) for seat in range(size)]


@pytest.mark.slow
@needs_elfer_raus
def test_submit_after_validate_does_not_play_the_same_check_again(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "steady", "        return legal_actions[0]")
    checked = ladder("validate", "steady.py", "--json", "--matches", "1", cwd=tmp_path)
    sandbox_or_skip(checked)
    assert json.loads(checked.stdout)["ok"]
    human = ladder("submit", "steady.py", "--matches", "1", cwd=tmp_path)
    assert human.returncode == 0 and "not played again" in human.stdout and "registered steady" in human.stdout, (
        human.stdout
    )
    assert "elfer-raus: 2 players" not in human.stdout, "no match was played"
    submitted = ladder("submit", "steady.py", "--json", "--matches", "1", cwd=tmp_path)
    data = json.loads(submitted.stdout)
    assert submitted.returncode == 0 and data["check_reused"] is True and data["registered"]["new"] is False
    assert data["matches"] == json.loads(checked.stdout)["matches"], "the report of the check that was reused"

    # other limits: the check runs again
    stricter = ladder("submit", "steady.py", "--json", "--matches", "1", "--memory-mb", "900", cwd=tmp_path)
    assert json.loads(stricter.stdout)["check_reused"] is False

    # the same name with changed files (a bug in the last seat): checked again, refused, nothing registered
    path.write_text(path.read_text().replace("        return legal_actions[0]", LAST_SEAT_BUG))
    changed = ladder("submit", "steady.py", "--json", "--matches", "1", cwd=tmp_path)
    report = json.loads(changed.stdout)
    assert changed.returncode == 1 and not report["ok"] and "seat 2," in report["problem"]
    bots = json.loads(ladder("bots", "--json", cwd=tmp_path).stdout)
    assert len([b for b in bots["registered"] if b["name"] == "steady"][0]["versions"]) == 1, bots


@needs_elfer_raus
def test_a_forged_cache_entry_for_other_files_is_not_taken(tmp_path: Path) -> None:
    """An entry names the files it was made for: renaming one to another bot's key does not pass that bot."""
    good = bot_file(tmp_path, "good", "        return legal_actions[0]")
    checked = ladder("validate", str(good), "--json", "--matches", "1", cwd=tmp_path)
    sandbox_or_skip(checked)
    entries = list((tmp_path / "results" / "checks").glob("*.json"))
    assert len(entries) == 1
    bad = bot_file(tmp_path, "good", LAST_SEAT_BUG)  # the same name, other files
    key = check_key(read_files(bad), SandboxLimits(), default_layers(), 1)
    assert key is not None
    entries[0].rename(entries[0].with_name(f"{key.digest()}.json"))
    submitted = ladder("submit", str(bad), "--json", "--matches", "1", cwd=tmp_path)
    report = json.loads(submitted.stdout)
    assert submitted.returncode == 1 and not report["ok"] and "seat 2," in report["problem"], report
