"""The tournament commands as a user meets them: real subprocesses on the registered games."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bots.registry import bots_for_game
from engine import all_games


def ladder(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**__import__("os").environ, "COLUMNS": "200", "LADDER_RESULTS": str(cwd / "results")},
    )


def assert_one_clear_line(run: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert run.returncode == 2, run
    assert "Traceback" not in run.stderr + run.stdout
    text = run.stderr.strip()
    assert text.startswith("error:") and len(text.splitlines()) == 1, text
    for fragment in fragments:
        assert fragment in text, text


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small tournament of every registered game with every built-in bot, run through the CLI."""
    where = tmp_path_factory.mktemp("cli")
    (where / "tiny.toml").write_text(
        'seed = 4\ngames = "all"\nbots = "all"\nplayers = [2]\ngames_per_pairing = 1\nworkers = 2\n'
    )
    run = ladder("run", "tiny.toml", "--no-progress", "--db", f"sqlite:///{where / 'l.db'}", cwd=where)
    assert run.returncode == 0, run.stderr
    assert "tournament tiny #1: complete" in run.stdout
    return where


def db(where: Path) -> list[str]:
    return ["--db", f"sqlite:///{where / 'l.db'}"]


def test_run_prints_the_rankings_of_its_games(played: Path) -> None:
    run = ladder("rankings", *db(played), cwd=played)
    assert run.returncode == 0, run.stderr
    assert "Overall, across games" in run.stdout and "mu-3σ" in run.stdout
    for game in all_games():
        if game.max_players == 1 or len(bots_for_game(game.id)) >= 2:
            assert game.id in run.stdout


def test_rankings_of_one_game_and_as_json(played: Path) -> None:
    game = next(g.id for g in all_games() if g.max_players == 1)
    run = ladder("rankings", game, "--json", *db(played), cwd=played)
    data = json.loads(run.stdout)
    assert list(data["pools"]) == [f"{game}/1p"]
    assert {row["bot"] for row in data["pools"][f"{game}/1p"]["table"]} == set(bots_for_game(game))


def test_matches_replay_and_export(played: Path) -> None:
    listed = json.loads(ladder("matches", "--json", "--bot", "random", "-n", "100", *db(played), cwd=played).stdout)
    assert listed and all(any(s["bot"] == "random" for s in m["seats"]) for m in listed)
    table_match = next((m for m in listed if m["players"] > 1), listed[0])
    replay = ladder("replay", str(table_match["id"]), "--view", "0", *db(played), cwd=played)
    assert replay.returncode == 0, replay.stderr
    assert "the replay ends with the recorded scores" in replay.stdout and "seat 0 sees" in replay.stdout
    exported = ladder("export", "--format", "csv", "--out", "-", *db(played), cwd=played)
    rows = list(csv.DictReader(io.StringIO(exported.stdout)))
    assert rows and {"match_id", "bot", "score", "rank", "failure_reason"} <= set(rows[0])
    as_json = ladder(
        "export", "--format", "json", "--actions", "--out", str(played / "all.json"), *db(played), cwd=played
    )
    assert as_json.returncode == 0
    data = json.loads((played / "all.json").read_text())
    assert data["matches"][0]["actions"] and data["ratings"]["pools"]


def test_h2h_tournaments_and_rerate(played: Path) -> None:
    pair = next(
        ((g.id, bots_for_game(g.id)) for g in all_games() if g.max_players > 1 and len(bots_for_game(g.id)) >= 2), None
    )
    if pair is not None:
        game, names = pair
        other = next(n for n in names if n != "random")
        run = ladder("h2h", other, "random", "--game", game, "--json", *db(played), cwd=played)
        summary = json.loads(run.stdout)["games"]
        assert (
            summary and summary[0]["met"] == summary[0]["first_ahead"] + summary[0]["second_ahead"] + summary[0]["tied"]
        )
    listed = json.loads(ladder("tournaments", "--json", *db(played), cwd=played).stdout)
    assert listed[0]["state"] == "complete" and listed[0]["played"] + listed[0]["skipped"] == listed[0]["scheduled"]
    before = json.loads(ladder("rankings", "--json", *db(played), cwd=played).stdout)
    rerate = ladder("rerate", *db(played), cwd=played)
    assert rerate.returncode == 0 and "rated" in rerate.stdout
    assert json.loads(ladder("rankings", "--json", *db(played), cwd=played).stdout) == before


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("run", "nope.toml"), ["no tournament file 'nope.toml'"]),
        (("run", "bad.toml"), ["bad.toml: gamez: unknown key"]),
        (("run", "tiny.toml", "--hours", "0"), ["--hours must be more than 0"]),
        (("rankings", "no-such-game"), ["no ratings for no-such-game"]),
        (("replay", "999999"), ["no match '999999'"]),
        (("replay", "1", "--view", "9"), ["--view 9"]),
        (("h2h", "random", "nobody"), ["no bot 'nobody'"]),
        (("h2h", "random", "random"), ["name the same bot version"]),
        (("matches", "--bot", "nobody"), ["no bot 'nobody'"]),
        (("export", "--format", "csv", "--actions"), ["--actions needs --format json"]),
    ],
)
def test_bad_input_ends_in_one_clear_line(played: Path, args: tuple[str, ...], fragments: list[str]) -> None:
    (played / "bad.toml").write_text("seed = 1\ngamez = 'all'\n")
    assert_one_clear_line(ladder(*args, *db(played), cwd=played), *fragments)


