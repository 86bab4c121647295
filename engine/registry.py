"""The registry of games by id.

Games are listed here explicitly (one module per game) so that the set of
games is obvious and importing the engine never runs plugin code. Tests and
tools that bring a game of their own (a toy game) add it with
:func:`register_game` and take it away with :func:`unregister_game`.
"""

from __future__ import annotations

import importlib

from engine.core import Game, UnknownGameError

_GAME_MODULES: tuple[str, ...] = (
    "engine.elevenses",
    "engine.elevenses_for_one",
    "engine.elfer_raus",
    "engine.bowling_solitaire",
)

_games: dict[str, Game] | None = None


def _load() -> dict[str, Game]:
    global _games
    if _games is None:
        found: dict[str, Game] = {}
        for module_name in _GAME_MODULES:
            module = importlib.import_module(module_name)
            game: Game = module.GAME
            found[game.id] = game
        _games = found
    return _games


def register_game(game: Game, *, replace: bool = False) -> None:
    """Add ``game`` to this process's registry under ``game.id``.

    Registering the very same game object again does nothing; another game under a taken id raises
    ``ValueError`` unless ``replace`` (so a typo cannot silently shadow a real game).
    """
    games = _load()
    known = games.get(game.id)
    if known is not None and known is not game and not replace:
        raise ValueError(
            f"a game {game.id!r} is already registered ({type(known).__name__}); pass replace=True to replace it"
        )
    games[game.id] = game


def unregister_game(game_id: str) -> None:
    """Take the game ``game_id`` out of this process's registry (nothing happens if it is not there)."""
    _load().pop(game_id, None)


def all_games() -> list[Game]:
    """Every registered game, sorted by id."""
    return [game for _, game in sorted(_load().items())]


def game_ids() -> list[str]:
    return sorted(_load())


def get_game(game_id: str) -> Game:
    """The game registered as ``game_id``; raises :class:`UnknownGameError` with the known ids."""
    games = _load()
    try:
        return games[game_id]
    except KeyError:
        raise UnknownGameError(f"no game {game_id!r}; known games: {', '.join(sorted(games))}") from None
