"""The author's loop through the real CLI (issue 24): a one-minute quick tournament, names and paths accepted."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bots.registry import bots_for_game
from engine import game_ids

ROOT = Path(__file__).resolve().parents[2]
QUICK_BUDGET = 80  # matches: about a minute on two cores with every built-in bot (docs/benchmarks.md)


def ladder(*args: str, cwd: Path, columns: int = 200) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "LADDER_RESULTS": str(cwd / "results")}
    return subprocess.run(
        [sys.executable, "-m", "cli", *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )


def plan(name: str, where: Path) -> dict:
    run = ladder("run", name, "--dry-run", "--json", "--db", str(where / "plan.db"), cwd=where)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_quick_is_every_game_and_every_built_in_bot_in_a_minute_and_showcase_is_the_big_one(tmp_path: Path) -> None:
    quick = plan("quick", tmp_path)
    assert quick["per_cycle"] * quick["cycles"] <= QUICK_BUDGET, quick["matches"]
    assert sorted(quick["bots"]) == sorted(game_ids())
    for game, bots in quick["bots"].items():
        assert sorted(ref.split("@")[0] for ref in bots) == sorted(bots_for_game(game)), game
    showcase = plan("showcase", tmp_path)
    assert showcase["bots"] == quick["bots"] and showcase["per_cycle"] > 4 * quick["per_cycle"]


def test_the_readme_says_how_many_matches_quick_plays(tmp_path: Path) -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = {int(n) for n in re.findall(r"quick tournament(?:'s|) (?:plays |)(\d+) matches", readme)}
    assert said == {plan("quick", tmp_path)["per_cycle"]}, said


def test_the_readmes_showcase_count_and_quicks_minute_agree_with_their_dry_runs(tmp_path: Path) -> None:
    """The README's other figures of the first command: showcase's match count, and quick's "about a minute on two
    cores" against the dry run's estimate from the built-in bots' measured costs (tournaments.formats.estimate)."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    showcase = {int(n) for n in re.findall(r"`ladder run showcase` plays .*?\((\d+) matches\)", readme)}
    assert showcase == {plan("showcase", tmp_path)["per_cycle"]}, showcase
    assert "quick tournament plays 60 matches (two deals a table), about a minute on two cores" in readme
    estimate = plan("quick", tmp_path)["estimate"]
    assert estimate["by_built_in_costs"] == 60, estimate
    on_two_cores = estimate["match_seconds"] / 2 + estimate["startup_seconds"]
    assert 30 <= on_two_cores <= 90, estimate  # "about a minute"


