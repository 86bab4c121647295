"""The rules of the ladder's games: pure, deterministic, no I/O.

The engine never imports the rest of the project.
"""

from engine.core import (
    Action,
    DealError,
    Game,
    GameError,
    GameFacts,
    GameResult,
    IllegalActionError,
    OptionError,
    OptionSpec,
    PlayerCountError,
    ScoreOrder,
    State,
    UnknownGameError,
    WinRule,
    ranks_from_scores,
)
from engine.json_values import find_legal, same_json
from engine.registry import all_games, game_ids, get_game, register_game, unregister_game

__all__ = [
    "Action",
    "DealError",
    "Game",
    "GameError",
    "GameFacts",
    "GameResult",
    "IllegalActionError",
    "OptionError",
    "OptionSpec",
    "PlayerCountError",
    "ScoreOrder",
    "State",
    "UnknownGameError",
    "WinRule",
    "all_games",
    "find_legal",
    "game_ids",
    "get_game",
    "ranks_from_scores",
    "register_game",
    "same_json",
    "unregister_game",
]
