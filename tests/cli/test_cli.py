"""The command line as a user meets it: real subprocesses, real output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import game_ids


def ladder(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def assert_one_clear_line(run: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    text = run.stderr.strip()
    assert text.startswith("error:"), text
    assert len(text.splitlines()) == 1, text
    for fragment in fragments:
        assert fragment in text


def test_games_lists_every_registered_game() -> None:
    run = ladder("games")
    assert run.returncode == 0
    for game_id in game_ids():
        assert game_id in run.stdout


def test_unknown_game_is_one_clear_line() -> None:
    assert_one_clear_line(ladder("play", "no-such-game", "random"), "no game 'no-such-game'", "known games")


@pytest.mark.skipif("elevenses-for-one" not in game_ids(), reason="elevenses-for-one is not registered")
class TestPlayElevensesForOne:
    def test_unknown_bot_is_one_clear_line(self) -> None:
        assert_one_clear_line(ladder("play", "elevenses-for-one", "no-such-bot"), "no-such-bot")

    def test_unknown_option_is_one_clear_line(self) -> None:
        assert_one_clear_line(ladder("play", "elevenses-for-one", "random", "--option", "colour=blue"), "colour")

    def test_out_of_range_option_is_one_clear_line(self) -> None:
        assert_one_clear_line(ladder("play", "elevenses-for-one", "random", "--option", "minutes=99"), "minutes")

    def test_option_without_equals_is_one_clear_line(self) -> None:
        assert_one_clear_line(ladder("play", "elevenses-for-one", "random", "--option", "minutes"), "key=value")

    def test_same_seed_same_summary_and_bots_compared_on_the_same_deals(self) -> None:
        first = ladder("play", "elevenses-for-one", "random", "thumb", "-n", "60", "--seed", "7", "--json")
        second = ladder("play", "elevenses-for-one", "random", "thumb", "-n", "60", "--seed", "7", "--json")
        assert first.returncode == 0, first.stderr
        assert first.stdout == second.stdout
        summary = json.loads(first.stdout)
        random_row, thumb_row = summary["bots"]
        assert random_row["bot"] == "random" and thumb_row["bot"] == "thumb"
        assert random_row["games"] == thumb_row["games"] == 60
        assert thumb_row["mean_score"] > random_row["mean_score"]

    def test_workers_share_out_the_deals_with_the_same_results(self) -> None:
        """`--workers 2` plays the same matches as one process: the summary is identical, byte for byte."""
        command = ("play", "elfer-raus", "thumb", "random", "random", "-n", "3", "--seed", "4", "--json")
        alone, shared = ladder(*command), ladder(*command, "--workers", "2")
        assert alone.returncode == 0 and shared.returncode == 0, alone.stderr + shared.stderr
        assert json.loads(alone.stdout)["matches"] == 3 * 6
        assert shared.stdout == alone.stdout

    def test_human_summary_shows_scores_and_bands(self) -> None:
        run = ladder("play", "elevenses-for-one", "thumb", "-n", "30", "--seed", "1")
        assert run.returncode == 0, run.stderr
        assert "win rate" in run.stdout and "mean score" in run.stdout
        assert "band" in run.stdout

    def test_play_lists_every_band_with_a_note(self) -> None:
        """The band table lists all five bands, even those no deal reached, and says why 11 points is never
        awarded (docs/rules-decisions.md, Elevenses for One decision 25)."""
        run = ladder("play", "elevenses-for-one", "random", "-n", "5", "--seed", "1")
        assert run.returncode == 0, run.stderr
        flat = " ".join(run.stdout.split())
        for band in (
            "You're fired!",
            "The Madam is disappointed",
            "Performed as expected",
            "Half-day off",
            "Wages raised",
        ):
            assert band in flat
        assert "never awarded" in flat and "a win at least 12" in flat.replace("│", "").replace("  ", " ")

    def test_discard_cap_option_and_a_bad_value(self) -> None:
        run = ladder("play", "elevenses-for-one", "thumb", "-n", "3", "-o", "discard_cap=pile", "--json")
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["options"]["discard_cap"] == "pile"
        assert_one_clear_line(ladder("play", "elevenses-for-one", "thumb", "-o", "discard_cap=heap"), "'game', 'pile'")


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
def test_elfer_raus_hold_back_option_and_a_bad_value() -> None:
    run = ladder("play", "elfer-raus", "thumb", "random", "-n", "2", "-o", "hold_back=all", "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["options"]["hold_back"] == "all"
    assert_one_clear_line(ladder("play", "elfer-raus", "thumb", "random", "-o", "hold_back=never"), "'some', 'all'")


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
def test_wrong_number_of_seats_is_one_clear_line() -> None:
    assert_one_clear_line(ladder("play", "elfer-raus", "random"), "2 to 6 players")


def test_error_text_in_square_brackets_is_printed_as_written(tmp_path) -> None:
    """Error lines are plain text: a `[game.x]` in a message must not vanish as console markup."""
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = 1\n[game.no-such-game]\nplayers = [2]\n")
    run = ladder("run", str(bad), "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert_one_clear_line(run, "game.no-such-game")


@pytest.mark.skipif("bowling-solitaire" not in game_ids(), reason="bowling-solitaire is not registered")
def test_a_solitaire_scored_by_points_has_no_win_rate_but_strike_and_spare_rates() -> None:
    run = ladder("play", "bowling-solitaire", "thumb", "-n", "20", "--seed", "1", "--json")
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)["bots"]
    assert row["win_rate"] is None and row["wins"] is None
    assert 0 <= row["mean_strike_rate"] <= 1 and 0 <= row["mean_spare_rate"] <= 1
    assert row["mean_score"] > 0