CRASHY = """from ladder.bot import Bot


class Crashy(Bot):
    name = "failure-prone-bot"  # long enough to push a column off an 80-column table
    games = ("elfer-raus",)

    def act(self, observation, legal_actions):
        if self.match.options.get("rounds") == 1 and self.match.seat == 1:  # the check plays the default 3 rounds
            raise RuntimeError("boom")
        return legal_actions[0]
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Elfer raus matches (random, thumb, a bot with a long name that crashes) in a database given by a plain
    path (no sqlite:/// in front)."""
    where = tmp_path_factory.mktemp("numbers")
    (where / "crashy.py").write_text(CRASHY)
    submitted = ladder("submit", "crashy.py", "--db", "plain.db", "--matches", "1", cwd=where)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    (where / "tiny.toml").write_text(
        'name = "tiny"\nseed = 4\ngames = ["elfer-raus"]\n'
        'bots = ["random", "thumb", "failure-prone-bot"]\n'
        "players = [2]\ngames_per_pairing = 2\nworkers = 1\n"
        "[game.elfer-raus]\noptions = { rounds = 1 }\n"
    )
    run = ladder("run", "tiny.toml", "--no-progress", "--db", str(where / "plain.db"), cwd=where)
    assert run.returncode == 0, run.stderr
    assert "tournament tiny #1: complete" in run.stdout
    # the summary counts what the progress bar counts: every match the run finished, then how each ended
    assert re.search(
        r"12 of 12 matches recorded; this run finished 12 in .*\): played 12\b", " ".join(run.stdout.split())
    )
    return where


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.parametrize("command", [["rankings"], ["matches"], ["tournaments"], ["bots"], ["h2h", "random", "thumb"]])
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_a_plain_path_is_a_database_everywhere(tiny: Path, command: list[str]) -> None:
    run = ladder(*command, "--db", str(tiny / "plain.db"), cwd=tiny)
    assert run.returncode == 0, run.stderr
    assert "random" in run.stdout or "tiny" in run.stdout, run.stdout
    relative = ladder(*command, "--db", "plain.db", cwd=tiny)
    assert relative.returncode == 0 and relative.stdout == run.stdout, relative.stderr


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_matches_takes_a_tournament_by_name_as_rankings_does(tiny: Path) -> None:
    by_name = ladder("matches", "--tournament", "tiny", "--json", "--db", str(tiny / "plain.db"), cwd=tiny)
    assert by_name.returncode == 0, by_name.stderr
    by_id = ladder("matches", "--tournament", "1", "--json", "--db", str(tiny / "plain.db"), cwd=tiny)
    assert json.loads(by_name.stdout) == json.loads(by_id.stdout) and len(json.loads(by_id.stdout)) == 12
    unknown = ladder("matches", "--tournament", "nope", "--db", str(tiny / "plain.db"), cwd=tiny)
    assert (
        unknown.returncode == 2
        and unknown.stderr.strip() == "error: no tournament 'nope' in the database; tournaments: tiny #1"
    ), unknown.stderr


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_at_80_columns_a_long_name_gives_way_and_the_failure_column_stays(tiny: Path) -> None:
    run = ladder("rankings", "elfer-raus", "--db", "plain.db", cwd=tiny, columns=80)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("rank"))
    assert header.rstrip().endswith("fail") and max(len(line) for line in lines) <= 80, run.stdout
    row = next(line for line in lines if "failure-" in line)
    assert re.search(r"\s4$", row.rstrip()), row  # its 4 failures (seat 1 of its 4 matches at one round), whole
    assert "…" not in run.stdout


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_play_names_a_bot_file_by_its_name_and_keeps_its_failures_whole(tiny: Path) -> None:
    run = ladder(
        "play", "elfer-raus", str(tiny / "crashy.py"), "random", "-n", "2", "-o", "rounds=1", cwd=tiny, columns=80
    )
    assert run.returncode == 0, run.stderr
    row = next(line for line in run.stdout.splitlines() if "crashy" in line)
    assert str(tiny) not in row and "exception 2" in row, run.stdout


@pytest.mark.slow
@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_with_a_new_version_every_count_stays_within_the_schedule_and_every_score_inside_its_interval(
    tiny: Path, tmp_path: Path
) -> None:
    """A real database: a tournament resumed after a new version of one of its bots was submitted."""
    where = tmp_path / "copy"
    shutil.copytree(tiny, where, ignore=shutil.ignore_patterns("report"))
    (where / "crashy.py").write_text(
        CRASHY.replace('name = "failure-prone-bot"', 'name = "failure-prone-bot"\n    version = "2"')
    )
    assert ladder("submit", "crashy.py", "--db", "plain.db", "--matches", "1", cwd=where).returncode == 0
    resumed = ladder("run", "tiny.toml", "--no-progress", "--json", "--db", "plain.db", cwd=where)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["played_now"] == 8 and summary["recorded"] <= summary["scheduled"], summary

    listed = json.loads(ladder("tournaments", "--json", "--db", "plain.db", cwd=where).stdout)
    for tournament in listed:
        assert tournament["played"] + tournament["skipped"] <= tournament["scheduled"], tournament
    assert listed[0]["older_versions"] == 8

    rankings = json.loads(ladder("rankings", "--json", "--db", "plain.db", cwd=where).stdout)
    for row in rankings["overall"]:
        low, high = row["score_interval"]
        assert low <= row["score"] <= high, row
    human = ladder("rankings", "--db", "plain.db", cwd=where).stdout
    assert "failure-prone-bot over failure-prone-bot" not in human
    assert "failure-prone-bot " not in " ".join(line for line in human.splitlines() if "least certain" in line)

    report = ladder("report", "--db", "plain.db", cwd=where)
    assert report.returncode == 0, report.stderr
    page = next((where / "results" / "report" / "tournaments").glob("*.html")).read_text()
    done, scheduled = map(int, re.search(r"(\d+) of (\d+) scheduled matches done", page).groups())
    assert done <= scheduled and done == summary["recorded"], (done, scheduled, summary)


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
@pytest.mark.parametrize(
    ("command", "failures"),
    [
        (["matches", "--bot", "failure-prone-bot"], r"\[exception\]"),
        (["matches", "--tournament", "tiny"], r"\s0\.\d\d\s+\d\d:\d\d:\d\d$"),
        (["tournaments"], r"\b12 of 12\b"),
        (["bots"], r"\s[0-9a-f]{8}\s"),
        (["bot", "failure-prone-bot"], r"\s4$"),
        (["h2h", "failure-prone-bot", "random"], r"\s4\s"),
        (["rankings"], r"\s4$"),
    ],
)
@pytest.mark.needs_bot_sandbox  # its tournament enters a submitted bot
def test_every_table_of_bots_fits_80_columns_with_its_numbers_whole(
    tiny: Path, command: list[str], failures: str
) -> None:
    """Issue 24, point 9, in every command that prints a table of bots: no line over 80 columns, no number cut
    (``…`` only ever shortens a name), and the figure that matters (a failure count, a marker) on its row."""
    run = ladder(*command, "--db", "plain.db", cwd=tiny, columns=80)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    paths = [line for line in lines if line.strip().startswith("/")]  # a path is printed whole, to be copied
    assert max(len(line) for line in lines if line not in paths) <= 80, run.stdout
    assert not re.search(r"\d…|…\d", run.stdout), run.stdout  # a number never gives way
    assert any(re.search(failures, line.rstrip()) for line in lines), run.stdout