def test_a_bot_folder_named_without_a_slash_is_told_to_be_given_as_a_path(tmp_path: Path) -> None:
    """`ladder validate shbot` of a folder `shbot` here said "no bot 'shbot' ...; or give the path of a bot (a .py
    file, or a folder with bot.py or bot.toml)": the user had given exactly that (found by the fresh-user walk)."""
    (tmp_path / "shbot").mkdir()
    (tmp_path / "shbot" / "bot.toml").write_text('name = "sh"\ngames = ["*"]\ncommand = ["sh", "bot.sh"]\n')
    assert_one_clear_line(ladder("validate", "shbot", cwd=tmp_path), "'shbot' here is read as a bot's name", "./shbot")


def test_a_bad_database_url_or_an_empty_database_is_one_line(tmp_path: Path) -> None:
    assert_one_clear_line(ladder("rankings", "--db", "nosuchdialect://x", cwd=tmp_path), "cannot use the database URL")
    from ladder.store.database import open_database

    open_database(f"sqlite:///{tmp_path / 'empty.db'}").dispose()  # a database with no match yet (reading creates none)
    assert_one_clear_line(
        ladder("rankings", "--db", f"sqlite:///{tmp_path / 'empty.db'}", cwd=tmp_path), "no rated match yet"
    )


def test_a_submitted_bot_plays_in_a_tournament(tmp_path: Path) -> None:
    """A bot registered with `ladder submit` is entered by name and played sandboxed by the workers."""
    (tmp_path / "firsty.py").write_text(
        "from ladder.bot import Bot\n\n"
        "class FirstBot(Bot):\n"
        "    name = 'firsty'\n"
        "    games = ('*',)\n\n"
        "    def act(self, observation, legal_actions):\n"
        "        return legal_actions[0]\n"
    )
    solitaire = next(g.id for g in all_games() if g.max_players == 1)
    (tmp_path / "t.toml").write_text(
        f'seed = 1\ngames = ["{solitaire}"]\nbots = ["random", "firsty"]\ngames_per_pairing = 2\n'
    )
    where = ["--db", f"sqlite:///{tmp_path / 's.db'}"]
    submitted = ladder("submit", "firsty.py", *where, cwd=tmp_path)
    if submitted.returncode != 0:
        pytest.skip(f"the sandbox cannot run here: {submitted.stderr.strip()[:200]}")
    run = ladder("run", "t.toml", "--no-progress", *where, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    listed = json.loads(ladder("matches", "--json", "--bot", "firsty", *where, cwd=tmp_path).stdout)
    assert len(listed) == 2
    assert all(seat["failure"] is None for match in listed for seat in match["seats"]), listed


def test_dry_run_shows_the_schedule_without_playing(tmp_path: Path) -> None:
    quick = Path(__file__).resolve().parents[2] / "tournaments" / "quick.toml"
    run = ladder("run", str(quick), "--dry-run", "--json", "--db", f"sqlite:///{tmp_path / 'd.db'}", cwd=tmp_path)
    plan = json.loads(run.stdout)
    assert plan["name"] == "quick" and plan["per_cycle"] == sum(plan["matches"].values()) > 0
    assert (
        ladder("tournaments", "--json", "--db", f"sqlite:///{tmp_path / 'd.db'}", cwd=tmp_path).stdout.strip() == "[]"
    )


def test_dry_run_takes_the_hours_and_says_an_adaptive_file_plays_more_than_its_warm_up(tmp_path: Path) -> None:
    """`--dry-run --hours H` ignored H (the plan said "1 cycle(s)", no budget), and an adaptive file's dry run gave
    the warm-up's count and time as if that were the run (known-order: 110 matches and 4 s, then 1542 played);
    found by the fresh-user walk."""
    db = ["--db", f"sqlite:///{tmp_path / 'd.db'}"]
    (tmp_path / "rr.toml").write_text('seed = 1\ngames = ["elfer-raus"]\nbots = ["random", "thumb"]\nplayers = [2]\n')
    plan = json.loads(ladder("run", "rr.toml", "--dry-run", "--hours", "0.5", "--json", *db, cwd=tmp_path).stdout)
    assert plan["hours"] == 0.5
    text = ladder("run", "rr.toml", "--dry-run", "--hours", "0.5", *db, cwd=tmp_path).stdout
    assert "or cycles until 0.5 h are spent" in text
    adaptive = ladder("run", "known-order", "--dry-run", *db, cwd=tmp_path)
    assert adaptive.returncode == 0, adaptive.stderr
    said = " ".join(adaptive.stdout.split())
    assert "known-order: adaptive: a warm-up of 110 matches" in said and "4000 matches" in said, said
    assert "the warm-up's only" in said


def test_a_temporary_folder_too_long_for_a_socket_does_not_stop_a_run(tmp_path: Path) -> None:
    """The workers' fork server listens on a Unix socket under the temporary folder, whose path may be at most 107
    bytes: with a longer TMPDIR (a CI runner's, pytest's) the run still plays, instead of failing in multiprocessing
    with "AF_UNIX path too long"."""
    long_tmp = tmp_path / ("t" * 120)
    long_tmp.mkdir()
    (tmp_path / "two.toml").write_text(
        'seed = 5\ngames = ["elfer-raus"]\nbots = ["random", "thumb"]\nplayers = [2]\ngames_per_pairing = 1\n'
        "workers = 2\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "cli", "run", "two.toml", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**__import__("os").environ, "LADDER_RESULTS": str(tmp_path / "results"), "TMPDIR": str(long_tmp)},
    )
    assert run.returncode == 0, run.stderr
    assert "tournament two #1: complete" in run.stdout
    assert "Traceback" not in run.stderr
