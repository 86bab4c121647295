"""Tournament files: good ones parse, bad ones stop with one sentence naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ladder.errors import UserError
from tournaments.config import Limits, load_tournament, parse_tournament

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
    for name in ("quick.toml", "overnight.toml"):
        config = load_tournament(HERE / name)
        assert config.games and config.seed >= 0


def test_a_full_file_parses(toy, tmp_path: Path) -> None:
    config = load_tournament(write(tmp_path, """
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
    """))
    assert config.name == "mine" and config.seed == 7 and config.cycles == 2 and config.hours == 1.5
    assert config.limits == Limits(move_seconds=0.5, bench_after_failures=2)
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
        ("seed = 1\nbots = ['random', 'random']", ["bots: lists \"random\" twice"]),
        ("seed = 1\n[limits]\nmove_secs = 1", ["limits.move_secs: unknown key"]),
        ("seed = 1\n[limits]\nmemory_mb = 'lots'", ["limits.memory_mb: must be an integer"]),
        ("seed = 1\n[game.nope]\nplayers = [2]", ["game.nope: no game 'nope'"]),
        ("seed = 1\ngames = ['toy-solo']\n[game.toy-coins]\nplayers = [2]", ["game.toy-coins: toy-coins is not among"]),
        ("seed = 1\n[game.toy-coins]\nplayers = [7]", ["game.toy-coins.players: 7 is not a player count of toy-coins (2-3 players)"]),
        ("seed = 1\n[game.toy-coins]\nplayer = [2]", ["game.toy-coins.player: unknown key"]),
        ("seed = 1\n[game.toy-coins]\noptions = { coins = 1 }", ["game.toy-coins.options: option 'coins' must be at least 2"]),
        ("seed = 1\n[game.toy-coins]\noptions = [{ coins = 3 }, { colour = 1 }]", ["game.toy-coins.options[1]: game 'toy-coins' has no option 'colour'"]),
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