@pytest.mark.skipif(
    not {"elfer-raus", "elevenses-for-one"} <= set(game_ids()), reason="elfer-raus or elevenses-for-one missing"
)
def test_rankings_of_one_game_say_how_many_of_the_rated_matches_are_in_its_tables(tmp_path: Path) -> None:
    """`ladder rankings GAME` used to print the whole database's count alone under tables of one game's matches."""
    (tmp_path / "two.toml").write_text(
        'name = "two"\nseed = 5\ngames = ["elfer-raus", "elevenses-for-one"]\nbots = ["random", "thumb"]\n'
        "players = [2]\ngames_per_pairing = 3\nworkers = 1\n[game.elfer-raus]\noptions = { rounds = 1 }\n"
    )
    run = ladder("run", "two.toml", "--no-progress", "--db", "two.db", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    listed = json.loads(ladder("matches", "--json", "--limit", "1000", "--db", "two.db", cwd=tmp_path).stdout)
    per_game = {game: sum(m["game"] == game for m in listed) for game in ("elfer-raus", "elevenses-for-one")}
    assert per_game == {"elfer-raus": 6, "elevenses-for-one": 6}  # 3 deals in both seatings; 3 deals for each bot
    one = ladder("rankings", "elfer-raus", "--db", "two.db", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert "12 matches rated, 6 of them in the pools shown" in " ".join(one.stdout.split())
    every = ladder("rankings", "--db", "two.db", cwd=tmp_path)
    assert "12 matches rated" in every.stdout and "of them in the pools shown" not in every.stdout


@pytest.mark.skipif("elfer-raus" not in game_ids(), reason="elfer-raus is not registered")
def test_a_runs_closing_tables_are_of_its_own_matches_when_the_database_holds_others(tmp_path: Path) -> None:
    """The run's notes judge its own tournament; the tables under them judged the whole database, so a pool the
    notes called settled could be "not yet" below them, for another tournament's bots (found by the second walk)."""
    for name, seed, bots, deals in (("first", 5, '["random", "thumb"]', 2), ("second", 6, '["random", "search"]', 1)):
        (tmp_path / f"{name}.toml").write_text(
            f'name = "{name}"\nseed = {seed}\ngames = ["elfer-raus"]\nbots = {bots}\nplayers = [2]\n'
            f"games_per_pairing = {deals}\nworkers = 1\n[game.elfer-raus]\noptions = {{ rounds = 1 }}\n"
        )
    first = ladder("run", "first.toml", "--no-progress", "--db", "both.db", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "4 matches rated" in first.stdout and "in tournament" not in first.stdout  # alone in its database
    second = ladder("run", "second.toml", "--no-progress", "--db", "both.db", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    words = " ".join(second.stdout.split())
    assert "2 matches rated (in tournament second #2; `ladder rankings` for the whole database)" in words, words
    assert "tournament second #2: complete" in words and "thumb" not in words  # the first tournament's bot is not shown
    whole = ladder("rankings", "--db", "both.db", cwd=tmp_path)
    assert "6 matches rated" in whole.stdout and "thumb" in whole.stdout
