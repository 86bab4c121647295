"""Tournament files: good ones parse, bad ones stop with one sentence naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.errors import UserError
from ladder.sandbox.limits import SandboxLimits
from tournaments.formats.config import load_tournament, parse_tournament, shipped_tournaments, tournament_file

HERE = Path(__file__).resolve().parents[2] / "tournaments"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(UserError) as caught:
        load_tournament(write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(tmp_path / "t.toml"))
    return message


def test_shipped_files_parse() -> None:
    for name in ("quick.toml", "overnight.toml", "showcase.toml"):
        config = load_tournament(HERE / name)
        assert config.games and config.seed >= 0


def test_a_full_file_parses(toy, tmp_path: Path) -> None:
    config = load_tournament(
        write(
            tmp_path,
            """
        name = "mine"
        seed = 7
        games = ["toy-coins", "toy-solo"]
        bots = ["random", "greedy"]
        games_per_pairing = 3
        cycles = 2
        hours = 1.5
        workers = 2
        [limits]
        move_seconds = 0.5
        bench_after_failures = 2
        [game.toy-coins]
        players = [2, 3]
        options = [{ coins = 3 }, { coins = 5 }]
        games_per_pairing = 4
    """,
        )
    )
    assert config.name == "mine" and config.seed == 7 and config.cycles == 2 and config.hours == 1.5
    assert config.limits == SandboxLimits(move_seconds=0.5, bench_after_failures=2)
    coins, solo = config.games
    assert coins.players == (2, 3) and coins.games_per_pairing == 4
    assert [o["coins"] for o in coins.option_sets] == [3, 5]
    assert solo.players == (1,) and solo.games_per_pairing == 3 and solo.bots == ("random", "greedy")


def test_defaults(toy) -> None:
    config = parse_tournament({"seed": 1, "games": ["toy-coins"]}, "x.toml", "x")
    assert config.name == "x" and config.format == "round-robin" and config.cycles == 1 and config.hours is None
    (coins,) = config.games
    assert coins.players == (2, 3) and coins.bots is None and coins.option_sets == ({"coins": 12},)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("seed = 1\ngams = 'all'", ["gams: unknown key"]),
        ("games = 'all'", ["seed: is missing"]),
        ("seed = 'x'", ["seed: must be an integer"]),
        ("seed = 1\nformat = 'swiss'", ["format: must be one of round-robin"]),
        ("seed = 1\ngames = ['nope']", ["games: no game 'nope'"]),
        ("seed = 1\ngames = []", ['games: must be "all" or a non-empty list']),
        ("seed = 1\ngames_per_pairing = 0", ["games_per_pairing: must be at least 1"]),
        ("seed = 1\nhours = -2", ["hours: must be more than 0"]),
        ("seed = 1\nworkers = 1.5", ["workers: must be an integer"]),
        ("seed = 1\nbots = ['random', 'random']", ['bots: lists "random" twice']),
        ("seed = 1\n[limits]\nmove_secs = 1", ["limits.move_secs: unknown key"]),
        ("seed = 1\n[limits]\nmemory_mb = 'lots'", ["limits.memory_mb: must be an integer"]),
        ("seed = 1\n[game.nope]\nplayers = [2]", ["game.nope: no game 'nope'"]),
        ("seed = 1\ngames = ['toy-solo']\n[game.toy-coins]\nplayers = [2]", ["game.toy-coins: toy-coins is not among"]),
        (
            "seed = 1\n[game.toy-coins]\nplayers = [7]",
            ["game.toy-coins.players: 7 is not a player count of toy-coins (2-3 players)"],
        ),
        ("seed = 1\n[game.toy-coins]\nplayer = [2]", ["game.toy-coins.player: unknown key"]),
        (
            "seed = 1\n[game.toy-coins]\noptions = { coins = 1 }",
            ["game.toy-coins.options: option 'coins' must be at least 2"],
        ),
        (
            "seed = 1\n[game.toy-coins]\noptions = [{ coins = 3 }, { colour = 1 }]",
            ["game.toy-coins.options[1]: game 'toy-coins' has no option 'colour'"],
        ),
        ("seed = 1\n[game.toy-solo]\nplayers = [2]", ["game.toy-solo.players: toy-solo is a solitaire"]),
        ("seed = 1\ngames = ['toy-coins']\nplayers = [5]", ["players: none of [5] suits toy-coins"]),
        ("seed = 1\nnot toml at all", ["not valid TOML"]),
    ],
)
def test_bad_files_name_the_key(toy, tmp_path: Path, text: str, fragments: list[str]) -> None:
    message = error_of(tmp_path, text)
    for fragment in fragments:
        assert fragment in message, message


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no tournament file"):
        load_tournament(tmp_path / "nope.toml")


def test_a_bare_name_finds_the_shipped_file_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert set(shipped_tournaments()) == {"quick", "overnight", "known-order", "showcase"}
    for name in ("quick", "quick.toml", "overnight", "known-order", "showcase"):
        found = tournament_file(name)
        assert found == HERE / f"{Path(name).stem}.toml"
    config = load_tournament("quick")
    assert config.name == "quick" and config.path == str(HERE / "quick.toml")


def test_a_path_keeps_working_and_a_local_file_wins_over_a_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quick.toml").write_text('name = "mine"\nseed = 3\ngames = ["elevenses"]\n')
    assert load_tournament("quick.toml").name == "mine"
    assert tournament_file("quick.toml") == Path("quick.toml")
    assert load_tournament(HERE / "overnight.toml").name == "overnight"
    assert tournament_file(str(HERE / "quick.toml")) == HERE / "quick.toml"


def test_an_unknown_name_lists_the_shipped_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as caught:
        load_tournament("quik")
    message = str(caught.value)
    assert "no tournament file 'quik'" in message and "known-order, overnight, quick" in message and "\n" not in message
    with pytest.raises(UserError, match="no tournament file 'sub/quick'"):
        load_tournament("sub/quick")  # a path is a path: only a bare name means a shipped file


@pytest.mark.parametrize(
    ("limits", "fragment"),
    [
        ("bank_seconds = -1", "limits.bank_seconds: must be 0 or more seconds of CPU time, not -1"),
        ("move_wall_seconds = 'x'", 'limits.move_wall_seconds: must be a number, not "x"'),
        ("memory_mb = 8", "limits.memory_mb: must be at least 16, not 8"),
        ("packages = 'numpy'", 'limits.packages: must be a list of package names, not "numpy"'),
    ],
)
def test_limits_are_checked_by_the_schema(tmp_path: Path, limits: str, fragment: str) -> None:
    assert fragment in error_of(tmp_path, f"seed = 1\n[limits]\n{limits}\n")


def test_the_clock_limits_are_read(toy) -> None:
    config = parse_tournament(
        {"seed": 1, "games": ["toy-coins"], "limits": {"move_seconds": 1, "bank_seconds": 30, "move_wall_seconds": 2.5}}
    )
    assert (config.limits.move_seconds, config.limits.bank_seconds, config.limits.move_wall_seconds) == (1.0, 30.0, 2.5)
    assert parse_tournament({"seed": 1, "games": ["toy-coins"]}).limits == SandboxLimits()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("seed = true", "seed: must be an integer, not true"),
        ("seed = -1", "seed: must be at least 0, not -1"),
        ("seed = 1\nname = ' '", 'name: must be a non-empty string, not " "'),
        ("seed = 1\nbackend = 'spark'", 'backend: must be one of local, dask, not "spark"'),
        ("seed = 1\nplayers = [2, 'x']", 'players: must list int values, not "x"'),
        ("seed = 1\nlimits = 3", "limits: must be a table, not 3"),
        ("seed = 1\ngame = 3", "game: must hold one table per game ([game.<id>]), not 3"),
        ("seed = 1\n[game.toy-coins]\noptions = []", "game.toy-coins.options: is an empty list"),
        (
            "seed = 1\n[game.toy-coins]\noptions = [3]",
            "game.toy-coins.options[0]: must be a table of option = value, not 3",
        ),
        (
            "seed = 1\nformat = 'adaptive'\n[adaptive]\nindifference = -1",
            "adaptive.indifference: must be a number of mu points, 0 or more, not -1",
        ),
    ],
)
def test_each_mistake_is_one_sentence_naming_the_key(toy, tmp_path: Path, text: str, message: str) -> None:
    assert message in error_of(tmp_path, text)


def test_an_unknown_key_names_the_keys_allowed_in_its_table(toy, tmp_path: Path) -> None:
    message = error_of(tmp_path, "seed = 1\n[game.toy-coins]\nplayer = [2]")
    assert message.endswith(
        "game.toy-coins.player: unknown key (allowed here: players, options, games_per_pairing, bots)"
    )
